# pgtempo-io against ioping 1.3: the same options on the same directory
# (and file), every line compared with the numbers masked, and the numbers
# checked for ioping's units and rounding rules; bad input gets ioping's
# exit status (and its words where it has them); safety: nothing is left in
# the directory, a file is never written without -WWW; SIGINT prints the
# statistics; --json, --json=FILE, --histogram and --metrics.  No server.

use strict;
use warnings;

use Digest::MD5;
use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Metrics;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-io');
my $dir = tempdir(CLEANUP => 1);
my $target = "$dir/t";
mkdir $target or die "mkdir $target: $!";
my $file = "$dir/data";
write_file($file, join('', map { chr($_ % 251) } 1 .. 2 * 1024 * 1024));

my ($ioping) = grep { -x } map { "$_/ioping" } split /:/, $ENV{PATH};

# One number with its unit, as ioping writes them, masked to its kind.
my $time_re = qr/(\d+(?:\.\d+)?) (ns|us|ms|s|min|hour)\b/;
my $size_re = qr/(\d+(?:\.\d+)?) (B|KiB|MiB|GiB|TiB)\b/;

# The text with every number masked: a time is <T>, a size <S>, a count <N>;
# ioping's marks that depend on the measured times themselves are dropped.
sub masked
{
	my ($text) = @_;
	# a message: ioping's words after its prefix, ours after the suite's
	$text =~ s/^(?:ioping|pgtempo-io: (?:error|warning)): /<PROG>: /mg;
	$text =~ s/^[A-Z][a-z][a-z] \d\d \d\d:\d\d:\d\d /<TIME> /mg;
	$text =~ s/ \((?:fast|slow)\)$//mg;
	$text =~ s/$time_re/<T>/g;
	$text =~ s/$size_re/<S>/g;
	$text =~ s/\d+(?:\.\d+)?(?: [kMGTP])? (iops|requests|too)/<N> $1/g;
	$text =~ s/\d+(?:\.\d+)?/<N>/g;
	return $text;
}

# ioping's rounding: whole, or two decimals below 10 and one from 10 on;
# never past the next unit (1000.0 us is ioping's, 1000.00 is not).
sub check_rounding
{
	my ($text, $what) = @_;
	my @bad;
	while ($text =~ /(?:$time_re|$size_re|(\d+\.\d+) [kMGTP] iops)/g)
	{
		my $num = defined $1 ? $1 : defined $3 ? $3 : $5;
		next unless $num =~ /^(\d+)\.(\d+)$/;
		my ($int, $dec) = ($1, $2);
		push @bad, $num
		  unless (length($dec) == 2 && $int <= 10) || (length($dec) == 1 && $int >= 10);
	}
	is_deeply(\@bad, [], "$what: numbers rounded as ioping rounds them");
}

# Run both with @opts on $on; compare exit status, stdout and stderr masked.
sub differential
{
	my ($name, $opts, $on, %how) = @_;
	$on //= $target;
  SKIP:
	{
		skip "ioping is not installed", 4 unless $ioping;
		my ($rc_ref, $out_ref, $err_ref) = run_tool([ $ioping, @$opts, $on ]);
		my ($rc, $out, $err) = run_tool([ $bin, @$opts, $on ]);
		is($rc, $rc_ref, "$name: exit status $rc_ref, as ioping's");
		if ($how{json})
		{
			# ioping's JSON: the same keys in the same places, numbers aside
			(my $a = masked($out)) =~ s/"localtime": "[^"]*"/"localtime": ""/g;
			(my $b = masked($out_ref)) =~ s/"localtime": "[^"]*"/"localtime": ""/g;
			is($a, $b, "$name: ioping's JSON, numbers aside");
			ok(eval { decode_json($out); 1 }, "$name: valid JSON");
		}
		else
		{
			is(masked($out), masked($out_ref), "$name: ioping's lines, numbers aside");
			check_rounding($out, $name);
		}
		is(masked($err), masked($err_ref), "$name: stderr as ioping's") unless $how{json};
	}
	return;
}

