/*
 * chart.c — self-contained SVG charts: the model, the layout and the
 * document.
 *
 * Rendering is two passes over the panels: a layout pass that fixes every
 * panel's place (so the document's height is known for the <svg> header),
 * then a drawing pass.  Scales are computed first: the x scale over all time
 * panels, then per panel the stacked areas (their tops set the y range) and
 * the y scales (chart_time.c).
 *
 * Coordinates are written with one decimal and clamped to +-1e6 px, so a
 * value far outside a fixed range still gives a short, valid number and the
 * clip path hides it (svg.c).
 */
#include "config.h"

#include "pgtempo/chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/svg.h"
#include "pgtempo/xalloc.h"

#include "chart_int.h"

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* A caller bug: say which and stop rather than draw nonsense. */
static void __attribute__((noreturn))
misuse(const char *what, int index)
{
	msg_error("chart: %s %d does not exist", what, index);
	abort();
}

static panel *
get_time_panel(chart *c, int p)
{
	if (p < 0 || p >= c->npanels || c->panels[p].kind != PANEL_TIME)
		misuse("time panel", p);
	return &c->panels[p];
}

static series *
get_series(chart *c, int s)
{
	if (s < 0 || s >= c->nseries)
		misuse("series", s);
	return &c->series[s];
}

chart *
chart_new(const char *title, const char *subtitle)
{
	chart	   *c = xcalloc(1, sizeof(*c));

	c->title = dup_or_null(title);
	c->subtitle = dup_or_null(subtitle);
	c->xscale = CHART_X_NUMBER;
	c->xlo = NAN;
	c->xhi = NAN;
	return c;
}

void
chart_set_id_prefix(chart *c, const char *prefix)
{
	free(c->id_prefix);
	c->id_prefix = dup_or_null(prefix);
}

void
chart_free(chart *c)
{
	if (c == NULL)
		return;
	for (int i = 0; i < c->nseries; i++)
	{
		free(c->series[i].name);
		free(c->series[i].x);
		free(c->series[i].y);
	}
	for (int i = 0; i < c->npanels; i++)
	{
		panel	   *p = &c->panels[i];

		free(p->title);
		for (int a = 0; a < 2; a++)
		{
			free(p->ylabel[a]);
			free(p->yunit[a]);
		}
		if (p->custom != NULL && p->custom->free_arg != NULL)
			p->custom->free_arg(p->custom_arg);
	}
	free(c->panels);
	free(c->series);
	free(c->title);
	free(c->subtitle);
	free(c->xlabel);
	free(c->id_prefix);
	free(c);
}

void
chart_set_x(chart *c, chart_xscale xscale, const char *label)
{
	c->xscale = xscale;
	free(c->xlabel);
	c->xlabel = dup_or_null(label);
}

void
chart_set_x_range(chart *c, double lo, double hi)
{
	c->xlo = lo;
	c->xhi = hi;
}

static int
new_panel(chart *c, panel_kind kind, const char *title)
{
	panel	   *p;

	if (c->npanels == c->panelcap)
	{
		c->panelcap = c->panelcap ? 2 * c->panelcap : 4;
		c->panels = xrealloc(c->panels, c->panelcap * sizeof(panel));
	}
	p = &c->panels[c->npanels];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->title = dup_or_null(title);
	for (int a = 0; a < 2; a++)
	{
		p->ylo[a] = NAN;
		p->yhi[a] = NAN;
	}
	return c->npanels++;
}

int
chart_add_panel(chart *c, const char *title, double plot_height)
{
	int			i = new_panel(c, PANEL_TIME, title);

	c->panels[i].plot_h = plot_height >= 40 && plot_height <= 4000 ? plot_height : DEFAULT_PLOT_H;
	return i;
}

void
chart_set_y(chart *c, int pi, chart_axis axis, const char *label, const char *unit)
{
	struct panel *p = get_time_panel(c, pi);
	int			a = axis == CHART_RIGHT;

	free(p->ylabel[a]);
	free(p->yunit[a]);
	p->ylabel[a] = dup_or_null(label);
	p->yunit[a] = dup_or_null(unit);
}

