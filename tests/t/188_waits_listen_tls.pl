# pgtempo-waits --listen off the loopback: --web-config-file gives the
# endpoint TLS and basic authentication the way Prometheus exporters take
# them.  A real Prometheus scrapes it over TLS with a password; a request
# without the password, with a wrong one or from an unknown user gets 401
# and a body that says nothing more, plain HTTP gets no HTTP answer at all,
# and neither the password nor its hash ever reaches the logs.  A bad file
# (an unknown key, a key that is not the certificate's, a file missing) is
# an error before sampling.  A hostile client on another address holding
# hundreds of half-open connections does not stop the scrapes, and
# sampling goes on through it.

use strict;
use warnings;

use File::Copy qw(copy);
use File::Temp qw(tempdir);
use HTTP::Tiny;
use IO::Select;
use IO::Socket::INET;
use PgTempo::Metrics;
use PgTempo::Test;
use Test::More;
use Time::HiRes qw(sleep time);

my $bin = pgtempo_bin('pgtempo-waits');
my $src = $ENV{PGTEMPO_SRCDIR} // '.';
my $dir = tempdir(CLEANUP => 1);

my $built = (run_tool([ $bin, '--listen=0', '-T', '1', '-h', '/nonexistent' ]))[2] !~ /built without/;
plan skip_all => 'pgtempo-waits was built without libmicrohttpd (--listen)' unless $built;
plan skip_all => 'the openssl command is not installed (Debian: openssl)'
  unless system('openssl version >/dev/null 2>&1') == 0;
plan skip_all => 'IO::Socket::SSL is not installed (Debian: libio-socket-ssl-perl)'
  unless eval { require IO::Socket::SSL; 1 };