my @cases = (
	[ 'three requests',     [qw(-c 3 -i 0.01)] ],
	[ 'quiet',              [qw(-c 3 -i 0 -q)] ],
	[ 'batch',              [qw(-c 3 -i 0 -B)] ],
	[ 'writes',             [qw(-c 2 -i 0 -W)] ],
	[ 'ping-pong',          [qw(-c 3 -i 0 -G)] ],
	[ 'cached 8k',          [qw(-c 3 -i 0 -C -s 8k)] ],
	[ 'direct',             [qw(-c 2 -i 0 -D)] ],
	[ 'linear',             [qw(-c 2 -i 0 -L)] ],
	[ 'linear 4k in 8k',    [qw(-c 3 -i 0 -L -s 4k -S 8k)] ],
	[ 'print count',        [qw(-c 5 -i 0 -p 2)] ],
	[ 'print count quiet',  [qw(-c 5 -i 0 -p 2 -q)] ],
	[ 'batch and print',    [qw(-c 5 -i 0 -p 2 -B)] ],
	[ 'burst',              [qw(-c 5 -i 0 -b 2)] ],
	[ 'no warm-up',         [qw(-c 3 -i 0 -a 0)] ],
	[ 'two warm-up',        [qw(-c 4 -i 0 -a 2)] ],
	[ 'all too fast',       [qw(-c 3 -i 0 -t 1h)] ],
	[ 'all too slow',       [qw(-c 3 -i 0 -T 1ns)] ],
	[ 'time prefix',        [qw(-c 2 -i 0 -I)] ],
	[ 'one-dash long forms', [qw(-count 2 -interval 0 -size 8k -cached)] ],
	[ 'two-dash long forms', [qw(--count 2 --interval 0 --work-size 2m --linear)] ],
	[ 'sync writes',        [qw(-c 2 -i 0 -W -Y)] ],
	[ 'dsync writes',       [qw(-c 2 -i 0 -W -y)] ],
	[ 'seed',               [qw(-c 2 -i 0 -e 5 -C)] ],
	[ 'deadline',           [qw(-w 0.1 -i 0.02 -q)] ],
	[ 'rapid',              [qw(-R -w 0.2 -C)] ],
	[ 'rate and speed',     [qw(-c 2 -i 0 -r 1k -l 100m)] ],
	[ 'async',              [qw(-c 3 -i 0 -A)] ],
	[ 'async direct writes', [qw(-c 3 -i 0 -A -W -D)] ],
	[ 'nowait cached',      [qw(-c 2 -i 0 -N -C)] ],
	[ 'size 0 is the default', [qw(-c 2 -i 0 -s 0)] ],
	[ 'hipri',              [qw(-c 2 -i 0 -H -C)] ],);

# O_DIRECT where the test directory's file system has it (not tmpfs)
my ($direct_rc) = run_tool([ $bin, qw(-c 1 -D -q), $target ]);
for my $case (@cases)
{
  SKIP:
	{
		skip "no direct I/O in ${target}'s file system", 4
		  if $direct_rc != 0 && grep { $_ eq '-D' } @{ $case->[1] };
		differential(@$case);
	}
}
differential('ioping JSON', [qw(-c 2 -i 0 -J)], $target, json => 1);
differential('JSON periods', [qw(-c 4 -i 0 -p 2 -J)], $target, json => 1);
differential('JSON over -B', [qw(-c 3 -i 0 -B -J)], $target, json => 1);
differential('JSON, one-dash long form', [qw(-c 2 -i 0 -json)], $target, json => 1);
differential('JSON of writes', [qw(-c 2 -i 0 -W -J)], $target, json => 1);
differential('JSON of a ping-pong', [qw(-c 3 -i 0 -G -J)], $target, json => 1);
differential('JSON of a file, quiet', [qw(-c 2 -i 0 -q -J)], $file, json => 1);

# -J is ioping's JSON, --json the suite's: not the same document
{
	my ($rc, $out) = run_tool([ $bin, qw(-c 2 -i 0 -C -J), $target ]);
	my $j = eval { decode_json($out) };
	is(ref $j, 'ARRAY', '-J: ioping\'s array');
	($rc, $out) = run_tool([ $bin, qw(-c 2 -i 0 -C --json), $target ]);
	$j = eval { decode_json($out) };
	ok(ref $j eq 'HASH' && $j->{tool} eq 'pgtempo-io' && $j->{latency_ns}{percentiles},
		'--json: the suite\'s document, with percentiles');
}

