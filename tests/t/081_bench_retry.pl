# Serialization and deadlock failures against a real server: retried with
# --max-tries (the random state restored), counted as failures without it.

use strict;
use warnings;

use File::Temp qw(tempdir);
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $node = new_cluster('bench_retry', conf => "deadlock_timeout = '20ms'\n");
my $db = $node->connstr('postgres');
my $dir = tempdir(CLEANUP => 1);

$node->safe_psql('postgres',
	'create table c (id int primary key, v int); insert into c values (1, 0), (2, 0)');

sub write_script { return write_file("$dir/$_[0]", $_[1]); }

# Every client reads, waits, and updates the same row under REPEATABLE READ.
my $ser = write_script('ser.sql', <<'EOS');
\set r random(1, 1000000)
begin isolation level repeatable read;
select v from c where id = 1;
\sleep 5 ms
update c set v = v + 1 where id = 1;
end;
EOS

my ($rc, $out, $err) = run_tool([ $ours, '-n', '-c', '4', '-t', '10', '--max-tries=1000',
		'--failures-detailed', '-r', '-f', $ser, $db ]);
is($rc, 0, 'serialization, retried: exit 0');
like($out, qr/^number of transactions actually processed: 40\/40$/m, 'serialization, retried: all 40 done');
like($out, qr/^number of failed transactions: 0 \(0\.000%\)$/m, 'serialization, retried: none failed');
my ($retried) = $out =~ /^number of transactions retried: (\d+)/m;
cmp_ok($retried, '>', 0, 'serialization, retried: some transactions were retried');
my ($retries) = $out =~ /^total number of retries: (\d+)$/m;
cmp_ok($retries, '>=', $retried, 'retries >= retried');
like($out, qr/^ +[0-9.]+ +0 +[1-9]\d* +update c set v = v \+ 1 where id = 1;$/m,
	'-r: the retries are counted on the failing command');
is($node->safe_psql('postgres', 'select v from c where id = 1'), '40',
	'every transaction committed exactly once');

($rc, $out, $err) = run_tool([ $ours, '-n', '-c', '4', '-t', '10', '--failures-detailed',
		'--verbose-errors', '-f', $ser, $db ]);
is($rc, 0, 'serialization, not retried: exit 0 (a failure is not an abort)');
my ($sf) = $out =~ /^number of serialization failures: (\d+) /m;
cmp_ok($sf, '>', 0, 'serialization, not retried: failures counted');
my ($done) = $out =~ /^number of transactions actually processed: (\d+)\/40$/m;
is($done + $sf, 40, 'processed + failed = all transactions');
like($err, qr/client \d got an error in command 4 \(SQL\) of script 0; ERROR:  could not serialize access/,
	'--verbose-errors: the error');
like($err, qr/client \d ends the failed transaction \(try 1\/1\)/, '--verbose-errors: the end');
unlike($out, qr/number of transactions retried/, 'max-tries 1: no retry lines');

# Two clients take two rows in opposite orders.
my $dl = write_script('dl.sql', <<'EOS');
begin;
\if :client_id = 0
update c set v = v + 1 where id = 1;
\sleep 50 ms
update c set v = v + 1 where id = 2;
\else
update c set v = v + 1 where id = 2;
\sleep 50 ms
update c set v = v + 1 where id = 1;
\endif
end;
EOS
($rc, $out) = run_tool([ $ours, '-n', '-c', '2', '-t', '3', '--max-tries=50',
		'--failures-detailed', '-f', $dl, $db ]);
is($rc, 0, 'deadlock, retried: exit 0');
like($out, qr/^number of transactions actually processed: 6\/6$/m, 'deadlock, retried: all done');
like($out, qr/^number of deadlock failures: 0 /m, 'deadlock, retried: no failure left');
($retries) = $out =~ /^total number of retries: (\d+)$/m;
cmp_ok($retries, '>', 0, 'deadlock, retried: retries happened');

($rc, $out) = run_tool([ $ours, '-n', '-c', '2', '-t', '3', '--failures-detailed', '-f', $dl, $db ]);
is($rc, 0, 'deadlock, not retried: exit 0');
my ($df) = $out =~ /^number of deadlock failures: (\d+) /m;
cmp_ok($df, '>', 0, 'deadlock, not retried: counted as deadlock failures');

# A retry replays the same random numbers: the value drawn is logged by the
# server on each try, and a retried transaction must draw what its first
# try drew.
my $rs = write_script('rs.sql', <<'EOS');
\set r random(1, 1000000000)
begin isolation level repeatable read;
select :r as r, v from c where id = 1;
\sleep 5 ms
update c set v = v + 1 where id = 1;
insert into draws values (:client_id, :r);
end;
EOS
$node->safe_psql('postgres', 'create table draws (client int, r bigint)');
($rc, $out) = run_tool([ $ours, '-n', '-c', '3', '-t', '5', '--max-tries=1000',
		'--random-seed=7', '-f', $rs, $db ]);
is($rc, 0, 'replay: exit 0');
my $ours_draws = $node->safe_psql('postgres', 'select string_agg(r::text, \',\' order by client, r) from draws');
$node->safe_psql('postgres', 'truncate draws');
($rc, $out) = run_tool([ $ours, '-n', '-c', '3', '-t', '5', '--random-seed=7', '-f',
		write_script('rs1.sql', "\\set r random(1, 1000000000)\ninsert into draws values (:client_id, :r);\n"), $db ]);
my $plain = $node->safe_psql('postgres', 'select string_agg(r::text, \',\' order by client, r) from draws');
is($ours_draws, $plain, 'a retried transaction draws the same numbers as its first try');

# --max-tries=0 needs -T (no -L yet)
($rc, undef, $err) = run_tool([ $ours, '-n', '--max-tries=0', '-t', '1', '-f', $ser, $db ]);
is($rc, 1, '--max-tries=0 without -T: exit 1');
like($err, qr/an unlimited number of transaction tries can only be used with --latency-limit or a duration/,
	'--max-tries=0 without -T: message');

done_testing();