void
chart_set_y_range(chart *c, int pi, chart_axis axis, double lo, double hi)
{
	struct panel *p = get_time_panel(c, pi);
	int			a = axis == CHART_RIGHT;

	p->ylo[a] = lo;
	p->yhi[a] = hi;
}

void
chart_set_y_log(chart *c, int pi, chart_axis axis, bool log)
{
	get_time_panel(c, pi)->ylog[axis == CHART_RIGHT] = log;
}

int
chart_add_series(chart *c, int pi, const char *name, chart_style style,
				 chart_axis axis, int colour)
{
	struct panel *p = get_time_panel(c, pi);
	series	   *s;

	if (c->nseries == c->seriescap)
	{
		c->seriescap = c->seriescap ? 2 * c->seriescap : 8;
		c->series = xrealloc(c->series, c->seriescap * sizeof(series));
	}
	s = &c->series[c->nseries];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name != NULL ? name : "");
	s->panel = pi;
	s->style = style;
	s->axis = axis == CHART_RIGHT ? CHART_RIGHT : CHART_LEFT;
	s->colour = chart_colour_pick(colour, &p->nauto);
	s->sorted = true;
	s->last_x = -INFINITY;
	return c->nseries++;
}

void
chart_series_dashed(chart *c, int si, bool dashed)
{
	get_series(c, si)->dashed = dashed;
}

void
chart_add_point(chart *c, int si, double x, double y)
{
	struct series *s = get_series(c, si);

	if (!isfinite(x) || !isfinite(y))
		x = y = NAN;			/* a gap; kept in place so it splits the line */
	else
	{
		x = fmax(-VALUE_MAX, fmin(VALUE_MAX, x));
		y = fmax(-VALUE_MAX, fmin(VALUE_MAX, y));
	}
	if (s->n == s->cap)
	{
		s->cap = s->cap ? 2 * s->cap : 64;
		s->x = xrealloc(s->x, s->cap * sizeof(double));
		s->y = xrealloc(s->y, s->cap * sizeof(double));
	}
	if (isfinite(x))
	{
		if (x < s->last_x)
			s->sorted = false;
		s->last_x = x;
	}
	s->x[s->n] = x;
	s->y[s->n] = y;
	s->n++;
}

int
chart_add_custom_panel(chart *c, const char *title, const chart_custom *fn, void *arg)
{
	int			i = new_panel(c, PANEL_CUSTOM, title);

	c->panels[i].custom = fn;
	c->panels[i].custom_arg = arg;
	return i;
}

static void
compute_layout(const chart *c, layout *L)
{
	double		y = 16,
				legend_total;

	memset(L, 0, sizeof(*L));
	L->p = xcalloc(c->npanels ? c->npanels : 1, sizeof(panel_layout));

	for (int i = 0; i < c->nseries; i++)
	{
		const series *s = &c->series[i];
		panel_layout *pl = &L->p[s->panel];

		pl->nlegend++;
		if (s->style == CHART_EVENTS)
			pl->has_events = true;
		else
			pl->axis_used[s->axis] = true;
	}
	for (int i = 0; i < c->npanels; i++)
	{
		const panel *p = &c->panels[i];

		if (p->kind != PANEL_TIME)
			continue;
		if (p->ylabel[1] != NULL || p->yunit[1] != NULL)
			L->p[i].axis_used[1] = true;
		if (!L->p[i].axis_used[1] || p->ylabel[0] != NULL || p->yunit[0] != NULL)
			L->p[i].axis_used[0] = true;
		if (L->p[i].axis_used[1])
			L->has_right = true;
	}

	/* the legend column grows to fit the longest name rather than cutting it */
	legend_total = LEGEND_W;
	for (int i = 0; i < c->nseries; i++)
	{
		const series *s = &c->series[i];
		double		w = svg_text_width(s->name, 12) + 28 + 4;

		if (s->axis == CHART_RIGHT && s->style != CHART_EVENTS && L->p[s->panel].axis_used[0])
			w += svg_text_width(" (right)", 12);
		legend_total = fmax(legend_total, w + 20 + MARGIN - 8);
	}
	legend_total = fmin(ceil(legend_total), LEGEND_W_MAX);

	L->plot_x = PLOT_X;
	L->legend_x = CHART_WIDTH - legend_total + 20;
	L->legend_w = legend_total - 20 - MARGIN + 8;
	L->right_x = CHART_WIDTH - legend_total - (L->has_right ? RIGHT_AXIS_W : 0);
	L->plot_w = L->right_x - L->plot_x;

	if (c->title != NULL)
		y += 26;
	if (c->subtitle != NULL)
		y += 22;
	y += 14;

	for (int i = 0; i < c->npanels; i++)
	{
		const panel *p = &c->panels[i];
		panel_layout *pl = &L->p[i];

		pl->top = y;
		if (p->kind == PANEL_CUSTOM)
		{
			pl->title_y = y + 14;
			y += p->title != NULL ? 28 : 6;
			pl->plot_y = y;
			pl->plot_h = p->custom->height(p->custom_arg);
			y += pl->plot_h;
		}
		else
		{
			pl->title_y = y + 14;
			y += p->title != NULL ? 26 : 8;
			if (pl->has_events)
			{
				pl->strip_y = y;
				y += EVENT_STRIP_H;
			}
			pl->plot_y = y;
			pl->plot_h = fmax(p->plot_h, (double) pl->nlegend * LEGEND_ROW);
			y += pl->plot_h;
			pl->x_labels = i + 1 == c->npanels || c->panels[i + 1].kind != PANEL_TIME;
			if (pl->x_labels)
				y += c->xlabel != NULL ? 42 : 22;
		}
		pl->bottom = y;
		y += PANEL_GAP;
	}
	L->height = ceil(y);
}


