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
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "perf: error: no values to take the median of (a run wrote no result)" > "/dev/stderr"; exit 1 } if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B: A / B with 3 decimals.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.3f\n", a / b }'
}

# Run a command as the cluster owner: $user (default pgtempo-test) when root,
# since PostgreSQL refuses to run as root.
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		(cd / && runuser -u "${user:-pgtempo-test}" -- "$@")
	else
		"$@"
	fi
}

# owned_tmp NAME: a fresh directory $tmp, named after NAME, that the
# cluster's owner may write; as root, owned by $user (a system user, created
# if missing).
owned_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	if [ "$(id -u)" -eq 0 ]; then
		id -u "${user:-pgtempo-test}" >/dev/null 2>&1 ||
			useradd --system --user-group --no-create-home --home-dir /nonexistent \
				--shell /usr/sbin/nologin "${user:-pgtempo-test}"
		chown "${user:-pgtempo-test}:" "$tmp"
		chmod 0755 "$tmp"
	fi
}

# cluster_dir NAME: owned_tmp, with the server stopped and the directory
# removed when the script ends.
cluster_dir() {
	owned_tmp "$1"
	trap stop_cluster EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# Stop the cluster in $tmp/data (if it runs) and remove $tmp.
stop_cluster() {
	if [ -f "$tmp/data/postmaster.pid" ]; then
		as_owner "$bindir/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1 || :
	fi
	rm -rf "$tmp"
}

# A TCP port free on 127.0.0.1.
free_port() {
	perl -MIO::Socket::INET -e '
		my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1", LocalPort => 0,
			ReuseAddr => 1) or die "no free port: $!\n";
		print $s->sockport, "\n";'
}

# throwaway_cluster NAME SERVER_OPTIONS: a cluster in a fresh cluster_dir,
# listening on a socket there only, stopped and removed at exit; PGHOST,
# PGUSER and PGDATABASE point at it.  Needs $bindir.
throwaway_cluster() {
	cluster_dir "pgtempo-$1"
	as_owner "$bindir/initdb" -A trust -U postgres -N -D "$tmp/data" >"$tmp/initdb.log" 2>&1
	as_owner "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -s \
		-o "-k $tmp -c listen_addresses='' $2" start
	export PGHOST="$tmp" PGUSER=postgres PGDATABASE=postgres
}

# start_cluster OPTIONS: a cluster in $tmp/data on 127.0.0.1 at a free
# $port, with the server options OPTIONS; PG* point at it.
start_cluster() {
	port=$(free_port)
	as_owner "$bindir/initdb" -A trust -U postgres -N -D "$tmp/data" >"$tmp/initdb.log" 2>&1 ||
		{ cat "$tmp/initdb.log" >&2; die "initdb failed"; }
	as_owner "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -s \
		-o "-p $port -k $tmp -c listen_addresses=127.0.0.1 $1" start ||
		die "the server did not start (see $tmp/server.log)"
	export PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres PGDATABASE=postgres
	unset PGHOSTADDR PGSERVICE PGPASSWORD PGOPTIONS
}

# A field of a JSON report, by a dotted path ("" when absent).
json_field() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d.get(k) if isinstance(d, dict) else None
print("" if d is None else d)' "$1" "$2"
}

# exec_cost PREPARE EXECUTE K: the backend's CPU µs per EXECUTE, run K times
# in one psql session (psqlc) after PREPARE, from its /proc/self/schedstat.
# Needs $tmp; dies (die) when psql fails.
exec_cost() {
	{
		echo "$1"
		echo "$2"
		echo "SELECT 'a ' || split_part(pg_read_file('/proc/self/schedstat'), ' ', 1);"
		i=0
		while [ $i -lt "$3" ]; do
			echo "$2"
			i=$((i + 1))
		done
		echo "SELECT 'b ' || split_part(pg_read_file('/proc/self/schedstat'), ' ', 1);"
	} >"$tmp/shape.sql"
	psqlc -f "$tmp/shape.sql" >"$tmp/shape.out" 2>&1 || die "statement failed: $(tail -n 3 "$tmp/shape.out")"
	awk -v k="$3" '/^a / { a = $2 } /^b / { b = $2 } END { printf "%.1f\n", (b - a) / 1e3 / k }' "$tmp/shape.out"
}

# The 1, 5 and 15 minute load averages.
loadavg() {
	cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'
}

# timed DIR CMD...: run CMD under GNU time, its output in DIR/out and
# DIR/err (printed, and exit 1, when it fails); its wall time, CPU time
# (user + sys) and peak RSS appended to DIR/wall, DIR/cpu and DIR/rss.
timed() {
	dir=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$@" >"$dir/out" 2>"$dir/err" || {
		cat "$dir/err" >&2
		exit 1
	}
	read -r wall user_s sys_s rss <"$dir/time"
	echo "$wall" >>"$dir/wall"
	awk -v u="$user_s" -v s="$sys_s" 'BEGIN { printf "%.2f\n", u + s }' >>"$dir/cpu"
	echo "$rss" >>"$dir/rss"
}
