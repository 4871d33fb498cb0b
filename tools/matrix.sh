#!/bin/bash
# Build and test pgtempo on other Debian releases and PostgreSQL servers, each
# in a chroot made with debootstrap from the Debian mirror this machine's apt
# uses (/etc/apt/sources.list*), and nothing else from the network.
#
#   tools/matrix.sh [OPTION]... COMMAND...
#
# Commands (run in the order given; each starts from a fresh copy of the
# cached base system, so apt-get installs what a new user's would):
#   trixie-smoke  Debian 13, PostgreSQL 17: tools/bootstrap.sh demo, then the
#                 unit suites (the sampler reads with libpq alone there),
#                 every waits TAP file, bench --waits, init and one bench
#                 run (CI's part of the matrix)
#   sid-smoke     the same on Debian unstable, PostgreSQL 18, with the
#                 metrics files (035, 099) and their checkers (promtool 3,
#                 Python's OpenMetrics parser) added
#   trixie        Debian 13, PostgreSQL 17: the README's two commands,
#                 tools/bootstrap.sh demo and tools/bootstrap.sh check (the
#                 whole suite against PostgreSQL 17)
#   sid           Debian unstable, PostgreSQL 18: tools/bootstrap.sh demo and
#                 tools/bootstrap.sh check (the whole suite against 18)
#   all           trixie, then sid
#   base NAME     only make (or reuse) the cached base system of trixie or sid
#   prepare NAME  make (or reuse) the base system, then a fresh copy of it
#                 with the build dependencies installed (tools/bootstrap.sh
#                 deps, as a new user's would be); the next smoke, trixie
#                 or sid command of the same HEAD goes on in that copy
#                 instead of making another.  CI runs it in the background
#                 while it builds: it is mostly waiting on the mirror.  The
#                 first such copy is kept (DIR/NAME/deps) and the next
#                 prepare starts from it while tools/bootstrap.sh and the
#                 base are unchanged and it is younger than
#                 $PGTEMPO_MATRIX_DEPS_DAYS days (default 3); otherwise, or
#                 on a fresh machine, apt-get installs everything anew
#   shell NAME    an interactive shell in a fresh copy of NAME's base system
#   clean         remove the cache directory
#
# Options:
#   -C, --cache DIR   where the base systems, apt's downloads and the last run
#                     of each release are kept (default $PGTEMPO_MATRIX_CACHE,
#                     else /var/cache/pgtempo-matrix); up to 3.5 GB a release (base, deps and root)
#   --mirror URL      the Debian mirror (default: the host's, from
#                     /etc/apt/sources.list*)
#   --reference15     copy the host's PostgreSQL 15 pgbench and pg_test_timing
#                     into the chroot and run the tests with them as the
#                     references (PGTEMPO_REFERENCE_BINDIR), as on Debian 12
#   --perl15          copy the host's PostgreSQL 15 test modules
#                     (PostgreSQL::Test::Cluster) into the chroot and drive the
#                     chroot's newer server with them (PG_TEST_PERL)
#   --host-build DIR  run the TAP files with the tools built on this machine
#                     in DIR (from the same HEAD), libpqtypes copied along,
#                     instead of the chroot's build (which the demo still
#                     makes and runs): pgtempo-waits against 17 and 18 where
#                     the chroot cannot build it
#   --tests "T..."    the TAP files for the check step instead of the whole
#                     suite (make check RUN_TAP_TESTS="T...": the unit suites and those files)
#
# The tree tested is a fresh `git clone` of this tree's HEAD: commit first.
# Each release's base system (debootstrap --variant=minbase) is made once and
# kept in DIR/NAME/base; each command copies it to DIR/NAME/root and works
# there, leaving the copy for a look afterwards (tools/matrix.sh shell NAME
# starts from a fresh copy; chroot DIR/NAME/root reaches the last run's), and
# the output of each step in DIR/NAME/step-N.log.
# Everything runs in private mount and PID namespaces (unshare): the chroot's
# /proc, /sys, /dev/pts, /dev/shm and the bind mount of apt's download cache
# exist only inside them, are unmounted by a trap, and disappear with the
# namespace on any exit; an interrupt, a TERM or a KILL of this script ends
# every process in the namespace, so none outlives a run.  In the chroot no
# service starts on package installation (policy-rc.d), so PostgreSQL's
# packaged cluster stays down; the tests start their own.
# Needs root, unshare (util-linux), git, and debootstrap (apt-get installs it
# when missing).  Output ends with one summary line per step ("matrix:
# trixie: tools/bootstrap.sh demo (PostgreSQL 17): pass (2:41)"); the exit
# status is non-zero when one failed.