# -N without -C or -D: whether a request finds its page gone from the cache
# (EAGAIN) or not depends on the kernel's timing, for ioping as for us: the
# lines are checked for their form, not compared
{
	my ($rc, $out, $err) = run_tool([ $bin, qw(-c 3 -i 0 -N), $target ]);
	is($rc, 0, '-N: exit 0');
	like($err, qr/^pgtempo-io: warning: nowait without cached or direct I\/O is supposed to fail$/m,
		'-N: ioping\'s warning');
	my @lines = grep { /request=/ } split /\n/, $out;
	is(scalar(@lines), 3, '-N: three request lines');
	is(scalar(grep { !/^(?:4 KiB|0 B) <<< .* request=\d time=\S+ \w+(?: \((?:EAGAIN|warmup)\))?$/ } @lines),
		0, '-N: each is a read or an (EAGAIN) of 0 B');
	my $eagain = grep { /\(EAGAIN\)$/ } @lines;
	like($out, qr/^generated ${\(3 - $eagain)} requests in /m,
		'-N: an (EAGAIN) request is not counted as generated');
}
differential('a file',      [qw(-c 3 -i 0)],    $file);
differential('file offset', [qw(-c 2 -i 0 -s 100k -S 1m -o 1020k -q)], $file);

# ---------------------------------------------------------------- bad input

# Exit statuses (and ioping's words, after our "pgtempo-io: error: ").
my @bad = (
	[ 'no such path', [ qw(-c 1), "$dir/nonexistent" ], 2,
		qr/^pgtempo-io: error: stat ".*nonexistent" failed: No such file or directory$/m ],
	[ 'file without -WWW', [ qw(-c 1 -W), $file ], 2,
		qr/think twice, then use -WWW to shred this target/ ],
	[ 'file, -WW',  [ qw(-c 1 -WW), $file ], 2, qr/use -WWW/ ],
	[ 'ping-pong on a file', [ qw(-c 1 -G), $file ], undef, qr/use -WWW/ ],
	[ 'work set too small', [ qw(-c 1 -S 1k), $target ], 2,
		qr/request size is too big for this target/ ],
	[ 'offset past the file', [ qw(-c 1 -o 2m), $file ], 2,
		qr/request size is too big for this target/ ],
	[ 'bad count', [ qw(-c x), $target ], 1, qr/invalid value "x" for option -c\/--count/ ],
	[ 'bad suffix', [ qw(-s 1x), $target ], 1, qr/invalid suffix "x"/ ],
	[ 'negative', [ qw(-c -1), $target ], 1, qr/must not be negative/ ],
	[ 'two targets', [ qw(-c 1), $target, $target ], 1, qr/more than one destination specified/ ],
	[ 'no target', [qw(-c 1)], 1, qr/no destination specified/ ],
	[ 'unknown option', [ qw(-c 1 -x), $target ], 1, qr/Try "pgtempo-io --help"/ ],
	[ 'direct, odd size', [ qw(-c 1 -D -s 1000), $target ], 2,
		qr/request size 1000 .* multiples of 512 bytes for direct I\/O \(-D\)/ ],);
for my $case (@bad)
{
	my ($name, $opts, $want_rc, $msg) = @$case;
	my ($rc, $out, $err) = run_tool([ $bin, @$opts ]);
	like($err, $msg, "$name: the error");
	my $ref_rc = $want_rc;
	if ($ioping)
	{
		($ref_rc) = run_tool([ $ioping, @$opts ]);
	}
	$ref_rc //= 2;
	is($rc, $ref_rc, "$name: exit status $ref_rc, as ioping's");
}

# a directory where a file is needed: refused before the first request
for my $o (qw(--json --metrics --chart))
{
	my ($rc, $out, $err) = run_tool([ $bin, qw(-c 1), "$o=$dir", $target ]);
	is($rc, 1, "$o=DIRECTORY: exit 1");
	like($err, qr/^pgtempo-io: error: could not open file "\Q$dir\E" for writing: Is a directory$/m,
		"$o=DIRECTORY: said");
	is($out, '', "$o=DIRECTORY: no request");
}

