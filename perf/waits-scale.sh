#!/bin/sh
# perf/waits-scale.sh — what pgtempo-waits costs a server with many
# sessions, beside pg_wait_sampling's collector on the same cluster.
#
# One throwaway cluster (max_connections above the largest session count,
# pg_wait_sampling in shared_preload_libraries, its collector sampling every
# 10 ms), pgbench -i -s 10, then for each session count N of SESSIONS:
# BUSY sessions running pgbench -S -M prepared and N - BUSY idle ones
# (pgbench clients that only \sleep), and:
#
#  1. runs of SECONDS each, alternating, RUNS rounds: pgtempo-waits with
#     --source=activity (-T only: the cost budget picks the rate), the same
#     with -i 10ms (the user's rate, kept), by auto (pg_wait_sampling, read
#     once a second), with --pid of the busy sessions at -i 10ms, $BEFORE
#     (another build to compare, if set) the same ways, and $FLOOR
#     (waitfloor.c, if set) at 10 ms.  For each: samples/s, the sampler's
#     CPU and its backend's per sample (the report's schedstat figures; the
#     floor's backend read from /proc/PID/schedstat), the backend's share of
#     one CPU, and the collector's CPU per 10 ms sample over the same
#     seconds.  Medians.
#  2. statement shapes over the same data (SHAPES=1, the default): each
#     prepared and run K times in one psql session; the backend's CPU per
#     statement from its /proc/self/schedstat (pg_read_file), median of RUNS.
#  3. a profile (PROFILE=1, needs perf): perf record of a backend running
#     today's sampling statement, the top symbols.
#
# The load average is printed before and after each session count.
#
# usage: perf/waits-scale.sh [RUNS [SECONDS]]     (defaults 5 and 5)
# env:   OURS (pgtempo-waits), BEFORE, FLOOR, SESSIONS (default "8 200 1000 2000"),
#        BUSY (default 8), SHAPES (1), PROFILE (0), K (statements per shape, 400),
#        PARTS ("1 2 3": which parts run), VARIANTS (the runs of part 1, by name)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

runs=${1:-5}
secs=${2:-5}
bindir=$(pg_bindir)
ours=${OURS:-$here/../pgtempo-waits}
before=${BEFORE:-}
floor=${FLOOR:-}
sessions=${SESSIONS:-8 200 1000 2000}
busy=${BUSY:-8}
shapes=${SHAPES:-1}
profile=${PROFILE:-0}
k=${K:-400}
user=${PGTEMPO_TEST_USER:-pgtempo-test}
me=perf/waits-scale.sh

die() {
	echo "$me: error: $*" >&2
	exit 1
}

[ -x "$ours" ] || die "$ours not found (build first, or set OURS)"
for p in initdb pg_ctl pgbench psql; do
	[ -x "$bindir/$p" ] || die "$bindir/$p not found (set PG_BINDIR)"
done
[ -f "$bindir/../lib/pg_wait_sampling.so" ] ||
	die "pg_wait_sampling is not installed (apt-get install postgresql-15-pg-wait-sampling)"
command -v python3 >/dev/null 2>&1 || die "python3 is needed to read the sampler's JSON report"
if [ "$profile" = 1 ]; then
	command -v perf >/dev/null 2>&1 || die "PROFILE=1 needs perf (linux-perf)"
fi
maxn=0
for n in $sessions; do
	[ "$n" -gt "$maxn" ] && maxn=$n
done
# every client takes a descriptor in pgbench and in the server
ulimit -n $((maxn * 2 + 1024)) 2>/dev/null || ulimit -n "$(ulimit -H -n)"

