# pgtempo-waits --store when the answer to a COPY is lost after the store
# database committed it: the rows are sent again, and must not be stored
# twice.  The store server waits for a synchronous standby that does not
# exist, so a COPY commits locally and its answer does not come: the store
# gives up at its deadline (10 s), cancels (the commit stands) and sends
# the rows again on a new connection.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;
use Time::HiRes qw(time usleep);

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_doubt');
# a synchronous standby needs max_wal_senders > 0
my $snode = new_cluster('waits_doubt_store', allows_streaming => 1);
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres', '--source=activity');
my $store = sprintf('host=%s port=%d dbname=postgres application_name=d_store', $snode->host, $snode->port);
my $dir = tempdir(CLEANUP => 1);

my ($sleeper) = start_session($node, 'd_sleep', 'SELECT pg_sleep(600)');
$node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE application_name = 'd_sleep' AND wait_event = 'PgSleep'})
  or die 'the sleeper did not start';

sub slurp
{
	open my $fh, '<', shift or return '';
	local $/;
	return scalar <$fh>;
}

# Set synchronous_standby_names on the store server (ALTER SYSTEM cannot run in a transaction).
sub sync_names
{
	my ($names) = @_;
	$snode->safe_psql('postgres', "ALTER SYSTEM SET synchronous_standby_names = '$names'");
	$snode->safe_psql('postgres', 'SELECT pg_reload_conf()');
}

my $out = '';
my $h = IPC::Run::start([ $bin, @conn, '-T', '22', '--json', "--store=$store",
	"--log=$dir/raw.jsonl", '--application-name=d_sleep' ],
	'>', \$out, '2>', "$dir/err", IPC::Run::timeout(120));
usleep(1_500_000);
sync_names('nobody');
my $hung = $snode->poll_query_until('postgres', q{SELECT count(*) > 0 FROM pg_stat_activity
	WHERE application_name = 'd_store' AND wait_event = 'SyncRep'});
ok($hung, 'a COPY of the store waits for the standby: its commit is not answered');
# the store gives up on it (10 s), and then the commit is let through
my $t0 = time;
usleep(200_000) until slurp("$dir/err") =~ /will retry/ || time - $t0 > 30;
sync_names('');
like(slurp("$dir/err"),
	qr/^pgtempo-waits: warning: could not write to the store database \(will retry\): no answer from the store database in time$/m,
	'the store gave up on the COPY in doubt');
$h->finish;
my $err = slurp("$dir/err");
is($h->result(0), 0, 'exit 0') or diag($err);
like($err, qr/^pgtempo-waits: writing to the store database works again$/m,
	'the store works again');
my $r = decode_json($out);

my @log = grep { $_->{type} eq 'sample' } map { decode_json($_) } split /\n/, slurp("$dir/raw.jsonl");
# every sample taken is logged (how many a loaded machine takes is not the point)
cmp_ok(scalar @log, '>', 0, 'the log has samples (' . scalar(@log) . ')');
is(scalar @log, $r->{active_samples}, 'the log has every sample the report counts');
is($snode->safe_psql('postgres', 'SELECT count(*) FROM pgtempo_waits_samples'), scalar @log,
	'as many rows in the store as samples in the log: none twice, none missing');
is($snode->safe_psql('postgres', 'SELECT count(*) FROM (SELECT ts, pid FROM pgtempo_waits_samples
	GROUP BY ts, pid HAVING count(*) > 1) d'), 0, 'no sample stored twice');
is($r->{store}{rows_stored}, scalar @log, 'the report counts every row stored, once');
# the server's figures are a store of their own, with a mark of their own
is($snode->safe_psql('postgres', q{SELECT count(*) FROM pgtempo_waits_batches
	WHERE run NOT LIKE '% measured'}), 1, 'one mark for the run');

$snode->stop;
done_testing();
