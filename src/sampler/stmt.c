/*
 * stmt.c — statements on the sampler's connection, each bounded in time.
 */
#include "config.h"

#include "stmt.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/conn.h"
#include "pgtempo/xalloc.h"

/* A copy of libpq's message without the trailing newline. */
char *
stmt_trimmed(const char *m)
{
	return conn_trim_message(m);
}

void
stmt_set_error(stmt_conn *sc, char *msg)
{
	free(sc->last_error);
	sc->last_error = msg;
}

/* The server's message for a failed result: the primary text, else libpq's. */
static char *
result_message(const PGresult *res, const PGconn *conn)
{
	const char *m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	if (m != NULL && m[0] != '\0')
		return stmt_trimmed(m);
	m = res ? PQresultErrorMessage(res) : NULL;
	if (m != NULL && m[0] != '\0')
		return stmt_trimmed(m);
	return stmt_trimmed(PQerrorMessage(conn));
}

/* How long the statement sent last may take: see STMT_TIMEOUT_NS. */
static uint64_t
statement_deadline(const stmt_conn *sc)
{
	uint64_t	deadline = sc->sent_ns + STMT_TIMEOUT_NS;

	if (sc->end_ns < deadline)
		deadline = sc->end_ns;
	if (deadline < sc->sent_ns + STMT_MIN_WAIT_NS)
		deadline = sc->sent_ns + STMT_MIN_WAIT_NS;
	return deadline;
}

/*
 * Close the connection (a result already read stays: its rows may be
 * being read).  A statement still in flight did not answer in time:
 * cancel it first.
 */
void
stmt_drop(stmt_conn *sc)
{
	pqbin_params_clear(&sc->param);
	conn_abandon(sc->conn, STMT_CANCEL_NS);
	sc->conn = NULL;
}

/* The server did not answer in time: cancel, drop the connection, say why. */
static sampler_status
give_up_statement(stmt_conn *sc)
{
	stmt_set_error(sc, xasprintf("no answer from the server for %.1f s",
								 (double) (clock_now_ns() - sc->sent_ns) / 1e9));
	stmt_drop(sc);
	return SAMPLER_LOST;
}

sampler_status
stmt_await(stmt_conn *sc, PGresult **out)
{
	PGconn	   *conn = sc->conn;
	PGresult   *res = NULL;
	ExecStatusType st;
	uint64_t	deadline = statement_deadline(sc);
	conn_wait	w = conn_await(conn, deadline, sc->stop);

	*out = NULL;
	if (w == CONN_WAIT_STOPPED)
	{
		/* a stop request: a server that answers gets a moment to, to end on a whole sample */
		uint64_t	grace = clock_now_ns() + STMT_MIN_WAIT_NS;

		deadline = grace < deadline ? grace : deadline;
		w = conn_await(conn, deadline, NULL);
	}
	if (w == CONN_WAIT_READY)
		w = conn_result(conn, deadline, NULL, &res);
	if (w == CONN_WAIT_LOST && res != NULL)
	{
		/* the server said why before it went ("terminating connection ...") */
		stmt_set_error(sc, result_message(res, conn));
		PQclear(res);
		return SAMPLER_LOST;
	}
	PQclear(w == CONN_WAIT_READY ? NULL : res);
	if (w == CONN_WAIT_TIMEOUT || w == CONN_WAIT_STOPPED)
		return give_up_statement(sc);
	if (w == CONN_WAIT_LOST)
	{
		stmt_set_error(sc, conn_error(conn));
		return SAMPLER_LOST;
	}
	st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
	{
		*out = res;
		return SAMPLER_OK;
	}
	stmt_set_error(sc, result_message(res, conn));
	PQclear(res);
	return PQstatus(conn) == CONNECTION_BAD ? SAMPLER_LOST : SAMPLER_ERROR;
}

/* A statement could not be sent: why, and whether the connection is still there. */
static sampler_status
send_failed(stmt_conn *sc)
{
	stmt_set_error(sc, stmt_trimmed(PQerrorMessage(sc->conn)));
	return PQstatus(sc->conn) == CONNECTION_BAD ? SAMPLER_LOST : SAMPLER_ERROR;
}

/* Send stmt or sql with parameters p. */
static sampler_status
send_params(stmt_conn *sc, const char *stmt, const char *sql, const pqbin_params *p)
{
	if (sc->conn == NULL)
	{
		stmt_set_error(sc, xstrdup("no connection to the server"));
		return SAMPLER_LOST;
	}
	sc->sent_ns = clock_now_ns();
	if (!pqbin_send(sc->conn, p, stmt, sql))
		return send_failed(sc);
	return SAMPLER_OK;
}

sampler_status
stmt_send(stmt_conn *sc, const char *stmt, const char *sql)
{
	return send_params(sc, stmt, sql, &sc->param);
}

/* Send and await. */
static sampler_status
run_params(stmt_conn *sc, const char *stmt, const char *sql, const pqbin_params *p,
		   PGresult **out)
{
	sampler_status st = send_params(sc, stmt, sql, p);

	*out = NULL;
	return st == SAMPLER_OK ? stmt_await(sc, out) : st;
}

sampler_status
stmt_run(stmt_conn *sc, const char *stmt, const char *sql, PGresult **out)
{
	return run_params(sc, stmt, sql, &sc->param, out);
}

sampler_status
stmt_run_params(stmt_conn *sc, const char *stmt, const pqbin_params *p, PGresult **out)
{
	return run_params(sc, stmt, NULL, p, out);
}

PGresult *
stmt_exec(stmt_conn *sc, const char *sql, char **cause)
{
	PGresult   *res = NULL;

	if (sc->conn == NULL)
	{
		*cause = xstrdup("no connection to the server");
		return NULL;
	}
	sc->sent_ns = clock_now_ns();
	if (!PQsendQueryParams(sc->conn, sql, 0, NULL, NULL, NULL, NULL, 1))
		send_failed(sc);
	else if (stmt_await(sc, &res) == SAMPLER_OK)
		return res;
	*cause = xstrdup(sc->last_error);
	return NULL;
}

bool
stmt_prepare(stmt_conn *sc, const char *name, const char *sql, char **cause)
{
	PGresult   *res = NULL;

	sc->sent_ns = clock_now_ns();
	if (!PQsendPrepare(sc->conn, name, sql, 0, NULL))
		send_failed(sc);
	else if (stmt_await(sc, &res) == SAMPLER_OK)
	{
		PQclear(res);
		return true;
	}
	*cause = xasprintf("could not prepare the sampling statement: %s", sc->last_error);
	return false;
}
