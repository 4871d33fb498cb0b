#!/bin/sh
# perf/compare_rates.sh — how often pgtempo-bench --compare is right, here.
#
# Starts a throwaway cluster (as PGTEMPO_TEST_USER, default pgtempo-test,
# when run as root), initializes it with -i -s 10, then:
#  - A/A: 2 x PAIRS identical runs (-S -c 4 -j 2 -T SECONDS --json),
#    alternated; each pair compared one run against one (the block
#    bootstrap) and, in groups of six runs, three against three (the run
#    as the unit, interleaved A B A B A B).  Printed: how often each says
#    "no difference shown" for tps and for every metric (the method
#    promises about 95 % per metric), the spread of tps across the
#    identical runs and the width of the within-run interval.
#  - injected changes, INJECTED pairs each, alternated: a script with
#    "\sleep :d us" run with -D d=0 and -D d=200 (the same script, so
#    the same benchmark), and tpcb-like with synchronous_commit on and
#    off (PGOPTIONS).  Printed: how often the verdict has the right sign
#    (tps lower and latency higher with the sleep; tps higher with
#    synchronous_commit off) and how often the change itself does.
#  - the gate: every comparison is made with --fail-if=$GATES (default
#    tps:-0%,tps:+0%,tps:-5%,p99:+10%); printed: how often each limit,
#    and any of them, trips on the A/A pairs and on the injected changes.
#
# usage: perf/compare_rates.sh [PAIRS [SECONDS [INJECTED]]]   (defaults 20, 10, 10)
#        perf/compare_rates.sh --reports DIR [PAIRS [INJECTED]]
#        (the comparisons and the summary again, on reports kept by KEEP=1)
# env:   OURS (our binary), PG_BINDIR, KEEP=1 keeps the reports (in a directory it prints)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

reports=
if [ "${1:-}" = --reports ]; then
	reports=$2
	shift 2
	set -- "${1:-20}" 10 "${2:-10}"
fi
pairs=${1:-20}
secs=${2:-10}
injected=${3:-10}
ours=${OURS:-$here/../pgtempo-bench}
gates=${GATES:-tps:-0%,tps:+0%,tps:-5%,p99:+10%}
[ -x "$ours" ] || { echo "perf/compare_rates.sh: error: $ours not found (build first)" >&2; exit 1; }

# run NAME ARGS...: one run's --json report as $out/NAME.json
run() {
	name=$1
	shift
	"$ours" "$@" -T "$secs" --json="$out/$name.json" >/dev/null 2>&1 ||
		echo "perf/compare_rates.sh: warning: run $name failed" >&2
}

# run_sync NAME on|off ARGS...: run, with synchronous_commit set for its sessions
run_sync() {
	name=$1
	mode=$2
	shift 2
	PGOPTIONS="-c synchronous_commit=$mode" "$ours" "$@" -T "$secs" --json="$out/$name.json" \
		>/dev/null 2>&1 || echo "perf/compare_rates.sh: warning: run $name failed" >&2
}

# cmp NAME BASE... -- NEW...: the comparison's --json as $out/NAME.cmp.json
cmp() {
	name=$1
	shift
	"$ours" --compare "$@" --fail-if="$gates" --json="$out/$name.cmp.json" >/dev/null 2>&1 || :
}

# the runs: A/A, then the injected changes, alternated
make_reports() {
	i=0
	while [ "$i" -lt $((2 * pairs)) ]; do
		run "aa$i" -S -c 4 -j 2
		i=$((i + 1))
	done
	printf '\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n\\sleep :d us\n' \
		>"$out/sleep.sql"
	i=0
	while [ "$i" -lt "$injected" ]; do
		run "sl0_$i" -f "$out/sleep.sql" -c 4 -j 2 -D d=0
		run "sl200_$i" -f "$out/sleep.sql" -c 4 -j 2 -D d=200
		run_sync "scon_$i" on -c 4 -j 2
		run_sync "scoff_$i" off -c 4 -j 2
		i=$((i + 1))
	done
}

if [ -n "$reports" ]; then
	out=$reports
else
	bindir=$(pg_bindir)
	throwaway_cluster compare ""
	if [ "${KEEP:-0}" = 1 ]; then
		out=$(mktemp -d "${TMPDIR:-/tmp}/compare_rates.XXXXXX")
	else
		out="$tmp/reports"
		mkdir -p "$out"
	fi
	"$ours" -i -s 10 -q >/dev/null 2>&1
	echo "load average at the start: $(loadavg)"
	make_reports
	echo "load average at the end: $(loadavg)"
fi

# the comparisons: pairs one against one, groups of six three against three
i=0
while [ "$i" -lt "$pairs" ]; do
	cmp "aa1v1_$i" "$out/aa$((2 * i)).json" --to "$out/aa$((2 * i + 1)).json"
	i=$((i + 1))
done
g=0
while [ $((6 * g + 6)) -le $((2 * pairs)) ]; do
	b=$((6 * g))
	cmp "aa3v3_$g" "$out/aa$b.json" "$out/aa$((b + 2)).json" "$out/aa$((b + 4)).json" \
		--to "$out/aa$((b + 1)).json" "$out/aa$((b + 3)).json" "$out/aa$((b + 5)).json"
	g=$((g + 1))
