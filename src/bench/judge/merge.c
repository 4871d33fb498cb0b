/*
 * merge.c — pgtempo-bench --merge: the checks that the runs are of the
 * same benchmark, their sums, and the merged report and files.
 *
 * Everything that adds up exactly is added (counts, latency sums and sums
 * of squares, histogram buckets, per-command sums); the window is the
 * span from the earliest start to the latest end, as one run's duration
 * runs from its first thread's start to its end.  The -P series is added
 * interval by interval (intervals matched by their number since the
 * start).  The per-interval series ("intervals") is added the same way,
 * histograms included, and gives the merged -P lines their percentiles;
 * reports written before it have them null, and the interval's max.
 */
#include "config.h"

#include "merge.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/benchchart.h"
#include "results/jsonreport.h"
#include "merge_int.h"
#include "pgtempo/exitcode.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"
#include "results/report.h"
#include "results/results.h"

/*
 * The settings that make runs the same benchmark (the first
 * N_BENCHMARK_SETTINGS: --compare too), and those that make them parts
 * of one run (--merge): any difference is an error.
 */
static const char *const same_settings[] = {
	"transaction_type", "scripts", "scale", "partition_method", "partitions", "query_mode",
	"max_tries", "connect_per_transaction",
	"transactions_per_client", "duration_s",
	"latency_limit_ms", "progress_s", "report_per_command", "failures_detailed",
	"continue_on_error",
};
#define N_BENCHMARK_SETTINGS 8

/* The merged run. */
typedef struct merged
{
	bench_settings s;			/* the first host's, with clients, threads and -R added */
	report_data d;
	report_window w;
	clock_sync	clock;			/* synchronized: all were; errors: the largest */
	double		start_epoch_s;
	double		end_epoch_s;
	report_progress_point *progress;
	int			nprogress;
	series		series;			/* the hosts' series added; interval_s 0: none */
	bench_chart_point *chart;
	int			nchart;
	bwaits_report waits;
	int			stop_signal;
	int64_t		log_lines_lost;
	int64_t		clients_abandoned;
	warmup_outcome warmup;		/* --warmup: the hosts' (ended, levelled: all did; seconds: the longest) */
} merged;

/* v as compact JSON, for a message (into sb). */
const char *
merge_show_json(strbuf *sb, const jsonread_value *v)
{
	json_writer w;

	strbuf_reset(sb);
	if (v == NULL)
	{
		strbuf_puts(sb, "absent");
		return sb->data;
	}
	json_init(&w, sb, false);
	jsonread_write(&w, v);
	return sb->data;
}

/* The first difference of what (a path) between a and b, as an error; false if any. */
static bool
same(const merge_host *a, const merge_host *b, const char *what, const jsonread_value *va,
	 const jsonread_value *vb)
{
	strbuf		sa,
				sb;

	if ((va == NULL && vb == NULL) || (va != NULL && vb != NULL && jsonread_equal(va, vb)))
		return true;
	strbuf_init(&sa);
	strbuf_init(&sb);
	msg_error("\"%s\" and \"%s\" are not runs of the same benchmark: %s differs", a->file,
			  b->file, what);
	msg_detail("It is %s in \"%s\" and %s in \"%s\".", merge_show_json(&sa, va), a->file,
			   merge_show_json(&sb, vb), b->file);
	strbuf_free(&sa);
	strbuf_free(&sb);
	return false;
}

static bool same_scripts(const merge_host *a, const merge_host *b, bool with_r);

/* results.scripts[i].commands of h (i < 0: results.scripts). */
static const jsonread_value *
script_commands(const merge_host *h, int i)
{
	const jsonread_value *scripts = jsonread_get(jsonread_get(h->root, "results"), "scripts");

	if (i < 0 || scripts == NULL || (uint32_t) i >= scripts->n)
		return scripts;
	return jsonread_get(&scripts->u.items[i], "commands");
}

