# pgtempo-waits --from-log with a baseline: one run's log of 1 s profiles
# with a lock episode the script controls in its middle.  The window of the
# episode against a quiet window flags the lock wait with about the size the
# script made (one session waiting for the whole window), and not the
# steady session; quiet windows against each other flag nothing; --fail-if
# exits 3 when, and only when, a change beyond its limit is shown; --json has
# the documented members; --baseline=FILE and --baseline-since=-SHIFT name
# the same baseline as absolute times; --chart draws both windows.

use strict;
use warnings;

use File::Copy qw(copy);
use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;
use Time::HiRes qw(sleep time);

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_baseline');
my $dir = tempdir(CLEANUP => 1);
my $log = "$dir/w.csv";
# the episode's length, and the quiet time before and after it (two windows of it each):
# 14 s of 1 s profile lines: a window of 13 s or more holds at least the 12
# whole lines (slices) a bound needs, whatever the lines' phase
my $len = 14;
my $quiet = 2 * $len + 4;

$node->safe_psql('postgres', 'CREATE TABLE t (i int)');
my ($steady) = start_session($node, 'b_steady', 'SELECT pg_sleep(600)');
$node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE application_name = 'b_steady' AND wait_event = 'PgSleep'})
  or die 'the steady session did not start';

# The run samples the steady session and the one that waits, not the holder
# (whose pg_sleep would change with the episode too), every 20 ms.
# -T is only a cap: the run is stopped (SIGTERM, exit 0) once the quiet time
# after the episode has passed, however long the episode took to start
my $total = 2 * $quiet + $len + 120;
my ($o, $e) = ('', '');
my $t_run = time;
my $run = IPC::Run::start([ $bin, '-h', $node->host, '-p', $node->port, '-d', 'postgres',
		'--source=activity', '--cost-budget=0', '-i', '20ms', '-T', $total, '--log-interval=1',
		"--log=$log", '--application-name=b_steady', '--application-name=b_lock' ],
	'>', \$o, '2>', \$e);
sleep($quiet + 2);

# the episode: b_lock waits on the holder's lock from e0 to e1 (and a little
# before and after: the script knows it waits in between)
my ($holder) = start_session($node, 'b_holder');
$holder->query_safe('BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
my ($waiter) = start_session($node, 'b_lock', 'SELECT count(*) FROM t');
$node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE application_name = 'b_lock' AND wait_event = 'relation'})
  or die 'the lock wait did not start';
my $e0 = time;
sleep($len);
my $e1 = time;
$holder->query_safe('COMMIT');
$waiter->query_safe('SELECT 1');
my $stop_at = $e1 + $quiet + 1;
sleep($stop_at - time) if $stop_at > time;
my $alive = $run->pumpable;
$run->signal('TERM') if $alive;
$run->finish;
is($run->full_result(0) >> 8, 0, 'the run with its log: exit 0') or diag($e);
ok($alive, 'the run still sampled the quiet time after the episode')
  or BAIL_OUT('the run ended too soon after the episode');

sub at { return sprintf('@%.3f', $_[0]) }

# [from, from + the episode's length) as --PREFIXsince and --PREFIXuntil
sub window
{
	my ($from, $prefix) = @_;
	return ("--${prefix}since=" . at($from), "--${prefix}until=" . at($from + $e1 - $e0));
}

# Compare window new with baseline base (start times); the exit code, the JSON (or text).
sub compare
{
	my ($base, $new, @args) = @_;
	my ($rc, $out, $err) = run_tool([ $bin, '--from-log', $log, window($new, ''),
		window($base, 'baseline-'), @args ]);
	diag($err) if $rc != 0 && $rc != 3;
	return ($rc, $out);
}

sub compare_json
{
	my ($rc, $out) = compare(@_, '--json');
	return ($rc, decode_json($out));
}

