# pgtempo-bench -i against the system's pgbench -i: the same option checks
# and messages, and for each combination of initialization options the
# same tables (pg_dump --schema-only), the same rows (a checksum of every
# table), the same steps in the same order with the same messages.  Rows
# are loaded with COPY ... FREEZE as PostgreSQL 18's pgbench does, for all
# three tables.  SIGINT cancels the statement the server is running.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IPC::Run;
use PgTempo::Test;
use Test::More;

my $ours = pgtempo_bin('pgtempo-bench');
my $ref = pg_reference('pgbench');
my $node = new_cluster('bench_init');
my @conn = ('-h', $node->host, '-p', $node->port);
my $ref_major = $ref ? ((`"$ref" --version` =~ /(\d+)/)[0] // 0) : 0;
my $server_major = int($node->safe_psql('postgres', 'SHOW server_version_num') / 10000);

# stderr with the program name replaced and the timings masked
sub normalize
{
	my ($err) = @_;
	$err =~ s/^(pgbench|pgtempo-bench): /PROG: /mg;
	$err =~ s/Try "(pgbench|pgtempo-bench) --help"/Try "PROG --help"/g;
	$err =~ s/\d+\.\d\d s\b/T s/g;
	return $err;
}

# The progress lines as "N of T (P%)", whichever version wrote them;
# pgbench 15 leaves out the table name that newer versions print.  With
# -q (quiet) only the 100% lines: the others depend on the clock.
sub progress_lines
{
	my ($err, $quiet) = @_;
	my @l = $err =~ /^(\d+ of \d+ tuples \(\d+%\)) (?:of \w+ )?done \(elapsed/mg;
	return [ $quiet ? grep { /\(100%\)/ } @l : @l ];
}

# Everything but the progress lines.
sub skeleton
{
	my ($err) = @_;
	return join '', grep { !/^\d+ of \d+ tuples / } split /^/, normalize($err);
}

# ---------------------------------------------------------------- option checks

SKIP:
{
	skip 'the system pgbench is not installed: no reference to compare with', 30
	  unless $ref;

	my @cases = (
		[ '-i', '-I', 'dtxgv' ],
		[ '-i', '-I', '' ],
		[ '-i', '-I', 'dt', '-I', 'z' ],
		[ '-i', '--partition-method=hash' ],
		[ '-i', '--partition-method=RANGE' ],
		[ '-i', '--partition-method=list', '--partitions=2' ],
		[ '-i', '--partitions=-1' ],
		[ '-i', '--partitions=x' ],
		[ '-i', '-F', '5' ],
		[ '-i', '-F', '101' ],
		[ '-i', '-F', 'x' ],
		[ '-i', '-s', '0' ],
		[ '-i', '-c', '3' ],
		[ '--foreign-keys' ],
		[ '-i', 'db1', 'db2' ],
	);
	for my $args (@cases)
	{
		my $label = join ' ', map { $_ eq '' ? "''" : $_ } @$args;
		my ($rr, undef, $rerr) = run_tool([ $ref, @conn, @$args ]);
		my ($or, undef, $oerr) = run_tool([ $ours, @conn, @$args ]);
		is($or, $rr, "$label: exit status $rr as pgbench");
		is(normalize($oerr), normalize($rerr), "$label: pgbench's messages");
	}
}

# ---------------------------------------------------------------- same tables, same rows

my $tsdir = tempdir(CLEANUP => 1);
mkdir "$tsdir/$_" or die "mkdir: $!" for qw(t1 t2);
$node->safe_psql('postgres', "create tablespace init_ts location '$tsdir/t1'");
$node->safe_psql('postgres', qq{create tablespace "Init Idx" location '$tsdir/t2'});
my $have_visibility = $node->safe_psql('postgres',
	"select count(*) from pg_available_extensions where name = 'pg_visibility'") eq '1';

# The schema without pg_dump's per-run restrict key and comments.
sub schema
{
	my ($db) = @_;
	my ($rc, $out, $err) = run_tool([ 'pg_dump', '--schema-only', @conn, $db ]);
	die "pg_dump $db failed: $err" if $rc != 0;
	return join '', grep { !/^\\(un)?restrict / && !/^--/ && !/^$/ } split /^/, $out;
}

# Row counts and a checksum of each table's rows (a sum of row hashes:
# the same whatever the order the rows are read in).
sub contents
{
	my ($db) = @_;
	return $node->safe_psql($db, join ' union all ',
		map { "select '$_', count(*), sum(hashtextextended(x::text, 0)::numeric) from $_ x" }
		  qw(pgbench_accounts pgbench_branches pgbench_tellers pgbench_history));
}

# Each program has its database, in which both go through the same cases
# in the same order: what one finds left by the case before, so does the
# other.
my ($refdb, $ourdb) = ('init_ref', 'init_ours');
$node->safe_psql('postgres', "create database $_") for ($refdb, $ourdb);

# Run pgbench and ours with the same options; compare.
sub compare_init
{
	my ($label, $args, %o) = @_;

	my ($or, undef, $oerr) = run_tool([ $ours, '-i', @conn, @$args, $ourdb ]);
	is($or, 0, "$label: exit 0");
	like($oerr, qr/^done in \d+\.\d\d s \(.*\)\.\n\z/m, "$label: ends with the done line");
	if ($o{progress})
	{
		is_deeply(progress_lines($oerr, $o{quiet}), $o{progress}, "$label: progress lines");
		like($oerr, qr/^\d+ of \d+ tuples \(\d+%\) of pgbench_accounts done \(elapsed \d+\.\d\d s, remaining \d+\.\d\d s\)$/m,
			"$label: progress lines name the table, as newer pgbench versions do")
		  if @{ $o{progress} };
	}
	if ($o{visibility} && $have_visibility)
	{
		# COPY FREEZE: every page of the three tables is frozen
		$node->safe_psql($ourdb, 'create extension pg_visibility');
		for my $t (qw(pgbench_branches pgbench_tellers pgbench_accounts))
		{
			is($node->safe_psql($ourdb,
					"select all_frozen > 0 and all_frozen = pg_relation_size('$t') / "
					  . "current_setting('block_size')::int "
					  . "from pg_visibility_map_summary('$t')"),
				't', "$label: $t was loaded frozen");
		}
		$node->safe_psql($ourdb, 'drop extension pg_visibility');
	}

  SKIP:
	{
		skip "$label: the system pgbench is not installed", 5 unless $ref;
		# a server 18 or later refuses an unlogged partitioned table, which
		# pgbench before 18 creates: there is nothing to compare with
		skip "$label: pgbench $ref_major cannot do this on PostgreSQL $server_major", 5
		  if $o{unlogged_partitions} && $ref_major < 18 && $server_major >= 18;
		my ($rr, undef, $rerr) = run_tool([ $ref, '-i', @conn, @$args, $refdb ]);
		is($rr, 0, "$label: pgbench exit 0");
		is(skeleton($oerr), skeleton($rerr), "$label: the steps and messages of pgbench");
		is_deeply(progress_lines($oerr, $o{quiet}), progress_lines($rerr, $o{quiet}),
			"$label: progress lines where pgbench prints them")
		  unless $o{own_progress};
		my ($our_schema, $ref_schema) = (schema($ourdb), schema($refdb));
		# --unlogged-tables with partitions: we leave the four tables logged
		# and make the partitions unlogged, as pgbench 18 does; pgbench
		# before 18 made all of them unlogged
		$ref_schema =~ s/^CREATE UNLOGGED TABLE (public\.pgbench_(?:accounts|branches|tellers|history) )/CREATE TABLE $1/mg
		  if $o{unlogged_partitions} && $ref_major < 18;
		is($our_schema, $ref_schema, "$label: pg_dump --schema-only as pgbench's");
		is(contents($ourdb), contents($refdb), "$label: the rows of pgbench's tables");
	}
	return ($ourdb, $oerr);
}

compare_init('defaults, -s 2', [ '-s', '2' ],
	progress => [ '100000 of 200000 tuples (50%)', '200000 of 200000 tuples (100%)' ],
	visibility => 1);
compare_init('-q', [ '-q', '-s', '2' ], progress => [ '200000 of 200000 tuples (100%)' ],
	quiet => 1);
# pgbench 15 INSERTs the tellers; newer versions COPY them, with progress lines
compare_init('-q -s 10: tellers reach a multiple of 100', [ '-q', '-s', '10', '-I', 'dtg' ],
	progress => [ '100 of 100 tuples (100%)', '1000000 of 1000000 tuples (100%)' ],
	quiet => 1, own_progress => 1);
compare_init('-F 80 --foreign-keys --unlogged-tables',
	[ '-F', '80', '--foreign-keys', '--unlogged-tables' ]);
compare_init('-n', [ '-n' ]);
compare_init('steps with spaces, -n drops v', [ '-n', '-I', 'd t g v p' ]);
{
	my (undef, $err) = compare_init('--foreign-keys with f already there',
		[ '--foreign-keys', '-I', 'dtgpf' ]);
	is(scalar(() = $err =~ /^creating foreign keys\.\.\.$/mg), 1, 'f is not added twice');
}
compare_init('server-side generation', [ '-I', 'dtGvpf', '-s', '2' ]);
{
	my (undef, $err) = compare_init('steps in the given order', [ '-I', 'dtpgv' ]);
	like($err, qr/^creating primary keys\.\.\.\ngenerating data \(client-side\)\.\.\.\n.*^vacuuming\.\.\.\n/ms,
		'steps in the given order: p, then g, then v');
	like($err, qr/\(drop tables [0-9.]+ s, create tables [0-9.]+ s, primary keys [0-9.]+ s, client-side generate [0-9.]+ s, vacuum [0-9.]+ s\)\.$/m,
		'steps in the given order: timed in that order');
}
compare_init('--partitions (range)', [ '--partitions=3', '-s', '2' ]);
compare_init('--partitions hash, unlogged, -F',
	[ '--partitions=4', '--partition-method=hash', '--unlogged-tables', '-F', '90' ],
	unlogged_partitions => 1);
{
	# with --foreign-keys too, which a server from 18 on refuses when a
	# logged table references an unlogged one: the four tables logged (p),
	# the partitions unlogged (u), on any server
	my ($db) = compare_init('--partitions, unlogged, --foreign-keys',
		[ '--partitions=3', '--unlogged-tables', '--foreign-keys' ], unlogged_partitions => 1);
	is($node->safe_psql($db, "select string_agg(relname || ' ' || relpersistence::text, ', ' order by relname) "
			  . "from pg_class where relname ~ '^pgbench_[a-z]+(_[0-9]+)?\$'"),
		'pgbench_accounts p, pgbench_accounts_1 u, pgbench_accounts_2 u, pgbench_accounts_3 u, '
		  . 'pgbench_branches p, pgbench_history p, pgbench_tellers p',
		'--partitions, unlogged, --foreign-keys: logged tables, unlogged partitions');
}
compare_init('--partitions more than rows per partition', [ '--partitions=7', '-I', 'dtGp' ]);
compare_init('tablespaces', [ '--tablespace=init_ts', '--index-tablespace=Init Idx', '--foreign-keys' ]);
compare_init('aid is bigint from scale 20000', [ '-s', '20000', '-I', 'dt' ]);
compare_init('scale 19999 keeps int', [ '-s', '19999', '-I', 'dt' ]);

# g on tables that exist and hold rows: truncated first, keys kept
{
	my ($db) = compare_init('reload', [ '--foreign-keys', '-s', '1' ]);
	my ($rc, undef, $err) = run_tool([ $ours, '-i', @conn, '-I', 'g', '-s', '2', $db ]);
	is($rc, 0, 'g again on loaded tables: exit 0');
	is($node->safe_psql($db, 'select count(*) from pgbench_accounts'), '200000',
		'g again: the new scale\'s rows');
	# PostgreSQL 18 lists NOT NULL constraints there too (contype n)
	is($node->safe_psql($db, "select string_agg(conname, ',' order by conname) from pg_constraint "
			  . "where conrelid = 'pgbench_accounts'::regclass and contype <> 'n'"),
		'pgbench_accounts_bid_fkey,pgbench_accounts_pkey', 'g again: the keys are still there');
}

# -d/--dbname (PostgreSQL 17's meaning) and -U instead of the positional name
{
	my $user = (getpwuid($<))[0];
	$node->safe_psql('postgres', 'create database init_dflag');
	for my $dbopt ([ '-d', 'init_dflag' ], [ '--dbname=init_dflag' ])
	{
		$node->safe_psql('init_dflag', 'drop table if exists pgbench_branches');
		my ($rc, undef, $err) = run_tool([ $ours, '-i', '-I', 'dt', @conn, '-U', $user, @$dbopt ]);
		is($rc, 0, "@$dbopt -U: exit 0");
		is($node->safe_psql('init_dflag', "select to_regclass('pgbench_branches') is not null"),
			't', "@$dbopt -U: the tables are in that database");
	}
}

# ---------------------------------------------------------------- server errors

SKIP:
{
	skip 'the system pgbench is not installed', 12 unless $ref;
	my @cases = (
		[ 'a tablespace that does not exist', [ '--tablespace=no_such_ts' ] ],
		[ 'quoted in the message', [ '--index-tablespace=No "ts"', '-I', 'dtp' ] ],
		[ 'g without tables', [ '-I', 'dg' ] ],
		[ 'a database that does not exist', [], 'no_such_db' ],
	);
	$node->safe_psql('postgres', "create database $_") for qw(err_ref err_ours);
	for my $c (@cases)
	{
		my ($label, $args, $db) = @$c;
		my ($rr, undef, $rerr) = run_tool([ $ref, '-i', @conn, @$args, $db // 'err_ref' ]);
		my ($or, undef, $oerr) = run_tool([ $ours, '-i', @conn, @$args, $db // 'err_ours' ]);
		is($or, 1, "$label: exit 1");
		is($or, $rr, "$label: pgbench's exit status");
		is(normalize($oerr), normalize($rerr), "$label: pgbench's messages");
	}
}

# ---------------------------------------------------------------- SIGINT

# The statements of other sessions still running: none may be left.
sub running
{
	my ($pattern) = @_;
	return $node->safe_psql('postgres',
		"select count(*) from pg_stat_activity where pid <> pg_backend_pid() "
		  . "and state = 'active' and query ilike '$pattern'");
}

$node->safe_psql('postgres', 'create database sigint');
for my $case (
	[ 'client-side generate', [ '-I', 'dtgvp', '-s', '50' ], qr/^\d+ of \d+ tuples /m, 'copy %' ],
	[ 'server-side generate', [ '-I', 'dtGvp', '-s', '50' ], qr/^generating data \(server-side\)\.\.\.$/m,
		'insert %' ],
  )
{
	my ($step, $args, $wait_for, $pattern) = @$case;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start([ $ours, '-i', @conn, @$args, 'sigint' ],
		'<', \'', '>', \$out, '2>', \$err, IPC::Run::timeout(300));
	$h->pump until $err =~ $wait_for;
	# let the statement get going on the server
	select(undef, undef, undef, 0.3);
	$h->signal('INT');
	$h->finish;
	my $rc = $h->full_result(0) >> 8;
	print "# stderr:\n$err";
	is($rc, 130, "SIGINT during $step: exit 130");
	like($err, qr/^Cancel request sent$/m, "SIGINT during $step: cancel request sent");
	like($err, qr/^pgtempo-bench: error: initialization canceled by user during "\Q$step\E"$/m,
		"SIGINT during $step: says so");
	unlike($err, qr/^(vacuuming|creating primary keys|done in)/m,
		"SIGINT during $step: the steps after it did not run");
	is(running($pattern), '0', "SIGINT during $step: no backend still runs it");
	is($node->safe_psql('sigint', 'select count(*) from pgbench_accounts'), '0',
		"SIGINT during $step: the load was rolled back");
}

done_testing();
