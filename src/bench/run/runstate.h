/*
 * runstate.h — the state of a run that its threads and clients share:
 * a client's state machine (client.c, clientio.c), a thread and its event
 * loop (thread.c), and what the run gives them all (runner.c).
 *
 * A thread owns its clients and touches no other thread's; what crosses
 * threads is in struct runner: read-only during the loops, or atomic.
 */
#ifndef PGTEMPO_BENCH_RUNSTATE_H
#define PGTEMPO_BENCH_RUNSTATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "results/bench.h"
#include "results/benchwaits.h"
#include "lang/exec.h"
#include "pgtempo/clock.h"
#include "pgtempo/hist.h"
#include "pgtempo/strbuf.h"
#include "setup.h"
#include "results/stats.h"
#include "stop.h"
#include "results/txlog.h"
#include "results/warmup.h"

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
	bool		warm;			/* --warmup: the transaction belongs to the warm-up */
	int64_t		warm_cnt;		/* --warmup: warm-up transactions ended */
	bool	   *prepared;		/* -M prepared: per command (runner->cmd_base) */
	int			num_syncs;
	int			qrynum;
	PGresult   *pending;		/* a result whose successor is not known yet */
	bool		queued;			/* in the run queue */
	bool		want_write;		/* libpq has unsent data */
	bool		cancelled;		/* the stop sent a cancel request for its statement */
	int			connect_tries;	/* the initial connection: attempts that got EAGAIN */
	uint64_t	connect_until;	/* CS_CONNECT: libpq's connect_timeout ends it then */
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
	stats		warm_st;		/* --warmup: the warm-up's transactions (progress, auto) */
	hist	   *warm_hist;		/* --warmup: their latencies; NULL: no warm-up */
	bool		measure_known;	/* --warmup: the log knows r->measure_from */
	bool		deadline_tried; /* -T: start_deadline_timer() ran */
	uint64_t	conn_ns;		/* -C: time spent connecting and disconnecting */
	uint64_t	start;			/* before connecting */
	uint64_t	bench_start;	/* after every thread has connected */
	bool		failed;			/* could not open the initial connections */
	int			deadline_fd;	/* -T: a timerfd that fires at cancel_at, or -1 */
	bool		deadline_hit;	/* it fired */
	uint64_t	cancel_at;		/* when the statements in flight get cancelled; 0: not yet known */
	uint64_t	abandon_at;		/* when the clients still waiting are abandoned; 0: no cancel sent */
	int			abandoned;		/* clients abandoned */
	bool		connect_timeouts;	/* connections have a connect_timeout (connect_until) */
	pthread_t	tid;
};

struct runner
{
	const bench_settings *s;
	bthread    *threads;
	client	   *clients;
	pthread_barrier_t barrier;
	int			weights[SCRIPT_MAX_SCRIPTS];
	int			cmd_base[SCRIPT_MAX_SCRIPTS + 1];	/* first command of each script, overall */
	char	  **prepnames;		/* -M prepared: "P_n" per SQL command (NULL: a meta), overall */
	_Atomic uint64_t end_time;	/* -T: when to stop; 0: never (or, with --warmup, not known yet) */
	uint64_t	connected_at;	/* --start-at: when every connection was open; 0: no --start-at */
	int64_t		epoch_shift_ns; /* wall clock minus monotonic clock */
	atomic_bool setup_failed;
	atomic_bool abort_all;		/* --exit-on-abort and a client aborted */
	atomic_int	abort_thread;	/* the first thread that saw it, +1 */
	bwaits	   *waits;			/* --waits: the sampler of the clients' sessions; NULL: none */

	/*
	 * --warmup: a transaction whose (scheduled) start is before
	 * measure_from belongs to the warm-up.  0: no warm-up; UINT64_MAX:
	 * not known yet (--warmup=auto).  Thread 0 sets it (and end_time) a
	 * whole second ahead, so every thread reads it before it is reached.
	 */
	_Atomic uint64_t measure_from;
	warmup_run	warm;			/* thread 0's side of it (warmup.c) */

	/*
	 * Thread 0 calls it at each progress interval (-P, or --chart alone):
	 * last and *last_report are the totals and the time of the last call.
	 */
	void		(*on_progress) (runner *r, uint64_t now, uint64_t start, stats *last,
								uint64_t *last_report);
};

static inline uint64_t
lazy_now(uint64_t *now)
{
	if (*now == 0)
		*now = clock_now_ns();
	return *now;
}

/* --warmup: when the measured part starts (0: no warm-up; UINT64_MAX: not known yet). */
static inline uint64_t
measure_from(runner *r)
{
	return atomic_load_explicit(&r->measure_from, memory_order_acquire);
}

/* --warmup: once the start of the measured part is known, tell the thread's -l log. */
static inline void
warm_sync(bthread *th)
{
	uint64_t	mf;

	if (th->measure_known)
		return;
	mf = measure_from(th->r);
	if (mf == UINT64_MAX)
		return;
	th->measure_known = true;
	if (th->log != NULL)
		txlog_measure_from(th->log, mf);
}

/* -T: whether its end (once known) has come. */
static inline bool
end_passed(runner *r, uint64_t now)
{
	uint64_t	end = atomic_load_explicit(&r->end_time, memory_order_relaxed);

	return end != 0 && now >= end;
}

/* Whether new transactions must not start: -T is over, a signal, or --exit-on-abort. */
static inline bool
time_is_up(runner *r, uint64_t now)
{
	return stop_signal != 0 || atomic_load_explicit(&r->abort_all, memory_order_relaxed) ||
		end_passed(r, now);
}

#endif
