# pgtempo-bench under output faults: standard output on /dev/full in every
# mode, report and log paths that cannot be written (found before the run
# connects), -l logs that reach the file at least once a second (a kill -9
# keeps what came before the last second), and a disk that fills up under
# the logs and the report files (a small tmpfs, mounted in a user and mount
# namespace of our own: skipped where the kernel does not allow that).

use strict;
use warnings;

use File::Path qw(make_path);
use File::Temp qw(tempdir);
use IPC::Run;
use PgTempo::Test;
use Test::More;
use Time::HiRes qw(sleep);

my $ours = pgtempo_bin('pgtempo-bench');
my $ref = pg_reference('pgbench');

my $node = new_cluster('bench_output_faults');
my $db = $node->connstr('postgres');
my $dir = tempdir(CLEANUP => 1);

my ($rc, $out, $err) = run_tool([ $ours, '-i', '-s', '1', '-q', $db ]);
is($rc, 0, 'pgtempo-bench -i');

# Run a command with standard output on /dev/full; returns (exit, stderr).
sub run_to_full
{
	my ($cmd) = @_;
	my $e = '';
	print '# Running (stdout on /dev/full): ' . join(' ', @$cmd) . "\n";
	IPC::Run::run($cmd, '<', \'', '>', '/dev/full', '2>', \$e,
		IPC::Run::timeout(120));
	my $st = $?;
	my $code = ($st & 127) ? 128 + ($st & 127) : $st >> 8;
	print "# exit code: $code\n# stderr:\n$e";
	return ($code, $e);
}

# Whole lines only: "" or text that ends with a newline.
sub whole_lines { return $_[0] eq '' || $_[0] =~ /\n\z/; }

# ---------------------------------------------------------------- stdout

SKIP:
{
	skip '/dev/full is not writable here', 14 unless -w '/dev/full';
	for my $case (
		[ '--help', [ '--help' ] ],
		[ '--version', [ '--version' ] ],
		[ '--dry-run', [ '--dry-run', '-t', '3' ] ],
		[ 'text report', [ '-S', '-t', '3', $db ] ],
		[ '--json=-', [ '-S', '-t', '3', '--json=-', $db ] ],
		[ '--chart=-', [ '-S', '-t', '3', '--chart=-', $db ] ],
		[ '-l run', [ '-S', '-t', '3', '-l', "--log-prefix=$dir/stdout", $db ] ])
	{
		my ($label, $args) = @$case;
		my ($r, $e) = run_to_full([ $ours, @$args ]);
		isnt($r, 0, "stdout on /dev/full, $label: non-zero exit");
		my @msgs = $e =~ /^pgtempo-bench: error: could not write to standard output: No space left on device$/mg;
		ok(@msgs == 1 && $e !~ /Success/, "stdout on /dev/full, $label: the error names the reason, once");
	}
	if ($ref)
	{
		my ($r) = run_to_full([ $ref, '--version' ]);
		note("for the man page: pgbench --version >/dev/full exits $r");
	}
}

# ---------------------------------------------------------------- bad paths

# Each bad path fails before the run: the server named does not exist, so
# a tool that connected first would fail with a connection error instead.
{
	my $nohost = "$dir/no-server-here";
	make_path("$dir/ro");
	my $ro = "$dir/ro/file";
	write_file($ro, '');
	chmod 0444, $ro;
	my @cases = (
		[ '--json in a missing directory', [ "--json=$dir/missing/r.json" ],
			qr{could not open file "\Q$dir\E/missing/r\.json" for writing: No such file or directory} ],
		[ '--chart on a directory', [ "--chart=$dir" ],
			qr{could not open file "\Q$dir\E" for writing: Is a directory} ],
		[ '--latency-histogram on a missing directory', [ "--latency-histogram=$dir/missing/h.txt" ],
			qr{could not open file "\Q$dir\E/missing/h\.txt" for writing: No such file or directory} ],
		[ '-l with a prefix in a missing directory', [ '-l', "--log-prefix=$dir/missing/pl" ],
			qr{could not open logfile "\Q$dir\E/missing/pl\.\d+": No such file or directory} ]);
	# root may write anything: the permission case needs an ordinary user
	push @cases,
	  [ '--json on a read-only file', [ "--json=$ro" ],
		qr{could not open file "\Q$ro\E" for writing: Permission denied} ]
	  if $> != 0;
	for my $case (@cases)
	{
		my ($label, $args, $want) = @$case;
		my ($r, $o, $e) = run_tool([ $ours, '-S', '-T', '600', @$args, '-h', $nohost, 'postgres' ]);
		is($r, 1, "$label: exit 1");
		like($e, qr{^pgtempo-bench: error: $want$}m, "$label: the error names the file");
		unlike($e, qr{connection|server}, "$label: before any connection");
	}

	# a good path beside a bad one is left as it was: the check creates nothing
	my ($r, $o, $e) = run_tool([ $ours, '-S', '-t', '1', "--json=$dir/good.json", "--chart=$dir",
		'-h', $nohost, 'postgres' ]);
	is($r, 1, 'good and bad path: exit 1');
	ok(!-e "$dir/good.json", 'good and bad path: the good file is not left behind');

	# a run that cannot connect leaves no empty log behind
	make_path("$dir/noconn");
	($r, $o, $e) = run_tool([ $ours, '-S', '-t', '1', '-l', "--log-prefix=$dir/noconn/pl",
		'-h', $nohost, 'postgres' ]);
	is($r, 1, 'no server with -l: exit 1');
	is_deeply([ glob("$dir/noconn/pl.*") ], [], 'no server with -l: no empty log left');
}

