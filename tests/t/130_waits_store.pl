# pgtempo-waits --store: samples and interval aggregates written with COPY
# into tables of another database (created if missing), round trip against
# the log of the same run; rows the store cannot take (bytes that are not
# UTF-8 from an SQL_ASCII database, a CHECK constraint) skipped or made
# valid without losing the rest; a store that hangs at the end (the final
# flush has a deadline); and the errors that stop a run at the start.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;
use Time::HiRes qw(time usleep);

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_store', conf => "compute_query_id = on\n");
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres', '--source=activity');
my $dir = tempdir(CLEANUP => 1);
my $store = sprintf('host=%s port=%d dbname=fleet', $node->host, $node->port);

$node->safe_psql('postgres', 'CREATE TABLE t (i int)');
# the store is UTF-8; the sampled server has an SQL_ASCII database, whose text is any bytes
$node->safe_psql('postgres', q{CREATE DATABASE fleet ENCODING 'UTF8' TEMPLATE template0 LOCALE 'C'});
$node->safe_psql('postgres',
	q{CREATE DATABASE ascii ENCODING 'SQL_ASCII' TEMPLATE template0 LOCALE 'C'});

my ($holder, $holder_pid, $waiter, $waiter_pid, $sleeper, $sleeper_pid) = start_lock_and_sleep($node);

sub fleet
{
	return $node->safe_psql('fleet', shift);
}

# ---------------------------------------------------------------- raw samples

my ($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '2.5', '--json', "--store=$store",
	"--log=$dir/raw.jsonl", '--query-text=30' ]);
is($rc, 0, 'store: exit 0') or diag($err);
my $r = decode_json($out);
is(fleet(q{SELECT count(*) FROM information_schema.columns WHERE table_name = 'pgtempo_waits_samples'}),
	18, 'store: the samples table was created with its 18 columns');

my @log = grep { $_->{type} eq 'sample' } map { decode_json($_) }
  do { open my $fh, '<', "$dir/raw.jsonl" or die; <$fh> };
is(fleet('SELECT count(*) FROM pgtempo_waits_samples'), scalar @log,
	'store: as many rows as the log has samples');
is(fleet('SELECT sum(samples) FROM pgtempo_waits_samples'), $r->{active_samples},
	'store: the samples add up to the report');
is(fleet(q{SELECT count(*) FROM pgtempo_waits_samples WHERE application_name = 'w_sleep'}),
	$r->{ticks}, 'store: the sleeper in every sample');
is(fleet(qq{SELECT count(*) FROM pgtempo_waits_samples
	WHERE application_name = 'w_lock' AND pid = $waiter_pid AND wait_event_type = 'Lock'
	  AND wait_event = 'relation' AND blockers = '{$holder_pid}'}),
	$r->{ticks}, 'store: the waiter, blocked by the holder, in every sample');
is(fleet('SELECT DISTINCT server FROM pgtempo_waits_samples'),
	$node->host . ':' . $node->port, 'store: the server column is host:port');
is(fleet(q{SELECT count(DISTINCT ts) FROM pgtempo_waits_samples}), $r->{ticks},
	'store: one timestamp per sample');
# the same rows as the log, field by field
my %from_log;
$from_log{"$_->{ts}|$_->{pid}"} = $_ for @log;
my $rows = fleet(q{SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), pid,
	to_char(backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
	wait_event_type, wait_event, coalesce(query_id::text, ''), coalesce(query, '')
	FROM pgtempo_waits_samples});
