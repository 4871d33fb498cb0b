/*
 * report.c — the end-of-run profile, as text or JSON.
 */
#include "config.h"

#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/json.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "format.h"
#include "options.h"

/* The table columns for the --by dimensions (event takes two). */
int
report_columns(const wprof_dim *dims, int ndims, report_col *cols)
{
	int			n = 0;

	if (ndims == 0)
	{
		static const wprof_dim ev = WPROF_DIM_EVENT;

		dims = &ev;
		ndims = 1;
	}
	for (int i = 0; i < ndims; i++)
	{
		cols[n].dim = dims[i];
		cols[n].part = 0;
		switch (dims[i])
		{
			case WPROF_DIM_EVENT:
				cols[n++].header = "wait_event_type";
				cols[n].dim = dims[i];
				cols[n].part = 1;
				cols[n].header = "wait_event";
				break;
			case WPROF_DIM_PID:
				cols[n].header = "pid";
				break;
			case WPROF_DIM_QUERY:
				cols[n].header = "query_id";
				break;
			case WPROF_DIM_DB:
				cols[n].header = "datname";
				break;
			case WPROF_DIM_USER:
				cols[n].header = "usename";
				break;
			case WPROF_DIM_APP:
				cols[n].header = "application_name";
				break;
			case WPROF_DIM_BACKEND_TYPE:
			case WPROF_DIM_COUNT:
				cols[n].header = "backend_type";
				break;
		}
		n++;
	}
	return n;
}

/* A group's value in one column, as text. */
const char *
report_col_value(const wprof_group *g, const report_col *c, char *buf, size_t len)
{
	const char *v = NULL;

	switch (c->dim)
	{
		case WPROF_DIM_EVENT:
			v = c->part == 0 ? g->key.type : g->key.event;
			break;
		case WPROF_DIM_PID:
			snprintf(buf, len, "%" PRId32, g->key.pid);
			return buf;
		case WPROF_DIM_QUERY:
			if (g->key.query_id == 0)
				return "";
			snprintf(buf, len, "%" PRId64, g->key.query_id);
			return buf;
		case WPROF_DIM_DB:
			v = g->key.datname;
			break;
		case WPROF_DIM_USER:
			v = g->key.usename;
			break;
		case WPROF_DIM_APP:
			v = g->key.appname;
			break;
		case WPROF_DIM_BACKEND_TYPE:
		case WPROF_DIM_COUNT:
			v = g->key.backend_type;
			break;
	}
	return v ? v : "";
}

/* Average active sessions: backend time sampled over the time covered. */
double
report_avg_active(const report_info *ri)
{
	const wprof *p = ri->p;

	if (p->ticks == 0 || ri->src.interval_s <= 0)
		return 0;
	/* backend time sampled over the time the samples cover */
	return (double) p->active * ri->src.period_s / ((double) p->ticks * ri->src.interval_s);
}

/* k as a percentage of n (0 when n is 0). */
static double
pct(uint64_t k, uint64_t n)
{
	return n > 0 ? 100.0 * (double) k / (double) n : 0.0;
}

/* Top query ids and blockers to ask the grouping for. */
static int
max_sub(const waits_settings *s)
{
	return s->blockers > REPORT_MAX_SUB ? s->blockers : REPORT_MAX_SUB;
}

/* Does the source read blocking pids (the in-server profiles do not)? */
static bool
shows_blockers(const report_info *ri)
{
	return !ri->in_server;
}

/* Is dimension d among the --by dimensions? */
static bool
grouped_by(const waits_settings *s, wprof_dim d)
{
	for (int i = 0; i < s->nby; i++)
		if (s->by[i] == d)
			return true;
	return s->nby == 0 && d == WPROF_DIM_EVENT;
}

/* Number of display columns (bytes, which is fine for the ASCII names we print). */
static int
width(const char *s)
{
	return (int) strlen(s);
}