/*
 * Whether b ran the same benchmark as a (the difference printed if not):
 * with whole_run, as parts of one run (--merge); otherwise the same
 * scripts, weights, commands, data and query mode only (--compare).
 */
bool
merge_same_benchmark(const merge_host *a, const merge_host *b, bool whole_run)
{
	const jsonread_value *sa = jsonread_get(a->root, "settings");
	const jsonread_value *sb = jsonread_get(b->root, "settings");
	size_t		nsettings = whole_run ? sizeof(same_settings) / sizeof(same_settings[0]) :
		N_BENCHMARK_SETTINGS;
	char		what[128];

	for (size_t i = 0; i < nsettings; i++)
	{
		snprintf(what, sizeof(what), "settings.%s", same_settings[i]);
		if (!same(a, b, what, jsonread_get(sa, same_settings[i]), jsonread_get(sb, same_settings[i])))
			return false;
	}
	if (!whole_run)
		return same_scripts(a, b, false);
	if ((a->rate > 0) != (b->rate > 0))
		return same(a, b, "settings.rate_tps", jsonread_get(sa, "rate_tps"),
					jsonread_get(sb, "rate_tps"));
	if (!same(a, b, "start_at", jsonread_get(a->root, "start_at_epoch_s"),
			  jsonread_get(b->root, "start_at_epoch_s")))
		return false;
	if (a->has_waits != b->has_waits)
		return same(a, b, "waits", jsonread_get(a->root, "waits"), jsonread_get(b->root, "waits"));
	if (a->warmup.mode != b->warmup.mode || a->warmup.requested_s != b->warmup.requested_s)
		return same(a, b, "warmup.requested", jsonread_get(jsonread_get(a->root, "warmup"), "requested"),
					jsonread_get(jsonread_get(b->root, "warmup"), "requested")) &&
			same(a, b, "warmup.maximum_s", jsonread_get(jsonread_get(a->root, "warmup"), "maximum_s"),
				 jsonread_get(jsonread_get(b->root, "warmup"), "maximum_s"));
	return same_scripts(a, b, true);
}

/*
 * The scripts' commands (-r) of a and b: the same number, the same text
 * (without with_r, a run without -r lists none and is not compared).
 */
static bool
same_scripts(const merge_host *a, const merge_host *b, bool with_r)
{
	char		what[128];

	if (a->nscripts != b->nscripts)
		return same(a, b, "results.scripts", script_commands(a, -1), script_commands(b, -1));
	for (int i = 0; i < a->nscripts; i++)
	{
		const jsonread_value *ca = script_commands(a, i);
		const jsonread_value *cb = script_commands(b, i);

		if (!with_r && (a->scripts[i].ncommands == 0 || b->scripts[i].ncommands == 0))
			continue;
		if (a->scripts[i].ncommands != b->scripts[i].ncommands)
		{
			snprintf(what, sizeof(what), "results.scripts[%d].commands", i);
			return same(a, b, what, ca, cb);
		}
		for (int c = 0; c < a->scripts[i].ncommands; c++)
		{
			snprintf(what, sizeof(what), "results.scripts[%d].commands[%d].command", i, c);
			if (!same(a, b, what, jsonread_get(&ca->u.items[c], "command"),
					  jsonread_get(&cb->u.items[c], "command")))
				return false;
		}
	}
	return true;
}

/* Add host h's counts into m (m->d allocated for h's scripts and commands). */
static void
add_counts(merged *m, const merge_host *h)
{
	stats_merge(&m->d.total, &h->total);
	hist_merge(m->d.lat_hist, h->h);
	for (int i = 0; i < h->nscripts; i++)
	{
		const merge_script *ms = &h->scripts[i];

		stats_merge(&m->d.scripts[i], &ms->st);
		if (m->d.script_hists != NULL)
			hist_merge(&m->d.script_hists[i], ms->h);
		for (int c = 0; c < ms->ncommands; c++)
		{
			stats_command *dc = &m->d.commands[i][c];

			dc->count += ms->commands[c].count;
			dc->sum += ms->commands[c].sum;
			dc->failures += ms->commands[c].failures;
			dc->retries += ms->commands[c].retries;
		}
	}
	if (h->conn_elapsed_ms > m->d.conn_elapsed_ms)
		m->d.conn_elapsed_ms = h->conn_elapsed_ms;
	m->d.conn_total_ms += h->conn_total_ms;
}

