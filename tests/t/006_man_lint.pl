# The man pages format without a single groff warning (groff -man -ww -z,
# for the default device and for the terminal, as man(1) renders them) and
# have the sections a user looks for.
#
# The pages are checked from their sources (man/*.1.in, with @VAR@ filled
# in as configure does), so the test needs no build of the pages, and also
# as configure wrote them when the build directory has them.  groff comes
# from Debian's groff-base (which man-db depends on); without groff the
# lint is skipped and only the sections are checked.

use strict;
use warnings;

use File::Spec;
use PgTempo::Test;
use Test::More;

my @pages = qw(pg_test_timing.1 pgtempo-bench.1 pgtempo-waits.1 pgtempo-io.1);
my @sections =
  ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'EXIT STATUS', 'ENVIRONMENT',
	'FILES', 'EXAMPLES', 'SEE ALSO');

my $groff;
for my $dir (File::Spec->path)
{
	if (-x "$dir/groff")
	{
		$groff = "$dir/groff";
		last;
	}
}

sub slurp
{
	my ($path) = @_;
	open my $fh, '<', $path or die "cannot read $path: $!";
	local $/;
	my $text = <$fh>;
	close $fh;
	return $text;
}

for my $page (@pages)
{
	my $src  = "$ENV{PGTEMPO_SRCDIR}/man/$page.in";
	my $text = slurp($src);
	(my $filled = $text) =~ s/\@PACKAGE_VERSION\@/0.0.0/g;
	unlike($filled, qr/\@[A-Z_]+\@/, "$page: no unknown \@VAR\@ left to fill in");

	my @has = $text =~ /^\.SH\s+"?([^"\n]*?)"?\s*$/mg;
	my %has = map { $_ => 1 } @has;
	my @missing = grep { !$has{$_} } @sections;
	is(join(', ', @missing), '', "$page: no section missing of: @{[ join ', ', @sections ]}");

	my @inputs = ([ "$page.in", $filled ]);
	my $built = "$ENV{PGTEMPO_BINDIR}/man/$page";
	push @inputs, [ "man/$page (built)", slurp($built) ] if -r $built;
	SKIP:
	{
		skip 'groff is not installed (Debian: apt-get install groff-base)',
		  2 * @inputs
		  unless $groff;
		for my $in (@inputs)
		{
			my ($name, $roff) = @$in;
			for my $dev ([], ['-Tutf8'])
			{
				my ($rc, $out, $err) =
				  run_tool([ $groff, '-man', '-ww', '-z', @$dev ], stdin => $roff);
				my $how = join ' ', 'groff -man -ww -z', @$dev;
				ok($rc == 0 && $err eq '', "$name: $how: no warnings")
				  or diag($err);
			}
		}
	}
}

done_testing();
