# pgtempo-bench's report beyond pgbench, checked against independent
# evidence from the same run: the latency percentiles against the exact
# ones computed from the -l log, --json against the text report (totals,
# per script, per command, progress lines), --latency-histogram against
# the processed count and the fixed bucket grid, the exit status and the
# write errors of both files; and the -R / -L report and progress lines
# against the system pgbench's for the same options (line set and
# format, numbers masked).

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use List::Util qw(sum max);
use POSIX qw(ceil);
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $ref = pg_reference('pgbench');

my $node = new_cluster('bench_report', conf => "max_connections = 50\n");
my $db = $node->connstr('postgres');
my $dir = tempdir(CLEANUP => 1);

sub write_script { return write_file("$dir/$_[0]", $_[1]); }

sub parse_json
{
	my ($text, $what) = @_;
	my $j = eval { JSON::PP->new->decode($text) };
	ok(defined $j, "$what: one JSON document") or diag($@);
	return $j || {};
}

# A value of the JSON document as the text report prints it.
sub f3 { return defined $_[0] ? sprintf('%.3f', $_[0]) : 'null' }

# Latencies spread over 0 to 3 ms, so that the percentiles differ.
my $sleep = write_script('sleep.sql', "\\set d random(0, 3000)\nSELECT pg_sleep(:d / 1000000.0);\n");

# ---------------------------------------------------------------- percentiles against the -l log

