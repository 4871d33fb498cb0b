# pg_test_timing: the text report, line by line, in both layouts, against
# PostgreSQL's own pg_test_timing where it is installed.

use strict;
use warnings;

use File::Path qw(make_path);
use File::Temp qw(tempdir);
use IPC::Run;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pg_test_timing');

# Lines of a table: "  < us   % of total      count" rows.
my $us_row = qr/^ *(\d+)    +(\d+\.\d{5}) +(\d+)$/;
my $ns_row = qr/^ *(\d+)   +(\d+\.\d{4}) +(\d+\.\d{4}) +(\d+)$/;

# ---------------------------------------------------------------- default layout

my ($rc, $out, $err) = run_tool([ $bin, '-d', '1' ]);
is($rc,  0,  'default: exit 0');
is($err, '', 'default: nothing on stderr');
my @l = split /\n/, $out, -1;
is($l[0], 'Testing timing overhead for 1 second.', 'line 1: singular "second"');
like($l[1], qr/^Per loop time including overhead: \d+\.\d\d ns$/, 'line 2: per loop time');
is($l[2], 'Histogram of timing durations:', 'line 3');
is($l[3], '  < us   % of total      count', 'line 4: PostgreSQL 15 header');

my ($i, $total, $pct_sum, $expect) = (4, 0, 0, 1);
my @rows;
while ($i < @l && $l[$i] =~ $us_row)
{
	push @rows, [ $1, $2, $3 ];
	is($1, $expect, "row value $expect is the next power of two");
	$expect *= 2;
	$total   += $3;
	$pct_sum += $2;
	$i++;
}
cmp_ok(scalar @rows, '>=', 1, 'at least one histogram row');
cmp_ok($rows[-1][2], '>', 0, 'the last row is not empty');
cmp_ok(abs($pct_sum - 100), '<', 0.001 * @rows, 'percentages add up to 100');
for my $r (@rows)
{
	my $want = $total ? $r->[2] * 100 / $total : 0;
	cmp_ok(abs($r->[1] - $want), '<=', 0.000006, "row $r->[0]: pct = count / total");
}
is($l[$i],     '',                   'blank line after the table');
is($l[ $i + 1 ], 'Clock environment:', 'then the clock environment');
like($out, qr/^  clocksource:       \S+$/m, 'environment: clocksource line');
like($out, qr/^  TSC:               (usable|unavailable)/m, 'environment: TSC line');
unlike($out, qr/^Clock system:/m, 'a lone system pass has no clock header');

# what a clock read costs PostgreSQL: priced from the pass's own loop time
my ($loop_ns) = $out =~ /^Per loop time including overhead: (\S+) ns$/m;
my ($read_ns) = $out =~ /^What timing costs PostgreSQL here \(a clock read takes at most (\S+) ns\):$/m;
ok(defined $read_ns, 'the cost section follows the environment');
is($read_ns, $loop_ns, 'priced at the loop time of the system pass');
my ($io_us, $cpu_pct) = $out =~
  /^  track_io_timing:   (\S+) us per block read, write or sync \(2 clock reads\);\n {21}at 10000 a second, (\S+) % of one CPU$/m;
my ($row_us, $plan_s) = $out =~
  /^  EXPLAIN ANALYZE:   (\S+) us per row per plan node \(2 clock reads\);\n {21}1000000 rows through 10 nodes add (\S+) s \(TIMING OFF leaves it out\)$/m;
ok(defined $io_us && defined $row_us, 'track_io_timing and EXPLAIN ANALYZE lines');
cmp_ok(abs($io_us - 2 * $loop_ns / 1e3), '<=', 0.0006, 'an I/O costs two clock reads');
cmp_ok(abs($row_us - $io_us), '<', 1e-9, 'so does a row through a node');
cmp_ok(abs($cpu_pct - 10000 * 2 * $loop_ns / 1e9 * 100), '<=', 0.006, 'CPU share at 10000 I/Os a second');
cmp_ok(abs($plan_s - 1e6 * 10 * 2 * $loop_ns / 1e9), '<=', 0.006, 'seconds a 10-node plan of 1e6 rows adds');
($rc, $out) = run_tool([ $bin, '-d', '1', '--clock=rdtsc' ]);
unlike($out, qr/What timing costs PostgreSQL/, 'no price without a pass of the clock PostgreSQL reads');

