#!/bin/sh
# perf/merge.sh — pgtempo-bench --merge of many hosts' reports of a long run.
#
# Starts a throwaway cluster (as PGTEMPO_TEST_USER, default pgtempo-test,
# when run as root: PostgreSQL refuses root), makes one real report with
# a wide latency spread (-P 1 -r --json, SECONDS long), then scales it to
# what a host writes after a one-hour run with -P 1: 3600 progress lines,
# the histogram's counts and the sums multiplied by 3600 / SECONDS, the
# duration and end moved (perf/merge_gen.pl).  HOSTS copies with their
# own host names are then merged RUNS times (--json and --chart of the
# whole written too), and the medians of the wall time, the CPU time
# (user + sys) and the peak RSS are printed, with the input's size.
#
# Target: under 1 s for 64 hosts.
#
# usage: perf/merge.sh [RUNS [HOSTS [SECONDS]]]     (defaults 5, 64, 5)
# env:   OURS (our binary), PG_BINDIR, MERGE_KEEP (a directory to keep the reports in)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

runs=${1:-5}
hosts=${2:-64}
secs=${3:-5}
bindir=$(pg_bindir)
ours=${OURS:-$here/../pgtempo-bench}
user=${PGTEMPO_TEST_USER:-pgtempo-test}
[ -x "$ours" ] || { echo "perf/merge.sh: error: $ours not found (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "perf/merge.sh: error: /usr/bin/time (GNU time) is needed" >&2; exit 1; }

throwaway_cluster merge "-c fsync=off"

# latencies from 0 to 20 ms and a few slow ones: a wide histogram
printf '%s\n' '\set d random_exponential(0, 20000, 3)' \
	'SELECT pg_sleep(:d / 1000000.0);' >"$tmp/spread.sql"
"$ours" -n -f "$tmp/spread.sql" -c 8 -j 2 -T "$secs" -P 1 -r --json="$tmp/one.json" \
	>/dev/null 2>"$tmp/run.err" || { cat "$tmp/run.err" >&2; exit 1; }
mkdir "$tmp/in"
perl "$here/merge_gen.pl" "$tmp/one.json" "$tmp/in" "$hosts" 3600
size=$(du -sm "$tmp/in" | cut -f1)
[ -z "${MERGE_KEEP:-}" ] || cp -r "$tmp/in/." "$MERGE_KEEP/"

: >"$tmp/wall"
: >"$tmp/cpu"
: >"$tmp/rss"
i=0
while [ "$i" -lt "$runs" ]; do
	timed "$tmp" "$ours" --merge --json="$tmp/m.json" --chart="$tmp/m.svg" "$tmp"/in/*.json
	i=$((i + 1))
done
echo "merge of $hosts reports of a 1-hour run with -P 1 ($size MB of JSON), $runs runs, load $(cut -d' ' -f1-3 /proc/loadavg):"
echo "  wall $(median <"$tmp/wall") s, cpu $(median <"$tmp/cpu") s, peak RSS $(median <"$tmp/rss") kB (medians)"
echo "  merged: $(grep -c . "$tmp/out") report lines, $(wc -c <"$tmp/m.json") bytes of JSON, $(wc -c <"$tmp/m.svg") bytes of SVG"
