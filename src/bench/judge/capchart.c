/*
 * capchart.c — --capacity --chart: each objective's value with its 95 %
 * interval against the offered rate, the objective as a dashed line, the
 * capacity and its bracket's upper end as vertical lines, and the knee.
 *
 * One time panel per objective on the core's chart (x: the offered rate,
 * a plain number; y: the latency on a log scale), so that the look is the
 * run's and --compare's.  A vertical line is a series of two points at one
 * rate, from the lowest value drawn in the panel to the highest.
 */
#include "config.h"

#include "capacity_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pgtempo/chart.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

/* The range of the values a panel draws (ms): every interval's ends and the target. */
static void
panel_range(const cap_search *cs, int obj, const int *order, int n, double *lo, double *hi)
{
	*lo = *hi = cs->c->objectives[obj].value * 1e3;
	for (int k = 0; k < n; k++)
	{
		const cap_value *v = &cs->steps[order[k]].v[obj];

		if (!v->known)
			continue;
		*lo = fmin(*lo, fmin(v->lo, v->est) * 1e3);
		*hi = fmax(*hi, fmax(v->hi, v->est) * 1e3);
	}
}

/* A vertical line at rate x from lo to hi, named, in colour, dashed or not. */
static void
add_vertical(chart *ch, int panel, const char *name, double x, double lo, double hi, int colour,
			 bool dashed)
{
	int			s = chart_add_series(ch, panel, name, CHART_LINE, CHART_LEFT, colour);

	chart_series_dashed(ch, s, dashed);
	chart_add_point(ch, s, x, lo);
	chart_add_point(ch, s, x, hi);
}

/* The marks every panel has: the capacity, its bracket's upper end, the knee. */
static void
add_marks(chart *ch, int panel, const cap_search *cs, double lo, double hi)
{
	char		name[128];
	double		kb,
				ka;

	if (cs->lo > 0)
	{
		snprintf(name, sizeof(name), "capacity: %.1f tps", cs->lo);
		add_vertical(ch, panel, name, cs->lo, lo, hi, CHART_GREEN, false);
	}
	if (cs->nsteps > 1 && cs->hi > 0)
	{
		snprintf(name, sizeof(name), "bracket's upper end: %.1f tps%s", cs->hi,
				 cs->hi_tested ? "" : " (the probe's ceiling)");
		add_vertical(ch, panel, name, cs->hi, lo, hi, CHART_GREEN, true);
	}
	if (cap_find_knee(cs, &kb, &ka))
	{
		snprintf(name, sizeof(name), "knee: between %.1f and %.1f tps", kb, ka);
		add_vertical(ch, panel, name, ka, lo, hi, CHART_PURPLE, true);
	}
}

/* An objective's panel (x: 0 to xmax): its value and interval per rate, target, marks. */
static void
add_objective(chart *ch, const cap_search *cs, int obj, const int *order, int n, double xmax)
{
	const gate_limit *o = &cs->c->objectives[obj];
	char	   *title = xasprintf("%s against the offered rate (objective %s)", o->name, o->text);
	char	   *low = xasprintf("%s: 95 %% interval, low", o->name);
	char	   *high = xasprintf("%s: 95 %% interval, high", o->name);
	char	   *target = xasprintf("objective: %s", o->text);
	int			panel = chart_add_panel(ch, title, 0);
	int			s_est = chart_add_series(ch, panel, o->name, CHART_LINE, CHART_LEFT, CHART_BLUE);
	int			s_lo = chart_add_series(ch, panel, low, CHART_LINE, CHART_LEFT, CHART_SKY);
	int			s_hi = chart_add_series(ch, panel, high, CHART_LINE, CHART_LEFT, CHART_SKY);
	int			s_target = chart_add_series(ch, panel, target, CHART_LINE, CHART_LEFT, CHART_BLACK);
	double		lo,
				hi;

	chart_set_y(ch, panel, CHART_LEFT, o->name, "ms, log scale");
	chart_set_y_log(ch, panel, CHART_LEFT, true);
	chart_series_dashed(ch, s_target, true);
	for (int k = 0; k < n; k++)
	{
		const cap_step *st = &cs->steps[order[k]];
		const cap_value *v = &st->v[obj];

		/* a step without a value is a gap */
		chart_add_point(ch, s_est, st->rate, v->known ? v->est * 1e3 : NAN);
		chart_add_point(ch, s_lo, st->rate, v->known ? v->lo * 1e3 : NAN);
		chart_add_point(ch, s_hi, st->rate, v->known ? v->hi * 1e3 : NAN);
	}
	/* across the whole axis, as a limit */
	chart_add_point(ch, s_target, 0, o->value * 1e3);
	chart_add_point(ch, s_target, xmax, o->value * 1e3);
	panel_range(cs, obj, order, n, &lo, &hi);
	add_marks(ch, panel, cs, lo, hi);
	free(title);
	free(low);
	free(high);
	free(target);
}

bool
capacity_write_chart(const output_ctx *oc, const char *path, char **cause)
{
	const cap_search *cs = oc->data;
	int			order[CAP_MAX_STEPS];
	int			n = cap_steps_by_rate(cs, order);
	chart	   *ch = chart_new("pgtempo-bench", oc->s->command_line);
	strbuf		sb;
	bool		ok;
	double		top = n > 0 ? fmax(cs->steps[order[n - 1]].rate, cs->hi) : cs->hi,
				first,
				last,
				step;

	/* from no load to the tick above the highest rate: no mark on the plot's edge */
	chart_nice_ticks(0, top * 1.02, 6, &first, &last, &step);
	chart_set_x(ch, CHART_X_NUMBER, "offered rate (tps)");
	chart_set_x_range(ch, 0, last);
	for (int i = 0; i < cs->c->nobjectives; i++)
		add_objective(ch, cs, i, order, n, last);
	strbuf_init(&sb);
	chart_render(ch, &sb);
	ok = strbuf_write_free(&sb, path, cause);
	chart_free(ch);
	return ok;
}
