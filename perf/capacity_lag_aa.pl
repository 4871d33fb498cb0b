#!/usr/bin/perl
# How often --capacity's steady-state test calls a stationary step "not
# steady": N open-loop runs at a rate well below the ceiling (where the
# schedule lag cannot grow), each judged as a step is (capacity.c,
# step_lag): least-squares slope of the per-second lag, its lower 95 %
# bound (Student's t) times the span against LIMIT_MS.
#
# Usage: perf/capacity_lag_aa.pl BENCH RATE N LIMIT_MS -- BENCH-OPTIONS...
use strict;
use warnings;
use JSON::PP;
use File::Temp qw(tempdir);

my ($bench, $rate, $n, $limit) = splice(@ARGV, 0, 4);
shift @ARGV if @ARGV && $ARGV[0] eq '--';
my $dir = tempdir(CLEANUP => 1);
# one-sided 95 % quantiles of Student's t for 2..30 degrees of freedom
my @t95 = (0, 6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812, 1.796,
	1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725, 1.721, 1.717, 1.714,
	1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697);
my $alarms = 0;
for my $i (1 .. $n)
{
	# the report and the step's lines are not wanted: the JSON is read
	open my $keep, '>&', \*STDOUT or die;
	open STDOUT, '>', '/dev/null' or die;
	my $rc = system($bench, @ARGV, '-R', $rate, '-T', 9, '-P', 1, '--warmup=auto:5',
		"--json=$dir/r.json");
	open STDOUT, '>&', $keep or die;
	die "run $i failed\n" if $rc != 0;
	my $j = do { open my $fh, '<', "$dir/r.json" or die; local $/; decode_json(<$fh>) };
	my @p = @{ $j->{progress} };
	my $m = @p;
	my ($mt, $ml) = (0, 0);
	$mt += $_->{time_s} / $m for @p;
	$ml += $_->{lag_ms} / $m for @p;
	my ($sxx, $sxy, $sse) = (0, 0, 0);
	for (@p) { my $d = $_->{time_s} - $mt; $sxx += $d * $d; $sxy += $d * ($_->{lag_ms} - $ml); }
	my $b = $sxy / $sxx;
	$sse += ($_->{lag_ms} - $ml - $b * ($_->{time_s} - $mt))**2 for @p;
	my $se = sqrt($sse / ($m - 2) / $sxx);
	my $span = $p[-1]{time_s} - $p[0]{time_s} + $p[0]{interval_s};
	my $lo = ($b - $t95[ $m - 2 ] * $se) * $span;
	my $alarm = $lo > $limit;
	$alarms += $alarm;
	printf "run %d: %d points, slope %.3f ms/s, growth lower bound %.3f ms: %s\n", $i, $m, $b, $lo,
		$alarm ? 'NOT STEADY' : 'steady';
}
printf "%d of %d stationary runs called not steady\n", $alarms, $n;
