/*
 * check_chart.c — unit tests of the SVG chart writer: whole charts
 * rendered from hostile, degenerate and ordinary input, their geometry,
 * legend, axes and labels, size and misuse.  The pieces (ticks, number
 * format, escaping) are tested in check_chart_pieces.c.
 *
 * Every rendered document goes through a small well-formedness checker
 * (svgcheck.c), and through xmllint too when it is installed.
 */
#include "config.h"

#include "check_chart.h"

#include "pgtempo/svg.h"

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "svgcheck.h"

/* ---------------------------------------------------------------- a custom panel to test the hook */

/* What the chart asked of a probe panel and handed to it. */
typedef struct probe
{
	double		height;			/* what height() answers */
	int			heights;		/* times asked */
	int			draws;
	chart_frame frame;			/* the last frame drawn into */
	int		   *freed;			/* counts free_arg() calls, outliving the probe */
} probe;

static double
probe_height(const void *arg)
{
	probe	   *p = (probe *) arg;

	p->heights++;
	return p->height;
}

static void
probe_draw(const void *arg, const chart_frame *f, strbuf *out)
{
	probe	   *p = (probe *) arg;

	p->draws++;
	p->frame = *f;
	strbuf_puts(out, "<rect class=\"probe\"");
	svg_attr_num(out, "x", f->x0);
	svg_attr_num(out, "y", f->y);
	svg_attr_num(out, "width", f->x1 - f->x0);
	svg_attr_num(out, "height", f->h);
	strbuf_puts(out, "/>\n");
}

static void
probe_free(void *arg)
{
	probe	   *p = arg;

	if (p->freed != NULL)
		(*p->freed)++;
}

static const chart_custom probe_panel = {
	.height = probe_height,
	.draw = probe_draw,
	.free_arg = probe_free,
};

/* The functions without free_arg: the caller keeps the probe. */
static const chart_custom probe_kept = {
	.height = probe_height,
	.draw = probe_draw,
};

