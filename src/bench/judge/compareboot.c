/*
 * compareboot.c — one run per side: the interval of a change from a
 * circular moving block bootstrap over each run's per-interval series.
 *
 * Neighbouring seconds of a run are not independent (a checkpoint, a
 * vacuum, the cache warming up last several seconds), so the series is
 * resampled in blocks of consecutive intervals, wrapping around at the
 * end: round(n^(1/3)) of them, more when the tps of neighbouring
 * intervals are correlated (the AR(1) plug-in rule, infer.h).  Each side
 * is resampled on its own, 2000 times with a fixed seed.  Each
 * resample's tps is its transactions over its time, its average the
 * latency sum over its transactions, and its percentiles those of the
 * resampled intervals' histograms added up, so percentiles are resampled
 * as they are measured, not averaged.  The interval is the reported
 * change plus or minus t (blocks less one degrees of freedom) times the
 * standard deviation of the resampled log ratio.  A series longer than
 * CMP_MAX_GROUPS intervals is first summed into that many groups of
 * consecutive intervals, which keeps an hour's run within a fraction of
 * a second.
 *
 * The histograms are kept as prefix sums over time of the buckets the
 * run used, so a block's histogram is one subtraction per bucket.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

/* One side's series of one scope, ready to resample. */
typedef struct bside
{
	int			n;				/* (grouped) intervals */
	int			ncols;			/* buckets used */
	uint32_t   *cols;			/* their indexes, ascending */
	double	   *tx;				/* prefix sums: tx[j] over the first j intervals */
	double	   *secs;
	double	   *lat;
	uint64_t   *h;				/* prefix sums of the buckets: h[j * ncols + col] */
	uint64_t   *acc;			/* a resample's histogram */
} bside;

static void
bside_free(bside *b)
{
	free(b->cols);
	free(b->tx);
	free(b->secs);
	free(b->lat);
	free(b->h);
	free(b->acc);
}

/* The buckets rows first..n-1 of cell use, as a map index -> column (-1: none). */
static bool
map_columns(const series *sr, int cell, int first, int *col, bside *b, char **cause)
{
	memset(col, -1, sizeof(int) * HIST_BUCKETS);
	for (int r = first; r < sr->nrows; r++)
	{
		series_sparse sp;

		if (!series_sparse_decode(sr->rows[r].cells[cell].hist_text, &sp, cause))
			return false;
		for (int i = 0; i < sp.nb; i++)
			col[sp.idx[i]] = 0;
		series_sparse_free(&sp);
	}
	b->ncols = 0;
	for (int i = 0; i < HIST_BUCKETS; i++)
		if (col[i] == 0)
			b->ncols++;
	b->cols = xcalloc((size_t) b->ncols + 1, sizeof(uint32_t));
	for (int i = 0, k = 0; i < HIST_BUCKETS; i++)
		if (col[i] == 0)
		{
			b->cols[k] = (uint32_t) i;
			col[i] = k++;
		}
	return true;
}

/*
 * The series of cell from row first on, summed into groups of group
 * rows, as prefix sums; false with *cause set when a histogram is bad.
 */
static bool
bside_build(const series *sr, int cell, int first, int group, bside *b, char **cause)
{
	int		   *col = xmalloc(sizeof(int) * HIST_BUCKETS);
	bool		ok;

	memset(b, 0, sizeof(*b));
	b->n = (sr->nrows - first + group - 1) / group;
	ok = map_columns(sr, cell, first, col, b, cause);
	b->tx = xcalloc((size_t) b->n + 1, sizeof(double));
	b->secs = xcalloc((size_t) b->n + 1, sizeof(double));
	b->lat = xcalloc((size_t) b->n + 1, sizeof(double));
	b->h = xcalloc(((size_t) b->n + 1) * ((size_t) b->ncols + 1), sizeof(uint64_t));
	b->acc = xcalloc((size_t) b->ncols + 1, sizeof(uint64_t));
	for (int j = 0; ok && j < b->n; j++)
	{
		uint64_t   *dst = &b->h[(size_t) (j + 1) * b->ncols];

		memcpy(dst, &b->h[(size_t) j * b->ncols], sizeof(uint64_t) * (size_t) b->ncols);
		b->tx[j + 1] = b->tx[j];
		b->secs[j + 1] = b->secs[j];
		b->lat[j + 1] = b->lat[j];
		for (int r = first + j * group; r < first + (j + 1) * group && r < sr->nrows; r++)
		{
			const series_cell *cl = &sr->rows[r].cells[cell];
			series_sparse sp;

			b->tx[j + 1] += (double) cl->transactions;
			b->secs[j + 1] += sr->rows[r].interval_s;
			b->lat[j + 1] += cl->latency_sum_ns;
			if (!series_sparse_decode(cl->hist_text, &sp, cause))
			{
				ok = false;
				break;
			}
			for (int i = 0; i < sp.nb; i++)
				dst[col[sp.idx[i]]] += sp.cnt[i];
			series_sparse_free(&sp);
		}
	}
	free(col);
	return ok;
}

