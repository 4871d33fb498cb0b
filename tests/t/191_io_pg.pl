# pgtempo-io's PostgreSQL questions: the read test over a throwaway
# cluster's relation files, with a connection and with --pgdata, changes
# nothing there (every file byte-identical, mtimes unchanged); the server's
# random_page_cost and wal_sync_method come back; a role that may not read
# data_directory is told why; the sync test runs each wal_sync_method with
# one and two writes per sync, removes its work file, and its operations
# per second are of pg_test_fsync's order (a factor-of-10 band, ours run just
# before and just after it, up to three rounds while a method is out of it).  --metrics
# and --chart say what --json says, per test and method; a file system that
# refuses O_DIRECT (ramfs) is said, and the reads fall back; a full disk
# while the work file is made: the error, the file removed, nothing else
# touched.

use strict;
use warnings;

use Digest::MD5;
use File::Find;
use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Metrics;
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
for my $no ([ '-s', '4k', '-s/--size' ], [ '-D', undef, '-D/--direct' ], [ '--histogram', undef, '--histogram' ],
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
	like($out, qr/, read-only, (?:direct I\/O|buffered I\/O\n  direct I\/O \(O_DIRECT\) is not available on this file system \(tmpfs\): the reads\n.*\n.*)\n  the files are in memory \(tmpfs or ramfs\): no read here is a disk read\n/,
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

# ---- --metrics and --chart: what --json says, per test and method ----

# The metrics of one series against its JSON object: requests, operations
# per second, percentiles, and a histogram of every request.
sub metrics_match_json
{
	my ($m, $x, $test, $what) = @_;
	my %l = (test => $test, method => $x->{name}, writes => $x->{writes_per_sync});
	is(metric_value($m, 'pgtempo_io_pg_requests_total', %l), $x->{count}, "$what: requests");
	ok(same_number(metric_value($m, 'pgtempo_io_pg_operations_per_second', %l), $x->{ops_per_sec}),
		"$what: operations per second as --json's");
	my $p = $x->{latency_ns}{percentiles};
	is_deeply(
		{ map { $_ => metric_value($m, 'pgtempo_io_pg_request_duration_percentile_seconds', %l,
				percentile => $_) * 1e9 } qw(50 90 99 99.9) },
		{ map { $_ => $p->{"p$_"} } qw(50 90 99 99.9) },
		"$what: percentiles as --json's");
	is(metric_value($m, 'pgtempo_io_pg_test_info', %l,
			direct_io => $x->{direct_io} ? 'true' : 'false'), 1, "$what: direct I/O said");
	is(check_histogram($m, 'pgtempo_io_pg_request_duration_seconds', $what, %l), $x->{count},
		"$what: the histogram holds every request");
	return;
}

# The chart's panels: per panel title, the counts of its bars.
sub chart_panels
{
	my ($svg) = @_;
	my (%bars, $title);
	for (split /\n/, $svg)
	{
		$title = $1 if /font-weight="bold"[^>]*>([^<]*: \d+ requests[^<]*)</;
		$bars{$title} += $1 if defined $title && /<title>&lt; [^<]*: (\d+)<\/title><\/rect>/;
	}
	return \%bars;
}

{
	my $prom = "$dir/pg.prom";
	my $svg = "$dir/pg.svg";
	$r = run_json('reads with --metrics and --chart', @conn, '-c', '40', "--metrics=$prom",
		"--chart=$svg");
	promtool_ok($prom, 'reads --metrics');
	my $m = parse_metrics(slurp_text($prom) // '');
	is_deeply($m->{errors}, [], 'reads --metrics: every line parses');
	metrics_match_json($m, $r->{reads}{$_}, 'read', "reads --metrics, $_") for qw(random sequential);
	ok(same_number(metric_value($m, 'pgtempo_io_pg_random_sequential_ratio'),
			$r->{reads}{random_sequential_ratio}), 'reads --metrics: the ratio');
	is(metric_value($m, 'pgtempo_io_pg_random_page_cost'), 4, 'reads --metrics: random_page_cost');
	is(metric_value($m, 'pgtempo_io_pg_wal_sync_method_info', method => $method), 1,
		'reads --metrics: the server\'s wal_sync_method');
	my $chart = slurp_text($svg) // '';
	like($chart, qr/^<\?xml[^>]*>\s*<svg /s, 'reads --chart: an SVG document');
	my $panels = chart_panels($chart);
	is_deeply([ sort values %$panels ], [ 40, 40 ], 'reads --chart: a panel per test, its bars hold its 40 requests');
	like($chart, qr/>random 8 KiB reads(?:, direct I\/O)?: 40 requests, [\d.]+ ops\/s, p50 /,
		'reads --chart: the random reads\' panel');

	$r = run_json('syncs with --metrics and --chart', "--wal-sync=$dir", '-c', '15', "--metrics=$prom",
		"--chart=$svg");
	promtool_ok($prom, 'syncs --metrics');
	$m = parse_metrics(slurp_text($prom) // '');
	my @methods = @{ $r->{syncs}{methods} };
	is(scalar(@methods), 8, 'syncs: eight series');
	metrics_match_json($m, $_, 'wal_sync', "syncs --metrics, $_->{name}/$_->{writes_per_sync}")
	  for @methods;
	is(scalar(metric_samples($m, 'pgtempo_io_pg_requests_total', test => 'read')), 0,
		'syncs --metrics: no read series');
	$panels = chart_panels(slurp_text($svg) // '');
	is(scalar(keys %$panels), 8, 'syncs --chart: a panel per method and writes per sync');
	is(scalar(grep { $_ != 15 } values %$panels), 0, 'syncs --chart: each panel\'s bars hold its 15 requests');
	is_deeply([ dir_entries($dir) ], [ 'pg.prom', 'pg.svg' ], 'syncs: the work file is removed');
	unlink $prom, $svg;

	($rc, $out, $err) = run_tool([ $bin, "--wal-sync=$dir", '-c', '1', "--metrics=$dir/no/x.prom" ]);
	is($rc, 1, '--metrics into a missing directory: exit 1');
	is($out, '', '... before any test');
	($rc, $out, $err) = run_tool([ $bin, "--pgdata=$pgdata", '-c', '1', "--chart=$dir" ]);
	is($rc, 1, '--chart=DIRECTORY: exit 1');
	like($err, qr/could not open file "\Q$dir\E" for writing: Is a directory/, '--chart=DIRECTORY: said');
	($rc, $out, $err) = run_tool([ $bin, "--pgdata=$pgdata", '-c', '1', "--json=$dir" ]);
	is($rc, 1, '--json=DIRECTORY: exit 1');
	is($out, '', '--json=DIRECTORY: no test ran');
	($rc, $out, $err) = run_tool([ $bin, "--wal-sync=$pgdata/PG_VERSION", '-c', '1' ]);
	is($rc, 2, '--wal-sync=FILE: exit 2');
	like($err, qr/could not create work file ".*PG_VERSION\/pgtempo-io-walsync\.tmp": Not a directory/,
		'--wal-sync=FILE: said');
}

# ---- a file system that refuses O_DIRECT (ramfs), and one that fills up ----
SKIP:
{
	skip 'no ramfs can be mounted here (user namespaces)', 9
	  unless system('unshare --user --map-root-user --mount sh -c '
		  . "'mount -t ramfs ramfs \"\$1\"' sh $dir >/dev/null 2>&1") == 0;
	my $tree = tempdir(CLEANUP => 1);
	my $fake = tempdir(CLEANUP => 1);
	mkdir "$tree/$_" for qw(base base/5 global);
	write_file("$tree/PG_VERSION", "15\n");
	write_file("$tree/base/5/16384", 'r' x 65536);
	# in a mount namespace of its own: a fresh ramfs on $fake, the tree copied there, the run
	my @on_ramfs = ('unshare', '--user', '--map-root-user', '--mount', 'sh', '-c',
		'mount -t ramfs ramfs "$1" && cp -r "$2"/. "$1"/ && shift 2 && exec "$@"', 'sh', $fake, $tree);
	($rc, $out, $err) = run_tool([ @on_ramfs, $bin, "--pgdata=$fake", '-c', '20' ]);
	is($rc, 0, 'ramfs --pgdata: exit 0, buffered') or diag($err);
	like($out, qr/^8 KiB reads over 1 relation files \(64 KiB\) in \Q$fake\E, read-only, buffered I\/O\n  direct I\/O \(O_DIRECT\) is not available on this file system \(ramfs\): the reads\n  are buffered instead/m,
		'ramfs --pgdata: no direct I/O, said in the text');
	like($out, qr/^  random +20 ops /m, 'ramfs --pgdata: the reads ran');
	($rc, $out, $err) = run_tool([ @on_ramfs, $bin, "--pgdata=$fake", '-c', '20', '--json' ]);
	my $j = eval { decode_json($out) } || {};
	is($j->{reads}{direct_io}, JSON::PP::false, 'ramfs --json: direct_io false');
	is($j->{reads}{direct_io_refused_by}, 'ramfs', 'ramfs --json: refused by ramfs');
	is($j->{reads}{random}{count}, 20, 'ramfs --json: the reads ran');
	($rc, $out, $err) = run_tool([ @on_ramfs, $bin, '-c', '1', '-D', $fake ]);
	is($rc, 2, 'ramfs -D: exit 2, as ioping\'s');
	like($err, qr/^pgtempo-io: error: fcntl\(O_DIRECT\) failed, please retry without option -D: Invalid argument\npgtempo-io: detail: Direct I\/O \(O_DIRECT\) is not available on the file system of "\Q$fake\E" \(ramfs\)\.$/m,
		'ramfs -D: ioping\'s error, and why');
	is_deeply([ dir_entries($fake) ], [], 'ramfs: the mount point beneath untouched');
}

SKIP:
{
	skip 'no small file system can be mounted here (user namespaces)', 4
	  unless mkdir("$dir/probe") && small_disk_allowed("$dir/probe");
	($rc, $out, $err) =
	  run_on_full_disk("$dir/full", "$dir/full-after", 'old', [ $bin, "--wal-sync=$dir/full", '-c', '1' ]);
	is($rc, 2, 'full disk: exit 2');
	like($err, qr/^pgtempo-io: error: could not write work file ".*\/full\/pgtempo-io-walsync\.tmp": No space left on device$/m,
		'full disk: the error');
	is_deeply([ dir_entries("$dir/full-after") ], ['old'], 'full disk: the work file removed');
	is(slurp_text("$dir/full-after/old"), "# old and complete\n", 'full disk: nothing else touched');
	system('rm', '-rf', "$dir/probe", "$dir/full", "$dir/full-after");
}

# Our operations per second by method ("fdatasync/1"): a --wal-sync run's.
sub our_ops
{
	my ($r) = @_;
	return { map { ("$_->{name}/$_->{writes_per_sync}" => $_->{ops_per_sec}) } @{ $r->{syncs}{methods} || [] } };
}

# pg_test_fsync's operations per second by method, from its first two tables.
sub their_ops
{
	my ($out) = @_;
	my (%theirs, $writes);
	for (split /\n/, $out)
	{
		$writes = 1 if /using one 8kB write/;
		$writes = 2 if /using two 8kB writes/;
		$writes = 0 if /different write sizes/;
		$theirs{"$1/$writes"} = $2 if $writes && /^\s+(\w+)\s+([\d.]+) ops\/sec/;
	}
	return \%theirs;
}

SKIP:
{
	my $ref = pg_reference('pg_test_fsync');
	skip 'no pg_test_fsync', 9 unless defined $ref;
	# Ours just before and just after pg_test_fsync, each method judged
	# against the pg_test_fsync run between: a shared disk's load (another
	# job's syncs) swings ten-fold within seconds, for ours or for theirs,
	# so a method out of the band gets up to two more rounds.
	my @methods = map { my $w = $_; map { "$_/$w" } qw(open_datasync fdatasync fsync open_sync) } 1, 2;
	my (%agree, @seen);
	my $ran = 1;
	for my $round (1 .. 3)
	{
		my (undef, $o1) = run_tool([ $bin, '--json', "--wal-sync=$dir", '-w', '1s' ]);
		my ($frc, $fout) = run_tool([ $ref, '-s', '1', '-f', "$dir/pg_test_fsync.out" ], timeout => 600);
		my (undef, $o2) = run_tool([ $bin, '--json', "--wal-sync=$dir", '-w', '1s' ]);
		$ran &&= $frc == 0;
		my @ours = map { our_ops(eval { decode_json($_) } || {}) } $o1, $o2;
		my $theirs = their_ops($fout);
		for my $k (@methods)
		{
			my $t = $theirs->{$k};
			my @o = map { $_->{$k} // 0 } @ours;
			push @seen, sprintf('round %d, %s: ours %s ops/s (before, after), pg_test_fsync %s ops/s',
				$round, $k, join(', ', map { sprintf '%.1f', $_ } @o), $t // 'n/a');
			$agree{$k} ||= defined $t && $t > 0 && grep { $_ > $t / 10 && $_ < $t * 10 } @o;
		}
		last unless grep { !$agree{$_} } @methods;
	}
	note($_) for @seen;
	ok($ran, 'pg_test_fsync ran');
	for my $k (@methods)
	{
		ok($agree{$k}, "$k: our ops/s of pg_test_fsync's order")
		  or diag(join("\n", grep { /, \Q$k\E:/ } @seen));
	}
}

done_testing();
