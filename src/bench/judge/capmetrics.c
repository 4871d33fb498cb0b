/*
 * capmetrics.c — --capacity --metrics: the search as a Prometheus textfile
 * (core/metrics.c's format and writer): the run's own metrics as a run
 * writes them, then the capacity, its bracket, the verdict and each step
 * (label step, the report table's row number).  The names are listed in
 * pgtempo-bench(1), section METRICS.
 */
#include "config.h"

#include "capacity_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pgtempo/metrics.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"
#include "results/benchmetrics.h"

/* The objectives: one info line each, with its target. */
static void
add_objectives(metrics *m, const capacity_settings *c)
{
	for (int i = 0; i < c->nobjectives; i++)
	{
		const char *labels[] = {"metric", c->objectives[i].name, NULL};

		metrics_gauge(m, "pgtempo_bench_capacity_objective_seconds",
					  "An objective of the search: the upper limit on the percentile (or average).",
					  labels, c->objectives[i].value);
	}
}

/* One step's rate, tps, percentiles with their interval, lag and verdict. */
static void
add_step(metrics *m, const capacity_settings *c, const cap_step *st, int k)
{
	char		no[16];
	const char *labels[] = {"step", no, NULL};
	static const char *const bounds[] = {"estimate", "low", "high"};

	snprintf(no, sizeof(no), "%d", k);
	metrics_gauge(m, "pgtempo_bench_capacity_step_offered_tps", "A step's offered rate (-R).",
				  labels, st->rate);
	metrics_gauge(m, "pgtempo_bench_capacity_step_achieved_tps",
				  "A step's achieved rate over its measured part.", labels, st->tps);
	metrics_gauge(m, "pgtempo_bench_capacity_step_transactions",
				  "Transactions in a step's measured part (its runs at that rate pooled).",
				  labels, (double) st->transactions);
	metrics_gauge(m, "pgtempo_bench_capacity_step_failed",
				  "Failed transactions in a step's measured part.", labels, (double) st->failed);
	for (int i = 0; i < c->nobjectives; i++)
	{
		double		v[] = {st->v[i].est, st->v[i].lo, st->v[i].hi};

		for (int b = 0; b < 3 && st->v[i].known; b++)
			metrics_gauge(m, "pgtempo_bench_capacity_step_latency_seconds",
						  "A step's value of an objective's percentile (or average), with the ends of its 95 % interval.",
						  (const char *[]) {"step", no, "metric", c->objectives[i].name,
						  "bound", bounds[b], NULL}, v[b]);
	}
	if (st->lag_known)
		metrics_gauge(m, "pgtempo_bench_capacity_step_lag_growth_ratio",
					  "How fast a step's schedule lag grew: seconds of lag per second (least squares).",
					  labels, st->lag_slope / 1e3);
	metrics_gauge(m, "pgtempo_bench_capacity_step_steady",
				  "1 if the step's lag did not grow (a steady state), else 0.", labels, st->steady);
	metrics_gauge(m, "pgtempo_bench_capacity_step_pass",
				  "1 if the step passed (objectives met, steady, nothing failed), else 0.",
				  labels, st->pass);
}

/* The search's own numbers: capacity, bracket, verdict, steps. */
static void
add_search(metrics *m, const cap_search *cs)
{
	cap_verdict v = cap_search_verdict(cs);
	double		kb,
				ka;

	metrics_gauge(m, "pgtempo_bench_capacity_ceiling_tps",
				  "The closed-loop probe's tps: the ceiling of the search.", NULL, cs->ceiling);
	if (cs->lo > 0)
		metrics_gauge(m, "pgtempo_bench_capacity_tps",
					  "The capacity: the highest offered rate that passed.", NULL, cs->lo);
	if (cs->nsteps > 1)
	{
		metrics_gauge(m, "pgtempo_bench_capacity_bracket_low_tps",
					  "The bracket's low end: the highest rate that passed (0: none did).", NULL, cs->lo);
		metrics_gauge(m, "pgtempo_bench_capacity_bracket_high_tps",
					  "The bracket's high end: the lowest rate above it that failed, or the probe's ceiling.",
					  NULL, cs->hi);
	}
	if (cap_find_knee(cs, &kb, &ka))
		metrics_gauge(m, "pgtempo_bench_capacity_knee_tps",
					  "The knee: the first rate at which the first objective's value more than doubled.",
					  NULL, ka);
	for (int k = 0; k < CAP_NVERDICTS; k++)
		metrics_gauge(m, "pgtempo_bench_capacity_verdict",
					  "The search's verdict, 1 for the one that holds: found, none_passed, below_limit (--fail-if tripped), no_step.",
					  (const char *[]) {"verdict", cap_verdict_names[k], NULL}, k == (int) v);
	metrics_gauge(m, "pgtempo_bench_capacity_steps", "Steps run after the probe.", NULL,
				  cs->nsteps > 0 ? cs->nsteps - 1 : 0);
	metrics_gauge(m, "pgtempo_bench_capacity_used_seconds", "How long the search took.", NULL,
				  cs->used_s);
}

bool
capacity_write_metrics(const output_ctx *oc, const char *path, char **cause)
{
	const cap_search *cs = oc->data;
	bench_results *res = xcalloc(1, sizeof(bench_results));
	metrics		m;
	strbuf		sb;
	bool		ok;

	/* the run's own metrics (version, exit status, clients...) as a run writes them */
	res->stop_signal = oc->status > 128 ? oc->status - 128 : 0;
	metrics_init(&m);
	strbuf_init(&sb);
	benchmetrics_build(&m, oc->s, res, oc->status);
	add_objectives(&m, cs->c);
	add_search(&m, cs);
	for (int k = 1; k < cs->nsteps; k++)
		add_step(&m, cs->c, &cs->steps[k], k);
	ok = metrics_render(&m, 0, &sb, cause) && metrics_write_file(path, &sb, cause);
	strbuf_free(&sb);
	metrics_free(&m);
	free(res);
	return ok;
}
