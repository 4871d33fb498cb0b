# pgtempo-waits: command-line options, help, version, every usage error, and
# the errors that must stop a run before it starts (exit status 1).

use strict;
use warnings;

use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');
my $try = qq{pgtempo-waits: hint: Try "pgtempo-waits --help" for more information.\n};

# ---------------------------------------------------------------- help and version

for my $opt ('--help', '-?')
{
	my ($rc, $out, $err) = run_tool([ $bin, $opt ]);
	is($rc,  0,  "$opt: exit 0");
	is($err, '', "$opt: nothing on stderr");
	like($out, qr/^Usage:\n  pgtempo-waits \[OPTION\]\.\.\. \[DBNAME\]$/m, "$opt: usage line");
	for my $o (
		qw(--interval=TIME --duration=TIME --source=SOURCE --include-idle
		--query-text[=CHARS] --pid=PID --db=NAME --user=NAME --application-name=NAME
		--backend-type=TYPE --by=DIMS --json --log=FILE --log-format=FORMAT
		--log-interval=SECONDS --folded=FILE --top --store=CONNINFO
		--store-interval=SECONDS --store-label=TEXT --dbname=DBNAME --host=HOSTNAME
		--port=PORT --username=USERNAME --no-password --password --version --help))
	{
		like($out, qr/\Q$o\E/, "$opt: mentions $o");
	}
	like($out, qr/See 'man pgtempo-waits' for more information\.\n\z/,
		"$opt: ends with the man page pointer");
}

for my $opt ('-V', '--version')
{
	my ($rc, $out, $err) = run_tool([ $bin, $opt ]);
	is($rc, 0, "$opt: exit 0");
	like($out, qr/^pgtempo-waits \(pgtempo\) \d+\.\d+\.\d+\n\z/, "$opt: version line");
}

# ---------------------------------------------------------------- usage errors

my $time_forms = 'ISO 8601 such as 2026-11-26T03:10+01:00 or 2026-11-26T02:10Z, or without an '
  . 'offset in local time; a time of today such as 03:10; or @EPOCH';
