# pgtempo-bench --capacity against a known answer: one client running a
# transaction that holds one row lock through a pg_sleep makes the server
# a single queue with Poisson arrivals (-R).  Its service times are
# measured: a transaction that finds the queue empty starts from sleep
# (the client and the backend wake up: on a busy host that costs
# milliseconds), one that waited starts at once; so a histogram from an
# open-loop run at a tenth of the ceiling (nearly every transaction finds
# the queue empty) and the service times in order from a closed-loop run
# (none does).  The rate at which that queue's p99 reaches the objective is
# computed here by simulation (Lindley's recursion; a simulation that drew
# the service times independently from a histogram predicted twice the
# capacity found, since on a busy host long service times come in runs).
# The objective is the p99 at three quarters of the ceiling, where the p99
# climbs steeply with the rate (at 60 % the curve is so flat that a 10 %
# error of the p99 is one of the rate as well).
#
# On a 2-core host shared with other jobs the service times wander by a
# factor of two within minutes, and the p99 of one 17 s run at a fixed
# rate by a factor of ten (host stalls of 100 ms and more), so they are
# measured before and after the search, and the search's own probe gives
# a third ceiling: the capacity must lie within BAND_LO..BAND_HI of the two
# predictions when the three ceilings and the two predictions agree within
# STEADY (pgtempo-bench(1), CAPACITY SEARCH, gives the accuracy measured);
# when they do not, the host was not steady and only the coarse checks
# hold.  Those always hold: a search that measured
# latency from when the client was free (hiding the queue) passes every
# rate up to its ceiling and fails the upper check; one that found nothing
# or fell to its lowest rate (1/64 of the ceiling) fails the lower one.
# The measured errors are printed (note) for the record.
# Also: the report's table and its JSON agree with the rule (a passing
# step's upper bound is below the target, the capacity is the highest
# passing rate, its bracket's upper end the lowest failing rate above it),
# --fail-if=capacity:<N exits 3 when the bracket lies wholly below N and 0
# when not, and the option checks.  --metrics: promtool accepts the file
# and its numbers are the JSON's (capacity, bracket, steps, verdict);
# --chart: a well-formed SVG with the capacity marked and a point per rate;
# their paths are checked before the search starts.

use strict;
use warnings;

use File::Temp qw(tempdir);
use JSON::PP;
use List::Util qw(first max min sum);
use PgTempo::Metrics;
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $dir = tempdir(CLEANUP => 1);

# the objective is the queue's p99 at RHO of its ceiling; the search's budget
use constant RHO => 0.75;
use constant SEARCH_S => 170;
# the band around the predictions, asked when the ceilings and the two
# predictions each agree within STEADY: what ten searches here support
# (pgtempo-bench(1)), not the 10 % hoped for
use constant BAND_LO => 0.3;
use constant BAND_HI => 1.2;
use constant STEADY => 1.2;

