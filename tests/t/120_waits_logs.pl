# pgtempo-waits: the history logs (CSV and JSON Lines, raw rows and interval
# aggregates, health and gap records), folded stacks, reopening on SIGHUP,
# strftime file names, and write errors that are reported, not ignored.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;
use Time::HiRes qw(usleep);

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_logs', conf => "compute_query_id = on\n");
# no cost budget: a loaded machine could lower the rate, and the estimates
# checked here are samples times the 10 ms interval
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres', '--source=activity',
	'--cost-budget=0');
my $dir = tempdir(CLEANUP => 1);
my $ts_re = qr/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z/;

$node->safe_psql('postgres', 'CREATE TABLE t (i int)');

my ($holder, $holder_pid, $waiter, $waiter_pid, $sleeper, $sleeper_pid) = start_lock_and_sleep($node);
my @two = ('--application-name=w_sleep', '--application-name=w_lock');

# Split one CSV line (RFC 4180 quoting, as pgtempo-waits writes it).
sub csv_fields
{
	my ($line) = @_;
	my @f;
	while ($line =~ /\G(?:"((?:[^"]|"")*)"|([^,]*))(,|$)/g)
	{
		my $v = defined $1 ? $1 =~ s/""/"/gr : $2;
		push @f, $v;
		last if $3 eq '';
	}
	return @f;
}

sub run_json
{
	my (@args) = @_;
	my ($rc, $out, $err) = run_tool([ $bin, @conn, '--json', @args ]);
	is($rc, 0, "@args: exit 0") or diag($err);
	return decode_json($out);
}

my $csv_header = 'ts,pid,backend_start,backend_type,datname,usename,application_name,'
  . 'client_addr,state,wait_event_type,wait_event,query_id,leader_pid,blockers,samples,'
  . 'wait_time_us,query';

# ---------------------------------------------------------------- raw CSV

