/*
 * baselineout.c — the comparison with a baseline as a text table, one
 * JSON document (--json) and a chart of both windows (--chart).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/chart.h"
#include "pgtempo/cmpjson.h"
#include "pgtempo/json.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/table.h"
#include "pgtempo/xalloc.h"

#include "baseline_int.h"
#include "report.h"

/* Keys drawn by --chart: the largest changes. */
#define BL_CHART_KEYS 8

/* Window i of b, and its bounds: as given, else its rows'. */
static const bl_window *
window_bounds(const baseline *b, int i, char *from, char *to)
{
	const bl_window *w = &b->w[i];

	format_ts(from, w->since_us != INT64_MIN ? w->since_us : (int64_t) w->first_us);
	format_ts(to, w->until_us != INT64_MAX ? w->until_us : (int64_t) w->last_us);
	return w;
}

/* A window's line: its bounds, what it holds, its average active sessions. */
static void
text_window(FILE *out, const baseline *b, int i)
{
	char		from[FORMAT_TS_LEN],
				to[FORMAT_TS_LEN];
	const bl_window *w = window_bounds(b, i, from, to);

	fprintf(out, "%-9s %s to %s: ", i == 1 ? "window:" : "baseline:", from, to);
	if (w->niv > 0)
		fprintf(out, "%zu intervals, ", w->niv);
	fprintf(out, "%.0f samples in %d slices, %.3f active sessions\n", w->total_ticks,
			w->nslices, b->avg[i]);
}

/* ---------------------------------------------------------------- the events' table */

static const char *
event_header(const void *arg, int col)
{
	return ((const baseline *) arg)->kc[col].header;
}

static const char *
event_cell(const void *arg, const keydiff_row *r, int col, char *buf, size_t len)
{
	const baseline *b = arg;
	wprof_group g;

	memset(&g, 0, sizeof(g));
	g.key = *BASELINE_KEY(b, r);
	return report_col_value(&g, &b->kc[col], buf, len);
}

static void
event_json_key(const void *arg, json_writer *w, const keydiff_row *r)
{
	const baseline *b = arg;
	wprof_group g;

	memset(&g, 0, sizeof(g));
	g.key = *BASELINE_KEY(b, r);
	report_json_key(w, b->s, &g);
}

bl_table
baselineout_event_table(baseline *b)
{
	bl_table	t = {.name = "results", .total = &b->total, .header = event_header,
	.cell = event_cell, .json_key = event_json_key, .arg = b};

	t.ncols = report_columns(b->s->by, b->s->nby, b->kc);
	return t;
}

/* ---------------------------------------------------------------- text */

/* The cells of a row: the key's columns ("total" for the total), then the numbers. */
static void
row_cells(const bl_table *t, const keydiff_row *r, char (*buf)[48], const char **cells)
{
	int			nk = t->ncols;

	for (int c = 0; c < nk; c++)
		cells[c] = r == t->total ? (c == 0 ? "total" : "") :
			t->cell(t->arg, r, c, buf[c], sizeof(buf[c]));
	snprintf(buf[nk], 48, "%.3f", r->base.mean);
	snprintf(buf[nk + 1], 48, "%.3f", r->new.mean);
	snprintf(buf[nk + 2], 48, "%+.3f", r->change);
	if (isfinite(r->bound))
		snprintf(buf[nk + 3], 48, "%.3f", r->bound);
	else
		snprintf(buf[nk + 3], 48, "-");
	if (isfinite(r->pct))
		snprintf(buf[nk + 4], 48, "%+.0f %%", r->pct);
	else
		snprintf(buf[nk + 4], 48, "%s", r->change > 0 ? "new" : "-");
	for (int c = 0; c < 5; c++)
		cells[nk + c] = buf[nk + c];
	cells[nk + 5] = r->verdict;
}

