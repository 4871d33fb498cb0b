/*
 * stats.h — what a run counts: transactions by outcome, retries, and
 * latency sums, per thread, per script and per command.
 *
 * Each thread owns its counters and updates them without locks; the
 * report merges them at the end (and the progress line reads them while
 * they change, as pgbench does: a slightly torn snapshot is harmless
 * there).  Times are nanoseconds, kept as doubles for the sums.
 */
#ifndef PGTEMPO_BENCH_STATS_H
#define PGTEMPO_BENCH_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/hist.h"

/* How a transaction ended. */
typedef enum stats_outcome
{
	STATS_OK,
	STATS_SERIALIZATION,		/* 40001, not retried (any more) */
	STATS_DEADLOCK,				/* 40P01, not retried (any more) */
	STATS_OTHER,				/* another SQL error under --continue-on-error */
	STATS_SKIPPED				/* -R with -L: already too late when its slot came */
} stats_outcome;

/* Count, sum and sum of squares of a series of durations (ns). */
typedef struct stats_simple
{
	int64_t		count;
	double		min;
	double		max;
	double		sum;
	double		sum2;
} stats_simple;

typedef struct stats
{
	int64_t		cnt;			/* successful transactions */
	int64_t		skipped;		/* -R with -L: not run, too late at their slot */
	int64_t		late;			/* successful, but over the -L latency limit */
	int64_t		retries;		/* retries in all transactions */
	int64_t		retried;		/* transactions retried at least once */
	int64_t		serialization_failures;
	int64_t		deadlock_failures;
	int64_t		other_failures;
	stats_simple latency;		/* of successful transactions */
	stats_simple lag;
} stats;

/* Per-command counters for -r. */
typedef struct stats_command
{
	int64_t		count;
	double		sum;			/* ns */
	int64_t		failures;
	int64_t		retries;
} stats_command;

void		stats_simple_init(stats_simple *s);
void		stats_simple_merge(stats_simple *dst, const stats_simple *src);

static inline void
stats_simple_add(stats_simple *s, double v)
{
	if (s->count == 0 || v < s->min)
		s->min = v;
	if (s->count == 0 || v > s->max)
		s->max = v;
	s->count++;
	s->sum += v;
	s->sum2 += v * v;
}

void		stats_init(stats *s);
void		stats_merge(stats *dst, const stats *src);

/*
 * The histogram of one progress interval: cur minus last, bucket by
 * bucket, where both are merged snapshots of the same cumulative
 * histograms.  Bucket counts only grow, so the difference is exactly what
 * was recorded in between, even when the threads were recording while
 * the snapshots were taken (a value then shows up in the next interval).
 * Count, min and max are recomputed from the buckets (min and max as the
 * midpoints of the lowest and highest non-empty bucket, the accuracy of
 * the percentiles, the maximum clamped to cur's exact one when that lies
 * in the top bucket); sum and sum of squares are differences.
 */
void		stats_hist_interval(hist *dst, const hist *cur, const hist *last);

/*
 * Count one finished transaction that took tries tries.  latency_ns is
 * measured from the scheduled start under -R; with_lag says whether the
 * schedule lag is recorded (-R); late whether latency_ns is over -L.
 */
static inline void
stats_add_tx(stats *s, stats_outcome outcome, uint32_t tries, double latency_ns, double lag_ns,
			 bool with_lag, bool late)
{
	if (tries > 1)
	{
		s->retries += tries - 1;
		s->retried++;
	}
	switch (outcome)
	{
		case STATS_OK:
			s->cnt++;
			stats_simple_add(&s->latency, latency_ns);
			if (with_lag)
				stats_simple_add(&s->lag, lag_ns);
			if (late)
				s->late++;
			break;
		case STATS_SKIPPED:
			s->skipped++;
			break;
		case STATS_SERIALIZATION:
			s->serialization_failures++;
			break;
		case STATS_DEADLOCK:
			s->deadlock_failures++;
			break;
		case STATS_OTHER:
			s->other_failures++;
			break;
	}
}

/* Failed transactions of every kind. */
static inline int64_t
stats_failures(const stats *s)
{
	return s->serialization_failures + s->deadlock_failures + s->other_failures;
}

#endif
