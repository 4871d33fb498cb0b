/*
 * runner.c — threads, event loops and the client state machine.
 *
 * A thread owns an epoll set with one entry per client socket, kept
 * registered for input while the connection lives (a client that is not
 * waiting for a result gets no input, apart from the odd notice, which
 * is consumed and dropped).  Output interest is added only while libpq
 * has unsent data.  Clients that can move on without input sit in a run
 * queue; sleeping clients are found by a scan that only happens while
 * some client sleeps.  So the per-transaction path is: send, wait,
 * consume, get results, count — no allocation once the buffers have
 * grown, and one clock read per wake-up of a client.
 */
#include "config.h"

#include "runner.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "pgtempo/clock.h"
#include "pgtempo/hist.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"
#include "jsonreport.h"
#include "benchchart.h"
#include "report.h"
#include "setup.h"
#include "stats.h"
#include "txlog.h"

#define SQLSTATE_SERIALIZATION	"40001"
#define SQLSTATE_DEADLOCK		"40P01"
#define SQLSTATE_UNDEFINED_TABLE "42P01"

#define MAX_EVENTS 256

typedef enum cstate
{
	CS_CONNECT,					/* a connection is being opened */
	CS_CHOOSE,					/* choose the script of the next transaction */
	CS_START_TX,
	CS_START_CMD,
	CS_WAIT,					/* waiting for the results of a command */
	CS_THROTTLE,				/* -R: waiting for the transaction's scheduled start */
	CS_SLEEP,					/* \sleep */
	CS_END_CMD,
	CS_ERROR,					/* clean up after a failed command */
	CS_WAIT_ROLLBACK,
	CS_END_TX,
	CS_ABORTED,
	CS_ABANDONED,				/* its backend did not answer the stop's cancel request */
	CS_FINISHED
} cstate;

typedef enum estatus
{
	ES_OK,
	ES_META,					/* \gset got no row, COPY, ... */
	ES_CONN,					/* the connection broke */
	ES_SERIALIZATION,
	ES_DEADLOCK,
	ES_OTHER
} estatus;

typedef enum resp
{
	RESP_MORE,					/* need more input */
	RESP_DONE,					/* all results of the command are in */
	RESP_FAIL					/* an error: c->es says which */
} resp;

typedef struct runner runner;
typedef struct bthread bthread;

typedef struct client
{
	exec_client ec;				/* id, variables, random state, pipeline flag */
	bthread    *th;
	PGconn	   *con;
	int			sock;			/* registered in the epoll set, or -1 */
	uint32_t	events;			/* what it is registered for */
	cstate		state;
	int			script_no;
	int			cmd;			/* the current command */
	int			next_cmd;		/* where END_CMD goes on */
	uint64_t	txn_scheduled;	/* -R: the slot; otherwise txn_begin */
	uint64_t	txn_begin;
	uint64_t	stmt_begin;
	uint64_t	sleep_until;
	uint64_t	conn_begin;
	prng_state	saved_rs;		/* the random state at the start of the transaction */
	estatus		es;
	uint32_t	tries;
	int64_t		cnt;			/* transactions ended, for -t */
	bool	   *prepared;		/* -M prepared: per command (runner->cmd_base) */
	int			num_syncs;
	int			qrynum;
	PGresult   *pending;		/* a result whose successor is not known yet */
	bool		queued;			/* in the run queue */
	bool		want_write;		/* libpq has unsent data */
	bool		cancelled;		/* the stop sent a cancel request for its statement */
	int			connect_tries;	/* the initial connection: attempts that got EAGAIN */
} client;

struct bthread
{
	runner	   *r;
	int			id;
	client	   *clients;
	int			nclients;
	setup_thread *setup;
	int			epfd;
	client	  **runq;			/* runnable now */
	client	  **runq_next;		/* runnable at the next turn */
	int			nrun;
	int			nrun_next;
	int			nsleeping;		/* clients in CS_SLEEP or CS_THROTTLE */
	uint64_t	throttle_trigger;	/* -R: the thread's latest scheduled start */
	double		throttle_delay_us;	/* -R: the mean gap between its starts */
	txlog	   *log;			/* -l */
	int			tick_fd;		/* -l: the log's timerfd, or -1 */
	int64_t		log_lost;		/* lines lost to write errors */
	int			remaining;		/* clients neither finished nor aborted */
	stats		st;
	stats	   *script_stats;	/* per script */
	hist	   *lat_hist;		/* latencies of successful transactions (ns) */
	hist	   *script_hist;	/* the same per script, when there are several */
	/* scratch space for the command being sent or the result being read */
	const char **params;		/* -M extended/prepared: $n values */
	strbuf		sql;			/* -M simple: the query with variables substituted */
	strbuf		varname;		/* \gset prefix + column name */
	stats_command **cmd_stats;	/* [script][command] */
	uint64_t	conn_ns;		/* -C: time spent connecting and disconnecting */
	uint64_t	start;			/* before connecting */
	uint64_t	bench_start;	/* after every thread has connected */
	bool		failed;			/* could not open the initial connections */
	int			deadline_fd;	/* -T: a timerfd that fires at cancel_at, or -1 */
	bool		deadline_hit;	/* it fired */
	uint64_t	cancel_at;		/* when the statements in flight get cancelled; 0: not yet known */
	uint64_t	abandon_at;		/* when the clients still waiting are abandoned; 0: no cancel sent */
	int			abandoned;		/* clients abandoned */
	pthread_t	tid;
};

struct runner
{
	bench_settings *s;
	bthread    *threads;
	client	   *clients;
	pthread_barrier_t barrier;
	int			weights[SCRIPT_MAX_SCRIPTS];
	int			cmd_base[SCRIPT_MAX_SCRIPTS + 1];	/* first command of each script, overall */
	char	  **prepnames;		/* "P_n" for each command, overall */
	uint64_t	end_time;		/* -T: when to stop; 0: never */
	int64_t		epoch_shift_ns; /* wall clock minus monotonic clock */
	atomic_bool setup_failed;
	atomic_bool abort_all;		/* --exit-on-abort and a client aborted */
	atomic_int	abort_thread;	/* the first thread that saw it, +1 */

	/* -P (thread 0): merged latency histograms at the last line and now, and the interval's */
	hist	   *prog_last;
	hist	   *prog_cur;
	hist	   *prog_interval;
	report_progress_point *progress;	/* --json: every progress line, in order */
	int			nprogress;
	int			maxprogress;
	bench_chart_point *chart_pts;	/* --chart: a point per interval */
	int			nchart;
	int			maxchart;
	/* the merged results, for --json and --latency-histogram after the report */
	report_data rep;
	bool		have_rep;
	/* the server's version, for --json (set when the banner is printed) */
	char	   *server_version;
	int			server_version_num;
};

/*
 * The first stop signal (0: none), how many came (at most 2 counted), and
 * the eventfd that wakes every loop.
 */
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t stop_count;
static int	wake_fd = -1;

/* Threads still sending cancel requests (see cancel_main). */
static atomic_int cancels_pending;

/*
 * SIGINT/SIGTERM: the first cancels what is in flight and stops the run,
 * a second stops waiting for the backends.  Neither ends the program here:
 * the report and the logs are still to be written, whatever the server does.
 */
static void
handle_stop_signal(int signo)
{
	uint64_t	one = 1;
	int			saved_errno = errno;

	if (stop_signal == 0)
		stop_signal = signo;
	if (stop_count < 2)
		stop_count++;
	if (wake_fd >= 0 && write(wake_fd, &one, sizeof(one)) < 0)
	{
		/* nothing to do: the loops also poll the flag */
	}
	errno = saved_errno;
}

/* pgbench's debug lines: "prog: debug: ..." (one write, threads interleave whole lines). */
static void __attribute__((format(printf, 1, 2)))
debug_line(const char *fmt, ...)
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

static inline uint64_t
lazy_now(uint64_t *now)
{
	if (*now == 0)
		*now = clock_now_ns();
	return *now;
}

/* Whether new transactions must not start: -T is over, a signal, or --exit-on-abort. */
static inline bool
time_is_up(runner *r, uint64_t now)
{
	return stop_signal != 0 || atomic_load_explicit(&r->abort_all, memory_order_relaxed) ||
		(r->end_time != 0 && now >= r->end_time);
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
static void
close_conn(client *c)
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
	}
	c->sock = -1;
	c->events = 0;
	c->ec.in_pipeline = false;
	c->num_syncs = 0;
}

static void
enqueue(client *c)
{
	if (!c->queued)
	{
		c->queued = true;
		c->th->runq_next[c->th->nrun_next++] = c;
	}
}

/* A final state: the connection goes, and the thread has one client fewer. */
static void
finish_client(client *c, cstate final)
{
	runner	   *r = c->th->r;

	if (c->state == CS_SLEEP || c->state == CS_THROTTLE)
		c->th->nsleeping--;
	c->state = final;
	close_conn(c);
	c->th->remaining--;
	if (final == CS_ABORTED && r->s->exit_on_abort)
	{
		int			none = 0;
		uint64_t	one = 1;

		atomic_compare_exchange_strong(&r->abort_thread, &none, c->th->id + 1);
		atomic_store(&r->abort_all, true);
		if (write(wake_fd, &one, sizeof(one)) < 0)
		{
			/* the loops poll the flag as well */
		}
	}
}

