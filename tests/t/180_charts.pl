# The SVG charts as a user sees them: tests/chart_demo writes sample bench
# and waits charts, headless Chromium renders each to a PNG, and the PNG is
# decoded (pure Perl: core Compress::Zlib) to check that it has the size of
# the SVG, is not blank, and shows the series colours where they belong.
# Skipped, saying why, without Chromium or without the demo program.

use strict;
use warnings;

use Compress::Zlib ();
use File::Spec;
use PgTempo::Test;
use PostgreSQL::Test::Utils ();
use Test::More;

# ---------------------------------------------------------------- prerequisites

my ($chromium) = grep { defined && -x }
  ($ENV{PGTEMPO_CHROMIUM},
	map { my $d = $_; map { "$d/$_" } qw(chromium chromium-browser google-chrome) }
	  File::Spec->path);
plan skip_all => 'Chromium is not installed (apt-get install chromium): '
  . 'the charts cannot be rendered'
  unless defined $chromium;

my $demo = "$ENV{PGTEMPO_BINDIR}/tests/chart_demo";
plan skip_all => "tests/chart_demo is not in $ENV{PGTEMPO_BINDIR} (make check builds it)"
  unless -x $demo;

my $tmp = PostgreSQL::Test::Utils::tempdir('charts');
my ($rc, $out, $err) = run_tool([ $demo, $tmp ]);
is($rc, 0, 'chart_demo writes the sample charts');

# The tools' own charts, from real runs against a throwaway cluster:
# pgtempo-bench under -R and -L, pgtempo-waits with a sleeping and a
# waiting session.
my $node = new_cluster('charts');
my @conn = ('-h', $node->host, '-p', $node->port);
($rc) = run_tool([ pgtempo_bin('pgtempo-bench'), @conn, '-i', '-s', '1', '-q', 'postgres' ]);
is($rc, 0, 'pgtempo-bench -i');
($rc) = run_tool([ pgtempo_bin('pgtempo-bench'), @conn, '-c', '4', '-j', '2', '-T', '4',
	'-R', '300', '-L', '20', "--chart=$tmp/tool-bench.svg", 'postgres' ]);
is($rc, 0, 'pgtempo-bench --chart');
# with --waits: a lock all four clients queue for, after a warm-up
my $hot = "$tmp/hot.sql";
open my $hfh, '>', $hot or die "cannot write $hot: $!";
print $hfh "BEGIN;\nUPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;\n"
  . "SELECT pg_sleep(0.002);\nEND;\n";
close $hfh;
($rc) = run_tool([ pgtempo_bin('pgtempo-bench'), @conn, '-n', '-f', $hot, '-c', '4', '-j', '2',
	'-T', '3', '--warmup=1', '-P', '1', '--waits', "--json=$tmp/bench-waits.json",
	"--chart=$tmp/tool-bench-waits.svg", 'postgres' ]);
is($rc, 0, 'pgtempo-bench --waits --chart');
($rc) = run_tool([ pgtempo_bin('pgtempo-bench'), '--merge', "--chart=$tmp/tool-bench-merged.svg",
	"$tmp/bench-waits.json" ]);
is($rc, 0, 'pgtempo-bench --merge --chart of a --waits run');
# --capacity: a short search whose objective the first step meets (one step, then the
# bracket is within --capacity-resolution=100)
($rc) = run_tool([ pgtempo_bin('pgtempo-bench'), @conn, '-n', '-S', '-c', '1', '-T', '30',
	'--capacity=p99<1000ms', '--capacity-resolution=100', "--chart=$tmp/tool-bench-capacity.svg",
	'postgres' ], timeout => 120);
is($rc, 0, 'pgtempo-bench --capacity --chart');
my ($sleeper) = start_session($node, 'chart_sleep', 'SELECT pg_sleep(600)');
($rc) = run_tool([ pgtempo_bin('pgtempo-waits'), @conn, '-d', 'postgres', '-T', '3',
	'--application-name=chart_sleep', "--chart=$tmp/tool-waits.svg" ]);
