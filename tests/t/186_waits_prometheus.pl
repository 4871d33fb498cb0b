# A real Prometheus server scrapes pgtempo-waits --listen every second, on
# a cluster with a known number of active sessions (two in pg_sleep, one
# holding a lock idle in its transaction, one waiting for that lock), and
# the rate of the active seconds it computes agrees with the average
# active sessions of the run's report, within the report's own error bound
# plus what the window's edges can add: the endpoint publishes its counters
# once a second, so each end of the window may lag by up to that second.

use strict;
use warnings;

use File::Temp qw(tempdir);
use JSON::PP;
use PgTempo::Metrics;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');
plan skip_all => 'prometheus is not installed (Debian: prometheus)' unless prometheus_bin();
my $built = (run_tool([ $bin, '--listen=0', '-T', '1', '-h', '/nonexistent' ]))[2] !~ /built without/;
plan skip_all => 'pgtempo-waits was built without libmicrohttpd (--listen)' unless $built;

my $dir = tempdir(CLEANUP => 1);
my $node = new_cluster('waits_prometheus');
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres');
$node->safe_psql('postgres', 'CREATE TABLE locked (i int)');

# four active sessions, all the run long
my @s;
push @s, (start_session($node, "p_sleep$_", 'SELECT pg_sleep(600)'))[0] for 1 .. 2;
my ($holder) = start_session($node, 'p_holder');
$holder->query_safe('BEGIN; LOCK TABLE locked IN ACCESS EXCLUSIVE MODE');
push @s, $holder, (start_session($node, 'p_waiter', 'SELECT * FROM locked'))[0];
$node->poll_query_until('postgres', q{SELECT count(*) = 4 FROM pg_stat_activity
	WHERE application_name LIKE 'p\_%' AND (wait_event IN ('PgSleep', 'relation') OR state = 'idle in transaction')})
  or die 'the sessions did not start';
my $active = 4;

my ($w, $url, $outref, $errref) = start_listening([ $bin, @conn, '--source=activity', '--json',
	'--listen=127.0.0.1:0' ]);
my ($target) = ($url // '') =~ m{^http://(127\.0\.0\.1:\d+)/metrics$};
ok($target, 'pgtempo-waits listens') or BAIL_OUT("no endpoint: $$errref");

my $p = start_prometheus($dir, <<"EOF");
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: pgtempo-waits
    scrape_interval: 1s
    scrape_timeout: 1s
    static_configs:
      - targets: ['$target']
EOF
my $query = sub { prometheus_query($p, @_) };

# a window of 20 s, within the series' life: rate() then needs no extrapolation to its start
my $window = 20;
my $life = $window + 8;
my $scrapes;
for (1 .. 150)
{
	$w->pump_nb;
	$scrapes = $query->(qq{count_over_time(pgtempo_waits_samples_total{job="pgtempo-waits"}[${life}s])});
	last if defined $scrapes && $scrapes >= $life - 2;
	sleep 1;
}
cmp_ok($scrapes // 0, '>=', $life - 2, "Prometheus scraped the endpoint about every second ($scrapes)")
  or diag(${ $p->{err} });
is($query->('up{job="pgtempo-waits"}'), 1, 'the target is up');
my $rate = $query->(qq{sum(rate(pgtempo_waits_active_seconds_total{job="pgtempo-waits"}[${window}s]))});
# the first and the last scrape in the window are at least a scrape interval inside it
my $span = $window - 2;

$w->signal('INT');
$w->finish;
is($w->result(0), 0, 'pgtempo-waits: exit 0 at SIGINT') or diag($$errref);
$p->{h}->signal('TERM');
$p->{h}->finish;

my $r = eval { decode_json($$outref) } || {};
my $aas = $r->{avg_active_sessions};
ok(defined $aas && abs($aas - $active) < 0.1, "the report: $active active sessions on average ($aas)");
# the report's error bound, as average sessions: its events' bounds summed, over the time sampled
my $h = $r->{health} // {};
my $elapsed = ($h->{elapsed_s} // 1) - ($h->{gap_s} // 0);
my $err_bound = 0;
$err_bound += $_->{error_seconds} // 0 for @{ $r->{profile} // [] };
$err_bound /= $elapsed > 0 ? $elapsed : 1;
# each end of the window may see counters up to a second old (published once a second), plus
# half a second of scheduling on a loaded machine
my $edge = $aas * 1.5 / ($span > 1 ? $span : 1);
my $bound = $err_bound + $edge;
ok(defined $rate && abs($rate - $aas) <= $bound,
	sprintf('Prometheus\' rate of the active seconds (%s) is the report\'s average active sessions (%.3f) within %.3f',
		$rate // 'none', $aas, $bound));

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'p\_%'});
done_testing();
