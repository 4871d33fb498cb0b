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

# Run a command as the cluster owner: $user (default pgtempo-test) when root,
# since PostgreSQL refuses to run as root.
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		(cd / && runuser -u "${user:-pgtempo-test}" -- "$@")
	else
		"$@"
	fi
}

# cluster_dir NAME: a fresh directory $tmp for a throwaway cluster of
# $bindir, its server stopped and the directory removed when the script
# ends; as root, owned by $user (a system user, created if missing).
cluster_dir() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	trap cluster_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	if [ "$(id -u)" -eq 0 ]; then
		id -u "${user:-pgtempo-test}" >/dev/null 2>&1 ||
			useradd --system --user-group --no-create-home --home-dir /nonexistent \
				--shell /usr/sbin/nologin "${user:-pgtempo-test}"
		chown "${user:-pgtempo-test}:" "$tmp"
		chmod 0755 "$tmp"
	fi
}

cluster_cleanup() {
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
