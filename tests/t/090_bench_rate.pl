# pgtempo-bench -R and -L: the option checks against the system pgbench,
# the achieved rate within the Poisson noise, the gaps of the schedule
# (exponential: mean and coefficient of variation), transactions skipped
# under -R with a small -L, late transactions under -L, and the report
# lines of both compared with pgbench's for the same options.

use strict;
use warnings;

use File::Temp qw(tempdir);
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $ref = pg_reference('pgbench');
my $dir = tempdir(CLEANUP => 1);

sub write_script { return write_file("$dir/$_[0]", $_[1]); }

# ---------------------------------------------------------------- option checks

# The same message as pgbench (without a server: the checks come first).
my @same = (
	[ '-R', '0' ], [ '-R', 'x' ], [ '-R', '-5' ], [ '-L', '0' ], [ '-L', 'abc' ],
	[ '--sampling-rate', '0' ], [ '--sampling-rate', '1.5' ], [ '--sampling-rate=0.5' ],
	[ '--aggregate-interval', '0' ], [ '--aggregate-interval', 'x' ],
	[ '-l', '--aggregate-interval', '5', '--sampling-rate', '0.5' ],
	[ '--aggregate-interval', '5' ], [ '--log-prefix', 'foo' ],
	[ '-l', '--aggregate-interval', '7', '-T', '5' ],
	[ '-l', '--aggregate-interval', '2', '-T', '5' ],
	[ '--max-tries', '0' ]);
for my $args (@same)
{
	my ($code, $out, $err) = run_tool([ $ours, @$args, '-h', '/nonexistent' ]);
	is($code, 1, "@$args: exit 1");
	my ($msg) = $err =~ /^pgtempo-bench: error: (.*)$/m;
	ok(defined $msg, "@$args: an error line");
  SKIP:
	{
		skip 'the system pgbench is not installed', 1 unless $ref;
		my (undef, undef, $rerr) = run_tool([ $ref, @$args, '-h', '/nonexistent' ]);
		my ($want) = $rerr =~ /^pgbench: error: (.*)$/m;
		is($msg, $want, "@$args: pgbench's message");
	}
}

# Stricter than pgbench, which reads these with atof(): trailing junk, nan
# and infinity are refused.
for my $case ([ '-R', '10abc', 'invalid rate limit: "10abc"' ],
	[ '-R', 'nan', 'invalid rate limit: "nan"' ],
	[ '-L', 'inf', 'invalid latency limit: "inf"' ],
	[ '--sampling-rate', '0.5x', 'invalid sampling rate: "0.5x"' ],
	[ '--percentiles', '50,101', 'invalid value "50,101" for option --percentiles' ],
	[ '--percentiles', '', 'invalid value "" for option --percentiles' ])
{
	my ($opt, $val, $want) = @$case;
	my ($code, undef, $err) = run_tool([ $ours, $opt, $val, '-l', '-h', '/nonexistent' ]);
	is($code, 1, "$opt $val: exit 1");
	like($err, qr/^pgtempo-bench: error: \Q$want\E$/m, "$opt $val: refused");
}

# ---------------------------------------------------------------- against a server

my $node = new_cluster('bench_rate', conf => "max_connections = 50\n");
my $db = $node->connstr('postgres');
my $select = write_script('select.sql', "SELECT 1;\n");

# The achieved rate: over T seconds at rate R the count has a standard
# deviation of sqrt(R*T); the check allows 4 of them (about 6 % here).  The
# rate is one that a machine busy with other work still keeps up with: a
# client that cannot is behind its schedule, which is not what is tested.
{
	my ($rate, $secs) = (400, 10);
	my ($code, $out, $err) = run_tool(
		[ $ours, '-n', '-f', $select, '-R', $rate, '-T', $secs, '-c', 4, '-j', 2, $db ]);
	is($code, 0, "-R $rate: exit 0");
	my ($n) = $out =~ /^number of transactions actually processed: (\d+)$/m;
	my $sigma = sqrt($rate * $secs);
	cmp_ok(abs($n - $rate * $secs), '<=', 4 * $sigma,
		"-R $rate -T $secs: $n transactions, within 4 sigma of " . $rate * $secs);
	like($out, qr/^rate limit schedule lag: avg \d+\.\d{3} \(max \d+\.\d{3}\) ms$/m,
		'-R: the schedule lag line');
	like($out, qr/^latency average = \d+\.\d{3} ms\nlatency stddev = \d+\.\d{3} ms$/m,
		'-R: latency average and stddev');
}