/* Header lines: what was sampled, how well, and the gaps. */
static void
text_header(FILE *out, const report_info *ri)
{
	const sample_health *h = ri->health;
	const wprof *p = ri->p;
	char		a[FORMAT_TS_LEN],
				b[FORMAT_TS_LEN];

	format_seconds(a, ri->src.interval_s);
	fprintf(out, "source: %s on PostgreSQL %s (%s), %s %s\n",
			ri->src.source, ri->src.server_version, ri->src.server,
			ri->in_server ? "read every" : "interval", a);
	fprintf(out, "sampling: %" PRIu64 " samples in %.2f s (%.2f/s), %" PRIu64 " missed ticks, "
			"%" PRIu64 " failed; sample query latency p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
			h->samples, h->elapsed_s, h->rate_hz, h->missed, h->failed,
			h->p50_ms, h->p99_ms, h->max_ms);
	if (h->cpu_us_per_sample >= 0)
	{
		fprintf(out, "sampler cpu: %.1f us per sample", h->cpu_us_per_sample);
		if (h->backend_cpu_us_per_sample >= 0)
			fprintf(out, ", its server backend %.1f us per sample", h->backend_cpu_us_per_sample);
		fputc('\n', out);
	}
	fputs("counted: ", out);
	if (ri->s->backend_types.n == 0)
		fputs("every backend type", out);
	for (int i = 0; i < ri->s->backend_types.n; i++)
		fprintf(out, "%s%s", i > 0 ? ", " : "", ri->s->backend_types.v[i]);
	if (ri->s->backend_types.n > 0 && !ri->s->backend_types_given)
		fputs(" (the sessions; --backend-type=all counts every process)", out);
	fprintf(out, "; %s\n", ri->s->include_idle ?
			"idle backends included" :
			"idle backends and Activity waits excluded, idle in transaction as Client/ClientRead");
	fprintf(out, "active backend samples: %" PRIu64 ", %.2f active sessions on average (%s)\n",
			p->active, report_avg_active(ri),
			ri->s->include_idle ? "idle backends included" : "idle backends excluded");
	if (p->hidden > 0)
		fprintf(out, "hidden rows: %" PRIu64 " (<insufficient privilege>, not counted)\n",
				p->hidden);
	if (p->has_measured)
		fprintf(out, "measured: %.3f s of waits in %" PRIu64 " waits (pg_stat_wait_profile)\n",
				(double) p->measured_us / 1e6, p->measured_count);
	if (ri->ngaps > 0)
	{
		fprintf(out, "gaps: %d (%.3f s without samples)\n", ri->ngaps, h->gap_s);
		for (int i = 0; i < ri->ngaps; i++)
		{
			const sample_gap *g = &ri->gaps[i];

			format_ts(a, (int64_t) g->start_us);
			if (g->end_us != 0)
			{
				/* a gap still open when the run ended lasts to its end */
				format_ts(b, (int64_t) g->end_us);
				fprintf(out, "  %s .. %s  %.3f s  %s%s\n", a, b,
						(double) (g->end_us - g->start_us) / 1e6, g->reason ? g->reason : "",
						ri->gave_up && i == ri->ngaps - 1 ? " (no connection at the end)" : "");
			}
			else
				fprintf(out, "  %s .. (no connection at the end)  %s\n", a,
						g->reason ? g->reason : "");
		}
	}
	if (ri->gave_up)
		fprintf(out, "gave up: the connection was lost and could not be made again\n");
}

/* The text report: header lines, then the grouped table with sub-lines. */
/* The events of pg_stat_wait_history, most waited-for first (ties in name order). */
static int
cmp_duration(const void *a, const void *b)
{
	const wprof_duration *x = *(const wprof_duration *const *) a;
	const wprof_duration *y = *(const wprof_duration *const *) b;
	int			c;

	if (x->us->sum != y->us->sum)
		return x->us->sum > y->us->sum ? -1 : 1;
	c = strcmp(x->type ? x->type : "", y->type ? y->type : "");
	return c != 0 ? c : strcmp(x->event ? x->event : "", y->event ? y->event : "");
}

static const wprof_duration **
sorted_durations(const wprof *p)
{
	const wprof_duration **d = xcalloc((size_t) p->ndurations + 1, sizeof(*d));

	for (int i = 0; i < p->ndurations; i++)
		d[i] = &p->durations[i];
	qsort(d, (size_t) p->ndurations, sizeof(*d), cmp_duration);
	return d;
}

