# pg_test_timing --cross-cpu: every ordered pair of CPUs is checked, the
# totals add up, and a single CPU is reported rather than failed.
#
# Whether this machine's clock goes backwards across CPUs is the machine's
# business, not the tool's (a KVM guest's system clock was seen to step
# back by 3 ns in 0.2 % of the checks): either outcome is accepted, but the
# exit status, the rows, the summary line and the JSON must agree with
# each other.

use strict;
use warnings;

use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pg_test_timing');
my $ncpu = allowed_cpus();

my ($rc, $out, $err) = run_tool([ $bin, '-d', '1', '--cross-cpu' ]);
like($out, qr/^Cross-CPU check, clock system:$/m, 'section header');
if ($ncpu >= 2)
{
	my @pairs = $out =~ /^  cpu(\d+) -> cpu(\d+) +(\d+) +(\d+) +(\d+) +(\d+|-)$/mg;
	is(scalar(@pairs) / 6, $ncpu * ($ncpu - 1), 'one row per ordered pair of CPUs');
	my ($checks, $back, $max) = (0, 0, 0);
	for (my $i = 0; $i < @pairs; $i += 6)
	{
		$checks += $pairs[ $i + 2 ];
		$back += $pairs[ $i + 3 ];
		$max = $pairs[ $i + 4 ] if $pairs[ $i + 4 ] > $max;
		is($pairs[ $i + 4 ] > 0, $pairs[ $i + 3 ] > 0,
			"cpu$pairs[$i] -> cpu$pairs[$i+1]: a maximum step back only with steps back");
	}
	# the threads compare readings only when both run at once: on a loaded
	# machine they may never have, which the report says rather than hides
	if ($checks == 0)
	{
		is($rc, 0, 'never alternated: exit 0');
		like($out, qr/^  No cross-CPU reads were made: the threads never alternated\.$/m,
			'never alternated: said so');
	}
	elsif ($back == 0)
	{
		is($rc, 0, 'nothing backwards: exit 0');
		like($out, qr/^  No clock went backwards across CPUs in $checks checks\.$/m,
			'nothing backwards: the total is the sum of the pairs');
	}
	else
	{
		note("this machine's clock went backwards across CPUs: $back of $checks checks, up to $max ns");
		is($rc, 1, 'backwards: exit 1');
		like($out,
			qr/^  Detected clock going backwards across CPUs: $back of $checks checks, by up to $max ns\.$/m,
			'backwards: the summary adds up the pairs');
	}
}
else
{
	is($rc, 0, 'one CPU: exit 0');
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
	my $any = grep { $_->{backwards} } @{ $doc->{cross_cpu} };
	is($doc->{verdict}, $any ? 'backwards_across_cpus' : 'ok',
		'the verdict agrees with the backwards steps found');
	is($rc, $any ? 1 : 0, 'the exit status agrees with the verdict');
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
