/*
 * conn.c — PostgreSQL connections with PostgreSQL's command-line
 * conventions.
 */
#include "config.h"

#include "pgtempo/conn.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "pgtempo/xalloc.h"

/* A password the user typed once, reused for every later connection. */
static char *saved_password;

char *
conn_error(const PGconn *conn)
{
	const char *m = conn ? PQerrorMessage(conn) : "out of memory";
	size_t		n = strlen(m);

	while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' '))
		n--;
	return xstrndup(m, n);
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

PGconn *
conn_open(const conn_opts *o, char **cause)
{
	const char *keys[8],
			   *vals[8];
	PGconn	   *conn;

	if (o->prompt == CONN_PROMPT_ALWAYS && saved_password == NULL)
		saved_password = conn_prompt_password("Password: ");

	for (;;)
	{
		fill_params(o, keys, vals);
		conn = PQconnectdbParams(keys, vals, 1);
		if (conn != NULL && PQstatus(conn) == CONNECTION_OK)
			return conn;
		/* the server wants a password we did not give: ask once, then retry */
		if (conn != NULL && PQconnectionNeedsPassword(conn) && saved_password == NULL &&
			o->prompt != CONN_PROMPT_NEVER)
		{
			saved_password = conn_prompt_password("Password: ");
			if (saved_password != NULL)
			{
				PQfinish(conn);
				continue;
			}
		}
		*cause = conn_error(conn);
		PQfinish(conn);
		return NULL;
	}
}
