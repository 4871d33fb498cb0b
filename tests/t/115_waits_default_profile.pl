# pgtempo-waits: who is counted by default — the sessions' processes, not
# the server's own (checkpointer, writers, launchers) unless asked for; Activity
# waits are idle; a session idle in a transaction is Client/ClientRead with its
# state; filters that name nothing; --by=query without query ids; the share
# of lock waits whose blocker was gone; range messages with their units.

use strict;
use warnings;

use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');
# compute_query_id stays at its default (auto): no module turns it on
my $node = new_cluster('waits_default', conf => "checkpoint_timeout = 30s\n");
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres');

$node->safe_psql('postgres', 'CREATE TABLE t (i int); CREATE TABLE lk (i int); CREATE TABLE big (i int, pad text)');

sub sample_json
{
	my (@args) = @_;
	my ($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '--json', @args ]);
	is($rc, 0, "@args: exit 0") or diag($err);
	my $r = eval { decode_json($out) };
	ok(defined $r, "@args: the report is JSON") or diag($@);
	return ($r || {}, $out, $err);
}

sub groups
{
	my ($r, %want) = @_;
	return grep {
		my $g = $_;
		!grep { !defined $g->{$_} || $g->{$_} ne $want{$_} } keys %want
	} @{ $r->{profile} };
}

sub sum_samples
{
	my $n = 0;
	$n += $_->{samples} for @_;
	return $n;
}

# ---------------------------------------------------------------- options

my ($rc, $out, $err) = run_tool([ $bin, '--backend-type=client backend,chekpointer' ]);
is($rc, 1, 'an unknown backend type: exit 1');
like($err, qr/^pgtempo-waits: error: invalid value "client backend,chekpointer" for option --backend-type: "chekpointer" is not a backend type; valid are all, "client backend", .*"checkpointer", .*"background worker" \(extension workers\)$/m,
	'an unknown backend type: the valid ones are listed');
($rc, $out, $err) = run_tool([ $bin, '-i', '5us' ]);
is($rc, 1, '-i below the range: exit 1');
like($err, qr/^pgtempo-waits: error: -i\/--interval must be between 10 us and 1 min$/m,
	'-i: the range with its units');
($rc, $out, $err) = run_tool([ $bin, '--query-text=0' ]);
like($err, qr/--query-text must be between 1 and 1000000 characters$/m, '--query-text: the range with its unit');
($rc, $out, $err) = run_tool([ $bin, '--blockers=101' ]);
like($err, qr/--blockers must be between 0 and 100 pids$/m, '--blockers: the range with its unit');
($rc, $out, $err) = run_tool([ $bin, '--log-interval=0.5' ]);
like($err, qr/--log-interval must be between 1 s and 24 h$/m, '--log-interval: the range with its units');

# ---------------------------------------------------------------- --db that does not exist

($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '-T', '5', '--db=nosuchdb' ]);
is($rc, 1, '--db of no database: exit 1');
like($err, qr/^pgtempo-waits: error: database "nosuchdb" of option --db does not exist$/m,
	'--db of no database: the error');
unlike($err, qr/sampling/, '--db of no database: before sampling');
is($out, '', '--db of no database: no report');

# ---------------------------------------------------------------- the sessions

# idle in a transaction: holds its locks; counted as waiting for the client
my ($iit, $iit_pid) = start_session($node, 'w_iit');
$iit->query_safe('BEGIN; SELECT count(*) FROM t');
my ($idle, $idle_pid) = start_session($node, 'w_idle');
my ($sleeper, $sleeper_pid) = start_session($node, 'w_sleep', 'SELECT pg_sleep(600)');
# checkpoints one after another, each with dirty buffers to write
my ($cp, $cp_pid) = start_session($node, 'w_ckpt',
	q{DO $$ BEGIN FOR i IN 1..100000 LOOP
	    INSERT INTO big SELECT g, repeat('x', 100) FROM generate_series(1, 2000) g;
	    CHECKPOINT; COMMIT; END LOOP; END $$});
$node->poll_query_until('postgres', q{
	SELECT count(*) = 2 FROM pg_stat_activity
	WHERE (application_name = 'w_iit' AND state = 'idle in transaction')
	   OR (application_name = 'w_sleep' AND wait_event = 'PgSleep')})
  or die 'the sessions did not start';


my ($r) = sample_json("-T", "3", "-i", "10ms", "--by=backend_type,app,event");
my $ticks = $r->{ticks};
is_deeply([ sort keys %{ { map { $_->{backend_type} => 1 } @{ $r->{profile} } } } ],
	['client backend'], 'default: only client backends while checkpoints run');
is_deeply($r->{backend_types}, [ 'client backend', 'parallel worker', 'autovacuum worker', 'walsender' ],
	'default: the types counted are in the report');
is($r->{backend_types_default}, JSON::PP::true, 'default: said to be the default');
my ($ig) = groups($r, application_name => 'w_iit');
ok($ig, 'idle in transaction: counted by default');
is("$ig->{wait_event_type}/$ig->{wait_event}", 'Client/ClientRead', 'idle in transaction: Client/ClientRead');
cmp_ok($ig->{samples}, '>=', 0.9 * $ticks, 'idle in transaction: every sample');
ok(!groups($r, application_name => 'w_iit', wait_event_type => 'CPU'), 'idle in transaction: never CPU');
ok(!groups($r, application_name => 'w_idle'), 'idle: not counted');
ok(groups($r, application_name => 'w_ckpt'), 'the session asking for checkpoints is counted');

