#!/bin/sh
# perf/waits.sh — what pgtempo-waits costs the server it samples, and how
# fast it can sample.
#
#  1. pgbench -S throughput with the sampler off and on at 100 Hz, in
#     alternating runs; the median tps of each and their ratio (on / off;
#     the target is >= 0.99).
#  2. The sampler's own CPU time per sample, and its server backend's, at
#     100 Hz (from the sampler's report; medians of the "on" runs), and the
#     share of the machine's CPU the two take: steadier than tps where other
#     jobs run.
#  2b. The same share from /proc/PID/schedstat (ns on CPU) of the sampler
#     and its backend, under pgbench -S -M prepared -c 8 (cpu_share_schedstat).
#  3. The highest sample rate it sustains over TCP loopback: rates from
#     1000/s to 20000/s, each for a few seconds; sustained means fewer than
#     1 % of the ticks missed (the target is >= 3000 samples/s).  Also the
#     rate with no pause at all between samples.
#  4. The cost of --trace (1000 polls/s by default) following one pgbench
#     backend under pgbench -S -M prepared -c TRACE_CLIENTS (default 8):
#     the tracer's CPU and its server backend's, read from
#     /proc/PID/schedstat (ns on CPU) over the run, as a share of the
#     machine's CPUs; medians of RUNS runs, with the poll rate achieved.
#
# A throwaway cluster is started on 127.0.0.1 (as the user pgtempo-test
# when run as root, as PostgreSQL refuses to run as root) and removed.
# The load average is printed before and after each part: anything else
# running on the machine shows up in the numbers (tps most of all).
#
# usage: perf/waits.sh [RUNS [SECONDS]]     (defaults 5 and 10)
# env:   OURS (the pgtempo-waits binary), PG_BINDIR, CLIENTS (pgbench -c, default
#        the number of CPUs), SCALE (pgbench -s, default 10), TRACE_CLIENTS
#        (pgbench -c for part 4, default 8)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

runs=${1:-5}
secs=${2:-10}
bindir=$(pg_bindir)
ours=${OURS:-$here/../pgtempo-waits}
clients=${CLIENTS:-$(nproc 2>/dev/null || echo 2)}
scale=${SCALE:-10}
user=${PGTEMPO_TEST_USER:-pgtempo-test}
me=perf/waits.sh

die() {
	echo "$me: error: $*" >&2
	exit 1
}

[ -x "$ours" ] || die "$ours not found (build first, or set OURS)"
for p in initdb pg_ctl pgbench; do
	[ -x "$bindir/$p" ] || die "$bindir/$p not found (set PG_BINDIR)"
done
command -v python3 >/dev/null 2>&1 || die "python3 is needed to read the sampler's JSON report"

cluster_dir pgtempo-bench-waits
start_cluster "-c shared_buffers=256MB"


echo "server:    $("$bindir/postgres" -V) on 127.0.0.1:$port, $(nproc 2>/dev/null || echo '?') CPUs"
echo "sampler:   $ours ($("$ours" -V))"
"$bindir/pgbench" -i -q -s "$scale" >"$tmp/init.log" 2>&1 || { cat "$tmp/init.log" >&2; die "pgbench -i failed"; }

# ---------------------------------------------------------------- 1 and 2: the cost at 100 Hz
echo
echo "pgbench -S -c $clients -j $clients -T $secs, $runs runs each, sampler off and on (-i 10ms), alternating"
echo "load average before: $(loadavg)"
tps() {
	sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -n 1
}
i=0
while [ "$i" -lt "$runs" ]; do
	# the same pause before both kinds of run, so that only the sampler differs
	sleep 0.5
	"$bindir/pgbench" -n -S -c "$clients" -j "$clients" -T "$secs" 2>/dev/null | tps >>"$tmp/off"
	"$ours" --source=activity -i 10ms -T "$((secs + 1))" --json >"$tmp/on$i.json" 2>/dev/null &
	sampler=$!
	sleep 0.5
	"$bindir/pgbench" -n -S -c "$clients" -j "$clients" -T "$secs" 2>/dev/null | tps >>"$tmp/on"
	wait "$sampler" || die "the sampler failed"
	json_field "$tmp/on$i.json" health.cpu_us_per_sample >>"$tmp/cpu"
	json_field "$tmp/on$i.json" health.backend_cpu_us_per_sample >>"$tmp/bcpu"
	json_field "$tmp/on$i.json" health.missed_ticks >>"$tmp/missed"
	i=$((i + 1))
done
off=$(median <"$tmp/off")
on=$(median <"$tmp/on")
printf '%-44s %12s   (runs: %s)\n' "median tps, sampler off" "$off" "$(tr '\n' ' ' <"$tmp/off")"
printf '%-44s %12s   (runs: %s)\n' "median tps, sampler on at 100 Hz" "$on" "$(tr '\n' ' ' <"$tmp/on")"
printf '%-44s %12s   (target >= 0.99)\n' "ratio on / off" "$(ratio "$on" "$off")"
# each "on" run against the "off" run just before it: steadier when other load comes and goes
paste "$tmp/on" "$tmp/off" | awk '$2 > 0 { printf "%.4f\n", $1 / $2 }' >"$tmp/pairs"
printf '%-44s %12s   (pairs: %s)\n' "median of the per-pair ratios" "$(median <"$tmp/pairs")" \
	"$(tr '\n' ' ' <"$tmp/pairs")"
