/*
 * stats.c — ioping's counts on the core histogram (see stats.h).
 */
#include "config.h"

#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/clock.h"

/* An empty window starting at start_ns, its histogram kept (or made). */
static void
window_reset(io_window *w, uint64_t start_ns)
{
	if (w->valid == NULL)
		w->valid = hist_new(1);
	else
		hist_reset(w->valid);
	w->valid_bytes = w->load_count = w->load_bytes = 0;
	w->start_ns = w->end_ns = start_ns;
}

void
io_stats_init(io_stats *st, uint64_t start_ns)
{
	memset(st, 0, sizeof(*st));
	window_reset(&st->run, start_ns);
	window_reset(&st->period, start_ns);
}

void
io_stats_free(io_stats *st)
{
	free(st->run.valid);
	free(st->period.valid);
	free(st->timeline);
}

void
io_stats_keep_timeline(io_stats *st)
{
	st->timeline = calloc(1, sizeof(*st->timeline));
	if (st->timeline == NULL)
		abort();
	st->timeline->start_ns = st->run.start_ns;
	st->timeline->width_ns = IO_TIMELINE_FIRST_WIDTH_NS;
}

/* Halve the number of bins: each pair merged, the width doubled. */
static void
timeline_merge(io_timeline *tl)
{
	int			n = (tl->nbins + 1) / 2;

	for (int i = 0; i < n; i++)
	{
		io_bin		a = tl->bins[2 * i];
		io_bin		b = 2 * i + 1 < tl->nbins ? tl->bins[2 * i + 1] : (io_bin) {0, 0, 0};

		tl->bins[i].count = a.count + b.count;
		tl->bins[i].sum_ns = a.sum_ns + b.sum_ns;
		tl->bins[i].max_ns = a.max_ns > b.max_ns ? a.max_ns : b.max_ns;
	}
	memset(&tl->bins[n], 0, sizeof(io_bin) * (size_t) (IO_TIMELINE_BINS - n));
	tl->nbins = n;
	tl->width_ns *= 2;
}

/* A valid request that ended at end_ns. */
static void
timeline_add(io_timeline *tl, uint64_t time_ns, uint64_t end_ns)
{
	uint64_t	at = end_ns > tl->start_ns ? end_ns - tl->start_ns : 0;
	uint64_t	i;
	io_bin	   *b;

	while ((i = at / tl->width_ns) >= IO_TIMELINE_BINS)
		timeline_merge(tl);
	b = &tl->bins[i];
	b->count++;
	b->sum_ns += (double) time_ns;
	if (time_ns > b->max_ns)
		b->max_ns = time_ns;
	if ((int) i + 1 > tl->nbins)
		tl->nbins = (int) i + 1;
}

/* Count one request in a window. */
static void
window_add(io_window *w, uint64_t time_ns, uint64_t bytes, uint64_t end_ns, bool valid)
{
	if (valid)
	{
		hist_record(w->valid, time_ns);
		w->valid_bytes += bytes;
	}
	w->load_count++;
	w->load_bytes += bytes;
	w->end_ns = end_ns;
}

void
io_stats_add(io_stats *st, uint64_t time_ns, uint64_t bytes, uint64_t end_ns, bool valid)
{
	window_add(&st->run, time_ns, bytes, end_ns, valid);
	if (st->periods)
		window_add(&st->period, time_ns, bytes, end_ns, valid);
	if (valid)
	{
		hlog2_record(&st->log2, time_ns);
		if (st->timeline != NULL)
			timeline_add(st->timeline, time_ns, end_ns);
	}
}

void
io_stats_new_period(io_stats *st, uint64_t now_ns)
{
	window_reset(&st->period, now_ns);
}

void
io_stats_figures(const io_window *w, io_figures *f)
{
	const hist *h = w->valid;

	memset(f, 0, sizeof(*f));
	f->count = h->total;
	f->time_ns = (uint64_t) h->sum;
	f->bytes = w->valid_bytes;
	if (f->count > 0)
	{
		f->min = h->min;
		f->max = h->max;
		f->avg = (uint64_t) (h->sum / (double) h->total);
		f->mdev = (uint64_t) hist_stddev(h);
	}
	if (f->time_ns > 0)
	{
		f->iops = (double) f->count * (double) NS_PER_S / (double) f->time_ns;
		f->bps = (double) f->bytes * (double) NS_PER_S / (double) f->time_ns;
	}
	f->load_count = w->load_count;
	f->load_bytes = w->load_bytes;
	f->load_time_ns = w->end_ns - w->start_ns;
	if (f->load_time_ns > 0)
	{
		f->load_iops = (double) f->load_count * (double) NS_PER_S / (double) f->load_time_ns;
		f->load_bps = (double) f->load_bytes * (double) NS_PER_S / (double) f->load_time_ns;
	}
}

void
io_stats_log2(const hist *h, uint64_t unit, hlog2 *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < HIST_BUCKETS; i++)
		if (h->counts[i] > 0)
			out->count[hlog2_bucket(hist_bucket_low(i) / unit)] += h->counts[i];
}
