# The first SIGINT or SIGTERM ends the run after the transactions in
# flight and prints the report; the exit status is 128 + the signal.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
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

done_testing();