static int
count_substr(const char *hay, const char *needle)
{
	int			n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* Hostile text everywhere a caller can put text. */
static void
hostile_chart(chart *c, const char *evil)
{
	int			p = chart_add_panel(c, evil, 0);
	static probe pr = {.height = 30};
	int			s1 = chart_add_series(c, p, evil, CHART_LINE, CHART_LEFT, CHART_AUTO);
	int			s2 = chart_add_series(c, p, evil, CHART_AREA, CHART_RIGHT, CHART_AUTO);
	int			s3 = chart_add_series(c, p, evil, CHART_EVENTS, CHART_LEFT, CHART_AUTO);

	chart_set_x(c, CHART_X_NUMBER, evil);
	chart_set_y(c, p, CHART_LEFT, evil, evil);
	chart_set_y(c, p, CHART_RIGHT, evil, evil);
	for (int i = 0; i < 10; i++)
	{
		chart_add_point(c, s1, i, i * i);
		chart_add_point(c, s2, i, 10 - i);
		chart_add_point(c, s3, i, i % 3);
	}
	chart_add_custom_panel(c, evil, &probe_kept, &pr);
}

START_TEST(test_render_hostile_text)
{
	svgcheck_hostile(hostile_chart);
}
END_TEST

/* ---------------------------------------------------------------- degenerate input */

static void
degenerate_no_panels(chart *c)
{
	(void) c;
}

static void
degenerate_no_series(chart *c)
{
	static probe pr;			/* nothing drawn, no height */

	chart_add_panel(c, "empty", 0);
	chart_add_custom_panel(c, "custom, empty", &probe_kept, &pr);
}

static void
degenerate_no_points(chart *c)
{
	int			p = chart_add_panel(c, "p", 0);

	chart_add_series(c, p, "line", CHART_LINE, CHART_LEFT, CHART_AUTO);
	chart_add_series(c, p, "area", CHART_AREA, CHART_LEFT, CHART_AUTO);
	chart_add_series(c, p, "events", CHART_EVENTS, CHART_LEFT, CHART_AUTO);
	chart_add_series(c, p, "right", CHART_STEP, CHART_RIGHT, CHART_AUTO);
	chart_set_y_log(c, p, CHART_RIGHT, true);
}

static void
degenerate_one_point(chart *c)
{
	int			p = chart_add_panel(c, "p", 0);

	chart_add_point(c, chart_add_series(c, p, "line", CHART_LINE, CHART_LEFT, 0), 5, 7);
	chart_add_point(c, chart_add_series(c, p, "area", CHART_AREA, CHART_LEFT, 1), 5, 3);
	chart_add_point(c, chart_add_series(c, p, "ev", CHART_EVENTS, CHART_LEFT, 2), 5, 1);
}

static void
degenerate_all_zero(chart *c)
{
	int			p = chart_add_panel(c, "p", 0);
	int			s = chart_add_series(c, p, "line", CHART_LINE, CHART_LEFT, CHART_AUTO);
	int			a = chart_add_series(c, p, "area", CHART_AREA, CHART_RIGHT, CHART_AUTO);

	for (int i = 0; i < 5; i++)
	{
		chart_add_point(c, s, i, 0);
		chart_add_point(c, a, i, 0);
	}
}

static void
degenerate_huge(chart *c)
{
	int			p = chart_add_panel(c, "p", 0);
	int			s = chart_add_series(c, p, "line", CHART_LINE, CHART_LEFT, CHART_AUTO);
	int			r = chart_add_series(c, p, "right", CHART_LINE, CHART_RIGHT, CHART_AUTO);

	chart_add_point(c, s, 0, 1e300);
	chart_add_point(c, s, 1, -1e308);
	chart_add_point(c, s, 2, DBL_MAX);
	chart_add_point(c, r, 0, 1e-300);
	chart_add_point(c, r, 1, 4.9e-324);
}

static void
degenerate_nonfinite(chart *c)
{
	int			p = chart_add_panel(c, "p", 0);
	int			s = chart_add_series(c, p, "line", CHART_LINE, CHART_LEFT, CHART_AUTO);
	int			a = chart_add_series(c, p, "area", CHART_AREA, CHART_LEFT, CHART_AUTO);
	int			e = chart_add_series(c, p, "events", CHART_EVENTS, CHART_LEFT, CHART_AUTO);

	chart_add_point(c, s, NAN, 1);
	chart_add_point(c, s, 1, NAN);
	chart_add_point(c, s, 2, INFINITY);
	chart_add_point(c, s, -INFINITY, 3);
	chart_add_point(c, a, NAN, NAN);
	chart_add_point(c, e, INFINITY, 4);
	chart_add_point(c, e, 3, NAN);
}

static void
degenerate_unsorted_outside(chart *c)
{
	int			p = chart_add_panel(c, "p", 0);
	int			s = chart_add_series(c, p, "line", CHART_STEP, CHART_LEFT, CHART_AUTO);
	int			a = chart_add_series(c, p, "area", CHART_AREA, CHART_LEFT, CHART_AUTO);
	int			e = chart_add_series(c, p, "events", CHART_EVENTS, CHART_LEFT, CHART_AUTO);

	chart_set_x(c, CHART_X_ELAPSED, "t");
	chart_set_x_range(c, 10, 20);
	chart_set_y_range(c, p, CHART_LEFT, 0, 5);
	for (int i = 30; i >= 0; i--)
	{
		chart_add_point(c, s, i, i);
		chart_add_point(c, a, i, -i);
		chart_add_point(c, e, i, 1);
	}
}

static void
degenerate_log_nonpositive(chart *c)
{
	int			p = chart_add_panel(c, "p", 0);
	int			s = chart_add_series(c, p, "line", CHART_LINE, CHART_LEFT, CHART_AUTO);

	chart_set_y_log(c, p, CHART_LEFT, true);
	chart_set_y_range(c, p, CHART_LEFT, -5, NAN);
	chart_add_point(c, s, 0, 0);
	chart_add_point(c, s, 1, -1);
	chart_add_point(c, s, 2, 0);
}

static void
degenerate_clock_one_x(chart *c)
{
	int			p = chart_add_panel(c, "p", 0);
	int			s = chart_add_series(c, p, "line", CHART_LINE, CHART_LEFT, CHART_AUTO);

	chart_set_x(c, CHART_X_CLOCK, "time");
	chart_set_x_range(c, 1.7e9, 1.7e9);
	chart_add_point(c, s, 1.7e9, 1);
	chart_add_point(c, s, 1.7e9, 2);
}

static void
degenerate_tiny_panel(chart *c)
{
	int			p = chart_add_panel(c, NULL, 1);	/* too small: the default */
	int			s = chart_add_series(c, p, NULL, CHART_LINE, CHART_RIGHT, CHART_NCOLOURS + 5);

	chart_set_y_range(c, p, CHART_RIGHT, 3, 3);
	chart_add_point(c, s, 1, 3);
	chart_add_point(c, s, 2, 3);
}

static const svgcheck_case degenerate_cases[] = {
	{"no panels", degenerate_no_panels},
	{"no series", degenerate_no_series},
	{"no points", degenerate_no_points},
	{"one point", degenerate_one_point},
	{"all zero", degenerate_all_zero},
	{"huge", degenerate_huge},
	{"non-finite", degenerate_nonfinite},
	{"unsorted, outside the ranges", degenerate_unsorted_outside},
	{"log of non-positive", degenerate_log_nonpositive},
	{"clock, one x", degenerate_clock_one_x},
	{"tiny panel", degenerate_tiny_panel},
};

/* One point makes a dot, not an invisible zero-length line. */
START_TEST(test_one_point_is_a_dot)
{
	chart	   *c = chart_new("t", NULL);
	int			p = chart_add_panel(c, NULL, 0);
	int			s = chart_add_series(c, p, "s", CHART_LINE, CHART_LEFT, CHART_AUTO);
	char	   *doc;

	chart_add_point(c, s, 1, 1);
	chart_add_point(c, s, 2, NAN);
	chart_add_point(c, s, 3, 5);
	chart_add_point(c, s, 4, 6);
	doc = svgcheck_render(c);
	ck_assert_int_eq(count_substr(doc, "<circle"), 1);
	ck_assert_int_eq(count_substr(doc, "class=\"line\""), 1);
	free(doc);
	chart_free(c);
}
END_TEST

/* ---------------------------------------------------------------- geometry */

/* The numbers of the d attribute of the area path titled name. */
static int
area_numbers(const char *doc, const char *name, double *out, int max)
{
	char		title[128];
	const char *t,
			   *start,
			   *p;
	int			n = 0;

	snprintf(title, sizeof(title), "<title>%s</title></path>", name);
	t = strstr(doc, title);
	ck_assert_ptr_nonnull(t);
	/* back to the start of that path element */
	for (start = t; start > doc && strncmp(start, "<path", 5) != 0; start--)
		;
	ck_assert_ptr_nonnull(strstr(start, "class=\"area\""));
	p = strstr(start, " d=\"");
	ck_assert(p != NULL && p < t);
	for (p += 4; *p != '"' && n < max;)
	{
		char	   *end;
		double		v;

		if (strchr("MLHVZ ", *p) != NULL)
		{
			p++;
			continue;
		}
		v = strtod(p, &end);
		ck_assert_msg(end != p, "bad path data at \"%.20s\"", p);
		out[n++] = v;
		p = end;
	}
	return n;
}

static void
assert_points(const double *got, int n, const double *want, int nwant, const char *what)
{
	ck_assert_msg(n == nwant, "%s: %d numbers, want %d", what, n, nwant);
	for (int i = 0; i < n; i++)
		ck_assert_msg(fabs(got[i] - want[i]) <= 0.051, "%s: number %d is %g, want %g",
					  what, i, got[i], want[i]);
}

/*
 * Two stacked series on fixed ranges: A = 30, 50 and B = 20, 50 at x = 0,
 * 10 of 0..100 % -- B sits on A and tops out at the plot's top edge.
 */
START_TEST(test_stacked_two_series)
{
	chart	   *c = chart_new("stack", NULL);
	int			p = chart_add_panel(c, NULL, 200);
	int			a = chart_add_series(c, p, "A", CHART_AREA, CHART_LEFT, CHART_AUTO);
	int			b = chart_add_series(c, p, "B", CHART_AREA, CHART_LEFT, CHART_AUTO);
	char	   *doc;
	const char *plot;
	double		px,
				py,
				pw,
				ph,
				got[32];
	int			n;

	chart_set_x_range(c, 0, 10);
	chart_set_y_range(c, p, CHART_LEFT, 0, 100);
	chart_add_point(c, a, 0, 30);
	chart_add_point(c, a, 10, 50);
	chart_add_point(c, b, 0, 20);
	chart_add_point(c, b, 10, 50);
	doc = svgcheck_render(c);

	plot = strstr(doc, "<rect class=\"plot\"");
	ck_assert_ptr_nonnull(plot);
	px = svgcheck_attr_num(plot, "x");
	py = svgcheck_attr_num(plot, "y");
	pw = svgcheck_attr_num(plot, "width");
	ph = svgcheck_attr_num(plot, "height");
	ck_assert(pw > 100 && ph == 200);

	{
		/* A: top edge forward, then the baseline back */
		double		want[] = {px, py + ph * 0.7, px + pw, py + ph * 0.5,
			px + pw, py + ph, px, py + ph};

		n = area_numbers(doc, "A", got, 32);
		assert_points(got, n, want, 8, "A");
	}
	{
		/* B: its top (A + B) forward, then A's top back */
		double		want[] = {px, py + ph * 0.5, px + pw, py,
			px + pw, py + ph * 0.5, px, py + ph * 0.7};

		n = area_numbers(doc, "B", got, 32);
		assert_points(got, n, want, 8, "B");
	}
	free(doc);
	chart_free(c);
}
END_TEST

/* A series without a point at some x counts 0 there; the union of the x values is the grid. */
START_TEST(test_stacked_union_grid)
{
	chart	   *c = chart_new("stack", NULL);
	int			p = chart_add_panel(c, NULL, 100);
	int			a = chart_add_series(c, p, "A", CHART_AREA, CHART_LEFT, CHART_AUTO);
	int			b = chart_add_series(c, p, "B", CHART_AREA, CHART_LEFT, CHART_AUTO);
	char	   *doc;
	const char *plot;
	double		px,
				py,
				pw,
				ph,
				got[32];
	int			n;

	chart_set_x_range(c, 0, 2);
	chart_set_y_range(c, p, CHART_LEFT, 0, 10);
	chart_add_point(c, a, 0, 2);
	chart_add_point(c, a, 1, 4);
	chart_add_point(c, a, 2, 2);
	chart_add_point(c, b, 2, 5);	/* out of order on purpose */
	chart_add_point(c, b, 0, 5);
	doc = svgcheck_render(c);
	plot = strstr(doc, "<rect class=\"plot\"");
	px = svgcheck_attr_num(plot, "x");
	py = svgcheck_attr_num(plot, "y");
	pw = svgcheck_attr_num(plot, "width");
	ph = svgcheck_attr_num(plot, "height");
	{
		double		want[] = {px, py + ph * 0.3, px + pw / 2, py + ph * 0.6, px + pw, py + ph * 0.3,
			px + pw, py + ph * 0.8, px + pw / 2, py + ph * 0.6, px, py + ph * 0.8};

		n = area_numbers(doc, "B", got, 32);
		assert_points(got, n, want, 12, "B");
	}
	free(doc);
	chart_free(c);
}
END_TEST

/* ---------------------------------------------------------------- legend, axes, labels */

START_TEST(test_legend_once_each)
{
	static const char *const names[] = {"tps", "p50", "p99", "IO:WALSync", "CPU", "failures"};
	static const chart_style styles[] = {CHART_LINE, CHART_LINE, CHART_STEP, CHART_AREA,
	CHART_AREA, CHART_EVENTS};
	chart	   *c = chart_new("legend", NULL);
	int			p1 = chart_add_panel(c, "one", 0);
	int			p2 = chart_add_panel(c, "two", 0);
	char	   *doc;

	for (int i = 0; i < 6; i++)
	{
		int			s = chart_add_series(c, i < 3 ? p1 : p2, names[i], styles[i],
										 CHART_LEFT, CHART_AUTO);

		for (int x = 0; x < 20; x++)
			chart_add_point(c, s, x, x % 4 + i);
	}
	doc = svgcheck_render(c);
	ck_assert_int_eq(count_substr(doc, "class=\"legend\""), 6);
	for (int i = 0; i < 6; i++)
	{
		char		want[64];

		snprintf(want, sizeof(want), "class=\"legend\">%s</text>", names[i]);
		ck_assert_msg(count_substr(doc, want) == 1, "legend entry %s", names[i]);
	}
	/* areas are listed top of the stack first */
	ck_assert(strstr(doc, ">CPU</text>") < strstr(doc, ">IO:WALSync</text>"));
	free(doc);
	chart_free(c);
}
END_TEST

/* A right axis gets as many intervals as the left one, so its ticks sit on the gridlines. */
START_TEST(test_right_axis_aligned)
{
	chart	   *c = chart_new("axes", NULL);
	int			p = chart_add_panel(c, NULL, 0);
	int			l = chart_add_series(c, p, "tps", CHART_LINE, CHART_LEFT, CHART_AUTO);
	int			r = chart_add_series(c, p, "lag", CHART_LINE, CHART_RIGHT, CHART_AUTO);
	char	   *doc;

	chart_set_y(c, p, CHART_LEFT, "throughput", "tps");
	chart_set_y(c, p, CHART_RIGHT, "lag", "ms");
	chart_add_point(c, l, 0, 0);
	chart_add_point(c, l, 1, 947);
	chart_add_point(c, r, 0, 0);
	chart_add_point(c, r, 1, 37);
	doc = svgcheck_render(c);
	/* left 0..1000 by 200: five intervals; right 0..50 by 10 */
	ck_assert_ptr_nonnull(strstr(doc, ">1000</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">800</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">50</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">40</text>"));
	ck_assert_ptr_null(strstr(doc, ">60</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">throughput (tps)</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">lag (ms)</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">lag (right)</text>"));
	free(doc);
	chart_free(c);
}
END_TEST

START_TEST(test_tick_labels)
{
	chart	   *c = chart_new("labels", NULL);
	int			p = chart_add_panel(c, NULL, 0);
	int			q = chart_add_panel(c, NULL, 0);
	int			s = chart_add_series(c, p, "big", CHART_LINE, CHART_LEFT, CHART_AUTO);
	int			t = chart_add_series(c, q, "small", CHART_LINE, CHART_LEFT, CHART_AUTO);
	char	   *doc;

	chart_set_x(c, CHART_X_ELAPSED, "time since start");
	chart_set_x_range(c, 0, 3600);
	chart_add_point(c, s, 0, 0);
	chart_add_point(c, s, 3600, 2.4e6);
	chart_add_point(c, t, 0, 0);
	chart_add_point(c, t, 3600, 0.7);
	doc = svgcheck_render(c);
	/* compact y labels with one suffix per axis, and fixed decimals */
	ck_assert_ptr_nonnull(strstr(doc, ">0.5M</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">2.5M</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">0.6</text>"));
	/* elapsed time on x, once: under the last panel only */
	ck_assert_int_eq(count_substr(doc, ">10m</text>"), 1);
	ck_assert_int_eq(count_substr(doc, ">1h</text>"), 1);
	ck_assert_int_eq(count_substr(doc, ">time since start</text>"), 1);
	free(doc);
	chart_free(c);
}
END_TEST

START_TEST(test_clock_labels)
{
	chart	   *c = chart_new("clock", NULL);
	int			p = chart_add_panel(c, NULL, 0);
	int			s = chart_add_series(c, p, "s", CHART_LINE, CHART_LEFT, CHART_AUTO);
	char	   *doc;

	setenv("TZ", "UTC", 1);
	tzset();
	chart_set_x(c, CHART_X_CLOCK, "time");
	chart_add_point(c, s, 1718280000, 1);	/* 12:00:00 UTC */
	chart_add_point(c, s, 1718280000 + 1200, 2);
	doc = svgcheck_render(c);
	ck_assert_ptr_nonnull(strstr(doc, ">12:00</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">12:10</text>"));
	free(doc);
	chart_free(c);
}
END_TEST

START_TEST(test_log_axis)
{
	chart	   *c = chart_new("log", NULL);
	int			p = chart_add_panel(c, NULL, 0);
	int			s = chart_add_series(c, p, "s", CHART_LINE, CHART_LEFT, CHART_AUTO);
	char	   *doc;

	chart_set_y_log(c, p, CHART_LEFT, true);
	chart_add_point(c, s, 1, 1.5);
	chart_add_point(c, s, 2, 0);	/* a gap on a log axis */
	chart_add_point(c, s, 3, 180);
	doc = svgcheck_render(c);
	ck_assert_ptr_nonnull(strstr(doc, ">1</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">10</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">200</text>"));
	ck_assert_ptr_null(strstr(doc, ">0</text>"));
	ck_assert_int_eq(count_substr(doc, "<circle"), 2);
	free(doc);
	chart_free(c);
}
END_TEST

/* Events close together merge into one marker labelled with their total. */
START_TEST(test_events)
{
	chart	   *c = chart_new("events", NULL);
	int			p = chart_add_panel(c, NULL, 0);
	int			s = chart_add_series(c, p, "tps", CHART_LINE, CHART_LEFT, CHART_AUTO);
	int			e = chart_add_series(c, p, "failures", CHART_EVENTS, CHART_LEFT, CHART_VERMILLION);
	char	   *doc;

	chart_set_x_range(c, 0, 1000);
	chart_add_point(c, s, 0, 10);
	chart_add_point(c, s, 1000, 10);
	chart_add_point(c, e, 100, 2);
	chart_add_point(c, e, 101, 3);
	chart_add_point(c, e, 500, 7);
	chart_add_point(c, e, 700, 0);	/* no event */
	doc = svgcheck_render(c);
	ck_assert_ptr_nonnull(strstr(doc, ">5</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">7</text>"));
	ck_assert_int_eq(count_substr(doc, "l-4.5 8H"), 2);
	ck_assert_ptr_nonnull(strstr(doc, "fill=\"#D55E00\""));
	/* the counts are dark, whatever the marker's colour (yellow is unreadable) */
	ck_assert_ptr_nonnull(strstr(doc, "text-anchor=\"middle\" fill=\"#222\">\n<text"));
	free(doc);
	chart_free(c);
}
END_TEST

/*
 * A custom panel: placed below the panel before it, its title drawn by the
 * chart across the document, its height asked at render (it may grow after
 * it was added), its body drawn in the frame it is given, its argument
 * freed by chart_free.
 */
START_TEST(test_custom_panel)
{
	chart	   *c = chart_new("custom", NULL);
	int			freed = 0;
	probe	   *pr = calloc(1, sizeof(*pr));
	probe		kept = {.height = 40};
	char	   *doc;
	const char *title,
			   *rect;
	double		height_one,
				height_two;

	pr->freed = &freed;
	pr->height = 10;
	chart_add_custom_panel(c, "first panel", &probe_panel, pr);
	pr->height = 66;			/* grown after it was added */
	doc = svgcheck_render(c);
	ck_assert_int_eq(pr->heights, 1);
	ck_assert_int_eq(pr->draws, 1);
	ck_assert(pr->frame.x0 == 24 && pr->frame.x1 == CHART_WIDTH - 24);
	ck_assert(pr->frame.h == 66);
	/* the title first, at the left margin, then the body below it */
	title = strstr(doc, ">first panel</text>");
	rect = strstr(doc, "<rect class=\"probe\"");
	ck_assert(title != NULL && rect != NULL && title < rect);
	while (title > doc && strncmp(title, "<text ", 6) != 0)
		title--;
	ck_assert(svgcheck_attr_num(title, "x") == 24);
	ck_assert(svgcheck_attr_num(title, "y") < pr->frame.y);
	ck_assert(svgcheck_attr_num(rect, "y") == pr->frame.y);
	ck_assert(svgcheck_attr_num(rect, "height") == 66);
	height_one = svgcheck_attr_num(strstr(doc, "<svg "), "height");
	free(doc);

	/* a second one goes below the first, the document grows by it */
	chart_add_custom_panel(c, NULL, &probe_kept, &kept);
	doc = svgcheck_render(c);
	ck_assert_int_eq(kept.draws, 1);
	ck_assert(kept.frame.y > pr->frame.y + 66);
	height_two = svgcheck_attr_num(strstr(doc, "<svg "), "height");
	ck_assert_msg(height_two >= height_one + 40, "%g then %g", height_one, height_two);
	free(doc);

	ck_assert_int_eq(freed, 0);
	chart_free(c);
	ck_assert_int_eq(freed, 1);
	free(pr);
}
END_TEST

/* A legend name of a few dozen characters is shown whole: the legend widens. */
START_TEST(test_legend_fits)
{
	const char *names[] = {"schedule lag (avg), a longer name", "skipped (1234567 in all)"};
	chart	   *c = chart_new("t", NULL);
	int			p = chart_add_panel(c, NULL, 0);
	char	   *doc;

	chart_set_y(c, p, CHART_LEFT, "l", NULL);
	chart_set_y(c, p, CHART_RIGHT, "r", NULL);
	chart_add_point(c, chart_add_series(c, p, "tps", CHART_LINE, CHART_LEFT, 0), 1, 1);
	chart_add_point(c, chart_add_series(c, p, names[0], CHART_LINE, CHART_RIGHT, 1), 1, 1);
	chart_add_point(c, chart_add_series(c, p, names[1], CHART_EVENTS, CHART_LEFT, 2), 1, 1);
	doc = svgcheck_render(c);
	ck_assert_ptr_nonnull(strstr(doc, ">schedule lag (avg), a longer name (right)</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">skipped (1234567 in all)</text>"));
	ck_assert_ptr_null(strstr(doc, "\xE2\x80\xA6</text>"));
	free(doc);
	chart_free(c);
}
END_TEST

/* Long labels are cut with an ellipsis, never mid-character. */
START_TEST(test_truncation)
{
	char		longname[400];
	chart	   *c = chart_new("t", NULL);
	int			p = chart_add_panel(c, NULL, 0);
	char	   *doc;

	longname[0] = '\0';
	for (int i = 0; i < 60; i++)
		strcat(longname, "\xC3\xA9\xE2\x82\xAC");	/* é€: 2 + 3 bytes */
	chart_add_point(c, chart_add_series(c, p, longname, CHART_LINE, CHART_LEFT, 0), 1, 1);
	doc = svgcheck_render(c);
	ck_assert_ptr_nonnull(strstr(doc, "\xE2\x80\xA6</text>"));
	free(doc);
	chart_free(c);
}
END_TEST

/* ---------------------------------------------------------------- size and speed */

/*
 * 100k points per series: the lines are drawn with a few points per pixel
 * column and the stack is thinned to one column per pixel, so the document
 * stays small, and the work is linear (a quadratic pass would hit the
 * test timeout).
 */
START_TEST(test_many_points)
{
	chart	   *c = chart_new("big", NULL);
	int			p = chart_add_panel(c, NULL, 0);
	int			q = chart_add_panel(c, NULL, 0);
	int			l = chart_add_series(c, p, "line", CHART_LINE, CHART_LEFT, CHART_AUTO);
	int			u = chart_add_series(c, p, "unsorted", CHART_STEP, CHART_RIGHT, CHART_AUTO);
	int			e = chart_add_series(c, p, "events", CHART_EVENTS, CHART_LEFT, CHART_AUTO);
	int			a[3];
	char	   *doc;
	size_t		len;
	clock_t		t0 = clock();

	for (int k = 0; k < 3; k++)
		a[k] = chart_add_series(c, q, k == 0 ? "a0" : k == 1 ? "a1" : "a2", CHART_AREA,
								CHART_LEFT, CHART_AUTO);
	for (int i = 0; i < 100000; i++)
	{
		double		x = i * 0.01;

		chart_add_point(c, l, x, sin(i * 0.001) * 100 + (i % 7));
		chart_add_point(c, u, (99999 - i) * 0.01, i % 13);
		if (i % 3 == 0)
			chart_add_point(c, e, x, 1);
		for (int k = 0; k < 3; k++)
			chart_add_point(c, a[k], x, 10 + k + (i % 5));
	}
	doc = svgcheck_render(c);
	len = strlen(doc);
	ck_assert_msg(len < 400000, "document of %zu bytes", len);
	ck_assert_msg((double) (clock() - t0) / CLOCKS_PER_SEC < 20, "too slow");
	free(doc);
	chart_free(c);
}
END_TEST

/* ---------------------------------------------------------------- misuse */

static void
bad_series(void)
{
	chart	   *c = chart_new("t", NULL);

	msg_set_progname("/usr/bin/pgtempo-bench");
	chart_add_point(c, 5, 1, 1);
}

static void
bad_panel(void)
{
	chart	   *c = chart_new("t", NULL);
	static probe pr;
	int			b = chart_add_custom_panel(c, "custom", &probe_kept, &pr);

	msg_set_progname("/usr/bin/pgtempo-waits");
	chart_add_series(c, b, "s", CHART_LINE, CHART_LEFT, CHART_AUTO);
}

static const struct
{
	void		(*fn) (void);
	const char *want;
}			abort_cases[] = {
	{bad_series, "pgtempo-bench: error: chart: series 5 does not exist\n"},
	{bad_panel, "pgtempo-waits: error: chart: time panel 0 does not exist\n"},
};

START_TEST(test_misuse_aborts)
{
	char		err[256];
	int			status;

	status = unit_run_in_child(abort_cases[_i].fn, err, sizeof(err));
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
				  "child did not abort (status %d)", status);
	ck_assert_str_eq(err, abort_cases[_i].want);
}
END_TEST

static Suite *
chart_suite(void)
{
	Suite	   *s = suite_create("chart");
	TCase	   *tc;

	suite_add_tcase(s, check_chart_pieces_tcase());

	tc = tcase_create("render");
	tcase_add_test(tc, test_render_hostile_text);
	svgcheck_add_cases(tc, degenerate_cases, N(degenerate_cases));
	tcase_add_test(tc, test_one_point_is_a_dot);
	tcase_add_test(tc, test_stacked_two_series);
	tcase_add_test(tc, test_stacked_union_grid);
	tcase_add_test(tc, test_legend_once_each);
	tcase_add_test(tc, test_right_axis_aligned);
	tcase_add_test(tc, test_tick_labels);
	tcase_add_test(tc, test_clock_labels);
	tcase_add_test(tc, test_log_axis);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_custom_panel);
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_legend_fits);
	tcase_add_test(tc, test_many_points);
	tcase_add_loop_test(tc, test_misuse_aborts, 0, N(abort_cases));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(chart_suite());
}
