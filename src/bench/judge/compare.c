/*
 * compare.c — pgtempo-bench --compare: the runs read and checked, the
 * values and intervals of each metric, the verdicts and the --fail-if
 * limits.
 *
 * Several runs on a side: the run is the unit.  Each run gives one value
 * of each metric; the change is the ratio of the sides' geometric means
 * and its interval Welch's t interval on the logarithms (one run against
 * several: the several runs' spread stands for both).  One run per side:
 * compareboot.c.
 */
#include "config.h"

#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "pgtempo/exitcode.h"
#include "pgtempo/gate.h"
#include "pgtempo/msg.h"
#include "pgtempo/parse.h"
#include "pgtempo/xalloc.h"
#include "results/report.h"

/* Fields that differ between runs by design, not worth listing. */
static const char *const not_listed[] = {"random_seed", "log_prefix", "percentiles"};

/* A --fail-if name: tps, or a latency by gate_latency_name's rule. */
static bool
limit_name_ok(gate_limit *l, const char **why)
{
	*why = "a metric is tps, avg, or a percentile p50, p99, p99.9, ... (or latency:avg, latency:p99, ...)";
	if (strcmp(l->name, "tps") == 0)
		return true;
	return gate_latency_name(l) && strlen(l->name) < sizeof(((cmp_metric *) NULL)->name);
}

bool
compare_parse_limits(compare_settings *cs, const char *list)
{
	static const gate_spec spec = {
		"--fail-if", GATE_UNIT_PCT, "tps:-5%,p99:+10%",
		"the limit is a signed change in % (-5%) or a ratio after < or > (<0.95x)",
		limit_name_ok
	};

	return gate_parse_report(list, &spec, cs->limits, &cs->nlimits);
}

/* The metrics: tps, the average, and the percentiles of --percentiles or of the first run. */
static void
set_metrics(cmp *c)
{
	const double *pcts;
	int			n = report_percentiles(c->opts->npercentiles > 0 ? c->opts :
									   &c->side[0].runs[0].s, &pcts);

	c->metrics[0] = (cmp_metric) {CMP_TPS, 0, "tps", true};
	c->metrics[1] = (cmp_metric) {CMP_AVG, 0, "avg", false};
	c->nmetrics = 2;
	for (int i = 0; i < n && c->nmetrics < CMP_MAX_METRICS; i++)
	{
		cmp_metric *m = &c->metrics[c->nmetrics];

		if (pcts[i] <= 0 || pcts[i] >= 100)
			continue;
		m->kind = CMP_PCT;
		m->pct = pcts[i];
		m->higher_is_better = false;
		report_percentile_label(m->name, sizeof(m->name), pcts[i]);
		c->nmetrics++;
	}
}

/* The fewest transactions of a side's runs in scope beyond percentile pct. */
static double
fewest_beyond(const cmp_side *sd, int scope, double pct)
{
	double		fewest = INFINITY;

	for (int i = 0; i < sd->n; i++)
	{
		const merge_host *h = &sd->runs[i];
		double		cnt = (double) (scope == 0 ? h->total.cnt : h->scripts[scope - 1].st.cnt);

		fewest = fmin(fewest, cnt * (1 - pct / 100));
	}
	return fewest;
}

/* The values of result r from each run; for several runs, its interval too. */
static void
set_values(cmp *c, cmp_result *r)
{
	double	   *v[2];
	infer_interval iv;

	for (int s = 0; s < 2; s++)
	{
		double	   *logs = xcalloc((size_t) c->side[s].n, sizeof(double));
		double		mean,
					variance;

		v[s] = xcalloc((size_t) c->side[s].n, sizeof(double));
		for (int i = 0; i < c->side[s].n; i++)
		{
			v[s][i] = cmp_run_value(&c->side[s].runs[i], r->scope, r->m);
			logs[i] = log(v[s][i]);
		}
		/* the geometric mean */
		infer_mean_var(logs, c->side[s].n, &mean, &variance);
		*(s == 0 ? &r->base : &r->target) = exp(mean);
		free(logs);
	}
	r->change = r->target / r->base - 1;
	r->known = isfinite(r->change);
	if (!r->known)
		snprintf(r->why, sizeof(r->why), "no transactions on a side");
	else if (r->m->kind == CMP_PCT &&
			 fmin(fewest_beyond(&c->side[0], r->scope, r->m->pct),
				  fewest_beyond(&c->side[1], r->scope, r->m->pct)) < CMP_MIN_TAIL)
	{
		r->known = false;
		snprintf(r->why, sizeof(r->why), "too few transactions beyond %s (%d needed)", r->m->name,
				 CMP_MIN_TAIL);
	}
	if (c->by_runs && r->known)
	{
		r->known = infer_welch_log(v[0], c->side[0].n, v[1], c->side[1].n, c->level, &iv);
		r->lo = exp(iv.lo) - 1;
		r->hi = exp(iv.hi) - 1;
		if (!r->known)
			snprintf(r->why, sizeof(r->why), "a value that is not positive");
	}
	cmp_set_verdict(r);
	free(v[0]);
	free(v[1]);
}