/* The window, the clocks, how the runs ended. */
static void
add_window(merged *m, const merge_host *h, bool first)
{
	if (first || h->start_epoch_s < m->start_epoch_s)
		m->start_epoch_s = h->start_epoch_s;
	if (first || h->end_epoch_s > m->end_epoch_s)
		m->end_epoch_s = h->end_epoch_s;
	if (first)
		m->clock.synchronized = true;
	m->clock.known = m->clock.known || h->clock.known;
	m->clock.synchronized = m->clock.synchronized && h->clock.known && h->clock.synchronized;
	m->w.nknown += h->clock.known;
	m->w.nsynced += h->clock.known && h->clock.synchronized;
	if (h->clock.est_error_s > m->clock.est_error_s)
		m->clock.est_error_s = h->clock.est_error_s;
	if (h->clock.max_error_s > m->clock.max_error_s)
		m->clock.max_error_s = h->clock.max_error_s;
	if (m->stop_signal == 0 && h->interrupted_by != NULL)
		m->stop_signal = strcmp(h->interrupted_by, "SIGINT") == 0 ? SIGINT : SIGTERM;
	m->log_lines_lost += h->log_lines_lost;
	m->clients_abandoned += h->clients_abandoned;
	m->s.nclients += h->nclients;
	m->s.nthreads += h->nthreads;
	m->s.rate += h->rate;
}

/* --warmup: the merged run's, from host h's. */
static void
add_warmup(warmup_outcome *dst, const warmup_outcome *h, bool first)
{
	if (first)
	{
		*dst = *h;
		return;
	}
	dst->ended = dst->ended && h->ended;
	dst->levelled = dst->levelled && h->levelled;
	if (h->actual_s > dst->actual_s)
		dst->actual_s = h->actual_s;
	if (h->measure_start_epoch_s < dst->measure_start_epoch_s)
		dst->measure_start_epoch_s = h->measure_start_epoch_s;
}

/* --waits: the events added up by (type, event), largest first. */
static void
add_waits(bwaits_report *dst, const bwaits_report *src)
{
	dst->interval_ns = src->interval_ns;
	dst->ticks += src->ticks;
	dst->sessions += src->sessions;
	dst->counted += src->counted;
	for (int i = 0; i < src->nev; i++)
	{
		const bwaits_event *e = &src->ev[i];
		int			k;

		for (k = 0; k < dst->nev; k++)
			if (strcmp(dst->ev[k].type, e->type) == 0 &&
				(dst->ev[k].event == NULL ? e->event == NULL :
				 e->event != NULL && strcmp(dst->ev[k].event, e->event) == 0))
				break;
		if (k == dst->nev)
		{
			dst->ev = xrealloc(dst->ev, (size_t) (dst->nev + 1) * sizeof(bwaits_event));
			dst->ev[k].type = xstrdup(e->type);
			dst->ev[k].event = e->event != NULL ? xstrdup(e->event) : NULL;
			dst->ev[k].samples = 0;
			dst->nev++;
		}
		dst->ev[k].samples += e->samples;
	}
}

static int
cmp_waits(const void *a, const void *b)
{
	const bwaits_event *x = a,
			   *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : strcmp(x->type, y->type);
}

/*
 * The shares of the added-up events.  Each host's sampler had a backend of
 * its own: the merged report gives no one sampling cost.
 */
static void
finish_waits(bwaits_report *w)
{
	w->cost_us = -1;
	w->backends = -1;
	w->pids_each = false;
	qsort(w->ev, (size_t) w->nev, sizeof(bwaits_event), cmp_waits);
	for (int i = 0; i < w->nev; i++)
		w->ev[i].pct = w->counted > 0 ? 100.0 * (double) w->ev[i].samples / (double) w->counted : 0;
}

