# pgtempo-bench against the system's pgbench: the same seeded scripts must
# draw the same numbers (every function of the expression language, \if
# chains, weighted script choice, -D variables, run-time errors), and the
# built-in scripts must send the same SQL.  pgbench runs against a
# throwaway cluster; pgtempo-bench evaluates the same scripts with
# --dry-run.

use strict;
use warnings;

use File::Temp qw(tempdir);
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $ref = pg_reference('pgbench');
plan skip_all => 'the system pgbench is not installed: no reference to compare with'
  unless $ref;

my $node = new_cluster('bench_diff', conf => "log_statement = 'all'\n");
my $dir = tempdir(CLEANUP => 1);

# The lines both programs print for a script's logic: debug() output and
# error messages, with the program name taken out.
sub logic_lines
{
	my ($stderr) = @_;
	my @l;
	for (split /\n/, $stderr)
	{
		s/^(pgbench|pgtempo-bench): (error|detail|hint): /PROG: $2: /;
		push @l, $_ if /^debug\(/ || /^PROG: /;
	}
	return join("\n", @l) . "\n";
}

sub write_script { return write_file("$dir/$_[0]", $_[1]); }

# Run both with the same options; compare what the script logic printed.
sub compare
{
	my ($label, $opts, %o) = @_;
	my ($rr, $rout, $rerr) = run_tool([ $ref, '-n', @$opts, $node->connstr('postgres') ],
		env => $o{env});
	my ($or, $oout, $oerr) = run_tool([ $ours, '--dry-run', @$opts ], env => $o{env});
	my $want = logic_lines($rerr);
	my $got  = logic_lines($oerr);
	cmp_ok(length($want), '>', 1, "$label: pgbench printed something to compare")
	  unless $o{allow_empty};
	is($got, $want, "$label: same output as pgbench");
	is($or, $rr, "$label: same exit status ($rr)");
	return;
}

# ---------------------------------------------------------------- every function

my $functions = write_script('functions.sql', <<'EOS');
\set r debug(random(1, 1000000))
\set e debug(random_exponential(1, 1000, 2.5))
\set e2 debug(random_exponential(-50, 50, 0.3))
\set g debug(random_gaussian(-500, 500, 3.0))
\set g2 debug(random_gaussian(1, 10, 2.0))
\set z debug(random_zipfian(1, 10000, 1.07))
\set z2 debug(random_zipfian(1, 100, 2.5))
\set z3 debug(random_zipfian(5, 5, 1.5))
\set big debug(random(-4611686018427387904, 4611686018427387902))
\set one debug(random(7, 7))
\set h1 debug(hash(:r))
\set h2 debug(hash_fnv1a(:r, :e))
\set h3 debug(hash_murmur2(:r, 12345))
\set h4 debug(hash(-:big))
\set p1 debug(permute(:r, 1000000))
\set p2 debug(permute(:g, 1001, :z))
\set p3 debug(permute(:big, 9223372036854775807))
\set p4 debug(permute(0, 1))
\set d debug(sqrt(:r) + ln(:e) * exp(0.5) - pow(2, 0.5) + power(:z, 0.25) + abs(-:g))
\set m debug(mod(:r, 7) + :r % 13 + (:r / 3) * 2 - mod(-:r, 5))
\set b debug((:r & 255) | (1 # 3) + ~:r)
\set s debug((:r << 3) >> 2)
\set c debug(CASE WHEN :r > 500000 THEN 1 WHEN :r > 1000 THEN 2.5 ELSE NULL END)
\set l debug(greatest(:r, :e, 5) + least(:g, 0.5, :z))
\set i debug(int(:d) + double(:r) / 3)
\set n debug(:r IS NULL OR NOT (:r < 10) AND :g <> 3)
\set t debug(:c IS NOT NULL AND :r != 5 OR :g >= 0)
\set k debug(:client_id + :scale * 10)
\set ds debug(:default_seed)
\set rs debug(:random_seed)
\set pi debug(pi() * :r)
\set f debug(1.0 / 3 + 1e-3 - 2.5e10 + :r * 0.001)
EOS

for my $seed (0 .. 9, 42, 987654321, '9223372036854775813', '18446744073709551615')
{
	compare("functions, seed $seed", [ '-t', '15', '--random-seed', $seed, '-f', $functions ]);
}
compare('functions, 3 clients', [ '-t', '8', '-c', '3', '--random-seed', '5', '-f', $functions ]);
compare('functions, PGBENCH_RANDOM_SEED', [ '-t', '5', '-f', $functions ],
	env => { PGBENCH_RANDOM_SEED => '77' });

# ---------------------------------------------------------------- \if chains

my $ifs = write_script('if.sql', <<'EOS');
\set r random(1, 100)
\if :r < 20
\set a debug(1)
\elif :r < 50
\set a debug(2)
\if :r % 2 = 0
\set b debug(21)
\else
\set b debug(22)
\endif
\elif :r < 70
\set a debug(3)
\else
\set a debug(4)
\endif
\if NULL
\set x debug(5)
\elif 0.0
\set x debug(6)
\elif :r
\set x debug(7)
\endif
\set y debug(:r)
EOS
compare('if chains', [ '-t', '40', '--random-seed', '11', '-f', $ifs ]);

# ---------------------------------------------------------------- weighted scripts

my @w = map { write_script("w$_.sql", "\\set v debug(random(1, 10) * $_)\n") } 1 .. 3;
compare('weights', [ '-t', '40', '--random-seed', '3', '-c', '2', '-f', "$w[0]\@1",
		'-f', "$w[1]\@3", '-f', "$w[2]\@0" ]);

# ---------------------------------------------------------------- -D variables

my $defs = write_script('defs.sql', <<'EOS');
\set a debug(:x + :y)
\set b debug(:t AND NOT :f)
\set c debug(:n IS NULL)
\set d debug(:x * 2)
\set e debug(hash(5))
\set g debug(random(1, 1000))
EOS
compare('-D variables', [ '-t', '3', '--random-seed', '9', '-D', 'x=12', '-D', 'y=3.5',
		'-D', 't=true', '-D', 'f=off', '-D', 'n=null', '-f', $defs ]);
compare('-D default_seed', [ '-t', '3', '--random-seed', '9', '-D', 'x=1', '-D', 'y=2',
		'-D', 't=yes', '-D', 'f=no', '-D', 'n=NULL', '-D', 'default_seed=5', '-f', $defs ]);

# ---------------------------------------------------------------- shell commands

my $shell = write_script('shell.sql', <<'EOS');
\set r random(1, 1000)
\setshell v echo :r
\set a debug(:v * 2)
\shell true ::not_a_variable
\setshell w printf 17
\set b debug(:w + :v)
EOS
compare('shell', [ '-t', '3', '--random-seed', '2', '-f', $shell ]);

# ---------------------------------------------------------------- run-time errors

my %errors = (
	'division by zero' => '\set x debug(5 / 0)',
	'bigint overflow'  => '\set x debug(9223372036854775807 + 1)',
	'undefined var'    => '\set x debug(:nosuch + 1)',
	'bad coercion'     => '\set x debug(int(1e30))',
	'empty range'      => '\set x debug(random(5, 1))',
	'range too large'  => '\set x debug(random(-9223372036854775808, 9223372036854775807))',
	'gaussian param'   => '\set x debug(random_gaussian(1, 10, 1.5))',
	'zipfian param'    => '\set x debug(random_zipfian(1, 10, 1.0))',
	'exponential param' => '\set x debug(random_exponential(1, 10, 0))',
	'permute size'     => '\set x debug(permute(1, 0))',
	'setshell not int' => '\setshell x echo abc',
	'shell fails'      => '\shell false',
	'sleep variable'   => '\sleep :nosuch ms',
	'malformed var'    => '\set x debug(:s + 1)',);
for my $name (sort keys %errors)
{
	my $f = write_script("err.sql", "\\set ok debug(1)\n$errors{$name}\n\\set after debug(2)\n");
	compare("error: $name", [ '-t', '2', '-D', 's=abc', '-f', $f ]);
}

# ---------------------------------------------------------------- load-time errors

# The whole of stderr must match: message, the offending line, the caret.
my @load_errors = (
	'\\set x 1 +', '\\set x foo(1)', '\\set x random(1)', '\\set x (1', '\\set x 1 2',
	'\\set x', '\\set 1x 5', "\\set x 1 +  \\\n  * 3", '\\set x CASE WHEN 1 THEN 2',
	'\\sleep', '\\sleep 1 parsec', '\\sleep 1e3 us', '\\nosuchcommand',
	'\\if 1', '\\else', '\\elif 1', '\\endif', "\\if 1\n\\else\n\\else\n\\endif",
	"\\if 1\n\\else\n\\elif 0\n\\endif", '\\gset', "select 1;\n\\gset a b",
	'\\setshell', '\\setshell x', '\\shell', '\\set x greatest()',
	'\\set x permute(1)', '\\set x hash(1, 2, 3)', '\\set x 99999999999999999999',
	'\\set x :', '\\set x 1.2.3', "\\startpipeline\nselect 1;",
	"\\endpipeline", "\\startpipeline\n\\startpipeline\n\\endpipeline",
	[ '-M', 'extended', "\\startpipeline\n\\startpipeline\n\\endpipeline" ],
	[ '-M', 'extended', "\\startpipeline\n\\set x 1\n" ],
	"\\set x 1\n\\SET y 2 *");
my $n = 0;
for my $case (@load_errors)
{
	my @mode = ref $case ? @$case[ 0 .. 1 ] : ();
	my $text = ref $case ? $case->[2] : $case;
	$n++;
	my $f = write_script("load$n.sql", "$text\n");
	my ($rr, undef, $rerr) =
	  run_tool([ $ref, '-n', @mode, '-t', '1', '-f', $f, $node->connstr('postgres') ]);
	my ($or, undef, $oerr) = run_tool([ $ours, '--dry-run', @mode, '-t', '1', '-f', $f ]);
	my $norm = sub {
		my $t = shift;
		$t =~ s/^(pgbench|pgtempo-bench): /PROG: /mg;
		$t =~ s/^PROG: setting random seed.*\n//mg;
		$t =~ s/^pgbench \(\d.*\n//mg;
		# a script that loads runs; only the load error lines are compared
		return join '', grep { !/^(transaction type|scaling|query mode|number|maximum|latency|initial|tps|debug)/ } split /^/m, $t;
	};
	(my $shown = $text) =~ s/\n/ | /g;
	is($norm->($oerr), $norm->($rerr), "load error $n ($shown): same messages as pgbench");
	is($or, $rr, "load error $n: same exit status ($rr)");
}

# ---------------------------------------------------------------- :variables as parameters

# With -M extended or prepared, every :variable in a SQL command is a
# parameter of its own ($1, $2, ... in order), even a name used twice:
# the server infers each one's type from its own place, so :a = 1 and
# :a = 'x' work together, and the same text reaches the server.
{
	my $twice = write_script('twice.sql', "\\set a 1\nSELECT :a = 1 AS x, :a = 'x' AS y;\n");
	for my $mode ('extended', 'prepared')
	{
		my %sent;
		for my $tool ([ pgbench => $ref ], [ ours => $ours ])
		{
			my $logstart = -s $node->logfile;
			my ($rc, undef, $err) = run_tool([ $tool->[1], '-n', '-t', '1', '-M', $mode,
					'-f', $twice, $node->connstr('postgres') ]);
			is($rc, 0, "a variable used twice, -M $mode: $tool->[0] ran it");
			is($err, '', "a variable used twice, -M $mode: $tool->[0] printed no error");
			open my $lf, '<', $node->logfile or die;
			seek $lf, $logstart, 0;
			$sent{ $tool->[0] } = join "\n", map { /LOG:  execute [^:]*: (.*)$/ ? $1 : () } <$lf>;
			close $lf;
		}
		like($sent{pgbench}, qr/\$1 = 1 AS x, \$2 = 'x'/, "-M $mode: pgbench sent \$1 and \$2");
		is($sent{ours}, $sent{pgbench}, "-M $mode: the same statement as pgbench");
	}

	# And so 256 uses of one variable are too many, as for pgbench.
	my $many = write_script('many.sql', 'SELECT ' . join(' + ', (':a') x 256) . ";\n");
	my ($rr, undef, $rerr) =
	  run_tool([ $ref, '-n', '-t', '1', '-M', 'prepared', '-Da=1', '-f', $many, $node->connstr('postgres') ]);
	my ($or, $oout, $oerr) =
	  run_tool([ $ours, '-n', '-t', '1', '-M', 'prepared', '-Da=1', '-f', $many, $node->connstr('postgres') ]);
	is($or, $rr, "256 uses of one variable: same exit status as pgbench ($rr)");
	is($oout, '', '256 uses of one variable: no report');
	s/^(pgbench|pgtempo-bench): /PROG: / for $rerr, $oerr;
	is($oerr, $rerr, '256 uses of one variable: the same message as pgbench');
}

# ---------------------------------------------------------------- the built-in scripts' SQL

# pgbench sends its statements to the server, which logs them; the dry run
# prints them.  The same seed must give the same statements.
{
	my ($rc) = run_tool([ $ref, '-i', '-s', '1', '-q', $node->connstr('postgres') ]);
	is($rc, 0, 'pgbench -i for the built-in scripts');
	for my $b ([ 'tpcb-like', [] ], [ 'simple-update', ['-N'] ], [ 'select-only', ['-S'] ])
	{
		my ($name, $flag) = @$b;
		my $logstart = -s $node->logfile;
		($rc) = run_tool([ $ref, '-n', '-t', '4', '--random-seed', '123', '-b', $name,
				$node->connstr('postgres') ]);
		is($rc, 0, "$name: pgbench ran");
		open my $lf, '<', $node->logfile or die;
		seek $lf, $logstart, 0;
		my @sent;
		while (<$lf>)
		{
			next unless /LOG:  statement: (.*)$/;
			my $s = $1;
			next unless $s =~ /^(BEGIN|END|UPDATE|SELECT abalance|INSERT INTO pgbench_history)/;
			$s =~ s/;\s*$//;
			push @sent, $s;
		}
		close $lf;
		my ($or, $oout) = run_tool([ $ours, '--dry-run', '-t', '4', '--random-seed', '123',
				'-s', '1', @$flag ? @$flag : ('-b', $name) ]);
		is($or, 0, "$name: dry run");
		my @printed = map { s/;\s*$//r } grep { !/^--/ && /\S/ } split /\n/, $oout;
		cmp_ok(scalar @sent, '>', 3, "$name: pgbench's statements found in the server log");
		is(join("\n", @printed), join("\n", @sent), "$name: the same SQL as pgbench sent");
	}
}

done_testing();
