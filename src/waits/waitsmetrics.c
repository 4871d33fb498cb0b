/*
 * waitsmetrics.c — pgtempo-waits' metrics (see waitsmetrics.h).
 */
#include "config.h"

#include "waitsmetrics.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/metrics.h"
#include "pgtempo/xalloc.h"

#include "format.h"

/* An address of its own: a head blockers' series is told from an event's by it. */
const char	wmetrics_head_key[] = "head blockers";

/* The index's entry: a series key and where the series is in the view. */
typedef struct index_entry
{
	const char *key[4];			/* server, type, event, backend_type: interned */
	int			at;
} index_entry;

void
wmetrics_init(wmetrics *m)
{
	memset(m, 0, sizeof(*m));
	hash_table_init(&m->index, sizeof(index_entry), 64);
	pthread_mutex_init(&m->lock, NULL);
	metrics_init(&m->scratch);
	heads_init(&m->heads);
}

void
wmetrics_free(wmetrics *m)
{
	hash_table_free(&m->index);
	pthread_mutex_destroy(&m->lock);
	metrics_free(&m->scratch);
	heads_free(&m->heads);
	free(m->live.v);
	free(m->pub.v);
	memset(m, 0, sizeof(*m));
}

/* Interned strings compare by address. */
static bool
index_eq(const void *entry, const void *key)
{
	return memcmp(((const index_entry *) entry)->key, key, sizeof(((index_entry *) 0)->key)) == 0;
}

/* The series of these four interned names, added at zero if new. */
static wmetrics_series *
series_of(wmetrics *m, const char *const key[4])
{
	uint64_t	h = 0;
	bool		added;
	index_entry *e;
	wmetrics_view *v = &m->live;

	for (int i = 0; i < 4; i++)
		h = hash_mix(h, (uint64_t) (uintptr_t) key[i]);
	e = hash_table_insert(&m->index, h, key, index_eq, &added);
	if (added)
	{
		memcpy(e->key, key, sizeof(e->key));
		if (v->n == v->cap)
		{
			v->cap = v->cap ? v->cap * 2 : 32;
			v->v = xrealloc(v->v, (size_t) v->cap * sizeof(*v->v));
		}
		e->at = v->n++;
		memset(&v->v[e->at], 0, sizeof(v->v[0]));
		v->v[e->at].server = key[0];
		v->v[e->at].type = key[1];
		v->v[e->at].event = key[2];
		v->v[e->at].backend_type = key[3];
	}
	return &v->v[e->at];
}

/*
 * The blocked backend time of a sample's head blockers, by server and the
 * heads' backend type (a pid would be a series per session): nothing to
 * do unless a row waits on a lock with a blocker.
 */
static void
count_heads(wmetrics *m, const char *server, const sample_batch *b, const heads_graph *g,
			double stands)
{
	const heads_cell **v;
	int			n;

	if (b->nblockers == 0)
		return;
	heads_reset(&m->heads);
	if (g != NULL)
		heads_add_graph(&m->heads, g);
	else
		heads_add_batch(&m->heads, b);
	v = heads_sorted(&m->heads, &n);
	for (int i = 0; i < n; i++)
	{
		const char *key[4] = {server, wmetrics_head_key, wmetrics_head_key, v[i]->id.backend_type};

		series_of(m, key)->active_s += v[i]->samples * stands;
	}
	free(v);
}

/* Count a sample's rows as wprof_add counts them: not the hidden, not the idle unless asked. */
void
wmetrics_count(wmetrics *m, const char *server, const sample_batch *b, const heads_graph *g,
			   bool include_idle, double period_s, uint64_t missed)
{
	/* a sample after missed ticks stands for them too (the report scales its period the same way) */
	double		stands = period_s * (double) (1 + (missed > m->missed ? missed - m->missed : 0));

	m->missed = missed;
	for (int i = 0; i < b->nrows; i++)
	{
		const sample_row *r = &b->rows[i];
		const char *key[4];
		wmetrics_series *sr;

		if (r->cls == SAMPLE_HIDDEN || (r->cls == SAMPLE_IDLE && !include_idle))
			continue;
		key[0] = server;
		key[1] = r->wait_event_type;
		key[2] = r->wait_event;
		key[3] = r->backend_type;
		sr = series_of(m, key);
		sr->samples += r->samples;
		sr->active_s += (double) r->samples * stands;
	}
	count_heads(m, server, b, g, stands);
}

void
wmetrics_measured(wmetrics *m, const format_measured_rec *recs, int n)
{
	wmetrics_view *v = &m->live;

	for (int i = 0; i < n; i++)
	{
		const format_measured_rec *r = &recs[i];
		wmetrics_fig *f = NULL;

		for (int j = 0; j < v->nfigs && f == NULL; j++)
			if (strcmp(v->figs[j].figure, r->figure) == 0)
				f = &v->figs[j];
		if (f == NULL && v->nfigs == WMETRICS_NFIGS)
			continue;
		if (f == NULL)
		{
			f = &v->figs[v->nfigs++];
			memset(f, 0, sizeof(*f));
			f->figure = r->figure;
		}
		f->measured_by = r->measured_by;
		f->sampled_by = r->sampled_by;
		if (r->measured_seconds >= 0)
		{
			f->measured = true;
			f->measured_s += r->measured_seconds;
		}
		if (r->measured_count >= 0)
		{
			f->has_count = true;
			f->measured_count += (double) r->measured_count;
		}
		f->sampled_s += r->sampled_seconds;
		f->bound_s = r->sampled_error_seconds;
		f->disagree = r->verdict == NULL ? -1 : strcmp(r->verdict, "disagree") == 0;
	}
}