/* The -P series: each interval's numbers added over the hosts. */
static void
add_progress(merged *m, merge_host *hosts, int n)
{
	int64_t		maxk = 0;
	double	   *lat,
			   *sq,
			   *lag;

	for (int i = 0; i < n; i++)
		for (int p = 0; p < hosts[i].npoints; p++)
			if (hosts[i].points[p].k > maxk)
				maxk = hosts[i].points[p].k;
	if (maxk <= 0 || maxk > INT32_MAX / 2)
		return;
	m->progress = xcalloc((size_t) maxk + 1, sizeof(report_progress_point));
	lat = xcalloc((size_t) maxk + 1, sizeof(double));
	sq = xcalloc((size_t) maxk + 1, sizeof(double));
	lag = xcalloc((size_t) maxk + 1, sizeof(double));
	for (int i = 0; i < n; i++)
		for (int j = 0; j < hosts[i].npoints; j++)
		{
			const merge_point *p = &hosts[i].points[j];
			report_progress_point *q;
			double		t = (double) p->transactions;

			if (p->k < 0)
				continue;
			q = &m->progress[p->k];
			q->elapsed_s = fmax(q->elapsed_s, p->time_s);
			q->epoch_s = fmax(q->epoch_s, p->epoch_s);
			q->interval_s = fmax(q->interval_s, p->interval_s);
			q->transactions += p->transactions;
			q->tps += p->tps;
			lat[p->k] += t * p->latency_ms;
			sq[p->k] += t * (p->stddev_ms * p->stddev_ms + p->latency_ms * p->latency_ms);
			lag[p->k] += t * p->lag_ms;
			q->failed += p->failed;
			q->skipped += p->skipped;
			q->retried += p->retried;
			q->retries += p->retries;
			q->max_ms = isnan(p->max_ms) ? q->max_ms : fmax(q->max_ms, p->max_ms);
			/* sessions add up over the hosts */
			q->waits_mix.any = q->waits_mix.any || p->waits.any;
			for (int c = 0; c < BWAITS_NCLASSES; c++)
				q->waits_mix.aas[c] += p->waits.aas[c];
			q->has_percentiles = true;	/* here: the interval has a line */
		}
	for (int64_t k = 0; k <= maxk; k++)
	{
		report_progress_point *q = &m->progress[k];
		double		t = (double) q->transactions;

		if (!q->has_percentiles)
			continue;
		if (t > 0)
		{
			double		mean = lat[k] / t;
			double		variance = sq[k] / t - mean * mean;

			q->latency_ms = mean;
			q->stddev_ms = variance > 0 ? sqrt(variance) : 0;
			q->lag_ms = lag[k] / t;
		}
		/* the interval's percentiles are unknown (null in JSON), its max is known */
		for (int i = 0; i < BENCH_MAX_PERCENTILES; i++)
			q->percentiles_ms[i] = NAN;
		if (q->transactions == 0)
			q->max_ms = NAN;
		m->progress[m->nprogress++] = *q;
	}
	free(lat);
	free(sq);
	free(lag);
}

/* The number of row r of a series: its end since the start, in intervals. */
static int64_t
row_k(const series *sr, const series_row *r)
{
	return llround(r->time_s / sr->interval_s);
}

/* Add the cells of row src into row dst and their histograms into h[]. */
static void
add_row(merged *m, series_row *dst, const series_row *src, hist *h)
{
	dst->time_s = fmax(dst->time_s, src->time_s);
	dst->epoch_s = fmax(dst->epoch_s, src->epoch_s);
	dst->interval_s = fmax(dst->interval_s, src->interval_s);
	for (int c = 0; c < m->series.ncells; c++)
	{
		char	   *cause = NULL;

		dst->cells[c].transactions += src->cells[c].transactions;
		dst->cells[c].failed += src->cells[c].failed;
		dst->cells[c].latency_sum_ns += src->cells[c].latency_sum_ns;
		if (!series_hist_add(&h[c], src->cells[c].hist_text, &cause))
		{
			/* a damaged histogram leaves its interval's percentiles short, not the run */
			msg_warning("%s", cause);
			free(cause);
		}
	}
}

