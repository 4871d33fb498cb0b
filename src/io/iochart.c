/*
 * iochart.c — the --chart SVG (see iochart.h), on the core's charts: two
 * time panels and one panel of bars drawn here.
 */
#include "config.h"

#include "iochart.h"

#include <stdio.h>
#include <string.h>

#include "pgtempo/chart.h"
#include "pgtempo/hist.h"
#include "pgtempo/svg.h"

#include "iofmt.h"

#define BARS_HEIGHT 220.0
#define BARS_LABELS 34.0		/* room under the bars for their labels */
#define BARS_LEFT 60.0

/* The bar panel's height. */
static double
bars_height(const void *arg)
{
	(void) arg;
	return BARS_HEIGHT;
}

/* The log2 histogram as bars, from its lowest non-empty bucket to its highest. */
static void
bars_draw(const void *arg, const chart_frame *f, strbuf *out)
{
	const hlog2 *h = arg;
	int			lo = 0,
				hi = hlog2_top(h);
	uint64_t	most = 0;
	double		plot_h = f->h - BARS_LABELS - 10,
				x0 = f->x0 + BARS_LEFT,
				w;
	char		label[IOFMT_MAX + 4],
				num[32];

	if (hi < 0)
	{
		svg_text_el(out, x0, f->y + f->h / 2, NULL, "font-size=\"12\"", "no requests counted", 0);
		return;
	}
	while (h->count[lo] == 0)
		lo++;
	for (int b = lo; b <= hi; b++)
		if (h->count[b] > most)
			most = h->count[b];
	w = (f->x1 - x0) / (hi - lo + 1);
	snprintf(num, sizeof(num), "%llu", (unsigned long long) most);
	svg_text_el(out, x0 - 6, f->y + 14, "end", "font-size=\"11\"", num, 0);
	svg_text_el(out, x0 - 6, f->y + 10 + plot_h, "end", "font-size=\"11\"", "0", 0);
	for (int b = lo; b <= hi; b++)
	{
		double		bh = plot_h * (double) h->count[b] / (double) most;
		double		x = x0 + (b - lo) * w;

		strbuf_puts(out, "<rect");
		svg_attr_num(out, "x", x + 1);
		svg_attr_num(out, "y", f->y + 10 + plot_h - bh);
		svg_attr_num(out, "width", w > 3 ? w - 2 : w);
		svg_attr_num(out, "height", bh);
		chart_colour_attr(out, "fill", CHART_BLUE);
		strbuf_puts(out, "><title>");
		snprintf(label, sizeof(label), "< ");
		iofmt_time(label + 2, hlog2_bucket_max(b) + 1);
		svg_text(out, label, 0);
		snprintf(num, sizeof(num), ": %llu", (unsigned long long) h->count[b]);
		svg_text(out, num, 0);
		strbuf_puts(out, "</title></rect>\n");
		svg_text_el(out, x + w / 2, f->y + 10 + plot_h + 16, "middle", "font-size=\"10\"",
					label, svg_fit_chars(w, 10));
	}
}

static const chart_custom bars = {bars_height, bars_draw, NULL};

void
iochart_render(const io_settings *s, const io_target *t, const io_stats *st, strbuf *out)
{
	const io_timeline *tl = st->timeline;
	char		sub[600];
	chart	   *c;
	int			p_time,
				p_rate,
				mean,
				max,
				rate;
	double		width_s = (double) tl->width_ns / 1e9;

	snprintf(sub, sizeof(sub), "%s (%s): %s %s requests of %llu bytes", t->path, t->describe,
			 s->linear ? "sequential" : "random",
			 s->read_write ? "read-write" : s->write > 0 ? "write" : "read",
			 (unsigned long long) s->size);
	c = chart_new("pgtempo-io", sub);
	chart_set_x(c, CHART_X_ELAPSED, "time since start");
	p_time = chart_add_panel(c, "Request time", 0);
	chart_set_y(c, p_time, CHART_LEFT, "request time", "ms");
	chart_set_y_log(c, p_time, CHART_LEFT, true);
	mean = chart_add_series(c, p_time, "mean", CHART_LINE, CHART_LEFT, CHART_BLUE);
	max = chart_add_series(c, p_time, "slowest", CHART_LINE, CHART_LEFT, CHART_VERMILLION);
	p_rate = chart_add_panel(c, "Requests counted per second", 0);
	chart_set_y(c, p_rate, CHART_LEFT, "requests", "/s");
	rate = chart_add_series(c, p_rate, "requests", CHART_STEP, CHART_LEFT, CHART_GREEN);
	for (int i = 0; i < tl->nbins; i++)
	{
		const io_bin *b = &tl->bins[i];
		double		x = (i + 0.5) * width_s;

		chart_add_point(c, rate, i * width_s, (double) b->count / width_s);
		if (b->count == 0)
			continue;
		chart_add_point(c, mean, x, b->sum_ns / (double) b->count / 1e6);
		chart_add_point(c, max, x, (double) b->max_ns / 1e6);
	}
	chart_add_custom_panel(c, "Distribution of the request times (log2 buckets)", &bars,
						   (void *) &st->log2);
	chart_render(c, out);
	chart_free(c);
}
