/*
 * sink_log.c — the --log sink: raw rows or interval aggregates, as CSV
 * or JSON Lines, with meta, description, health, gap and store records,
 * written through a logfile (rotation, write errors, lost-record counts).
 */
#include "config.h"

#include "sink_log.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgtempo/xalloc.h"

#include "evdesc.h"
#include "logfile.h"
#include "options.h"

/* Raw mode: a health record this often (interval mode: one per interval). */
#define SINK_LOG_HEALTH_EVERY_NS	(60 * NS_PER_S)

typedef struct sink_log
{
	sink		base;
	logfile		lf;
	waits_log_format fmt;		/* CSV or JSONL */
	bool		intervals;		/* aggregated interval lines instead of raw rows */
	bool		include_idle;
	bool		active;
	uint64_t	next_health_ns;	/* raw mode: the next health record */
	strbuf		line;
	/* the meta record heads every file the run writes (--from-log reads it) */
	int64_t		run_us;			/* 0: not connected yet */
	uint64_t	meta_files;		/* lf.files_opened when the last one was queued */
	report_source src;			/* as connected; its strings are the sink's own copies */
	/* description records: the file's meta said version 2, and the events it described */
	bool		describes;
	bool		heads;			/* version 3: head and chain records after an interval's rows */
	evdesc_table described;		/* (type, event) -> description or NULL, this file's */
	uint64_t	described_files;	/* lf.files_opened the table is of */
} sink_log;

/* Queue the record in the line buffer: the log counts what it loses by record. */
static void
emit(sink_log *s)
{
	logfile_add(&s->lf, s->line.data, s->line.len);
	strbuf_reset(&s->line);
}

static void
emit_arg(void *arg)
{
	emit(arg);
}

/* A health record of the sampler now. */
static void
log_health(sink_log *s)
{
	sample_health h;

	s->base.run->health(s->base.run->health_arg, &h);
	if (s->fmt == WAITS_LOG_JSONL)
		format_health_jsonl(&s->line, &h);
	else
		format_health_csv(&s->line, &h);
	emit(s);
}

/* The meta record: what the rows of this run mean. */
static void
log_meta(sink_log *s)
{
	const sink_run *run = s->base.run;
	format_meta m = {
		.run_us = s->run_us, .source = s->src.source, .server = s->src.server,
		.server_version = s->src.server_version, .interval_s = s->src.interval_s,
		.period_s = s->src.period_s, .include_idle = run->s->include_idle,
		.measured = run->prof->has_measured,
		.backend_types = (const char *const *) run->s->backend_types.v,
		.nbackend_types = run->s->backend_types.n,
		.backend_types_given = run->s->backend_types_given,
		/* the server can describe its events (17+): the file may hold descriptions */
		.descriptions = run->src.describe != NULL,
		/* interval profiles of a source that reads blockers: head blocker records */
		.heads = s->intervals && (s->src.source == NULL ||
								  strncmp(s->src.source, "pg_wait_sampling", 16) != 0),
		/* interval profiles of a live run: the server's own figures beside them */
		.measured_figs = s->intervals,
	};

	if (s->fmt == WAITS_LOG_JSONL)
		format_meta_jsonl(&s->line, &m);
	else
		format_meta_csv(&s->line, &m);
	emit(s);
	s->meta_files = s->lf.files_opened;
	s->describes = m.descriptions;
	s->heads = m.heads;
}

/*
 * Before a row of the event: its description record, when the server
 * has one and this file has not given it yet (a new file, rotated or
 * reopened, starts over, as it starts with the meta record).
 */
static void
log_description(sink_log *s, const char *type, const char *event)
{
	const report_source *src = &s->base.run->src;
	const char *desc;

	if (!s->describes || src->describe == NULL || type == NULL || event == NULL)
		return;
	if (s->described_files != s->lf.files_opened)
	{
		evdesc_clear(&s->described);
		s->described_files = s->lf.files_opened;
	}
	if (evdesc_find(&s->described, type, event, &desc))
		return;
	/* an event without a description is remembered too: asked once a file */
	desc = src->describe(src->describe_arg, type, event);
	evdesc_set(&s->described, type, event, desc);
	if (desc == NULL)
		return;
	if (s->fmt == WAITS_LOG_JSONL)
		format_description_jsonl(&s->line, type, event, desc);
	else
		format_description_csv(&s->line, type, event, desc);
	emit(s);
}

/* Open --log with the header of its format; the raw health records begin. */
static bool
log_open(sink *k, sink_open_stage stage, char **cause)
{
	sink_log   *s = (sink_log *) k;
	const waits_settings *st = k->run->s;
	char	   *line = NULL;
	bool		ok;

	if (stage == SINK_STARTED)
		s->next_health_ns = k->run->t0_ns + SINK_LOG_HEALTH_EVERY_NS;
	if (stage == SINK_CONNECTED && s->active)
	{
		/* copies: a reconnect replaces the sampler's strings, the files' meta stays the run's */
		s->src = k->run->src;
		s->src.source = xstrdup(k->run->src.source ? k->run->src.source : "");
		s->src.server = xstrdup(k->run->src.server ? k->run->src.server : "");
		s->src.server_version = xstrdup(k->run->src.server_version ?
										k->run->src.server_version : "");
		s->run_us = (int64_t) clock_wall_us();
		log_meta(s);
	}
	if (stage != SINK_OPEN)
		return true;
	if (s->fmt == WAITS_LOG_CSV)
		line = xasprintf("%s\n", s->intervals ? FORMAT_CSV_INTERVAL_HEADER :
						 FORMAT_CSV_SAMPLE_HEADER);
	ok = logfile_open(&s->lf, st->log_path, line, time(NULL), cause);
	free(line);
	if (ok)
		logfile_retain(&s->lf, st->log_retain_ns, st->log_retain_bytes, time(NULL));
	s->active = ok;
	return ok;
}

