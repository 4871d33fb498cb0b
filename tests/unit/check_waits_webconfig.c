/*
 * check_waits_webconfig.c — --web-config-file: the subset of the
 * exporters' web configuration that is read, the lines refused (with
 * their file and line), and passwords against bcrypt hashes through the
 * system's crypt().
 */
#include "config.h"

#include "webconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtempo/msg.h"

#include "unit.h"

/* bcrypt of "secret" with cost 5 (perl -e 'print crypt("secret", q($2b$05$abcdefghijklmnopqrstuu))') */
#define HASH_SECRET	"$2b$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a"

/* Files that are read, and what comes out of them. */
START_TEST(parse_ok)
{
	static const struct
	{
		const char *text;
		const char *cert;		/* NULL: no TLS */
		const char *key;
		int			nusers;
		const char *user;		/* the last user's name */
	}			cases[] = {
		{"", NULL, NULL, 0, NULL},
		{"# nothing\n\n---\n", NULL, NULL, 0, NULL},
		{"tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n", "/etc/w/a.crt", "/etc/w/a.key", 0, NULL},
		{"tls_server_config:\n    cert_file: /abs/a.crt   # the certificate\n    key_file: '/abs/a #1.key'\n",
		"/abs/a.crt", "/abs/a #1.key", 0, NULL},
		{"basic_auth_users:\n  prometheus: " HASH_SECRET "\n", NULL, NULL, 1, "prometheus"},
		{"basic_auth_users:\n  prometheus:\t" HASH_SECRET "\t# tabs\n", NULL, NULL, 1, "prometheus"},
		{"basic_auth_users:\r\n  \"a b\": '" HASH_SECRET "'\r\n  c: \"" HASH_SECRET "\"\r\n", NULL, NULL, 2, "c"},
		{"---\n# web\nbasic_auth_users:\n  u: " HASH_SECRET "\n\ntls_server_config:\n cert_file: c\n # k\n key_file: k\n",
		"/etc/w/c", "/etc/w/k", 1, "u"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		webconfig	wc;
		char	   *cause = NULL;

		ck_assert_msg(webconfig_parse(cases[i].text, "/etc/w/web.yml", &wc, &cause), "%zu: %s", i,
					  cause);
		if (cases[i].cert == NULL)
			ck_assert_ptr_null(wc.cert_file);
		else
		{
			ck_assert_str_eq(wc.cert_file, cases[i].cert);
			ck_assert_str_eq(wc.key_file, cases[i].key);
		}
		ck_assert_int_eq(wc.nusers, cases[i].nusers);
		if (cases[i].user != NULL)
		{
			ck_assert_str_eq(wc.users[wc.nusers - 1].name, cases[i].user);
			ck_assert_str_eq(wc.users[wc.nusers - 1].hash, HASH_SECRET);
		}
		webconfig_free(&wc);
	}
}
END_TEST

/* Files that are refused, each with the line at fault and never the hash. */
START_TEST(parse_refused)
{
	static const struct
	{
		const char *text;
		const char *error;
		int			line;		/* 0: the message names no line */
	}			cases[] = {
		{"http_server_config:\n  http2: false\n", "unrecognized key \"http_server_config\"", 1},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n",
		"unrecognized key \"client_auth_type\"", 4},
		{"tls_server_config:\n  cert_file: a\n", "needs both cert_file and key_file", 0},
		{"tls_server_config:\n", "needs both cert_file and key_file", 0},
		{"tls_server_config:\n  cert_file: a\n  cert_file: b\n  key_file: c\n", "\"cert_file\" is given twice", 3},
		{"tls_server_config: {cert_file: a}\n", "only \"key: value\" lines", 1},
		{"tls_server_config: a.crt\n", "needs its entries on the lines below it", 1},
		{"basic_auth_users:\n  u: " HASH_SECRET "\nbasic_auth_users:\n", "\"basic_auth_users\" is given twice", 3},
		{"basic_auth_users:\n  u: " HASH_SECRET "\n  u: " HASH_SECRET "\n", "user \"u\" is given twice", 3},
		{"basic_auth_users:\n  u: secret\n", "the password hash of user \"u\" is not a bcrypt hash", 2},
		{"basic_auth_users:\n  u: $1$abc$abcdefghijklmnopqrstuv\n", "is not a bcrypt hash", 2},
		{"basic_auth_users:\n  u:\n", "key \"u\" needs a value", 2},
		{"basic_auth_users:\n  u: ''\n", "key \"u\" needs a value", 2},
		{"basic_auth_users:\n  - u\n", "only \"key: value\" lines", 2},
		{"basic_auth_users:\n  u: &x " HASH_SECRET "\n", "only \"key: value\" lines", 2},
		{"basic_auth_users:\n\tu: " HASH_SECRET "\n", "a tab in the indentation", 2},
		{"basic_auth_users:\n  u: " HASH_SECRET "\n    v: " HASH_SECRET "\n", "indentation differs", 3},
		{"  u: x\n", "an indented line outside a section", 1},
		{"basic_auth_users\n", "expected \"key: value\"", 1},
		{"basic_auth_users:x\n", "expected \"key: value\"", 1},
		{"basic_auth_users:\n  \"u: " HASH_SECRET "\n", "unterminated quoted string", 2},
		{"basic_auth_users:\n  \"u\\n\": " HASH_SECRET "\n", "escapes in quoted strings", 2},
		{"basic_auth_users:\n  u: '" HASH_SECRET "' x\n", "text after the value", 2},
		{"# c\n\ntls_server_config:\n  cert_file: a\n  key_file: b\n---\n", "expected \"key: value\"", 6},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		webconfig	wc;
		char	   *cause = NULL;
		char		where[64];

		ck_assert_msg(!webconfig_parse(cases[i].text, "web.yml", &wc, &cause), "%zu: accepted", i);
		ck_assert_msg(strstr(cause, cases[i].error) != NULL, "%zu: %s", i, cause);
		snprintf(where, sizeof(where), "in file \"web.yml\" line %d", cases[i].line);
		ck_assert_msg(cases[i].line == 0 || strstr(cause, where) != NULL, "%zu: %s", i, cause);
		ck_assert_msg(strstr(cause, "OQiyCxlgf") == NULL, "%zu: the hash is said: %s", i, cause);
		ck_assert_ptr_null(wc.users);
		ck_assert_ptr_null(wc.cert_file);
		free(cause);
	}
}
END_TEST

