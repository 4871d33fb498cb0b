/*
 * sink_live.c — the --top sink: the live view, fed a profile of every
 * second and redrawn once a second or when a key changes what it shows.
 */
#include "config.h"

#include "sink_live.h"

#include "live.h"

typedef struct sink_live
{
	sink		base;
	wprof		last;			/* the last whole second */
} sink_live;

/* Redraw from the whole run and the last second. */
static void
draw(sink_live *v)
{
	sample_health h;

	v->base.run->health(v->base.run->health_arg, &h);
	live_draw(&v->base.run->src, v->base.run->prof, &v->last, &h);
}

/* Take over the terminal just before sampling; draw once it has started. */
static bool
live_sink_open(sink *k, sink_open_stage stage, char **cause)
{
	if (stage == SINK_BEGIN)
		return live_begin(k->run->s, cause);
	if (stage == SINK_STARTED)
	{
		((sink_live *) k)->last.has_measured = k->prof.has_measured;
		draw((sink_live *) k);
	}
	return true;
}

/* A second is over: it becomes the last (the old last is reset as the new current). */
static void
live_sink_interval(sink *k, const format_interval *iv, wprof *p)
{
	sink_live  *v = (sink_live *) k;
	wprof		tmp = v->last;

	v->last = *p;
	*p = tmp;
}

static void
live_sink_second(sink *k, uint64_t now_ns, bool reopen)
{
	draw((sink_live *) k);
}

/* Sleep reading keys: q quits, others redraw. */
static sink_wait_result
live_sink_wait(sink *k, uint64_t until_ns)
{
	switch (live_wait(until_ns))
	{
		case LIVE_QUIT:
			return SINK_WAIT_QUIT;
		case LIVE_REDRAW:
			draw((sink_live *) k);
			break;
		case LIVE_NONE:
			break;
	}
	return SINK_WAIT_DONE;
}

/* Give the terminal back before anything more is said. */
static bool
live_sink_close(sink *k, sink_close_stage stage)
{
	if (stage == SINK_STOP)
		live_end();
	return true;
}

static void
live_sink_free(sink *k)
{
	wprof_free(&((sink_live *) k)->last);
}

static const sink_ops live_ops = {
	.open = live_sink_open,
	.interval = live_sink_interval,
	.second = live_sink_second,
	.wait = live_sink_wait,
	.close = live_sink_close,
	.free = live_sink_free,
};

/* --top: the live view. */
void
sink_live_add(sink_list *l)
{
	sink_live  *v;

	if (!l->run.s->top)
		return;
	v = (sink_live *) sink_new(l, &live_ops, sizeof(sink_live));
	wprof_init(&v->last, l->run.s->include_idle);
	v->base.counts_rows = true;
	v->base.interval_ns = NS_PER_S;
}
