# pgtempo-waits against pg_wait_sampling (loaded with shared_preload_libraries):
# on the same induced waits, the share of each wait event that pgtempo-waits
# measures from pg_stat_activity agrees with pg_wait_sampling's in-server
# profile within 5 percentage points; --source=pg_wait_sampling reads that
# profile; auto picks it, and falls back with a warning where it is installed
# but not loaded.  Skipped, saying why, where the extension is not installed.

use strict;
use warnings;

use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');

my ($libdir, $major) = ('', '');
IPC::Run::run([ 'pg_config', '--pkglibdir' ], '>', \$libdir);
IPC::Run::run([ 'pg_config', '--version' ], '>', \$major);
chomp $libdir;
$major = $1 if $major =~ /PostgreSQL (\d+)/;
plan skip_all => "pg_wait_sampling is not installed for PostgreSQL $major "
  . "($libdir/pg_wait_sampling.so is missing): install the Debian package "
  . "postgresql-$major-pg-wait-sampling to run this comparison"
  unless -f "$libdir/pg_wait_sampling.so";

my $node = new_cluster('waits_pws', conf => "shared_preload_libraries = 'pg_wait_sampling'\n");
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres');
$node->safe_psql('postgres', 'CREATE EXTENSION pg_wait_sampling; CREATE TABLE t (i int)');

