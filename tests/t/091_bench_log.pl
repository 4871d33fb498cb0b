# The -l logs against a server: per-transaction and aggregate lines
# checked against pgbench's documented formats and against the system
# pgbench's logs for the same options, file names with threads,
# --sampling-rate, empty intervals, per-script aggregates, logs complete
# after SIGINT, and write errors.

use strict;
use warnings;

use Cwd qw(getcwd);
use File::Path qw(make_path);
use File::Temp qw(tempdir);
use IPC::Run;
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $ref = pg_reference('pgbench');

my $node = new_cluster('bench_log', conf => "max_connections = 50\n");
my $db = $node->connstr('postgres');
my $dir = tempdir(CLEANUP => 1);

my ($rc, $out, $err) = run_tool([ $ours, '-i', '-s', '1', '-q', $db ]);
is($rc, 0, 'pgtempo-bench -i');

sub write_script { return write_file("$dir/$_[0]", $_[1]); }

# Serialization and deadlock failures on a random but seeded schedule:
# the same seed gives the same failures in both programs.
my $fail_sql = write_script('fail.sql', <<'EOS');
\set r random(1, 4)
\if :r = 1
DO $$BEGIN RAISE EXCEPTION 'ser' USING ERRCODE = '40001'; END$$;
\elif :r = 2
DO $$BEGIN RAISE EXCEPTION 'dl' USING ERRCODE = '40P01'; END$$;
\else
select 1;
\endif
EOS
my $sleep_sql = write_script('sleep.sql', "\\sleep 1500 ms\nselect 1;\n");
my $pgsleep_sql = write_script('pgsleep.sql', "select pg_sleep(0.01);\n");

# A fresh directory for one run's logs; returns the prefix to use.
my $runs = 0;
sub new_prefix
{
	my $d = "$dir/run" . ++$runs;
	make_path($d);
	return "$d/pl";
}

# The log files of a prefix: { suffix after the prefix => [ lines ] }.
sub read_logs
{
	my ($prefix) = @_;
	my %logs;
	for my $f (glob("$prefix.*"))
	{
		open my $fh, '<', $f or die "cannot read $f: $!";
		my @lines = <$fh>;
		close $fh;
		my $all = join '', @lines;
		# every line whole: the file ends with a newline
		die "$f does not end with a newline" if $all ne '' && $all !~ /\n\z/;
		chomp @lines;
		$logs{ substr($f, length($prefix)) } = \@lines;
	}
	return \%logs;
}

sub all_lines
{
	my ($logs) = @_;
	return map { @{ $logs->{$_} } } sort keys %$logs;
}

# Run a program with -l and a fresh prefix; returns (exit, stdout, stderr,
# logs, wall-clock start, wall-clock end).
sub run_logged
{
	my ($prog, $opts) = @_;
	my $prefix = new_prefix();
	my $t0 = time();
	my ($r, $o, $e) = run_tool([ $prog, @$opts, '-l', "--log-prefix=$prefix", $db ]);
	my $t1 = time();
	return ($r, $o, $e, read_logs($prefix), $t0, $t1);
}

# pgbench's per-transaction line: client_id transaction_no time script_no
# time_epoch time_us [schedule_lag] [retries], with a word in place of time
# for a transaction that did not succeed.
my $tx_re = qr/^(\d+) (\d+) (\d+|skipped|failed|serialization|deadlock) (\d+) (\d+) (\d+)((?: \d+){0,2})$/;

# What must be equal between the programs' lines: the column count and
# whether each column is a number or which word it is.
sub tx_shape
{
	my ($line) = @_;
	my @f = split / /, $line;
	return join ' ', scalar(@f), map { /^\d+$/ ? 'N' : $_ } @f;
}

