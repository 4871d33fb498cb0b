
# Helpers for pgtempo's Perl TAP tests; run them with tests/prove.sh.

=pod

=head1 NAME

PgTempo::Test - find the built tools, run them, start a throwaway cluster

=head1 SYNOPSIS

  use strict;
  use warnings;
  use PgTempo::Test;
  use Test::More;

  my ($rc, $out, $err) = run_tool([ pgtempo_bin('pg_test_timing'), '-d', '1' ]);
  is($rc, 0, 'exit status');

  my $node = new_cluster('main');
  is($node->safe_psql('postgres', 'SELECT 1'), '1', 'query');
  ($rc, $out, $err) = run_tool([ pgtempo_bin('pgtempo-bench'), '-n', '-t', '1',
      '-d', $node->connstr('postgres') ]);

  done_testing();

=head1 ENVIRONMENT

tests/prove.sh sets these: PGTEMPO_BINDIR (the built binaries),
PGTEMPO_SRCDIR (the source tree's copy of tests/), TESTDIR (tmp_check goes
there), PG_REGRESS, and PATH with the PostgreSQL server's bin directory first.

=cut

package PgTempo::Test;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(pgtempo_bin run_tool new_cluster pg_reference start_session start_lock_and_sleep write_file
  slurp_lines slurp_text event_description_re SHORT_RUN);

# The -T of a short pgtempo-waits run that must connect and sample.  -T also
# bounds connecting and the setup queries (the man page says so), and on a
# machine running other work beside an ASan build a backend has taken more
# than 0.5 s to answer the first query: a run shorter than this can fail for
# reasons that are not the test's.
use constant SHORT_RUN => '2';

# At most this many bytes of a tool's stdout and of its stderr go to the log.
my $log_limit = 8000;

=pod

=head1 FUNCTIONS

=over

=item pgtempo_bin($name)

Full path of the built binary C<$name> (e.g. C<pg_test_timing>) in
C<$PGTEMPO_BINDIR>.  Bails out of the whole run if it is missing: a test of a
tool that was not built must not pass or skip.

=cut

sub pgtempo_bin
{
	my ($name) = @_;
	my $dir = $ENV{PGTEMPO_BINDIR};

	BAIL_OUT('PGTEMPO_BINDIR is not set: run the tests with "make check" '
		  . 'or tests/prove.sh')
	  unless defined $dir && $dir ne '';
	my $path = "$dir/$name";
	BAIL_OUT("$name not built: $path is not an executable file")
	  unless -f $path && -x _;
	return $path;
}

=pod

=item pg_reference($name)

Full path of PostgreSQL's own C<$name> (e.g. C<pgbench>, C<pg_test_timing>)
from C<$PGTEMPO_REFERENCE_BINDIR> (tools/matrix.sh --reference15 keeps
PostgreSQL 15's tools there while the server is newer), else the server bin
directory in C<$PG_BINDIR>, else the newest installation under
F</usr/lib/postgresql>; C<undef> if there is none, so a differential test
can skip visibly.

=cut

sub pg_reference
{
	my ($name) = @_;
	my @dirs;

	push @dirs, $ENV{PGTEMPO_REFERENCE_BINDIR} if $ENV{PGTEMPO_REFERENCE_BINDIR};
	push @dirs, $ENV{PG_BINDIR} if $ENV{PG_BINDIR};
	push @dirs,
	  map { $_->[1] }
	  sort { $b->[0] <=> $a->[0] }
	  map { [ (m{/(\d+)/bin$})[0] || 0, $_ ] } glob('/usr/lib/postgresql/*/bin');
	for my $d (@dirs)
	{
		return "$d/$name" if -x "$d/$name";
	}
	return undef;
}

=pod

=item run_tool(\@cmd, %opts)

Run C<@cmd> (no shell) and return C<($exit_code, $stdout, $stderr)>.  A
command killed by a signal returns 128 + the signal number, as a shell would.

Options: C<stdin> (a string fed to the command, default empty), C<env> (a hash
of variables to set, or to delete with C<undef>, for this command only),
C<timeout> (seconds, default C<$PG_TEST_TIMEOUT_DEFAULT> or 180).  A command
that times out is killed and the test script dies.

The command, its exit code and its output are written to the test's log.

=cut

sub run_tool
{
	my ($cmd, %opts) = @_;
	my $stdin = defined $opts{stdin} ? $opts{stdin} : '';
	my $timeout =
	  defined $opts{timeout}
	  ? $opts{timeout}
	  : $PostgreSQL::Test::Utils::timeout_default;
	my ($stdout, $stderr) = ('', '');

	local %ENV = %ENV;
	while (my ($k, $v) = each %{ $opts{env} || {} })
	{
		if (defined $v) { $ENV{$k} = $v; }
		else            { delete $ENV{$k}; }
	}

	print '# Running: ' . join(' ', @$cmd) . "\n";
	my $timer = IPC::Run::timeout($timeout);
	my $h = IPC::Run::start($cmd, '<', \$stdin, '>', \$stdout, '2>', \$stderr,
		$timer);
	eval { $h->finish; 1 } or do {
		my $err = $@;
		$h->kill_kill;
		die "command timed out after $timeout s: @$cmd\n"
		  if $timer->is_expired;
		die $err;
	};

	my $status = $h->full_result(0);
	my $code = ($status & 127) ? 128 + ($status & 127) : $status >> 8;

	print "# exit code: $code\n";
	_log_output('stdout', $stdout);
	_log_output('stderr', $stderr);
	return ($code, $stdout, $stderr);
}

=pod

=item slurp_lines(PATH)

The lines of the file PATH without their newlines; an empty list when it
cannot be read (a log a tool did not write).

=cut

# The whole file, or undef when it cannot be read.
sub slurp_text
{
	my ($path) = @_;
	open my $fh, '<', $path or return undef;
	local $/;
	my $text = <$fh>;
	close $fh;
	return $text;
}

sub slurp_lines
{
	my ($file) = @_;
	open my $fh, '<', $file or return ();
	my @l = <$fh>;
	close $fh;
	chomp @l;
	return @l;
}

=pod

=item write_file(PATH, TEXT)

Write TEXT to the file PATH (dying if it cannot) and return PATH.

=cut

sub write_file
{
	my ($path, $text) = @_;
	open my $fh, '>', $path or die "cannot write $path: $!";
	print $fh $text;
	close $fh or die "cannot write $path: $!";
	return $path;
}

# Copy a command's output into the test log, cut short if it is long.
sub _log_output
{
	my ($what, $text) = @_;
	return if $text eq '';
	my $shown = substr($text, 0, $log_limit);
	print "# $what:\n$shown";
	print "\n" unless $shown =~ /\n\z/;
	printf "# ... %d more bytes of %s not shown\n", length($text) - $log_limit,
	  $what
	  if length($text) > $log_limit;
	return;
}

=pod

=item new_cluster($name, %opts)

Create, initialize (initdb -A trust) and start a PostgreSQL::Test::Cluster and
return it; it is stopped when the test script ends.  C<$name> must match
C</^[-_a-zA-Z0-9]+$/>.  Option C<conf> is a string appended to
postgresql.conf before the start; other options go to
C<PostgreSQL::Test::Cluster::init> (e.g. C<extra =E<gt> ['--locale=C']>).

The server listens on a Unix socket only: connect with C<$node-E<gt>connstr($db)>
or with C<env =E<gt> { PGHOST =E<gt> $node-E<gt>host, PGPORT =E<gt> $node-E<gt>port }>.

=cut

sub new_cluster
{
	my ($name, %opts) = @_;
	my $conf = delete $opts{conf};

	BAIL_OUT('PostgreSQL refuses to run as root: run the tests with '
		  . '"make check" or tests/prove.sh, which run them as an '
		  . 'unprivileged user')
	  if $> == 0;
	BAIL_OUT("invalid cluster name \"$name\"")
	  unless defined $name && $name =~ /^[-_a-zA-Z0-9]+$/;
	BAIL_OUT('initdb is not in PATH: install postgresql-15 and run the '
		  . 'tests with tests/prove.sh, which finds it')
	  unless grep { -x "$_/initdb" } split /:/, ($ENV{PATH} || '');

	# Cluster.pm's init runs "$PG_REGRESS --config-auth", a no-op off Windows.
	local $ENV{PG_REGRESS} = $ENV{PG_REGRESS} || 'true';

	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%opts);
	$node->append_conf('postgresql.conf', $conf) if defined $conf;
	$node->start;
	return $node;
}

