/*
 * hist.h — histograms with fixed memory and no per-sample allocation.
 *
 * hlog2: a power-of-two histogram.  Bucket 0 counts the value 0 and
 * bucket b (1..64) counts values in [2^(b-1), 2^b).
 *
 * hist: a mergeable log-linear latency histogram (HDR-style), values in
 * nanoseconds.  Values below 2^HIST_SUB_BITS are counted exactly; above
 * that each power-of-two range is split into 2^(HIST_SUB_BITS-1) equal
 * buckets, so a bucket's width is at most 1/128 of its lower bound and
 * its midpoint is within 0.4 % of any value in it.  Values above
 * HIST_MAX_VALUE (about 4.9 hours) are clamped and counted in
 * ->clamped.  Exact count, sum, sum of squares, min and max are kept
 * alongside.  Two histograms merge by adding counts.
 */
#ifndef PGTEMPO_HIST_H
#define PGTEMPO_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- log2 histogram ---- */

#define HLOG2_BUCKETS 65

typedef struct hlog2
{
	uint64_t	count[HLOG2_BUCKETS];
} hlog2;

/* The bucket of value v: 0 for 0, else 1 + floor(log2(v)). */
static inline int
hlog2_bucket(uint64_t v)
{
	return v == 0 ? 0 : 64 - __builtin_clzll(v);
}

static inline void
hlog2_record(hlog2 *h, uint64_t v)
{
	h->count[hlog2_bucket(v)]++;
}

/* Largest value that falls in bucket b: 0, 1, 3, 7, ... */
uint64_t	hlog2_bucket_max(int b);
/* Highest bucket with a non-zero count, or -1 if empty. */
int			hlog2_top(const hlog2 *h);
uint64_t	hlog2_total(const hlog2 *h);

/* ---- log-linear latency histogram ---- */

#define HIST_SUB_BITS 8
#define HIST_SUB_COUNT (1 << HIST_SUB_BITS)				/* 256 exact values */
#define HIST_HALF_COUNT (HIST_SUB_COUNT / 2)			/* 128 per octave */
#define HIST_MAX_BITS 44
#define HIST_MAX_VALUE ((UINT64_C(1) << HIST_MAX_BITS) - 1)
#define HIST_BUCKETS (HIST_SUB_COUNT + (HIST_MAX_BITS - HIST_SUB_BITS) * HIST_HALF_COUNT)

typedef struct hist
{
	uint64_t	total;			/* number of values recorded */
	uint64_t	clamped;		/* of which were above HIST_MAX_VALUE */
	uint64_t	min;			/* exact, before clamping; UINT64_MAX if empty */
	uint64_t	max;			/* exact, before clamping */
	double		sum;			/* exact sum and sum of squares (as doubles) */
	double		sumsq;
	uint64_t	counts[HIST_BUCKETS];
} hist;

/* Index of the bucket holding v (v is clamped to HIST_MAX_VALUE). */
static inline int
hist_index(uint64_t v)
{
	int			msb;

	if (v < HIST_SUB_COUNT)
		return (int) v;
	if (v > HIST_MAX_VALUE)
		v = HIST_MAX_VALUE;
	msb = 63 - __builtin_clzll(v);	/* >= HIST_SUB_BITS */
	return HIST_SUB_COUNT + (msb - HIST_SUB_BITS) * HIST_HALF_COUNT
		+ (int) (v >> (msb - HIST_SUB_BITS + 1)) - HIST_HALF_COUNT;
}

void		hist_init(hist *h);
/*
 * n empty histograms in zeroed memory (free() them): the bucket pages a
 * histogram never counts in are never touched, so a run's resident memory
 * grows only with the latencies it sees.
 */
hist	   *hist_new(size_t n);
#define hist_reset hist_init

/* Count value v, n times. */
static inline void
hist_record_n(hist *h, uint64_t v, uint64_t n)
{
	double		d = (double) v;

	if (v > HIST_MAX_VALUE)
		h->clamped += n;
	h->counts[hist_index(v)] += n;
	h->total += n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->sum += d * n;
	h->sumsq += d * d * n;
}

static inline void
hist_record(hist *h, uint64_t v)
{
	hist_record_n(h, v, 1);
}

/* Lowest and highest value counted in bucket idx. */
uint64_t	hist_bucket_low(int idx);
uint64_t	hist_bucket_high(int idx);
/* Add src's counts into dst. */
void		hist_merge(hist *dst, const hist *src);
/*
 * The value at percentile pct (0..100): the smallest bucket whose
 * cumulative count reaches ceil(pct/100 * total), reported as the
 * bucket's midpoint clamped to [min, max].  pct 0 gives min, 100 gives
 * max.  0 for an empty histogram.
 */
uint64_t	hist_percentile(const hist *h, double pct);
double		hist_mean(const hist *h);
/* Population standard deviation; 0 with fewer than two values. */
double		hist_stddev(const hist *h);
/* Number of values in [lo, hi], counted from whole buckets; lo and hi
 * must be bucket boundaries (hist_bucket_low / hist_bucket_high + 1). */
uint64_t	hist_count_range(const hist *h, uint64_t lo, uint64_t hi);

#endif