# Check every line of a per-transaction log; returns the problems found.
sub check_tx_lines
{
	my ($lines, %o) = @_;
	my @bad;
	my %next;
	for my $l (@$lines)
	{
		my @m = $l =~ $tx_re;
		if (!@m)
		{
			push @bad, "not pgbench's format: $l";
			next;
		}
		my ($client, $no, $time, $script, $epoch, $us, $extra) = @m;
		my $nextra = () = $extra =~ / /g;
		push @bad, "$nextra optional columns, want $o{extra}: $l" if $nextra != $o{extra};
		push @bad, "time_us out of range: $l" if $us >= 1_000_000;
		push @bad, "time_epoch outside the run: $l"
		  if $epoch < $o{t0} - 1 || $epoch > $o{t1} + 1;
		push @bad, "unexpected word $time: $l"
		  if $time !~ /^\d+$/ && !grep { $_ eq $time } @{ $o{words} || [] };
		# a client's transactions are numbered 1, 2, 3 ... in its thread's file
		my $want = ($next{$client} || 0) + 1;
		push @bad, "client $client: transaction $no after " . ($want - 1) . ": $l"
		  if !$o{sampled} && $no != $want;
		$next{$client} = $no;
	}
	return @bad;
}

sub report_count
{
	my ($out) = @_;
	my ($n) = $out =~ /^number of transactions actually processed: (\d+)/m;
	return $n;
}

sub report_failed
{
	my ($out) = @_;
	my ($n) = $out =~ /^number of failed transactions: (\d+)/m;
	return $n || 0;
}

sub report_skipped
{
	my ($out) = @_;
	my ($n) = $out =~ /^number of transactions skipped: (\d+)/m;
	return $n || 0;
}

# ---------------------------------------------------------------- per transaction

my @cases = (
	[ 'plain',            [ '-S', '-t', '20', '-c', '2' ],                              0 ],
	[ '-R',               [ '-S', '-t', '20', '-c', '2', '-R', '500' ],                 1 ],
	[ '--max-tries',      [ '-S', '-t', '20', '-c', '2', '--max-tries', '3' ],          1 ],
	[ '-R --max-tries=0', [ '-S', '-T', '1', '-c', '2', '-R', '300', '--max-tries', '0' ], 2 ],);
for my $c (@cases)
{
	my ($label, $opts, $extra) = @$c;
	my ($r, $o, $e, $logs, $t0, $t1) = run_logged($ours, $opts);
	is($r, 0, "$label: exit 0");
	my @lines = all_lines($logs);
	is(scalar(@lines), report_count($o), "$label: a line per transaction in the report");
	is_deeply([ check_tx_lines(\@lines, extra => $extra, t0 => $t0, t1 => $t1) ],
		[], "$label: every line in pgbench's format");
  SKIP:
	{
		skip 'the system pgbench is not installed', 1 unless $ref;
		my ($rr, $ro, $re, $rlogs) = run_logged($ref, $opts);
		my %ours = map { tx_shape($_) => 1 } @lines;
		my %theirs = map { tx_shape($_) => 1 } all_lines($rlogs);
		is_deeply(\%ours, \%theirs, "$label: the same columns as pgbench's lines");
	}
}

# Failures with and without --failures-detailed, and retries: one client
# and a seed, so both programs run the same transactions, line for line.
for my $c (
	[ 'failed',         [],                        0, [qw(failed)] ],
	[ 'detailed',       ['--failures-detailed'], 0, [qw(serialization deadlock)] ],
	[ 'detailed tries', [ '--failures-detailed', '--max-tries', '3' ], 1, [qw(serialization deadlock)] ])
{
	my ($label, $more, $extra, $words) = @$c;
	my @opts = ('-n', '-f', $fail_sql, '-t', '40', '-c', '1', '--random-seed', '7', @$more);
	my ($r, $o, $e, $logs, $t0, $t1) = run_logged($ours, \@opts);
	is($r, 0, "failures $label: exit 0");
	my @lines = all_lines($logs);
	is(scalar(@lines), 40, "failures $label: 40 lines");
	is_deeply([ check_tx_lines(\@lines, extra => $extra, t0 => $t0, t1 => $t1, words => $words) ],
		[], "failures $label: every line in pgbench's format");
	my @failed = grep { (split / /)[2] !~ /^\d+$/ } @lines;
	for my $w (@$words)
	{
		ok((grep { (split / /)[2] eq $w } @failed), "failures $label: some lines say $w");
	}
	is(scalar(@failed), report_failed($o), "failures $label: as many as the report's failures");
	if ($extra)
	{
		is_deeply([ grep { $_ != 2 } map { (split / /)[6] } @failed ], [],
			"failures $label: each failure was tried 3 times");
	}
  SKIP:
	{
		skip 'the system pgbench is not installed', 1 unless $ref;
		my ($rr, $ro, $re, $rlogs) = run_logged($ref, \@opts);
		# everything but the times
		my $strip = sub {
			my @f = split / /, shift;
			$f[2] = 'N' if $f[2] =~ /^\d+$/;
			return join ' ', @f[ 0 .. 3 ], scalar(@f), @f > 6 ? $f[-1] : ();
		};
		is_deeply([ map { $strip->($_) } @lines ], [ map { $strip->($_) } all_lines($rlogs) ],
			"failures $label: the same transactions, outcomes and retries as pgbench");
	}
}