set -euo pipefail

me=matrix.sh
srcroot=$(cd "$(dirname "$0")/.." && pwd)
cache=${PGTEMPO_MATRIX_CACHE:-/var/cache/pgtempo-matrix}
deps_days=${PGTEMPO_MATRIX_DEPS_DAYS:-3}
mirror=
security=
reference15=false
perl15=false
host_build=
tap_tests=
summary=()
failed=0
steps=0
ns_pid=

die() {
	printf '%s: error: %s\n' "$me" "$1" >&2
	shift
	for line in "$@"; do
		printf '%s: hint: %s\n' "$me" "$line" >&2
	done
	exit 1
}

note() {
	printf '%s: %s\n' "$me" "$*"
}

usage() {
	sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
}

# Print the PostgreSQL major version a release ships.
release_pg() {
	case $1 in
	trixie) echo 17 ;;
	sid) echo 18 ;;
	*) die "unknown release \"$1\" (trixie or sid)" ;;
	esac
}

# Print "URL SUITE" for each source of the host's apt, one-line and deb822 formats.
host_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
			print $i, $(i + 1) }' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
			{ uris = ""; suites = ""; deb = 0
			  for (i = 1; i <= NF; i++) {
				if ($i ~ /^Types:.*[ \t]deb([ \t]|$)/) deb = 1
				if ($i ~ /^URIs:/) uris = substr($i, 6)
				if ($i ~ /^Suites:/) suites = substr($i, 8) }
			  if (!deb) next
			  nu = split(uris, u, /[ \t]+/); ns = split(suites, s, /[ \t]+/)
			  for (a = 1; a <= nu; a++) for (b = 1; b <= ns; b++)
				if (u[a] != "" && s[b] != "") print u[a], s[b] }' "$f"
	done
}

# Set mirror and security from the host's apt sources (mirror from --mirror wins).
find_mirrors() {
	local url suite
	while read -r url suite; do
		url=${url%/}
		case $suite in
		*-security)
			[ -n "$security" ] || security=$url
			;;
		*)
			case $url in */debian) [ -n "$mirror" ] || mirror=$url ;; esac
			;;
		esac
	done < <(host_sources)
	[ -n "$mirror" ] || die "no Debian mirror found in /etc/apt/sources.list*" \
		"name one: --mirror http://deb.debian.org/debian"
	[ -n "$security" ] || security=${mirror%/debian}/debian-security
}

# Remove a directory tree, refusing when anything is mounted below it.
remove_tree() {
	local dir=$1
	[ -e "$dir" ] || return 0
	if awk -v d="$dir/" 'index($5 "/", d) == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
		die "something is mounted under $dir: not removing it" "see: findmnt -R $dir"
	fi
	rm -rf --one-file-system "$dir"
}

# Write the chroot's apt sources and settings and its no-services policy.
configure_base() {
	local root=$1 name=$2
	{
		printf 'deb %s %s main\n' "$mirror" "$name"
		if [ "$name" != sid ]; then
			printf 'deb %s %s-updates main\n' "$mirror" "$name"
			printf 'deb %s %s-security main\n' "$security" "$name"
		fi
	} >"$root/etc/apt/sources.list"
	# A mirror that is a dated snapshot serves Release files past their
	# Valid-Until (unstable's is a week); the host's apt is set the same way.
	printf 'Acquire::Check-Valid-Until "false";\n' >"$root/etc/apt/apt.conf.d/99pgtempo-matrix"
	# A chroot is not a booted system: no package starts a daemon in it (the
	# packaged PostgreSQL cluster would take port 5432 on the host's network).
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 0755 "$root/usr/sbin/policy-rc.d"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
}