/* Add rows [from, to) of the prefix sums (to <= n) into the resample's sums. */
static void
add_span(const bside *b, int from, int to, double *sums)
{
	const uint64_t *hi = &b->h[(size_t) to * b->ncols];
	const uint64_t *lo = &b->h[(size_t) from * b->ncols];

	sums[0] += b->tx[to] - b->tx[from];
	sums[1] += b->secs[to] - b->secs[from];
	sums[2] += b->lat[to] - b->lat[from];
	for (int k = 0; k < b->ncols; k++)
		b->acc[k] += hi[k] - lo[k];
}

/* The value at percentile pct of the histogram in b->acc (a bucket's midpoint, ns). */
static double
acc_percentile(const bside *b, double pct, uint64_t total)
{
	uint64_t	want = (uint64_t) ceil(pct / 100.0 * (double) total),
				run = 0;

	if (want < 1)
		want = 1;
	for (int k = 0; k < b->ncols; k++)
	{
		run += b->acc[k];
		if (run >= want)
			return ((double) hist_bucket_low((int) b->cols[k]) +
					(double) hist_bucket_high((int) b->cols[k])) / 2.0;
	}
	return NAN;
}

/*
 * The metrics of one resample of b (starts: the blocks; NULL: the whole
 * series once) into out[0..nmetrics).
 */
static void
resample(const bside *b, const cmp *c, const int *starts, int nblocks, double *out)
{
	double		sums[3] = {0, 0, 0};
	uint64_t	total = 0;

	memset(b->acc, 0, sizeof(uint64_t) * (size_t) b->ncols);
	if (starts == NULL)
		add_span(b, 0, b->n, sums);
	for (int j = 0, got = 0; starts != NULL && j < nblocks && got < b->n; j++)
	{
		int			len = c->block_len < b->n - got ? c->block_len : b->n - got;
		int			s = starts[j];

		if (s + len <= b->n)
			add_span(b, s, s + len, sums);
		else
		{
			add_span(b, s, b->n, sums);
			add_span(b, 0, s + len - b->n, sums);
		}
		got += len;
	}
	for (int k = 0; k < b->ncols; k++)
		total += b->acc[k];
	for (int m = 0; m < c->nmetrics; m++)
	{
		const cmp_metric *mt = &c->metrics[m];

		out[m] = mt->kind == CMP_TPS ? (sums[1] > 0 ? sums[0] / sums[1] : NAN) :
			mt->kind == CMP_AVG ? (sums[0] > 0 ? sums[2] / sums[0] : NAN) :
			total > 0 ? acc_percentile(b, mt->pct, total) : NAN;
	}
}

/* Every result of scope unknown, for why. */
static void
all_unknown(cmp *c, int scope, const char *why)
{
	for (int m = 0; m < c->nmetrics; m++)
	{
		cmp_result *r = &c->results[scope * c->nmetrics + m];

		if (r->known || r->why[0] == '\0')
			snprintf(r->why, sizeof(r->why), "%s", why);
		r->known = false;
		cmp_set_verdict(r);
	}
}

/* The log ratios of nboot resamples into rep[metric][k]. */
static void
run_resamples(cmp *c, bside *b, double **rep)
{
	infer_rng	rng;
	int			nblocks[2];
	int		   *starts[2];
	double		v[2][CMP_MAX_METRICS];

	infer_rng_seed(&rng, CMP_SEED);
	for (int s = 0; s < 2; s++)
	{
		nblocks[s] = infer_block_count(b[s].n, c->block_len);
		starts[s] = xcalloc((size_t) nblocks[s], sizeof(int));
	}
	for (int k = 0; k < CMP_RESAMPLES; k++)
	{
		for (int s = 0; s < 2; s++)
		{
			infer_block_starts(&rng, b[s].n, nblocks[s], starts[s]);
			resample(&b[s], c, starts[s], nblocks[s], v[s]);
		}
		for (int m = 0; m < c->nmetrics; m++)
			rep[m][k] = log(v[1][m] / v[0][m]);
	}
	free(starts[0]);
	free(starts[1]);
}

/*
 * The interval of each result of scope from the resampled log ratios:
 * the reported change plus or minus t times their standard deviation, t
 * with the number of blocks less one degrees of freedom (a percentile
 * interval of the resamples covers too little on series this short:
 * 82 % instead of 95 % on 40 correlated intervals, against 93 % so).
 */