# ---------------------------------------------------------------- once a second

# A run killed with SIGKILL keeps the lines of all but its last second.  At
# 50 transactions a second, 3.5 s of lines fit many times in the log's
# buffer: without the flush every second the file would still be empty.
for my $agg (0, 1)
{
	my $label = $agg ? 'kill -9, aggregates' : 'kill -9';
	my $d = "$dir/kill$agg";
	make_path($d);
	my ($o, $e) = ('', '');
	my $timer = IPC::Run::timeout(120);
	my $h = IPC::Run::start(
		[
			$ours, '-S', '-T', '60', '-R', '50', '-c', '1', '-n', '-P', '1', '-l',
			"--log-prefix=$d/pl", $agg ? ('--aggregate-interval', '1') : (), $db
		],
		'<', \'', '>', \$o, '2>', \$e, $timer);
	# the first progress line: the run has gone on for a second
	$h->pump until $e =~ /^progress: /m || $timer->is_expired;
	sleep 2.5;
	$h->signal('KILL');
	$h->finish;
	print "# stderr:\n$e";
	my ($log) = glob("$d/pl.*");
	my $text = slurp_text($log) // '';
	my @lines = split /\n/, $text;
	ok(whole_lines($text), "$label: the log ends on a whole line");
	if ($agg)
	{
		cmp_ok(scalar(@lines), '>=', 2, "$label: the intervals before the last second are there");
	}
	else
	{
		# about 50 a second: the file has at least one second of them
		cmp_ok(scalar(@lines), '>=', 40, "$label: the lines before the last second are there");
		# -R adds the schedule lag column
		is(scalar(grep { !/^0 \d+ \d+ 0 \d+ \d+ \d+$/ } @lines), 0, "$label: every line well-formed");
	}
}

# ---------------------------------------------------------------- full disk

# A 64 kB tmpfs of our own: unprivileged users can mount one in a user and
# mount namespace where the kernel allows it (the tests run as an ordinary
# user).  Inside, we are "root": name the database user.
my $user = getpwuid($<);
my $ns_ok = system('unshare --user --map-root-user --mount sh -c '
	  . "'mount -t tmpfs -o size=64k tmpfs \"\$1\"' sh $dir >/dev/null 2>&1") == 0;

