/*
 * sink.c — log files and folded stacks.
 */
#include "config.h"

#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

#include "options.h"

/* Open --log with the header of its format; nothing to do without --log. */
bool
sink_log_open(sink_log *s, const waits_settings *st, time_t now, char **cause)
{
	const char *header = NULL;
	char	   *line = NULL;
	bool		ok;

	memset(s, 0, sizeof(*s));
	if (st->log_path == NULL)
		return true;
	s->fmt = options_log_format_for(st->log_path, st->log_format);
	s->intervals = st->log_interval_ns > 0;
	s->include_idle = st->include_idle;
	if (s->fmt == WAITS_LOG_CSV)
	{
		header = s->intervals ? FORMAT_CSV_INTERVAL_HEADER : FORMAT_CSV_SAMPLE_HEADER;
		line = xasprintf("%s\n", header);
	}
	ok = logfile_open(&s->lf, st->log_path, line, now, cause);
	free(line);
	if (!ok)
		return false;
	strbuf_init(&s->line);
	s->active = true;
	return true;
}

/* Queue the record in the line buffer: the log counts what it loses by record. */
static void
emit(sink_log *s)
{
	logfile_add(&s->lf, s->line.data, s->line.len);
	strbuf_reset(&s->line);
}

/* Raw mode: one line per counted row. */
void
sink_log_batch(sink_log *s, const sample_batch *b)
{
	if (!s->active || s->intervals)
		return;
	for (int i = 0; i < b->nrows; i++)
	{
		const sample_row *r = &b->rows[i];

		if (!sample_row_counted(r, s->include_idle) || r->samples == 0)
			continue;
		if (s->fmt == WAITS_LOG_JSONL)
			format_sample_jsonl(&s->line, b, r);
		else
			format_sample_csv(&s->line, b, r);
		emit(s);
	}
}

/* Interval mode: one line per group of the interval. */
void
sink_log_interval(sink_log *s, const format_interval *iv, const wprof *p)
{
	wprof_groups g;

	if (!s->active || !s->intervals)
		return;
	wprof_group_by(p, format_interval_dims, format_interval_ndims, 0, &g);
	for (int i = 0; i < g.n; i++)
	{
		if (s->fmt == WAITS_LOG_JSONL)
			format_interval_jsonl(&s->line, iv, &g.g[i]);
		else
			format_interval_csv(&s->line, iv, &g.g[i]);
		emit(s);
	}
	wprof_groups_free(&g);
}

/* A health record. */
void
sink_log_health(sink_log *s, const sample_health *h)
{
	if (!s->active)
		return;
	if (s->fmt == WAITS_LOG_JSONL)
		format_health_jsonl(&s->line, h);
	else
		format_health_csv(&s->line, h);
	emit(s);
}

/* A gap record. */
void
sink_log_gap(sink_log *s, const sample_gap *g)
{
	if (!s->active)
		return;
	if (s->fmt == WAITS_LOG_JSONL)
		format_gap_jsonl(&s->line, g);
	else
		format_gap_csv(&s->line, g);
	emit(s);
}

/* The store's row counts at the end. */
void
sink_log_store(sink_log *s, const format_store_counts *c)
{
	if (!s->active)
		return;
	if (s->fmt == WAITS_LOG_JSONL)
		format_store_jsonl(&s->line, c);
	else
		format_store_csv(&s->line, c);
	emit(s);
}

/* Once a second: flush, rotate. */
void
sink_log_tick(sink_log *s, time_t now, bool reopen)
{
	if (s->active)
		logfile_tick(&s->lf, now, reopen);
}

/* Write out what is queued now. */
void
sink_log_flush(sink_log *s)
{
	if (s->active)
		logfile_flush(&s->lf);
}

/* Close the log; false (and said how many) if records were lost. */
bool
sink_log_close(sink_log *s)
{
	bool		ok;

	if (!s->active)
		return true;
	ok = logfile_close(&s->lf);
	strbuf_free(&s->line);
	s->active = false;
	return ok;
}

/* qsort order of strings. */
static int
line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * Write the folded stacks, sorted so equal profiles give equal files.  On
 * a write error the file keeps the whole lines that got out, and *cause
 * says how many did not.
 */
bool
sink_folded_write(const char *path, const wprof *p, char **cause)
{
	static const wprof_dim dims[] = {
		WPROF_DIM_DB, WPROF_DIM_BACKEND_TYPE, WPROF_DIM_EVENT, WPROF_DIM_QUERY
	};
	wprof_groups g;
	char	  **lines;
	size_t	   *ends;
	strbuf		out;
	size_t		n = 0,
				whole;
	int			fd;
	int			err;
	bool		ok = true;

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
		strbuf_free(&sb);		/* detach leaves a fresh buffer behind */
	}
	wprof_groups_free(&g);
	/* sorted, so the same profile always gives the same file */
	qsort(lines, n, sizeof(char *), line_cmp);
	strbuf_init(&out);
	ends = xcalloc(n + 1, sizeof(size_t));
	for (size_t i = 0; i < n; i++)
	{
		strbuf_puts(&out, lines[i]);
		ends[i] = out.len;
		free(lines[i]);
	}
	free(lines);

	/* "-": standard output, before the report; what does not get out is said there */
	if (strcmp(path, "-") == 0)
	{
		ok = strbuf_write_file(path, out.data, out.len, cause);
		free(ends);
		strbuf_free(&out);
		return ok;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
	{
		*cause = xasprintf("could not open file \"%s\" for writing: %s", path, strerror(errno));
		ok = false;
	}
	else if ((err = logfile_write_whole(fd, out.data, ends, n, &whole)) != 0)
	{
		*cause = xasprintf("could not write to file \"%s\": %s; %zu of %zu stacks were not "
						   "written", path, strerror(err), n - whole, n);
		ok = false;
	}
	if (fd >= 0 && close(fd) != 0 && ok)
	{
		*cause = xasprintf("could not write to file \"%s\": %s", path, strerror(errno));
		ok = false;
	}
	free(ends);
	strbuf_free(&out);
	return ok;
}