owned_tmp pgtempo-waits-scale
loadpids=""
# Stop the sessions held open.
stop_load() {
	for p in $loadpids; do
		kill "$p" 2>/dev/null || :
	done
	for p in $loadpids; do
		wait "$p" 2>/dev/null || :
	done
	loadpids=""
}
cleanup() {
	stop_load
	stop_cluster
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
start_cluster "-c max_connections=$((maxn + 100)) -c shared_preload_libraries=pg_wait_sampling \
	-c pg_wait_sampling.profile_period=10 -c pg_wait_sampling.history_period=10"

# psql, unaligned, tuples only, stopping at the first error.
psqlc() {
	"$bindir/psql" -X -q -A -t -v ON_ERROR_STOP=1 "$@"
}
psqlc -c "CREATE EXTENSION pg_wait_sampling" >/dev/null
"$bindir/pgbench" -i -q -s 10 >"$tmp/init.log" 2>&1 || { cat "$tmp/init.log" >&2; die "pgbench -i failed"; }

# ns on CPU of a process (first field of schedstat), 0 if gone.
cpu_ns() {
	cut -d' ' -f1 "/proc/$1/schedstat" 2>/dev/null || echo 0
}
collector=$(psqlc -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_wait_sampling collector'")
[ -n "$collector" ] || die "pg_wait_sampling's collector is not running"
# The wall clock in ns.
now_ns() {
	date +%s%N
}

# Hold N sessions open: BUSY of them running pgbench -S, the rest idle.
start_load() {
	n=$1
	idle=$((n - busy))
	printf '\\sleep 100 s\n' >"$tmp/idle.sql"
	if [ "$idle" -gt 0 ]; then
		PGAPPNAME=idle "$bindir/pgbench" -n -c "$idle" -j 4 -T 100000 -f "$tmp/idle.sql" \
			>"$tmp/idle.log" 2>&1 &
		loadpids="$loadpids $!"
	fi
	PGAPPNAME=busy "$bindir/pgbench" -n -S -M prepared -c "$busy" -j 2 -T 100000 \
		>"$tmp/busy.log" 2>&1 &
	loadpids="$loadpids $!"
	i=0
	while [ "$(psqlc -c "SELECT count(*) FROM pg_stat_activity WHERE application_name IN ('idle', 'busy')")" -lt "$n" ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || die "the $n sessions did not connect (see $tmp/idle.log)"
		sleep 0.2
	done
}

# One run of pgtempo-waits (binary, then options): "rate sampler_us backend_us backend_share collector_us"
run_waits() {
	bin=$1
	shift
	c0=$(cpu_ns "$collector")
	t0=$(now_ns)
	"$bin" -T "$secs" --json "$@" >"$tmp/r.json" 2>"$tmp/r.err" || { cat "$tmp/r.err" >&2; die "$bin failed"; }
	t1=$(now_ns)
	c1=$(cpu_ns "$collector")
	rate=$(json_field "$tmp/r.json" health.rate_hz)
	cpu=$(json_field "$tmp/r.json" health.cpu_us_per_sample)
	bcpu=$(json_field "$tmp/r.json" health.backend_cpu_us_per_sample)
	awk -v r="$rate" -v c="$cpu" -v b="$bcpu" -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" 'BEGIN {
		samples = (t1 - t0) / 1e7;	# the collector samples every 10 ms
		printf "%.2f %.1f %.1f %.2f %.1f\n", r, c, b, b * r / 1e4, (c1 - c0) / 1e3 / samples }'
}

# The floor at 10 ms: its own CPU per sample, and its backend's from schedstat
# over the middle of the run.  It takes all its samples even when it cannot
# keep up (then it runs longer): its rate is its samples over its run time.
run_floor() {
	s0=$(now_ns)
	"$floor" -i 10 -T "$secs" "host=$PGHOST port=$PGPORT dbname=postgres user=postgres" >"$tmp/f.out" 2>&1 &
	fp=$!
	sleep 0.5
	bp=$(psqlc -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'waitfloor'")
	c0=$(cpu_ns "$collector")
	b0=$(cpu_ns "$bp")
	t0=$(now_ns)
	sleep "$(awk -v s="$secs" 'BEGIN { print s - 1 }')"
	b1=$(cpu_ns "$bp")
	t1=$(now_ns)
	c1=$(cpu_ns "$collector")
	wait "$fp"
	s1=$(now_ns)
	cpu=$(sed -n 's/.*cpu_us_per_sample \([0-9.]*\).*/\1/p' "$tmp/f.out")
	n=$(sed -n 's/^samples \([0-9]*\) .*/\1/p' "$tmp/f.out")
	awk -v c="$cpu" -v n="$n" -v s0="$s0" -v s1="$s1" -v b0="$b0" -v b1="$b1" -v c0="$c0" \
		-v c1="$c1" -v t0="$t0" -v t1="$t1" 'BEGIN {
		rate = n / ((s1 - s0) / 1e9);
		printf "%.2f %.1f %.1f %.2f %.1f\n", rate, c, (b1 - b0) / 1e3 / ((t1 - t0) / 1e9 * rate),
			(b1 - b0) / (t1 - t0) * 100, (c1 - c0) / 1e3 / ((t1 - t0) / 1e7) }'
}

# The runs of part 1: today's build with --source=activity (the budget
# picks the rate), at the user's -i 10ms, by auto (which reads
# pg_wait_sampling once a second), with --pid of the busy sessions at 100/s,
# then $BEFORE the same ways (at its default 100/s), then the floor.
variants=${VARIANTS:-activity activity_10ms auto pids_10ms before before_auto before_pids floor}

# Is variant $1 among those asked for (and its build given)?
wanted() {
	case " $variants " in *" $1 "*) ;; *) return 1 ;; esac
	case $1 in before*) [ -n "$before" ] ;; floor) [ -n "$floor" ] ;; esac
}

