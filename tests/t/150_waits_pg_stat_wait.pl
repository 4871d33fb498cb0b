# pgtempo-waits with the pg_stat_wait_* views of patched servers: auto picks
# them, current waits come from pg_stat_wait_current, and the measured wait
# time and counts of pg_stat_wait_profile are reported as deltas over the run.
# Only patched servers have these views, so the test creates views of the same
# names and columns over tables it fills itself.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;
use Time::HiRes qw(usleep);

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_psw');
my @conn = ('-h', $node->host, '-p', $node->port);
my $dir = tempdir(CLEANUP => 1);

$node->safe_psql('postgres', 'CREATE DATABASE plain');

my $s = $node->background_psql('postgres', on_error_stop => 0);
$s->query_safe("SET application_name = 'w_sleep'");
my $pid = $s->query_safe('SELECT pg_backend_pid()');
$s->query_until(qr/started/, "\\echo started\nSELECT pg_sleep(600);\n");

$node->safe_psql('postgres', qq{
	CREATE TABLE psw_profile (pid int4, class_name text, event_name text,
		wait_time int8, wait_count int8);
	CREATE TABLE psw_history (pid int4, sample_ts timestamptz, class_name text,
		event_name text, wait_time int8, p1 int4, p2 int4, p3 int4, p4 int4, p5 int4);
	CREATE VIEW pg_stat_wait_profile AS
		SELECT pid, class_name, event_name, wait_time, wait_count FROM psw_profile;
	CREATE VIEW pg_stat_wait_current AS SELECT * FROM psw_history WHERE sample_ts IS NULL;
	CREATE VIEW pg_stat_wait_history AS SELECT * FROM psw_history WHERE sample_ts IS NOT NULL;
	INSERT INTO psw_profile VALUES
		($pid, 'LWLocks', 'WALWriteLock', 1000000, 10),
		($pid, 'Locks', 'tuple', 5000, 1);
	INSERT INTO psw_history VALUES ($pid, NULL, 'Storage', 'READ', 12345, 1, 2, 3, 4, 5);
	-- recorded before the run: not the run's
	INSERT INTO psw_history VALUES ($pid, now() - interval '1 hour', 'IO', 'old', 1, 0, 0, 0, 0, 0);
});
# another session, which the runs below filter out
my $other = $node->background_psql('postgres', on_error_stop => 0);
my $other_pid = $other->query_safe('SELECT pg_backend_pid()');

# Run the sampler on database postgres while $during does what the run
# must see; the run ends (SIGINT, which prints the report) a history read
# after that: on a loaded machine the statements may take longer than any
# fixed run would last (-T 60 only bounds a run that hangs).  Returns the
# finished harness, standard output and standard error.
sub run_during
{
	my ($args, $during) = @_;
	my ($o, $e) = ('', '');
	my $run = IPC::Run::start([ $bin, @conn, '-d', 'postgres', '-T', '60', @$args ],
		'>', \$o, '2>', \$e, IPC::Run::timeout(90));
	# the run has begun (its first reads are done) once it says what it samples
	$run->pump until $e =~ /^pgtempo-waits: sampling /m || !$run->pumpable;
	usleep(300_000);
	$during->();
	# the history is read once a second: what was recorded last is read before the end
	usleep(1_200_000);
	$run->signal('INT') if $run->pumpable;
	$run->finish;
	return ($run, $o, $e);
}

# ---------------------------------------------------------------- auto picks the views