# a file system that refuses O_DIRECT (ramfs), in a mount namespace of its
# own: -D stops before its first request with ioping's error and status,
# and a detail naming the file system
SKIP:
{
	my $ramfs = "$dir/ramfs";
	mkdir $ramfs or die "mkdir $ramfs: $!";
	my @on_ramfs = ('unshare', '--user', '--map-root-user', '--mount', 'sh', '-c',
		'mount -t ramfs ramfs "$1" && shift && exec "$@"', 'sh', $ramfs);
	skip 'no ramfs can be mounted here (user namespaces)', 5
	  unless system(@on_ramfs, 'true') == 0;
	my ($rc, $out, $err) = run_tool([ @on_ramfs, $bin, qw(-c 1 -D), $ramfs ]);
	is($rc, 2, 'ramfs -D: exit 2');
	like($err, qr/^pgtempo-io: error: fcntl\(O_DIRECT\) failed, please retry without option -D: Invalid argument\npgtempo-io: detail: Direct I\/O \(O_DIRECT\) is not available on the file system of "\Q$ramfs\E" \(ramfs\)\.\n\z/,
		'ramfs -D: ioping\'s error, then the file system named');
	is($out, '', 'ramfs -D: no request');
  SKIP:
	{
		skip 'ioping is not installed', 1 unless $ioping;
		my ($rc_ref, $out_ref, $err_ref) = run_tool([ @on_ramfs, $ioping, qw(-c 1 -D), $ramfs ]);
		is("$rc_ref " . masked($err_ref), "$rc " . (masked($err) =~ s/^pgtempo-io: detail: .*\n//mr),
			'ramfs -D: ioping\'s status and words');
	}
	($rc, $out, $err) = run_tool([ @on_ramfs, $bin, qw(-c 2 -i 0), $ramfs ]);
	is($rc, 0, 'ramfs without -D: exit 0') or diag($err);
}

# a work file the size limit stops half-way: ioping's preparation error, the file gone
my ($rc, $out, $err) = run_tool(
	[ 'sh', '-c', 'ulimit -f 256; trap "" XFSZ; exec "$0" "$@"', $bin, qw(-c 1 -S 1m), $target ]);
is($rc, 2, 'work file cut short: exit 2');
like($err, qr/^pgtempo-io: error: preparation write failed: File too large$/m,
	'work file cut short: the error');

# ---------------------------------------------------------------- safety

# a disk that fills up while the work file is made: ioping's preparation
# error, and the directory holds what it held before, untouched
SKIP:
{
	skip 'no small file system can be mounted here (user namespaces)', 4
	  unless mkdir("$dir/probe") && small_disk_allowed("$dir/probe");
	my ($rc, $out, $err) =
	  run_on_full_disk("$dir/full", "$dir/full-after", 'old', [ $bin, qw(-c 1 -S 1m), "$dir/full" ]);
	is($rc, 2, 'full disk: exit 2');
	like($err, qr/^pgtempo-io: error: preparation write failed: No space left on device$/m,
		'full disk: the error');
	is_deeply([ dir_entries("$dir/full-after") ], ['old'], 'full disk: no work file left');
	is(slurp_text("$dir/full-after/old"), "# old and complete\n", 'full disk: nothing else touched');
}

opendir(my $dh, $target) or die;
my @left = grep { !/^\.\.?$/ } readdir $dh;
closedir $dh;
is_deeply(\@left, [], 'no work file is left in the directory');

sub md5_of
{
	open my $fh, '<', $_[0] or die "$_[0]: $!";
	binmode $fh;
	return Digest::MD5->new->addfile($fh)->hexdigest;
}
my $before = md5_of($file);
run_tool([ $bin, qw(-c 2 -i 0 -W), $file ]);
run_tool([ $bin, qw(-c 2 -i 0 -G -WW), $file ]);
run_tool([ $bin, qw(-c 2 -i 0), $file ]);
is(md5_of($file), $before, 'the file is unchanged by reads and by refused writes');
($rc) = run_tool([ $bin, qw(-c 2 -i 0 -WWW -q), $file ]);
is($rc, 0, '-WWW writes over a file');
isnt(md5_of($file), $before, '... and it did');

($rc) = run_tool([ $bin, qw(-c 2 -i 0 -k -q), $target ]);
is($rc, 0, '-k: exit 0');
ok(-f "$target/ioping.tmp", '-k keeps ioping.tmp');
unlink "$target/ioping.tmp";

# SIGINT: the statistics, 128+2, nothing left behind
{
	my ($o, $e) = ('', '');
	my $h = IPC::Run::start([ $bin, qw(-i 0.05), $target ], '>', \$o, '2>', \$e);
	# wait for the second request's line, then interrupt
	my $t = IPC::Run::timeout(60);
	$h->pump until $o =~ /request=2 / || $t->is_expired;
	$h->signal('INT');
	$h->finish;
	my $code = $h->full_result(0);
	is(($code & 127) ? 128 + ($code & 127) : $code >> 8, 130, 'SIGINT: exit 130');
	like($o, qr/ioping statistics ---\n.* requests completed in .*\nmin\/avg\/max\/mdev = /s,
		'SIGINT: the statistics are printed');
	opendir(my $d2, $target) or die;
	my @l2 = grep { !/^\.\.?$/ } readdir $d2;
	closedir $d2;
	is_deeply(\@l2, [], 'SIGINT: no work file left');
}

# ---------------------------------------------------------------- beyond ioping

($rc, $out, $err) = run_tool([ $bin, qw(-c 20 -i 0 -C --json), $target ]);
is($rc, 0, '--json: exit 0');
my $doc = decode_json($out);
is($doc->{requests}{valid}, 19, '--json: 19 valid requests (one warm-up)');
is($doc->{requests}{total}, 20, '--json: 20 in all');
my $sum = 0;
$sum += $_->{count} for @{ $doc->{histogram_ns} };
is($sum, 19, '--json: the histogram holds every valid request');
my $p = $doc->{latency_ns}{percentiles};
ok($doc->{latency_ns}{min} <= $p->{p50} && $p->{p50} <= $p->{p99}
	  && $p->{p99} <= $doc->{latency_ns}{max},
	'--json: min <= p50 <= p99 <= max');

my $json_path = "$dir/io.json";
($rc, $out, $err) = run_tool([ $bin, qw(-c 3 -i 0 -C), "--json=$json_path", $target ]);
is($rc, 0, '--json=FILE: exit 0');
like($out, qr/ioping statistics/, '--json=FILE: the report on stdout as without it');
is(decode_json(slurp_text($json_path))->{requests}{total}, 3, '--json=FILE: the document');

($rc, $out, $err) = run_tool([ $bin, qw(-c 5 -i 0 -C --histogram=ns), $target ]);
like($out, qr/\nHistogram of request times:\n\s+< ns\s+% of total\s+count\n/,
	'--histogram=ns: the table');
like($out, qr/\npercentiles: p50 = [\d.]+ \w+, p90 = /, '--histogram: the percentiles');

my $prom = "$dir/io.prom";
($rc, $out, $err) = run_tool([ $bin, qw(-c 4 -i 0 -C -q), "--metrics=$prom", $target ]);
is($rc, 0, '--metrics: exit 0');
my $metrics = slurp_text($prom) // '';
like($metrics, qr/^pgtempo_io_requests_total\{[^}]*\} 3$/m, '--metrics: 3 counted requests');
like($metrics, qr/^pgtempo_io_request_duration_seconds_count\{[^}]*\} 3$/m,
	'--metrics: the histogram');