/* One table: its rows by the size of the change (the first REPORT_MAX_GROUPS), its total. */
static void
text_table(FILE *out, const bl_table *t)
{
	int			ncols = t->ncols + 6;
	table_col  *cols = xcalloc((size_t) ncols, sizeof(table_col));
	char		(*buf)[48] = xcalloc((size_t) ncols, sizeof(*buf));
	const char **cells = xcalloc((size_t) ncols, sizeof(char *));
	static const char *const num[] = {"base", "new", "change", "bound", "change %", "verdict"};
	int			shown = t->n < REPORT_MAX_GROUPS ? t->n : REPORT_MAX_GROUPS;
	int			last = shown + (t->total != NULL);

	for (int c = 0; c < ncols; c++)
	{
		cols[c].header = c < t->ncols ? t->header(t->arg, c) : num[c - t->ncols];
		cols[c].sep = c == 0 ? "" : "  ";
		cols[c].left = c < t->ncols || c == ncols - 1;
		/* the verdict, last, is not padded (as pgtempo-bench --compare's) */
		if (c < ncols - 1)
			table_fit(&cols[c], cols[c].header);
	}
	for (int pass = 0; pass < 2; pass++)
	{
		/* the widths of every row shown first, then the rows */
		if (pass == 1)
			table_header(out, cols, ncols);
		for (int i = 0; i < last; i++)
		{
			row_cells(t, i < shown ? &t->rows[i] : t->total, buf, cells);
			for (int c = 0; pass == 0 && c < ncols - 1; c++)
				table_fit(&cols[c], cells[c]);
			if (pass == 1)
				table_row(out, cols, ncols, cells);
		}
	}
	if (shown < t->n)
		fprintf(out, "(%d more; --json lists them all)\n", t->n - shown);
	free(cols);
	free(buf);
	free(cells);
}

/* How the bounds were made, and what a limit did. */
static void
text_notes(FILE *out, const baseline *b)
{
	fprintf(out, "\nactive sessions on average (samples per tick); bound: the change's, %.0f %% for "
			"the %d comparisons\ntogether (each at %.4g %%), from the spread of each window's "
			"slices in batches of\nneighbours (Student's t), and at least the sampling's own; a "
			"change within it: no\ndifference shown.  ", 100 * KEYDIFF_LEVEL, b->family,
			100 * (1 - (1 - KEYDIFF_LEVEL) / b->family));
	if (b->nw > 2)
		fprintf(out, "Bound from %d baseline windows: the baseline is the mean of\ntheir means, "
				"and their spread beyond their own errors widens the bound (the\nhead blockers': "
				"the first baseline window's alone).\n", b->nw - 1);
	else
		fprintf(out, "Within-window spread only: two windows of a load that drifts\ndiffer by more "
				"(--baseline-windows).\n");
	for (int l = 0; l < b->s->nfail_if; l++)
	{
		const keydiff_row *r = &b->limits[l];

		fprintf(out, "--fail-if=%s: %+.3f ± %.3f active sessions", b->s->fail_if[l].lim.text,
				r->change, r->bound);
		if (isfinite(r->pct))
			fprintf(out, " (%+.0f %%)", r->pct);
		fprintf(out, ": %s\n", gate_outcome_word(true, b->tripped[l]));
	}
}

void
baseline_text(FILE *out, const baseline *b)
{
	fprintf(out, "%s --from-log: the window against a baseline (pgtempo %s)\n", msg_progname(),
			PACKAGE_VERSION);
	text_window(out, b, 0);
	for (int i = 2; i < b->nw; i++)
		text_window(out, b, i);
	text_window(out, b, 1);
	for (int t = 0; t < b->ntables; t++)
	{
		if (t > 0)
			fprintf(out, "\n%s:", b->tables[t].name);
		fprintf(out, "\n");
		text_table(out, &b->tables[t]);
	}
	text_notes(out, b);
	fflush(out);
}

/* ---------------------------------------------------------------- JSON */

/* The numbers of a compared row. */
static void
json_change(json_writer *w, const keydiff_row *r)
{
	json_kv_double(w, "base", r->base.mean);
	json_kv_double(w, "new", r->new.mean);
	json_kv_double(w, "change", r->change);
	json_kv_double_or_null(w, "change_pct", isfinite(r->pct), r->pct);
	json_kv_double_or_null(w, "bound", isfinite(r->bound), r->bound);
	if (!isfinite(r->bound))
		json_kv_string(w, "bound_reason", "too few slices");
	json_kv_bool(w, "flagged", r->flagged);
	json_kv_string(w, "verdict", r->verdict);
}

