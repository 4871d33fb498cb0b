#!/bin/sh
# Run the Perl TAP integration tests against a throwaway PostgreSQL cluster.
#
# Usage: tests/prove.sh ABS_SRCDIR ABS_BUILDDIR tests/t/NNN_name.pl ...
#
# Called by `make check` (check-local).  Test paths are relative to ABS_SRCDIR;
# the built binaries are found in ABS_BUILDDIR.  The environment may set:
#   PERL, PROVE         interpreters found by configure (default: from PATH)
#   PG_BINDIR           PostgreSQL server bin dir (default: the newest
#                       /usr/lib/postgresql/*/bin that has initdb)
#   PG_TEST_PERL        directory holding PostgreSQL/Test/Cluster.pm (default:
#                       the server's own, else the newest installed under
#                       /usr/lib/postgresql/*/lib/pgxs/src/test/perl): the 15
#                       modules drive a 17 or 18 server as well
#   PGTEMPO_REFERENCE_BINDIR  where the tests find PostgreSQL's pgbench and
#                       pg_test_timing to compare with (default: PG_BINDIR's)
#   PROVE_FLAGS         extra options for prove, e.g. PROVE_FLAGS=-v
#   PGTEMPO_PROVE_JOBS  TAP files run at once (default: twice the CPUs, at
#                       most 8; 1 runs them one after the other).  Each file
#                       starts clusters of its own on ports that
#                       PostgreSQL::Test::Cluster reserves, and most of a
#                       file's time is spent waiting, so files overlap well.
#   PGTEMPO_TEST_USER   user that runs the tests when run as root
#                       (default: pgtempo-test, created if missing)
#   PGTEMPO_ALIASES     "NAME=BINARY ...": each built BINARY is also found in
#                       PATH, ahead of PostgreSQL's, as NAME (tools/pgtests.sh
#                       runs PostgreSQL's own tests this way: pgbench=pgtempo-bench)
#
# PostgreSQL refuses to run as root.  As root, the tests, tests/lib and the
# built binaries are copied into a fresh directory owned by an unprivileged
# system user, and prove runs there as that user: the build tree may be under
# a directory that user cannot enter (/root), and `make distcheck` makes the
# source tree read-only.  The copy is removed when every test passed and kept,
# with the logs, when one failed.

set -u

me=prove.sh
binaries="pg_test_timing pgtempo-bench pgtempo-waits pgtempo-io tests/chart_demo"

# Print an error and exit with failure; the tests never pass silently.
die() {
	printf '%s: error: %s\n' "$me" "$1" >&2
	shift
	for line in "$@"; do
		printf '%s: hint: %s\n' "$me" "$line" >&2
	done
	exit 2
}

