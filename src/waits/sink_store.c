/*
 * sink_store.c — the --store sink: raw rows or interval aggregates
 * handed to the store's thread (store.h), its counts kept for the log
 * and the report.
 */
#include "config.h"

#include "sink_store.h"

#include "store.h"

typedef struct sink_store
{
	sink		base;
	store		st;
	store		heads;			/* interval mode: the head blockers, a table of their own */
	store		meas;			/* the server's figures, a table of their own */
} sink_store;

/*
 * Connect to the store database once the sampled server (the default
 * label) is known; another connection stores the server's figures and, in
 * interval mode, another the head blockers, so that each batch stays one
 * COPY into one table.
 */
static bool
store_sink_open(sink *k, sink_open_stage stage, char **cause)
{
	sink_store *s = (sink_store *) k;
	const char *label = k->run->src.server;

	if (stage != SINK_CONNECTED)
		return true;
	if (!store_open(&s->st, k->run->s, label, STORE_OF_ROWS, cause))
		return false;
	if (k->interval_ns > 0 && !store_open(&s->heads, k->run->s, label, STORE_OF_HEADS, cause))
	{
		store_close(&s->st);
		return false;
	}
	if (store_open(&s->meas, k->run->s, label, STORE_OF_MEASURED, cause))
		return true;
	store_close(&s->st);
	store_close(&s->heads);
	return false;
}

static void
store_sink_batch(sink *k, const sample_batch *b)
{
	store_add_batch(&((sink_store *) k)->st, b);
}

static void
store_sink_interval(sink *k, const format_interval *iv, wprof *p)
{
	store_add_interval(&((sink_store *) k)->st, iv, p);
	store_add_heads(&((sink_store *) k)->heads, iv, p);
}

static void
store_sink_measured(sink *k, const format_measured_rec *recs, int n)
{
	store_add_measured(&((sink_store *) k)->meas, recs, n);
}

/* Once a second the thread sends what is queued. */
static void
store_sink_second(sink *k, uint64_t now_ns, bool reopen)
{
	store_kick(&((sink_store *) k)->st);
	store_kick(&((sink_store *) k)->heads);
	store_kick(&((sink_store *) k)->meas);
}

/* Send the last rows (at most STORE_FINAL_TIMEOUT_NS) and keep what became of them. */
static bool
store_sink_close(sink *k, sink_close_stage stage)
{
	store	   *st = &((sink_store *) k)->st;
	store	   *hs = &((sink_store *) k)->heads;
	store	   *ms = &((sink_store *) k)->meas;
	bool		ok;

	if (stage != SINK_CLOSE && stage != SINK_ABORT)
		return true;
	ok = store_close(st);
	ok = store_close(hs) && ok;
	ok = store_close(ms) && ok;
	/*
	 * The rows of the sampled tables (a store never opened counts none);
	 * the server's figures, a few rows a span, fail the run if lost.
	 */
	k->run->stored.stored = st->rows_stored + hs->rows_stored;
	k->run->stored.rejected = st->rows_rejected + hs->rows_rejected;
	k->run->stored.dropped = st->rows_dropped + hs->rows_dropped;
	k->run->stored.unsent = st->rows_lost + hs->rows_lost;
	return ok && ms->rows_rejected + ms->rows_dropped + ms->rows_lost == 0;
}

static const sink_ops store_ops = {
	.open = store_sink_open,
	.batch = store_sink_batch,
	.interval = store_sink_interval,
	.measured = store_sink_measured,
	.second = store_sink_second,
	.close = store_sink_close,
};

/* --store: rows into a PostgreSQL table, from a thread of its own. */
void
sink_store_add(sink_list *l)
{
	sink_store *s;

	if (l->run.s->store == NULL)
		return;
	s = (sink_store *) sink_new(l, &store_ops, sizeof(sink_store));
	s->base.interval_ns = (uint64_t) l->run.s->store_interval_ns;
	s->base.counts_rows = s->base.interval_ns > 0;
}
