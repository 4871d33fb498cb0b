# perf/merge_gen.pl — scale one pgtempo-bench --json report to a long run
# on many hosts, for perf/merge.sh.
#
# usage: perl merge_gen.pl REPORT.json OUTDIR HOSTS SECONDS
#
# The report's -P lines and rows of "intervals" are repeated (with their
# times moved) until there are SECONDS of them, its histogram's counts, latency sums and command
# sums are multiplied by SECONDS / its duration (so the counts stay
# consistent: the histogram still sums to "count"), and HOSTS copies are
# written as OUTDIR/hostN.json, each with its own host name.
use strict;
use warnings;

use JSON::PP;

my ($in, $outdir, $hosts, $secs) = @ARGV;
die "usage: perl merge_gen.pl REPORT.json OUTDIR HOSTS SECONDS\n" unless defined $secs;
open my $fh, '<', $in or die "$in: $!\n";
my $r = JSON::PP->new->decode(do { local $/; <$fh> });
close $fh;

my $res = $r->{results};
my $f = int($secs / $res->{duration_s} + 0.5);
$f = 1 if $f < 1;

# a latency object: counts and sums multiplied by $f
sub scale_latency
{
	my ($l) = @_;
	$_->{count} *= $f for @{ $l->{histogram} };
	$l->{count} *= $f;
	$l->{sum_ns} *= $f;
	$l->{sum_squares_ns2} *= $f;
}

sub scale_tx
{
	my ($t) = @_;
	for my $k (qw(total processed failed serialization_failures deadlock_failures
		other_failures skipped late retried retries))
	{
		$t->{$k} *= $f if defined $t->{$k};
	}
}

scale_latency($res->{latency});
scale_tx($res->{transactions});
for my $s (@{ $res->{scripts} })
{
	scale_latency($s->{latency}) unless $s->{latency} == $res->{latency};
	scale_tx($s->{transactions});
	for my $c (@{ $s->{commands} || [] })
	{
		$c->{count} *= $f;
		$c->{latency_sum_ns} *= $f;
	}
}
$res->{duration_s} = $secs + ($res->{duration_s} - int($res->{duration_s}));
$r->{end_epoch_s} = $r->{bench_start_epoch_s} + $res->{duration_s};
$r->{settings}{duration_s} = $secs;

if (ref $r->{progress} eq 'ARRAY' && @{ $r->{progress} })
{
	my @p = @{ $r->{progress} };
	my @out;
	for my $k (1 .. $secs)
	{
		my %e = %{ $p[ ($k - 1) % @p ] };
		$e{time_s} = $k + ($e{time_s} - int($e{time_s}));
		$e{epoch_s} = $r->{bench_start_epoch_s} + $e{time_s};
		push @out, \%e;
	}
	$r->{progress} = \@out;
}

# the per-interval series: its rows repeated the same way
if (ref $r->{intervals} eq 'HASH' && @{ $r->{intervals}{rows} })
{
	my @rows = @{ $r->{intervals}{rows} };
	my @new;
	for my $k (1 .. $secs)
	{
		my @e = @{ $rows[ ($k - 1) % @rows ] };
		$e[0] = $k + ($e[0] - int($e[0]));
		$e[1] = $r->{bench_start_epoch_s} + $e[0];
		push @new, \@e;
	}
	$r->{intervals}{rows} = \@new;
}

# canonical: the same settings in the same order in every copy (--compare
# checks them); the rows of the series one to a line, as the tool writes them
my @rows = ref $r->{intervals} eq 'HASH' ? @{ $r->{intervals}{rows} } : ();
$r->{intervals}{rows} = '@ROWS@' if @rows;
my $text = JSON::PP->new->pretty->canonical->encode($r);
my $rows = "[\n" . join(",\n", map { JSON::PP->new->canonical->encode($_) } @rows) . "\n]";
$text =~ s/"\@ROWS\@"/$rows/;
for my $h (1 .. $hosts)
{
	my $t = $text;
	$t =~ s/"host" : "[^"]*"/"host" : "client$h"/;
	open my $o, '>', "$outdir/host$h.json" or die "$outdir/host$h.json: $!\n";
	print $o $t or die "$outdir/host$h.json: $!\n";
	close $o or die "$outdir/host$h.json: $!\n";
}
