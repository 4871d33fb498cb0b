#!/bin/sh
# perf/waits_fromlog.sh — how long pgtempo-waits --from-log takes to read
# back what a long run writes.
#
# Writes two logs in the exact formats of --log (the meta, row, profile and
# health records of format.c): an hour of raw rows at 100 Hz with 5 active
# sessions (360,000 samples, 1.8 million rows), and a day of --log-interval=10
# profiles of the same 5 sessions over 12 wait events (8,640 intervals), each
# as CSV and as JSON Lines.  Then reads each back RUNS times (--json, the
# default --by) and prints the medians of the wall time and of the CPU time
# (user + sys), and the file sizes: what a day costs on disk.
#
# Target: under 2 s for each report.
#
# usage: perf/waits_fromlog.sh [RUNS]     (default 5)
# env:   OURS (our binary, default ./pgtempo-waits), PERF_DIR (scratch, default a temp dir)
set -eu
runs=${1:-5}
ours=${OURS:-./pgtempo-waits}
dir=${PERF_DIR:-$(mktemp -d /tmp/waits_fromlog.XXXXXX)}

# gen.pl FORMAT KIND: the log on standard output
cat >"$dir/gen.pl" <<'PERL'
use strict;
use warnings;
use POSIX qw(strftime);
my ($fmt, $kind) = @ARGV;
my $t0 = 1795651200 * 1000000;		# 2026-11-26T00:00:00Z
my @ev = ([qw(Lock relation)], [qw(LWLock WALWrite)], [qw(IO DataFileRead)], [qw(CPU CPU)],
	[qw(Client ClientRead)], [qw(IO WALSync)], [qw(Timeout PgSleep)], [qw(LWLock BufferMapping)],
	[qw(IPC BgWorkerShutdown)], [qw(Lock transactionid)], [qw(IO DataFileWrite)], [qw(LWLock LockManager)]);
sub ts { my ($us) = @_; strftime('%Y-%m-%dT%H:%M:%S', gmtime int($us / 1e6)) . sprintf('.%06dZ', $us % 1e6) }
my $meta = '{"type":"meta","log_version":1,"tool":"pgtempo-waits 0.1.0","run":"' . ts($t0)
  . '","source":"pg_stat_activity","server":"/run/postgresql:5432","server_version":"15.20",'
  . '"interval_s":0.01,"period_s":0.01,"include_idle":false,"measured":false,'
  . '"backend_types":["client backend","parallel worker","autovacuum worker","walsender"],'
  . '"backend_types_given":false}';
sub health
{
	my ($us, $n) = @_;
	my $el = ($us - $t0) / 1e6;
	return $fmt eq 'csv'
	  ? sprintf("# health ts=%s samples=%d elapsed_s=%.3f rate_hz=%.2f missed_ticks=0 gap_ticks=0 failed_samples=0 latency_p50_ms=0.300 latency_p99_ms=1.200 latency_max_ms=3.000 gaps=0 gap_seconds=0.000 hidden_rows=0 cpu_us_per_sample=60.0 backend_cpu_us_per_sample=95.0\n", ts($us), $n, $el, $n / $el)
	  : sprintf(qq({"type":"health","ts":"%s","samples":%d,"elapsed_s":%.6f,"rate_hz":%.6f,"missed_ticks":0,"gap_ticks":0,"failed_samples":0,"latency_p50_ms":0.3,"latency_p99_ms":1.2,"latency_max_ms":3,"gaps":0,"gap_seconds":0,"hidden_rows":0,"cpu_us_per_sample":60,"backend_cpu_us_per_sample":95}\n), ts($us), $n, $el, $n / $el);
}
if ($kind eq 'raw')
{
	print "ts,pid,backend_start,backend_type,datname,usename,application_name,client_addr,state,wait_event_type,wait_event,query_id,leader_pid,blockers,samples,wait_time_us,query\n# meta $meta\n" if $fmt eq 'csv';
	print "$meta\n" if $fmt eq 'jsonl';
	my $bs = ts($t0 - 3600e6);
	for my $i (1 .. 360000)
	{
		my $us = $t0 + $i * 10000;
		my $t = ts($us);
		for my $s (0 .. 4)
		{
			my $e = $ev[($i / 7 + $s * 3) % 12];
			my $q = 1000 + ($i + $s) % 20;
			if ($fmt eq 'csv') {
				print "$t,", 4000 + $s, ",$bs,client backend,app_db,app_user,app_$s,10.0.0.$s,active,$e->[0],$e->[1],$q,,,1,,\n";
			} else {
				print qq({"type":"sample","ts":"$t","pid":), 4000 + $s, qq(,"backend_start":"$bs","backend_type":"client backend","datname":"app_db","usename":"app_user","application_name":"app_$s","client_addr":"10.0.0.$s","state":"active","wait_event_type":"$e->[0]","wait_event":"$e->[1]","query_id":$q,"leader_pid":null,"blockers":[],"samples":1,"wait_time_us":null,"query":null}\n);
			}
		}
		print health($us, $i) if $i % 6000 == 0;
	}
}
else
{
	print "interval_start,interval_end,ticks,datname,usename,application_name,backend_type,wait_event_type,wait_event,query_id,samples,pct,est_seconds,measured_seconds,measured_count\n# meta $meta\n" if $fmt eq 'csv';
	print "$meta\n" if $fmt eq 'jsonl';
	for my $k (1 .. 8640)
	{
		my ($a, $b) = (ts($t0 + ($k - 1) * 10e6), ts($t0 + $k * 10e6));
		for my $s (0 .. 4)
		{
			for my $j (0 .. 11)
			{
				my $n = 40 + (($k + $s + $j) % 50);
				my $e = $ev[$j];
				if ($fmt eq 'csv') {
					printf "%s,%s,1000,app_db,app_user,app_%d,client backend,%s,%s,%d,%d,%.2f,%.6f,,\n", $a, $b, $s, $e->[0], $e->[1], 1000 + $j, $n, $n / 50, $n * 0.01;
				} else {
					printf qq({"type":"interval","interval_start":"%s","interval_end":"%s","ticks":1000,"datname":"app_db","usename":"app_user","application_name":"app_%d","backend_type":"client backend","wait_event_type":"%s","wait_event":"%s","query_id":%d,"samples":%d,"pct":%.2f,"est_seconds":%.6f}\n), $a, $b, $s, $e->[0], $e->[1], 1000 + $j, $n, $n / 50, $n * 0.01;
				}
			}
		}
		print health($t0 + $k * 10e6, $k * 1000);
	}
}
PERL

for f in csv jsonl; do
	for k in raw interval; do
		[ -s "$dir/$k.$f" ] || perl "$dir/gen.pl" "$f" "$k" >"$dir/$k.$f"
	done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-16s %12s %10s %10s\n' log bytes wall_s cpu_s
for k in raw interval; do
	for f in csv jsonl; do
		: >"$dir/wall" && : >"$dir/cpu"
		for i in $(seq "$runs"); do
			/usr/bin/time -f '%e %U %S' -o "$dir/t" "$ours" --from-log "$dir/$k.$f" --json >/dev/null
			awk '{ print $1 }' "$dir/t" >>"$dir/wall"
			awk '{ print $2 + $3 }' "$dir/t" >>"$dir/cpu"
		done
		printf '%-16s %12s %10s %10s\n' "$k.$f" "$(stat -c %s "$dir/$k.$f")" \
			"$(median <"$dir/wall")" "$(median <"$dir/cpu")"
	done
done
[ -n "${PERF_DIR:-}" ] || rm -rf "$dir"