sub row
{
	my ($doc, $type, $event) = @_;
	my ($r) = grep { ($_->{wait_event_type} // '') eq $type && ($_->{wait_event} // '') eq $event }
	  @{ $doc->{results} };
	return $r;
}

# the quiet windows: two before the episode, two after
my @quiet = ($t_run + 2, $t_run + 2 + $len + 0.5, $e1 + 2, $e1 + 2 + $len + 0.5);
cmp_ok($quiet[1] + $len, '<', $e0 - 0.6, 'the quiet windows before the episode end before it');

# ---------------------------------------------------------------- the episode

my ($rc, $j) = compare_json($quiet[0], $e0);
# --json=FILE: the comparison's document beside the text report
{
	my ($frc, $ftext) = compare($quiet[0], $e0, "--json=$dir/cmp.json");
	my ($trc, $text) = compare($quiet[0], $e0);
	is($ftext, $text, '--json=FILE: the text report as without it');
	my $fj = eval { decode_json(slurp_text("$dir/cmp.json")) };
	is_deeply($fj, $j, '--json=FILE: the document of --json');
}
is($rc, 0, 'episode against quiet: exit 0 without --fail-if');
my $lock = row($j, 'Lock', 'relation');
ok($lock && $lock->{flagged}, 'episode: the lock wait flagged') or diag(explain($j));
is($lock->{verdict}, 'higher', 'episode: its verdict');
is($lock->{base}, 0, 'episode: no lock wait in the baseline');
# one session waited all through the window but for the profile lines at its ends
cmp_ok($lock->{change}, '>=', 1 - 2.5 / ($e1 - $e0), 'episode: the change is about one session');
cmp_ok($lock->{change}, '<=', 1.0001, 'episode: and not more than one session');
cmp_ok($lock->{bound}, '<', $lock->{change}, 'episode: beyond its bound');
is($j->{results}[0]{wait_event}, 'relation', 'episode: the largest change first');
my $sleep = row($j, 'Timeout', 'PgSleep');
ok($sleep && !$sleep->{flagged}, 'episode: the steady session not flagged');
is($sleep->{verdict}, 'no difference shown', 'episode: its verdict');
ok($j->{total}{flagged} && $j->{total}{change} > 0.5, 'episode: the total flagged');

# --json: the documented members
is_deeply([ sort keys %$j ],
	[ sort qw(tool version kind schema base new method results blockers total fail_if exit_status) ],
	'json: the top-level members');
is($j->{kind}, 'comparison', 'json: kind');
is_deeply([ sort keys %{ $j->{new} } ],
	[ sort qw(since until files intervals raw_rows slices ticks samples avg_active_sessions) ],
	'json: a window\'s members');
is_deeply([ sort keys %$lock ],
	[ sort qw(wait_event_type wait_event base new change change_pct bound flagged verdict) ],
	'json: a result\'s members');
is_deeply([ sort keys %{ $j->{method} } ],
	[ sort qw(unit level family level_each bound baseline_windows covers_between_window_spread min_slices) ],
	'json: the method\'s members');
is($j->{method}{baseline_windows}, 1, 'json: one baseline window');
is_deeply($j->{base}{further_windows}, [], 'json: the baseline has no further window');
is($j->{schema}, 2, 'json: schema 2, the comparison\'s of every tool');
is($j->{method}{min_slices}, 12, 'json: the fewest slices a bound is made from');
is($j->{method}{family}, @{ $j->{results} } + @{ $j->{blockers} } + 1,
	'json: the family is the keys, the head blockers and the total');

# the head blockers compared: the holder (not sampled itself: known by its
# pid from the waiter's blockers) heads one blocked session all through the
# episode, and nobody in the quiet window
my $holder_pid = $holder->query_safe('SELECT pg_backend_pid()');
chomp $holder_pid;
is(scalar @{ $j->{blockers} }, 1, 'blockers: one head, in the episode\'s window') or diag(explain($j->{blockers}));
my $hb = $j->{blockers}[0];
is($hb->{pid}, $holder_pid, 'blockers: the head is the holder');
ok($hb->{flagged} && $hb->{verdict} eq 'higher', 'blockers: flagged higher');
is($hb->{base}, 0, 'blockers: none in the baseline');
cmp_ok($hb->{change}, '>=', 1 - 2.5 / ($e1 - $e0), 'blockers: about one blocked session');
cmp_ok($hb->{change}, '<=', 1.0001, 'blockers: and not more');
cmp_ok(abs($hb->{change} - $lock->{change}), '<', 0.02, 'blockers: as much as the lock wait it caused');
ok(!defined $lock->{change_pct}, 'json: no % from a baseline of nothing');
cmp_ok($j->{new}{intervals}, '>=', int($e1 - $e0) - 1, 'json: the window\'s profile lines');

# text: the lock line and the steady one
my ($trc, $text) = compare($quiet[0], $e0);
# (about one session: 1.000 when the episode covers the window's lines whole)
like($text, qr/^Lock\s+relation\s+0\.000\s+[01]\.\d{3}\s+\+[01]\.\d{3}\s+\S+\s+new\s+higher$/m,
	'text: the lock wait, new and higher') or diag($text);
# (its share of a window's ticks 1, but for a tick at a window's edge read from the health records)
like($text, qr/^Timeout\s+PgSleep\s+[01]\.\d{3}\s+[01]\.\d{3}\s+[-+]0\.0\d\d\s+\S+\s+[-+]\d %\s+no difference shown$/m,
	'text: the steady session, no difference shown');

# the same baseline as a shift, and from a file of its own
{
	my ($r, $out) = run_tool([ $bin, '--from-log', $log, window($e0, ''), '--json',
		'--baseline-since=-' . sprintf('%.3fs', $e0 - $quiet[0]) ]);
	is_deeply(decode_json($out)->{results}, $j->{results},
		'--baseline-since=-SHIFT (the length from the window\'s): the same comparison');
	copy($log, "$dir/base.csv") or die;
	($r, $out) = run_tool([ $bin, '--from-log', $log, window($e0, ''), "--baseline=$dir/base.csv",
		window($quiet[0], 'baseline-'), '--json' ]);
	is_deeply(decode_json($out)->{results}, $j->{results}, '--baseline=FILE: the same comparison');
}

# --by pid: a session keeps its backend type (the report's key, wprof's
# projection), in raw rows (profile lines have no sessions): two minutes of
# a client backend and a walsender, one row a second each
{
	open my $fh, '>', "$dir/raw.csv" or die;
	print $fh "ts,pid,backend_start,backend_type,datname,usename,application_name,client_addr,state,"
	  . "wait_event_type,wait_event,query_id,leader_pid,blockers,samples,wait_time_us,query\n"
	  . '# meta {"type":"meta","log_version":1,"tool":"pgtempo-waits 0.1.0","run":"2026-12-01T10:00:00.000000Z",'
	  . '"source":"pg_stat_activity","server":"/tmp:5432","server_version":"15.18","interval_s":1,'
	  . '"period_s":1,"include_idle":false,"measured":false,"backend_types":["client backend","walsender"],'
	  . '"backend_types_given":true}' . "\n";
	for my $i (0 .. 119)
	{
		my $ts = sprintf('2026-12-01T10:%02d:%02d.000000Z', int($i / 60), $i % 60);
		print $fh "$ts,101,2026-12-01T09:00:00.000000Z,client backend,postgres,app,web,,active,IO,DataFileRead,,,,1,,\n";
		print $fh "$ts,102,2026-12-01T09:00:00.000000Z,walsender,,rep,,,active,IO,WALRead,,,,1,,\n";
	}
	close $fh or die;
	my ($prc, $out) = run_tool([ $bin, '--from-log', "$dir/raw.csv", '--by=pid', '--json',
		'--since=2026-12-01T10:01:00Z', '--until=2026-12-01T10:02:00Z',
		'--baseline-since=2026-12-01T10:00:00Z' ]);
	my $pj = decode_json($out);
	is_deeply({ map { $_->{pid} => $_->{backend_type} } @{ $pj->{results} } },
		{ 101 => 'client backend', 102 => 'walsender' }, '--by=pid: each session\'s backend type')
	  or diag($out);
}

# the windows the other way round: a drop
my ($rrc, $rev) = compare_json($e0, $quiet[0]);
my $rlock = row($rev, 'Lock', 'relation');
ok($rlock->{flagged} && $rlock->{verdict} eq 'lower', 'reversed: the lock wait flagged lower');
is($rlock->{new}, 0, 'reversed: none in the new window');

# ---------------------------------------------------------------- quiet against quiet

for my $p ([ 0, 1 ], [ 1, 2 ], [ 2, 3 ], [ 0, 3 ], [ 3, 0 ])
{
	my ($qrc, $q) = compare_json($quiet[ $p->[0] ], $quiet[ $p->[1] ]);
	my @flagged = grep { $_->{flagged} } @{ $q->{results} };
	is(scalar @flagged, 0, "quiet $p->[0] against quiet $p->[1]: nothing flagged")
	  or diag(explain(\@flagged));
	ok(!$q->{total}{flagged}, "quiet $p->[0] against quiet $p->[1]: the total not flagged");
	ok(!row($q, 'Lock', 'relation'), "quiet $p->[0] against quiet $p->[1]: no lock wait");
	ok(!$q->{blockers}, "quiet $p->[0] against quiet $p->[1]: no head blocker");
}

# ---------------------------------------------------------------- too few slices

# 4 s windows are 4 slices: no bound and no verdict for any row, the lock wait's included
{
	my ($frc, $out) = run_tool([ $bin, '--from-log', $log, '--json', '--since=' . at($e0 + 1),
		'--until=' . at($e0 + 5), '--baseline-since=' . at($quiet[0]),
		'--baseline-until=' . at($quiet[0] + 4) ]);
	my $f = decode_json($out);
	my $flock = row($f, 'Lock', 'relation');
	is($f->{new}{slices}, 4, 'too few slices: 4 in the window');
	is_deeply([ map { $_->{verdict} } @{ $f->{results} }, @{ $f->{blockers} }, $f->{total} ],
		[ ('too few slices for a bound') x (@{ $f->{results} } + @{ $f->{blockers} } + 1) ],
		'too few slices: every row says so');
	ok(!defined $flock->{bound} && $flock->{bound_reason} eq 'too few slices' && !$flock->{flagged},
		'too few slices: a null bound with its reason, not flagged');
	cmp_ok($flock->{change}, '>', 0.9, 'too few slices: the change is still given');
	($frc, $out) = run_tool([ $bin, '--from-log', $log, '--since=' . at($e0 + 1),
		'--until=' . at($e0 + 5), '--baseline-since=' . at($quiet[0]) ]);
	like($out, qr/^Lock\s+relation\s+0\.000\s+[01]\.\d{3}\s+\+[01]\.\d{3}\s+-\s+new\s+too few slices for a bound$/m,
		'too few slices: the text says so, with - for the bound') or diag($out);
}

# ---------------------------------------------------------------- --fail-if

for my $c (
	[ 'Lock:+0.5', 3 ], [ 'Lock:relation:+0.5', 3 ], [ 'relation:+0.5', 3 ],
	[ 'total:+50%', 3 ], [ 'Timeout:+0.1,Lock:+0.5', 3 ],
	[ 'Lock:+1.5', 0 ],	# beyond the change: one session at most
	[ 'Lock:-0.5', 0 ],	# a drop's limit, and it rose
	[ 'Timeout:+0.1', 0 ], [ 'PgSleep:+1%', 0 ], [ 'IO:+0.1', 0 ],
	# the gate's other spellings (pgtempo-bench --compare's too)
	[ 'Lock>0.5', 3 ], [ 'Lock:relation:>+0.5', 3 ], [ 'Lock/relation>0.5', 3 ], [ 'total>1.5x', 3 ],
	[ 'Lock>1.5', 0 ], [ 'Lock<-0.5', 0 ], [ 'total<0.5x', 0 ])
{
	my ($lrc, $l) = compare_json($quiet[0], $e0, "--fail-if=$c->[0]");
	is($lrc, $c->[1], "--fail-if=$c->[0], episode against quiet: exit $c->[1]");
	is($l->{exit_status}, $c->[1], "--fail-if=$c->[0]: exit_status in the JSON");
}
{
	my ($lrc, $l) = compare_json($e0, $quiet[0], '--fail-if=Lock:-0.5');
	is($lrc, 3, '--fail-if=Lock:-0.5, quiet against the episode: exit 3');
	($lrc) = compare($e0, $quiet[0], '--fail-if=Lock:+0.5');
	is($lrc, 0, '--fail-if=Lock:+0.5, quiet against the episode: exit 0');
	($lrc) = compare($e0, $quiet[0], '--fail-if=Lock<-0.5');
	is($lrc, 3, '--fail-if=Lock<-0.5, quiet against the episode: exit 3');
	for my $p ([ 0, 1 ], [ 2, 3 ], [ 1, 2 ])
	{
		($lrc, $l) = compare_json($quiet[ $p->[0] ], $quiet[ $p->[1] ],
			'--fail-if=total:+1%,Lock:+0.01,Timeout:-0.01,total>1.01x,total:-0%,total:+0%');
		is($lrc, 0, "--fail-if, quiet $p->[0] against quiet $p->[1]: exit 0");
		is_deeply([ map { $_->{tripped} } @{ $l->{fail_if} } ], [ (JSON::PP::false) x 6 ],
			"--fail-if, quiet $p->[0] against quiet $p->[1]: no limit tripped");
	}
	my ($text_rc, $t) = compare($quiet[0], $e0, '--fail-if=Lock:+0.5');
	like($t, qr/^--fail-if=Lock:\+0\.5: \+[01]\.\d+ ± \d\.\d+ active sessions: the change is beyond the limit$/m,
		'--fail-if: the text says which limit tripped');
}

# a name that matches nothing is said, and does not trip
{
	my ($wrc, $out, $err) = run_tool([ $bin, '--from-log', $log, window($e0, ''),
		window($quiet[0], 'baseline-'), '--fail-if=Lokc:+0.5' ]);
	is($wrc, 0, '--fail-if with a misspelt name: exit 0');
	like($err, qr/warning: --fail-if=Lokc:\+0\.5: no event of either window matches "Lokc"/,
		'--fail-if with a misspelt name: a warning');
}

# --chart: both windows
{
	my ($crc) = compare($quiet[0], $e0, "--chart=$dir/c.svg");
	is($crc, 0, '--chart: exit 0');
	my $svg = do { local (@ARGV, $/) = ("$dir/c.svg"); <> };
	like($svg, qr/Baseline: .*Window: /s, '--chart: a panel for each window');
	like($svg, qr/Lock:relation/, '--chart: the lock wait drawn');
}

# usage errors, and a window that cannot be compared
for my $c (
	[ [ '--from-log', $log, '--fail-if=Lock:+1' ], qr/--fail-if needs a baseline/ ],
	[ [ '--from-log', $log, '--baseline-since=-7d' ], qr/--baseline-since=-SHIFT needs --since/ ],
	[ [ '--from-log', $log, '--since=' . at($e0), '--baseline-since=-7x' ],
		qr/invalid value "-7x" for option --baseline-since/ ],
	[ [ '--baseline-since=-1h' ], qr/need --from-log/ ],
	[ [ '--from-log', $log, '--baseline-since=' . at($e0), '--fail-if=Lock' ],
		qr/invalid value "Lock" for option --fail-if: each item is NAME:LIMIT/ ],
	[ [ '--from-log', $log, '--baseline-since=' . at($e0), '--fail-if=Lock<10ms' ],
		qr/error: invalid value "Lock<10ms" for option --fail-if: the limit is a signed number of active sessions \(\+0\.5\) or a signed percentage \(-10%\), or a ratio after < or > \(<0\.95x\), as in "Lock:\+0\.5,total:\+50%"$/m ],
	# a baseline no run sampled: nothing to compare with, not a change
	[ [ '--from-log', $log, window($e0, ''), '--baseline-since=-7d', '--fail-if=Lock:+0.5' ],
		qr/error: the baseline window holds no samples of its files/ ])
{
	my ($urc, $uo, $ue) = run_tool([ $bin, @{ $c->[0] } ]);
	is($urc, 1, "error: @{ $c->[0] }: exit 1");
	like($ue, $c->[1], "error: @{ $c->[0] }: the message");
}

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'b\_%'});
eval { $_->quit } for $steady, $holder, $waiter;
done_testing();