my ($same, $all) = (0, 0);
for my $line (split /\n/, $rows)
{
	my ($ts, $pid, $bs, $type, $event, $qid, $query) = split /\|/, $line, -1;
	my $l = $from_log{"$ts|$pid"};
	$all++;
	$same++ if $l && $l->{backend_start} eq $bs && $l->{wait_event_type} eq $type
	  && $l->{wait_event} eq $event && ($l->{query_id} // '') eq $qid
	  && ($l->{query} // '') eq $query;
}
is($same, $all, 'store: every row equals its log record');
is(fleet(q{SELECT DISTINCT query FROM pgtempo_waits_samples WHERE application_name = 'w_sleep'}),
	'SELECT pg_sleep(600);', 'store: query text');

# a second host appends to the same table
($rc, $out, $err) = run_tool([ $bin, @conn, '-T', SHORT_RUN, '--json', "--store=$store",
	'--store-label=host-b', '--application-name=w_sleep' ]);
is($rc, 0, 'store, second label: exit 0');
$r = decode_json($out);
is(fleet(q{SELECT count(*) FROM pgtempo_waits_samples WHERE server = 'host-b'}), $r->{ticks},
	'store: rows under the second label');

# ---------------------------------------------------------------- interval aggregates

# a fixed rate (no cost budget, which a loaded machine can make lower): est_seconds is samples x 10 ms
($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '2.5', '--json', "--store=$store",
	'--store-interval=1', '--store-label=agg', '--by=app,event', '--cost-budget=0' ]);
is($rc, 0, 'store intervals: exit 0') or diag($err);
$r = decode_json($out);
my ($g) = grep { $_->{application_name} eq 'w_lock' } @{ $r->{profile} };
is(fleet(q{SELECT sum(samples) FROM pgtempo_waits_profile
	WHERE server = 'agg' AND application_name = 'w_lock' AND wait_event = 'relation'}),
	$g->{samples}, 'store intervals: they add up to the run');
cmp_ok(fleet(q{SELECT count(DISTINCT interval_start) FROM pgtempo_waits_profile WHERE server = 'agg'}),
	'>=', 3, 'store intervals: one per second');
is(fleet(q{SELECT sum(ticks) FROM (SELECT DISTINCT interval_start, ticks FROM pgtempo_waits_profile
	WHERE server = 'agg') i}), $r->{ticks}, 'store intervals: the ticks add up');
is(fleet(q{SELECT count(*) FROM pgtempo_waits_profile WHERE server = 'agg'
	AND abs(est_seconds - samples * 0.01) > 1e-9}), 0, 'store intervals: est_seconds');
# the head blockers, a row per interval and head: the holder alone, its samples the run's
is(fleet(q{SELECT string_agg(DISTINCT pid::text, ',') FROM pgtempo_waits_heads WHERE server = 'agg'}),
	$holder_pid, 'store intervals: the holder is the one head blocker');
my ($head) = @{ $r->{blockers}{heads} };
cmp_ok(abs(fleet(q{SELECT sum(samples) FROM pgtempo_waits_heads WHERE server = 'agg'}) - $head->{samples}),
	'<', 0.01, 'store intervals: the head\'s samples add up to the run\'s');
is(fleet(q{SELECT count(*) FROM pgtempo_waits_heads WHERE server = 'agg' AND (backend_start IS NULL
	OR application_name IS DISTINCT FROM 'w_holder' OR state IS DISTINCT FROM 'active')}), 0,
	'store intervals: the head\'s identity and what it was doing');

# ---------------------------------------------------------------- rows the store cannot take

# a query text with the byte 0xff (from the SQL_ASCII database) is stored as the text \xff
my $bad = $node->background_psql('ascii', on_error_stop => 0);
$bad->query_safe("SET application_name = 'w_badbytes'");
$bad->query_until(qr/started/, "\\echo started\nSELECT pg_sleep(600) AS \"caf\xff\";\n");
$node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE application_name = 'w_badbytes' AND wait_event = 'PgSleep'})
  or die 'the session with bad bytes did not start';
# and a CHECK constraint rejects the rows of one session
fleet(q{ALTER TABLE pgtempo_waits_samples ADD CONSTRAINT no_reject
	CHECK (application_name IS DISTINCT FROM 'w_reject')});
my ($rej, $rej_pid) = start_session($node, 'w_reject', 'SELECT pg_sleep(600)');
$node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE application_name = 'w_reject' AND wait_event = 'PgSleep'})
  or die 'the session to reject did not start';
($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '3.5', '--json', "--store=$store",
	'--store-label=bad', '--query-text=60', "--log=$dir/bad.jsonl" ]);
$r = decode_json($out);
is($rc, 1, 'bad rows: exit 1 (rows were rejected)') or diag($err);
my $ticks = $r->{ticks};
like($err, qr/^pgtempo-waits: warning: the store database rejected a row, skipped: .*no_reject/m,
	'bad rows: the first rejection is explained');
# Each row logged is stored, rejected or (a store slower than the run's
# end allows: a loaded machine) counted as not sent; a sample has one row
# of each session, w_reject's rejected.
@log = grep { $_->{type} eq 'sample' } map { decode_json($_) }
  do { open my $fh, '<', "$dir/bad.jsonl" or die; <$fh> };
