# pg_test_timing --json: a valid document with the documented fields, whose
# numbers agree with each other.

use strict;
use warnings;

use File::Temp ();
use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pg_test_timing');

my ($rc, $out, $err) = run_tool([ $bin, '-d', '1', '--json', '--clock=all' ]);
is($rc,  0,  'exit 0');
is($err, '', 'nothing on stderr');
my $doc = eval { decode_json($out) };
ok($doc, 'stdout is one valid JSON document') or diag($@);

is($doc->{tool}, 'pg_test_timing', 'tool');
like($doc->{version}, qr/^\d+\.\d+\.\d+$/, 'version');
is($doc->{duration_s}, 1,     'duration_s');
is($doc->{cutoff_pct}, 99.99, 'cutoff_pct');
is($doc->{histogram},  'us',  'histogram unit');
is($doc->{verdict},    'ok',  'verdict');
is($doc->{exit_status}, 0, 'exit_status');
is($doc->{cross_cpu}, undef, 'cross_cpu is null without --cross-cpu');

my @passes = @{ $doc->{passes} };
is_deeply([ map { $_->{clock} } @passes ], [qw(system rdtsc rdtscp)], 'one pass per clock');

for my $p (@passes)
{
	my $c = $p->{clock};
	if ($p->{outcome} eq 'unavailable')
	{
		isnt($c, 'system', "$c: only a TSC pass may be unavailable");
		like($p->{why_not}, qr/\S/, "$c: says why it is unavailable");
		next;
	}
	is($p->{outcome}, 'ok', "$c: outcome ok");
	cmp_ok($p->{loops}, '>', 1000, "$c: loops");
	cmp_ok(abs($p->{per_loop_ns} - $p->{elapsed_ns} / $p->{loops}), '<', 1e-6,
		"$c: per_loop_ns = elapsed_ns / loops");
	is($p->{time_warp_ns}, undef, "$c: no time warp");

	my $sum_us = 0;
	$sum_us += $_->{count} for @{ $p->{histogram_us} };
	is($sum_us, $p->{loops}, "$c: histogram_us counts add up to loops");
	my $lt = 1;
	for my $b (@{ $p->{histogram_us} })
	{
		is($b->{lt_us}, $lt, "$c: lt_us $lt");
		$lt *= 2;
	}

	my ($sum_ns, $le, $run) = (0, 0, 0);
	for my $b (@{ $p->{histogram_ns} })
	{
		is($b->{le_ns}, $le, "$c: le_ns $le");
		$le = $le * 2 + 1;
		$sum_ns += $b->{count};
		$run += $b->{pct};
		cmp_ok(abs($b->{running_pct} - $run), '<', 1e-6, "$c: running_pct at $b->{le_ns}");
	}
	is($sum_ns, $p->{loops}, "$c: histogram_ns counts add up to loops");

	my $pc = $p->{percentiles_ns};
	my @order = map { $pc->{$_} } qw(min p50 p90 p99 p99.9 p99.99 max);
	is(scalar(grep { defined } @order), 7, "$c: all percentiles present");
	ok(!grep({ $order[$_] > $order[ $_ + 1 ] } 0 .. $#order - 1), "$c: percentiles in order");
	is($pc->{max}, $p->{largest_ns}, "$c: max is the largest duration");

	my @obs = @{ $p->{observed_ns} };
	ok(@obs >= 1, "$c: observed durations listed");
	is($obs[-1]{ns}, $p->{largest_ns}, "$c: the largest duration ends the list");
	is($obs[-1]{count}, $p->{largest_count}, "$c: with its count");
}

my $cost = $doc->{postgresql_cost};
my ($sys) = grep { $_->{clock} eq 'system' } @passes;
ok($cost, 'postgresql_cost present with a system pass');
cmp_ok(abs($cost->{clock_read_ns} - $sys->{per_loop_ns}), '<', 1e-6, 'priced at the system pass\'s loop time');
is($cost->{clock_reads_per_op}, 2, 'two clock reads per timed operation');
cmp_ok(abs($cost->{track_io_timing}{us_per_io} - 2 * $sys->{per_loop_ns} / 1e3), '<', 1e-9, 'us_per_io');
cmp_ok(abs($cost->{track_io_timing}{example_cpu_pct} -
	  $cost->{track_io_timing}{example_ios_per_s} * $cost->{track_io_timing}{us_per_io} / 1e4), '<', 1e-9,
	'example_cpu_pct');
my $ea = $cost->{explain_analyze};
cmp_ok(abs($ea->{example_added_s} - $ea->{example_rows} * $ea->{example_nodes} * $ea->{us_per_row_per_node} / 1e6),
	'<', 1e-9, 'example_added_s');

my $env = $doc->{clock_environment};
for my $k (qw(clocksource available_clocksources cpu_flags hypervisor tsc advice))
{
	ok(exists $env->{$k}, "clock_environment.$k present");
}
SKIP:
{
	my $f = '/sys/devices/system/clocksource/clocksource0/current_clocksource';
	skip "$f is not readable", 1 unless -r $f;
	open my $fh, '<', $f or die;
	chomp(my $cur = <$fh>);
	is($env->{clocksource}, $cur, 'clocksource is the kernel\'s');
}
ok(ref $env->{available_clocksources} eq 'ARRAY', 'available_clocksources is an array');
ok(exists $env->{tsc}{usable}, 'tsc.usable present');
if ($env->{tsc}{usable})
{
	cmp_ok($env->{tsc}{frequency_hz}, '>', 1e6, 'tsc.frequency_hz');
	like($env->{tsc}{frequency_source}, qr/CPUID|calibrated/, 'tsc.frequency_source');
}

# ns layout and the cutoff are recorded; the text report is not mixed in.
($rc, $out) = run_tool([ $bin, '-d', '1', '--json', '--histogram=ns', '-c', '50' ]);
$doc = decode_json($out);
is($doc->{histogram},  'ns', 'histogram ns');
is($doc->{cutoff_pct}, 50,   'cutoff 50');
unlike($out, qr/Testing timing overhead/, 'no text report in JSON mode');
my @obs = @{ $doc->{passes}[0]{observed_ns} };
my $over = grep { $_->{running_pct} >= 50 } @obs[ 0 .. $#obs - 1 ];
cmp_ok($over, '<=', 1, 'observed list stops at the cutoff (the largest aside)');

# One rule in every tool: --json=- is --json; --json=FILE writes the
# document to a file beside the text report, its path checked before the
# first pass.
($rc, $out, $err) = run_tool([ $bin, '-d', '1', '--json=-' ]);
is($rc, 0, '--json=-: exit 0');
$doc = eval { decode_json($out) };
ok($doc && $doc->{tool} eq 'pg_test_timing', '--json=-: stdout is the JSON document');
my $jdir = File::Temp::tempdir(CLEANUP => 1);
($rc, $out, $err) = run_tool([ $bin, '-d', '1', "--json=$jdir/t.json" ]);
is($rc, 0, '--json=FILE: exit 0');
like($out, qr/^Testing timing overhead/m, '--json=FILE: the text report on stdout');
my $fdoc = eval { decode_json(slurp_text("$jdir/t.json")) };
ok($fdoc, '--json=FILE: the file is one JSON document') or diag($@);
is($fdoc->{exit_status}, 0, '--json=FILE: its exit_status');
is(scalar @{ $fdoc->{passes} }, 1, '--json=FILE: the pass');
# a bad path fails before the passes: no report at all
($rc, $out, $err) = run_tool([ $bin, '-d', '1', "--json=$jdir/missing/t.json" ]);
is($rc, 1, '--json=FILE in a missing directory: exit 1');
like($err, qr{^pg_test_timing: error: could not open file "\Q$jdir\E/missing/t\.json" for writing: No such file or directory$}m,
	'--json=FILE in a missing directory: the error names the file');
is($out, '', '--json=FILE in a missing directory: before the first pass');
# a file that cannot be written after the passes: said, exit 1, the report still out
SKIP:
{
	skip '/dev/full is not writable here', 3 unless -w '/dev/full';
	($rc, $out, $err) = run_tool([ $bin, '-d', '1', '--json=/dev/full' ]);
	is($rc, 1, '--json=/dev/full: exit 1');
	like($err, qr{^pg_test_timing: error: could not write to file "/dev/full": No space left on device$}m,
		'--json=/dev/full: the error');
	like($out, qr/^Testing timing overhead/m, '--json=/dev/full: the text report still printed');
}

done_testing();
