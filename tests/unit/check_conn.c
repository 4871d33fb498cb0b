/*
 * check_conn.c — unit tests of the deadline-aware connection waits.
 *
 * A fake server on a Unix socket plays a hung PostgreSQL: either it never
 * answers the startup packet (a stopped postmaster), or it completes the
 * startup and then never answers a statement nor accepts the cancel
 * request (a stopped backend and postmaster).  No real server is needed.
 * fakepg.h plays a server that answers.
 */
#include "config.h"

#include "pgtempo/conn.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fakepg.h"
#include "pgtempo/clock.h"
#include "unit.h"

typedef struct fake_server
{
	char		dir[64];
	char		path[128];
	int			listen_fd;
	bool		handshake;		/* complete the startup, then go silent */
	pthread_t	thread;
	int			client_fd;
} fake_server;

/* Append a protocol message of type t with body b (n bytes). */
static size_t
put_msg(char *buf, size_t off, char t, const void *b, uint32_t n)
{
	uint32_t	len = htonl(n + 4);

	buf[off++] = t;
	memcpy(buf + off, &len, 4);
	memcpy(buf + off + 4, b, n);
	return off + 4 + n;
}

/* Accept one client; with a handshake, answer its startup packet, then say nothing more. */
static void *
fake_main(void *arg)
{
	fake_server *f = arg;
	char		buf[4096];
	uint32_t	len;
	size_t		n = 0;
	uint32_t	zero = 0,
				key[2] = {htonl(4242), htonl(7)};

	f->client_fd = accept(f->listen_fd, NULL, NULL);
	if (f->client_fd < 0 || !f->handshake)
		return NULL;
	if (read(f->client_fd, &len, 4) != 4)
		return NULL;
	len = ntohl(len);
	if (len < 4 || len > sizeof(buf) || read(f->client_fd, buf, len - 4) != (ssize_t) (len - 4))
		return NULL;
	n = put_msg(buf, n, 'R', &zero, 4);
	n = put_msg(buf, n, 'S', "server_version\00015.0", 20);
	n = put_msg(buf, n, 'S', "client_encoding\0UTF8", 21);
	n = put_msg(buf, n, 'S', "standard_conforming_strings\0on", 31);
	n = put_msg(buf, n, 'K', key, 8);
	n = put_msg(buf, n, 'Z', "I", 1);
	if (write(f->client_fd, buf, n) != (ssize_t) n)
		return NULL;
	return NULL;
}

