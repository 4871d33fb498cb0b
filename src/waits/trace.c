/*
 * trace.c — pgtempo-waits --trace: a line when a traced backend's wait
 * begins and one when it ends.
 *
 * Cost and resolution: each poll is one prepared statement asking
 * pg_stat_activity for three columns of the traced pids only (the planner
 * drops the view's joins), sent at absolute deadlines (default every
 * 1 ms).  The per-backend functions (pg_stat_get_backend_wait_event_type(i)
 * and friends) look cheaper but were measured on PostgreSQL 15 at about
 * four times the backend CPU per poll (some 450 us against 110 us on a
 * loaded 2-CPU machine), and they never show an auxiliary process's wait.
 */
#include "config.h"

#include "trace.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>

#include <libpq-fe.h>

#include "pgtempo/clock.h"
#include "pgtempo/hist.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "sampler.h"
#include "sinkset.h"
#include "ticker.h"

/* How often written lines are pushed out to the file (for tail -f). */
#define TRACE_FLUSH_NS		(100 * NS_PER_MS)

/* The traced backends' state. */
static const char poll_sql[] =
"SELECT pid, wait_event_type, wait_event FROM pg_stat_activity WHERE pid = ANY ($1::int[])";

/* At the start: are the pids backends of this server, and may their waits be seen? */
static const char check_sql[] =
"SELECT pid, query = '<insufficient privilege>' FROM pg_stat_activity "
"WHERE pid = ANY ($1::int[])";

/* The lock a backend waits for: read only when a Lock wait begins. */
static const char lock_sql[] =
"SELECT locktype, database, relation, page, tuple, virtualxid, transactionid, "
"classid, objid, objsubid FROM pg_locks WHERE pid = $1 AND NOT granted LIMIT 1";

typedef struct trace_target
{
	int32_t		pid;
	bool		gone;			/* the process has exited */
	bool		polled;			/* the current poll had a row for it */
	bool		known;			/* a poll has seen its state */
	bool		waiting;		/* a start line was written and no stop yet */
	bool		untraced_wait;	/* in a wait that was on before the trace began */
	char		type[64];		/* the wait being traced, when waiting */
	char		event[64];
	uint64_t	seen_ns;		/* when the last poll that saw its state was sent */
	int64_t		seen_us;		/* the same, wall clock */
} trace_target;

typedef enum exec_outcome
{
	EXEC_OK,
	EXEC_FAILED,				/* an error; *cause says what */
	EXEC_LOST,					/* the connection is gone; *cause says why */
	EXEC_STOPPED,				/* a signal asked to end */
	EXEC_TIMEOUT				/* the end of the run came first */
} exec_outcome;

typedef struct trace_state
{
	const waits_settings *s;
	PGconn	   *conn;
	trace_target *t;
	int			n;
	int			nlive;
	sink_list	out;			/* the trace's lines (sink_trace.c) */
	bool		dirty;			/* lines were written since the last flush */
	uint64_t	last_flush_ns;
	hist	   *lat;			/* poll latency */
	uint64_t	polls;
	uint64_t	max_window_ns;	/* longest time a change could hide between two polls */
	uint64_t	lock_reads;
	strbuf		param;
} trace_state;

/* Set by the caller's signal handlers (tool.c). */
static volatile sig_atomic_t *stop_flag;
static volatile sig_atomic_t *reopen_flag;

/* Wait for the answer to the query just sent, by deadline_ns or a stop request. */
static exec_outcome
await_result(trace_state *ts, uint64_t deadline_ns, PGresult **out, char **cause)
{
	PGresult   *res = NULL;

	*out = NULL;
	switch (conn_result(ts->conn, deadline_ns, stop_flag, &res))
	{
		case CONN_WAIT_READY:
			break;
		case CONN_WAIT_STOPPED:
			PQclear(res);
			return EXEC_STOPPED;
		case CONN_WAIT_TIMEOUT:
			PQclear(res);
			return EXEC_TIMEOUT;
		case CONN_WAIT_LOST:
			PQclear(res);
			*cause = conn_error(ts->conn);
			return EXEC_LOST;
	}
	if (res == NULL || PQstatus(ts->conn) == CONNECTION_BAD)
	{
		PQclear(res);
		*cause = conn_error(ts->conn);
		return EXEC_LOST;
	}
	if (PQresultStatus(res) != PGRES_TUPLES_OK && PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		*cause = xstrdup(PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) ?
						 PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : "query failed");
		PQclear(res);
		return EXEC_FAILED;
	}
	*out = res;
	return EXEC_OK;
}

