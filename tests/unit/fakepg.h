/*
 * fakepg.h — a PostgreSQL server just real enough for libpq to connect.
 *
 * It listens on a Unix socket in a directory of its own, takes one
 * connection, says it is a server with integer datetimes (what libpqtypes
 * reads binary timestamps by), and answers every query with one canned
 * row: what libpqtypes' type lookup expects for pg_catalog.oid.  A test
 * builds its results itself (PQmakeEmptyPGresult) on the connection.
 */
#ifndef PGTEMPO_TESTS_FAKEPG_H
#define PGTEMPO_TESTS_FAKEPG_H

#include <pthread.h>
#include <stdbool.h>

#include <libpq-fe.h>

typedef struct fakepg
{
	char		dir[64];
	char		path[128];
	int			listen_fd;
	pthread_t	thread;
	bool		started;
} fakepg;

/* Start the server and connect to it; NULL if either fails. */
PGconn	   *fakepg_connect(fakepg *f);

/* Close conn and stop the server. */
void		fakepg_stop(fakepg *f, PGconn *conn);

#endif