# ---------------------------------------------------------------- option checks (no server)
for my $case (
	[ [ '--capacity=p99>10ms', '-T', '60' ], qr/invalid value "p99>10ms" for option --capacity/ ],
	[ [ '--capacity=tps<10', '-T', '60' ], qr/invalid value "tps<10" for option --capacity/ ],
	[ [ '--capacity=p99<10ms' ], qr/--capacity needs a duration \(-T/ ],
	[ [ '--capacity=p99<10ms', '-T', '60', '-R', '10' ], qr/--capacity needs no -R/ ],
	[ [ '--capacity=p99<10ms', '-T', '10' ], qr/--capacity needs a budget \(-T\) of at least 30 seconds/ ],
	[ [ '--capacity=p99<10ms', '-T', '60', '--capacity-resolution=0' ],
		qr/invalid value "0" for option --capacity-resolution/ ],
	[ [ '--fail-if=capacity:<10', '-T', '60' ], qr/--fail-if needs --capacity/ ],
	[ [ '--capacity=p99<10ms', '-T', '60', '--fail-if=tps<10' ],
		qr/invalid value "tps<10" for option --fail-if/ ],
	[ [ '--capacity=p99<10ms', '-T', '60', "--latency-histogram=$dir/h.txt" ],
		qr/--capacity needs no -l or --latency-histogram/ ],
	# the outputs' paths, before connecting (the host does not exist)
	[ [ '--capacity=p99<10ms', '-T', '60', "--chart=$dir/no/such/dir/c.svg" ],
		qr{^pgtempo-bench: error: could not open file "\Q$dir\E/no/such/dir/c\.svg" for writing: No such file or directory$}m ],
	[ [ '--capacity=p99<10ms', '-T', '60', "--metrics=$dir/no/such/dir/m.prom" ],
		qr{^pgtempo-bench: error: could not open file "\Q$dir\E/no/such/dir/m\.prom" for writing: No such file or directory$}m ],
	[ [ '--capacity=p99<10ms', '-T', '60', "--json=$dir" ],
		qr{^pgtempo-bench: error: could not open file "\Q$dir\E" for writing: Is a directory$}m ],
	[ [ '--capacity=p99<10ms', '-T', '60', '--json=-', '--metrics=-' ],
		qr/only one of --json, --latency-histogram, --chart and --metrics can write to standard output/ ])
{
	my ($args, $re) = @$case;
	my ($code, undef, $err) = run_tool([ $ours, @$args, '-h', '/nonexistent' ]);
	is($code, 1, "@$args: exit 1");
	like($err, $re, "@$args: said why");
}

# ---------------------------------------------------------------- the single queue
my $node = new_cluster('bench_capacity');
my $db = $node->connstr('postgres');
$node->safe_psql('postgres', 'CREATE TABLE q (id int PRIMARY KEY); INSERT INTO q VALUES (1), (2);');
my $script = write_file("$dir/q.sql",
	"BEGIN;\nSELECT id FROM q WHERE id = 1 FOR UPDATE;\nSELECT pg_sleep(0.001);\nCOMMIT;\n");

# a --latency-histogram file as [low_s], [high_s], [cumulative count]
sub read_hist
{
	my ($path) = @_;
	my (@lo, @hi, @cum);
	my $n = 0;
	for my $line (slurp_lines($path))
	{
		my ($l, $h, $c) = split ' ', $line;
		next unless defined $c && $c > 0;
		push @lo, $l / 1e6;
		push @hi, $h / 1e6;
		$n += $c;
		push @cum, $n;
	}
	return { lo => \@lo, hi => \@hi, cum => \@cum, n => $n };
}

# The service times of the queue, measured: of a waiting transaction in
# order, from the per-transaction log of a closed-loop run of the one
# client (they are not independent: a busy host makes a run of them long,
# lag-1 autocorrelation about 0.36 here, and a queue fed such runs has a
# p99 1.6x to 2.6x that of one fed the same times shuffled); of one that
# finds the queue empty, as a histogram from an open-loop run at a tenth
# of that ceiling.
sub calibrate
{
	my ($tag) = @_;
	my ($code, $out, $err) = run_tool([ $ours, '-n', '-c', '1', '-T', '10', '-f', $script,
		'-l', "--log-prefix=$dir/busy_$tag", $db ]);
	is($code, 0, "$tag: closed-loop run of one client: exit 0") or diag($err);
	my ($log) = glob("$dir/busy_$tag.*");
	my @trace = map { (split ' ')[2] / 1e6 } slurp_lines($log // '/dev/null');
	ok(@trace >= 100, "$tag: service times from busy measured (" . scalar(@trace) . ' transactions)');
	my $mean = @trace ? sum(@trace) / @trace : 1;
	($code, $out, $err) = run_tool([ $ours, '-n', '-c', '1', '-T', '8', '-R',
		sprintf('%.1f', 1 / $mean / 10), '-f', $script, "--latency-histogram=$dir/idle_$tag.txt", $db ]);
	is($code, 0, "$tag: open-loop run at a tenth of the ceiling: exit 0") or diag($err);
	my $idle = read_hist("$dir/idle_$tag.txt");
	ok($idle->{n} >= 50, "$tag: service times from idle measured ($idle->{n} transactions)");
	return { trace => \@trace, idle => $idle, mean => $mean, mu => 1 / $mean };
}

# a service time drawn from histogram h (uniform within its bucket)
sub service
{
	my ($h) = @_;
	my $u = rand($h->{n});
	my ($a, $b) = (0, $#{ $h->{cum} });
	while ($a < $b)
	{
		my $m = int(($a + $b) / 2);
		if ($h->{cum}[$m] > $u) { $b = $m; }
		else { $a = $m + 1; }
	}
	return $h->{lo}[$a] + rand($h->{hi}[$a] - $h->{lo}[$a]);
}

# the p99 of the response time (wait + service) of the queue with service
# times $c at rate lambda: Lindley's recursion over 60,000 arrivals, the
# same random numbers each call; a transaction that waited takes the
# service time the log holds for the moment it starts (the log replayed
# as a clock, round and round), one that found the queue empty one drawn
# from the idle histogram
sub sim_p99
{
	my ($c, $lambda) = @_;
	my $tr = $c->{trace};
	srand(36);
	my ($t, $w, $s, @r) = (0, 0, 0);
	for my $i (1 .. 61000)
	{
		my $a = -log(1 - rand()) / $lambda;
		$t += $a;
		$w = max(0, $w + $s - $a);
		$s = $w > 0 ? $tr->[ int(($t + $w) / $c->{mean}) % @$tr ] : service($c->{idle});
		push @r, $w + $s if $i > 1000;
	}
	@r = sort { $a <=> $b } @r;
	return $r[ int(0.99 * @r) ];
}

# the rate at which the simulated p99 reaches target_ms
sub predict
{
	my ($c, $target_ms) = @_;
	my ($plo, $phi) = (0.05 * $c->{mu}, 0.99 * $c->{mu});
	for (1 .. 14)
	{
		my $mid = sqrt($plo * $phi);
		if (sim_p99($c, $mid) * 1e3 <= $target_ms) { $plo = $mid; }
		else { $phi = $mid; }
	}
	return sqrt($plo * $phi);
}

# the objective: the queue's p99 at RHO of the ceiling, rounded to 0.1 ms
my $before = calibrate('before');
my $target_ms = sprintf('%.1f', 1e3 * sim_p99($before, RHO * $before->{mu}));
my $predicted = predict($before, $target_ms);
note(sprintf('service: mean %.3f ms (ceiling %.1f tps); objective p99<%sms; predicted capacity %.1f tps',
	1e3 * $before->{mean}, $before->{mu}, $target_ms, $predicted));

# the search
my ($code, $out, $err) = run_tool([ $ours, '-n', '-c', '1', '-T', SEARCH_S, '-P', '5', '-f', $script,
	"--capacity=p99<${target_ms}ms", "--json=$dir/cap.json", "--chart=$dir/cap.svg", "--metrics=$dir/cap.prom",
	'--fail-if=capacity:<' . int(100 * $before->{mu}), $db ], timeout => SEARCH_S + 120);
is($code, 3, '--fail-if=capacity:<100x the ceiling: exit 3') or diag($err);
like($err, qr/^capacity: step 1: [\d.]+ tps offered, bracket /m, '-P: a line as each step starts');
like($out, qr/^capacity: [\d.]+ tps at p99<${target_ms}ms \(bracket /m, 'the capacity line');
like($out, qr/^fail-if capacity:<\d+: the capacity's bracket lies wholly below the limit$/m,
	'the gate said so');
my $j = do { open my $fh, '<', "$dir/cap.json" or die; local $/; JSON::PP->new->decode(<$fh>) };
is($j->{kind}, 'capacity', 'JSON: kind capacity');
ok($j->{fail_if}{tripped}, 'JSON: the gate tripped');
my @steps = @{ $j->{steps} };
ok(@steps >= 2, scalar(@steps) . ' steps');
my @table = $out =~ /^\s+\d+\s+[\d.]+\s+[\d.]+\s.*\s(pass|fail|again)\b/mg;
is(scalar(@table), scalar(@steps), 'a table row per step');

# the rule, step by step
my ($best, $above) = (0, undef);
for my $s (@steps)
{
	my $o = $s->{objectives}[0];
	my $passed_objective = defined $o->{high_ms} && $o->{high_ms} < $target_ms;
	is($s->{objectives_met} ? 1 : 0, $passed_objective ? 1 : 0,
		"step at $s->{offered_tps}: objective met iff its upper bound is below the target");
	is($s->{pass} ? 1 : 0, ($s->{objectives_met} && $s->{steady} && $s->{failed} == 0) ? 1 : 0,
		"step at $s->{offered_tps}: pass iff met and steady");
	ok($s->{pass} || $s->{why} ne '', "step at $s->{offered_tps}: a failure says why");
	ok(!$s->{measured_again} || $s->{why} =~ /measured again/, "step at $s->{offered_tps}: says it is measured again");
	$best = max($best, $s->{offered_tps}) if $s->{pass};
}
for my $s (@steps)
{
	$above = min(grep { defined } $above, $s->{offered_tps})
	  if !$s->{pass} && !$s->{measured_again} && $s->{offered_tps} > $best;
}
my $cap = $j->{capacity};
ok(defined $cap->{tps}, 'a capacity was found');
is($cap->{tps}, $best, 'the capacity is the highest passing rate') if $best > 0;
is($cap->{bracket_high_tps}, $above // $j->{ceiling_tps}, "the bracket's upper end: the lowest failing rate above it");

# --metrics: the search's numbers, as the JSON has them
promtool_ok("$dir/cap.prom", 'capacity --metrics');
my $m = parse_metrics(slurp_text("$dir/cap.prom") // '');
is_deeply($m->{errors}, [], '--metrics: every line parses');
is(metric_value($m, 'pgtempo_bench_exit_status'), 3, '--metrics: exit status 3');
is(metric_value($m, 'pgtempo_bench_capacity_verdict', verdict => 'below_limit'), 1,
	'--metrics: the verdict is below_limit');
is(scalar(grep { $_->{value} == 1 } metric_samples($m, 'pgtempo_bench_capacity_verdict')), 1,
	'--metrics: one verdict holds');
ok(same_number(metric_value($m, 'pgtempo_bench_capacity_tps'), $cap->{tps}), '--metrics: the capacity');
ok(same_number(metric_value($m, 'pgtempo_bench_capacity_bracket_low_tps'), $cap->{bracket_low_tps}),
	'--metrics: the bracket\'s low end');
ok(same_number(metric_value($m, 'pgtempo_bench_capacity_bracket_high_tps'), $cap->{bracket_high_tps}),
	'--metrics: the bracket\'s high end');
ok(same_number(metric_value($m, 'pgtempo_bench_capacity_ceiling_tps'), $j->{ceiling_tps}),
	'--metrics: the ceiling');
is(metric_value($m, 'pgtempo_bench_capacity_steps'), scalar(@steps), '--metrics: the steps');
my $bad = 0;
for my $k (1 .. @steps)
{
	my ($s, %l) = ($steps[ $k - 1 ], step => $k);
	my $o = $s->{objectives}[0];
	$bad++ unless same_number(metric_value($m, 'pgtempo_bench_capacity_step_offered_tps', %l), $s->{offered_tps})
	  && same_number(metric_value($m, 'pgtempo_bench_capacity_step_achieved_tps', %l), $s->{achieved_tps})
	  && metric_value($m, 'pgtempo_bench_capacity_step_pass', %l) == ($s->{pass} ? 1 : 0)
	  && metric_value($m, 'pgtempo_bench_capacity_step_transactions', %l) == $s->{transactions}
	  && (!defined $o->{high_ms}
		|| same_number(1e3 * metric_value($m, 'pgtempo_bench_capacity_step_latency_seconds', %l,
				metric => 'p99', bound => 'high'), $o->{high_ms}));
}
is($bad, 0, '--metrics: each step\'s rate, tps, transactions, verdict and p99 bound are the JSON\'s');

# --chart: well-formed, the objective's panel, a point per rate, the capacity marked
my $svg = slurp_text("$dir/cap.svg") // '';
SKIP:
{
	skip 'xmllint not installed', 1 unless system('command -v xmllint >/dev/null 2>&1') == 0;
	is(system("xmllint --noout '$dir/cap.svg'"), 0, '--chart: xmllint reads it');
}
like($svg, qr/p99 against the offered rate \(objective p99&lt;${target_ms}ms\)/, '--chart: the objective\'s panel');
# of a rate measured again, the last step (it pools the runs); a step without a value is a gap
my %known = map { $_->{offered_tps} => defined $_->{objectives}[0]{value_ms} } @steps;
my ($path) = $svg =~ /<path class="line"[^>]* d="([^"]*)"><title>p99<\/title>/;
is(scalar(() = ($path // '') =~ /[ML]/g), scalar(grep { $_ } values %known),
	'--chart: a point of p99 per rate tried');
like($svg, qr/<title>capacity: \Q${\ sprintf('%.1f', $cap->{tps} \/\/ 0)}\E tps<\/title>/,
	'--chart: the capacity marked') if defined $cap->{tps};
like($svg, qr/<title>objective: p99&lt;${target_ms}ms<\/title>/, '--chart: the objective drawn');

# against the known answer: the service times measured again after the
# search; the host counts as steady when the three ceilings (before, the
# search's probe, after) lie within STEADY of each other, and so do the
# predictions from before and after
my $after = calibrate('after');
my $predicted_after = predict($after, $target_ms);
my ($plo, $phi) = (min($predicted, $predicted_after), max($predicted, $predicted_after));
my @mus = ($before->{mu}, $j->{ceiling_tps}, $after->{mu});
my $drift = max(@mus) / min(@mus);
my $found = $cap->{tps} // 0;
note(sprintf('capacity found %.1f tps, bracket %.1f-%.1f; predicted %.1f tps before, %.1f after: '
	  . 'error %+.1f %% / %+.1f %%; ceilings %.1f, %.1f, %.1f (drift %.2fx); search %.0f s, %d steps',
	$found, $cap->{bracket_low_tps} // 0, $cap->{bracket_high_tps} // 0, $predicted, $predicted_after,
	100 * ($found / $predicted - 1), 100 * ($found / $predicted_after - 1), @mus, $drift,
	$j->{used_s}, scalar(@steps)));
# A sanitized client spends its own time differently in the closed loop
# that calibrates and in the open loop of the search (CI's sanitizer phase
# saw +66 %, and a capacity at 0.96x of the probe's ceiling): the checks
# against the known answer are for the plain build.
my $sanitized = (slurp_text($ours) // '') =~ /__asan_init|__ubsan_handle_/;
SKIP:
{
	skip('a sanitizer build: the known answer is for the plain build', 3) if $sanitized;
	ok($found > 0.15 * $plo,
		sprintf('capacity %.1f tps above 0.15x of the lower prediction %.1f tps', $found, $plo));
	# a search that hid the queue (latency from when the client was free)
	# passes every rate and ends within its 5 % resolution below its own
	# ceiling; a host that sped up during the search (seen: ceilings 382,
	# 382, then 430 tps, capacity 350) moves a true capacity up too, so
	# the fastest ceiling measured is the reference
	ok($found < 0.95 * max(@mus),
		sprintf('capacity %.1f tps below 0.95x of the fastest ceiling measured, %.1f tps: the queue counted',
			$found, max(@mus)));
	skip(sprintf('the host was not steady: ceilings %.1f, %.1f and %.1f tps, predictions %.1f and %.1f',
			@mus, $plo, $phi), 1)
	  if $drift > STEADY || $phi > STEADY * $plo;
	ok($found >= BAND_LO * $plo && $found <= BAND_HI * $phi,
		sprintf('capacity %.1f tps within %.2fx..%.2fx of the predictions %.1f-%.1f tps',
			$found, BAND_LO, BAND_HI, $plo, $phi));
}

# a floor below any bracket does not trip; the first row's lock is left to the search above
my $script2 = write_file("$dir/q2.sql",
	"BEGIN;\nSELECT id FROM q WHERE id = 2 FOR UPDATE;\nSELECT pg_sleep(0.002);\nCOMMIT;\n");
($code, $out, $err) = run_tool([ $ours, '-n', '-c', '1', '-T', '30', '-f', $script2,
	"--capacity=p99<${target_ms}ms", '--capacity-resolution=100', '--fail-if=capacity:<0.5',
	"--json=$dir/cap3.json", '--metrics=-', $db ], timeout => 120);
is($code, 0, '--fail-if=capacity:<0.5: exit 0') or diag($err);
like($err, qr/^fail-if capacity:<0\.5: not shown below the limit$/m,
	'the gate did not trip (the report on stderr: --metrics=- takes stdout)');
$m = parse_metrics($out);
my $j3 = eval { JSON::PP->new->decode(slurp_text("$dir/cap3.json") // '') };
is(metric_value($m, 'pgtempo_bench_capacity_verdict',
		verdict => defined $j3->{capacity}{tps} ? 'found' : 'none_passed'), 1,
	'--metrics=-: the verdict, as the JSON\'s capacity says');
is(metric_value($m, 'pgtempo_bench_exit_status'), 0, '--metrics=-: exit status 0');
is($j3->{exit_status}, 0, '--json: exit status 0');

# a search that cannot start: --metrics says so, as a run's does
($code, $out, $err) = run_tool([ $ours, '-n', '-c', '1', '-T', '30', '-f', $script2,
	"--capacity=p99<${target_ms}ms", "--metrics=$dir/nc.prom", '-h', $node->host, '-p', $node->port,
	'-d', 'no_such_database' ]);
is($code, 1, 'no connection: exit 1');
$m = parse_metrics(slurp_text("$dir/nc.prom") // '');
is(metric_value($m, 'pgtempo_bench_exit_status'), 1, 'no connection: --metrics says exit 1');
is(scalar(metric_samples($m, 'pgtempo_bench_capacity_steps')), 0, 'no connection: and no search');

done_testing();