/* pgbench's commandFailed(): the abort line naming the command. */
static void
command_failed(client *c, const char *what, const char *message)
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
static bool
connect_start(client *c, bool *again)
{
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
	/* PQconnectStart's contract: behave as if PQconnectPoll had said "writing" */
	ep_set(c, EPOLLOUT);
	c->state = CS_CONNECT;
	return true;
}

/* Drive an opening connection: 1 connected, 0 not yet, -1 failed (libpq's message printed). */
static int
connect_poll(client *c)
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
			ep_set(c, EPOLLIN);
			return 1;
		default:
			{
				char	   *e = conn_error(c->con);

				msg_error("%s", e);
				free(e);
				close_conn(c);
				return -1;
			}
	}
}

/* Watch for output too while libpq has unsent data. */
static bool
flush_output(client *c)
{
	int			r = PQflush(c->con);

	if (r < 0)
		return false;
	c->want_write = r > 0;
	ep_set(c, c->want_write ? EPOLLIN | EPOLLOUT : EPOLLIN);
	return true;
}

/* -M prepared: prepare command n of the client's script on this connection, once. */
static void
prepare_command(client *c, int n)
{
	runner	   *r = c->th->r;
	const command *cmd = r->s->scripts[c->script_no]->commands[n];
	int			k = r->cmd_base[c->script_no] + n;
	PGresult   *res;

	if (cmd->type != CMD_SQL || c->prepared[k])
		return;
	if (r->s->debug)
		debug_line("client %d preparing %s", c->ec.id, r->prepnames[k]);
	res = PQprepare(c->con, r->prepnames[k], cmd->sql_numbered, cmd->nparams, NULL);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		msg_error("%s", PQerrorMessage(c->con));
	PQclear(res);
	c->prepared[k] = true;
}

/* The values of cmd's $n parameters (NULL for an undefined variable, as pgbench sends). */
static void
fill_params(client *c, const command *cmd)
{
	for (int i = 0; i < cmd->nrefs; i++)
	{
		const sql_param *p = &cmd->params[i];
		var		   *v = vars_lookup(c->ec.vars, p->name);

		c->th->params[p->number - 1] = v != NULL ? vars_get_string(c->ec.vars, v) : NULL;
	}
}

/* Send SQL command cmd (number n) in the chosen protocol; false if libpq refused. */
static bool
send_sql(client *c, const command *cmd, int n)
{
	runner	   *r = c->th->r;
	bench_settings *s = r->s;
	int			ok;

	if (s->mode == QUERY_SIMPLE)
	{
		strbuf_reset(&c->th->sql);
		exec_sql_text(&c->th->sql, &c->ec, cmd);
		if (s->debug)
			debug_line("client %d sending %s", c->ec.id, c->th->sql.data);
		ok = PQsendQuery(c->con, c->th->sql.data);
	}
	else if (s->mode == QUERY_EXTENDED)
	{
		fill_params(c, cmd);
		if (s->debug)
			debug_line("client %d sending %s", c->ec.id, cmd->sql_numbered);
		ok = PQsendQueryParams(c->con, cmd->sql_numbered, cmd->nparams, NULL, c->th->params, NULL,
							   NULL, 0);
	}
	else
	{
		int			k = r->cmd_base[c->script_no] + n;

		prepare_command(c, n);
		fill_params(c, cmd);
		if (s->debug)
			debug_line("client %d sending %s", c->ec.id, r->prepnames[k]);
		ok = PQsendQueryPrepared(c->con, r->prepnames[k], cmd->nparams, c->th->params, NULL, NULL,
								 0);
	}
	if (!ok)
	{
		if (s->debug)
			debug_line("client %d could not send %s", c->ec.id, cmd->sql);
		return false;
	}
	return flush_output(c);
}

/* Read and drop whatever results are left of the current command (blocking; error paths only). */
static void
discard_results(client *c)
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
static estatus
sql_error_status(client *c, const char *sqlstate)
{
	discard_results(c);
	if (PQstatus(c->con) == CONNECTION_BAD)
		return ES_CONN;
	if (sqlstate != NULL && strcmp(sqlstate, SQLSTATE_SERIALIZATION) == 0)
		return ES_SERIALIZATION;
	if (sqlstate != NULL && strcmp(sqlstate, SQLSTATE_DEADLOCK) == 0)
		return ES_DEADLOCK;
	return ES_OTHER;
}

static bool
can_retry(estatus es)
{
	return es == ES_SERIALIZATION || es == ES_DEADLOCK;
}

static bool
can_continue(const bench_settings *s, estatus es)
{
	return s->continue_on_error && es == ES_OTHER;
}

/*
 * One result of the current command, knowing whether it is the last:
 * \gset and \aset store columns into variables, pipeline syncs are
 * counted, errors are classified.  False on an error (c->es set, the
 * message printed unless the error will be retried or rolled back).
 */
static bool
handle_result(client *c, PGresult *res, bool is_last)
{
	const bench_settings *s = c->th->r->s;
	const command *cmd = s->scripts[c->script_no]->commands[c->cmd];
	meta_kind	meta = cmd->type == CMD_SQL ? cmd->meta : META_NONE;

	switch (PQresultStatus(res))
	{
		case PGRES_COMMAND_OK:
		case PGRES_EMPTY_QUERY:
			if (is_last && meta == META_GSET)
			{
				msg_error("client %d script %d command %d query %d: expected one row, got %d",
						  c->ec.id, c->script_no, c->cmd, c->qrynum, 0);
				c->es = ES_META;
				return false;
			}
			break;
		case PGRES_TUPLES_OK:
			if ((is_last && meta == META_GSET) || meta == META_ASET)
			{
				int			ntuples = PQntuples(res);

				if (meta == META_GSET && ntuples != 1)
				{
					msg_error("client %d script %d command %d query %d: expected one row, got %d",
							  c->ec.id, c->script_no, c->cmd, c->qrynum, ntuples);
					c->es = ES_META;
					return false;
				}
				if (ntuples <= 0)
					break;
				for (int f = 0; f < PQnfields(res); f++)
				{
					char	   *err = NULL;

					strbuf_reset(&c->th->varname);
					strbuf_puts(&c->th->varname, cmd->varprefix);
					strbuf_puts(&c->th->varname, PQfname(res, f));
					if (!vars_set_string(c->ec.vars, meta == META_ASET ? "aset" : "gset",
										 c->th->varname.data, PQgetvalue(res, ntuples - 1, f), &err))
					{
						if (err != NULL)
							msg_error("%s", err);
						free(err);
						msg_error("client %d script %d command %d query %d: error storing into variable %s",
								  c->ec.id, c->script_no, c->cmd, c->qrynum, c->th->varname.data);
						c->es = ES_META;
						return false;
					}
				}
			}
			break;
		case PGRES_PIPELINE_SYNC:
			if (s->debug)
				debug_line("client %d pipeline ending, ongoing syncs: %d", c->ec.id, c->num_syncs);
			c->num_syncs--;
			if (c->num_syncs == 0 && PQexitPipelineMode(c->con) != 1)
				msg_error("client %d failed to exit pipeline mode: %s", c->ec.id,
						  PQresultErrorMessage(res));
			break;
		case PGRES_COPY_IN:
		case PGRES_COPY_OUT:
		case PGRES_COPY_BOTH:
			msg_error("COPY is not supported in pgbench, aborting");
			PQendcopy(c->con);
			c->es = ES_META;
			return false;
		case PGRES_NONFATAL_ERROR:
		case PGRES_FATAL_ERROR:
			if (c->cancelled)
			{
				/* the stop cancelled it: no message, the client just ends */
				c->es = ES_OTHER;
				return false;
			}
			c->es = sql_error_status(c, PQresultErrorField(res, PG_DIAG_SQLSTATE));
			if (can_retry(c->es) || can_continue(s, c->es))
			{
				if (s->verbose_errors)
					msg_info("client %d got an error in command %d (SQL) of script %d; %s",
							 c->ec.id, c->cmd, c->script_no, PQresultErrorMessage(res));
				return false;
			}
			/* FALLTHROUGH */
		default:
			if (c->es == ES_OK)
				c->es = ES_OTHER;
			msg_error("client %d script %d aborted in command %d query %d: %s", c->ec.id,
					  c->script_no, c->cmd, c->qrynum, PQresultErrorMessage(res));
			return false;
	}
	c->qrynum++;
	return true;
}

/* Read the results of the current command as far as they have arrived. */
static resp
read_response(client *c)
{
	for (;;)
	{
		PGresult   *res;

		if (PQisBusy(c->con))
		{
			if (!PQconsumeInput(c->con))
			{
				if (!c->cancelled)
					command_failed(c, "SQL", "perhaps the backend died while processing");
				c->es = ES_CONN;
				return RESP_FAIL;
			}
			if (PQisBusy(c->con))
				return RESP_MORE;
		}
		res = PQgetResult(c->con);
		if (c->pending != NULL)
		{
			PGresult   *prev = c->pending;
			bool		ok;

			c->pending = NULL;
			ok = handle_result(c, prev, res == NULL);
			PQclear(prev);
			if (!ok)
			{
				PQclear(res);
				if (!c->cancelled)
					discard_results(c);
				return RESP_FAIL;
			}
		}
		if (res == NULL)
		{
			if (c->qrynum == 0)
			{
				msg_error("client %d command %d: no results", c->ec.id, c->cmd);
				c->es = ES_META;
				return RESP_FAIL;
			}
			return RESP_DONE;
		}
		c->pending = res;
	}
}

