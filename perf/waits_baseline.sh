#!/bin/sh
# perf/waits_baseline.sh — how long pgtempo-waits takes to compare a week of
# the always-on service's files with the week before.
#
# Writes 14 daily files as the service writes them (waits-YYYYMMDD.csv,
# --log-interval=10: 8,640 intervals a day, one line per group and a health
# record per interval, in the formats of format.c) with GROUPS groups per
# interval (default 10: events of 2 applications), then runs
#   pgtempo-waits --from-log DIR/waits-*.csv --since=WEEK2 --until=END --baseline-since=-7d --json
# RUNS times and prints the medians of the wall time and of the CPU time
# (user + sys), and the files' size.
#
# Target: under 1 s.
#
# usage: perf/waits_baseline.sh [RUNS]     (default 5)
# env:   OURS (our binary, default ./pgtempo-waits), GROUPS (default 10),
#        PERF_DIR (scratch, default a temp dir)
set -eu
runs=${1:-5}
ours=${OURS:-./pgtempo-waits}
groups=${GROUPS:-10}
dir=${PERF_DIR:-$(mktemp -d /tmp/waits_baseline.XXXXXX)}

cat >"$dir/gen.pl" <<'PERL'
use strict;
use warnings;
use POSIX qw(strftime);
my ($dir, $groups) = @ARGV;
my $t0 = 1795651200;		# 2026-11-26T00:00:00Z
my @ev = ([qw(IO DataFileRead)], [qw(LWLock WALWrite)], [qw(Lock transactionid)], ['', ''],
	[qw(Client ClientRead)], [qw(IO WALSync)], [qw(LWLock BufferMapping)], [qw(IPC SyncRep)],
	[qw(IO DataFileWrite)], [qw(LWLock LockManager)]);
my $seed = 12345;
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return $seed / 2147483648 }
sub ts { strftime('%Y-%m-%dT%H:%M:%S.000000Z', gmtime $_[0]) }
for my $day (0 .. 13)
{
	my $d0 = $t0 + 86400 * $day;
	open my $fh, '>', sprintf('%s/waits-%s.csv', $dir, strftime('%Y%m%d', gmtime $d0)) or die;
	print $fh "interval_start,interval_end,ticks,datname,usename,application_name,backend_type,wait_event_type,wait_event,query_id,samples,pct,est_seconds,measured_seconds,measured_count\n";
	print $fh '# meta {"type":"meta","log_version":1,"tool":"pgtempo-waits 0.1.0","run":"' . ts($d0)
	  . '","source":"pg_stat_activity","server":"/run/postgresql:5432","server_version":"15.20",'
	  . '"interval_s":0.01,"period_s":0.01,"include_idle":false,"measured":false,'
	  . '"backend_types":["client backend"],"backend_types_given":false}' . "\n";
	for my $i (0 .. 8639)
	{
		my ($a, $b) = (ts($d0 + 10 * $i), ts($d0 + 10 * $i + 10));
		for my $g (0 .. $groups - 1)
		{
			my $e = $ev[$g % @ev];
			my $n = int(50 + 400 * rnd() / (1 + $g % @ev));
			printf $fh "%s,%s,1000,shop,app,app_%d,client backend,%s,%s,%d,%d,%.2f,%.6f,,\n", $a, $b,
			  int($g / @ev), $e->[0], $e->[1], 1000 + $g, $n, $n / 10, $n / 100;
		}
		printf $fh "# health ts=%s samples=%d elapsed_s=%.3f rate_hz=100.00 missed_ticks=0 gap_ticks=0 failed_samples=0 latency_p50_ms=0.300 latency_p99_ms=1.200 latency_max_ms=3.000 gaps=0 gap_seconds=0.000 hidden_rows=0 interval_s=0.010000\n",
		  $b, 1000 * ($i + 1), 10 * ($i + 1);
	}
	close $fh or die;
}
PERL
[ -e "$dir/waits-20261209.csv" ] || perl "$dir/gen.pl" "$dir" "$groups"

# median FILE: the middle line of the sorted numbers
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: >"$dir/wall"
: >"$dir/cpu"
i=0
while [ "$i" -lt "$runs" ]; do
	/usr/bin/time -f '%e %U %S' -o "$dir/t" "$ours" --from-log "$dir"/waits-*.csv \
		--since=2026-12-03T00:00Z --until=2026-12-10T00:00Z --baseline-since=-7d --json >/dev/null
	awk '{ print $1 >> "'"$dir/wall"'"; print $2 + $3 >> "'"$dir/cpu"'" }' "$dir/t"
	i=$((i + 1))
done
echo "files: $(du -sh "$dir" | cut -f1) in 14 daily files of $groups groups per 10 s interval"
echo "week against week: median wall $(median "$dir/wall") s, CPU $(median "$dir/cpu") s (of $runs runs)"
