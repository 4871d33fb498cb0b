# pgtempo-waits: the cost budget.  A budget far below what a sample costs
# (--cost-budget=0.01, a ten-thousandth of a CPU) makes any server "big":
# without -i the rate is lowered, stderr says so with the cost and the
# backends and names pg_wait_sampling (not installed here), the report and
# the log's health records say what the rate became and what it cost, and
# the error bounds widen; with -i the rate is kept and a warning gives the
# cost; --cost-budget=0 measures without acting.  With --pid the statement
# reads only that pid's status, and the report says so.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_cost', conf => "max_connections = 120\n");
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres');

my ($sleeper, $sleeper_pid) = start_session($node, 'c_sleep', 'SELECT pg_sleep(600)');
$node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'c_sleep' AND wait_event = 'PgSleep'})
  or die 'the sleeper did not start';

# Run the sampler with --json; the decoded report and stderr.
sub cost_run
{
	my (@args) = @_;
	my ($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '--json', @args ]);
	is($rc, 0, "@args: exit 0") or diag($err);
	my $r = eval { decode_json($out) } || {};
	return ($r, $err);
}

my $dir = tempdir(CLEANUP => 1);

# ---------------------------------------------------------------- lowered to fit

# a window needs 20 ms of the backend's CPU or else ten times its length:
# with --cost-window=100ms a window has ended by 1 s however quiet the
# machine, so the runs that must see one last 3 s
my @win = ('--cost-window=100ms');
my ($r, $err) = cost_run('-T', '3', @win, '--cost-budget=0.01', "--log=$dir/cost.jsonl");
my $c = $r->{cost} // {};
like($err, qr/cost budget: a sample costs the server \d+ us of CPU at \d+ backends, [\d.]+ % of one CPU every 10 ms: sampling every [\d.]+ m?s to stay within 0\.01 %/,
	'lowered: stderr gives the cost, the backends and the new interval');
like($err, qr/hint: pg_wait_sampling .* reading its profile once a second would cost about [\d.]+ ms of CPU a second here/,
	'lowered: a hint names pg_wait_sampling, with its cost here');