/* In pipeline mode after an error: sync, and drop everything up to the sync. */
static bool
discard_until_sync(client *c)
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

/* --verbose-errors: say whether the failed transaction is retried or ends. */
static void
verbose_error(client *c, bool retry)
{
	const bench_settings *s = c->th->r->s;
	char		tries[64];

	if (s->max_tries != 0)
		snprintf(tries, sizeof(tries), "%u/%u", c->tries, s->max_tries);
	else
		snprintf(tries, sizeof(tries), "%u", c->tries);
	msg_info("client %d %s (try %s)", c->ec.id,
			 retry ? "repeats the transaction after the error" : "ends the failed transaction",
			 tries);
}

/* After a failed transaction was rolled back: retry it, or count it as failed. */
static void
retry_or_fail(client *c, uint64_t now)
{
	bthread    *th = c->th;
	const bench_settings *s = th->r->s;
	stats_command *cs = &th->cmd_stats[c->script_no][c->cmd];

	if (time_is_up(th->r, now))
	{
		finish_client(c, CS_FINISHED);
		return;
	}
	if (can_retry(c->es) && (s->max_tries == 0 || c->tries < s->max_tries) &&
		(s->latency_limit_ns == 0 || now - c->txn_scheduled <= (uint64_t) s->latency_limit_ns))
	{
		if (s->verbose_errors)
			verbose_error(c, true);
		c->tries++;
		cs->retries++;
		c->ec.rs = c->saved_rs;
		c->ec.in_pipeline = false;
		c->cmd = 0;
		c->es = ES_OK;
		c->state = CS_START_CMD;
		return;
	}
	cs->failures++;
	if (s->verbose_errors)
		verbose_error(c, false);
	c->state = CS_END_TX;
}

/* Whether c's connection is idle (true), or abort it with pgbench's message. */
static bool
check_idle(client *c, bool at_end)
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

/* Count a transaction: totals, its script's, the histograms, the log and the -t counter. */
static void
account(client *c, stats_outcome o, uint64_t now)
{
	bthread    *th = c->th;
	const bench_settings *s = th->r->s;
	uint64_t	lat = 0,
				lag = 0;
	bool		late;

	if (o != STATS_SKIPPED)
	{
		lat = now - c->txn_scheduled;
		lag = c->txn_begin - c->txn_scheduled;
	}
	late = s->latency_limit_ns > 0 && lat > (uint64_t) s->latency_limit_ns;
	stats_add_tx(&th->st, o, c->tries, (double) lat, (double) lag, s->rate > 0, late);
	if (s->nscripts > 1)
		stats_add_tx(&th->script_stats[c->script_no], o, c->tries, (double) lat, (double) lag,
					 s->rate > 0, late);
	if (o == STATS_OK)
	{
		hist_record(th->lat_hist, lat);
		if (th->script_hist != NULL)
			hist_record(&th->script_hist[c->script_no], lat);
	}
	if (th->log != NULL)
		txlog_tx(th->log, c->ec.id, c->cnt, c->script_no, o, lat, lag, c->tries - 1, now);
	c->cnt++;
}

/* Count an ended transaction by how it ended. */
static void
count_transaction(client *c, uint64_t now)
{
	stats_outcome o;

	switch (c->es)
	{
		case ES_OK:
			o = STATS_OK;
			break;
		case ES_SERIALIZATION:
			o = STATS_SERIALIZATION;
			break;
		case ES_DEADLOCK:
			o = STATS_DEADLOCK;
			break;
		default:
			o = STATS_OTHER;
			break;
	}
	account(c, o, now);
}

/*
 * -R: give c the thread's next slot on the Poisson schedule.  With -L,
 * slots already too late to meet the limit are skipped (counted and
 * logged as skipped).  Returns false when the client is done: -t was
 * reached by skipping, or the slot lies after the end of -T.
 */
static bool
schedule_next(client *c, uint64_t *now)
{
	bthread    *th = c->th;
	runner	   *r = th->r;
	const bench_settings *s = r->s;

	th->throttle_trigger += (uint64_t) prng_poisson(&th->setup->throttle_rs,
													th->throttle_delay_us) * NS_PER_US;
	c->txn_scheduled = th->throttle_trigger;
	if (s->latency_limit_ns > 0)
	{
		while (th->throttle_trigger + (uint64_t) s->latency_limit_ns < lazy_now(now) &&
			   (s->duration > 0 || c->cnt < s->transactions))
		{
			c->tries = 1;
			account(c, STATS_SKIPPED, *now);
			th->throttle_trigger += (uint64_t) prng_poisson(&th->setup->throttle_rs,
															th->throttle_delay_us) * NS_PER_US;
			c->txn_scheduled = th->throttle_trigger;
		}
		if (s->duration <= 0 && c->cnt >= s->transactions)
			return false;
	}
	return r->end_time == 0 || c->txn_scheduled <= r->end_time;
}

/* Run a meta-command at c->cmd; returns with c->state set to what comes next. */
static void
run_meta(client *c, const command *cmd, uint64_t *now)
{
	bthread    *th = c->th;
	const bench_settings *s = th->r->s;
	const script *sc = s->scripts[c->script_no];
	int			pc = c->cmd;
	int64_t		sleep_us = 0;
	const char *kind = NULL;
	exec_result er;

	if (s->debug)
	{
		strbuf		b;

		strbuf_init(&b);
		strbuf_printf(&b, "client %d executing \\%s", c->ec.id, cmd->argv[0]);
		for (int i = 1; i < cmd->argc; i++)
			strbuf_printf(&b, " %s", cmd->argv[i]);
		debug_line("%s", b.data);
		strbuf_free(&b);
	}
	if (cmd->meta == META_STARTPIPELINE && s->mode == QUERY_PREPARED && !c->ec.in_pipeline)
	{
		int			k = th->r->cmd_base[c->script_no] + c->cmd;

		/* prepare before entering: a PREPARE inside would take a snapshot too early */
		if (!c->prepared[k])
		{
			for (int j = c->cmd + 1; j < sc->ncommands; j++)
			{
				if (sc->commands[j]->meta == META_ENDPIPELINE &&
					sc->commands[j]->type == CMD_META)
					break;
				prepare_command(c, j);
			}
			c->prepared[k] = true;
		}
	}

	er = exec_meta(&c->ec, sc, c->script_no, &pc, &sleep_us, &kind);
	if (er == EXEC_ABORT)
	{
		exec_report_abort(&c->ec, sc, c->script_no, pc, kind);
		c->es = ES_META;
		finish_client(c, CS_ABORTED);
		return;
	}
	c->next_cmd = pc;
	switch (cmd->meta)
	{
		case META_STARTPIPELINE:
			if (PQenterPipelineMode(c->con) == 0)
			{
				command_failed(c, "startpipeline", "failed to enter pipeline mode");
				finish_client(c, CS_ABORTED);
				return;
			}
			break;
		case META_SYNCPIPELINE:
			if (PQpipelineSync(c->con) == 0 || !flush_output(c))
			{
				command_failed(c, "syncpipeline", "failed to send a pipeline sync");
				finish_client(c, CS_ABORTED);
				return;
			}
			c->num_syncs++;
			break;
		case META_ENDPIPELINE:
			if (PQpipelineSync(c->con) == 0 || !flush_output(c))
			{
				command_failed(c, "endpipeline", "failed to send a pipeline sync");
				finish_client(c, CS_ABORTED);
				return;
			}
			c->num_syncs++;
			/* collect every pending result, then leave pipeline mode at the last sync */
			c->qrynum = 0;
			c->state = CS_WAIT;
			return;
		default:
			break;
	}
	if (er == EXEC_SLEEP)
	{
		c->sleep_until = lazy_now(now) + (uint64_t) (sleep_us > 0 ? sleep_us : 0) * NS_PER_US;
		c->state = CS_SLEEP;
		th->nsleeping++;
		return;
	}
	/* an expression or a shell command may have taken a while */
	*now = 0;
	c->state = CS_END_CMD;
}

/*
 * Advance c's state machine until it has to wait: for a result, a
 * connection, a \sleep, or its next turn in the run queue.
 */
