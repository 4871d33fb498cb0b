# pgtempo-bench --waits: its own sessions sampled by the waits tool's
# sampler.  Eight clients updating the same pgbench_branches row wait on
# each other's transactions: the report must name Lock/transactionid,
# the JSON "waits" list must be sorted by share and sum to 100 %, -P
# lines must end with the interval's top wait, as must the JSON's progress
# entries, -C's new connections must be followed (the sessions counted are
# the distinct backends sampled); a bad interval is a usage error, and without --waits no
# output changes.

use strict;
use warnings;

use File::Temp qw(tempdir);
use JSON::PP;
use List::Util qw(sum);
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $node = new_cluster('bench_waits', conf => "max_connections = 50\n");
my $db = $node->connstr('postgres');
my $dir = tempdir(CLEANUP => 1);

my ($code, $out, $err) = run_tool([ $ours, '-i', '-q', '-s', 1, $db ]);
is($code, 0, 'initialized');

# The same row for everyone: each UPDATE waits for the transaction holding it.
my $hot = write_file("$dir/hot.sql",
	"BEGIN;\nUPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;\n"
	  . "SELECT pg_sleep(0.002);\nEND;\n");

# The section's rows: [type, event, samples, pct].
sub wait_rows
{
	my ($text) = @_;
	my @rows;
	my $in = 0;
	for my $l (split /\n/, $text)
	{
		if ($l =~ /^wait events \(sampled every [\d.]+ ms, \d+ samples of \d+ sessions\):$/)
		{
			$in = 1;
			next;
		}
		next unless $in;
		next if $l =~ /^  wait_event_type\s+wait_event\s+samples\s+%$/;
		last unless $l =~ /^  (\S+)\s+(\S+)\s+(\d+)\s+([\d.]+)$/;
		push @rows, [ $1, $2, $3, $4 ];
	}
	return ($in, @rows);
}

# ---------------------------------------------------------------- the contended UPDATE

{
	($code, $out, $err) = run_tool(
		[ $ours, '-n', '-f', $hot, '-c', 8, '-j', 2, '-T', 3, '-P', 1, '--waits',
		  "--json=$dir/hot.json", $db ]);
	is($code, 0, 'contended run: exit 0');
	my ($in, @rows) = wait_rows($out);
	ok($in, 'the report has a wait events section');
	like($out, qr/^wait events \(sampled every 10 ms, \d+ samples of 8 sessions\):$/m,
		'the default interval and the sessions');
	ok(@rows >= 1 && @rows <= 10, 'at most ten events listed');
	ok((grep { $_->[0] eq 'Lock' && $_->[1] eq 'transactionid' } @rows),
		'Lock/transactionid is named')
	  or diag($out);
	like($out, qr/^tps = .*\nwait events/m, 'the section follows the summary');
	my @p = grep { /^progress: / } split /\n/, $err;
	ok(@p >= 2, 'progress lines');
	ok(!(grep { !/, top wait \S+ \d+%$/ } @p), 'each progress line ends with a top wait')
	  or diag($err);
	ok((grep { m{, top wait Lock/transactionid \d+%$} } @p), 'a top wait is Lock/transactionid');

	my $j = eval { JSON::PP->new->decode(slurp_text("$dir/hot.json")) } || {};
	my $w = $j->{waits};
	ok(ref $w eq 'ARRAY' && @$w >= 1, 'JSON has a waits list') or diag(explain($j));
	$w = [] unless ref $w eq 'ARRAY';
	my @pct = map { $_->{pct} } @$w;
	is_deeply(\@pct, [ sort { $b <=> $a } @pct ], 'JSON waits sorted by share');
	my $total = sum(0, @pct);
	ok(abs($total - 100) < 0.5, "JSON shares sum to 100 % ($total)");
	ok((grep { $_->{wait_event_type} eq 'Lock' && ($_->{wait_event} // '') eq 'transactionid' } @$w),
		'JSON names Lock/transactionid');
	ok(!(grep { !defined $_->{samples} || $_->{samples} !~ /^\d+$/ } @$w), 'JSON samples are counts');

	# each JSON progress entry has the interval's top wait, the same as its -P line
	my $prog = ref $j->{progress} eq 'ARRAY' ? $j->{progress} : [];
	is(scalar @$prog, scalar @p, 'JSON progress: one entry per -P line');
	ok(@$prog && !(grep { !exists $_->{top_wait} } @$prog), 'JSON progress entries have top_wait')
	  or diag(explain($prog));
	my @text = map {
		my $t = $_->{top_wait};
		ref $t eq 'HASH'
		  ? sprintf(', top wait %s%s %.0f%%', $t->{wait_event_type},
			defined $t->{wait_event} ? "/$t->{wait_event}" : '', $t->{pct})
		  : '';
	} @$prog;
	my @lines = map { /(, top wait .*)$/ ? $1 : '' } @p;
	is_deeply(\@text, \@lines, 'JSON progress top_wait matches the -P lines');
	ok((grep { ref $_->{top_wait} eq 'HASH' && $_->{top_wait}{wait_event_type} eq 'Lock'
			&& ($_->{top_wait}{wait_event} // '') eq 'transactionid' } @$prog),
		'JSON progress: a top wait is Lock/transactionid');
}

# ---------------------------------------------------------------- -C: the new backends are followed

{
	($code, $out, $err) = run_tool(
		[ $ours, '-n', '-f', $hot, '-c', 4, '-T', 2, '-C', '--waits=5ms', $db ]);
	is($code, 0, '-C run: exit 0');
	my ($in, @rows) = wait_rows($out);
	like($out, qr/^wait events \(sampled every 5 ms, \d+ samples of \d+ sessions\):$/m,
		'-C: the section');
	# each -C connection is a backend of its own: more sessions than clients
	my ($sessions) = $out =~ /samples of (\d+) sessions\):$/m;
	cmp_ok($sessions // 0, '>', 4, '-C: the sessions are the distinct backends sampled');
	ok(sum(0, map { $_->[2] } @rows) > 0, '-C: the new connections were sampled') or diag($out);
}

# ---------------------------------------------------------------- usage errors; without --waits

{
	($code, $out, $err) = run_tool([ $ours, '-n', '-t', 1, '--waits=bad', $db ]);
	is($code, 1, '--waits=bad: exit 1');
	like($err, qr/^pgtempo-bench: error: .*bad/m, '--waits=bad: the error names the value');
	($code, $out, $err) = run_tool([ $ours, '-n', '-t', 1, '--waits=2h', $db ]);
	is($code, 1, '--waits out of range: exit 1');
	like($err, qr/^pgtempo-bench: error: --waits must be between 10 us and 1 min$/m,
		'--waits out of range: the range');

	($code, $out, $err) = run_tool(
		[ $ours, '-n', '-f', $hot, '-c', 2, '-t', 20, '-P', 1, "--json=$dir/plain.json", $db ]);
	is($code, 0, 'without --waits: exit 0');
	unlike($out, qr/wait events/, 'without --waits: no wait section');
	unlike($err, qr/top wait/, 'without --waits: no top wait');
	unlike(slurp_text("$dir/plain.json") // '', qr/"waits"|"top_wait"/, 'without --waits: no JSON waits');
}

done_testing();