is(scalar(() = $err =~ /hint: pg_wait_sampling/g), 1, 'lowered: the hint comes once');
cmp_ok($c->{rate_changes} // 0, '>=', 1, 'lowered: the report counts the change');
cmp_ok($c->{interval_s} // 0, '>', 0.01, 'lowered: the interval at the end is longer');
cmp_ok($c->{max_interval_s} // 0, '>=', $c->{interval_s} // 1, 'lowered: the longest interval is reported');
is($c->{requested_interval_s}, 0.01, 'lowered: the interval asked for');
ok(!$c->{user_interval}, 'lowered: not the user\'s interval');
ok($c->{measured}, 'lowered: the backend\'s CPU was measured (a server on this host)');
cmp_ok($c->{cost_us_per_sample} // 0, '>', 0, 'lowered: the cost per sample');
cmp_ok($c->{backends} // 0, '>=', 2, 'lowered: the backends counted');
cmp_ok($r->{health}{rate_hz} // 100, '<', 75, 'lowered: fewer samples than at 100/s');
cmp_ok($c->{error_factor} // 0, '>', 1, 'lowered: wider error bounds');
# a sample stands for its share of the time sampled: the sleeper's estimate is the time sampled
my ($sleep) = grep { ($_->{wait_event} // '') eq 'PgSleep' } @{ $r->{profile} // [] };
ok($sleep && abs($sleep->{est_seconds} - 3) < 1, 'lowered: the sleeper\'s time is still about 3 s')
  or diag(explain($sleep));
cmp_ok($r->{period_s} // 0, '>', 0.01, 'lowered: a sample stands for more time');
my @health = grep { $_->{type} eq 'health' } map { decode_json($_) } slurp_lines("$dir/cost.jsonl");
ok(@health, 'lowered: the log has health records');
my $h = $health[-1] // {};
is($h->{interval_s}, $c->{interval_s}, 'lowered: the last health record has the interval chosen');
cmp_ok($h->{cost_us_per_sample} // 0, '>', 0, 'lowered: ... the cost per sample');
cmp_ok($h->{backends} // 0, '>=', 2, 'lowered: ... and the backends');

# the text report's cost line
my ($rc, $out);
($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '-T', '3', @win, '--cost-budget=0.01%' ]);
is($rc, 0, 'text: exit 0') or diag($err);
like($out, qr/^cost: \d+ us of server CPU per sample at \d+ backends, [\d.]+ % of one CPU at a sample every [\d.]+ m?s; the cost budget of 0\.01 % lowered the rate from every 10 ms to every [\d.]+ m?s at most.*: error bounds [\d.]+x those at every 10 ms$/m,
	'text: the cost line says what the budget did');

# ---------------------------------------------------------------- -i: the user's rate is kept

($r, $err) = cost_run('-T', '3', @win, '-i', '10ms', '--cost-budget=0.01');
$c = $r->{cost} // {};
like($err, qr/warning: sampling every 10 ms costs the server \d+ us of CPU per sample at \d+ backends: [\d.]+ % of one CPU, over the cost budget of 0\.01 %/,
	'-i: a warning gives the cost');
unlike($err, qr/sampling every \d+ ms to stay within/, '-i: the rate is not lowered');
is(scalar(() = $err =~ /over the cost budget/g), 1, '-i: the warning comes once');
ok($c->{user_interval}, '-i: the user\'s interval');
is($c->{rate_changes}, 0, '-i: no change');
is($c->{interval_s}, 0.01, '-i: still 10 ms');
# every tick of the 10 ms schedule was kept: sampled, or counted as missed (a loaded machine)
my $kept = ($r->{health}{samples} // 0) + ($r->{health}{missed_ticks} // 0);
ok($kept >= 298 && $kept <= 301, "-i: the 10 ms schedule, every tick sampled or counted missed ($kept)");

# ---------------------------------------------------------------- no budget

# a measured cost needs a window: 3 s with short windows, as above
($r, $err) = cost_run('-T', '3', @win, '--cost-budget=0');
$c = $r->{cost} // {};
unlike($err, qr/cost budget|over the cost/, '--cost-budget=0: nothing said');
is($c->{budget_share}, 0, '--cost-budget=0: no budget');
is($c->{rate_changes}, 0, '--cost-budget=0: no change');
cmp_ok($c->{cost_us_per_sample} // 0, '>', 0, '--cost-budget=0: the cost is still measured');

# ---------------------------------------------------------------- the default budget on a small server

($r, $err) = cost_run('-T', '1.5');
is(($r->{cost} // {})->{budget_share}, 0.02, 'default: a budget of 2 %');

# ---------------------------------------------------------------- known pids

# few backends: a row per backend, filtered to the pid, costs less than a call per pid
($r, $err) = cost_run('-T', SHORT_RUN, "--pid=$sleeper_pid");
ok(($r->{cost} // {})->{known_pids}, '--pid: known pids');
ok(!($r->{cost} // {})->{pids_each}, '--pid, few backends: filtered from every row');
my ($ps) = grep { ($_->{wait_event} // '') eq 'PgSleep' } @{ $r->{profile} // [] };
ok($ps && $ps->{samples} > 0, '--pid: the pid is sampled');
($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '-T', SHORT_RUN, "--pid=$sleeper_pid" ]);
like($out, qr/^statement: a row per backend, filtered to 1 known pid \(cheaper than a call per pid with few backends\)$/m,
	'--pid, few backends: the text report says which statement');

# more than thirty times as many backends as pids (a pid given twice below counts twice):
# each pid's status alone; idle pgbench clients hold the backends open
my $pgbench = pg_reference('pgbench') // 'pgbench';
write_file("$dir/idle.sql", "\\sleep 100 s\n");
my ($iout, $ierr) = ('', '');
my $idle = IPC::Run::start([ $pgbench, '-n', '-c', '70', '-j', '1', '-T', '100', '-f', "$dir/idle.sql",
	'-h', $node->host, '-p', $node->port, 'postgres' ], '>', \$iout, '2>', \$ierr);
$node->poll_query_until('postgres', 'SELECT count(*) > 70 FROM pg_stat_get_backend_idset()')
  or die "the idle clients did not connect: $ierr";
($r, $err) = cost_run('-T', SHORT_RUN, "--pid=$sleeper_pid");
ok(($r->{cost} // {})->{pids_each}, '--pid, many backends: each pid alone');
($ps) = grep { ($_->{wait_event} // '') eq 'PgSleep' } @{ $r->{profile} // [] };
ok($ps && $ps->{samples} > 0, '--pid, many backends: the pid is sampled');
($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '-T', SHORT_RUN, "--pid=$sleeper_pid,$sleeper_pid" ]);
like($out, qr/^statement: the status of 2 known pids \(pg_stat_get_activity\(pid\) each\)/m,
	'--pid, many backends: the text report says which statement');
my ($dup) = $out =~ /^Timeout\s+PgSleep\s+(\d+)\s+100\.00/m;
my ($n) = $out =~ /^sampling: (\d+) samples/m;
is($dup, $n, '--pid given twice: one row per sample, not two');
$idle->kill_kill;

# ---------------------------------------------------------------- bad values

for my $bad ([ 'abc', qr/invalid value "abc" for option --cost-budget/ ],
	[ '101', qr/--cost-budget must be in range 0\.\.100/ ],
	[ '-1', qr/--cost-budget must be in range 0\.\.100/ ])
{
	($rc, $out, $err) = run_tool([ $bin, @conn, "--cost-budget=$bad->[0]" ]);
	is($rc, 1, "--cost-budget=$bad->[0]: exit 1");
	like($err, $bad->[1], "--cost-budget=$bad->[0]: the message");
}

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'c\_%'});
done_testing();