# Median of column $2 of file $1.
col_median() {
	awk -v c="$2" '{ print $c }' "$1" | median
}

# The statement shapes: name|SQL (the busy sessions' pids are $1 where a shape takes them).
cat >"$tmp/shapes" <<'EOF'
select1|SELECT 1
today|SELECT a.pid, NULL::timestamptz, a.backend_type, a.datid, a.usesysid, NULL::text, NULL::inet, a.state, a.wait_event_type, a.wait_event, a.query_id, a.leader_pid, CASE WHEN a.wait_event_type = 'Lock' THEN pg_catalog.pg_blocking_pids(a.pid) END, a.query = '<insufficient privilege>' FROM pg_catalog.pg_stat_get_activity(NULL) a WHERE a.pid <> pg_catalog.pg_backend_pid() AND (a.backend_type = ANY ('{client backend,parallel worker,autovacuum worker,walsender}'::text[]) OR a.backend_type IS NULL) AND a.state IS DISTINCT FROM 'idle' AND a.wait_event_type IS DISTINCT FROM 'Activity'
floor|SELECT a.pid, a.wait_event_type, a.wait_event FROM pg_catalog.pg_stat_get_activity(NULL) a WHERE a.state IS DISTINCT FROM 'idle' AND a.wait_event_type IS DISTINCT FROM 'Activity' AND a.datid <> 0
count|SELECT count(*) FROM pg_catalog.pg_stat_get_activity(NULL)
idset|SELECT count(*) FROM pg_catalog.pg_stat_get_backend_idset()
idset_wait|SELECT pg_catalog.pg_stat_get_backend_pid(i), pg_catalog.pg_stat_get_backend_wait_event_type(i), pg_catalog.pg_stat_get_backend_wait_event(i) FROM pg_catalog.pg_stat_get_backend_idset() i
pids_any|SELECT a.pid, a.state, a.wait_event_type, a.wait_event FROM pg_catalog.pg_stat_get_activity(NULL) a WHERE a.pid = ANY ($1::int4[]) AND a.state IS DISTINCT FROM 'idle' AND a.wait_event_type IS DISTINCT FROM 'Activity'
pids_each|SELECT a.pid, a.state, a.wait_event_type, a.wait_event FROM unnest($1::int4[]) p, LATERAL pg_catalog.pg_stat_get_activity(p) a WHERE a.state IS DISTINCT FROM 'idle' AND a.wait_event_type IS DISTINCT FROM 'Activity'
EOF

# Backend CPU µs per statement of one shape, run K times in one session.
shape_cost() {
	name=$1
	sql=$2
	pids=$3
	case "$sql" in
	*'$1'*) prep="PREPARE s(int4[]) AS $sql;"; exec="EXECUTE s('$pids');" ;;
	*) prep="PREPARE s AS $sql;"; exec="EXECUTE s;" ;;
	esac
	exec_cost "$prep" "$exec" "$k" || die "shape $name failed"
}

