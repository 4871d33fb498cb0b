# pgtempo-io's PostgreSQL questions: the read test over a throwaway
# cluster's relation files, with a connection and with --pgdata, changes
# nothing there (every file byte-identical, mtimes unchanged); the server's
# random_page_cost and wal_sync_method come back; a role that may not read
# data_directory is told why; the sync test runs each wal_sync_method with
# one and two writes per sync, removes its work file, and its operations
# per second are of pg_test_fsync's order (a factor-of-10 band).

use strict;
use warnings;

use Digest::MD5;
use File::Find;
use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-io');
my $node = new_cluster('io_pg', conf => "autovacuum = off\n");
my @conn = ('--host=' . $node->host, '--port=' . $node->port, '--dbname=postgres');
my $pgdata = $node->data_dir;

$node->safe_psql('postgres', q{
	CREATE TABLE big AS SELECT i, repeat('x', 500) AS pad FROM generate_series(1, 20000) i;
	CREATE INDEX ON big (i);
	VACUUM FREEZE;
	CHECKPOINT;
	CREATE ROLE plain LOGIN;});

# Every relation file under base/ and global/: its digest and mtime.
sub snapshot
{
	my %s;
	find(
		{
			no_chdir => 1,
			wanted => sub {
				return unless -f $_ && m{/\d+(?:\.\d+)?$};
				open my $fh, '<:raw', $_ or die "$_: $!";
				$s{$_} = Digest::MD5->new->addfile($fh)->hexdigest . ' ' . (stat $_)[9];
			}
		},
		"$pgdata/base", "$pgdata/global");
	return \%s;
}

# Run with --json; the decoded document.
sub run_json
{
	my ($what, @args) = @_;
	my ($rc, $out, $err) = run_tool([ $bin, '--json', @args ]);
	is($rc, 0, "$what: exit 0") or diag($err);
	my $r = eval { decode_json($out) };
	ok(defined $r, "$what: the report is JSON") or diag($@);
	return $r || {};
}

# ---- the read test with a connection ----
my $before = snapshot();
ok(keys %$before > 10, 'relation files found to compare');

my $r = run_json('connection', @conn, '-c', '300', '-w', '10s');
is($r->{server}{random_page_cost}, 4, 'the server\'s random_page_cost');
is($r->{server}{seq_page_cost}, 1, 'the server\'s seq_page_cost');
my $method = $node->safe_psql('postgres', 'SHOW wal_sync_method');
is($r->{server}{wal_sync_method}, $method, 'the server\'s wal_sync_method');
is($r->{reads}{data_directory}, $node->safe_psql('postgres', 'SHOW data_directory'),
	'the data directory is the server\'s');
ok($r->{reads}{files} >= 2, 'the largest relations\' files are read');
is($r->{reads}{random}{count}, 300, '-c 300: 300 random reads');
is($r->{reads}{sequential}{count}, 300, '-c 300: 300 sequential reads');
for my $k (qw(random sequential))
{
	my $x = $r->{reads}{$k};
	my $l = $x->{latency_ns};
	ok($l->{min} > 0 && $l->{min} <= $l->{percentiles}{p50}
		  && $l->{percentiles}{p50} <= $l->{percentiles}{p99} && $l->{percentiles}{p99} <= $l->{max},
		"$k: min <= p50 <= p99 <= max");
}
ok($r->{reads}{random_sequential_ratio} > 0, 'a random/sequential ratio');
is($r->{syncs}, undef, 'no sync test without --wal-sync');

# the text report says the same in words
my ($rc, $out, $err) = run_tool([ $bin, @conn, '-c', '50' ]);
is($rc, 0, 'text: exit 0') or diag($err);
like($out, qr/^8 KiB reads over \d+ relation files \(.*\) in \Q$pgdata\E, read-only, (direct|buffered) I\/O$/m,
	'text: the files read');
