# pgtempo-waits: the profile of induced waits whose answer is known — a
# session blocked on a table lock (Lock/relation, blocked by the holder), one
# in pg_sleep (Timeout/PgSleep), one busy in a SQL loop (CPU), an idle one
# (excluded) — with every grouping, the filters, query texts, and the warning
# for sessions hidden by missing privileges.

use strict;
use warnings;

use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_profile', conf => "compute_query_id = on\n");
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres');

$node->safe_psql('postgres', 'CREATE TABLE t (i int)');

# A psql session with this application_name; returns it and its backend pid.
# $sql (if given) is started and left running.
my ($holder, $holder_pid) = start_session($node, 'w_holder');
$holder->query_safe('BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
$holder->query_until(qr/started/, "\\echo started\nSELECT pg_sleep(600);\n");
my ($waiter, $waiter_pid) = start_session($node, 'w_lock', "BEGIN;\nLOCK TABLE t");
my ($sleeper, $sleeper_pid) = start_session($node, 'w_sleep', 'SELECT pg_sleep(600)');
my ($cpu, $cpu_pid) = start_session($node, 'w_cpu',
	q{DO $$ DECLARE t0 timestamptz := clock_timestamp(); x float8 := 0;
	  BEGIN WHILE clock_timestamp() < t0 + interval '600 s' LOOP x := x + sqrt(2); END LOOP; END $$});
my ($idle, $idle_pid) = start_session($node, 'w_idle');

# Sample only once every session is where it should be.
$node->poll_query_until('postgres', q{
	SELECT count(*) = 4 FROM pg_stat_activity
	WHERE (application_name = 'w_lock' AND wait_event_type = 'Lock' AND wait_event = 'relation')
	   OR (application_name IN ('w_sleep', 'w_holder') AND wait_event = 'PgSleep')
	   OR (application_name = 'w_cpu' AND state = 'active' AND wait_event IS NULL)})
  or die 'the induced waits did not start';

# Run the sampler with --json; returns the decoded report (and the raw streams).
sub sample_json
{
	my (@args) = @_;
	my ($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '--json', @args ]);
	is($rc, 0, "@args: exit 0") or diag($err);
	my $r = eval { decode_json($out) };
	ok(defined $r, "@args: the report is JSON") or diag($@);
	return ($r || {}, $out, $err);
}

# The groups of a report whose fields match the given values.
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

# ---------------------------------------------------------------- the induced waits, by app and event

my ($r) = sample_json('-T', '3', '-i', '10ms', '--by=app,event');
my $ticks = $r->{ticks};
my $h = $r->{health};
is($ticks, $h->{samples}, 'one tick per sample taken');
# 3 s at 10 ms: 300 deadlines; each is a sample or a missed tick
cmp_ok($h->{samples} + $h->{missed_ticks}, '>=', 298, 'the schedule kept its deadlines (low)');
cmp_ok($h->{samples} + $h->{missed_ticks}, '<=', 301, 'the schedule kept its deadlines (high)');
is($h->{failed_samples}, 0, 'no failed samples');
is($r->{source}, 'pg_stat_activity', 'source');
is($r->{interval_s}, 0.01, 'interval');

# every sample sees every non-idle session exactly once
for my $app (qw(w_lock w_sleep w_cpu w_holder))
{
	is(sum_samples(groups($r, application_name => $app)), $ticks, "$app: one row per sample");
}
ok(!groups($r, application_name => 'w_idle'), 'the idle session is not counted');
ok(!groups($r, application_name => 'pgtempo-waits'), "the sampler's own backend is not counted");

my ($lock) = groups($r, application_name => 'w_lock', wait_event_type => 'Lock',
	wait_event => 'relation');
ok($lock, 'the waiter is seen waiting for Lock/relation');
cmp_ok($lock->{samples}, '>=', 0.9 * $ticks, 'Lock/relation: >= 90 % of its samples');
is($lock->{blockers}[0]{pid}, $holder_pid, 'blocked by the holder');
cmp_ok($lock->{blockers}[0]{samples}, '>=', 0.9 * $lock->{samples},
	'the holder blocks it in >= 90 % of the lock samples');
is(scalar @{ $lock->{blockers} }, 1, 'no other blocker');
# a sample after missed ticks stands for them too (a busy test machine may miss some)
my $period = 0.01 * ($h->{samples} + $h->{missed_ticks}) / $h->{samples};
ok(abs($r->{period_s} - $period) < 1e-12, 'the period: interval x (samples + missed) / samples');
ok(abs($lock->{est_seconds} - $lock->{samples} * $period) < 1e-9,
	'estimated seconds = samples x period');
my $n = $r->{active_samples};
my $k = $lock->{samples};
ok(abs($lock->{error_seconds} - 1.96 * $period * sqrt($k * (1 - $k / $n))) < 1e-9,
	'error bound = 1.96 x period x sqrt(k (1 - k/N))');
