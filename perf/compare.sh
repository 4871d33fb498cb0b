#!/bin/sh
# perf/compare.sh — pgtempo-bench --compare of long runs.
#
# Starts a throwaway cluster (as PGTEMPO_TEST_USER, default pgtempo-test,
# when run as root), makes two real reports (-S -c 4 -j 2 --json,
# SECONDS long, so with the per-interval series), scales each to a
# one-hour run (perf/merge_gen.pl: 3600 rows of the series, the counts
# multiplied) in 10 copies, then times RUNS times: the comparison of the
# two sides of 10 reports (the run as the unit) and of one hour-long
# report against another (the block bootstrap over 3600 intervals).
# Printed: the medians of the wall time, the CPU time (user + sys) and the
# peak RSS, and the input's size.  On a loaded host the CPU time is the
# number to look at.
#
# Target: under 1 s for each.
#
# usage: perf/compare.sh [RUNS [SECONDS]]     (defaults 5, 25)
# env:   OURS (our binary), PG_BINDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

runs=${1:-5}
secs=${2:-25}
bindir=$(pg_bindir)
ours=${OURS:-$here/../pgtempo-bench}
[ -x "$ours" ] || { echo "perf/compare.sh: error: $ours not found (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "perf/compare.sh: error: /usr/bin/time (GNU time) is needed" >&2; exit 1; }

throwaway_cluster compare "-c fsync=off"
"$ours" -i -s 10 -q >/dev/null 2>&1
for side in a b; do
	"$ours" -S -c 4 -j 2 -T "$secs" --json="$tmp/$side.json" >/dev/null 2>"$tmp/run.err" ||
		{ cat "$tmp/run.err" >&2; exit 1; }
	mkdir "$tmp/$side"
	perl "$here/merge_gen.pl" "$tmp/$side.json" "$tmp/$side" 10 3600
done
size=$(du -sm "$tmp/a" | cut -f1)

# measure LABEL ARGS...: RUNS times, the medians
measure() {
	label=$1
	shift
	: >"$tmp/wall"
	: >"$tmp/cpu"
	: >"$tmp/rss"
	i=0
	while [ "$i" -lt "$runs" ]; do
		timed "$tmp" "$ours" --compare "$@"
		i=$((i + 1))
	done
	echo "$label:"
	echo "  wall $(median <"$tmp/wall") s, cpu $(median <"$tmp/cpu") s, peak RSS $(median <"$tmp/rss") kB (medians of $runs)"
}

echo "reports of a 1-hour run: $size MB for 10 of them; load $(loadavg)"
measure "10 against 10 one-hour reports (the run as the unit)" "$tmp"/a/*.json --to "$tmp"/b/*.json
measure "1 against 1 one-hour report (block bootstrap, 2000 resamples)" "$tmp/a/host1.json" --to "$tmp/b/host1.json"
