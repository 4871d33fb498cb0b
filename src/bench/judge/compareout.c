/*
 * compareout.c — the comparison as a table, and as --json.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "pgtempo/cmpjson.h"
#include "pgtempo/gate.h"
#include "pgtempo/json.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/table.h"

/* The value of metric m as the table shows it. */
static void
show_value(char *buf, size_t len, const cmp_metric *m, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (m->kind == CMP_TPS)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.3f ms", v / 1e6);
}

/* "4 runs" / "1 run", and where they are from. */
static void
print_side(FILE *out, const cmp *c, int s)
{
	const cmp_side *sd = &c->side[s];

	fprintf(out, "%s:", s == 0 ? "base" : "new ");
	for (int i = 0; i < sd->n; i++)
		fprintf(out, " %s", sd->runs[i].file);
	fprintf(out, "\n");
}

/* The settings that differ: each side's values, once each. */
static void
print_diffs(FILE *out, const cmp *c)
{
	if (c->ndiffs == 0)
		return;
	fprintf(out, "differences between the runs:\n");
	for (int d = 0; d < c->ndiffs; d++)
	{
		int			k = 0;

		fprintf(out, "  %-28s", c->diffs[d].field);
		for (int s = 0; s < 2; s++)
		{
			fprintf(out, "%s", s == 0 ? " base" : "; new");
			for (int i = 0; i < c->side[s].n; i++, k++)
			{
				bool		seen = false;

				for (int j = k - i; j < k; j++)
					seen = seen || strcmp(c->diffs[d].values[j], c->diffs[d].values[k]) == 0;
				if (!seen)
					fprintf(out, "%s%s", i == 0 ? " " : ", ", c->diffs[d].values[k]);
			}
		}
		fprintf(out, "\n");
	}
}

/* How the intervals were computed, and what they cover. */
static void
print_method(FILE *out, const cmp *c)
{
	fprintf(out, "95 %% intervals for the %d lines together (Bonferroni: each at %.4g %%).\n",
			c->family, 100 * c->level);
	if (c->by_runs)
	{
		fprintf(out, "The intervals: the run is the unit (Welch's t on the logarithms of %d base and %d new runs' values);\n"
				"base and new are the runs' geometric means.\n", c->side[0].n, c->side[1].n);
		return;
	}
	if (c->block_len > 0 && c->group > 1)
		fprintf(out, "The intervals: block bootstrap over each run's %d and %d intervals of %d s, summed\n"
				"into groups of %d (blocks of %d groups, %d resamples, fixed seed).\n",
				c->nintervals[0], c->nintervals[1], c->interval_s, c->group, c->block_len,
				CMP_RESAMPLES);
	else if (c->block_len > 0)
		fprintf(out, "The intervals: block bootstrap over each run's %d and %d intervals of %d s\n"
				"(blocks of %d intervals, %d resamples, fixed seed).\n",
				c->nintervals[0], c->nintervals[1], c->interval_s, c->block_len, CMP_RESAMPLES);
	fprintf(out, "NOTE: with one run per side the intervals cover only the noise within a run; identical\n"
			"runs on one host often differ by more.  Run several per side (interleaved: A B A B ...)\n"
			"for a verdict that holds across runs.\n");
}

/* The reasons of the unknown intervals, each once. */
static void
print_unknowns(FILE *out, const cmp *c)
{
	int			n = c->nscopes * c->nmetrics;

	for (int i = 0; i < n; i++)
	{
		bool		seen = false;

		if (c->results[i].known)
			continue;
		for (int j = 0; j < i; j++)
			seen = seen || (!c->results[j].known && strcmp(c->results[j].why, c->results[i].why) == 0);
		if (!seen)
			fprintf(out, "unknown: %s\n", c->results[i].why);
	}
}

/* One line of the table. */
static void
print_result(FILE *out, const table_col *cols, int ncols, const cmp_result *r)
{
	char		base[32],
				target[32],
				change[32],
				iv[48];

	show_value(base, sizeof(base), r->m, r->base);
	show_value(target, sizeof(target), r->m, r->target);
	if (isfinite(r->change))
		snprintf(change, sizeof(change), "%+.1f %%", 100 * r->change);
	else
		snprintf(change, sizeof(change), "-");
	if (r->known)
		snprintf(iv, sizeof(iv), "[%+.1f %%, %+.1f %%]", 100 * r->lo, 100 * r->hi);
	else
		snprintf(iv, sizeof(iv), "-");
	table_row(out, cols, ncols, (const char *[]) {
		r->m->kind == CMP_AVG ? "latency avg" : r->m->name, base, target, change, iv, r->verdict
	});
}

void
cmpout_print(FILE *out, const cmp *c)
{
	table_col	cols[] = {
		{"", 12, "  ", true}, {"base", 12, " ", false}, {"new", 12, " ", false},
		{"change", 9, " ", false}, {"95 % interval", 20, " ", false}, {"verdict", 0, "  ", true},
	};

	fprintf(out, "%s --compare (pgtempo %s): %d run%s against %d run%s\n", msg_progname(),
			PACKAGE_VERSION, c->side[0].n, c->side[0].n == 1 ? "" : "s", c->side[1].n,
			c->side[1].n == 1 ? "" : "s");
	print_side(out, c, 0);
	print_side(out, c, 1);
	print_diffs(out, c);
	for (int k = 0; k < c->nscopes; k++)
	{
		fprintf(out, "\n%s%s%s\n", k == 0 ? "" : "script \"", cmp_scope_name(c, k), k == 0 ? "" : "\"");
		table_header(out, cols, TABLE_NCOLS(cols));
		for (int m = 0; m < c->nmetrics; m++)
			print_result(out, cols, TABLE_NCOLS(cols), &c->results[k * c->nmetrics + m]);
	}
	fprintf(out, "\n");
	print_method(out, c);
	print_unknowns(out, c);
	for (int i = 0; i < c->cs->nlimits; i++)
		if (c->tripped[i])
			fprintf(out, "--fail-if=%s: %s\n", c->cs->limits[i].text,
					gate_outcome_word(c->checked[i], c->tripped[i]));
	fflush(out);
}

