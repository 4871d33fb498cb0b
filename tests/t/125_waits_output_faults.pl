# pgtempo-waits: outputs under faults.  Paths that cannot be written are
# refused before connecting; a standard output that fails is an error in
# every mode; the log is on disk within a second while the run goes on (a
# kill -9 loses at most the last second); a full disk under --log (a small
# tmpfs) leaves whole lines, an exact count of what was lost, the report
# and exit 1; bytes from an SQL_ASCII database come out as valid UTF-8 JSON.

use strict;
use warnings;

use Encode ();
use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use POSIX qw(strftime);
use Test::More;
use Time::Local qw(timegm);
use Time::HiRes qw(time usleep);

my $bin = pgtempo_bin('pgtempo-waits');
my $dir = tempdir(CLEANUP => 1);
my $nohost = "$dir/nohost";    # no server here: a run that got past its outputs would fail to connect
mkdir $nohost;

# ---------------------------------------------------------------- bad paths, before connecting

my $year = strftime('%Y', localtime);
for my $case (
	[ '--log', '/nonexistent/dir/w-%Y.csv', "/nonexistent/dir/w-$year.csv", 'No such file or directory' ],
	[ '--chart',  '/nonexistent/dir/c.svg',    '/nonexistent/dir/c.svg',    'No such file or directory' ],
	[ '--folded', '/nonexistent/dir/w.folded', '/nonexistent/dir/w.folded', 'No such file or directory' ],
	[ '--json',   '/nonexistent/dir/r.json',   '/nonexistent/dir/r.json',   'No such file or directory' ],
	[ '--chart',  $dir, $dir, 'Is a directory' ])
{
	my ($opt, $arg, $path, $why) = @$case;
	my $t0 = time;
	# the other outputs are fine: what the checks create, they remove again
	my ($rc, $out, $err) = run_tool([ $bin, '-h', $nohost, '-T', '600', "$opt=$arg",
		("--folded=$dir/ok.folded") x ($opt ne '--folded'), ("--log=$dir/ok.csv") x ($opt ne '--log') ]);
	my $took = time - $t0;
	is($rc, 1, "$opt=$arg: exit 1");
	is($err, qq{pgtempo-waits: error: could not open file "$path" for writing: $why\n},
		"$opt=$arg: the file and the reason, before connecting");
	cmp_ok($took, '<', 10, "$opt=$arg: at once (${took}s)");
	ok(!-e "$dir/ok.folded", "$opt=$arg: the folded file checked is not left behind");
	unlink "$dir/ok.csv";
}

# ---------------------------------------------------------------- a cluster

my $node = new_cluster('waits_out', conf => "compute_query_id = on\n");
my $user = $node->safe_psql('postgres', 'SELECT current_user');
my @conn = ('-h', $node->host, '-p', $node->port, '-U', $user, '-d', 'postgres', '--source=activity');

my @sleepers = map { (start_session($node, "o_sleep$_", 'SELECT pg_sleep(600)'))[0] } 1 .. 3;
$node->poll_query_until('postgres', q{
	SELECT count(*) = 3 FROM pg_stat_activity WHERE application_name LIKE 'o\_sleep%' AND wait_event = 'PgSleep'})
  or die 'the sleepers did not start';
my @sleep = map { "--application-name=o_sleep$_" } 1 .. 3;

# ---------------------------------------------------------------- standard output fails

SKIP:
{
	skip '/dev/full is not writable here', 18 unless -w '/dev/full';
	# (-T bounds connecting too: 2 s, so that a loaded machine connects in time)
	for my $case ([ '--help' ], [ '--version' ], [ 'text report', @conn, '-T', '2' ],
		[ '--json', @conn, '-T', '2', '--json' ],
		[ '--json with files', @conn, '-T', '2', '--json', "--folded=$dir/f.folded", "--log=$dir/f.jsonl" ],
		[ '--log=- --folded=-', @conn, @sleep, '-T', '1.5', '--log=-', '--folded=-' ])
	{
		my ($label, @args) = @$case;
		@args = ($label) if !@args;
		my $err = '';
		IPC::Run::run([ $bin, @args ], '<', \'', '>', '/dev/full', '2>', \$err);
		my $rc = $? >> 8;
		is($rc, 1, "stdout /dev/full, $label: exit 1");
		like($err, qr/^pgtempo-waits: error: could not write to standard output: No space left on device$/m,
			"stdout /dev/full, $label: the reason");
		unlike($err, qr/Success/, "stdout /dev/full, $label: never \"Success\"");
	}
}