/* Run a prepared statement with one text parameter, by its deadline. */
static exec_outcome
exec_prepared(trace_state *ts, const char *stmt, const char *param, uint64_t deadline_ns,
			  PGresult **out, char **cause)
{
	const char *params[1] = {param};

	if (!PQsendQueryPrepared(ts->conn, stmt, 1, params, NULL, NULL, 0))
	{
		*cause = conn_error(ts->conn);
		return PQstatus(ts->conn) == CONNECTION_BAD ? EXEC_LOST : EXEC_FAILED;
	}
	return await_result(ts, deadline_ns, out, cause);
}

/* Prepare a statement, by its deadline. */
static exec_outcome
prepare(trace_state *ts, const char *name, const char *sql, uint64_t deadline_ns, char **cause)
{
	PGresult   *res;
	exec_outcome o;

	if (!PQsendPrepare(ts->conn, name, sql, 1, NULL))
	{
		*cause = conn_error(ts->conn);
		return EXEC_LOST;
	}
	o = await_result(ts, deadline_ns, &res, cause);
	PQclear(res);
	return o;
}

/* Hand a line of the trace to the sinks; it is pushed out within TRACE_FLUSH_NS. */
static void
emit(trace_state *ts, const trace_target *t, bool start, int64_t us, const char *const p[5])
{
	sink_trace_rec r;

	r.pid = t->pid;
	r.start = start;
	r.ts_us = us;
	r.type = t->type;
	r.event = t->event;
	for (int i = 0; i < 5; i++)
		r.params[i] = p != NULL ? p[i] : NULL;
	sinks_trace(&ts->out, &r);
	ts->dirty = true;
}

/* Write "stop <ts> <type>" and close the target's wait. */
static void
emit_stop(trace_state *ts, trace_target *t, int64_t us)
{
	emit(ts, t, false, us, NULL);
	t->waiting = false;
}

/*
 * p1..p5 of a heavyweight lock, from a pg_locks row (columns locktype,
 * database, relation, page, tuple, virtualxid, transactionid, classid,
 * objid, objsubid), in the order that names the lock of that type.
 */
static void
lock_params(const PGresult *res, const char *p[5], char *vxid_backend, size_t vlen)
{
	const char *type = PQgetvalue(res, 0, 0);
	int			cols[5] = {-1, -1, -1, -1, -1};

	if (strcmp(type, "relation") == 0 || strcmp(type, "extend") == 0 ||
		strcmp(type, "frozenid") == 0 || strcmp(type, "page") == 0 ||
		strcmp(type, "tuple") == 0)
	{
		/* database, relation, page, tuple: the ones a type does not have are null */
		cols[0] = 1, cols[1] = 2, cols[2] = 3, cols[3] = 4;
	}
	else if (strcmp(type, "transactionid") == 0)
		cols[0] = 6;
	else if (strcmp(type, "spectoken") == 0)
		cols[0] = 6, cols[1] = 8;	/* transaction, token */
	else if (strcmp(type, "virtualxid") == 0)
	{
		/* "backend/local xid" as two numbers */
		const char *v = PQgetvalue(res, 0, 5);
		const char *slash = strchr(v, '/');

		if (slash != NULL && (size_t) (slash - v) < vlen)
		{
			memcpy(vxid_backend, v, (size_t) (slash - v));
			vxid_backend[slash - v] = '\0';
			p[0] = vxid_backend;
			p[1] = slash + 1;
		}
		return;
	}
	else
	{
		/* object, advisory, userlock, applytransaction and any newer type */
		cols[0] = 1, cols[1] = 7, cols[2] = 8, cols[3] = 9;
	}
	for (int i = 0; i < 5; i++)
		if (cols[i] >= 0 && !PQgetisnull(res, 0, cols[i]))
			p[i] = PQgetvalue(res, 0, cols[i]);
}