my $st = $r->{store} // {};
my $unsent = ($st->{rows_unsent} // 0) + ($st->{rows_dropped} // 0);
like($err, qr/^pgtempo-waits: error: $st->{rows_rejected} rows were rejected by the store database, skipped$/m,
	'bad rows: every rejected row is counted');
cmp_ok($st->{rows_rejected} // 0, '>', 0, 'bad rows: rows were rejected');
cmp_ok($st->{rows_rejected} // 0, '<=', $ticks, 'bad rows: at most one a sample (the session rejected)');
is(($st->{rows_rejected} // 0) + ($st->{rows_stored} // 0) + $unsent, scalar(@log),
	'bad rows: every row logged is stored, rejected or counted as not sent');
is(fleet(q{SELECT count(*) FROM pgtempo_waits_samples WHERE server = 'bad'}), $st->{rows_stored},
	'bad rows: the report counts the rows stored');
is(fleet(q{SELECT count(*) FROM pgtempo_waits_samples WHERE server = 'bad'
	AND application_name = 'w_reject'}), 0, 'bad rows: none of the rejected session\'s');
my ($srec) = grep { $_->{type} eq 'store' } map { decode_json($_) }
  do { open my $fh, '<', "$dir/bad.jsonl" or die; <$fh> };
is_deeply($srec, { type => 'store', %{ $r->{store} } }, 'bad rows: the log has the same counts');
my $badbytes = fleet(q{SELECT count(*) FROM pgtempo_waits_samples WHERE server = 'bad'
	AND application_name = 'w_badbytes'});
cmp_ok($badbytes, '>', 0, 'bad rows: the rows with bad bytes are stored');
is(fleet(q{SELECT DISTINCT query FROM pgtempo_waits_samples WHERE server = 'bad'
	AND application_name = 'w_badbytes'}), 'SELECT pg_sleep(600) AS "caf\xff";',
	'bad rows: the byte is stored as the text \xff');
# the batches with a rejected row store their other rows: w_sleep's as many as w_badbytes'
is(fleet(q{SELECT count(*) FROM pgtempo_waits_samples WHERE server = 'bad'
	AND application_name = 'w_sleep'}), $badbytes, 'bad rows: later batches are not poisoned');
$node->safe_psql('postgres', q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity
	WHERE application_name IN ('w_badbytes', 'w_reject')});
fleet('ALTER TABLE pgtempo_waits_samples DROP CONSTRAINT no_reject');

# ---------------------------------------------------------------- a store that hangs at the end

my $snode = new_cluster('waits_store2');
my $store2 = sprintf('host=%s port=%d dbname=postgres', $snode->host, $snode->port);
my ($hout, $herr) = ('', '');
my $h = IPC::Run::start([ $bin, @conn, '-T', '3', '--json', "--store=$store2",
	'--application-name=w_sleep' ], '>', \$hout, '2>', \$herr, IPC::Run::timeout(120));
my $t0 = time;
usleep(2_200_000);
# the postmaster and every backend of the store server stop answering
my @spids = ($snode->{_pid}, split /\n/, `pgrep -P $snode->{_pid}`);
kill 'STOP', @spids;
$h->finish;
my $took = time - $t0;
kill 'CONT', @spids;
is($h->result(0), 1, 'hung store: exit 1');
# -T 3, then 3 s for the rows and 0.5 s for a cancel: 6.5 s; a store that
# held the exit would take its 10 s answer timeout at least (13 s): 11 s
# tells the two apart with room for a loaded machine's process start
cmp_ok($took, '<', 11, "hung store: the final flush has a deadline ($took s)");
like($herr, qr/^pgtempo-waits: error: \d+ rows? could not be written to the store database$/m,
	'hung store: the rows not sent are reported');
my $hr = eval { decode_json($hout) };
ok($hr, 'hung store: the report is printed');
cmp_ok($hr->{store}{rows_unsent}, '>', 0, 'hung store: the report counts the rows not sent');
$snode->stop;


# ---------------------------------------------------------------- errors at the start

($rc, $out, $err) = run_tool([ $bin, @conn, '-T', SHORT_RUN,
	'--store=' . sprintf('host=%s port=%d dbname=nosuchdb', $node->host, $node->port) ]);
is($rc, 1, 'store database missing: exit 1');
like($err, qr/^pgtempo-waits: error: could not connect to the store database: .*database "nosuchdb" does not exist/m,
	'store database missing: says so');
is($out, '', 'store database missing: no report');

fleet('CREATE DATABASE fleet2');
$node->safe_psql('fleet2', 'CREATE TABLE pgtempo_waits_samples (server text, ts timestamptz)');
($rc, $out, $err) = run_tool([ $bin, @conn, '-T', SHORT_RUN,
	'--store=' . sprintf('host=%s port=%d dbname=fleet2', $node->host, $node->port) ]);
is($rc, 1, 'store table of another shape: exit 1');
like($err, qr/^pgtempo-waits: error: could not prepare table pgtempo_waits_samples in the store database: .*column "pid" does not exist/m,
	'store table of another shape: says which column');

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'w\_%'});
done_testing();
