#!/bin/sh
# perf/waits_measured.sh — what reading the server's own counters (the
# report's "measured by the server", waits/measured.h) costs a sample, by
# the cost budget's own measurement: the server backend's CPU per sample of
# the JSON report's health (backend_cpu_us_per_sample, from its schedstat).
#
# One throwaway cluster, pgbench -i -s 10, then for each session count N of
# SESSIONS: BUSY sessions running pgbench -S and N - BUSY idle ones, and
# RUNS rounds of two runs of SECONDS each, alternating, at -i 10ms (the
# rate kept): "start/end" reads the counters at the start (before the
# budget's window) and at the end only; "every 1s" with --log-interval=1
# reads them every second too (--log to /dev/null).  Medians, and the
# statement's own time as the report gives it.
#
# usage: perf/waits_measured.sh [RUNS [SECONDS]]     (defaults 5 and 10)
# env:   OURS (pgtempo-waits), SESSIONS (default "8 1000"), BUSY (default 8)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

runs=${1:-5}
secs=${2:-10}
bindir=$(pg_bindir)
ours=${OURS:-$here/../pgtempo-waits}
sessions=${SESSIONS:-8 1000}
busy=${BUSY:-8}
user=${PGTEMPO_TEST_USER:-pgtempo-test}
me=perf/waits_measured.sh

[ -x "$ours" ] || { echo "$me: error: $ours not found (build first, or set OURS)" >&2; exit 1; }
maxn=0
for n in $sessions; do
	[ "$n" -gt "$maxn" ] && maxn=$n
done
ulimit -n $((maxn * 2 + 1024)) 2>/dev/null || ulimit -n "$(ulimit -H -n)"
owned_tmp waits_measured
port=$((20000 + $$ % 20000))
pids=
cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null || true
	done
	as_owner "$bindir/pg_ctl" -D "$tmp/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

as_owner "$bindir/initdb" -D "$tmp/data" -A trust >/dev/null
as_owner "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/log" -w \
	-o "-p $port -k $tmp -c listen_addresses= -c max_connections=$((maxn + 100)) -c autovacuum=off" \
	start >/dev/null
psqlc() { as_owner "$bindir/psql" -X -h "$tmp" -p "$port" -d postgres -Atq "$@"; }
as_owner "$bindir/pgbench" -h "$tmp" -p "$port" -i -s 10 -q postgres >/dev/null 2>&1

# One run: the backend's CPU per sample and the counters' statement time, "cpu ms".
one() {
	as_owner "$ours" -h "$tmp" -p "$port" -d postgres --source=activity -i 10ms -T "$secs" \
		--json "$@" 2>/dev/null |
		python3 -c 'import json, sys
r = json.load(sys.stdin)
m = r.get("measured_by_server") or {}
print(r["health"]["backend_cpu_us_per_sample"], m.get("read_ms_avg"), m.get("reads"))'
}

for n in $sessions; do
	idle=$((n - busy))
	printf '\\sleep 100 s\n' >"$tmp/idle.sql"
	chmod 644 "$tmp/idle.sql"
	if [ "$idle" -gt 0 ]; then
		as_owner env PGAPPNAME=idle "$bindir/pgbench" -h "$tmp" -p "$port" -n -c "$idle" -j 4 \
			-T 100000 -f "$tmp/idle.sql" postgres >"$tmp/idle.log" 2>&1 &
		pids="$pids $!"
	fi
	as_owner env PGAPPNAME=busy "$bindir/pgbench" -h "$tmp" -p "$port" -n -S -c "$busy" \
		-T 100000 postgres >"$tmp/busy.log" 2>&1 &
	pids="$pids $!"
	i=0
	while [ "$(psqlc -c "SELECT count(*) FROM pg_stat_activity WHERE application_name IN ('idle', 'busy')")" -lt "$n" ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "$me: error: the $n sessions did not connect" >&2; exit 1; }
		sleep 0.2
	done
	echo "sessions $n ($busy busy), load average $(cut -d' ' -f1-3 /proc/loadavg)"
	: >"$tmp/a"
	: >"$tmp/b"
	r=0
	while [ $r -lt "$runs" ]; do
		one >>"$tmp/a"
		one --log-interval=1 --log=/dev/null --log-format=csv >>"$tmp/b"
		r=$((r + 1))
	done
	for v in a b; do
		name=$([ $v = a ] && echo "start/end" || echo "every 1s ")
		printf '  %s  backend us/sample median %s (runs: %s); a read %s ms median, %s reads\n' "$name" \
			"$(cut -d' ' -f1 "$tmp/$v" | median)" "$(cut -d' ' -f1 "$tmp/$v" | tr '\n' ' ' | sed 's/ $//')" \
			"$(cut -d' ' -f2 "$tmp/$v" | median)" "$(cut -d' ' -f3 "$tmp/$v" | median)"
	done
	for p in $pids; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	pids=
	sleep 1
done