done
i=0
while [ "$i" -lt "$injected" ]; do
	cmp "sleep_$i" "$out/sl0_$i.json" --to "$out/sl200_$i.json"
	cmp "sync_$i" "$out/scon_$i.json" --to "$out/scoff_$i.json"
	i=$((i + 1))
done

python3 - "$out" "$pairs" "$injected" <<'EOF'
import glob, json, math, os, statistics, sys

out, pairs, injected = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def load(pattern):
    docs = []
    for f in sorted(glob.glob(os.path.join(out, pattern))):
        try:
            docs.append(json.load(open(f)))
        except (OSError, ValueError):
            pass
    return docs

def rate(docs, pred, metric=None):
    hits = total = 0
    for d in docs:
        for r in d["results"]:
            if r["scope"] != "overall" or (metric and r["metric"] != metric):
                continue
            if r["verdict"] == "unknown":
                continue
            total += 1
            hits += pred(r)
    return hits, total

def show(label, hits, total):
    pct = 100.0 * hits / total if total else float("nan")
    print(f"  {label:58s} {hits:3d} of {total:3d}  ({pct:5.1f} %)")

nodiff = lambda r: r["verdict"] == "no difference shown"
aa1 = load("aa1v1_*.cmp.json")
aa3 = load("aa3v3_*.cmp.json")
print("A/A (identical runs): \"no difference shown\" (the method promises ~95 % per metric)")
show("one run per side, tps", *rate(aa1, nodiff, "tps"))
show("one run per side, every metric", *rate(aa1, nodiff))
show("3 against 3 runs, tps", *rate(aa3, nodiff, "tps"))
show("3 against 3 runs, every metric", *rate(aa3, nodiff))

tps = []
for f in sorted(glob.glob(os.path.join(out, "aa[0-9]*.json"))):
    try:
        tps.append(json.load(open(f))["results"]["tps"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
if len(tps) > 1:
    m = statistics.mean(tps)
    print(f"  tps of the {len(tps)} identical runs: mean {m:.0f}, sd {100 * statistics.stdev(tps) / m:.1f} %,"
          f" range {100 * (max(tps) - min(tps)) / m:.1f} %")
    diffs = [100 * (tps[2 * i + 1] / tps[2 * i] - 1) for i in range(len(tps) // 2)]
    print(f"  change of tps between the runs of a pair: sd {statistics.stdev(diffs):.1f} %,"
          f" largest {max(abs(x) for x in diffs):.1f} %")
widths = [(r["interval_high_pct"] - r["interval_low_pct"]) / 2 for d in aa1 for r in d["results"]
          if r["scope"] == "overall" and r["metric"] == "tps" and r["interval_low_pct"] is not None]
if widths:
    print(f"  half-width of the one-run tps interval (within-run noise): median {statistics.median(widths):.1f} %")
widths = [(r["interval_high_pct"] - r["interval_low_pct"]) / 2 for d in aa3 for r in d["results"]
          if r["scope"] == "overall" and r["metric"] == "tps" and r["interval_low_pct"] is not None]
if widths:
    print(f"  half-width of the 3-against-3 tps interval: median {statistics.median(widths):.1f} %")

sl = load("sleep_*.cmp.json")
sy = load("sync_*.cmp.json")
print("injected changes: the verdict with the right sign (and the change's sign alone)")
for label, docs, metric, want, sign in (
        ("\\sleep 200us added, tps \"lower\"", sl, "tps", "lower", -1),
        ("\\sleep 200us added, latency avg \"higher\"", sl, "avg", "higher", 1),
        ("synchronous_commit off, tps \"higher\"", sy, "tps", "higher", 1),
        ("synchronous_commit off, latency avg \"lower\"", sy, "avg", "lower", -1)):
    show(label, *rate(docs, lambda r: r["verdict"] == want, metric))
    show("  its change has the right sign", *rate(docs, lambda r: r["change_pct"] * sign > 0, metric))
    show("  verdict with the wrong sign", *rate(docs, lambda r: r["verdict"] not in (want, "no difference shown"), metric))

def gate_rates(label, docs):
    print(f"the gate (--fail-if), {label}:")
    if not docs:
        return
    limits = [g["limit"] for g in docs[0].get("fail_if", [])]
    for i, lim in enumerate(limits):
        checked = [d["fail_if"][i] for d in docs if d["fail_if"][i]["checked"]]
        show(f"{lim} tripped", sum(g["tripped"] for g in checked), len(checked))
    show("any limit tripped", sum(any(g["tripped"] for g in d["fail_if"]) for d in docs), len(docs))
    fam = sorted({d["method"].get("family") for d in docs if "method" in d})
    print(f"  (intervals at 95 % for a family of {fam} lines together)")

gate_rates("A/A, one run per side", aa1)
gate_rates("A/A, 3 against 3 runs", aa3)
gate_rates("\\sleep 200us added", sl)
gate_rates("synchronous_commit off", sy)
EOF
[ "${KEEP:-0}" = 1 ] && [ -z "$reports" ] && echo "reports kept in $out"
exit 0
