# Several client hosts as one benchmark: three concurrent runs against one
# cluster with a common --start-at, then --merge of their --json reports.
# The merged counts are checked against the sum of the runs', the merged
# histogram against the sum of theirs bucket by bucket, the merged
# percentiles against the exact ones from the union of the three -l logs
# (within one histogram bucket), the merged -P series against the sum per
# interval; then the errors: runs of different benchmarks, missing and
# truncated reports (and --allow-partial), a start time in the past, and
# a signal during the wait for the start.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use List::Util qw(sum max min);
use POSIX qw(ceil);
use Time::HiRes qw(time sleep);
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');

my $node = new_cluster('bench_merge', conf => "max_connections = 50\n");
my $db = $node->connstr('postgres');
my $dir = tempdir(CLEANUP => 1);

sub slurp
{
	my ($path) = @_;
	open my $fh, '<', $path or return '';
	local $/;
	my $t = <$fh>;
	close $fh;
	return $t;
}

sub json_of
{
	my ($path) = @_;
	my $j = eval { JSON::PP->new->decode(slurp($path)) };
	ok(defined $j, "$path: one JSON document") or diag($@);
	return $j || {};
}

# Latencies spread over 0 to 3 ms, so that the percentiles differ.
my $sleep = write_file("$dir/sleep.sql",
	"\\set d random(0, 3000)\nSELECT pg_sleep(:d / 1000000.0);\n");

# ---------------------------------------------------------------- three runs, one start

# (far enough ahead that the three have connected even on a loaded machine)
my $start = int(time()) + 10;
my @runs;
for my $h (1 .. 3)
{
	my @cmd = ($ours, '-n', '-f', $sleep, '-T', 3, '-c', $h + 1, '-j', ($h == 3 ? 2 : 1),
		'-P', 1, '-r', "--start-at=\@$start", '-l', "--log-prefix=$dir/log$h",
		"--json=$dir/h$h.json", $db);
	my ($out, $err) = ('', '');
	print '# Running: ' . join(' ', @cmd) . "\n";
	push @runs, { out => \$out, err => \$err,
		h => IPC::Run::start(\@cmd, '<', \undef, '>', \$out, '2>', \$err,
			IPC::Run::timeout(60)) };
}
for my $i (0 .. 2)
{
	$runs[$i]{h}->finish;
	is($runs[$i]{h}->result(0), 0, "run " . ($i + 1) . ": exit 0")
	  or diag(${ $runs[$i]{err} });
}

my @j = map { json_of("$dir/h$_.json") } 1 .. 3;
my $out1 = ${ $runs[0]{out} };
like($out1, qr/^duration: 3 s\nnumber of transactions actually processed: \d+\nstart time: \d{4}-\d\d-\d\dT[\d:.]+[-+]\d\d:\d\d\nend time: \S+\nclock: (synchronized|NOT synchronized|status unknown)/m,
	'--start-at: the report gives the start and end times and the clock');
for my $i (0 .. 2)
{
	my $r = $j[$i];
	cmp_ok(abs($r->{bench_start_epoch_s} - $start), '<', 0.5,
		'run ' . ($i + 1) . ': began at the start time');
	cmp_ok(abs($r->{end_epoch_s} - ($start + 3)), '<', 0.5,
		'run ' . ($i + 1) . ': ended 3 s after it');
	is($r->{start_at_epoch_s}, $start, 'run ' . ($i + 1) . ': start_at in the JSON');
	ok(defined $r->{host} && exists $r->{clock}, 'run ' . ($i + 1) . ': host and clock in the JSON');
	cmp_ok($r->{results}{initial_connection_time_ms}, '<', 2000,
		'run ' . ($i + 1) . ': the wait is not counted as connection time');
}

# ---------------------------------------------------------------- the merge

my @pcts = (1, 10, 50, 90, 99, 99.9);
my ($code, $out, $err) = run_tool([ $ours, '--merge', "--json=$dir/m.json",
		"--latency-histogram=$dir/m.hist", "--chart=$dir/m.svg",
		'--percentiles=' . join(',', @pcts), map { "$dir/h$_.json" } 1 .. 3 ]);