ok(abs($lock->{pct} - 100 * $k / $n) < 1e-9, 'share of active samples');
ok($lock->{top_queries}[0]{query_id}, 'a query id under the lock wait');
is($lock->{top_queries}[0]{query}, undef, 'no query text unless asked for');

my ($sleep) = groups($r, application_name => 'w_sleep', wait_event_type => 'Timeout',
	wait_event => 'PgSleep');
cmp_ok($sleep->{samples}, '>=', 0.9 * $ticks, 'pg_sleep: Timeout/PgSleep >= 90 %');
is_deeply($sleep->{blockers}, [], 'pg_sleep: no blockers');
my ($busy) = groups($r, application_name => 'w_cpu', wait_event_type => 'CPU');
cmp_ok($busy->{samples}, '>=', 0.9 * $ticks, 'SQL loop: CPU >= 90 %');
is($busy->{wait_event}, 'CPU', 'CPU rows are CPU/CPU');

is($r->{active_samples}, sum_samples(@{ $r->{profile} }), 'active samples = sum of groups');
cmp_ok(abs($r->{avg_active_sessions} - $r->{active_samples} * $period / ($ticks * 0.01)), '<', 1e-9,
	'average active sessions');
cmp_ok($r->{avg_active_sessions}, '>=', 4, 'at least the four busy sessions are active');

# ---------------------------------------------------------------- the text report

my ($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '-T', SHORT_RUN ]);
is($rc, 0, 'text report: exit 0');
like($err, qr/^pgtempo-waits: sampling pg_stat_activity of PostgreSQL \d+.* every 10 ms\n/,
	'text report: says what it samples');
like($out, qr/^source: pg_stat_activity on PostgreSQL /m, 'text report: source line');
like($out, qr/^sampling: \d+ samples in \d\.\d\d s \([\d.]+\/s\), \d+ missed ticks, 0 failed; sample query latency p50 [\d.]+ ms, p99 [\d.]+ ms/m,
	'text report: health line');
like($out, qr/^wait_event_type\s+wait_event\s+samples\s+% active\s+est\. seconds$/m,
	'text report: table header');
# 17 and later describe each event on the line under its row.
my $relation_desc = event_description_re($node, 'Lock', 'relation');
like($out, qr/^Lock\s+relation\s+\d+\s+[\d.]+\s+[\d.]+ ± [\d.]+$relation_desc\n\s+blocked by pid $holder_pid: \d+ samples? \(100\.0 %\)\n\s+no blocker seen: \d+ samples? [^\n]*\n\s+query_id -?\d+: \d+ samples?/m,
	'text report: lock row, blocker and query id');
like($out, qr/^CPU\s+CPU\s+\d+/m, 'text report: CPU row');
like($out, qr/^Timeout\s+PgSleep\s+\d+/m, 'text report: PgSleep row');

# Text from the server with an escape sequence and a line break (a query's
# text keeps them; PostgreSQL cleans application_name itself): the text
# report shows them escaped, never raw.
my ($esc) = start_session($node, 'w_esc', "SELECT pg_sleep(600), 'x\e[2J\ry'");
$node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'w_esc' AND wait_event = 'PgSleep'})
  or die 'the w_esc session did not start';
($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '-T', SHORT_RUN,
	'--application-name=w_esc', '--query-text=100' ]);
like($out, qr/^\s+query_id -?\d+: \d+ samples? \(100\.0 %\)  SELECT pg_sleep\(600\), 'x\\x1b\[2J\\ry';$/m,
	'text report: control characters in a query text escaped');
unlike($out, qr/[\e\r]/, 'text report: no raw escape or carriage return');

# ---------------------------------------------------------------- other groupings

($r) = sample_json('-T', SHORT_RUN, '--by=pid,event');
my ($wp) = groups($r, pid => $waiter_pid, wait_event => 'relation');
ok($wp, 'by pid,event: the waiter');
is($wp->{usename}, $node->safe_psql('postgres', 'SELECT current_user'), 'by pid: the user');
is($wp->{backend_type}, 'client backend', 'by pid: the backend type');
like($wp->{backend_start}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, 'by pid: backend_start');
is($wp->{blockers}[0]{pid}, $holder_pid, 'by pid: the blocker');

# client backends only: an autovacuum worker in another database may be
# active for a sample on a busy machine
($r) = sample_json('-T', SHORT_RUN, '--by=db', '--backend-type=client backend');
is(scalar(@{ $r->{profile} }), 1, 'by db: one database');
is($r->{profile}[0]{datname}, 'postgres', 'by db: postgres');
is($r->{profile}[0]{samples}, $r->{active_samples}, 'by db: all samples');

