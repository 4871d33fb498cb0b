#!/bin/sh
# perf/waits_baseline_aa.sh — how often pgtempo-waits --from-log with a
# baseline flags a change when nothing changed (same against same), per
# kind of row, and whether it still sees an injected one.
#
#   record DIR [MINUTES]  a throwaway PostgreSQL cluster in DIR (initdb, a
#       port of its own, autovacuum off, no checkpoint in the run), pgbench
#       -s 1 with 4 clients for MINUTES (default 30) while pgtempo-waits
#       samples every 10 ms into one raw history log cut per minute
#       (DIR/log/waits-HHMM.csv); then 2 minutes with one more session in
#       pg_sleep (DIR/log/sleep.times) and 2 minutes with a session that holds
#       the branch row's lock 0.5 s at a time (DIR/log/lock.times), both
#       still in the same log.  Run it as a user that is not root.
#   compare DIR [SLICES...]  windows of SLICES seconds (= slices: a raw log
#       is cut into 1 s slices) of the steady part compared pair by pair,
#       same against same (default 5 20 60): per kind of row (events,
#       blocker heads, total), the share of pairs with a row flagged; then
#       the injected minutes against steady ones.  BASELINE_WINDOWS=N: the
#       baseline is N windows (--baseline-windows=N), each as far again from
#       the window, all in the steady part (the pairs are drawn among those
#       that fit).
#
# env: OURS (the binary, default ./pgtempo-waits), PGBIN (default
# /usr/lib/postgresql/15/bin), PORT (default 55437), PAIRS (most pairs per
# slice count, default 200).
set -eu
cmd=$1
dir=$2
shift 2
ours=${OURS:-$(pwd)/pgtempo-waits}
pgbin=${PGBIN:-/usr/lib/postgresql/15/bin}
port=${PORT:-55437}

record()
{
	minutes=${1:-30}
	mkdir -p "$dir/log"
	"$pgbin/initdb" -A trust -D "$dir/data" >/dev/null
	cat >>"$dir/data/postgresql.conf" <<CONF
port = $port
listen_addresses = ''
unix_socket_directories = '$dir'
autovacuum = off
checkpoint_timeout = 1d
max_wal_size = 20GB
fsync = off
CONF
	"$pgbin/pg_ctl" -s -w -D "$dir/data" -l "$dir/server.log" start
	trap '"$pgbin/pg_ctl" -s -m fast -D "$dir/data" stop' EXIT
	export PGHOST="$dir" PGPORT="$port" PGDATABASE=postgres
	"$pgbin/pgbench" -q -i -s 1 >/dev/null 2>&1
	total=$(( minutes * 60 + 300 ))
	"$ours" -T "$total" --log="$dir/log/waits-%H%M.csv" >"$dir/waits.out" 2>&1 &
	waits=$!
	"$pgbin/pgbench" -n -c 4 -j 2 -T "$total" >"$dir/pgbench.out" 2>&1 &
	bench=$!
	sleep $(( minutes * 60 + 30 ))
	date -u +%FT%TZ >"$dir/log/sleep.times"
	"$pgbin/psql" -qAt -c "select count(pg_sleep(1)) from generate_series(1, 120)" >/dev/null
	date -u +%FT%TZ >>"$dir/log/sleep.times"
	sleep 15
	date -u +%FT%TZ >"$dir/log/lock.times"
	i=0
	while [ $i -lt 240 ]; do
		echo "begin; update pgbench_branches set bbalance = bbalance where bid = 1; select pg_sleep(0.5); commit;"
		i=$((i + 1))
	done | "$pgbin/psql" -qAt >/dev/null
	date -u +%FT%TZ >>"$dir/log/lock.times"
	wait $bench || true
	wait $waits || true
}