is($code, 0, 'merge: exit 0') or diag($err);
my $m = json_of("$dir/m.json");
my $mr = $m->{results} || {};

my $sum = sub { my ($f) = @_; return sum(map { $f->($_) } @j); };
like($out, qr/^number of clients: 9\nnumber of threads: 4\n/m, 'merge: clients and threads summed');
like($out, qr/^number of hosts: 3\nstart time: .*\nend time: .*\nclocks: \d of 3 synchronized/m,
	'merge: hosts, window and clocks');
is($mr->{transactions}{processed}, $sum->(sub { $_[0]{results}{transactions}{processed} }),
	'merge: processed is the sum');
like($out, qr/^number of transactions actually processed: $mr->{transactions}{processed}$/m,
	'merge: the text report says it');
for my $k (qw(failed retried retries skipped))
{
	is($mr->{transactions}{$k}, $sum->(sub { $_[0]{results}{transactions}{$k} }),
		"merge: $k is the sum");
}
cmp_ok(abs($mr->{duration_s} - 3), '<', 0.5, 'merge: the window is the common 3 s');
cmp_ok(abs($mr->{tps} - $mr->{transactions}{processed} / $mr->{duration_s}), '<', 1e-6,
	'merge: tps over the window');

# the histogram: bucket by bucket the sum
my %hsum;
for my $r (@j)
{
	$hsum{"$_->{low_us} $_->{high_us}"} += $_->{count} for @{ $r->{results}{latency}{histogram} };
}
my %hm = map { ("$_->{low_us} $_->{high_us}" => $_->{count}) } @{ $mr->{latency}{histogram} };
is_deeply(\%hm, \%hsum, 'merge: the histogram is the sum of the runs\' histograms');
is(sum(map { (split)[2] } split /\n/, slurp("$dir/m.hist")), $mr->{transactions}{processed},
	'merge: --latency-histogram counts every transaction');

# the percentiles: within one bucket of the exact ones from the union of the -l logs
my @lat;
for my $f (glob("$dir/log[123].*"))
{
	open my $fh, '<', $f or die "$f: $!";
	push @lat, (split)[2] while <$fh>;
	close $fh;
}
is(scalar @lat, $mr->{transactions}{processed}, 'the three logs hold every transaction');
@lat = sort { $a <=> $b } @lat;
for my $p (@pcts)
{
	my $exact = $lat[ ceil($p / 100 * @lat) - 1 ];
	my $got = $mr->{latency}{percentiles_ms}{"p$p"} * 1000;
	# one bucket is 1/128 of its low bound; the log rounds to 1 us
	cmp_ok(abs($got - $exact), '<=', $exact / 128 + 1.5, "merge: p$p $got us, from the logs $exact us");
}
cmp_ok(abs($mr->{latency}{max_ms} * 1000 - $lat[-1]), '<=', 1, 'merge: max exact');
my $avg = sum(@lat) / @lat;
cmp_ok(abs($mr->{latency}{average_ms} * 1000 - $avg), '<=', 1, 'merge: average from the logs');

# per script and per command: sums
is($mr->{scripts}[0]{transactions}{processed}, $mr->{transactions}{processed}, 'merge: the script\'s count');
is($mr->{scripts}[0]{commands}[1]{count},
	$sum->(sub { $_[0]{results}{scripts}[0]{commands}[1]{count} }), 'merge: -r counts summed');
like($out, qr/^statement latencies in milliseconds and failures:\n\s+[\d.]+\s+0\s+\\set d/m,
	'merge: -r lines');

