# pgtempo-waits: disagreements between what the server measured itself and
# the sampled estimates, injected where the cause is known, must be flagged
# with their reason; --fail-if=disagree gates on them; the logs, the store
# and the metrics carry each figure as measured or sampled.
#
#  - agreement, over many spans: sessions of one pg_sleep each (pgbench -C:
#    a session sends its statistics when it ends), read every second; the
#    flag of each span trips at about its rate or less (a wide band: the
#    test must not fail on a busy host), and a limit the run is far from,
#    --fail-if=disagree:active_time<-50%, holds (exit 0)
#  - a reset of pg_stat_wal in the middle of the sampler's run, after a
#    load of commits with WAL timing on (its sessions have sent their
#    statistics when they ended): seen, said, the WAL syncs disagree and
#    the reset comes first among the reasons
#  - a checkpoint's writes: on 15 the checkpointer adds no I/O time to
#    pg_stat_database, so with every process sampled its samples of
#    IO/DataFileWrite stand alone (disagree below, that reason); on 16+
#    pg_stat_io times them, so with the default sampling the measured writes
#    lie above (the processes the sampling leaves out, and how much)
#  - pg_stat_reset() with --fail-if=disagree: exit 3, and the figure named

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;
use Time::HiRes qw(usleep);

my $bin = pgtempo_bin('pgtempo-waits');
my $bench = pgtempo_bin('pgtempo-bench');
# no autovacuum: its workers would add time the sessions' samples do not have;
# room for the buffers the checkpoint writes
my $node = new_cluster('waits_measured_faults',
	conf => "autovacuum = off\nshared_buffers = '256MB'\ntrack_io_timing = on\n");
my $major = $node->safe_psql('postgres', q{SELECT current_setting('server_version_num')::int / 10000});
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres');
my $dir = tempdir(CLEANUP => 1);
my $sleep = "$dir/sleep.sql";
write_file($sleep, "SELECT pg_sleep(0.05);\n");
$node->safe_psql('postgres', q{CREATE DATABASE fleet ENCODING 'UTF8' TEMPLATE template0});
my $store = sprintf('host=%s port=%d dbname=fleet', $node->host, $node->port);