# Hold DIR/NAME/lock until the script exits: two runs must not share a root.
lock() {
	local fd
	mkdir -p "$cache/$1"
	exec {fd}>"$cache/$1/lock"
	flock -n "$fd" || die "another tools/matrix.sh is using $cache/$1" \
		"wait for it, or give this one another cache: -C DIR"
}

# Make DIR/NAME/base with debootstrap unless a complete one is there.
make_base() {
	local name=$1 base=$cache/$1/base tmp start
	if [ -f "$base/.pgtempo-matrix-base" ]; then
		note "$name: reusing the base system in $base (made $(cat "$base/.pgtempo-matrix-base"))"
		return 0
	fi
	if ! command -v debootstrap >/dev/null 2>&1; then
		note "installing debootstrap"
		DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=300 \
			install --no-install-recommends debootstrap </dev/null ||
			die "could not install debootstrap" "install it: apt-get install debootstrap"
	fi
	find_mirrors
	tmp=$cache/$name/base.new
	remove_tree "$tmp"
	remove_tree "$base"
	mkdir -p "$cache/$name"
	start=$(date +%s)
	note "$name: debootstrap --variant=minbase $name from $mirror into $tmp"
	# debootstrap mounts /proc and /sys in the target: keep those mounts
	# in a namespace of their own, so that none outlives it.
	mkdir -p "$cache/$name/apt-archives/partial"
	# --cache-dir: the .debs stay in the archive the chroots' apt shares, for
	# the next base system and the build dependencies of every copy
	if ! in_namespaces debootstrap --variant=minbase --components=main \
		--cache-dir="$cache/$name/apt-archives" "$name" "$tmp" "$mirror" \
		>"$cache/$name/debootstrap.log" 2>&1; then
		tail -n 30 "$cache/$name/debootstrap.log" >&2
		die "debootstrap of $name failed; log: $cache/$name/debootstrap.log"
	fi
	configure_base "$tmp" "$name"
	date -u '+%Y-%m-%d %H:%M UTC' >"$tmp/.pgtempo-matrix-base"
	mv "$tmp" "$base"
	note "$name: base system made in $(($(date +%s) - start)) s ($(du -sh "$base" | cut -f1))"
}

# Make DIR/NAME/root a fresh copy of the base (or of the directory $2) with
# a fresh clone of this tree in /root/pgtempo.
fresh_root() {
	local name=$1 root=$cache/$1/root from=${2:-$cache/$1/base} head
	remove_tree "$root"
	rm -f "$cache/$name"/step-*.log
	cp -a "$from" "$root"
	# A throwaway copy need not survive a crash: dpkg without its fsync
	# calls installs the build dependencies several times faster; nor does
	# it need documentation or translations (fewer files to unpack).
	printf 'force-unsafe-io\n' >"$root/etc/dpkg/dpkg.cfg.d/pgtempo-matrix-unsafe-io"
	printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
		'path-exclude=/usr/share/locale/*' 'path-exclude=/usr/share/info/*' \
		>"$root/etc/dpkg/dpkg.cfg.d/pgtempo-matrix-nodoc"
	head=$(git -C "$srcroot" rev-parse --short HEAD) ||
		die "$srcroot is not a git tree: the matrix tests a clone of its HEAD"
	if [ -n "$(git -C "$srcroot" status --porcelain --untracked-files=no)" ]; then
		note "warning: $srcroot has uncommitted changes; testing its HEAD ($head) without them"
	fi
	git clone -q --no-hardlinks "$srcroot" "$root/root/pgtempo"
	note "$name: testing $head in a fresh clone, $root/root/pgtempo"
	if "$reference15"; then
		local ref=/usr/lib/postgresql/15/bin
		[ -x "$ref/pgbench" ] && [ -x "$ref/pg_test_timing" ] ||
			die "--reference15: $ref/pgbench or pg_test_timing not found" \
				"install them: apt-get install postgresql-15"
		mkdir -p "$root/opt/pgtempo-reference/15/bin"
		cp -p "$ref/pgbench" "$ref/pg_test_timing" "$root/opt/pgtempo-reference/15/bin/"
	fi
	if "$perl15"; then
		local perl=/usr/lib/postgresql/15/lib/pgxs/src/test/perl
		[ -f "$perl/PostgreSQL/Test/Cluster.pm" ] ||
			die "--perl15: $perl/PostgreSQL/Test/Cluster.pm not found" \
				"install it: apt-get install postgresql-client-15"
		mkdir -p "$root/opt/pgtempo-reference/15"
		cp -R "$perl" "$root/opt/pgtempo-reference/15/perl"
	fi
	[ -z "$host_build" ] || copy_host_build "$root"
	mkdir -p "$cache/$name/apt-archives/partial"
}

