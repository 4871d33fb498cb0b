
=pod

=head1 NAME

PgTempo::Metrics - read the Prometheus text files the tools write (--metrics)

=head1 SYNOPSIS

  use PgTempo::Metrics;
  my $m = parse_metrics($text);
  my $tx = metric_value($m, 'pgtempo_bench_transactions_total', script => '0');
  my $count = check_histogram($m, 'pgtempo_bench_latency_seconds', 'latency');
  promtool_ok($path, 'metrics file');

=head1 DESCRIPTION

A small reader of Prometheus' text format 0.0.4, enough for the tests to
compare a file's numbers with the tool's own report, and the check that
Prometheus' promtool accepts the file (skipped, saying so, where promtool is
not installed: Debian's prometheus package has it).

=over

=cut

package PgTempo::Metrics;

use strict;
use warnings;

use Exporter 'import';
use File::Path qw(make_path);
use HTTP::Tiny;
use IO::Socket::INET;
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;

our @EXPORT = qw(parse_metrics metric_samples metric_value check_histogram promtool_ok
  dir_entries same_number small_disk_allowed run_on_full_disk prometheus_bin start_listening
  start_prometheus prometheus_query);

# A value as Prometheus spells it, as a Perl number.
sub _num
{
	my ($v) = @_;
	return 9**9**9 if $v eq '+Inf';
	return -9**9**9 if $v eq '-Inf';
	return 'NaN' if $v eq 'NaN';
	return $v + 0;
}

sub _unescape
{
	my ($v) = @_;
	$v =~ s/\\(.)/$1 eq 'n' ? "\n" : $1/ge;
	return $v;
}

=pod

=item parse_metrics(TEXT)

A hash: C<type> and C<help> (family name to text), C<samples> (a list of
{name, labels => {...}, value}) and C<errors> (lines that did not parse).

=cut