# The gaps of the schedule: a transaction's scheduled start is its end
# (time_epoch, time_us) minus its latency, which -R measures from the
# scheduled start.  One thread, so one schedule shared by its 3 clients;
# exponential gaps have a coefficient of variation of 1.
{
	my ($rate, $n) = (500, 4000);
	my $prefix = "$dir/gaps";
	my ($code, $out, $err) = run_tool(
		[ $ours, '-n', '-f', $select, '-R', $rate, '-t', $n / 4, '-c', 4, '-j', 1, '-l',
		  "--log-prefix=$prefix", $db ]);
	is($code, 0, 'gaps: exit 0');
	my @logs = glob("$prefix.*");
	is(scalar @logs, 1, 'gaps: one log file');
	my @starts;
	if (open my $fh, '<', $logs[0])
	{
		while (<$fh>)
		{
			my @f = split;
			push @starts, ($f[4] * 1e6 + $f[5]) - $f[2] if @f >= 6 && $f[2] =~ /^\d+$/;
		}
	}
	is(scalar @starts, $n, "gaps: $n transactions logged");
	@starts = sort { $a <=> $b } @starts;
	my @gaps = map { $starts[$_] - $starts[ $_ - 1 ] } 1 .. $#starts;
	my $mean = 0;
	$mean += $_ for @gaps;
	$mean /= @gaps if @gaps;
	my $var = 0;
	$var += ($_ - $mean)**2 for @gaps;
	$var /= @gaps if @gaps;
	my $cv = $mean > 0 ? sqrt($var) / $mean : 0;
	# the mean of n exponential gaps has a relative standard error of
	# 1/sqrt(n) (1.6 % here), the CV about the same: 5 of them as bounds
	cmp_ok(abs($mean - 1e6 / $rate) / (1e6 / $rate), '<', 0.08,
		sprintf('gaps: mean %.1f us, expected %.1f', $mean, 1e6 / $rate));
	cmp_ok(abs($cv - 1), '<', 0.12, sprintf('gaps: coefficient of variation %.3f, expected 1', $cv));
}

# -R with a small -L: every transaction takes 20 ms, the slots come every
# 5 ms: most slots are too late when they come and are skipped; every slot
# is either run or skipped, and the report says how many.
my $slow = write_script('slow.sql', "SELECT pg_sleep(0.02);\n");
{
	my ($code, $out, $err) =
	  run_tool([ $ours, '-n', '-f', $slow, '-R', 200, '-L', 5, '-T', 4, $db ]);
	is($code, 0, '-R -L: exit 0');
	my ($done) = $out =~ /^number of transactions actually processed: (\d+)$/m;
	my ($skipped, $pct) = $out =~ /^number of transactions skipped: (\d+) \((\d+\.\d{3})%\)$/m;
	ok(defined $skipped && $skipped > $done, "-R -L: skipped ($skipped) outnumber the run ($done)");
	my $sigma = sqrt(200 * 4);
	cmp_ok(abs($done + $skipped - 800), '<=', 4 * $sigma + 10,
		'-R -L: run + skipped = the slots of the schedule');
	like($out, qr/^number of transactions above the 5\.0 ms latency limit: (\d+)\/$done \(\d+\.\d{3}%\)$/m,
		'-R -L: the late line');
}

