/*
 * chart.h — self-contained SVG charts: time series, and panels a tool
 * draws itself.
 *
 * A chart is a title, an optional subtitle and a vertical stack of panels.
 * Time panels share one x axis (tick labels under the last panel of a run
 * of time panels) and hold series: lines, steps, stacked areas, and event
 * markers (failures) in a strip above the plot.  Each time panel has a
 * left y axis and, when a series asks for it, a right one whose ticks line
 * up with the left gridlines.  A custom panel is drawn by the tool that
 * adds it (pgtempo-waits' bar profile, src/waits/waitsbars.c): the chart
 * places it and draws its title, the tool draws the rest with svg.h and
 * the colours below.
 *
 *	chart	   *c = chart_new("pgtempo-bench", "pgtempo-bench -c 8 -T 60");
 *	int			p = chart_add_panel(c, "Throughput", 0);
 *	int			s = chart_add_series(c, p, "tps", CHART_LINE, CHART_LEFT, CHART_BLUE);
 *
 *	chart_set_x(c, CHART_X_ELAPSED, "time since start");
 *	chart_set_y(c, p, CHART_LEFT, "throughput", "tps");
 *	chart_add_point(c, s, 1.0, 1234.5);
 *	chart_render(c, &sb);
 *	chart_free(c);
 *
 * The SVG has a fixed viewBox (CHART_WIDTH wide, as tall as the panels
 * need), inline presentation attributes only: no script, no style sheet,
 * no external font or link.  Text, numbers and coordinates are written
 * through svg.h: any event name or command line gives a well-formed
 * document, and the locale never changes the output.
 *
 * Points are kept as given (16 bytes each); rendering is O(n log n) at
 * worst and draws at most a few points per pixel column, so 100k points
 * give an SVG of a sensible size.  Non-finite x or y is a gap in a line;
 * y is clamped to +-1e300.  Misuse that can only be a bug in the caller
 * (a panel or series index that does not exist) aborts with a message.
 */
#ifndef PGTEMPO_CHART_H
#define PGTEMPO_CHART_H

#include <stdbool.h>
#include <stddef.h>

#include "pgtempo/strbuf.h"

#define CHART_WIDTH 1200

typedef enum chart_style
{
	CHART_LINE,					/* straight segments; a non-finite point breaks
								 * the line, an isolated point is a dot */
	CHART_STEP,					/* the value holds until the next point */
	CHART_AREA,					/* stacked area: the CHART_AREA series of a
								 * panel and axis stack bottom-up in the order
								 * added; at an x where a series has no point
								 * its value is 0, negative and NaN count as 0 */
	CHART_EVENTS				/* a marker above the plot at each x whose y
								 * (a count) is > 0, labelled with the count */
} chart_style;

typedef enum chart_axis
{
	CHART_LEFT,
	CHART_RIGHT
} chart_axis;

/* How x values are read and labelled. */
typedef enum chart_xscale
{
	CHART_X_NUMBER,				/* plain numbers, 1-2-5 ticks */
	CHART_X_ELAPSED,			/* seconds since start: 30s, 1m, 1m30s, 2h */
	CHART_X_CLOCK				/* Unix epoch seconds, local time: 14:05:30 */
} chart_xscale;

/* |x| and |y| are clamped to this; a custom panel may clamp its values the same. */
#define CHART_VALUE_MAX 1e300

/*
 * Colours: Okabe-Ito's colour-blind-safe set, then Paul Tol's muted one,
 * then grey (for "other") and black.  CHART_AUTO gives the n-th series of a
 * panel the n-th colour (chart_colour_pick does the same for a custom
 * panel's items), so a bar panel filled in the same order as an area panel
 * matches its colours.
 */
enum
{
	CHART_AUTO = -1,
	CHART_BLUE,
	CHART_ORANGE,
	CHART_GREEN,
	CHART_VERMILLION,
	CHART_SKY,
	CHART_PURPLE,
	CHART_YELLOW,
	CHART_INDIGO,
	CHART_OLIVE,
	CHART_WINE,
	CHART_TEAL,
	CHART_ROSE,
	CHART_GREY,
	CHART_BLACK,
	CHART_NCOLOURS
};