# Print the key of NAME's cached build dependencies: tools/bootstrap.sh of
# HEAD (what it installs, and how) and the base system it was installed on.
deps_key() {
	{
		git -C "$srcroot" show HEAD:tools/bootstrap.sh
		cat "$cache/$1/base/.pgtempo-matrix-base"
	} | sha256sum | cut -c1-16
}

# Make DIR/NAME/root a fresh copy with the build dependencies installed by
# tools/bootstrap.sh deps, as a new user's would be.  The first such copy
# is kept (without the clone) as DIR/NAME/deps; a later one starts from it
# instead of the base while it is younger than $deps_days days and
# bootstrap.sh and the base are the same (deps_key): apt-get then only
# reads the mirror's lists again, and bootstrap.sh deps finds everything
# installed.  A changed bootstrap.sh, a new base, an older copy or none
# installs everything from the mirror, as on a fresh machine.
prepare_root() {
	local name=$1 deps=$cache/$1/deps key start script fresh=no
	start=$(date +%s)
	key=$(deps_key "$name")
	if [ -f "$deps/.pgtempo-matrix-deps" ] &&
		[ "$(sed -n 1p "$deps/.pgtempo-matrix-deps")" = "$key" ] &&
		[ -n "$(find "$deps/.pgtempo-matrix-deps" -mmin -$((deps_days * 1440)))" ]; then
		fresh_root "$name" "$deps"
		note "$name: the build dependencies installed $(sed -n 2p "$deps/.pgtempo-matrix-deps") (same bootstrap.sh and base, key $key)"
		script='apt-get -q update >/dev/null && cd /root/pgtempo && tools/bootstrap.sh deps'
	else
		fresh_root "$name"
		script='cd /root/pgtempo && tools/bootstrap.sh deps'
		fresh=yes
	fi
	in_chroot "$name" "$script" "$cache/$name/prepare.log" >/dev/null ||
		die "$name: tools/bootstrap.sh deps failed; log: $cache/$name/prepare.log"
	if [ "$fresh" = yes ]; then
		remove_tree "$deps.new"
		cp -a "$cache/$name/root" "$deps.new"
		rm -rf "$deps.new/root/pgtempo" "$deps.new/root/.matrix-step"
		printf '%s\n%s\n' "$key" "$(date -u '+%Y-%m-%d %H:%M UTC')" >"$deps.new/.pgtempo-matrix-deps"
		remove_tree "$deps"
		mv "$deps.new" "$deps"
	fi
	git -C "$srcroot" rev-parse HEAD >"$cache/$name/root/.pgtempo-matrix-prepared"
	note "$name: build dependencies installed in $cache/$name/root ($(elapsed "$start"))"
}

# Copy the host's built tools to ROOT/root/hostbuild and the libpqtypes they
# link to ROOT/usr/local/lib (the chroot's libpq.so.5 serves them).
copy_host_build() {
	local root=$1 b lib
	mkdir -p "$root/root/hostbuild/tests"
	for b in pg_test_timing pgtempo-bench pgtempo-waits tests/chart_demo; do
		[ -x "$host_build/$b" ] || die "--host-build: $host_build/$b is not built" \
			"build it: make -C $host_build all tests/chart_demo"
		cp "$host_build/$b" "$root/root/hostbuild/$b"
	done
	lib=$(ldd "$host_build/pgtempo-waits" | awk '$1 ~ /^libpqtypes\.so/ { print $3 }')
	[ -n "$lib" ] || die "--host-build: $host_build/pgtempo-waits does not link libpqtypes"
	cp -L "$lib" "$root/usr/local/lib/$(basename "$lib")"
}

