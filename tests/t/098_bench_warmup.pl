# --warmup against a server: the report, --json and the -l logs leave
# the warm-up out (the transaction count of the report is the number of
# unmarked log lines, and every marked line started before the measured
# part, every unmarked one after it); aggregate lines likewise; -t counts
# the measured transactions only; -P marks the warm-up's lines and --json
# keeps only the measured ones; under -R a backlog of the warm-up is not
# carried into the measured part; --warmup=auto says when and why it
# ended; bad values are refused.  Nothing here asserts a rate or a time
# that the machine's load could change.

use strict;
use warnings;

use File::Path qw(make_path);
use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');

# Bad values, before any server is needed.
for my $bad ('-1', 'x', 'auto:0', 'auto:', 'auto:x', '1.5', 'autox', '')
{
	my ($rc, $out, $err) = run_tool([ $ours, "--warmup=$bad", '-T', '1' ]);
	is($rc, 1, "--warmup=$bad: exit status 1");
	like($err, qr/^pgtempo-bench: error: invalid value "\Q$bad\E" for option --warmup$/m,
		"--warmup=$bad: the value is named");
}

{
	my ($rc, $out, $err) = run_tool([ $ours, '--dry-run', '--warmup=5', '-t', '1' ]);
	is($rc, 1, '--dry-run with --warmup: exit status 1');
	like($err, qr/^pgtempo-bench: error: --dry-run runs no warm-up \(--warmup\)$/m, '--dry-run with --warmup: why');
}

my $node = new_cluster('bench_warmup', conf => "max_connections = 30\n");
my $db = $node->connstr('postgres');
my $dir = tempdir(CLEANUP => 1);
my $sleep5 = write_file("$dir/sleep5.sql", "select pg_sleep(0.005);\n");

my $runs = 0;
sub new_prefix
{
	my $d = "$dir/run" . ++$runs;
	make_path($d);
	return "$d/wl";
}

# Every line of every log file of a prefix.
sub log_lines
{
	my ($prefix) = @_;
	return map { slurp_lines($_) } sort glob("$prefix.*");
}

sub read_json
{
	my ($file) = @_;
	my $text = join "\n", slurp_lines($file);
	my $j = eval { JSON::PP->new->decode($text) };
	ok(defined $j, "$file: one JSON document") or diag($@);
	return $j || {};
}

sub processed
{
	my ($out) = @_;
	return $out =~ /^number of transactions actually processed: (\d+)/m ? $1 : -1;
}

# A per-transaction line's scheduled start (its end minus its latency), in seconds.
sub tx_start
{
	my @f = split / /, $_[0];
	return $f[4] + $f[5] / 1e6 - $f[2] / 1e6;
}

