#!/bin/sh
# perf/waits_readers.sh — the sampler's two result readers side by side:
# a pgtempo-waits built with libpqtypes and one built with libpq alone
# (./configure --without-libpqtypes).
#
#  1. The same output: with SESSIONS sessions asleep in pg_sleep (a state
#     that does not change), both binaries write the sample history of a
#     few samples as CSV, every column of every row; apart from the sample
#     times the two files must be the same, byte for byte.
#  2. The cost: CPU time per sample of the sampler and of its server
#     backend (from each run's JSON report: getrusage and the backend's
#     /proc/PID/schedstat), at -i INTERVAL for SECONDS, with every column
#     read (--log, --query-text); RUNS alternating runs of each (in the
#     order A B, then B A), medians,
#     and the ratio libpq / libpqtypes (the target is <= 1.05).
#
# A throwaway cluster is started on a Unix socket (as the user
# pgtempo-test when run as root) and removed.  The load average is printed
# before and after: other jobs on the machine show up in the numbers.
#
# usage: perf/waits_readers.sh WAITS_LIBPQTYPES WAITS_LIBPQ [RUNS [SECONDS]]
#        (defaults 5 and 10)
# env:   PG_BINDIR, SESSIONS (default 50), INTERVAL (default 10ms)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

me=perf/waits_readers.sh
die() {
	echo "$me: error: $*" >&2
	exit 1
}

[ $# -ge 2 ] || die "usage: $me WAITS_LIBPQTYPES WAITS_LIBPQ [RUNS [SECONDS]]"
a=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
b=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
runs=${3:-5}
secs=${4:-10}
sessions=${SESSIONS:-50}
interval=${INTERVAL:-10ms}
bindir=$(pg_bindir)
user=${PGTEMPO_TEST_USER:-pgtempo-test}
for x in "$a" "$b"; do
	[ -x "$x" ] || die "$x not found"
done
for p in initdb pg_ctl psql; do
	[ -x "$bindir/$p" ] || die "$bindir/$p not found (set PG_BINDIR)"
done

cluster_dir pgtempo-readers
as_owner "$bindir/initdb" -A trust -U postgres -N -D "$tmp/data" >"$tmp/initdb.log" 2>&1 ||
	{ cat "$tmp/initdb.log" >&2; die "initdb failed"; }
port=$(free_port)
as_owner "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -s \
	-o "-p $port -k $tmp -c listen_addresses=127.0.0.1 -c max_connections=$((sessions + 20))" \
	start || die "the server did not start (see $tmp/server.log)"
export PGHOST=$tmp PGPORT=$port PGUSER=postgres PGDATABASE=postgres
unset PGHOSTADDR PGSERVICE PGPASSWORD PGOPTIONS

# Sessions asleep for the whole run, each with an application_name of its
# own, half of them over TCP (a client address to read).
i=0
while [ "$i" -lt "$sessions" ]; do
	host=$tmp
	[ $((i % 2)) -eq 0 ] && host=127.0.0.1
	PGHOST=$host PGAPPNAME="sleeper $i" "$bindir/psql" -X -q -c "SELECT pg_sleep(3600)" \
		>/dev/null 2>&1 &
	i=$((i + 1))
done
n=0
while [ "$n" -lt "$sessions" ]; do
	sleep 0.2
	n=$("$bindir/psql" -X -A -t -c \
		"SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'")
done

echo "server:    $("$bindir/postgres" -V), $sessions sessions in pg_sleep, $(nproc) CPUs"
echo "libpqtypes: $a"
echo "libpq:      $b"

# ---------------------------------------------------------------- 1: the same output
for x in a b; do
	eval bin=\$$x
	"$bin" --source=activity -i 100ms -T 1 --query-text --log="$tmp/$x.csv" --log-format=csv \
		>/dev/null 2>"$tmp/$x.err" || { cat "$tmp/$x.err" >&2; die "$bin failed"; }
	# the first column is the sample's time; "# health" lines are the run's
	grep -v "^#" "$tmp/$x.csv" | cut -d, -f2- | sort >"$tmp/$x.rows"
done
rows=$(wc -l <"$tmp/a.rows")
[ "$rows" -ge "$sessions" ] || die "only $rows rows sampled"
if cmp -s "$tmp/a.rows" "$tmp/b.rows"; then
	echo "same output: yes ($rows rows of the sample history, every column but the time)"
else
	diff "$tmp/a.rows" "$tmp/b.rows" | head -n 20 >&2
	die "the two builds wrote different rows"
fi

# ---------------------------------------------------------------- 2: the cost
echo
echo "-i $interval -T $secs --log --query-text, $runs runs each, alternating (A B, B A, ...)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ "$i" -lt "$runs" ]; do
	# a b, then b a: neither always runs first
	order="a b"
	[ $((i % 2)) -eq 1 ] && order="b a"
	for x in $order; do
		eval bin=\$$x
		"$bin" --source=activity -i "$interval" -T "$secs" --query-text --log=/dev/null \
			--log-format=csv --json >"$tmp/$x$i.json" 2>/dev/null || die "$bin failed"
		json_field "$tmp/$x$i.json" health.cpu_us_per_sample >>"$tmp/$x.cpu"
		json_field "$tmp/$x$i.json" health.backend_cpu_us_per_sample >>"$tmp/$x.bcpu"
		json_field "$tmp/$x$i.json" health.samples >>"$tmp/$x.samples"
	done
	i=$((i + 1))
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
for x in a b; do
	paste -d' ' "$tmp/$x.cpu" "$tmp/$x.bcpu" | awk '{ print $1 + $2 }' >"$tmp/$x.both"
done
printf '%-36s %12s %12s %8s\n' "us per sample (medians)" libpqtypes libpq ratio
for k in cpu bcpu both; do
	case $k in cpu) what="sampler" ;; bcpu) what="its backend" ;; both) what="both" ;; esac
	ma=$(median <"$tmp/a.$k")
	mb=$(median <"$tmp/b.$k")
	printf '%-36s %12.1f %12.1f %8s\n' "$what" "$ma" "$mb" "$(ratio "$mb" "$ma")"
done
for x in a b; do
	printf '%-12s sampler %s | backend %s | samples %s\n' "$([ $x = a ] && echo libpqtypes || echo libpq)" \
		"$(tr '\n' ' ' <"$tmp/$x.cpu")" "$(tr '\n' ' ' <"$tmp/$x.bcpu")" \
		"$(tr '\n' ' ' <"$tmp/$x.samples")"
done
