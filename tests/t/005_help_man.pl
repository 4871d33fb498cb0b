# Every long option in a tool's --help is documented in its man page, and
# every option the man page documents is in --help.

use strict;
use warnings;

use PgTempo::Test;
use Test::More;

my %tools = (
	'pg_test_timing' => 'man/pg_test_timing.1.in',
	'pgtempo-bench'  => 'man/pgtempo-bench.1.in',
	'pgtempo-waits'  => 'man/pgtempo-waits.1.in',);

for my $tool (sort keys %tools)
{
	my $bin = "$ENV{PGTEMPO_BINDIR}/$tool";
	my $man = "$ENV{PGTEMPO_SRCDIR}/$tools{$tool}";
	SKIP:
	{
		skip "$tool is not built yet", 3 unless -x $bin;
		ok(-r $man, "$tool: man page exists");
		my ($rc, $help) = run_tool([ $bin, '--help' ]);
		is($rc, 0, "$tool --help: exit 0");
		my %in_help = map { $_ => 1 } $help =~ /(--[a-z][a-z0-9-]*)/g;
		open my $fh, '<', $man or die "cannot read $man: $!";
		my $text = do { local $/; <$fh> };
		close $fh;
		# options are written \-\-name in roff; only the OPTIONS section defines them
		my ($opts) = $text =~ /^\.SH OPTIONS\n(.*?)^\.SH /ms;
		my %in_man;
		for my $line (split /\n/, $opts // '')
		{
			next unless $line =~ /^\.(TP|B|BI|BR)\b/ || $line =~ /^\.B/;
			(my $l = $line) =~ s/\\-/-/g;
			$in_man{$1} = 1 while $l =~ /(--[a-z][a-z0-9-]*)/g;
		}
		my @missing_in_man  = grep { !$in_man{$_} } sort keys %in_help;
		my @missing_in_help = grep { !$in_help{$_} } sort keys %in_man;
		is_deeply(\@missing_in_man, [], "$tool: every --help option is in the man page");
		is_deeply(\@missing_in_help, [], "$tool: every man page option is in --help");
	}
}

done_testing();
