# pgtempo-waits --from-log --baseline-windows: a generated raw log of seven
# minutes in which IO:DataFileRead drifts between minutes (3, 5, 3, 5, 3
# sessions, then 5 in the window) and IO:WALWrite jumps in the window (2 or
# 3 sessions before, 9 in it), with a little noise within each minute.
# Against the minute before alone the drift is flagged (a bound from one
# window's spread cannot know it); against five minutes before it, each a
# minute further back, the spread between them widens the bound and the
# drift is not flagged, while the jump still is; the pooled baseline is the
# mean of its windows'; text and JSON say how the bound was made.

use strict;
use warnings;

use File::Temp qw(tempdir);
use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');
my $dir = tempdir(CLEANUP => 1);
my $log = "$dir/drift.csv";

# the sessions of each minute (1 to 6; minute 0 is before every window)
my @read = (3, 3, 5, 3, 5, 3, 5);
my @wal = (2, 2, 3, 2, 2, 3, 9);
open my $fh, '>', $log or die;
print $fh "ts,pid,backend_start,backend_type,datname,usename,application_name,client_addr,state,"
  . "wait_event_type,wait_event,query_id,leader_pid,blockers,samples,wait_time_us,query\n"
  . '# meta {"type":"meta","log_version":1,"tool":"pgtempo-waits 0.1.0","run":"2026-12-01T10:00:00.000000Z",'
  . '"source":"pg_stat_activity","server":"/tmp:5432","server_version":"15.18","interval_s":1,'
  . '"period_s":1,"include_idle":false,"measured":false,"backend_types":["client backend"],'
  . '"backend_types_given":true}' . "\n";
for my $i (0 .. 7 * 60 - 1)
{
	my $m = int($i / 60);
	my $ts = sprintf('2026-12-01T10:%02d:%02d.000000Z', $m, $i % 60);
	# a steady session (every second has a sample), and the noise: -2..+2 and -1..+1, no drift within a minute
	my @rows = ([ 100, 'Client', 'ClientRead' ]);
	my $nread = $read[$m] + ($i * 7 + $m) % 5 - 2;
	my $nwal = $wal[$m] + ($i * 11 + $m) % 3 - 1;
	push @rows, map { [ 200 + $_, 'IO', 'DataFileRead' ] } 1 .. $nread;
	push @rows, map { [ 300 + $_, 'IO', 'WALWrite' ] } 1 .. $nwal;
	print $fh "$ts,$_->[0],2026-12-01T09:00:00.000000Z,client backend,postgres,app,web,,active,"
	  . "$_->[1],$_->[2],,,,1,,\n" for @rows;
}
close $fh or die;

# the window: minute 6; the baseline: minute 5, and with N windows minutes 5, 4, ...
sub compare
{
	my (@args) = @_;
	return run_tool([ $bin, '--from-log', $log, '--since=2026-12-01T10:06:00Z',
		'--until=2026-12-01T10:07:00Z', '--baseline-since=-1min', @args ]);
}

sub row
{
	my ($doc, $event) = @_;
	my ($r) = grep { ($_->{wait_event} // '') eq $event } @{ $doc->{results} };
	return $r;
}

my ($rc, $out, $err) = compare('--json');
is($rc, 0, 'one baseline window: exit 0') or diag($err);
my $one = decode_json($out);
is($one->{method}{baseline_windows}, 1, 'one baseline window: the JSON says so');
ok(!$one->{method}{covers_between_window_spread}, 'one baseline window: within-window spread only');
is_deeply($one->{base}{further_windows}, [], 'one baseline window: no further window');
my $r1 = row($one, 'DataFileRead');
ok($r1->{flagged}, 'one baseline window: the drift is flagged') or diag(explain($r1));
cmp_ok(abs($r1->{change} - 2), '<', 0.2, 'one baseline window: the drift is the minutes\' difference');
ok(row($one, 'WALWrite')->{flagged}, 'one baseline window: the jump is flagged');

($rc, $out, $err) = compare('--json', '--baseline-windows=5');
is($rc, 0, 'five baseline windows: exit 0') or diag($err);
my $five = decode_json($out);
is($five->{method}{baseline_windows}, 5, 'five baseline windows: the JSON says so');
ok($five->{method}{covers_between_window_spread}, 'five baseline windows: the spread between them counts');
is_deeply([ map { $_->{since} } $five->{base}, @{ $five->{base}{further_windows} } ],
	[ map { "2026-12-01T10:0${_}:00.000000Z" } 5, 4, 3, 2, 1 ],
	'five baseline windows: each a minute further back') or diag(explain($five->{base}));
my $r5 = row($five, 'DataFileRead');
ok(!$r5->{flagged}, 'five baseline windows: the drift is not flagged') or diag(explain($r5));
is($r5->{verdict}, 'no difference shown', 'five baseline windows: the drift\'s verdict');
cmp_ok(abs($r5->{base} - 3.8), '<', 0.1, 'five baseline windows: the baseline is the mean of its windows\'');
cmp_ok($r5->{bound}, '>', 2 * $r1->{bound}, 'five baseline windows: a wider bound');
my $w5 = row($five, 'WALWrite');
ok($w5->{flagged} && $w5->{verdict} eq 'higher', 'five baseline windows: the jump still flagged')
  or diag(explain($w5));
my @avg = map { $_->{avg_active_sessions} } $five->{base}, @{ $five->{base}{further_windows} };
my $mean = 0;
$mean += $_ / @avg for @avg;
cmp_ok(abs($five->{total}{base} - $mean), '<', 1e-9, 'five baseline windows: the total\'s baseline is their mean');

# text: each baseline window's line, and how the bound was made
($rc, $out) = compare('--baseline-windows=5');
is(scalar(() = $out =~ /^baseline: /mg), 5, 'text: a line for each baseline window') or diag($out);
like($out, qr/Bound from 5 baseline windows/, 'text: the bound from five windows');
($rc, $out) = compare();
like($out, qr/Within-window spread only/, 'text: one window, within-window spread only');

# --baseline-windows needs a distance to shift by; a window no run sampled is an error
for my $c (
	[ [ '--from-log', $log, '--baseline=' . $log, '--baseline-windows=3' ],
		qr/--baseline-windows needs a baseline at a distance from the window/ ],
	[ [ '--from-log', $log, '--since=2026-12-01T10:06:00Z', '--until=2026-12-01T10:07:00Z',
		'--baseline-since=-2min', '--baseline-windows=4' ],
		qr/error: baseline window 4 of 4 holds no samples of its files/ ],
	[ [ '--from-log', $log, '--since=2026-12-01T10:06:00Z', '--until=2026-12-01T10:07:00Z',
		'--baseline-since=-30s', '--baseline-windows=2' ],
		qr/--baseline-windows needs baseline windows that do not overlap/ ],
	[ [ '--from-log', $log, '--baseline-since=-1min', '--since=2026-12-01T10:06:00Z',
		'--until=2026-12-01T10:07:00Z', '--baseline-windows=31' ],
		qr/--baseline-windows must be between 1 and 30 windows/ ])
{
	my ($urc, $uo, $ue) = run_tool([ $bin, @{ $c->[0] } ]);
	is($urc, 1, "error: @{ $c->[0] }[2..$#{ $c->[0] }]: exit 1");
	like($ue, $c->[1], "error: @{ $c->[0] }[2..$#{ $c->[0] }]: the message");
}

done_testing();
