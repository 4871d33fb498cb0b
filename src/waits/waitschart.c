/*
 * waitschart.c — collecting and drawing pgtempo-waits --chart.
 */
#include "config.h"

#include "waitschart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/chart.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "waitsbars.h"

/* Events drawn on their own; the others are summed as "other". */
#define WCHART_TOP 12

void
wchart_init(wchart *c, strpool *pool)
{
	memset(c, 0, sizeof(*c));
	c->pool = pool;
}

void
wchart_free(wchart *c)
{
	free(c->iv);
	free(c->cells);
	memset(c, 0, sizeof(*c));
}

/* The label of an event: "Type:event", or just "CPU" for CPU rows. */
static const char *
wchart_label(strpool *pool, const char *type, const char *event)
{
	char		buf[256];

	if (type == NULL)
		type = "?";
	if (event == NULL || strcmp(type, event) == 0)
		return strpool_intern(pool, type);
	snprintf(buf, sizeof(buf), "%s:%s", type, event);
	return strpool_intern(pool, buf);
}

void
wchart_add_interval(wchart *c, double t, const wprof *iv)
{
	static const wprof_dim by_event[] = {WPROF_DIM_EVENT};
	wprof_groups g;
	wchart_interval *w;

	wprof_group_by(iv, by_event, 1, 0, &g);
	if (c->niv == c->cap_iv)
	{
		c->cap_iv = c->cap_iv > 0 ? 2 * c->cap_iv : 256;
		c->iv = xrealloc(c->iv, c->cap_iv * sizeof(*c->iv));
	}
	w = &c->iv[c->niv++];
	w->t = t;
	w->active = iv->active;
	w->first = c->ncells;
	w->ncells = 0;
	for (int i = 0; i < g.n; i++)
	{
		if (g.g[i].samples == 0)
			continue;
		if (c->ncells == c->cap_cells)
		{
			c->cap_cells = c->cap_cells > 0 ? 2 * c->cap_cells : 1024;
			c->cells = xrealloc(c->cells, c->cap_cells * sizeof(*c->cells));
		}
		c->cells[c->ncells].label = wchart_label(c->pool, g.g[i].key.type, g.g[i].key.event);
		c->cells[c->ncells].samples = g.g[i].samples;
		c->ncells++;
		w->ncells++;
	}
	wprof_groups_free(&g);
}

/* The index of label among the top events, or -1 ("other"). */
static int
top_index(const char *const *top, int ntop, const char *label)
{
	for (int i = 0; i < ntop; i++)
		if (top[i] == label)	/* interned: one pointer per label */
			return i;
	return -1;
}

bool
wchart_write(const wchart *c, const wprof *run, const char *path, const char *subtitle,
			 char **cause)
{
	static const wprof_dim by_event[] = {WPROF_DIM_EVENT};
	wprof_groups g;
	const char *top[WCHART_TOP];
	int			ntop = 0,
				series[WCHART_TOP + 1],
				area;
	wbars	   *bars;
	bool		has_other = false;
	chart	   *ch = chart_new("pgtempo-waits: where the active sessions' time went", subtitle);
	strbuf		out;
	bool		ok;
	char		note[64];

	/* the run's largest events define the series, largest at the bottom */
	wprof_group_by(run, by_event, 1, 0, &g);
	for (int i = 0; i < g.n && ntop < WCHART_TOP; i++)
		top[ntop++] = wchart_label(c->pool, g.g[i].key.type, g.g[i].key.event);
	has_other = g.n > ntop;

	chart_set_x(ch, CHART_X_CLOCK, "time");
	area = chart_add_panel(ch, "Wait events, share of the active samples per second", 0);
	chart_set_y(ch, area, CHART_LEFT, "share of active samples", "%");
	chart_set_y_range(ch, area, CHART_LEFT, 0, 100);
	for (int i = 0; i < ntop; i++)
		series[i] = chart_add_series(ch, area, top[i], CHART_AREA, CHART_LEFT, CHART_BLUE + i);
	if (has_other)
		series[ntop] = chart_add_series(ch, area, "other", CHART_AREA, CHART_LEFT, CHART_GREY);

	for (size_t k = 0; k < c->niv; k++)
	{
		const wchart_interval *w = &c->iv[k];
		double		share[WCHART_TOP + 1];

		memset(share, 0, sizeof(share));
		for (size_t j = w->first; j < w->first + w->ncells && w->active > 0; j++)
		{
			int			t = top_index(top, ntop, c->cells[j].label);

			share[t >= 0 ? t : ntop] += 100.0 * (double) c->cells[j].samples / (double) w->active;
		}
		for (int i = 0; i < ntop + (has_other ? 1 : 0); i++)
			chart_add_point(ch, series[i], w->t, share[i]);
	}

	bars = wbars_add_panel(ch, "The whole run: share of the active samples", "%");
	for (int i = 0; i < g.n && i < ntop; i++)
	{
		snprintf(note, sizeof(note), "%llu sample%s", (unsigned long long) g.g[i].samples,
				 g.g[i].samples == 1 ? "" : "s");
		wbars_add(bars, top[i], g.total > 0 ? 100.0 * g.g[i].samples / g.total : 0,
			  note, CHART_BLUE + i);
	}
	if (has_other)
	{
		uint64_t	rest = 0;

		for (int i = ntop; i < g.n; i++)
			rest += g.g[i].samples;
		snprintf(note, sizeof(note), "%llu sample%s, %d event%s", (unsigned long long) rest,
				 rest == 1 ? "" : "s", g.n - ntop, g.n - ntop == 1 ? "" : "s");
		wbars_add(bars, "other", g.total > 0 ? 100.0 * rest / g.total : 0, note, CHART_GREY);
	}
	wprof_groups_free(&g);

	strbuf_init(&out);
	chart_render(ch, &out);
	chart_free(ch);
	/* whole or not at all: an SVG cut short by a full disk would show nothing */
	ok = strbuf_write_file(path, out.data, out.len, cause);
	strbuf_free(&out);
	return ok;
}