/* Write the start line of a wait; a Lock wait gets the awaited lock's fields. */
static exec_outcome
emit_start(trace_state *ts, trace_target *t, int64_t us, uint64_t deadline_ns, char **cause)
{
	const char *p[5] = {"0", "0", "0", "0", "0"};
	char		vxid_backend[16];
	PGresult   *res = NULL;

	if (strcmp(t->type, "Lock") == 0)
	{
		char		pid[16];
		exec_outcome o;

		snprintf(pid, sizeof(pid), "%d", (int) t->pid);
		o = exec_prepared(ts, "trace_lock", pid, deadline_ns, &res, cause);
		if (o == EXEC_FAILED)
		{
			/* the line is still worth writing, with zeros */
			msg_warning("could not read the lock process %d waits for: %s", (int) t->pid,
						*cause);
			free(*cause);
			*cause = NULL;
		}
		else if (o != EXEC_OK)
			return o;
		ts->lock_reads++;
		/* no row: the lock was granted before it could be read */
		if (res != NULL && PQntuples(res) > 0)
			lock_params(res, p, vxid_backend, sizeof(vxid_backend));
	}
	emit(ts, t, true, us, p);
	PQclear(res);
	t->waiting = true;
	return EXEC_OK;
}

/* The pids of the live targets as a text array. */
static const char *
pid_array(trace_state *ts)
{
	bool		first = true;

	strbuf_reset(&ts->param);
	strbuf_putc(&ts->param, '{');
	for (int i = 0; i < ts->n; i++)
	{
		if (ts->t[i].gone)
			continue;
		strbuf_printf(&ts->param, first ? "%d" : ",%d", (int) ts->t[i].pid);
		first = false;
	}
	strbuf_putc(&ts->param, '}');
	return ts->param.data;
}

/* This process has exited: close its open wait at time us. */
static void
target_gone(trace_state *ts, trace_target *t, int64_t us)
{
	if (t->waiting)
		emit_stop(ts, t, us);
	t->gone = true;
	ts->nlive--;
	if (ts->n == 1)
		msg_info("process %d has exited: trace ended", (int) t->pid);
	else
		msg_info("process %d has exited", (int) t->pid);
}

/* Every pid must be a backend of this server whose waits we may see; false with *cause. */
static bool
check_pids(trace_state *ts, uint64_t deadline_ns, exec_outcome *o, char **cause)
{
	PGresult   *res;

	*o = exec_prepared(ts, "trace_check", pid_array(ts), deadline_ns, &res, cause);
	if (*o != EXEC_OK)
		return false;
	for (int i = 0; i < ts->n; i++)
	{
		int			r;

		for (r = 0; r < PQntuples(res); r++)
			if (atoi(PQgetvalue(res, r, 0)) == ts->t[i].pid)
				break;
		if (r == PQntuples(res))
			*cause = xasprintf("process %d is not a backend of this server", (int) ts->t[i].pid);
		else if (strcmp(PQgetvalue(res, r, 1), "t") == 0)
			*cause = xasprintf("permission denied to see the wait events of process %d",
							   (int) ts->t[i].pid);
		else
			continue;
		*o = EXEC_FAILED;
		PQclear(res);
		return false;
	}
	PQclear(res);
	return true;
}

