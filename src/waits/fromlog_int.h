/*
 * fromlog_int.h — what the parts of --from-log share: the runs found in
 * the files with their health records, and the reader's state.
 * fromlog.c reads the records and makes the report; fromlog_runs.c keeps
 * the runs' health records and works out a window's health from them.
 */
#ifndef PGTEMPO_WAITS_FROMLOG_INT_H
#define PGTEMPO_WAITS_FROMLOG_INT_H

#include "fromlog.h"

#include "pgtempo/hash.h"

#include "evdesc.h"
#include "format.h"
#include "histread.h"
#include "sink.h"
#include "strpool.h"
#include "wprof.h"

/*
 * A health record at ts: its fields (format.h's table) as numbers.  A
 * window takes each as its table marks it: the difference of a counter
 * (since the run started, interpolated between records), the latest
 * gauge, the largest maximum.
 */
typedef struct fl_point
{
	uint64_t	ts_us;
	double		v[FORMAT_NHEALTH];
} fl_point;


/* A run that wrote to the files: its meta record and its health records. */
typedef struct fl_run
{
	format_meta meta;			/* its backend_types: types */
	const char **types;			/* the meta record's (interned) */
	fl_point   *pts;			/* pts[0]: the start, all zero */
	int			npts;
	int			cap;
	uint64_t	first_row_us;	/* its first row: where it starts without a health record */
	uint64_t	last_row_us;	/* its last row (raw rows may follow the last health record) */
} fl_run;

/* A span of the logs' measured records: its figures seen (a file read twice adds none again). */
typedef struct fl_span
{
	int64_t		start_us,
				end_us;
	uint32_t	figs;			/* by figure index */
	bool		in;				/* wholly in the window */
} fl_span;

struct fromlog
{
	const waits_settings *s;
	strpool    *pool;			/* own_pool, or the caller's */
	strpool		own_pool;
	fromlog_row_fn row_fn;		/* fromlog_read: the rows go there, not to a window */
	void	   *row_arg;
	wprof		prof;			/* the window's profile */
	sink_list	out;			/* --chart, --folded */
	sample_batch batch;			/* rows of one timestamp */
	heads_graph graph;			/* its lock graph: built once, for all */
	bool		batch_open;
	bool		batch_interval;	/* of profile lines: not one tick */
	uint64_t	next_sec_ns;	/* the chart's next second */
	bool		started;
	fl_run	   *runs;
	int			nruns;
	int			cur;			/* the run the rows being read belong to */
	sample_gap *gaps;
	int			ngaps;
	/*
	 * The events' descriptions the files gave (interned), for the report
	 * to describe them as the live one did.  Two files that describe an
	 * event differently (a server upgraded between runs): the last read wins.
	 */
	evdesc_table descs;
	const char *interval_file;	/* a file of --log-interval lines, for --by pid's error */
	uint64_t	first_us,
				last_us;		/* the rows of the files, in or out of the window */
	uint64_t	win_last_us;	/* the last row in the window: the last sample's time */
	uint64_t	win_ticks;		/* timestamps of raw rows in the window */
	uint64_t	iv_start_us;	/* the profile lines in the window: the first one's start */
	uint64_t	iv_end_us;		/* and the last one's end; 0: none */
	uint64_t	iv_first_end_us;	/* the first one's end */
	bool		file_failed;
	measured_run meas;			/* the measured records of the window's spans, summed */
	hash_table	spans;			/* fl_span: every span of measured records read, in the window or not */
	int			max_version;	/* the files' newest log format */
};

/* The run of meta (a rotated file goes on with the run of the one before); false with *cause. */
bool		fromlog_use_run(fromlog *f, const format_meta *m, const histread *h, char **cause);

/* Keep a health record of the current run; the first also gives the run's start. */
void		fromlog_add_health(fromlog *f, const sample_health *h);

/* A run's counts at time t (format.h's health fields), interpolated between its health records. */
void		fromlog_counts_at(const fl_run *r, uint64_t t, double *v);

/* The window's health, from every run's health records. */
void		fromlog_window_health(fromlog *f, sample_health *h);

/* Each run's health records in time order. */
void		fromlog_sort_points(fromlog *f);

#endif
