/*
 * conn.c — PostgreSQL connections with PostgreSQL's command-line
 * conventions.
 */
#include "config.h"

#include "pgtempo/conn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "pgtempo/clock.h"
#include "pgtempo/signals.h"
#include "pgtempo/xalloc.h"

/* A wait looks at the stop flag at least this often (a signal may come just before poll). */
#define STOP_CHECK_NS	(100 * NS_PER_MS)

/* A password the user typed once, reused for every later connection. */
static char *saved_password;

char *
conn_trim_message(const char *m)
{
	size_t		n;

	if (m == NULL)
		m = "unknown error";
	n = strlen(m);
	while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' '))
		n--;
	return xstrndup(m, n);
}

char *
conn_error(const PGconn *conn)
{
	return conn_trim_message(conn ? PQerrorMessage(conn) : "out of memory");
}

bool
conn_option(conn_opts *o, int c, const char *arg)
{
	switch (c)
	{
		case 'd':
			o->dbname = arg;
			return true;
		case 'h':
			o->host = arg;
			return true;
		case 'p':
			o->port = arg;
			return true;
		case 'U':
			o->user = arg;
			return true;
		case 'w':
			o->prompt = CONN_PROMPT_NEVER;
			return true;
		case 'W':
			o->prompt = CONN_PROMPT_ALWAYS;
			return true;
		default:
			return false;
	}
}

opt_status
opt_conn(const opt_def *def, void *ctx, const char *arg)
{
	return conn_option((conn_opts *) ((char *) ctx + def->field), def->letter, arg) ? OPT_OK : OPT_ERROR;
}

char *
conn_prompt_password(const char *prompt)
{
	int			fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
	struct termios old,
				quiet;
	char		buf[1024];
	ssize_t		n;
	size_t		len = 0;
	bool		restore;

	if (fd < 0)
		return NULL;
	if (write(fd, prompt, strlen(prompt)) < 0)
	{
		close(fd);
		return NULL;
	}
	restore = tcgetattr(fd, &old) == 0;
	if (restore)
	{
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t) ECHO;
		quiet.c_lflag |= ECHONL;
		tcsetattr(fd, TCSAFLUSH, &quiet);
	}
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, 1)) == 1 && buf[len] != '\n')
		len++;
	buf[len] = '\0';
	if (restore)
		tcsetattr(fd, TCSAFLUSH, &old);
	close(fd);
	return xstrdup(buf);
}

/* Fill libpq's keyword/value arrays from the options. */
static void
fill_params(const conn_opts *o, const char **keys, const char **vals)
{
	int			i = 0;

#define ADD(k, v) do { if ((v) != NULL) { keys[i] = (k); vals[i] = (v); i++; } } while (0)
	ADD("host", o->host);
	ADD("port", o->port);
	ADD("user", o->user);
	ADD("password", saved_password);
	/* dbname last: a conninfo string or URI in it overrides what came before */
	ADD("dbname", o->dbname);
	ADD("fallback_application_name", o->application_name);
#undef ADD
	keys[i] = NULL;
	vals[i] = NULL;
}

PGconn *
conn_start(const conn_opts *o)
{
	const char *keys[8],
			   *vals[8];

	fill_params(o, keys, vals);
	return PQconnectStartParams(keys, vals, 1);
}

/*
 * Wait until sock is ready for events, the deadline passes or *stop is
 * set.  A connection without a socket (-1 once libpq has closed it) is
 * lost: polling it would only make libpq say "invalid socket".
 */