/* The merged -P line of interval k, if there is one: its percentiles from h. */
static void
set_progress_percentiles(merged *m, int *pi, int64_t k, const hist *h)
{
	const double *pcts;
	int			n = report_percentiles(&m->s, &pcts);

	while (*pi < m->nprogress && llround(m->progress[*pi].elapsed_s / m->s.progress) < k)
		(*pi)++;
	if (*pi >= m->nprogress || llround(m->progress[*pi].elapsed_s / m->s.progress) != k ||
		h->total == 0)
		return;
	for (int i = 0; i < n && i < BENCH_MAX_PERCENTILES; i++)
		m->progress[*pi].percentiles_ms[i] = (double) hist_percentile(h, pcts[i]) / 1e6;
}

/*
 * The per-interval series added over the hosts, rows matched by their
 * number since the start; with -P at the series' interval, the merged
 * -P lines get the percentiles of the added histograms.  Hosts with
 * series of different intervals (or none) give none.
 */
static void
add_series(merged *m, merge_host *hosts, int n)
{
	const series *first = &hosts[0].series;
	int		   *cur = xcalloc((size_t) n, sizeof(int));
	hist	   *h;
	int			pi = 0;

	for (int i = 0; i < n; i++)
		if (hosts[i].series.interval_s <= 0 || hosts[i].series.interval_s != first->interval_s ||
			hosts[i].series.ncells != first->ncells)
		{
			free(cur);
			return;
		}
	series_init(&m->series, first->interval_s, first->ncells);
	h = hist_new((size_t) first->ncells);
	for (;;)
	{
		int64_t		k = INT64_MAX;
		series_row *row;

		for (int i = 0; i < n; i++)
			if (cur[i] < hosts[i].series.nrows)
				k = k < row_k(first, &hosts[i].series.rows[cur[i]]) ? k :
					row_k(first, &hosts[i].series.rows[cur[i]]);
		if (k == INT64_MAX)
			break;
		row = series_add_row(&m->series, 0, 0, 0);
		for (int c = 0; c < first->ncells; c++)
			hist_init(&h[c]);
		for (int i = 0; i < n; i++)
			while (cur[i] < hosts[i].series.nrows &&
				   row_k(first, &hosts[i].series.rows[cur[i]]) == k)
				add_row(m, row, &hosts[i].series.rows[cur[i]++], h);
		for (int c = 0; c < first->ncells; c++)
			row->cells[c].hist_text = series_hist_text(&h[c]);
		if (m->s.progress == first->interval_s)
			set_progress_percentiles(m, &pi, k, &h[0]);
	}
	free(h);
	free(cur);
}

/* The index of percentile p in the report's list, or -1. */
static int
percentile_index(const bench_settings *s, double p)
{
	const double *pcts;
	int			n = report_percentiles(s, &pcts);

	for (int i = 0; i < n && i < BENCH_MAX_PERCENTILES; i++)
		if (pcts[i] == p)
			return i;
	return -1;
}

/* --chart: a point per merged interval (the percentiles when the series gave them). */
static void
make_chart(merged *m)
{
	int			i50 = percentile_index(&m->s, 50),
				i99 = percentile_index(&m->s, 99);

	m->chart = xcalloc((size_t) m->nprogress + 1, sizeof(bench_chart_point));
	for (int i = 0; i < m->nprogress; i++)
	{
		const report_progress_point *p = &m->progress[i];
		bench_chart_point *c = &m->chart[m->nchart++];

		c->elapsed_s = p->elapsed_s;
		c->tps = p->tps;
		c->p50_ms = i50 >= 0 ? p->percentiles_ms[i50] : NAN;
		c->p99_ms = i99 >= 0 ? p->percentiles_ms[i99] : NAN;
		c->max_ms = p->transactions > 0 && p->max_ms > 0 ? p->max_ms : NAN;
		c->lag_ms = m->s.rate > 0 && p->transactions > 0 ? p->lag_ms : NAN;
		c->failed = p->failed;
		c->skipped = p->skipped;
		c->waits = p->waits_mix;
	}
}