my ($holder, $holder_pid) = start_session($node, 'w_holder');
$holder->query_safe('BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
my ($waiter, $lock_pid) = start_session($node, 'w_lock', "BEGIN;\nLOCK TABLE t");
my ($sleeper, $sleep_pid) = start_session($node, 'w_sleep', 'SELECT pg_sleep(600)');
# half in pg_sleep, half busy on CPU, in steps of 30 ms
my ($mixer, $mix_pid) = start_session($node, 'w_mix', q{DO $$
	DECLARE t0 timestamptz; x float8 := 0;
	BEGIN
		FOR i IN 1 .. 10000 LOOP
			PERFORM pg_sleep(0.03);
			t0 := clock_timestamp();
			WHILE clock_timestamp() < t0 + interval '30 ms' LOOP x := x + sqrt(2); END LOOP;
		END LOOP;
	END $$});
my @pids = ($lock_pid, $sleep_pid, $mix_pid);
$node->poll_query_until('postgres', qq{
	SELECT count(*) = 2 FROM pg_stat_activity
	WHERE (pid = $lock_pid AND wait_event = 'relation') OR (pid = $sleep_pid AND wait_event = 'PgSleep')})
  or die 'the induced waits did not start';

# Shares of the wait events (not CPU) in a hash of "type:event" => count.
sub shares
{
	my ($counts) = @_;
	my $total = 0;
	$total += $_ for values %$counts;
	return { map { $_ => 100 * $counts->{$_} / $total } keys %$counts };
}

# pg_wait_sampling's profile of our three sessions since its last reset.
sub pws_counts
{
	my $rows = $node->safe_psql('postgres', sprintf(q{
		SELECT event_type || ':' || event, sum(count) FROM pg_wait_sampling_profile
		WHERE pid IN (%s) AND event_type IS NOT NULL GROUP BY 1}, join(',', @pids)));
	return { map { split /\|/ } split /\n/, $rows };
}

# ---------------------------------------------------------------- the same waits, seen both ways

$node->safe_psql('postgres', 'SELECT pg_wait_sampling_reset_profile()');
my ($rc, $out, $err) = run_tool([ $bin, @conn, '--source=activity', '-T', '4', '-i', '10ms',
	'--json', '--by=event', '--pid=' . join(',', @pids) ]);
my $pws = pws_counts();
is($rc, 0, 'activity: exit 0');
my $r = decode_json($out);
my %ours = map { ("$_->{wait_event_type}:$_->{wait_event}" => $_->{samples}) }
  grep { $_->{wait_event_type} ne 'CPU' } @{ $r->{profile} };
my ($cpu) = grep { $_->{wait_event_type} eq 'CPU' } @{ $r->{profile} };
ok($cpu && $cpu->{samples} > 0.25 * $r->{ticks}, 'the mixed session is on CPU about half the time');

my $so = shares(\%ours);
my $sp = shares($pws);
note(sprintf('%-22s %8s %8s', 'event', 'ours %', 'pws %'));
my %events = map { $_ => 1 } (keys %$so, keys %$sp);
for my $e (sort keys %events)
{
	my ($a, $b) = ($so->{$e} // 0, $sp->{$e} // 0);
	note(sprintf('%-22s %8.2f %8.2f', $e, $a, $b));
	cmp_ok(abs($a - $b), '<=', 5, "$e: the shares agree within 5 points ($a vs $b)");
}
ok($so->{'Lock:relation'} && $so->{'Timeout:PgSleep'}, 'both induced wait events are seen');
# the expected split: 1.5 sessions in pg_sleep, 1 waiting for the lock
cmp_ok(abs($so->{'Timeout:PgSleep'} - 60), '<=', 8, 'pg_sleep share near 60 %');

# ---------------------------------------------------------------- reading pg_wait_sampling's profile

($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '3', '--json', '--by=event',
	'--pid=' . join(',', @pids) ]);
is($rc, 0, 'auto: exit 0');
like($err, qr/^pgtempo-waits: sampling pg_wait_sampling [\d.]+ \(profile period 10 ms\) of PostgreSQL .* every 1 s$/m,
	'auto: picks pg_wait_sampling and says so');
$r = decode_json($out);
like($r->{source}, qr/^pg_wait_sampling /, 'auto: the source in the report');
is($r->{interval_s}, 1, 'pg_wait_sampling: read once a second');
is($r->{period_s}, 0.01, "pg_wait_sampling: a sample is its 10 ms period");
my %theirs = map { ("$_->{wait_event_type}:$_->{wait_event}" => $_->{samples}) }
  grep { $_->{wait_event_type} ne 'CPU' } @{ $r->{profile} };
my $st = shares(\%theirs);
for my $e (sort keys %events)
{
	cmp_ok(abs(($st->{$e} // 0) - ($so->{$e} // 0)), '<=', 5,
		"$e: --source=pg_wait_sampling agrees with polling pg_stat_activity");
}
# about 2.5 waiting sessions for about 3 s at 10 ms
cmp_ok($r->{active_samples}, '>', 400, 'pg_wait_sampling: its samples are counted');

# ---------------------------------------------------------------- installed but not loaded

my $plain = new_cluster('waits_pws_plain');
if ($plain->psql('postgres', 'CREATE EXTENSION pg_wait_sampling') == 0
	&& $plain->psql('postgres', 'SELECT count(*) FROM pg_wait_sampling_profile') != 0)
{
	($rc, $out, $err) = run_tool([ $bin, '-h', $plain->host, '-p', $plain->port, '-d', 'postgres',
		'-T', SHORT_RUN, '--json' ]);
	is($rc, 0, 'not loaded: exit 0');
	like($err, qr/^pgtempo-waits: warning: extension pg_wait_sampling is installed but cannot be read: /m,
		'not loaded: warns');
	like($err, qr/^pgtempo-waits: hint: pg_wait_sampling must be in shared_preload_libraries\.$/m,
		'not loaded: says what to do');
	is(decode_json($out)->{source}, 'pg_stat_activity', 'not loaded: samples pg_stat_activity');
	($rc, $out, $err) = run_tool([ $bin, '-h', $plain->host, '-p', $plain->port, '-d', 'postgres',
		'-T', SHORT_RUN, '--source=pg_wait_sampling' ]);
	is($rc, 1, 'not loaded, asked for: exit 1');
	like($err, qr/^pgtempo-waits: error: source pg_wait_sampling: the extension cannot be read: .*shared_preload_libraries/m,
		'not loaded, asked for: says why');
}
else
{
	($rc, $out, $err) = run_tool([ $bin, '-h', $plain->host, '-p', $plain->port, '-d', 'postgres',
		'-T', SHORT_RUN, '--source=pg_wait_sampling' ]);
	is($rc, 1, 'not installed, asked for: exit 1');
	like($err, qr/the extension pg_wait_sampling is not installed in this database/,
		'not installed, asked for: says so');
}

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'w\_%'});
done_testing();
