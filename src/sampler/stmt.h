/*
 * stmt.h — statements on the sampler's connection, each bounded in time.
 *
 * A statement is sent asynchronously and its result awaited until a
 * deadline: STMT_TIMEOUT_NS after it was sent, cut at the run's end
 * (end_ns) but never below STMT_MIN_WAIT_NS.  A server that has not
 * answered by then is sent a cancel and its connection dropped
 * (SAMPLER_LOST): a hung server cannot hold the run.  Statements end in
 * the statuses of sampler.h, which the sampler passes on as they are.
 */
#ifndef PGTEMPO_SAMPLER_STMT_H
#define PGTEMPO_SAMPLER_STMT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "pgtempo/clock.h"

#include "pqbin.h"
#include "sampler.h"

/* A connection and the statement in flight on it. */
typedef struct stmt_conn
{
	PGconn	   *conn;
	pqbin_params param;			/* the statements' parameters (param.n 0: none) */
	volatile sig_atomic_t *stop;	/* set by a signal handler: give up waiting */
	uint64_t	end_ns;			/* the run's end (monotonic): no statement waits past it */
	uint64_t	sent_ns;		/* when the statement in flight was sent */
	char	   *last_error;		/* of the last failed statement */
} stmt_conn;

#define STMT_TIMEOUT_NS		(10 * NS_PER_S)
#define STMT_MIN_WAIT_NS	(500 * NS_PER_MS)
#define STMT_CANCEL_NS		(500 * NS_PER_MS)

/* A copy of libpq's message without the trailing newline. */
char	   *stmt_trimmed(const char *m);

/* Set last_error (taking the string). */
void		stmt_set_error(stmt_conn *sc, char *msg);

/*
 * Send the statement named stmt (prepared), or the SQL text sql when stmt
 * is NULL, with sc->param, binary results.  stmt_await() reads its result.
 */
sampler_status stmt_send(stmt_conn *sc, const char *stmt, const char *sql);

/*
 * Wait for the result of the statement in flight; *out is NULL unless
 * SAMPLER_OK.  Never past the statement's deadline: then the connection is
 * dropped (SAMPLER_LOST).
 */
sampler_status stmt_await(stmt_conn *sc, PGresult **out);

/* stmt_send() and stmt_await(). */
sampler_status stmt_run(stmt_conn *sc, const char *stmt, const char *sql, PGresult **out);

/* stmt_run() of the prepared statement stmt with parameters p instead of sc->param. */
sampler_status stmt_run_params(stmt_conn *sc, const char *stmt, const pqbin_params *p,
							   PGresult **out);

/* Run sql without parameters; NULL with *cause on error. */
PGresult   *stmt_exec(stmt_conn *sc, const char *sql, char **cause);

/* Prepare a statement; false with *cause on error. */
bool		stmt_prepare(stmt_conn *sc, const char *name, const char *sql, char **cause);

/* Close the connection, cancelling a statement still in flight. */
void		stmt_drop(stmt_conn *sc);

#endif