=pod

=item event_description_re($node, $type, $event)

A regular expression (a string) matching what a text report prints between
the row of wait event C<$type>/C<$event> and the lines under it: on
PostgreSQL 17 and later a line with the server's description of the event
(from pg_wait_events), on older servers, which have no descriptions,
nothing.

=cut

sub event_description_re
{
	my ($node, $type, $event) = @_;
	return '' if $node->safe_psql('postgres', 'SHOW server_version_num') < 170000;
	my $d = $node->safe_psql('postgres',
		"SELECT description FROM pg_catalog.pg_wait_events WHERE type = '$type' AND name = '$event'");
	return $d eq '' ? '' : '\n\s+' . quotemeta($d);
}

=pod

=item start_session($node, $app, $sql)

Open a background psql session on C<$node> with C<application_name> set to
C<$app> and return C<($session, $backend_pid)>; when C<$sql> is given, start
it without waiting for it to finish (for sessions that are to wait on a
lock, sleep or spin while a tool watches them).

=cut

sub start_session
{
	my ($node, $app, $sql) = @_;
	my $s = $node->background_psql('postgres', on_error_stop => 0);
	$s->query_safe("SET application_name = '$app'");
	my $pid = $s->query_safe('SELECT pg_backend_pid()');
	$s->query_until(qr/started/, "\\echo started\n$sql;\n") if defined $sql;
	return ($s, $pid);
}

=pod

=item start_lock_and_sleep($node [, $prefix])

The waits most waits tests watch, on a table C<t> that must exist: a session
C<w_holder> that locks C<t> in an open transaction and sleeps, C<w_lock>
waiting on that lock, and C<w_sleep> in C<pg_sleep> (C<$prefix> instead of
C<w> in the application names); returns once both
waits show in C<pg_stat_activity>, as C<($holder, $holder_pid, $waiter,
$waiter_pid, $sleeper, $sleeper_pid)>.

=cut

sub start_lock_and_sleep
{
	my ($node, $p) = @_;
	$p //= 'w';
	my ($holder, $holder_pid) = start_session($node, "${p}_holder");
	$holder->query_safe('BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
	$holder->query_until(qr/started/, "\\echo started\nSELECT pg_sleep(600);\n");
	my ($waiter, $waiter_pid) = start_session($node, "${p}_lock", "BEGIN;\nLOCK TABLE t");
	my ($sleeper, $sleeper_pid) = start_session($node, "${p}_sleep", 'SELECT pg_sleep(600)');
	$node->poll_query_until('postgres', qq{
		SELECT count(*) = 2 FROM pg_stat_activity
		WHERE (application_name = '${p}_lock' AND wait_event = 'relation')
		   OR (application_name = '${p}_sleep' AND wait_event = 'PgSleep')})
	  or die 'the induced waits did not start';
	return ($holder, $holder_pid, $waiter, $waiter_pid, $sleeper, $sleeper_pid);
}

=pod

=back

=cut

1;
