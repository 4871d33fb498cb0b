/*
 * capreport.c — the report of --capacity: the steps' table, the capacity
 * line, the knee, and --json.
 */
#include "config.h"

#include "capsweep_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/exitcode.h"
#include "pgtempo/json.h"
#include "pgtempo/strbuf.h"

const char *const cap_verdict_names[CAP_NVERDICTS] = {
	[CAP_FOUND] = "found",
	[CAP_NONE_PASSED] = "none_passed",
	[CAP_BELOW_LIMIT] = "below_limit",
	[CAP_NO_STEP] = "no_step",
};

bool
cap_floor_tripped(const cap_search *cs)
{
	gate_change ch = {true, cs->lo, cs->hi, 0, 0};

	return cs->c->has_floor && cs->nsteps > 1 && gate_trips(&cs->c->floor, &ch);
}

cap_verdict
cap_search_verdict(const cap_search *cs)
{
	if (cs->tripped)
		return CAP_BELOW_LIMIT;
	if (cs->nsteps < 2)
		return CAP_NO_STEP;
	return cs->lo > 0 ? CAP_FOUND : CAP_NONE_PASSED;
}

int
cap_steps_by_rate(const cap_search *cs, int *order)
{
	int			n = 0;

	for (int k = 1; k < cs->nsteps; k++)
	{
		int			j = n;

		/* a later step at a rate already seen takes its place: it pools the earlier runs */
		for (int i = 0; i < n; i++)
			if (cs->steps[order[i]].rate == cs->steps[k].rate)
				j = i;
		if (j < n)
		{
			order[j] = k;
			continue;
		}
		while (j > 0 && cs->steps[order[j - 1]].rate > cs->steps[k].rate)
		{
			order[j] = order[j - 1];
			j--;
		}
		order[j] = k;
		n++;
	}
	return n;
}

bool
cap_find_knee(const cap_search *cs, double *below, double *at)
{
	int			order[CAP_MAX_STEPS];
	int			n = 0;
	double		base;

	for (int i = 1; i < cs->nsteps; i++)
		if (cs->steps[i].v[0].known)
			order[n++] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && cs->steps[order[j]].rate < cs->steps[order[j - 1]].rate; j--)
		{
			int			t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	if (n < 2)
		return false;
	base = cs->steps[order[0]].v[0].est;
	for (int i = 1; i < n; i++)
		if (cs->steps[order[i]].v[0].est > 2 * base)
		{
			*below = cs->steps[order[i - 1]].rate;
			*at = cs->steps[order[i]].rate;
			return true;
		}
	return false;
}

/* The text report (stdout, or stderr when --json takes stdout). */
void
cap_print_report(FILE *out, const cap_search *cs, bool tripped)
{
	const capacity_settings *c = cs->c;
	char		objs[512];
	double		kb,
				ka;

	cap_objectives_text(c, objs, sizeof(objs));
	if (cs->plan != NULL)
		capsweep_print_header(out, cs);
	else
		fprintf(out, "capacity search: %s, resolution %.1f %%, budget %d s (used %.0f s), %d clients\n",
				objs, 100 * (c->resolution > 0 ? c->resolution : CAPACITY_RESOLUTION),
				cs->s->duration, cs->used_s, cs->s->nclients);
	if (cs->nsteps > 0 && cs->plan == NULL)
		fprintf(out, "closed-loop probe: %.1f tps (the ceiling)\n", cs->steps[0].tps);
	fprintf(out, "%4s %12s %12s", "step", "offered tps", "achieved tps");
	for (int i = 0; i < c->nobjectives; i++)
	{
		char		h[64];

		snprintf(h, sizeof(h), "%s ms [95%% interval]", c->objectives[i].name);
		fprintf(out, " %-26s", h);
	}
	fprintf(out, " %12s %7s  %s\n", "lag ms/s", "verdict", "why");
	for (int k = 1; k < cs->nsteps; k++)
	{
		const cap_step *st = &cs->steps[k];

		fprintf(out, "%4d %12.1f %12.1f", k, st->rate, st->tps);
		for (int i = 0; i < c->nobjectives; i++)
		{
			char		v[64];

			if (st->v[i].known)
				snprintf(v, sizeof(v), "%.3f [%.3f, %.3f]", st->v[i].est * 1e3, st->v[i].lo * 1e3,
						 st->v[i].hi * 1e3);
			else
				snprintf(v, sizeof(v), "unknown");
			fprintf(out, " %-26s", v);
		}
		if (st->lag_known)
			fprintf(out, " %12.3f", st->lag_slope);
		else
			fprintf(out, " %12s", "unknown");
		fprintf(out, " %7s  %s\n", st->pass ? "pass" : st->again ? "again" : "fail", st->why);
	}
	if (cs->lo > 0)
		fprintf(out, "capacity: %.1f tps at %s (bracket %.1f-%.1f tps, %.1f %% wide%s)\n", cs->lo, objs,
				cs->lo, cs->hi, 100 * (cs->hi / cs->lo - 1),
				cs->hi_tested ? "" : cs->plan != NULL ? "; no rate of the plan failed: it may be higher" :
				"; its upper end is the probe's ceiling");
	else
		fprintf(out, "capacity: below %.1f tps at %s (no rate tried passed)\n", cs->hi, objs);
	if (cap_find_knee(cs, &kb, &ka))
		fprintf(out, "knee: between %.1f and %.1f tps (%s more than doubles from the lowest rate tried)\n",
				kb, ka, c->objectives[0].name);
	else
		fprintf(out, "knee: not seen (%s stays within twice its value at the lowest rate tried)\n",
				c->objectives[0].name);
	fprintf(out, "%s stopped: %s\n", cs->plan != NULL ? "sweep" : "search", cs->stop_why);
	if (c->has_floor)
		fprintf(out, "fail-if %s: %s\n", c->floor.text,
				tripped ? "the capacity's bracket lies wholly below the limit" :
				"not shown below the limit");
}

