/*
 * conn.h — connecting to PostgreSQL the way PostgreSQL's client tools do.
 *
 * -h/--host, -p/--port, -U/--username and a database name that may also
 * be a conninfo string ("host=x dbname=y") or a URI
 * ("postgresql://..."), with the PG* environment variables, ~/.pgpass
 * and service files handled by libpq itself.  When the server asks for a
 * password that was not supplied, the user is prompted on the terminal
 * (unless told not to), and the connection is tried again.
 */
#ifndef PGTEMPO_CONN_H
#define PGTEMPO_CONN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "pgtempo/opt.h"

typedef enum conn_prompt
{
	CONN_PROMPT_AUTO,			/* prompt if the server asks and there is a terminal */
	CONN_PROMPT_NEVER,			/* -w */
	CONN_PROMPT_ALWAYS			/* -W: prompt before connecting */
} conn_prompt;

typedef struct conn_opts
{
	const char *host;			/* NULL: libpq's default (PGHOST, socket) */
	const char *port;
	const char *user;
	const char *dbname;			/* a name, a conninfo string or a URI */
	const char *application_name;	/* fallback_application_name */
	conn_prompt prompt;
} conn_opts;

/*
 * Connect and wait until the connection is made.  On failure returns
 * NULL and sets *cause to libpq's message (allocated, without a trailing
 * newline).
 */
PGconn	   *conn_open(const conn_opts *o, char **cause);

/*
 * Start a connection without waiting (PQconnectStartParams): drive it
 * with PQconnectPoll.  A password prompted for by an earlier conn_open()
 * is reused.  NULL only when out of memory.
 */
PGconn	   *conn_start(const conn_opts *o);

/* Read a password from the terminal without echo; NULL if there is no terminal. */
char	   *conn_prompt_password(const char *prompt);

/*
 * The connection options every tool takes, by their short letter:
 * -d DBNAME, -h HOST, -p PORT, -U USER, -w (never prompt), -W (prompt
 * first).  True when c was one of them and arg is stored in o.
 */
bool		conn_option(conn_opts *o, int c, const char *arg);
/*
 * The same as an opt.h handler for the conn_opts at def->field (-d -h -p -U
 * -w -W).  It lives here, not in opt.c, so that a tool without libpq
 * (pg_test_timing) can use opt.c without pulling in conn.o.
 */
opt_status	opt_conn(const opt_def *def, void *ctx, const char *arg);

/* libpq's error message of conn, without the trailing newline (allocated). */
char	   *conn_error(const PGconn *conn);

/* A copy of a libpq message without its trailing newline; "unknown error" for NULL. */
char	   *conn_trim_message(const char *m);

/*
 * Waiting on a connection without ever blocking past a deadline.
 *
 * Deadlines are monotonic times (clock_now_ns()); CONN_NO_DEADLINE waits
 * as long as it takes.  stop (may be NULL) is a flag set by a signal
 * handler: a wait looks at it at least every 100 ms.  A statement that
 * timed out or was stopped is still in flight: cancel it
 * (conn_cancel()) and drop the connection, or wait again.
 */
#define CONN_NO_DEADLINE UINT64_MAX

typedef enum conn_wait
{
	CONN_WAIT_READY,			/* connected / the result can be read without blocking */
	CONN_WAIT_LOST,				/* the connection failed: PQerrorMessage() says why */
	CONN_WAIT_TIMEOUT,			/* the deadline passed first */
	CONN_WAIT_STOPPED			/* *stop was set first */
} conn_wait;

/*
 * conn_open() that gives up at deadline_ns or on *stop: a server that
 * accepts the connection and never answers (a stopped postmaster) cannot
 * hang it.  libpq's connect_timeout, when set, bounds it too.  NULL with
 * *cause on failure ("timeout expired" / "interrupted" for those).
 */
PGconn	   *conn_connect(const conn_opts *o, uint64_t deadline_ns,
						 volatile sig_atomic_t *stop, char **cause);

/*
 * libpq's connect_timeout of conn in ns, 0 if unset (values below 2 s
 * count as 2 s, as libpq counts them).  PQconnectPoll does not apply it:
 * a caller that drives a connection itself must.
 */
uint64_t	conn_connect_timeout_ns(PGconn *conn);

/*
 * After PQsendQuery* (or PQputCopyEnd): send what libpq still holds and
 * wait until a result can be read without blocking (PQisBusy() false).
 */
conn_wait	conn_await(PGconn *conn, uint64_t deadline_ns, volatile sig_atomic_t *stop);

/* Send what libpq holds for a non-blocking connection (PQsetnonblocking). */
conn_wait	conn_flush(PGconn *conn, uint64_t deadline_ns, volatile sig_atomic_t *stop);

/*
 * Read the results of the statement in flight until the end (a COPY IN
 * or OUT result ends it early), keeping the first in *res: libpq would
 * block for the others.  CONN_WAIT_READY when all were read; otherwise
 * *res may still hold the first (an error before the connection went).
 */
conn_wait	conn_result(PGconn *conn, uint64_t deadline_ns, volatile sig_atomic_t *stop,
						PGresult **res);

/*
 * Run sql (no parameters; results in result_format, 0 text, 1 binary)
 * and wait for it.  CONN_WAIT_READY with *res set, whether it succeeded
 * or not (look at PQresultStatus); otherwise *res is NULL.
 */
conn_wait	conn_exec(PGconn *conn, const char *sql, int result_format,
					  uint64_t deadline_ns, volatile sig_atomic_t *stop, PGresult **res);

/*
 * Ask the server to cancel conn's statement in flight, waiting at most
 * timeout_ns: a hung postmaster cannot hang it (the request is sent from
 * a thread, left behind if it does not finish in time).  False with
 * *cause (allocated) when the request could not be sent in time.
 */
bool		conn_cancel(PGconn *conn, uint64_t timeout_ns, char **cause);

/*
 * The one way to send cancel requests: pc[0..n-1] (the array and each
 * request are taken over) go out from a detached thread of their own, with
 * SIGINT and SIGTERM blocked in it.  Waits at most wait_ns for them: false
 * with *cause (allocated) if one failed or they took longer.  With wait_ns
 * 0, returns at once: false only if the thread could not start.
 */
bool		conn_cancel_send(PGcancel **pc, int n, uint64_t wait_ns, char **cause);

/*
 * Before the program exits, which would end the threads sending them:
 * wait at most timeout_ns for the cancel requests still being sent; false
 * if some still are.
 */
bool		conn_cancel_drain(uint64_t timeout_ns);

/*
 * Close conn.  When a statement is still in flight (it did not answer in
 * time), first a cancel request (waiting at most cancel_ns), and the
 * socket is shut down so that closing cannot block on a full buffer.
 */
void		conn_abandon(PGconn *conn, uint64_t cancel_ns);

#endif