/* The waits pg_stat_wait_history recorded: how long each kind lasted. */
static void
text_durations(FILE *out, const wprof *p)
{
	const wprof_duration **d;
	int			wt = width("wait_event_type"),
				we = width("wait_event");
	uint64_t	total = 0;

	if (p->ndurations == 0)
		return;
	d = sorted_durations(p);
	for (int i = 0; i < p->ndurations; i++)
	{
		if (d[i]->type != NULL && width(d[i]->type) > wt)
			wt = width(d[i]->type);
		if (d[i]->event != NULL && width(d[i]->event) > we)
			we = width(d[i]->event);
		total += d[i]->us->total;
	}
	fprintf(out, "\nmeasured waits (pg_stat_wait_history): %" PRIu64 "\n", total);
	fprintf(out, "%-*s  %-*s  %8s  %10s  %9s  %9s  %9s  %9s\n", wt, "wait_event_type", we,
			"wait_event", "waits", "total s", "p50 ms", "p90 ms", "p99 ms", "max ms");
	for (int k = 0; k < wt; k++)
		fputc('-', out);
	fputs("  ", out);
	for (int k = 0; k < we; k++)
		fputc('-', out);
	fputs("  --------  ----------  ---------  ---------  ---------  ---------\n", out);
	for (int i = 0; i < p->ndurations; i++)
	{
		const hist *h = d[i]->us;

		fprintf(out, "%-*s  %-*s  %8" PRIu64 "  %10.3f  %9.3f  %9.3f  %9.3f  %9.3f\n",
				wt, d[i]->type ? d[i]->type : "", we, d[i]->event ? d[i]->event : "", h->total,
				h->sum / 1e6, (double) hist_percentile(h, 50) / 1e3,
				(double) hist_percentile(h, 90) / 1e3, (double) hist_percentile(h, 99) / 1e3,
				(double) h->max / 1e3);
	}
	free(d);
}

