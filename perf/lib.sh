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

# Run a command as the cluster's owner: $user when run as root (PostgreSQL
# refuses to run as root), else the caller.
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		(cd / && runuser -u "$user" -- "$@")
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
		id -u "$user" >/dev/null 2>&1 ||
			useradd --system --user-group --no-create-home --home-dir /nonexistent \
				--shell /usr/sbin/nologin "$user"
		chown "$user:" "$tmp"
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
