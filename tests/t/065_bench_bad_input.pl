# pgtempo-bench on bad input: huge and deeply nested expressions, script
# files that are not sane text files, and \sleep, \setshell and
# --random-seed values out of range.  Each is a clear error (exit 1 at load
# time; at run time the client is aborted and the exit status is 2, as in
# pgbench) or the right value, never a crash, a hang or a silent wrap.
# Where pgbench behaves differently the test records how (it crashes, wraps
# or truncates), against a throwaway cluster.

use strict;
use warnings;

use File::Temp qw(tempdir);
use POSIX qw(mkfifo);
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $ref = pg_reference('pgbench');
my $dir = tempdir(CLEANUP => 1);
my $node = $ref ? new_cluster('bench_bad_input') : undef;

sub script { return write_file("$dir/$_[0]", $_[1]); }

# Ours, without a server.
sub ours { return run_tool([ $ours, '--dry-run', '-t', '1', @_ ]); }

# pgbench against the cluster (no initialized tables needed: -n).
sub theirs
{
	return run_tool([ $ref, '-n', '-t', '1', @_, $node->connstr('postgres') ]);
}

my $deep = 'expression is too deeply nested \(at most 1000 levels\) in command "set"';

# ------------------------------------------------------------ expressions

# a chain of 40,000 terms: its value (pgbench overflows its stack evaluating it)
my $sum = script('sum.sql',
	'\set x ' . join(' + ', 1 .. 40000) . "\n" . "\\set y debug(:x)\n");
my ($rc, $out, $err) = ours('-f', $sum);
is($rc, 0, '40,000-term sum: exit 0');
like($err, qr/^debug\(script=0,command=2\): int 800020000$/m, '40,000-term sum: its value');

my $and = script('and.sql',
	'\set x ' . join(' and ', ('true') x 40000) . "\n\\set y debug(:x)\n");
($rc, $out, $err) = ours('-f', $and);
is($rc, 0, '40,000-term AND: exit 0');
like($err, qr/^debug\(script=0,command=2\): boolean true$/m, '40,000-term AND: its value');

my $ovf = script('ovf.sql',
	'\set x ' . join(' + ', ('4611686018427387904') x 40000) . "\n");
($rc, $out, $err) = ours('-f', $ovf);
is($rc, 2, 'overflowing chain: the client is aborted');
like($err, qr/error: bigint add out of range/, 'overflowing chain: the overflow');

if ($ref)
{
	($rc, $out, $err) = theirs('-f', $sum);
	diag("pgbench on the 40,000-term sum: exit $rc");
	ok($rc != 0, 'pgbench does not survive the 40,000-term sum (it crashes)');
}

# genuinely nested: an error at the token where the limit was crossed
my %nested = (
	parens => '(' x 40000 . '1' . ')' x 40000,
	calls  => 'abs(' x 40000 . '1' . ')' x 40000,
	minus  => '- ' x 40000 . '1',
	not    => 'not ' x 40000 . 'true',
	right  => '1 + (' x 40000 . '1' . ')' x 40000,
	case   => 'case when true then ' x 40000 . '1' . ' end' x 40000,
	p1001  => '(' x 1001 . '1' . ')' x 1001,
);
for my $name (sort keys %nested)
{
	my $f = script("$name.sql", "\\set x $nested{$name}\n");
	($rc, $out, $err) = ours('-f', $f);
	is($rc, 1, "nested $name: exit 1");
	like($err, qr/error: \Q$f\E:1: $deep\n/, "nested $name: the limit named");
	like($err, qr/^ +\^ error found here$/m, "nested $name: the place shown");
	if ($ref && $name ne 'p1001')
	{
		my ($prc, $pout, $perr) = theirs('-f', $f);
		is($prc, 1, "nested $name: pgbench fails too");
		like($perr, qr/memory exhausted/, "nested $name: pgbench says memory exhausted");
	}
}

# the caret under the 1001st parenthesis
($rc, $out, $err) = ours('-f', "$dir/p1001.sql");
like($err, qr/^ {1007}\^ error found here$/m, 'the caret under the 1001st "("');

# 1000 levels are fine
my $ok1000 = script('ok1000.sql',
	'\set x ' . 'abs(' x 999 . '-1' . ')' x 999 . "\n\\set y debug(:x)\n");
($rc, $out, $err) = ours('-f', $ok1000);
is($rc, 0, '1000 levels: exit 0');
like($err, qr/int 1$/m, '1000 levels: the value');

# ------------------------------------------------------------ script files

my $bad_file = sub {
	my ($label, $path, $want, %o) = @_;
	my ($frc, $fout, $ferr) =
	  $o{stdin_zero}
	  ? run_tool([ 'sh', '-c', "exec \"\$0\" --dry-run -t 1 -f - < /dev/zero", $ours ])
	  : ours('-f', $path);
	is($frc, 1, "$label: exit 1");
	like($ferr, $want, "$label: message");
};

$bad_file->('/dev/zero', '/dev/zero',
	qr/error: could not read file "\/dev\/zero": it is a device, not a regular file/);
$bad_file->('standard input of zeros', '-',
	qr/error: could not read file "-": it is larger than a script can be \(at most 16 MB\)/,
	stdin_zero => 1);
mkdir "$dir/adir" or die;
$bad_file->('directory', "$dir/adir",
	qr/error: could not read file "\Q$dir\E\/adir": Is a directory/);

my $big = "$dir/big.sql";
open my $fh, '>', $big or die;
truncate $fh, 2 * 1024 * 1024 * 1024 or die "truncate: $!";
close $fh;
$bad_file->('2 GB file', $big,
	qr/error: could not read file "\Q$big\E": it is larger than a script can be \(2147483648 bytes, at most 16 MB\)/);
