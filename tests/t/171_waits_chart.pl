# pgtempo-waits --chart: an SVG with a stacked area per wait event over
# time and the run's profile as bars, the same events in both; a path that
# cannot be written fails the run with exit 1.

use strict;
use warnings;

use File::Temp qw(tempdir);
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_chart');
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres', '--source=activity');
my $dir = tempdir(CLEANUP => 1);

$node->safe_psql('postgres', 'CREATE TABLE t (i int)');
my ($holder, $holder_pid) = start_session($node, 'c_holder');
$holder->query_safe('BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
my ($waiter) = start_session($node, 'c_lock', "BEGIN;\nLOCK TABLE t");
my ($sleeper) = start_session($node, 'c_sleep', 'SELECT pg_sleep(600)');
$node->poll_query_until('postgres', q{
	SELECT count(*) = 2 FROM pg_stat_activity
	WHERE (application_name = 'c_lock' AND wait_event = 'relation')
	   OR (application_name = 'c_sleep' AND wait_event = 'PgSleep')})
  or die 'the induced waits did not start';

my $svg = "$dir/waits.svg";
my ($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '3', '--application-name=c_lock',
	'--application-name=c_sleep', "--chart=$svg" ]);
is($rc, 0, '--chart: exit 0');
my $text = '';
if (open my $fh, '<', $svg) { local $/; $text = <$fh>; }
like($text, qr/^<\?xml[^>]*>\s*<svg /s, 'an SVG document');
unlike($text, qr/<script|<image|href=/i, 'self-contained: no script, image or link');

# each event is a legend entry of the areas and a bar label: twice at least
for my $event ('Lock:relation', 'Timeout:PgSleep')
{
	my $n = () = $text =~ />\Q$event\E</g;
	cmp_ok($n, '>=', 2, "$event: an area and a bar");
}
unlike($text, qr/>CPU</, 'no CPU: both sessions wait the whole time');
# the two sessions wait all the time: each has about half of the samples
my @pct = $text =~ />(\d+(?:\.\d+)?)%</g;
ok(@pct >= 2 && abs($pct[0] - 50) < 5 && abs($pct[1] - 50) < 5,
	"the bars share the samples about equally (@pct[0 .. 1])");
# one point per second per series in the stacked areas: 2 series, 3 s
my @paths = $text =~ /<path /g;
cmp_ok(scalar @paths, '>=', 2, 'an area per event');

my $xmllint = `sh -c 'command -v xmllint'`;
chomp $xmllint;
SKIP:
{
	skip 'xmllint is not installed (Debian package libxml2-utils)', 1 unless $xmllint;
	is(system($xmllint, '--noout', $svg), 0, 'well-formed XML');
}

($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '0.5', "--chart=$dir/missing/w.svg" ]);
is($rc, 1, '--chart to a missing directory: exit 1');
like($err, qr/^pgtempo-waits: error: could not open file ".*missing\/w\.svg" for writing: /m,
	'--chart to a missing directory: the error');

($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '1', '--chart=' ]);
is($rc, 1, '--chart with an empty name: exit 1');
like($err, qr/^pgtempo-waits: error: invalid value "" for option --chart$/m, '--chart=: the error');

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'c\_%'});
done_testing();
