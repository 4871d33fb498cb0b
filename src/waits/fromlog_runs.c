/*
 * fromlog_runs.c — the runs the history files hold, each with its health
 * records, and the health of a window worked out from them.
 */
#include "config.h"

#include "fromlog_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/exitcode.h"
#include "pgtempo/hash.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

#include "evdesc.h"
#include "format.h"
#include "histread.h"
#include "report.h"
#include "sink.h"
#include "sinkset.h"
#include "strpool.h"
#include "wprof.h"

/* The run of meta (a rotated file goes on with the run of the one before). */
bool
fromlog_use_run(fromlog *f, const format_meta *m, const histread *h, char **cause)
{
	const format_meta *first = f->nruns > 0 ? &f->runs[0].meta : NULL;
	fl_run	   *r;

	for (int i = 0; i < f->nruns; i++)
		if (f->runs[i].meta.run_us == m->run_us)
		{
			f->cur = i;
			return true;
		}
	/* one report, one server (names are interned: the same text, the same pointer) */
	if (first != NULL && first->server != m->server)
	{
		*cause = xasprintf("%s:%" PRIu64 ": this run sampled server %s and the one before %s: "
						   "report them separately", h->path, h->rec_line,
						   m->server ? m->server : "(unknown)",
						   first->server ? first->server : "(unknown)");
		return false;
	}
	/* one window, one way of sampling: the estimates of another do not add up */
	if (first != NULL && (fabs(first->period_s - m->period_s) > 1e-9 ||
						  fabs(first->interval_s - m->interval_s) > 1e-9 ||
						  first->include_idle != m->include_idle))
	{
		*cause = xasprintf("%s:%" PRIu64 ": this run sampled every %g s (period %g s, idle %s) "
						   "and the one before every %g s (period %g s, idle %s): report "
						   "them separately", h->path, h->rec_line, m->interval_s, m->period_s,
						   m->include_idle ? "counted" : "not counted", first->interval_s,
						   first->period_s, first->include_idle ? "counted" : "not counted");
		return false;
	}
	f->runs = xrealloc(f->runs, (size_t) (f->nruns + 1) * sizeof(fl_run));
	r = &f->runs[f->nruns];
	memset(r, 0, sizeof(fl_run));
	r->meta = *m;
	/* the record's list lasts until the next record: the run keeps a copy */
	r->types = xcalloc((size_t) m->nbackend_types + 1, sizeof(char *));
	for (int i = 0; i < m->nbackend_types; i++)
		r->types[i] = m->backend_types[i];
	r->meta.backend_types = r->types;
	f->cur = f->nruns++;
	return true;
}

/* Keep a health record of the current run; the first also gives the run's start. */
void
fromlog_add_health(fromlog *f, const sample_health *h)
{
	fl_run	   *r = &f->runs[f->cur];
	fl_point	p = {.ts_us = h->ts_us};

	if (r->cap < r->npts + 2)
	{
		r->cap = r->cap ? r->cap * 2 : 64;
		r->pts = xrealloc(r->pts, (size_t) r->cap * sizeof(fl_point));
	}
	if (r->npts == 0)
	{
		/* every count of a health record is since the run started */
		memset(&r->pts[0], 0, sizeof(fl_point));
		r->pts[0].ts_us = h->ts_us - (uint64_t) llround(h->elapsed_s * 1e6);
		r->npts = 1;
	}
	for (int k = 0; k < FORMAT_NHEALTH; k++)
		p.v[k] = format_column_number(&format_health_kind.cols[k], h);
	r->pts[r->npts++] = p;
}

/* Oldest first (files may come in any order). */
static int
cmp_point(const void *a, const void *b)
{
	const fl_point *x = a,
			   *y = b;

	if (x->ts_us != y->ts_us)
		return x->ts_us < y->ts_us ? -1 : 1;
	{
		int			k = FORMAT_HEALTH_samples;

		return x->v[k] < y->v[k] ? -1 : x->v[k] > y->v[k];
	}
}

/*
 * The run's counts at time t: interpolated between its health records;
 * after the last, samples go on at the run's rate up to its last row.
 */
void
fromlog_counts_at(const fl_run *r, uint64_t t, double *v)
{
	const fl_point *last = &r->pts[r->npts - 1];
	int			i = 1;

	if (t <= r->pts[0].ts_us)
	{
		memset(v, 0, sizeof(double) * FORMAT_NHEALTH);
		return;
	}
	if (t >= last->ts_us)
	{
		uint64_t	to = t < r->last_row_us ? t : r->last_row_us;
		double		span = (double) (last->ts_us - r->pts[0].ts_us);
		int			samples = FORMAT_HEALTH_samples;

		memcpy(v, last->v, sizeof(double) * FORMAT_NHEALTH);
		if (to > last->ts_us && span > 0)
		{
			v[samples] += last->v[samples] * (double) (to - last->ts_us) / span;
			v[FORMAT_HEALTH_elapsed_s] += (double) (to - last->ts_us) / 1e6;
		}
		return;
	}
	while (r->pts[i].ts_us < t)
		i++;
	for (int k = 0; k < FORMAT_NHEALTH; k++)
	{
		const fl_point *a = &r->pts[i - 1],
				   *b = &r->pts[i];
		double		w = (double) (t - a->ts_us) / (double) (b->ts_us - a->ts_us);

		v[k] = a->v[k] + w * (b->v[k] - a->v[k]);
	}
}