compare()
{
	[ $# -gt 0 ] || set -- 5 20 60
	perl - "$ours" "$dir/log" "${PAIRS:-200}" "$@" <<'PERL'
use strict;
use warnings;
use JSON::PP;
use POSIX qw(strftime floor);
use Time::Local qw(timegm);
my ($ours, $log, $maxpairs, @sizes) = @ARGV;
my $nbw = $ENV{BASELINE_WINDOWS} || 1;
my @files = sort glob("$log/waits-*.csv");
sub iso { strftime('%Y-%m-%dT%H:%M:%SZ', gmtime $_[0]) }
sub parse_iso
{
	my ($y, $mo, $d, $h, $mi, $s) = $_[0] =~ /^(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)/ or die "time $_[0]";
	return timegm($s, $mi, $h, $d, $mo - 1, $y);
}
# the first row's time: the run's start; the steady part: from its second minute to the pg_sleep
# (the files are named by hour and minute: the run's first is the one whose first row is earliest)
my $t0;
for my $f (@files)
{
	open my $fh, '<', $f or die;
	while (<$fh>)
	{
		next unless /^(\d{4}-\d\d-\d\dT[\d:.]+Z),/;
		my $t = parse_iso($1);
		$t0 = $t if !defined $t0 || $t < $t0;
		last;
	}
	close $fh;
}
# the injected minutes' start and end (none yet while record runs: the steady part up to the last file)
sub times_of { open my $f, '<', "$log/$_[0]" or return (); return map { chomp; parse_iso($_) } <$f> }
my @sleep = times_of('sleep.times');
my @lock = times_of('lock.times');
my $steady0 = (floor($t0 / 60) + 1) * 60;
my $steady1 = @sleep ? $sleep[0] - 5 : $steady0 + 60 * (@files - 2);
# the minute files a window [a, b) reads
sub files_of
{
	my @f;
	for my $t (@_)
	{
		for (my $m = floor($t->[0] / 60) * 60; $m < $t->[1]; $m += 60)
		{
			my $name = "$log/waits-" . strftime('%H%M', gmtime $m) . '.csv';
			push @f, $name if -e $name && !grep { $_ eq $name } @f;
		}
	}
	return @f;
}
sub compare_json
{
	my ($base, $new) = @_;
	my $d = $new->[0] - $base->[0];
	my @f = files_of($new, map { [$new->[0] - $_ * $d, $new->[1] - $_ * $d] } 1 .. $nbw);
	my $more = $nbw > 1 ? "--baseline-windows=$nbw" : '';
	my $out = `"$ours" --json --from-log @f --since=@{[iso($new->[0])]} --until=@{[iso($new->[1])]} --baseline-since=@{[iso($base->[0])]} --baseline-until=@{[iso($base->[1])]} $more`;
	die "no output for @f" if $out eq '';
	return decode_json($out);
}
sub flagged { my @r = grep { $_->{flagged} } @_; return scalar @r }
sub nobound { my @r = grep { !defined $_->{bound} } @_; return scalar @r }
srand(34);
printf "%s: steady %s to %s (%d s), %d baseline window(s)\n", $ours, iso($steady0), iso($steady1),
  $steady1 - $steady0, $nbw;
# per kind: the share of pairs with a row of it flagged (and of its rows flagged)
printf "%-6s %5s %6s  %-17s  %-17s  %7s  %s\n", 'slices', 'pairs', 'family', 'events: pairs (rows)', 'heads: pairs (rows)', 'total', 'no bound (rows)';
for my $size (@sizes)
{
	my $nw = floor(($steady1 - $steady0) / $size);
	my (%seen, @pairs);
	# the pairs whose furthest baseline window is still in the steady part
	my $fit = 0;
	for my $i (0 .. $nw - 1)
	{
		for my $j (0 .. $nw - 1)
		{
			my $far = $j - $nbw * ($j - $i);
			$fit++ if $i != $j && $far >= 0 && $far < $nw;
		}
	}
	my $want = $maxpairs < $fit ? $maxpairs : $fit;
	while (@pairs < $want)
	{
		my ($i, $j) = (int(rand($nw)), int(rand($nw)));
		my $far = $j - $nbw * ($j - $i);
		next if $i == $j || $far < 0 || $far >= $nw || $seen{"$i $j"}++;
		push @pairs, [$i, $j];
	}
	my %n = map { $_ => 0 } qw(ev evrows evflag evany hd hdrows hdflag hdany tot totflag few rows fam);
	for my $p (@pairs)
	{
		my @w = map { [$steady0 + $_ * $size, $steady0 + ($_ + 1) * $size] } @$p;
		my $j = compare_json(@w);
		my @ev = @{ $j->{results} };
		my @hd = @{ $j->{blockers} || [] };
		$n{evrows} += @ev;
		$n{evflag} += flagged(@ev);
		$n{evany} += flagged(@ev) > 0;
		$n{hd}++ if @hd;
		$n{hdrows} += @hd;
		$n{hdflag} += flagged(@hd);
		$n{hdany} += flagged(@hd) > 0;
		$n{totflag} += flagged($j->{total});
		$n{few} += nobound(@ev, @hd, $j->{total});
		$n{rows} += @ev + @hd + 1;
		$n{fam} += $j->{method}{family};
	}
	my $np = @pairs;
	printf "%-6d %5d %6.1f  %5.1f %% (%4.1f %%)      %5.1f %% (%4.1f %%)     %5.1f %%  %5.1f %%\n", $size, $np,
	  $n{fam} / $np, 100 * $n{evany} / $np, 100 * $n{evflag} / ($n{evrows} || 1),
	  100 * $n{hdany} / ($n{hd} || 1), 100 * $n{hdflag} / ($n{hdrows} || 1),
	  100 * $n{totflag} / $np, 100 * $n{few} / $n{rows};
}
# the injected minutes against the steady ones just before
for my $inj (grep { @$_ == 3 } ['one more session in pg_sleep', @sleep], ['a session holding the branch lock', @lock])
{
	my ($what, $a, $b) = @$inj;
	for my $size (grep { $_ <= $b - $a - 10 } @sizes)
	{
		my $new = [$a + 5, $a + 5 + $size];
		my $base = [$steady1 - $size, $steady1];
		my $j = compare_json($base, $new);
		my @fl = grep { $_->{flagged} } @{ $j->{results} }, @{ $j->{blockers} || [] };
		printf "injected, %s, %d slices: %s; total %s\n", $what, $size,
		  join(', ', map { sprintf '%s %+.3f (%s)', ($_->{wait_event} // $_->{pid} // '?'), $_->{change}, $_->{verdict} } @fl) || 'nothing flagged',
		  $j->{total}{verdict};
	}
}
PERL
}

case $cmd in
	record) record "$@" ;;
	compare) compare "$@" ;;
	*) echo "usage: $0 record|compare DIR ..." >&2; exit 2 ;;
esac