/* A file in a temporary directory (the caller frees the name). */
static char *
temp_file(const char *dir, const char *name, const char *text)
{
	char	   *path;
	FILE	   *f;

	ck_assert_int_gt(asprintf(&path, "%s/%s", dir, name), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Loading: the certificate and key read from the file's directory, or refused. */
START_TEST(load)
{
	char		dir[] = "/tmp/check_webconfig.XXXXXX";
	char	   *files[5];
	webconfig	wc;
	char	   *cause = NULL;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	files[0] = temp_file(dir, "s.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
	files[1] = temp_file(dir, "s.key", "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n");
	files[2] = temp_file(dir, "web.yml", "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n"
						 "basic_auth_users:\n  p: " HASH_SECRET "\n");
#ifdef HAVE_CRYPT_R
	ck_assert_msg(webconfig_load(files[2], &wc, &cause), "%s", cause);
	ck_assert_ptr_nonnull(strstr(wc.cert_pem, "MIIB"));
	ck_assert_ptr_nonnull(strstr(wc.key_pem, "MIIE"));
	ck_assert_int_eq(wc.nusers, 1);
	webconfig_free(&wc);
#else
	/* users that cannot be checked are refused, not let in */
	ck_assert(!webconfig_load(files[2], &wc, &cause));
	ck_assert_msg(strstr(cause, "built without crypt_r") != NULL, "%s", cause);
	free(cause);
#endif

	/* the key where the certificate should be */
	files[3] = temp_file(dir, "swap.yml", "tls_server_config:\n  cert_file: s.key\n  key_file: s.crt\n");
	ck_assert(!webconfig_load(files[3], &wc, &cause));
	ck_assert_msg(strstr(cause, "s.key\" holds no certificate in PEM form") != NULL, "%s", cause);
	free(cause);
	/* a file that is not there */
	files[4] = temp_file(dir, "gone.yml", "tls_server_config:\n  cert_file: s.crt\n  key_file: gone.key\n");
	ck_assert(!webconfig_load(files[4], &wc, &cause));
	ck_assert_msg(strstr(cause, "could not open file \"") != NULL &&
				  strstr(cause, "gone.key\": No such file or directory") != NULL, "%s", cause);
	free(cause);
	ck_assert(!webconfig_load("/nonexistent/web.yml", &wc, &cause));
	ck_assert_str_eq(cause, "could not open file \"/nonexistent/web.yml\": No such file or directory");
	free(cause);
	for (int i = 0; i < 5; i++)
	{
		unlink(files[i]);
		free(files[i]);
	}
	rmdir(dir);
}
END_TEST

/* Passwords: the right one, a wrong one, an unknown user; the remembered one too. */
START_TEST(passwords)
{
	webconfig	wc;
	char	   *cause = NULL;

	ck_assert_msg(webconfig_parse("basic_auth_users:\n  p: " HASH_SECRET "\n  q: " HASH_SECRET "\n",
								  "web.yml", &wc, &cause), "%s", cause);
#ifdef HAVE_CRYPT_R
	for (int round = 0; round < 2; round++)
	{
		ck_assert(webconfig_password_ok(&wc, "p", "secret"));
		ck_assert(!webconfig_password_ok(&wc, "p", "secreT"));
		ck_assert(!webconfig_password_ok(&wc, "p", "secret2"));
		ck_assert(!webconfig_password_ok(&wc, "p", ""));
		ck_assert(!webconfig_password_ok(&wc, "x", "secret"));
		ck_assert(!webconfig_password_ok(&wc, "", "secret"));
	}
	ck_assert_str_eq(wc.users[0].verified, "secret");
	ck_assert_ptr_null(wc.users[1].verified);
	ck_assert(webconfig_password_ok(&wc, "q", "secret"));
#else
	ck_assert(!webconfig_password_ok(&wc, "p", "secret"));
#endif
	webconfig_free(&wc);
	/* no users: nobody */
	ck_assert(webconfig_parse("", "web.yml", &wc, &cause));
	ck_assert(!webconfig_password_ok(&wc, "p", "secret"));
	webconfig_free(&wc);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_webconfig");
	TCase	   *tc = tcase_create("webconfig");

	msg_set_progname("pgtempo-waits");
	tcase_add_test(tc, parse_ok);
	tcase_add_test(tc, parse_refused);
	tcase_add_test(tc, load);
	tcase_add_test(tc, passwords);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
