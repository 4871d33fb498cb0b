/*
 * chart_time.c — a time panel: y scales from the data, grid, stacked
 * areas, lines and steps (thinned to a few points per pixel column),
 * event markers, axes and legend.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/svg.h"

#include "chart_int.h"

/* ---------------------------------------------------------------- drawing helpers */

/* A vertical axis title, read bottom-up, centred on cy. */
static void
put_vertical_title(strbuf *out, double x, double cy, const char *label,
				   const char *unit, double max_len)
{
	strbuf		t;

	if ((label == NULL || *label == '\0') && (unit == NULL || *unit == '\0'))
		return;
	strbuf_init(&t);
	if (label != NULL && *label != '\0')
		strbuf_puts(&t, label);
	if (unit != NULL && *unit != '\0')
		strbuf_printf(&t, t.len ? " (%s)" : "%s", unit);
	strbuf_puts(out, "<text");
	svg_attr_num(out, "x", x);
	svg_attr_num(out, "y", cy);
	strbuf_puts(out, " text-anchor=\"middle\" font-size=\"12\" fill=\"#333\" transform=\"rotate(-90 ");
	svg_num(out, x);
	strbuf_putc(out, ' ');
	svg_num(out, cy);
	strbuf_puts(out, ")\">");
	svg_text(out, t.data, svg_fit_chars(max_len, 12));
	strbuf_puts(out, "</text>\n");
	strbuf_free(&t);
}

/*
 * Writes a polyline as SVG path data, at most four points per half-pixel
 * column (first, min, max, last: the envelope survives), breaking it at
 * gaps and collecting isolated points for dots.
 */
typedef struct path_writer
{
	strbuf	   *d;
	strbuf	   *dots;			/* <circle> elements for isolated points */
	bool		step;
	bool		pen_down;
	size_t		seg_points;		/* points in the current segment */
	double		lastx,
				lasty;			/* last point written */
	double		firstx,
				firsty;			/* first point of the segment */
	/* the open column */
	bool		col_open;
	long		col;
	double		cx[4],
				cy[4];			/* first, min, max, last */
	size_t		ci[4];			/* their positions, to emit in order */
	const char *dot_colour;
} path_writer;

static void
pw_point(path_writer *w, double x, double y)
{
	if (w->pen_down && x == w->lastx && y == w->lasty)
		return;
	if (!w->pen_down)
	{
		strbuf_putc(w->d, 'M');
		svg_num(w->d, x);
		strbuf_putc(w->d, ' ');
		svg_num(w->d, y);
		w->pen_down = true;
		w->firstx = x;
		w->firsty = y;
	}
	else if (w->step)
	{
		if (x != w->lastx)
		{
			strbuf_putc(w->d, 'H');
			svg_num(w->d, x);
		}
		if (y != w->lasty)
		{
			strbuf_putc(w->d, 'V');
			svg_num(w->d, y);
		}
	}
	else
	{
		strbuf_putc(w->d, 'L');
		svg_num(w->d, x);
		strbuf_putc(w->d, ' ');
		svg_num(w->d, y);
	}
	w->seg_points++;
	w->lastx = x;
	w->lasty = y;
}

static void
pw_flush_column(path_writer *w)
{
	int			order[4] = {0, 1, 2, 3};

	if (!w->col_open)
		return;
	w->col_open = false;
	/* min and max in the order they came */
	if (w->ci[2] < w->ci[1])
	{
		order[1] = 2;
		order[2] = 1;
	}
	for (int i = 0; i < 4; i++)
	{
		int			k = order[i];

		if (i > 0 && w->ci[k] == w->ci[order[i - 1]])
			continue;
		pw_point(w, w->cx[k], w->cy[k]);
	}
}

static void
pw_end_segment(path_writer *w)
{
	pw_flush_column(w);
	if (w->pen_down && w->seg_points == 1)
	{
		strbuf_puts(w->dots, "<circle");
		svg_attr_num(w->dots, "cx", w->firstx);
		svg_attr_num(w->dots, "cy", w->firsty);
		strbuf_printf(w->dots, " r=\"2.5\" fill=\"%s\"/>\n", w->dot_colour);
	}
	w->pen_down = false;
	w->seg_points = 0;
}