/* A window's members: bounds, files' rows, slices, totals. */
static void
json_window(json_writer *w, const baseline *b, int i)
{
	char		from[FORMAT_TS_LEN],
				to[FORMAT_TS_LEN];
	const bl_window *win = window_bounds(b, i, from, to);

	json_kv_string(w, "since", from);
	json_kv_string(w, "until", to);
	json_key(w, "files");
	json_array_begin(w);
	for (int f = 0; f < win->nfiles; f++)
		json_string(w, win->files[f]);
	json_array_end(w);
	json_kv_uint(w, "intervals", win->niv);
	json_kv_uint(w, "raw_rows", win->raw ? win->n : 0);
	json_kv_int(w, "slices", win->nslices);
	json_kv_double(w, "ticks", win->total_ticks);
	json_kv_double(w, "samples", win->samples);
	json_kv_double(w, "avg_active_sessions", b->avg[i]);
}

/* cmpjson_doc.side: the baseline (its first window, then its further ones) or the new window. */
static void
json_side(const void *arg, json_writer *w, int side)
{
	const baseline *b = arg;

	json_window(w, b, side);
	if (side == 1)
		return;
	json_key(w, "further_windows");
	json_array_begin(w);
	for (int i = 2; i < b->nw; i++)
	{
		json_object_begin(w);
		json_window(w, b, i);
		json_object_end(w);
	}
	json_array_end(w);
}

/* cmpjson_doc.method: how the bounds were made. */
static void
json_method(const void *arg, json_writer *w)
{
	const baseline *b = arg;

	json_kv_string(w, "unit", "active_sessions");
	json_kv_string(w, "bound", "slices_batch_means_t");
	json_kv_int(w, "baseline_windows", b->nw - 1);
	json_kv_bool(w, "covers_between_window_spread", b->nw > 2);
	json_kv_int(w, "min_slices", KEYDIFF_MIN_SLICES);
}

/* cmpjson_doc.body: each table's rows, then the total. */
static void
json_body(const void *arg, json_writer *w)
{
	const baseline *b = arg;

	for (int t = 0; t < b->ntables; t++)
	{
		const bl_table *tb = &b->tables[t];

		json_key(w, tb->name);
		json_array_begin(w);
		for (int i = 0; i < tb->n; i++)
		{
			json_object_begin(w);
			tb->json_key(tb->arg, w, &tb->rows[i]);
			json_change(w, &tb->rows[i]);
			json_object_end(w);
		}
		json_array_end(w);
	}
	json_key(w, "total");
	json_object_begin(w);
	json_change(w, &b->total);
	json_object_end(w);
}

/* cmpjson_doc.limit_text: --fail-if's limit i as given. */
static const char *
json_limit_text(const void *arg, int l)
{
	return ((const baseline *) arg)->s->fail_if[l].lim.text;
}

/* cmpjson_doc.limit: limit l's unit, value, whether it names an event, its change. */
static void
json_limit(const void *arg, json_writer *w, int l)
{
	const baseline *b = arg;
	const waits_limit *lim = &b->s->fail_if[l];

	json_kv_string(w, "unit", lim->lim.unit == GATE_UNIT_PCT ? "pct" : "active_sessions");
	json_kv_double(w, "value", lim->lim.value);
	json_kv_bool(w, "matched", b->matched[l]);
	json_change(w, &b->limits[l]);
}

/* cmpjson_doc.tripped: did limit l trip? */
static bool
json_tripped(const void *arg, int l)
{
	return ((const baseline *) arg)->tripped[l];
}

/* This tool's members of the comparison's document. */
static const cmpjson_ops json_ops = {
	json_side, json_method, json_body, json_limit_text, json_limit, json_tripped
};

/* The comparison as one JSON document (cmpjson.h), with its newline. */
static void
json_document(strbuf *sb, const baseline *b, int exit_status)
{
	cmpjson_doc d = {
		.tool = "pgtempo-waits",
		.level = KEYDIFF_LEVEL,
		.family = b->family,
		.level_each = 1 - (1 - KEYDIFF_LEVEL) / b->family,
		.nlimits = b->s->nfail_if,
		.exit_status = exit_status,
		.ops = &json_ops,
		.arg = b,
	};

	cmpjson_write(sb, &d);
}

void
baseline_json(FILE *out, const baseline *b, int exit_status)
{
	strbuf		sb;

	strbuf_init(&sb);
	json_document(&sb, b, exit_status);
	fputs(sb.data, out);
	fflush(out);
	strbuf_free(&sb);
}

bool
baseline_json_file(const baseline *b, int exit_status)
{
	strbuf		sb;
	bool		ok;

	if (b->s->json_path == NULL)
		return true;
	strbuf_init(&sb);
	json_document(&sb, b, exit_status);
	ok = report_write_file(b->s->json_path, &sb);
	strbuf_free(&sb);
	return ok;
}

