/*
 * baseline_int.h — the comparison as baseline.c computes it and
 * baselineout.c (text, JSON, chart) prints it.
 */
#ifndef PGTEMPO_WAITS_BASELINE_INT_H
#define PGTEMPO_WAITS_BASELINE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pgtempo/hash.h"

#include "baseline.h"
#include "format.h"
#include "fromlog.h"
#include "keydiff.h"
#include "report.h"
#include "strpool.h"
#include "wprof.h"

/* A row of a window: its time (a profile line's middle; after slicing: its slice), key, event and samples. */
typedef struct bl_entry
{
	uint64_t	t_us;
	int32_t		key;			/* in baseline.keys */
	int32_t		ev;				/* in baseline.events */
	double		samples;
} bl_entry;

/* A profile line's interval: its middle and its ticks. */
typedef struct bl_iv
{
	uint64_t	t_us;
	double		ticks;
} bl_iv;

/* One window: its bounds, its rows, its slices. */
typedef struct bl_window
{
	int64_t		since_us;		/* INT64_MIN: from the first row */
	int64_t		until_us;		/* INT64_MAX: to the last */
	char	   *const *files;
	int			nfiles;
	const fromlog *fl;			/* the reading of its files */
	format_meta meta;			/* how its first run sampled */
	bl_entry   *e;
	size_t		n,
				cap;
	bl_iv	   *iv;				/* its profile lines' intervals */
	size_t		niv,
				cap_iv;
	uint64_t	iv_last_start,
				iv_last_end;	/* the interval of the line before */
	bool		raw;			/* it has raw rows */
	uint64_t	first_us,
				last_us;		/* the rows' span */
	uint64_t	line_us;		/* profile lines: their length (the first's) */
	uint64_t	line0_us;		/* and the first's start */
	int			nslices;
	uint64_t	slice0_us;		/* where the slices start */
	double		slice_us;		/* and their length */
	double	   *ticks;			/* per slice */
	double		total_ticks;
	double		samples;		/* all its rows' */
} bl_window;

/* Keys in order of appearance, each once. */
typedef struct bl_keys
{
	hash_table	table;			/* bl_keycell */
	wprof_key  *v;
	int			n,
				cap;
} bl_keys;

/*
 * A table of compared keys, judged, sorted and printed whatever its keys
 * are.  The first is the events' (or the --by keys'), with the total
 * under it; another keyed table (head blockers: a blocker's identity ->
 * blocked sessions on average in each window) is one more: its rows'
 * estimates filled in (keydiff_est_series, or keydiff_est_bound from a
 * value and its 95 % bound) and its key's columns, handed to baseline.c,
 * which judges the tables as one family.
 */
typedef struct bl_table
{
	const char *name;			/* its JSON member, and its text heading */
	keydiff_row *rows;
	int			n;
	const keydiff_row *total;	/* a total row printed under it, or NULL */
	int			ncols;			/* the key's columns */
	const char *(*header) (const void *arg, int col);
	/* a key's text in column col (buf: len bytes, at least 48) */
	const char *(*cell) (const void *arg, const keydiff_row *r, int col, char *buf, size_t len);
	void		(*json_key) (const void *arg, json_writer *w, const keydiff_row *r);
	const void *arg;
} bl_table;

#define BL_MAX_TABLES 4

/* A cached event index: its interned type and event. */
#define BL_EVCACHE 251
typedef struct bl_evcache
{
	const char *type;
	const char *event;
	int			idx;
	bool		set;
} bl_evcache;

/* The head blockers of both windows (baseline_heads.c). */
typedef struct bl_heads bl_heads;

typedef struct baseline
{
	const waits_settings *s;
	strpool		pool;			/* both readings intern here: a key is one address */
	bool		dims[WPROF_DIM_COUNT];
	bool		by_event_only;	/* --by event: keys are not kept, the events are they */
	bl_keys		keys;			/* by --by */
	bl_keys		events;			/* by event (the limits' sums) */
	bl_evcache	evcache[BL_EVCACHE];
	bl_window	w[BASELINE_MAX_WINDOWS + 1];	/* 0: the baseline, 1: the window (new),
												 * 2...: the baseline's further windows */
	int			nw;				/* windows: 1 + --baseline-windows */
	double		avg[BASELINE_MAX_WINDOWS + 1];	/* each window's average active sessions */
	keydiff_est *more;			/* the further windows' estimates: [(window - 2) *
								 * (rows + 1 + limits) + row, total, limit] */
	unsigned	reading;		/* the windows the files being read are of (bits) */
	bool		all_read;		/* every file was read whole (else --keep-going went on) */
	fromlog    *fl[2];
	int			nfl;
	bool	   *ev_limit;		/* [event * nfail_if + limit]: the limit sums the event */
	keydiff_row *rows;			/* one per key, sorted by the size of the change */
	int			nrows;
	keydiff_row total;
	bl_table	tables[BL_MAX_TABLES];	/* [0]: the events' (rows, total) */
	report_col	kc[REPORT_MAX_COLS];	/* the events' table's key columns */
	int			ntables;
	keydiff_row limits[WAITS_MAX_LIMITS];
	bool		matched[WAITS_MAX_LIMITS];	/* an event of a window falls under it */
	bool		tripped[WAITS_MAX_LIMITS];
	int			family;			/* comparisons judged together */
	bl_heads   *heads;
} baseline;

/* The key of row r of a table. */
#define BASELINE_KEY(b, r) ((b)->by_event_only ? &(b)->events.v[(r)->key] : &(b)->keys.v[(r)->key])

/* Does the change r trip limit l: its whole interval (change +- bound) beyond the limit (gate_trips)? */
bool		baseline_limit_tripped(const waits_limit *l, const keydiff_row *r);

/* The slice of a window that time t falls in (baseline_win.c). */
int			bl_slice_of(const bl_window *w, uint64_t t);
/* A key's estimate in a window from its samples per slice y (baseline_win.c). */
void		bl_series_est(const bl_window *w, const double *y, keydiff_est *out);

/* The events' (--by keys') table: its key's columns, as the report's (b's first table). */
bl_table	baselineout_event_table(baseline *b);
void		baseline_text(FILE *out, const baseline *b);

/* The head blockers: made, fed a window's raw row or head record, and added as a table. */
bl_heads   *baseline_heads_new(void);
void		baseline_heads_free(bl_heads *h);
void		baseline_heads_row(bl_heads *h, int side, const histread_rec *rec);
void		baseline_heads_record(bl_heads *h, int side, uint64_t t, const histread_rec *rec);
/* The heads of either window compared, as one more table in *t; false if no window has one. */
bool		baseline_heads_table(baseline *b, bl_table *t);
void		baseline_json(FILE *out, const baseline *b, int exit_status);
/* --json=FILE: the same document into the file, whole; false with the error said. */
bool		baseline_json_file(const baseline *b, int exit_status);
/* --chart: both windows' top changed keys over time, one panel each; false with *cause. */
bool		baseline_chart(const char *path, const baseline *b, char **cause);

#endif