/*
 * The run's counts over the profile lines from the one that ends at
 * first_end to the one that ends at b: from the health record written
 * before the first line ended (the one after the line before it, or the
 * run's start) to the one written right after the last line (no sample
 * comes between a line and its record), so exact however unevenly the
 * samples came; a window past the last record ends as counts_at says.
 */
static void
line_counts(const fl_run *r, uint64_t first_end, uint64_t b, double *va, double *vb)
{
	int			i = 0;

	while (i + 1 < r->npts && r->pts[i + 1].ts_us < first_end)
		i++;
	memcpy(va, r->pts[i].v, sizeof(double) * FORMAT_NHEALTH);
	for (i = 1; i < r->npts; i++)
		if (r->pts[i].ts_us >= b)
		{
			memcpy(vb, r->pts[i].v, sizeof(double) * FORMAT_NHEALTH);
			return;
		}
	fromlog_counts_at(r, b, vb);
}

/*
 * The sampler's health over the window, summed over the runs: each field
 * as format.h's table marks it (counters summed, the latest gauges, the
 * largest maxima), then what the fields mean: the rate is the window's,
 * the gaps are the gap records'.
 */
void
fromlog_window_health(fromlog *f, sample_health *h)
{
	uint64_t	a = f->s->since_us < 0 ? 0 : (uint64_t) f->s->since_us;
	uint64_t	b = f->s->until_us == INT64_MAX ? UINT64_MAX : (uint64_t) f->s->until_us;
	const format_kind *k = &format_health_kind;
	double		sum[FORMAT_NHEALTH] = {0};
	double		most[FORMAT_NHEALTH] = {0};
	const fl_point *latest = NULL;
	bool		whole = f->nruns == 1;
	bool		lines = false;

	/* profile lines count whole: so do the samples of their intervals */
	if (f->iv_end_us > 0 && (f->s->since_us != INT64_MIN || f->s->until_us != INT64_MAX))
	{
		a = f->iv_start_us;
		b = f->iv_end_us;
		lines = true;
	}
	memset(h, 0, sizeof(*h));
	for (int i = 0; i < f->nruns; i++)
	{
		fl_run	   *r = &f->runs[i];
		double		va[FORMAT_NHEALTH],
					vb[FORMAT_NHEALTH];

		if (r->npts == 0)
			continue;
		if (lines && r->pts[0].ts_us < b && r->last_row_us > a)
			line_counts(r, f->iv_first_end_us, b, va, vb);
		else
		{
			fromlog_counts_at(r, a, va);
			fromlog_counts_at(r, b, vb);
		}
		for (int c = 0; c < FORMAT_NHEALTH; c++)
			sum[c] += vb[c] - va[c];
		whole = whole && a <= r->pts[0].ts_us && b >= r->pts[r->npts - 1].ts_us &&
			r->last_row_us <= r->pts[r->npts - 1].ts_us;
		for (int j = 1; j < r->npts; j++)
			if (r->pts[j].ts_us > a && r->pts[j - 1].ts_us < b)
			{
				latest = &r->pts[j];
				for (int c = 0; c < FORMAT_NHEALTH; c++)
					if (latest->v[c] > most[c])
						most[c] = latest->v[c];
			}
	}
	for (int c = 0; c < FORMAT_NHEALTH; c++)
	{
		const format_column *col = &k->cols[c];

		if (col->agg == FORMAT_AGG_COUNTER)
			format_column_set_number(col, h, sum[c]);
		else if (col->agg == FORMAT_AGG_MAXIMUM)
			format_column_set_number(col, h, most[c]);
		else if (col->agg == FORMAT_AGG_GAUGE)
			/* the run's value so far: the closest the files come to the window's */
			format_column_set_number(col, h, latest != NULL ? latest->v[c] : (double) col->absent);
	}
	h->rate_hz = h->elapsed_s > 0 ? (double) h->samples / h->elapsed_s : 0;
	if (latest != NULL && whole)
		h->rate_hz = latest->v[FORMAT_HEALTH_rate_hz];
	h->ngaps = f->ngaps;
	h->gap_s = 0;
	for (int i = 0; i < f->ngaps; i++)
		h->gap_s += (double) (f->gaps[i].end_us - f->gaps[i].start_us) / 1e6;
	/* a raw row's time is a sample's: where rows were every tick, they count them exactly */
	if (f->win_ticks > h->samples)
		h->samples = f->win_ticks;
	h->rate_hz = h->elapsed_s > 0 && !whole ? (double) h->samples / h->elapsed_s : h->rate_hz;
}

/* Each run's health records in time order. */
void
fromlog_sort_points(fromlog *f)
{
	for (int i = 0; i < f->nruns; i++)
		if (f->runs[i].npts > 1)
			qsort(f->runs[i].pts, (size_t) f->runs[i].npts, sizeof(fl_point), cmp_point);
}
