#!/bin/sh
# perf/bench.sh — pgtempo-bench against the system's pgbench, side by side.
#
# Starts a throwaway cluster (as PGTEMPO_TEST_USER, default pgtempo-test,
# when run as root: PostgreSQL refuses root), initializes it with
# pgbench -i -s 10, then for each workload runs pgbench and pgtempo-bench
# alternately RUNS times and prints the medians of tps and of the client's
# CPU time per transaction (user + sys of the client process / number of
# transactions), and the ratios ours / pgbench.  Then: the initial
# connection time and peak RSS at -c 500 -j 1, and the wall and client CPU
# time of -i -s 50.  The logging workloads run -S -M prepared -c 8 -j 2
# with -l (a line per transaction) and with -l --aggregate-interval 1, the
# logs going to the scratch directory and removed after each run; besides
# the ratio they show what the logging adds to each tool's CPU per
# transaction.
#
# Targets (ours / pgbench): CPU per transaction <= 0.85 at -S -M prepared
# -c 8 -j 2 and <= 0.75 at -c 64 -j 2; tps >= 1.0; CPU per transaction
# <= 0.85 with -l and with --aggregate-interval 1; initial connection time
# at -c 500 <= 0.25; RSS at -c 500 <= 1.0; -i -s 50 wall <= 0.95 and client
# CPU <= 0.5.
#
# usage: perf/bench.sh [RUNS [SECONDS]]     (defaults 5 and 10)
# env:   PGBENCH (reference binary), OURS (our binary), PG_BINDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