/* Record what one poll saw of one target; a change writes its lines. */
static exec_outcome
observe(trace_state *ts, trace_target *t, const PGresult *res, int row, uint64_t send_ns,
		int64_t send_us, uint64_t recv_ns, int64_t recv_us, uint64_t deadline_ns, char **cause)
{
	bool		now_waiting = !PQgetisnull(res, row, 1);
	const char *type = now_waiting ? PQgetvalue(res, row, 1) : "";
	const char *event = now_waiting && !PQgetisnull(res, row, 2) ? PQgetvalue(res, row, 2) : "";
	/* the change happened between the last poll that saw the old state and this one */
	int64_t		mid_us = t->seen_us + (recv_us - t->seen_us) / 2;
	bool		same;

	if (!t->known)
	{
		t->known = true;
		t->seen_ns = send_ns;
		t->seen_us = send_us;
		if (now_waiting)
		{
			/* its beginning was not seen: the trace starts with its next wait */
			t->untraced_wait = true;
			snprintf(t->type, sizeof(t->type), "%s", type);
			snprintf(t->event, sizeof(t->event), "%s", event);
			msg_info("process %d was already waiting (%s/%s): its trace starts with its next wait",
					 (int) t->pid, type, event);
		}
		return EXEC_OK;
	}
	if (recv_ns - t->seen_ns > ts->max_window_ns)
		ts->max_window_ns = recv_ns - t->seen_ns;
	t->seen_ns = send_ns;
	t->seen_us = send_us;
	same = (t->waiting || t->untraced_wait) && now_waiting &&
		strcmp(type, t->type) == 0 && strcmp(event, t->event) == 0;
	if (same)
		return EXEC_OK;
	/* a wait that turns directly into another is a stop, then a start */
	if (t->waiting)
		emit_stop(ts, t, mid_us);
	t->untraced_wait = false;
	if (!now_waiting)
		return EXEC_OK;
	snprintf(t->type, sizeof(t->type), "%s", type);
	snprintf(t->event, sizeof(t->event), "%s", event);
	return emit_start(ts, t, mid_us, deadline_ns, cause);
}

/* One poll of every live target. */
static exec_outcome
poll_once(trace_state *ts, uint64_t deadline_ns, char **cause)
{
	PGresult   *res;
	exec_outcome o;
	uint64_t	send_ns = clock_now_ns();
	int64_t		send_us = (int64_t) clock_wall_us();
	uint64_t	recv_ns;
	int64_t		recv_us;

	o = exec_prepared(ts, "trace_poll", pid_array(ts), deadline_ns, &res, cause);
	if (o != EXEC_OK)
		return o;
	recv_ns = clock_now_ns();
	recv_us = (int64_t) clock_wall_us();
	ts->polls++;
	hist_record(ts->lat, recv_ns - send_ns);
	for (int i = 0; i < ts->n; i++)
		ts->t[i].polled = false;
	for (int r = 0; r < PQntuples(res) && o == EXEC_OK; r++)
	{
		int32_t		pid = (int32_t) atoi(PQgetvalue(res, r, 0));

		for (int i = 0; i < ts->n; i++)
		{
			trace_target *t = &ts->t[i];

			if (t->gone || t->pid != pid || t->polled)
				continue;
			t->polled = true;
			o = observe(ts, t, res, r, send_ns, send_us, recv_ns, recv_us, deadline_ns, cause);
			break;
		}
	}
	PQclear(res);
	/* a pid the server no longer has has exited since the last poll that saw it */
	for (int i = 0; i < ts->n && o == EXEC_OK; i++)
		if (!ts->t[i].gone && !ts->t[i].polled)
			target_gone(ts, &ts->t[i], ts->t[i].seen_us + (recv_us - ts->t[i].seen_us) / 2);
	return o;
}

/* Sleep until the monotonic time until_ns, or a signal. */
static void
sleep_until(uint64_t until_ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t) (until_ns / NS_PER_S);
	ts.tv_nsec = (long) (until_ns % NS_PER_S);
	(void) clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* The summary on stderr: polls, rate, latency, and what the trace could have missed. */
static void
report(const trace_state *ts, uint64_t elapsed_ns, const ticker *tk)
{
	double		secs = (double) elapsed_ns / 1e9;

	msg_info("%" PRIu64 " polls in %.3f s (%.1f per second, %" PRIu64 " deadlines missed), "
			 "%" PRIu64 " lock reads", ts->polls, secs, secs > 0 ? (double) ts->polls / secs : 0,
			 tk->missed, ts->lock_reads);
	if (ts->polls > 0)
		msg_info("poll latency p50 %.3f ms, p99 %.3f ms, max %.3f ms",
				 (double) hist_percentile(ts->lat, 50) / 1e6,
				 (double) hist_percentile(ts->lat, 99) / 1e6, (double) ts->lat->max / 1e6);
	if (ts->max_window_ns > 0)
		msg_info("longest time between two polls %.3f ms: only a wait shorter than that can "
				 "have been missed, and a timestamp is off by at most %.3f ms",
				 (double) ts->max_window_ns / 1e6, (double) ts->max_window_ns / 2e6);
}