/* Number of distinct colours CHART_AUTO cycles through (grey and black excluded). */
#define CHART_NAUTO CHART_GREY

typedef struct chart chart;

/* A new empty chart; title and subtitle may be NULL. */
chart	   *chart_new(const char *title, const char *subtitle);
void		chart_free(chart *c);
/*
 * Prefix the ids of the document's elements (its clip paths) with prefix:
 * a chart rendered into another's custom panel needs one, since ids are
 * shared by the whole document and a clip path found by another's id
 * clips the wrong plot.
 */
void		chart_set_id_prefix(chart *c, const char *prefix);

/* The shared x axis of the time panels: scale and label (NULL: none). */
void		chart_set_x(chart *c, chart_xscale scale, const char *label);
/* Fix the x range (e.g. 0 .. duration); NaN for either end: from the data. */
void		chart_set_x_range(chart *c, double lo, double hi);

/* Add a time panel; plot_height in px, 0 for the default.  Returns its index. */
int			chart_add_panel(chart *c, const char *title, double plot_height);
/* Label a y axis: "label (unit)"; either may be NULL. */
void		chart_set_y(chart *c, int panel, chart_axis axis,
						const char *label, const char *unit);
/*
 * Fix a y range (e.g. 0..100 for shares); NaN for either end: from the data
 * (which always includes 0).  Whatever lies outside is clipped.
 */
void		chart_set_y_range(chart *c, int panel, chart_axis axis, double lo, double hi);

/*
 * Put a y axis on a log10 scale (latency whose max is 100 times its
 * median): lines and steps only, values <= 0 are gaps; an axis with
 * stacked areas stays linear.
 */
void		chart_set_y_log(chart *c, int panel, chart_axis axis, bool log);

/* Add a series to a time panel; colour is CHART_AUTO or a colour above.  Returns its index. */
int			chart_add_series(chart *c, int panel, const char *name,
							 chart_style style, chart_axis axis, int colour);
/* Draw a line or step series dashed (a target, a limit). */
void		chart_series_dashed(chart *c, int series, bool dashed);
/* Append a point; x should not decrease (it is sorted at render otherwise). */
void		chart_add_point(chart *c, int series, double x, double y);

/* Where a custom panel draws: its body, below its title, the document's width. */
typedef struct chart_frame
{
	double		x0;				/* left edge (the document's margin) */
	double		x1;				/* right edge */
	double		y;				/* top */
	double		h;				/* height, as the panel's height() said */
} chart_frame;

/*
 * A custom panel's functions: height() is asked at render, so the panel
 * may still grow after it was added; draw() appends its body's SVG;
 * free_arg() (may be NULL) is called by chart_free.
 */
typedef struct chart_custom
{
	double		(*height) (const void *arg);
	void		(*draw) (const void *arg, const chart_frame *f, strbuf *out);
	void		(*free_arg) (void *arg);
} chart_custom;

/* Add a custom panel drawn by fn with arg (fn must outlive the chart).  Returns its index. */
int			chart_add_custom_panel(chart *c, const char *title, const chart_custom *fn, void *arg);

/* colour (a CHART_* colour), or for CHART_AUTO the next one after *nauto, counted. */
int			chart_colour_pick(int colour, int *nauto);
/* Append ` name="#RRGGBB"` for a CHART_* colour (not CHART_AUTO). */
void		chart_colour_attr(strbuf *out, const char *name, int colour);

/* Append the SVG document to out. */
void		chart_render(const chart *c, strbuf *out);

/*
 * Ticks at multiples of a 1-2-5 x 10^n step covering [lo, hi] with about
 * target intervals: *first <= lo and *last >= hi are multiples of *step.
 * lo == hi or a non-finite bound gives a small range around the finite one
 * (or 0..1).  Returns the number of ticks, first and last included.
 */
int			chart_nice_ticks(double lo, double hi, int target,
							 double *first, double *last, double *step);

#endif