static void
pw_add(path_writer *w, size_t idx, double x, double y)
{
	long		col = (long) floor(fmax(-SVG_PX_MAX, fmin(SVG_PX_MAX, x)) * 2);

	x = svg_px_round(x);
	y = svg_px_round(y);
	if (w->col_open && col != w->col)
		pw_flush_column(w);
	if (!w->col_open)
	{
		w->col_open = true;
		w->col = col;
		for (int i = 0; i < 4; i++)
		{
			w->cx[i] = x;
			w->cy[i] = y;
			w->ci[i] = idx;
		}
		return;
	}
	/* y grows downwards: min value = max pixel, but either way it is the envelope */
	if (y < w->cy[1])
		w->cx[1] = x, w->cy[1] = y, w->ci[1] = idx;
	if (y > w->cy[2])
		w->cx[2] = x, w->cy[2] = y, w->ci[2] = idx;
	w->cx[3] = x;
	w->cy[3] = y;
	w->ci[3] = idx;
}

/* ---------------------------------------------------------------- panels */

static void
draw_legend(const chart *c, int pi, const layout *L, strbuf *out)
{
	const panel_layout *pl = &L->p[pi];
	double		y = pl->plot_y;
	size_t		max_chars = svg_fit_chars(L->legend_w - 28, 12);
	int			pass;

	/* areas first, top of the stack first; then the rest in the order added */
	for (pass = 0; pass < 2; pass++)
	{
		for (int j = 0; j < c->nseries; j++)
		{
			int			i = pass == 0 ? c->nseries - 1 - j : j;
			const series *s = &c->series[i];
			double		x = L->legend_x;
			double		cy = y + LEGEND_ROW / 2.0;
			strbuf		name;

			if (s->panel != pi || (s->style == CHART_AREA) != (pass == 0))
				continue;
			strbuf_puts(out, "<g>");
			switch (s->style)
			{
				case CHART_AREA:
					strbuf_puts(out, "<rect");
					svg_attr_num(out, "x", x + 5);
					svg_attr_num(out, "y", cy - 6);
					strbuf_puts(out, " width=\"12\" height=\"12\"");
					chart_colour_attr(out, "fill", s->colour);
					strbuf_puts(out, "/>");
					break;
				case CHART_EVENTS:
					strbuf_puts(out, "<path d=\"M");
					svg_num(out, x + 6);
					strbuf_putc(out, ' ');
					svg_num(out, cy - 4);
					strbuf_puts(out, "h10l-5 9z\"");
					chart_colour_attr(out, "fill", s->colour);
					strbuf_puts(out, "/>");
					break;
				default:
					strbuf_puts(out, "<line");
					svg_attr_num(out, "x1", x);
					svg_attr_num(out, "y1", cy);
					svg_attr_num(out, "x2", x + 22);
					svg_attr_num(out, "y2", cy);
					chart_colour_attr(out, "stroke", s->colour);
					strbuf_printf(out, " stroke-width=\"2.5\"%s/>",
								  s->dashed ? " stroke-dasharray=\"6 3\"" : "");
					break;
			}
			strbuf_init(&name);
			strbuf_puts(&name, s->name);
			if (s->axis == CHART_RIGHT && s->style != CHART_EVENTS && L->p[pi].axis_used[0])
				strbuf_puts(&name, " (right)");
			svg_text_el(out, x + 28, cy + 4, NULL, "class=\"legend\"", name.data, max_chars);
			strbuf_free(&name);
			strbuf_puts(out, "</g>\n");
			y += LEGEND_ROW;
		}
	}
}

/*
 * Markers for an events series in the strip above the plot: a triangle
 * pointing at the x of an event, widened into a band over a run of events
 * closer than a few pixels, with the count (of the run) above it where the
 * label does not touch the previous one.
 */