# Skipped transactions: -R with a latency limit no transaction can meet.
{
	my @opts = ('-S', '-T', '1', '-c', '1', '-R', '1000', '-L', '0.001');
	my ($r, $o, $e, $logs, $t0, $t1) = run_logged($ours, \@opts);
	is($r, 0, 'skipped: exit 0');
	my @lines = all_lines($logs);
	is_deeply([ check_tx_lines(\@lines, extra => 1, t0 => $t0, t1 => $t1, words => ['skipped']) ],
		[], 'skipped: every line in pgbench\'s format');
	my @skipped = grep { / skipped / } @lines;
	is(scalar(@skipped), report_skipped($o), 'skipped: a line per skipped transaction in the report');
	is(scalar(@lines) - @skipped, report_count($o), 'skipped: and a line per one that ran');
	is_deeply([ grep { !/ 0$/ } @skipped ], [], 'skipped: no schedule lag');
  SKIP:
	{
		skip 'the system pgbench is not installed', 1 unless $ref;
		my ($rr, $ro, $re, $rlogs) = run_logged($ref, \@opts);
		my ($one) = grep { / skipped / } all_lines($rlogs);
		skip 'pgbench skipped nothing this time', 1 unless $one && @skipped;
		is(tx_shape($skipped[0]), tx_shape($one), 'skipped: the same columns as pgbench');
	}
}

# ---------------------------------------------------------------- file names