/*
 * Connect, check the pids and prepare the statements, by the end of the
 * run (end_ns) or the connect timeout; false after the error was reported.
 */
static bool
setup(trace_state *ts, uint64_t end_ns)
{
	char	   *cause = NULL;
	exec_outcome o = EXEC_OK;
	/* a postmaster that never answers cannot hold the start, with -T or without */
	uint64_t	deadline_ns = sampler_connect_deadline(end_ns);

	ts->conn = conn_connect(&ts->s->conn, deadline_ns, stop_flag, &cause);
	if (ts->conn == NULL)
	{
		msg_error("%s", cause);
		free(cause);
		return false;
	}
	if (PQsetnonblocking(ts->conn, 1) != 0)
	{
		cause = conn_error(ts->conn);
		o = EXEC_LOST;
	}
	if (o == EXEC_OK)
		o = prepare(ts, "trace_poll", poll_sql, deadline_ns, &cause);
	if (o == EXEC_OK)
		o = prepare(ts, "trace_check", check_sql, deadline_ns, &cause);
	if (o == EXEC_OK)
		o = prepare(ts, "trace_lock", lock_sql, deadline_ns, &cause);
	if (o == EXEC_OK)
		check_pids(ts, deadline_ns, &o, &cause);
	if (o == EXEC_OK)
		return true;
	if (o == EXEC_STOPPED || (o == EXEC_TIMEOUT && clock_now_ns() >= end_ns))
		msg_error("%s before tracing started",
				  o == EXEC_STOPPED ? "interrupted" : "the duration was over");
	else if (o == EXEC_TIMEOUT)
		msg_error("no answer from the server while connecting: timeout expired");
	else
	{
		msg_error("%s", cause);
		if (strncmp(cause, "permission denied", 17) == 0)
			msg_hint("Connect as a superuser, as the process's user, or as a member of "
					 "pg_read_all_stats.");
	}
	free(cause);
	return false;
}

/* Free what a trace allocated. */
static void
free_state(trace_state *ts)
{
	if (ts->conn != NULL)
		PQfinish(ts->conn);
	sinks_free(&ts->out);
	free(ts->t);
	free(ts->lat);
	strbuf_free(&ts->param);
}

/*
 * Prove the trace file writable, connect, check the pids, then open the
 * file; false after the error was reported, with everything freed.
 */
static bool
start(trace_state *ts, const waits_settings *s, uint64_t end_ns)
{
	char	   *cause = NULL;

	memset(ts, 0, sizeof(*ts));
	ts->s = s;
	strbuf_init(&ts->param);
	sinks_init(&ts->out, s, NULL, NULL);
	sinkset_add_all(&ts->out);
	ts->n = s->ntrace_pids;
	ts->nlive = ts->n;
	ts->t = xcalloc((size_t) ts->n, sizeof(trace_target));
	for (int i = 0; i < ts->n; i++)
		ts->t[i].pid = s->trace_pids[i];
	ts->lat = hist_new(1);
	if (!sinks_open(&ts->out, SINK_CHECK, &cause) || !sinks_open(&ts->out, SINK_OPEN, &cause))
		msg_error("%s", cause);
	else if (setup(ts, end_ns))
	{
		if (sinks_open(&ts->out, SINK_CONNECTED, &cause))
			return true;
		msg_error("%s", cause);
	}
	free(cause);
	sinks_abort(&ts->out);
	free_state(ts);
	return false;
}