/* dst becomes a copy of src (dst's array is reused). */
static void
view_copy(wmetrics_view *dst, const wmetrics_view *src)
{
	wmetrics_series *keep = dst->v;
	int			cap = dst->cap;

	if (cap < src->n)
	{
		cap = src->cap;
		keep = xrealloc(keep, (size_t) cap * sizeof(*keep));
	}
	*dst = *src;
	dst->v = keep;
	dst->cap = cap;
	if (src->n > 0)
		memcpy(dst->v, src->v, (size_t) src->n * sizeof(*src->v));
}

/* Hand the sampler's copy over; a scrape holding the lock makes it wait for the next call. */
bool
wmetrics_publish(wmetrics *m, bool block)
{
	if (block)
		pthread_mutex_lock(&m->lock);
	else if (pthread_mutex_trylock(&m->lock) != 0)
		return false;
	view_copy(&m->pub, &m->live);
	pthread_mutex_unlock(&m->lock);
	return true;
}

/* The endpoint's thread: render what was published last. */
listen_result
wmetrics_render_published(void *arg, bool openmetrics, strbuf *out)
{
	wmetrics   *m = arg;
	listen_result res = LISTEN_NOT_READY;
	char	   *cause = NULL;

	pthread_mutex_lock(&m->lock);
	if (m->pub.started)
	{
		/* the last scrape's sizes: no buffer grows or faults in anew at every scrape */
		strbuf_reserve(out, m->last_len);
		res = wmetrics_render(&m->pub, &m->scratch, openmetrics, out, &cause) ?
			LISTEN_SERVED : LISTEN_FAILED;
		m->last_len = out->len + out->len / 8;
	}
	pthread_mutex_unlock(&m->lock);
	/* a misuse of the writer, which the tests catch: the scraper gets a 500 */
	free(cause);
	return res;
}

/* Per wait event: backend samples and the active seconds they stand for. */
static void
add_events(metrics *mx, const wmetrics_view *v)
{
	for (int i = 0; i < v->n; i++)
	{
		const wmetrics_series *sr = &v->v[i];
		const char *const labels[] = {
			"server", sr->server ? sr->server : "",
			"wait_event_type", sr->type ? sr->type : "",
			"wait_event", sr->event ? sr->event : "",
			"backend_type", sr->backend_type ? sr->backend_type : "",
			NULL
		};

		if (sr->type == wmetrics_head_key)
		{
			const char *const hl[] = {
				"server", labels[1], "backend_type", labels[7], NULL
			};

			metrics_counter(mx, "pgtempo_waits_head_blocked_seconds_total",
							"Blocked backend time (lock waits, directly and through chains) "
							"caused by head blockers of this backend type.", hl, sr->active_s);
			continue;
		}
		metrics_counter(mx, "pgtempo_waits_backend_samples_total",
						"Backend samples seen in the wait event (CPU: active, not waiting).",
						labels, (double) sr->samples);
		metrics_counter(mx, "pgtempo_waits_active_seconds_total",
						"Estimated backend time in the wait event: its rate is the average "
						"active sessions.", labels, sr->active_s);
	}
}

/* The figures the server measured itself, each beside the sampled estimate of the same thing. */
static void
add_figures(metrics *mx, const wmetrics_view *v)
{
	for (int i = 0; i < v->nfigs; i++)
	{
		const wmetrics_fig *f = &v->figs[i];
		const char *server = v->server ? v->server : "";
		const char *const measured[] = {
			"server", server, "figure", f->figure, "by", "measured", "source", f->measured_by, NULL
		};
		const char *const sampled[] = {
			"server", server, "figure", f->figure, "by", "sampled", "source", f->sampled_by, NULL
		};
		const char *const fig[] = {"server", server, "figure", f->figure, NULL};

		if (f->measured)
			metrics_counter(mx, "pgtempo_waits_figure_seconds_total",
							"Time in what the figure describes: measured by the server's own "
							"counters, or sampled (the estimate), summed over the spans between "
							"two reads of the counters.", measured, f->measured_s);
		metrics_counter(mx, "pgtempo_waits_figure_seconds_total",
						"Time in what the figure describes: measured by the server's own "
						"counters, or sampled (the estimate), summed over the spans between "
						"two reads of the counters.", sampled, f->sampled_s);
		if (f->measured && f->has_count)
			metrics_counter(mx, "pgtempo_waits_figure_operations_total",
							"Operations the server counted (measured) in what the figure "
							"describes.", measured, f->measured_count);
		metrics_gauge(mx, "pgtempo_waits_figure_sampled_error_seconds",
					  "The bound (95 %) of the sampled figure over the last span between two "
					  "reads of the server's counters.", sampled, f->bound_s);
		if (f->disagree >= 0)
			metrics_gauge(mx, "pgtempo_waits_figure_disagree",
						  "1 when the measured figure lay outside the sampled figure's bound "
						  "over the last span between two reads of the server's counters, 0 "
						  "when within.", fig, f->disagree);
	}
}