static void
draw_events(const series *s, const scale *xs, const panel_layout *pl, strbuf *out)
{
	const double *px,
			   *py;
	bool		owned;
	size_t		n = chart_sorted_points(s, &px, &py, &owned);
	double		label_end = -INFINITY;
	double		my = pl->strip_y + 14;	/* top of the markers */
	size_t		i = 0;
	strbuf		labels;

	strbuf_init(&labels);
	strbuf_puts(out, "<path class=\"events\"");
	chart_colour_attr(out, "fill", s->colour);
	strbuf_puts(out, " d=\"");
	while (i < n)
	{
		double		x0,
					x1,
					count = 0,
					w;
		char		num[32];

		if (!isfinite(px[i]) || !(py[i] > 0) || px[i] < xs->lo || px[i] > xs->hi)
		{
			i++;
			continue;
		}
		x0 = x1 = chart_scale_px(xs, px[i]);
		for (; i < n; i++)
		{
			double		x;

			if (!isfinite(px[i]) || !(py[i] > 0))
				continue;
			if (px[i] > xs->hi)
				break;
			x = chart_scale_px(xs, px[i]);
			if (x - x1 > 6)
				break;
			x1 = x;
			count += py[i];
		}
		strbuf_putc(out, 'M');
		svg_num(out, x0 - 4.5);
		strbuf_putc(out, ' ');
		svg_num(out, my);
		strbuf_putc(out, 'H');
		svg_num(out, x1 + 4.5);
		strbuf_puts(out, "l-4.5 8H");
		svg_num(out, x0);
		strbuf_putc(out, 'z');

		svg_format_number(count, num, sizeof(num));
		w = svg_text_width(num, 10);
		if ((x0 + x1) / 2 - w / 2 > label_end + 4)
		{
			svg_text_el(&labels, (x0 + x1) / 2, my - 3, NULL, NULL, num, 0);
			label_end = (x0 + x1) / 2 + w / 2;
		}
	}
	strbuf_puts(out, "\"><title>");
	svg_text(out, s->name, 0);
	strbuf_puts(out, "</title></path>\n");
	if (labels.len > 0)
	{
		/* dark text: a count in the marker's colour is unreadable for light ones (yellow) */
		strbuf_puts(out, "<g font-size=\"10\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#222\">\n");
		strbuf_append(out, labels.data, labels.len);
		strbuf_puts(out, "</g>\n");
	}
	strbuf_free(&labels);
	if (owned)
	{
		free((void *) px);
		free((void *) py);
	}
}

static void
draw_line_series(const series *s, const scale *xs, const scale *ys, strbuf *out)
{
	const double *px,
			   *py;
	bool		owned;
	size_t		n = chart_sorted_points(s, &px, &py, &owned);
	strbuf		d,
				dots;
	path_writer w;

	strbuf_init(&d);
	strbuf_init(&dots);
	memset(&w, 0, sizeof(w));
	w.d = &d;
	w.dots = &dots;
	w.step = s->style == CHART_STEP;
	w.dot_colour = chart_palette[s->colour];
	for (size_t i = 0; i < n; i++)
	{
		if (!isfinite(px[i]) || !isfinite(py[i]) || (ys->log && py[i] <= 0))
		{
			pw_end_segment(&w);
			continue;
		}
		pw_add(&w, i, chart_scale_px(xs, px[i]), chart_scale_px(ys, py[i]));
	}
	pw_end_segment(&w);
	if (d.len > 0)
	{
		strbuf_puts(out, "<path class=\"line\" fill=\"none\"");
		chart_colour_attr(out, "stroke", s->colour);
		strbuf_printf(out, " stroke-width=\"%s\" stroke-linejoin=\"round\"%s d=\"",
					  s->dashed ? "1.6" : "2",
					  s->dashed ? " stroke-dasharray=\"7 4\"" : "");
		strbuf_append(out, d.data, d.len);
		strbuf_puts(out, "\"><title>");
		svg_text(out, s->name, 0);
		strbuf_puts(out, "</title></path>\n");
	}
	strbuf_append(out, dots.data, dots.len);
	strbuf_free(&d);
	strbuf_free(&dots);
	if (owned)
	{
		free((void *) px);
		free((void *) py);
	}
}

