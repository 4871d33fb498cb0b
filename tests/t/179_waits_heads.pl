# pgtempo-waits head blockers on a scripted chain: A holds a lock on t1
# (idle in its transaction); B holds one on t2 and waits for t1; C and D
# wait for t2.  A is the only head, with every blocked backend-sample of
# the run (B's, C's and D's: three per sample), B is a link of the chains,
# and a session that blocks nobody (one sleeping, one idle in a
# transaction holding no lock anyone wants) is never listed.  The logs the
# run wrote, raw and per interval, read back with --from-log give the same
# head.  A run that does not read users and applications with its rows
# (--json alone) still names the head and the chains' sessions: it looks
# them up apart.  No rate, count of samples or duration is asserted: the bounds
# come from the run's own ticks, which the script does not control.

use strict;
use warnings;

use File::Temp qw(tempdir);
use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_heads');
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres', '--source=activity',
	'--cost-budget=0');
my $dir = tempdir(CLEANUP => 1);

$node->safe_psql('postgres', 'CREATE TABLE t1 (i int); CREATE TABLE t2 (i int)');
my $user = $node->safe_psql('postgres', 'SELECT current_user');
my ($a, $a_pid) = start_session($node, 'h_a');
$a->query_safe('BEGIN; LOCK TABLE t1 IN ACCESS EXCLUSIVE MODE');
my ($b, $b_pid) = start_session($node, 'h_b');
$b->query_safe('BEGIN; LOCK TABLE t2 IN ACCESS EXCLUSIVE MODE');
$b->query_until(qr/started/, "\\echo started\nLOCK TABLE t1 IN ACCESS EXCLUSIVE MODE;\n");
my ($c, $c_pid) = start_session($node, 'h_c', 'SELECT count(*) FROM t2');
my ($d, $d_pid) = start_session($node, 'h_d', 'SELECT count(*) FROM t2');
my ($e, $e_pid) = start_session($node, 'h_e', 'SELECT pg_sleep(600)');
my ($f, $f_pid) = start_session($node, 'h_f');
$f->query_safe('BEGIN; SELECT count(*) FROM pg_class');
$node->poll_query_until('postgres', q{
	SELECT count(*) = 3 FROM pg_stat_activity
	WHERE application_name IN ('h_b', 'h_c', 'h_d') AND wait_event_type = 'Lock'})
  or die 'the chain did not form';

my $raw = "$dir/raw.jsonl";
my $ivl = "$dir/interval.csv";
my ($rc, $out, $err) = run_tool([ $bin, @conn, '-i', '50ms', '-T', '2', '--json',
	'--query-text', "--log=$raw", "--metrics=$dir/m.prom" ]);
is($rc, 0, 'the run exits 0') or diag($err);
my $j = decode_json($out);
my $ticks = $j->{ticks};
my $period = $j->{period_s};
ok($ticks > 0, "samples were taken ($ticks)");

# The heads of a report, and its chains, checked the same way for every report.
sub check_heads
{
	my ($what, $r, $ticks) = @_;
	my $bl = $r->{blockers};
	ok($bl, "$what: a blockers member") or return;
	my @heads = @{ $bl->{heads} };
	is(scalar @heads, 1, "$what: one head") or diag(explain(\@heads));
	my $h = $heads[0];
	is($h->{pid}, $a_pid, "$what: A is the head");
	# B, C and D are blocked in every sample: three backend-samples each
	cmp_ok(abs($h->{samples} - 3 * $ticks), '<=', 0.05 * 3 * $ticks,
		"$what: A caused about three blocked backend-samples per sample ($h->{samples}, $ticks ticks)");
	cmp_ok(abs($h->{est_seconds} - $h->{samples} * $r->{period_s}), '<', 1e-6,
		"$what: seconds are samples times the period");
	cmp_ok(abs($h->{direct_samples} * 3 - $h->{samples}), '<=', 0.05 * $h->{samples},
		"$what: one of the three waits on A directly");
	ok($h->{error_seconds} >= 0, "$what: an error bound");
	my %listed = map { $_->{pid} => 1 } @heads;
	ok(!$listed{$_}, "$what: pid $_ blocks nobody and is not listed") for ($e_pid, $f_pid, $c_pid, $d_pid, $b_pid);
	my %chains = map { $_->{stack} => $_->{samples} } @{ $bl->{chains} };
	ok(exists $chains{"h_a $a_pid;h_b $b_pid"}, "$what: chain A;B") or diag(explain(\%chains));
	ok(exists $chains{"h_a $a_pid;h_b $b_pid;h_c $c_pid"}, "$what: chain A;B;C (B a link)");
	ok(exists $chains{"h_a $a_pid;h_b $b_pid;h_d $d_pid"}, "$what: chain A;B;D");
	ok(!grep({ /\b(h_e|h_f)\b/ } keys %chains), "$what: no chain names E or F");
	return $h;
}