# the -P series: per interval the sum
my %tx;
for my $r (@j)
{
	$tx{ sprintf('%.0f', $_->{time_s}) } += $_->{transactions} for @{ $r->{progress} };
}
my %mtx = map { (sprintf('%.0f', $_->{time_s}) => $_->{transactions}) } @{ $m->{progress} };
is_deeply(\%mtx, \%tx, 'merge: the progress series is the sum per interval');
my ($busy) = grep { $_->{transactions} > 0 } @{ $m->{progress} };
my %maxes;
for my $r (@j)
{
	for (@{ $r->{progress} })
	{
		my $k = sprintf('%.0f', $_->{time_s});
		$maxes{$k} = $_->{percentiles_ms}{max}
		  if !defined $maxes{$k} || $_->{percentiles_ms}{max} > $maxes{$k};
	}
}
# the per-interval series: each merged row's histogram is the sum of the
# hosts' rows of that second, bucket by bucket, and gives the merged -P
# line percentiles that lie within the hosts' (to a bucket)
sub hist_of
{
	my ($text) = @_;
	my (%h, $i);
	for my $t (split ' ', $text)
	{
		if (!defined $i)      { $i = $t; }
		elsif ($t =~ /^\+/)  { $i += $t; }
		else                  { $h{$i} = $t if $t > 0; $i++; }
	}
	return \%h;
}
my %rowsum;
for my $r (@j)
{
	for my $row (@{ $r->{intervals}{rows} })
	{
		my $h = hist_of($row->[6]);
		$rowsum{ sprintf('%.0f', $row->[0]) }{$_} += $h->{$_} for keys %$h;
	}
}
my %mrows = map { (sprintf('%.0f', $_->[0]) => hist_of($_->[6])) } @{ $m->{intervals}{rows} };
is_deeply(\%mrows, \%rowsum, 'merge: the series\' histograms are the sums of the hosts\' per interval');
my $k = sprintf('%.0f', $busy->{time_s});
my @p50 = map { $_->{percentiles_ms}{p50} } grep { sprintf('%.0f', $_->{time_s}) eq $k && $_->{transactions} > 0 }
  map { @{ $_->{progress} } } @j;
ok(defined $busy->{percentiles_ms}{p50}, 'merge: per-interval percentiles from the series');
cmp_ok($busy->{percentiles_ms}{p50}, '>=', min(@p50) * (1 - 1 / 64), 'merge: the interval\'s p50 is not below the hosts\'');
cmp_ok($busy->{percentiles_ms}{p50}, '<=', max(@p50) * (1 + 1 / 64), 'merge: the interval\'s p50 is not above the hosts\'');
is($busy->{percentiles_ms}{max}, $maxes{ sprintf('%.0f', $busy->{time_s}) },
	'merge: the interval\'s max is the largest of the runs\'');
is(scalar @{ $m->{hosts} }, 3, 'merge: JSON lists the hosts');
like(slurp("$dir/m.svg"), qr/<svg/, 'merge: --chart written');

# one run merged alone gives its own numbers back
($code, $out) = run_tool([ $ours, '--merge', "--json=$dir/one.json", "$dir/h1.json" ]);
is($code, 0, 'merge of one report: exit 0');
my $one = json_of("$dir/one.json");
is_deeply($one->{results}{latency}{percentiles_ms}, $j[0]{results}{latency}{percentiles_ms},
	'merge of one report: the same percentiles');
is($one->{results}{tps}, $j[0]{results}{tps}, 'merge of one report: the same tps');

# ---------------------------------------------------------------- errors

($code, $out, $err) = run_tool([ $ours, '-n', '-f', $sleep, '-t', 3, '-M', 'prepared',
		"--json=$dir/other.json", $db ]);
is($code, 0, 'a run of another benchmark');
($code, $out, $err) = run_tool([ $ours, '--merge', "$dir/h1.json", "$dir/other.json" ]);
is($code, 1, 'different benchmarks: exit 1');
like($err, qr/error: "\Q$dir\E\/h1.json" and "\Q$dir\E\/other.json" are not runs of the same benchmark: settings\.query_mode differs\n.*detail: It is "simple" in .* and "prepared" in/,
	'different benchmarks: the difference named');

($code, $out, $err) = run_tool([ $ours, '--merge', "$dir/h1.json", "$dir/nosuch.json", "$dir/h2.json" ]);
is($code, 1, 'a missing report: exit 1');
like($err, qr/could not open file "\Q$dir\E\/nosuch.json"/, 'a missing report: named');
is($out, '', 'a missing report: no partial report');

write_file("$dir/trunc.json", substr(slurp("$dir/h2.json"), 0, 2000));
($code, $out, $err) = run_tool([ $ours, '--merge', "$dir/h1.json", "$dir/trunc.json" ]);
is($code, 1, 'a truncated report: exit 1');
like($err, qr/file "\Q$dir\E\/trunc.json" is not valid JSON: line \d+, column \d+: unexpected end of input/,
	'a truncated report: where it ends');

