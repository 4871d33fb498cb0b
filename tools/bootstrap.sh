#!/bin/bash
# Build pgtempo from a fresh clone, then run its tests or a short demo.
#
#   tools/bootstrap.sh check   install build deps, build, make check
#   tools/bootstrap.sh demo    install build deps, build, run every built tool
#                              against a throwaway PostgreSQL cluster
#   tools/bootstrap.sh deps    install the build deps only (what demo needs;
#                              check adds chromium where there is one)
#
# Build dependencies are installed with apt-get (through sudo when not root)
# only when one is missing.  Runs without a terminal.  PostgreSQL refuses to
# run as root: as root, the demo cluster runs as the system user pgtempo-test
# (PGTEMPO_TEST_USER), the user `make check` uses too.  PG_BINDIR overrides the
# PostgreSQL server bin directory; PGTEMPO_JOBS the jobs of the build's make
# (default: the CPUs; CI builds its fresh clone with 16, as packagers may).

set -eu

me=bootstrap.sh
user=${PGTEMPO_TEST_USER:-pgtempo-test}

# Debian/Ubuntu packages needed to build and test; an alternative of the form
# "a|b*" is met by any installed package matching one pattern.
deb_packages=(
	autoconf automake libtool pkg-config make gcc libc6-dev perl
	libpq-dev check libncurses-dev libmicrohttpd-dev libipc-run-perl bison flex tmux
	libxml2-utils libyaml-libyaml-perl
	libcrypt-dev openssl libio-socket-ssl-perl
	'postgresql|postgresql-[0-9]*'
	'postgresql-client|postgresql-client-[0-9]*'
)

die() {
	printf '%s: error: %s\n' "$me" "$*" >&2
	exit 1
}

note() {
	printf '%s: %s\n' "$me" "$*"
}

usage() {
	cat <<EOF
Usage: tools/bootstrap.sh COMMAND

Install build dependencies if missing, build pgtempo, then:
  check   run the test suite (make check)
  demo    run each built tool against a throwaway PostgreSQL cluster
  deps    stop after installing (no build): what demo needs
EOF
}

# Succeed when one package matching one of the |-separated patterns is installed.
deb_installed() {
	local pattern
	local IFS='|'
	for pattern in $1; do
		if dpkg-query -W -f='${db:Status-Abbrev}\n' "$pattern" 2>/dev/null | grep -q '^ii'; then
			return 0
		fi
	done
	return 1
}

# Print the build dependencies that are not installed, one a line.
missing_deps() {
	local p
	for p in "${deb_packages[@]}"; do
		deb_installed "$p" || printf '%s\n' "${p%%|*}"
	done
}

# Say what this run will install and create on the machine before doing any of it.
announce() {
	local missing optional p

	note "what this will do on this machine:"
	if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
		missing=$(missing_deps | tr '\n' ' ')
		if [ -n "$missing" ]; then
			note "  install with apt-get: $missing"
		else
			note "  install nothing required: the build dependencies are installed"
		fi
		optional=
		for p in $(optional_deb_packages); do
			deb_installed "$p" || optional="$optional $p"
		done
		[ -z "$optional" ] ||
			note "  install with apt-get where available (optional: what needs one is left out, saying so):$optional"
	fi
	[ "$mode" != deps ] || return 0
	if [ "$(id -u)" -eq 0 ] && ! id -u "$user" >/dev/null 2>&1; then
		note "  create the system user $user (no login shell, no home): PostgreSQL refuses to run as root"
	fi
	note "  build in $(pwd) (autogen.sh, configure, make)"
	if [ "$mode" = demo ]; then
		note "  start a throwaway PostgreSQL cluster in ${TMPDIR:-/tmp}/pgtempo-demo.*, removed at the end"
	else
		note "  make check: throwaway PostgreSQL clusters in /tmp/pgtempo-prove.*, removed when the tests pass"
	fi
}