void
report_text(FILE *out, const report_info *ri)
{
	const wprof *p = ri->p;
	report_col	cols[REPORT_MAX_COLS];
	int			ncols = report_columns(ri->s->by, ri->s->nby, cols);
	int			w[REPORT_MAX_COLS];
	wprof_groups g;
	int			shown;
	char		buf[32],
				est[64];
	bool		by_query = grouped_by(ri->s, WPROF_DIM_QUERY);
	bool		measured = p->has_measured;
	int			wsamples = 7,
				west = 12;

	text_header(out, ri);
	fputc('\n', out);

	wprof_group_by(p, ri->s->by, ri->s->nby, max_sub(ri->s), &g);
	shown = g.n < REPORT_MAX_GROUPS ? g.n : REPORT_MAX_GROUPS;
	for (int c = 0; c < ncols; c++)
	{
		w[c] = width(cols[c].header);
		for (int i = 0; i < shown; i++)
		{
			int			vw = width(report_col_value(&g.g[i], &cols[c], buf, sizeof(buf)));

			if (vw > w[c])
				w[c] = vw;
		}
	}
	for (int i = 0; i < shown; i++)
	{
		int			n = snprintf(est, sizeof(est), "%.3f ± %.3f",
								 (double) g.g[i].samples * ri->src.period_s,
								 wprof_error_s(g.g[i].samples, g.total, ri->src.period_s));

		/* "±" is two bytes and one column */
		if (n - 1 > west)
			west = n - 1;
	}

	for (int c = 0; c < ncols; c++)
		fprintf(out, "%-*s  ", w[c], cols[c].header);
	fprintf(out, "%*s  %8s  %*s", wsamples, "samples", "% active", west, "est. seconds");
	if (measured)
		fprintf(out, "  %12s  %10s", "measured s", "waits");
	fputc('\n', out);
	for (int c = 0; c < ncols; c++)
	{
		for (int k = 0; k < w[c]; k++)
			fputc('-', out);
		fputs("  ", out);
	}
	fprintf(out, "-------  --------  ");
	for (int k = 0; k < west; k++)
		fputc('-', out);
	if (measured)
		fprintf(out, "  ------------  ----------");
	fputc('\n', out);

	for (int i = 0; i < shown; i++)
	{
		const wprof_group *gr = &g.g[i];
		int			indent = w[0] + 2;
		const char *desc = NULL;

		for (int c = 0; c < ncols; c++)
			fprintf(out, "%-*s  ", w[c], report_col_value(gr, &cols[c], buf, sizeof(buf)));
		snprintf(est, sizeof(est), "%.3f ± %.3f", (double) gr->samples * ri->src.period_s,
				 wprof_error_s(gr->samples, g.total, ri->src.period_s));
		/* one more byte for the two-byte "±" */
		fprintf(out, "%*" PRIu64 "  %8.2f  %*s", wsamples, gr->samples, pct(gr->samples, g.total),
				west + 1, est);
		if (measured)
			fprintf(out, "  %12.3f  %10" PRIu64, (double) gr->measured_us / 1e6,
					gr->measured_count);
		fputc('\n', out);

		if (ri->src.describe != NULL && gr->key.type != NULL)
			desc = ri->src.describe(ri->src.describe_arg, gr->key.type, gr->key.event);
		if (desc != NULL)
			fprintf(out, "%*s%s\n", indent, "", desc);
		for (int k = 0; k < gr->nblockers && k < ri->s->blockers; k++)
			fprintf(out, "%*sblocked by pid %" PRId64 ": %" PRIu64 " samples (%.1f %%)\n",
					indent, "", gr->blockers[k].id, gr->blockers[k].samples,
					pct(gr->blockers[k].samples, gr->samples));
		if (shows_blockers(ri) && gr->lock_samples > 0)
			fprintf(out, "%*sno blocker seen: %" PRIu64 " samples (%.1f %% of the lock waits;"
					" it had gone when the blockers were read)\n", indent, "",
					gr->lock_samples - gr->blocked, pct(gr->lock_samples - gr->blocked,
														gr->lock_samples));
		if (!by_query)
			for (int k = 0; k < gr->nqueries && k < REPORT_MAX_SUB; k++)
			{
				const char *text = wprof_query_text(p, gr->queries[k].id);

				fprintf(out, "%*squery_id %" PRId64 ": %" PRIu64 " samples (%.1f %%)",
						indent, "", gr->queries[k].id, gr->queries[k].samples,
						pct(gr->queries[k].samples, gr->samples));
				if (text != NULL)
				{
					fputs("  ", out);
					/* one line, at most 80 characters of it */
					for (int j = 0; text[j] != '\0' && j < 80; j++)
						fputc(text[j] == '\n' || text[j] == '\t' ? ' ' : text[j], out);
				}
				fputc('\n', out);
			}
	}
	if (g.n > shown)
		fprintf(out, "(%d more groups not shown; --json lists all)\n", g.n - shown);
	if (g.n == 0)
		fprintf(out, "(no active backends were sampled)\n");
	wprof_groups_free(&g);
	text_durations(out, p);
	fflush(out);
}

/* The key fields of a group that its dimensions define. */
static void
json_group_key(json_writer *w, const report_info *ri, const wprof_group *gr)
{
	if (grouped_by(ri->s, WPROF_DIM_EVENT))
	{
		json_kv_string(w, "wait_event_type", gr->key.type);
		json_kv_string(w, "wait_event", gr->key.event);
	}
	if (grouped_by(ri->s, WPROF_DIM_PID))
	{
		char		ts[FORMAT_TS_LEN];

		json_kv_int(w, "pid", gr->key.pid);
		if (gr->key.backend_start_us != INT64_MIN)
		{
			format_ts(ts, gr->key.backend_start_us);
			json_kv_string(w, "backend_start", ts);
		}
		else
			json_kv_string(w, "backend_start", NULL);
	}
	if (grouped_by(ri->s, WPROF_DIM_QUERY))
	{
		json_key(w, "query_id");
		if (gr->key.query_id != 0)
			json_int(w, gr->key.query_id);
		else
			json_null(w);
	}
	if (grouped_by(ri->s, WPROF_DIM_DB) || grouped_by(ri->s, WPROF_DIM_PID))
		json_kv_string(w, "datname", gr->key.datname);
	if (grouped_by(ri->s, WPROF_DIM_USER) || grouped_by(ri->s, WPROF_DIM_PID))
		json_kv_string(w, "usename", gr->key.usename);
	if (grouped_by(ri->s, WPROF_DIM_APP))
		json_kv_string(w, "application_name", gr->key.appname);
	if (grouped_by(ri->s, WPROF_DIM_BACKEND_TYPE) || grouped_by(ri->s, WPROF_DIM_PID))
		json_kv_string(w, "backend_type", gr->key.backend_type);
}

