/*
 * waitsmetrics.h — pgtempo-waits' metrics for Prometheus: counters of
 * samples and of estimated active seconds per wait event, the sampler's
 * health and cost, rendered in Prometheus' text format or OpenMetrics
 * (by the core writer, pgtempo/metrics.h).
 *
 * The counters only grow for the life of the process: they are summed as
 * samples come, never recomputed from a period that the cost budget may
 * change later.  A sample stands for the time since the sample before it
 * (its interval, and the ticks it missed), so that rate() of the active
 * seconds is the average active sessions.
 *
 * Two copies: the sampler's own (updated at every sample, no lock), and a
 * published one that the --listen endpoint renders from on its own
 * thread.  The sampler only ever tries the lock (wmetrics_publish): a
 * scrape being rendered makes it publish a second later, never wait.
 */
#ifndef PGTEMPO_WAITS_WAITSMETRICS_H
#define PGTEMPO_WAITS_WAITSMETRICS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/hash.h"
#include "pgtempo/metrics.h"
#include "pgtempo/strbuf.h"

#include "format.h"
#include "heads.h"
#include "listen.h"
#include "sample.h"

/* One series of the per-event counters: the strings are interned (never freed while running). */
typedef struct wmetrics_series
{
	const char *server;
	const char *type;
	const char *event;
	const char *backend_type;
	uint64_t	samples;		/* backend samples seen in the event */
	double		active_s;		/* the backend time they stand for; of a head
								 * blockers' series (type wmetrics_head_key):
								 * the blocked backend time its heads caused */
} wmetrics_series;

/* The type and event of the series of head blockers (by server and the heads' backend type). */
extern const char wmetrics_head_key[];

/* The most figures measured by the server (measured.h) a view holds. */
#define WMETRICS_NFIGS 8

/*
 * A figure the server measured itself beside the sampled estimate of the
 * same thing (measured.h), summed over the spans between reads of its
 * counters; the strings are static.
 */
typedef struct wmetrics_fig
{
	const char *figure;
	const char *measured_by;
	const char *sampled_by;
	bool		measured;		/* some span had a measured figure */
	double		measured_s;
	bool		has_count;
	double		measured_count;
	double		sampled_s;
	double		bound_s;		/* the last span's bound of the sampled figure */
	int			disagree;		/* the last span's: 1 outside the bound, 0 within, -1 not compared */
} wmetrics_fig;

/* Everything one rendering shows. */
typedef struct wmetrics_view
{
	wmetrics_series *v;
	int			n;
	int			cap;
	bool		started;		/* sampling has started: there is something to show */
	sample_health h;
	const char *server;			/* the sampled server now (host:port), its version, the source */
	const char *server_version;
	const char *source;
	double		cost_budget;	/* share of one CPU; 0: none */
	double		start_s;		/* wall clock sampling started, seconds since the epoch */
	wmetrics_fig figs[WMETRICS_NFIGS];	/* the server's figures, once its counters were read twice */
	int			nfigs;
} wmetrics_view;

typedef struct wmetrics
{
	wmetrics_view live;			/* the sampler's: no lock */
	hash_table	index;			/* series key -> index in live.v */
	uint64_t	missed;			/* the ticker's missed ticks at the last sample */
	heads_prof	heads;			/* one sample's head blockers (scratch) */
	pthread_mutex_t lock;		/* guards pub, scratch and last_len */
	wmetrics_view pub;			/* what the endpoint renders */
	metrics		scratch;		/* the endpoint's writer, reused from scrape to scrape */
	size_t		last_len;		/* room the last scrape took */
} wmetrics;

void		wmetrics_init(wmetrics *m);
void		wmetrics_free(wmetrics *m);

/*
 * Count the rows of one sample: each counted row adds its samples, and
 * period_s times them (and times the ticks missed since the last sample,
 * missed being the total so far) to its series.  The head blockers come
 * from g, the sample's lock graph built once for every output (NULL:
 * built here).
 */
void		wmetrics_count(wmetrics *m, const char *server, const sample_batch *b,
						   const heads_graph *g, bool include_idle, double period_s,
						   uint64_t missed);

/* Add the figures of a span between two reads of the server's counters (n of them). */
void		wmetrics_measured(wmetrics *m, const format_measured_rec *recs, int n);

/*
 * Publish the sampler's copy to the endpoint if the lock is free now; wait
 * for it only when block (the end of the run).  False: not published.
 */
bool		wmetrics_publish(wmetrics *m, bool block);

/*
 * Render a view (Prometheus text, or OpenMetrics ending in "# EOF")
 * through the writer mx (reset first); false with *cause on a misuse of
 * the writer (a bug).
 */
bool		wmetrics_render(const wmetrics_view *v, metrics *mx, bool openmetrics, strbuf *out,
							char **cause);

/* The published view rendered, under the lock (a listen_render_fn). */
listen_result wmetrics_render_published(void *m, bool openmetrics, strbuf *out);

#endif
