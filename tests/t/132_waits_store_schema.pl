# pgtempo-waits --store against its own log: the store's tables are made of
# the log schema's columns (format.h), so every column of every stored row
# must hold what the log's record of the same row holds.  One run of raw
# samples, one of interval profiles with a head blocker, each written to a
# log and to a store database at once; then every row of each table is
# matched to its log record, column by column, and every column of each
# table must be a member of the log's records.

use strict;
use warnings;

use File::Temp qw(tempdir);
use JSON::PP;
use PgTempo::Test;
use Test::More;

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_store_schema', conf => "compute_query_id = on\n");
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres', '--source=activity');
my $dir = tempdir(CLEANUP => 1);
my $store = sprintf('host=%s port=%d dbname=fleet', $node->host, $node->port);

$node->safe_psql('postgres', 'CREATE TABLE t (i int)');
$node->safe_psql('postgres', q{CREATE DATABASE fleet ENCODING 'UTF8' TEMPLATE template0 LOCALE 'C'});

# a lock wait (blockers, a head blocker with a transaction) and a sleeper
my ($holder, $holder_pid, $waiter, $waiter_pid, $sleeper, $sleeper_pid) = start_lock_and_sleep($node);

# A timestamp as format_ts writes it, from the log's or from the store's JSON.
sub norm_ts
{
	my ($s) = @_;
	return $s
	  unless defined $s && $s =~ /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(?:Z|\+00(?::00)?)$/;
	return $1 . '.' . substr(($2 // '') . '000000', 0, 6) . 'Z';
}

# Is a stored value the logged one?  None and an empty array are one; numbers to 1e-3.
sub same_value
{
	my ($log, $db) = @_;
	for ($log, $db)
	{
		$_ = undef if ref $_ eq 'ARRAY' && !@$_;
	}
	return !defined $log && !defined $db if !defined $log || !defined $db;
	return join(',', @$log) eq join(',', @$db) if ref $log eq 'ARRAY' && ref $db eq 'ARRAY';
	my $num = qr/^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/;
	return abs($log - $db) <= 1e-3 * (1 + abs($log)) if $log =~ $num && $db =~ $num;
	return norm_ts($log) eq norm_ts($db);
}

# The rows of a store table as hashes (timestamps in UTC), and its columns in order.
sub table_rows
{
	my ($table, $label) = @_;
	my $cols = $node->safe_psql('fleet', qq{SELECT string_agg(column_name, ',' ORDER BY ordinal_position)
		FROM information_schema.columns WHERE table_name = '$table'});
	my $json = $node->safe_psql('fleet',
		qq{SET TimeZone = 'UTC'; SELECT row_to_json(t) FROM $table t WHERE server = '$label'});
	return ([ split /,/, $cols ], [ map { decode_json($_) } grep { /\S/ } split /\n/, $json ]);
}

# Every row of table under label matched to the log record of its key, every column compared.
sub check_table
{
	my ($what, $table, $label, $records, $key, $optional) = @_;
	my ($cols, $rows) = table_rows($table, $label);
	my %members = map { %$_ } @$records;
	my @missing = grep { $_ ne 'server' && !exists $members{$_} && !$optional->{$_} } @$cols;
	is_deeply(\@missing, [], "$what: every column of $table is a member of the log's records");
	cmp_ok(scalar @$rows, '>', 0, "$what: $table has rows");
	my $key_of = sub {
		my ($r) = @_;
		return join('|', map { norm_ts($r->{$_}) // '' } @$key);
	};
	my %by_key = map { ($key_of->($_) => $_) } @$records;
	my ($matched, @differ) = (0);
	for my $row (@$rows)
	{
		my $k = $key_of->($row);
		my $rec = $by_key{$k} or next;
		$matched++;
		for my $c (grep { $_ ne 'server' } @$cols)
		{
			push @differ, "$k $c: log " . encode_json([ $rec->{$c} ]) . ', store '
			  . encode_json([ $row->{$c} ])
			  unless same_value($rec->{$c}, $row->{$c});
		}
	}
	is($matched, scalar @$rows, "$what: every stored row is a record of the log");
	is_deeply(\@differ, [], "$what: every column of every row is the log's");
}

# Records of the given types from a JSON Lines log.
sub log_records
{
	my ($path, @types) = @_;
	my %want = map { $_ => 1 } @types;
	open my $fh, '<', $path or die "$path: $!";
	return [ grep { $want{ $_->{type} } } map { decode_json($_) } <$fh> ];
}

# ---------------------------------------------------------------- raw samples

my ($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '2', "--store=$store", '--store-label=raw',
	"--log=$dir/raw.jsonl", '--query-text=40', '--cost-budget=0' ]);
is($rc, 0, 'raw: exit 0') or diag($err);
check_table('raw', 'pgtempo_waits_samples', 'raw', log_records("$dir/raw.jsonl", 'sample'),
	[ 'ts', 'pid' ], {});
is($node->safe_psql('fleet', qq{SELECT count(*) FROM pgtempo_waits_samples
	WHERE server = 'raw' AND pid = $waiter_pid AND blockers = '{$holder_pid}'}) > 0, 1,
	'raw: the waiter\'s blockers arrived');

# ---------------------------------------------------------------- interval profiles and heads

($rc, $out, $err) = run_tool([ $bin, @conn, '-T', '3', "--store=$store", '--store-label=agg',
	'--store-interval=1', "--log=$dir/agg.jsonl", '--log-interval=1', '--query-text=40',
	'--cost-budget=0' ]);
is($rc, 0, 'intervals: exit 0') or diag($err);
# a source that measures no wait time has no measured_ columns in its log
check_table('intervals', 'pgtempo_waits_profile', 'agg', log_records("$dir/agg.jsonl", 'interval'),
	[ qw(interval_start datname usename application_name backend_type wait_event_type wait_event
		  query_id) ], { measured_seconds => 1, measured_count => 1 });
check_table('heads', 'pgtempo_waits_heads', 'agg', log_records("$dir/agg.jsonl", 'head'),
	[ 'interval_start', 'pid' ], {});
is($node->safe_psql('fleet', qq{SELECT count(*) FROM pgtempo_waits_heads
	WHERE server = 'agg' AND pid = $holder_pid AND xact_start IS NOT NULL}) > 0, 1,
	'heads: the holder\'s transaction start arrived');

$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'w\_%'});
done_testing();
