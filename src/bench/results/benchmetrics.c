/*
 * benchmetrics.c — a run's results as Prometheus metrics: the counters of
 * the report per script (label script, the script's number; their sum is
 * the run's total), tps, and the latency histogram in seconds.
 */
#include "config.h"

#include "benchmetrics.h"

#include <math.h>
#include <stdio.h>

#include "pgtempo/hist.h"
#include "pgtempo/strbuf.h"
#include "lang/script.h"

#define NBUCKETS (BENCHMETRICS_MAX_EXP - BENCHMETRICS_MIN_EXP + 2)

static const char *const query_modes[] = {"simple", "extended", "prepared"};

/*
 * The latencies of h in octaves: a log-linear bucket [low, high] lies
 * wholly below 2^k where k is high's bit length, since each power of two
 * starts a bucket; the last count is the overflow (+Inf).
 */
static void
add_latency(metrics *m, const hist *h, const char *const *labels)
{
	double		le[NBUCKETS];
	uint64_t	counts[NBUCKETS] = {0};

	for (int k = BENCHMETRICS_MIN_EXP; k <= BENCHMETRICS_MAX_EXP; k++)
		le[k - BENCHMETRICS_MIN_EXP] = (double) ((UINT64_C(1) << k) - 1) / 1e9;
	le[NBUCKETS - 1] = INFINITY;
	for (int i = 0; h != NULL && i < HIST_BUCKETS; i++)
	{
		int			k;

		if (h->counts[i] == 0)
			continue;
		k = hlog2_bucket(hist_bucket_high(i));
		if (k < BENCHMETRICS_MIN_EXP)
			k = BENCHMETRICS_MIN_EXP;
		counts[k > BENCHMETRICS_MAX_EXP ? NBUCKETS - 1 : k - BENCHMETRICS_MIN_EXP] += h->counts[i];
	}
	metrics_histogram(m, "pgtempo_bench_latency_seconds",
					  "Latency of the successful transactions (from the scheduled start under -R).",
					  labels, le, counts, NBUCKETS, h != NULL ? h->sum / 1e9 : 0);
}

/* The counters of one script (or of the only one). */
static void
add_script(metrics *m, const bench_settings *s, const stats *st, const hist *h, double dur,
		   int i)
{
	char		no[16],
				weight[16];
	const char *labels[] = {"script", no, NULL};
	static const char *const kinds[] = {"serialization", "deadlock", "other"};
	int64_t		fails[] = {st->serialization_failures, st->deadlock_failures, st->other_failures};

	snprintf(no, sizeof(no), "%d", i);
	snprintf(weight, sizeof(weight), "%d", s->scripts[i]->weight);
	metrics_info(m, "pgtempo_bench_script_info", "A script of the run: its name and weight.",
				 (const char *[]) {"script", no, "name", s->scripts[i]->desc, "weight", weight, NULL});
	metrics_counter(m, "pgtempo_bench_transactions_total",
					"Transactions that ended successfully (the report's \"processed\").",
					labels, (double) st->cnt);
	for (int k = 0; k < 3; k++)
		metrics_counter(m, "pgtempo_bench_failures_total",
						"Transactions that failed, by the kind of error.",
						(const char *[]) {"script", no, "kind", kinds[k], NULL}, (double) fails[k]);
	metrics_counter(m, "pgtempo_bench_skipped_total",
					"Transactions skipped: too late at their scheduled start (-R with -L).",
					labels, (double) st->skipped);
	metrics_counter(m, "pgtempo_bench_late_total",
					"Successful transactions over the latency limit (-L).", labels, (double) st->late);
	metrics_counter(m, "pgtempo_bench_retries_total", "Retries of serialization and deadlock failures.",
					labels, (double) st->retries);
	metrics_counter(m, "pgtempo_bench_retried_total", "Transactions retried at least once.",
					labels, (double) st->retried);
	metrics_gauge(m, "pgtempo_bench_tps", "Successful transactions per second of the run.",
				  labels, dur > 0 ? (double) st->cnt / dur : 0);
	add_latency(m, h, labels);
}

void
benchmetrics_build(metrics *m, const bench_settings *s, const bench_results *res, int status)
{
	const report_data *d = &res->data;

	metrics_info(m, "pgtempo_bench_run_info", "The run: pgtempo's version, the query mode, what ran.",
				 (const char *[]) {"version", PACKAGE_VERSION, "query_mode", query_modes[s->mode],
				 "transaction_type", s->nscripts == 1 ? s->scripts[0]->desc : "multiple scripts",
				 NULL});
	metrics_gauge(m, "pgtempo_bench_exit_status",
				  "The program's exit status: 0 all well, 1 an error, 2 a client aborted, 128+N a signal.",
				  NULL, status);
	metrics_gauge(m, "pgtempo_bench_interrupted",
				  "1 if SIGINT or SIGTERM ended the run early, else 0.", NULL, res->stop_signal != 0);
	metrics_gauge(m, "pgtempo_bench_clients", "Clients (-c).", NULL, s->nclients);
	metrics_gauge(m, "pgtempo_bench_threads", "Threads (-j).", NULL, s->nthreads);
	if (!res->merged)
		return;
	metrics_gauge(m, "pgtempo_bench_duration_seconds",
				  "How long the measured run lasted (the warm-up left out).", NULL, d->bench_duration_s);
	for (int i = 0; i < s->nscripts; i++)
	{
		/* with one script, the runner keeps only the totals */
		const stats *st = s->nscripts > 1 ? &d->scripts[i] : &d->total;
		const hist *h = s->nscripts == 1 ? d->lat_hist :
			d->script_hists != NULL ? &d->script_hists[i] : NULL;

		add_script(m, s, st, h, d->bench_duration_s, i);
	}
}

bool
benchmetrics_write(const char *path, const bench_settings *s, const bench_results *res,
				   int status, char **cause)
{
	metrics		m;
	strbuf		sb;
	bool		ok;

	metrics_init(&m);
	strbuf_init(&sb);
	benchmetrics_build(&m, s, res, status);
	ok = metrics_render(&m, 0, &sb, cause) && metrics_write_file(path, &sb, cause);
	strbuf_free(&sb);
	metrics_free(&m);
	return ok;
}
