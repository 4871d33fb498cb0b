/*
 * comparechart.c — --compare --chart: the runs' throughput over time side
 * by side, and both sides' latency distributions overlaid.
 *
 * The chart's time panels share one x axis (time since the start), while
 * a distribution's x is the percentile: the distributions are a chart of
 * their own (x: the percentile as "nines", 1 = p90, 2 = p99, 3 = p99.9;
 * y: the latency on a log scale), drawn by the core's chart module and
 * placed in a custom panel of the first as a nested <svg>.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "pgtempo/chart.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

/* The distributions' chart, rendered, and its height. */
typedef struct dist_panel
{
	strbuf		svg;			/* without its <?xml?> line */
	double		height;			/* its own height, in its own units */
} dist_panel;

static double
dist_height(const void *arg)
{
	const dist_panel *d = arg;

	/* drawn a little narrower (the panel's width), so a little lower: some room to spare */
	return d->height;
}

static void
dist_draw(const void *arg, const chart_frame *f, strbuf *out)
{
	const dist_panel *d = arg;

	strbuf_printf(out, "<g transform=\"translate(%.1f %.1f) scale(%.5f)\">\n", f->x0, f->y,
				  (f->x1 - f->x0) / CHART_WIDTH);
	strbuf_append(out, d->svg.data, d->svg.len);
	strbuf_puts(out, "</g>\n");
}

static void
dist_free(void *arg)
{
	dist_panel *d = arg;

	strbuf_free(&d->svg);
	free(d);
}

static const chart_custom dist_fns = {dist_height, dist_draw, dist_free};

/* A side's latencies: its runs' histograms added up. */
static hist *
side_hist(const cmp_side *sd)
{
	hist	   *h = hist_new(1);

	for (int i = 0; i < sd->n; i++)
		hist_merge(h, sd->runs[i].h);
	return h;
}

int
cmpchart_curve(const hist *h, double *x, double *y)
{
	double		top = h->total > 1 ? log10((double) h->total) : 0;
	int			n = 0;

	/* on a grid of whole steps (no sum of steps that drifts), then the end itself */
	for (int k = 0; k < CMP_CURVE_MAX - 1 && k * 0.02 < top - 1e-9; k++)
		x[n++] = k * 0.02;
	x[n++] = top;
	for (int i = 0; i < n; i++)
		y[i] = (double) hist_percentile(h, i == n - 1 && h->total > 1 ?
										100 * (1 - 1 / (double) h->total) :
										100 * (1 - pow(10, -x[i]))) / 1e6;
	return n;
}

/* The distributions' chart, rendered into a panel. */
static dist_panel *
make_dist(const cmp *c)
{
	chart	   *dc = chart_new(NULL, NULL);
	int			p = chart_add_panel(dc, NULL, 0);
	dist_panel *d = xcalloc(1, sizeof(*d));
	strbuf		sb;
	const char *body;
	int			height = 0;
	double	   *x = xcalloc(CMP_CURVE_MAX, sizeof(double)),
			   *y = xcalloc(CMP_CURVE_MAX, sizeof(double));

	/* nested in the outer chart: ids of its own, else the outer plot's clip path clips its curves */
	chart_set_id_prefix(dc, "dist-");
	chart_set_x(dc, CHART_X_NUMBER, "percentile as nines: 0 = p0, 1 = p90, 2 = p99, 3 = p99.9");
	chart_set_y(dc, p, CHART_LEFT, "latency", "ms, log scale");
	chart_set_y_log(dc, p, CHART_LEFT, true);
	for (int s = 0; s < 2; s++)
	{
		hist	   *h = side_hist(&c->side[s]);
		int			ser = chart_add_series(dc, p, s == 0 ? "base" : "new", CHART_LINE, CHART_LEFT,
										   s == 0 ? CHART_BLUE : CHART_ORANGE);
		int			n = cmpchart_curve(h, x, y);

		/* up to the percentile one transaction lies beyond */
		for (int i = 0; i < n; i++)
			chart_add_point(dc, ser, x[i], y[i]);
		free(h);
	}
	free(x);
	free(y);
	strbuf_init(&sb);
	chart_render(dc, &sb);
	chart_free(dc);
	body = strstr(sb.data, "<svg");
	strbuf_init(&d->svg);
	strbuf_puts(&d->svg, body != NULL ? body : "");
	if (body != NULL)
		sscanf(strstr(body, "height=\"") != NULL ? strstr(body, "height=\"") : "", "height=\"%d\"",
			   &height);
	d->height = height;
	strbuf_free(&sb);
	return d;
}

/* One series of throughput per run: base runs in blue, new ones in orange. */
static void
add_tps(const cmp *c, chart *ch, int panel)
{
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < c->side[s].n; i++)
		{
			const merge_host *h = &c->side[s].runs[i];
			char	   *name = xasprintf("%s: %s", s == 0 ? "base" : "new", h->file);
			int			ser = chart_add_series(ch, panel, name, CHART_LINE, CHART_LEFT,
											   s == 0 ? CHART_BLUE : CHART_ORANGE);

			for (int r = 0; r < h->series.nrows; r++)
			{
				const series_row *row = &h->series.rows[r];

				chart_add_point(ch, ser, row->time_s, row->interval_s > 0 ?
								(double) row->cells[0].transactions / row->interval_s : NAN);
			}
			free(name);
		}
}

bool
cmpout_chart(const char *path, const cmp *c, char **cause)
{
	char	   *sub = xasprintf("%s --compare: %d base run%s (blue) against %d new (orange)",
								msg_progname(), c->side[0].n, c->side[0].n == 1 ? "" : "s",
								c->side[1].n);
	chart	   *ch = chart_new("pgtempo-bench", sub);
	int			tput = chart_add_panel(ch, "Throughput of each run", 0);
	strbuf		sb;
	bool		ok;

	chart_set_x(ch, CHART_X_ELAPSED, "time since start");
	chart_set_x_range(ch, 0, NAN);
	chart_set_y(ch, tput, CHART_LEFT, "transactions per second", "tps");
	add_tps(c, ch, tput);
	chart_add_custom_panel(ch, "Latency distributions (base in blue, new in orange)", &dist_fns,
						   make_dist(c));
	strbuf_init(&sb);
	chart_render(ch, &sb);
	ok = strbuf_write_free(&sb, path, cause);
	chart_free(ch);
	free(sub);
	return ok;
}