static void
advance(client *c)
{
	bthread    *th = c->th;
	runner	   *r = th->r;
	const bench_settings *s = r->s;
	uint64_t	now = 0;

	for (;;)
	{
		switch (c->state)
		{
			case CS_CHOOSE:
				c->script_no = setup_choose_script(&th->setup->choose_rs, r->weights, s->nscripts,
												   s->total_weight);
				c->es = ES_OK;
				c->tries = 1;
				if (s->debug)
					debug_line("client %d executing script \"%s\"", c->ec.id,
							   s->scripts[c->script_no]->desc);
				if (time_is_up(r, lazy_now(&now)))
				{
					finish_client(c, CS_FINISHED);
					return;
				}
				if (s->rate > 0)
				{
					if (!schedule_next(c, &now))
					{
						finish_client(c, CS_FINISHED);
						return;
					}
					c->state = CS_THROTTLE;
					c->sleep_until = c->txn_scheduled;
					th->nsleeping++;
					break;
				}
				c->state = CS_START_TX;
				break;

			case CS_THROTTLE:
				if (time_is_up(r, lazy_now(&now)))
				{
					finish_client(c, CS_FINISHED);
					return;
				}
				if (now < c->sleep_until)
					return;
				th->nsleeping--;
				c->state = CS_START_TX;
				break;

			case CS_START_TX:
				if (c->con == NULL)
				{
					/* -C: a new connection for each transaction */
					c->conn_begin = lazy_now(&now);
					if (!connect_start(c, NULL))
					{
						msg_error("client %d aborted while establishing connection", c->ec.id);
						finish_client(c, CS_ABORTED);
					}
					else if (s->mode == QUERY_PREPARED)
						memset(c->prepared, 0, sizeof(bool) * r->cmd_base[s->nscripts]);
					return;
				}
				c->saved_rs = c->ec.rs;
				c->txn_begin = lazy_now(&now);
				if (s->rate <= 0)
					c->txn_scheduled = c->txn_begin;
				c->cmd = 0;
				c->state = CS_START_CMD;
				break;

			case CS_START_CMD:
				{
					const script *sc = s->scripts[c->script_no];
					const command *cmd;

					if (th->abandon_at != 0)
					{
						/* the stop cancelled the statements in flight: nothing more is sent */
						finish_client(c, CS_FINISHED);
						return;
					}
					if (c->cmd >= sc->ncommands)
					{
						if (PQpipelineStatus(c->con) != PQ_PIPELINE_OFF)
						{
							msg_error("client %d aborted: end of script reached with pipeline open",
									  c->ec.id);
							finish_client(c, CS_ABORTED);
							return;
						}
						c->state = CS_END_TX;
						break;
					}
					cmd = sc->commands[c->cmd];
					if (s->per_command)
						c->stmt_begin = lazy_now(&now);
					if (cmd->type == CMD_META)
					{
						run_meta(c, cmd, &now);
						if (c->state == CS_ABORTED || c->state == CS_SLEEP)
							return;
						break;
					}
					if (PQpipelineStatus(c->con) != PQ_PIPELINE_OFF &&
						(cmd->meta == META_GSET || cmd->meta == META_ASET))
					{
						if (cmd->meta == META_GSET)
							command_failed(c, "gset", "\\gset is not allowed in pipeline mode");
						else
							command_failed(c, "aset", "\\aset is not allowed in pipeline mode");
						finish_client(c, CS_ABORTED);
						return;
					}
					if (!send_sql(c, cmd, c->cmd))
					{
						command_failed(c, "SQL", "SQL command send failed");
						finish_client(c, CS_ABORTED);
						return;
					}
					c->next_cmd = c->cmd + 1;
					if (PQpipelineStatus(c->con) != PQ_PIPELINE_OFF)
					{
						c->state = CS_END_CMD;
						break;
					}
					c->qrynum = 0;
					c->state = CS_WAIT;
					if (s->debug)
						debug_line("client %d receiving", c->ec.id);
					return;
				}

			case CS_WAIT:
				switch (read_response(c))
				{
					case RESP_MORE:
						return;
					case RESP_DONE:
						if (PQpipelineStatus(c->con) != PQ_PIPELINE_ON)
							c->state = CS_END_CMD;
						else
							c->qrynum = 0;	/* the next query of the pipeline */
						now = 0;
						break;
					case RESP_FAIL:
						if (c->cancelled)
						{
							finish_client(c, CS_FINISHED);
							return;
						}
						if (can_retry(c->es) || can_continue(s, c->es))
							c->state = CS_ERROR;
						else
						{
							finish_client(c, CS_ABORTED);
							return;
						}
						now = 0;
						break;
				}
				break;

			case CS_SLEEP:
				if (lazy_now(&now) < c->sleep_until)
					return;
				th->nsleeping--;
				c->state = CS_END_CMD;
				break;

			case CS_END_CMD:
				if (s->per_command)
				{
					stats_command *cs = &th->cmd_stats[c->script_no][c->cmd];

					cs->count++;
					cs->sum += (double) (lazy_now(&now) - c->stmt_begin);
				}
				c->cmd = c->next_cmd;
				c->state = CS_START_CMD;
				break;

			case CS_ERROR:
				if (PQpipelineStatus(c->con) != PQ_PIPELINE_OFF && !discard_until_sync(c))
				{
					finish_client(c, CS_ABORTED);
					return;
				}
				switch (PQtransactionStatus(c->con))
				{
					case PQTRANS_INTRANS:
					case PQTRANS_INERROR:
						if (!PQsendQuery(c->con, "ROLLBACK") || !flush_output(c))
						{
							msg_error("client %d aborted: failed to send sql command for rolling back the failed transaction",
									  c->ec.id);
							finish_client(c, CS_ABORTED);
							return;
						}
						c->state = CS_WAIT_ROLLBACK;
						return;
					case PQTRANS_IDLE:
						retry_or_fail(c, lazy_now(&now));
						if (c->state == CS_FINISHED)
							return;
						break;
					default:
						check_idle(c, false);
						finish_client(c, CS_ABORTED);
						return;
				}
				break;

			case CS_WAIT_ROLLBACK:
				{
					PGresult   *res;

					if (!PQconsumeInput(c->con))
					{
						if (c->cancelled)
						{
							finish_client(c, CS_FINISHED);
							return;
						}
						msg_error("client %d aborted while rolling back the transaction after an error; perhaps the backend died while processing",
								  c->ec.id);
						finish_client(c, CS_ABORTED);
						return;
					}
					if (PQisBusy(c->con))
						return;
					res = PQgetResult(c->con);
					if (PQresultStatus(res) != PGRES_COMMAND_OK && c->cancelled)
					{
						PQclear(res);
						finish_client(c, CS_FINISHED);
						return;
					}
					if (PQresultStatus(res) != PGRES_COMMAND_OK)
					{
						msg_error("client %d aborted while rolling back the transaction after an error; %s",
								  c->ec.id, PQerrorMessage(c->con));
						PQclear(res);
						finish_client(c, CS_ABORTED);
						return;
					}
					PQclear(res);
					discard_results(c);
					retry_or_fail(c, lazy_now(&now));
					if (c->state == CS_FINISHED)
						return;
					break;
				}

			case CS_END_TX:
				count_transaction(c, lazy_now(&now));
				if (!check_idle(c, true))
				{
					finish_client(c, CS_ABORTED);
					return;
				}
				if (s->is_connect)
				{
					uint64_t	t0 = now;

					close_conn(c);
					now = clock_now_ns();
					th->conn_ns += now - t0;
				}
				if ((s->duration <= 0 && c->cnt >= s->transactions) || time_is_up(r, now))
				{
					finish_client(c, CS_FINISHED);
					return;
				}
				/* give the other clients a turn (a script may have no SQL at all) */
				c->state = CS_CHOOSE;
				enqueue(c);
				return;

			case CS_CONNECT:
			case CS_ABORTED:
			case CS_ABANDONED:
			case CS_FINISHED:
				return;
		}
	}
}

