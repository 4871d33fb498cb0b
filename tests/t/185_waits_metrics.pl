# pgtempo-waits' metrics for Prometheus: --metrics writes a textfile at each
# --log-interval and at the end (whole: no temporary file left, promtool
# accepts it), whose counters agree with the run's --json report; --listen
# serves the same counters at /metrics (Prometheus text, OpenMetrics with
# "# EOF" when asked), answers anything else with a 4xx, keeps sampling
# while a client holds a connection without sending anything, refuses
# connections of one address past its limit, closes idle ones after its
# timeout and slow ones at its deadline; a port in use or a bad address fails before sampling.  The example Grafana
# dashboard is valid JSON naming only metrics the tool writes.

use strict;
use warnings;

use File::Temp qw(tempdir);
use HTTP::Tiny;
use IO::Select;
use IO::Socket::INET;
use IPC::Run;
use JSON::PP;
use PgTempo::Metrics;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');
my $src = $ENV{PGTEMPO_SRCDIR} // '.';
my $dir = tempdir(CLEANUP => 1);

my $built = (run_tool([ $bin, '--listen=0', '-T', '1', '-h', '/nonexistent' ]))[2] !~ /built without/;
plan skip_all => 'pgtempo-waits was built without libmicrohttpd (--listen)' unless $built;

my $node = new_cluster('waits_metrics');
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres');
my @sleepers = map { (start_session($node, "m_sleep$_", 'SELECT pg_sleep(600)'))[0] } 1 .. 2;
$node->poll_query_until('postgres',
	q{SELECT count(*) = 2 FROM pg_stat_activity WHERE application_name LIKE 'm\_sleep%' AND wait_event = 'PgSleep'})
  or die 'the sleepers did not start';

# The sum of a metric's samples with these labels (undef if none).
sub sum_of
{
	my ($m, $name, %labels) = @_;
	my $sum;
	$sum += $_->{value} for metric_samples($m, $name, %labels);
	return $sum;
}

# The samples taken, in a scrape's text.
sub samples_in
{
	return metric_value(parse_metrics($_[0]), 'pgtempo_waits_samples_total');
}

my $http = HTTP::Tiny->new(timeout => 5);

# ---------------------------------------------------------------- one run with both

my $prom = "$dir/waits.prom";
my ($out, $err) = ('', '');
my $h = IPC::Run::start([ $bin, @conn, '--source=activity', '-i', '10ms', '--cost-budget=0', '--json',
	"--metrics=$prom", '--log-interval=1', '--listen=127.0.0.1:0' ], '>', \$out, '2>', \$err);
