# The first SIGINT or SIGTERM cancels the statements in flight and prints
# the report; the exit status is 128 + the signal.  A backend that does not
# answer (stopped with SIGSTOP) is abandoned after the documented bound, or
# at once on a second signal; -T holds against such a backend too.  No
# backend is left running the benchmark's statement.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP qw(decode_json);
use Time::HiRes qw(time sleep);
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $node = new_cluster('bench_signal');
my $db = $node->connstr('postgres');
my $dir = tempdir(CLEANUP => 1);
open my $fh, '>', "$dir/sleep.sql" or die;
print $fh "select pg_sleep(0.01);\n";
close $fh;

for my $sig ([ 'INT', 130 ], [ 'TERM', 143 ])
{
	my ($name, $code) = @$sig;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start([ $ours, '-n', '-c', '3', '-j', '2', '-T', '600', '-P', '1',
			'-f', "$dir/sleep.sql", $db ], '<', \'', '>', \$out, '2>', \$err,
		IPC::Run::timeout(120));
	# wait until it runs: the first progress line
	$h->pump until $err =~ /^progress: /m;
	$h->signal($name);
	$h->finish;
	my $rc = $h->full_result(0) >> 8;
	is($rc, $code, "SIG$name: exit $code");
	like($out, qr/^duration: 600 s\nnumber of transactions actually processed: [1-9]\d*\n/m,
		"SIG$name: the report for what ran");
	like($out, qr/^tps = [0-9.]+ \(without initial connection time\)$/m, "SIG$name: tps line");
	like($err, qr/warning: interrupted by SIG$name/, "SIG$name: says it was interrupted");
	unlike($err, qr/aborted/, "SIG$name: no client aborted");
}

open $fh, '>', "$dir/long.sql" or die;
print $fh "SELECT pg_sleep(30);\n";
close $fh;

# backends stopped by this test, resumed whatever happens
my @stopped;
END { kill 'CONT', @stopped if @stopped; }

# the pids of the bench's backends running pg_sleep(30), once there are $n
sub sleeping_backends
{
	my ($n) = @_;
	for (1 .. 100)
	{
		my @pids = grep { /^\d+$/ } split /\n/, $node->safe_psql('postgres',
			"SELECT pid FROM pg_stat_activity WHERE state = 'active' "
			  . "AND query LIKE 'SELECT pg_sleep(30)%' ORDER BY pid");
		return @pids if @pids >= $n;
		sleep 0.1;
	}
	return ();
}

# whether no backend runs pg_sleep(30) any more, within 10 s (far less than its 30 s)
sub no_sleep_left
{
	for (1 .. 100)
	{
		return 1 if $node->safe_psql('postgres',
			"SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
			  . "AND query LIKE 'SELECT pg_sleep(30)%'") eq '0';
		sleep 0.1;
	}
	return 0;
}

sub start_long
{
	my ($out, $err, @args) = @_;
	return IPC::Run::start([ $ours, '-n', '-c', '2', @args, '-f', "$dir/long.sql", $db ],
		'<', \'', '>', $out, '2>', $err, IPC::Run::timeout(60));
}

# SIGINT cancels the statements: the report comes at once, no pg_sleep is left
{
	my ($out, $err) = ('', '');
	my $h = start_long(\$out, \$err, '-T', '600');
	is(scalar(sleeping_backends(2)), 2, 'cancel: both clients run pg_sleep(30)');
	my $t0 = time;
	$h->signal('INT');
	$h->finish;
	my $took = time - $t0;
	is($h->full_result(0) >> 8, 130, 'cancel: exit 130');
	cmp_ok($took, '<', 15, "cancel: the report came well before pg_sleep(30) ended (${took} s)");
	like($out, qr/^number of transactions actually processed: 0$/m, 'cancel: the report');
	unlike($err, qr/aborted|abandoned|canceling statement/, 'cancel: no client aborted or abandoned');
	ok(no_sleep_left(), 'cancel: no backend runs pg_sleep(30) after the tool exits');
}

# a backend that never answers: abandoned within the bound, counted, and reported
{
	my ($out, $err) = ('', '');
	my $h = start_long(\$out, \$err, '-T', '600');
	my @pids = sleeping_backends(2);
	is(scalar(@pids), 2, 'hung: both clients run pg_sleep(30)');
	kill 'STOP', $pids[0];
	push @stopped, $pids[0];
	my $t0 = time;
	$h->signal('INT');
	$h->finish;
	my $took = time - $t0;
	is($h->full_result(0) >> 8, 130, 'hung: exit 130');
	cmp_ok($took, '<', 15, "hung: the report came within the bound, with margin (${took} s)");
	like($out, qr/^number of transactions actually processed: 0$/m, 'hung: the report');
	like($err, qr/warning: 1 client\(s\) abandoned: their backends did not answer within 1 s/,
		'hung: one client abandoned, said on stderr');
	kill 'CONT', $pids[0];
	@stopped = ();
	ok(no_sleep_left(), 'hung: the resumed backend ends the statement');
}

# a second signal stops waiting at once; the report still comes
{
	my ($out, $err) = ('', '');
	my $h = start_long(\$out, \$err, '-T', '600');
	my @pids = sleeping_backends(2);
	kill 'STOP', $pids[0];
	push @stopped, $pids[0];
	$h->signal('TERM');
	sleep 0.1;
	$h->signal('TERM');
	$h->finish;
	# the other client may not have had its answer yet either
	is($h->full_result(0) >> 8, 143, 'second signal: exit 143');
	like($out, qr/^number of transactions actually processed: 0$/m, 'second signal: the report');
	like($err, qr/warning: [12] client\(s\) abandoned at the second signal/,
		'second signal: the abandoned client is counted');
	kill 'CONT', $pids[0];
	@stopped = ();
	ok(no_sleep_left(), 'second signal: the resumed backend ends the statement');
}

# -T holds with a backend that never answers: cancel, abandon, report, exit 2
{
	my ($out, $err) = ('', '');
	open my $sh, '>', "$dir/short.sql" or die;
	print $sh "SELECT pg_sleep(0.02);\n";
	close $sh;
	my $t0 = time;
	my $h = IPC::Run::start([ $ours, '-n', '-c', '2', '-T', '3', '-P', '1', '-f', "$dir/short.sql",
			"--json=$dir/t.json", $db ],
		'<', \'', '>', \$out, '2>', \$err, IPC::Run::timeout(60));
	$h->pump until $err =~ /^progress: /m;
	my @pids = grep { /^\d+$/ } split /\n/, $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(0.02)%' ORDER BY pid LIMIT 1");
	kill 'STOP', $pids[0];
	push @stopped, $pids[0];
	$h->finish;
	my $took = time - $t0;
	is($h->full_result(0) >> 8, 2, '-T with a hung backend: exit 2');
	# 3 s, a second of grace, a second for the cancel: generous for a loaded machine
	cmp_ok($took, '<', 20, "-T with a hung backend: ended after the deadline (${took} s)");
	like($out, qr/^number of transactions actually processed: [1-9]\d*$/m,
		'-T with a hung backend: the report of what ran');
	like($err, qr/warning: 1 client\(s\) abandoned: their backends did not answer within 1 s/,
		'-T with a hung backend: says a client was abandoned');
	my $j = decode_json(do { local (@ARGV, $/) = "$dir/t.json"; <> });
	is($j->{clients_abandoned}, 1, '-T with a hung backend: clients_abandoned in --json');
	is($j->{exit_status}, 2, '-T with a hung backend: exit_status in --json');
	kill 'CONT', $pids[0];
	@stopped = ();
}

done_testing();
