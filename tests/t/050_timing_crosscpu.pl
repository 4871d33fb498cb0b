# pg_test_timing --cross-cpu: every ordered pair of CPUs is checked, the
# totals add up, and a single CPU is reported rather than failed.

use strict;
use warnings;

use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pg_test_timing');
my $ncpu = allowed_cpus();

my ($rc, $out, $err) = run_tool([ $bin, '-d', '1', '--cross-cpu' ]);
is($rc, 0, 'exit 0: no clock went backwards across CPUs on this machine');
like($out, qr/^Cross-CPU check, clock system:$/m, 'section header');
if ($ncpu >= 2)
{
	my @pairs = $out =~ /^  cpu(\d+) -> cpu(\d+) +(\d+) +(\d+) +(\d+) +(\d+|-)$/mg;
	is(scalar(@pairs) / 6, $ncpu * ($ncpu - 1), 'one row per ordered pair of CPUs');
	my $checks = 0;
	for (my $i = 0; $i < @pairs; $i += 6)
	{
		$checks += $pairs[ $i + 2 ];
		is($pairs[ $i + 3 ], 0, "cpu$pairs[$i] -> cpu$pairs[$i+1]: nothing backwards");
	}
	like($out, qr/^  No clock went backwards across CPUs in $checks checks\.$/m,
		'the total is the sum of the pairs');
	cmp_ok($checks, '>', 0, 'the threads did alternate');
}

# JSON
($rc, $out) = run_tool([ $bin, '-d', '1', '--cross-cpu', '--json', '--clock=system,rdtscp' ]);
my $doc = decode_json($out);
ok(ref $doc->{cross_cpu} eq 'ARRAY', 'cross_cpu is an array');
my ($sys) = grep { $_->{clock} eq 'system' } @{ $doc->{cross_cpu} };
ok($sys, 'a system-clock entry');
if ($ncpu >= 2)
{
	ok($sys->{ran}, 'it ran');
	is($sys->{cpus}, $ncpu, 'on every allowed CPU');
	my $sum = 0;
	$sum += $_->{checks} for @{ $sys->{pairs} };
	is($sum, $sys->{checks}, 'pair checks add up');
	is($sys->{backwards}, 0, 'no backwards steps');
	is($doc->{verdict}, 'ok', 'verdict ok');
}

# Confined to one CPU there is nothing to compare: said, not failed.
SKIP:
{
	my $taskset = (grep { -x "$_/taskset" } split /:/, $ENV{PATH})[0];
	skip 'taskset (util-linux) is not installed', 3 unless $taskset;
	my ($first) = first_cpu();
	($rc, $out) = run_tool([ "$taskset/taskset", '-c', $first, $bin, '-d', '1', '--cross-cpu' ]);
	is($rc, 0, 'one CPU: exit 0');
	like($out, qr/^  not run: only 1 CPU is available to this process: there is nothing to compare$/m,
		'one CPU: says why it did not run');
	unlike($out, qr/cpu\d+ -> cpu/, 'one CPU: no pair rows');
}

sub allowed_cpus
{
	open my $fh, '<', '/proc/self/status' or return 1;
	while (<$fh>)
	{
		return scalar(expand($1)) if /^Cpus_allowed_list:\s*(\S+)/;
	}
	return 1;
}

sub first_cpu
{
	open my $fh, '<', '/proc/self/status' or return 0;
	while (<$fh>)
	{
		return (expand($1))[0] if /^Cpus_allowed_list:\s*(\S+)/;
	}
	return 0;
}

sub expand
{
	my @cpus;
	for my $r (split /,/, shift)
	{
		my ($a, $b) = split /-/, $r;
		push @cpus, $a .. (defined $b ? $b : $a);
	}
	return @cpus;
}

done_testing();
