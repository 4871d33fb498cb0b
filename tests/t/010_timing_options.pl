# pg_test_timing: command-line options, help, version and every usage error.

use strict;
use warnings;

use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pg_test_timing');
# The same hint form as pgtempo-bench and pgtempo-waits (msg_try_help()).
my $try = qq{pg_test_timing: hint: Try "pg_test_timing --help" for more information.\n};

# ---------------------------------------------------------------- help and version

for my $opt ('--help', '-?')
{
	my ($rc, $out, $err) = run_tool([ $bin, $opt ]);
	is($rc,  0,  "$opt: exit 0");
	is($err, '', "$opt: nothing on stderr");
	like($out, qr/^Usage:\n  pg_test_timing \[OPTION\]\.\.\.$/m, "$opt: usage line");
	for my $o (qw(--duration=SECONDS --cutoff=PERCENT --histogram=UNIT --clock=CLOCK
		--cross-cpu --json --version --help))
	{
		like($out, qr/\Q$o\E/, "$opt: mentions $o");
	}
	# section 1pgtempo: PostgreSQL's packages own pg_test_timing(1)
	like($out, qr/See 'man 1pgtempo pg_test_timing' for more information\.\n\z/,
		"$opt: ends with the pointer to our man page");
}

for my $opt ('-V', '--version')
{
	my ($rc, $out, $err) = run_tool([ $bin, $opt ]);
	is($rc, 0, "$opt: exit 0");
	like($out, qr/^pg_test_timing \(pgtempo\) \d+\.\d+\.\d+\n\z/, "$opt: version line");
}

# ---------------------------------------------------------------- usage errors

# A bad -d or -c gets our error line naming the value, then pg_test_timing's
# own words (PostgreSQL 15 to 19), which PostgreSQL's tests look for.
sub pg_words
{
	my ($arg, $label, $words) = @_;
	return qq{error: invalid value "$arg" for option $label\npg_test_timing: $words};
}
my @errors = (
	[ [ '-d', '0' ], pg_words('0', '-d/--duration', "--duration must be in range 1..4294967295") ],
	[ [ '-d', 'x' ], pg_words('x', '-d/--duration', "invalid argument for option --duration") ],
	[ [ '-d', '-1' ], pg_words('-1', '-d/--duration', "invalid argument for option --duration") ],
	[ [ '-d', '1.5' ], pg_words('1.5', '-d/--duration', "invalid argument for option --duration") ],
	[ [ '-d', '4294967296' ], pg_words('4294967296', '-d/--duration', "invalid argument for option --duration") ],
	[ [ '--duration=' ], pg_words('', '-d/--duration', "invalid argument for option --duration") ],
	[ [ '-c', '101' ], pg_words('101', '-c/--cutoff', "--cutoff must be in range 0..100") ],
	[ [ '-c', '-0.5' ], pg_words('-0.5', '-c/--cutoff', "--cutoff must be in range 0..100") ],
	[ [ '--cutoff=abc' ], pg_words('abc', '-c/--cutoff', "invalid argument for option --cutoff") ],
	[ [ '--cutoff=nan' ], pg_words('nan', '-c/--cutoff', "invalid argument for option --cutoff") ],
	[ [ '--histogram=ms' ],
		qq{error: invalid value "ms" for option --histogram: must be us or ns} ],
	[ [ '--clock=tsc' ],
		qq{error: invalid value "tsc" for option --clock: must be system, rdtsc, rdtscp, all, or a comma-separated list of them} ],
	[ [ '--clock=system,,' ],
		qq{error: invalid value "system,," for option --clock: must be system, rdtsc, rdtscp, all, or a comma-separated list of them} ],
	[ [ 'extra' ],      qq{error: too many command-line arguments (first is "extra")} ],
	[ [ '-d', '1', 'a', 'b' ], qq{error: too many command-line arguments (first is "a")} ],
	[ [ '-x' ],         "error: invalid option -- 'x'" ],
	[ [ '--bogus' ],    qq{error: unrecognized option "--bogus"} ],
	[ [ '-d' ],         "error: option requires an argument -- 'd'" ],
	[ [ '--clock' ],    qq{error: option "--clock" requires an argument} ],);

for my $case (@errors)
{
	my ($args, $msg) = @$case;
	my ($rc, $out, $err) = run_tool([ $bin, @$args ]);
	is($rc,  1,  "@$args: exit 1");
	is($out, '', "@$args: nothing on stdout");
	is($err, "pg_test_timing: $msg\n$try", "@$args: message");
}

# Valid spellings are accepted (checked by a quick run with the fake clock,
# which ends the pass at once).
for my $args ([ '-d', ' 1 ' ], [ '--duration=1' ], [ '-c', '50' ],
	[ '--cutoff=99.5' ], [ '--histogram=ns' ], [ '--histogram=us' ],
	[ '--clock=system' ])
{
	my ($rc, $out, $err) =
	  run_tool([ $bin, @$args ], env => { PGTEMPO_FAKE_CLOCK => '0,10,20' });
	is($rc, 0, "@$args: accepted");
}

# ---------------------------------------------------------------- against PostgreSQL's

SKIP:
{
	my $ref = pg_reference('pg_test_timing');
	skip 'the system pg_test_timing is not installed', 16 unless $ref;
	# Both refuse the same bad input, and both say so on stderr only.
	for my $args ([ '-d', '0' ], [ '-d', 'x' ], [ 'extra' ], [ '-x' ])
	{
		my ($rr, $rout) = run_tool([ $ref, @$args ]);
		my ($or, $oout) = run_tool([ $bin, @$args ]);
		is($or, $rr, "@$args: same exit status as PostgreSQL's ($rr)");
		is($oout, $rout, "@$args: same (empty) stdout");
	}
	# A bad -d is reported in the same words: PostgreSQL's one line is our
	# second, after our error line.
	for my $args ([ '-d', '0' ], [ '-d', 'x' ], [ '-d', '-1' ],
		[ '--duration', '4294967296' ])
	{
		my (undef, undef, $rerr) = run_tool([ $ref, @$args ]);
		my (undef, undef, $oerr) = run_tool([ $bin, @$args ]);
		my ($rline) = split /\n/, $rerr;
		my (undef, $oline) = split /\n/, $oerr;
		is($oline, $rline, "@$args: the message is PostgreSQL's");
		like($rline, qr/^pg_test_timing: /, "@$args: PostgreSQL's message is what we think");
	}
}

done_testing();
