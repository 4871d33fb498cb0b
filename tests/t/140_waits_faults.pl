# pgtempo-waits under faults: a server restart in the middle of a run (the
# gap is recorded in the report and the log, sampling resumes), a server that
# does not come back (exit status 2, what was collected is reported), and
# SIGINT/SIGTERM (the report is printed, exit status 0).

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;
use Time::HiRes qw(usleep time);

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_faults');
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres', '--source=activity');
my $dir = tempdir(CLEANUP => 1);
my $ts_re = qr/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z/;

# Start the sampler in the background; returns the harness and refs to its output.
sub start_sampler
{
	my (@args) = @_;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start([ $bin, @conn, '--json', @args ], '>', \$out, '2>', \$err,
		IPC::Run::timeout(120));
	return ($h, \$out, \$err);
}

# Wait until the sampler has taken its first samples (its log has a line).
sub wait_for_log
{
	my ($file) = @_;
	for (1 .. 100)
	{
		return 1 if -s $file;
		usleep(50_000);
	}
	return 0;
}

# A session that stays in pg_sleep; it is started again after a restart.
sub start_sleeper
{
	my $s = $node->background_psql('postgres', on_error_stop => 0);
	$s->query_safe("SET application_name = 'w_sleep'");
	$s->query_until(qr/started/, "\\echo started\nSELECT pg_sleep(600);\n");
	return $s;
}

# ---------------------------------------------------------------- restart in the middle

my $sleeper = start_sleeper();
my ($h, $out, $err) = start_sampler('-T', '6', '--application-name=w_sleep',
	"--log=$dir/restart.jsonl");
ok(wait_for_log("$dir/restart.jsonl"), 'restart: sampling started');
usleep(1_000_000);
$node->restart(mode => 'fast');
$sleeper = start_sleeper();
$h->finish;
is($h->result(0), 0, 'restart: exit 0 (the connection came back)') or diag($$err);
my $r = decode_json($$out);
is(scalar @{ $r->{gaps} }, 1, 'restart: one gap in the report');
my $gap = $r->{gaps}[0];
like($gap->{start}, qr/^$ts_re$/, 'restart: gap start');
like($gap->{end},   qr/^$ts_re$/, 'restart: gap end');
cmp_ok($gap->{seconds}, '>', 0, 'restart: the gap took time');
cmp_ok($gap->{seconds}, '<', 5, 'restart: and ended before the run did');
like($gap->{reason}, qr/terminating connection|server closed the connection|connection/,
	"restart: libpq's reason");
ok($r->{last_sample} gt $gap->{end}, 'restart: samples after the gap');
ok($r->{first_sample} lt $gap->{start}, 'restart: samples before the gap');
cmp_ok($r->{health}{gap_ticks}, '>', 0, 'restart: the ticks in the gap are counted as such');
is($r->{health}{failed_samples}, 0, 'restart: no sample failed outright');
like($$err, qr/^pgtempo-waits: warning: connection to the server lost: .+$/m, 'restart: warned');
like($$err, qr/^pgtempo-waits: connection restored: sampling resumed after a gap of [\d.]+ s$/m,
	'restart: said so when it came back');

my @recs = map { decode_json($_) } do { open my $fh, '<', "$dir/restart.jsonl" or die; <$fh> };
my @gaps = grep { $_->{type} eq 'gap' } @recs;
is(scalar @gaps, 1, 'restart: one gap record in the log');
is($gaps[0]{start}, $gap->{start}, 'restart: the log has the same gap start');
is($gaps[0]{end},   $gap->{end},   'restart: and end');
my @before = grep { $_->{type} eq 'sample' && $_->{ts} le $gap->{start} } @recs;
my @after  = grep { $_->{type} eq 'sample' && $_->{ts} ge $gap->{end} } @recs;
cmp_ok(scalar @before, '>', 0, 'restart: the log kept the rows before the gap');
cmp_ok(scalar @after,  '>', 0, 'restart: and has rows after it');
is(scalar(grep { $_->{type} eq 'sample' } @recs), $r->{active_samples},
	'restart: every sample taken is in the log');
is($recs[-1]{type}, 'health', 'restart: the health record at the end');
is($recs[-1]{gaps}, 1, 'restart: health counts the gap');

# ---------------------------------------------------------------- the server does not come back

($h, $out, $err) = start_sampler('-T', '3', "--log=$dir/gone.csv", '--include-idle');
ok(wait_for_log("$dir/gone.csv"), 'gone: sampling started');
usleep(500_000);
$node->stop('fast');
$h->finish;
is($h->result(0), 2, 'gone: exit 2');
like($$err, qr/^pgtempo-waits: error: gave up: the connection to the server was lost and could not be made again$/m,
	'gone: says it gave up');
$r = decode_json($$out);
is($r->{gave_up}, JSON::PP::true, 'gone: the report says so');
cmp_ok($r->{health}{samples}, '>', 0, 'gone: what was collected is reported');
is(scalar @{ $r->{gaps} }, 1, 'gone: one gap');
is($r->{gaps}[0]{end}, undef, 'gone: it never closed');
my @csv = do { open my $fh, '<', "$dir/gone.csv" or die; <$fh> };
ok((grep { /^# gap start=$ts_re end=$ts_re seconds=[\d.]+ reason=/ } @csv), 'gone: the log has the gap');
cmp_ok(scalar(grep { !/^#/ } @csv), '>', 1, 'gone: and the rows before it');
$node->start;

# ---------------------------------------------------------------- signals end a run with the report

for my $sig ('INT', 'TERM')
{
	($h, $out, $err) = start_sampler('--include-idle', "--log=$dir/sig$sig.csv");
	ok(wait_for_log("$dir/sig$sig.csv"), "SIG$sig: sampling started");
	usleep(300_000);
	$h->signal($sig);
	$h->finish;
	is($h->result(0), 0, "SIG$sig: exit 0");
	$r = eval { decode_json($$out) };
	ok($r, "SIG$sig: the report is printed");
	cmp_ok($r->{health}{samples}, '>', 0, "SIG$sig: with the samples taken");
	my @l = do { open my $fh, '<', "$dir/sig$sig.csv" or die; <$fh> };
	like($l[-1], qr/^# health .* samples=$r->{health}{samples} /, "SIG$sig: the log is complete");
	is(scalar(grep { !/^(#|ts,)/ } @l), $r->{active_samples}, "SIG$sig: no row lost");
}

done_testing();