printf '%-44s %12s   (runs: %s)\n' "sampler CPU per sample, us" "$(median <"$tmp/cpu")" "$(tr '\n' ' ' <"$tmp/cpu")"
if grep -q . "$tmp/bcpu"; then
	printf '%-44s %12s   (runs: %s)\n' "its server backend's CPU per sample, us" \
		"$(grep . "$tmp/bcpu" | median)" "$(tr '\n' ' ' <"$tmp/bcpu")"
	# steadier than tps on a shared machine: the CPU the two take from pgbench
	ncpu=$(nproc 2>/dev/null || echo 1)
	share=$(awk -v c="$(median <"$tmp/cpu")" -v b="$(grep . "$tmp/bcpu" | median)" -v n="$ncpu" \
		'BEGIN { printf "%.2f", (c + b) * 100 / 1e6 / n * 100 }')
	printf '%-44s %12s   (a tps ratio of %s if CPU were all it took)\n' \
		"both at 100 Hz, % of the ${ncpu} CPUs" "$share" \
		"$(awk -v s="$share" 'BEGIN { printf "%.3f", 1 - s / 100 }')"
fi
printf '%-44s %12s\n' "missed ticks while pgbench ran (total)" \
	"$(awk '{ s += $1 } END { print s + 0 }' "$tmp/missed")"
echo "load average after: $(loadavg)"