static conn_wait
wait_socket(int sock, short events, uint64_t deadline_ns, volatile sig_atomic_t *stop)
{
	if (sock < 0)
		return CONN_WAIT_LOST;
	for (;;)
	{
		struct pollfd pfd;
		struct timespec ts;
		uint64_t	now = clock_now_ns();
		uint64_t	wait_ns;
		int			rc;

		if (stop != NULL && *stop)
			return CONN_WAIT_STOPPED;
		/* past the deadline the socket is still looked at once: an answer there is in time */
		wait_ns = now >= deadline_ns ? 0 : deadline_ns - now;
		if (wait_ns > STOP_CHECK_NS)
			wait_ns = STOP_CHECK_NS;
		ts.tv_sec = (time_t) (wait_ns / NS_PER_S);
		ts.tv_nsec = (long) (wait_ns % NS_PER_S);
		pfd.fd = sock;
		pfd.events = events;
		pfd.revents = 0;
		rc = ppoll(&pfd, 1, &ts, NULL);
		if (rc > 0)
			return CONN_WAIT_READY;
		if (rc < 0 && errno != EINTR)
			return CONN_WAIT_LOST;
		if (now >= deadline_ns)
			return CONN_WAIT_TIMEOUT;
	}
}

uint64_t
conn_connect_timeout_ns(PGconn *conn)
{
	PQconninfoOption *opts = PQconninfo(conn);
	uint64_t	ns = 0;

	for (PQconninfoOption *o = opts; o != NULL && o->keyword != NULL; o++)
		if (strcmp(o->keyword, "connect_timeout") == 0 && o->val != NULL && atoi(o->val) > 0)
			ns = (uint64_t) (atoi(o->val) < 2 ? 2 : atoi(o->val)) * NS_PER_S;
	PQconninfoFree(opts);
	return ns;
}

/* Drive a started connection to the end; the reason in *cause on failure. */
static bool
finish_connect(PGconn *conn, uint64_t deadline_ns, volatile sig_atomic_t *stop, char **cause)
{
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	uint64_t	limit = conn_connect_timeout_ns(conn);

	if (limit > 0 && clock_now_ns() + limit < deadline_ns)
		deadline_ns = clock_now_ns() + limit;
	while (st != PGRES_POLLING_OK)
	{
		conn_wait	w;

		if (PQstatus(conn) == CONNECTION_BAD || st == PGRES_POLLING_FAILED)
		{
			*cause = conn_error(conn);
			return false;
		}
		w = wait_socket(PQsocket(conn), st == PGRES_POLLING_READING ? POLLIN : POLLOUT,
						deadline_ns, stop);
		if (w == CONN_WAIT_TIMEOUT || w == CONN_WAIT_STOPPED)
		{
			*cause = xstrdup(w == CONN_WAIT_TIMEOUT ?
							 "no answer from the server while connecting: timeout expired" :
							 "interrupted while connecting");
			return false;
		}
		st = PQconnectPoll(conn);
	}
	return true;
}

PGconn *
conn_connect(const conn_opts *o, uint64_t deadline_ns, volatile sig_atomic_t *stop, char **cause)
{
	if (o->prompt == CONN_PROMPT_ALWAYS && saved_password == NULL)
		saved_password = conn_prompt_password("Password: ");

	for (;;)
	{
		PGconn	   *conn = conn_start(o);

		if (conn == NULL)
		{
			*cause = xstrdup("out of memory");
			return NULL;
		}
		if (finish_connect(conn, deadline_ns, stop, cause))
			return conn;
		/* the server wants a password we did not give: ask once, then retry */
		if (PQconnectionNeedsPassword(conn) && saved_password == NULL &&
			o->prompt != CONN_PROMPT_NEVER)
		{
			saved_password = conn_prompt_password("Password: ");
			if (saved_password != NULL)
			{
				free(*cause);
				*cause = NULL;
				PQfinish(conn);
				continue;
			}
		}
		PQfinish(conn);
		return NULL;
	}
}

PGconn *
conn_open(const conn_opts *o, char **cause)
{
	return conn_connect(o, CONN_NO_DEADLINE, NULL, cause);
}

conn_wait
conn_flush(PGconn *conn, uint64_t deadline_ns, volatile sig_atomic_t *stop)
{
	for (;;)
	{
		int			rc = PQflush(conn);
		conn_wait	w;

		if (rc == 0)
			return CONN_WAIT_READY;
		if (rc < 0)
			return CONN_WAIT_LOST;
		/* the server may be waiting for us to read before it reads more */
		w = wait_socket(PQsocket(conn), POLLIN | POLLOUT, deadline_ns, stop);
		if (w != CONN_WAIT_READY)
			return w;
		if (!PQconsumeInput(conn))
			return CONN_WAIT_LOST;
	}
}

