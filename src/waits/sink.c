/*
 * sink.c — the list of a run's outputs, driven the same way for all.
 */
#include "config.h"

#include "sink.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

/* An empty list; the sinks are added by sinkset_add_all (sinkset.h). */
void
sinks_init(sink_list *l, const waits_settings *s, strpool *pool, const wprof *prof)
{
	memset(l, 0, sizeof(*l));
	l->run.s = s;
	l->run.pool = pool;
	l->run.prof = prof;
}

/* A zeroed sink of size bytes, appended to the list. */
sink *
sink_new(sink_list *l, const sink_ops *ops, size_t size)
{
	sink	   *k = xcalloc(1, size);

	k->ops = ops;
	k->run = &l->run;
	wprof_init(&k->prof, l->run.s->include_idle);
	l->v = xrealloc(l->v, (size_t) (l->n + 1) * sizeof(sink *));
	l->v[l->n++] = k;
	return k;
}

/* Open every sink at this stage, in order; the first failure ends it. */
bool
sinks_open(sink_list *l, sink_open_stage stage, char **cause)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i]->ops->open != NULL && !l->v[i]->ops->open(l->v[i], stage, cause))
			return false;
	return true;
}

/* The first intervals begin with sampling. */
void
sinks_start(sink_list *l, uint64_t t0_ns, uint64_t t0_us, bool measured)
{
	l->run.t0_ns = t0_ns;
	for (int i = 0; i < l->n; i++)
	{
		sink	   *k = l->v[i];

		k->prof.has_measured = measured;
		k->iv_start_us = t0_us;
		k->next_iv_ns = t0_ns + k->interval_ns;
	}
}

/* Count the rows in every sink's profile; a tick also goes out raw. */
void
sinks_rows(sink_list *l, const sample_batch *b, const heads_graph *g, bool tick)
{
	for (int i = 0; i < l->n; i++)
	{
		sink	   *k = l->v[i];

		if (k->counts_rows)
		{
			for (int j = 0; j < b->nrows; j++)
				wprof_add(&k->prof, b, &b->rows[j]);
			wprof_add_heads(&k->prof, g);
		}
	}
	if (!tick)
		return;
	l->run.graph = g;
	for (int i = 0; i < l->n; i++)
	{
		sink	   *k = l->v[i];

		wprof_tick(&k->prof, b->ts_us);
		if (k->ops->batch != NULL)
			k->ops->batch(k, b);
	}
	l->run.graph = NULL;
}

/* Hand the interval that ends at end_us to the sink, and start the next. */
static void
end_interval(sink *k, uint64_t end_us)
{
	format_interval iv;

	iv.start_us = k->iv_start_us;
	iv.end_us = end_us;
	iv.ticks = k->prof.ticks;
	iv.total = k->prof.active;
	iv.period_s = k->run->src.period_s;
	iv.measured = k->prof.has_measured;
	k->ops->interval(k, &iv, &k->prof);
	wprof_reset(&k->prof);
	k->iv_start_us = end_us;
}

/* Once a second: the intervals that are due first, then each sink's own work. */
void
sinks_second(sink_list *l, uint64_t now_ns, uint64_t now_us, bool reopen)
{
	for (int i = 0; i < l->n; i++)
	{
		sink	   *k = l->v[i];

		if (k->interval_ns > 0 && now_ns >= k->next_iv_ns)
		{
			end_interval(k, now_us);
			while (k->next_iv_ns <= now_ns)
				k->next_iv_ns += k->interval_ns;
		}
	}
	for (int i = 0; i < l->n; i++)
		if (l->v[i]->ops->second != NULL)
			l->v[i]->ops->second(l->v[i], now_ns, reopen);
}

/* A gap in the sampling is over. */
void
sinks_gap(sink_list *l, const sample_gap *g)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i]->ops->gap != NULL)
			l->v[i]->ops->gap(l->v[i], g);
}

/* The server's figures of a span, beside the sampled ones. */
void
sinks_measured(sink_list *l, const format_measured_rec *recs, int n)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i]->ops->measured != NULL)
			l->v[i]->ops->measured(l->v[i], recs, n);
}

/* A line of the trace. */
void
sinks_trace(sink_list *l, const sink_trace_rec *r)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i]->ops->trace != NULL)
			l->v[i]->ops->trace(l->v[i], r);
}

/* Write out what is queued, before something slow. */
void
sinks_flush(sink_list *l)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i]->ops->flush != NULL)
			l->v[i]->ops->flush(l->v[i]);
}

/* The first sink that waits does (the live view, reading keys); else the caller sleeps. */
sink_wait_result
sinks_wait(sink_list *l, uint64_t until_ns)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i]->ops->wait != NULL)
			return l->v[i]->ops->wait(l->v[i], until_ns);
	return SINK_WAIT_NONE;
}

/* Close every sink at this stage; false if any failed. */
static bool
close_all(sink_list *l, sink_close_stage stage)
{
	bool		ok = true;

	for (int i = 0; i < l->n; i++)
		if (l->v[i]->ops->close != NULL && !l->v[i]->ops->close(l->v[i], stage))
			ok = false;
	return ok;
}

/* Sampling is over. */
void
sinks_stop(sink_list *l)
{
	close_all(l, SINK_STOP);
}

/*
 * The end of the run: every sink's last interval and final records
 * first, then each is closed or written.
 */
bool
sinks_finish(sink_list *l, uint64_t end_us)
{
	bool		ok = true;

	for (int i = 0; i < l->n; i++)
	{
		sink	   *k = l->v[i];

		if (k->interval_ns > 0)
			end_interval(k, end_us);
		if (k->ops->close != NULL && !k->ops->close(k, SINK_END))
			ok = false;
	}
	return close_all(l, SINK_CLOSE) && ok;
}

/* No run: close what was opened, write nothing more. */
void
sinks_abort(sink_list *l)
{
	close_all(l, SINK_ABORT);
}

/* Free the sinks. */
void
sinks_free(sink_list *l)
{
	for (int i = 0; i < l->n; i++)
	{
		if (l->v[i]->ops->free != NULL)
			l->v[i]->ops->free(l->v[i]);
		wprof_free(&l->v[i]->prof);
		free(l->v[i]);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