/* An event on c's socket. */
static void
on_event(client *c, uint32_t events)
{
	bthread    *th = c->th;

	if (c->state == CS_CONNECT)
	{
		int			rc = connect_poll(c);
		uint64_t	now;

		if (rc == 0)
			return;
		now = clock_now_ns();
		th->conn_ns += now - c->conn_begin;
		if (rc < 0)
		{
			msg_error("client %d aborted while establishing connection", c->ec.id);
			finish_client(c, CS_ABORTED);
			return;
		}
		c->state = CS_START_TX;
		advance(c);
		return;
	}
	if ((events & EPOLLOUT) && c->want_write && !flush_output(c))
	{
		if (c->cancelled)
		{
			finish_client(c, CS_FINISHED);
			return;
		}
		command_failed(c, "SQL", "perhaps the backend died while processing");
		finish_client(c, CS_ABORTED);
		return;
	}
	if (c->state == CS_WAIT || c->state == CS_WAIT_ROLLBACK)
		advance(c);
	else if (c->con != NULL && (events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
	{
		/* a notice or a dying connection while not waiting: drain it */
		if (!PQconsumeInput(c->con) || (events & (EPOLLERR | EPOLLHUP)))
		{
			epoll_ctl(th->epfd, EPOLL_CTL_DEL, c->sock, NULL);
			c->sock = -1;
			c->events = 0;
		}
	}
}

/* Wait for events up to timeout_ns (-1: no limit), with sub-millisecond precision. */
static int
wait_events(bthread *th, struct epoll_event *ev, int64_t timeout_ns)
{
	static atomic_bool no_pwait2;

	if (timeout_ns > 0 && !atomic_load_explicit(&no_pwait2, memory_order_relaxed))
	{
#ifdef SYS_epoll_pwait2
		struct timespec ts = {.tv_sec = timeout_ns / (int64_t) NS_PER_S,
		.tv_nsec = timeout_ns % (int64_t) NS_PER_S};
		int			n = (int) syscall(SYS_epoll_pwait2, th->epfd, ev, MAX_EVENTS, &ts, NULL, 0);

		if (n >= 0 || errno != ENOSYS)
			return n;
#endif
		atomic_store(&no_pwait2, true);
	}
	if (timeout_ns > 0)
		return epoll_wait(th->epfd, ev, MAX_EVENTS,
						  (int) ((timeout_ns + (int64_t) NS_PER_MS - 1) / (int64_t) NS_PER_MS));
	return epoll_wait(th->epfd, ev, MAX_EVENTS, timeout_ns < 0 ? -1 : 0);
}

/*
 * Open every client's connection, RUNNER_CONNECT_INFLIGHT at a time; false
 * (the cause printed) if one fails.  A start refused with EAGAIN (the
 * server's listen queue is full) is tried again after a short pause, for
 * up to RUNNER_CONNECT_RETRY_S seconds.
 */
static bool
connect_all(bthread *th)
{
	struct epoll_event ev[MAX_EVENTS];
	int			pending = th->nclients,
				next = 0,
				inflight = 0;
	uint64_t	retry_at = 0,
				retry_since = 0;

	while (pending > 0)
	{
		int64_t		timeout = -1;
		int			n;

		while (inflight < RUNNER_CONNECT_INFLIGHT && next < th->nclients)
		{
			client	   *c = &th->clients[next];
			bool		again = false;
			uint64_t	now;

			if (retry_at != 0)
			{
				now = clock_now_ns();
				if (now < retry_at)
				{
					timeout = (int64_t) (retry_at - now);
					break;
				}
				retry_at = 0;
			}
			if (connect_start(c, retry_since == 0 ||
							  clock_now_ns() - retry_since < (uint64_t) RUNNER_CONNECT_RETRY_S * NS_PER_S
							  ? &again : NULL))
			{
				next++;
				inflight++;
				retry_since = 0;
				c->connect_tries = 0;
				continue;
			}
			if (!again)
			{
				msg_error("could not create connection for client %d", c->ec.id);
				return false;
			}
			/* back off: 1, 2, 4 ... 64 ms, while the server works through its queue */
			now = clock_now_ns();
			if (retry_since == 0)
				retry_since = now;
			retry_at = now + ((uint64_t) 1 << (c->connect_tries < 6 ? c->connect_tries : 6)) * NS_PER_MS;
			c->connect_tries++;
		}

		n = wait_events(th, ev, timeout);

		if (n < 0 && errno != EINTR)
		{
			msg_error("epoll_wait() failed: %s", strerror(errno));
			return false;
		}
		if (stop_signal != 0)
			return false;
		for (int i = 0; i < n; i++)
		{
			client	   *c = ev[i].data.ptr;
			int			rc;

			if (c == NULL || c->state != CS_CONNECT)
				continue;
			rc = connect_poll(c);
			if (rc < 0)
			{
				msg_error("could not create connection for client %d", c->ec.id);
				return false;
			}
			if (rc > 0)
			{
				c->state = CS_CHOOSE;
				pending--;
				inflight--;
			}
		}
	}
	return true;
}

/* The interval of the progress timer: -P, or a second when only --chart needs points. */
static int
progress_interval_s(const bench_settings *s)
{
	if (s->progress > 0)
		return s->progress;
	return s->chart_path != NULL ? 1 : 0;
}

/* --chart: keep the interval's numbers. */
static void
add_chart_point(runner *r, const report_progress_point *p, const hist *interval)
{
	bench_chart_point *cp;
	bool		any = interval != NULL && interval->total > 0;

	if (r->nchart == r->maxchart)
	{
		r->maxchart = r->maxchart > 0 ? 2 * r->maxchart : 64;
		r->chart_pts = xrealloc(r->chart_pts, (size_t) r->maxchart * sizeof(*cp));
	}
	cp = &r->chart_pts[r->nchart++];
	cp->elapsed_s = p->elapsed_s;
	cp->tps = p->tps;
	cp->p50_ms = any ? (double) hist_percentile(interval, 50) / 1e6 : NAN;
	cp->p99_ms = any ? (double) hist_percentile(interval, 99) / 1e6 : NAN;
	cp->max_ms = any ? (double) hist_percentile(interval, 100) / 1e6 : NAN;
	cp->lag_ms = r->s->rate > 0 && p->transactions > 0 ? p->lag_ms : NAN;
	cp->failed = p->failed;
	cp->skipped = p->skipped;
}

/*
 * Thread 0's -P line: the totals of every thread since the last line.
 * The interval's percentiles come from the difference of two merged
 * snapshots of the threads' cumulative histograms (stats_hist_interval):
 * no thread resets anything, so nothing recorded between two lines is
 * lost or counted twice.
 */
static void
progress_report(runner *r, uint64_t now, uint64_t start, stats *last, uint64_t *last_report)
{
	const bench_settings *s = r->s;
	stats		cur;
	hist	   *interval = NULL;
	report_progress_point p;

	stats_init(&cur);
	for (int i = 0; i < s->nthreads; i++)
		stats_merge(&cur, &r->threads[i].st);
	if (s->progress_percentiles || s->json_path != NULL || s->chart_path != NULL)
	{
		hist	   *t;

		if (r->prog_last == NULL)
		{
			r->prog_last = hist_new(1);
			r->prog_cur = hist_new(1);
			r->prog_interval = hist_new(1);
		}
		hist_init(r->prog_cur);
		for (int i = 0; i < s->nthreads; i++)
			hist_merge(r->prog_cur, r->threads[i].lat_hist);
		stats_hist_interval(r->prog_interval, r->prog_cur, r->prog_last);
		interval = r->prog_interval;
		t = r->prog_last;
		r->prog_last = r->prog_cur;
		r->prog_cur = t;
	}
	report_progress_compute(&p, s, &cur, last, interval, (double) (now - *last_report) / 1e9,
							(double) (now - start) / 1e9,
							(double) ((int64_t) now + r->epoch_shift_ns) / 1e9);
	if (s->progress > 0)
		report_progress_print(stderr, s, &p);
	if (s->chart_path != NULL)
		add_chart_point(r, &p, interval);
	if (s->json_path != NULL && s->progress > 0)
	{
		if (r->nprogress == r->maxprogress)
		{
			r->maxprogress = r->maxprogress > 0 ? 2 * r->maxprogress : 64;
			r->progress = xrealloc(r->progress, (size_t) r->maxprogress * sizeof(p));
		}
		r->progress[r->nprogress++] = p;
	}
	*last = cur;
	*last_report = now;
}

/* Cancel requests for one thread's statements in flight. */
typedef struct cancel_batch
{
	int			n;
	PGcancel  **pc;
} cancel_batch;

/*
 * Send a batch of cancel requests.  PQcancel (libpq 15) connects to the
 * server and waits for it to close the connection, without a time limit:
 * this runs in a detached thread of its own, which the program does not
 * wait for, so a server that does not answer cannot hold up the report.
 */
static void *
cancel_main(void *arg)
{
	cancel_batch *b = arg;
	char		errbuf[256];

	for (int i = 0; i < b->n; i++)
	{
		/* a cancel that fails changes nothing: the client is abandoned in time */
		(void) PQcancel(b->pc[i], errbuf, sizeof(errbuf));
		PQfreeCancel(b->pc[i]);
	}
	free(b->pc);
	free(b);
	atomic_fetch_sub(&cancels_pending, 1);
	return NULL;
}

/*
 * The stop reached the point of cancelling: send a cancel request for
 * every statement in flight, end the clients that sleep (\sleep) or
 * connect (-C), and let nothing more be sent.  The clients still waiting
 * at th->abandon_at are abandoned.
 */
static void
stop_cancel(bthread *th, uint64_t now)
{
	cancel_batch *b = xcalloc(1, sizeof(*b));
	pthread_t	tid;
	pthread_attr_t attr;
	sigset_t	block,
				old;
	int			e;

	th->abandon_at = now + (uint64_t) RUNNER_CANCEL_WAIT_S * NS_PER_S;
	b->pc = xcalloc((size_t) th->nclients + 1, sizeof(PGcancel *));
	for (int i = 0; i < th->nclients; i++)
	{
		client	   *c = &th->clients[i];

		if (c->state == CS_WAIT || c->state == CS_WAIT_ROLLBACK)
		{
			PGcancel   *pc = PQgetCancel(c->con);

			if (pc != NULL)
				b->pc[b->n++] = pc;
			c->cancelled = true;
		}
		else if (c->state == CS_SLEEP || c->state == CS_CONNECT)
			finish_client(c, CS_FINISHED);
	}
	if (b->n == 0)
	{
		free(b->pc);
		free(b);
		return;
	}
	/* the signals stay with the threads that act on them */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	atomic_fetch_add(&cancels_pending, 1);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	e = pthread_create(&tid, &attr, cancel_main, b);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0)
	{
		atomic_fetch_sub(&cancels_pending, 1);
		msg_warning("could not create a thread for cancel requests: %s", strerror(e));
		for (int i = 0; i < b->n; i++)
			PQfreeCancel(b->pc[i]);
		free(b->pc);
		free(b);
	}
}

/*
 * Before the program exits (which would end the threads sending them):
 * give the cancel requests up to RUNNER_CANCEL_WAIT_S seconds to reach
 * the server, so that no backend, not even a stopped one that resumes
 * later, goes on running a statement of the benchmark.
 */
static void
wait_cancels(void)
{
	uint64_t	until = clock_now_ns() + (uint64_t) RUNNER_CANCEL_WAIT_S * NS_PER_S;
	struct timespec tick = {0, 10 * 1000 * 1000};

	while (atomic_load(&cancels_pending) > 0 && clock_now_ns() < until)
		nanosleep(&tick, NULL);
	if (atomic_load(&cancels_pending) > 0)
		msg_warning("the server did not take every cancel request within %d s",
					RUNNER_CANCEL_WAIT_S);
}

/* The stop's end: the clients still waiting for their backends are given up. */
static void
stop_abandon(bthread *th)
{
	for (int i = 0; i < th->nclients; i++)
	{
		client	   *c = &th->clients[i];

		if (c->state == CS_FINISHED || c->state == CS_ABORTED || c->state == CS_ABANDONED)
			continue;
		if (c->state == CS_WAIT || c->state == CS_WAIT_ROLLBACK)
		{
			th->abandoned++;
			finish_client(c, CS_ABANDONED);
		}
		else
			finish_client(c, CS_FINISHED);
	}
}

/*
 * Where the loop stands in a stop (a signal, or -T past its grace): sends
 * the cancels when it is time, lowers *timeout to the next step, and
 * returns true when the loop must end now (the clients left abandoned).
 */
static bool
stop_step(bthread *th, uint64_t *now, int64_t *timeout)
{
	int64_t		d;

	lazy_now(now);
	if (stop_signal != 0 && (th->cancel_at == 0 || th->cancel_at > *now))
		th->cancel_at = *now;
	if (th->abandon_at == 0 && *now >= th->cancel_at)
		stop_cancel(th, *now);
	if (th->remaining <= 0)
		return false;
	if (th->abandon_at == 0)
		d = (int64_t) (th->cancel_at - *now);
	else
	{
		if (stop_count >= 2 || *now >= th->abandon_at)
		{
			stop_abandon(th);
			return true;
		}
		d = (int64_t) (th->abandon_at - *now);
	}
	if (*timeout < 0 || d < *timeout)
		*timeout = d;
	return false;
}

/* The event loop of one thread, until its clients are done (or the run is stopped). */
static void
event_loop(bthread *th)
{
	runner	   *r = th->r;
	const bench_settings *s = r->s;
	struct epoll_event ev[MAX_EVENTS];
	uint64_t	next_report = 0,
				last_report = th->start;
	stats		last;

	stats_init(&last);
	if (progress_interval_s(s) > 0 && th->id == 0)
		next_report = th->start + (uint64_t) progress_interval_s(s) * NS_PER_S;

	while (th->remaining > 0)
	{
		int64_t		timeout = -1;
		int			n;
		uint64_t	now;

		/* the clients that can go on without input, each once per turn */
		if (th->nrun_next > 0)
		{
			client	  **t = th->runq;

			th->runq = th->runq_next;
			th->runq_next = t;
			th->nrun = th->nrun_next;
			th->nrun_next = 0;
			for (int i = 0; i < th->nrun; i++)
			{
				th->runq[i]->queued = false;
				advance(th->runq[i]);
			}
		}
		if (th->remaining <= 0)
			break;
		if (atomic_load_explicit(&r->abort_all, memory_order_relaxed))
		{
			/* --exit-on-abort: no backend goes on with a statement after the program */
			if (th->abandon_at == 0)
				stop_cancel(th, clock_now_ns());
			break;
		}

		now = 0;
		if (th->nrun_next > 0)
			timeout = 0;
		else
		{
			if (th->nsleeping > 0)
			{
				lazy_now(&now);
				for (int i = 0; i < th->nclients; i++)
				{
					client	   *c = &th->clients[i];

					if (c->state == CS_SLEEP || c->state == CS_THROTTLE)
					{
						int64_t		d = c->sleep_until > now ? (int64_t) (c->sleep_until - now) : 0;

						if (timeout < 0 || d < timeout)
							timeout = d;
					}
				}
			}
			if (next_report != 0)
			{
				int64_t		d = next_report > lazy_now(&now) ? (int64_t) (next_report - now) : 0;

				if (timeout < 0 || d < timeout)
					timeout = d;
			}
		}
		if ((stop_signal != 0 || th->deadline_hit) && stop_step(th, &now, &timeout))
			break;
		if (th->remaining <= 0)
			break;

		n = wait_events(th, ev, timeout);
		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			msg_error("epoll_wait() failed: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++)
		{
			if (ev[i].data.ptr == &th->tick_fd)
			{
				uint64_t	expirations;

				/* -l: push the lines and intervals that are due out */
				if (read(th->tick_fd, &expirations, sizeof(expirations)) < 0)
				{
					/* a spurious wake-up: nothing expired */
				}
				txlog_tick(th->log, clock_now_ns());
				continue;
			}
			if (ev[i].data.ptr == &th->deadline_fd)
			{
				uint64_t	expirations;

				if (read(th->deadline_fd, &expirations, sizeof(expirations)) < 0)
				{
					/* a spurious wake-up: the check below reads the clock */
				}
				th->deadline_hit = true;
				continue;
			}
			if (ev[i].data.ptr == NULL)
			{
				/* the wake-up: a signal or --exit-on-abort; idle clients stop now */
				for (int k = 0; k < th->nclients; k++)
				{
					client	   *c = &th->clients[k];

					if (c->state == CS_CHOOSE || c->state == CS_START_TX ||
						c->state == CS_THROTTLE)
						enqueue(c);
				}
				continue;
			}
			on_event(ev[i].data.ptr, ev[i].events);
		}
		if (th->nsleeping > 0)
		{
			for (int i = 0; i < th->nclients; i++)
				if (th->clients[i].state == CS_SLEEP || th->clients[i].state == CS_THROTTLE)
					advance(&th->clients[i]);
		}
		if (next_report != 0)
		{
			now = clock_now_ns();
			if (now >= next_report)
			{
				progress_report(r, now, th->start, &last, &last_report);
				do
					next_report += (uint64_t) progress_interval_s(s) * NS_PER_S;
				while (now >= next_report);
			}
		}
	}
}

/*
 * -l: a timerfd in the epoll set fires at each --aggregate-interval's end,
 * or every second for per-transaction lines, so lines reach the file while
 * no transaction ends, without a timeout on every epoll_wait (arming a
 * timer at each wait cost about a microsecond per transaction).  Without
 * one, lines are still written when the next transaction ends.
 */
static void
start_tick_timer(bthread *th)
{
	uint64_t	next = txlog_next_tick(th->log);
	uint64_t	now = clock_now_ns();
	uint64_t	first = next > now ? next - now : 1;
	uint64_t	every = txlog_tick_interval(th->log);
	struct itimerspec its = {
		.it_value = {.tv_sec = (time_t) (first / NS_PER_S),.tv_nsec = (long) (first % NS_PER_S)},
		.it_interval = {.tv_sec = (time_t) (every / NS_PER_S),.tv_nsec = (long) (every % NS_PER_S)},
	};
	struct epoll_event ev = {.events = EPOLLIN,.data.ptr = &th->tick_fd};

	if (next == 0 || every == 0)
		return;
	th->tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (th->tick_fd < 0)
		return;
	if (timerfd_settime(th->tick_fd, 0, &its, NULL) < 0 ||
		epoll_ctl(th->epfd, EPOLL_CTL_ADD, th->tick_fd, &ev) < 0)
	{
		close(th->tick_fd);
		th->tick_fd = -1;
	}
}

/*
 * -T: a timerfd in the epoll set fires when the statements still in
 * flight after the deadline's grace are to be cancelled, so the loop
 * wakes even when no backend answers (and no wait needs a timeout before).
 */
static void
start_deadline_timer(bthread *th)
{
	struct itimerspec its = {{0, 0}, {0, 0}};
	struct epoll_event ev = {.events = EPOLLIN,.data.ptr = &th->deadline_fd};

	th->cancel_at = th->r->end_time + (uint64_t) RUNNER_DEADLINE_GRACE_S * NS_PER_S;
	its.it_value.tv_sec = (time_t) (th->cancel_at / NS_PER_S);
	its.it_value.tv_nsec = (long) (th->cancel_at % NS_PER_S);
	th->deadline_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (th->deadline_fd < 0 ||
		timerfd_settime(th->deadline_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0 ||
		epoll_ctl(th->epfd, EPOLL_CTL_ADD, th->deadline_fd, &ev) < 0)
	{
		msg_warning("could not set a timer for the end of -T: %s", strerror(errno));
		if (th->deadline_fd >= 0)
			close(th->deadline_fd);
		th->deadline_fd = -1;
	}
}

static void *
thread_main(void *arg)
{
	bthread    *th = arg;
	runner	   *r = th->r;
	struct epoll_event wake = {.events = EPOLLIN | EPOLLET,.data.ptr = NULL};

	th->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (th->epfd < 0 || epoll_ctl(th->epfd, EPOLL_CTL_ADD, wake_fd, &wake) < 0)
	{
		msg_error("could not create epoll set: %s", strerror(errno));
		th->failed = true;
	}

	pthread_barrier_wait(&r->barrier);
	th->start = clock_now_ns();
	if (th->id == 0 && r->s->duration > 0)
		r->end_time = th->start + (uint64_t) r->s->duration * NS_PER_S;
	if (!th->failed && !r->s->is_connect && !connect_all(th))
		th->failed = true;
	if (th->failed)
		atomic_store(&r->setup_failed, true);
	for (int i = 0; i < th->nclients; i++)
		th->clients[i].state = CS_CHOOSE;

	pthread_barrier_wait(&r->barrier);
	th->bench_start = clock_now_ns();
	if (atomic_load(&r->setup_failed) || stop_signal != 0)
		return NULL;
	if (r->s->rate > 0 && th->nclients > 0)
	{
		/* the thread's share of the rate is its share of the clients */
		th->throttle_trigger = th->bench_start;
		th->throttle_delay_us = 1e6 * r->s->nclients / (r->s->rate * th->nclients);
	}
	if (th->log != NULL)
	{
		txlog_begin(th->log, th->bench_start, &th->setup->sample_rs);
		start_tick_timer(th);
	}

	if (th->r->end_time != 0)
		start_deadline_timer(th);
	for (int i = 0; i < th->nclients; i++)
		enqueue(&th->clients[i]);
	event_loop(th);
	return NULL;
}

/* The banner: our version and the server's. */
static void
print_version(runner *r, PGconn *con)
{
	const char *sv = PQparameterStatus(con, "server_version");
	FILE	   *out = report_stream(r->s);	/* stderr under --json=- */

	fprintf(out, "%s (pgtempo %s, server %s)\n", msg_progname(), PACKAGE_VERSION,
			sv ? sv : "unknown");
	fflush(out);
	r->server_version = sv != NULL ? xstrdup(sv) : NULL;
	r->server_version_num = PQserverVersion(con);
}

/* Run a statement whose failure does not matter (the vacuums), as pgbench does. */
static void
try_execute(PGconn *con, const char *sql)
{
	PGresult   *res = PQexec(con, sql);

	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		msg_error("%s", PQerrorMessage(con));
		msg_detail("(ignoring this error and continuing anyway)");
	}
	PQclear(res);
}

/* With a builtin script: the scale from pgbench_branches and the partitioning of pgbench_accounts. */
static bool
table_info(PGconn *con, bench_settings *s)
{
	PGresult   *res = PQexec(con, "select count(*) from pgbench_branches");
	int			scale;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);

		msg_error("could not count number of branches: %s", PQerrorMessage(con));
		if (state != NULL && strcmp(state, SQLSTATE_UNDEFINED_TABLE) == 0)
			msg_hint("Perhaps you need to do initialization (\"%s -i\") in database \"%s\".",
					 msg_progname(), PQdb(con));
		PQclear(res);
		return false;
	}
	scale = atoi(PQgetvalue(res, 0, 0));
	if (scale < 0)
	{
		msg_error("invalid count(*) from pgbench_branches: \"%s\"", PQgetvalue(res, 0, 0));
		PQclear(res);
		return false;
	}
	PQclear(res);
	if (s->scale_given)
		msg_warning("scale option ignored, using count from pgbench_branches table (%d)", scale);
	s->scale = scale;

	/* the pgbench_accounts that search_path finds first */
	res = PQexec(con,
				 "select p.partstrat, (select count(*) from pg_catalog.pg_inherits i "
				 "where i.inhparent = c.oid) "
				 "from pg_catalog.pg_class c "
				 "left join pg_catalog.pg_partitioned_table p on p.partrelid = c.oid "
				 "where c.oid = pg_catalog.to_regclass('pgbench_accounts')");
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		s->partition_method = NULL;
		s->partitions = 0;
	}
	else if (PQntuples(res) == 0)
	{
		msg_error("no pgbench_accounts table found in \"search_path\"");
		msg_hint("Perhaps you need to do initialization (\"%s -i\") in database \"%s\".",
				 msg_progname(), PQdb(con));
		PQclear(res);
		return false;
	}
	else
	{
		const char *m = PQgetisnull(res, 0, 0) ? "" : PQgetvalue(res, 0, 0);

		s->partition_method = strcmp(m, "r") == 0 ? "range" : strcmp(m, "h") == 0 ? "hash" : NULL;
		s->partitions = s->partition_method != NULL ? atoi(PQgetvalue(res, 0, 1)) : 0;
	}
	PQclear(res);
	return true;
}

