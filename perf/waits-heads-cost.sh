#!/bin/sh
# perf/waits-heads-cost.sh — what the head blockers cost the sampling
# statement at 1,000 sessions: the backend CPU per statement of the
# statement pgtempo-waits sends (pg_stat_activity source, the report's
# columns), with 50 sessions waiting on a lock (a holder, then a queue of
# 50, each blocked by the holder and the ones ahead) against the same
# statement with its blockers column off (NULL), without xact_start, and
# the same three shapes with the 50 sessions sleeping instead (no lock
# wait: pg_blocking_pids() is never called); and, with the waiters,
# pg_blocking_pids() of the 50 alone (what a sample adds).  Each shape runs K times in
# one psql session; the backend's CPU is read from /proc/self/schedstat;
# shapes alternate, RUNS rounds, medians.
#
# usage: perf/waits-heads-cost.sh [RUNS [K]]   (defaults 5 and 200)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

runs=${1:-5}
k=${2:-200}
bindir=$(pg_bindir)
user=${PGTEMPO_TEST_USER:-pgtempo-test}
me=perf/waits-heads-cost.sh
idle=950
waiters=50

die() {
	echo "$me: error: $*" >&2
	exit 1
}

ulimit -n 4096 2>/dev/null || :
owned_tmp pgtempo-waits-heads
loadpids=""
cleanup() {
	for p in $loadpids; do
		kill "$p" 2>/dev/null || :
	done
	stop_cluster
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
start_cluster "-c max_connections=1100"

psqlc() {
	"$bindir/psql" -X -q -A -t -v ON_ERROR_STOP=1 "$@"
}
psqlc -c "CREATE TABLE t (i int)"

# count SQL: wait until it says at least N
wait_for() {
	i=0
	while [ "$(psqlc -c "$1")" -lt "$2" ]; do
		i=$((i + 1))
		[ $i -lt 900 ] || die "timed out: $1"
		sleep 0.2
	done
}

printf '\\sleep 1000 s\n' >"$tmp/idle.sql"
PGAPPNAME=idle "$bindir/pgbench" -n -c "$idle" -j 4 -T 100000 -f "$tmp/idle.sql" >"$tmp/idle.log" 2>&1 &
loadpids="$loadpids $!"
wait_for "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'idle'" "$idle"

cols="a.pid, a.backend_start, a.backend_type, NULL::oid, NULL::oid, NULL::text, NULL::inet, a.state, a.wait_event_type, a.wait_event, a.query_id, a.leader_pid"
from="FROM pg_catalog.pg_stat_get_activity(NULL) a WHERE a.pid <> pg_catalog.pg_backend_pid() AND (a.backend_type = ANY ('{client backend,parallel worker,autovacuum worker,walsender}'::text[]) OR a.backend_type IS NULL) AND a.state IS DISTINCT FROM 'idle' AND a.wait_event_type IS DISTINCT FROM 'Activity'"
cat >"$tmp/shapes" <<SHAPES
heads|SELECT $cols, a.xact_start, CASE WHEN a.wait_event_type = 'Lock' THEN pg_catalog.pg_blocking_pids(a.pid) END, a.query = '<insufficient privilege>' $from
blockers_off|SELECT $cols, a.xact_start, NULL::int4[], a.query = '<insufficient privilege>' $from
no_xact_start|SELECT $cols, CASE WHEN a.wait_event_type = 'Lock' THEN pg_catalog.pg_blocking_pids(a.pid) END, a.query = '<insufficient privilege>' $from
SHAPES

# Backend CPU µs per statement of one shape, run K times in one session.
shape_cost() {
	exec_cost "PREPARE s AS $1;" "EXECUTE s;" "$k"
}

# The shapes, alternating (in reverse order every other round), RUNS
# rounds: "state shape median" lines.
measure() {
	state=$1
	while IFS='|' read -r name sql; do
		: >"$tmp/$state.$name"
	done <"$tmp/shapes"
	r=0
	while [ $r -lt "$runs" ]; do
		if [ $((r % 2)) -eq 0 ]; then cat "$tmp/shapes"; else tac "$tmp/shapes"; fi >"$tmp/order"
		while IFS='|' read -r name sql; do
			shape_cost "$sql" </dev/null >>"$tmp/$state.$name"
		done <"$tmp/order"
		r=$((r + 1))
	done
	while IFS='|' read -r name sql; do
		printf '%-12s %-14s %10s   (runs: %s)\n' "$state" "$name" "$(median <"$tmp/$state.$name")" \
			"$(tr '\n' ' ' <"$tmp/$state.$name")"
	done <"$tmp/shapes"
}

echo "== $((idle + waiters + 1)) sessions: $idle idle, a holder and $waiters waiting on its lock"
"$bindir/psql" -X -q -c "BEGIN" -c "LOCK TABLE t IN ACCESS EXCLUSIVE MODE" -c "SELECT pg_sleep(1000)" \
	>/dev/null 2>&1 &
loadpids="$loadpids $!"
wait_for "SELECT count(*) FROM pg_locks WHERE relation = 't'::regclass AND granted" 1
printf 'BEGIN;\nLOCK TABLE t IN ACCESS EXCLUSIVE MODE;\nCOMMIT;\n' >"$tmp/lock.sql"
PGAPPNAME=waiter "$bindir/pgbench" -n -c "$waiters" -j 2 -T 100000 -f "$tmp/lock.sql" >"$tmp/lock.log" 2>&1 &
loadpids="$loadpids $!"
wait_for "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'waiter' AND wait_event_type = 'Lock'" "$waiters"
# the blockers part alone: pg_blocking_pids() of the 50 waiters, as a sample calls it
wpids=$(psqlc -c "SELECT string_agg(pid::text, ',') FROM pg_stat_activity WHERE application_name = 'waiter'")
echo "blocking_pids_50|SELECT sum(cardinality(pg_catalog.pg_blocking_pids(p))) FROM unnest('{$wpids}'::int4[]) p" >>"$tmp/shapes"
echo "blocking pids listed per waiter (avg): $(psqlc -c "SELECT round(avg(cardinality(pg_blocking_pids(pid))), 1) FROM pg_stat_activity WHERE application_name = 'waiter'")"
echo "load average: $(loadavg)"
printf '%-12s %-14s %10s\n' state shape "backend us"
measure waiters

echo "== the same, the $waiters sessions sleeping instead (no lock wait)"
psqlc -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'waiter' OR (query LIKE 'SELECT pg_sleep(1000)%' AND application_name = 'psql')" >/dev/null
printf 'SELECT pg_sleep(1000);\n' >"$tmp/sleep.sql"
PGAPPNAME=sleeper "$bindir/pgbench" -n -c "$waiters" -j 2 -T 100000 -f "$tmp/sleep.sql" >"$tmp/sleep.log" 2>&1 &
loadpids="$loadpids $!"
wait_for "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'sleeper' AND wait_event = 'PgSleep'" "$waiters"
grep -v '^blocking_pids_50|' "$tmp/shapes" >"$tmp/shapes2" && mv "$tmp/shapes2" "$tmp/shapes"
echo "lock waits now: $(psqlc -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")"
echo "load average: $(loadavg)"
measure sleepers
