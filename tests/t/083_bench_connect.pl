# Many clients: the initial connections are opened a bounded number at a
# time, and a full listen queue (EAGAIN on a Unix socket) is waited out, so
# more clients than max_connections get the server's own "too many
# clients" error, as pgbench does, and as many as it allows all connect.
# A postmaster that accepts connections and never answers (stopped with
# SIGSTOP) cannot hold a -T run past its end and grace: the set-up
# connection and the clients' initial connections give up then, with exit
# status 1 (pgbench's for a connection that fails at the start); libpq's
# connect_timeout, when shorter, ends them first, with or without -T.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use Time::HiRes qw(time);
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $ref = pg_reference('pgbench');
# the listen queue of the postmaster is twice its backends: about 250 here
my $node = new_cluster('bench_connect', conf => "max_connections = 100\n");
my $db = $node->connstr('postgres');
my $dir = tempdir(CLEANUP => 1);
open my $fh, '>', "$dir/one.sql" or die;
print $fh "SELECT 1;\n";
close $fh;

# more clients than the server allows, more attempts at once than its listen queue takes
{
	my ($rc, $out, $err) = run_tool([ $ours, '-n', '-c', '300', '-j', '4', '-t', '1',
			'-f', "$dir/one.sql", $db ]);
	is($rc, 1, 'too many clients: exit 1');
	like($err, qr/FATAL:  sorry, too many clients already/, "too many clients: the server's error");
	like($err, qr/error: could not create connection for client \d+/, 'too many clients: which client');
	unlike($err, qr/Resource temporarily unavailable/, 'too many clients: no EAGAIN from a full queue');
  SKIP:
	{
		skip 'no reference pgbench', 1 unless defined $ref;
		my ($rrc, $rout, $rerr) = run_tool([ $ref, '-n', '-c', '300', '-j', '4', '-t', '1',
				'-f', "$dir/one.sql", $db ]);
		is($rc, $rrc, 'too many clients: the exit status of pgbench');
	}
}

# as many clients as the server allows all connect
{
	my ($rc, $out, $err) = run_tool([ $ours, '-n', '-c', '90', '-j', '3', '-t', '2',
			'-f', "$dir/one.sql", $db ]);
	is($rc, 0, '90 clients: exit 0');
	like($out, qr/^number of clients: 90$/m, '90 clients: all of them');
	like($out, qr/^number of transactions actually processed: 180\/180$/m,
		'90 clients: every transaction ran');
	is($err, '', '90 clients: nothing on stderr');
}

# the postmaster, stopped by the tests below and resumed whatever happens
# (this END runs before the cluster's own, which stops the server)
my $postmaster;
{
	open my $pf, '<', $node->data_dir . '/postmaster.pid' or die "postmaster.pid: $!";
	($postmaster) = <$pf> =~ /^(\d+)/;
	close $pf;
}
my $stopped = 0;
END { kill 'CONT', $postmaster if $stopped; }

sub stop_postmaster { $stopped = 1; kill 'STOP', $postmaster or die "kill STOP: $!"; }
sub resume_postmaster { kill 'CONT', $postmaster; $stopped = 0; }

# Start @$cmd, call $after->($h, \$err) (it may pump), then wait for the
# end at most $limit s more (killing it then); returns the exit code, its
# stdout and stderr, and the seconds from the end of $after to its end.
sub run_bounded
{
	my ($cmd, $limit, $after, %env) = @_;
	my ($out, $err) = ('', '');
	local %ENV = (%ENV, %env);
	print '# Running: ' . join(' ', @$cmd) . "\n";
	my $h = IPC::Run::start($cmd, '<', \'', '>', \$out, '2>', \$err, IPC::Run::timeout(60));
	$after->($h, \$err) if $after;
	my $t0 = time;
	while ($h->pumpable && time - $t0 < $limit)
	{
		$h->pump_nb;
		select(undef, undef, undef, 0.02);
	}
	my $took = time - $t0;
	if ($h->pumpable)
	{
		$h->kill_kill;
		return (-1, $out, $err . "(still running after $limit s: killed)\n", $took);
	}
	$h->finish;
	my $rc = $h->full_result(0) >> 8;
	print "# exit code: $rc, after ${took}s\n# stderr:\n$err";
	return ($rc, $out, $err, $took);
}

# the set-up connection to a stopped postmaster: given up at the end of -T and its grace
{
	stop_postmaster();
	my ($rc, $out, $err, $took) = eval {
		run_bounded([ $ours, '-n', '-T', '3', '-c', '2', '-f', "$dir/one.sql", $db ], 20);
	};
	resume_postmaster();
	die $@ if $@;
	# (and 1.5 s for a loaded machine to start and reap the process)
	cmp_ok($took, '<', 6.5, 'stopped postmaster, set-up connection: -T 3 ends by T + 2 s');
	is($rc, 1, 'stopped postmaster, set-up connection: exit 1');
	like($err, qr/^pgtempo-bench: error: no answer from the server while connecting: gave up at the end of -T and its grace \(4 s\)\npgtempo-bench: error: could not create connection for setup$/m,
		'stopped postmaster, set-up connection: says so');
}