/* Give each thread its clients, buffers and counters. */
static void
init_threads(runner *r, setup_thread *setup)
{
	bench_settings *s = r->s;
	int			ncmds = r->cmd_base[s->nscripts];

	for (int t = 0; t < s->nthreads; t++)
	{
		bthread    *th = &r->threads[t];

		th->r = r;
		th->id = t;
		th->setup = &setup[t];
		th->clients = &r->clients[setup[t].first_client];
		th->nclients = setup[t].nclients;
		th->remaining = th->nclients;
		th->runq = xcalloc((size_t) th->nclients, sizeof(client *));
		th->runq_next = xcalloc((size_t) th->nclients, sizeof(client *));
		th->epfd = -1;
		th->tick_fd = -1;
		th->deadline_fd = -1;
		stats_init(&th->st);
		th->script_stats = xcalloc((size_t) s->nscripts, sizeof(stats));
		th->lat_hist = hist_new(1);
		if (s->nscripts > 1)
			th->script_hist = hist_new((size_t) s->nscripts);
		if (s->mode != QUERY_SIMPLE)
			th->params = xcalloc(SCRIPT_MAX_PARAMS, sizeof(char *));
		th->cmd_stats = xcalloc((size_t) s->nscripts, sizeof(stats_command *));
		for (int i = 0; i < s->nscripts; i++)
			th->cmd_stats[i] = xcalloc((size_t) s->scripts[i]->ncommands + 1,
									   sizeof(stats_command));
		for (int i = 0; i < th->nclients; i++)
		{
			client	   *c = &th->clients[i];

			c->th = th;
			c->sock = -1;
			c->ec.simple_protocol = s->mode == QUERY_SIMPLE;
			if (s->mode == QUERY_PREPARED)
				c->prepared = xcalloc((size_t) ncmds + 1, sizeof(bool));
		}
	}
}

