#!/bin/sh
# perf/io.sh — pgtempo-io -C against a bare pread loop (perf/io_floor.c) and
# against ioping, on one cached file: COUNT random 4 KiB reads, -i 0 -q -B.
#
# Runs the three alternately, RUNS times each, and prints the medians of
#   timed:  the mean request time each reports (ns; the -B line's avg), and
#   wall:   real time per request (ns; the -B line's load time / requests),
#   median: the median request time (ns; ours from --json's p50, ioping
#           has none), which a busy machine's preemptions move least,
# with the ratios ours / floor (the target is <= 1.05) and ioping / floor.
#
# usage: perf/io.sh [RUNS [COUNT]]    (defaults 7 and 200000)
# env:   OURS (our binary), IOPING, CC
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

runs=${1:-7}
count=${2:-200000}
ours=${OURS:-$here/../pgtempo-io}
ioping=${IOPING:-$(command -v ioping || true)}
[ -x "$ours" ] || { echo "perf/io.sh: error: $ours not found (build first)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -o "$tmp/io_floor" "$here/io_floor.c"
# a 1 MiB file read into the cache, as ioping's default working set
head -c 1048576 /dev/urandom >"$tmp/data"
cat "$tmp/data" >/dev/null

# -B: count time iops bps min avg max mdev requests real-time
raw() {
	awk '{ printf "%.1f %.1f\n", $6, $10 / $9 }'
}

echo "ours:   $ours ($("$ours" -v))"
[ -n "$ioping" ] && echo "ioping: $ioping ($("$ioping" -v))"
echo "runs: $runs x $count requests each, alternating"
i=0
while [ "$i" -lt "$runs" ]; do
	"$tmp/io_floor" "$tmp/data" "$count" >>"$tmp/floor"
	"$ours" -C -i 0 -c "$count" --json=$tmp/ours.json -B "$tmp/data" | raw | tr '\n' ' ' >>"$tmp/ours"
	json_field "$tmp/ours.json" latency_ns.percentiles.p50 >>"$tmp/ours"
	[ -n "$ioping" ] && "$ioping" -C -i 0 -q -B -c "$count" "$tmp/data" | raw >>"$tmp/ioping"
	i=$((i + 1))
done

col() { cut -d' ' -f"$1" "$2" | median; }
for what in timed wall median; do
	case $what in timed) n=1 ;; wall) n=2 ;; median) n=3 ;; esac
	f=$(col $n "$tmp/floor")
	o=$(col $n "$tmp/ours")
	printf '%-6s floor %8s ns   pgtempo-io %8s ns (x %s)' "$what:" "$f" "$o" "$(ratio "$o" "$f")"
	if [ -n "$ioping" ] && [ "$what" != median ]; then
		p=$(col $n "$tmp/ioping")
		printf '   ioping %8s ns (x %s)' "$p" "$(ratio "$p" "$f")"
	fi
	echo
done