# ---------------------------------------------------------------- 2b: CPU share from schedstat
# The sampler's CPU and its backend's, read from /proc/PID/schedstat (ns on
# CPU) over a window of a pgbench -S -M prepared -c 8 run, as a share of all
# the machine's CPUs; median of the runs.  Target: <= 0.25 %.
# usage: cpu_share_schedstat RUNS SECONDS [SAMPLER ARGS...]
schedstat_ns() {
	cut -d' ' -f1 "/proc/$1/schedstat" 2>/dev/null || echo ''
}
cpu_share_schedstat() {
	_runs=$1
	_secs=$2
	shift 2
	_ncpu=$(nproc 2>/dev/null || echo 1)
	: >"$tmp/share"
	_i=0
	while [ "$_i" -lt "$_runs" ]; do
		"$bindir/pgbench" -n -S -M prepared -c 8 -j 2 -T "$((_secs + 2))" >/dev/null 2>&1 &
		_bench=$!
		"$ours" --source=activity -i 10ms -T "$((_secs + 2))" "$@" >/dev/null 2>&1 &
		_sampler=$!
		sleep 1
		_bpid=$("$bindir/psql" -X -At -c "SELECT pid FROM pg_stat_activity
			WHERE application_name = 'pgtempo-waits' LIMIT 1" 2>/dev/null || :)
		_s0=$(schedstat_ns "$_sampler")
		_b0=$(schedstat_ns "$_bpid")
		_t0=$(date +%s%N)
		sleep "$_secs"
		_s1=$(schedstat_ns "$_sampler")
		_b1=$(schedstat_ns "$_bpid")
		_t1=$(date +%s%N)
		wait "$_sampler" || die "the sampler failed"
		wait "$_bench" || :
		if [ -n "$_s0" ] && [ -n "$_s1" ] && [ -n "$_b0" ] && [ -n "$_b1" ]; then
			awk -v s="$((_s1 - _s0))" -v b="$((_b1 - _b0))" -v t="$((_t1 - _t0))" -v n="$_ncpu" \
				'BEGIN { printf "%.3f\n", (s + b) * 100 / (t * n) }' >>"$tmp/share"
		fi
		_i=$((_i + 1))
	done
	printf '%-44s %12s   (runs: %s; target <= 0.25)\n' \
		"sampler + backend at 100 Hz, % of ${_ncpu} CPUs" "$(median <"$tmp/share")" \
		"$(tr '\n' ' ' <"$tmp/share")"
}
echo
echo "CPU from /proc/PID/schedstat under pgbench -S -M prepared -c 8, $runs runs of $secs s (load average: $(loadavg))"
cpu_share_schedstat "$runs" "$secs"

# ---------------------------------------------------------------- 3: the highest sustained rate
echo
echo "sample rate over TCP loopback, idle server, 3 s per rate (load average before: $(loadavg))"
printf '%10s %12s %10s %10s %12s\n' "interval" "target/s" "achieved/s" "missed %" "p99 ms"
best=0
for iv in 1000 500 333 250 200 167 143 125 111 100 83 71 62 50; do
	"$ours" --source=activity -i "${iv}us" -T 3 --json >"$tmp/rate.json" 2>/dev/null ||
		die "the sampler failed at -i ${iv}us"
	rate=$(json_field "$tmp/rate.json" health.rate_hz)
	samples=$(json_field "$tmp/rate.json" health.samples)
	missed=$(json_field "$tmp/rate.json" health.missed_ticks)
	p99=$(json_field "$tmp/rate.json" health.latency_p99_ms)
	pct=$(awk -v m="$missed" -v s="$samples" 'BEGIN { printf "%.2f", 100 * m / (m + s) }')
	printf '%10s %12d %10.0f %10s %12.3f\n' "${iv}us" "$((1000000 / iv))" "$rate" "$pct" "$p99"
	# the highest target met with fewer than 1 % of the ticks missed
	if awk -v p="$pct" 'BEGIN { exit !(p < 1) }'; then
		best=$(awk -v r="$rate" -v b="$best" 'BEGIN { printf "%.0f", (r > b ? r : b) }')
	fi
done
"$ours" --source=activity -i 10us -T 3 --json >"$tmp/flat.json" 2>/dev/null || die "the sampler failed at -i 10us"
printf '%-44s %12s   (target >= 3000)\n' "highest sustained rate, samples/s" "$best"
printf '%-44s %12.0f\n' "rate with no pause between samples, /s" "$(json_field "$tmp/flat.json" health.rate_hz)"
printf '%-44s %12.1f\n' "  sampler CPU per sample there, us" "$(json_field "$tmp/flat.json" health.cpu_us_per_sample)"
printf '%-44s %12.1f\n' "  its server backend's there, us" \
	"$(json_field "$tmp/flat.json" health.backend_cpu_us_per_sample)"
echo "load average after: $(loadavg)"

# ---------------------------------------------------------------- 4: the cost of --trace
# ns on CPU of a process so far (the first field of /proc/PID/schedstat).
oncpu_ns() {
	cut -d' ' -f1 "/proc/$1/schedstat" 2>/dev/null || echo ''
}
tclients=${TRACE_CLIENTS:-8}
echo
echo "--trace of one backend of pgbench -S -M prepared -c $tclients -j $tclients, $runs runs of $secs s"
echo "load average before: $(loadavg)"
i=0
: >"$tmp/tshare"
: >"$tmp/trate"
while [ "$i" -lt "$runs" ]; do
	# both run past the measured window (the psql look-ups are slow on a loaded machine)
	# and are stopped with SIGINT after it
	"$bindir/pgbench" -n -S -M prepared -c "$tclients" -j "$tclients" -T "$((secs + 30))" \
		>"$tmp/tpgbench.log" 2>&1 &
	pgb=$!
	sleep 1
	target=$("$bindir/psql" -XAtc "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench' LIMIT 1")
	[ -n "$target" ] || die "no pgbench backend to trace"
	PGAPPNAME=pgtempo-trace-bench "$ours" --trace="$target" -T "$((secs + 30))" \
		--trace-file="$tmp/trace.out" 2>"$tmp/trace.err" &
	tracer=$!
	sleep 0.5
	tback=$("$bindir/psql" -XAtc "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgtempo-trace-bench'")
	[ -n "$tback" ] || die "the tracer's backend was not found (see $tmp/trace.err)"
	t0=$(date +%s.%N)
	a0=$(oncpu_ns "$tracer")
	b0=$(oncpu_ns "$tback")
	sleep "$secs"
	a1=$(oncpu_ns "$tracer")
	b1=$(oncpu_ns "$tback")
	t1=$(date +%s.%N)
	[ -n "$a1" ] && [ -n "$b1" ] || die "the tracer or its backend ended early (see $tmp/trace.err)"
	kill -INT "$tracer"
	wait "$tracer" || die "the tracer failed (see $tmp/trace.err)"
	# SIGTERM: a background job of a non-interactive shell ignores SIGINT
	kill -TERM "$pgb" 2>/dev/null || :
	wait "$pgb" || :
	awk -v a0="$a0" -v a1="$a1" -v b0="$b0" -v b1="$b1" -v t0="$t0" -v t1="$t1" \
		-v n="$(nproc 2>/dev/null || echo 1)" \
		'BEGIN { printf "%.3f %.3f %.3f\n", (a1 - a0 + b1 - b0) / 1e9 / (t1 - t0) / n * 100,
			(a1 - a0) / 1e9 / (t1 - t0) / n * 100, (b1 - b0) / 1e9 / (t1 - t0) / n * 100 }' \
		>>"$tmp/tshare"
	sed -n 's/.* polls in [0-9.]* s (\([0-9.]*\) per second.*/\1/p' "$tmp/trace.err" >>"$tmp/trate"
	i=$((i + 1))
done
printf '%-44s %12s   (runs: %s)\n' "tracer + its backend, % of the $(nproc 2>/dev/null || echo '?') CPUs" \
	"$(cut -d' ' -f1 "$tmp/tshare" | median)" "$(cut -d' ' -f1 "$tmp/tshare" | tr '\n' ' ')"
printf '%-44s %12s\n' "  the tracer alone, %" "$(cut -d' ' -f2 "$tmp/tshare" | median)"
printf '%-44s %12s\n' "  its server backend alone, %" "$(cut -d' ' -f3 "$tmp/tshare" | median)"
printf '%-44s %12s   (runs: %s)\n' "polls per second achieved" "$(median <"$tmp/trate")" \
	"$(tr '\n' ' ' <"$tmp/trate")"
echo "load average after: $(loadavg)"