# "-" is standard output: the log records (the meta record first), then the folded stacks,
# then the report.
{
	my ($rc, $out, $err) = run_tool([ $bin, @conn, @sleep, '-T', '1.5', '--log=-', '--log-format=jsonl',
		'--folded=-' ]);
	is($rc, 0, '--log=- --folded=-: exit 0');
	# (on PostgreSQL 17 and later a description record comes before an event's first sample)
	like($out, qr/\A\{"type":"meta".*\n(?:\{"type":"description".*\n)*\{"type":"sample".*\n(?:\{.*\n)*[^;\n]+;client backend;Timeout;PgSleep;\S+ \d+\nsource: /,
		'--log=- --folded=-: records, stacks, report, in this order');
	ok(!-e '-', '--log=- --folded=-: no file named "-"');
}

# A log streamed to standard output: the failure shows while the run goes on.
SKIP:
{
	skip '/dev/full is not writable here', 4 unless -w '/dev/full';
	my ($out, $err) = ('', '');
	my $t0 = time;
	my $h = IPC::Run::start([ $bin, @conn, @sleep, '-T', '8', '--log=/dev/stdout' ],
		'<', \'', '>', '/dev/full', '2>', \$err, IPC::Run::timeout(60));
	$h->pump until $err =~ /could not write to log file/ || time - $t0 > 6;
	my $seen = time - $t0;
	ok($h->pumpable, "--log=/dev/stdout on /dev/full: noticed while running (${seen}s)");
	$h->finish;
	is($? >> 8, 1, '--log=/dev/stdout on /dev/full: exit 1');
	my @once = ($err =~ /^pgtempo-waits: error: could not write to log file "\/dev\/stdout": No space left on device$/mg);
	is(scalar @once, 1, '--log=/dev/stdout on /dev/full: said once');
	like($err, qr/^pgtempo-waits: error: \d+ records could not be written to log file "\/dev\/stdout"$/m,
		'--log=/dev/stdout on /dev/full: the records lost are counted');
}

# ---------------------------------------------------------------- the log while running, and kill -9

{
	# one session, 20 samples a second: 3.5 s of its rows stay far below the
	# 64 kB that would be written without waiting for a tick
	my $log = "$dir/k.csv";
	my $t0 = time;
	my $h = IPC::Run::start([ $bin, @conn, $sleep[0], '-i', '50ms', '-T', '60', "--log=$log" ],
		'<', \'', '>', \my $out, '2>', \my $err, IPC::Run::timeout(90));
	# rows are on disk while the run goes on, not only at its end: wait for
	# them (a loaded machine starts slowly) while it still runs
	my ($running, $rows) = ('', 0);
	for (1 .. 300)
	{
		usleep(100_000);
		$running = do { open my $fh, '<', $log or next; local $/; <$fh> } // '';
		$rows = () = $running =~ /,PgSleep,/g;
		last if $rows > 0 && time - $t0 >= 3.5;
	}
	cmp_ok($rows, '>', 0, "while running: $rows rows on disk already");
	ok($h->pumpable, 'while running: the run goes on');
	$h->signal('KILL');
	eval { $h->finish };
	my $killed = time;
	open my $fh, '<', $log or die "$log: $!";
	my $text = do { local $/; <$fh> };
	close $fh;
	like($text, qr/\n\z/, 'kill -9: the log ends on a whole line');
	my @ts = ($text =~ /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.\d+Z,/mg);
	my $last = @ts ? timegm(@ts[ -1, -2, -3, -4 ], $ts[-5] - 1, $ts[-6]) : 0;
	# the last row on disk (whole seconds) is about a second older than the kill, not more
	cmp_ok($killed - $last, '<', 3.5, 'kill -9: at most about the last second is lost');
}

# ---------------------------------------------------------------- a full disk: a 64 kB tmpfs

# Mounting needs root; an unprivileged user may do it in a user namespace of its own.
my $mnt = "$dir/mnt";
mkdir $mnt;
my @ns = $> == 0 ? ('unshare', '-m') : ('unshare', '-Urm');
my $can_mount = system(@ns, 'sh', '-c', "mount -t tmpfs -o size=64k tmpfs '$mnt'") == 0;
SKIP:
{
	skip 'cannot mount a tmpfs here (no root, no user namespaces)', 13 unless $can_mount;
	my $pad = 'x' x 1500;
	my @fill = map { (start_session($node, "o_fill$_", "SELECT pg_sleep(600) /* $pad */"))[0] } 1 .. 3;
	$node->poll_query_until('postgres', q{
		SELECT count(*) = 3 FROM pg_stat_activity WHERE application_name LIKE 'o\_fill%' AND wait_event = 'PgSleep'})
	  or die 'the fillers did not start';
	my $copy = "$dir/full.jsonl";
	my ($rc, $out, $err) = run_tool([ @ns, 'sh', '-c',
		'd=$1; c=$2; shift 2; mount -t tmpfs -o size=64k tmpfs "$d" || exit 99; '
		  . 'echo complete >"$d/c.svg"; echo complete >"$d/w.folded"; "$@"; rc=$?; '
		  . 'cat "$d/c.svg" > "$c.svg"; '
		  . 'cp "$d/w.jsonl" "$c"; ls "$d" > "$c.ls"; cat "$d/w.folded" > "$c.folded"; exit $rc',
		'sh', $mnt, $copy, $bin, @conn, (map { "--application-name=o_fill$_" } 1 .. 3),
		'-T', '3', '--query-text=2000', '--json', "--log=$mnt/w.jsonl", "--folded=$mnt/w.folded",
		"--chart=$mnt/c.svg" ]);
	is($rc, 1, 'tmpfs full: exit 1');
	my $r = eval { decode_json($out) };
	ok($r, 'tmpfs full: the report is still printed');
	# the samples taken after the disk filled are counted in the report, not on disk
	cmp_ok($r->{active_samples} // 0, '>', scalar(grep { /^\{"type":"sample"/ } split /\n/, do {
		open my $c, '<:raw', $copy or die "$copy: $!"; local $/; <$c> }),
		'tmpfs full: sampling went on after the disk filled');
	my @once = ($err =~ /^pgtempo-waits: error: could not write to log file "\Q$mnt\E\/w\.jsonl": No space left on device$/mg);
	is(scalar @once, 1, 'tmpfs full: the file and the reason, said once');
	my ($lost) = $err =~ /^pgtempo-waits: error: (\d+) records could not be written to log file "\Q$mnt\E\/w\.jsonl"$/m;
	ok($lost, 'tmpfs full: how many records were lost');
	open my $fh, '<:raw', $copy or die "$copy: $!";
	my $text = do { local $/; <$fh> };
	close $fh;
	like($text, qr/\n\z/, 'tmpfs full: the file ends on a whole line');
	my @lines = split /\n/, $text;
	is(scalar(grep { !eval { decode_json($_) } } @lines), 0, 'tmpfs full: every line is JSON');
	cmp_ok(length($text), '>', 30000, 'tmpfs full: the file holds what fitted');
	# the meta record, one record per active sample, and one health record at the end
	# (and on PostgreSQL 17 and later a description record per event)
	is(scalar(grep { !/^\{"type":"description"/ } @lines) + ($lost // 0), $r->{active_samples} + 2,
		'tmpfs full: the records written and the records lost add up to all of them');
	# the files written at the end, whole or not at all: the chart that does
	# not fit leaves the complete file that was there, the folded stacks
	# are all there or not changed, and no temporary file is left behind
	like($err, qr/^pgtempo-waits: error: could not write to file "\Q$mnt\E\/c\.svg": No space left on device$/m,
		'tmpfs full: the chart that did not fit is reported');
	open $fh, '<:raw', "$copy.svg" or die "$copy.svg: $!";
	is(do { local $/; <$fh> }, "complete\n", 'tmpfs full: the chart there before is kept whole');
	close $fh;
	open $fh, '<', "$copy.ls" or die "$copy.ls: $!";
	my @ls = map { chomp; $_ } <$fh>;
	close $fh;
	is_deeply([ sort @ls ], [ 'c.svg', 'w.folded', 'w.jsonl' ], 'tmpfs full: no temporary file left behind');
	open $fh, '<:raw', "$copy.folded" or die "$copy.folded: $!";
	my $folded = do { local $/; <$fh> };
	close $fh;
	if ($err =~ /^pgtempo-waits: error: could not write to file "\Q$mnt\E\/w\.folded": No space left on device$/m)
	{
		is($folded, "complete\n", 'tmpfs full: the folded stacks there before are kept whole');
	}
	else
	{
		like($folded, qr/\A(?:[^\n]+ \d+\n)+\z/, 'tmpfs full: the folded stacks, all of them, fitted');
	}
	$node->safe_psql('postgres',
		q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'o\_fill%'});
}

# ---------------------------------------------------------------- bytes that are not UTF-8

$node->safe_psql('postgres',
	q{CREATE DATABASE latin ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0});
# a database whose very name is not UTF-8, made from the SQL_ASCII one
$node->safe_psql('latin', qq{CREATE DATABASE "caf\xe9"});
my $bad = $node->background_psql('latin', on_error_stop => 0);
$bad->query_safe("SET application_name = 'o_bad'");
$bad->query_until(qr/started/, "\\echo started\nSELECT pg_sleep(600) /* caf\xe9 \xff\xfe */;\n");
my $bad2 = $node->background_psql("caf\xe9", on_error_stop => 0);
$bad2->query_safe("SET application_name = 'o_bad2'");
$bad2->query_until(qr/started/, "\\echo started\nSELECT pg_sleep(600);\n");
$node->poll_query_until('postgres', q{
	SELECT count(*) = 2 FROM pg_stat_activity WHERE application_name LIKE 'o\_bad%' AND wait_event = 'PgSleep'})
  or die 'the sessions with bad bytes did not start';

# valid UTF-8 (strict), or undef
sub strict_utf8
{
	my ($bytes) = @_;
	return eval { Encode::decode('UTF-8', $bytes, Encode::FB_CROAK | Encode::LEAVE_SRC) };
}

my @badapps = ('--application-name=o_bad', '--application-name=o_bad2');
my ($rc, $out, $err) = run_tool([ $bin, @conn, @badapps, '-T', SHORT_RUN, '--query-text', '--json',
	'--by=db,event', "--log=$dir/bad.jsonl", "--folded=$dir/bad.folded" ]);
is($rc, 0, 'SQL_ASCII: exit 0');
ok(defined strict_utf8($out), '--json: valid UTF-8');
my $r = eval { JSON::PP->new->utf8->decode($out) };
ok($r, '--json: parses');
ok((grep { ($_->{datname} // '') eq 'caf\\xe9' } @{ $r->{profile} || [] }), '--json: the bad byte of a name as \xNN');
my @tq = map { @{ $_->{top_queries} || [] } } @{ $r->{profile} || [] };
ok((grep { ($_->{query} // '') =~ /caf\\xe9 \\xff\\xfe/ } @tq), '--json: the bad bytes of a query as \xNN');

open my $fh, '<:raw', "$dir/bad.jsonl" or die "bad.jsonl: $!";
my @l = <$fh>;
close $fh;
is(scalar(grep { !defined strict_utf8($_) } @l), 0, 'JSON Lines: every line is valid UTF-8');
my @rec = map { eval { JSON::PP->new->utf8->decode($_) } } @l;
is(scalar @rec, scalar @l, 'JSON Lines: every line parses');
is(scalar(grep { $_->{type} eq 'sample' } @rec), $r->{active_samples} // -1,
	'JSON Lines: a record for every sample the report counts');
ok((grep { ($_->{query} // '') =~ /\\xff\\xfe/ } @rec), 'JSON Lines: the query keeps its bad bytes as \xNN');
ok((grep { ($_->{datname} // '') eq 'caf\\xe9' } @rec), 'JSON Lines: so does the database name');

($rc, $out, $err) = run_tool([ $bin, @conn, @badapps, '-T', SHORT_RUN, '--query-text', "--log=$dir/bad.csv" ]);
open $fh, '<:raw', "$dir/bad.csv" or die "bad.csv: $!";
my $csv = do { local $/; <$fh> };
close $fh;
ok(defined strict_utf8($csv), 'CSV: valid UTF-8');
like($csv, qr/caf\\xe9 \\xff\\xfe/, 'CSV: the bad bytes as \xNN');
open $fh, '<:raw', "$dir/bad.folded" or die "bad.folded: $!";
my $folded = do { local $/; <$fh> };
close $fh;
ok(defined strict_utf8($folded), 'folded stacks: valid UTF-8');
like($folded, qr/^caf\\xe9;client backend;/m, 'folded stacks: the bad byte as \xNN');

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'o\_%'});
done_testing();