unlink $big;

# a FIFO without a writer: at once, not a hang (pgbench waits for a writer)
my $fifo = "$dir/fifo";
mkfifo($fifo, 0600) or die "mkfifo: $!";
$bad_file->('FIFO without a writer', $fifo,
	qr/error: empty command list for script "\Q$fifo\E"/);

my $nul = script('nul.sql', "\\set x 1\n\\set y debug(2)\0 + 5\n\\set z debug(3)\n");
$bad_file->('NUL byte', $nul, qr/error: \Q$nul\E:2: script contains a NUL byte/);
if ($ref)
{
	# pgbench runs what comes before the NUL byte, without a word
	my ($prc, $pout, $perr) = theirs('-f', $nul);
	is($prc, 0, 'NUL byte: pgbench runs the truncated script');
	unlike($perr, qr/debug\(script=0,command=3\)/, 'NUL byte: pgbench drops the rest');
}

# ------------------------------------------------------------ \sleep

for my $case (
	[ 'sleep past a C int', "\\sleep 3000000000 s\n" ],
	[ 'negative sleep',     "\\sleep -1\n" ],
	[ 'sleep past bigint',  "\\sleep 99999999999999999999ms\n" ])
{
	my ($label, $text) = @$case;
	my $f = script('sleep.sql', $text);
	($rc, $out, $err) = ours('-f', $f);
	is($rc, 1, "$label: exit 1");
	like($err, qr/error: \Q$f\E:1: sleep time out of range \(0 \.\. 2147483647\) in command "sleep"/,
		"$label: message");
	if ($ref && $label eq 'sleep past a C int')
	{
		# atoi() wraps 3000000000 to a negative number: no sleep at all
		my ($prc) = theirs('-f', $f);
		is($prc, 0, "$label: pgbench wraps it and does not sleep");
	}
}

my $sleepvar = script('sleepvar.sql', "\\set t 3000000000\n\\sleep :t us\n");
($rc, $out, $err) = ours('-f', $sleepvar);
is($rc, 2, 'sleep variable past a C int: the client is aborted');
like($err, qr/error: sleep: sleep time "3000000000" for variable "t" is out of range \(0 \.\. 2147483647\)/,
	'sleep variable past a C int: message');
$sleepvar = script('sleepneg.sql', "\\set t -5\n\\sleep :t ms\n");
($rc, $out, $err) = ours('-f', $sleepvar);
is($rc, 2, 'negative sleep variable: the client is aborted');
like($err, qr/sleep time "-5" for variable "t" is out of range/, 'negative sleep variable: message');

# ------------------------------------------------------------ \setshell

my $shell = script('shell.sql', "\\setshell v echo 3000000000\n\\set y debug(:v)\n");
($rc, $out, $err) = ours('-f', $shell);
is($rc, 0, '\setshell of a bigint: exit 0');
like($err, qr/int 3000000000$/m, '\setshell of a bigint: the value, not wrapped');
if ($ref)
{
	my ($prc, $pout, $perr) = theirs('-f', $shell);
	like($perr, qr/int -1294967296$/m, '\setshell of a bigint: pgbench wraps it through a C int');
}
$shell = script('shell2.sql', "\\setshell v echo 99999999999999999999\n");
($rc, $out, $err) = ours('-f', $shell);
is($rc, 2, '\setshell past bigint: the client is aborted');
like($err, qr/error: echo: shell command result "99999999999999999999" is out of range for a bigint/,
	'\setshell past bigint: message');
$shell = script('shell3.sql', "\\setshell v echo 12abc\n");
($rc, $out, $err) = ours('-f', $shell);
is($rc, 2, '\setshell not an integer: the client is aborted');
like($err, qr/error: echo: shell command must return an integer \(not "12abc/,
	'\setshell not an integer: pgbench\'s message');

# ------------------------------------------------------------ --random-seed

for my $case (
	[ '-1', qr/error: unrecognized random seed option "-1"/ ],
	[ 'abc', qr/error: unrecognized random seed option "abc"/ ],
	[ '18446744073709551616',
		qr/error: random seed "18446744073709551616" is out of range\n.*detail: Expecting an unsigned integer up to 18446744073709551615/ ])
{
	my ($seed, $want) = @$case;
	($rc, $out, $err) = ours('-b', 'select-only', "--random-seed=$seed");
	is($rc, 1, "--random-seed=$seed: exit 1");
	like($err, $want, "--random-seed=$seed: message");
}
($rc, $out, $err) = ours('-b', 'select-only', '--random-seed=18446744073709551615');
is($rc, 0, '--random-seed=2^64-1: accepted');
if ($ref)
{
	my ($prc, $pout, $perr) = theirs('-S', '--random-seed=-1');
	like($perr, qr/setting random seed to 18446744073709551615/,
		'--random-seed=-1: pgbench wraps it to 2^64-1');
}

# ------------------------------------------------------------ --start-at

# one time parser: a time that is not a real instant is refused, as --since refuses it
for my $t ('2026-02-31T00:00Z', '2026-11-26T24:61Z', '2026-11-26T25:00Z', '2026-13-01T00:00Z',
	'2026-11-26T03:10+24:00', '2026-11-26T03:10', '@0x10')
{
	($rc, $out, $err) = ours('-b', 'select-only', "--start-at=$t");
	is($rc, 1, "--start-at=$t: exit 1");
	like($err, qr/^pgtempo-bench: error: invalid value "\Q$t\E" for option --start-at: not a valid time \(ISO 8601 with its offset/m,
		"--start-at=$t: message");
}

$node->stop if $node;
done_testing();