# waits the history records during the run: 1 .. 100 ms of WALWriteLock in
# two batches a second apart (each read once), and some of the other
# session; and what happens to the profile during the run is what the
# report must show
my ($h, $out, $err) = run_during([ '--json', '--application-name=w_sleep', "--log=$dir/psw.jsonl" ], sub {
	$node->safe_psql('postgres', qq{
		INSERT INTO psw_history SELECT $pid, clock_timestamp(), 'LWLocks', 'WALWriteLock',
			i * 1000, 0, 0, 0, 0, 0 FROM generate_series(1, 60) i;
		INSERT INTO psw_history SELECT $other_pid, clock_timestamp(), 'Locks', 'tuple',
			5000, 0, 0, 0, 0, 0 FROM generate_series(1, 10) i;
	});
	usleep(1_200_000);
	$node->safe_psql('postgres', qq{
		INSERT INTO psw_history SELECT $pid, clock_timestamp(), 'LWLocks', 'WALWriteLock',
			i * 1000, 0, 0, 0, 0, 0 FROM generate_series(61, 100) i;
		INSERT INTO psw_history VALUES ($pid, clock_timestamp(), 'Storage', 'WRITE', 250, 0, 0, 0, 0, 0);
	});
	$node->safe_psql('postgres', q{
		UPDATE psw_profile SET wait_time = wait_time + 2500000, wait_count = wait_count + 7
		WHERE event_name = 'WALWriteLock'});
});
is($h->result(0), 0, 'pg_stat_wait: exit 0') or diag($err);
like($err, qr/^pgtempo-waits: sampling pg_stat_wait views of PostgreSQL /m,
	'auto: says it picked the pg_stat_wait views');