# Run the script $2 as root in the chroot NAME, without stdin (with the
# terminal for "shell"), in private mount and PID namespaces that give it
# /proc, /sys, /dev/pts, /dev/shm and the apt download cache.
in_chroot() {
	local name=$1 root=$cache/$1/root env input=/dev/null log=${3:-}
	printf '%s\n' "$2" >"$root/root/.matrix-step"
	[ "$2" != 'exec bash -i' ] || input=/dev/tty
	env="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb"
	env="$env CI=${CI:-} MAKEFLAGS= PGTEMPO_MATRIX=$name"
	if "$reference15"; then
		env="$env PGTEMPO_REFERENCE_BINDIR=/opt/pgtempo-reference/15/bin"
	fi
	if "$perl15"; then
		env="$env PG_TEST_PERL=/opt/pgtempo-reference/15/perl"
	fi
	in_namespaces /bin/bash -c '
		set -eu
		root=$1 archives=$2 env=$3 log=$4
		mounted=()
		# Unmount in reverse order; the namespace drops any that remain.
		undo() {
			local i
			for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
				umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || :
			done
		}
		trap undo EXIT
		trap "exit 130" INT
		trap "exit 143" TERM
		mount -t proc proc "$root/proc" && mounted+=("$root/proc")
		mount -t sysfs -o ro sysfs "$root/sys" && mounted+=("$root/sys")
		mkdir -p "$root/dev/pts" "$root/dev/shm"
		mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$root/dev/pts" &&
			mounted+=("$root/dev/pts")
		mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm" && mounted+=("$root/dev/shm")
		mount --bind "$archives" "$root/var/cache/apt/archives" &&
			mounted+=("$root/var/cache/apt/archives")
		# shellcheck disable=SC2086 # env is words on purpose
		if [ -z "$log" ]; then
			chroot "$root" /usr/bin/env -i $env /bin/bash /root/.matrix-step
		else
			set -o pipefail
			chroot "$root" /usr/bin/env -i $env /bin/bash /root/.matrix-step 2>&1 | tee "$log"
		fi
		' matrix "$root" "$cache/$name/apt-archives" "$env" "$log" <"$input"
}

# Run a command in private mount and PID namespaces and wait for it.  Killing
# the unshare process ends every process in them (--kill-child, then the PID
# namespace's end), which drops their mounts: the signal traps do that, and
# --pdeathsig does it when this script is killed outright.
in_namespaces() {
	local status=0
	setpriv --pdeathsig KILL -- \
		unshare --mount --propagation private --pid --fork --kill-child -- "$@" <&0 &
	ns_pid=$!
	wait "$ns_pid" || status=$?
	ns_pid=
	return "$status"
}

# On a signal, end the namespaces of the step in progress, then exit.
on_signal() {
	[ -z "$ns_pid" ] || kill -KILL "$ns_pid" 2>/dev/null || :
	note "interrupted"
	exit "$1"
}

# Print minutes:seconds since $1 (epoch seconds).
elapsed() {
	local s=$(($(date +%s) - $1))
	printf '%d:%02d' $((s / 60)) $((s % 60))
}