is($rc, 0, 'pgtempo-waits --chart');
$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'chart_sleep'});

# ---------------------------------------------------------------- PNG decoding

# Decode an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes):
# { width, height, bpp, rows => [ row bytes, filters undone ] }, or undef.
sub read_png
{
	my ($path) = @_;
	open my $fh, '<:raw', $path or return undef;
	my $data = do { local $/; <$fh> };
	close $fh;
	return undef unless substr($data, 0, 8) eq "\x89PNG\r\n\x1a\n";

	my ($w, $h, $depth, $ctype, $interlace);
	my $idat = '';
	my $pos  = 8;
	while ($pos + 8 <= length $data)
	{
		my ($len, $type) = unpack('N a4', substr($data, $pos, 8));
		my $body = substr($data, $pos + 8, $len);
		$pos += 12 + $len;
		if ($type eq 'IHDR')
		{
			($w, $h, $depth, $ctype, undef, undef, $interlace) =
			  unpack('N N C C C C C', $body);
		}
		elsif ($type eq 'IDAT') { $idat .= $body; }
		elsif ($type eq 'IEND') { last; }
	}
	return undef
	  unless defined $w && $depth == 8 && ($ctype == 2 || $ctype == 6) && !$interlace;
	my $bpp = $ctype == 6 ? 4 : 3;
	my $raw = Compress::Zlib::uncompress($idat);
	my $stride = $w * $bpp;
	return undef unless defined $raw && length($raw) == $h * ($stride + 1);

	my @prev = (0) x $stride;
	my @rows;
	for my $y (0 .. $h - 1)
	{
		my $off    = $y * ($stride + 1);
		my $filter = ord(substr($raw, $off, 1));
		my @cur    = unpack('C*', substr($raw, $off + 1, $stride));
		if ($filter == 1)
		{
			$cur[$_] = ($cur[$_] + $cur[ $_ - $bpp ]) & 255 for $bpp .. $stride - 1;
		}
		elsif ($filter == 2)
		{
			$cur[$_] = ($cur[$_] + $prev[$_]) & 255 for 0 .. $stride - 1;
		}
		elsif ($filter == 3)
		{
			for my $i (0 .. $stride - 1)
			{
				my $left = $i >= $bpp ? $cur[ $i - $bpp ] : 0;
				$cur[$i] = ($cur[$i] + (($left + $prev[$i]) >> 1)) & 255;
			}
		}
		elsif ($filter == 4)
		{
			for my $i (0 .. $stride - 1)
			{
				my ($a, $c) = $i >= $bpp ? ($cur[ $i - $bpp ], $prev[ $i - $bpp ]) : (0, 0);
				my $b  = $prev[$i];
				my $p  = $a + $b - $c;
				my $pa = abs($p - $a);
				my $pb = abs($p - $b);
				my $pc = abs($p - $c);
				my $pred = ($pa <= $pb && $pa <= $pc) ? $a : ($pb <= $pc ? $b : $c);
				$cur[$i] = ($cur[$i] + $pred) & 255;
			}
		}
		elsif ($filter != 0)
		{
			return undef;
		}
		push @rows, pack('C*', @cur);
		@prev = @cur;
	}
	return { width => $w, height => $h, bpp => $bpp, rows => \@rows };
}

# Count of pixels per colour ("rrggbb" => n) and the share that is not near-white.
sub colour_stats
{
	my ($png) = @_;
	my %hist;
	my ($ink, $all) = (0, 0);
	for my $row (@{ $png->{rows} })
	{
		for (my $i = 0; $i < length $row; $i += $png->{bpp})
		{
			$hist{ substr($row, $i, 3) }++;
		}
	}
	my %named;
	while (my ($k, $n) = each %hist)
	{
		my ($r, $g, $b) = unpack('C3', $k);
		$named{ sprintf('%02x%02x%02x', $r, $g, $b) } = $n;
		$all += $n;
		$ink += $n unless $r >= 245 && $g >= 245 && $b >= 245;
	}
	return (\%named, $all ? $ink / $all : 0);
}