/* What was sampled, how, with what filters, and what became of --store's rows. */
static void
json_heading(json_writer *w, const report_info *ri)
{
	const wprof *p = ri->p;
	char		ts[FORMAT_TS_LEN];

	json_kv_string(w, "tool", "pgtempo-waits");
	json_kv_string(w, "version", PACKAGE_VERSION);
	json_kv_string(w, "source", ri->src.source);
	json_kv_string(w, "server_version", ri->src.server_version);
	json_kv_string(w, "server", ri->src.server);
	json_kv_double(w, "interval_s", ri->src.interval_s);
	json_kv_double(w, "period_s", ri->src.period_s);
	json_kv_bool(w, "include_idle", ri->s->include_idle);
	json_key(w, "backend_types");
	if (ri->s->backend_types.n == 0)
		json_string(w, "all");
	else
	{
		json_array_begin(w);
		for (int i = 0; i < ri->s->backend_types.n; i++)
			json_string(w, ri->s->backend_types.v[i]);
		json_array_end(w);
	}
	json_kv_bool(w, "backend_types_default", !ri->s->backend_types_given &&
				 ri->s->backend_types.n > 0);
	json_kv_bool(w, "gave_up", ri->gave_up);
	if (ri->store != NULL)
	{
		json_key(w, "store");
		json_object_begin(w);
		json_kv_uint(w, "rows_stored", ri->store->stored);
		json_kv_uint(w, "rows_rejected", ri->store->rejected);
		json_kv_uint(w, "rows_dropped", ri->store->dropped);
		json_kv_uint(w, "rows_unsent", ri->store->unsent);
		json_object_end(w);
	}
	if (p->ticks > 0)
	{
		format_ts(ts, (int64_t) p->first_us);
		json_kv_string(w, "first_sample", ts);
		format_ts(ts, (int64_t) p->last_us);
		json_kv_string(w, "last_sample", ts);
	}
}

/* The sampler's health and its gaps. */
static void
json_health(json_writer *w, const report_info *ri)
{
	const sample_health *h = ri->health;

	json_key(w, "health");
	json_object_begin(w);
	format_health_members(w, h);
	json_kv_uint(w, "hidden_rows", h->hidden);
	if (h->cpu_us_per_sample >= 0)
		json_kv_double(w, "cpu_us_per_sample", h->cpu_us_per_sample);
	if (h->backend_cpu_us_per_sample >= 0)
		json_kv_double(w, "backend_cpu_us_per_sample", h->backend_cpu_us_per_sample);
	json_object_end(w);

	json_key(w, "gaps");
	json_array_begin(w);
	for (int i = 0; i < ri->ngaps; i++)
	{
		json_object_begin(w);
		format_gap_members(w, &ri->gaps[i]);
		json_object_end(w);
	}
	json_array_end(w);
}

/* The whole run's totals, and the --by list. */
static void
json_totals(json_writer *w, const report_info *ri)
{
	const wprof *p = ri->p;

	json_kv_uint(w, "ticks", p->ticks);
	json_kv_uint(w, "active_samples", p->active);
	json_kv_uint(w, "idle_rows", p->idle);
	json_kv_uint(w, "hidden_rows", p->hidden);
	json_kv_double(w, "avg_active_sessions", report_avg_active(ri));
	if (p->has_measured)
	{
		json_kv_double(w, "measured_seconds", (double) p->measured_us / 1e6);
		json_kv_uint(w, "measured_count", p->measured_count);
	}
	json_key(w, "by");
	json_array_begin(w);
	for (int i = 0; i < ri->s->nby; i++)
		json_string(w, wprof_dim_name(ri->s->by[i]));
	json_array_end(w);
}