conn_wait
conn_await(PGconn *conn, uint64_t deadline_ns, volatile sig_atomic_t *stop)
{
	conn_wait	w = conn_flush(conn, deadline_ns, stop);

	if (w != CONN_WAIT_READY)
		return w;
	/* poll before reading: the answer is never there the moment the query was sent */
	while (PQisBusy(conn))
	{
		w = wait_socket(PQsocket(conn), POLLIN, deadline_ns, stop);
		if (w != CONN_WAIT_READY)
			return w;
		if (!PQconsumeInput(conn))
			return CONN_WAIT_LOST;
	}
	return CONN_WAIT_READY;
}

conn_wait
conn_result(PGconn *conn, uint64_t deadline_ns, volatile sig_atomic_t *stop, PGresult **res)
{
	*res = NULL;
	for (;;)
	{
		/* after a FATAL error the server still has to close: PQgetResult would wait for that */
		conn_wait	w = conn_await(conn, deadline_ns, stop);
		PGresult   *r;
		ExecStatusType st;

		if (w != CONN_WAIT_READY)
			return w;
		if ((r = PQgetResult(conn)) == NULL)
			return CONN_WAIT_READY;
		st = PQresultStatus(r);
		if (*res != NULL)
			PQclear(r);
		else
			*res = r;
		/* libpq keeps returning a COPY result until the copy ends */
		if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH)
			return CONN_WAIT_READY;
	}
}

conn_wait
conn_exec(PGconn *conn, const char *sql, int result_format, uint64_t deadline_ns,
		  volatile sig_atomic_t *stop, PGresult **res)
{
	conn_wait	w;

	*res = NULL;
	if (!PQsendQueryParams(conn, sql, 0, NULL, NULL, NULL, NULL, result_format))
	{
		if (PQstatus(conn) == CONNECTION_BAD)
			return CONN_WAIT_LOST;
		*res = PQmakeEmptyPGresult(conn, PGRES_FATAL_ERROR);
		return CONN_WAIT_READY;
	}
	w = conn_result(conn, deadline_ns, stop, res);
	if (w == CONN_WAIT_READY && *res == NULL)
		*res = PQmakeEmptyPGresult(conn, PGRES_FATAL_ERROR);
	if (w != CONN_WAIT_READY || PQstatus(conn) == CONNECTION_BAD)
	{
		PQclear(*res);
		*res = NULL;
		return w != CONN_WAIT_READY ? w : CONN_WAIT_LOST;
	}
	return CONN_WAIT_READY;
}

/* Cancel requests being sent by a thread of their own; freed by whoever is last. */
typedef struct cancel_req
{
	PGcancel  **pc;
	int			n;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool		done;
	bool		abandoned;		/* no one waits (any more): the thread frees it */
	bool		ok;				/* every request was taken */
	char		err[256];		/* why the first that failed failed */
} cancel_req;

/* Cancel threads still running, for conn_cancel_drain(). */
static atomic_int cancels_running;

static void
cancel_req_free(cancel_req *r)
{
	for (int i = 0; i < r->n; i++)
		PQfreeCancel(r->pc[i]);
	free(r->pc);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	free(r);
}

/*
 * Send the requests.  PQcancel connects to the postmaster and waits for
 * it to close the connection, without a time limit: hence a thread, which
 * a caller that stops waiting leaves behind.
 */
static void *
cancel_main(void *arg)
{
	cancel_req *r = arg;
	char		err[sizeof(r->err)];
	bool		ok = true;
	bool		abandoned;

	for (int i = 0; i < r->n; i++)
		if (PQcancel(r->pc[i], err, (int) sizeof(err)) != 1 && ok)
		{
			ok = false;
			memcpy(r->err, err, sizeof(err));
		}
	pthread_mutex_lock(&r->mu);
	r->ok = ok;
	r->done = true;
	abandoned = r->abandoned;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	if (abandoned)
		cancel_req_free(r);
	atomic_fetch_sub(&cancels_running, 1);
	return NULL;
}

