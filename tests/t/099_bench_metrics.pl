# pgtempo-bench --metrics=FILE: a Prometheus textfile that promtool accepts,
# whose numbers are the --json report's (per script, failures by kind,
# retries, the latency histogram's buckets against the report's own
# histogram), written whole (no temporary file left) at the end of a run,
# after a signal and when the run could not start; a path that cannot be
# written fails before connecting; a full disk fails clearly and leaves the
# old file.

use strict;
use warnings;

use File::Path qw(make_path);
use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Metrics;
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $node = new_cluster('bench_metrics');
my $db = $node->connstr('postgres');
my $dir = tempdir(CLEANUP => 1);

$node->safe_psql('postgres',
	'create table c (id int primary key, v int); insert into c values (1, 0)');

sub write_script { return write_file("$dir/$_[0]", $_[1]); }

# Latencies spread over 0 to 3 ms; and a script whose clients collide
# under REPEATABLE READ (serialization failures, retried or not).
my $sleep = write_script('sleep.sql', "\\set d random(0, 3000)\nSELECT pg_sleep(:d / 1000000.0);\n");
my $ser = write_script('ser.sql', <<'EOS');
begin isolation level repeatable read;
select v from c where id = 1;
\sleep 2 ms
update c set v = v + 1 where id = 1;
end;
EOS