like($out, qr/^  random +50 ops .* p50 .* p99 .* max /m, 'text: random reads with percentiles');
like($out, qr/^  sequential +50 ops /m, 'text: sequential reads');
like($out, qr/^random\/sequential mean time per page: [\d.]+ \(the server's random_page_cost 4 \/ seq_page_cost 1 = 4\.00\)$/m,
	'text: the ratio beside random_page_cost');
like($out, qr/cannot tell/, 'text: what the ratio cannot tell');
like($out, qr/direct I\/O not available/, 'text: buffered I/O is said')
  unless $out =~ /direct I\/O$/m;

# a role that may not read data_directory is told why
($rc, $out, $err) = run_tool([ $bin, @conn, '--username=plain', '-c', '10' ]);
is($rc, 2, 'no pg_read_all_settings: exit 2');
like($err, qr/^pgtempo-io: error: the server did not give its data directory: (?!ERROR).* \(it needs superuser or pg_read_all_settings\); give --pgdata=DIR instead$/m,
	'no pg_read_all_settings: the error says what is needed');
# with --pgdata too it goes on, with the server's settings
$r = run_json('plain role and --pgdata', @conn, '--username=plain', "--pgdata=$pgdata", '-c', '20');
is($r->{server}{random_page_cost}, 4, 'plain role: random_page_cost still read');
is($r->{reads}{random}{count}, 20, 'plain role and --pgdata: the reads ran');

is_deeply(snapshot(), $before, 'the connection runs changed nothing under the data directory');

# ---- --pgdata alone, the server stopped ----
$node->stop;
$before = snapshot();
$r = run_json('--pgdata', "--pgdata=$pgdata", '-c', '200');
is($r->{server}, undef, '--pgdata alone: no server asked');
ok($r->{reads}{files} > 10, '--pgdata: every relation file of the cluster');
is($r->{reads}{random}{count}, 200, '--pgdata: 200 random reads');
is_deeply(snapshot(), $before, '--pgdata changed nothing under the data directory (contents and mtimes)');

($rc, $out, $err) = run_tool([ $bin, "--pgdata=$pgdata/base", '-c', '1' ]);
is($rc, 2, 'not a data directory: exit 2');
like($err, qr/is not a PostgreSQL data directory \(no PG_VERSION\)/, 'not a data directory: said');
($rc, $out, $err) = run_tool([ $bin, "--pgdata=$pgdata", '/tmp' ]);
is($rc, 1, 'a destination with --pgdata: usage error');
for my $no ([ '-s', '4k', '-s/--size' ], [ '-D', undef, '-D/--direct' ], [ '--metrics=x.prom', undef, '--metrics' ],
	[ '-q', undef, '-q/--quiet' ])
{
	my @o = grep { defined } @$no[ 0, 1 ];
	($rc, $out, $err) = run_tool([ $bin, "--wal-sync=$pgdata/none", @o ]);
	is($rc, 1, "@o with --wal-sync: usage error");
	like($err, qr/^pgtempo-io: error: option \Q$no->[2]\E cannot be used with --pgdata, --pg or --wal-sync$/m,
		"@o with --wal-sync: the option named");
}
$node->start;

# a data directory on tmpfs: in memory, which is said (and no direct I/O
# before Linux 6.6, also said); only relation files are read
SKIP:
{
	my $shm = '/dev/shm';
	skip 'no writable tmpfs at /dev/shm', 6
	  unless -d $shm && -w $shm && `df -T $shm 2>/dev/null` =~ /\btmpfs\b/;
	my $fake = tempdir(DIR => $shm, CLEANUP => 1);
	mkdir "$fake/$_" for qw(base base/5 global);
	write_file("$fake/PG_VERSION", "15\n");
	write_file("$fake/base/5/$_", 'r' x 65536) for qw(16384 16384.1 16390_fsm pg_filenode.map);
	write_file("$fake/base/5/16400", 'r' x 100);	# less than a block
	($rc, $out, $err) = run_tool([ $bin, "--pgdata=$fake", '-c', '20', "--json=$fake.json" ]);
	is($rc, 0, 'tmpfs: exit 0') or diag($err);
	like($out, qr/, read-only, (?:direct I\/O|buffered I\/O\n  direct I\/O not available on this filesystem; reads may come from the page\n.*)\n  the files are in memory \(tmpfs or ramfs\): no read here is a disk read\n/,
		'tmpfs: in memory (and no direct I/O where the kernel has none), said');
	like($out, qr/^8 KiB reads over 2 relation files \(128 KiB\)/m, 'tmpfs: only the relation files of a block or more');
	my $j = decode_json(slurp_text("$fake.json"));
	is($j->{reads}{in_memory}, JSON::PP::true, 'tmpfs: --json=FILE says in memory');
	is($j->{reads}{sequential}{count}, 20, 'tmpfs: the reads ran');
	unlink "$fake.json";
	unlink "$fake/base/5/$_" for qw(16384 16384.1);
	($rc, $out, $err) = run_tool([ $bin, "--pgdata=$fake", '-c', '1' ]);
	like($err, qr/no relation files of at least 8 KiB found/, 'no relation files: said');
}

# ---- the sync test beside pg_test_fsync ----
my $dir = tempdir(CLEANUP => 1);
$r = run_json('--wal-sync', "--wal-sync=$dir", @conn, '-w', '1s');
my @m = @{ $r->{syncs}{methods} || [] };
is_deeply([ map { "$_->{name}/$_->{writes_per_sync}" } @m ],
	[ map { my $w = $_; map { "$_/$w" } qw(open_datasync fdatasync fsync open_sync) } 1, 2 ],
	'each wal_sync_method, one and two writes per sync');
ok(!grep({ !$_->{count} || $_->{latency_ns}{percentiles}{p50} > $_->{latency_ns}{max} } @m),
	'each method ran, with its distribution');
ok((grep { $_ eq $r->{syncs}{favoured} } qw(open_datasync fdatasync fsync open_sync)),
	'a method is favoured');
is($r->{server}{wal_sync_method}, $method, 'beside the server\'s setting');
opendir my $dh, $dir or die;
is_deeply([ grep { !/^\./ } readdir $dh ], [], 'the work file is removed');
closedir $dh;

($rc, $out, $err) = run_tool([ $bin, "--wal-sync=$dir/none", '-c', '1' ]);
is($rc, 2, 'no such directory: exit 2');
like($err, qr/could not create work file ".*pgtempo-io-walsync.tmp": No such file or directory/,
	'no such directory: said');

# SIGINT in the middle: the report so far, 128+2, and the work file gone
{
	my ($o, $e) = ('', '');
	my $h = IPC::Run::start([ $bin, "--wal-sync=$dir", '--json', '-w', '60s' ], '>', \$o, '2>', \$e);
	my $work = "$dir/pgtempo-io-walsync.tmp";
	for (1 .. 600)
	{
		last if -e $work && -s $work >= 16 * 1024 * 1024;
		select(undef, undef, undef, 0.1);
	}
	select(undef, undef, undef, 0.5);
	$h->signal('INT');
	$h->finish;
	is($h->result(0), 130, 'SIGINT: exit 130') or diag($e);
	my $j = eval { decode_json($o) };
	ok($j && $j->{syncs}{methods}[0]{count} > 0, 'SIGINT: the report of what ran');
	ok(!-e $work, 'SIGINT: the work file is removed');
}

SKIP:
{
	my $ref = pg_reference('pg_test_fsync');
	skip 'no pg_test_fsync', 8 unless defined $ref;
	my ($frc, $fout) = run_tool([ $ref, '-s', '1', '-f', "$dir/pg_test_fsync.out" ], timeout => 600);
	is($frc, 0, 'pg_test_fsync ran');
	my (%theirs, $writes);
	for (split /\n/, $fout)
	{
		$writes = 1 if /using one 8kB write/;
		$writes = 2 if /using two 8kB writes/;
		$writes = 0 if /different write sizes/;
		$theirs{"$1/$writes"} = $2 if $writes && /^\s+(\w+)\s+([\d.]+) ops\/sec/;
	}
	for my $x (@m)
	{
		my $k = "$x->{name}/$x->{writes_per_sync}";
		my $t = $theirs{$k};
		note(sprintf('%s: ours %.1f ops/s, pg_test_fsync %s ops/s', $k, $x->{ops_per_sec}, $t // 'n/a'));
		ok(defined $t && $t > 0 && $x->{ops_per_sec} > $t / 10 && $x->{ops_per_sec} < $t * 10,
			"$k: our ops/s of pg_test_fsync's order")
		  or diag(sprintf('ours %.1f, pg_test_fsync %s', $x->{ops_per_sec}, $t // 'n/a'));
	}
}

done_testing();
