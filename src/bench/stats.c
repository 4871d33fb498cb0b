/*
 * stats.c — initializing and merging the run's counters.
 */
#include "config.h"

#include "stats.h"

#include <string.h>

void
stats_simple_init(stats_simple *s)
{
	memset(s, 0, sizeof(*s));
}

/* Add src's series into dst (as if every value had been added there). */
void
stats_simple_merge(stats_simple *dst, const stats_simple *src)
{
	if (src->count == 0)
		return;
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (dst->count == 0 || src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sum2 += src->sum2;
}

void
stats_init(stats *s)
{
	memset(s, 0, sizeof(*s));
}

void
stats_merge(stats *dst, const stats *src)
{
	dst->cnt += src->cnt;
	dst->skipped += src->skipped;
	dst->retries += src->retries;
	dst->retried += src->retried;
	dst->serialization_failures += src->serialization_failures;
	dst->deadlock_failures += src->deadlock_failures;
	dst->other_failures += src->other_failures;
	stats_simple_merge(&dst->latency, &src->latency);
	stats_simple_merge(&dst->lag, &src->lag);
}
