/*
 * chart_int.h — what the files of the chart module share: the chart's
 * model, scales, stacked areas and layout.  Not for use outside
 * src/core/chart*.c.
 *
 * chart.c keeps the model and lays out and renders the document;
 * chart_scale.c maps values to pixels and labels ticks; chart_stack.c
 * orders points and stacks areas; chart_time.c draws a time panel.  A
 * custom panel is drawn by its tool (chart.h).
 */
#ifndef PGTEMPO_CHART_INT_H
#define PGTEMPO_CHART_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "pgtempo/chart.h"
#include "pgtempo/strbuf.h"

/* ---------------------------------------------------------------- layout constants (px) */

#define FONT_FAMILY "Helvetica, Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif"

#define MARGIN 24				/* left and right edge of the document */
#define PLOT_X 80				/* left edge of every plot */
#define RIGHT_AXIS_W 72			/* right tick labels and the right axis title */
#define LEGEND_W 250			/* legend column, its gaps included: at least */
#define LEGEND_W_MAX 400		/* and at most, for long series names */
#define LEGEND_ROW 18
#define DEFAULT_PLOT_H 250
#define EVENT_STRIP_H 24
#define PANEL_GAP 22
#define VALUE_MAX CHART_VALUE_MAX

/* Colours by CHART_* index. */
extern const char *const chart_palette[CHART_NCOLOURS];

/* ---------------------------------------------------------------- the chart */

typedef struct series
{
	char	   *name;
	int			panel;
	chart_style style;
	chart_axis	axis;
	int			colour;
	bool		dashed;
	bool		sorted;			/* x never decreased while adding */
	double		last_x;			/* the last finite x added */
	double	   *x;
	double	   *y;
	size_t		n;
	size_t		cap;
} series;

typedef enum panel_kind
{
	PANEL_TIME,
	PANEL_CUSTOM
} panel_kind;

typedef struct panel
{
	panel_kind	kind;
	char	   *title;
	double		plot_h;
	char	   *ylabel[2];
	char	   *yunit[2];
	double		ylo[2];
	double		yhi[2];
	bool		ylog[2];
	int			nauto;			/* colours handed out by CHART_AUTO */
	const chart_custom *custom; /* custom panels: the tool's functions */
	void	   *custom_arg;
} panel;

struct chart
{
	char	   *title;
	char	   *subtitle;
	chart_xscale xscale;
	char	   *xlabel;
	char	   *id_prefix;		/* of the document's element ids; NULL: none */
	double		xlo;
	double		xhi;
	panel	   *panels;
	int			npanels;
	int			panelcap;
	series	   *series;
	int			nseries;
	int			seriescap;
};

#define MAX_TICKS 64

/* A map from values to pixels (linear or log10), with its ticks and their label format. */
typedef struct scale
{
	double		lo;				/* value at the start (left or bottom) */
	double		hi;
	double		px0;			/* pixel of lo */
	double		px1;			/* pixel of hi */
	bool		log;
	double		tick0;			/* first tick (linear) */
	double		step;			/* between ticks (linear) */
	int			nticks;
	double		tick[MAX_TICKS];
	/* labels: value / div with `decimals` decimals and suffix, or each compact */
	double		div;
	const char *suffix;
	int			decimals;
	bool		each_compact;
} scale;

/*
 * The CHART_AREA series of one panel and axis on one x grid: the union of
 * their x values, thinned to one column per pixel when denser (a column's
 * value is the mean of its points, so the stack still sums right).
 * tops[k * nx + j] is the top of layer k at xs[j]; the bottom of layer k
 * is the top of layer k - 1, or 0.
 */
typedef struct stack
{
	int			nlayers;
	int		   *layer_series;	/* series index of each layer */
	size_t		nx;
	double	   *xs;
	double	   *tops;
	double		max_top;
} stack;

typedef struct panel_layout
{
	double		top;			/* where the panel starts */
	double		title_y;		/* baseline of its title */
	double		strip_y;		/* top of the event strip (time panels with events) */
	double		plot_y;
	double		plot_h;
	bool		x_labels;		/* last of a run of time panels: draws the x axis */
	bool		has_events;
	bool		axis_used[2];
	int			nlegend;
	double		bottom;
} panel_layout;

typedef struct layout
{
	double		height;
	double		plot_x;
	double		plot_w;
	double		right_x;		/* start of the right axis labels */
	double		legend_x;
	double		legend_w;
	bool		has_right;
	panel_layout *p;
} layout;

/* chart_scale.c */
double		chart_scale_px(const scale *s, double v);
double		chart_tick_value(const scale *s, int i);
void		chart_format_tick(const scale *s, double v, char *buf, size_t size);
void		chart_make_x_scale(const chart *c, scale *s, double px0, double px1);
void		chart_format_x_tick(const chart *c, const scale *s, double v, char *buf, size_t size);
void		chart_make_y_scale(scale *s, double dlo, double dhi, double flo, double fhi,
							   int target, int align_n, double px_bottom, double px_top);
void		chart_make_log_scale(scale *s, double dmin, double dmax, double flo, double fhi,
								 double px_bottom, double px_top);

/* chart_stack.c */
size_t		chart_sorted_points(const series *s, const double **xs, const double **ys, bool *owned);
void		chart_stack_build(const chart *c, int pi, chart_axis axis, const scale *xs, stack *st);
void		chart_stack_free(stack *st);
void		chart_draw_stack(const chart *c, const stack *st, const scale *xs, const scale *ys,
							 strbuf *out);

/* chart_time.c */
void		chart_draw_time_panel(const chart *c, int pi, const layout *L, const scale *xs,
								  strbuf *out);

#endif
