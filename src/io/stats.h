/*
 * stats.h — what ioping counts: the valid requests (a core histogram: exact
 * count, sum, sum of squares, min and max, and the distribution), the load
 * (every request, warm-up and too fast or slow ones too), per run and per
 * -p/-P period.  Memory is fixed, however many requests run.
 */
#ifndef PGTEMPO_IO_STATS_H
#define PGTEMPO_IO_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/hist.h"

typedef struct io_window
{
	hist	   *valid;			/* request times in ns */
	uint64_t	valid_bytes;
	uint64_t	load_count;
	uint64_t	load_bytes;
	uint64_t	start_ns;		/* the window's start and its last request's end */
	uint64_t	end_ns;
} io_window;

/*
 * The valid requests over time, for --chart: at most IO_TIMELINE_BINS bins
 * of one width, which doubles (neighbours merged) when a request falls past
 * the last, so memory stays fixed however long the run.
 */
#define IO_TIMELINE_BINS 600
#define IO_TIMELINE_FIRST_WIDTH_NS (100 * UINT64_C(1000000))

typedef struct io_bin
{
	uint64_t	count;
	double		sum_ns;
	uint64_t	max_ns;
} io_bin;

typedef struct io_timeline
{
	uint64_t	start_ns;
	uint64_t	width_ns;
	int			nbins;			/* bins in use */
	io_bin		bins[IO_TIMELINE_BINS];
} io_timeline;

typedef struct io_stats
{
	io_window	run;
	io_window	period;
	hlog2		log2;			/* the run's valid times, ns */
	uint64_t	too_fast;
	uint64_t	too_slow;
	bool		periods;		/* -p/-P: keep the period window too */
	io_timeline *timeline;		/* --chart: NULL when not asked for */
} io_stats;

/* The figures ioping derives from a window. */
typedef struct io_figures
{
	uint64_t	count;
	uint64_t	time_ns;		/* sum of the valid requests' times */
	uint64_t	bytes;
	double		iops;
	double		bps;
	uint64_t	min,
				avg,
				max,
				mdev;
	uint64_t	load_count;
	uint64_t	load_bytes;
	uint64_t	load_time_ns;
	double		load_iops;
	double		load_bps;
} io_figures;

/*
 * One distribution of PostgreSQL's tests (pgdisk.c) as --metrics and
 * --chart take it: which test and method, and what it measured.
 */
typedef struct io_dist
{
	const char *test;			/* "read" or "wal_sync" */
	const char *method;			/* "random", "sequential" or a wal_sync_method */
	int			writes;			/* writes per sync; 1 for reads */
	bool		direct;			/* opened with O_DIRECT */
	const hist *h;				/* request times in ns; NULL: not run */
	double		ops_per_sec;
	double		seconds;		/* how long the test ran */
} io_dist;

void		io_stats_init(io_stats *st, uint64_t start_ns);
void		io_stats_free(io_stats *st);
/* A request of bytes taking time_ns, ending at end_ns; valid: counted in the statistics. */
void		io_stats_add(io_stats *st, uint64_t time_ns, uint64_t bytes, uint64_t end_ns,
						 bool valid);
/* Keep the timeline (--chart) from now on. */
void		io_stats_keep_timeline(io_stats *st);
/* Begin a new period at now_ns. */
void		io_stats_new_period(io_stats *st, uint64_t now_ns);
void		io_stats_figures(const io_window *w, io_figures *f);

/*
 * The log2 histogram of h's values in unit ns (1: ns, exact, since each
 * power of two starts one of h's buckets; 1000: us, by each bucket's low).
 */
void		io_stats_log2(const hist *h, uint64_t unit, hlog2 *out);

#endif
