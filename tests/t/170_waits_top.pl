# pgtempo-waits --top, driven in tmux: the live view shows the induced waits,
# the sessions and the health; g regroups, p pauses, q quits with the report;
# and the terminal is restored on every way out — q, SIGTERM, losing the
# server (exit 2) and an abort (SIGABRT, which re-raises after restoring).

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use Test::More;
use Time::HiRes qw(usleep);

my $tmux = '';
IPC::Run::run([ 'sh', '-c', 'command -v tmux' ], '>', \$tmux);
chomp $tmux;
plan skip_all => 'tmux is not installed (Debian package tmux): the live view is tested in it'
  unless $tmux ne '' && -x $tmux;

# tmux runs the pane's command with $SHELL: as a system user (CI runs the
# tests as one) that is /usr/sbin/nologin, and the pane would end at once.
$ENV{SHELL} = '/bin/sh';

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_top', conf => "compute_query_id = on\n");
my $dir = tempdir(CLEANUP => 1);
my $sock;						# one tmux server per scenario, so none races another's exit
my $conn = sprintf('-h %s -p %d -d postgres --source=activity', $node->host, $node->port);

$node->safe_psql('postgres', 'CREATE TABLE t (i int)');

my ($holder, $holder_pid) = start_session($node, 'w_holder');
$holder->query_safe('BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
$holder->query_until(qr/started/, "\\echo started\nSELECT pg_sleep(600);\n");
my ($waiter, $waiter_pid) = start_session($node, 'w_lock', "BEGIN;\nLOCK TABLE t");
$node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'w_lock' AND wait_event = 'relation'})
  or die 'the induced waits did not start';

sub tmux
{
	my ($out, $err) = ('', '');
	# -u: the panes and what capture-pane prints are UTF-8, whatever the locale here
	IPC::Run::run([ $tmux, '-u', '-S', $sock, '-f', '/dev/null', @_ ], '>', \$out, '2>', \$err)
	  or diag("tmux @_: $err");
	return $out;
}

sub screen
{
	return tmux('capture-pane', '-p', '-t', 'waits');
}

# Wait until the screen matches (at most 15 s); returns the screen.
sub wait_screen
{
	my ($re) = @_;
	my $s = '';
	for (1 .. 150)
	{
		$s = screen();
		return $s if $s =~ $re;
		usleep(100_000);
	}
	diag("screen:\n$s");
	return $s;
}

sub wait_file
{
	my ($f) = @_;
	for (1 .. 150)
	{
		return 1 if -s $f;
		usleep(100_000);
	}
	return 0;
}

sub slurp
{
	my ($f) = @_;
	open my $fh, '<', $f or return '';
	local $/;
	return scalar <$fh>;
}