my $t0 = time;
$h->pump until $err =~ m{serving metrics on http://127\.0\.0\.1:(\d+)/metrics} || time - $t0 > 60;
my ($port) = $err =~ m{serving metrics on http://127\.0\.0\.1:(\d+)/metrics};
ok($port, '--listen=127.0.0.1:0: the port taken is said on stderr') or diag($err);
my $base = "http://127.0.0.1:$port";

# the file is written at each --log-interval, while the run goes on
$h->pump_nb, select(undef, undef, undef, 0.1) until -s $prom || time - $t0 > 60;
ok(-s $prom && $h->pumpable, '--metrics: written during the run, at the --log-interval');

my $r = $http->get("$base/metrics");
is($r->{status}, 200, 'GET /metrics: 200');
like($r->{headers}{'content-type'} // '', qr{^text/plain; version=0\.0\.4}, 'GET /metrics: Prometheus text');
my $scraped = write_file("$dir/scrape.txt", $r->{content});
promtool_ok($scraped, 'GET /metrics');
unlink $scraped;
promtool_ok($prom, '--metrics during the run');
my $m1 = parse_metrics($r->{content});
like($r->{content}, qr/^pgtempo_waits_active_seconds_total\{[^}]*wait_event="PgSleep"/m,
	'GET /metrics: the sleepers\' event has a series');

$r = $http->get("$base/metrics", { headers => { Accept => 'application/openmetrics-text; version=1.0.0; charset=utf-8,text/plain;version=0.0.4;q=0.5' } });
is($r->{status}, 200, 'OpenMetrics: 200');
like($r->{headers}{'content-type'} // '', qr{^application/openmetrics-text; version=1\.0\.0}, 'OpenMetrics: its content type');
like($r->{content}, qr/\n# EOF\n\z/, 'OpenMetrics: ends with "# EOF"');

$r = $http->request('HEAD', "$base/metrics");
is($r->{status}, 200, 'HEAD /metrics: 200');
is($r->{content} // "", "", "HEAD /metrics: no body");
$r = $http->post_form("$base/metrics", { a => 1 });
is($r->{status}, 405, 'POST /metrics: 405');
like($r->{headers}{allow} // '', qr/GET/, 'POST /metrics: Allow names GET');
for my $path ('/', '/metric', '/metrics/x', '/index.html')
{
	$r = $http->get("$base$path");
	is($r->{status}, 404, "GET $path: 404");
}

# a client that connects and sends nothing, and one that asks and never reads the answer:
# sampling goes on, scrapes are answered
my $silent = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port) or die "connect: $!";
my $unread = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port) or die "connect: $!";
print $unread "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" x 50;
my $before = samples_in($http->get("$base/metrics")->{content});
sleep 2;
$r = $http->get("$base/metrics");
is($r->{status}, 200, 'a silent client and one that does not read: another scrape is answered');
my $after = samples_in($r->{content});
cmp_ok($after // 0, '>', $before // 0,
	'a silent client and one that does not read: sampling went on while they held their connections');
close $silent;
close $unread;

# the per-address limit: of 12 silent clients of one address, those past it are closed as they
# come, the others held (a client closed just above may still count for a moment: 8 at most)
my @conns = map { IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port) or die "connect: $!" } 1 .. 12;
my $sel = IO::Select->new(@conns);
my %refused;
for (1 .. 40)
{
	%refused = map { $_ => 1 } $sel->can_read(0);
	last if keys %refused >= 4;
	select(undef, undef, undef, 0.1);
}
my @held = grep { !$refused{$_} } @conns;
cmp_ok(scalar(keys %refused), '>=', 4, 'the per-address limit: clients past it are not served');
cmp_ok(scalar(@held), '<=', 8, 'the per-address limit: at most 8 connections of one address held ('
	  . scalar(@held) . ')');
# the timeout closes the silent ones, and scrapes are served again
my $closed = 0;
for my $s (@held)
{
	my $buf;
	my $n = sysread($s, $buf, 100);
	$closed++ if defined $n && $n == 0;
}
is($closed, scalar(@held), 'the idle timeout: the silent clients are closed by the server');
$r = $http->get("$base/metrics");
is($r->{status}, 200, 'after the timeout: served again');
close $_ for @conns;

# a client that sends its request a byte a second, never idle for the timeout, is shut down all
# the same (by the deadline)
my $slow = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port) or die "connect: $!";
syswrite($slow, "GET /metrics HTTP/1.1\r\nX-Slow: ");
my $cut = 0;
for (1 .. 40)
{
	if (IO::Select->new($slow)->can_read(1))
	{
		my $n = sysread($slow, my $buf, 100);
		$cut = 1 if !$n;
		last;
	}
	last if !syswrite($slow, 'a') && ($cut = 1);
}
ok($cut, 'a client that sends a byte a second is shut down by the deadline');
close $slow;

$h->signal('INT');
$h->finish;
is($h->result(0), 0, 'SIGINT: exit 0') or diag($err);
my $json = eval { decode_json($out) } || {};
is_deeply([ dir_entries($dir) ], ['waits.prom'], '--metrics: no temporary file is left');
ok(!IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port), 'the endpoint is closed at the end');

# the final file agrees with the report
promtool_ok($prom, '--metrics at the end');
my $m = parse_metrics(slurp_text($prom));
is_deeply($m->{errors}, [], 'final file: every line parses');
my $health = $json->{health} // {};
is(metric_value($m, 'pgtempo_waits_samples_total'), $health->{samples}, 'final file: the samples of the report');
is(metric_value($m, 'pgtempo_waits_missed_ticks_total'), $health->{missed_ticks}, 'final file: its missed ticks');
is(sum_of($m, 'pgtempo_waits_backend_samples_total'), $json->{active_samples},
	'final file: the backend samples of the report');
for my $g (@{ $json->{profile} // [] })
{
	my %ev = (wait_event_type => $g->{wait_event_type}, wait_event => $g->{wait_event});
	is(sum_of($m, 'pgtempo_waits_backend_samples_total', %ev), $g->{samples},
		"final file: $g->{wait_event} samples as in the report");
	# the report spreads missed ticks (10 ms each) over every event, the counter gives each to the
	# rows of the sample after it; and the end may take back a tick the last sample overran
	# (ticker_end), which the counter, only growing, keeps: a tick more, times the event's rows
	my $rows = $json->{ticks} ? int(($g->{samples} + $json->{ticks} - 1) / $json->{ticks}) : 1;
	my $bound = 0.01 * (($health->{missed_ticks} // 0) + 1) * $rows + 1e-6 * $g->{est_seconds} + 1e-9;
	my $est = sum_of($m, 'pgtempo_waits_active_seconds_total', %ev) // -1;
	ok(abs($est - $g->{est_seconds}) <= $bound,
		"final file: $g->{wait_event} active seconds as the report estimates ($est vs $g->{est_seconds})");
}
# a series' key: its name and labels
my $key = sub { my ($s) = @_; join(',', $s->{name}, map { "$_=$s->{labels}{$_}" } sort keys %{ $s->{labels} }) };
my %final = map { $key->($_) => $_->{value} } @{ $m->{samples} };
my @shrunk = grep { $_->{name} =~ /_total$/ && ($final{ $key->($_) } // -1) < $_->{value} } @{ $m1->{samples} };
is_deeply(\@shrunk, [], 'counters only grow between a scrape and the end');

# every metric written is documented in the man page's METRICS section
my ($man_metrics) = (slurp_text("$src/man/pgtempo-waits.1.in") // '') =~ /^\.SH METRICS\n(.*?)^\.SH /ms;
my @undocumented = grep { ($man_metrics // '') !~ /^\.B \Q$_\E\b/m } sort keys %{ $m->{type} };
is_deeply(\@undocumented, [], 'every metric written is in the man page\'s METRICS section');

# ---------------------------------------------------------------- the Grafana dashboard

my $dash_file = "$src/contrib/grafana/pgtempo-waits.json";
my $dash = eval {
	open my $fh, '<', $dash_file or die "$dash_file: $!";
	local $/;
	decode_json(<$fh>);
};
ok($dash, 'the Grafana dashboard is valid JSON') or diag($@);
my @exprs;
my $walk;
$walk = sub {
	my ($n) = @_;
	if (ref $n eq 'HASH')
	{
		push @exprs, grep { defined && !ref } $n->{expr}, $n->{definition};
		$walk->($_) for values %$n;
	}
	elsif (ref $n eq 'ARRAY') { $walk->($_) for @$n; }
};
$walk->($dash);
cmp_ok(scalar(@exprs), '>=', 4, 'the dashboard has queries');
my %known = map { $_ => 1 } keys %{ $m->{type} };
my %named = map { $_ => 1 } map { /\b(pgtempo_[a-z0-9_]+)/g } @exprs;
ok(%named, 'the dashboard\'s queries name pgtempo metrics');
for my $m (sort keys %named)
{
	ok($known{$m}, "the dashboard names $m, which the tool writes");
}

# ---------------------------------------------------------------- before sampling: errors

my $busy = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 1, ReuseAddr => 0)
  or die "listen: $!";
my $busy_port = $busy->sockport;
my $rc;
($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '2', "--listen=127.0.0.1:$busy_port" ]);
is($rc, 1, 'port in use: exit 1');
like($err, qr/^pgtempo-waits: error: could not listen on 127\.0\.0\.1:$busy_port \(--listen\): Address already in use$/m,
	'port in use: the error says so');
unlike($err, qr/sampling /, 'port in use: before sampling starts');
close $busy;

($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '2', '--listen=192.0.2.1:9817' ]);
is($rc, 1, 'an address not on this host: exit 1');
like($err, qr/^pgtempo-waits: error: could not listen on 192\.0\.2\.1:9817 \(--listen\): Cannot assign requested address$/m,
	'an address not on this host: the error says so');
($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '2', '--listen=no-such-host.invalid:9817' ]);
is($rc, 1, 'a name that does not resolve: exit 1');
like($err, qr/^pgtempo-waits: error: could not listen on "no-such-host\.invalid" \(--listen\): /m,
	'a name that does not resolve: the error says so');

($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '2', '--metrics=/nonexistent/dir/w.prom' ]);
is($rc, 1, '--metrics in a missing directory: exit 1');
like($err, qr/^pgtempo-waits: error: .*\/nonexistent\/dir\/w\.prom/m, '--metrics in a missing directory: the path is named');
unlike($err, qr/sampling /, '--metrics in a missing directory: before sampling starts');

# IPv6 loopback, where the host has it
($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '1.5', '--listen=[::1]:0' ]);
SKIP:
{
	skip 'no IPv6 loopback here', 2 if $err =~ /could not listen on \[::1\]/;
	is($rc, 0, '--listen=[::1]:0: exit 0') or diag($err);
	like($err, qr{serving metrics on http://\[::1\]:\d+/metrics}, '--listen=[::1]:0: served on ::1');
}

# ---------------------------------------------------------------- usage errors

for my $bad ([ [ '--listen=:9817' ], qr/invalid value ":9817" for option --listen/ ],
	[ [ '--listen=abc' ], qr/invalid value "abc" for option --listen/ ],
	[ [ '--listen=127.0.0.1:65536' ], qr/invalid value "127\.0\.0\.1:65536" for option --listen/ ],
	[ [ '--listen=::1:80' ], qr/invalid value "::1:80" for option --listen: .*brackets/ ],
	[ [ '--metrics=' ], qr/invalid value "" for option --metrics/ ],
	[ [ '--listen=9817', '--trace=1' ], qr/--trace cannot be used with --listen/ ],
	[ [ '--metrics=x.prom', '--from-log', 'x.csv' ], qr/--from-log cannot be used with --metrics/ ])
{
	($rc, $out, $err) = run_tool([ $bin, @{ $bad->[0] } ]);
	is($rc, 1, "@{ $bad->[0] }: exit 1");
	like($err, $bad->[1], "@{ $bad->[0] }: the message");
}

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'm\_%'});
done_testing();
