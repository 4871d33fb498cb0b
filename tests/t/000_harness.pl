
# The test harness itself: environment from tests/prove.sh, run_tool, and a
# throwaway cluster that runs as an unprivileged user.

use strict;
use warnings;

use File::stat ();
use IPC::Run;
use PgTempo::Test;
use PostgreSQL::Test::Utils;
use Test::More;

# ---------------------------------------------------------------- environment

isnt($>, 0, 'tests do not run as root');
ok(defined $ENV{PGTEMPO_BINDIR} && -d $ENV{PGTEMPO_BINDIR},
	'PGTEMPO_BINDIR is a directory');
ok(defined $ENV{PGTEMPO_SRCDIR}
	  && -f "$ENV{PGTEMPO_SRCDIR}/tests/lib/PgTempo/Test.pm",
	'PGTEMPO_SRCDIR holds tests/lib');

SKIP:
{
	my $path = "$ENV{PGTEMPO_BINDIR}/pg_test_timing";
	skip 'pg_test_timing is not built', 1 unless -x $path;
	is(pgtempo_bin('pg_test_timing'), $path, 'pgtempo_bin finds pg_test_timing');
}

# ---------------------------------------------------------------- run_tool

my ($rc, $out, $err) =
  run_tool([ $^X, '-e', 'print "out\n"; print STDERR "err\n"; exit 3' ]);
is($rc,  3,       'run_tool: exit code');
is($out, "out\n", 'run_tool: stdout');
is($err, "err\n", 'run_tool: stderr');

($rc, $out) = run_tool([ $^X, '-e', 'print uc while <STDIN>' ],
	stdin => "one\ntwo\n");
is($out, "ONE\nTWO\n", 'run_tool: stdin');

($rc, $out) = run_tool(
	[ $^X, '-e', 'print $ENV{PGTEMPO_T1}, defined $ENV{PGTEMPO_T2} ? 1 : 0' ],
	env => { PGTEMPO_T1 => 'set', PGTEMPO_T2 => undef });
is($out, 'set0', 'run_tool: env sets and deletes variables');

($rc) = run_tool([ $^X, '-e', 'kill "TERM", $$; sleep 5' ]);
is($rc, 128 + 15, 'run_tool: killed by SIGTERM gives 143');

eval { run_tool([ $^X, '-e', 'sleep 30' ], timeout => 1); };
like($@, qr/^command timed out after 1 s/, 'run_tool: timeout dies');

# ---------------------------------------------------------------- cluster

my $node = new_cluster('main');
my $pgdata = $node->data_dir;

like($pgdata, qr{^\Q$ENV{TESTDIR}\E/tmp_check/},
	'data directory is under $TESTDIR/tmp_check');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'SELECT 1');
is($node->safe_psql('postgres', q{SELECT current_setting('data_directory')}),
	$pgdata, 'server uses the node\'s data directory');

my $version_num = $node->safe_psql('postgres', 'SHOW server_version_num');
like($version_num, qr/^\d{5,6}$/, 'server_version_num is a number');
cmp_ok($version_num, '>=', 90600, 'server version is 9.6 or later');
my $major =
  $version_num >= 100000
  ? int($version_num / 10000)
  : sprintf('%d.%d', int($version_num / 10000), int($version_num / 100) % 100);
is($major, $node->pg_version->major,
	'server and pg_config in PATH are the same major version');

# The postmaster.pid file, the postmaster and a backend belong to our user.
my $pidfile = "$pgdata/postmaster.pid";
my $st = File::stat::stat($pidfile);
ok($st, 'postmaster.pid exists');
isnt($st->uid, 0, 'postmaster.pid is not owned by root');
is($st->uid, $>, 'postmaster.pid is owned by the test user');

my ($postmaster_pid) = split /\n/, slurp_file($pidfile);
like($postmaster_pid, qr/^\d+$/, 'postmaster.pid starts with a PID');

SKIP:
{
	skip 'no /proc', 4 unless -r "/proc/$postmaster_pid/status";

	my ($uid) = slurp_file("/proc/$postmaster_pid/status") =~ /^Uid:\s+(\d+)/m;
	is($uid, $>, 'postmaster runs as the test user');

	my $status = $node->safe_psql('postgres',
		q{SELECT pg_read_file('/proc/self/status')});
	my ($buid, $beuid) = $status =~ /^Uid:\s+(\d+)\s+(\d+)/m;
	my ($ppid) = $status =~ /^PPid:\s+(\d+)/m;
	is($buid,  $>, 'backend runs as the test user');
	is($beuid, $>, 'backend\'s effective uid is the test user');
	is($ppid, $postmaster_pid, 'backend is a child of the postmaster');
}

# A client tool reaches the cluster through connstr, as the tools' tests will.
($rc, $out, $err) = run_tool(
	[
		'psql', '-X', '-A', '-t', '-d', $node->connstr('postgres'),
		'-c', 'SELECT 6 * 7'
	]);
is_deeply([ $rc, $out, $err ], [ 0, "42\n", '' ], 'psql via connstr');

$node->stop;
ok(!-e $pidfile, 'postmaster.pid is gone after stop');
# -c, not the statement on standard input: psql may exit before IPC::Run has
# written it, and the write's EPIPE would end this script
my ($psql_out, $psql_err) = ('', '');
IPC::Run::run([ 'psql', '-X', '-d', $node->connstr('postgres'), '-c', 'SELECT 1' ],
	'<', \'', '>', \$psql_out, '2>', \$psql_err);
is($? >> 8, 2, 'psql cannot connect after stop');

done_testing();