# connect_timeout, shorter than -T, still holds
{
	stop_postmaster();
	my ($rc, $out, $err, $took) = eval {
		run_bounded([ $ours, '-n', '-T', '30', '-c', '2', '-f', "$dir/one.sql", $db ], 20, undef,
			PGCONNECT_TIMEOUT => '2');
	};
	resume_postmaster();
	die $@ if $@;
	cmp_ok($took, '<', 4, 'stopped postmaster, connect_timeout=2 and -T 30: ends after 2 s');
	is($rc, 1, 'stopped postmaster, connect_timeout: exit 1');
	like($err, qr/timeout expired\n.*could not create connection for setup$/m,
		'stopped postmaster, connect_timeout: says so');
}

# The clients' initial connections: the set-up connection gets through,
# then its vacuum waits for a lock while the postmaster is stopped.
$node->safe_psql('postgres',
	'CREATE TABLE pgbench_branches (bid int); CREATE TABLE pgbench_tellers (tid int); '
	  . 'CREATE TABLE pgbench_history (tid int)');
for my $case ([ [ '-T', '3' ], {}, 5, qr/gave up at the end of -T and its grace \(4 s\)/, '-T 3' ],
	[ [ '-t', '1' ], { PGCONNECT_TIMEOUT => '2' }, 4, qr/: timeout expired/, '-t 1, connect_timeout=2' ],
	# --waits: the sampler connects in its own thread, and the stop cuts its attempt
	[ [ '-T', '3', '--waits' ], {}, 5, qr/gave up at the end of -T and its grace \(4 s\)/, '-T 3 --waits' ])
{
	my ($opts, $env, $bound, $why, $name) = @$case;
	my ($locker) = start_session($node, 'locker');
	$locker->query_safe('BEGIN');
	$locker->query_safe('LOCK TABLE pgbench_branches');
	my ($rc, $out, $err, $took) = eval {
		run_bounded([ $ours, @$opts, '-c', '4', '-j', '2', '-f', "$dir/one.sql", $db ], 20,
			sub {
				my ($h, $errref) = @_;
				$h->pump until $$errref =~ /starting vacuum/;
				stop_postmaster();
				$locker->query_safe('COMMIT');
				$h->pump until $$errref =~ /end\.\n/;
			},
			%$env);
	};
	my $died = $@;
	resume_postmaster();
	$locker->quit;
	die $died if $died;
	cmp_ok($took, '<', $bound, "stopped postmaster, initial connections, $name: ends in time");
	is($rc, 1, "stopped postmaster, initial connections, $name: exit 1");
	like($err, $why, "stopped postmaster, initial connections, $name: why");
	like($err, qr/^pgtempo-bench: error: could not create connection for client \d+$/m,
		"stopped postmaster, initial connections, $name: which client");
	unlike($out, qr/^number of transactions/m, "stopped postmaster, initial connections, $name: no report");
}

# -C during the run: connect_timeout aborts a client whose new connection
# gets no answer (as pgbench aborts one whose connection fails), and -T's
# end stops the others; the report covers what ran
for my $case ([ [ '-t', '1000000' ], { PGCONNECT_TIMEOUT => '2' }, 4, 2, 'connect_timeout=2' ],
	[ [ '-T', '3' ], {}, 4, 0, '-T 3' ])
{
	my ($opts, $env, $bound, $code, $name) = @$case;
	my ($rc, $out, $err, $took) = eval {
		run_bounded([ $ours, '-n', '-C', @$opts, '-c', '2', '-P', '1', '-f', "$dir/one.sql", $db ], 20,
			sub {
				my ($h, $errref) = @_;
				$h->pump until $$errref =~ /^progress: /m;
				stop_postmaster();
			},
			%$env);
	};
	my $died = $@;
	resume_postmaster();
	die $died if $died;
	cmp_ok($took, '<', $bound, "stopped postmaster mid-run, -C, $name: ends in time");
	is($rc, $code, "stopped postmaster mid-run, -C, $name: exit $code");
	like($out, qr/^number of transactions actually processed: [1-9]\d*/m,
		"stopped postmaster mid-run, -C, $name: the report of what ran");
	if ($code == 2)
	{
		like($err, qr/: timeout expired\n.*client \d+ aborted while establishing connection$/m,
			"stopped postmaster mid-run, -C, $name: why");
	}
}

done_testing();
