# pg_test_timing --metrics=FILE: a Prometheus textfile that promtool accepts,
# whose numbers are the JSON report's, written whole (no temporary file left)
# at the end of a run, a backwards run and an interrupted one; a path that
# cannot be written fails before the passes, a disk that fills up fails
# clearly and leaves the old file.

use strict;
use warnings;

use File::Path qw(make_path);
use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Metrics;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pg_test_timing');
my $dir = tempdir(CLEANUP => 1);

# ---------------------------------------------------------------- a whole run

my $path = "$dir/timing.prom";
my ($rc, $out, $err) = run_tool([ $bin, '-d', '1', '--clock=all', '--json', "--metrics=$path" ]);
is($rc, 0, 'exit 0');
is($err, '', 'nothing on stderr');
my $doc = decode_json($out);
my $text = slurp_text($path);
ok(defined $text, 'the metrics file is there');
like($text, qr/\n\z/, 'it ends with a newline');
is_deeply([ dir_entries($dir) ], ['timing.prom'], 'no temporary file left');
promtool_ok($path, 'pg_test_timing');
my $m = parse_metrics($text);
is_deeply($m->{errors}, [], 'every line parses: a name, labels, one value (no timestamp)');

is(metric_value($m, 'pgtempo_timing_run_info', verdict => 'ok', version => $doc->{version}), 1,
	'run_info: verdict and version');
is(metric_value($m, 'pgtempo_timing_duration_seconds'), 1, 'duration_seconds');

for my $p (@{ $doc->{passes} })
{
	my $c = $p->{clock};
	is(metric_value($m, 'pgtempo_timing_pass_info', clock => $c, outcome => $p->{outcome}), 1,
		"$c: pass_info outcome $p->{outcome}");
	if ($p->{outcome} eq 'unavailable')
	{
		is(metric_value($m, 'pgtempo_timing_loops_total', clock => $c), undef,
			"$c: unavailable: no numbers");
		next;
	}
	is(metric_value($m, 'pgtempo_timing_loops_total', clock => $c), $p->{loops}, "$c: loops_total");
	ok(same_number(metric_value($m, 'pgtempo_timing_per_loop_seconds', clock => $c), $p->{per_loop_ns} / 1e9),
		"$c: per_loop_seconds is per_loop_ns");
	ok(same_number(metric_value($m, 'pgtempo_timing_pass_seconds', clock => $c), $p->{elapsed_ns} / 1e9),
		"$c: pass_seconds is elapsed_ns");
	ok(same_number(metric_value($m, 'pgtempo_timing_largest_seconds', clock => $c), $p->{largest_ns} / 1e9),
		"$c: largest_seconds");
	is(metric_value($m, 'pgtempo_timing_backwards_total', clock => $c), 0, "$c: backwards_total 0");
	is(metric_value($m, 'pgtempo_timing_time_warp_seconds', clock => $c), 0, "$c: time_warp 0");

	my $count = check_histogram($m, 'pgtempo_timing_read_duration_seconds', "$c: histogram",
		clock => $c);
	is($count, $p->{loops}, "$c: histogram _count equals loops");
	# every row of the ns table is a bucket, cumulated
	my ($cum, $bad) = (0, 0);
	for my $row (@{ $p->{histogram_ns} })
	{
		$cum += $row->{count};
		my @b = grep { $_->{labels}{le} ne '+Inf' && same_number($_->{labels}{le}, $row->{le_ns} / 1e9) }
		  metric_samples($m, 'pgtempo_timing_read_duration_seconds_bucket', clock => $c);
		$bad++ unless @b == 1 && $b[0]{value} == $cum;
	}
	is($bad, 0, "$c: each bucket holds the ns table's rows up to its bound");
}