($r) = sample_json('-T', SHORT_RUN, '--by=user,backend_type');
is(scalar(groups($r, backend_type => 'client backend')), 1, 'by user,backend_type: one group of client backends');

($r) = sample_json('-T', SHORT_RUN, '--by=query');
my ($qs) = grep { defined $_->{query_id} } @{ $r->{profile} };
ok($qs && $qs->{query_id} =~ /^-?\d+$/, 'by query: query ids');
is_deeply($qs->{top_queries}, [], 'by query: no sub-list of queries');

# ---------------------------------------------------------------- query texts

($r) = sample_json('-T', SHORT_RUN, '--query-text=12', '--application-name=w_sleep');
my ($q) = groups($r, wait_event => 'PgSleep');
is($q->{top_queries}[0]{query}, 'SELECT pg_sl', '--query-text=12: the text, cut to 12 characters');

# ---------------------------------------------------------------- filters

($r) = sample_json('-T', SHORT_RUN, '--application-name=w_sleep');
is_deeply([ map { $_->{wait_event} } @{ $r->{profile} } ], ['PgSleep'], '--application-name');
($r) = sample_json('-T', SHORT_RUN, "--pid=$cpu_pid,$waiter_pid", '--by=pid');
is_deeply([ sort { $a <=> $b } map { $_->{pid} } @{ $r->{profile} } ],
	[ sort { $a <=> $b } ($cpu_pid, $waiter_pid) ], '--pid with two pids');
($r) = sample_json('-T', SHORT_RUN, '--db=postgres', '--db=template1', '--by=db');
is_deeply([ map { $_->{datname} } @{ $r->{profile} } ], ['postgres'], '--db');
($r) = sample_json('-T', SHORT_RUN, '--db=template1');
is_deeply($r->{profile}, [], '--db of another database: nothing');
my $uerr;
($r, undef, $uerr) = sample_json('-T', SHORT_RUN, '--user=nosuchuser');
is($r->{active_samples}, 0, '--user of another user: nothing');
like($uerr, qr/warning: --user "nosuchuser" matched no active backend during the run/,
	'--user of another user: a warning');
($r) = sample_json('-T', SHORT_RUN, '--backend-type=client backend', '--by=backend_type');
is_deeply([ map { $_->{backend_type} } @{ $r->{profile} } ], ['client backend'], '--backend-type');
# a value is a parameter, never SQL
($r) = sample_json('-T', SHORT_RUN, q{--application-name=w_sleep' OR 'x' = 'x});
is($r->{active_samples}, 0, 'a quote in a filter value is just a character');

# ---------------------------------------------------------------- idle sessions

($r) = sample_json('-T', SHORT_RUN, '--include-idle', '--backend-type=all', '--by=app,event');
my ($idle_group) = groups($r, application_name => 'w_idle');
ok($idle_group, '--include-idle: the idle session is counted');
is($idle_group->{wait_event}, 'ClientRead', '--include-idle: waiting in ClientRead');
is($r->{include_idle}, JSON::PP::true, '--include-idle: said in the report');
ok(groups($r, wait_event_type => 'Activity'), '--include-idle: background processes too');

# ---------------------------------------------------------------- missing privileges

$node->safe_psql('postgres', 'CREATE ROLE weak LOGIN');
($rc, $out, $err) = run_tool([ $bin, '-h', $node->host, '-p', $node->port, '-U', 'weak',
	'-d', 'postgres', '--source=activity', '-T', SHORT_RUN, '--json' ]);
is($rc, 0, 'unprivileged: exit 0');
my @warnings = ($err =~ /^pgtempo-waits: warning: .*$/mg);
is(scalar @warnings, 1, 'unprivileged: exactly one warning');
like($warnings[0], qr/hidden as <insufficient privilege>: user "weak" needs the pg_read_all_stats role/,
	'unprivileged: the warning names pg_read_all_stats');
like($err, qr/^pgtempo-waits: hint: GRANT pg_read_all_stats TO "weak";$/m, 'unprivileged: the hint');
$r = decode_json($out);
cmp_ok($r->{hidden_rows}, '>=', 5 * $r->{ticks}, 'unprivileged: the hidden rows are counted');
is($r->{active_samples}, 0, 'unprivileged: nothing is attributed to unknown events');

$node->safe_psql('postgres', 'GRANT pg_read_all_stats TO weak');
($rc, $out, $err) = run_tool([ $bin, '-h', $node->host, '-p', $node->port, '-U', 'weak',
	'-d', 'postgres', '--source=activity', '-T', SHORT_RUN, '--json' ]);
unlike($err, qr/warning/, 'pg_read_all_stats: no warning');
$r = decode_json($out);
is($r->{hidden_rows}, 0, 'pg_read_all_stats: nothing hidden');
ok(groups($r, wait_event => 'relation'), 'pg_read_all_stats: the lock wait is seen');

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'w\_%'});
done_testing();