/* Listen on DIR/.s.PGSQL.5432 (the backlog takes later connections: never accepted). */
static void
fake_start(fake_server *f, bool handshake)
{
	struct sockaddr_un sa;

	memset(f, 0, sizeof(*f));
	f->handshake = handshake;
	f->client_fd = -1;
	strcpy(f->dir, "/tmp/check_conn.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/.s.PGSQL.5432", f->dir);
	f->listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(f->listen_fd, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, f->path);
	ck_assert_int_eq(bind(f->listen_fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(f->listen_fd, 8), 0);
	ck_assert_int_eq(pthread_create(&f->thread, NULL, fake_main, f), 0);
}

static void
fake_stop(fake_server *f)
{
	shutdown(f->listen_fd, SHUT_RDWR);
	close(f->listen_fd);
	pthread_join(f->thread, NULL);
	if (f->client_fd >= 0)
		close(f->client_fd);
	unlink(f->path);
	rmdir(f->dir);
}

static conn_opts
fake_opts(const fake_server *f)
{
	conn_opts	o;

	memset(&o, 0, sizeof(o));
	o.host = f->dir;
	o.port = "5432";
	o.user = "u";
	o.dbname = "d";
	o.prompt = CONN_PROMPT_NEVER;
	return o;
}

/* A postmaster that never answers: connecting gives up at the deadline. */
START_TEST(test_connect_deadline)
{
	fake_server f;
	conn_opts	o;
	char	   *cause = NULL;
	uint64_t	t0 = clock_now_ns();
	PGconn	   *c;

	fake_start(&f, false);
	o = fake_opts(&f);
	c = conn_connect(&o, t0 + 300 * NS_PER_MS, NULL, &cause);
	ck_assert_ptr_null(c);
	ck_assert_ptr_nonnull(strstr(cause, "timeout expired"));
	ck_assert_uint_ge(clock_now_ns() - t0, 290 * NS_PER_MS);
	ck_assert_uint_lt(clock_now_ns() - t0, 3 * NS_PER_S);
	free(cause);
	fake_stop(&f);
}
END_TEST

/* A stop request ends the wait too. */
START_TEST(test_connect_stop)
{
	fake_server f;
	conn_opts	o;
	char	   *cause = NULL;
	volatile sig_atomic_t stop = 1;
	PGconn	   *c;

	fake_start(&f, false);
	o = fake_opts(&f);
	c = conn_connect(&o, CONN_NO_DEADLINE, &stop, &cause);
	ck_assert_ptr_null(c);
	ck_assert_ptr_nonnull(strstr(cause, "interrupted"));
	free(cause);
	fake_stop(&f);
}
END_TEST

/* A backend that never answers: the statement times out, the cancel is bounded, closing does not hang. */
START_TEST(test_statement_and_cancel)
{
	fake_server f;
	conn_opts	o;
	char	   *cause = NULL;
	PGresult   *res = NULL;
	PGconn	   *c;
	uint64_t	t0;

	fake_start(&f, true);
	o = fake_opts(&f);
	c = conn_connect(&o, clock_now_ns() + 5 * NS_PER_S, NULL, &cause);
	ck_assert_msg(c != NULL, "connect: %s", cause ? cause : "");
	t0 = clock_now_ns();
	ck_assert_int_eq(conn_exec(c, "SELECT 1", 0, t0 + 200 * NS_PER_MS, NULL, &res),
					 CONN_WAIT_TIMEOUT);
	ck_assert_ptr_null(res);
	ck_assert_uint_lt(clock_now_ns() - t0, 2 * NS_PER_S);

	/* the cancel request goes into the backlog and never gets an answer */
	t0 = clock_now_ns();
	ck_assert(!conn_cancel(c, 300 * NS_PER_MS, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "did not take the cancel request"));
	ck_assert_uint_lt(clock_now_ns() - t0, 2 * NS_PER_S);
	free(cause);

	t0 = clock_now_ns();
	conn_abandon(c, 300 * NS_PER_MS);
	ck_assert_uint_lt(clock_now_ns() - t0, 2 * NS_PER_S);
	fake_stop(&f);
}
END_TEST

/* libpq's messages lose their trailing newline and spaces, nothing else. */
START_TEST(test_trim_message)
{
	static const struct
	{
		const char *in;
		const char *want;
	}			cases[] = {
		{"server closed the connection unexpectedly\n", "server closed the connection unexpectedly"},
		{"two lines\nsecond line \n\n", "two lines\nsecond line"},
		{"no newline", "no newline"},
		{"\n", ""},
		{"", ""},
		{NULL, "unknown error"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char	   *got = conn_trim_message(cases[i].in);

		ck_assert_str_eq(got, cases[i].want);
		free(got);
	}
}
END_TEST

/*
 * Cancel requests sent without waiting: the call returns at once, the
 * drain sees the thread held up by a postmaster that does not answer, and
 * sees it end once the postmaster is gone.
 */
START_TEST(test_cancel_send_drain)
{
	fake_server f;
	conn_opts	o;
	char	   *cause = NULL;
	PGconn	   *c;
	PGcancel  **pc;
	uint64_t	t0;

	ck_assert(conn_cancel_send(calloc(1, sizeof(PGcancel *)), 0, 0, &cause));
	fake_start(&f, true);
	o = fake_opts(&f);
	c = conn_connect(&o, clock_now_ns() + 5 * NS_PER_S, NULL, &cause);
	ck_assert_msg(c != NULL, "connect: %s", cause ? cause : "");
	pc = calloc(2, sizeof(*pc));
	pc[0] = PQgetCancel(c);
	pc[1] = PQgetCancel(c);
	t0 = clock_now_ns();
	ck_assert(conn_cancel_send(pc, 2, 0, &cause));
	ck_assert_ptr_null(cause);
	ck_assert(!conn_cancel_drain(200 * NS_PER_MS));
	ck_assert_uint_lt(clock_now_ns() - t0, 2 * NS_PER_S);
	PQfinish(c);
	fake_stop(&f);
	ck_assert(conn_cancel_drain(5 * NS_PER_S));
}
END_TEST

/*
 * An answer that came before the deadline is taken after it too: a
 * process woken late (a loaded machine, the end of a run) must not call
 * the server silent when its answer is waiting on the socket.
 */
START_TEST(test_answer_after_deadline)
{
	fakepg		f;
	PGconn	   *c = fakepg_connect(&f);
	PGresult   *res = NULL;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(PQsendQuery(c, "SELECT 1"), 1);
	ck_assert_int_eq(conn_flush(c, clock_now_ns() + 5 * NS_PER_S, NULL), CONN_WAIT_READY);
	usleep(100 * 1000);
	ck_assert_int_eq(conn_result(c, clock_now_ns() - NS_PER_MS, NULL, &res), CONN_WAIT_READY);
	ck_assert_ptr_nonnull(res);
	ck_assert_int_eq(PQresultStatus(res), PGRES_TUPLES_OK);
	PQclear(res);
	fakepg_stop(&f, c);
}
END_TEST

static Suite *
conn_suite(void)
{
	Suite	   *s = suite_create("conn");
	TCase	   *tc = tcase_create("deadlines");

	tcase_add_test(tc, test_connect_deadline);
	tcase_add_test(tc, test_connect_stop);
	tcase_add_test(tc, test_statement_and_cancel);
	tcase_add_test(tc, test_trim_message);
	tcase_add_test(tc, test_cancel_send_drain);
	tcase_add_test(tc, test_answer_after_deadline);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(conn_suite());
}