/* A group's blockers and top queries. */
static void
json_group_subs(json_writer *w, const report_info *ri, const wprof_group *gr)
{
	json_key(w, "blockers");
	json_array_begin(w);
	for (int k = 0; k < gr->nblockers && k < ri->s->blockers; k++)
	{
		json_object_begin(w);
		json_kv_int(w, "pid", gr->blockers[k].id);
		json_kv_uint(w, "samples", gr->blockers[k].samples);
		json_object_end(w);
	}
	json_array_end(w);
	if (shows_blockers(ri) && gr->lock_samples > 0)
	{
		json_kv_uint(w, "lock_samples", gr->lock_samples);
		json_kv_uint(w, "no_blocker_samples", gr->lock_samples - gr->blocked);
	}
	json_key(w, "top_queries");
	json_array_begin(w);
	for (int k = 0; k < gr->nqueries && k < REPORT_MAX_SUB; k++)
	{
		json_object_begin(w);
		json_kv_int(w, "query_id", gr->queries[k].id);
		json_kv_uint(w, "samples", gr->queries[k].samples);
		json_kv_string(w, "query", wprof_query_text(ri->p, gr->queries[k].id));
		json_object_end(w);
	}
	json_array_end(w);
}

/* The groups of the --by list, largest first. */
static void
json_profile(json_writer *w, const report_info *ri)
{
	const wprof *p = ri->p;
	wprof_groups g;

	wprof_group_by(p, ri->s->by, ri->s->nby, max_sub(ri->s), &g);
	json_key(w, "profile");
	json_array_begin(w);
	for (int i = 0; i < g.n; i++)
	{
		const wprof_group *gr = &g.g[i];
		const char *desc = NULL;

		json_object_begin(w);
		json_group_key(w, ri, gr);
		json_kv_uint(w, "samples", gr->samples);
		json_kv_double(w, "pct", pct(gr->samples, g.total));
		json_kv_double(w, "est_seconds", (double) gr->samples * ri->src.period_s);
		json_kv_double(w, "error_seconds", wprof_error_s(gr->samples, g.total, ri->src.period_s));
		if (p->has_measured)
		{
			json_kv_double(w, "measured_seconds", (double) gr->measured_us / 1e6);
			json_kv_uint(w, "measured_count", gr->measured_count);
		}
		if (ri->src.describe != NULL && gr->key.type != NULL)
			desc = ri->src.describe(ri->src.describe_arg, gr->key.type, gr->key.event);
		if (desc != NULL)
			json_kv_string(w, "description", desc);
		json_group_subs(w, ri, gr);
		json_object_end(w);
	}
	json_array_end(w);
	wprof_groups_free(&g);
}

/* The durations the server measured, by event (pg_stat_wait). */
static void
json_durations(json_writer *w, const wprof *p)
{
	const wprof_duration **d = sorted_durations(p);

	json_key(w, "wait_durations");
	json_array_begin(w);
	for (int i = 0; i < p->ndurations; i++)
	{
		const hist *us = d[i]->us;

		json_object_begin(w);
		json_kv_string(w, "wait_event_type", d[i]->type);
		json_kv_string(w, "wait_event", d[i]->event);
		json_kv_uint(w, "waits", us->total);
		json_kv_double(w, "total_seconds", us->sum / 1e6);
		json_kv_double(w, "p50_ms", (double) hist_percentile(us, 50) / 1e3);
		json_kv_double(w, "p90_ms", (double) hist_percentile(us, 90) / 1e3);
		json_kv_double(w, "p99_ms", (double) hist_percentile(us, 99) / 1e3);
		json_kv_double(w, "max_ms", (double) us->max / 1e3);
		json_object_end(w);
	}
	json_array_end(w);
	free(d);
}

/* The report as one pretty-printed JSON document. */
void
report_json(FILE *out, const report_info *ri)
{
	strbuf		sb;
	json_writer w;

	strbuf_init(&sb);
	json_init(&w, &sb, true);
	json_object_begin(&w);
	json_heading(&w, ri);
	json_health(&w, ri);
	json_totals(&w, ri);
	json_profile(&w, ri);
	if (ri->p->has_measured)
		json_durations(&w, ri->p);
	json_object_end(&w);
	fputs(sb.data, out);
	fputc('\n', out);
	fflush(out);
	strbuf_free(&sb);
}
