# Every option in a tool's --help has an entry of its own in the OPTIONS
# section of its man page, and every option the man page has an entry for
# is in --help: long options and short ones.  --help ends by pointing to
# the man page (for pg_test_timing: in section 1pgtempo).

use strict;
use warnings;

use PgTempo::Test;
use Test::More;

my %tools = (
	'pg_test_timing' => 'man/pg_test_timing.1.in',
	'pgtempo-bench'  => 'man/pgtempo-bench.1.in',
	'pgtempo-waits'  => 'man/pgtempo-waits.1.in',
	'pgtempo-io'     => 'man/pgtempo-io.1.in',);

# The options of --help: long ones anywhere, short ones where a line
# starts with one ("  -c, --client=NUM", "  -i  ...").
sub help_options
{
	my ($help) = @_;
	my %opts = map { $_ => 1 } $help =~ /(--[a-z][a-z0-9-]*)/g;
	for my $line (split /\n/, $help)
	{
		$opts{$1} = 1 if $line =~ /^\s+(-[A-Za-z?])(?:,|\s|$)/;
	}
	return \%opts;
}

# The options that have an entry in the OPTIONS section: the tag line
# after each .TP (options mentioned in another option's text do not count).
sub man_options
{
	my ($text) = @_;
	my ($section) = $text =~ /^\.SH OPTIONS\n(.*?)^\.SH /ms;
	my %opts;
	my $tag_next = 0;
	for my $line (split /\n/, $section // '')
	{
		if ($line =~ /^\.TP\b/)
		{
			$tag_next = 1;
			next;
		}
		next unless $tag_next;
		$tag_next = 0;
		(my $l = $line) =~ s/\\f[BIRP]//g;
		$l =~ s/\\-/-/g;
		$opts{$1} = 1 while $l =~ /(--[a-z][a-z0-9-]*)/g;
		$opts{$1} = 1 while $l =~ /(?<![\w-])(-[A-Za-z?])(?![\w-])/g;
	}
	return \%opts;
}

for my $tool (sort keys %tools)
{
	my $bin = "$ENV{PGTEMPO_BINDIR}/$tool";
	my $man = "$ENV{PGTEMPO_SRCDIR}/$tools{$tool}";
	SKIP:
	{
		skip "$tool is not built yet", 6 unless -x $bin;
		ok(-r $man, "$tool: man page exists");
		my ($rc, $help) = run_tool([ $bin, '--help' ]);
		is($rc, 0, "$tool --help: exit 0");
		# pg_test_timing's page is in section 1pgtempo: PostgreSQL's packages
		# own pg_test_timing(1), so plain "man pg_test_timing" may show theirs
		my $page = $tool eq 'pg_test_timing' ? "1pgtempo $tool" : $tool;
		like($help, qr/\n\nSee 'man \Q$page\E' for more information\.\n\z/,
			"$tool --help ends with \"See 'man $page' for more information.\"");
		open my $fh, '<', $man or die "cannot read $man: $!";
		my $text = do { local $/; <$fh> };
		close $fh;
		my $in_help = help_options($help);
		my $in_man  = man_options($text);
		ok(scalar(keys %$in_man) > 0, "$tool: the man page has option entries");
		my @missing_in_man  = grep { !$in_man->{$_} } sort keys %$in_help;
		my @missing_in_help = grep { !$in_help->{$_} } sort keys %$in_man;
		is_deeply(\@missing_in_man, [],
			"$tool: every --help option has an entry in the man page");
		is_deeply(\@missing_in_help, [],
			"$tool: every option in the man page is in --help");
	}
}

done_testing();