# A fixed warm-up with -T, -l, -P and --json, two threads.
{
	my $prefix = new_prefix();
	my ($rc, $out, $err) = run_tool(
		[
			$ours, '-n', '-f', $sleep5, '-c', '2', '-j', '2', '-T', '2',
			'--warmup=2', '-l', "--log-prefix=$prefix", '-P', '1',
			"--json=$dir/fixed.json", $db
		]);
	is($rc, 0, 'fixed warm-up: exit status 0');
	like($out, qr/^warm-up: 2 s \(not counted\)$/m, 'the report says how long the warm-up was');
	like($err, qr/^warm-up ended after 2 s$/m, 'stderr says when the warm-up ended');
	my @lines = log_lines($prefix);
	my @warm = grep { / warmup$/ } @lines;
	my @measured = grep { !/ warmup$/ } @lines;
	cmp_ok(scalar @warm, '>', 0, 'the warm-up has log lines');
	is(scalar @measured, processed($out), 'the report counts exactly the unmarked log lines');
	ok(!(grep { !/^\d+ \d+ \d+ 0 \d+ \d+$/ } @measured), 'measured lines: the plain pgbench format');
	ok(!(grep { !/^\d+ \d+ \d+ 0 \d+ \d+ warmup$/ } @warm),
		'warm-up lines: the same fields, then "warmup"');

	my $j = read_json("$dir/fixed.json");
	my $w = $j->{warmup};
	is($w->{requested}, '2', 'json: warmup.requested');
	ok($w->{ended} && $w->{seconds} == 2, 'json: the warm-up ended after 2 s');
	ok(!defined $w->{levelled_off} && !defined $w->{maximum_s}, 'json: no auto members');
	is($j->{results}{transactions}{processed}, processed($out), 'json: the measured transactions');
	my $ms = $w->{measure_start_epoch_s};
	ok(abs($j->{bench_start_epoch_s} - $ms) < 1e-6, 'json: bench_start_epoch_s is the measured start');
	# times in the log are whole microseconds: a microsecond or two of rounding
	ok(!(grep { tx_start($_) >= $ms + 2e-6 } @warm), 'every warm-up transaction started before the measured part');
	ok(!(grep { tx_start($_) < $ms - 2e-6 } @measured), 'every measured transaction started in it');

	my @prog = grep { /^progress: / } split /\n/, $err;
	my @pwarm = grep { / \(warm-up\)$/ } @prog;
	cmp_ok(scalar @pwarm, '>', 0, '-P: the warm-up\'s lines are marked');
	my $first_measured = (grep { $prog[$_] !~ /\(warm-up\)$/ } 0 .. $#prog)[0] // scalar @prog;
	ok(!(grep { /\(warm-up\)$/ } @prog[ $first_measured .. $#prog ]), '-P: marked lines come first');
	ok(!(grep { $_->{epoch_s} < $ms - 1e-6 } @{ $j->{progress} }), 'json: no progress point of the warm-up');
}

# -t counts the measured transactions only; the warm-up's are extra.
{
	my $prefix = new_prefix();
	my ($rc, $out, $err) = run_tool(
		[
			$ours, '-n', '-f', $sleep5, '-c', '2', '-t', '5', '--warmup=1', '-l',
			"--log-prefix=$prefix", $db
		]);
	is($rc, 0, '-t with a warm-up: exit status 0');
	like($out, qr/^number of transactions actually processed: 10\/10$/m, '-t: every measured transaction ran');
	my @lines = log_lines($prefix);
	is(scalar(grep { !/ warmup$/ } @lines), 10, '-t: ten unmarked lines');
	# each client's first transaction starts at the start, in the warm-up
	cmp_ok(scalar(grep { / warmup$/ } @lines), '>=', 2, '-t: the warm-up ran first');
	my %last;
	for (grep { !/ warmup$/ } @lines) { my @f = split / /; $last{ $f[0] } = $f[1]; }
	is_deeply(\%last, { 0 => 5, 1 => 5 }, '-t: the measured lines are numbered from 1 per client');
}

# --aggregate-interval: the unmarked lines add up to the report.
{
	my $prefix = new_prefix();
	my ($rc, $out, $err) = run_tool(
		[
			$ours, '-n', '-f', $sleep5, '-c', '2', '-T', '2', '--warmup=2', '-l',
			'--aggregate-interval=1', "--log-prefix=$prefix", $db
		]);
	is($rc, 0, 'aggregate: exit status 0');
	my @lines = log_lines($prefix);
	my @warm = grep { / warmup$/ } @lines;
	my @measured = grep { !/ warmup$/ } @lines;
	cmp_ok(scalar @warm, '>', 0, 'aggregate: the warm-up has lines');
	my $sum = 0;
	$sum += (split / /)[1] for @measured;
	is($sum, processed($out), 'aggregate: the unmarked lines count the report\'s transactions');
	ok(!(grep { !/^\d+( \d+){14} warmup$/ } @warm), 'aggregate: warm-up lines are pgbench\'s 15 columns and "warmup"');
	ok(!(grep { !/^\d+( \d+){14}$/ } @measured), 'aggregate: measured lines are pgbench\'s 15 columns');
}

# -R that the server cannot keep: the warm-up builds a backlog, the
# measured part starts its schedule afresh.
{
	my $slow = write_file("$dir/slow.sql", "select pg_sleep(0.1);\n");
	my $prefix = new_prefix();
	my ($rc, $out, $err) = run_tool(
		[
			$ours, '-n', '-f', $slow, '-c', '1', '-R', '50', '-T', '1', '--warmup=3', '-l',
			"--log-prefix=$prefix", "--json=$dir/rate.json", $db
		]);
	is($rc, 0, '-R: exit status 0');
	my $j = read_json("$dir/rate.json");
	my $ms = $j->{warmup}{measure_start_epoch_s};
	my @lines = log_lines($prefix);
	my @warm = grep { / warmup$/ } @lines;
	my @measured = grep { !/ warmup$/ } @lines;
	# without a fresh schedule every slot would still lie in the warm-up's backlog
	cmp_ok(scalar @measured, '>', 0, '-R: transactions were measured');
	is(scalar @measured, processed($out), '-R: the report counts the unmarked lines');
	ok(!(grep { tx_start($_) < $ms - 2e-6 } @measured), '-R: no measured slot lies in the warm-up');
	my ($max_warm_lag) = sort { $b <=> $a } map { (split / /)[6] } @warm;
	my $first_lag = (split / /, $measured[0])[6];
	cmp_ok($first_lag, '<', $max_warm_lag, '-R: the first measured transaction carries no backlog');
}

# --warmup=auto whose maximum is below the test's window: always the maximum.
{
	my ($rc, $out, $err) = run_tool(
		[ $ours, '-n', '-f', $sleep5, '-T', '1', '--warmup=auto:3', "--json=$dir/auto3.json", $db ]);
	is($rc, 0, 'auto:3: exit status 0');
	like($err, qr/^warm-up ended after 3 s: reached its maximum of 3 s without levelling off$/m,
		'auto:3: stderr says it reached its maximum');
	like($out, qr/^warm-up: 3 s \(auto, reached its maximum of 3 s; not counted\)$/m, 'auto:3: the report says so');
	my $w = read_json("$dir/auto3.json")->{warmup};
	is_deeply(
		[ @$w{qw(requested maximum_s seconds)}, $w->{levelled_off} ? 1 : 0 ],
		[ 'auto', 3, 3, 0 ],
		'auto:3: json');
}

# --warmup=auto with room to level off: either way, said and consistent.
{
	my ($rc, $out, $err) = run_tool(
		[ $ours, '-n', '-f', $sleep5, '-c', '2', '-T', '1', '--warmup=auto:8', "--json=$dir/auto8.json", $db ]);
	is($rc, 0, 'auto:8: exit status 0');
	my $w = read_json("$dir/auto8.json")->{warmup};
	like($err, qr/^warm-up ended after $w->{seconds} s: (tps and latency levelled off|reached its maximum of 8 s without levelling off)$/m,
		'auto:8: stderr says when and why');
	# five one-second samples first, then the next whole second
	ok($w->{levelled_off} ? $w->{seconds} >= 6 && $w->{seconds} <= 8 : $w->{seconds} == 8,
		"auto:8: $w->{seconds} s, levelled off: " . ($w->{levelled_off} ? 'yes' : 'no'));
}

# A stop during the warm-up: nothing was measured, and the report says so.
{
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ $ours, '-n', '-f', $sleep5, '-T', '1', '--warmup=60', "--json=$dir/stopped.json", $db ],
		'<', \'', '>', \$out, '2>', \$err, IPC::Run::timeout(60));
	# the banner is printed once connected; the warm-up lasts a minute
	IPC::Run::pump($h) until $out =~ /^pgtempo-bench /m;
	sleep 1;
	$h->signal('INT');
	$h->finish;
	is($h->full_result(0) >> 8, 130, 'stopped in the warm-up: exit 130');
	like($out, qr/^warm-up: not over when the run ended \(nothing was measured\)$/m,
		'stopped in the warm-up: the report says so');
	like($out, qr/^number of transactions actually processed: 0$/m, 'stopped in the warm-up: nothing counted');
	my $w = read_json("$dir/stopped.json")->{warmup};
	ok(!$w->{ended} && !defined $w->{seconds}, 'stopped in the warm-up: json warmup.ended false');
}

# --waits with a warm-up: the JSON series of sessions by wait class per
# interval, the measured ones only; --merge keeps it, and its --chart has
# the waits panel under tps and latency.
{
	$node->safe_psql('postgres', 'create table hot (id int primary key, v int); insert into hot values (1, 0)');
	my $hot = write_file("$dir/hot.sql",
		"begin;\nupdate hot set v = v + 1 where id = 1;\nselect pg_sleep(0.002);\nend;\n");
	my ($rc, $out, $err) = run_tool(
		[
			$ours, '-n', '-f', $hot, '-c', '4', '-j', '2', '-T', '2', '--warmup=1', '-P', '1',
			'--waits', "--json=$dir/waits.json", "--chart=$dir/waits.svg", $db
		]);
	is($rc, 0, '--waits with a warm-up: exit status 0');
	my $j = read_json("$dir/waits.json");
	my @prog = @{ $j->{progress} || [] };
	cmp_ok(scalar @prog, '>', 0, '--waits: progress entries');
	my @classes = qw(CPU Lock LWLock IO IPC BufferPin Client Timeout Activity Extension other);
	ok(!(grep { my $w = $_->{waits_aas}; defined $w && (grep { !defined $w->{$_} } @classes) } @prog),
		'--waits: each sampled interval has every class');
	ok((grep { ($_->{waits_aas}{Lock} // 0) > 0 } @prog), '--waits: the row lock shows as Lock sessions');
	my $svg = join "\n", slurp_lines("$dir/waits.svg");
	like($svg, qr/Wait events of the sessions/, '--chart: the waits panel');
	like($svg, qr/>Lock</, '--chart: Lock in its legend');
	like($svg, qr/tps, warm-up \(not counted\)/, '--chart: the warm-up\'s tps drawn apart');

	($rc, $out, $err) = run_tool([ $ours, '--merge', "--json=$dir/merged.json", "--chart=$dir/merged.svg", "$dir/waits.json" ]);
	is($rc, 0, '--merge of a --waits report: exit status 0');
	like($out, qr/^warm-up: 1 s \(not counted\)$/m, '--merge: the report says how long the warm-up was');
	my $m = read_json("$dir/merged.json");
	is_deeply([ @{ $m->{warmup} }{qw(requested seconds ended)} ], [ '1', 1, JSON::PP::true ],
		'--merge: the warmup object');
	is_deeply([ map { $_->{waits_aas}{Lock} } @{ $m->{progress} } ], [ map { $_->{waits_aas}{Lock} } @prog ],
		'--merge keeps the series');
	$svg = join "\n", slurp_lines("$dir/merged.svg");
	like($svg, qr/Wait events of the sessions/, '--merge --chart: the waits panel');
}

$node->stop;
done_testing();