/* Allocate m->d for the scripts and commands of h (the first host). */
static void
alloc_data(merged *m, const merge_host *h)
{
	stats_init(&m->d.total);
	m->d.scripts = xcalloc((size_t) h->nscripts, sizeof(stats));
	m->d.commands = xcalloc((size_t) h->nscripts, sizeof(stats_command *));
	for (int i = 0; i < h->nscripts; i++)
		m->d.commands[i] = xcalloc((size_t) h->scripts[i].ncommands + 1, sizeof(stats_command));
	m->d.lat_hist = hist_new(1);
	if (h->nscripts > 1)
		m->d.script_hists = hist_new((size_t) h->nscripts);
}

/* Add up the hosts into m. */
static void
merge_hosts(merged *m, const bench_settings *opts, merge_host *hosts, int n)
{
	m->s = hosts[0].s;
	m->s.nclients = m->s.nthreads = 0;
	m->s.rate = 0;
	m->s.json_path = opts->json_path;
	m->s.chart_path = opts->chart_path;
	m->s.hist_path = opts->hist_path;
	m->s.outputs = opts->outputs;
	m->s.noutputs = opts->noutputs;
	if (opts->npercentiles > 0)
	{
		memcpy(m->s.percentiles, opts->percentiles, sizeof(opts->percentiles));
		m->s.npercentiles = opts->npercentiles;
	}
	alloc_data(m, &hosts[0]);
	for (int i = 0; i < n; i++)
	{
		add_counts(m, &hosts[i]);
		add_window(m, &hosts[i], i == 0);
		if (hosts[i].has_waits)
			add_waits(&m->waits, &hosts[i].waits);
		add_warmup(&m->warmup, &hosts[i].warmup, i == 0);
	}
	if (m->warmup.mode != WARMUP_NONE)
		m->d.warmup = &m->warmup;
	if (hosts[0].has_waits)
	{
		finish_waits(&m->waits);
		m->s.waits_ns = m->waits.interval_ns > 0 ? m->waits.interval_ns : 1;
		m->d.waits = &m->waits;
	}
	m->d.bench_duration_s = n == 1 ? hosts[0].duration_s : m->end_epoch_s - m->start_epoch_s;
	add_progress(m, hosts, n);
	add_series(m, hosts, n);
	if (opts->chart_path != NULL)
		make_chart(m);
}

/* The time every run was running: the latest start to the earliest end. */
static double
common_window(const merge_host *hosts, int n)
{
	double		start = hosts[0].start_epoch_s,
				end = hosts[0].end_epoch_s;

	for (int i = 1; i < n; i++)
	{
		start = fmax(start, hosts[i].start_epoch_s);
		end = fmin(end, hosts[i].end_epoch_s);
	}
	return end - start;
}

/* Warnings on what makes the merged numbers less than one run's: printed after the report. */
static void
warn_hosts(const merged *m, const merge_host *hosts, int n)
{
	double		common = common_window(hosts, n);
	double		span = m->end_epoch_s - m->start_epoch_s;

	if (n > 1 && span > 0 && common < 0.99 * span)
		msg_warning("the runs were all running for %.3f s of the %.3f s from the first start to the last end: tps is over the %.3f s",
					common > 0 ? common : 0.0, span, span);
	if (m->w.nsynced < n)
		msg_warning("%d of %d hosts did not report a synchronized clock: their start and end times may be off",
					n - m->w.nsynced, n);
	for (int i = 0; i < n; i++)
		if (hosts[i].exit_status != 0)
			msg_warning("the run on %s (\"%s\") ended with exit status %d%s%s", hosts[i].host,
						hosts[i].file, hosts[i].exit_status,
						hosts[i].interrupted_by != NULL ? ", interrupted by " : "",
						hosts[i].interrupted_by != NULL ? hosts[i].interrupted_by : "");
}