if [ $# -lt 3 ]; then
	die "usage: $me ABS_SRCDIR ABS_BUILDDIR TEST..."
fi
srcdir=$1
builddir=$2
shift 2

case $srcdir in /*) ;; *) die "ABS_SRCDIR must be absolute: $srcdir" ;; esac
case $builddir in /*) ;; *) die "ABS_BUILDDIR must be absolute: $builddir" ;; esac
[ -d "$srcdir/tests" ] || die "no tests directory in $srcdir"

# ---------------------------------------------------------------- prerequisites

# Print the PostgreSQL server bin dir: $PG_BINDIR, else the newest
# /usr/lib/postgresql/*/bin with initdb (Debian/Ubuntu), else pg_config's or
# PATH's.  /usr/bin/pg_config from libpq-dev says /usr/bin, which has no initdb.
find_pg_bindir() {
	if [ -n "${PG_BINDIR:-}" ]; then
		printf '%s\n' "$PG_BINDIR"
		return
	fi
	dir=$(for d in /usr/lib/postgresql/*/bin; do
		if [ -x "$d/initdb" ]; then printf '%s\n' "$d"; fi
	done | sort -V | tail -n 1)
	if [ -z "$dir" ] && command -v pg_config >/dev/null 2>&1; then
		dir=$(pg_config --bindir 2>/dev/null) || dir=
		[ -x "$dir/initdb" ] || dir=
	fi
	if [ -z "$dir" ] && command -v initdb >/dev/null 2>&1; then
		dir=$(dirname "$(command -v initdb)")
	fi
	printf '%s\n' "$dir"
}

pgbin=$(find_pg_bindir)
if [ -z "$pgbin" ]; then
	die "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found" \
		"install them: apt-get install postgresql-15 (or: postgresql)" \
		"or set PG_BINDIR to the directory that holds initdb"
fi
for prog in initdb pg_ctl postgres psql pg_config; do
	if [ ! -x "$pgbin/$prog" ]; then
		die "$pgbin/$prog not found" \
			"install the PostgreSQL server and client: apt-get install postgresql-15 postgresql-client-15" \
			"or set PG_BINDIR to the directory that holds initdb"
	fi
done

# The Perl test modules and pg_regress live in the same installation's pgxs.
pgxs=$("$pgbin/pg_config" --pgxs 2>/dev/null) || pgxs=
pgxs=${pgxs%/src/makefiles/pgxs.mk}
if [ -z "$pgxs" ] || [ ! -d "$pgxs/src/test/perl" ]; then
	pgxs=$(dirname "$pgbin")/lib/pgxs
fi
# A server whose own modules are not installed (one from another
# installation, or a chroot's) is driven by the newest modules there are.
pgperl=${PG_TEST_PERL:-$pgxs/src/test/perl}
if [ -z "${PG_TEST_PERL:-}" ] && [ ! -f "$pgperl/PostgreSQL/Test/Cluster.pm" ]; then
	pgperl=$(for d in /usr/lib/postgresql/*/lib/pgxs/src/test/perl; do
		if [ -f "$d/PostgreSQL/Test/Cluster.pm" ]; then printf '%s\n' "$d"; fi
	done | sort -V | tail -n 1)
	[ -n "$pgperl" ] || pgperl=$pgxs/src/test/perl
	printf '%s: %s has no PostgreSQL::Test modules: using %s\n' "$me" "$pgbin" "$pgperl"
fi
if [ ! -f "$pgperl/PostgreSQL/Test/Cluster.pm" ]; then
	die "PostgreSQL::Test::Cluster not found in $pgperl" \
		"install it: apt-get install postgresql-client-15 (PostgreSQL 15 or later is required)" \
		"or set PG_TEST_PERL to the directory that holds PostgreSQL/Test/Cluster.pm"
fi
# Cluster.pm's init runs "$PG_REGRESS --config-auth", which only does
# something on Windows; any program that succeeds will do when it is missing.
pgregress=$pgxs/src/test/regress/pg_regress
[ -x "$pgregress" ] || pgregress=$(command -v true)

PERL=${PERL:-}
[ -n "$PERL" ] || PERL=$(command -v perl) ||
	die "perl not found" "install it: apt-get install perl"
PROVE=${PROVE:-}
[ -n "$PROVE" ] || PROVE=$(command -v prove) ||
	die "prove not found" "install it: apt-get install perl"
[ -x "$PROVE" ] || die "prove not executable: $PROVE" "install it: apt-get install perl"
"$PERL" -MIPC::Run -e 1 2>/dev/null ||
	die "the Perl module IPC::Run is missing" "install it: apt-get install libipc-run-perl"

# Tests are named relative to srcdir; an absolute name under srcdir is fine.
# A missing script would stop prove halfway: report it and run the others.
ntests=$#
missing=0
i=0
while [ "$i" -lt "$ntests" ]; do
	t=${1#"$srcdir"/}
	shift
	case $t in /*) die "test script outside $srcdir: $t" ;; esac
	if [ -f "$srcdir/$t" ]; then
		set -- "$@" "$t"
	else
		printf '%s: error: test script not found: %s\n' "$me" "$srcdir/$t" >&2
		missing=$((missing + 1))
	fi
	i=$((i + 1))
done
[ $# -gt 0 ] || die "no test script to run"

# The files that take longest start first, so that with several jobs the
# last one to start is a short one (tests/t/SLOW lists them, slowest first;
# a name not given is left out, and the others keep their order).
if [ -f "$srcdir/tests/t/SLOW" ]; then
	for t in "$@"; do
		printf '%s\n' "$t"
	done >"${TMPDIR:-/tmp}/pgtempo-prove-order.$$"
	slow=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$srcdir/tests/t/SLOW")
	set --
	for t in $slow; do
		grep -qxF "tests/t/$t" "${TMPDIR:-/tmp}/pgtempo-prove-order.$$" && set -- "$@" "tests/t/$t"
	done
	while read -r t; do
		case " $slow " in *" ${t#tests/t/} "*) ;; *) set -- "$@" "$t" ;; esac
	done <"${TMPDIR:-/tmp}/pgtempo-prove-order.$$"
	rm -f "${TMPDIR:-/tmp}/pgtempo-prove-order.$$"
fi

jobs=${PGTEMPO_PROVE_JOBS:-}
if [ -z "$jobs" ]; then
	jobs=$(( $(nproc 2>/dev/null || echo 1) * 2 ))
	[ "$jobs" -le 8 ] || jobs=8
fi
case $jobs in '' | *[!0-9]* | 0) die "PGTEMPO_PROVE_JOBS must be a whole number from 1: $jobs" ;; esac

# ---------------------------------------------------------------- run

uid=$(id -u)
user=${PGTEMPO_TEST_USER:-pgtempo-test}
stage=
testdir=
prove_status=1

# Run a command as the test user (as root) or as ourselves.
as_test_user() {
	if [ "$uid" -ne 0 ]; then
		"$@"
	elif command -v runuser >/dev/null 2>&1; then
		runuser -u "$user" -- "$@"
	else
		setpriv --reuid="$user" --regid="$user" --init-groups -- "$@"
	fi
}

# Stop any postmaster a killed test left behind, and remove the copy made for
# the test user unless a test failed.
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if [ -n "$testdir" ]; then
		for pidfile in "$testdir"/tmp_check/t_*_data/pgdata/postmaster.pid; do
			[ -f "$pidfile" ] || continue
			printf '%s: stopping leftover server in %s\n' "$me" "${pidfile%/postmaster.pid}" >&2
			as_test_user "$pgbin/pg_ctl" -D "${pidfile%/postmaster.pid}" -m immediate -w stop >/dev/null 2>&1 || :
		done
	fi
	if [ -n "$stage" ] && [ -d "$stage" ]; then
		if [ "$prove_status" -eq 0 ]; then
			rm -rf "$stage"
		else
			printf '%s: test files and logs kept in %s\n' "$me" "$stage" >&2
		fi
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$uid" -eq 0 ]; then
	if ! id -u "$user" >/dev/null 2>&1; then
		# A concurrent run may have created it meanwhile: check again.
		useradd --system --user-group --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin --comment "pgtempo test runner" "$user" ||
			id -u "$user" >/dev/null 2>&1 ||
			die "could not create the system user $user to run PostgreSQL as"
	fi
	if ! command -v runuser >/dev/null 2>&1 && ! command -v setpriv >/dev/null 2>&1; then
		die "neither runuser nor setpriv found" "install util-linux"
	fi

	# The copy must be reachable by the test user: TMPDIR may not be.
	tmpbase=${TMPDIR:-/tmp}
	as_test_user test -x "$tmpbase" 2>/dev/null || tmpbase=/tmp
	stage=$(mktemp -d "$tmpbase/pgtempo-prove.XXXXXX") ||
		die "could not create a directory in $tmpbase"
	mkdir "$stage/src" "$stage/build" "$stage/build/tests" "$stage/tmp"
	(cd "$srcdir" && tar --exclude=tests/tmp_check --exclude=tests/unit --exclude=tests/fuzz -cf - tests man contrib examples) |
		(cd "$stage/src" && tar -xf -) ||
		die "could not copy $srcdir/tests to $stage/src"
	for b in $binaries; do
		if [ -f "$builddir/$b" ]; then
			cp -p "$builddir/$b" "$stage/build/$b" || die "could not copy $builddir/$b"
		fi
	done
	chown -R "$user:" "$stage" || die "could not chown $stage to $user"
	chmod 0755 "$stage"

	run_srcdir=$stage/src
	run_builddir=$stage/build
	# Short and private: Cluster.pm puts the server's socket directory here.
	export TMPDIR="$stage/tmp"
	export HOME="$stage"
	# A port lock directory from the caller may not be writable by the user.
	unset PG_TEST_PORT_DIR top_builddir
	printf '%s: running as root: tests run as user %s in %s\n' "$me" "$user" "$stage"
else
	run_srcdir=$srcdir
	run_builddir=$builddir
fi

testdir=$run_builddir/tests
rm -rf "$testdir/tmp_check"
mkdir -p "$testdir/tmp_check" || die "could not create $testdir/tmp_check"
[ "$uid" -ne 0 ] || chown "$user:" "$testdir/tmp_check"
outfile=$testdir/tmp_check/prove.out
statusfile=$testdir/tmp_check/prove.status

# PostgreSQL::Test::Utils puts tmp_check (data dirs, logs) under $TESTDIR
# (15, 16); 17 and later take the two directories from TESTDATADIR and
# TESTLOGDIR, and without them write to the current directory.
export TESTDIR="$testdir"
export TESTDATADIR="$testdir/tmp_check" TESTLOGDIR="$testdir/tmp_check/log"
export PGTEMPO_SRCDIR="$run_srcdir"
export PGTEMPO_BINDIR="$run_builddir"
export PG_REGRESS="$pgregress"
export PATH="$pgbin:$PATH"
if [ -n "${PGTEMPO_ALIASES:-}" ]; then
	aliases=$run_builddir/aliases
	mkdir -p "$aliases" || die "could not create $aliases"
	for a in $PGTEMPO_ALIASES; do
		[ -f "$run_builddir/${a#*=}" ] || die "PGTEMPO_ALIASES: no built ${a#*=} for ${a%%=*}"
		ln -sf "$run_builddir/${a#*=}" "$aliases/${a%%=*}" || die "could not create $aliases/${a%%=*}"
	done
	PATH="$aliases:$PATH"
fi

cd "$run_srcdir" || die "could not enter $run_srcdir"
# PROVE_FLAGS is split into words on purpose.
# shellcheck disable=SC2086
{
	as_test_user env PATH="$PATH" HOME="${HOME:-/}" TMPDIR="${TMPDIR:-/tmp}" \
		"$PERL" "$PROVE" -j "$jobs" --timer -I "$run_srcdir/tests/lib" -I "$pgperl" ${PROVE_FLAGS:-} "$@"
	echo $? >"$statusfile"
} | tee "$outfile"
prove_status=$(cat "$statusfile" 2>/dev/null) || prove_status=
[ -n "$prove_status" ] || prove_status=1
if [ "$missing" -gt 0 ]; then
	printf '%s: error: %d test script(s) not found (see above)\n' "$me" "$missing" >&2
	[ "$prove_status" -ne 0 ] || prove_status=1
fi

if [ "$prove_status" -ne 0 ]; then
	# The summary report names each failed script as "path (Wstat: ...".
	failed=$(sed -n 's/^\([^ ].*\) (Wstat: .*/\1/p' "$outfile")
	for t in $failed; do
		name=$(basename "$t")
		log=$testdir/tmp_check/log/regress_log_${name%.*}
		printf '\n======== %s: last 200 lines of %s\n' "$t" "$log"
		if [ -f "$log" ]; then
			tail -n 200 "$log"
		else
			echo "(no log: the script did not get as far as loading PostgreSQL::Test::Utils)"
		fi
	done
	printf '\n%s: FAILED (prove exit status %s); all logs: %s\n' \
		"$me" "$prove_status" "$testdir/tmp_check/log"
fi
exit "$prove_status"
