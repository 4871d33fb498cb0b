# perf/lib.sh — helpers shared by the side-by-side benchmarks.

# The newest PostgreSQL server bin directory, or $PG_BINDIR.
pg_bindir() {
	if [ -n "${PG_BINDIR:-}" ]; then
		echo "$PG_BINDIR"
		return
	fi
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
		echo "$d"
		return
	done
	dirname "$(command -v pg_config)"
}

# Median of the numbers on stdin, one per line.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B: A / B with 3 decimals.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.3f\n", a / b }'
}
