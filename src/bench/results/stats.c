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
	dst->late += src->late;
	dst->retries += src->retries;
	dst->retried += src->retried;
	dst->serialization_failures += src->serialization_failures;
	dst->deadlock_failures += src->deadlock_failures;
	dst->other_failures += src->other_failures;
	stats_simple_merge(&dst->latency, &src->latency);
	stats_simple_merge(&dst->lag, &src->lag);
}

/* The midpoint of bucket i, the value hist_percentile() reports for it. */
static uint64_t
bucket_mid(int i)
{
	uint64_t	lo = hist_bucket_low(i);

	return lo + (hist_bucket_high(i) - lo) / 2;
}

void
stats_hist_interval(hist *dst, const hist *cur, const hist *last)
{
	int			lowest = -1,
				highest = -1;

	hist_init(dst);
	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		/* never below 0, even if a snapshot were torn the wrong way */
		uint64_t	n = cur->counts[i] > last->counts[i] ? cur->counts[i] - last->counts[i] : 0;

		if (n == 0)
			continue;
		dst->counts[i] = n;
		dst->total += n;
		if (lowest < 0)
			lowest = i;
		highest = i;
	}
	if (dst->total == 0)
		return;
	dst->min = bucket_mid(lowest);
	dst->max = bucket_mid(highest);
	/* the exact maximum when the run's maximum is in the interval's top bucket */
	if (cur->max >= hist_bucket_low(highest) && cur->max < dst->max)
		dst->max = cur->max;
	dst->sum = cur->sum - last->sum;
	dst->sumsq = cur->sumsq - last->sumsq;
}
