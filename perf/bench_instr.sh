#!/bin/bash
# perf/bench_instr.sh — client instructions per transaction, counted by
# callgrind: the same for the same binary and workload whatever else the
# machine does, so two builds (or pgtempo-bench and pgbench) compare on a
# busy machine where tps and CPU times do not.
#
#   perf/bench_instr.sh [-t N] [OPTIONS -- ] BINARY...
#
# Each BINARY runs `-n -S -M prepared -c 1 -j 1 -t N` (default N 20000)
# under valgrind --tool=callgrind against one throwaway cluster (scale 1),
# twice: with N and with N/10 transactions; the difference divided by the
# difference in transactions leaves out the start and the end (connecting,
# parsing, the report).  Extra options for both runs go before "--", e.g.
# perf/bench_instr.sh --json=/dev/null -- ./pgtempo-bench
# Prints one line per binary: instructions per transaction.

set -eu
cd "$(dirname "$0")/.."
. perf/lib.sh

die() {
	echo "bench_instr.sh: error: $*" >&2
	exit 1
}

n=20000
if [ "${1:-}" = -t ]; then
	n=$2
	shift 2
fi
extra=()
if printf '%s\n' "$@" | grep -qx -- --; then
	while [ "$1" != -- ]; do
		extra+=("$1")
		shift
	done
	shift
fi
[ $# -gt 0 ] || die "usage: perf/bench_instr.sh [-t N] [OPTIONS --] BINARY..."
command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"

bindir=$(pg_bindir)
throwaway_cluster bench-instr ""
"$bindir/pgbench" -i -q -s 1 >/dev/null 2>&1 || die "pgbench -i failed"

# Instructions of one run of BINARY with T transactions.
instr() {
	local out=$tmp/cg.out
	valgrind --tool=callgrind --callgrind-out-file="$out" "$1" -n -S -M prepared -c 1 -j 1 \
		-t "$2" "${extra[@]}" >/dev/null 2>"$tmp/cg.err" || { cat "$tmp/cg.err" >&2; die "$1 failed"; }
	sed -n 's/^summary: *//p' "$out" | head -n 1
}

printf '%-40s %s\n' binary instructions/transaction
for b in "$@"; do
	big=$(instr "$b" "$n")
	small=$(instr "$b" $((n / 10)))
	printf '%-40s %s\n' "$b" "$(awk -v a="$big" -v b="$small" -v n="$n" 'BEGIN { printf "%.0f", (a - b) / (n - n / 10) }')"
done
