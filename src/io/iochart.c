/*
 * iochart.c — the --chart SVG (see iochart.h), on the core's charts: two
 * time panels and one panel of bars drawn here; for PostgreSQL's tests, a
 * panel of bars per test on one scale.
 */
#include "config.h"

#include "iochart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/chart.h"
#include "pgtempo/hist.h"
#include "pgtempo/svg.h"
#include "pgtempo/xalloc.h"

#include "iofmt.h"

#define BARS_HEIGHT 220.0
#define BARS_HEIGHT_DIST 170.0	/* one panel per test: several on one page */
#define BARS_LABELS 34.0		/* room under the bars for their labels */
#define BARS_LEFT 60.0

/* A bar panel: a log2 histogram drawn from bucket lo to hi (one range for every panel). */
typedef struct bars_arg
{
	hlog2		h;
	int			lo;
	int			hi;
	double		height;
} bars_arg;

/* The bar panel's height. */
static double
bars_height(const void *arg)
{
	return ((const bars_arg *) arg)->height;
}

/* The log2 histogram as bars, from bucket lo to bucket hi. */
static void
bars_draw(const void *arg, const chart_frame *f, strbuf *out)
{
	const bars_arg *a = arg;
	const hlog2 *h = &a->h;
	int			lo = a->lo,
				hi = a->hi;
	uint64_t	most = 0;
	double		plot_h = f->h - BARS_LABELS - 10,
				x0 = f->x0 + BARS_LEFT,
				w;
	char		label[IOFMT_MAX + 4],
				num[32];

	if (hlog2_top(h) < 0)
	{
		svg_text_el(out, x0, f->y + f->h / 2, NULL, "font-size=\"12\"", "no requests counted", 0);
		return;
	}
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

/* Widen [*lo, *hi] to h's non-empty buckets. */
static void
bars_range(const hlog2 *h, int *lo, int *hi)
{
	int			top = hlog2_top(h),
				b = 0;

	if (top < 0)
		return;
	while (h->count[b] == 0)
		b++;
	if (*hi < 0 || b < *lo)
		*lo = b;
	if (top > *hi)
		*hi = top;
}

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
	bars_arg	a;

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
	a.h = st->log2;
	a.lo = 0;
	a.hi = -1;
	a.height = BARS_HEIGHT;
	bars_range(&a.h, &a.lo, &a.hi);
	chart_add_custom_panel(c, "Distribution of the request times (log2 buckets)", &bars, &a);
	chart_render(c, out);
	chart_free(c);
}

/* A test's panel title: what it did and its figures. */
static void
dist_title(const io_dist *d, char *buf, size_t len)
{
	char		p50[IOFMT_MAX],
				p99[IOFMT_MAX];
	int			n;

	if (strcmp(d->test, "read") == 0)
		n = snprintf(buf, len, "%s 8 KiB reads%s", d->method, d->direct ? ", direct I/O" : "");
	else
		n = snprintf(buf, len, "%s, %d 8 KiB write%s per sync%s", d->method, d->writes,
					 d->writes > 1 ? "s" : "", d->direct ? ", direct I/O" : "");
	if (n < 0 || (size_t) n >= len)
		return;
	if (d->h == NULL)
		snprintf(buf + n, len - (size_t) n, ": not run (stopped)");
	else
		snprintf(buf + n, len - (size_t) n, ": %llu requests, %.1f ops/s, p50 %s, p99 %s",
				 (unsigned long long) d->h->total, d->ops_per_sec,
				 iofmt_time(p50, hist_percentile(d->h, 50)),
				 iofmt_time(p99, hist_percentile(d->h, 99)));
}

void
iochart_render_dists(const char *subtitle, const io_dist *d, int n, strbuf *out)
{
	bars_arg   *a = xcalloc((size_t) (n > 0 ? n : 1), sizeof(*a));
	int			lo = 0,
				hi = -1;
	chart	   *c = chart_new("pgtempo-io", subtitle);

	for (int i = 0; i < n; i++)
	{
		if (d[i].h != NULL)
			io_stats_log2(d[i].h, 1, &a[i].h);
		bars_range(&a[i].h, &lo, &hi);
	}
	for (int i = 0; i < n; i++)
	{
		char		title[300];

		a[i].lo = lo;
		a[i].hi = hi;
		a[i].height = BARS_HEIGHT_DIST;
		dist_title(&d[i], title, sizeof(title));
		chart_add_custom_panel(c, title, &bars, &a[i]);
	}
	chart_render(c, out);
	chart_free(c);
	free(a);
}
