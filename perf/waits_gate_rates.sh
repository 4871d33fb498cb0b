#!/bin/sh
# perf/waits_gate_rates.sh — how often pgtempo-waits' --fail-if gate (and
# its verdicts) trips when nothing changed, and when something did.
#
# Writes two history files as the service writes them (--log-interval=10,
# one line per event per interval, a health record per interval) of HOURS
# hours of 10 events whose rates wander (AR(1), lag-1 correlation 0.9 from
# one 10 s interval to the next, a spread of 20 %) around fixed means, with
# the sampling's binomial noise on top,
# from a seeded generator:
#  - aa.csv: every hour the same process;
#  - inj.csv: the same, with Lock:transactionid's rate +50 % in the odd
#    hours.
# Then compares each odd hour with the even hour before it (HOURS / 2
# pairs of each file) with --fail-if=$GATES (default
# total:+0%,total:-0%,Lock:+0,Lock:-0,Lock:+20%) and prints how often each
# limit, any limit, and any row's verdict tripped.
#
# usage: perf/waits_gate_rates.sh [HOURS]     (default 80)
# env:   OURS (our binary, default ./pgtempo-waits), PERF_DIR (scratch)
set -eu
hours=${1:-80}
ours=${OURS:-./pgtempo-waits}
gates=${GATES:-total:+0%,total:-0%,Lock:+0,Lock:-0,Lock:+20%}
dir=${PERF_DIR:-$(mktemp -d /tmp/waits_gate_rates.XXXXXX)}

cat >"$dir/gen.pl" <<'PERL'
use strict;
use warnings;
use POSIX qw(strftime);
my ($path, $hours, $inject) = @ARGV;
my $t0 = 1795651200;		# 2026-11-26T00:00:00Z
my @ev = ([qw(IO DataFileRead)], [qw(LWLock WALWrite)], [qw(Lock transactionid)], ['', ''],
	[qw(Client ClientRead)], [qw(IO WALSync)], [qw(LWLock BufferMapping)], [qw(IPC SyncRep)],
	[qw(IO DataFileWrite)], [qw(LWLock LockManager)]);
my @mean = (400, 120, 80, 300, 200, 40, 30, 20, 60, 10);	# samples per 1000 ticks
my $seed = 4242 + $inject;
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return $seed / 2147483648 }
sub ts { strftime('%Y-%m-%dT%H:%M:%S.000000Z', gmtime $_[0]) }
open my $fh, '>', $path or die;
print $fh "interval_start,interval_end,ticks,datname,usename,application_name,backend_type,wait_event_type,wait_event,query_id,samples,pct,est_seconds,measured_seconds,measured_count\n";
print $fh '# meta {"type":"meta","log_version":1,"tool":"pgtempo-waits 0.1.0","run":"' . ts($t0)
  . '","source":"pg_stat_activity","server":"/run/postgresql:5432","server_version":"15.20",'
  . '"interval_s":0.01,"period_s":0.01,"include_idle":false,"measured":false,'
  . '"backend_types":["client backend"],"backend_types_given":false}' . "\n";
my @x = (0) x @ev;
for my $i (0 .. 360 * $hours - 1)
{
	my ($a, $b) = (ts($t0 + 10 * $i), ts($t0 + 10 * $i + 10));
	my $hour = int($i / 360);
	for my $g (0 .. $#ev)
	{
		# AR(1) wander of the rate, then binomial-like sampling noise
		$x[$g] = 0.9 * $x[$g] + sqrt(1 - 0.81) * 1.7320508 * (2 * rnd() - 1);
		my $m = $mean[$g] * (1 + 0.2 * $x[$g]);
		$m *= 1.5 if $inject && $g == 2 && $hour % 2 == 1;
		# the sampling's binomial noise, by its normal approximation
		my $z = sqrt(-2 * log(1 - rnd())) * cos(6.283185307 * rnd());
		my $n = int($m + $z * sqrt($m * (1 - $m / 1000)) + 0.5);
		next if $n <= 0;
		printf $fh "%s,%s,1000,shop,app,app,client backend,%s,%s,%d,%d,%.2f,%.6f,,\n", $a, $b,
		  $ev[$g][0], $ev[$g][1], 1000 + $g, $n, $n / 10, $n / 100;
	}
	printf $fh "# health ts=%s samples=%d elapsed_s=%.3f rate_hz=100.00 missed_ticks=0 gap_ticks=0 failed_samples=0 latency_p50_ms=0.300 latency_p99_ms=1.200 latency_max_ms=3.000 gaps=0 gap_seconds=0.000 hidden_rows=0 interval_s=0.010000\n",
	  $b, 1000 * ($i + 1), 10 * ($i + 1);
}
close $fh or die;
PERL
[ -e "$dir/aa.csv" ] || perl "$dir/gen.pl" "$dir/aa.csv" "$hours" 0
[ -e "$dir/inj.csv" ] || perl "$dir/gen.pl" "$dir/inj.csv" "$hours" 1

# at H: the time H hours after the files' start
at() { date -u -d "@$((1795651200 + 3600 * $1))" +%Y-%m-%dT%H:%MZ; }
for f in aa inj; do
	h=0
	while [ $((h + 2)) -le "$hours" ]; do
		"$ours" --from-log "$dir/$f.csv" --baseline-since="$(at "$h")" --baseline-until="$(at $((h + 1)))" \
			--since="$(at $((h + 1)))" --until="$(at $((h + 2)))" --fail-if="$gates" --json \
			>"$dir/$f.$h.json" 2>/dev/null || :
		h=$((h + 2))
	done
done

python3 - "$dir" <<'EOF'
import glob, json, os, sys

out = sys.argv[1]
for f, label in (("aa", "A/A (the same process in both hours)"),
                 ("inj", "Lock:transactionid +50 % in the new hour")):
    docs = []
    for p in sorted(glob.glob(os.path.join(out, f + ".*.json"))):
        try:
            docs.append(json.load(open(p)))
        except (OSError, ValueError):
            pass
    print(f"{label}: {len(docs)} comparisons")
    if not docs:
        continue
    for i, g in enumerate(docs[0]["fail_if"]):
        n = sum(d["fail_if"][i]["tripped"] for d in docs)
        print(f"  --fail-if={g['limit']:12s} tripped {n:3d} of {len(docs)} ({100 * n / len(docs):.1f} %)")
    n = sum(any(g["tripped"] for g in d["fail_if"]) for d in docs)
    print(f"  any limit tripped            {n:3d} of {len(docs)} ({100 * n / len(docs):.1f} %)")
    n = sum(any(r["verdict"] != "no difference shown" for r in d["results"]) for d in docs)
    print(f"  any row not \"no difference\"  {n:3d} of {len(docs)} ({100 * n / len(docs):.1f} %)")
    print(f"  family: {sorted({d['method']['family'] for d in docs})}")
EOF