{
	my @pcts = (1, 10, 50, 90, 99, 99.9);
	my ($code, $out, $err) = run_tool(
		[ $ours, '-n', '-f', $sleep, '-t', 250, '-c', 4, '-j', 2, '-l', "--log-prefix=$dir/pct",
		  '--percentiles=' . join(',', @pcts), "--json=$dir/pct.json",
		  "--latency-histogram=$dir/pct.hist", $db ]);
	is($code, 0, 'percentiles run: exit 0');

	# the line: right after pgbench's latency average, before the connection time
	my $labels = join(', ', map { "p$_ = \\d+\\.\\d{3} ms" } @pcts);
	like($out, qr/^latency average = \d+\.\d{3} ms\nlatency percentiles: $labels, max = \d+\.\d{3} ms\ninitial connection time = /m,
		'the percentile line, after the latency average');

	# the exact latencies (us) of every transaction, from the log
	my @lat;
	for my $f (glob("$dir/pct.*[0-9]"))
	{
		open my $fh, '<', $f or die "$f: $!";
		while (<$fh>)
		{
			my @c = split;
			push @lat, $c[2];
		}
		close $fh;
	}
	is(scalar @lat, 1000, 'the log has the 1000 transactions');
	ok(!(grep { !/^\d+$/ } @lat), 'every logged transaction succeeded');
	@lat = sort { $a <=> $b } @lat;

	my $j = parse_json(slurp_text("$dir/pct.json") // '', 'percentiles run');
	my $jl = $j->{results}{latency} || {};
	my ($textline) = $out =~ /^latency percentiles: (.*)$/m;
	my %text = ($textline // '') =~ /(p[\d.]+|max) = (\d+\.\d{3}) ms/g;
	for my $p (@pcts)
	{
		# nearest rank, as the histogram counts: the value at rank ceil(p/100 * n)
		my $exact = $lat[ ceil($p / 100 * @lat) - 1 ];
		my $got = ($jl->{percentiles_ms}{"p$p"} // -1) * 1000;
		# the bucket's midpoint is within 0.4 % of the value; the log rounds to 1 us
		cmp_ok(abs($got - $exact), '<=', 0.005 * $exact + 1.5,
			"p$p: $got us, exact from the log $exact us");
		is($text{"p$p"}, f3($jl->{percentiles_ms}{"p$p"}), "p$p: the text shows the JSON value");
	}
	cmp_ok(abs(($jl->{max_ms} // -1) * 1000 - $lat[-1]), '<=', 1,
		"max: exact ($lat[-1] us in the log)");
	is($text{max}, f3($jl->{max_ms}), 'max: the text shows it');
	is($jl->{percentiles_ms}{max}, $jl->{max_ms}, 'max: the same in percentiles_ms');

	# the histogram file: every processed transaction, the JSON's buckets
	my @hl = split /\n/, slurp_text("$dir/pct.hist") // '';
	ok(!(grep { !/^\d+\.\d{3} \d+\.\d{3} [1-9]\d*$/ } @hl), 'histogram file: "low_us high_us count" lines');
	is(sum(map { (split)[2] } @hl), 1000, 'histogram file: the counts sum to the processed count');
	is($j->{results}{transactions}{processed}, 1000, 'JSON: processed');
	is(join("\n", map { sprintf('%.3f %.3f %d', $_->{low_us}, $_->{high_us}, $_->{count}) }
			@{ $jl->{histogram} || [] }),
		join("\n", @hl), 'histogram file: the same buckets as the JSON');
	# every logged latency lies in a listed bucket (the log rounds to whole
	# microseconds: half of one either side)
	my @b = map { [ split ] } @hl;
	my $outside = grep {
		my $v = $_;
		!grep { $v >= $_->[0] - 0.5 && $v < $_->[1] + 0.5 } @b
	} @lat;
	is($outside, 0, 'histogram file: every logged latency falls in a listed bucket');
}

# ---------------------------------------------------------------- the histogram grid is fixed

# Two different runs: the same bucket for the same low bound, and every
# bucket on the grid (exact below 256 ns, 128 per power of two above).
{
	my ($code) = run_tool([ $ours, '-n', '-t', 60, '-c', 2, '-f', $sleep,
			"--latency-histogram=$dir/other.hist", $db ]);
	is($code, 0, 'a second run with a histogram file');
	my %high;
	my $off = 0;
	for my $f ("$dir/pct.hist", "$dir/other.hist")
	{
		for (split /\n/, slurp_text($f) // '')
		{
			my ($lo, $hi) = split;
			my ($lon, $hin) = (int($lo * 1000 + 0.5), int($hi * 1000 + 0.5));
			my $w = 1;
			if ($lon >= 256)
			{
				my $msb = int(log($lon) / log(2) + 1e-9);
				$msb-- if 2**$msb > $lon;
				$w = 2**($msb - 7);
			}
			$off++ if $lon % $w != 0 || $hin != $lon + $w;
			$off++ if defined $high{$lon} && $high{$lon} != $hin;
			$high{$lon} = $hin;
		}
	}
	is($off, 0, 'histogram files: every bucket on the fixed grid, the same in both runs');
}

# ---------------------------------------------------------------- --json=- against the text report

# -R, -L, -P and --progress-percentiles: the JSON document alone on stdout,
# the text report and the progress lines on stderr; every number of the
# text is in the JSON.
my $jrun;
{
	my @opts = ('-n', '-f', $sleep, '-T', 3, '-c', 3, '-j', 2, '-R', 300, '-L', 2, '-P', 1,
		'--progress-percentiles');
	my ($code, $out, $err) = run_tool([ $ours, @opts, '--json=-', $db ]);
	is($code, 0, '--json=-: exit 0');
	my $j = parse_json($out, '--json=-: stdout');
	$jrun = $j;
	unlike($out, qr/^(transaction type|progress|pgtempo-bench \()/m, '--json=-: no text on stdout');
	like($err, qr/^transaction type: /m, '--json=-: the text report on stderr');

	is($j->{tool}, 'pgtempo-bench', 'tool');
	is($j->{schema}, 1, 'schema 1');
	is($j->{exit_status}, $code, 'exit_status is the exit status');
	is($j->{interrupted_by}, undef, 'not interrupted');
	my $sv = $node->safe_psql('postgres', 'show server_version');
	is($j->{server_version}, $sv, 'server_version: the server\'s');
	my $svn = $node->safe_psql('postgres', 'show server_version_num');
	is($j->{server_version_num}, $svn, 'server_version_num');
	my $iso = qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[-+]\d\d:\d\d$/;
	like($j->{start_time} // '', $iso, 'start_time: ISO 8601');
	like($j->{end_time} // '', $iso, 'end_time: ISO 8601');
	cmp_ok($j->{end_epoch_s} // 0, '>=', $j->{start_epoch_s} // 1, 'end after start');

	my $st = $j->{settings} || {};
	is_deeply([ @$st{qw(clients threads duration_s rate_tps latency_limit_ms progress_s)} ],
		[ 3, 2, 3, 300, 2, 1 ], 'settings: clients, threads, duration, rate, limit, progress');
	is_deeply($st->{percentiles}, [ 50, 90, 99, 99.9 ], 'settings: the default percentiles');
	is($st->{transactions_per_client}, undef, 'settings: no -t');

	my $r = $j->{results} || {};
	my $t = $r->{transactions} || {};
	my %text;
	($text{processed}) = $err =~ /^number of transactions actually processed: (\d+)$/m;
	($text{failed}) = $err =~ /^number of failed transactions: (\d+) /m;
	@text{qw(skipped skipped_pct)} = $err =~ /^number of transactions skipped: (\d+) \((\d+\.\d{3})%\)$/m;
	@text{qw(late late_of)} = $err =~ /^number of transactions above the 2\.0 ms latency limit: (\d+)\/(\d+) \(\d+\.\d{3}%\)$/m;
	@text{qw(avg stddev)} = $err =~ /^latency average = (\d+\.\d{3}) ms\nlatency stddev = (\d+\.\d{3}) ms$/m;
	@text{qw(lag lagmax)} = $err =~ /^rate limit schedule lag: avg (\d+\.\d{3}) \(max (\d+\.\d{3})\) ms$/m;
	($text{conn}) = $err =~ /^initial connection time = (\d+\.\d{3}) ms$/m;
	($text{tps}) = $err =~ /^tps = (\d+\.\d+) \(without initial connection time\)$/m;
	my ($pl) = $err =~ /^latency percentiles: (.*)$/m;
	my %tp = ($pl // '') =~ /(p[\d.]+|max) = (\d+\.\d{3}) ms/g;

	is($t->{processed}, $text{processed}, 'JSON processed = text');
	is($t->{failed}, $text{failed}, 'JSON failed = text');
	is($t->{skipped}, $text{skipped}, 'JSON skipped = text');
	is(sprintf('%.3f', 100 * $t->{skipped} / ($t->{total} || 1)), $text{skipped_pct}, 'skipped %: of all transactions');
	is($t->{late}, $text{late}, 'JSON late = text');
	is($text{late_of}, $text{processed}, 'late: out of the processed');
	is($t->{total}, $t->{processed} + $t->{skipped} + $t->{failed}, 'total = processed + skipped + failed');
	is(f3($r->{latency}{average_ms}), $text{avg}, 'latency average: JSON = text');
	is(f3($r->{latency}{stddev_ms}), $text{stddev}, 'latency stddev: JSON = text');
	is(f3($r->{lag}{average_ms}), $text{lag}, 'lag average: JSON = text');
	is(f3($r->{lag}{max_ms}), $text{lagmax}, 'lag max: JSON = text');
	is(f3($r->{initial_connection_time_ms}), $text{conn}, 'initial connection time: JSON = text');
	is(sprintf('%f', $r->{tps} // 0), $text{tps}, 'tps: JSON = text');
	is(join(' ', map { "$_=" . f3($r->{latency}{percentiles_ms}{$_}) } qw(p50 p90 p99 p99.9 max)),
		join(' ', map { "$_=" . ($tp{$_} // '?') } qw(p50 p90 p99 p99.9 max)),
		'percentiles: JSON = text');
	is(sum(map { $_->{count} } @{ $r->{latency}{histogram} || [] }), $t->{processed},
		'JSON histogram: sums to processed');
	my $sc = $r->{scripts} || [];
	is(scalar @$sc, 1, 'one script');
	is($sc->[0]{transactions}{processed}, $t->{processed}, 'the script has the totals');

	# the progress series: one entry per line, the same numbers
	my @lines = $err =~ /^(progress: .*)$/mg;
	my $pr = $j->{progress} || [];
	cmp_ok(scalar @lines, '>=', 1, 'progress lines were printed');
	is(scalar @$pr, scalar @lines, 'one JSON progress entry per line');
	my $bad = 0;
	for my $i (0 .. $#lines)
	{
		my $p = $pr->[$i] || {};
		my $want = sprintf('progress: %.1f s, %.1f tps, lat %.3f ms stddev %.3f, %d failed, lag %.3f ms, %d skipped, '
			  . 'p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f ms',
			map { $_ // -1 } $p->{time_s}, $p->{tps}, $p->{latency_ms}, $p->{stddev_ms}, $p->{failed},
			$p->{lag_ms}, $p->{skipped}, @{ $p->{percentiles_ms} || {} }{qw(p50 p90 p99 p99.9 max)});
		$bad++, diag("line: $lines[$i]\nJSON: $want") if $lines[$i] ne $want;
	}
	is($bad, 0, 'every progress line is its JSON entry, printed');
	cmp_ok(sum(0, map { $_->{transactions} } @$pr), '<=', $t->{processed},
		'the intervals count no more than the total');
}

# ---------------------------------------------------------------- several scripts, -r

{
	my $a = write_script('a.sql', "\\set x random(1, 10)\nSELECT pg_sleep(0.0005);\n");
	my $b = write_script('b.sql', "SELECT 1;\nSELECT 2;\n");
	my ($code, $out) = run_tool([ $ours, '-n', '-f', "$a\@2", '-f', "$b\@1", '-t', 60, '-c', 2,
			'-r', '--random-seed=7', "--json=$dir/multi.json", $db ]);
	is($code, 0, 'several scripts: exit 0');
	my $j = parse_json(slurp_text("$dir/multi.json") // '', 'several scripts');
	my $sc = $j->{results}{scripts} || [];
	is(scalar @$sc, 2, 'two scripts in the JSON');
	my @sections = split /^SQL script \d+: /m, $out;
	shift @sections;
	is(scalar @sections, 2, 'two sections in the text');
	my $total = 0;
	for my $i (0 .. 1)
	{
		my $s = $sc->[$i] || {};
		my $txt = $sections[$i] // '';
		my ($n) = $txt =~ /^ - number of transactions actually processed: (\d+) /m;
		is($s->{transactions}{processed}, $n, "script $i: processed");
		$total += $n // 0;
		my ($avg) = $txt =~ /^ - latency average = (\d+\.\d{3}) ms$/m;
		is(f3($s->{latency}{average_ms}), $avg, "script $i: latency average");
		my ($pl) = $txt =~ /^ - latency percentiles: (.*)$/m;
		is($pl,
			join(', ', map { "$_ = " . f3($s->{latency}{percentiles_ms}{$_}) . ' ms' } qw(p50 p90 p99 p99.9 max)),
			"script $i: percentiles");
		is(sum(map { $_->{count} } @{ $s->{latency}{histogram} || [] }), $n, "script $i: its histogram");
		my @cmds = $txt =~ /^ +(\d+\.\d{3}) +(\d+) +(.*)$/mg;
		my @jc = map { (f3($_->{latency_ms}), $_->{failures}, $_->{command}) } @{ $s->{commands} || [] };
		is_deeply(\@jc, \@cmds, "script $i: the -r lines");
		is($s->{weight}, $i == 0 ? 2 : 1, "script $i: weight");
	}
	is($total, 120, 'the scripts add up to 120');
	is($j->{results}{transactions}{expected}, 120, 'expected: -t times -c');
}

# ---------------------------------------------------------------- --json alone, --json FILE

# One rule in every tool: --json alone is --json=- (the JSON document on
# stdout, the text report on stderr); an argument after it that is not an
# option is still its file, as when the option required one.
{
	my ($code, $out, $err) = run_tool([ $ours, '-n', '-f', $sleep, '-t', 2, $db, '--json' ]);
	is($code, 0, '--json alone: exit 0');
	my $j = parse_json($out, '--json alone: stdout');
	is($j->{results}{transactions}{processed}, 2, '--json alone: the run in the document');
	like($err, qr/^transaction type: /m, '--json alone: the text report on stderr');
	($code, $out, $err) = run_tool([ $ours, '-n', '-f', $sleep, '-t', 2, '--json', "$dir/space.json", $db ]);
	is($code, 0, '--json FILE: exit 0');
	like($out, qr/^number of transactions actually processed: 2\/2$/m, '--json FILE: the text report on stdout');
	is(parse_json(slurp_text("$dir/space.json") // '', '--json FILE')->{results}{transactions}{processed}, 2,
		'--json FILE: the document in the file');
}

# ---------------------------------------------------------------- exit status in the JSON

{
	my $bad = write_script('bad.sql', "SELECT 1/0;\n");
	my ($code, undef, $err) = run_tool([ $ours, '-n', '-f', $bad, '-t', 2, "--json=$dir/bad.json", $db ]);
	is($code, 2, 'a client aborts: exit 2');
	my $j = parse_json(slurp_text("$dir/bad.json") // '', 'abort');
	is($j->{exit_status}, 2, 'abort: exit_status 2 in the JSON');
	is($j->{results}{transactions}{processed}, 0, 'abort: nothing processed');
	is($j->{results}{latency}{average_ms}, undef, 'abort: no latency average');

	# interrupted: the JSON still written, with the signal
	my ($out, $e) = ('', '');
	my $h = IPC::Run::start([ $ours, '-n', '-f', $sleep, '-c', 2, '-T', 600, '-P', 1,
			"--json=$dir/int.json", $db ], '<', \'', '>', \$out, '2>', \$e, IPC::Run::timeout(120));
	$h->pump until $e =~ /^progress: /m;
	$h->signal('INT');
	$h->finish;
	my $rc = $h->full_result(0) >> 8;
	is($rc, 130, 'SIGINT: exit 130');
	$j = parse_json(slurp_text("$dir/int.json") // '', 'SIGINT');
	is($j->{exit_status}, 130, 'SIGINT: exit_status 130');
	is($j->{interrupted_by}, 'SIGINT', 'SIGINT: interrupted_by');
	cmp_ok(scalar @{ $j->{progress} || [] }, '>=', 1, 'SIGINT: the progress series so far');
}

# ---------------------------------------------------------------- write errors

{
	my ($code, $out, $err) = run_tool([ $ours, '-n', '-f', $sleep, '-t', 3,
			"--latency-histogram=$dir/no/such/dir/h", $db ]);
	is($code, 1, 'histogram file in a missing directory: exit 1');
	like($err, qr{^pgtempo-bench: error: could not open file "\Q$dir\E/no/such/dir/h" for writing: No such file or directory$}m,
		'histogram file: the error names the file');
	# the path is checked before the run: nothing ran, nothing to report
	unlike($out, qr/^tps = /m, 'histogram file: found before the run');
  SKIP:
	{
		skip '/dev/full is not writable here', 3 unless -w '/dev/full';
		($code, $out, $err) = run_tool([ $ours, '-n', '-f', $sleep, '-t', 3, '--json=/dev/full', $db ]);
		is($code, 1, '--json=/dev/full: exit 1');
		like($err, qr{^pgtempo-bench: error: could not write to file "/dev/full": No space left on device$}m,
			'--json=/dev/full: the error');
		like($out, qr/^tps = /m, '--json=/dev/full: the report was printed anyway');
	}
}

# ---------------------------------------------------------------- -R / -L lines against pgbench

# The line set and format of the report and of the progress lines, for
# the same options; numbers masked.  The per-script section is the newest
# pgbench's (documented): pgbench 15's " - N transactions (P% of total,
# tps = X)" line is turned into the newer two lines before comparing.
SKIP:
{
	skip 'the system pgbench is not installed: no reference to compare with', 8 unless $ref;
	my $fast = write_script('fast.sql', "SELECT 1;\n");
	my $slow = write_script('slow.sql', "SELECT pg_sleep(0.003);\n");
	my $mask = sub {
		my ($text, $ours_out) = @_;
		my @l;
		for (split /\n/, $text)
		{
			next if /^(pgbench|pgtempo-bench) \(/;
			if ($ours_out)
			{
				# pgbench before 19 has no "other failures" (documented)
				next if /^(?: - )?number of other failures: \d+ \(\d+\.\d{3}%\)$/;
				# ours only: the percentile lines, in their exact default form
				next if /^(?: - )?latency percentiles: p50 = \d+\.\d{3} ms, p90 = \d+\.\d{3} ms, p99 = \d+\.\d{3} ms, p99\.9 = \d+\.\d{3} ms, max = \d+\.\d{3} ms$/;
				s/, p50 \d+\.\d{3} p90 \d+\.\d{3} p99 \d+\.\d{3} p99\.9 \d+\.\d{3} max \d+\.\d{3} ms$//;
			}
			elsif (/^ - (\d+) transactions \(([\d.]+)% of total, tps = ([\d.]+)\)$/)
			{
				push @l, " - N transactions (X% of total)", " - number of transactions actually processed: N (tps = X)";
				next;
			}
			s/\d+\.\d+/X/g;
			s/\d+/N/g;
			push @l, $_;
		}
		return join("\n", @l) . "\n";
	};
	my @cases = (
		[ '-R -L, several scripts', '-f', "$fast\@2", '-f', "$slow\@1", '-R', 200, '-L', 2, '-T', 2, '-c', 2 ],
		[ '-R, -t', '-f', $fast, '-R', 300, '-t', 20, '-c', 2, '-j', 2 ],
		[ '-L, -t', '-f', $slow, '-L', 1, '-t', 10 ],
		[ '-R -L --failures-detailed --max-tries', '-f', $slow, '-R', 100, '-L', 4, '-T', 2,
		  '--failures-detailed', '--max-tries=2' ],);
	for my $c (@cases)
	{
		my ($label, @o) = @$c;
		my ($rr, $rout, $rerr) = run_tool([ $ref, '-n', @o, '-P', 1, $db ]);
		my ($or, $oout, $oerr) = run_tool([ $ours, '-n', @o, '-P', 1, '--progress-percentiles', $db ]);
		is($or, $rr, "$label: same exit status ($rr)");
		is($mask->($oout, 1), $mask->($rout, 0), "$label: the report has pgbench's lines");
		my ($rp) = $rerr =~ /^(progress: .*)$/m;
		my ($op) = $oerr =~ /^(progress: .*)$/m;
		is($mask->($op // '', 1), $mask->($rp // '', 0), "$label: the progress line has pgbench's fields")
		  if defined $rp;
	}
}

done_testing();
