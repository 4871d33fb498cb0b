# pgtempo-waits --store: samples and interval aggregates written with COPY
# into tables of another database (created if missing), round trip against
# the log of the same run; and the errors that stop a run at the start.

use strict;
use warnings;

use File::Temp qw(tempdir);
use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_store', conf => "compute_query_id = on\n");
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres', '--source=activity');
my $dir = tempdir(CLEANUP => 1);
my $store = sprintf('host=%s port=%d dbname=fleet', $node->host, $node->port);

$node->safe_psql('postgres', 'CREATE TABLE t (i int); CREATE DATABASE fleet');

my ($holder, $holder_pid) = start_session($node, 'w_holder');
$holder->query_safe('BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
$holder->query_until(qr/started/, "\\echo started\nSELECT pg_sleep(600);\n");
my ($waiter, $waiter_pid) = start_session($node, 'w_lock', "BEGIN;\nLOCK TABLE t");
my ($sleeper, $sleeper_pid) = start_session($node, 'w_sleep', 'SELECT pg_sleep(600)');
$node->poll_query_until('postgres', q{
	SELECT count(*) = 2 FROM pg_stat_activity
	WHERE (application_name = 'w_lock' AND wait_event = 'relation')
	   OR (application_name = 'w_sleep' AND wait_event = 'PgSleep')})
  or die 'the induced waits did not start';

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
($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '0.5', '--json', "--store=$store",
	'--store-label=host-b', '--application-name=w_sleep' ]);
is($rc, 0, 'store, second label: exit 0');
$r = decode_json($out);
is(fleet(q{SELECT count(*) FROM pgtempo_waits_samples WHERE server = 'host-b'}), $r->{ticks},
	'store: rows under the second label');

# ---------------------------------------------------------------- interval aggregates

($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '2.5', '--json', "--store=$store",
	'--store-interval=1', '--store-label=agg', '--by=app,event' ]);
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

# ---------------------------------------------------------------- errors at the start

($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '0.5',
	'--store=' . sprintf('host=%s port=%d dbname=nosuchdb', $node->host, $node->port) ]);
is($rc, 1, 'store database missing: exit 1');
like($err, qr/^pgtempo-waits: error: could not connect to the store database: .*database "nosuchdb" does not exist/m,
	'store database missing: says so');
is($out, '', 'store database missing: no report');

fleet('CREATE DATABASE fleet2');
$node->safe_psql('fleet2', 'CREATE TABLE pgtempo_waits_samples (server text, ts timestamptz)');
($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '0.5',
	'--store=' . sprintf('host=%s port=%d dbname=fleet2', $node->host, $node->port) ]);
is($rc, 1, 'store table of another shape: exit 1');
like($err, qr/^pgtempo-waits: error: could not prepare table pgtempo_waits_samples in the store database: .*column "pid" does not exist/m,
	'store table of another shape: says which column');

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'w\_%'});
done_testing();