/* Start r's thread, detached, with the stop signals blocked in it; false with *cause. */
static bool
cancel_start(cancel_req *r, char **cause)
{
	pthread_attr_t attr;
	pthread_t	thread;
	sigset_t	old;
	int			rc;

	signals_block_stop(&old);
	atomic_fetch_add(&cancels_running, 1);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&thread, &attr, cancel_main, r);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
	{
		atomic_fetch_sub(&cancels_running, 1);
		*cause = xasprintf("could not start a thread for cancel requests: %s", strerror(rc));
	}
	return rc == 0;
}

/* Wait for r until the monotonic time t; false (r left to its thread) if it did not finish. */
static bool
cancel_wait(cancel_req *r, uint64_t t)
{
	struct timespec until;
	bool		done;

	until.tv_sec = (time_t) (t / NS_PER_S);
	until.tv_nsec = (long) (t % NS_PER_S);
	pthread_mutex_lock(&r->mu);
	while (!r->done)
		if (pthread_cond_timedwait(&r->cv, &r->mu, &until) == ETIMEDOUT)
			break;
	done = r->done;
	if (!done)
		r->abandoned = true;
	pthread_mutex_unlock(&r->mu);
	return done;
}

bool
conn_cancel_send(PGcancel **pc, int n, uint64_t wait_ns, char **cause)
{
	cancel_req *r;
	pthread_condattr_t cattr;
	uint64_t	until = clock_now_ns() + wait_ns;
	bool		ok;

	if (n == 0)
	{
		free(pc);
		return true;
	}
	r = xcalloc(1, sizeof(*r));
	r->pc = pc;
	r->n = n;
	r->abandoned = wait_ns == 0;
	pthread_mutex_init(&r->mu, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cv, &cattr);
	pthread_condattr_destroy(&cattr);
	if (!cancel_start(r, cause))
	{
		cancel_req_free(r);
		return false;
	}
	if (wait_ns == 0)
		return true;
	if (!cancel_wait(r, until))
	{
		*cause = xasprintf("the server did not take the cancel request within %.1f s",
						   (double) wait_ns / 1e9);
		return false;
	}
	ok = r->ok;
	if (!ok)
		*cause = conn_trim_message(r->err);
	cancel_req_free(r);
	return ok;
}

bool
conn_cancel(PGconn *conn, uint64_t timeout_ns, char **cause)
{
	PGcancel   *c = PQgetCancel(conn);
	PGcancel  **pc;

	if (c == NULL)
	{
		*cause = xstrdup("no connection to cancel");
		return false;
	}
	pc = xmalloc(sizeof(*pc));
	pc[0] = c;
	return conn_cancel_send(pc, 1, timeout_ns, cause);
}

bool
conn_cancel_drain(uint64_t timeout_ns)
{
	uint64_t	until = clock_now_ns() + timeout_ns;
	struct timespec tick = {0, 10 * 1000 * 1000};

	while (atomic_load(&cancels_running) > 0 && clock_now_ns() < until)
		nanosleep(&tick, NULL);
	return atomic_load(&cancels_running) == 0;
}

void
conn_abandon(PGconn *conn, uint64_t cancel_ns)
{
	char	   *cause = NULL;
	bool		busy;

	if (conn == NULL)
		return;
	busy = PQstatus(conn) == CONNECTION_OK && PQtransactionStatus(conn) == PQTRANS_ACTIVE;
	if (busy && !conn_cancel(conn, cancel_ns, &cause))
		free(cause);
	/* PQfinish says goodbye: behind unsent data that write would block */
	if (busy && PQsocket(conn) >= 0)
		shutdown(PQsocket(conn), SHUT_RDWR);
	PQfinish(conn);
}
