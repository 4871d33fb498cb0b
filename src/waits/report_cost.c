/*
 * report_cost.c — the cost of sampling and the budget's doing, for the
 * report (see report_cost.h).
 */
#include "config.h"

#include "report_cost.h"

#include "format.h"

/* "at N backends", or nothing when they were not counted. */
static void
at_backends(FILE *out, const report_cost *c)
{
	if (c->backends >= 0)
		fprintf(out, " at %d backend%s", c->backends, c->backends == 1 ? "" : "s");
}

/* What the budget did, after the cost per sample. */
static void
budget_text(FILE *out, const report_cost *c)
{
	char		want[FORMAT_TS_LEN],
				now[FORMAT_TS_LEN],
				most[FORMAT_TS_LEN];

	format_seconds(want, c->want_interval_s);
	format_seconds(now, c->interval_s);
	format_seconds(most, c->max_interval_s);
	if (c->share <= 0)
		fputs(" (no cost budget)\n", out);
	else if (c->user_interval)
		fprintf(out, " (%s the cost budget of %g %%, at the rate of -i, which is kept)\n",
				c->cost_us * 1e-6 / c->interval_s > c->share ? "over" : "within",
				c->share * 100);
	else if (c->changes == 0)
		fprintf(out, " (within the cost budget of %g %%)\n", c->share * 100);
	else
	{
		fprintf(out, "; the cost budget of %g %% lowered the rate from every %s to every %s"
				" at most", c->share * 100, want, most);
		if (c->interval_s != c->max_interval_s)
			fprintf(out, ", every %s at the end", now);
		fprintf(out, ": error bounds %.1fx those at every %s\n", c->error_factor, want);
	}
}

void
report_cost_text(FILE *out, const report_cost *c)
{
	char		every[FORMAT_TS_LEN];

	if (c->known_pids && c->pids_each)
		fprintf(out, "statement: the status of %d known pid%s (pg_stat_get_activity(pid) each),"
				" not a row per backend of the server\n", c->npids, c->npids == 1 ? "" : "s");
	else if (c->known_pids)
		fprintf(out, "statement: a row per backend, filtered to %d known pid%s (cheaper than a"
				" call per pid with few backends)\n", c->npids, c->npids == 1 ? "" : "s");
	if (!c->measured)
	{
		if (c->share > 0)
			fputs("cost: unknown: the server backend's CPU time cannot be read from this host,"
				  " so the cost budget was not applied\n", out);
		return;
	}
	if (c->cost_us < 0)
		return;					/* too short a run to measure a window */
	format_seconds(every, c->interval_s);
	fprintf(out, "cost: %.0f us of server CPU per sample", c->cost_us);
	at_backends(out, c);
	fprintf(out, ", %.2f %% of one CPU at a sample every %s",
			c->cost_us * 1e-6 / c->interval_s * 100, every);
	budget_text(out, c);
}

void
report_cost_json(json_writer *w, const report_cost *c)
{
	static const json_field fields[] = {
		{"budget_share", JSON_FIELD_DOUBLE, offsetof(report_cost, share)},
		{"measured", JSON_FIELD_BOOL, offsetof(report_cost, measured)},
		{"user_interval", JSON_FIELD_BOOL, offsetof(report_cost, user_interval)},
		{"known_pids", JSON_FIELD_BOOL, offsetof(report_cost, known_pids)},
		{"pids_each", JSON_FIELD_BOOL, offsetof(report_cost, pids_each)},
		{"requested_interval_s", JSON_FIELD_DOUBLE, offsetof(report_cost, want_interval_s)},
		{"interval_s", JSON_FIELD_DOUBLE, offsetof(report_cost, interval_s)},
		{"max_interval_s", JSON_FIELD_DOUBLE, offsetof(report_cost, max_interval_s)},
	};

	json_key(w, "cost");
	json_object_begin(w);
	json_kv_fields(w, c, fields, sizeof(fields) / sizeof(fields[0]));
	/* what was not measured (< 0) is null */
	json_kv_double_or_null(w, "cost_us_per_sample", c->cost_us >= 0, c->cost_us);
	json_kv_double_or_null(w, "max_cost_us_per_sample", c->max_cost_us >= 0, c->max_cost_us);
	json_kv_double_or_null(w, "cpu_share", c->cost_us >= 0, c->cost_us * 1e-6 / c->interval_s);
	json_kv_int_or_null(w, "backends", c->backends >= 0, c->backends);
	json_kv_int(w, "rate_changes", c->changes);
	json_kv_double(w, "error_factor", c->error_factor);
	json_object_end(w);
}