# One run: the sampler starts; once it samples, $o{before} is called, the
# load runs for $o{secs} s ($o{during} in the middle of it, $o{after}
# once it is over), and the sampler ends a while after the load did.  Returns the exit status, the
# JSON report, its figures by name and the text report.
sub run_measured
{
	my (%o) = @_;
	my $secs = $o{secs} || 3;
	my ($out, $err) = ('', '');
	my $json = "$dir/run.json";
	unlink $json;
	my $h = IPC::Run::start([ $bin, @conn, '--source=activity', '-T', $secs + ($o{tail} // 4),
		"--json=$json", @{ $o{args} || [] } ], '>', \$out, '2>', \$err);
	my $waited = 0;
	while ($err !~ /sampling/ && $waited++ < 300)
	{
		usleep(100_000);
		$h->pump_nb;
	}
	usleep(500_000);
	$o{before}->() if $o{before};
	my $b;
	$b = IPC::Run::start([ $bench, @conn, '-n', '-T', $secs, @{ $o{load} } ],
		'>', \my $bout, '2>', \my $berr) if $o{load};
	if ($o{during})
	{
		usleep($secs * 500_000);
		$o{during}->();
	}
	if ($b)
	{
		$b->finish;
		is($b->result(0), 0, "$o{name}: the load ran") or diag($berr);
	}
	$o{after}->() if $o{after};
	$h->finish;
	my $r = eval { decode_json(slurp_text($json)) } || {};
	my %fig = map { $_->{what} => $_ } @{ $r->{measured_by_server}{figures} || [] };
	note("$o{name}: $_") for grep { /^  \S.*(measured|--fail-if)|^    / } split /\n/, $out;
	return ($h->result(0), $r, \%fig, $out, $err);
}

# ---------------------------------------------------------------- agreement, span by span

my $log = "$dir/spans.jsonl";
my ($rc, $r, $fig, $text, $err) = run_measured(name => 'agreement', secs => 20,
	load => [ '-C', '-c', '2', '-f', $sleep ],
	args => [ '--log-interval=1', "--log=$log", "--metrics=$dir/m.prom", "--store=$store",
		'--fail-if=disagree:active_time<-50%' ]);
is($rc, 0, 'agreement: --fail-if=disagree:active_time<-50% holds: exit 0') or diag($err);
my @recs = map { decode_json($_) } grep { /\S/ } split /\n/, slurp_text($log);
is($recs[0]{log_version}, 4, 'the log: format 4, which has measured records');
my @spans = grep { $_->{type} eq 'measured' && $_->{figure} eq 'active_time' } @recs;
# the spans in the middle of the load: both sessions active all through
my @full = grep { $_->{sampled_seconds} > 1 } @spans;
cmp_ok(scalar @full, '>=', 10, 'agreement: spans with both sessions active, compared');
is(scalar(grep { !defined $_->{verdict} } @full), 0, 'agreement: each span has a verdict');
my $flagged = grep { ($_->{verdict} // '') eq 'disagree' } @full;
note("agreement: $flagged of " . scalar(@full) . ' spans flagged');
# the bound is 95 %, wider than regular ticks need: 5 % or less; a band of 25 %
cmp_ok($flagged, '<=', int(@full / 4), 'agreement: the flag trips at about its rate or less')
  or diag(explain(\@full));
my ($one) = @full;
like($one->{measured_by}, qr/^pg_stat_database\.active_time$/, 'a span\'s record names the measured side');
is($one->{sampled_by}, 'sessions in state active', '... and the sampled side');
cmp_ok($one->{measured_seconds}, '>', 0, '... each with its seconds');
# the whole run is one trial at the 95 % bound (and on a loaded host the
# budget's changes of rate skew it a little): said, not asserted
note("agreement: the whole run: measured $fig->{active_time}{measured_seconds} s, sampled "
	  . "$fig->{active_time}{sampled_seconds} ± $fig->{active_time}{sampled_error_seconds} s");
like($text, qr/^  --fail-if=disagree:active_time<-50%: not shown beyond the limit$/m,
	'agreement: the report says what the limit found');

# the store holds the log's records; the metrics both sides
my $stored = $node->safe_psql('fleet', q{SELECT count(*) FROM pgtempo_waits_measured
	WHERE figure = 'active_time'});
is($stored, scalar @spans, 'the store: a row per span and figure, as the log');
my $same = $node->safe_psql('fleet', sprintf(q{SELECT count(*) FROM pgtempo_waits_measured
	WHERE figure = 'active_time' AND abs(measured_seconds - %s) < 1e-5
	AND sampled_samples = %d}, $one->{measured_seconds}, $one->{sampled_samples}));
is($same, 1, 'the store: the logged figures, stored');
my $prom = slurp_text("$dir/m.prom");
like($prom, qr/^pgtempo_waits_figure_seconds_total\{server="[^"]*",figure="active_time",by="measured",source="pg_stat_database\.active_time"\} [\d.e+-]+$/m,
	'the metrics: the measured seconds');
like($prom, qr/^pgtempo_waits_figure_seconds_total\{server="[^"]*",figure="active_time",by="sampled",source="sessions in state active"\} [\d.e+-]+$/m,
	'the metrics: the sampled seconds beside them');
like($prom, qr/^pgtempo_waits_figure_disagree\{server="[^"]*",figure="active_time"\} [01]$/m,
	'the metrics: the last span\'s verdict');

# ---------------------------------------------------------------- pg_stat_wal reset in the middle

$node->safe_psql('postgres', 'ALTER SYSTEM SET track_wal_io_timing = on; '
	  . 'ALTER SYSTEM SET fsync = on; SELECT pg_reload_conf()');
$node->poll_query_until('postgres',
	q{SELECT current_setting('track_wal_io_timing') = 'on' AND current_setting('fsync') = 'on'})
  or die 'track_wal_io_timing did not come on';
($rc, my $bout, my $berr) = run_tool([ $bench, @conn, '-i', '-s', '1', '-q' ]);
is($rc, 0, 'pgbench tables') or diag($berr);
# 18 moved the WAL times to pg_stat_io: its reset is of that view
my $shared = $major >= 18 ? 'io' : 'wal';
($rc, $r, $fig, $text) = run_measured(name => 'wal reset', secs => 4,
	load => [ '-c', '2' ], args => [ '--backend-type=all' ],
	after => sub { $node->safe_psql('postgres', "SELECT pg_stat_reset_shared('$shared')") });
is($rc, 0, 'wal reset: exit 0');
my $view = $major >= 18 ? 'pg_stat_io' : 'pg_stat_wal';
ok($r->{measured_by_server}{"reset_$view"}, "wal reset: the reset of $view seen");
like($text, qr/^  counter reset: (.* and )?\Q$view\E reset during the run/m, 'wal reset: said');
my $w = $fig->{wal_syncs};
ok(!defined $w->{measured_missing}, 'wal reset: WAL syncs measured');
note("wal reset: WAL syncs measured $w->{measured_seconds} s, sampled $w->{sampled_seconds} "
	  . "± $w->{sampled_error_seconds} s");
# every sync was before the reset: lost from the measured side, sampled all the same
ok(defined $w->{agree} && !$w->{agree}, 'wal reset: WAL syncs disagree') or diag(explain($w));
cmp_ok($w->{measured_seconds}, '<', $w->{sampled_seconds}, 'wal reset: measured below sampled');
like($w->{reasons}[0] // '', qr/reset during the run/, 'wal reset: the reset comes first');
like($text, qr/^  WAL syncs: .*: disagree\n    disagreement: measured [\d.]+ s lies below the sampled bound .*\n    - the counters were reset during the run/m,
	'wal reset: the text report says so');
$node->safe_psql('postgres', 'ALTER SYSTEM SET fsync = off; SELECT pg_reload_conf()');

# ---------------------------------------------------------------- a checkpoint's writes

# dirty far more buffers than the bound: a table written, then all of it updated
$node->safe_psql('postgres', 'CREATE TABLE dirty AS SELECT g AS i FROM generate_series(1, 3000000) g');
$node->safe_psql('postgres', 'CHECKPOINT');
$node->safe_psql('postgres', 'UPDATE dirty SET i = i + 1');
if ($major < 16)
{
	# every process sampled: the checkpointer's IO/DataFileWrite has no measured counterpart
	($rc, $r, $fig, $text) = run_measured(name => 'checkpoint', secs => 3,
		args => [ '--backend-type=all', '-i', '2ms' ],
		during => sub { $node->safe_psql('postgres', 'CHECKPOINT') });
	my $f = $fig->{data_file_writes};
	ok(defined $f->{agree} && !$f->{agree}, 'checkpoint (15): data file writes disagree')
	  or diag(explain($f));
	cmp_ok($f->{sampled_seconds}, '>', $f->{measured_seconds}, 'checkpoint (15): sampled above measured');
	like(join("\n", @{ $f->{reasons} || [] }), qr/checkpointer and the background writer add no I\/O time to pg_stat_database/,
		'checkpoint (15): the reason: the background processes time nothing there');
}
else
{
	# the default sampling leaves the checkpointer out; pg_stat_io timed its writes
	($rc, $r, $fig, $text) = run_measured(name => 'checkpoint', secs => 3,
		during => sub { $node->safe_psql('postgres', 'CHECKPOINT') });
	my $f = $fig->{data_file_writes};
	ok(defined $f->{agree} && !$f->{agree}, 'checkpoint (16+): data file writes disagree')
	  or diag(explain($f));
	cmp_ok($f->{measured_seconds}, '>', $f->{sampled_seconds}, 'checkpoint (16+): measured above sampled');
	cmp_ok($f->{measured_out_seconds}, '>', 0, 'checkpoint (16+): the share of the processes left out');
	like($f->{reasons}[0] // '', qr/I\/O by processes the sampling leaves out/,
		'checkpoint (16+): that reason first');
}
is($rc, 0, 'checkpoint: exit 0');

# ---------------------------------------------------------------- the gate on a reset

($rc, $r, $fig, $text) = run_measured(name => 'gate', secs => 4, load => [ '-c', '2', '-f', $sleep ],
	args => [ '--fail-if=disagree' ],
	during => sub { $node->safe_psql('postgres', 'SELECT pg_stat_reset()') });
is($rc, 3, 'gate: a disagreement beyond --fail-if=disagree: exit 3');
my ($g) = @{ $r->{measured_by_server}{fail_if} || [] };
is($g->{limit}, 'disagree', 'gate: the JSON report names the limit');
ok($g->{tripped}, 'gate: tripped');
ok((grep { $_ eq 'active_time' } @{ $g->{tripped_by} || [] }), 'gate: by the active time')
  or diag(explain($g));
like($text, qr/^  --fail-if=disagree: the change is beyond the limit: .*active time/m,
	'gate: the report says so');

# ---------------------------------------------------------------- a view the role may not read

# its figures are left out with the reason; the others are read as before
$node->safe_psql('postgres', 'CREATE ROLE lowly LOGIN; REVOKE SELECT ON pg_catalog.pg_stat_wal FROM PUBLIC');
($rc, $bout, $berr) = run_tool([ $bin, '-h', $node->host, '-p', $node->port, '-d', 'postgres',
	'-U', 'lowly', '-T', SHORT_RUN, '--json' ]);
is($rc, 0, 'a view not readable: exit 0') or diag($berr);
$r = eval { decode_json($bout) } || {};
%$fig = map { $_->{what} => $_ } @{ $r->{measured_by_server}{figures} || [] };
my $wal_why = $major >= 18 ? undef : 'this role may not read pg_stat_wal';
is($fig->{wal_syncs}{measured_missing}, $wal_why, 'a view not readable: the WAL figures out, and why')
  if defined $wal_why;
ok(defined $fig->{active_time}{measured_seconds}, 'a view not readable: the others measured');
$node->safe_psql('postgres', 'GRANT SELECT ON pg_catalog.pg_stat_wal TO PUBLIC');

# a live run's limits and a comparison's do not mix
($rc, $bout, $berr) = run_tool([ $bin, '--from-log', $log, '--fail-if=disagree' ]);
is($rc, 1, '--fail-if=disagree with --from-log: a usage error');
like($berr, qr/--fail-if=disagree needs a live run/, '... that says why');

done_testing();