# a password and its bcrypt hash from the system's crypt(), as htpasswd -B would give
my @b64 = ('.', '/', 'A' .. 'Z', 'a' .. 'z', '0' .. '9');
my $password = join('', map { $b64[ rand @b64 ] } 1 .. 24);
# the salt's last character carries 2 bits: one of . O e u
my $hash = crypt($password, '$2b$05$' . join('', map { $b64[ rand @b64 ] } 1 .. 21) . 'O');
plan skip_all => "the system's crypt() makes no bcrypt hashes" unless ($hash // '') =~ /^\$2b\$05\$.{53}\z/;

# a self-signed certificate for 127.0.0.1, and a key that is not its
for my $name ('waits', 'other')
{
	my ($rc, $out, $err) = run_tool([ 'openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2',
		'-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
		'-keyout', "$dir/$name.key", '-out', "$dir/$name.crt" ]);
	is($rc, 0, "openssl req: a self-signed certificate ($name)") or BAIL_OUT($err);
}
my $web = write_file("$dir/web.yml", <<"EOF");
# the exporters' web configuration
tls_server_config:
  cert_file: waits.crt   # from this file's directory
  key_file: $dir/waits.key
basic_auth_users:
  prometheus: '$hash'
EOF

my $node = new_cluster('waits_listen_tls');
my @conn = ('-h', $node->host, '-p', $node->port, '-d', 'postgres');
my ($sleeper) = start_session($node, 'tls_sleep', 'SELECT pg_sleep(600)');

# ---------------------------------------------------------------- bad files: errors before sampling

my @bad = (
	[ "tls_server_config:\n  cert_file: waits.crt\n  key_file: waits.key\n  client_ca_file: ca.crt\n",
		qr/^pgtempo-waits: error: unrecognized key "client_ca_file" in file "\Q$dir\E\/bad\.yml" line 4: /m,
		'an unknown key' ],
	[ "tls_server_config:\n  cert_file: waits.crt\n  key_file: other.key\n",
		qr/^pgtempo-waits: error: could not start serving \/metrics over TLS on 127\.0\.0\.1:\d+ \(--listen\): .*"\Q$dir\E\/other\.key"/m,
		'a key that is not the certificate\'s' ],
	[ "tls_server_config:\n  cert_file: waits.crt\n  key_file: gone.key\n",
		qr/^pgtempo-waits: error: could not open file "\Q$dir\E\/gone\.key": No such file or directory$/m,
		'a key file missing' ],
	[ "tls_server_config:\n  cert_file: waits.key\n  key_file: waits.crt\n",
		qr/^pgtempo-waits: error: file "\Q$dir\E\/waits\.key" holds no certificate in PEM form/m,
		'the certificate and key swapped' ],
	[ "basic_auth_users:\n  prometheus: $password\n",
		qr/^pgtempo-waits: error: the password hash of user "prometheus" is not a bcrypt hash .* line 2$/m,
		'a password where its hash should be' ],
	[ "basic_auth_users:\n\tprometheus: '$hash'\n",
		qr/^pgtempo-waits: error: syntax error in file ".*" line 2: a tab in the indentation$/m, 'a tab' ],
);
for my $b (@bad)
{
	my ($text, $re, $what) = @$b;
	write_file("$dir/bad.yml", $text);
	my ($rc, $out, $err) = run_tool([ $bin, @conn, '-T', SHORT_RUN, '--listen=127.0.0.1:0',
		"--web-config-file=$dir/bad.yml" ]);
	is($rc, 1, "$what: exit 1");
	like($err, $re, "$what: said, with the file") or diag($err);
	unlike($err, qr/sampling|serving metrics/, "$what: before sampling or serving");
	unlike($err, qr/\Q$password\E|\Q$hash\E/, "$what: neither the password nor the hash is said");
}
my ($rc, $out, $err) = run_tool([ $bin, @conn, '-T', SHORT_RUN, "--web-config-file=$web" ]);
is($rc, 1, '--web-config-file without --listen: exit 1');
like($err, qr/^pgtempo-waits: error: --web-config-file needs --listen$/m, '--web-config-file without --listen: said');

# the example file of the docs, with its certificate and key, is read and refuses every password
copy("$src/contrib/systemd/web-config.yml.example", "$dir/example.yml")
  or die "the example web configuration: $!";
my ($ex, $exurl, $exout, $exerr) = start_listening([ $bin, @conn, '--listen=127.0.0.1:0',
	"--web-config-file=$dir/example.yml" ]);
like($exurl // '', qr{^https://127\.0\.0\.1:\d+/metrics$}, 'the example web configuration: served over TLS')
  or diag($$exerr);
my $https = HTTP::Tiny->new(timeout => 10, verify_SSL => 1, SSL_options => { SSL_ca_file => "$dir/waits.crt" });
my $r = $https->get($exurl // 'https://127.0.0.1:1/', { headers => { Authorization => 'Basic cHJvbWV0aGV1czpwcm9tZXRoZXVz' } });
is($r->{status}, 401, 'the example web configuration: its user\'s hash is of no known password');
$ex->signal('INT');
$ex->finish;

# ---------------------------------------------------------------- refusals, and the right password

my ($w, $url, $wout, $werr) = start_listening([ $bin, @conn, '--source=activity', '--listen=127.0.0.1:0',
	"--web-config-file=$web" ]);
my ($target) = ($url // '') =~ m{^https://(127\.0\.0\.1:\d+)/metrics$};
ok($target, 'pgtempo-waits serves https') or BAIL_OUT("no endpoint: $$werr");
like($$werr, qr{serving metrics on https://\S+ \(basic authentication\)$}m, 'it says it asks for a password');

# A GET of url as user:pass (undef: no credentials).
sub get_as
{
	my ($u, $user, $pass) = @_;
	my %h;
	$h{Authorization} = 'Basic ' . MIME::Base64::encode_base64("$user:$pass", '') if defined $user;
	return $https->get($u, { headers => \%h });
}
require MIME::Base64;

for my $c ([ 'no credentials', undef, undef ], [ 'a wrong password', 'prometheus', 'wrong' ],
	[ 'the hash as the password', 'prometheus', $hash ],
	[ 'an unknown user', 'nobody', $password ], [ 'an empty password', 'prometheus', '' ])
{
	my ($what, $user, $pass) = @$c;
	for my $path ('/metrics', '/other')
	{
		$r = get_as("https://$target$path", $user, $pass);
		is($r->{status}, 401, "$what, $path: 401");
		is($r->{headers}{'www-authenticate'}, 'Basic realm="pgtempo-waits"', "$what, $path: the realm to authenticate in");
		is($r->{content}, "Unauthorized\n", "$what, $path: the body says nothing else");
	}
}
$r = get_as($url, 'prometheus', $password);
is($r->{status}, 200, 'the right password: 200');
like($r->{content}, qr/^pgtempo_waits_samples_total \d+$/m, 'the right password: the metrics');
$r = get_as("https://$target/other", 'prometheus', $password);
is($r->{status}, 404, 'the right password, another path: 404');

# plain HTTP to the TLS port: the TLS handshake fails, no HTTP answer comes back
my $plain = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => (split /:/, $target)[1], Timeout => 10)
  or die "connect: $!";
print $plain "GET /metrics HTTP/1.1\r\nHost: $target\r\n\r\n";
my ($reply, $buf, $eof) = ('', '', 0);
my $sel = IO::Select->new($plain);
while (!$eof && $sel->can_read(15))
{
	my $n = sysread($plain, $buf, 4096);
	$eof = 1 unless $n;
	$reply .= $buf if $n;
}
unlike($reply, qr/HTTP\/|pgtempo_waits/, 'plain HTTP: no HTTP answer, no metrics');
ok($eof, 'plain HTTP: the endpoint closes the connection');
close $plain;
$r = HTTP::Tiny->new(timeout => 10)->get("http://$target/metrics");
is($r->{status}, 599, 'plain HTTP with a client: no answer') or diag(explain($r));

# ---------------------------------------------------------------- Prometheus, and a hostile client

SKIP:
{
	skip 'prometheus is not installed (Debian: prometheus)', 5 unless prometheus_bin();
	my $p = start_prometheus($dir, <<"EOF");
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: pgtempo-waits
    scheme: https
    scrape_interval: 1s
    scrape_timeout: 1s
    basic_auth:
      username: prometheus
      password: '$password'
    tls_config:
      ca_file: $dir/waits.crt
    static_configs:
      - targets: ['$target']
  - job_name: wrong-password
    scheme: https
    basic_auth:
      username: prometheus
      password: 'wrong'
    tls_config:
      ca_file: $dir/waits.crt
    static_configs:
      - targets: ['$target']
EOF
	my $query = sub { $w->pump_nb; prometheus_query($p, @_) };
	my $scrapes;
	for (1 .. 120)
	{
		$scrapes = $query->('count_over_time(pgtempo_waits_samples_total{job="pgtempo-waits"}[30s])');
		last if ($scrapes // 0) >= 3;
		sleep 1;
	}
	cmp_ok($scrapes // 0, '>=', 3, 'Prometheus scrapes over TLS with the password') or diag(${ $p->{err} });
	is($query->('up{job="wrong-password"}'), 0, 'Prometheus with a wrong password: the target is down');

	# 300 connections from another address, each a TLS record's first bytes and nothing more,
	# opened again once the endpoint has closed it (a twentieth of the slots every 0.1 s, so that
	# a busy machine keeps up: the endpoint holds 8 of them, closes the rest as they come)
	my $hostile = IO::Socket::INET->new(LocalAddr => '127.0.0.2', PeerAddr => '127.0.0.1', PeerPort => (split /:/, $target)[1]);
	skip 'no 127.0.0.2 on this host\'s loopback', 3 unless $hostile;
	close $hostile;
	my $port = (split /:/, $target)[1];
	my (@s, %sent);
	my ($opened, $closed) = (0, 0);
	my $open = sub {
		my $c = IO::Socket::INET->new(LocalAddr => '127.0.0.2', PeerAddr => '127.0.0.1', PeerPort => $port,
			Blocking => 0) or return undef;
		$opened++;
		return $c;
	};
	my $t0 = time;
	my $samples_in = sub {
		my $r = get_as($url, 'prometheus', $password);
		return $r->{status} == 200 ? metric_value(parse_metrics($r->{content}), 'pgtempo_waits_samples_total') : undef;
	};
	my $before = $samples_in->();
	my ($during, $asked, $t_full) = (0, 0);
	while (time - $t0 < 90)
	{
		for my $i (0 .. 299)
		{
			my $c = $s[$i];
			if ($c && !$sent{$c} && IO::Select->new($c)->can_write(0))
			{
				# a ClientHello's record header promising 512 bytes, and 4 of them
				$sent{$c} = 1 if defined syswrite($c, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc");
			}
			elsif ($c && IO::Select->new($c)->can_read(0))
			{
				my $n = sysread($c, $buf, 4096);
				next if !defined $n && $!{EAGAIN};
				delete $sent{$c};
				close $c;
				$s[$i] = undef;
				$closed++;
			}
			$s[$i] //= $open->() if $i % 20 == int(time * 10) % 20 || !$opened;
		}
		sleep 0.05;
		# count from the moment all 300 were open, for 5 seconds at least
		$t_full //= time if $opened >= 300;
		my $secs = defined $t_full ? int(time - $t_full) : 0;
		next if $secs < 5 || $secs == $asked;
		$asked = $secs;
		$during = $query->(qq{count_over_time(pgtempo_waits_samples_total{job="pgtempo-waits"}[${secs}s])}) // 0;
		last if $during >= 3;
	}
	my $held = grep { defined } @s;
	note("the hostile client opened $opened connections, the endpoint closed $closed, $held open at the end");
	cmp_ok($opened, '>=', 300, 'the hostile client opened its 300 connections');
	cmp_ok($during, '>', 0, "Prometheus' scrapes are answered while they are held ($during since they began)")
	  or diag(${ $p->{err} });
	close $_ for grep { defined } @s;
	# the samples taken across the flood, read once it is over
	my $after;
	for (1 .. 30)
	{
		last if defined($after = $samples_in->());
		sleep 1;
	}
	cmp_ok($after // 0, '>', $before // 0, 'sampling went on while they were held');
	$p->{h}->signal('TERM');
	$p->{h}->finish;
}

$w->signal('INT');
$w->finish;
is($w->result(0), 0, 'SIGINT: exit 0') or diag($$werr);
unlike($$werr, qr/\Q$password\E|\Q$hash\E/, 'neither the password nor its hash is on standard error');
unlike($$werr, qr/TLS|handshake|Unauthorized/i, 'the clients\' failures are not logged');
$node->safe_psql('postgres', q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'tls_sleep'});
done_testing();