($rc, $out) = run_tool([ $bin, '-d', '2' ]);
like($out, qr/\ATesting timing overhead for 2 seconds\.\n/, 'plural "seconds"');

# ---------------------------------------------------------------- ns layout

($rc, $out, $err) = run_tool([ $bin, '-d', '1', '--histogram=ns', '-c', '90' ]);
is($rc, 0, 'ns: exit 0');
@l = split /\n/, $out, -1;
like($l[1], qr/^Average loop time including overhead: \d+\.\d\d ns$/, 'ns: average loop time');
is($l[2], 'Histogram of timing durations:', 'ns: title');
is($l[3], '   <= ns   % of total  running %      count', 'ns: PostgreSQL 19 header');
($i, $expect) = (4, 0);
my ($running, $count) = (0, 0);
while ($i < @l && $l[$i] =~ $ns_row)
{
	is($1, $expect, "ns row <= $expect");
	$expect = $expect * 2 + 1;
	cmp_ok($3, '>=', $running, "running % never decreases ($1)");
	$running = $3;
	$count += $4;
	$i++;
}
cmp_ok(abs($running - 100), '<', 0.01, 'running % ends at 100');
is($l[$i],     '', 'blank line');
is($l[ $i + 1 ], 'Observed timing durations up to 90.0000%:', 'observed title with cutoff');
is($l[ $i + 2 ], '      ns   % of total  running %      count', 'observed header');
$i += 3;
my ($last_ns, $reached, $after_reached, $gap) = (-1, 0, 0, 0);
while ($i < @l && ($l[$i] =~ $ns_row || $l[$i] eq '...'))
{
	if ($l[$i] eq '...') { $gap++; $i++; next; }
	my ($ns, $pct, $run, $n) = ($1, $2, $3, $4);
	cmp_ok($ns, '>', $last_ns, "observed durations ascend ($ns)");
	$last_ns = $ns;
	$after_reached++ if $reached && !$gap;
	$reached = 1 if $run >= 90;
	$i++;
}
ok($reached, 'the list reaches the cutoff');
is($after_reached, 0, 'no row is listed past the cutoff except the largest');
cmp_ok($gap, '<=', 1, 'at most one "..." gap');
is($l[$i], '', 'blank line before the environment');

# ---------------------------------------------------------------- several clocks

($rc, $out) = run_tool([ $bin, '-d', '1', '--clock=all' ]);
is($rc, 0, 'all clocks: exit 0');
like($out,
	qr/\ATesting timing overhead for 1 second\.\n\nClock system: clock_gettime\(CLOCK_MONOTONIC\)\nPer loop time/,
	'all clocks: the system pass is headed');
for my $c (qw(rdtsc rdtscp))
{
	like($out,
		qr/^Clock $c: (RDTSC.*\(\d+\.\d\d MHz, .+\)\nPer loop time including overhead: \d+\.\d\d ns|unavailable: .+)$/m,
		"all clocks: $c pass, or the reason it is unavailable");
}

# ---------------------------------------------------------------- the environment, from a fake /sys

my $root = tempdir(CLEANUP => 1);
make_path("$root/sys/devices/system/clocksource/clocksource0", "$root/proc");
write_file("$root/sys/devices/system/clocksource/clocksource0/current_clocksource",
	"hpet\n");
write_file("$root/sys/devices/system/clocksource/clocksource0/available_clocksource",
	"hpet acpi_pm tsc \n");
write_file("$root/proc/cpuinfo",
	"processor\t: 0\nflags\t\t: fpu tsc msr constant_tsc rdtscp\n\n");
($rc, $out) = run_tool([ $bin, '-d', '1' ],
	env => { PGTEMPO_SYSROOT => $root, PGTEMPO_FAKE_CLOCK => '0,10' });
is($rc, 0, 'fake sysroot: exit 0');
like($out, qr/^  clocksource:       hpet\n  available:         hpet acpi_pm tsc\n/m,
	'fake sysroot: clock sources');
like($out,
	qr/^  TSC CPU flags:     tsc constant_tsc rdtscp \(missing: nonstop_tsc tsc_reliable\)$/m,
	'fake sysroot: flags present and missing');
like($out, qr/^  hypervisor:        none$/m, 'fake sysroot: no hypervisor flag');
like($out, qr/^  advice:            the clock source is slow to read but the kernel offers tsc/m,
	'fake sysroot: advice to switch to tsc');

