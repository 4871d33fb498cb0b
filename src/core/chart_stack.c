/*
 * chart_stack.c — a series' points in x order, and the stacked areas of
 * a panel: built on one x grid, then drawn layer by layer.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/svg.h"
#include "pgtempo/xalloc.h"

#include "chart_int.h"

/* ---------------------------------------------------------------- sorted points */

typedef struct xy
{
	double		x;
	double		y;
	size_t		i;				/* original position: keeps the sort stable */
} xy;

static int
cmp_xy(const void *a, const void *b)
{
	const xy   *p = a;
	const xy   *q = b;

	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

/*
 * A series' points in x order: its own arrays when they already are, else
 * sorted copies (gaps dropped: points out of order make no lines anyway).
 * Free *xs and *ys when *owned.
 */
size_t
chart_sorted_points(const series *s, const double **xs, const double **ys, bool *owned)
{
	xy		   *tmp;
	double	   *x,
			   *y;
	size_t		n = 0;

	if (s->sorted)
	{
		*xs = s->x;
		*ys = s->y;
		*owned = false;
		return s->n;
	}
	tmp = xmalloc((s->n ? s->n : 1) * sizeof(xy));
	for (size_t i = 0; i < s->n; i++)
	{
		if (!isfinite(s->x[i]))
			continue;
		tmp[n].x = s->x[i];
		tmp[n].y = s->y[i];
		tmp[n].i = i;
		n++;
	}
	qsort(tmp, n, sizeof(xy), cmp_xy);
	x = xmalloc((n ? n : 1) * sizeof(double));
	y = xmalloc((n ? n : 1) * sizeof(double));
	for (size_t i = 0; i < n; i++)
	{
		x[i] = tmp[i].x;
		y[i] = tmp[i].y;
	}
	free(tmp);
	*xs = x;
	*ys = y;
	*owned = true;
	return n;
}

static int
cmp_double(const void *a, const void *b)
{
	double		p = *(const double *) a;
	double		q = *(const double *) b;

	return p < q ? -1 : p > q;
}

void
chart_stack_free(stack *st)
{
	free(st->layer_series);
	free(st->xs);
	free(st->tops);
	memset(st, 0, sizeof(*st));
}

/* Whether series i is one of the stacked areas of panel pi on that axis. */
static bool
is_layer(const chart *c, int i, int pi, chart_axis axis)
{
	const series *s = &c->series[i];

	return s->panel == pi && s->style == CHART_AREA && s->axis == axis;
}

/* The sorted union, without repeats, of the finite x values of st's layers; *nx of them. */
static double *
union_x(const chart *c, const stack *st, size_t total, size_t *nx)
{
	double	   *ux = xmalloc((total ? total : 1) * sizeof(double));
	size_t		n = 0,
				u = 0;

	for (int k = 0; k < st->nlayers; k++)
	{
		const series *s = &c->series[st->layer_series[k]];

		for (size_t j = 0; j < s->n; j++)
			if (isfinite(s->x[j]))
				ux[n++] = s->x[j];
	}
	qsort(ux, n, sizeof(double), cmp_double);
	for (size_t j = 0; j < n; j++)
		if (u == 0 || ux[j] != ux[u - 1])
			ux[u++] = ux[j];
	*nx = u;
	return ux;
}

/* Each layer's value at each x of ux: its point there, or 0; layer k's at [k * nx]. */
static double *
layer_values(const chart *c, const stack *st, const double *ux, size_t nx)
{
	double	   *vals = xcalloc((nx ? nx : 1) * st->nlayers, sizeof(double));

	for (int k = 0; k < st->nlayers; k++)
	{
		const series *s = &c->series[st->layer_series[k]];
		const double *px,
				   *py;
		bool		owned;
		size_t		n = chart_sorted_points(s, &px, &py, &owned);
		size_t		j = 0;

		for (size_t i = 0; i < n; i++)
		{
			if (!isfinite(px[i]))
				continue;
			while (j < nx && ux[j] < px[i])
				j++;
			if (j < nx && ux[j] == px[i])
				vals[k * nx + j] = isfinite(py[i]) && py[i] > 0 ? py[i] : 0;
		}
		if (owned)
		{
			free((void *) px);
			free((void *) py);
		}
	}
	return vals;
}

/* One column per pixel of xs: ux and every layer's vals averaged in place; the new nx. */
static size_t
thin_to_pixels(const stack *st, const scale *xs, double *ux, double *vals, size_t nx)
{
	size_t		out = 0,
				start = 0;

	while (start < nx)
	{
		long		col = (long) floor(chart_scale_px(xs, ux[start]));
		size_t		end = start + 1;
		double		sx = ux[start];

		while (end < nx && (long) floor(chart_scale_px(xs, ux[end])) == col)
			sx += ux[end++];
		ux[out] = sx / (double) (end - start);
		for (int k = 0; k < st->nlayers; k++)
		{
			double		sum = 0;

			for (size_t j = start; j < end; j++)
				sum += vals[k * nx + j];
			/* out <= start: nothing still needed is overwritten */
			vals[k * nx + out] = sum / (double) (end - start);
		}
		out++;
		start = end;
	}
	/* compact the layers to the new width */
	for (int k = 1; k < st->nlayers; k++)
		memmove(vals + k * out, vals + k * nx, out * sizeof(double));
	return out;
}

void
chart_stack_build(const chart *c, int pi, chart_axis axis, const scale *xs, stack *st)
{
	size_t		total = 0,
				nx = 0;
	double	   *ux;
	double	   *vals;
	int			k = 0;

	memset(st, 0, sizeof(*st));
	for (int i = 0; i < c->nseries; i++)
		if (is_layer(c, i, pi, axis))
		{
			st->nlayers++;
			total += c->series[i].n;
		}
	if (st->nlayers == 0)
		return;
	st->layer_series = xmalloc(st->nlayers * sizeof(int));
	for (int i = 0; i < c->nseries; i++)
		if (is_layer(c, i, pi, axis))
			st->layer_series[k++] = i;

	ux = union_x(c, st, total, &nx);
	vals = layer_values(c, st, ux, nx);
	if (nx > (size_t) fabs(xs->px1 - xs->px0) + 1)
		nx = thin_to_pixels(st, xs, ux, vals, nx);

	/* cumulate */
	for (k = 1; k < st->nlayers; k++)
		for (size_t j = 0; j < nx; j++)
			vals[k * nx + j] += vals[(k - 1) * nx + j];
	st->max_top = 0;
	for (size_t j = 0; j < nx; j++)
		st->max_top = fmax(st->max_top, vals[(st->nlayers - 1) * nx + j]);
	st->nx = nx;
	st->xs = ux;
	st->tops = vals;
}

/* ---------------------------------------------------------------- drawing */

void
chart_draw_stack(const chart *c, const stack *st, const scale *xs, const scale *ys, strbuf *out)
{
	double		half = st->nx == 1 ? 1.5 : 0;	/* one x: a thin band, not nothing */

	for (int k = 0; k < st->nlayers; k++)
	{
		const series *s = &c->series[st->layer_series[k]];
		const double *top = st->tops + (size_t) k * st->nx;
		const double *bottom = k > 0 ? st->tops + (size_t) (k - 1) * st->nx : NULL;

		if (st->nx == 0)
			continue;
		strbuf_puts(out, "<path class=\"area\"");
		chart_colour_attr(out, "fill", s->colour);
		strbuf_puts(out, " stroke=\"#fff\" stroke-width=\"0.5\" stroke-linejoin=\"round\" d=\"");
		for (size_t j = 0; j < st->nx; j++)
		{
			strbuf_putc(out, j == 0 ? 'M' : 'L');
			svg_num(out, chart_scale_px(xs, st->xs[j]) - half);
			strbuf_putc(out, ' ');
			svg_num(out, chart_scale_px(ys, top[j]));
			if (half > 0)
			{
				strbuf_putc(out, 'L');
				svg_num(out, chart_scale_px(xs, st->xs[j]) + half);
				strbuf_putc(out, ' ');
				svg_num(out, chart_scale_px(ys, top[j]));
			}
		}
		for (size_t j = st->nx; j > 0; j--)
		{
			double		b = bottom != NULL ? bottom[j - 1] : 0;

			strbuf_putc(out, 'L');
			svg_num(out, chart_scale_px(xs, st->xs[j - 1]) + half);
			strbuf_putc(out, ' ');
			svg_num(out, chart_scale_px(ys, b));
			if (half > 0)
			{
				strbuf_putc(out, 'L');
				svg_num(out, chart_scale_px(xs, st->xs[j - 1]) - half);
				strbuf_putc(out, ' ');
				svg_num(out, chart_scale_px(ys, b));
			}
		}
		strbuf_puts(out, "Z\"><title>");
		svg_text(out, s->name, 0);
		strbuf_puts(out, "</title></path>\n");
	}
}