/* Every result: values, then the intervals by runs or by the bootstrap. */
static void
compute(cmp *c)
{
	c->nscopes = c->side[0].runs[0].nscripts > 1 ? 1 + c->side[0].runs[0].nscripts : 1;
	/* every line's interval is judged at once (the limits reuse them): one family */
	c->family = c->nscopes * c->nmetrics;
	c->level = gate_level(GATE_LEVEL, c->family);
	c->results = xcalloc((size_t) (c->nscopes * c->nmetrics), sizeof(cmp_result));
	for (int k = 0; k < c->nscopes; k++)
	{
		for (int m = 0; m < c->nmetrics; m++)
		{
			cmp_result *r = &c->results[k * c->nmetrics + m];

			r->scope = k;
			r->m = &c->metrics[m];
			set_values(c, r);
		}
		if (!c->by_runs)
			cmpboot_scope(c, k);
	}
}

/* --fail-if: which limits the intervals pass; false if a limit names no metric compared. */
static bool
check_limits(cmp *c)
{
	for (int i = 0; i < c->cs->nlimits; i++)
	{
		const gate_limit *l = &c->cs->limits[i];
		const cmp_result *r = NULL;

		for (int m = 0; m < c->nmetrics; m++)
			if (strcmp(c->metrics[m].name, l->name) == 0)
				r = &c->results[m];
		if (r == NULL)
		{
			msg_error("--fail-if: \"%s\" is not one of the metrics compared", l->name);
			msg_hint("The percentiles compared are those of --percentiles, or of the base's first run.");
			return false;
		}
		c->checked[i] = r->known;
		c->tripped[i] = cmp_limit_trips(l, r);
		if (!r->known)
			msg_warning("--fail-if=%s: not checked: %s", l->text, r->why);
	}
	return true;
}

/* run's value of field as compact JSON (allocated). */
static char *
field_text(const jsonread_value *v)
{
	strbuf		sb;
	json_writer w;

	strbuf_init(&sb);
	if (v == NULL)
		strbuf_puts(&sb, "absent");
	else
	{
		json_init(&w, &sb, false);
		jsonread_write(&w, v);
	}
	return strbuf_detach(&sb);
}

/* The value of diff field key of run h (settings.X, or a top-level member). */
static const jsonread_value *
diff_value(const merge_host *h, const char *key)
{
	if (strncmp(key, "settings.", 9) == 0)
		return jsonread_get(jsonread_get(h->root, "settings"), key + 9);
	return jsonread_get(h->root, key);
}

/* Whether key is a setting worth listing when it differs. */
static bool
listed(const char *key)
{
	for (size_t i = 0; i < sizeof(not_listed) / sizeof(not_listed[0]); i++)
		if (strcmp(key, not_listed[i]) == 0)
			return false;
	return true;
}

/* The fields to look at: the base's first run's settings, its server and host. */
static void
diff_fields(cmp *c)
{
	const jsonread_value *st = jsonread_get(c->side[0].runs[0].root, "settings");
	int			nruns = c->cs->nbase + c->cs->ntarget;

	c->diffs = xcalloc((size_t) (st != NULL ? st->n : 0) + 3, sizeof(cmp_diff));
	c->diffs[c->ndiffs++].field = xstrdup("server_version");
	c->diffs[c->ndiffs++].field = xstrdup("host");
	for (uint32_t i = 0; st != NULL && st->type == JSONREAD_OBJECT && i < st->n; i++)
		if (listed(st->u.members[i].key))
			c->diffs[c->ndiffs++].field = xasprintf("settings.%s", st->u.members[i].key);
	for (int d = 0; d < c->ndiffs; d++)
		c->diffs[d].values = xcalloc((size_t) nruns, sizeof(char *));
}

