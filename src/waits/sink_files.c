/*
 * sink_files.c — the files written at the end of a run from its whole
 * profile: --folded (flame-graph stacks) and --chart (an SVG of the
 * shares over time, one interval a second).  Both paths are proved
 * writable before connecting, so a bad path fails at once.
 */
#include "config.h"

#include "sink_files.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "format.h"
#include "waitschart.h"

/* qsort order of strings. */
static int
line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * Write the folded stacks, sorted so equal profiles give equal files,
 * whole or not at all (strbuf_write_file).
 */
static bool
folded_write(const char *path, const wprof *p, char **cause)
{
	static const wprof_dim dims[] = {
		WPROF_DIM_DB, WPROF_DIM_BACKEND_TYPE, WPROF_DIM_EVENT, WPROF_DIM_QUERY
	};
	wprof_groups g;
	char	  **lines;
	strbuf		out;
	size_t		n = 0;
	bool		ok;

	wprof_group_by(p, dims, 4, 0, &g);
	lines = xcalloc((size_t) g.n + 1, sizeof(char *));
	for (int i = 0; i < g.n; i++)
	{
		strbuf		sb;

		if (g.g[i].samples == 0)
			continue;
		strbuf_init(&sb);
		format_folded_line(&sb, &g.g[i].key, g.g[i].samples);
		lines[n++] = strbuf_detach(&sb);
	}
	wprof_groups_free(&g);
	/* sorted, so the same profile always gives the same file */
	qsort(lines, n, sizeof(char *), line_cmp);
	strbuf_init(&out);
	for (size_t i = 0; i < n; i++)
	{
		strbuf_puts(&out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	/* "-": standard output, before the report; what does not get out is said there */
	ok = strbuf_write_file(path, out.data, out.len, cause);
	strbuf_free(&out);
	return ok;
}

/* At the end, write the run's stacks. */
static bool
folded_close(sink *k, sink_close_stage stage)
{
	const char *path = k->run->s->folded_path;
	char	   *cause = NULL;

	if (stage != SINK_CLOSE)
		return true;
	if (!folded_write(path, k->run->prof, &cause))
	{
		msg_error("%s", cause);
		free(cause);
		return false;
	}
	return true;
}

/* A path given for a file written at the end must be writable from the start. */
static bool
check_path(const char *path, sink_open_stage stage, char **cause)
{
	return stage != SINK_CHECK || strbuf_check_writable(path, cause);
}

static bool
folded_open(sink *k, sink_open_stage stage, char **cause)
{
	return check_path(k->run->s->folded_path, stage, cause);
}

static const sink_ops folded_ops = {
	.open = folded_open,
	.close = folded_close,
};

/* --folded: the stacks of the whole run, at the end. */
void
sink_folded_add(sink_list *l)
{
	if (l->run.s->folded_path != NULL)
		sink_new(l, &folded_ops, sizeof(sink));
}

typedef struct sink_chart
{
	sink		base;
	wchart		chart;
} sink_chart;

static bool
chart_open(sink *k, sink_open_stage stage, char **cause)
{
	return check_path(k->run->s->chart_path, stage, cause);
}

/* Keep the second that ends now. */
static void
chart_interval(sink *k, const format_interval *iv, wprof *p)
{
	if (p->ticks > 0 || p->active > 0)
		wchart_add_interval(&((sink_chart *) k)->chart, (double) iv->end_us / 1e6, p);
}

/* At the end, draw the chart of the seconds and the whole run. */
static bool
chart_close(sink *k, sink_close_stage stage)
{
	const sink_run *run = k->run;
	char	   *subtitle;
	char	   *cause = NULL;
	bool		written;

	if (stage != SINK_CLOSE)
		return true;
	subtitle = xasprintf("%s, PostgreSQL %s, %s every %.3g ms", run->src.server,
						 run->src.server_version, run->src.source,
						 (double) run->interval_ns / 1e6);
	written = wchart_write(&((sink_chart *) k)->chart, run->prof, run->s->chart_path, subtitle,
						   &cause);
	free(subtitle);
	if (!written)
	{
		msg_error("%s", cause);
		free(cause);
	}
	return written;
}

static void
chart_free(sink *k)
{
	wchart_free(&((sink_chart *) k)->chart);
}

static const sink_ops chart_ops = {
	.open = chart_open,
	.interval = chart_interval,
	.close = chart_close,
	.free = chart_free,
};

/* --chart: the shares of every second, drawn at the end. */
void
sink_chart_add(sink_list *l)
{
	sink_chart *c;

	if (l->run.s->chart_path == NULL)
		return;
	c = (sink_chart *) sink_new(l, &chart_ops, sizeof(sink_chart));
	wchart_init(&c->chart, l->run.pool);
	c->base.counts_rows = true;
	c->base.interval_ns = NS_PER_S;
}