/* The report: a banner, pgbench's lines with the window and the clocks, then the warnings. */
static void
print_merged(const merged *m, const merge_host *hosts, int n)
{
	FILE	   *out = report_stream(&m->s);
	report_data d = m->d;
	report_window w = m->w;

	w.nhosts = n;
	jsonreport_iso8601(w.start, sizeof(w.start), m->start_epoch_s);
	jsonreport_iso8601(w.end, sizeof(w.end), m->end_epoch_s);
	w.est_error_ms = m->clock.est_error_s * 1e3;
	w.max_error_ms = m->clock.max_error_s * 1e3;
	d.window = &w;
	fprintf(out, "%s --merge (pgtempo %s, server %s): %d run%s\n", msg_progname(), PACKAGE_VERSION,
			hosts[0].server_version != NULL ? hosts[0].server_version : "unknown", n, n == 1 ? "" : "s");
	report_print(out, &m->s, &hosts[0].server, &d);
	fflush(out);
	warn_hosts(m, hosts, n);
}

/* What --merge's outputs are written from (output.h's data in OUTPUT_MERGE). */
typedef struct merge_out
{
	const merged *m;
	const merge_host *hosts;
	int			n;
	const jsonreport_merge *jm;
} merge_out;

bool
merge_write_hist(const output_ctx *c, const char *path, char **cause)
{
	const merge_out *o = c->data;

	return report_histogram_write(path, o->m->d.lat_hist, cause);
}

bool
merge_write_json(const output_ctx *c, const char *path, char **cause)
{
	const merge_out *o = c->data;
	const merged *m = o->m;
	const merge_host *hosts = o->hosts;
	jsonreport_run run = {
		.server = &hosts[0].server,
		.server_version = hosts[0].server_version,
		.server_version_num = hosts[0].server_version_num,
		.start_epoch_s = m->start_epoch_s,
		.end_epoch_s = m->end_epoch_s,
		.bench_start_epoch_s = m->start_epoch_s,
		.clock = &m->clock,
		.merge = o->jm,
		.exit_status = c->status,
		.stop_signal = m->stop_signal,
		.log_lines_lost = m->log_lines_lost,
		.clients_abandoned = (int) m->clients_abandoned,
		.data = &m->d,
		.waits = m->d.waits,
		.progress = m->progress,
		.nprogress = m->nprogress,
		.warmup = m->d.warmup,
		.series = &m->series,
	};

	return jsonreport_write(path, &m->s, &run, cause);
}

bool
merge_write_chart(const output_ctx *c, const char *path, char **cause)
{
	const merge_out *o = c->data;
	char	   *subtitle = xasprintf("%s --merge of %d runs", msg_progname(), o->n);
	bool		ok;

	(void) path;				/* bench_chart_write writes s->chart_path */
	ok = bench_chart_write(&o->m->s, subtitle, o->m->chart, o->m->nchart, cause);
	free(subtitle);
	return ok;
}

/* Whether h is one of the n runs before it (a report given twice, or copied): printed. */
static bool
twice(const merge_host *hosts, int n, const merge_host *h)
{
	for (int i = 0; i < n; i++)
		if (strcmp(hosts[i].host, h->host) == 0 && hosts[i].start_epoch_s == h->start_epoch_s &&
			hosts[i].end_epoch_s == h->end_epoch_s)
		{
			msg_error("\"%s\" and \"%s\" are the same run (host %s): it would be counted twice",
					  hosts[i].file, h->file, h->host);
			return true;
		}
	return false;
}

/*
 * One host's report and, with_series, its series of intervals (only the
 * merged --json and --chart use it: a merge of 64 hours' reports reads
 * some 250 MB of it); false with *cause set.
 */
static bool
read_host(const char *file, merge_host *h, bool with_series, char **cause)
{
	if (!mergeread_host(file, h, cause))
		return false;
	if (!with_series || mergeread_series(h, cause))
		return true;
	mergeread_free(h);
	return false;
}