# its state in the history
($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '-T', SHORT_RUN, '--application-name=w_iit',
	'--log=' . $node->basedir . '/iit.csv' ]);
is($rc, 0, 'log of the idle-in-transaction session: exit 0');
open my $fh, '<', $node->basedir . '/iit.csv' or die $!;
my @rows = grep { /,w_iit,/ } <$fh>;
close $fh;
ok(@rows > 0, 'log: rows of the idle-in-transaction session');
is(scalar(grep { /,idle in transaction,Client,ClientRead,/ } @rows), scalar @rows,
	'log: every row has its state and Client/ClientRead');

# the text header says what was counted
($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '-T', SHORT_RUN ]);
like($out, qr/^counted: client backend, parallel worker, autovacuum worker, walsender \(the sessions; --backend-type=all counts every process\); idle backends and Activity waits excluded, idle in transaction as Client\/ClientRead$/m,
	'text: the header says what was counted') or diag("exit $rc: $err");

# everything, idle included: the server's own processes appear
($r) = sample_json('-T', '2', '--backend-type=all', '--include-idle', '--by=backend_type,event');
is_deeply($r->{backend_types}, [], '--backend-type=all: in the report, no types (as the log says all)');
for my $bt ('checkpointer', 'background writer', 'walwriter', 'logical replication launcher')
{
	ok(groups($r, backend_type => $bt), "--backend-type=all --include-idle: $bt");
}
ok(groups($r, wait_event_type => 'Activity'), '--include-idle: Activity waits');
ok(!grep({ !defined $_->{wait_event_type} || $_->{wait_event_type} eq ''
	  || !defined $_->{wait_event} || $_->{wait_event} eq '' } @{ $r->{profile} }),
	'--include-idle: every group has a label');

# Activity waits are idle without --include-idle
($r) = sample_json('-T', '2', '--backend-type=all', '--by=backend_type,event');
ok(!groups($r, wait_event_type => 'Activity'), '--backend-type=all: no Activity waits without --include-idle');
($r) = sample_json('-T', SHORT_RUN, '--backend-type=walwriter,checkpointer', '--include-idle', '--by=backend_type');
is_deeply([ sort map { $_->{backend_type} } @{ $r->{profile} } ], [ 'checkpointer', 'walwriter' ],
	'--backend-type with a list');
is($r->{backend_types_default}, JSON::PP::false, '--backend-type: not the default');

# ---------------------------------------------------------------- filters that matched nothing

($r, $out, $err) = sample_json('-T', SHORT_RUN, '--user=nosuchuser', '--application-name=w_sleep',
	'--application-name=nosuchapp');
my @w = ($err =~ /^pgtempo-waits: warning: (.*)$/mg);
is_deeply(\@w, [ '--user "nosuchuser" matched no active backend during the run',
		'--application-name "w_sleep" matched no active backend during the run',
		'--application-name "nosuchapp" matched no active backend during the run' ],
	'--user and --application-name that matched nothing: one warning each');
($r, $out, $err) = sample_json('-T', SHORT_RUN, '--application-name=w_sleep');
unlike($err, qr/warning/, 'a filter that matched: no warning');

# ---------------------------------------------------------------- --by=query without query ids

($r, $out, $err) = sample_json('-T', SHORT_RUN, '--by=query');
@w = ($err =~ /^pgtempo-waits: warning: (.*)$/mg);
is(scalar @w, 1, '--by=query without query ids: one warning');
like($w[0], qr/query_id column is empty: .*compute_query_id/, '--by=query: names compute_query_id');

# ---------------------------------------------------------------- lock waits and their blockers

my ($holder, $holder_pid) = start_session($node, 'w_holder');
$holder->query_safe('BEGIN; LOCK TABLE lk IN ACCESS EXCLUSIVE MODE');
my ($waiter, $waiter_pid) = start_session($node, 'w_lock', "BEGIN;\nLOCK TABLE lk");
$node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'w_lock' AND wait_event = 'relation'})
  or die 'the lock wait did not start';
($r) = sample_json('-T', SHORT_RUN, '--application-name=w_lock');
my ($lock) = groups($r, wait_event => 'relation');
is($lock->{lock_samples}, $lock->{samples}, 'lock: lock_samples');
is($lock->{no_blocker_samples}, 0, 'lock: a blocker seen in every sample');
is($lock->{blockers}[0]{pid}, $holder_pid, 'lock: the blocker');
($r) = sample_json('-T', SHORT_RUN, '--application-name=w_lock', '--blockers=0');
($lock) = groups($r, wait_event => 'relation');
is_deeply($lock->{blockers}, [], '--blockers=0: none listed');
($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '-T', SHORT_RUN, '--application-name=w_lock' ]);
my $relation_desc = event_description_re($node, 'Lock', 'relation');
like($out, qr/^Lock\s+relation\s+\d+.*$relation_desc\n\s+blocked by pid $holder_pid: \d+ samples? \(100\.0 %\)\n\s+no blocker seen: 0 samples \(0\.0 % of the lock waits; it had gone when the blockers were read\)$/m,
	'text: the share without a blocker under the lock wait');

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'w\_%'});
done_testing();