static void
set_intervals(cmp *c, int scope, bside *b, double **rep)
{
	int			nblocks = infer_block_count(b[0].n < b[1].n ? b[0].n : b[1].n, c->block_len);
	double		full[2][CMP_MAX_METRICS];

	/* the whole series once: the resamples must be finite where it is */
	resample(&b[0], c, NULL, 0, full[0]);
	resample(&b[1], c, NULL, 0, full[1]);
	for (int m = 0; m < c->nmetrics; m++)
	{
		cmp_result *r = &c->results[scope * c->nmetrics + m];
		double		centre = log(full[1][m] / full[0][m]);
		double		est = log(r->target / r->base);
		bool		finite = isfinite(centre) && isfinite(est);

		for (int k = 0; finite && k < CMP_RESAMPLES; k++)
			finite = isfinite(rep[m][k]);
		if (!r->known)
			;					/* too few transactions beyond a percentile: said already */
		else if (!finite)
		{
			r->known = false;
			snprintf(r->why, sizeof(r->why), "an interval without transactions");
		}
		else
		{
			double		mean,
						variance;
			double		t = infer_t_quantile((1 + c->level) / 2, nblocks - 1);
			double		sd;

			infer_mean_var(rep[m], CMP_RESAMPLES, &mean, &variance);
			sd = sqrt(variance);
			r->lo = exp(est - t * sd) - 1;
			r->hi = exp(est + t * sd) - 1;
		}
		cmp_set_verdict(r);
	}
}

/*
 * The block length: at least round(n^(1/3)), longer when the tps of
 * neighbouring intervals are correlated (the AR(1) plug-in rule on the
 * larger of the two sides' lag-1 autocorrelations).
 */
static int
block_length(const bside *b)
{
	int			n = b[0].n < b[1].n ? b[0].n : b[1].n;
	double		rho = 0;

	for (int s = 0; s < 2; s++)
	{
		double	   *x = xcalloc((size_t) b[s].n + 1, sizeof(double));

		for (int j = 0; j < b[s].n; j++)
			x[j] = b[s].secs[j + 1] > b[s].secs[j] ?
				(b[s].tx[j + 1] - b[s].tx[j]) / (b[s].secs[j + 1] - b[s].secs[j]) : 0;
		rho = fmax(rho, infer_lag1(x, b[s].n));
		free(x);
	}
	return infer_block_length_rho(n, rho);
}

void
cmpboot_scope(cmp *c, int scope)
{
	const series *sr[2] = {&c->side[0].runs[0].series, &c->side[1].runs[0].series};
	bside		b[2];
	double	   *rep[CMP_MAX_METRICS];
	char	   *cause = NULL;
	char		why[96];
	int			usable = sr[0]->nrows < sr[1]->nrows ? sr[0]->nrows : sr[1]->nrows;

	/* the first interval holds the connections' start: left out */
	usable--;
	if (sr[0]->interval_s <= 0 || sr[1]->interval_s <= 0)
	{
		all_unknown(c, scope, "a run without the series of intervals (an older report)");
		return;
	}
	if (sr[0]->interval_s != sr[1]->interval_s)
	{
		all_unknown(c, scope, "the runs' intervals differ (-P)");
		return;
	}
	if (usable < CMP_MIN_INTERVALS)
	{
		snprintf(why, sizeof(why), "too few data for an interval (%d intervals of %d s, %d needed)",
				 usable < 0 ? 0 : usable, sr[0]->interval_s, CMP_MIN_INTERVALS);
		all_unknown(c, scope, why);
		return;
	}
	c->interval_s = sr[0]->interval_s;
	c->nintervals[0] = sr[0]->nrows - 1;
	c->nintervals[1] = sr[1]->nrows - 1;
	c->group = ((c->nintervals[0] > c->nintervals[1] ? c->nintervals[0] : c->nintervals[1]) +
				CMP_MAX_GROUPS - 1) / CMP_MAX_GROUPS;
	for (int s = 0; s < 2; s++)
	{
		if (!bside_build(sr[s], scope, 1, c->group, &b[s], &cause))
		{
			all_unknown(c, scope, "a damaged histogram in the series");
			msg_warning("file \"%s\": %s", c->side[s].runs[0].file, cause);
			free(cause);
			if (s == 1)
				bside_free(&b[0]);
			bside_free(&b[s]);
			return;
		}
	}
	/* the overall series sets the block length, for the scripts' too */
	if (scope == 0 || c->block_len <= 0)
		c->block_len = block_length(b);
	for (int m = 0; m < c->nmetrics; m++)
		rep[m] = xcalloc(CMP_RESAMPLES, sizeof(double));
	run_resamples(c, b, rep);
	set_intervals(c, scope, b, rep);
	for (int m = 0; m < c->nmetrics; m++)
		free(rep[m]);
	bside_free(&b[0]);
	bside_free(&b[1]);
}