static void
free_threads(runner *r)
{
	bench_settings *s = r->s;

	for (int t = 0; t < s->nthreads; t++)
	{
		bthread    *th = &r->threads[t];

		for (int i = 0; i < th->nclients; i++)
		{
			client	   *c = &th->clients[i];

			if (c->con != NULL)
			{
				if (c->pending != NULL)
					PQclear(c->pending);
				PQfinish(c->con);
			}
			free(c->prepared);
			vars_free(c->ec.vars);
		}
		if (th->epfd >= 0)
			close(th->epfd);
		if (th->tick_fd >= 0)
			close(th->tick_fd);
		if (th->deadline_fd >= 0)
			close(th->deadline_fd);
		for (int i = 0; i < s->nscripts; i++)
			free(th->cmd_stats[i]);
		free(th->cmd_stats);
		free(th->script_stats);
		free(th->lat_hist);
		free(th->params);
		strbuf_free(&th->sql);
		strbuf_free(&th->varname);
		free(th->script_hist);
		free(th->runq);
		free(th->runq_next);
	}
}

/* -l: open every thread's log before the run, so a bad path fails first. */
static bool
open_logs(runner *r, uint64_t now)
{
	for (int t = 0; t < r->s->nthreads; t++)
	{
		r->threads[t].log = txlog_open(r->s, t, now, r->epoch_shift_ns);
		if (r->threads[t].log == NULL)
			return false;
	}
	return true;
}

/*
 * A run that ends before it starts (no server, no tables): its logs, still
 * empty, are removed, as if they had never been opened (pgbench opens them
 * later), and the thread array, which holds nothing else yet, is freed.
 */
static void
drop_logs(runner *r)
{
	for (int t = 0; t < r->s->nthreads; t++)
	{
		if (r->threads[t].log != NULL)
		{
			(void) unlink(txlog_path(r->threads[t].log));
			txlog_close(r->threads[t].log, 0);
		}
	}
	free(r->threads);
}

/*
 * Write out and close every thread's log (on every way out of the run:
 * the end, an abort, a signal); returns the number of lines lost to
 * write errors.
 */
static int64_t
close_logs(runner *r, uint64_t now)
{
	int64_t		lost = 0;

	for (int t = 0; t < r->s->nthreads; t++)
	{
		if (r->threads[t].log != NULL)
		{
			lost += txlog_close(r->threads[t].log, now);
			r->threads[t].log = NULL;
		}
	}
	return lost;
}

/*
 * Merge the threads' counters and histograms into r->rep (kept for --json
 * and --latency-histogram) and, if print, print the report.
 */
static void
report(runner *r, uint64_t start_time, uint64_t end, bool print)
{
	bench_settings *s = r->s;
	report_data *d = &r->rep;
	uint64_t	bench_start = 0,
				conn_ns = 0;

	memset(d, 0, sizeof(*d));
	stats_init(&d->total);
	d->scripts = xcalloc((size_t) s->nscripts, sizeof(stats));
	d->commands = xcalloc((size_t) s->nscripts, sizeof(stats_command *));
	for (int i = 0; i < s->nscripts; i++)
		d->commands[i] = xcalloc((size_t) s->scripts[i]->ncommands + 1, sizeof(stats_command));
	d->lat_hist = hist_new(1);
	if (s->nscripts > 1)
		d->script_hists = hist_new((size_t) s->nscripts);
	for (int t = 0; t < s->nthreads; t++)
	{
		bthread    *th = &r->threads[t];

		stats_merge(&d->total, &th->st);
		hist_merge(d->lat_hist, th->lat_hist);
		for (int i = 0; i < s->nscripts; i++)
		{
			stats_merge(&d->scripts[i], &th->script_stats[i]);
			if (d->script_hists != NULL && th->script_hist != NULL)
				hist_merge(&d->script_hists[i], &th->script_hist[i]);
			for (int k = 0; k < s->scripts[i]->ncommands; k++)
			{
				d->commands[i][k].count += th->cmd_stats[i][k].count;
				d->commands[i][k].sum += th->cmd_stats[i][k].sum;
				d->commands[i][k].failures += th->cmd_stats[i][k].failures;
				d->commands[i][k].retries += th->cmd_stats[i][k].retries;
			}
		}
		conn_ns += th->conn_ns;
		if (bench_start == 0 || th->bench_start < bench_start)
			bench_start = th->bench_start;
	}
	d->bench_duration_s = (double) (end - bench_start) / 1e9;
	d->conn_total_ms = (double) conn_ns / 1e6;
	d->conn_elapsed_ms = (double) (bench_start - start_time) / 1e6;
	r->have_rep = true;
	if (print)
	{
		FILE	   *out = report_stream(s);

		report_print(out, s, d);
		fflush(out);
	}
}

