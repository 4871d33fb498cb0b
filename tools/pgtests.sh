#!/bin/sh
# Run PostgreSQL's own TAP tests of pgbench and pg_test_timing against the
# built pgtempo-bench and pg_test_timing, the way a user swapping one for the
# other would: `pgbench` and `pg_test_timing` in PATH are ours.
#
# Usage: tools/pgtests.sh [--reference] BUILDDIR FILE_OR_DIR...
#
# FILE_OR_DIR are PostgreSQL's test scripts (*.pl), or directories of them:
# src/bin/pgbench/t/ and src/bin/pg_test_timing/t/ of a PostgreSQL source
# tree of the version to compare with (pgtempo ships none of them; see
# README, "Hacking").  --reference runs them against PostgreSQL's own
# binaries instead, for a baseline.  This script fetches nothing; it hands
# the scripts to tests/prove.sh, which starts the clusters (as an
# unprivileged user when run as root) and keeps the logs of a failed run.
# Exit status: prove's (0 when every test passed).

set -u

me=pgtests.sh
reference=false
if [ "${1:-}" = --reference ]; then
	reference=true
	shift
fi
if [ $# -lt 2 ]; then
	printf 'usage: %s [--reference] BUILDDIR FILE_OR_DIR...\n' "$me" >&2
	exit 2
fi
srcdir=$(cd "$(dirname "$0")/.." && pwd) || exit 2
builddir=$(cd "$1" && pwd) || exit 2
shift

# prove.sh runs scripts from a source tree's tests/t: make one that holds
# these scripts beside our tests/lib.
tree=$(mktemp -d "${TMPDIR:-/tmp}/pgtempo-pgtests.XXXXXX") || exit 2
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/tests/t" "$tree/man" || exit 2
cp -R "$srcdir/tests/lib" "$tree/tests/lib" || exit 2
n=0
# Copy one script; two tools' tests are both called 001_basic.pl, so the
# copies are numbered.
add_script() {
	n=$((n + 1))
	cp "$1" "$tree/tests/t/$(printf '%02d' "$n")_$(basename "$1")" || exit 2
}
for arg in "$@"; do
	if [ -d "$arg" ]; then
		for f in "$arg"/*.pl; do
			[ -f "$f" ] && add_script "$f"
		done
	elif [ -f "$arg" ]; then
		add_script "$arg"
	else
		printf '%s: error: no such test script or directory: %s\n' "$me" "$arg" >&2
		exit 2
	fi
done
if [ "$n" -eq 0 ]; then
	printf '%s: error: no *.pl test script found in %s\n' "$me" "$*" >&2
	exit 2
fi

if $reference; then
	unset PGTEMPO_ALIASES
else
	PGTEMPO_ALIASES="pgbench=pgtempo-bench pg_test_timing=pg_test_timing"
	export PGTEMPO_ALIASES
fi
cd "$tree" || exit 2
sh "$srcdir/tests/prove.sh" "$tree" "$builddir" tests/t/*.pl
