# pg_test_timing: a clock that goes backwards, fed into the real measuring
# loop through the PGTEMPO_FAKE_CLOCK test seam.

use strict;
use warnings;

use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pg_test_timing');

# readings in ns: +100, +100, then 50 ns back
my ($rc, $out, $err) =
  run_tool([ $bin, '-d', '1' ], env => { PGTEMPO_FAKE_CLOCK => '1000,1100,1200,1150,5000' });
is($rc, 1, 'backwards: exit 1');
is($err, "Detected clock going backwards in time.\nTime warp: 50 ns\n",
	'backwards: PostgreSQL\'s message and the warp in ns');
like($out, qr/\ATesting timing overhead for 1 second\.\nPer loop time including overhead: 100\.00 ns\n/,
	'backwards: what was measured before is still reported');
like($out, qr/^     1    100\.00000          2$/m, 'backwards: the two good reads are counted');

# with every clock asked for, nothing runs after the failing pass
($rc, $out, $err) = run_tool([ $bin, '-d', '1', '--clock=all' ],
	env => { PGTEMPO_FAKE_CLOCK => '10,5' });
is($rc, 1, 'backwards, all clocks: exit 1');
like($err, qr/^Time warp: 5 ns$/m, 'backwards, all clocks: warp');
unlike($out, qr/^Clock rdtsc/m, 'backwards, all clocks: later passes do not run');

# JSON says the same
($rc, $out, $err) = run_tool([ $bin, '-d', '1', '--json' ],
	env => { PGTEMPO_FAKE_CLOCK => '0,7,3' });
is($rc, 1, 'backwards, JSON: exit 1');
my $doc = decode_json($out);
is($doc->{verdict}, 'backwards', 'JSON: verdict');
is($doc->{exit_status}, 1, 'JSON: exit_status');
is($doc->{passes}[0]{outcome}, 'backwards', 'JSON: pass outcome');
is($doc->{passes}[0]{time_warp_ns}, 4, 'JSON: time_warp_ns');
is($doc->{passes}[0]{loops}, 1, 'JSON: loops before the warp');

# Equal readings are not a warp; the pass ends normally.
($rc, $out, $err) = run_tool([ $bin, '-d', '1', '--histogram=ns' ],
	env => { PGTEMPO_FAKE_CLOCK => '0,0,10,10,20' });
is($rc, 0, 'equal readings: exit 0');
is($err, '', 'equal readings: no message');
like($out, qr/^       0      40\.0000    40\.0000          2$/m, 'equal readings: two zero durations');
like($out, qr/^      10      40\.0000    80\.0000          2$/m, 'equal readings: two of 10 ns');

# A bad seam value is an error, not a silent real run.
($rc, $out, $err) = run_tool([ $bin ], env => { PGTEMPO_FAKE_CLOCK => '1,two' });
is($rc, 1, 'bad PGTEMPO_FAKE_CLOCK: exit 1');
is($err,
	qq{pg_test_timing: error: invalid value "1,two" for environment variable PGTEMPO_FAKE_CLOCK\n},
	'bad PGTEMPO_FAKE_CLOCK: message');

done_testing();