/* One step of --json's "steps". */
static void
write_json_step(json_writer *w, const capacity_settings *c, const cap_step *st)
{
	json_object_begin(w);
	json_kv_double(w, "offered_tps", st->rate);
	json_kv_double(w, "achieved_tps", st->tps);
	json_kv_double(w, "measured_s", st->measured_s);
	json_kv_int(w, "runs_pooled", st->runs);
	json_kv_int(w, "transactions", st->transactions);
	json_kv_int(w, "failed", st->failed);
	json_key(w, "objectives");
	json_array_begin(w);
	for (int i = 0; i < c->nobjectives; i++)
	{
		json_object_begin(w);
		json_kv_string(w, "metric", c->objectives[i].name);
		json_kv_double_or_null(w, "value_ms", st->v[i].known, st->v[i].est * 1e3);
		json_kv_double_or_null(w, "low_ms", st->v[i].known, st->v[i].lo * 1e3);
		json_kv_double_or_null(w, "high_ms", st->v[i].known, st->v[i].hi * 1e3);
		json_object_end(w);
	}
	json_array_end(w);
	json_kv_double_or_null(w, "lag_slope_ms_per_s", st->lag_known, st->lag_slope);
	json_kv_bool(w, "objectives_met", st->met);
	json_kv_bool(w, "steady", st->steady);
	json_kv_bool(w, "pass", st->pass);
	json_kv_bool(w, "measured_again", st->again);
	json_kv_string(w, "why", st->why);
	json_object_end(w);
}

/* --json: the search as one document. */
bool
capacity_write_json(const output_ctx *oc, const char *path, char **cause)
{
	const cap_search *cs = oc->data;
	const capacity_settings *c = cs->c;
	bool		tripped = cs->tripped;
	int			status = oc->status;
	strbuf		sb;
	json_writer w;
	double		kb,
				ka;
	bool		knee = cap_find_knee(cs, &kb, &ka);

	strbuf_init(&sb);
	json_init(&w, &sb, true);
	json_object_begin(&w);
	json_kv_string(&w, "tool", "pgtempo-bench");
	json_kv_string(&w, "version", PACKAGE_VERSION);
	json_kv_string(&w, "kind", "capacity");
	json_kv_int(&w, "schema", 1);
	json_key(&w, "objectives");
	json_array_begin(&w);
	for (int i = 0; i < c->nobjectives; i++)
	{
		json_object_begin(&w);
		json_kv_string(&w, "objective", c->objectives[i].text);
		json_kv_string(&w, "metric", c->objectives[i].name);
		json_kv_double(&w, "target_ms", c->objectives[i].value * 1e3);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_kv_double(&w, "resolution_pct", 100 * (c->resolution > 0 ? c->resolution : CAPACITY_RESOLUTION));
	json_kv_int(&w, "budget_s", cs->s->duration);
	json_kv_double(&w, "used_s", cs->used_s);
	json_kv_int(&w, "clients", cs->s->nclients);
	json_kv_double(&w, "ceiling_tps", cs->ceiling);
	json_key(&w, "steps");
	json_array_begin(&w);
	for (int k = 1; k < cs->nsteps; k++)
		write_json_step(&w, c, &cs->steps[k]);
	json_array_end(&w);
	json_key(&w, "capacity");
	json_object_begin(&w);
	json_kv_double_or_null(&w, "tps", cs->lo > 0, cs->lo);
	json_kv_double_or_null(&w, "bracket_low_tps", cs->nsteps > 1, cs->lo);
	json_kv_double_or_null(&w, "bracket_high_tps", cs->nsteps > 1, cs->hi);
	json_kv_bool(&w, "high_tested", cs->hi_tested);
	json_kv_string(&w, "stopped", cs->stop_why);
	json_object_end(&w);
	json_key(&w, "knee");
	json_object_begin(&w);
	json_kv_double_or_null(&w, "below_tps", knee, kb);
	json_kv_double_or_null(&w, "at_tps", knee, ka);
	json_object_end(&w);
	if (c->has_floor)
	{
		json_key(&w, "fail_if");
		json_object_begin(&w);
		json_kv_string(&w, "limit", c->floor.text);
		json_kv_double(&w, "limit_tps", c->floor.value);
		json_kv_bool(&w, "tripped", tripped);
		json_object_end(&w);
	}
	if (cs->plan != NULL)
		capsweep_write_json(&w, cs);
	json_kv_int(&w, "exit_status", status);
	json_object_end(&w);
	strbuf_putc(&sb, '\n');
	return strbuf_write_free(&sb, path, cause);
}

/* The report (text, the outputs) and the exit status of a finished search or sweep; frees cs. */
int
cap_finish(cap_search *cs)
{
	const bench_settings *s = cs->s;
	int			status = cs->status;
	FILE	   *out = report_stream(s);

	if (cs->nsteps < 1 || (cs->status == EXITCODE_ERROR && cs->nsteps < 2))
	{
		series_free(&cs->pool);
		free(cs);
		/* as a run that could not start: --metrics says so (exit status 1) */
		return results_not_started(s);
	}
	cs->tripped = cap_floor_tripped(cs);
	if (status == 0 && cs->tripped)
		status = EXITCODE_LIMIT;
	cap_print_report(out, cs, cs->tripped);
	fflush(out);
	output_write_all(s, OUTPUT_CAPACITY, cs, &status);
	series_free(&cs->pool);
	free(cs);
	return status;
}