/* A key's label on the chart: its columns joined. */
static char *
key_label(const baseline *b, const keydiff_row *r)
{
	report_col kc[REPORT_MAX_COLS];
	int			nk = report_columns(b->s->by, b->s->nby, kc);
	wprof_group g;
	strbuf		sb;
	char		buf[48];

	memset(&g, 0, sizeof(g));
	g.key = *BASELINE_KEY(b, r);
	strbuf_init(&sb);
	for (int c = 0; c < nk; c++)
	{
		const char *v = report_col_value(&g, &kc[c], buf, sizeof(buf));

		if (*v != '\0')
			strbuf_printf(&sb, "%s%s", sb.len > 0 ? ":" : "", v);
	}
	if (sb.len == 0)
		strbuf_puts(&sb, "CPU");
	return sb.data;
}

/* The top nkeys keys' active sessions in each slice of window side: [key * nslices + slice]. */
static double *
top_series(const baseline *b, int side, int nkeys)
{
	const bl_window *w = &b->w[side];
	size_t		ns = (size_t) (w->nslices > 0 ? w->nslices : 1);
	double	   *y = xcalloc((size_t) nkeys * ns, sizeof(double));

	for (size_t i = 0; i < w->n; i++)
		for (int k = 0; k < nkeys; k++)
			if (w->e[i].key == b->rows[k].key)
				y[(size_t) k * ns + w->e[i].t_us] += w->e[i].samples;
	for (int k = 0; k < nkeys; k++)
		for (size_t sl = 0; sl < (size_t) w->nslices; sl++)
			y[(size_t) k * ns + sl] = w->ticks[sl] > 0 ? y[(size_t) k * ns + sl] / w->ticks[sl] : NAN;
	return y;
}

/* One window's panel: the series of top_series over the time since its start, up to ymax. */
static void
chart_window(chart *ch, const baseline *b, int side, int nkeys, const double *y, double ymax)
{
	char		from[FORMAT_TS_LEN],
				to[FORMAT_TS_LEN];
	const bl_window *w = window_bounds(b, side, from, to);
	char	   *title;
	int			panel;
	size_t		ns = (size_t) (w->nslices > 0 ? w->nslices : 1);
	double		slice_s = w->slice_us / 1e6;

	title = xasprintf("%s: %s to %s", side == 0 ? "Baseline" : "Window", from, to);
	panel = chart_add_panel(ch, title, 0);
	free(title);
	chart_set_y(ch, panel, CHART_LEFT, "average active sessions", "sessions");
	chart_set_y_range(ch, panel, CHART_LEFT, 0, ymax > 0 ? ymax : 1);
	for (int k = 0; k < nkeys; k++)
	{
		char	   *name = key_label(b, &b->rows[k]);
		int			ser = chart_add_series(ch, panel, name, CHART_LINE, CHART_LEFT, k);

		for (int sl = 0; sl < w->nslices; sl++)
			chart_add_point(ch, ser, sl * slice_s, y[(size_t) k * ns + (size_t) sl]);
		free(name);
	}
}

bool
baseline_chart(const char *path, const baseline *b, char **cause)
{
	int			nkeys = b->nrows < BL_CHART_KEYS ? b->nrows : BL_CHART_KEYS;
	chart	   *ch = chart_new("pgtempo-waits", "the largest changes: the baseline above, the window below, on one scale");
	double	   *y[2];
	double		ymax = 0;
	strbuf		sb;
	bool		ok;

	chart_set_x(ch, CHART_X_ELAPSED, "time since the window's start");
	chart_set_x_range(ch, 0, NAN);
	for (int side = 0; side < 2; side++)
	{
		y[side] = top_series(b, side, nkeys);
		for (size_t i = 0; i < (size_t) nkeys * (size_t) b->w[side].nslices; i++)
			if (y[side][i] > ymax)
				ymax = y[side][i];
	}
	for (int side = 0; side < 2; side++)
	{
		chart_window(ch, b, side, nkeys, y[side], ymax);
		free(y[side]);
	}
	strbuf_init(&sb);
	chart_render(ch, &sb);
	ok = strbuf_write_file(path, sb.data, sb.len, cause);
	strbuf_free(&sb);
	chart_free(ch);
	return ok;
}
