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
		hlog2_record(&st->log2, time_ns);
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
