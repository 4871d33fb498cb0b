/*
 * sink.h — every output of a run behind one interface: the --log file,
 * the --store database, the --folded stacks, the --chart, the --top live
 * view and the --trace lines.  The run (tool.c, or trace.c for --trace)
 * keeps a list of the sinks the settings ask for (sinkset.h adds them;
 * this file and sink.c name none of them) and drives them all the same
 * way:
 *
 *   open     in stages: before connecting (prove a path writable, open
 *            the log), once connected (the store), just before sampling
 *            (the live view takes the terminal), once it has started
 *   rows     each sample's rows: counted in the sink's own profile, and
 *            handed over raw (batch) once per tick
 *   trace    --trace: a traced wait began or ended (a line of the trace)
 *   interval the sink's interval is over: its profile is handed over and
 *            reset (--log-interval, --store-interval, a second of chart
 *            or live view)
 *   measured the figures the server measured itself over the span between
 *            two reads of its counters, beside the sampled estimates
 *            (measured.h: at each --log-interval, and at the end)
 *   second   once a second: write out, rotate, redraw; and reopen after
 *            SIGHUP (the trace, which has no seconds, calls it on SIGHUP)
 *   flush    write out now, before something that may take seconds
 *   close    in stages: sampling is over (the terminal is given back),
 *            the last interval, then close or write the file; or give up
 *            (an error before sampling started: nothing is written)
 *
 * A sink implements only the calls it needs; the rest are NULL.
 */
#ifndef PGTEMPO_WAITS_SINK_H
#define PGTEMPO_WAITS_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "format.h"
#include "report.h"
#include "sample.h"
#include "strpool.h"
#include "waits.h"
#include "wprof.h"

/* When open is called. */
typedef enum sink_open_stage
{
	SINK_CHECK,					/* before connecting: prove a path writable */
	SINK_OPEN,					/* before connecting: open what is written as it goes */
	SINK_CONNECTED,				/* the sampled server is known */
	SINK_BEGIN,					/* sampling is about to start */
	SINK_STARTED				/* sampling has started */
} sink_open_stage;

/* When close is called. */
typedef enum sink_close_stage
{
	SINK_STOP,					/* sampling is over */
	SINK_END,					/* after the last interval: the final records */
	SINK_CLOSE,					/* close, or write the file */
	SINK_ABORT					/* no run: close without writing more */
} sink_close_stage;

/* What a sleep with the live view up ended with. */
typedef enum sink_wait_result
{
	SINK_WAIT_NONE,				/* no sink waits: the caller sleeps */
	SINK_WAIT_DONE,
	SINK_WAIT_QUIT				/* the user asked to end the run */
} sink_wait_result;

/* What every sink may read: the settings, the whole run, the sampled server. */
typedef struct sink_run
{
	const waits_settings *s;
	strpool    *pool;
	const wprof *prof;			/* the whole run's profile */
	report_source src;			/* set once connected */
	uint64_t	interval_ns;	/* between samples */
	uint64_t	t0_ns;			/* monotonic time sampling started */
	const uint64_t *missed;		/* the ticks missed so far (ticker.h) */
	bool		in_server;		/* the source samples by itself (pg_wait_sampling) */
	/* the sampler's health now */
	void		(*health) (void *arg, sample_health *h);
	void	   *health_arg;
	/* --store's row counts, set when the store is closed */
	format_store_counts stored;
	/* an output failed that the run cannot go on without (the trace's): it ends */
	bool		failed;
	/* during batch: the lock graph of the batch, built once for every sink */
	const heads_graph *graph;
} sink_run;

typedef struct sink sink;

/* --trace: a traced backend's wait began (start) or ended. */
typedef struct sink_trace_rec
{
	int32_t		pid;
	bool		start;
	int64_t		ts_us;			/* wall clock */
	const char *type;			/* wait_event_type */
	const char *event;			/* start: wait_event */
	const char *params[5];		/* start: p1..p5 of a Lock wait, else "0" */
} sink_trace_rec;

typedef struct sink_ops
{
	/* False with *cause when the run cannot go on. */
	bool		(*open) (sink *k, sink_open_stage stage, char **cause);
	/* The raw rows of one tick. */
	void		(*batch) (sink *k, const sample_batch *b);
	/* --trace: a traced wait began or ended. */
	void		(*trace) (sink *k, const sink_trace_rec *r);
	/* The sink's interval is over: iv says which, p holds its rows. */
	void		(*interval) (sink *k, const format_interval *iv, wprof *p);
	/* The figures measured by the server over a span, n of them. */
	void		(*measured) (sink *k, const format_measured_rec *recs, int n);
	/* Once a second; reopen: SIGHUP came. */
	void		(*second) (sink *k, uint64_t now_ns, bool reopen);
	/* Sampling had a gap, now over (or over at the end). */
	void		(*gap) (sink *k, const sample_gap *g);
	void		(*flush) (sink *k);
	/* Sleep until the monotonic time until_ns, doing the sink's own work meanwhile. */
	sink_wait_result (*wait) (sink *k, uint64_t until_ns);
	/* False if the output failed (reported). */
	bool		(*close) (sink *k, sink_close_stage stage);
	void		(*free) (sink *k);
} sink_ops;

struct sink
{
	const sink_ops *ops;
	sink_run   *run;
	bool		counts_rows;	/* prof counts the rows of every sample */
	wprof		prof;			/* the rows since the interval began */
	uint64_t	interval_ns;	/* 0: no intervals */
	uint64_t	iv_start_us;
	uint64_t	next_iv_ns;
};

typedef struct sink_list
{
	sink_run	run;
	sink	  **v;
	int			n;
} sink_list;

/* An empty list for these settings and this run profile. */
void		sinks_init(sink_list *l, const waits_settings *s, strpool *pool, const wprof *prof);
/* Open every sink at this stage; false with *cause at the first that fails. */
bool		sinks_open(sink_list *l, sink_open_stage stage, char **cause);
/* Sampling starts at monotonic t0_ns, wall clock t0_us: the intervals begin. */
void		sinks_start(sink_list *l, uint64_t t0_ns, uint64_t t0_us, bool measured);
/*
 * Count the rows of a batch, and its heads from g, its lock graph built
 * once for the run and every sink (heads_graph_build); tick: it is a
 * sample (raw rows are written).
 */
void		sinks_rows(sink_list *l, const sample_batch *b, const heads_graph *g, bool tick);
/* Once a second: end the intervals that are due, then each sink's second. */
void		sinks_second(sink_list *l, uint64_t now_ns, uint64_t now_us, bool reopen);
void		sinks_gap(sink_list *l, const sample_gap *g);
/* The figures measured by the server over the span between its last two reads. */
void		sinks_measured(sink_list *l, const format_measured_rec *recs, int n);
/* --trace: hand a line of the trace to every sink. */
void		sinks_trace(sink_list *l, const sink_trace_rec *r);
void		sinks_flush(sink_list *l);
sink_wait_result sinks_wait(sink_list *l, uint64_t until_ns);
/* The end of the run at end_us: the last intervals and records, then close; false if any failed. */
bool		sinks_finish(sink_list *l, uint64_t end_us);
/* Sampling is over. */
void		sinks_stop(sink_list *l);
/* Close without a run (an error before sampling). */
void		sinks_abort(sink_list *l);
void		sinks_free(sink_list *l);

/* For the sinks: a new sink of size bytes (its struct starts with a sink). */
sink	   *sink_new(sink_list *l, const sink_ops *ops, size_t size);

#endif