my $by_list = 'must be a comma-separated list of event, pid, query, db, user, app, backend_type';
my @errors = (
	[ [ '-i', '0' ],         '-i/--interval must be between 10 us and 1 min' ],
	[ [ '-i', '5us' ],       '-i/--interval must be between 10 us and 1 min' ],
	[ [ '-i', '2min' ],        '-i/--interval must be between 10 us and 1 min' ],
	[ [ '-i', 'fast' ],      qq{invalid value "fast" for option -i/--interval} ],
	[ [ '-i', '10 parsecs' ], qq{invalid value "10 parsecs" for option -i/--interval} ],
	[ [ '--interval=' ],     qq{invalid value "" for option -i/--interval} ],
	[ [ '-T', '0' ],         '-T/--duration must be between 1 ms and 168 h' ],
	[ [ '-T', '-3' ],        '-T/--duration must be between 1 ms and 168 h' ],
	[ [ '-T', 'x' ],         qq{invalid value "x" for option -T/--duration} ],
	[ [ '--source=pgsentinel' ],
		qq{invalid value "pgsentinel" for option --source: must be auto, activity, pg_wait_sampling or pg_stat_wait} ],
	[ [ '--by=wait' ],       qq{invalid value "wait" for option --by: $by_list} ],
	[ [ '--by=event,' ],     qq{invalid value "event," for option --by: $by_list} ],
	[ [ '--by=pid,db,pid' ], qq{invalid value "pid,db,pid" for option --by: "pid" is listed twice} ],
	[ [ '--pid=0' ],
		qq{invalid value "0" for option --pid: must be a process ID or a comma-separated list of them} ],
	[ [ '--pid=12,x' ],
		qq{invalid value "12,x" for option --pid: must be a process ID or a comma-separated list of them} ],
	[ [ '--query-text=0' ],  '--query-text must be between 1 and 1000000 characters' ],
	[ [ '--query-text=lots' ], qq{invalid value "lots" for option --query-text} ],
	[ [ '--log=x.csv', '--log-format=xml' ],
		qq{invalid value "xml" for option --log-format: must be csv or jsonl} ],
	[ [ '--log-format=csv' ], '--log-format needs --log' ],
	[ [ '--log-interval=5' ], '--log-interval needs --log or --metrics' ],
	[ [ '--log=x', '--log-interval=0.5' ], '--log-interval must be between 1 s and 24 h' ],
	[ [ '--log=' ],          qq{invalid value "" for option --log} ],
	[ [ '--folded=' ],       qq{invalid value "" for option --folded} ],
	[ [ '--store-interval=10' ], '--store-interval needs --store' ],
	[ [ '--store-label=a' ], '--store-label needs --store' ],
	[ [ '--web-config-file=web.yml' ], '--web-config-file needs --listen' ],
	[ [ 'db1', 'db2' ],      qq{too many command-line arguments (first is "db2")} ],
	[ [ '-d', 'db1', 'db2' ], qq{too many command-line arguments (first is "db2")} ],
	[ [ '-x' ],              "invalid option -- 'x'" ],
	[ [ '--bogus' ],         qq{unrecognized option "--bogus"} ],
	[ [ '-i' ],              "option requires an argument -- 'i'" ],
	[ [ '--by' ],            qq{option "--by" requires an argument} ],
	# one time parser: a time that is not a real instant is refused, local or not
	(map { [ [ '--from-log=x', "--since=$_" ],
		qq{invalid value "$_" for option --since: not a valid time ($time_forms)} ] }
		'2026-02-31T00:00Z', '2026-02-31T00:00', '2026-11-26T24:61', '25:00', '2026-13-01',
		'2026-11-26T03:10+24:00', '@12x'),
	[ [ '--from-log=x', '--until=2026-02-29' ],
		qq{invalid value "2026-02-29" for option --until: not a valid time ($time_forms)} ],);

for my $case (@errors)
{
	my ($args, $msg) = @$case;
	my ($rc, $out, $err) = run_tool([ $bin, @$args ]);
	is($rc,  1,  "@$args: exit 1");
	is($out, '', "@$args: nothing on stdout");
	is($err, "pgtempo-waits: error: $msg\n$try", "@$args: message");
}

# ---------------------------------------------------------------- errors at the start

# No server: a connection error is exit status 1 with libpq's message, and no report.
my $nohost = '/nonexistent/pgtempo-waits-socket-dir';
my ($rc, $out, $err) = run_tool([ $bin, '-h', $nohost, '-p', '5', '-T', '1' ],
	env => { PGPASSWORD => undef, PGSERVICE => undef });
is($rc,  1,  'no server: exit 1');
is($out, '', 'no server: no report');
like($err, qr/^pgtempo-waits: error: connection to server on socket "\Q$nohost\E\/\.s\.PGSQL\.5" failed: No such file or directory/,
	'no server: libpq says why');

# Outputs are opened before connecting: an unwritable log fails at once.
($rc, $out, $err) = run_tool([ $bin, '-h', $nohost, '--log=/nonexistent/dir/w.csv' ]);
is($rc, 1, 'unwritable log: exit 1');
is($err,
	qq{pgtempo-waits: error: could not open file "/nonexistent/dir/w.csv" for writing: No such file or directory\n},
	'unwritable log: message names the file');
($rc, $out, $err) = run_tool([ $bin, '-h', $nohost, '--folded=/nonexistent/dir/w.folded' ]);
is($rc, 1, 'unwritable folded file: exit 1');
is($err,
	qq{pgtempo-waits: error: could not open file "/nonexistent/dir/w.folded" for writing: No such file or directory\n},
	'unwritable folded file: message names the file');

done_testing();
