#!/bin/sh
# perf/timing.sh — pg_test_timing's per-loop cost, ours against PostgreSQL's.
#
# Runs the system's pg_test_timing and ours alternately, RUNS times each
# for DURATION seconds, and prints the median "per loop" ns of each and
# their ratio (ours / PostgreSQL's; the target is <= 1.05).  Then the
# median per-loop cost of our TSC passes, for comparison with the clock
# read they replace.
#
# usage: perf/timing.sh [RUNS [DURATION]]    (defaults 7 and 2)
# env:   PG_TEST_TIMING (reference binary), OURS (our binary), PG_BINDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

runs=${1:-7}
duration=${2:-2}
ref=${PG_TEST_TIMING:-$(pg_bindir)/pg_test_timing}
ours=${OURS:-$here/../pg_test_timing}
[ -x "$ref" ] || { echo "perf/timing.sh: error: reference $ref not found" >&2; exit 1; }
[ -x "$ours" ] || { echo "perf/timing.sh: error: $ours not found (build first)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

per_loop() {
	sed -n 's/^\(Per\|Average\) loop time including overhead: \([0-9.]*\) ns$/\2/p' | head -n 1
}

echo "reference: $ref ($("$ref" -V))"
echo "ours:      $ours ($("$ours" -V))"
echo "runs: $runs x ${duration}s each, alternating"
i=0
while [ "$i" -lt "$runs" ]; do
	"$ref" -d "$duration" | per_loop >>"$tmp/ref"
	"$ours" -d "$duration" | per_loop >>"$tmp/ours"
	"$ours" -d "$duration" --clock=rdtsc | per_loop >>"$tmp/rdtsc"
	"$ours" -d "$duration" --clock=rdtscp | per_loop >>"$tmp/rdtscp"
	i=$((i + 1))
done
r=$(median <"$tmp/ref")
o=$(median <"$tmp/ours")
printf '%-34s %10s ns   (runs: %s)\n' "PostgreSQL pg_test_timing, system" "$r" "$(tr '\n' ' ' <"$tmp/ref")"
printf '%-34s %10s ns   (runs: %s)\n' "pgtempo pg_test_timing, system" "$o" "$(tr '\n' ' ' <"$tmp/ours")"
printf '%-34s %10s      (target <= 1.05)\n' "ratio ours / PostgreSQL" "$(ratio "$o" "$r")"
if [ -s "$tmp/rdtsc" ]; then
	printf '%-34s %10s ns\n' "pgtempo --clock=rdtsc" "$(median <"$tmp/rdtsc")"
	printf '%-34s %10s ns\n' "pgtempo --clock=rdtscp" "$(median <"$tmp/rdtscp")"
fi
