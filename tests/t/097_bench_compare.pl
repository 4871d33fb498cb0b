# --compare on short real runs: the per-interval series every --json
# report carries; an A/A pair (identical runs) never trips a wide gate and
# gets one of the three verdicts; a large injected change (\sleep 2 ms
# before each SELECT 1, through -D on one script) is "lower" for tps and
# "higher" for latency, one run per side and three per side, and trips
# --fail-if, however the limit is spelt (the gate's grammar, shared with
# pgtempo-waits: tps:-10%, tps<-50%, tps<0.5x); too
# short runs give "unknown"; then bad input: runs of different
# benchmarks, a missing --to, an unreadable report, a bad --fail-if.
# Verdicts are asserted, never a tps.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');

my $node = new_cluster('bench_compare', conf => "max_connections = 50\n");
my $db = $node->connstr('postgres');
my $dir = tempdir(CLEANUP => 1);
my $verdict_re = qr/^(higher|lower|no difference shown)$/;

sub json_of
{
	my ($path) = @_;
	open my $fh, '<', $path or return {};
	local $/;
	my $j = eval { JSON::PP->new->decode(<$fh>) };
	ok(defined $j, "$path: one JSON document") or diag($@);
	return $j || {};
}

# runs NAME => [ARGS], ...: the runs at once (they share the machine alike), each a --json report
sub runs
{
	my (%runs) = @_;
	my %h;
	for my $name (sort keys %runs)
	{
		my @cmd = ($ours, '-n', @{ $runs{$name} }, "--json=$dir/$name.json", $db);
		my ($out, $err) = ('', '');
		print '# Running: ' . join(' ', @cmd) . "\n";
		$h{$name} = { err => \$err,
			h => IPC::Run::start(\@cmd, '<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(120)) };
	}
	for my $name (sort keys %h)
	{
		$h{$name}{h}->finish;
		is($h{$name}{h}->result(0), 0, "run $name: exit 0") or diag(${ $h{$name}{err} });
	}
}

# The result of metric (overall) in a comparison's JSON.
sub result
{
	my ($cmp, $metric) = @_;
	my ($r) = grep { $_->{scope} eq 'overall' && $_->{metric} eq $metric } @{ $cmp->{results} };
	return $r || {};
}

my $script = write_file("$dir/s.sql", "\\sleep :d us\nSELECT 1;\n");
my @one = ('-f', $script, '-c', 1, '-T', 23);

# ---------------------------------------------------------------- one run per side

runs(a1 => [ @one, '-D', 'd=0' ], a2 => [ @one, '-D', 'd=0' ], s1 => [ @one, '-D', 'd=2000' ]);

my $a1 = json_of("$dir/a1.json");
is_deeply($a1->{intervals}{columns},
	[qw(time_s epoch_s interval_s transactions failed latency_sum_ns histogram)],
	'--json: the series of intervals, without -P');
cmp_ok(scalar @{ $a1->{intervals}{rows} }, '>=', 21, '--json: a row a second');
like($a1->{intervals}{rows}[1][6], qr/^\d+( \+?\d+)+$/, '--json: a row\'s histogram as text');

my ($code, $out, $err) = run_tool([ $ours, '--compare', "$dir/a1.json", '--to', "$dir/a2.json",
	'--fail-if=tps:-50%', "--json=$dir/aa.json", "--chart=$dir/aa.svg" ]);
is($code, 0, 'A/A: a wide gate is not tripped') or diag($err);
my $aa = json_of("$dir/aa.json");
like(result($aa, $_)->{verdict}, $verdict_re, "A/A: $_ has a verdict") for qw(tps avg p50 p99);
like($out, qr/^  tps\s+[\d.]+\s+[\d.]+\s+[-+][\d.]+ %\s+\[[-+][\d.]+ %, [-+][\d.]+ %\]\s+(higher|lower|no difference shown)$/m,
	'A/A: the tps line');
like($out, qr/cover only the noise within a run/, 'A/A: one run per side says what its intervals cover');
is($aa->{method}{unit}, 'interval', 'A/A: JSON says the unit');
my $svg = do { local $/; open my $fh, '<', "$dir/aa.svg" or die; <$fh> };
like($svg, qr/Throughput of each run.*Latency distributions/s, '--chart: both panels');
is(scalar(() = $svg =~ /<svg /g), 2, '--chart: the distributions are a nested chart');
# ids are the whole document's: the nested chart's clip path must not be found by the outer one's id
my @ids = $svg =~ /\bid="([^"]+)"/g;
my %seen;
is(scalar(grep { $seen{$_}++ } @ids), 0, '--chart: no element id twice (' . join(',', @ids) . ')');
is(scalar(grep { !$seen{$_} } $svg =~ /url\(#([^)]+)\)/g), 0, '--chart: every url(#id) names an element');

# --json alone: the comparison's document on stdout, the table on stderr;
# "--json FILE" is still a file
($code, $out, $err) = run_tool([ $ours, '--compare', "$dir/a1.json", '--to', "$dir/a2.json", '--json' ]);
is($code, 0, '--compare --json alone: exit 0') or diag($err);
my $bare = eval { decode_json($out) };
is($bare && $bare->{method}{unit}, 'interval', '--compare --json alone: stdout is the document');
is_deeply([ map { $_->{metric} } @{ $bare->{results} || [] } ], [ map { $_->{metric} } @{ $aa->{results} } ],
	'--compare --json alone: the metrics of --json=FILE');
like($err, qr/^  tps\s/m, '--compare --json alone: the table on stderr');
($code) = run_tool([ $ours, '--compare', "$dir/a1.json", '--json', "$dir/sp.json", '--to', "$dir/a2.json" ]);
is($code, 0, '--compare --json FILE: exit 0');
is(json_of("$dir/sp.json")->{method}{unit}, 'interval', '--compare --json FILE: still a file');

($code, $out, $err) = run_tool([ $ours, '--compare', "$dir/a1.json", '--to', "$dir/s1.json",
	'--fail-if=tps:-10%', "--json=$dir/as.json" ]);
is($code, 3, 'injected \sleep 2ms: --fail-if=tps:-10% exits 3') or diag($out, $err);
my $as = json_of("$dir/as.json");
is(result($as, 'tps')->{verdict}, 'lower', 'injected: tps lower');
is(result($as, 'avg')->{verdict}, 'higher', 'injected: latency average higher');
is(result($as, 'p50')->{verdict}, 'higher', 'injected: p50 higher');
ok($as->{fail_if}[0]{tripped}, 'injected: JSON says the gate tripped');
like($out, qr/--fail-if=tps:-10%: the change is beyond the limit/, 'injected: the gate is named');
like($out, qr/^95 % intervals for the \d+ lines together \(Bonferroni: each at [\d.]+ %\)\.$/m,
	'injected: the family of the intervals is said');
# one failure rule in every mode: an output not written is said and makes
# the exit status 1, unless it already says more (the tripped gate's 3)
SKIP:
{
	skip '/dev/full is not writable here', 2 unless -w '/dev/full';
	($code, $out, $err) = run_tool([ $ours, '--compare', "$dir/a1.json", '--to', "$dir/s1.json",
		'--fail-if=tps:-10%', '--json=/dev/full' ]);
	is($code, 3, 'tripped gate, --json on a full disk: still exit 3');
	like($err, qr{^pgtempo-bench: error: could not write to file "/dev/full": No space left on device$}m,
		'tripped gate, --json on a full disk: the error');
}
($code) = run_tool([ $ours, '--compare', "$dir/a1.json", '--to', "$dir/s1.json", '--fail-if=tps:-99.9%' ]);
is($code, 0, 'injected: a limit beyond the change is not tripped');
# wide limits: an A/A pair of one run per side must not trip them on a busy host
for my $spelling ('tps<-50%', 'tps:<-50%', 'tps<0.5x', 'latency:p50:>+100%', 'avg>2x')
{
	($code, $out) = run_tool([ $ours, '--compare', "$dir/a1.json", '--to', "$dir/s1.json", "--fail-if=$spelling" ]);
	is($code, 3, "injected: --fail-if=$spelling exits 3");
	($code) = run_tool([ $ours, '--compare', "$dir/a1.json", '--to', "$dir/a2.json", "--fail-if=$spelling" ]);
	is($code, 0, "A/A: --fail-if=$spelling exits 0");
}
($code) = run_tool([ $ours, '--compare', "$dir/a1.json", '--to', "$dir/s1.json", '--fail-if=tps>-50%' ]);
is($code, 0, 'injected: a limit the other way is not tripped');

# ---------------------------------------------------------------- three runs per side, and too short runs

my @short = ('-f', $script, '-c', 1, '-T', 3);
runs(map({ ("b$_" => [ @short, '-D', 'd=0' ], "n$_" => [ @short, '-D', 'd=2000' ]) } 1 .. 3),
	c2 => [ '-f', $script, '-c', 2, '-T', 3, '-D', 'd=0' ]);
($code, $out, $err) = run_tool([ $ours, '--compare', map("$dir/b$_.json", 1 .. 3), '--to',
	map("$dir/n$_.json", 1 .. 3), "--json=$dir/bn.json" ]);
is($code, 0, '3 against 3: exit 0') or diag($err);
my $bn = json_of("$dir/bn.json");
is(result($bn, 'tps')->{verdict}, 'lower', '3 against 3: tps lower');
is(result($bn, 'avg')->{verdict}, 'higher', '3 against 3: latency average higher');
is($bn->{method}{unit}, 'run', '3 against 3: the run is the unit');
# the comparison's envelope, one shape with pgtempo-waits' (174_waits_baseline)
is_deeply([ sort keys %$bn ],
	[ sort qw(tool version kind schema base new method differences results fail_if exit_status) ],
	'3 against 3: JSON\'s top-level members');
is_deeply([ $bn->{tool}, $bn->{kind}, $bn->{schema} ], [ 'pgtempo-bench', 'comparison', 2 ],
	'3 against 3: JSON\'s tool, kind and schema');
is_deeply([ $bn->{base}{files}, $bn->{new}{files} ],
	[ [ map("$dir/b$_.json", 1 .. 3) ], [ map("$dir/n$_.json", 1 .. 3) ] ],
	'3 against 3: each side\'s files');
ok(defined $bn->{method}{level} && $bn->{method}{family} > 0 && $bn->{method}{level_each} > $bn->{method}{level},
	'3 against 3: the level, family and each one\'s level in the method');
like($out, qr/the run is the unit/, '3 against 3: the method is printed');

($code, $out, $err) = run_tool([ $ours, '--compare', "$dir/b1.json", '--to', "$dir/c2.json",
	'--fail-if=tps:-1%', "--json=$dir/short.json" ]);
is($code, 0, 'too short runs: the gate cannot be checked, exit 0');
like($out, qr/unknown: too few data for an interval/, 'too short runs: said so');
is(result(json_of("$dir/short.json"), 'tps')->{verdict}, 'unknown', 'too short runs: verdict unknown');
like($err, qr/--fail-if=tps:-1%: not checked/, 'too short runs: the gate was not checked');
like($out, qr/^differences between the runs:\n(  .*\n)*  settings\.clients\s+ base 1; new 2$/m,
	'the settings that differ are listed');

# ---------------------------------------------------------------- bad input

my $other = write_file("$dir/other.sql", "SELECT 2;\n");
runs(other => [ '-f', $other, '-T', 1 ]);
($code, $out, $err) = run_tool([ $ours, '--compare', "$dir/b1.json", '--to', "$dir/other.json" ]);
is($code, 1, 'another benchmark: exit 1');
like($err, qr/error: "\S+b1.json" and "\S+other.json" are not runs of the same benchmark: settings\.transaction_type differs/,
	'another benchmark: the difference is named');
($code, $out, $err) = run_tool([ $ours, '--compare', "$dir/b1.json", "$dir/b2.json" ]);
is($code, 1, 'no --to: exit 1');
like($err, qr/error: --compare needs --to and the new runs' --json reports/, 'no --to: said so');
($code, $out, $err) = run_tool([ $ours, '--compare', "$dir/b1.json", '--to', "$dir/nothere.json" ]);
is($code, 1, 'unreadable report: exit 1');
like($err, qr/error: .*nothere\.json/, 'unreadable report: named');
($code, $out, $err) = run_tool([ $ours, '--compare', "$dir/b1.json", '--to', "$dir/b2.json", '--fail-if=tps:5%' ]);
is($code, 1, 'a limit without its sign: exit 1');
like($err, qr/error: invalid value "tps:5%" for option --fail-if: the limit is a signed change in % \(-5%\) or a ratio after < or > \(<0\.95x\), as in "tps:-5%,p99:\+10%"$/m,
	'a limit without its sign: said so, in one line');
($code, $out, $err) = run_tool([ $ours, '--compare', "$dir/b1.json", '--to', "$dir/b2.json", '--fail-if=Lock:+0.5' ]);
is($code, 1, 'a waits limit: exit 1');
like($err, qr/invalid value "Lock:\+0\.5" for option --fail-if: the limit is a signed change in %/,
	'a waits limit: its unit is refused first');
($code, $out, $err) = run_tool([ $ours, '--compare', "$dir/b1.json", '--to', "$dir/b2.json", '--fail-if=p42:+5%' ]);
is($code, 1, 'a limit on a percentile not compared: exit 1');
like($err, qr/"p42" is not one of the metrics compared/, 'a percentile not compared: said so');

done_testing();
