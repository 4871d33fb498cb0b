/*
 * clientio.c — a client's connection: opening it, its epoll registration,
 * sending what libpq holds, preparing statements, the error paths that
 * drain results, and the client's end.  The state machine (client.c)
 * is built on these.
 */
#include "config.h"

#include "clientio.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "pgtempo/msg.h"

#define SQLSTATE_SERIALIZATION	"40001"
#define SQLSTATE_DEADLOCK		"40P01"

/* pgbench's debug lines: "prog: debug: ..." (one write, threads interleave whole lines). */
void
clientio_debug(const char *fmt, ...)
{
	char		buf[2048];
	int			n;
	va_list		ap;

	n = snprintf(buf, sizeof(buf), "%s: debug: ", msg_progname());
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	strcat(buf, "\n");
	fputs(buf, stderr);
}

/* Make the epoll registration of c's socket say events. */
static void
ep_set(client *c, uint32_t events)
{
	int			fd = PQsocket(c->con);
	struct epoll_event ev = {.events = events,.data.ptr = c};

	if (fd < 0)
		return;
	if (fd != c->sock)
	{
		if (epoll_ctl(c->th->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 && errno == EEXIST)
			epoll_ctl(c->th->epfd, EPOLL_CTL_MOD, fd, &ev);
		c->sock = fd;
		c->events = events;
	}
	else if (events != c->events)
	{
		if (epoll_ctl(c->th->epfd, EPOLL_CTL_MOD, fd, &ev) < 0 && errno == ENOENT)
			epoll_ctl(c->th->epfd, EPOLL_CTL_ADD, fd, &ev);
		c->events = events;
	}
}

/* Close c's connection (its socket leaves the epoll set with it). */
void
clientio_close(client *c)
{
	if (c->pending != NULL)
	{
		PQclear(c->pending);
		c->pending = NULL;
	}
	if (c->con != NULL)
	{
		if (c->sock >= 0)
			epoll_ctl(c->th->epfd, EPOLL_CTL_DEL, c->sock, NULL);
		PQfinish(c->con);
		c->con = NULL;
		bwaits_set_pid(c->th->r->waits, c->ec.id, 0);
	}
	c->sock = -1;
	c->events = 0;
	c->ec.in_pipeline = false;
	c->num_syncs = 0;
}

/* A final state: the connection goes, and the thread has one client fewer. */
void
clientio_finish(client *c, cstate final)
{
	runner	   *r = c->th->r;

	clientio_set_state(c, final);
	clientio_close(c);
	c->th->remaining--;
	if (final == CS_ABORTED && r->s->exit_on_abort)
	{
		int			none = 0;

		atomic_compare_exchange_strong(&r->abort_thread, &none, c->th->id + 1);
		atomic_store(&r->abort_all, true);
		stop_wake();
	}
}

/* pgbench's commandFailed(): the abort line naming the command. */
void
clientio_failed(client *c, const char *what, const char *message)
{
	msg_error("client %d aborted in command %d (%s) of script %d; %s", c->ec.id, c->cmd, what,
			  c->script_no, message);
}

/*
 * Start opening c's connection; false if libpq refused at once: the cause
 * is printed, unless again is given and the cause was EAGAIN, which a Unix
 * socket gives while the server's listen queue is full (*again set: try
 * again a little later).
 */
bool
clientio_connect_start(client *c, bool *again)
{
	uint64_t	timeout;

	c->con = conn_start(&c->th->r->s->conn);
	c->sock = -1;
	c->events = 0;
	if (c->con == NULL || PQstatus(c->con) == CONNECTION_BAD)
	{
		char	   *e = conn_error(c->con);

		/* libpq says only in words: its message carries strerror(EAGAIN) */
		if (again != NULL && e != NULL && strstr(e, strerror(EAGAIN)) != NULL)
			*again = true;
		else
			msg_error("%s", e);
		free(e);
		if (c->con != NULL)
			PQfinish(c->con);
		c->con = NULL;
		return false;
	}
	timeout = conn_connect_timeout_ns(c->con);
	c->connect_until = timeout > 0 ? clock_now_ns() + timeout : CONN_NO_DEADLINE;
	if (timeout > 0)
		c->th->connect_timeouts = true;
	/* PQconnectStart's contract: behave as if PQconnectPoll had said "writing" */
	ep_set(c, EPOLLOUT);
	clientio_set_state(c, CS_CONNECT);
	return true;
}

void
clientio_connect_timed_out(bool at_run_end, int end_s)
{
	if (at_run_end)
		msg_error("no answer from the server while connecting: gave up at the end of -T and its grace (%d s)",
				  end_s);
	else
		msg_error("no answer from the server while connecting: timeout expired");
}

/* Drive an opening connection: 1 connected, 0 not yet, -1 failed (libpq's message printed). */
int
clientio_connect_poll(client *c)
{
	switch (PQconnectPoll(c->con))
	{
		case PGRES_POLLING_READING:
			ep_set(c, EPOLLIN);
			return 0;
		case PGRES_POLLING_WRITING:
			ep_set(c, EPOLLOUT);
			return 0;
		case PGRES_POLLING_OK:
			PQsetnonblocking(c->con, 1);
			bwaits_set_pid(c->th->r->waits, c->ec.id, PQbackendPID(c->con));
			ep_set(c, EPOLLIN);
			return 1;
		default:
			{
				char	   *e = conn_error(c->con);

				msg_error("%s", e);
				free(e);
				clientio_close(c);
				return -1;
			}
	}
}

/* Watch for output too while libpq has unsent data. */
bool
clientio_flush(client *c)
{
	int			r = PQflush(c->con);

	if (r < 0)
		return false;
	c->want_write = r > 0;
	ep_set(c, c->want_write ? EPOLLIN | EPOLLOUT : EPOLLIN);
	return true;
}

/* -M prepared: prepare command n of the client's script on this connection, once. */
void
clientio_prepare(client *c, int n)
{
	runner	   *r = c->th->r;
	const command *cmd = r->s->scripts[c->script_no]->commands[n];
	int			k = r->cmd_base[c->script_no] + n;
	PGresult   *res;

	if (cmd->type != CMD_SQL || c->prepared[k])
		return;
	if (r->s->debug)
		clientio_debug("client %d preparing %s", c->ec.id, r->prepnames[k]);
	res = PQprepare(c->con, r->prepnames[k], cmd->sql_numbered, cmd->nparams, NULL);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		msg_error("%s", PQerrorMessage(c->con));
	PQclear(res);
	c->prepared[k] = true;
}

/* Read and drop whatever results are left of the current command (blocking; error paths only). */
void
clientio_discard_results(client *c)
{
	PGresult   *res;

	for (;;)
	{
		res = PQgetResult(c->con);
		if ((res == NULL && PQpipelineStatus(c->con) != PQ_PIPELINE_ABORTED) ||
			PQstatus(c->con) == CONNECTION_BAD)
			break;
		PQclear(res);
	}
	PQclear(res);
}

/* Which failure a SQL error is (after dropping the rest of the command's results). */
estatus
clientio_error_status(client *c, const char *sqlstate)
{
	clientio_discard_results(c);
	if (PQstatus(c->con) == CONNECTION_BAD)
		return ES_CONN;
	if (sqlstate != NULL && strcmp(sqlstate, SQLSTATE_SERIALIZATION) == 0)
		return ES_SERIALIZATION;
	if (sqlstate != NULL && strcmp(sqlstate, SQLSTATE_DEADLOCK) == 0)
		return ES_DEADLOCK;
	return ES_OTHER;
}

/* In pipeline mode after an error: sync, and drop everything up to the sync. */
bool
clientio_discard_until_sync(client *c)
{
	bool		got_sync = false;

	if (!PQpipelineSync(c->con))
	{
		msg_error("client %d aborted: failed to send a pipeline sync", c->ec.id);
		return false;
	}
	for (;;)
	{
		PGresult   *res = PQgetResult(c->con);

		if (PQstatus(c->con) == CONNECTION_BAD)
		{
			msg_error("client %d aborted while rolling back the transaction after an error; perhaps the backend died while processing",
					  c->ec.id);
			PQclear(res);
			return false;
		}
		if (PQresultStatus(res) == PGRES_PIPELINE_SYNC)
			got_sync = true;
		else if (got_sync && res == NULL)
			break;
		else
			got_sync = false;
		PQclear(res);
	}
	c->num_syncs = 0;
	c->ec.in_pipeline = false;
	if (PQexitPipelineMode(c->con) != 1)
	{
		msg_error("client %d aborted: failed to exit pipeline mode for rolling back the failed transaction",
				  c->ec.id);
		return false;
	}
	return true;
}

/* Whether c's connection is idle (true), or abort it with pgbench's message. */
bool
clientio_check_idle(client *c, bool at_end)
{
	switch (PQtransactionStatus(c->con))
	{
		case PQTRANS_IDLE:
			return true;
		case PQTRANS_INTRANS:
		case PQTRANS_INERROR:
			if (at_end)
				msg_error("client %d aborted: end of script reached without completing the last transaction",
						  c->ec.id);
			return false;
		default:
			if (PQstatus(c->con) == CONNECTION_BAD)
				msg_error("perhaps the backend died while processing");
			msg_error("client %d aborted while receiving the transaction status", c->ec.id);
			return false;
	}
}
