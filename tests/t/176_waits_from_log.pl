# pgtempo-waits --from-log: logs made by a real short run read back give the
# live run's report (the same numbers, text and JSON, raw rows and interval
# profiles, with the gaps of a restart), --folded and --chart from the files,
# --since/--until cut where they say, a file cut off, foreign or of another
# version is an error naming its line (--keep-going reports the others), and
# --log-retain deletes its pattern's old files and nothing else.  On
# PostgreSQL 17 and later the files describe their events (log format 2),
# and the reports from them print the descriptions as the live ones do.

use strict;
use warnings;

use File::Copy qw(copy);
use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use PgTempo::Test;
use POSIX qw(strftime);
use Test::More;
use Time::Local qw(timegm);

my $bin = pgtempo_bin('pgtempo-waits');
my $node = new_cluster('waits_from_log', conf => "compute_query_id = on\n");
# The live runs keep their rate (no cost budget): on a loaded machine the
# budget may lower it, and the samples would then stand for more time than
# one interval each, which the reports compared here do not test.
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres', '--source=activity',
	'--cost-budget=0');
my $dir = tempdir(CLEANUP => 1);
my %utc = (env => { TZ => 'UTC' });

$node->safe_psql('postgres', 'CREATE TABLE t (i int)');
my ($holder, $holder_pid, $waiter, $waiter_pid, $sleeper, $sleeper_pid) = start_lock_and_sleep($node, 'f');
my @apps = ('--application-name=f_sleep', '--application-name=f_lock', '--application-name=f_holder');

sub slurp
{
	my ($file) = @_;
	open my $fh, '<:raw', $file or die "$file: $!";
	local $/;
	my $t = <$fh>;
	close $fh;
	return $t;
}

sub spew
{
	my ($file, $text) = @_;
	open my $fh, '>:raw', $file or die "$file: $!";
	print $fh $text;
	close $fh or die "$file: $!";
}

# Run the tool; its exit code 0 is a test.
sub run_ok
{
	my ($what, @args) = @_;
	my ($rc, $out, $err) = run_tool([ $bin, @args ], %utc);
	is($rc, 0, "$what: exit 0") or diag($err);
	return $out;
}

