/*
 * series.h — the per-interval series of a run, in --json's "intervals".
 *
 * Every interval (a second, or -P's interval) keeps what adds up: the
 * successful transactions, the failures, the exact sum of the latencies
 * and the interval's latency histogram, overall and (with several
 * scripts) per script.  --merge adds the hosts' series interval by
 * interval, so the merged -P lines get real percentiles; --compare
 * resamples the intervals of one run (a block bootstrap) for the
 * interval of a change.
 *
 * A histogram is kept sparse, as the text the document carries: integers
 * separated by spaces, "i c c c +g c c ...": the index of the first
 * non-empty bucket of the log-linear histogram (hist.h), then the counts
 * of it and of the buckets that follow, one by one; "+g" jumps over g
 * empty buckets (a single empty bucket is written as the count 0).  One
 * string per histogram keeps the document small (some 3 bytes per
 * bucket) and fast to read: a reader splits it only when it needs it.
 */
#ifndef PGTEMPO_BENCH_SERIES_H
#define PGTEMPO_BENCH_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/hist.h"
#include "pgtempo/json.h"
#include "pgtempo/jsonread.h"
#include "stats.h"

/* The numbers of one interval, overall or of one script. */
typedef struct series_cell
{
	int64_t		transactions;	/* successful */
	int64_t		failed;
	double		latency_sum_ns; /* of the successful transactions */
	char	   *hist_text;		/* the sparse histogram, as above ("" when empty) */
} series_cell;

typedef struct series_row
{
	double		time_s;			/* since the start, at the interval's end */
	double		epoch_s;		/* wall-clock (Unix) time of its end */
	double		interval_s;		/* its length */
	series_cell *cells;			/* [0]: overall; [1..nscripts]: with several scripts */
} series_row;

typedef struct series
{
	int			interval_s;		/* the nominal length of an interval; 0: no series */
	int			ncells;			/* 1, or 1 + the number of scripts */
	series_row *rows;
	int			nrows;
	int			maxrows;
} series;

/* A sparse histogram decoded: nb buckets idx[i] with counts cnt[i]. */
typedef struct series_sparse
{
	int			nb;
	uint32_t   *idx;
	uint64_t   *cnt;
	uint64_t	total;
} series_sparse;

/* An empty series of intervals of interval_s seconds and ncells cells a row. */
void		series_init(series *sr, int interval_s, int ncells);
void		series_free(series *sr);

/* Add a row (the cells' texts are taken over); returns it. */
series_row *series_add_row(series *sr, double time_s, double epoch_s, double interval_s);

/* The sparse text of histogram h (allocated). */
char	   *series_hist_text(const hist *h);

/*
 * Decode text into *sp (allocated; series_sparse_free); false with *cause
 * set (caller frees) when it is not a histogram of this version's buckets.
 */
bool		series_sparse_decode(const char *text, series_sparse *sp, char **cause);
void		series_sparse_free(series_sparse *sp);

/*
 * Add the counts of text into h: its counts and total, and its min and max
 * widened to the buckets' bounds; false as above.
 */
bool		series_hist_add(hist *h, const char *text, char **cause);

/* Write "intervals": {...} of sr (null when it has no interval). */
void		series_json(json_writer *w, const series *sr);

/*
 * Read the "intervals" member of a report's root into *sr (left empty
 * when the report has none: written before it was added, or a run that
 * did not start); false with *cause set (caller frees) when it is there
 * but malformed.  A row's items are found by the names in "columns"
 * (unknown ones skipped; without the list, in the writer's order).  The
 * histogram texts are checked when they are used.
 */
bool		series_read(const jsonread_value *root, series *sr, char **cause);

#endif