runs=${1:-5}
secs=${2:-10}
bindir=$(pg_bindir)
ref=${PGBENCH:-$bindir/pgbench}
ours=${OURS:-$here/../pgtempo-bench}
user=${PGTEMPO_TEST_USER:-pgtempo-test}
[ -x "$ref" ] || { echo "perf/bench.sh: error: reference $ref not found" >&2; exit 1; }
[ -x "$ours" ] || { echo "perf/bench.sh: error: $ours not found (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "perf/bench.sh: error: /usr/bin/time (GNU time) is needed" >&2; exit 1; }

tmp=$(mktemp -d /tmp/pgtempo-bench.XXXXXX)
cleanup() {
	as_owner "$bindir/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1 || :
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
[ "$(id -u)" -ne 0 ] || chown "$user:" "$tmp"
as_owner "$bindir/initdb" -A trust -U postgres -N -D "$tmp/data" >"$tmp/initdb.log" 2>&1
as_owner "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -s \
	-o "-k $tmp -c listen_addresses='' -c max_connections=600 -c fsync=off -c synchronous_commit=off" start
export PGHOST="$tmp" PGUSER=postgres PGDATABASE=postgres
ulimit -n 4096 2>/dev/null || :

# run PROG ARGS...: append "tps cpu_per_tx_us rss_kb conn_ms" of one run to $tmp/<label>.
run() {
	label=$1
	shift
	/usr/bin/time -f '%U %S %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || {
		cat "$tmp/err" >&2
		return 1
	}
	awk -v t="$(cat "$tmp/time")" '
		/^number of transactions actually processed:/ { split($NF, a, "/"); n = a[1] }
		/^tps = / { tps = $3 }
		/^initial connection time = / { conn = $5 }
		END { split(t, c, " "); printf "%s %.3f %s %s\n", tps, (n > 0 ? (c[1] + c[2]) * 1e6 / n : 0), c[3], conn }' \
		"$tmp/out" >>"$tmp/$label"
}

col() {
	awk -v k="$1" '{ print $k }' "$tmp/$2" | median
}

echo "reference: $ref"
echo "ours:      $ours"
echo "server:    $("$bindir/postgres" -V), fsync=off; $runs runs of ${secs}s each, alternating"
"$ref" -i -s 10 -q >/dev/null 2>&1

printf '\n%-28s %12s %12s %7s %14s %14s %7s\n' workload "tps pgbench" "tps ours" ratio \
	"cpu/tx pgbench" "cpu/tx ours" ratio
for w in "-S -M prepared -c 8 -j 2" "-S -M prepared -c 64 -j 2" "-S -c 8 -j 2" \
	"-N -M prepared -c 8 -j 2" "-c 8 -j 2"; do
	key=$(echo "$w" | tr -c 'a-zA-Z0-9' '_')
	i=0
	while [ "$i" -lt "$runs" ]; do
		# shellcheck disable=SC2086
		run "ref$key" "$ref" -n -T "$secs" $w
		# shellcheck disable=SC2086
		run "ours$key" "$ours" -n -T "$secs" $w
		i=$((i + 1))
	done
	rt=$(col 1 "ref$key")
	ot=$(col 1 "ours$key")
	rc=$(col 2 "ref$key")
	oc=$(col 2 "ours$key")
	printf '%-28s %12s %12s %7s %12s us %12s us %7s\n' "$w" "$rt" "$ot" "$(ratio "$ot" "$rt")" \
		"$rc" "$oc" "$(ratio "$oc" "$rc")"
done

# Logging: what a line per transaction, or an aggregate per second, costs the client.
# The last two columns are the logging's own share: cpu/tx with the log minus
# cpu/tx of the same workload without it (the first workload above).
basekey=$(echo "-S -M prepared -c 8 -j 2" | tr -c 'a-zA-Z0-9' '_')
rbase=$(col 2 "ref$basekey")
obase=$(col 2 "ours$basekey")
printf '\n%-40s %12s %12s %7s %14s %14s\n' "-S -M prepared -c 8 -j 2, logging" "cpu/tx pgbench" \
	"cpu/tx ours" ratio "+log pgbench" "+log ours"
for w in "-l" "-l --aggregate-interval 1"; do
	key=$(echo "$w" | tr -c 'a-zA-Z0-9' '_')
	i=0
	while [ "$i" -lt "$runs" ]; do
		# shellcheck disable=SC2086
		run "reflog$key" "$ref" -n -T "$secs" -S -M prepared -c 8 -j 2 $w --log-prefix="$tmp/log"
		rm -f "$tmp"/log.*
		# shellcheck disable=SC2086
		run "ourslog$key" "$ours" -n -T "$secs" -S -M prepared -c 8 -j 2 $w --log-prefix="$tmp/log"
		rm -f "$tmp"/log.*
		i=$((i + 1))
	done
	rc=$(col 2 "reflog$key")
	oc=$(col 2 "ourslog$key")
	printf '%-40s %12s us %12s us %7s %11s us %11s us\n' "$w" "$rc" "$oc" "$(ratio "$oc" "$rc")" \
		"$(awk -v a="$rc" -v b="$rbase" 'BEGIN { printf "%+.3f", a - b }')" \
		"$(awk -v a="$oc" -v b="$obase" 'BEGIN { printf "%+.3f", a - b }')"
done

printf '\n%-34s %12s %12s %7s\n' "-c 500 -j 1 -S -t 1" pgbench ours ratio
i=0
while [ "$i" -lt "$runs" ]; do
	run ref500 "$ref" -n -S -t 1 -c 500 -j 1
	run ours500 "$ours" -n -S -t 1 -c 500 -j 1
	i=$((i + 1))
done
rc=$(col 4 ref500)
oc=$(col 4 ours500)
printf '%-34s %9s ms %9s ms %7s\n' "initial connection time" "$rc" "$oc" "$(ratio "$oc" "$rc")"
rr=$(col 3 ref500)
orss=$(col 3 ours500)
printf '%-34s %9s kB %9s kB %7s\n' "peak RSS" "$rr" "$orss" "$(ratio "$orss" "$rr")"

# -i -s 50: wall and client CPU
init_run() {
	label=$1
	shift
	start=$(date +%s.%N)
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" -i -s 50 -q >/dev/null 2>&1
	end=$(date +%s.%N)
	awk -v s="$start" -v e="$end" -v t="$(cat "$tmp/time")" \
		'BEGIN { split(t, c, " "); printf "%.3f %.3f\n", e - s, c[1] + c[2] }' >>"$tmp/$label"
}
i=0
while [ "$i" -lt "$runs" ]; do
	init_run refinit "$ref"
	if "$ours" --help | grep -q -- --initialize; then
		init_run oursinit "$ours"
	fi
	i=$((i + 1))
done
printf '\n%-34s %12s %12s %7s\n' "-i -s 50" pgbench ours ratio
if [ -s "$tmp/oursinit" ]; then
	printf '%-34s %10s s %10s s %7s\n' "wall time" "$(col 1 refinit)" "$(col 1 oursinit)" \
		"$(ratio "$(col 1 oursinit)" "$(col 1 refinit)")"
	printf '%-34s %10s s %10s s %7s\n' "client CPU" "$(col 2 refinit)" "$(col 2 oursinit)" \
		"$(ratio "$(col 2 oursinit)" "$(col 2 refinit)")"
else
	printf '%-34s %10s s %12s\n' "wall time" "$(col 1 refinit)" "n/a"
fi