/*
 * The stacked areas and y scales of a panel: data ranges first (0 always
 * included on a linear axis), then the grid axis's scale and the other
 * one.  Returns whether the panel has any data; *grid_axis is the axis
 * whose ticks draw the gridlines.
 */
static bool
make_y_scales(const chart *c, int pi, const panel_layout *pl, const scale *xs,
			  stack *stacks, scale *ys, int *grid_axis)
{
	const panel *p = &c->panels[pi];
	double		dlo[2],
				dhi[2],
				dminpos[2],
				dmaxpos[2];
	bool		use_log[2];
	bool		any_data = false;
	int			target = (int) (pl->plot_h / 50);

	memset(ys, 0, 2 * sizeof(scale));
	if (target < 2)
		target = 2;
	for (int a = 0; a < 2; a++)
	{
		double		lo = 0,
					hi = 0,
					minpos = INFINITY,
					maxpos = 0;

		chart_stack_build(c, pi, (chart_axis) a, xs, &stacks[a]);
		if (stacks[a].nx > 0)
		{
			hi = stacks[a].max_top;
			any_data = true;
		}
		for (int i = 0; i < c->nseries; i++)
		{
			const series *s = &c->series[i];

			if (s->panel != pi || (int) s->axis != a || s->style == CHART_AREA ||
				s->style == CHART_EVENTS)
				continue;
			for (size_t j = 0; j < s->n; j++)
			{
				double		v = s->y[j];

				/* only what is in the x range counts */
				if (!isfinite(v) || s->x[j] < xs->lo || s->x[j] > xs->hi)
					continue;
				lo = fmin(lo, v);
				hi = fmax(hi, v);
				if (v > 0)
				{
					minpos = fmin(minpos, v);
					maxpos = fmax(maxpos, v);
				}
				any_data = true;
			}
		}
		dlo[a] = lo;
		dhi[a] = hi;
		dminpos[a] = minpos;
		dmaxpos[a] = maxpos;
		/* a stack has no sensible log form */
		use_log[a] = p->ylog[a] && stacks[a].nlayers == 0;
	}
	*grid_axis = pl->axis_used[0] ? 0 : 1;
	for (int a = *grid_axis; a < 2; a++)
	{
		bool		fixed = isfinite(p->ylo[0]) || isfinite(p->yhi[0]) ||
			isfinite(p->ylo[1]) || isfinite(p->yhi[1]);
		/* a right axis next to a linear left one gets its ticks on the left's gridlines */
		int			align = a == 1 && *grid_axis == 0 && !fixed && !use_log[0] && !use_log[1]
			? ys[0].nticks - 1 : 0;
		double		yb = pl->plot_y + pl->plot_h;

		if (use_log[a])
			chart_make_log_scale(&ys[a], dminpos[a], dmaxpos[a], p->ylo[a], p->yhi[a], yb, pl->plot_y);
		else
			chart_make_y_scale(&ys[a], dlo[a], dhi[a], p->ylo[a], p->yhi[a], target, align,
							   yb, pl->plot_y);
	}
	return any_data;
}

/* A line from (x1, y1) to (x2, y2), with extra attributes and the tag's end. */
static void
put_line(strbuf *out, double x1, double y1, double x2, double y2, const char *end)
{
	strbuf_puts(out, "<line");
	svg_attr_num(out, "x1", x1);
	svg_attr_num(out, "y1", y1);
	svg_attr_num(out, "x2", x2);
	svg_attr_num(out, "y2", y2);
	strbuf_puts(out, end);
}