promtool_ok($prom, 'pgtempo-io --metrics');
is(check_histogram(parse_metrics($metrics), 'pgtempo_io_request_duration_seconds', '--metrics'), 3,
	'--metrics: a well-formed histogram of the 3 requests');
($rc, $out, $err) = run_tool([ $bin, qw(-c 1 --metrics=/nonexistent/x.prom), $target ]);
is($rc, 1, '--metrics into a missing directory: exit 1 before the run');
is($out, '', '... and no request');

my $svg = "$dir/io.svg";
($rc, $out, $err) = run_tool([ $bin, qw(-c 30 -i 0 -C -q), "--chart=$svg", $target ]);
is($rc, 0, '--chart: exit 0');
my $chart = slurp_text($svg) // '';
like($chart, qr/^<\?xml[^>]*>\s*<svg /s, '--chart: an SVG document');
like($chart, qr/>Request time</, '--chart: the request time panel');
like($chart, qr/>Distribution of the request times/, '--chart: the distribution panel');
# one bar per log2 bucket from the fastest to the slowest, each with its count
my $bars = 0;
my $counted = 0;
while ($chart =~ /<title>&lt; [^<]*: (\d+)<\/title><\/rect>/g) { $bars++; $counted += $1; }
ok($bars >= 1, '--chart: bars drawn');
is($counted, 29, '--chart: the bars hold the 29 counted requests');
SKIP:
{
	my $xmllint = `sh -c 'command -v xmllint'`;
	chomp $xmllint;
	skip 'xmllint is not installed (Debian package libxml2-utils)', 1 unless $xmllint;
	is(system($xmllint, '--noout', $svg), 0, '--chart: well-formed XML');
}
($rc, $out, $err) = run_tool([ $bin, qw(-c 1), "--chart=$dir/missing/io.svg", $target ]);
is($rc, 1, '--chart into a missing directory: exit 1 before the run');

done_testing();