/* Raw mode: one line per counted row. */
static void
log_batch(sink *k, const sample_batch *b)
{
	sink_log   *s = (sink_log *) k;

	if (s->intervals)
		return;
	for (int i = 0; i < b->nrows; i++)
	{
		const sample_row *r = &b->rows[i];

		if (!sample_row_counted(r, s->include_idle) || r->samples == 0)
			continue;
		log_description(s, r->wait_event_type, r->wait_event);
		if (s->fmt == WAITS_LOG_JSONL)
			format_sample_jsonl(&s->line, b, r);
		else
			format_sample_csv(&s->line, b, r);
		emit(s);
	}
}

/* Interval mode: one line per group of the interval, then a health record. */
static void
log_interval(sink *k, const format_interval *iv, wprof *p)
{
	sink_log   *s = (sink_log *) k;
	wprof_groups g;

	wprof_group_by(p, format_interval_dims, format_interval_ndims, 0, &g);
	for (int i = 0; i < g.n; i++)
	{
		log_description(s, g.g[i].key.type, g.g[i].key.event);
		if (s->fmt == WAITS_LOG_JSONL)
			format_interval_jsonl(&s->line, iv, &g.g[i]);
		else
			format_interval_csv(&s->line, iv, &g.g[i]);
		emit(s);
	}
	wprof_groups_free(&g);
	if (s->heads)
		format_heads_records(&s->line, s->fmt == WAITS_LOG_JSONL, iv, &p->heads, emit_arg, s);
	log_health(s);
}

/* Interval mode: the figures measured by the server, one record each, before the interval's rows. */
static void
log_measured(sink *k, const format_measured_rec *recs, int n)
{
	sink_log   *s = (sink_log *) k;

	if (!s->intervals)
		return;
	for (int i = 0; i < n; i++)
	{
		format_measured_line(&s->line, s->fmt == WAITS_LOG_JSONL, &recs[i]);
		emit(s);
	}
}

/* Once a second: raw mode's health record when due; write out, rotate. */
static void
log_second(sink *k, uint64_t now_ns, bool reopen)
{
	sink_log   *s = (sink_log *) k;

	if (!s->intervals && now_ns >= s->next_health_ns)
	{
		log_health(s);
		s->next_health_ns += SINK_LOG_HEALTH_EVERY_NS;
	}
	logfile_tick(&s->lf, time(NULL), reopen);
	/* a new file (rotated, reopened) starts with the meta record too */
	if (s->run_us != 0 && s->lf.files_opened != s->meta_files)
		log_meta(s);
}

/* A gap record. */
static void
log_gap(sink *k, const sample_gap *g)
{
	sink_log   *s = (sink_log *) k;

	if (s->fmt == WAITS_LOG_JSONL)
		format_gap_jsonl(&s->line, g);
	else
		format_gap_csv(&s->line, g);
	emit(s);
}

/* Write out what is queued now. */
static void
log_flush(sink *k)
{
	logfile_flush(&((sink_log *) k)->lf);
}

/*
 * The end: raw mode's last health record; then the store's row counts,
 * and close.  False (and said how many) if records were lost.
 */
static bool
log_close(sink *k, sink_close_stage stage)
{
	sink_log   *s = (sink_log *) k;
	bool		ok;

	if (!s->active)
		return true;
	if (stage == SINK_END && !s->intervals)
		log_health(s);
	if (stage == SINK_CLOSE && k->run->s->store != NULL)
	{
		if (s->fmt == WAITS_LOG_JSONL)
			format_store_jsonl(&s->line, &k->run->stored);
		else
			format_store_csv(&s->line, &k->run->stored);
		emit(s);
	}
	if (stage != SINK_CLOSE && stage != SINK_ABORT)
		return true;
	ok = logfile_close(&s->lf);
	s->active = false;
	return ok;
}

static void
log_free(sink *k)
{
	sink_log   *s = (sink_log *) k;

	strbuf_free(&s->line);
	evdesc_free(&s->described);
	free((char *) s->src.source);
	free((char *) s->src.server);
	free((char *) s->src.server_version);
}

static const sink_ops log_ops = {
	.open = log_open,
	.batch = log_batch,
	.interval = log_interval,
	.measured = log_measured,
	.second = log_second,
	.gap = log_gap,
	.flush = log_flush,
	.close = log_close,
	.free = log_free,
};

/* --log: raw rows or interval aggregates, with health, gap and store records. */
void
sink_log_add(sink_list *l)
{
	const waits_settings *st = l->run.s;
	sink_log   *s;

	if (st->log_path == NULL)
		return;
	s = (sink_log *) sink_new(l, &log_ops, sizeof(sink_log));
	s->fmt = options_log_format_for(st->log_path, st->log_format);
	s->intervals = st->log_interval_ns > 0;
	s->include_idle = st->include_idle;
	s->base.counts_rows = s->intervals;
	s->base.interval_ns = (uint64_t) st->log_interval_ns;
	strbuf_init(&s->line);
	evdesc_init(&s->described);
}