/* ---------------------------------------------------------------- the document */

/* A custom panel: its title across the document, then the tool draws the body. */
static void
draw_custom_panel(const chart *c, int pi, const layout *L, strbuf *out)
{
	const panel *p = &c->panels[pi];
	const panel_layout *pl = &L->p[pi];
	chart_frame f = {MARGIN, CHART_WIDTH - MARGIN, pl->plot_y, pl->plot_h};

	if (p->title != NULL)
		svg_text_el(out, MARGIN, pl->title_y, NULL, "font-size=\"14\" font-weight=\"bold\" fill=\"#222\"",
					p->title, svg_fit_chars(CHART_WIDTH - 2 * MARGIN, 14));
	p->custom->draw(p->custom_arg, &f, out);
}

void
chart_render(const chart *c, strbuf *out)
{
	layout		L;
	scale		xs;
	bool		any_time = false;

	compute_layout(c, &L);
	for (int i = 0; i < c->npanels; i++)
		if (c->panels[i].kind == PANEL_TIME)
			any_time = true;
	if (any_time)
		chart_make_x_scale(c, &xs, L.plot_x, L.plot_x + L.plot_w);

	strbuf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	strbuf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
				  "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
				  "font-family=\"%s\" font-size=\"12\">\n",
				  CHART_WIDTH, (int) L.height, CHART_WIDTH, (int) L.height, FONT_FAMILY);
	if (c->title != NULL)
	{
		strbuf_puts(out, "<title>");
		svg_text(out, c->title, 0);
		strbuf_puts(out, "</title>\n");
	}
	strbuf_printf(out, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
				  CHART_WIDTH, (int) L.height);
	{
		double		y = 16;

		if (c->title != NULL)
		{
			y += 22;
			svg_text_el(out, MARGIN, y, NULL, "font-size=\"20\" font-weight=\"bold\" fill=\"#111\"",
						c->title, svg_fit_chars(CHART_WIDTH - 2 * MARGIN, 20));
			y += 4;
		}
		if (c->subtitle != NULL)
		{
			y += 18;
			svg_text_el(out, MARGIN, y, NULL, "font-size=\"13\" fill=\"#555\"",
						c->subtitle, svg_fit_chars(CHART_WIDTH - 2 * MARGIN, 13));
		}
	}
	for (int i = 0; i < c->npanels; i++)
	{
		if (c->panels[i].kind == PANEL_TIME)
			chart_draw_time_panel(c, i, &L, &xs, out);
		else
			draw_custom_panel(c, i, &L, out);
	}
	strbuf_puts(out, "</svg>\n");
	free(L.p);
}