# The file against the JSON document: per script and in total.
sub check_against_json
{
	my ($m, $j, $what) = @_;
	my $r = $j->{results};
	my @scripts = @{ $r->{scripts} };
	my ($sum_tx, $sum_tps) = (0, 0);
	for my $i (0 .. $#scripts)
	{
		my $sj = $scripts[$i];
		my $t = $sj->{transactions};
		my %l = (script => $i);
		is(metric_value($m, 'pgtempo_bench_script_info', %l, name => $sj->{name},
				weight => $sj->{weight}), 1, "$what, script $i: script_info name and weight");
		is(metric_value($m, 'pgtempo_bench_transactions_total', %l), $t->{processed},
			"$what, script $i: transactions_total is the processed count");
		for my $kind (qw(serialization deadlock other))
		{
			is(metric_value($m, 'pgtempo_bench_failures_total', %l, kind => $kind),
				$t->{"${kind}_failures"}, "$what, script $i: failures_total{kind=$kind}");
		}
		is(metric_value($m, 'pgtempo_bench_retries_total', %l), $t->{retries},
			"$what, script $i: retries_total");
		is(metric_value($m, 'pgtempo_bench_retried_total', %l), $t->{retried},
			"$what, script $i: retried_total");
		is(metric_value($m, 'pgtempo_bench_skipped_total', %l), $t->{skipped},
			"$what, script $i: skipped_total");
		is(metric_value($m, 'pgtempo_bench_late_total', %l), $t->{late},
			"$what, script $i: late_total");
		ok(same_number(metric_value($m, 'pgtempo_bench_tps', %l), $sj->{tps}), "$what, script $i: tps");
		my $count = check_histogram($m, 'pgtempo_bench_latency_seconds', "$what, script $i", %l);
		is($count, $t->{processed}, "$what, script $i: histogram _count is the processed count");
		check_buckets($m, $sj->{latency}{histogram}, "$what, script $i", %l);
		$sum_tx += metric_value($m, 'pgtempo_bench_transactions_total', %l);
		$sum_tps += metric_value($m, 'pgtempo_bench_tps', %l);
	}
	is($sum_tx, $r->{transactions}{processed}, "$what: the scripts add up to the run's transactions");
	ok(same_number($sum_tps, $r->{tps}), "$what: and to its tps");
	ok(same_number(metric_value($m, 'pgtempo_bench_duration_seconds'), $r->{duration_s}),
		"$what: duration_seconds");
	is(metric_value($m, 'pgtempo_bench_clients'), $j->{settings}{clients}, "$what: clients");
	is(metric_value($m, 'pgtempo_bench_threads'), $j->{settings}{threads}, "$what: threads");
	is(metric_value($m, 'pgtempo_bench_exit_status'), $j->{exit_status}, "$what: exit_status");
	return;
}

# Each bucket holds exactly the report histogram's buckets that end at or below its bound.
sub check_buckets
{
	my ($m, $hist, $what, %l) = @_;
	my $bad = 0;
	for my $b (metric_samples($m, 'pgtempo_bench_latency_seconds_bucket', %l))
	{
		next if $b->{labels}{le} eq '+Inf';
		my $le_ns = sprintf('%.0f', $b->{labels}{le} * 1e9);
		my $want = 0;
		$want += $_->{count} for grep { sprintf('%.0f', $_->{high_us} * 1e3) <= $le_ns + 1 } @$hist;
		$bad++ if $b->{value} != $want;
	}
	is($bad, 0, "$what: each bucket holds the report's buckets below its bound");
	return;
}

# ---------------------------------------------------------------- two scripts, failures, retries

{
	my $path = "$dir/run.prom";
	my ($rc, $out, $err) = run_tool([ $ours, '-n', '-c', '4', '-j', '2', '-t', '25',
			'--failures-detailed', '-f', "$sleep\@2", '-f', $ser, "--json=$dir/run.json",
			"--metrics=$path", $db ]);
	is($rc, 0, 'two scripts: exit 0');
	my $text = slurp_text($path);
	ok(defined $text, 'two scripts: the metrics file is there');
	like($text // '', qr/\n\z/, 'two scripts: it ends with a newline');
	is_deeply([ grep { /^run\./ } dir_entries($dir) ], [ 'run.json', 'run.prom' ],
		'two scripts: no temporary file left');
	promtool_ok($path, 'two scripts');
	my $m = parse_metrics($text // '');
	is_deeply($m->{errors}, [], 'two scripts: every line parses: a name, labels, one value');
	my $j = decode_json(slurp_text("$dir/run.json"));
	is(metric_value($m, 'pgtempo_bench_run_info', query_mode => 'simple',
			transaction_type => 'multiple scripts'), 1, 'two scripts: run_info');
	is(metric_value($m, 'pgtempo_bench_interrupted'), 0, 'two scripts: not interrupted');
	check_against_json($m, $j, 'two scripts');
	my ($processed) = $out =~ /^number of transactions actually processed: (\d+)/m;
	is(metric_value($m, 'pgtempo_bench_transactions_total', script => 0)
		  + metric_value($m, 'pgtempo_bench_transactions_total', script => 1),
		$processed, 'two scripts: the text report\'s processed count');

	note(sprintf('metrics file of two scripts: %d bytes', length($text // '')));
}

# retried serialization failures: the retries are counted
{
	my $path = "$dir/retry.prom";
	my ($rc, $out) = run_tool([ $ours, '-n', '-c', '4', '-t', '10', '--max-tries=1000',
			'--failures-detailed', '-f', $ser, "--json=$dir/retry.json", "--metrics=$path", $db ]);
	is($rc, 0, 'retries: exit 0');
	promtool_ok($path, 'retries');
	check_against_json(parse_metrics(slurp_text($path) // ''), decode_json(slurp_text("$dir/retry.json")),
		'retries');
}

# ---------------------------------------------------------------- SIGINT

{
	my $path = "$dir/int.prom";
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start([ $ours, '-n', '-c', '2', '-T', '600', '-P', '1', '-f', $sleep,
			"--json=$dir/int.json", "--metrics=$path", $db ], '<', \'', '>', \$out, '2>', \$err,
		IPC::Run::timeout(120));
	$h->pump until $err =~ /^progress: /m;
	$h->signal('INT');
	$h->finish;
	is($h->full_result(0) >> 8, 130, 'SIGINT: exit 130');
	my $m = parse_metrics(slurp_text($path) // '');
	is(metric_value($m, 'pgtempo_bench_interrupted'), 1, 'SIGINT: the file says interrupted');
	is(metric_value($m, 'pgtempo_bench_exit_status'), 130, 'SIGINT: and the exit status');
	my ($processed) = $out =~ /^number of transactions actually processed: (\d+)/m;
	is(metric_value($m, 'pgtempo_bench_transactions_total', script => 0), $processed,
		'SIGINT: what ran is kept: the report\'s processed count');
	check_against_json($m, decode_json(slurp_text("$dir/int.json")), 'SIGINT');
	promtool_ok($path, 'SIGINT');
}

# ---------------------------------------------------------------- a client aborts

{
	my $path = "$dir/abort.prom";
	my $bad = write_script('bad.sql', "SELECT 1 / 0;\n");
	my ($rc, $out, $err) = run_tool([ $ours, '-n', '-c', '2', '-t', '3', '-f', $bad,
			"--json=$dir/abort.json", "--metrics=$path", $db ]);
	is($rc, 2, 'client aborted: exit 2');
	my $m = parse_metrics(slurp_text($path) // '');
	is(metric_value($m, 'pgtempo_bench_exit_status'), 2, 'client aborted: the file says exit 2');
	check_against_json($m, decode_json(slurp_text("$dir/abort.json")), 'client aborted');
	promtool_ok($path, 'client aborted');
}

# ---------------------------------------------------------------- the run cannot start

{
	my $path = "$dir/noconn.prom";
	my ($rc, $out, $err) = run_tool([ $ours, '-n', '-t', '1', '-f', $sleep, "--metrics=$path",
			'-h', $node->host, '-p', $node->port, '-d', 'no_such_database' ]);
	is($rc, 1, 'no connection: exit 1');
	my $m = parse_metrics(slurp_text($path) // '');
	is(metric_value($m, 'pgtempo_bench_exit_status'), 1, 'no connection: the file says exit 1');
	is(scalar(metric_samples($m, 'pgtempo_bench_transactions_total')), 0,
		'no connection: and has no transaction counts');
	promtool_ok($path, 'no connection');
}

# ---------------------------------------------------------------- --metrics=-

{
	my ($rc, $out, $err) = run_tool([ $ours, '-n', '-t', '3', '-f', $sleep, '--metrics=-', $db ]);
	is($rc, 0, '--metrics=-: exit 0');
	my $m = parse_metrics($out);
	is(metric_value($m, 'pgtempo_bench_transactions_total', script => 0), 3,
		'--metrics=-: the metrics on stdout');
	like($err, qr/^number of transactions actually processed: 3\/3$/m,
		'--metrics=-: the text report on stderr');
}

# ---------------------------------------------------------------- bad paths, before connecting

for my $case (
	[ "$dir/no/such/dir/m.prom",
		qr{^pgtempo-bench: error: could not open file "\Q$dir\E/no/such/dir/m\.prom" for writing: No such file or directory$}m ],
	[ $dir, qr{^pgtempo-bench: error: could not open file "\Q$dir\E" for writing: Is a directory$}m ])
{
	my ($p, $re) = @$case;
	my ($rc, $out, $err) = run_tool([ $ours, '-n', '-t', '1', '-f', $sleep, "--metrics=$p", $db ]);
	is($rc, 1, "bad path $p: exit 1");
	like($err, $re, "bad path $p: the error names it");
	unlike($out, qr/transaction type/, "bad path $p: no run");
}

SKIP:
{
	skip 'running as root, who may create files in any directory', 3 if $> == 0;
	my $ro = "$dir/ro";
	make_path($ro);
	write_file("$ro/m.prom", "# old\n");
	chmod 0555, $ro;
	my ($rc, $out, $err) = run_tool([ $ours, '-n', '-t', '1', '-f', $sleep, "--metrics=$ro/m.prom", $db ]);
	is($rc, 1, 'unwritable directory, writable file: exit 1');
	like($err, qr{^pgtempo-bench: error: could not create temporary file "\Q$ro\E/m\.prom\.tmp\d+\.0": Permission denied$}m,
		'unwritable directory: the temporary file cannot be made, said before the run');
	unlike($out, qr/transaction type/, 'unwritable directory: no run');
	chmod 0755, $ro;
}

# ---------------------------------------------------------------- a full disk

my $user = getpwuid($<);
SKIP:
{
	skip 'cannot mount a small tmpfs here (unshare --user --map-root-user --mount and '
	  . 'mount -t tmpfs must be allowed)', 5
	  unless small_disk_allowed($dir);
	# an old file and 4 kB left: the new file (two scripts, some 9 kB) does not fit
	my ($fs, $save) = ("$dir/fs", "$dir/full");
	my ($rc, $out, $err) = run_on_full_disk($fs, $save, 'm.prom',
		[ $ours, '-n', '-t', '2', '-f', $sleep, '-f', $ser, "--metrics=$fs/m.prom", 'postgres' ],
		env => { PGUSER => $user, PGHOST => $node->host, PGPORT => $node->port });
	is($rc, 1, 'full disk: exit 1');
	like($err, qr{^pgtempo-bench: error: could not write to file "\Q$fs\E/m\.prom": No space left on device$}m,
		'full disk: the error names the file and the reason');
	like($out, qr/^number of transactions actually processed: 2\/2$/m, 'full disk: the report still comes');
	is(slurp_text("$save/m.prom"), "# old and complete\n", 'full disk: the old file is left whole');
	is_deeply([ dir_entries($save) ], ['m.prom'], 'full disk: no temporary file left');
}

done_testing();