# Pixels within a small distance of colour $hex (anti-aliasing and colour management aside).
sub pixels_like
{
	my ($hist, $hex) = @_;
	my ($r, $g, $b) = map { hex } unpack('(A2)3', lc $hex);
	my $n = 0;
	while (my ($k, $count) = each %$hist)
	{
		my ($kr, $kg, $kb) = map { hex } unpack('(A2)3', $k);
		$n += $count if abs($kr - $r) + abs($kg - $g) + abs($kb - $b) <= 9;
	}
	return $n;
}

# ---------------------------------------------------------------- rendering

my %palette = (
	blue => '0072B2', orange => 'E69F00', green => '009E73', vermillion => 'D55E00',
	sky => '56B4E9', purple => 'CC79A7', yellow => 'F0E442', indigo => '332288',
	olive => '999933', wine => '882255', teal => '44AA99', rose => 'CC6677',
	grey => 'BBBBBB');

# name => [ colours that must show, minimum pixels of each ]
my %charts = (
	'bench'      => [ [qw(blue green orange purple vermillion)], 40 ],
	'bench-rate' => [ [qw(blue green orange sky)], 100 ],
	'waits'      => [ [ sort keys %palette ], 300 ],
	'empty'      => [ [qw(blue)], 20 ],
	'tool-bench' => [ [qw(blue green orange purple)], 20 ],
	# the waits panel: Lock (vermillion) stacked under tps (blue) and latency (green)
	'tool-bench-waits' => [ [qw(blue green vermillion)], 100 ],
	'tool-bench-merged' => [ [qw(blue purple vermillion)], 100 ],
	# p99 (blue), its interval (sky), the capacity and the bracket's upper end (green)
	'tool-bench-capacity' => [ [qw(blue sky green)], 20 ],
	'tool-waits' => [ [qw(blue)], 300 ],);

for my $name (sort keys %charts)
{
	my $svg = "$tmp/$name.svg";
	my $png = "$tmp/$name.png";
	ok(-s $svg, "$name.svg written");

	open my $fh, '<', $svg or die "could not open $svg: $!";
	my $head = do { local $/; <$fh> };
	close $fh;
	my ($width, $height) = $head =~ /<svg [^>]*\bwidth="(\d+)" height="(\d+)"/;
	ok(defined $height, "$name.svg: width and height on the root element")
	  or next;

	# Chromium wants a writable home and profile; the sandbox needs privileges
	# a test user may not have.
	my $home = "$tmp/home-$name";
	mkdir $home;
	($rc, $out, $err) = run_tool(
		[
			$chromium, '--headless', '--no-sandbox', '--disable-gpu',
			'--disable-dev-shm-usage', '--hide-scrollbars', '--no-first-run',
			"--user-data-dir=$home/profile", "--screenshot=$png",
			"--window-size=$width,$height", "file://$svg"
		],
		env => {
			HOME            => $home,
			XDG_CONFIG_HOME => "$home/.config",
			XDG_CACHE_HOME  => "$home/.cache"
		},
		timeout => 180);
	is($rc, 0, "$name: chromium exits 0");
	ok(-s $png, "$name: chromium wrote a PNG") or next;
	cmp_ok(-s $png, '>', 8000, "$name: the PNG is not a blank page");

	my $img = read_png($png);
	ok($img, "$name: the PNG decodes") or next;
	is("$img->{width}x$img->{height}", "${width}x$height",
		"$name: the screenshot has the size of the SVG");

	my ($hist, $ink) = colour_stats($img);
	note(sprintf('%s: %.1f %% of the pixels are not white, %d colours',
			$name, 100 * $ink, scalar keys %$hist));
	cmp_ok($ink, '>', 0.01, "$name: something is drawn");
	cmp_ok($ink, '<', 0.7,  "$name: not a solid block");

	my ($want, $min) = @{ $charts{$name} };
	for my $colour (@$want)
	{
		cmp_ok(pixels_like($hist, $palette{$colour}), '>=', $min,
			"$name: $colour ($palette{$colour}) shows");
	}
}

done_testing();
