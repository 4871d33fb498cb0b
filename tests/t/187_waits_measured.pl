# pgtempo-waits: what the server measured itself beside the sampled
# estimates, where the truth is known.  Two sessions run short pg_sleep
# statements back to back: the server adds their active time at each
# statement's end, so the measured active_time and the sampled activity of
# the sessions describe the same seconds and must agree within the bound.
# track_io_timing off leaves the block times out and says what turning it on
# would cost; on, they are measured.  A pg_stat_reset() in the middle of a
# run loses the time before it, and the report says so with its reason.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use POSIX qw(strftime);
use Time::Local qw(timegm);
use JSON::PP;
use PgTempo::Test;
use Test::More;
use Time::HiRes qw(usleep);

my $bin = pgtempo_bin('pgtempo-waits');
my $bench = pgtempo_bin('pgtempo-bench');
# no autovacuum: its workers would add active time the sessions' samples do not have
my $node = new_cluster('waits_measured', conf => "autovacuum = off\n");
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres');
my $dir = tempdir(CLEANUP => 1);
my $script = "$dir/sleep.sql";
write_file($script, "SELECT pg_sleep(0.05);\n");

# One run: the sampler starts, after its first read the load runs for
# $secs s ($during is called in the middle of it), and the sampler ends a
# while after the load did, so that every statement's time has reached the
# server's counters.  Returns the JSON report and the text report.
sub measured_run
{
	my (%o) = @_;
	my $secs = $o{secs} || 3;
	my ($out, $err) = ('', '');
	my $json = "$dir/run.json";
	unlink $json;
	my $h = IPC::Run::start([ $bin, @conn, '--source=activity', '-i', '10ms',
		'-T', $secs + 4, "--json=$json", @{ $o{args} || [] } ], '>', \$out, '2>', \$err);
	my $waited = 0;
	while ($err !~ /sampling/ && $waited++ < 300)
	{
		usleep(100_000);
		$h->pump_nb;
	}
	usleep(500_000);
	my $b = IPC::Run::start([ $bench, @conn, '-n', '-c', '2', '-T', $secs,
		@{ $o{load} || [ '-f', $script ] } ],
		'>', \my $bout, '2>', \my $berr);
	if ($o{during})
	{
		usleep($secs * 500_000);
		$o{during}->();
	}
	$b->finish;
	is($b->result(0), 0, "$o{name}: the load ran") or diag($berr);
	$h->finish;
	is($h->result(0), 0, "$o{name}: exit 0") or diag($err);
	my $r = eval { decode_json(slurp_text($json)) } || {};
	my %fig = map { $_->{what} => $_ } @{ $r->{measured_by_server}{figures} || [] };
	return ($r, \%fig, $out);
}

# ---------------------------------------------------------------- track_io_timing off

my ($r, $fig, $text) = measured_run(name => 'io timing off');
my $m = $r->{measured_by_server};
ok($m, 'the JSON report has measured_by_server');
cmp_ok($m->{reads}, '>=', 2, 'the counters were read at the start and at the end');
my $a = $fig->{active_time};
ok(defined $a->{measured_seconds}, 'active time measured');
cmp_ok($a->{sampled_samples}, '>', 0, 'the sessions in state active were sampled');
# 2 sessions for about 3 s: seconds of active time on both sides
cmp_ok($a->{measured_seconds}, '>', 1, 'active time: the measured seconds are the sessions\'');
ok($a->{agree}, 'active time: measured within the sampled bound')
  or diag(explain($a));
is_deeply($a->{reasons}, [], 'active time: no disagreement, no reasons');
is($fig->{data_file_reads}{measured_missing}, 'track_io_timing is off',
	'track_io_timing off: block read time missing, and why');