# -L alone: every transaction is late.
{
	my ($code, $out) = run_tool([ $ours, '-n', '-f', $slow, '-L', 1, '-t', 5, $db ]);
	is($code, 0, '-L: exit 0');
	like($out, qr/^number of transactions above the 1\.0 ms latency limit: 5\/5 \(100\.000%\)$/m,
		'-L: all 5 late');
	unlike($out, qr/skipped/, '-L without -R: no skipped line');
}

# -R with -t: every client runs its transactions.
{
	my ($code, $out) = run_tool([ $ours, '-n', '-f', $select, '-R', 200, '-t', 20, '-c', 3, '-j', 2, $db ]);
	is($code, 0, '-R -t: exit 0');
	like($out, qr/^number of transactions actually processed: 60\/60$/m, '-R -t: 60/60');
}

# --max-tries=0 is allowed with -L (pgbench's rule).
{
	my ($code, $out) = run_tool([ $ours, '-n', '-f', $select, '--max-tries=0', '-L', 100, '-t', 3, $db ]);
	is($code, 0, '--max-tries=0 -L: runs');
	like($out, qr/^number of transactions actually processed: 3\/3$/m, '--max-tries=0 -L: 3/3');
}

# --chart: an SVG with the -R target, the skipped marks and the latency
# panel, one point per second without -P; a bad path fails the run.
{
	my $svg = "$dir/run.svg";
	my ($code, $out, $err) = run_tool(
		[ $ours, '-n', '-f', $slow, '-R', 100, '-L', 15, '-T', 3, "--chart=$svg", $db ]);
	is($code, 0, '--chart: exit 0');
	unlike($err, qr/^progress:/m, '--chart without -P: no progress lines');
	my $text = '';
	if (open my $fh, '<', $svg) { local $/; $text = <$fh>; }
	like($text, qr/^<\?xml[^>]*>\s*<svg /s, '--chart: an SVG document');
	unlike($text, qr/<script|href="http/i, '--chart: self-contained');
	like($text, qr/rate target \(-R\)/, '--chart: the -R target');
	like($text, qr/skipped \(\d+ in all\)/, '--chart: the skipped marks');
	like($text, qr/>p99</, '--chart: the latency panel');
	my $xmllint = `sh -c 'command -v xmllint'`;
	chomp $xmllint;
  SKIP:
	{
		skip 'xmllint is not installed (Debian package libxml2-utils)', 1 unless $xmllint;
		is(system($xmllint, '--noout', $svg), 0, '--chart: well-formed XML');
	}
	($code, $out, $err) = run_tool(
		[ $ours, '-n', '-f', $select, '-t', 5, "--chart=$dir/missing/run.svg", $db ]);
	is($code, 1, '--chart to a missing directory: exit 1');
	like($err, qr/^pgtempo-bench: error: could not open file ".*missing\/run\.svg" for writing: /m,
		'--chart to a missing directory: the error');
}

# The report lines of -R -L -P against pgbench's: the same lines in the same
# order, numbers masked (ours adds the percentile line).
SKIP:
{
	skip 'the system pgbench is not installed', 2 unless $ref;
	my @opts = ('-n', '-f', $slow, '-R', 100, '-L', 15, '-T', 2, '-P', 1);
	my (undef, $rout, $rerr) = run_tool([ $ref, @opts, $db ]);
	my (undef, $oout, $oerr) = run_tool([ $ours, @opts, $db ]);
	my $mask = sub {
		my @l;
		for (split /\n/, shift)
		{
			next if /^(pgbench|pgtempo-bench) \(/ || /^latency percentiles/;
			s/\d+\.\d+/X/g;
			s/\d+/N/g;
			push @l, $_;
		}
		return join("\n", @l) . "\n";
	};
	is($mask->($oout), $mask->($rout), '-R -L: the report has pgbench\'s lines');
	my ($rp) = $rerr =~ /^(progress: .*)$/m;
	my ($op) = $oerr =~ /^(progress: .*)$/m;
	is($mask->($op // ''), $mask->($rp // ''), '-R -L -P: the progress line has pgbench\'s fields');
}

done_testing();
