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

#include <stdbool.h>

#include <libpq-fe.h>

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

/* libpq's error message of conn, without the trailing newline (allocated). */
char	   *conn_error(const PGconn *conn);

#endif