my $r = decode_json($out);
is($r->{source}, 'pg_stat_wait views', 'auto: the pg_stat_wait views');
is($r->{measured_seconds}, 2.5, 'measured wait time: the increase during the run');
is($r->{measured_count}, 7, 'measured waits: the increase during the run');
my ($wal) = grep { ($_->{wait_event} // '') eq 'WALWriteLock' } @{ $r->{profile} };
ok($wal, 'the measured event has a group');
is($wal->{measured_seconds}, 2.5, 'its measured seconds');
is($wal->{measured_count}, 7, 'its measured count');
is($wal->{samples}, 0, 'measured, not sampled');
my ($tuple) = grep { ($_->{wait_event} // '') eq 'tuple' } @{ $r->{profile} };
ok(!$tuple, 'an event that did not change during the run is not reported');
my ($read) = grep { ($_->{wait_event} // '') eq 'READ' } @{ $r->{profile} };
is($read->{wait_event_type}, 'Storage', 'current waits come from pg_stat_wait_current');
is($read->{samples}, $r->{ticks}, 'the current wait in every sample');

# the history: every wait recorded during the run, once, of the sessions asked for
my %dur = map { ($_->{wait_event} => $_) } @{ $r->{wait_durations} };
is_deeply([ sort keys %dur ], [ 'WALWriteLock', 'WRITE' ],
	'history: the run\'s waits of the filtered session, not older ones, not the current one')
  or diag(explain($r->{wait_durations}));
is($r->{wait_durations}[0]{wait_event}, 'WALWriteLock', 'history: the longest in total first');
is($dur{WALWriteLock}{waits}, 100, 'history: each wait counted once across reads');
is($dur{WALWriteLock}{wait_event_type}, 'LWLocks', 'history: the class');
ok(abs($dur{WALWriteLock}{total_seconds} - 5.05) < 1e-9, 'history: total time exact')
  or diag($dur{WALWriteLock}{total_seconds});
ok(abs($dur{WALWriteLock}{p50_ms} - 50) <= 0.5, 'history: median within 1 %')
  or diag($dur{WALWriteLock}{p50_ms});
ok(abs($dur{WALWriteLock}{p99_ms} - 99) <= 0.99, 'history: p99 within 1 %')
  or diag($dur{WALWriteLock}{p99_ms});
is($dur{WALWriteLock}{max_ms}, 100, 'history: max exact');
is($dur{WRITE}{waits}, 1, 'history: a single wait');
is($dur{WRITE}{max_ms}, 0.25, 'history: its duration');

my @recs = map { decode_json($_) } do { open my $fh, '<', "$dir/psw.jsonl" or die; <$fh> };
my @samples = grep { $_->{type} eq 'sample' } @recs;
is(scalar @samples, $r->{ticks}, 'log: one row per sample');
is(scalar(grep { $_->{wait_time_us} == 12345 && $_->{wait_event} eq 'READ' } @samples),
	scalar @samples, 'log: the measured time of the current wait');

# the text report has the measured columns
my ($rc, $text) = run_tool([ $bin, @conn, '-d', 'postgres', '-T', SHORT_RUN,
	'--application-name=w_sleep' ]);
like($text, qr/^measured: [\d.]+ s of waits in \d+ waits \(pg_stat_wait_profile\)$/m,
	'text report: the measured total');
like($text, qr/samples\s+% active\s+est\. seconds\s+measured s\s+waits$/m,
	'text report: measured columns');

# the text report's history table, from waits recorded while it runs
($h, $out, $err) = run_during([ "--pid=$other_pid" ], sub {
	$node->safe_psql('postgres', qq{
		INSERT INTO psw_history SELECT $other_pid, clock_timestamp(), 'Locks', 'tuple',
			i * 100, 0, 0, 0, 0, 0 FROM generate_series(1, 10) i;
		INSERT INTO psw_history VALUES ($pid, clock_timestamp(), 'IO', 'other_pid', 1, 0, 0, 0, 0, 0);
	});
});
is($h->result(0), 0, 'history text: exit 0') or diag($err);
like($out, qr/^measured waits \(pg_stat_wait_history\): 10\n/m, 'history text: the total');
like($out,
	qr/^wait_event_type\s+wait_event\s+waits\s+total s\s+p50 ms\s+p90 ms\s+p99 ms\s+max ms\n-+  -+  -+/m,
	'history text: the header');
like($out, qr/^Locks\s+tuple\s+10\s+0\.005\s+0\.5\d\d\s+0\.9\d\d\s+1\.00\d\s+1\.000$/m,
	'history text: the row') or diag($out);
unlike($out, qr/other_pid/, 'history text: --pid leaves the other session out');

# ---------------------------------------------------------------- a history that cannot be read

# wait_time fails for rows recorded from now on; the baseline does not read it
$node->safe_psql('postgres', q{
	CREATE OR REPLACE VIEW pg_stat_wait_history AS
		SELECT pid, sample_ts, class_name, event_name, (wait_time / 0)::int8 AS wait_time,
			p1, p2, p3, p4, p5
		FROM psw_history WHERE sample_ts IS NOT NULL});
($h, $out, $err) = run_during([ '--json', '--application-name=w_sleep' ], sub {
	$node->safe_psql('postgres', qq{
		INSERT INTO psw_history VALUES ($pid, clock_timestamp(), 'IO', 'broken', 1, 0, 0, 0, 0, 0)});
});
is($h->result(0), 0, 'unreadable history: the run goes on') or diag($err);
my @warned = $err =~ /^pgtempo-waits: warning: could not read pg_stat_wait_history: .*division by zero/mg;
is(scalar @warned, 1, 'unreadable history: one warning with the server\'s message') or diag($err);
$r = decode_json($out);
is_deeply($r->{wait_durations}, [], 'unreadable history: no durations');
is($r->{health}{failed_samples}, 0, 'unreadable history: samples did not fail');

# one that fails from the start: the run goes on without it
$node->safe_psql('postgres', q{
	CREATE OR REPLACE VIEW pg_stat_wait_history AS
		SELECT pid, sample_ts, class_name, event_name, wait_time, p1, p2, p3, p4, p5
		FROM psw_history WHERE sample_ts IS NOT NULL AND 1 / (pid - pid) = 1});
($rc, $out, $err) = run_tool([ $bin, @conn, '-d', 'postgres', '-T', SHORT_RUN, '--json',
	'--application-name=w_sleep' ]);
is($rc, 0, 'history unreadable from the start: the run goes on') or diag($err);
@warned = $err =~ /^pgtempo-waits: warning: could not read pg_stat_wait_history: .*division by zero/mg;
is(scalar @warned, 1, 'history unreadable from the start: one warning') or diag($err);
is(decode_json($out)->{measured_count}, 0, 'history unreadable from the start: the profile is read');

# ---------------------------------------------------------------- asked for where there is none

($rc, $out, $err) = run_tool([ $bin, @conn, '-d', 'plain', '--source=pg_stat_wait', '-T', SHORT_RUN ]);
is($rc, 1, 'no views: exit 1');
is($err, "pgtempo-waits: error: source pg_stat_wait: the views pg_stat_wait_current and "
	  . "pg_stat_wait_profile do not exist in this database\n", 'no views: says so');
($rc, $out, $err) = run_tool([ $bin, @conn, '-d', 'plain', '-T', SHORT_RUN, '--json' ]);
is(decode_json($out)->{source}, 'pg_stat_activity', 'no views: auto takes pg_stat_activity');

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'w\_%'});
$other->quit;
done_testing();
