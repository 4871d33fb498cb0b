# pgtempo-bench against a server: every builtin and protocol, -C, several
# scripts, the meta-commands, errors and exit codes — and the report
# compared line by line with the system pgbench for the same options
# (keys, counts and layout; timings are masked).

use strict;
use warnings;

use File::Temp qw(tempdir);
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $ref = pg_reference('pgbench');
my $ref_major = $ref ? ((`"$ref" --version` =~ /(\d+)/)[0] // 0) : 0;

my $node = new_cluster('bench_run', conf => "max_connections = 100\n");
my $db = $node->connstr('postgres');
my $dir = tempdir(CLEANUP => 1);

sub write_script { return write_file("$dir/$_[0]", $_[1]); }

# The report with its timings masked: what must be equal across programs.
sub shape
{
	my ($out, %o) = @_;
	my @l;
	for (split /\n/, $out)
	{
		next if /^(pgbench|pgtempo-bench) \(/;    # the banner differs by design
		# ours only, after the latency average: the percentile line, dropped
		# only when it has exactly the default form (checked in 092)
		next if /^(?: - )?latency percentiles: p50 = \d+\.\d{3} ms, p90 = \d+\.\d{3} ms, p99 = \d+\.\d{3} ms, p99\.9 = \d+\.\d{3} ms, max = \d+\.\d{3} ms$/;
		s/= [0-9.]+ ms/= X ms/;
		s/^tps = [0-9.]+/tps = X/;
		# -r latencies: X right-aligned in the same width, so a statement
		# that took 10 ms or more in one tool only does not shift a column
		s/^(\s+)([0-9]+\.[0-9]{3})(\s)/(' ' x (length($1) + length($2) - 1)) . "X$3"/e;
		# pgbench 18 separates the -r columns after the failures, and the
		# statement, by one space, 15 and 17 (and we) by two: against 18,
		# compare the values, not that spacing
		s/(?<=\d) +(?=\S)/ /g if $ref_major >= 18 && /^\s+X /;
		s/\(tps = [0-9.]+\)/(tps = X)/;
		s/^(number of transactions actually processed:) \d+$/$1 N/;    # -T
		# pgbench 15 prints "0 (NaN%)" when no transaction ended; we stop (documented)
		next if /\(NaN%\)/;
		# pgbench 15 has no --continue-on-error and so no "other failures" line
		next if $o{no_other} && /number of other failures/;
		push @l, $_;
	}
	return join("\n", @l) . "\n";
}

# Run both with the same options; the reports must have the same shape.
sub compare
{
	my ($label, $opts, %o) = @_;
	my ($rr, $rout) = run_tool([ $ref, @$opts, $db ]);
	my ($or, $oout, $oerr) = run_tool([ $ours, @$opts, $db ]);
	is($or, $rr, "$label: same exit status ($rr)");
	is(shape($oout, no_other => 1), shape($rout), "$label: same report as pgbench");
	return ($or, $oout, $oerr);
}

SKIP:
{
	skip 'the system pgbench is not installed: no reference to compare with', 1 unless $ref;

	my ($rc) = run_tool([ $ref, '-i', '-s', '1', '-q', $db ]);
	is($rc, 0, 'pgbench -i');

	for my $b ('tpcb-like', 'simple-update', 'select-only')
	{
		for my $m ('simple', 'extended', 'prepared')
		{
			compare("$b -M $m", [ '-b', $b, '-M', $m, '-t', '7', '-c', '3', '-j', '2' ]);
		}
	}
	compare('default script, -n', [ '-n', '-t', '4' ]);
	compare('-C', [ '-C', '-S', '-t', '5', '-c', '2' ]);
	compare('-r', [ '-r', '-S', '-t', '5', '-c', '2', '-M', 'prepared' ]);
	compare('-r --max-tries', [ '-r', '-N', '-t', '3', '--max-tries', '3' ]);
	compare('--failures-detailed', [ '-S', '-t', '3', '--failures-detailed', '--max-tries=2' ]);
	compare('-s given', [ '-S', '-t', '2', '-s', '7' ]);
	compare('-T', [ '-S', '-T', '1', '-c', '2', '-j', '2' ]);

	# several scripts: the lines up to tps are pgbench 15's; the per-script
	# section has PostgreSQL 17's "actually processed" line (documented)
	my ($or, $oout) = run_tool([ $ours, '-n', '-t', '6', '-c', '2', '-b', 'select-only@3',
			'-b', 'simple-update@1', '--random-seed=5', $db ]);
	my ($rr, $rout) = run_tool([ $ref, '-n', '-t', '6', '-c', '2', '-b', 'select-only@3',
			'-b', 'simple-update@1', '--random-seed=5', $db ]);
	is($or, 0, 'several scripts: exit 0');
	my ($ohead) = shape($oout) =~ /^(.*?tps = X[^\n]*\n)/s;
	my ($rhead) = shape($rout) =~ /^(.*?tps = X[^\n]*\n)/s;
	is($ohead, $rhead, 'several scripts: same report up to tps');
	my ($n1) = $oout =~ /^ - (\d+) transactions \(/m;
	my ($r1) = $rout =~ /^ - (\d+) transactions \(/m;
	is($n1, $r1, 'several scripts: same choice of scripts as pgbench for the same seed');
	like($oout, qr/^SQL script 1: <builtin: select only>\n - weight: 3 \(targets 75\.0% of total\)\n - \d+ transactions \([0-9.]+% of total\)\n - number of transactions actually processed: \d+ \(tps = [0-9.]+\)\n - number of failed transactions: 0 \(0\.000%\)\n - latency average = [0-9.]+ ms\n - latency stddev = [0-9.]+ ms\n - latency percentiles: p50 = [0-9.]+ ms, p90 = [0-9.]+ ms, p99 = [0-9.]+ ms, p99\.9 = [0-9.]+ ms, max = [0-9.]+ ms\nSQL script 2: <builtin: simple update>\n/m,
		'several scripts: the per-script section');

	# the meta-commands against a server
	my $meta = write_script('meta.sql', <<'EOS');
\set a random(1, 10)
select :a as x, 2 as y \gset p_
\if :p_x > 5
\sleep 1 ms
\elif :p_y = 2
\setshell z echo 7
\else
\set never 1
\endif
select 1 as k \; select 2 as j \aset
select :p_x + :k + :j as total \gset
\shell true
EOS
	for my $m ('simple', 'extended', 'prepared')
	{
		next if $m ne 'simple';    # a compound query cannot be prepared, in both programs
		compare("meta-commands -M $m", [ '-n', '-r', '-t', '5', '-c', '3', '-j', '2', '-M', $m, '-f', $meta ]);
	}
	my $meta2 = write_script('meta2.sql', <<'EOS');
select 5 as v \gset
\set w :v * 2
select :w as w2 \gset
\if :w2 <> 10
select 1/0;
\endif
\sleep 0
EOS
	for my $m ('simple', 'extended', 'prepared')
	{
		compare("gset -M $m", [ '-n', '-t', '4', '-c', '2', '-M', $m, '-f', $meta2 ]);
	}

	# -M prepared names its statements as pgbench does: P_n counting the SQL
	# commands only, whatever meta-commands come before them.  The script
	# records the names its own connection has prepared (both statements
	# are by the time the insert runs) with each tool's label.
	$node->safe_psql('postgres', 'create table prep_names (tool text, name text, statement text)');
	my $names = write_script('prepnames.sql', <<'EOS');
\set a 1
\set b random(1, 3)
select :a, :b;
\set c :a * 2
insert into prep_names select :tool, name, statement from pg_prepared_statements;
EOS
	for my $t ([ 'ref', $ref ], [ 'ours', $ours ])
	{
		my ($pr) = run_tool([ $t->[1], '-n', '-t', '1', '-M', 'prepared', "-Dtool=$t->[0]", '-f', $names, $db ]);
		is($pr, 0, "-M prepared names: $t->[0] ran");
	}
	my $list = sub {
		$node->safe_psql('postgres',
			"select string_agg(name || ': ' || statement, E'\\n' order by name) from prep_names where tool = '$_[0]'");
	};
	my $ref_names = $list->('ref');
	like($ref_names, qr/^P_0: select \$1, \$2.*^P_1: insert /sm, '-M prepared names: pgbench\'s are P_0 and P_1');
	is($list->('ours'), $ref_names, '-M prepared names: the same names for the same statements as pgbench');

	# pipelines (\syncpipeline is PostgreSQL 17's: checked below without pgbench)
	my $pipe = write_script('pipe.sql', <<'EOS');
\set a random(1, 100)
\startpipeline
select :a;
select 2;
select 3;
\endpipeline
select 4 as four \gset
EOS
	my $sync = write_script('sync.sql', <<'EOS');
\startpipeline
select 1;
\syncpipeline
select 2 as two;
\syncpipeline
select 3;
\endpipeline
select 4 as four \gset
\if :four <> 4
select 1/0;
\endif
EOS
	for my $m ('extended', 'prepared')
	{
		my ($sr, $sout, $serr) = run_tool([ $ours, '-n', '-t', '5', '-c', '2', '-M', $m, '-f', $sync, $db ]);
		is($sr, 0, "\\syncpipeline -M $m: exit 0");
		like($sout, qr{^number of transactions actually processed: 10/10$}m, "\\syncpipeline -M $m: all ran");
	}
	for my $m ('extended', 'prepared')
	{
		compare("pipeline -M $m", [ '-n', '-r', '-t', '5', '-c', '2', '-M', $m, '-f', $pipe ]);
	}
	compare('pipeline -M simple', [ '-n', '-t', '2', '-f', $pipe ]);
	my $pipe_gset = write_script('pipegset.sql', "\\startpipeline\nselect 1 as x \\gset\n\\endpipeline\n");
	compare('\\gset in a pipeline', [ '-n', '-t', '2', '-M', 'extended', '-f', $pipe_gset ]);
	my $pipe_open = write_script('pipeopen.sql', "\\startpipeline\nselect 1;\n");
	# pgbench refuses this at load time; so does the parser
	compare('pipeline left open', [ '-n', '-t', '2', '-M', 'extended', '-f', $pipe_open ]);

	# errors: abort with status 2, the same messages
	my %err = (
		'division by zero'  => "select 1/0;\n",
		'open transaction'  => "begin;\nselect 1;\n",
		'gset no row'       => "select 1 where false \\gset\n",
		'gset two rows'     => "select generate_series(1, 2) as x \\gset\n",
		'undefined :var'    => "\\set x :nosuch + 1\n",
		'COPY'              => "copy pgbench_branches to stdout;\n",);
	for my $name (sort keys %err)
	{
		my $f = write_script('err.sql', $err{$name});
		my ($rr2, $rout2, $rerr2) = run_tool([ $ref, '-n', '-t', '2', '-c', '2', '-f', $f, $db ]);
		my ($or2, $oout2, $oerr2) = run_tool([ $ours, '-n', '-t', '2', '-c', '2', '-f', $f, $db ]);
		is($or2, $rr2, "error $name: same exit status ($rr2)");
		is(shape($oout2), shape($rout2), "error $name: same report");
		my $norm = sub {
			my $t = shift;
			$t =~ s/^(pgbench|pgtempo-bench): /PROG: /mg;
			return join "\n", sort grep { /^PROG: / } split /\n/, $t;
		};
		is($norm->($oerr2), $norm->($rerr2), "error $name: same messages");
	}

	# --exit-on-abort: pgbench stops at the first abort, without a report
	my $f = write_script('err2.sql', "select 1/0;\n");
	my ($er, $eout, $eerr) = run_tool([ $ours, '-n', '-t', '2', '--exit-on-abort', '-f', $f, $db ]);
	is($er, 2, '--exit-on-abort: exit 2');
	like($eerr, qr/Run was aborted due to an error in thread 0/, '--exit-on-abort: message');
	unlike($eout, qr/number of transactions/, '--exit-on-abort: no report');

	# --continue-on-error (newest pgbench): the failures are counted, the run goes on
	my ($cr, $cout) = run_tool([ $ours, '-n', '-t', '3', '-c', '2', '--continue-on-error',
			'--failures-detailed', '-f', $f, $db ]);
	is($cr, 0, '--continue-on-error: exit 0');
	like($cout, qr/^number of failed transactions: 6 \(100\.000%\)\n/m, '--continue-on-error: 6 failed');
	like($cout, qr/^number of other failures: 6 \(100\.000%\)$/m, '--continue-on-error: other failures');
	unlike($cout, qr/NaN/, 'no NaN when nothing succeeded');

	# connection errors
	my ($br, undef, $berr) = run_tool([ $ours, '-S', '-t', '1', '-p', '1', '-h', $node->host ]);
	is($br, 1, 'bad port: exit 1');
	like($berr, qr/error: connection to server .* failed.*\n.*could not create connection for setup/s,
		'bad port: libpq message and pgbench\'s');
	$node->safe_psql('postgres', 'create database empty');
	my ($nr, undef, $nerr) = run_tool([ $ours, '-t', '1', $node->connstr('empty') ]);
	is($nr, 1, 'no tables: exit 1');
	like($nerr, qr/could not count number of branches.*hint: Perhaps you need to do initialization/s,
		'no tables: message and hint');
}

done_testing();
