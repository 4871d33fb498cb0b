/*
 * report.c — the end-of-run profile, as text or JSON.
 */
#include "config.h"

#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/json.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/table.h"
#include "pgtempo/utf8.h"
#include "pgtempo/xalloc.h"

#include "format.h"
#include "options.h"
#include "report_heads.h"

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
	return !ri->in_server && !ri->no_blockers;
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

/* Header lines: what was sampled, how well, and the gaps. */
static void
text_header(FILE *out, const report_info *ri)
{
	const sample_health *h = ri->health;
	const wprof *p = ri->p;
	char		a[FORMAT_TS_LEN],
				b[FORMAT_TS_LEN];
	strbuf		v,
				srv;

	/* the server's words are printed as utf8_printable makes them */
	strbuf_init(&v);
	strbuf_init(&srv);
	format_seconds(a, ri->src.interval_s);
	fprintf(out, "source: %s on PostgreSQL %s (%s), %s %s\n",
			ri->src.source, utf8_printable(&v, ri->src.server_version),
			utf8_printable(&srv, ri->src.server), ri->in_server ? "read every" : "interval", a);
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
	if (ri->cost != NULL)
		report_cost_text(out, ri->cost);
	fputs("counted: ", out);
	if (ri->s->backend_types.n == 0)
		fputs("every backend type", out);
	for (int i = 0; i < ri->s->backend_types.n; i++)
		fprintf(out, "%s%s", i > 0 ? ", " : "", utf8_printable(&v, ri->s->backend_types.v[i]));
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
						(double) (g->end_us - g->start_us) / 1e6, utf8_printable(&v, g->reason),
						ri->gave_up && i == ri->ngaps - 1 ? " (no connection at the end)" : "");
			}
			else
				fprintf(out, "  %s .. (no connection at the end)  %s\n", a,
						utf8_printable(&v, g->reason));
		}
	}
	if (ri->gave_up)
		fprintf(out, "gave up: the connection was lost and could not be made again\n");
	strbuf_free(&v);
	strbuf_free(&srv);
}

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
	table_col	t[] = {
		{"wait_event_type", 0, "", true}, {"wait_event", 0, "  ", true},
		{"waits", 8, "  ", false}, {"total s", 10, "  ", false},
		{"p50 ms", 9, "  ", false}, {"p90 ms", 9, "  ", false},
		{"p99 ms", 9, "  ", false}, {"max ms", 9, "  ", false},
	};
	const wprof_duration **d;
	uint64_t	total = 0;
	char		c[6][32];

	if (p->ndurations == 0)
		return;
	d = sorted_durations(p);
	table_fit(&t[0], t[0].header);
	table_fit(&t[1], t[1].header);
	for (int i = 0; i < p->ndurations; i++)
	{
		table_fit(&t[0], d[i]->type ? d[i]->type : "");
		table_fit(&t[1], d[i]->event ? d[i]->event : "");
		total += d[i]->us->total;
	}
	fprintf(out, "\nmeasured waits (pg_stat_wait_history): %" PRIu64 "\n", total);
	table_header(out, t, TABLE_NCOLS(t));
	table_rule(out, t, TABLE_NCOLS(t));
	for (int i = 0; i < p->ndurations; i++)
	{
		const hist *h = d[i]->us;

		snprintf(c[0], sizeof(c[0]), "%" PRIu64, h->total);
		snprintf(c[1], sizeof(c[1]), "%.3f", h->sum / 1e6);
		snprintf(c[2], sizeof(c[2]), "%.3f", (double) hist_percentile(h, 50) / 1e3);
		snprintf(c[3], sizeof(c[3]), "%.3f", (double) hist_percentile(h, 90) / 1e3);
		snprintf(c[4], sizeof(c[4]), "%.3f", (double) hist_percentile(h, 99) / 1e3);
		snprintf(c[5], sizeof(c[5]), "%.3f", (double) h->max / 1e3);
		table_row(out, t, TABLE_NCOLS(t), (const char *const[]) {
			d[i]->type ? d[i]->type : "", d[i]->event ? d[i]->event : "",
			c[0], c[1], c[2], c[3], c[4], c[5]});
	}
	free(d);
}

/* The grouped table's columns after the --by ones. */
static const table_col group_num_cols[] = {
	{"samples", 7, "  ", false}, {"% active", 8, "  ", false},
	{"est. seconds", 12, "  ", false},
	{"measured s", 12, "  ", false}, {"waits", 10, "  ", false},	/* when measured */
};

/* One row of the grouped table as text. */
typedef struct group_cells
{
	char		buf[REPORT_MAX_COLS + TABLE_NCOLS(group_num_cols)][64];
	const char *cell[REPORT_MAX_COLS + TABLE_NCOLS(group_num_cols)];
} group_cells;

