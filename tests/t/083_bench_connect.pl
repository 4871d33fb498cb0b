# Many clients: the initial connections are opened a bounded number at a
# time, and a full listen queue (EAGAIN on a Unix socket) is waited out, so
# more clients than max_connections get the server's own "too many
# clients" error, as pgbench does, and as many as it allows all connect.

use strict;
use warnings;

use File::Temp qw(tempdir);
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

done_testing();