my $h = check_heads('live', $j, $ticks);

# --metrics: the head's blocked time by its backend type, the same time as
# the report's (each sample there weighs its interval and the ticks it
# missed, the report's the mean period: they differ by the schedule's jitter)
{
	open(my $mf, '<', "$dir/m.prom") or die "m.prom: $!";
	my ($m) = map { /^pgtempo_waits_head_blocked_seconds_total\{[^}]*backend_type="client backend"\} (\S+)$/ ? $1 : () } <$mf>;
	close($mf);
	ok(defined $m, '--metrics: the head blockers\' blocked seconds, by backend type');
	cmp_ok(abs(($m // 0) - $h->{est_seconds}), '<=', 0.15 * $h->{est_seconds},
		"--metrics: about the report's blocked seconds (" . ($m // 'none') . " and $h->{est_seconds})");
}
is($h->{application_name}, 'h_a', 'live: the head\'s application');
is($h->{state}, 'idle in transaction', 'live: what the head was doing');
ok(defined $h->{xact_age_seconds} && $h->{xact_age_seconds} > 0, 'live: its transaction age');
like($h->{backend_start}, qr/^\d{4}-\d\d-\d\dT/, 'live: its backend start (identity beside the pid)');
like($h->{query}, qr/LOCK TABLE t1/, 'live: its query text with --query-text');

# the text report has the section, ranked, with the chains
($rc, $out, $err) = run_tool([ $bin, @conn, '-i', '50ms', '-T', SHORT_RUN ]);
is($rc, 0, 'text run exits 0') or diag($err);
like($out, qr/^head blockers: [\d.]+ s of blocked backend time/m, 'text: the head blockers section');
like($out, qr/^  pid $a_pid \(started [^)]+\): [\d.]+ ± [\d.]+ s blocked, [\d.]+ s directly$/m,
	'text: A with its blocked seconds and bound');
# without --by app, --log or --top the run does not read application names
# with its rows: the sessions of the chains are looked up apart
like($out, qr/^  h_a $a_pid;h_b $b_pid;h_c $c_pid  [\d.]+ s$/m, 'text: a folded chain, named');
like($out, qr/^      \Q$user\E\@postgres, h_a, /m, 'text: the head\'s user, database and application');
unlike($out, qr/^  pid ($e_pid|$f_pid|$b_pid)\b/m, 'text: no other head');

# the same with --json alone: the head's identity and the chains' names
# come from the lookup, and a session that blocks nobody is still not listed
($rc, $out, $err) = run_tool([ $bin, @conn, '-i', '50ms', '-T', SHORT_RUN, '--json' ]);
is($rc, 0, '--json run exits 0') or diag($err);
$j = decode_json($out);
$h = check_heads('--json alone', $j, $j->{ticks});
is($h->{application_name}, 'h_a', '--json alone: the head\'s application');
is($h->{usename}, $user, '--json alone: the head\'s user');
is($h->{datname}, 'postgres', '--json alone: the head\'s database');

# the raw log read back recomputes the heads from the rows' blockers
($rc, $out, $err) = run_tool([ $bin, '--json', '--from-log', $raw ]);
is($rc, 0, '--from-log raw exits 0') or diag($err);
my $fj = decode_json($out);
check_heads('from raw log', $fj, $fj->{ticks});

# an interval log carries a head record per interval
($rc, $out, $err) = run_tool([ $bin, @conn, '-i', '50ms', '-T', '2', '--json',
	"--log=$ivl", '--log-interval=1' ]);
is($rc, 0, 'interval run exits 0') or diag($err);
$j = decode_json($out);
($rc, $out, $err) = run_tool([ $bin, '--json', '--from-log', $ivl ]);
is($rc, 0, '--from-log interval exits 0') or diag($err);
$fj = decode_json($out);
check_heads('from interval log', $fj, $fj->{ticks});

# the sessions end with the server
$node->stop('immediate');
eval { $_->quit } for ($a, $b, $c, $d, $e, $f);
done_testing();