ok(!defined $fig->{data_file_reads}{measured_seconds}, 'track_io_timing off: no measured seconds');
ok(defined $fig->{data_file_reads}{sampled_seconds}, 'the sampled side is there all the same');
my ($io_cost) = grep { $_->{setting} eq 'track_io_timing' } @{ $m->{timing_off} };
ok($io_cost, 'track_io_timing off: its cost is priced');
cmp_ok($io_cost->{clock_read_ns}, '>', 0, 'the clock read cost, from the timing loop');
ok(defined $io_cost->{cpu_us_per_second}, 'the cost from the I/O rate of the counters');
like($text, qr/^measured by the server: its counters read \d+ times/m, 'text: the section');
like($text, qr/^  active time: measured [\d.]+ s \(pg_stat_database\.active_time\)(, less [\d.]+ s of this sampler's own statements \(its backend's CPU time\))?; sampled [\d.]+ ± [\d.]+ s \(sessions in state active\): within the bound$/m,
	'text: active time, measured beside sampled');
like($text, qr/^  data file reads: measured: none \(track_io_timing is off\); sampled [\d.]+ ± [\d.]+ s \(IO\/DataFileRead\)$/m,
	'text: the read time is not measured, and why');
like($text, qr/^  track_io_timing is off: (?:pg_stat_database\.blk_read_time and blk_write_time|pg_stat_io\.read_time and write_time) are not measured; turning it on reads the clock twice per operation, [\d.]+ ns a read on this host: at the [\d.]+ block reads and writes a second of this run, [\d.]+ us of CPU a second \([\d.]+ % of one CPU\)$/m,
	'text: what turning track_io_timing on would cost');

# ---------------------------------------------------------------- track_io_timing on

$node->safe_psql('postgres', 'ALTER SYSTEM SET track_io_timing = on; SELECT pg_reload_conf()');
$node->poll_query_until('postgres', q{SELECT current_setting('track_io_timing') = 'on'})
  or die 'track_io_timing did not come on';
($r, $fig, $text) = measured_run(name => 'io timing on');
$m = $r->{measured_by_server};
ok(!defined $fig->{data_file_reads}{measured_missing}, 'track_io_timing on: the read time is measured');
ok(defined $fig->{data_file_reads}{measured_count}, 'track_io_timing on: with the count of reads');
ok(!(grep { $_->{setting} eq 'track_io_timing' } @{ $m->{timing_off} }),
	'track_io_timing on: no cost line for it');
ok($fig->{active_time}{agree}, 'io timing on: active time within the bound')
  or diag(explain($fig->{active_time}));
unlike($text, qr/track_io_timing is off/, 'text: no missing-figures line for track_io_timing');
like($text, qr/^  data file reads: measured [\d.]+ s in \d+ reads/m, 'text: the read time measured');

# ---------------------------------------------------------------- read back from its logs

