# pgtempo-waits across a failover: a multi-host conninfo whose first server
# goes away in the middle of a run.  The sampler reconnects to the second
# server, and the report names the server sampled at the end, not the first
# one: the reconnect replaced the sampler's description of its source, which
# the report must not keep a pointer into (a use-after-free found by ASan;
# the two hosts are spelled with lengths far apart, so that the freed string
# is not simply handed back for the new one and an ordinary build shows the
# fault as garbage too).

use strict;
use warnings;

use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;
use Time::HiRes qw(usleep);

my $bin = pgtempo_bin('pgtempo-waits');
my $first = new_cluster('failover_a');
my $second = new_cluster('failover_b');

# The same socket directory, spelled two ways: libpq reports the host as given.
my $host_a = $first->host;
my $host_b = $second->host . ('/.' x 24);
my $label_a = $host_a . ':' . $first->port;
my $label_b = $host_b . ':' . $second->port;
my $first_up = 1;
my $conninfo = "host=$host_a,$host_b port=" . $first->port . ',' . $second->port
  . ' dbname=postgres';

# Run the sampler with these output options over a failover; the harness's output.
sub run_over_failover
{
	my (@args) = @_;
	my ($out, $err) = ('', '');
	$first->start unless $first_up;
	$first_up = 1;
	# no cost budget: on a loaded machine (ASan, distcheck) it may lower the
	# rate, and the heading this test reads names the interval
	my $h = IPC::Run::start([ $bin, '-d', $conninfo, '--source=activity', '--cost-budget=0',
		'-T', '8', @args ],
		'>', \$out, '2>', \$err, IPC::Run::timeout(60));
	# sampling has started once the first server sees the sampler's statement
	my $seen = 0;
	for (1 .. 100)
	{
		$seen = $first->safe_psql('postgres', q{SELECT count(*) FROM pg_stat_activity
			WHERE query LIKE '%<> pg_catalog.pg_backend_pid()%' AND pid <> pg_backend_pid()});
		last if $seen;
		usleep(50_000);
	}
	ok($seen, "@args: sampling the first server");
	usleep(500_000);
	$first->stop('immediate');
	$first_up = 0;
	$h->finish;
	return ($h->result(0), $out, $err);
}

my ($status, $out, $err) = run_over_failover('--json');
is($status, 0, 'json: exit 0 (the second server answered)') or diag($err);
like($err, qr/^pgtempo-waits: connection restored: sampling resumed after a gap of [\d.]+ s$/m,
	'json: reconnected');
my $r = eval { decode_json($out) };
ok($r, 'json: the report is valid JSON') or diag($@, $out);
is($r->{server}, $label_b, 'json: the report names the server it sampled last');
is($r->{source}, 'pg_stat_activity', 'json: the source is described after the reconnect');
like($r->{server_version}, qr/^\d+(\.\d+)+/, 'json: the server version too');
is(scalar @{ $r->{gaps} }, 1, 'json: the failover is one gap');

($status, $out, $err) = run_over_failover();
is($status, 0, 'text: exit 0') or diag($err);
like($out, qr/^source: pg_stat_activity on PostgreSQL \S.* \(\Q$label_b\E\), interval 10 ms$/m,
	'text: the heading names the second server');
unlike($out, qr/\Q$label_a\E\)/, 'text: not the first');

$second->stop;
done_testing();
