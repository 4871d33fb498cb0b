/*
 * sink_metrics.c — --metrics and --listen (see sink_metrics.h): the
 * counters are summed at every sample (waitsmetrics.h), the health and
 * the server's names are taken once a second and at the end.
 */
#include "config.h"

#include "sink_metrics.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/metrics.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"

#include "listen.h"
#include "waitsmetrics.h"

typedef struct sink_metrics
{
	sink		base;
	wmetrics	m;
	listen_server *ls;			/* --listen, or NULL */
	uint64_t	t0_us;			/* wall clock sampling started */
	bool		write_ok;		/* the last --metrics file was written */
	char	   *last_error;		/* the last write error said, to say each only once */
} sink_metrics;

/* Take the health, the server's names and the settings into the sampler's view. */
static void
refresh(sink_metrics *x)
{
	sink_run   *run = x->base.run;
	wmetrics_view *v = &x->m.live;

	run->health(run->health_arg, &v->h);
	v->server = run->src.server;
	v->server_version = run->src.server_version;
	v->source = run->src.source;
	v->cost_budget = run->s->cost_budget;
	v->start_s = (double) x->t0_us / 1e6;
	v->started = true;
}

/* Write the --metrics file whole (a temporary file renamed); a failure is said once. */
static bool
write_file(sink_metrics *x)
{
	const char *path = x->base.run->s->metrics_path;
	strbuf		out;
	metrics		mx;
	char	   *cause = NULL;

	if (path == NULL)
		return true;
	strbuf_init(&out);
	metrics_init(&mx);
	x->write_ok = wmetrics_render(&x->m.live, &mx, false, &out, &cause) &&
		metrics_write_file(path, &out, &cause);
	metrics_free(&mx);
	strbuf_free(&out);
	if (!x->write_ok)
	{
		if (x->last_error == NULL || strcmp(x->last_error, cause) != 0)
			msg_warning("%s", cause);
		free(x->last_error);
		x->last_error = cause;
	}
	return x->write_ok;
}

/* Prove the file writable and take the port before connecting; start showing once sampling has. */
static bool
msink_open(sink *k, sink_open_stage stage, char **cause)
{
	sink_metrics *x = (sink_metrics *) k;
	const waits_settings *s = k->run->s;

	if (stage == SINK_CHECK)
	{
		if (s->metrics_path != NULL && !metrics_check_path(s->metrics_path, cause))
			return false;
		if (s->listen_port >= 0)
		{
			x->ls = listen_start(s->listen_host, s->listen_port, s->web_config_path,
								 wmetrics_render_published, &x->m, cause);
			if (x->ls == NULL)
				return false;
			msg_info("serving metrics on %s%s", listen_url(x->ls),
					 listen_authenticates(x->ls) ? " (basic authentication)" : "");
		}
	}
	else if (stage == SINK_STARTED)
	{
		x->t0_us = k->iv_start_us;
		refresh(x);
		wmetrics_publish(&x->m, false);
	}
	return true;
}

/* Every sample: its rows into the counters. */
static void
msink_batch(sink *k, const sample_batch *b)
{
	sink_metrics *x = (sink_metrics *) k;
	sink_run   *run = k->run;

	/* pg_wait_sampling's rows are its own samples, each standing for its period: no missed ticks */
	wmetrics_count(&x->m, run->src.server, b, run->graph, run->s->include_idle, run->src.period_s,
				   run->in_server ? 0 : *run->missed);
}

/* The server's figures of a span: into the counters (the file and the endpoint show them next). */
static void
msink_measured(sink *k, const format_measured_rec *recs, int n)
{
	wmetrics_measured(&((sink_metrics *) k)->m, recs, n);
}

/* --log-interval: the file is written again. */
static void
msink_interval(sink *k, const format_interval *iv, wprof *p)
{
	sink_metrics *x = (sink_metrics *) k;

	refresh(x);
	write_file(x);
}

/* Once a second: what the endpoint shows (if a scrape holds the lock, next second). */
static void
msink_second(sink *k, uint64_t now_ns, bool reopen)
{
	sink_metrics *x = (sink_metrics *) k;

	if (x->ls == NULL)
		return;
	refresh(x);
	wmetrics_publish(&x->m, false);
}

/*
 * At the end: the final counts are published (the endpoint serves them
 * until it stops) and written (unless the last --log-interval just did);
 * the endpoint stops when the run closes.
 */
static bool
msink_close(sink *k, sink_close_stage stage)
{
	sink_metrics *x = (sink_metrics *) k;

	switch (stage)
	{
		case SINK_END:
			refresh(x);
			if (x->ls != NULL)
				wmetrics_publish(&x->m, true);
			if (k->interval_ns == 0)
				write_file(x);
			return k->run->s->metrics_path == NULL || x->write_ok;
		case SINK_CLOSE:
		case SINK_ABORT:
			listen_stop(x->ls);
			x->ls = NULL;
			break;
		case SINK_STOP:
			break;
	}
	return true;
}

static void
msink_free(sink *k)
{
	sink_metrics *x = (sink_metrics *) k;

	listen_stop(x->ls);
	wmetrics_free(&x->m);
	free(x->last_error);
}

static const sink_ops msink_ops = {
	.open = msink_open,
	.batch = msink_batch,
	.interval = msink_interval,
	.measured = msink_measured,
	.second = msink_second,
	.close = msink_close,
	.free = msink_free,
};

/* --metrics, --listen: one sink for both, so the two show the same counters. */
void
sink_metrics_add(sink_list *l)
{
	const waits_settings *s = l->run.s;
	sink_metrics *x;

	if (s->metrics_path == NULL && s->listen_port < 0)
		return;
	x = (sink_metrics *) sink_new(l, &msink_ops, sizeof(sink_metrics));
	wmetrics_init(&x->m);
	/* the file is written at each --log-interval */
	if (s->metrics_path != NULL)
		x->base.interval_ns = (uint64_t) s->log_interval_ns;
}