/*
 * Read the files, each compared with the first as it is read (*different
 * set, the difference printed); false if one cannot be read (unless
 * allow_partial: then it is left out).
 */
static bool
read_hosts(char **files, int nfiles, const bench_settings *opts, bool allow_partial,
		   merge_host *hosts, int *nhosts, const char **missing, int *nmissing, bool *different)
{
	bool		ok = true;

	*nhosts = *nmissing = 0;
	for (int i = 0; i < nfiles; i++)
	{
		char	   *cause = NULL;

		if (read_host(files[i], &hosts[*nhosts], opts->json_path != NULL || opts->chart_path != NULL,
					  &cause))
		{
			merge_host *h = &hosts[(*nhosts)++];

			if (h != hosts && !merge_same_benchmark(hosts, h, true))
				*different = true;
			if (twice(hosts, *nhosts - 1, h))
				*different = true;
			if (h != hosts)
				mergeread_drop_doc(h);
			continue;
		}
		if (allow_partial)
		{
			msg_warning("%s", cause);
			msg_detail("--allow-partial: the merge leaves this run out.");
			missing[(*nmissing)++] = files[i];
		}
		else
		{
			msg_error("%s", cause);
			ok = false;
		}
		free(cause);
	}
	if (!ok)
		msg_hint("A report that cannot be read is not merged silently; --allow-partial merges the others.");
	return ok;
}

/* Free what m holds (the scripts are the first host's). */
static void
merged_free(merged *m, int nscripts)
{
	report_data_free(&m->d, nscripts);
	free(m->progress);
	series_free(&m->series);
	free(m->chart);
	for (int i = 0; i < m->waits.nev; i++)
	{
		free(m->waits.ev[i].type);
		free(m->waits.ev[i].event);
	}
	free(m->waits.ev);
}

int
merge_run(const bench_settings *opts, bool allow_partial, char **files, int nfiles)
{
	merge_host *hosts = xcalloc((size_t) nfiles, sizeof(merge_host));
	const char **missing = xcalloc((size_t) nfiles, sizeof(char *));
	const char **names = xcalloc((size_t) nfiles, sizeof(char *));
	const char **paths = xcalloc((size_t) nfiles, sizeof(char *));
	int			nhosts,
				nmissing,
				status = EXITCODE_OK;
	bool		different = false;
	merged		m;

	memset(&m, 0, sizeof(m));
	if (!read_hosts(files, nfiles, opts, allow_partial, hosts, &nhosts, missing, &nmissing,
					&different) ||
		different)
		status = EXITCODE_ERROR;
	else if (nhosts == 0)
	{
		msg_error("none of the %d report(s) could be merged", nfiles);
		status = EXITCODE_ERROR;
	}
	if (status == EXITCODE_OK && opts->chart_path != NULL && hosts[0].progress_s <= 0)
	{
		msg_error("--chart needs the runs' progress series: run them with -P and --json");
		status = EXITCODE_ERROR;
	}
	if (status == EXITCODE_OK)
	{
		jsonreport_merge jm = {names, paths, nhosts, missing, nmissing};

		for (int i = 0; i < nhosts; i++)
		{
			names[i] = hosts[i].host;
			paths[i] = hosts[i].file;
		}
		merge_hosts(&m, opts, hosts, nhosts);
		print_merged(&m, hosts, nhosts);
		for (int i = 0; i < nmissing; i++)
			msg_warning("the merge is partial: \"%s\" was left out", missing[i]);
		{
			merge_out	o = {&m, hosts, nhosts, &jm};

			output_write_all(&m.s, OUTPUT_MERGE, &o, &status);
		}
		merged_free(&m, hosts[0].nscripts);
	}
	for (int i = 0; i < nhosts; i++)
		mergeread_free(&hosts[i]);
	free(hosts);
	free(missing);
	free(names);
	free(paths);
	return status;
}