sub parse_metrics
{
	my ($text) = @_;
	my (%type, %help, @samples, @errors);
	for my $line (split /\n/, $text)
	{
		if ($line =~ /^# HELP (\S+) (.*)$/) { $help{$1} = $2; next; }
		if ($line =~ /^# TYPE (\S+) (\S+)$/) { $type{$1} = $2; next; }
		next if $line =~ /^#/;
		if ($line !~ /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/)
		{
			push @errors, $line;
			next;
		}
		my ($name, $l, $v) = ($1, $2, $3);
		my %labels;
		if (defined $l)
		{
			while ($l =~ /\G([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)",?/gc)
			{
				$labels{$1} = _unescape($2);
			}
			push @errors, $line if (pos($l) // 0) != length($l);
		}
		push @samples, { name => $name, labels => \%labels, value => _num($v) };
	}
	return { type => \%type, help => \%help, samples => \@samples, errors => \@errors };
}

=pod

=item metric_samples(M, NAME, LABEL => VALUE, ...)

The samples named NAME whose labels include the ones given.

=cut

sub metric_samples
{
	my ($m, $name, %want) = @_;
	return grep {
		my $s = $_;
		$s->{name} eq $name
		  && !grep { !defined $s->{labels}{$_} || $s->{labels}{$_} ne $want{$_} } keys %want
	} @{ $m->{samples} };
}

=pod

=item metric_value(M, NAME, LABEL => VALUE, ...)

The value of the one sample that matches (undef if none; dies if several).

=cut

sub metric_value
{
	my @s = metric_samples(@_);
	die "several samples of $_[1] match" if @s > 1;
	return @s ? $s[0]{value} : undef;
}

=pod

=item check_histogram(M, NAME, WHAT, LABEL => VALUE, ...)

Test that the histogram's buckets are cumulative (never decreasing as le
grows), that the last one is +Inf and equals _count, and that _sum is
there; returns _count.

=cut

sub check_histogram
{
	my ($m, $name, $what, %labels) = @_;
	my @b = sort { $a->{labels}{le} eq '+Inf' ? 1 : $b->{labels}{le} eq '+Inf' ? -1
		  : $a->{labels}{le} <=> $b->{labels}{le} }
	  metric_samples($m, "${name}_bucket", %labels);
	my $count = metric_value($m, "${name}_count", %labels);
	ok(@b >= 1, "$what: buckets");
	ok(defined metric_value($m, "${name}_sum", %labels), "$what: _sum");
	is(scalar(grep { $b[$_]{value} < $b[ $_ - 1 ]{value} } 1 .. $#b), 0,
		"$what: buckets never decrease");
	is(@b ? $b[-1]{labels}{le} : undef, '+Inf', "$what: the last bucket is +Inf");
	is(@b ? $b[-1]{value} : undef, $count, "$what: +Inf bucket equals _count");
	return $count;
}

=pod

=item promtool_ok(PATH, WHAT)

One test: C<promtool check metrics> accepts the file (its lint included);
skipped where promtool is not installed.

=cut

sub promtool_ok
{
	my ($path, $what) = @_;
  SKIP:
	{
		skip "promtool not installed (Debian: apt-get install prometheus): $what not checked", 1
		  unless system('command -v promtool >/dev/null 2>&1') == 0;
		my $out = `promtool check metrics < '$path' 2>&1`;
		my $rc = $? >> 8;
		is($rc, 0, "$what: promtool check metrics accepts it") or diag($out);
	}
	return;
}

=pod

=item dir_entries(DIR)

The names in a directory, sorted (. and .. left out): what a write left there.

=cut

sub dir_entries
{
	my ($d) = @_;
	opendir my $dh, $d or die "cannot read $d: $!";
	my @e = sort grep { !/^\.\.?$/ } readdir $dh;
	closedir $dh;
	return @e;
}

=pod

=item prometheus_bin()

The Prometheus server's binary from C<PATH> (Debian: prometheus), or undef.

=cut

sub prometheus_bin
{
	my ($p) = grep { -x } map { "$_/prometheus" } split /:/, $ENV{PATH} // '';
	$p //= '/usr/bin/prometheus' if -x '/usr/bin/prometheus';
	return $p;
}

=pod

=item start_listening(\@cmd)

Start C<pgtempo-waits> with a C<--listen> option and wait (at most a minute)
until it says where it serves; returns C<($handle, $url, \$stdout, \$stderr)>,
C<$url> undef when it did not (the run ended or was too slow).

=cut

sub start_listening
{
	my ($cmd) = @_;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start($cmd, '>', \$out, '2>', \$err);
	my $t0 = time;
	my $re = qr{serving metrics on (https?://\S+/metrics)};
	$h->pump until $err =~ $re || !$h->pumpable || time - $t0 > 60;
	my ($url) = $err =~ $re;
	return ($h, $url, \$out, \$err);
}

=pod

=item start_prometheus(DIR, CONFIG)

Start a Prometheus server with the configuration text C<CONFIG> (written to
F<DIR/prometheus.yml>, its data under F<DIR/data>) on a free port of
127.0.0.1; returns a hash of C<h> (its IPC::Run handle, C<$p-E<gt>{h}-E<gt>signal('TERM')> ends
it), C<port>, and C<err> (a reference to its standard error).

=cut

sub start_prometheus
{
	my ($dir, $config) = @_;
	my $probe = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 1)
	  or die "listen: $!";
	my $port = $probe->sockport;
	close $probe;
	write_file("$dir/prometheus.yml", $config);
	my ($pout, $perr) = ('', '');
	my $h = IPC::Run::start([ prometheus_bin(), "--config.file=$dir/prometheus.yml",
		"--storage.tsdb.path=$dir/data", "--web.listen-address=127.0.0.1:$port" ],
		'>', \$pout, '2>', \$perr);
	return { h => $h, port => $port, err => \$perr };
}

=pod

=item prometheus_query(P, QUERY)

The first value of an instant query to the server C<P> of start_prometheus,
or undef (no such series, or the server not answering yet).

=cut

sub prometheus_query
{
	my ($p, $q) = @_;
	my $api = HTTP::Tiny->new(timeout => 5);
	$p->{h}->pump_nb;
	my $r = $api->get("http://127.0.0.1:$p->{port}/api/v1/query?" . $api->www_form_urlencode({ query => $q }));
	return undef unless $r->{success};
	my $d = eval { decode_json($r->{content}) } or return undef;
	my $res = $d->{data}{result} // [];
	return @$res ? $res->[0]{value}[1] : undef;
}

=pod

=item same_number(A, B)

A and B agree to 1e-9 relative: one number written in two units or two
formats (a file's seconds and a report's nanoseconds).

=cut

sub same_number
{
	my ($a, $b) = @_;
	return 0 unless defined $a && defined $b;
	return abs($a - $b) <= 1e-9 * (abs($a) + abs($b)) + 1e-18;
}

=pod

=item small_disk_allowed(DIR)

Whether a 64 kB tmpfs can be mounted on DIR in a user and mount namespace
of our own (what run_on_full_disk needs; kernels may forbid it).

=cut

sub small_disk_allowed
{
	my ($dir) = @_;
	return system('unshare --user --map-root-user --mount sh -c '
		  . "'mount -t tmpfs -o size=64k tmpfs \"\$1\"' sh $dir >/dev/null 2>&1") == 0;
}

=pod

=item run_on_full_disk(FS, SAVE, OLD, CMD, %opts)

Run CMD (run_tool's arguments) with a fresh 64 kB tmpfs on FS holding the
file OLD ("# old and complete\n") and all but 4 kB taken; what is left there
is copied to SAVE afterwards.  Returns run_tool's (exit, stdout, stderr).

=cut

sub run_on_full_disk
{
	my ($fs, $save, $old, $cmd, %opts) = @_;
	make_path($fs, $save);
	my $script = 'mount -t tmpfs -o size=64k tmpfs "$1" || exit 99; '
	  . 'echo "# old and complete" >"$1/$3"; '
	  . 'head -c 61440 /dev/zero >"$1/fill" 2>/dev/null; '
	  . 'fs=$1; dst=$2; shift 3; "$@"; rc=$?; '
	  . 'rm -f "$fs/fill"; cp "$fs"/* "$dst"/ || exit 98; exit $rc';
	return run_tool([ 'unshare', '--user', '--map-root-user', '--mount', 'sh', '-c', $script, 'sh',
			$fs, $save, $old, @$cmd ], %opts);
}

=pod

=back

=cut

1;