write_file("$root/sys/devices/system/clocksource/clocksource0/current_clocksource",
	"tsc\n");
($rc, $out) = run_tool([ $bin, '-d', '1' ],
	env => { PGTEMPO_SYSROOT => $root, PGTEMPO_FAKE_CLOCK => '0,10' });
unlike($out, qr/advice:/, 'fake sysroot with tsc: no advice');

# ---------------------------------------------------------------- SIGINT

{
	my ($o, $e) = ('', '');
	my $h = IPC::Run::start([ $bin, '-d', '60' ], '>', \$o, '2>', \$e,
		IPC::Run::timeout(30));
	# wait for the header, so the pass is running
	$h->pump until $o =~ /Testing timing overhead/;
	sleep 1;
	$h->signal('INT');
	$h->finish;
	my $status = $h->full_result(0);
	is($status >> 8, 130, 'SIGINT: exit status 130');
	like($o, qr/^Per loop time including overhead: \d+\.\d\d ns$/m,
		'SIGINT: the measured pass is still reported');
	like($o, qr/^Interrupted after \d+\.\d{3} s: the table covers the reads made until then\.$/m,
		'SIGINT: the pass says it was cut short');
	like($o, qr/^Interrupted by signal 2: the results above cover the time until then\.$/m,
		'SIGINT: the report says so at the end');
}

# ---------------------------------------------------------------- against PostgreSQL's

SKIP:
{
	my $ref = pg_reference('pg_test_timing');
	skip 'the system pg_test_timing is not installed', 3 unless $ref;
	my ($rr, $rout) = run_tool([ $ref, '-d', '1' ]);
	my ($or, $oout) = run_tool([ $bin, '-d', '1' ]);
	is($or, $rr, "same exit status as PostgreSQL's");
	# The same lines with the numbers taken out, up to the end of the table.
	my $shape = sub {
		my @lines = split /\n/, shift;
		my @s;
		for (@lines)
		{
			last if $_ eq '';
			(my $x = $_) =~ s/\d+(\.\d+)?/N/g;
			$x =~ s/ +/ /g;
			# a long outlier's bucket fills its column: the row loses its indent
			$x =~ s/^ //;
			push @s, $x;
		}
		# collapse the rows, whose number differs with the machine's noise
		my %seen;
		return join "\n", grep { !$seen{$_}++ } @s;
	};
	is($shape->($oout), $shape->($rout), 'the same layout as PostgreSQL 15 (numbers aside)');
	my @ref_rows = grep { /$us_row/ } split /\n/, $rout;
	my @our_rows = grep { /$us_row/ } split /\n/, $oout;
	ok(@ref_rows && @our_rows && @our_rows == grep({ /$us_row/ } @our_rows),
		'every row of both parses with the same pattern');
}

# A full disk under the report (a cron job's redirect): an error and exit 1,
# not a silent success.
SKIP:
{
	skip '/dev/full is not available', 2 unless -c '/dev/full';
	my $err = '';
	IPC::Run::run([ $bin, '-d', '1' ], '>', '/dev/full', '2>', \$err);
	is($? >> 8, 1, 'stdout on a full disk: exit 1');
	like($err, qr/^pg_test_timing: error: could not write to standard output: /m,
		'stdout on a full disk: the error');
}

# Every mode fails on a full disk: exit 1 and the reason, never "Success".
# The text report stops before measuring when its first line cannot be
# written (-d 30 would otherwise take 30 seconds).
SKIP:
{
	skip '/dev/full is not available', 5 * 3 + 1 unless -c '/dev/full';
	for my $args ([ '-d', '30' ], [ '-d', '1', '--json' ], [ '--help' ], [ '-?' ], [ '--version' ])
	{
		my $err   = '';
		my $start = time;
		IPC::Run::run([ $bin, @$args ], '>', '/dev/full', '2>', \$err);
		is($? >> 8, 1, "@$args >/dev/full: exit 1");
		like($err,
			qr/^pg_test_timing: error: could not write to standard output: No space left on device$/m,
			"@$args >/dev/full: the error names the reason");
		unlike($err, qr/Success/, "@$args >/dev/full: never \"Success\"");
		# generous: measuring would take 30 s
		ok(time - $start < 20, '-d 30 >/dev/full: gives up before measuring')
		  if ($args->[1] // '') eq '30';
	}
}

done_testing();