# Install the missing Debian packages; elsewhere just say what is needed.
install_deps() {
	local missing=() p sudo=()

	if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
		note "not a Debian/Ubuntu system: install the equivalents of: ${deb_packages[*]//|*/}"
		return 0
	fi
	mapfile -t missing < <(missing_deps)
	if [ ${#missing[@]} -eq 0 ]; then
		note "build dependencies are installed"
		return 0
	fi

	note "installing: ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 ||
			die "not root and no sudo: as root, run: apt-get install ${missing[*]}"
		# Without a terminal sudo cannot ask for a password: fail, don't hang.
		if [ -t 0 ]; then sudo=(sudo); else sudo=(sudo -n); fi
	fi
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q update
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y \
		-o DPkg::Lock::Timeout=300 install --no-install-recommends "${missing[@]}"

	for p in "${deb_packages[@]}"; do
		deb_installed "$p" || die "package ${p%%|*} is still not installed"
	done
}

# Packages the build can do without, installed when the distribution has
# them: libpqtypes-dev (Debian 13 and later have none; the sampler then
# reads its results with libpq alone); pg_wait_sampling for the installed server's major
# version (the comparison test skips, saying so, without it); for check,
# chromium, which renders the SVG charts (tests/t/180_charts.pl skips without it),
# prometheus, whose promtool checks every metrics file the tests write
# (check_metrics and the --metrics tests skip that check without it) and
# whose server scrapes pgtempo-waits --listen (tests/t/186_waits_prometheus.pl
# skips without it), and python3-prometheus-client, whose OpenMetrics parser
# checks that variant.
optional_deb_packages() {
	local dir=${PG_BINDIR:-}

	printf 'libpqtypes-dev\n'
	if [ "$mode" = check ]; then printf 'chromium\nprometheus\npython3-prometheus-client\nioping\n'; fi

	if [ -z "$dir" ]; then
		dir=$(for d in /usr/lib/postgresql/*/bin; do
			if [ -x "$d/initdb" ]; then printf '%s\n' "$d"; fi
		done | sort -V | tail -n 1)
	fi
	case $dir in
	/usr/lib/postgresql/*/bin) printf 'postgresql-%s-pg-wait-sampling\n' "$(basename "$(dirname "$dir")")" ;;
	esac
}

# Best effort: a package the distribution lacks, or that fails to install, is noted and skipped.
install_optional() {
	local p sudo=()

	command -v apt-get >/dev/null 2>&1 || return 0
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 || return 0
		if [ -t 0 ]; then sudo=(sudo); else sudo=(sudo -n); fi
	fi
	for p in $(optional_deb_packages); do
		deb_installed "$p" && continue
		if ! apt-cache show "$p" >/dev/null 2>&1; then
			note "optional package $p is not available here: what needs it is left out"
			continue
		fi
		note "installing optional package $p"
		"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y \
			-o DPkg::Lock::Timeout=300 install --no-install-recommends "$p" ||
			note "could not install $p: what needs it is left out"
	done
}

build() {
	note "building"
	./autogen.sh
	./configure
	make -j"${PGTEMPO_JOBS:-$(nproc 2>/dev/null || echo 2)}"
}

# ---------------------------------------------------------------- demo

# Print the PostgreSQL server bin dir: $PG_BINDIR, else the newest
# /usr/lib/postgresql/*/bin with initdb; /usr/bin/pg_config (libpq-dev) points
# at /usr/bin, which has no initdb.
find_pg_bindir() {
	local d dir=${PG_BINDIR:-}

	if [ -z "$dir" ]; then
		dir=$(for d in /usr/lib/postgresql/*/bin; do
			if [ -x "$d/initdb" ]; then printf '%s\n' "$d"; fi
		done | sort -V | tail -n 1)
	fi
	if [ -z "$dir" ] && command -v initdb >/dev/null 2>&1; then
		dir=$(dirname "$(command -v initdb)")
	fi
	if [ -z "$dir" ] || [ ! -x "$dir/initdb" ] || [ ! -x "$dir/pg_ctl" ]; then
		die "PostgreSQL server not found: apt-get install postgresql-15, or set PG_BINDIR"
	fi
	printf '%s\n' "$dir"
}

# Run a command as the unprivileged cluster owner (from /: it may not be
# allowed into the build tree).
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		(cd / && runuser -u "$user" -- "$@")
	else
		"$@"
	fi
}

ensure_user() {
	id -u "$user" >/dev/null 2>&1 && return 0
	note "creating system user $user to run PostgreSQL"
	useradd --system --user-group --no-create-home --home-dir /nonexistent \
		--shell /usr/sbin/nologin --comment "pgtempo test runner" "$user" ||
		id -u "$user" >/dev/null 2>&1 ||
		die "could not create the system user $user"
}

# Print a TCP port on 127.0.0.1 that nothing listens on right now.
free_port() {
	perl -MIO::Socket::INET -e '
		my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1",
			LocalPort => 0, ReuseAddr => 1) or die "no free port: $!\n";
		print $s->sockport, "\n";'
}

header() {
	printf '\n==> %s\n' "$*"
}

# Print a header, then run a demo command without stdin.
show() {
	header "$*"
	"$@" </dev/null
}

demo_tmp=
demo_load_pid=

# Stop the demo cluster and any background load; remove the temp dir.
# shellcheck disable=SC2317 # called by the EXIT trap
demo_cleanup() {
	local status=$?
	if [ -n "$demo_load_pid" ]; then
		kill "$demo_load_pid" 2>/dev/null || :
		wait "$demo_load_pid" 2>/dev/null || :
	fi
	if [ -n "$demo_tmp" ] && [ -d "$demo_tmp" ]; then
		# On a failure (not an interrupt) the server's view may explain it.
		if [ "$status" -ne 0 ] && [ "$status" -lt 128 ] && [ -f "$demo_tmp/server.log" ]; then
			printf '\n%s: last lines of the server log:\n' "$me" >&2
			tail -n 20 "$demo_tmp/server.log" >&2
		fi
		if [ -f "$demo_tmp/data/postmaster.pid" ]; then
			as_owner "$pgbin/pg_ctl" -D "$demo_tmp/data" -m fast -w stop >/dev/null 2>&1 ||
				as_owner "$pgbin/pg_ctl" -D "$demo_tmp/data" -m immediate -w stop >/dev/null 2>&1 || :
		fi
		rm -rf "$demo_tmp"
	fi
	return "$status"
}

# Start a cluster on a Unix socket in $demo_tmp and on 127.0.0.1:$PGPORT.
start_cluster() {
	local base=${TMPDIR:-/tmp} attempt port

	if [ "$(id -u)" -eq 0 ]; then
		ensure_user
		# The owner must reach the directory; keep the socket path short.
		runuser -u "$user" -- test -x "$base" 2>/dev/null || base=/tmp
	fi
	[ ${#base} -le 60 ] || base=/tmp
	demo_tmp=$(mktemp -d "$base/pgtempo-demo.XXXXXX")
	trap demo_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	[ "$(id -u)" -ne 0 ] || chown "$user:" "$demo_tmp"

	header "throwaway cluster in $demo_tmp"
	as_owner "$pgbin/initdb" -A trust -U postgres -N -D "$demo_tmp/data" \
		>"$demo_tmp/initdb.log" 2>&1 ||
		{ cat "$demo_tmp/initdb.log" >&2; die "initdb failed"; }

	# Another process may take the port between the check and the start.
	for attempt in 1 2 3; do
		port=$(free_port)
		if as_owner "$pgbin/pg_ctl" -D "$demo_tmp/data" -l "$demo_tmp/server.log" -w -s \
			-o "-p $port -k $demo_tmp -c listen_addresses=127.0.0.1" start; then
			export PGHOST=$demo_tmp PGPORT=$port PGUSER=postgres PGDATABASE=postgres
			unset PGHOSTADDR PGSERVICE PGPASSWORD PGOPTIONS
			note "$("$pgbin/postgres" -V | sed 's/^postgres (PostgreSQL)/PostgreSQL/')" \
				"on port $port (socket in $demo_tmp, and 127.0.0.1)"
			return 0
		fi
		note "start on port $port failed (attempt $attempt)"
	done
	die "could not start PostgreSQL; see the log above"
}

demo() {
	local load

	pgbin=$(find_pg_bindir)
	start_cluster

	show ./pg_test_timing -d 1
	show ./pg_test_timing -d 1 --histogram=ns --clock=all

	# ioping's lines on the cluster's directory, then its distribution
	if [ -x ./pgtempo-io ]; then
		show ./pgtempo-io -c 5 -i 0.1 "$demo_tmp"
		show ./pgtempo-io -C -c 50 -i 0 -q --histogram "$demo_tmp"
	fi

	if [ -x ./pgtempo-bench ]; then
		show ./pgtempo-bench -i -s 1
		show ./pgtempo-bench -c 4 -j 2 -T 5
		show ./pgtempo-bench --dry-run -S -t 2 --random-seed=42
	fi

	if [ -x ./pgtempo-waits ] && [ -x ./pgtempo-bench ]; then
		load=./pgtempo-bench
		header "$load -c 4 -j 2 -T 8 (load in the background)"
		"$load" -n -c 4 -j 2 -T 8 </dev/null >"$demo_tmp/load.log" 2>&1 &
		demo_load_pid=$!
		sleep 1
		show ./pgtempo-waits -T 5
		if ! wait "$demo_load_pid"; then
			demo_load_pid=
			cat "$demo_tmp/load.log" >&2
			die "the background load failed"
		fi
		demo_load_pid=
	fi

	header "demo done"
}

# ---------------------------------------------------------------- main

if [ $# -ne 1 ]; then
	usage >&2
	exit 1
fi
case $1 in
check | demo | deps) mode=$1 ;;
-h | --help)
	usage
	exit 0
	;;
*)
	usage >&2
	exit 1
	;;
esac

cd "$(dirname "$0")/.."
announce
install_deps
install_optional
[ "$mode" != deps ] || exit 0
build

case $1 in
check)
	# in parallel: the unit suites' programs build and run side by side, and
	# beside the TAP files (which tests/prove.sh runs several at a time)
	note "running make check"
	make -j"$(nproc 2>/dev/null || echo 2)" check
	;;
demo)
	demo
	;;
esac