($code, $out, $err) = run_tool([ $ours, '--merge', "$dir/h1.json", "$dir/h2.json", "$dir/h1.json" ]);
is($code, 1, 'a report given twice: exit 1');
like($err, qr/"\Q$dir\E\/h1.json" and "\Q$dir\E\/h1.json" are the same run \(host .*\): it would be counted twice/,
	'a report given twice: said');

write_file("$dir/notours.json", '{"a": 1}');
($code, $out, $err) = run_tool([ $ours, '--merge', "$dir/notours.json" ]);
is($code, 1, 'not a report: exit 1');
like($err, qr/not a pgtempo-bench --json report/, 'not a report: said');

($code, $out, $err) = run_tool([ $ours, '--merge', '--allow-partial', "--json=$dir/p.json",
		"$dir/h1.json", "$dir/nosuch.json", "$dir/trunc.json", "$dir/h2.json" ]);
is($code, 0, '--allow-partial: exit 0');
like($out, qr/^number of hosts: 2$/m, '--allow-partial: two runs merged');
like($err, qr/warning: the merge is partial: "\Q$dir\E\/nosuch.json" was left out/,
	'--allow-partial: the missing report named');
is_deeply(json_of("$dir/p.json")->{files_missing}, [ "$dir/nosuch.json", "$dir/trunc.json" ],
	'--allow-partial: JSON lists what is missing');

($code, $out, $err) = run_tool([ $ours, '--merge', '-c', 3, "$dir/h1.json" ]);
is($code, 1, '--merge with a run option: exit 1');
($code, $out, $err) = run_tool([ $ours, '--merge' ]);
is($code, 1, '--merge without reports: exit 1');
like($err, qr/--merge needs the runs' --json reports/, '--merge without reports: said');

# ---------------------------------------------------------------- --start-at errors

($code, $out, $err) = run_tool([ $ours, '-n', '-f', $sleep, '-T', 1,
		'--start-at=@' . (int(time()) - 10), $db ]);
is($code, 1, 'a start time in the past: exit 1');
like($err, qr/error: start time .* \(--start-at\) is in the past: 1\d\.\d{3} s ago/,
	'a start time in the past: by how much');

($code, $out, $err) = run_tool([ $ours, '-n', '-T', 1, '--start-at=2026-01-01T00:00:00', $db ]);
is($code, 1, 'a start time without offset: exit 1');
like($err, qr/invalid value "2026-01-01T00:00:00" for option --start-at/, 'without offset: refused');

# connections that take longer than the time left: each one waits 2 s
# after authentication (post_auth_delay), the set-up's and the clients'
# (-T 10: the run's end and its grace, where connecting gives up, stay far
# off even on a loaded machine)
{
	my $start_at = time() + 2.5;
	($code, $out, $err) = run_tool([ $ours, '-n', '-f', $sleep, '-T', 10, '-c', 2,
			sprintf('--start-at=@%.3f', $start_at), "$db options='-c post_auth_delay=2'" ]);
	is($code, 1, 'connections that miss the start time: exit 1');
	like($err, qr/error: start time .* \(--start-at\) had passed when the connections were made: \d+\.\d{3} s ago/,
		'connections that miss the start time: by how much');
	unlike($out, qr/number of transactions/, 'connections that miss the start time: no report');
}

# a signal during the wait ends the run at once, with nothing measured
{
	my ($o, $e) = ('', '');
	my $t0 = time();
	my $h = IPC::Run::start([ $ours, '-n', '-f', $sleep, '-T', 2, '-c', 2,
			'--start-at=@' . (int(time()) + 30), "--json=$dir/int.json", $db ],
		'<', \undef, '>', \$o, '2>', \$e, IPC::Run::timeout(60));
	sleep(1.5);
	$h->signal('INT');
	$h->finish;
	is($h->full_result(0) >> 8, 130, 'SIGINT during the wait: exit 130');
	cmp_ok(time() - $t0, '<', 10, 'SIGINT during the wait: ends at once');
	like($o, qr/^number of transactions actually processed: 0$/m, 'SIGINT during the wait: nothing ran');
}

$node->stop;
done_testing();