# Run the tool in a new tmux session; afterwards the shell writes the exit
# status and the terminal's modes (stty) into files, then waits.
sub start_top
{
	my ($name, $args, $stderr_on_tty, $x, $y, $env) = @_;
	my $errto = $stderr_on_tty ? '' : "2>$dir/$name.err";
	my $cmd = ($env // '') . "$bin $conn --top $args >$dir/$name.out $errto & "
	  . "echo \$! >$dir/$name.pid; wait \$!; echo \$? >$dir/$name.rc; "
	  . "stty -a >$dir/$name.stty; sleep 60";
	tmux('kill-server') if defined $sock;
	$sock = "$dir/$name.sock";
	tmux('new-session', '-d', '-s', 'waits', '-x', $x || '140', '-y', $y || '45', "sh -c '$cmd'");
}

# Send a signal to the tool of a scenario (never to a pid that is not its own).
sub signal_tool
{
	my ($name, $sig) = @_;
	my $pid = wait_file("$dir/$name.pid") ? int(slurp("$dir/$name.pid")) : 0;
	ok($pid > 1, "SIG$sig: started");
	kill $sig, $pid if $pid > 1;
}

# The terminal is back in its normal modes: echo and canonical input.
sub restored
{
	my ($name) = @_;
	my $stty = slurp("$dir/$name.stty");
	like($stty, qr/(^|[\s;])icanon([\s;]|$)/, "$name: canonical input restored");
	like($stty, qr/(^|[\s;])echo([\s;]|$)/, "$name: echo restored");
	unlike(screen(), qr/keys: g regroup/, "$name: the view is gone from the screen");
}

# ---------------------------------------------------------------- the view, its keys, q

start_top('keys', '-T 60 --query-text');
my $s = wait_screen(qr/Lock:relation\s+\|#+/);
# every 10 ms, or more: on a loaded machine the cost budget may lengthen it
like($s, qr/^pgtempo-waits\s+\d\d:\d\d:\d\d\s+source pg_stat_activity\s+every \d+ ms\s+server \S+/m,
	'view: header with the source and interval');
like($s, qr/^samples \d+ \([\d.]+\/s\)\s+missed \d+\s+failed 0\s+latency p50 [\d.]+ ms p99 [\d.]+ ms/m,
	'view: the sampling health');
like($s, qr/^BY event\s+LAST SECOND\s+WHOLE RUN/m, 'view: grouped by event');
like($s, qr/^Lock:relation\s+\|#+\s*\|\s+[\d.]+%\s+\|#+\s*\|\s+[\d.]+%/m,
	'view: bars for the lock wait, last second and whole run');
like($s, qr/^Timeout:PgSleep\s+\|#+/m, 'view: bars for pg_sleep');
like($s, qr/^\s+$waiter_pid\s+\S+\s+postgres\s+client backend\s+\d+\s+[\d.]+\s+Lock:relation/m,
	'view: the waiting session with its top event');
# a negative 19-digit query id fills its column (PostgreSQL 18's for this query)
like($s, qr/^\s*-?\d+\s+\d+\s+[\d.]+\s+SELECT pg_sleep\(600\)/m, 'view: the top query with its text');

tmux('send-keys', '-t', 'waits', 'g');
$s = wait_screen(qr/^BY pid/m);
like($s, qr/^BY pid/m, 'g: regrouped by pid');
like($s, qr/^pid $waiter_pid\s+\|#+/m, 'g: a bar per session');
tmux('send-keys', '-t', 'waits', 'g');
$s = wait_screen(qr/^BY query/m);
like($s, qr/^BY query/m, 'g again: by query');

tmux('send-keys', '-t', 'waits', 'p');
$s = wait_screen(qr/PAUSED/);
like($s, qr/PAUSED/, 'p: paused');
my ($n1) = $s =~ /^samples (\d+)/m;
usleep(1_500_000);
($s) = screen();
my ($n2) = $s =~ /^samples (\d+)/m;
is($n2, $n1, 'p: the display stands still');
tmux('send-keys', '-t', 'waits', 'p');
$s = wait_screen(qr/^samples (?!$n1\b)\d+/m);
unlike($s, qr/PAUSED/, 'p again: running');

tmux('send-keys', '-t', 'waits', 'q');
ok(wait_file("$dir/keys.rc"), 'q: the program ended');
is(slurp("$dir/keys.rc"), "0\n", 'q: exit 0');
like(slurp("$dir/keys.out"), qr/^Lock\s+relation\s+\d+/m, 'q: the report is printed');
like(slurp("$dir/keys.out"), qr/blocked by pid $holder_pid:/, 'q: with the blocker');
ok(wait_file("$dir/keys.stty"), 'q: stty ran');
restored('keys');

# ---------------------------------------------------------------- 80 x 24, and a resize while paused

start_top('narrow', '-T 60 --query-text', 0, 80, 24);
$s = wait_screen(qr/Lock:relation\s+\|#+/);
my @lines = split /\n/, $s;
ok(!grep({ length($_) > 80 } @lines), '80x24: no line is wider than the terminal');
like($s, qr/^\s+HEAD\s+BLOCKED s\s+\+-\s+DIRECT\s+APPLICATION/m, '80x24: the head blockers');
like($s, qr/^\s*$holder_pid\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+w_holder, active, Timeout\/PgSleep/m,
	'80x24: the holder is the head, with what it is doing');
unlike($s, qr/^\s*$waiter_pid\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+w_lock/m, '80x24: the waiter is no head');
like($s, qr/^server \S+\s+PostgreSQL \d+/m, '80x24: the server on a line of its own');
like($s, qr/latency p50 [\d.]+ ms p99 [\d.]+ ms/, '80x24: the latency');
like($s, qr/active sessions: last [\d.]+, run [\d.]+/, '80x24: the active sessions');
like($s, qr/^\s+PID USER\s+DB\s+TYPE\s+SAMPLES\s+%\s+TOP EVENT$/m, '80x24: every session column');
like($s, qr/^\s*$waiter_pid\s+\S+\s+postgres\s+client bac\s+\d+\s+[\d.]+\s+Lock:relation/m,
	'80x24: the waiting session with its top event');
like($s, qr/^Lock:relation\s+\|#*\s*\|\s+[\d.]+%\s+\|#+\s*\|\s+[\d.]+%$/m,
	'80x24: both bars with their shares');
like($s, qr/^\s+QUERY ID\s+SAMPLES\s+%\s+QUERY/m, '80x24: the queries');
tmux('send-keys', '-t', 'waits', 'p');
$s = wait_screen(qr/PAUSED/);
tmux('resize-window', '-t', 'waits', '-x', '120', '-y', '40');
$s = wait_screen(qr/^pgtempo-waits\s+\d\d:\d\d:\d\d\s+source \S+\s+every \d+ ms\s+server/m);
like($s, qr/PAUSED/, 'resized while paused: still paused');
like($s, qr/^BY event/m, 'resized while paused: redrawn in full');
like($s, qr/^Lock:relation\s+\|#*/m, 'resized while paused: the bars are back');
tmux('send-keys', '-t', 'waits', 'q');
ok(wait_file("$dir/narrow.rc"), 'narrow: the program ended');

# ---------------------------------------------------------------- 80 x 24 with more than fits

# more sessions than the screen has rows: every row is used
my @fill = map { [ start_session($node, "w_fill$_", 'SELECT pg_sleep(600)') ] } 1 .. 14;
start_top('full', '-T 60 --query-text', 0, 80, 24);
$s = wait_screen(qr/Lock:relation\s+\|#+/);
@lines = split /\n/, $s, -1;
# the parts' headings each have a blank line before them, and the view has no other
my $blank = grep { /^\s*$/ } @lines[0 .. 23];
my $headings = grep { /^(BY |\s+HEAD\s+BLOCKED s|\s+PID USER|\s+QUERY ID)/ } @lines;
cmp_ok($blank, '<=', $headings, "80x24, full: no blank row but before a heading ($blank blank, $headings headings)")
  or diag($s);
like($lines[23] // '', qr/\S/, '80x24, full: the last row is used') or diag($s);
tmux('send-keys', '-t', 'waits', 'q');
ok(wait_file("$dir/full.rc"), 'full: the program ended');
$node->safe_psql('postgres', 'SELECT pg_terminate_backend(' . $_->[1] . ')') for @fill;
eval { $_->[0]->quit } for @fill;

# ---------------------------------------------------------------- UTF-8 text

# in a UTF-8 locale the view draws the server's UTF-8 text as characters
# (curses needs the locale's character set for that).  A query's text, not
# an application name: PostgreSQL keeps only ASCII in application_name.
start_session($node, 'w_utf8', "SELECT 'läuft-ß', pg_sleep(600)");
start_top('utf8', '-T 60 --query-text', 0, 140, 45, 'env -u LC_ALL -u LC_CTYPE LANG=C.UTF-8 ');
$s = wait_screen(qr/SELECT 'läuft-ß', pg_sleep\(600\)/);
like($s, qr/^\s*-?\d+\s+\d+\s+[\d.]+\s+SELECT 'läuft-ß', pg_sleep\(600\)/m,
	'UTF-8: a query\'s text drawn intact');
tmux('send-keys', '-t', 'waits', 'q');
ok(wait_file("$dir/utf8.rc"), 'UTF-8: the program ended');
like(slurp("$dir/utf8.out"), qr/^sampling: \d+ samples in \d+\.\d\d s \(\d+\.\d\d\/s\)/m,
	'UTF-8: the report after it, numbers with a decimal point');
# the session ends with the server, as the others do; its query stops now
$node->safe_psql('postgres', "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'w_utf8'");

# ---------------------------------------------------------------- SIGTERM

start_top('term', '-T 60');
wait_screen(qr/Lock:relation\s+\|#+/);
signal_tool('term', 'TERM');
ok(wait_file("$dir/term.rc"), 'SIGTERM: the program ended');
is(slurp("$dir/term.rc"), "0\n", 'SIGTERM: exit 0');
like(slurp("$dir/term.out"), qr/^sampling: \d+ samples/m, 'SIGTERM: the report is printed');
ok(wait_file("$dir/term.stty"), 'SIGTERM: stty ran');
restored('term');

# ---------------------------------------------------------------- SIGABRT: a crash

start_top('abort', '-T 60');
wait_screen(qr/Lock:relation\s+\|#+/);
signal_tool('abort', 'ABRT');
ok(wait_file("$dir/abort.rc"), 'SIGABRT: the program ended');
is(slurp("$dir/abort.rc"), "134\n", 'SIGABRT: killed by the signal it got');
ok(wait_file("$dir/abort.stty"), 'SIGABRT: stty ran');
restored('abort');

# ---------------------------------------------------------------- losing the server: exit 2

# stderr is the terminal here: what is written to it while the view is up
# must appear once the view is gone
start_top('gone', '-T 3', 1);
wait_screen(qr/Lock:relation\s+\|#+/);
$node->stop('fast');
ok(wait_file("$dir/gone.rc"), 'server gone: the program ended');
is(slurp("$dir/gone.rc"), "2\n", 'server gone: exit 2');
ok(wait_file("$dir/gone.stty"), 'server gone: stty ran');
$s = screen();
like($s, qr/^pgtempo-waits: warning: connection to the server lost/m,
	'server gone: the warning written during the view is shown after it');
like($s, qr/^pgtempo-waits: error: gave up: /m, 'server gone: and the error');
restored('gone');

tmux('kill-server');
done_testing();