/* A number in %, rounded to 0.001 %, or null. */
static void
kv_pct(json_writer *w, const char *key, bool known, double v)
{
	json_kv_double_or_null(w, key, known && isfinite(v), round(v * 1e5) / 1e3);
}

/* The results of the comparison. */
static void
json_results(json_writer *w, const cmp *c)
{
	json_key(w, "results");
	json_array_begin(w);
	for (int i = 0; i < c->nscopes * c->nmetrics; i++)
	{
		const cmp_result *r = &c->results[i];
		double		unit = r->m->kind == CMP_TPS ? 1 : 1e6;

		json_object_begin(w);
		json_kv_string(w, "scope", r->scope == 0 ? "overall" : "script");
		json_kv_string(w, "script", r->scope == 0 ? NULL : cmp_scope_name(c, r->scope));
		json_kv_string(w, "metric", r->m->name);
		json_kv_string(w, "unit", r->m->kind == CMP_TPS ? "tps" : "ms");
		json_kv_double_or_null(w, "base", isfinite(r->base), r->base / unit);
		json_kv_double_or_null(w, "new", isfinite(r->target), r->target / unit);
		kv_pct(w, "change_pct", true, r->change);
		kv_pct(w, "interval_low_pct", r->known, r->lo);
		kv_pct(w, "interval_high_pct", r->known, r->hi);
		json_kv_string(w, "verdict", r->verdict);
		json_kv_string(w, "unknown_because", r->known ? NULL : r->why);
		json_object_end(w);
	}
	json_array_end(w);
}

/* cmpjson_doc.side: the runs of a side, their files. */
static void
json_side(const void *arg, json_writer *w, int s)
{
	const cmp  *c = arg;

	json_key(w, "files");
	json_array_begin(w);
	for (int i = 0; i < c->side[s].n; i++)
		json_string(w, c->side[s].runs[i].file);
	json_array_end(w);
}

/* cmpjson_doc.method: how the intervals were made. */
static void
json_method(const void *arg, json_writer *w)
{
	const cmp  *c = arg;

	json_kv_string(w, "unit", c->by_runs ? "run" : "interval");
	json_kv_string(w, "interval", c->by_runs ? "welch_t_log" : "block_bootstrap");
	json_kv_bool(w, "covers_between_run_noise", c->by_runs);
	json_kv_int_or_null(w, "interval_s", !c->by_runs && c->block_len > 0, c->interval_s);
	json_kv_int_or_null(w, "intervals_base", !c->by_runs && c->block_len > 0, c->nintervals[0]);
	json_kv_int_or_null(w, "intervals_new", !c->by_runs && c->block_len > 0, c->nintervals[1]);
	json_kv_int_or_null(w, "group_intervals", !c->by_runs && c->block_len > 0, c->group);
	json_kv_int_or_null(w, "block_groups", !c->by_runs && c->block_len > 0, c->block_len);
	json_kv_int_or_null(w, "resamples", !c->by_runs, CMP_RESAMPLES);
	json_kv_uint(w, "seed", CMP_SEED);
}

/* cmpjson_doc.body: the settings that differ between the runs, then the results. */
static void
json_body(const void *arg, json_writer *w)
{
	const cmp  *c = arg;
	int			k = 0;

	json_key(w, "differences");
	json_array_begin(w);
	for (int d = 0; d < c->ndiffs; d++)
	{
		json_object_begin(w);
		json_kv_string(w, "field", c->diffs[d].field);
		k = 0;
		for (int s = 0; s < 2; s++)
		{
			json_key(w, s == 0 ? "base" : "new");
			json_array_begin(w);
			for (int i = 0; i < c->side[s].n; i++)
				json_string(w, c->diffs[d].values[k++]);
			json_array_end(w);
		}
		json_object_end(w);
	}
	json_array_end(w);
	json_results(w, c);
}

/* cmpjson_doc.limit_text: --fail-if's limit i as given. */
static const char *
json_limit_text(const void *arg, int i)
{
	return ((const cmp *) arg)->cs->limits[i].text;
}

/* cmpjson_doc.limit: limit i's metric and value, and whether it was checked. */
static void
json_limit(const void *arg, json_writer *w, int i)
{
	const cmp  *c = arg;

	json_kv_string(w, "metric", c->cs->limits[i].name);
	json_kv_double(w, "limit_pct", c->cs->limits[i].value);
	json_kv_bool(w, "checked", c->checked[i]);
}

/* cmpjson_doc.tripped: did limit i trip? */
static bool
json_tripped(const void *arg, int i)
{
	return ((const cmp *) arg)->tripped[i];
}

/* This tool's members of the comparison's document. */
static const cmpjson_ops json_ops = {
	json_side, json_method, json_body, json_limit_text, json_limit, json_tripped
};

bool
cmpout_json(const char *path, const cmp *c, int exit_status, char **cause)
{
	strbuf		sb;
	cmpjson_doc d = {
		.tool = "pgtempo-bench",
		.level = GATE_LEVEL,
		.family = c->family,
		.level_each = c->level,
		.nlimits = c->cs->nlimits,
		.exit_status = exit_status,
		.ops = &json_ops,
		.arg = c,
	};

	strbuf_init(&sb);
	cmpjson_write(&sb, &d);
	return strbuf_write_free(&sb, path, cause);
}