my $r = run_json('-T', '2', @two, "--log=$dir/raw.csv");
my $ticks = $r->{ticks};
my @lines = slurp_lines("$dir/raw.csv");
is($lines[0], $csv_header, 'csv: the header line');
my @rows = map { [ csv_fields($_) ] } grep { !/^#/ } @lines[ 1 .. $#lines ];
is(scalar @rows, 2 * $ticks, 'csv: one line per session per sample');
is(scalar(grep { @$_ == 17 } @rows), scalar @rows, 'csv: 17 fields on every line');
is(scalar(grep { $_->[0] =~ /^$ts_re$/ && $_->[2] =~ /^$ts_re$/ } @rows), scalar @rows,
	'csv: ISO timestamps with microseconds');
my %ts = map { $_->[0] => 1 } @rows;
is(scalar keys %ts, $ticks, 'csv: one timestamp per sample');
my @lock = grep { $_->[6] eq 'w_lock' } @rows;
is(scalar @lock, $ticks, 'csv: the waiter in every sample');
is(scalar(grep { $_->[1] == $waiter_pid && $_->[9] eq 'Lock' && $_->[10] eq 'relation'
	  && $_->[13] eq "{$holder_pid}" && $_->[14] eq '1' } @lock), scalar @lock,
	'csv: Lock/relation, blocked by the holder');
my @sleep = grep { $_->[6] eq 'w_sleep' } @rows;
is(scalar(grep { $_->[10] eq 'PgSleep' && $_->[8] eq 'active' && $_->[13] eq ''
	  && $_->[11] =~ /^-?\d+$/ && $_->[3] eq 'client backend' && $_->[4] eq 'postgres' } @sleep),
	scalar @sleep, 'csv: the sleeper: Timeout/PgSleep, active, a query id');
my @health = grep { /^# health / } @lines;
is(scalar @health, 1, 'csv: one health record at the end');
like($health[0], qr/^# health ts=$ts_re samples=$r->{health}{samples} elapsed_s=[\d.]+ rate_hz=[\d.]+ missed_ticks=\d+ gap_ticks=0 failed_samples=0 latency_p50_ms=[\d.]+ latency_p99_ms=[\d.]+ latency_max_ms=[\d.]+ gaps=0 gap_seconds=0\.000 hidden_rows=0 interval_s=[\d.]+ cpu_us_per_sample=[\d.]+ backend_cpu_us_per_sample=[\d.]+( cost_us_per_sample=[\d.]+ backends=\d+)?$/,
	'csv: the health record');

# ---------------------------------------------------------------- raw JSON Lines

$r = run_json('-T', SHORT_RUN, @two, '--query-text=9', "--log=$dir/raw.jsonl");
my @recs = map { decode_json($_) } slurp_lines("$dir/raw.jsonl");
my @samples = grep { $_->{type} eq 'sample' } @recs;
is(scalar @samples, 2 * $r->{ticks}, 'jsonl: one record per session per sample');
my @wl = grep { $_->{application_name} eq 'w_lock' } @samples;
is(scalar(grep { $_->{wait_event} eq 'relation' && "@{$_->{blockers}}" eq "$holder_pid"
	  && $_->{pid} == $waiter_pid && $_->{ts} =~ /^$ts_re$/ } @wl), scalar @wl,
	'jsonl: the waiter, blocked by the holder');
is((grep { $_->{application_name} eq 'w_sleep' } @samples)[0]{query}, 'SELECT pg',
	'jsonl: the query text, cut to --query-text');
my @keys = sort keys %{ $samples[0] };
is_deeply(\@keys, [ sort qw(type ts pid backend_start backend_type datname usename
	  application_name client_addr state wait_event_type wait_event query_id leader_pid
	  blockers samples wait_time_us query) ], 'jsonl: the documented fields');
is($recs[-1]{type}, 'health', 'jsonl: the health record comes last');
is($recs[-1]{samples}, $r->{health}{samples}, 'jsonl: health: samples');

# --log-format overrides the name
$r = run_json('-T', SHORT_RUN, @two, "--log=$dir/named.log", '--log-format=jsonl');
ok(eval { decode_json((slurp_lines("$dir/named.log"))[0]) }, '--log-format=jsonl: JSON in a .log file');

# ---------------------------------------------------------------- interval aggregates

$r = run_json('-T', '3.5', @two, "--log=$dir/iv.csv", '--log-interval=1', '--by=app');
@lines = slurp_lines("$dir/iv.csv");
is($lines[0], 'interval_start,interval_end,ticks,datname,usename,application_name,'
	  . 'backend_type,wait_event_type,wait_event,query_id,samples,pct,est_seconds,'
	  . 'measured_seconds,measured_count', 'intervals: the header line');
my @iv = map { [ csv_fields($_) ] } grep { !/^#/ } @lines[ 1 .. $#lines ];
my %per_app;
my %iv_ticks;
for my $l (@iv)
{
	$per_app{ $l->[5] } += $l->[10];
	$iv_ticks{"$l->[0] $l->[1]"} = $l->[2];
}
my ($g_sleep) = grep { $_->{application_name} eq 'w_sleep' } @{ $r->{profile} };
is($per_app{w_sleep}, $g_sleep->{samples}, 'intervals: they add up to the run');
my $sum_ticks = 0;
$sum_ticks += $_ for values %iv_ticks;
is($sum_ticks, $r->{ticks}, 'intervals: their ticks add up to the run');
cmp_ok(scalar keys %iv_ticks, '>=', 3, 'intervals: one per second');
is(scalar(grep { /^# health / } @lines), scalar keys %iv_ticks, 'intervals: a health record each');
my ($one) = grep { $_->[5] eq 'w_lock' } @iv;
is($one->[12], sprintf('%.6f', $one->[10] * 0.01), 'intervals: est_seconds');
like($one->[0], qr/^$ts_re$/, 'intervals: ISO timestamps');

$r = run_json('-T', '1.2', @two, "--log=$dir/iv.jsonl", '--log-interval=1');
@recs = map { decode_json($_) } slurp_lines("$dir/iv.jsonl");
ok((grep { $_->{type} eq 'interval' && $_->{wait_event} eq 'relation' } @recs),
	'intervals jsonl: the lock wait');
ok(!(grep { $_->{type} eq 'sample' } @recs), 'intervals jsonl: no raw rows');

# ---------------------------------------------------------------- folded stacks

$r = run_json('-T', SHORT_RUN, "--folded=$dir/w.folded");
@lines = slurp_lines("$dir/w.folded");
is(scalar(grep { /^[^;]+;[^;]+;[^;]+;[^;]+;[^; ]+ \d+$/ } @lines), scalar @lines,
	'folded: datname;backend_type;type;event;query_id count');
my $total = 0;
$total += (split / /)[-1] for @lines;
is($total, $r->{active_samples}, 'folded: the counts add up to the active samples');
ok((grep { /^postgres;client backend;Lock;relation;-?\d+ \d+$/ } @lines), 'folded: the lock wait');
ok((grep { /^postgres;client backend;Timeout;PgSleep;-?\d+ \d+$/ } @lines), 'folded: pg_sleep');
is_deeply(\@lines, [ sort @lines ], 'folded: sorted');

# ---------------------------------------------------------------- SIGHUP reopens the log

{
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start([ $bin, @conn, '--json', '-T', '4', '--application-name=w_sleep',
		"--log=$dir/hup.csv" ], '>', \$out, '2>', \$err);
	# lines are written at least once a second: some are there long before the end
	my $waited = 0;
	while ((my @l = slurp_lines("$dir/hup.csv")) < 3 && $waited < 30)
	{
		usleep(100_000);
		$waited++;
	}
	cmp_ok(scalar(slurp_lines("$dir/hup.csv")), '>=', 3, 'the log is written while sampling');
	rename("$dir/hup.csv", "$dir/hup.csv.1") or die "rename: $!";
	$h->signal('HUP');
	$h->finish;
	is($h->result(0), 0, 'SIGHUP: exit 0');
	my @old = slurp_lines("$dir/hup.csv.1");
	my @new = slurp_lines("$dir/hup.csv");
	is($old[0], $csv_header, 'SIGHUP: the old file has its header');
	is($new[0], $csv_header, 'SIGHUP: the new file starts with a header');
	my $n_old = grep { !/^#/ } @old[ 1 .. $#old ];
	my $n_new = grep { !/^#/ } @new[ 1 .. $#new ];
	cmp_ok($n_new, '>', 0, 'SIGHUP: rows go to the new file');
	my $rep = decode_json($out);
	is($n_old + $n_new, $rep->{ticks}, 'SIGHUP: no row lost or written twice');
}

# ---------------------------------------------------------------- strftime file names

$r = run_json('-T', '2.5', '--application-name=w_sleep', "--log=$dir/s-%H%M%S.csv");
my @files = glob("$dir/s-*.csv");
cmp_ok(scalar @files, '>=', 2, 'strftime: a new file when the name changes');
my $rows_total = 0;
for my $f (@files)
{
	my @l = slurp_lines($f);
	is($l[0], $csv_header, "strftime: $f has a header");
	$rows_total += grep { !/^#/ } @l[ 1 .. $#l ];
}
is($rows_total, $r->{ticks}, 'strftime: every row in one of the files');

# ---------------------------------------------------------------- write errors

my ($rc, $out, $err) = run_tool([ $bin, @conn, '-T', SHORT_RUN, '--log=/dev/full' ]);
is($rc, 1, 'disk full: exit 1');
like($out, qr/^sampling: \d+ samples/m, 'disk full: the report is still printed');
my @errs = ($err =~ /^pgtempo-waits: error: could not write to log file "\/dev\/full": No space left on device$/mg);
is(scalar @errs, 1, 'disk full: reported once');
like($err, qr/^pgtempo-waits: error: \d+ records could not be written to log file "\/dev\/full"$/m,
	'disk full: the lost records are counted');

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'w\_%'});
done_testing();