/*
 * The health fields (format.h's table) the metrics show, in this order: a
 * counter field is a counter, any other a gauge, as the table marks it.
 */
static const struct
{
	const char *field;
	const char *metric;
	const char *help;
	double		per;			/* the field's units in the metric's one */
	bool		latency;		/* only once a sample's latency is known */
}			health_metrics[] = {
	{"samples", "pgtempo_waits_samples_total", "Samples taken.", 1, false},
	{"failed_samples", "pgtempo_waits_failed_samples_total",
	"Samples whose statement failed.", 1, false},
	{"missed_ticks", "pgtempo_waits_missed_ticks_total",
	"Ticks of the schedule missed because a sample ran late.", 1, false},
	{"gap_ticks", "pgtempo_waits_gap_ticks_total",
	"Ticks of the schedule lost while the connection was down.", 1, false},
	{"gaps", "pgtempo_waits_gaps_total", "Connections lost.", 1, false},
	{"gap_seconds", "pgtempo_waits_gap_seconds_total",
	"Time without a connection to the server.", 1, false},
	{"hidden_rows", "pgtempo_waits_hidden_rows_total",
	"Rows the sampler may not see (insufficient privilege).", 1, false},
	{"interval_s", "pgtempo_waits_interval_seconds",
	"Time between samples now (the cost budget may lengthen it).", 1, false},
	{"latency_p50_ms", "pgtempo_waits_sample_latency_p50_seconds",
	"Median time a sample's statement takes.", 1e3, true},
	{"latency_p99_ms", "pgtempo_waits_sample_latency_p99_seconds",
	"99th percentile of the time a sample's statement takes.", 1e3, true},
	{"latency_max_ms", "pgtempo_waits_sample_latency_max_seconds",
	"Longest time a sample's statement took.", 1e3, true},
};

/* The sampler's health: what it took, missed and lost. */
static void
add_health(metrics *mx, const sample_health *h)
{
	for (size_t i = 0; i < sizeof(health_metrics) / sizeof(health_metrics[0]); i++)
	{
		const format_column *c = format_kind_column(&format_health_kind, health_metrics[i].field);
		double		v = format_column_number(c, h) / health_metrics[i].per;

		if (health_metrics[i].latency && !(h->max_ms > 0))
			continue;
		if (c->agg == FORMAT_AGG_COUNTER)
			metrics_counter(mx, health_metrics[i].metric, health_metrics[i].help, NULL, v);
		else
			metrics_gauge(mx, health_metrics[i].metric, health_metrics[i].help, NULL, v);
	}
}

/* What sampling costs: our CPU, the server backend's, the budget. */
static void
add_cost(metrics *mx, const wmetrics_view *v)
{
	const sample_health *h = &v->h;

	if (h->cpu_us_per_sample >= 0)
		metrics_counter(mx, "pgtempo_waits_cpu_seconds_total",
						"CPU time pgtempo-waits used while sampling.", NULL,
						h->cpu_us_per_sample * (double) h->samples / 1e6);
	if (h->cost_us_per_sample >= 0)
		metrics_gauge(mx, "pgtempo_waits_sample_cost_seconds",
					  "CPU time of the server backend per sample, measured by the cost "
					  "budget over its last window.", NULL, h->cost_us_per_sample / 1e6);
	metrics_gauge(mx, "pgtempo_waits_cost_budget_ratio",
				  "Share of one CPU the sampler's server backend may use (0: no budget).",
				  NULL, v->cost_budget);
	if (h->backends >= 0)
		metrics_gauge(mx, "pgtempo_waits_server_backends",
					  "Backends on the server, last counted.", NULL, (double) h->backends);
}

/* Render a view: the families in the order added here. */
bool
wmetrics_render(const wmetrics_view *v, metrics *mx, bool openmetrics, strbuf *out, char **cause)
{
	const char *const info[] = {
		"server", v->server ? v->server : "",
		"server_version", v->server_version ? v->server_version : "",
		"source", v->source ? v->source : "",
		"version", PACKAGE_VERSION,
		NULL
	};

	metrics_reset(mx);
	metrics_info(mx, "pgtempo_waits_info",
				 "The sampled server, its version, the source sampled, pgtempo's version.",
				 info);
	metrics_gauge(mx, "pgtempo_waits_start_time_seconds",
				  "When sampling started, in seconds since the epoch.", NULL, v->start_s);
	add_events(mx, v);
	add_figures(mx, v);
	add_health(mx, &v->h);
	add_cost(mx, v);
	return metrics_render(mx, openmetrics ? METRICS_OPENMETRICS : 0, out, cause);
}