/* The cells of group gr (of g), for the columns of report_columns. */
static void
group_row(group_cells *r, const report_info *ri, const wprof_groups *g, const wprof_group *gr,
		  const report_col *cols, int ncols)
{
	int			n = ncols;

	for (int c = 0; c < ncols; c++)
		r->cell[c] = report_col_value(gr, &cols[c], r->buf[c], sizeof(r->buf[c]));
	snprintf(r->buf[n++], sizeof(r->buf[0]), "%" PRIu64, gr->samples);
	snprintf(r->buf[n++], sizeof(r->buf[0]), "%.2f", pct(gr->samples, g->total));
	snprintf(r->buf[n++], sizeof(r->buf[0]), "%.3f ± %.3f", (double) gr->samples * ri->src.period_s,
			 wprof_error_s(gr->samples, g->total, ri->src.period_s));
	snprintf(r->buf[n++], sizeof(r->buf[0]), "%.3f", (double) gr->measured_us / 1e6);
	snprintf(r->buf[n++], sizeof(r->buf[0]), "%" PRIu64, gr->measured_count);
	for (int c = ncols; c < n; c++)
		r->cell[c] = r->buf[c];
}

/*
 * The grouped table's columns into t, the --by ones as wide as their
 * headers and the first shown groups, est. seconds as its widest value;
 * returns how many.
 */
static int
group_table(table_col *t, const report_info *ri, const wprof_groups *g, int shown,
			const report_col *cols, int ncols)
{
	int			nt = ncols + TABLE_NCOLS(group_num_cols) - (ri->p->has_measured ? 0 : 2);
	group_cells r;

	for (int c = 0; c < ncols; c++)
	{
		t[c] = (table_col) {cols[c].header, 0, c == 0 ? "" : "  ", true};
		table_fit(&t[c], t[c].header);
	}
	memcpy(t + ncols, group_num_cols, sizeof(table_col) * (size_t) (nt - ncols));
	for (int i = 0; i < shown; i++)
	{
		group_row(&r, ri, g, &g->g[i], cols, ncols);
		for (int c = 0; c < ncols; c++)
			table_fit(&t[c], r.cell[c]);
		table_fit(&t[ncols + 2], r.cell[ncols + 2]);
	}
	return nt;
}

/* A query's text on one line: line breaks as spaces, at most 80 bytes, no character cut. */
static void
put_query_text(FILE *out, const char *text)
{
	size_t		n = strlen(text);
	strbuf		line,
				sb;

	if (n > 80)
	{
		n = 80;
		while (n > 0 && ((unsigned char) text[n] & 0xC0) == 0x80)
			n--;
	}
	strbuf_init(&line);
	strbuf_init(&sb);
	for (size_t j = 0; j < n; j++)
		strbuf_putc(&line, text[j] == '\n' || text[j] == '\t' ? ' ' : text[j]);
	fputs(utf8_printable(&sb, line.data), out);
	strbuf_free(&line);
	strbuf_free(&sb);
}

/* "sample" or "samples" after a count of n. */
static const char *
samples_word(uint64_t n)
{
	return n == 1 ? "sample" : "samples";
}

/* The lines under a group, indented to its second column: description, blockers, queries. */
static void
group_sublines(FILE *out, const report_info *ri, const wprof_group *gr, int indent)
{
	const char *desc = NULL;
	strbuf		sb;

	if (ri->src.describe != NULL && gr->key.type != NULL)
		desc = ri->src.describe(ri->src.describe_arg, gr->key.type, gr->key.event);
	strbuf_init(&sb);
	if (desc != NULL)
		fprintf(out, "%*s%s\n", indent, "", utf8_printable(&sb, desc));
	strbuf_free(&sb);
	for (int k = 0; k < gr->nblockers && k < ri->s->blockers; k++)
		fprintf(out, "%*sblocked by pid %" PRId64 ": %" PRIu64 " %s (%.1f %%)\n",
				indent, "", gr->blockers[k].id, gr->blockers[k].samples,
				samples_word(gr->blockers[k].samples), pct(gr->blockers[k].samples, gr->samples));
	if (shows_blockers(ri) && gr->lock_samples > 0)
		fprintf(out, "%*sno blocker seen: %" PRIu64 " %s (%.1f %% of the lock waits;"
				" it had gone when the blockers were read)\n", indent, "",
				gr->lock_samples - gr->blocked, samples_word(gr->lock_samples - gr->blocked),
				pct(gr->lock_samples - gr->blocked, gr->lock_samples));
	if (grouped_by(ri->s, WPROF_DIM_QUERY))
		return;
	for (int k = 0; k < gr->nqueries && k < REPORT_MAX_SUB; k++)
	{
		const char *text = wprof_query_text(ri->p, gr->queries[k].id);

		fprintf(out, "%*squery_id %" PRId64 ": %" PRIu64 " %s (%.1f %%)",
				indent, "", gr->queries[k].id, gr->queries[k].samples,
				samples_word(gr->queries[k].samples), pct(gr->queries[k].samples, gr->samples));
		if (text != NULL)
		{
			fputs("  ", out);
			put_query_text(out, text);
		}
		fputc('\n', out);
	}
}