# The measured records of a --log-interval log, summed by --from-log: its
# figures are the records' sums (measured seconds to the microsecond the log
# holds, counts and samples exactly, the bound worked out from the summed
# samples), and a window takes only the spans wholly inside it.
my $mlog = "$dir/measured.jsonl";
($r, $fig, $text) = measured_run(name => 'logged', args => [ "--log=$mlog", '--log-interval=1' ]);
my @mrec = grep { ($_->{type} // '') eq 'measured' }
  map { decode_json($_) } grep { /\S/ } split /\n/, slurp_text($mlog);
cmp_ok(scalar(@mrec), '>', 0, 'logged: the log holds measured records');

# A time of the log (UTC, microseconds) shifted by $us microseconds.
sub ts_shift
{
	my ($z, $us) = @_;
	my ($y, $mo, $d, $H, $M, $S, $f) = $z =~ /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{6})Z$/ or die $z;
	my $t = (timegm($S, $M, $H, $d, $mo - 1, $y) * 1000000 + $f) + $us;
	return strftime('%Y-%m-%dT%H:%M:%S', gmtime int($t / 1000000)) . sprintf('.%06dZ', $t % 1000000);
}

# the records (of @mrec, else of $recs) of the spans starting at or after $since, summed per figure
sub logged_sums
{
	my ($since, $recs) = @_;
	my (%sum, %spans);
	for my $x (grep { !defined $since || $_->{interval_start} ge $since } @{ $recs || \@mrec })
	{
		$spans{"$x->{interval_start} $x->{interval_end}"} = 1;
		my $s = $sum{ $x->{figure} } ||= { us => 0, count => 0, samples => 0, sampled => 0 };
		if (defined $x->{measured_seconds})
		{
			$s->{us} += sprintf('%.0f', $x->{measured_seconds} * 1e6);
			$s->{count} += $x->{measured_count} // 0;
		}
		else
		{
			$s->{missing} //= $x->{measured_missing};
		}
		$s->{samples} += $x->{sampled_samples};
		$s->{sampled} += $x->{sampled_seconds};
	}
	return (\%sum, scalar(keys %spans));
}

# the report from the log against the sums, figure by figure
sub check_sums
{
	my ($name, $back, $sum, $nspans) = @_;
	my $bm = $back->{measured_by_server} || {};
	is($bm->{log_spans}, $nspans, "$name: the spans summed");
	my %bf = map { $_->{what} => $_ } @{ $bm->{figures} || [] };
	for my $k (sort keys %$sum)
	{
		my ($s, $b) = ($sum->{$k}, $bf{$k} || {});
		if (defined $s->{missing})
		{
			is($b->{measured_missing}, $s->{missing}, "$name: $k missing, with the records' reason");
			next;
		}
		cmp_ok(abs($b->{measured_seconds} * 1e6 - $s->{us}), '<', 0.5,
			"$name: $k measured seconds, the records' sum ($s->{us} us)");
		is($b->{measured_count}, $s->{count}, "$name: $k measured count") if defined $b->{measured_count};
		is($b->{sampled_samples}, $s->{samples}, "$name: $k sampled samples");
		cmp_ok(abs($b->{sampled_seconds} - $s->{sampled}), '<', 1e-9 * (1 + $s->{sampled}),
			"$name: $k sampled seconds, the records' sum");
		my $per = $s->{samples} > 0 ? $s->{sampled} / $s->{samples} : $back->{period_s};
		my $bound = $per * (1.96 * sqrt($s->{samples}) + 3);
		cmp_ok(abs($b->{sampled_error_seconds} - $bound), '<', 1e-9 * (1 + $bound),
			"$name: $k bound from the summed samples");
		is(!!$b->{agree}, abs($s->{us} / 1e6 - $s->{sampled}) <= $bound, "$name: $k agree flag")
		  if defined $b->{agree};
	}
}

my ($lrc, $lout, $lerr) = run_tool([ $bin, '--from-log', $mlog, '--json' ]);
is($lrc, 0, 'from log: exit 0') or diag($lerr);
my ($sum, $nspans) = logged_sums();
check_sums('from log', decode_json($lout), $sum, $nspans);
ok(exists $sum->{active_time} && !defined $sum->{active_time}{missing}, 'from log: active time measured');
# a window from a third into the first span: that span crosses its edge and
# is left out (said), the others are summed
my @starts = sort keys %{ { map { $_->{interval_start} => 1 } @mrec } };
my $since = ts_shift($starts[0], 300000);
($lrc, $lout, $lerr) = run_tool([ $bin, '--from-log', $mlog, '--json', "--since=$since" ]);
is($lrc, 0, 'window: exit 0') or diag($lerr);
my $back = decode_json($lout);
($sum, $nspans) = logged_sums($since);
cmp_ok($nspans, '>', 0, "window: spans in it ($nspans)");
check_sums('window', $back, $sum, $nspans);
is($back->{measured_by_server}{log_spans_left_out}, 1, 'window: the span across its edge left out');
($lrc, $lout, $lerr) = run_tool([ $bin, '--from-log', $mlog ]);
like($lout, qr/^measured by the server: spans of the logs summed: \d+ in the window, 0 across its edge left out; sampled: the spans' estimates summed, the 95 % bound from their samples$/m,
	'from log, text: the section');
like($lout, qr/^  active time: measured [\d.]+ s \(pg_stat_database\.active_time\); sampled [\d.]+ ± [\d.]+ s \(sessions in state active\)/m,
	'from log, text: active time measured beside sampled');
# the file given twice: its spans are summed once
($lrc, $lout, $lerr) = run_tool([ $bin, '--from-log', $mlog, $mlog, '--json' ]);
is($lrc, 0, 'the log twice: exit 0') or diag($lerr);
($sum, $nspans) = logged_sums();
check_sums('the log twice', decode_json($lout), $sum, $nspans);

# the same from CSV, whose measured records are comment lines
my $clog = "$dir/measured.csv";
measured_run(name => 'logged csv', secs => 1, args => [ "--log=$clog", '--log-interval=1' ]);
my @crec = map { /^# measured (\{.*\})$/ ? decode_json($1) : () } split /\n/, slurp_text($clog);
cmp_ok(scalar(@crec), '>', 0, 'logged csv: the log holds measured records');
($lrc, $lout, $lerr) = run_tool([ $bin, '--from-log', $clog, '--json' ]);
is($lrc, 0, 'from csv log: exit 0') or diag($lerr);
($sum, $nspans) = logged_sums(undef, \@crec);
check_sums('from csv log', decode_json($lout), $sum, $nspans);
# a log of samples holds no measured records: one line says so
my $rawlog = "$dir/raw.jsonl";
measured_run(name => 'raw log', secs => 1, args => [ "--log=$rawlog" ]);
($lrc, $lout, $lerr) = run_tool([ $bin, '--from-log', $rawlog ]);
like($lout, qr/^measured by the server: none in the window: logs of samples hold no measured records \(--log-interval logs do\)$/m,
	'from a log of samples: one line why');
($lrc, $lout, $lerr) = run_tool([ $bin, '--from-log', $rawlog, '--json' ]);
ok(!exists decode_json($lout)->{measured_by_server}, 'from a log of samples: no JSON section');

# ---------------------------------------------------------------- a reset in the middle

($r, $fig, $text) = measured_run(name => 'reset', secs => 4,
	during => sub { $node->safe_psql('postgres', 'SELECT pg_stat_reset()') });
$m = $r->{measured_by_server};
ok($m->{reset_pg_stat_database}, 'reset: noticed');
$a = $fig->{active_time};
# the seconds of both sessions before the reset are lost: far outside the bound
ok(defined $a->{agree} && !$a->{agree}, 'reset: active time disagrees')
  or diag(explain($a));
like($a->{reasons}[0] || '', qr/reset during the run/, 'reset: its reason comes first');
like($text, qr/^    disagreement: measured [\d.]+ s lies below the sampled bound/m,
	'text: the disagreement');
like($text, qr/^  counter reset: pg_stat_database reset during the run/m, 'text: the reset');

# ---------------------------------------------------------------- WAL syncs with synchronous_commit on

# the test clusters run with fsync off, which syncs nothing and counts nothing
$node->safe_psql('postgres', 'ALTER SYSTEM SET track_wal_io_timing = on; '
	  . 'ALTER SYSTEM SET fsync = on; SELECT pg_reload_conf()');
$node->poll_query_until('postgres',
	q{SELECT current_setting('track_wal_io_timing') = 'on' AND current_setting('fsync') = 'on'})
  or die 'track_wal_io_timing did not come on';
my ($rc, $bout, $berr) = run_tool([ $bench, @conn, '-i', '-s', '1', '-q' ]);
is($rc, 0, 'pgbench tables') or diag($berr);
($r, $fig, $text) = measured_run(name => 'wal', load => [], args => [ '--backend-type=all' ]);
my $w = $fig->{wal_syncs};
ok(!defined $w->{measured_missing}, 'track_wal_io_timing on: WAL syncs measured');
cmp_ok($w->{measured_count}, '>', 0, 'WAL syncs: counted by the server (a commit each)');
cmp_ok($w->{measured_ms_each}, '>', 0, 'WAL syncs: the measured average duration of one');
ok(!(grep { $_->{setting} eq 'track_wal_io_timing' } @{ $r->{measured_by_server}{timing_off} }),
	'track_wal_io_timing on: no cost line for it');
like($text, qr/^  WAL syncs: measured [\d.]+ s in \d+ syncs, [\d.]+ ms each \((?:pg_stat_wal\.wal_sync_time, wal_sync|pg_stat_io\.fsync_time, fsyncs \(object wal\))\); sampled [\d.]+ ± [\d.]+ s \(IO\/WALSync\)/m,
	'text: WAL syncs measured beside sampled, with the time of one');
note("WAL syncs: measured $w->{measured_seconds} s in $w->{measured_count}, sampled "
	  . "$w->{sampled_seconds} ± $w->{sampled_error_seconds} s");

done_testing();