/* Poll at every deadline until the end, a signal, or no traced process is left. */
static exec_outcome
trace_loop(trace_state *ts, ticker *tk, uint64_t end_ns, int *status, char **cause)
{
	exec_outcome o = EXEC_OK;

	ts->last_flush_ns = tk->start_ns;
	while (!*stop_flag && ts->nlive > 0 && !ts->out.run.failed)
	{
		uint64_t	now = clock_now_ns();
		uint64_t	due = ticker_deadline(tk);

		if (now >= end_ns)
			break;
		if (*reopen_flag)
		{
			/* at once, not at the next second: the trace has no seconds */
			*reopen_flag = 0;
			sinks_second(&ts->out, now, clock_wall_us(), true);
			if (ts->out.run.failed)
			{
				*status = EXITCODE_ERROR;
				break;
			}
		}
		if (now < due)
		{
			sleep_until(due < end_ns ? due : end_ns);
			continue;
		}
		o = poll_once(ts, end_ns, cause);
		if (o != EXEC_OK)
			break;
		now = clock_now_ns();
		ticker_done(tk, now);
		if (ts->dirty && now - ts->last_flush_ns >= TRACE_FLUSH_NS)
		{
			sinks_flush(&ts->out);
			ts->dirty = false;
			ts->last_flush_ns = clock_now_ns();
		}
	}
	return o;
}

/* Say how the trace ended; o is what the loop ended with. */
static void
say_end(const trace_state *ts, exec_outcome o, const char *cause, int *status)
{
	if (o == EXEC_TIMEOUT && PQisBusy(ts->conn))
		msg_warning("the server did not answer the last poll before the end of the run");
	else if (o == EXEC_FAILED)
	{
		msg_error("%s", cause);
		*status = EXITCODE_ERROR;
	}
	else if (o == EXEC_LOST)
	{
		msg_error("connection to the server lost: %s", cause);
		*status = EXITCODE_RUN_FAILED;
	}
	if (ts->n > 1 && ts->nlive == 0)
		msg_info("all traced processes have exited: trace ended");
	else if (*status == EXITCODE_OK && ts->nlive > 0 && !ts->out.run.failed)
		msg_info("%s: trace ended", *stop_flag ? "interrupted" : "the duration is over");
}

int
trace_run(const waits_settings *s, volatile sig_atomic_t *stop, volatile sig_atomic_t *reopen)
{
	trace_state ts;
	ticker		tk;
	uint64_t	t0_ns = clock_now_ns();
	uint64_t	end_ns = s->duration_ns > 0 ? t0_ns + (uint64_t) s->duration_ns : UINT64_MAX;
	uint64_t	interval_ns = s->interval_given ? (uint64_t) s->interval_ns : TRACE_DEFAULT_INTERVAL_NS;
	char	   *cause = NULL;
	exec_outcome o;
	int			status = EXITCODE_OK;

	stop_flag = stop;
	reopen_flag = reopen;
	if (!start(&ts, s, end_ns))
		return EXITCODE_ERROR;
#ifdef PR_SET_TIMERSLACK
	/* a sleeper may wake up to 50 us late by default: much, at a thousand polls a second */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
	if (ts.n == 1)
		msg_info("tracing process %d every %.3f ms", (int) ts.t[0].pid, (double) interval_ns / 1e6);
	else
		msg_info("tracing %d processes every %.3f ms", ts.n, (double) interval_ns / 1e6);

	t0_ns = clock_now_ns();
	ticker_init(&tk, t0_ns, interval_ns);
	o = trace_loop(&ts, &tk, end_ns, &status, &cause);

	/* the trace ends here: a wait still open gets its stop line at this moment */
	if (o != EXEC_LOST && !ts.out.run.failed)
	{
		int64_t		end_us = (int64_t) clock_wall_us();

		for (int i = 0; i < ts.n; i++)
			if (!ts.t[i].gone && ts.t[i].waiting)
				emit_stop(&ts, &ts.t[i], end_us);
	}
	say_end(&ts, o, cause, &status);
	free(cause);
	report(&ts, clock_now_ns() - t0_ns, &tk);
	/* what is left is pushed out and the file closed: a line that did not get out fails the run */
	if (!sinks_finish(&ts.out, clock_wall_us()))
		status = EXITCODE_ERROR;
	free_state(&ts);
	return status;
}