{
	my @opts = ('-S', '-t', '5', '-c', '3', '-j', '3');
	my ($r, $o, $e, $logs) = run_logged($ours, \@opts);
	is($r, 0, '-j 3: exit 0');
	my @names = sort keys %$logs;
	is(scalar(@names), 3, '-j 3: three files');
	my ($pid) = ($names[0] // '') =~ /^\.(\d+)$/;
	ok($pid, '-j 3: the first thread\'s file is PREFIX.PID');
	is_deeply(\@names, [ ".$pid", ".$pid.1", ".$pid.2" ], '-j 3: then PREFIX.PID.1 and PREFIX.PID.2')
	  if $pid;
	for my $t (0 .. 2)
	{
		my $f = $t ? ".$pid.$t" : ".$pid";
		my %clients = map { (split / /)[0] => 1 } @{ $logs->{$f} || [] };
		is_deeply([ keys %clients ], [$t], "-j 3: thread $t logs its client");
	}
  SKIP:
	{
		skip 'the system pgbench is not installed', 1 unless $ref;
		my ($rr, $ro, $re, $rlogs) = run_logged($ref, \@opts);
		my $norm = sub { my @n = sort keys %{ $_[0] }; s/\d+/PID/ for @n; return \@n; };
		is_deeply($norm->($logs), $norm->($rlogs), '-j 3: the same names as pgbench');
	}

	# no --log-prefix: pgbench_log in the current directory
	my $cwd = getcwd();
	my $d = "$dir/default";
	make_path($d);
	chdir $d or die;
	($r, $o, $e) = run_tool([ $ours, '-S', '-t', '3', '-l', $db ]);
	chdir $cwd or die;
	is($r, 0, 'default prefix: exit 0');
	my @files = map { s{.*/}{}r } glob("$d/*");
	is(scalar(@files), 1, 'default prefix: one file');
	like($files[0] // '', qr/^pgbench_log\.\d+$/, 'default prefix: pgbench_log.PID');
}

# ---------------------------------------------------------------- sampling

{
	my @opts = ('-S', '-t', '2000', '-c', '1', '--sampling-rate', '0.1', '--random-seed', '5');
	my ($r, $o, $e, $logs, $t0, $t1) = run_logged($ours, \@opts);
	is($r, 0, 'sampling: exit 0');
	my @lines = all_lines($logs);
	# 2000 draws at 10 %: 200 lines, standard deviation 13.4; the seed is fixed
	cmp_ok(scalar(@lines), '>', 200 - 6 * 13.4, 'sampling: not too few lines');
	cmp_ok(scalar(@lines), '<', 200 + 6 * 13.4, 'sampling: not too many lines');
	is_deeply([ check_tx_lines(\@lines, extra => 0, t0 => $t0, t1 => $t1, sampled => 1) ],
		[], 'sampling: every line in pgbench\'s format');
	my ($r2, $o2, $e2, $logs2) = run_logged($ours, \@opts);
	is_deeply([ map { (split / /)[1] } all_lines($logs2) ], [ map { (split / /)[1] } @lines ],
		'sampling: the same seed logs the same transactions');
  SKIP:
	{
		skip 'the system pgbench is not installed', 1 unless $ref;
		my ($rr, $ro, $re, $rlogs) = run_logged($ref, \@opts);
		is_deeply([ map { (split / /)[1] } @lines ], [ map { (split / /)[1] } all_lines($rlogs) ],
			'sampling: the same transactions as pgbench logs for the same seed');
	}
}

# ---------------------------------------------------------------- aggregates

my $agg_re = qr/^\d+(?: \d+){14}$/;

# Check aggregate lines: format, consecutive intervals; returns problems.
sub check_agg_lines
{
	my ($lines, %o) = @_;
	my @bad;
	my $per = $o{per_script} || 1;
	my $prev;
	for my $i (0 .. $#$lines)
	{
		my $l = $lines->[$i];
		my @f = split / /, $l;
		my $want = 15 + ($o{per_script} ? 1 : 0);
		push @bad, "not $want numbers: $l" if $l !~ /^\d+(?: \d+)*$/ || @f != $want;
		next if @f < 15;
		push @bad, "min above max: $l" if $f[1] > 0 && $f[4] > $f[5];
		push @bad, "sum outside count * [min, max]: $l"
		  if $f[1] > 0 && ($f[2] < $f[1] * $f[4] || $f[2] > $f[1] * $f[5]);
		push @bad, "an empty interval with latencies: $l" if $f[1] == 0 && "@f[2..5]" ne '0 0 0 0';
		push @bad, "interval start outside the run: $l"
		  if $f[0] < $o{t0} - 1 || $f[0] > $o{t1} + 1;
		if ($o{per_script})
		{
			push @bad, "script " . $f[-1] . " where " . ($i % $per) . " was due: $l"
			  if $f[-1] != $i % $per;
			push @bad, "not the interval of the line before: $l"
			  if $i % $per && $f[0] != $prev;
		}
		push @bad, "interval $f[0] after $prev: $l"
		  if $i % $per == 0 && defined $prev && $f[0] != $prev + $o{interval};
		$prev = $f[0];
	}
	return @bad;
}

sub agg_sum
{
	my ($lines, $col) = @_;
	my $s = 0;
	$s += (split / /)[$col] for @$lines;
	return $s;
}

{
	# a transaction every 1.5 s, intervals of 1 s: some are empty
	my @opts = ('-n', '-f', $sleep_sql, '-T', '6', '-c', '1', '--aggregate-interval', '1');
	my ($r, $o, $e, $logs, $t0, $t1) = run_logged($ours, \@opts);
	is($r, 0, 'aggregate: exit 0');
	my @lines = all_lines($logs);
	is_deeply([ check_agg_lines(\@lines, interval => 1, t0 => $t0, t1 => $t1) ], [],
		'aggregate: pgbench\'s 15 columns, intervals one after the other');
	ok((grep { (split / /)[1] == 0 } @lines), 'aggregate: empty intervals are written');
	is(agg_sum(\@lines, 1), report_count($o), 'aggregate: every transaction counted, the last interval too');
	cmp_ok(scalar(@lines), '>=', 6, 'aggregate: an interval per second of the run');
  SKIP:
	{
		skip 'the system pgbench is not installed', 2 unless $ref;
		my ($rr, $ro, $re, $rlogs, $rt0, $rt1) = run_logged($ref, \@opts);
		my @rlines = all_lines($rlogs);
		# pgbench writes no line for the last interval: at least one line
		is_deeply([ check_agg_lines(\@rlines, interval => 1, t0 => $rt0, t1 => $rt1) ], [],
			'aggregate: pgbench\'s lines pass the same checks');
		cmp_ok(scalar(@lines), '>=', scalar(@rlines), 'aggregate: no fewer lines than pgbench');
	}

	# -R, -L and retries fill their columns
	@opts = ('-n', '-f', $fail_sql, '-T', '2', '-c', '2', '-R', '300', '-L', '100',
		'--max-tries', '2', '--failures-detailed', '--aggregate-interval', '1', '--random-seed', '3');
	($r, $o, $e, $logs, $t0, $t1) = run_logged($ours, \@opts);
	is($r, 0, 'aggregate -R -L --max-tries: exit 0');
	@lines = all_lines($logs);
	is_deeply([ check_agg_lines(\@lines, interval => 1, t0 => $t0, t1 => $t1) ], [],
		'aggregate -R -L --max-tries: pgbench\'s 15 columns');
	is(agg_sum(\@lines, 1), report_count($o), 'aggregate -R -L --max-tries: the successes');
	my ($retries) = $o =~ /^total number of retries: (\d+)/m;
	is(agg_sum(\@lines, 12), $retries, 'aggregate -R -L --max-tries: the retries');
	is(agg_sum(\@lines, 13) + agg_sum(\@lines, 14), report_failed($o),
		'aggregate -R -L --max-tries: the failures by kind');
	is(agg_sum(\@lines, 10), report_skipped($o), 'aggregate -R -L --max-tries: the skipped');
	ok(agg_sum(\@lines, 6) > 0, 'aggregate -R -L --max-tries: a schedule lag');

	# without --failures-detailed the failure columns stay 0, as in pgbench
	@opts = ('-n', '-f', $fail_sql, '-T', '2', '-c', '1', '--aggregate-interval', '1', '--random-seed', '3');
	($r, $o, $e, $logs) = run_logged($ours, \@opts);
	@lines = all_lines($logs);
	ok(report_failed($o) > 0, 'aggregate, failures not detailed: there were failures');
	is(agg_sum(\@lines, 13) + agg_sum(\@lines, 14), 0, 'aggregate, failures not detailed: columns 0');
  SKIP:
	{
		skip 'the system pgbench is not installed', 1 unless $ref;
		my ($rr, $ro, $re, $rlogs) = run_logged($ref, \@opts);
		my @rlines = all_lines($rlogs);
		is(agg_sum(\@rlines, 13) + agg_sum(\@rlines, 14), 0,
			'aggregate, failures not detailed: pgbench writes 0 too');
	}

	# --aggregate-per-script: a line per script per interval, its number last
	@opts = ('-n', '-b', 'select-only@1', '-b', 'simple-update@1', '-T', '2', '-c', '2',
		'--aggregate-interval', '1', '--aggregate-per-script', '--random-seed', '9');
	($r, $o, $e, $logs, $t0, $t1) = run_logged($ours, \@opts);
	is($r, 0, '--aggregate-per-script: exit 0');
	@lines = all_lines($logs);
	is_deeply([ check_agg_lines(\@lines, interval => 1, per_script => 2, t0 => $t0, t1 => $t1) ],
		[], '--aggregate-per-script: 16 columns, each interval\'s scripts in order');
	is(agg_sum(\@lines, 1), report_count($o), '--aggregate-per-script: every transaction counted');
	my @s1 = grep { / 1$/ } @lines;
	my ($n1) = $o =~ /^SQL script 2: .*\n - weight: .*\n - (\d+) transactions/m;
	is(agg_sum(\@s1, 1), $n1, '--aggregate-per-script: script 1\'s as in the report');
}

# ---------------------------------------------------------------- SIGINT

for my $agg (0, 1)
{
	my $label = $agg ? 'SIGINT, aggregates' : 'SIGINT';
	my $prefix = new_prefix();
	my ($o, $e) = ('', '');
	my @opts = ('-n', '-c', '3', '-j', '2', '-T', '600', '-P', '1', '-f', $pgsleep_sql, '-l',
		"--log-prefix=$prefix", $agg ? ('--aggregate-interval', '1') : ());
	my $h = IPC::Run::start([ $ours, @opts, $db ], '<', \'', '>', \$o, '2>', \$e,
		IPC::Run::timeout(120));
	$h->pump until $e =~ /^progress: /m;
	$h->signal('INT');
	$h->finish;
	is($h->full_result(0) >> 8, 130, "$label: exit 130");
	my $n = report_count($o);
	ok($n, "$label: transactions ran");
	my @lines = all_lines(read_logs($prefix));
	if ($agg)
	{
		is(agg_sum(\@lines, 1), $n, "$label: every transaction of the report is in the log");
	}
	else
	{
		is(scalar(@lines), $n, "$label: every transaction of the report is in the log");
		is_deeply([ check_tx_lines(\@lines, extra => 0, t0 => 0, t1 => 1e10) ], [],
			"$label: whole lines");
	}
}

# ---------------------------------------------------------------- errors

# A log that cannot be created: pgbench's message and exit status.
{
	my ($r, $o, $e) = run_tool([ $ours, '-S', '-t', '2', '-l', "--log-prefix=$dir/no/such/x", $db ]);
	is($r, 1, 'unwritable prefix: exit 1');
	like($e, qr{^pgtempo-bench: error: could not open logfile "\Q$dir\E/no/such/x\.\d+": No such file or directory$}m,
		'unwritable prefix: pgbench\'s message');
  SKIP:
	{
		skip 'the system pgbench is not installed', 1 unless $ref;
		my ($rr, $ro, $re) = run_tool([ $ref, '-S', '-t', '2', '-l', "--log-prefix=$dir/no/such/x", $db ]);
		is($r, $rr, 'unwritable prefix: pgbench\'s exit status');
	}
}

# A full disk: the log file is a link to /dev/full, made under the name the
# process will use (exec keeps the PID).
SKIP:
{
	skip '/dev/full is not writable here', 4 unless -w '/dev/full';
	my $prefix = new_prefix();
	for my $agg (0, 1)
	{
		unlink glob("$prefix.*");
		my ($r, $o, $e) = run_tool(
			[
				$^X, '-e', 'symlink("/dev/full", "$ARGV[0].$$") or die "symlink: $!"; shift; exec(@ARGV) or die "exec: $!"',
				$prefix, $ours, '-S', '-t', '50', '-c', '1', '-l', "--log-prefix=$prefix",
				$agg ? ('--aggregate-interval', '1') : (), $db
			]);
		my $label = $agg ? 'full disk, aggregates' : 'full disk';
		isnt($r, 0, "$label: non-zero exit");
		my @msgs = $e =~ /^pgtempo-bench: error: could not write to log file "\Q$prefix\E\.\d+": No space left on device$/mg;
		is(scalar(@msgs), 1, "$label: the error, once");
		my ($lost) = $e =~ /(\d+) log line/;
		ok(defined $lost && $lost > 0, "$label: says how many lines were lost");
		is($lost, 50, "$label: every line was lost") unless $agg;
		like($o, qr/^number of transactions actually processed: 50\/50$/m, "$label: the report still comes");
	}
}

done_testing();
