/*
 * hist.c — power-of-two and log-linear histograms.
 */
#include "config.h"

#include "pgtempo/hist.h"
#include "pgtempo/xalloc.h"

#include <math.h>
#include <string.h>

uint64_t
hlog2_bucket_max(int b)
{
	if (b <= 0)
		return 0;
	if (b >= 64)
		return UINT64_MAX;
	return (UINT64_C(1) << b) - 1;
}

int
hlog2_top(const hlog2 *h)
{
	for (int b = HLOG2_BUCKETS - 1; b >= 0; b--)
		if (h->count[b] != 0)
			return b;
	return -1;
}

uint64_t
hlog2_total(const hlog2 *h)
{
	uint64_t	n = 0;

	for (int b = 0; b < HLOG2_BUCKETS; b++)
		n += h->count[b];
	return n;
}

void
hist_init(hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

hist *
hist_new(size_t n)
{
	hist	   *h = xcalloc(n, sizeof(*h));

	for (size_t i = 0; i < n; i++)
		h[i].min = UINT64_MAX;
	return h;
}

uint64_t
hist_bucket_low(int idx)
{
	int			octave,
				sub;

	if (idx < HIST_SUB_COUNT)
		return (uint64_t) idx;
	octave = (idx - HIST_SUB_COUNT) / HIST_HALF_COUNT;	/* 0 for [256, 512) */
	sub = (idx - HIST_SUB_COUNT) % HIST_HALF_COUNT;
	return (uint64_t) (HIST_HALF_COUNT + sub) << (octave + 1);
}

uint64_t
hist_bucket_high(int idx)
{
	if (idx < HIST_SUB_COUNT)
		return (uint64_t) idx;
	if (idx == HIST_BUCKETS - 1)
		return HIST_MAX_VALUE;
	return hist_bucket_low(idx + 1) - 1;
}

void
hist_merge(hist *dst, const hist *src)
{
	if (src->total == 0)
		return;
	for (int i = 0; i < HIST_BUCKETS; i++)
		if (src->counts[i] != 0)	/* leave dst's untouched pages alone */
			dst->counts[i] += src->counts[i];
	dst->total += src->total;
	dst->clamped += src->clamped;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t
hist_percentile(const hist *h, double pct)
{
	uint64_t	rank,
				seen = 0;

	if (h->total == 0)
		return 0;
	if (pct <= 0)
		return h->min;
	if (pct >= 100)
		return h->max;

	rank = (uint64_t) ceil(pct / 100.0 * (double) h->total);
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		seen += h->counts[i];
		if (seen >= rank)
		{
			uint64_t	lo = hist_bucket_low(i),
						hi = hist_bucket_high(i),
						v = lo + (hi - lo) / 2;

			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

double
hist_mean(const hist *h)
{
	return h->total ? h->sum / (double) h->total : 0.0;
}

double
hist_stddev(const hist *h)
{
	double		mean,
				var;

	if (h->total < 2)
		return 0.0;
	mean = h->sum / (double) h->total;
	var = h->sumsq / (double) h->total - mean * mean;
	return var > 0 ? sqrt(var) : 0.0;
}

uint64_t
hist_count_range(const hist *h, uint64_t lo, uint64_t hi)
{
	uint64_t	n = 0;

	if (lo > HIST_MAX_VALUE || hi < lo)
		return 0;
	for (int i = hist_index(lo); i < HIST_BUCKETS && hist_bucket_low(i) <= hi; i++)
		n += h->counts[i];
	return n;
}