/* The text report: header lines, then the grouped table with sub-lines. */
void
report_text(FILE *out, const report_info *ri)
{
	report_col	cols[REPORT_MAX_COLS];
	int			ncols = report_columns(ri->s->by, ri->s->nby, cols);
	table_col	t[REPORT_MAX_COLS + TABLE_NCOLS(group_num_cols)];
	int			nt;
	wprof_groups g;
	int			shown;
	group_cells r;

	text_header(out, ri);
	fputc('\n', out);

	wprof_group_by(ri->p, ri->s->by, ri->s->nby, max_sub(ri->s), &g);
	shown = g.n < REPORT_MAX_GROUPS ? g.n : REPORT_MAX_GROUPS;
	nt = group_table(t, ri, &g, shown, cols, ncols);
	table_header(out, t, nt);
	table_rule(out, t, nt);
	for (int i = 0; i < shown; i++)
	{
		group_row(&r, ri, &g, &g.g[i], cols, ncols);
		table_row(out, t, nt, r.cell);
		group_sublines(out, ri, &g.g[i], table_offset(t, 1));
	}
	if (g.n > shown)
		fprintf(out, "(%d more groups not shown; --json lists all)\n", g.n - shown);
	if (g.n == 0)
		fprintf(out, "(no active backends were sampled)\n");
	wprof_groups_free(&g);
	report_heads_text(out, ri);
	text_durations(out, ri->p);
	if (ri->meas != NULL)
		measured_text(out, ri->meas, ri->src.period_s);
	fflush(out);
}

/* The key fields of a group that its dimensions define. */
void
report_json_key(json_writer *w, const waits_settings *s, const wprof_group *gr)
{
	if (grouped_by(s, WPROF_DIM_EVENT))
	{
		json_kv_string(w, "wait_event_type", gr->key.type);
		json_kv_string(w, "wait_event", gr->key.event);
	}
	if (grouped_by(s, WPROF_DIM_PID))
		report_head_json_id(w, gr->key.pid, gr->key.backend_start_us);
	if (grouped_by(s, WPROF_DIM_QUERY))
	{
		json_key(w, "query_id");
		if (gr->key.query_id != 0)
			json_int(w, gr->key.query_id);
		else
			json_null(w);
	}
	if (grouped_by(s, WPROF_DIM_DB) || grouped_by(s, WPROF_DIM_PID))
		json_kv_string(w, "datname", gr->key.datname);
	if (grouped_by(s, WPROF_DIM_USER) || grouped_by(s, WPROF_DIM_PID))
		json_kv_string(w, "usename", gr->key.usename);
	if (grouped_by(s, WPROF_DIM_APP))
		json_kv_string(w, "application_name", gr->key.appname);
	if (grouped_by(s, WPROF_DIM_BACKEND_TYPE) || grouped_by(s, WPROF_DIM_PID))
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
	/* as the log's meta record has it: none, every type */
	json_key(w, "backend_types");
	json_array_begin(w);
	for (int i = 0; i < ri->s->backend_types.n; i++)
		json_string(w, ri->s->backend_types.v[i]);
	json_array_end(w);
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
		report_json_key(w, ri->s, gr);
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

/* The report as one pretty-printed JSON document, with its newline. */
static void
json_document(strbuf *sb, const report_info *ri)
{
	json_writer w;

	json_init(&w, sb, true);
	json_object_begin(&w);
	json_heading(&w, ri);
	json_health(&w, ri);
	if (ri->cost != NULL)
		report_cost_json(&w, ri->cost);
	json_totals(&w, ri);
	json_profile(&w, ri);
	report_heads_json(&w, ri);
	if (ri->p->has_measured)
		json_durations(&w, ri->p);
	if (ri->meas != NULL)
		measured_json(&w, ri->meas, ri->src.period_s);
	json_object_end(&w);
	strbuf_putc(sb, '\n');
}

void
report_json(FILE *out, const report_info *ri)
{
	strbuf		sb;

	strbuf_init(&sb);
	json_document(&sb, ri);
	fputs(sb.data, out);
	fflush(out);
	strbuf_free(&sb);
}

bool
report_json_file(const report_info *ri)
{
	strbuf		sb;
	bool		ok;

	if (ri->s->json_path == NULL)
		return true;
	strbuf_init(&sb);
	json_document(&sb, ri);
	ok = report_write_file(ri->s->json_path, &sb);
	strbuf_free(&sb);
	return ok;
}

bool
report_write_file(const char *path, const strbuf *sb)
{
	char	   *cause = NULL;

	if (strbuf_write_file(path, sb->data, sb->len, &cause))
		return true;
	msg_error("%s", cause);
	free(cause);
	return false;
}