# A JSON report without what only a live run knows: idle rows are not logged,
# the cost budget's account (a live run's own) is not repeated from files,
# the server's own counters are not logged (yet), and raw rows do not carry
# the transaction's start (a head blocker's age).
sub comparable
{
	my ($r) = @_;
	delete $r->{$_} for qw(idle_rows first_sample last_sample cost measured_by_server);
	delete $_->{xact_age_seconds} for @{ $r->{blockers}{heads} // [] };
	return $r;
}

# The text report without the lines only a live run prints: its sampling cost
# and the statement it chose, what the server measured (its last section);
# and without a head blocker's transaction age.
sub comparable_text
{
	my ($t) = @_;
	$t =~ s/^(?:cost|statement): .*\n//mg;
	$t =~ s/\nmeasured by the server: .*\z//s;
	$t =~ s/, xact [\d.]+ s//g;
	return $t;
}

# ---------------------------------------------------------------- raw JSON Lines, whole run

my $live = decode_json(run_ok('live jsonl', @conn, @apps, '-T', '3', '--json', '--by=event,app',
	"--log=$dir/raw.jsonl", "--folded=$dir/live.folded"));
# the holder, the waiter and the sleeper are active in every sample (however few a loaded machine takes)
cmp_ok($live->{health}{samples}, '>', 0, 'live: samples taken');
is($live->{active_samples}, 3 * $live->{health}{samples}, 'live: the three sessions in every sample');
my $raw_ticks = $live->{ticks};
my $back = decode_json(run_ok('from jsonl', '--from-log', "$dir/raw.jsonl", '--json',
	'--by=event,app', "--folded=$dir/back.folded", "--chart=$dir/back.svg"));
is_deeply(comparable($back), comparable({%$live}),
	'jsonl: the report from the log is the live report (profile, error bounds, health, blockers)');
is(slurp("$dir/back.folded"), slurp("$dir/live.folded"), 'jsonl: the same folded stacks');
like(slurp("$dir/back.svg"), qr/<svg.*Lock:relation/s, 'jsonl: a chart of the events');

# One rule in every tool: --json=- is --json; --json=FILE writes the same
# document to a file beside the text report.
{
	my $dash = decode_json(run_ok('from jsonl, --json=-', '--from-log', "$dir/raw.jsonl", '--json=-',
		'--by=event,app'));
	is_deeply(comparable($dash), comparable(decode_json(run_ok('from jsonl, --json', '--from-log',
		"$dir/raw.jsonl", '--json', '--by=event,app'))), '--json=-: the document of --json');
	my $text = run_ok('from jsonl, text', '--from-log', "$dir/raw.jsonl", '--by=event,app');
	is(run_ok('from jsonl, --json=FILE', '--from-log', "$dir/raw.jsonl", '--by=event,app',
		"--json=$dir/back.json"), $text, '--json=FILE: the text report on stdout, as without it');
	is_deeply(comparable(decode_json(slurp("$dir/back.json"))), comparable($dash),
		'--json=FILE: the document of --json in the file');
}
ok((grep { $_->{wait_event} eq 'relation' && @{ $_->{blockers} }
	  && $_->{blockers}[0]{pid} == $holder_pid } @{ $back->{profile} }),
	'jsonl: the blocker read back');

# The events' descriptions (17+): a description record before the first row of
# each described event, once a file, in a file of log format 2; on older servers
# the file is what it always was (log format 1, no description record).
{
	my @recs = map { decode_json($_) } split /\n/, slurp("$dir/raw.jsonl");
	my @descs = grep { $_->{type} eq 'description' } @recs;
	my %first_row;
	for my $i (0 .. $#recs)
	{
		$first_row{"$recs[$i]{wait_event_type}:$recs[$i]{wait_event}"} //= $i
		  if $recs[$i]{type} eq 'sample';
	}
	my ($relation) = grep { $_->{wait_event_type} eq 'Lock' && $_->{wait_event} eq 'relation' } @descs;
	if (event_description_re($node, 'Lock', 'relation') eq '')
	{
		is($recs[0]{log_version}, 1, 'descriptions: none before 17, log format 1');
		is(scalar @descs, 0, 'descriptions: no description record before 17');
	}
	else
	{
		is($recs[0]{log_version}, 2, 'descriptions (17+): log format 2');
		my $d = $node->safe_psql('postgres', q{SELECT description FROM pg_wait_events
			WHERE type = 'Lock' AND name = 'relation'});
		is($relation->{description}, $d, 'descriptions (17+): the server\'s text of Lock:relation');
		my %seen;
		is(scalar(grep { $seen{"$_->{wait_event_type}:$_->{wait_event}"}++ } @descs), 0,
			'descriptions (17+): each event described once in the file');
		my %at = map { ("$recs[$_]{wait_event_type}:$recs[$_]{wait_event}" => $_) }
		  grep { $recs[$_]{type} eq 'description' } 0 .. $#recs;
		is(scalar(grep { !defined $first_row{$_} || $at{$_} > $first_row{$_} } keys %at), 0,
			'descriptions (17+): each before the first row of its event');
		my ($g) = grep { $_->{wait_event} eq 'relation' } @{ $back->{profile} };
		is($g->{description}, $d, 'descriptions (17+): the report from the log describes the event');
	}
}

# the filters of a live run select the rows of the files
my $lock_rows = () = slurp("$dir/raw.jsonl") =~ /"application_name":"f_lock"/g;
my $only = decode_json(run_ok('from jsonl, one app', '--from-log', "$dir/raw.jsonl", '--json',
	'--application-name=f_lock'));
is($only->{active_samples}, $lock_rows, '--application-name: only its rows');
is($only->{ticks}, $live->{ticks}, '--application-name: the samples taken are the run\'s');
my $by_pid = decode_json(run_ok('from jsonl, one pid', '--from-log', "$dir/raw.jsonl", '--json',
	"--pid=$waiter_pid", '--db=postgres'));
is($by_pid->{active_samples}, $lock_rows, '--pid and --db: the waiter\'s rows');

# The same log as a server of 17 or later writes it (log format 2, a description
# record before the event's first row, in JSON Lines and in CSV, with text that
# needs quoting), on any server: the report from it describes the event.
{
	my $desc = 'Waiting, as "described", for
a relation';
	my $jrec = encode_json({ type => 'description', wait_event_type => 'Lock',
		wait_event => 'relation', description => $desc }) . "\n";
	# the server's own description records (17+) make way for this one
	(my $v2 = slurp("$dir/raw.jsonl")) =~ s/^\{"type":"description"[^\n]*\n//mg;
	$v2 =~ s/"log_version":1/"log_version":2/;
	$v2 =~ s/\A(.*?\n)/$1$jrec/;
	spew("$dir/described.jsonl", $v2);
	my $d = decode_json(run_ok('from described jsonl', '--from-log', "$dir/described.jsonl",
		'--json', '--by=event,app'));
	my @described = grep { defined $_->{description} } @{ $d->{profile} };
	ok(@described && !(grep { $_->{wait_event} ne 'relation' } @described),
		'described jsonl: the groups of the event described, no other');
	is($described[0]{description}, $desc, 'described jsonl: the text of the record');
	my $text = run_ok('from described jsonl, text', '--from-log', "$dir/described.jsonl");
	like($text, qr/^Lock\s+relation\s+\d+[^\n]*\n\s+Waiting, as "described", for\\na relation$/m,
		'described jsonl: the text report prints it under the row, the line break escaped')
	  or diag($text);
}

# ---------------------------------------------------------------- raw CSV, text report, --by pid

# 3 s: the cost line needs a window of 20 ms of backend CPU, some 2 s of samples
# at 100 us each (a run of 2 s missed it now and then)
my $live_text = run_ok('live csv', @conn, @apps, '-T', '3', '--by=pid,event', '--query-text',
	"--log=$dir/raw.csv");
my $back_text = run_ok('from csv', '--from-log', "$dir/raw.csv", '--by=pid,event');
is(comparable_text($back_text), comparable_text($live_text),
	'csv: the text report from the log is the live one, line for line');
# raw rows hold no measured records: one line says why, at the end
like($back_text, qr/\n\nmeasured by the server: none in the window: logs of samples hold no measured records \(--log-interval logs do\)\n\z/,
	'csv: no measured figures, one line why');
like($live_text, qr/^cost: /m, 'csv: the live report had its cost line');
like($back_text, qr/^\s*$waiter_pid\s+Lock\s+relation/m, 'csv: --by pid from raw rows');
# the CSV log as 17+ writes it (a "# description" comment after the meta one): the
# report is the same but for the description under each group of the event
{
	my $rec = encode_json({ type => 'description', wait_event_type => 'Lock',
		wait_event => 'relation', description => 'Lock, "relation"' });
	(my $plain = slurp("$dir/raw.csv")) =~ s/^# description [^\n]*\n//mg;
	(my $v2 = $plain) =~ s/"log_version":1/"log_version":2/;
	$v2 =~ s/^(# meta [^\n]*\n)/$1# description $rec\n/m;
	spew("$dir/plain.csv", $plain);
	spew("$dir/described.csv", $v2);
	my $text = run_ok('from described csv', '--from-log', "$dir/described.csv", '--by=pid,event');
	my $plain_text = run_ok('from plain csv', '--from-log', "$dir/plain.csv", '--by=pid,event');
	my $lines = () = $text =~ /^\s+Lock, "relation"$/mg;
	my $groups = () = $text =~ /^\s*\d+\s+Lock\s+relation\s/mg;
	ok($groups > 0 && $lines == $groups, "described csv: each Lock:relation group described ($lines)");
	$text =~ s/^\s+Lock, "relation"\n//mg;
	is($text, $plain_text, 'described csv: the rest of the report as without the record');
}

# ---------------------------------------------------------------- interval profiles

$live = decode_json(run_ok('live intervals', @conn, @apps, '-T', '3.5', '--json', '--by=app,event',
	"--log=$dir/iv.jsonl", '--log-interval=1'));
# JSON Lines keep every digit of the health record; CSV what the text report prints
$back = decode_json(run_ok('from intervals', '--from-log', "$dir/iv.jsonl", '--json',
	'--by=app,event'));
for my $k (qw(ticks active_samples avg_active_sessions period_s interval_s))
{
	is($back->{$k}, $live->{$k}, "intervals: $k");
}
is_deeply($back->{health}, $live->{health}, 'intervals: the health of the run');
my @strip = map { my %g = %$_; delete @g{qw(blockers lock_samples no_blocker_samples)}; \%g }
  @{ $live->{profile} };
my @bstrip = map { my %g = %$_; delete @g{qw(blockers lock_samples no_blocker_samples)}; \%g }
  @{ $back->{profile} };
is_deeply(\@bstrip, \@strip, 'intervals: the same groups, samples, shares and error bounds');
ok(!(grep { exists $_->{no_blocker_samples} } @{ $back->{profile} }),
	'intervals: no claim about blockers the profiles do not hold');
# a window of profiles: the lines whose middle falls in it, and the samples of their intervals
{
	my @ivr = grep { $_->{type} eq 'interval' } map { decode_json($_) } split /\n/, slurp("$dir/iv.jsonl");
	my %ticks = map { ($_->{interval_start} => $_->{ticks}) } @ivr;
	my @starts = sort keys %ticks;
	my %end = map { ($_->{interval_start} => $_->{interval_end}) } @ivr;
	my @pick = @starts[ 1, 2 ];
	my $want_active = 0;
	$want_active += $_->{samples} for grep { $_->{interval_start} eq $pick[0] || $_->{interval_start} eq $pick[1] } @ivr;
	# a third into the first interval, to a third before the end of the second
	my $cut = decode_json(run_ok('window of profiles', '--from-log', "$dir/iv.jsonl", '--json',
		'--since=' . ts_shift($pick[0], 300000), '--until=' . ts_shift($end{$pick[1]}, -300000)));
	is($cut->{active_samples}, $want_active, 'window of profiles: the lines of its intervals');
	cmp_ok(abs($cut->{ticks} - $ticks{$pick[0]} - $ticks{$pick[1]}), '<=', 1,
		"window of profiles: the samples of its intervals ($cut->{ticks})");
}
my ($rc, $out, $err) = run_tool([ $bin, '--from-log', "$dir/iv.jsonl", '--by=pid' ], %utc);
is($rc, 1, '--by pid of profiles: exit 1');
like($err, qr/^pgtempo-waits: error: --by pid cannot be used with "\Q$dir\E\/iv\.jsonl": its --log-interval profiles hold no sessions$/m,
	'--by pid of profiles: says which dimension the file lacks');
like($err, qr/They hold event, query, db, user, app and backend_type/, '--by pid of profiles: and which it holds');
($rc, $out, $err) = run_tool([ $bin, '--from-log', "$dir/iv.jsonl", "--pid=$waiter_pid" ], %utc);
like($err, qr/--pid cannot be used with "\Q$dir\E\/iv\.jsonl"/, '--pid of profiles: an error too');

# ---------------------------------------------------------------- rotated files, runs appended

# a new file every second: the meta record heads each, and the files read as one run
$live = decode_json(run_ok('live rotated', @conn, @apps, '-T', '2.5', '--json',
	"--log=$dir/rot-%H%M%S.jsonl"));
my @rot = glob("$dir/rot-*.jsonl");
cmp_ok(scalar @rot, '>=', 2, 'rotated: several files');
is(scalar(grep { (split /\n/, slurp($_))[0] =~ /^\{"type":"meta"/ } @rot), scalar @rot,
	'rotated: each file starts with the meta record');
$back = decode_json(run_ok('from rotated', '--from-log', @rot, '--json'));
is_deeply(comparable($back), comparable({%$live}), 'rotated: the files give the live report');
SKIP:
{
	skip 'no descriptions before PostgreSQL 17', 1 if event_description_re($node, 'Lock', 'relation') eq '';
	# each file describes the events of its rows again: a file is read alone too
	my $undescribed = 0;
	for my $file (@rot)
	{
		my $described = 0;
		for my $rec (map { decode_json($_) } split /\n/, slurp($file))
		{
			$described ||= $rec->{type} eq 'description' && $rec->{wait_event} eq 'relation';
			$undescribed++ if $rec->{type} eq 'sample' && $rec->{wait_event} eq 'relation' && !$described;
		}
	}
	is($undescribed, 0, 'rotated (17+): each file describes Lock:relation before its rows');
}

# two runs appended to one file, with time between them: that time is a gap
run_ok('first run', @conn, @apps, '-T', SHORT_RUN, "--log=$dir/two.csv");
sleep 3;
run_ok('second run', @conn, @apps, '-T', SHORT_RUN, "--log=$dir/two.csv");
$back_text = run_ok('from two runs', '--from-log', "$dir/two.csv");
like($back_text, qr/^gaps: 1 \(\d+\.\d+ s without samples\)\n  \S+ \.\. \S+  \d+\.\d+ s  no run of pgtempo-waits logged in this time$/m,
	'two runs: the time between them is a gap of the report');
my ($taken, $secs, $missed) = $back_text =~ /^sampling: (\d+) samples in ([\d.]+) s \([\d.]+\/s\), (\d+) missed ticks/m;
ok(abs($secs - 2 * SHORT_RUN) < 0.05 && abs($taken + $missed - 2 * SHORT_RUN * 100) <= 5,
	"two runs: the samples of both ($taken taken and $missed missed in $secs s)");

# ---------------------------------------------------------------- --since / --until

my @recs = map { decode_json($_) } split /\n/, slurp("$dir/raw.jsonl");
my @ts = do { my %s; grep { !$s{$_}++ } map { $_->{ts} } grep { $_->{type} eq 'sample' } @recs };
my ($since, $until) = @ts[ int(@ts / 3), int(2 * @ts / 3) ];
my @in = grep { $_->{type} eq 'sample' && $_->{ts} ge $since && $_->{ts} lt $until } @recs;
my %want;
$want{"$_->{wait_event_type}:$_->{wait_event}"} += $_->{samples} for @in;
for my $form ([ 'Z', $since, $until ], [ '+01:00', map { to_offset($_) } $since, $until ])
{
	my $cut = decode_json(run_ok("window $form->[0]", '--from-log', "$dir/raw.jsonl", '--json',
		"--since=$form->[1]", "--until=$form->[2]"));
	my %got = map { ("$_->{wait_event_type}:$_->{wait_event}" => $_->{samples}) } @{ $cut->{profile} };
	is_deeply(\%got, \%want, "window ($form->[0]): the rows from --since up to --until, and no other");
	is($cut->{active_samples}, scalar @in, "window ($form->[0]): active samples");
	cmp_ok($cut->{ticks}, '>=', int(@ts / 3) - 1, "window ($form->[0]): the samples of a third of the run");
	cmp_ok($cut->{ticks}, '<', $raw_ticks * 0.6, "window ($form->[0]): fewer than the whole run's");
}

# A timestamp of the log moved by us microseconds.
sub ts_shift
{
	my ($z, $us) = @_;
	my ($y, $mo, $d, $H, $M, $S, $f) = $z =~ /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{6})Z$/ or die $z;
	my $t = (timegm($S, $M, $H, $d, $mo - 1, $y) * 1000000 + $f) + $us;
	return strftime('%Y-%m-%dT%H:%M:%S', gmtime int($t / 1000000)) . sprintf('.%06dZ', $t % 1000000);
}

# The same time with an offset of +01:00.
sub to_offset
{
	my ($z) = @_;
	my ($d, $H, $M, $S) = $z =~ /^(\d{4}-\d\d-\d\d)T(\d\d):(\d\d):(\d\d\.\d+)Z$/ or die $z;
	my ($y, $mo, $da) = split /-/, $d;
	my $t = timegm(0, $M, $H, $da, $mo - 1, $y) + 3600;
	return strftime('%Y-%m-%dT%H:%M:', gmtime $t) . $S . '+01:00';
}

# today's HH:MM in local time (here UTC): from the minute before the first row
my ($day, $hm) = $ts[0] =~ /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)/;
SKIP:
{
	skip 'the run crossed midnight', 1 if $day ne strftime('%Y-%m-%d', gmtime);
	my $all = decode_json(run_ok('--since=HH:MM', '--from-log', "$dir/raw.jsonl", '--json',
		"--since=$hm"));
	is($all->{active_samples}, scalar(grep { $_->{type} eq 'sample' } @recs),
		'--since=HH:MM: today at that time, all rows after it');
}
($rc, $out, $err) = run_tool([ $bin, '--from-log', "$dir/raw.jsonl", '--since=yesterday' ], %utc);
is($rc, 1, 'a bad --since: exit 1');
like($err, qr/^pgtempo-waits: error: invalid value "yesterday" for option --since: not a valid time \(ISO 8601/m,
	'a bad --since: says what it takes');
($rc, $out, $err) = run_tool([ $bin, @conn, '--since=03:10' ], %utc);
like($err, qr/--since, --until and --keep-going need --from-log/, '--since without --from-log');
($rc, $out, $err) = run_tool([ $bin, '--from-log', "$dir/raw.jsonl", '--log', "$dir/x.csv" ], %utc);
like($err, qr/--from-log cannot be used with --log/, '--from-log with --log');

# ---------------------------------------------------------------- bad files

my $text = slurp("$dir/raw.csv");
my $nlines = () = $text =~ /\n/g;
spew("$dir/cut.csv", substr($text, 0, length($text) - 5));
# written a minute ago: no run is appending to it any more, it was cut off
utime(time - 60, time - 60, "$dir/cut.csv");
spew("$dir/foreign.csv", "id,name\n1,x\n");
(my $v2 = slurp("$dir/raw.jsonl")) =~ s/"log_version":\d+/"log_version":99/;
spew("$dir/v2.jsonl", $v2);
($rc, $out, $err) = run_tool([ $bin, '--from-log', "$dir/raw.jsonl", "$dir/cut.csv" ], %utc);
is($rc, 1, 'cut off: exit 1');
like($err, qr/^pgtempo-waits: error: \Q$dir\E\/cut\.csv:$nlines: the last record has no end of line: the file was cut off/m,
	'cut off: the file and the line');
is($out, '', 'cut off: no report without --keep-going');
($rc, $out, $err) = run_tool([ $bin, '--from-log', "$dir/foreign.csv" ], %utc);
like($err, qr/^pgtempo-waits: error: \Q$dir\E\/foreign\.csv:1: not a pgtempo-waits history log/m,
	'foreign: not a log, at line 1');
($rc, $out, $err) = run_tool([ $bin, '--from-log', "$dir/v2.jsonl" ], %utc);
like($err, qr/^pgtempo-waits: error: \Q$dir\E\/v2\.jsonl:1: written by pgtempo-waits \S+ in log format version 99; this pgtempo-waits \(\S+\) reads versions 1 to 4$/m,
	'another version: which one');
(my $other = slurp("$dir/raw.jsonl")) =~ s/"server":"[^"]*"/"server":"elsewhere:5432"/;
$other =~ s/"run":"(\d{4})/'"run":"' . ($1 - 1)/e;
spew("$dir/other.jsonl", $other);
($rc, $out, $err) = run_tool([ $bin, '--from-log', "$dir/raw.jsonl", "$dir/other.jsonl" ], %utc);
like($err, qr/^pgtempo-waits: error: \Q$dir\E\/other\.jsonl:1: this run sampled server elsewhere:5432 and the one before \S+: report them separately$/m,
	'another server: not added up');
($rc, $out, $err) = run_tool([ $bin, '--from-log', "$dir/foreign.csv", "$dir/raw.csv",
	'--keep-going', '--by=pid,event' ], %utc);
is($rc, 1, '--keep-going: still exit 1');
is(comparable_text($out), comparable_text($live_text), '--keep-going: the report of the good file');
like($err, qr/foreign\.csv:1: not a pgtempo-waits history log/, '--keep-going: the bad file said');

# one JSON grammar: what the tree parser refuses the flat scan refuses, with where
for my $case ([ 'a lone surrogate', qr/"query":(?:null|"(?:[^"\\]|\\.)*")/, '"query":"\\ud800"',
		qr/lone high surrogate in \\u escape/ ],
	[ 'a bad number', qr/"samples":\d+/, '"samples":1-2e', qr/expected ',' or '\}'/ ])
{
	my ($name, $re, $bad, $want) = @$case;
	my @lines = split /\n/, slurp("$dir/raw.jsonl");
	my ($i) = grep { $lines[$_] =~ /"type":"sample"/ } 0 .. $#lines;
	$lines[$i] =~ s/$re/$bad/ or die "$name: no match in $lines[$i]";
	spew("$dir/badjson.jsonl", join("\n", @lines) . "\n");
	($rc, $out, $err) = run_tool([ $bin, '--from-log', "$dir/badjson.jsonl" ], %utc);
	is($rc, 1, "$name in a JSONL log: exit 1");
	like($err, qr/^pgtempo-waits: error: \Q$dir\E\/badjson\.jsonl:@{[$i + 1]}: not a JSON record: column \d+: $want/m,
		"$name in a JSONL log: the line, the column and what is wrong");
}

# a file written this very moment may end on a record still coming: the whole ones are read
spew("$dir/writing.csv", substr($text, 0, length($text) - 5));
($rc, $out, $err) = run_tool([ $bin, '--from-log', "$dir/writing.csv", '--by=pid,event' ], %utc);
is($rc, 0, 'a file being written: exit 0');
like($err, qr/^pgtempo-waits: \Q$dir\E\/writing\.csv:$nlines: the last record is still being written: read up to the one before$/m,
	'a file being written: says where it stopped');

# ---------------------------------------------------------------- --log-retain

my $rdir = "$dir/retain";
mkdir $rdir or die;
spew("$rdir/w-20200101000000.csv", "old\n");
spew("$rdir/w-backup.csv", "not the pattern's\n");
utime(time - 3 * 86400, time - 3 * 86400, "$rdir/w-20200101000000.csv", "$rdir/w-backup.csv");
run_ok('--log-retain', @conn, '-T', SHORT_RUN, "--log=$rdir/w-%Y%m%d%H%M%S.csv", '--log-retain=1d',
	'--log-retain=1GB');
ok(!-e "$rdir/w-20200101000000.csv", '--log-retain: the pattern\'s old file is deleted');
ok(-e "$rdir/w-backup.csv", '--log-retain: a file the pattern did not make is kept');
cmp_ok(scalar(() = glob("$rdir/w-2*.csv")), '>=', 1, '--log-retain: the new files are there');
($rc, $out, $err) = run_tool([ $bin, @conn, '-T', SHORT_RUN, "--log=$rdir/w.csv", '--log-retain=1d' ], %utc);
like($err, qr/--log-retain needs a --log name with strftime escapes: "\Q$rdir\E\/w\.csv" is never rotated/,
	'--log-retain: a name that never rotates is an error');

# ---------------------------------------------------------------- a gap (server restart)

my $run = IPC::Run::start([ $bin, @conn, '-T', '5', '--json', "--log=$dir/gap.jsonl" ],
	'>', \my $gout, '2>', \my $gerr);
sleep 1;
$node->restart;
$run->finish;
$live = decode_json($gout);
cmp_ok(scalar @{ $live->{gaps} }, '>=', 1, 'restart: the live run had a gap');
$back = decode_json(run_ok('from gap log', '--from-log', "$dir/gap.jsonl", '--json'));
is_deeply($back->{gaps}, $live->{gaps}, 'restart: the same gaps, from the log');
is_deeply($back->{health}, $live->{health}, 'restart: the same health: gap ticks, missed ticks');
$back_text = run_ok('from gap log, text', '--from-log', "$dir/gap.jsonl");
like($back_text, qr/^gaps: 1 \([\d.]+ s without samples\)$/m, 'restart: the text report shows the gap');

# the restart ended the sessions
eval { $_->quit } for $holder, $waiter, $sleeper;
done_testing();