SKIP:
{
	skip 'cannot mount a small tmpfs here (unshare --user --map-root-user --mount and '
	  . 'mount -t tmpfs must be allowed): the full-disk tests did not run', 25
	  unless $ns_ok;

	# Run the shell commands in a namespace with a fresh 64 kB tmpfs on
	# $fs, the first $fill bytes of it taken; what the tool left there is
	# copied to $save.  Returns (exit, stdout, stderr) of the last command.
	my $fs = "$dir/fs";
	make_path($fs);
	my $pre = '';    # files there before the disk fills, each holding "complete\n"
	my $run_full = sub {
		my ($fill, $save, @cmd) = @_;
		make_path($save);
		my $script = 'mount -t tmpfs -o size=64k tmpfs "$1" || exit 99; '
		  . 'for f in $PRE; do echo complete >"$1/$f"; done; '
		  . 'head -c "$2" /dev/zero >"$1/fill" 2>/dev/null; '
		  . 'fs=$1; dst=$3; shift 3; "$@"; rc=$?; '
		  . 'rm -f "$fs/fill"; cp "$fs"/* "$dst"/ || exit 98; exit $rc';
		return run_tool(
			[
				'unshare', '--user', '--map-root-user', '--mount', 'sh', '-c', $script, 'sh',
				$fs, $fill, $save, @cmd
			],
			env => { PGUSER => $user, PGHOST => $node->host, PGPORT => $node->port, PRE => $pre });
	};

	# Per-transaction lines; one page (4 kB) left: the write that fills the
	# disk stops in the middle of a line.
	my $n = 1000;
	my $save = "$dir/full-tx";
	my ($r, $o, $e) = $run_full->(61440, $save, $ours, '-S', '-n', '-t', $n, '-c', '1', '-l',
		"--log-prefix=$fs/pl", 'postgres');
	ok($r != 99 && $r != 98, 'full disk: the tmpfs was mounted, the log copied out');
	is($r, 1, 'full disk: exit 1');
	like($e, qr{^pgtempo-bench: error: could not write to log file "\Q$fs\E/pl\.\d+": No space left on device$}m,
		'full disk: the error names the file and the reason');
	my ($lost) = $e =~ /could not write the last (\d+) line\(s\) of log file "\Q$fs\E\/pl\.\d+"/;
	ok(defined $lost, 'full disk: how many lines the file lacks');
	like($o, qr{^number of transactions actually processed: $n/$n$}m,
		'full disk: measured to the end, the report still comes');
	my ($log) = glob("$save/pl.*");
	my $text = defined $log ? slurp_text($log) : '';
	my @lines = split /\n/, $text;
	ok(whole_lines($text), 'full disk: the log ends on a whole line');
	cmp_ok(scalar(@lines), '>', 0, 'full disk: the lines that fitted are there');
	is(scalar(grep { !/^0 \d+ \d+ 0 \d+ \d+$/ } @lines), 0, 'full disk: every line well-formed');
	is_deeply([ map { (split / /)[1] } @lines ], [ 1 .. scalar(@lines) ],
		'full disk: the first transactions, in order');
	is(scalar(@lines) + ($lost // 0), $n, 'full disk: lines kept + lines reported lost = transactions');
	like($e, qr{^pgtempo-bench: error: \Q$lost\E log line\(s\) were lost}m, 'full disk: the total')
	  if defined $lost;

	# Aggregate lines on a disk with no room at all: every interval is lost.
	$save = "$dir/full-agg";
	($r, $o, $e) = $run_full->(65536, $save, $ours, '-S', '-n', '-T', '3', '-R', '20', '-c', '1',
		'-l', "--log-prefix=$fs/pa", '--aggregate-interval', '1', 'postgres');
	is($r, 1, 'full disk, aggregates: exit 1');
	like($e, qr{^pgtempo-bench: error: could not write to log file "\Q$fs\E/pa\.\d+": No space left on device$}m,
		'full disk, aggregates: the error');
	($lost) = $e =~ /could not write the last (\d+) line\(s\)/;
	# 3 s from a start inside a second: 3 or 4 intervals, the last one
	# partial, or one more if a loaded machine ends the run late (the exact
	# count is checked in check_bench_txlog)
	ok(defined $lost && $lost >= 3 && $lost <= 5, 'full disk, aggregates: every interval counted as lost');
	like($o, qr{^number of transactions actually processed: \d+$}m, 'full disk, aggregates: the report');
	($log) = glob("$save/pa.*");
	ok(defined $log && -z $log, 'full disk, aggregates: nothing half-written');

	# The report files on a full disk: each named, the text report printed;
	# what the files held before is kept whole (a new file is written beside
	# them and put in their place only once it is complete), nothing is left
	# behind.  r.json is new: it is not left half-written.
	$save = "$dir/full-files";
	$pre = 'c.svg h.txt';
	($r, $o, $e) = $run_full->(65536, $save, $ours, '-S', '-n', '-t', '20', '-c', '1',
		"--json=$fs/r.json", "--chart=$fs/c.svg", "--latency-histogram=$fs/h.txt", 'postgres');
	$pre = '';
	is($r, 1, 'full disk, report files: exit 1');
	for my $f ('r.json', 'c.svg', 'h.txt')
	{
		like($e, qr{^pgtempo-bench: error: could not write to file "\Q$fs/$f\E": No space left on device$}m,
			"full disk, report files: $f named with the reason");
	}
	is(slurp_text("$save/c.svg"), "complete\n", 'full disk, report files: the chart there before is kept whole');
	is(slurp_text("$save/h.txt"), "complete\n", 'full disk, report files: the histogram there before is kept whole');
	ok(!-e "$save/r.json", 'full disk, report files: no half-written JSON report');
	opendir my $dh, $save or die "$save: $!";
	is_deeply([ sort grep { !/^\./ } readdir $dh ], [ 'c.svg', 'h.txt' ],
		'full disk, report files: no temporary file left behind');
	closedir $dh;
	like($o, qr{^number of transactions actually processed: 20/20$}m,
		'full disk, report files: the text report still comes');

	# pgbench under the same fault, for the man page: seen, not asserted
	if ($ref)
	{
		$save = "$dir/full-ref";
		($r, $o, $e) = $run_full->(61440, $save, $ref, '-S', '-n', '-t', $n, '-c', '1', '-l',
			"--log-prefix=$fs/pl", 'postgres');
		($log) = glob("$save/pl.*");
		$text = defined $log ? slurp_text($log) : '';
		note(sprintf('for the man page: pgbench on a full disk exits %d, says %s, '
			  . 'its log ends %s', $r, $e =~ /No space/ ? 'so' : 'nothing',
			  whole_lines($text) ? 'on a whole line' : 'in a half line'));
	}
}

done_testing();