# Record a command's outcome for the summary, with what prove counted in LOG.
record() {
	local what=$1 status=$2 start=$3 log=${4:-} tap=
	if [ -n "$log" ] && [ -f "$log" ]; then
		# Not prove's own "Files=" line: CI adds those up from the output.
		tap=$(awk '/^Files=[0-9]+, Tests=[0-9]+,/ { split($2, kv, "="); sub(/,$/, "", kv[2]); t += kv[2]; seen = 1 }
			/ \(Wstat: / { sub(/^.*\//, "", $1); bad = bad " " $1 }
			END { if (seen) printf "; TAP: %d test points%s", t, (bad != "" ? ", failing files:" bad : "") }' "$log")
	fi
	if [ "$status" -eq 0 ]; then
		summary+=("matrix: $what: pass ($(elapsed "$start"))$tap")
	else
		summary+=("matrix: $what: FAIL, exit status $status ($(elapsed "$start"))$tap")
		failed=1
	fi
}

# The TAP files of the smoke run (CI's part of the matrix): Debian 13 has no
# libpqtypes, so this is where the sampler's libpq-alone reader meets a
# server: every waits file and bench --waits; and bench's init (--unlogged-
# tables with --partitions and --foreign-keys, which PostgreSQL 18 refuses
# when the tables are made wrongly; 17's catalogs) and bench's run (its -M
# prepared statement names against the release's pgbench).
# On unstable the files that write metrics are added (035, 099; 185 is a
# waits file): its promtool is the newest (3.x, stricter than the host's).
smoke_tests() {
	printf 'tests/t/070_bench_init.pl tests/t/080_bench_run.pl tests/t/095_bench_waits.pl'
	[ "$1" != sid ] || printf ' tests/t/035_timing_metrics.pl tests/t/099_bench_metrics.pl'
	(cd "$srcroot" && for f in tests/t/*_waits_*.pl; do printf ' %s' "$f"; done)
}

# The packages that check the metrics files in a smoke run: on unstable
# only (promtool 3 and Python's OpenMetrics parser; check_metrics, 035, 099
# and 185 skip those checks without them); on Debian 13 CI saves the time.
smoke_checkers() {
	[ "$1" != sid ] || printf 'prometheus python3-prometheus-client'
}

# Run one step in the chroot NAME, timing and recording it.
step() {
	local name=$1 what=$2 script=$3 start status log
	start=$(date +%s)
	note "$name: $what"
	steps=$((steps + 1))
	log=$cache/$name/step-$steps.log
	status=0
	in_chroot "$name" "$script" "$log" || status=$?
	record "$name: $what" "$status" "$start" "$log"
	note "$name: $what: exit status $status after $(elapsed "$start")"
	return "$status"
}

# The script that checks what was built: without pgtempo-waits the waits
# TAP files cannot run, which is a failure once the tree builds it without
# libpqtypes (configure has --without-libpqtypes), and a note before that.
waits_guard() {
	cat <<'EOF'
cd /root/pgtempo
if [ ! -x ./pgtempo-waits ]; then
	if grep -q 'without-libpqtypes' configure.ac; then
		echo "matrix: error: pgtempo-waits was not built here" >&2
		exit 1
	fi
	echo "matrix: note: pgtempo-waits not built (no libpqtypes on $PGTEMPO_MATRIX): its TAP files are left out"
fi
EOF
}

# tools/bootstrap.sh demo, then check or the given TAP files, in a fresh NAME chroot.
run_release() {
	local name=$1 mode=$2 pg tests=$tap_tests checkers="" start label
	pg=$(release_pg "$name")
	start=$(date +%s)
	lock "$name"
	make_base "$name"
	if [ "$(cat "$cache/$name/root/.pgtempo-matrix-prepared" 2>/dev/null)" = "$(git -C "$srcroot" rev-parse HEAD)" ]; then
		rm -f "$cache/$name/root/.pgtempo-matrix-prepared"
		note "$name: going on in the copy that tools/matrix.sh prepare made for this HEAD"
		record "$name: base system and the prepared copy" 0 "$start"
	else
		fresh_root "$name"
		record "$name: base system and fresh copy" 0 "$start"
	fi

	step "$name" "tools/bootstrap.sh demo (PostgreSQL $pg)" \
		"cd /root/pgtempo && tools/bootstrap.sh demo && /usr/lib/postgresql/$pg/bin/postgres -V" || return 0
	step "$name" "build check" "$(waits_guard)" || return 0
	if [ "$mode" = smoke ] && [ -z "$tests" ]; then
		tests=$(smoke_tests "$name")
		checkers=$(smoke_checkers "$name")
	fi
	# pgtempo-io's files: ioping for 190's differential test, promtool for their metrics
	case " $tests " in *_io_*) checkers="$checkers ioping prometheus" ;; esac
	if [ -n "$host_build" ]; then
		label=$tests
		if [ -z "$tests" ]; then
			tests=$(cd "$srcroot" && echo tests/t/*.pl)
			label="all $(echo "$tests" | wc -w) files"
		fi
		step "$name" "the host's build, TAP files against PostgreSQL $pg: $label" \
			"ldconfig
			 # what bootstrap.sh check would add: 180_charts renders with chromium,
			 # 185 and 186 check and scrape the metrics with prometheus
			 DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=300 \\
				install --no-install-recommends chromium prometheus >/dev/null ||
				echo 'matrix: note: chromium or prometheus not installed: 180, 185 and 186 skip'
			 cd /root/pgtempo && sh tests/prove.sh /root/pgtempo /root/hostbuild $tests" || :
	elif [ -n "$tests" ]; then
		step "$name" "TAP files against PostgreSQL $pg (waits files where built): $tests" \
			"cd /root/pgtempo
			 if [ -n '$checkers' ]; then
				DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=300 \
					install --no-install-recommends $checkers >/dev/null ||
					echo 'matrix: note: $checkers not installed: the metrics checks skip'
			 fi
			 t=
			 for f in $tests; do
				case \$f in *_waits_*) [ -x ./pgtempo-waits ] || continue ;; esac
				t=\"\$t \$f\"
			 done
			 make -j\$(nproc) check RUN_TAP_TESTS=\"\$t\"" || :
	else
		step "$name" "tools/bootstrap.sh check (PostgreSQL $pg)" \
			"cd /root/pgtempo && tools/bootstrap.sh check" || :
	fi
}

# ---------------------------------------------------------------- main

while [ $# -gt 0 ]; do
	case $1 in
	-C | --cache)
		[ $# -ge 2 ] || die "$1 needs a directory"
		cache=$2
		shift 2
		;;
	--cache=*)
		cache=${1#*=}
		shift
		;;
	--mirror)
		[ $# -ge 2 ] || die "$1 needs a URL"
		mirror=${2%/}
		shift 2
		;;
	--mirror=*)
		mirror=${1#*=}
		mirror=${mirror%/}
		shift
		;;
	--reference15)
		reference15=true
		shift
		;;
	--perl15)
		perl15=true
		shift
		;;
	--host-build)
		[ $# -ge 2 ] || die "$1 needs a build directory"
		host_build=$(cd "$2" && pwd) || die "no build directory $2"
		shift 2
		;;
	--tests)
		[ $# -ge 2 ] || die "$1 needs a list of TAP files"
		tap_tests=$2
		shift 2
		;;
	--tests=*)
		tap_tests=${1#*=}
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	-*) die "unknown option \"$1\"" "see: tools/matrix.sh --help" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || {
	usage >&2
	exit 1
}
case $cache in /*) ;; *) cache=$(pwd)/$cache ;; esac
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot, mount)"
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP
for prog in unshare setpriv chroot git; do
	command -v "$prog" >/dev/null 2>&1 || die "$prog not found"
done

while [ $# -gt 0 ]; do
	cmd=$1
	shift
	case $cmd in
	trixie-smoke) run_release trixie smoke ;;
	sid-smoke) run_release sid smoke ;;
	trixie | sid) run_release "$cmd" full ;;
	all)
		run_release trixie full
		run_release sid full
		;;
	base | shell | prepare)
		[ $# -ge 1 ] || die "$cmd needs a release name (trixie or sid)"
		name=$1
		shift
		release_pg "$name" >/dev/null
		lock "$name"
		make_base "$name"
		if [ "$cmd" = shell ]; then
			fresh_root "$name"
			in_chroot "$name" 'exec bash -i' || :
		elif [ "$cmd" = prepare ]; then
			prepare_root "$name"
		fi
		;;
	clean)
		for d in "$cache"/*/; do
			[ ! -d "$d" ] || lock "$(basename "$d")"
		done
		for d in "$cache"/*/base "$cache"/*/base.new "$cache"/*/deps "$cache"/*/deps.new "$cache"/*/root; do
			remove_tree "$d"
		done
		remove_tree "$cache"
		note "removed $cache"
		;;
	*) die "unknown command \"$cmd\"" "see: tools/matrix.sh --help" ;;
	esac
done

for line in "${summary[@]}"; do
	printf '%s\n' "$line"
done
exit "$failed"
