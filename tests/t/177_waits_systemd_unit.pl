# The systemd unit pgtempo-waits@.service that the packages ship: systemd
# accepts it (systemd-analyze verify, where systemd is installed), it runs
# as an unprivileged user of its own, restarts on failure, reads its
# settings from /etc, and its command line, with the example settings file's
# values, is one pgtempo-waits takes: it writes profiles that --from-log
# reads back, and keeps old files no longer than it says.

use strict;
use warnings;

use File::Temp qw(tempdir);
use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');
my $src = $ENV{PGTEMPO_SRCDIR} // '.';
my $unit_file = "$src/contrib/systemd/pgtempo-waits\@.service";
my $env_file = "$src/contrib/systemd/waits.env.example";
my $dir = tempdir(CLEANUP => 1);

sub slurp
{
	my ($file) = @_;
	open my $fh, '<', $file or die "$file: $!";
	local $/;
	my $t = <$fh>;
	close $fh;
	return $t;
}

my $unit = slurp($unit_file);
my %env = slurp($env_file) =~ /^([A-Z_]+)=(.*)$/mg;

like($unit, qr/^EnvironmentFile=\/etc\/pgtempo\/waits-%i\.env$/m, 'unit: settings from /etc, one file per instance');
like($unit, qr/^DynamicUser=yes$/m, 'unit: an unprivileged user made for it');
like($unit, qr/^User=pgtempo-waits$/m, 'unit: named pgtempo-waits');
like($unit, qr/^Restart=on-failure$/m, 'unit: restarts on failure');
like($unit, qr/^LogsDirectory=pgtempo-waits\/%i$/m, 'unit: its log directory, owned by it');
is($env{PGTEMPO_WAITS_LOG_INTERVAL}, '10', 'example: profiles every 10 s');
is($env{PGTEMPO_WAITS_RETAIN}, '14d', 'example: two weeks kept');
my ($defaults) = $unit =~ /^Environment=(.*)$/m;
is_deeply({ map { split /=/ } split / /, $defaults },
	{ PGTEMPO_WAITS_LOG_INTERVAL => '10', PGTEMPO_WAITS_RETAIN => '14d' },
	'unit: the same defaults as the example');

SKIP:
{
	my $analyze = (grep { -x "$_/systemd-analyze" } split(/:/, $ENV{PATH} // ''), '/usr/bin', '/bin')[0];
	skip 'systemd-analyze is not installed', 2 unless defined $analyze;
	# an instance of the template, the binary where the build put it
	(my $inst = $unit) =~ s{/usr/bin/pgtempo-waits}{$bin}g;
	open my $fh, '>', "$dir/pgtempo-waits\@test.service" or die $!;
	print $fh $inst;
	close $fh;
	my ($rc, $out, $err) = run_tool([ "$analyze/systemd-analyze", 'verify', '--man=no',
		"$dir/pgtempo-waits\@test.service" ]);
	is($rc, 0, 'systemd-analyze verify: exit 0') or diag($err);
	unlike($err, qr/pgtempo-waits\@test\.service/, 'systemd-analyze verify: nothing said about the unit');
}

# The command line as systemd runs it for instance "test", with the example's values.
my $node = new_cluster('waits_systemd_unit');
my ($exec) = $unit =~ /^ExecStart=(.*)$/m;
$exec =~ s/%i/test/g;
$exec =~ s/%%/%/g;
$exec =~ s{/var/log/pgtempo-waits/test}{$dir};
$exec =~ s/\$\{(\w+)\}/$env{$1}/g;
$exec =~ s/\$(\w+)/$env{$1}/g;
my @argv = split ' ', $exec;
is($argv[0], '/usr/bin/pgtempo-waits', 'ExecStart: the installed binary');
is_deeply([ @argv[ 1 .. $#argv ] ],
	[ "--log=$dir/waits-%Y%m%d.csv", '--log-interval=10', '--log-retain=14d' ],
	'ExecStart: a daily file of 10-second profiles, kept 14 days');
open my $old, '>', "$dir/waits-20200101.csv" or die $!;
close $old;
utime(time - 30 * 86400, time - 30 * 86400, "$dir/waits-20200101.csv");
my ($rc, $out, $err) = run_tool([ $bin, @argv[ 1 .. $#argv ], '-T', '1.5', '-h', $node->host,
	'-p', $node->port, '-d', 'postgres' ]);
is($rc, 0, 'the unit\'s command: exit 0') or diag($err);
ok(!-e "$dir/waits-20200101.csv", 'the unit\'s command: a file of a month ago deleted');
my ($live_samples) = $out =~ /^sampling: (\d+) samples/m;
my @files = glob("$dir/waits-2*.csv");
is(scalar @files, 1, 'the unit\'s command: today\'s file');
($rc, $out, $err) = run_tool([ $bin, '--from-log', @files, '--json' ]);
is($rc, 0, '--from-log of the unit\'s files: exit 0') or diag($err);
cmp_ok($live_samples // 0, '>', 0, 'the unit\'s command: samples taken');
is(decode_json($out)->{health}{samples}, $live_samples, '--from-log of the unit\'s files: the samples the run took');

done_testing();