for n in $sessions; do
	echo
	echo "== $n sessions ($busy busy: pgbench -S -M prepared; $((n - busy)) idle)"
	start_load "$n"
	echo "load average before: $(loadavg)"
	pidlist=$(psqlc -c "SELECT string_agg(pid::text, ',') FROM pg_stat_activity WHERE application_name = 'busy'")
	busypids="{$pidlist}"
	case " ${PARTS:-1 2 3} " in *" 1 "*)
		for v in $variants; do
			: >"$tmp/$v"
		done
		r=0
		while [ $r -lt "$runs" ]; do
			! wanted activity || run_waits "$ours" --source=activity >>"$tmp/activity"
			! wanted activity_10ms || run_waits "$ours" --source=activity -i 10ms >>"$tmp/activity_10ms"
			! wanted auto || run_waits "$ours" >>"$tmp/auto"
			! wanted pids_10ms ||
				run_waits "$ours" --source=activity -i 10ms --pid="$pidlist" >>"$tmp/pids_10ms"
			! wanted before || run_waits "$before" --source=activity >>"$tmp/before"
			! wanted before_auto || run_waits "$before" >>"$tmp/before_auto"
			! wanted before_pids ||
				run_waits "$before" --source=activity --pid="$pidlist" >>"$tmp/before_pids"
			! wanted floor || run_floor >>"$tmp/floor"
			r=$((r + 1))
		done
		printf '%-28s %9s %12s %12s %10s %14s %8s\n' run samples/s "sampler us" "backend us" "backend %" "collector us" "b/coll"
		for v in $variants; do
			[ -s "$tmp/$v" ] || continue
			c=$(col_median "$tmp/$v" 5)
			b=$(col_median "$tmp/$v" 3)
			printf '%-28s %9s %12s %12s %10s %14s %8s\n' "$v" "$(col_median "$tmp/$v" 1)" \
				"$(col_median "$tmp/$v" 2)" "$b" "$(col_median "$tmp/$v" 4)" "$c" "$(ratio "$b" "$c")"
		done
		;;
	esac
	case " ${PARTS:-1 2 3} " in *" 2 "*)
		[ "$shapes" = 1 ] || continue
		echo "statement shapes: backend CPU us per statement (median of $runs, $k statements each)"
		while IFS='|' read -r name sql; do
			: >"$tmp/sc"
			r=0
			while [ $r -lt "$runs" ]; do
				shape_cost "$name" "$sql" "$busypids" >>"$tmp/sc"
				r=$((r + 1))
			done
			printf '  %-12s %10s\n' "$name" "$(median <"$tmp/sc")"
		done <"$tmp/shapes"
		;;
	esac
	case " ${PARTS:-1 2 3} " in *" 3 "*)
		[ "$profile" = 1 ] || continue
		sql=$(sed -n 's/^today|//p' "$tmp/shapes")
		{
			echo "PREPARE s AS $sql;"
			echo "SELECT pg_backend_pid();"
			echo "SELECT pg_sleep(1);"
			i=0
			while [ $i -lt 2000 ]; do
				echo "EXECUTE s;"
				i=$((i + 1))
			done
		} >"$tmp/prof.sql"
		psqlc -o "$tmp/prof.out" -f "$tmp/prof.sql" &
		pp=$!
		sleep 0.5
		bp=$(psqlc -c "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(1)%' OR query LIKE 'EXECUTE s%' LIMIT 1")
		perf record -q -o "$tmp/perf.data" -p "$bp" -- sleep 3 >/dev/null 2>&1 || :
		wait "$pp" || :
		echo "profile of today's statement's backend (perf, self time, top 15):"
		perf report -q -i "$tmp/perf.data" --no-children -g none --sort dso,symbol 2>/dev/null |
			grep '%' | head -n 15 | sed 's/^ */  /'
		;;
	esac
	echo "load average after: $(loadavg)"
	stop_load
done