/* Note run number k's values of the fields (before its document is dropped). */
static void
diff_note(cmp *c, const merge_host *h, int k)
{
	for (int d = 0; d < c->ndiffs; d++)
		c->diffs[d].values[k] = field_text(diff_value(h, c->diffs[d].field));
}

/* Keep only the fields that differ. */
static void
diff_keep(cmp *c)
{
	int			nruns = c->side[0].n + c->side[1].n,
				kept = 0;

	for (int d = 0; d < c->ndiffs; d++)
	{
		bool		differs = false;

		for (int k = 1; k < nruns; k++)
			differs = differs || strcmp(c->diffs[d].values[k], c->diffs[d].values[0]) != 0;
		if (differs)
			c->diffs[kept++] = c->diffs[d];
		else
		{
			for (int k = 0; k < nruns; k++)
				free(c->diffs[d].values[k]);
			free(c->diffs[d].values);
			free(c->diffs[d].field);
		}
	}
	c->ndiffs = kept;
}

/*
 * Read both sides, each run checked against the base's first: false
 * (the errors printed) when one cannot be read or is another benchmark.
 */
static bool
read_sides(cmp *c)
{
	const compare_settings *cs = c->cs;
	bool		need_series = cs->nbase + cs->ntarget <= 2 || c->opts->chart_path != NULL;
	bool		ok = true;
	int			k = 0;

	for (int s = 0; s < 2; s++)
	{
		char	  **files = s == 0 ? cs->base : cs->target;
		int			n = s == 0 ? cs->nbase : cs->ntarget;

		c->side[s].runs = xcalloc((size_t) n, sizeof(merge_host));
		for (int i = 0; i < n; i++)
		{
			merge_host *h = &c->side[s].runs[c->side[s].n];
			char	   *cause = NULL;

			if (!mergeread_host(files[i], h, &cause) ||
				(need_series && !mergeread_series(h, &cause)))
			{
				if (h->doc != NULL)
					mergeread_free(h);
				msg_error("%s", cause);
				free(cause);
				ok = false;
				continue;
			}
			c->side[s].n++;
			if (k == 0)
				diff_fields(c);
			else if (!merge_same_benchmark(&c->side[0].runs[0], h, false))
			{
				msg_hint("--compare compares runs of one benchmark: the same scripts, weights, commands, scale and query mode.");
				ok = false;
			}
			diff_note(c, h, k++);
			if (k > 1)
				mergeread_drop_doc(h);
		}
		if (c->side[0].n == 0)
			return false;		/* no base run to check the others against */
	}
	return ok;
}

static void
cmp_free(cmp *c)
{
	int			nruns = c->side[0].n + c->side[1].n;

	for (int d = 0; d < c->ndiffs; d++)
	{
		for (int k = 0; k < nruns; k++)
			free(c->diffs[d].values[k]);
		free(c->diffs[d].values);
		free(c->diffs[d].field);
	}
	free(c->diffs);
	for (int s = 0; s < 2; s++)
	{
		for (int i = 0; i < c->side[s].n; i++)
			mergeread_free(&c->side[s].runs[i]);
		free(c->side[s].runs);
	}
	free(c->results);
}

bool
compare_write_json(const output_ctx *c, const char *path, char **cause)
{
	return cmpout_json(path, c->data, c->status, cause);
}

bool
compare_write_chart(const output_ctx *c, const char *path, char **cause)
{
	return cmpout_chart(path, c->data, cause);
}

int
compare_run(const bench_settings *opts, const compare_settings *cs)
{
	cmp			c;
	int			status = EXITCODE_OK;

	memset(&c, 0, sizeof(c));
	c.opts = opts;
	c.cs = cs;
	if (!read_sides(&c) || c.side[0].n == 0 || c.side[1].n == 0)
	{
		cmp_free(&c);
		return EXITCODE_ERROR;
	}
	diff_keep(&c);
	set_metrics(&c);
	c.by_runs = c.side[0].n + c.side[1].n > 2;
	compute(&c);
	if (!check_limits(&c))
		status = EXITCODE_ERROR;
	else
	{
		for (int i = 0; i < cs->nlimits; i++)
			if (c.tripped[i])
				status = EXITCODE_LIMIT;
		cmpout_print(report_stream(opts), &c);
		output_write_all(opts, OUTPUT_COMPARE, &c, &status);
	}
	cmp_free(&c);
	return status;
}