/* The plot's background, its gridlines, and a darker line at 0 when 0 is inside the range. */
static void
draw_grid(const layout *L, const panel_layout *pl, const scale *xs, const scale *ys,
		  int grid_axis, strbuf *out)
{
	double		x0 = L->plot_x,
				x1 = L->plot_x + L->plot_w;
	double		yb = pl->plot_y + pl->plot_h,
				yt = pl->plot_y;

	strbuf_puts(out, "<rect class=\"plot\"");
	svg_attr_num(out, "x", x0);
	svg_attr_num(out, "y", yt);
	svg_attr_num(out, "width", L->plot_w);
	svg_attr_num(out, "height", pl->plot_h);
	strbuf_puts(out, " fill=\"#fcfcfc\" stroke=\"none\"/>\n");
	strbuf_puts(out, "<g class=\"grid\" stroke=\"#e3e3e3\" stroke-width=\"1\">\n");
	for (int i = 0; i < ys[grid_axis].nticks; i++)
	{
		double		y = chart_scale_px(&ys[grid_axis], chart_tick_value(&ys[grid_axis], i));

		put_line(out, x0, y, x1, y, "/>\n");
	}
	for (int i = 0; i < xs->nticks; i++)
	{
		double		x = chart_scale_px(xs, chart_tick_value(xs, i));

		put_line(out, x, yt, x, yb, "/>\n");
	}
	strbuf_puts(out, "</g>\n");

	for (int a = 0; a < 2; a++)
	{
		if (!pl->axis_used[a] || a != grid_axis || ys[a].log || !(ys[a].lo < 0 && ys[a].hi > 0))
			continue;
		put_line(out, x0, chart_scale_px(&ys[a], 0), x1, chart_scale_px(&ys[a], 0),
				 " stroke=\"#999\"/>\n");
	}
}

/* The stacked areas, then lines and steps, clipped to the plot. */
static void
draw_series(const chart *c, int pi, const layout *L, const scale *xs, const stack *stacks,
			const scale *ys, strbuf *out)
{
	const panel_layout *pl = &L->p[pi];

	const char *idp = c->id_prefix != NULL ? c->id_prefix : "";

	strbuf_printf(out, "<clipPath id=\"%splot%d\"><rect", idp, pi);
	svg_attr_num(out, "x", L->plot_x);
	svg_attr_num(out, "y", pl->plot_y - 1);
	svg_attr_num(out, "width", L->plot_w);
	svg_attr_num(out, "height", pl->plot_h + 2);
	strbuf_printf(out, "/></clipPath>\n<g clip-path=\"url(#%splot%d)\">\n", idp, pi);
	for (int a = 0; a < 2; a++)
		chart_draw_stack(c, &stacks[a], xs, &ys[a], out);
	for (int i = 0; i < c->nseries; i++)
	{
		const series *s = &c->series[i];

		if (s->panel == pi && (s->style == CHART_LINE || s->style == CHART_STEP))
			draw_line_series(s, xs, &ys[s->axis], out);
	}
	strbuf_puts(out, "</g>\n");
}