my $env = $doc->{clock_environment};
is(metric_value($m, 'pgtempo_timing_clocksource_info',
		clocksource => $env->{clocksource} // 'unknown'), 1, 'clocksource_info: the clock source');
my $tsc = $env->{tsc};
is(metric_value($m, 'pgtempo_timing_tsc_info',
		present => $tsc->{present} ? 'true' : 'false',
		usable => $tsc->{usable} ? 'true' : 'false',
		invariant => $tsc->{invariant} ? 'true' : 'false'), 1, 'tsc_info: the TSC state');
is(metric_value($m, 'pgtempo_timing_tsc_frequency_hertz'), $tsc->{frequency_hz},
	'tsc_frequency_hertz: the JSON frequency (or neither)');

# ---------------------------------------------------------------- backwards

# the test clock goes 4 ns back after one good read; the file says so, and the old one is replaced
($rc, $out, $err) = run_tool([ $bin, '-d', '1', "--metrics=$path" ],
	env => { PGTEMPO_FAKE_CLOCK => '0,7,3' });
is($rc, 1, 'backwards: exit 1');
$m = parse_metrics(slurp_text($path));
is(metric_value($m, 'pgtempo_timing_run_info', verdict => 'backwards'), 1, 'backwards: verdict');
is(metric_value($m, 'pgtempo_timing_backwards_total', clock => 'system'), 1,
	'backwards: backwards_total 1');
ok(same_number(metric_value($m, 'pgtempo_timing_time_warp_seconds', clock => 'system'), 4e-9),
	'backwards: time_warp_seconds 4 ns');
is(metric_value($m, 'pgtempo_timing_loops_total', clock => 'system'), 1,
	'backwards: the loops before the warp');
promtool_ok($path, 'backwards');

# ---------------------------------------------------------------- SIGINT

{
	my $ipath = "$dir/int.prom";
	my ($o, $e) = ('', '');
	my $h = IPC::Run::start([ $bin, '-d', '60', "--metrics=$ipath" ], '>', \$o, '2>', \$e,
		IPC::Run::timeout(30));
	$h->pump until $o =~ /Testing timing overhead/;
	sleep 1;
	$h->signal('INT');
	$h->finish;
	is($h->full_result(0) >> 8, 130, 'SIGINT: exit status 130');
	$m = parse_metrics(slurp_text($ipath) // '');
	is(metric_value($m, 'pgtempo_timing_run_info', verdict => 'interrupted'), 1,
		'SIGINT: the file is written, verdict interrupted');
	is(metric_value($m, 'pgtempo_timing_pass_info', clock => 'system', outcome => 'interrupted'), 1,
		'SIGINT: the pass was interrupted');
	cmp_ok(metric_value($m, 'pgtempo_timing_loops_total', clock => 'system') // 0, '>', 0,
		'SIGINT: what was measured is kept');
}

# ---------------------------------------------------------------- bad paths, before the run

for my $case (
	[ "$dir/no/such/dir/t.prom",
		qr{^pg_test_timing: error: could not open file "\Q$dir\E/no/such/dir/t\.prom" for writing: No such file or directory$}m ],
	[ $dir, qr{^pg_test_timing: error: could not open file "\Q$dir\E" for writing: Is a directory$}m ])
{
	my ($p, $re) = @$case;
	($rc, $out, $err) = run_tool([ $bin, '-d', '1', "--metrics=$p" ]);
	is($rc, 1, "bad path $p: exit 1");
	like($err, $re, "bad path $p: the error names it");
	is($out, '', "bad path $p: no pass ran");
}

SKIP:
{
	skip 'running as root, who may create files in any directory', 4 if $> == 0;
	my $ro = "$dir/ro";
	make_path($ro);
	chmod 0555, $ro;
	($rc, $out, $err) = run_tool([ $bin, '-d', '1', "--metrics=$ro/t.prom" ]);
	is($rc, 1, 'unwritable directory: exit 1');
	like($err, qr{^pg_test_timing: error: could not open file "\Q$ro\E/t\.prom" for writing: Permission denied$}m,
		'unwritable directory: the error says why');
	is($out, '', 'unwritable directory: no pass ran');
	is_deeply([ dir_entries($ro) ], [], 'unwritable directory: nothing left');
	chmod 0755, $ro;
}

# ---------------------------------------------------------------- a full disk

SKIP:
{
	skip 'cannot mount a small tmpfs here (unshare --user --map-root-user --mount and '
	  . 'mount -t tmpfs must be allowed)', 5
	  unless small_disk_allowed($dir);
	# an old file and 4 kB left: the new file (all clocks, some 8 kB) does not fit
	my ($fs, $save) = ("$dir/fs", "$dir/full");
	($rc, $out, $err) = run_on_full_disk($fs, $save, 't.prom',
		[ $bin, '-d', '1', '--clock=all', "--metrics=$fs/t.prom" ]);
	is($rc, 1, 'full disk: exit 1');
	like($err, qr{^pg_test_timing: error: could not write to file "\Q$fs\E/t\.prom": No space left on device$}m,
		'full disk: the error names the file and the reason');
	like($out, qr/^Per loop time including overhead/m, 'full disk: the report still comes');
	is(slurp_text("$save/t.prom"), "# old and complete\n", 'full disk: the old file is left whole');
	is_deeply([ dir_entries($save) ], ['t.prom'], 'full disk: no temporary file left');
}

done_testing();