/*
 * An output file that could not be written after the run: the error, and
 * status 1 unless the run already failed.  A failed standard output ("-")
 * has been reported here: main()'s last check must not say it again.
 */
static void
output_failed(const char *path, char **cause, int *status)
{
	msg_error("%s", *cause);
	free(*cause);
	*cause = NULL;
	if (strcmp(path, "-") == 0)
		clearerr(stdout);
	if (*status == 0)
		*status = 1;
}

int
runner_run(bench_settings *s)
{
	runner		r;
	PGconn	   *con;
	char	   *cause = NULL;
	setup_thread *setup;
	struct sigaction sa;
	uint64_t	start_time,
				end;
	int			status = 0,
				k = 0,
				abandoned = 0;
	int64_t		log_lost = 0;
	struct timespec wall;

	memset(&r, 0, sizeof(r));
	r.s = s;
	if (s->conn.application_name == NULL)
		s->conn.application_name = msg_progname();

	/* -l: the logs are opened first, so that a bad path fails before any connection */
	r.threads = xcalloc((size_t) s->nthreads, sizeof(bthread));
	clock_gettime(CLOCK_REALTIME, &wall);
	start_time = clock_now_ns();
	r.epoch_shift_ns = (int64_t) wall.tv_sec * (int64_t) NS_PER_S + wall.tv_nsec -
		(int64_t) start_time;
	if (s->use_log && !open_logs(&r, start_time))
	{
		drop_logs(&r);
		return 1;
	}

	con = conn_open(&s->conn, &cause);
	if (con == NULL)
	{
		msg_error("%s", cause);
		msg_error("could not create connection for setup");
		free(cause);
		drop_logs(&r);
		return 1;
	}
	print_version(&r, con);
	if (s->debug)
		debug_line("pghost: %s pgport: %s nclients: %d %s: %lld dbName: %s", PQhost(con),
				   PQport(con), s->nclients, s->duration <= 0 ? "nxacts" : "duration",
				   s->duration <= 0 ? (long long) s->transactions : (long long) s->duration,
				   PQdb(con));
	if (s->builtin_used && !table_info(con, s))
	{
		PQfinish(con);
		drop_logs(&r);
		return 1;
	}

	r.clients = xcalloc((size_t) s->nclients, sizeof(client));
	setup = xcalloc((size_t) s->nthreads, sizeof(setup_thread));
	{
		exec_client *ec = xcalloc((size_t) s->nclients, sizeof(exec_client));

		if (!setup_clients(ec, s->nclients, setup, s->nthreads, s->defines, s->scale,
						   s->random_seed, &s->base))
		{
			PQfinish(con);
			free(ec);
			free(r.clients);
			free(setup);
			drop_logs(&r);
			return 1;
		}
		for (int i = 0; i < s->nclients; i++)
			r.clients[i].ec = ec[i];
		free(ec);
	}

	if (!s->no_vacuum)
	{
		fprintf(stderr, "starting vacuum...");
		try_execute(con, "vacuum pgbench_branches");
		try_execute(con, "vacuum pgbench_tellers");
		try_execute(con, "truncate pgbench_history");
		fprintf(stderr, "end.\n");
		if (s->vacuum_all)
		{
			fprintf(stderr, "starting vacuum pgbench_accounts...");
			try_execute(con, "vacuum analyze pgbench_accounts");
			fprintf(stderr, "end.\n");
		}
	}
	PQfinish(con);

	/* load-time resolution: weights, overall command numbers, statement names */
	for (int i = 0; i < s->nscripts; i++)
	{
		r.weights[i] = s->scripts[i]->weight;
		r.cmd_base[i] = k;
		k += s->scripts[i]->ncommands;
	}
	r.cmd_base[s->nscripts] = k;
	r.prepnames = xcalloc((size_t) k + 1, sizeof(char *));
	for (int i = 0; i < k; i++)
		r.prepnames[i] = xasprintf("P_%d", i);

	init_threads(&r, setup);

	wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wake_fd < 0)
	{
		msg_error("could not create eventfd: %s", strerror(errno));
		status = 1;
		goto cleanup;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handle_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	start_time = clock_now_ns();
	pthread_barrier_init(&r.barrier, NULL, (unsigned) s->nthreads);
	for (int t = 1; t < s->nthreads; t++)
	{
		int			e = pthread_create(&r.threads[t].tid, NULL, thread_main, &r.threads[t]);

		if (e != 0)
		{
			msg_error("could not create thread: %s", strerror(e));
			_exit(1);
		}
	}
	thread_main(&r.threads[0]);
	for (int t = 1; t < s->nthreads; t++)
		pthread_join(r.threads[t].tid, NULL);
	end = clock_now_ns();
	pthread_barrier_destroy(&r.barrier);
	log_lost = close_logs(&r, end);
	for (int t = 0; t < s->nthreads; t++)
		abandoned += r.threads[t].abandoned;

	if (atomic_load(&r.setup_failed) && stop_signal == 0)
		status = 1;
	else if (atomic_load(&r.abort_all))
	{
		msg_error("Run was aborted due to an error in thread %d",
				  atomic_load(&r.abort_thread) - 1);
		status = 2;
		report(&r, start_time, end, false);	/* no text report, as pgbench; --json has it */
	}
	else
	{
		report(&r, start_time, end, true);
		for (int i = 0; i < s->nclients; i++)
			if (r.clients[i].state == CS_ABORTED)
				status = 2;
		if (stop_signal != 0)
			msg_warning("interrupted by %s: the report covers the transactions that ended before the stop",
						stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
		if (abandoned > 0)
		{
			if (stop_count >= 2)
				msg_warning("%d client(s) abandoned at the second signal: their backends had not answered the cancel request",
							abandoned);
			else
				msg_warning("%d client(s) abandoned: their backends did not answer within %d s of the cancel request",
							abandoned, RUNNER_CANCEL_WAIT_S);
			msg_detail("Their connections were closed; a backend that resumes ends the statement.");
			if (status == 0)
				status = 2;
		}
		if (stop_signal != 0)
			status = 128 + stop_signal;
		else if (status == 2 && abandoned == 0)
			msg_error("Run was aborted; the above results are incomplete.");
	}

	if (log_lost > 0)
	{
		msg_error("%lld log line(s) were lost: the -l log files are incomplete",
				  (long long) log_lost);
		if (status == 0)
			status = 1;
	}

	/* --latency-histogram, then --json with the final exit status */
	if (s->hist_path != NULL && r.have_rep)
	{
		strbuf		sb;

		strbuf_init(&sb);
		report_histogram_text(&sb, r.rep.lat_hist);
		if (!strbuf_write_file(s->hist_path, sb.data, sb.len, &cause))
			output_failed(s->hist_path, &cause, &status);
		strbuf_free(&sb);
	}
	if (s->json_path != NULL)
	{
		jsonreport_run run = {
			.server_version = r.server_version,
			.server_version_num = r.server_version_num,
			.start_epoch_s = (double) ((int64_t) start_time + r.epoch_shift_ns) / 1e9,
			.end_epoch_s = (double) ((int64_t) end + r.epoch_shift_ns) / 1e9,
			.stop_signal = stop_signal,
			.log_lines_lost = log_lost,
			.clients_abandoned = abandoned,
			.data = r.have_rep ? &r.rep : NULL,
			.progress = r.progress,
			.nprogress = r.nprogress,
			.exit_status = status,
		};

		if (!jsonreport_write(s->json_path, s, &run, &cause))
			output_failed(s->json_path, &cause, &status);
	}

	if (s->chart_path != NULL && r.have_rep)
	{
		if (!bench_chart_write(s, s->command_line, r.chart_pts, r.nchart, &cause))
			output_failed(s->chart_path, &cause, &status);
	}

	wait_cancels();
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
cleanup:
	close_logs(&r, clock_now_ns());
	if (r.have_rep)
		report_data_free(&r.rep, s->nscripts);
	free(r.prog_last);
	free(r.prog_cur);
	free(r.prog_interval);
	free(r.progress);
	free(r.server_version);
	free(r.chart_pts);
	free_threads(&r);
	for (int i = 0; i < k; i++)
		free(r.prepnames[i]);
	free(r.prepnames);
	free(r.threads);
	free(r.clients);
	free(setup);
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
	return status;
}