/* The frame (left and bottom axis lines, right one if used) and the y tick labels and titles. */
static void
draw_y_axes(const chart *c, int pi, const layout *L, const scale *ys, strbuf *out)
{
	const panel *p = &c->panels[pi];
	const panel_layout *pl = &L->p[pi];
	double		x0 = L->plot_x,
				x1 = L->plot_x + L->plot_w;
	double		yb = pl->plot_y + pl->plot_h,
				yt = pl->plot_y;
	char		buf[64];

	strbuf_puts(out, "<path fill=\"none\" stroke=\"#888\" d=\"M");
	svg_num(out, x0);
	strbuf_putc(out, ' ');
	svg_num(out, yt);
	strbuf_putc(out, 'V');
	svg_num(out, yb);
	strbuf_putc(out, 'H');
	svg_num(out, x1);
	if (pl->axis_used[1])
	{
		strbuf_putc(out, 'V');
		svg_num(out, yt);
	}
	strbuf_puts(out, "\"/>\n");

	for (int a = 0; a < 2; a++)
	{
		const char *anchor = a == 0 ? "end" : "start";
		double		lx = a == 0 ? x0 - 7 : x1 + 7;

		if (!pl->axis_used[a])
			continue;
		strbuf_printf(out, "<g font-size=\"11\" fill=\"#444\" text-anchor=\"%s\">\n", anchor);
		for (int i = 0; i < ys[a].nticks; i++)
		{
			double		v = chart_tick_value(&ys[a], i);

			chart_format_tick(&ys[a], v, buf, sizeof(buf));
			svg_text_el(out, lx, chart_scale_px(&ys[a], v) + 4, NULL, NULL, buf, 0);
		}
		strbuf_puts(out, "</g>\n");
		if (a == 0)
			put_vertical_title(out, MARGIN - 4, (yt + yb) / 2, p->ylabel[0], p->yunit[0],
							   pl->plot_h);
		else
			put_vertical_title(out, L->right_x + RIGHT_AXIS_W - 12, (yt + yb) / 2,
							   p->ylabel[1], p->yunit[1], pl->plot_h);
	}
}

/* The x tick labels (those that would touch the previous one left out) and the x axis title. */
static void
draw_x_labels(const chart *c, const layout *L, const panel_layout *pl, const scale *xs,
			  strbuf *out)
{
	double		x0 = L->plot_x,
				x1 = L->plot_x + L->plot_w;
	double		yb = pl->plot_y + pl->plot_h;
	double		last_end = -INFINITY;
	char		buf[64];

	strbuf_puts(out, "<g font-size=\"11\" fill=\"#444\" text-anchor=\"middle\">\n");
	for (int i = 0; i < xs->nticks; i++)
	{
		double		v = chart_tick_value(xs, i);
		double		x = chart_scale_px(xs, v);
		double		w;

		chart_format_x_tick(c, xs, v, buf, sizeof(buf));
		w = svg_text_width(buf, 11);
		if (x - w / 2 < last_end + 6)
			continue;
		svg_text_el(out, x, yb + 16, NULL, NULL, buf, 0);
		last_end = x + w / 2;
	}
	strbuf_puts(out, "</g>\n");
	if (c->xlabel != NULL)
		svg_text_el(out, (x0 + x1) / 2, yb + 36, "middle", "font-size=\"12\" fill=\"#333\"",
					c->xlabel, svg_fit_chars(L->plot_w, 12));
}

void
chart_draw_time_panel(const chart *c, int pi, const layout *L, const scale *xs, strbuf *out)
{
	const panel *p = &c->panels[pi];
	const panel_layout *pl = &L->p[pi];
	stack		stacks[2];
	scale		ys[2];
	int			grid_axis;
	bool		any_data = make_y_scales(c, pi, pl, xs, stacks, ys, &grid_axis);

	if (p->title != NULL)
		svg_text_el(out, L->plot_x, pl->title_y, NULL, "font-size=\"14\" font-weight=\"bold\" fill=\"#222\"",
					p->title, svg_fit_chars(L->plot_w, 14));
	draw_grid(L, pl, xs, ys, grid_axis, out);
	draw_series(c, pi, L, xs, stacks, ys, out);
	draw_y_axes(c, pi, L, ys, out);
	if (pl->x_labels)
		draw_x_labels(c, L, pl, xs, out);
	if (!any_data)
		svg_text_el(out, (L->plot_x + (L->plot_x + L->plot_w)) / 2,
					(pl->plot_y + (pl->plot_y + pl->plot_h)) / 2 + 5, "middle",
					"font-size=\"14\" fill=\"#999\"", "no data", 0);
	for (int i = 0; i < c->nseries; i++)
	{
		const series *s = &c->series[i];

		if (s->panel == pi && s->style == CHART_EVENTS)
			draw_events(s, xs, pl, out);
	}
	draw_legend(c, pi, L, out);
	for (int a = 0; a < 2; a++)
		chart_stack_free(&stacks[a]);
}

