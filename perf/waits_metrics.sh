#!/bin/sh
# perf/waits_metrics.sh — what pgtempo-waits' metrics endpoint (--listen)
# costs.
#
#  1. How fast /metrics answers with many series: perf/waits_scrape serves
#     SERIES series (default 300) the way the sampler does; curl scrapes it
#     SCRAPES times (default 200), Prometheus text and OpenMetrics; the
#     median and 90th percentile of curl's time_total (the target is a
#     median under 5 ms) and the body's size.
#  2. What scrapes add to the sampler's CPU: pgtempo-waits at 100 Hz on a
#     throwaway cluster with four sleeping sessions, SECONDS long, in
#     alternating runs without --listen, with --listen and no scrape, and
#     with a scrape every 15 s; the CPU time it used (its report's CPU per
#     sample times the samples: every thread, the endpoint's included),
#     medians of RUNS runs each, and the ratios (the target is a scrape
#     every 15 s adding under 1 %).  The ratios are as noisy as the
#     machine; the endpoint thread's own CPU time (its /proc schedstat, in
#     ns) in the runs with scrapes is not: its share of the process is what
#     the scrapes cost (the main thread's once-a-second publishing aside).
#
# usage: perf/waits_metrics.sh [RUNS [SECONDS]]     (defaults 5 and 30)
# env:   OURS (the pgtempo-waits binary), SCRAPE (the perf/waits_scrape
#        binary: make perf/waits_scrape), SERIES, SCRAPES, PG_BINDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

runs=${1:-5}
secs=${2:-30}
bindir=$(pg_bindir)
ours=${OURS:-$here/../pgtempo-waits}
scrape=${SCRAPE:-$here/waits_scrape}
series=${SERIES:-300}
scrapes=${SCRAPES:-200}
user=${PGTEMPO_TEST_USER:-pgtempo-test}
me=perf/waits_metrics.sh

die() {
	echo "$me: error: $*" >&2
	exit 1
}

[ -x "$ours" ] || die "$ours not found (build first, or set OURS)"
[ -x "$scrape" ] || die "$scrape not found (make perf/waits_scrape, or set SCRAPE)"
command -v curl >/dev/null 2>&1 || die "curl is needed"
command -v python3 >/dev/null 2>&1 || die "python3 is needed to read the sampler's JSON report"

throwaway_cluster waits-metrics ""

# ---------------------------------------------------------------- 1. scrape latency

echo "load average: $(loadavg)"
: >"$tmp/addr"
"$scrape" "$series" 600 >>"$tmp/addr" &
spid=$!
i=0
while [ "$(wc -l <"$tmp/addr")" -lt 2 ] && [ $i -lt 300 ]; do
	sleep 0.2
	i=$((i + 1))
done
addr=$(sed -n 2p "$tmp/addr")
echo "/metrics, $series series: $(sed -n 1p "$tmp/addr")"
[ -n "$addr" ] || die "perf/waits_scrape did not start"
for accept in 'text/plain' 'application/openmetrics-text; version=1.0.0'; do
	: >"$tmp/times"
	i=0
	while [ $i -lt "$scrapes" ]; do
		curl -s -o "$tmp/body" -H "Accept: $accept" -w '%{time_total}\n' "http://$addr/metrics" >>"$tmp/times"
		i=$((i + 1))
	done
	p90=$(sort -g "$tmp/times" | awk '{ v[NR] = $1 } END { print v[int(NR * 0.9)] }')
	printf '/metrics, %s series, Accept %s: %s bytes, median %.3f ms, p90 %.3f ms (%s scrapes)\n' \
		"$(grep -c '^pgtempo_waits_active_seconds_total' "$tmp/body")" "$accept" "$(wc -c <"$tmp/body")" \
		"$(median <"$tmp/times" | awk '{ print $1 * 1000 }')" "$(echo "$p90" | awk '{ print $1 * 1000 }')" \
		"$scrapes"
done
kill "$spid" 2>/dev/null || :
wait "$spid" 2>/dev/null || :

# ---------------------------------------------------------------- 2. CPU with and without scrapes

for i in 1 2 3 4; do
	psql -X -q -c "SELECT pg_sleep($((secs * runs * 4)))" >/dev/null 2>&1 &
done
sleep 1

# run MODE: the CPU seconds of one run (MODE: off, listen, scrape); with
# scrape, the endpoint thread's CPU seconds are appended to $tmp/thread
# (from its /proc schedstat, in ns, read just before the run ends)
run() {
	opts=
	[ "$1" = off ] || opts=--listen=127.0.0.1:0
	"$ours" -i 10ms --cost-budget=0 --json $opts >"$tmp/r.json" 2>"$tmp/r.err" &
	wpid=$!
	if [ "$1" = scrape ]; then
		i=0
		while ! grep -q 'serving metrics' "$tmp/r.err" && [ $i -lt 300 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		url=$(sed -n 's/.*serving metrics on \(http[^ ]*\).*/\1/p' "$tmp/r.err")
		t=0
		while [ $t -lt "$secs" ]; do
			curl -s -o /dev/null "$url" || :
			sleep 15
			t=$((t + 15))
		done &
		cpid=$!
	fi
	sleep "$secs"
	if [ "$1" = scrape ]; then
		for task in /proc/"$wpid"/task/*; do
			[ "$(cat "$task/comm")" = pgtempo-waits ] && continue
			awk '{ printf "%.6f\n", $1 / 1e9 }' "$task/schedstat" >>"$tmp/thread"
		done
		kill "$cpid" 2>/dev/null || :
		wait "$cpid" 2>/dev/null || :
	fi
	kill -INT "$wpid"
	wait "$wpid"
	python3 -c 'import json, sys
h = json.load(open(sys.argv[1]))["health"]
print("%.6f" % (h["cpu_us_per_sample"] * h["samples"] / 1e6))' "$tmp/r.json"
}

: >"$tmp/off"
: >"$tmp/listen"
: >"$tmp/scrape"
: >"$tmp/thread"
echo "load average: $(loadavg)"
r=0
while [ $r -lt "$runs" ]; do
	for mode in off listen scrape; do
		run $mode >>"$tmp/$mode"
	done
	r=$((r + 1))
done
echo "load average: $(loadavg)"
off=$(median <"$tmp/off")
lis=$(median <"$tmp/listen")
scr=$(median <"$tmp/scrape")
printf 'sampler CPU over %s s at 100 Hz (medians of %s runs): no --listen %s s, --listen %s s, a scrape every 15 s %s s\n' \
	"$secs" "$runs" "$off" "$lis" "$scr"
printf 'ratios: --listen / none %s, scrapes / --listen %s\n' "$(ratio "$lis" "$off")" "$(ratio "$scr" "$lis")"
thr=$(median <"$tmp/thread")
printf 'the endpoint thread with a scrape every 15 s: %s s of CPU (median), %s of the whole process\n' \
	"$thr" "$(ratio "$thr" "$scr")"
