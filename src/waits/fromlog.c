/*
 * fromlog.c — pgtempo-waits --from-log: the outputs of a live run, from
 * the history files.
 */
#include "config.h"

#include "fromlog_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/exitcode.h"
#include "pgtempo/hash.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

#include "evdesc.h"
#include "format.h"
#include "histread.h"
#include "report.h"
#include "sink.h"
#include "sinkset.h"
#include "strpool.h"
#include "wprof.h"

/* ---------------------------------------------------------------- rows */

/* The chart's seconds up to ts: each sink's intervals end as they would live. */
static void
advance(fromlog *f, uint64_t ts_us)
{
	uint64_t	ns = ts_us * 1000;

	if (!f->started)
	{
		sinks_start(&f->out, ns, ts_us, f->runs[f->cur].meta.measured);
		f->next_sec_ns = ns + NS_PER_S;
		f->started = true;
		return;
	}
	if (ns < f->next_sec_ns)
		return;
	sinks_second(&f->out, f->next_sec_ns, f->next_sec_ns / 1000, false);
	f->next_sec_ns += NS_PER_S;
	if (ns < f->next_sec_ns)
		return;
	/* the seconds with no rows (or hours between runs) after it are one step */
	f->next_sec_ns += (ns - f->next_sec_ns) / NS_PER_S * NS_PER_S;
	sinks_second(&f->out, f->next_sec_ns, f->next_sec_ns / 1000, false);
	f->next_sec_ns += NS_PER_S;
}

/* The rows of one timestamp go into the profile and to the sinks, as one sample. */
static void
flush_batch(fromlog *f)
{
	sample_batch *b = &f->batch;

	if (!f->batch_open)
		return;
	advance(f, b->ts_us);
	if (!f->batch_interval)
		f->win_ticks++;
	for (int i = 0; i < b->nrows; i++)
		wprof_add(&f->prof, b, &b->rows[i]);
	heads_graph_build(&f->graph, b);
	wprof_add_heads(&f->prof, &f->graph);
	sinks_rows(&f->out, b, &f->graph, true);
	f->batch_open = false;
}

/* Is a row at ts (a profile line from start to ts) in the window? */
static bool
in_window(const waits_settings *s, uint64_t start_us, uint64_t ts_us)
{
	/* a profile line counts whole, where its middle is */
	uint64_t	t = start_us + (ts_us - start_us) / 2;

	return (int64_t) t >= s->since_us && (int64_t) t < s->until_us;
}

/* A row of the window, added to the batch of its timestamp. */
static void
add_row(fromlog *f, const histread_rec *rec)
{
	if (f->batch_open && f->batch.ts_us != rec->ts_us)
		flush_batch(f);
	if (!f->batch_open)
	{
		sample_batch_reset(&f->batch, rec->ts_us);
		f->batch_open = true;
		f->batch_interval = rec->kind == HISTREAD_INTERVAL;
	}
	if (rec->ts_us > f->win_last_us)
		f->win_last_us = rec->ts_us;
	if (rec->kind == HISTREAD_INTERVAL && (f->iv_end_us == 0 || rec->start_us < f->iv_start_us))
	{
		f->iv_start_us = rec->start_us;
		f->iv_first_end_us = rec->ts_us;
	}
	if (rec->kind == HISTREAD_INTERVAL && rec->ts_us > f->iv_end_us)
		f->iv_end_us = rec->ts_us;
	fromlog_batch_row(&f->batch, rec);
}

void
fromlog_batch_row(sample_batch *b, const histread_rec *rec)
{
	sample_row *r = sample_batch_add(b);

	*r = rec->row;
	r->nblockers = 0;
	r->blockers_off = b->nblockers;
	for (int i = 0; i < rec->row.nblockers; i++)
		sample_batch_add_blocker(b, rec->blockers[i]);
}

/* A gap of the window, once (a rotated run may be read twice over). */
static void
add_gap(fromlog *f, const sample_gap *g)
{
	if (g->end_us != 0 && ((int64_t) g->end_us <= f->s->since_us ||
						   (int64_t) g->start_us >= f->s->until_us))
		return;
	for (int i = 0; i < f->ngaps; i++)
		if (f->gaps[i].start_us == g->start_us)
			return;
	f->gaps = xrealloc(f->gaps, (size_t) (f->ngaps + 1) * sizeof(sample_gap));
	f->gaps[f->ngaps++] = *g;
}

/* Is name one of the list's (an empty list takes every name)? */
static bool
listed(const sampler_strlist *l, const char *name)
{
	if (l->n == 0)
		return true;
	for (int i = 0; i < l->n; i++)
		if (name != NULL && strcmp(l->v[i], name) == 0)
			return true;
	return false;
}

/* The filters of a live run, on the rows of the files: --pid, --db, --user, --application-name. */
static bool
row_wanted(const waits_settings *s, const sample_row *r)
{
	bool		pid_ok = s->npids == 0;

	for (int i = 0; i < s->npids && !pid_ok; i++)
		pid_ok = r->pid == s->pids[i];
	return pid_ok && listed(&s->dbs, r->datname) && listed(&s->users, r->usename) &&
		listed(&s->apps, r->application_name);
}

/*
 * An interval's head blocker or chain into the profile, when the interval
 * is in the window: a head's samples add up, and what it was doing is the
 * latest interval's.
 */
static void
add_head(fromlog *f, const histread_rec *rec)
{
	const format_head_rec *r = &rec->head;
	heads_prof *hp = &f->prof.heads;
	heads_cell *c;
	heads_cell	sum;

	if (!in_window(f->s, (uint64_t) r->start_us, (uint64_t) r->end_us))
		return;
	if (rec->kind == HISTREAD_CHAIN)
	{
		heads_add_chain(hp, r->stack, r->c.samples);
		return;
	}
	c = heads_get(hp, r->c.id.pid, r->c.id.backend_start_us);
	hp->blocked += r->c.samples;
	sum = *c;
	sum.samples += r->c.samples;
	sum.direct += r->c.direct;
	sum.cycle |= r->cycle != 0;
	if (r->c.last_us >= c->last_us)
	{
		/* its doings: this interval's (the query stays the cell's own copy) */
		char	   *query = c->query;

		sum = r->c;
		sum.samples = c->samples + r->c.samples;
		sum.direct = c->direct + r->c.direct;
		sum.cycle = c->cycle || r->cycle != 0;
		sum.seen = r->c.state != NULL || r->c.id.backend_start_us != INT64_MIN;
		sum.query = query;
		if (r->c.query != NULL)
			heads_set_query(&sum, r->c.query);
	}
	*c = sum;
}

/* Is entry the span key is? */
static bool
span_eq(const void *entry, const void *key)
{
	const fl_span *a = entry,
			   *b = key;

	return a->start_us == b->start_us && a->end_us == b->end_us;
}

/*
 * A measured record: its span is counted once, summed if it lies wholly
 * in the window, counted as left out if it crosses an edge.
 */
static void
add_measured(fromlog *f, const format_measured_rec *r)
{
	int			k = measured_figure_of(r->figure);
	fl_span		key = {r->start_us, r->end_us, 0, false};
	fl_span    *sp;
	bool		added;

	if (k < 0)
		return;
	if (f->spans.cap == 0)
		hash_table_init(&f->spans, sizeof(fl_span), 64);
	sp = hash_table_insert(&f->spans, hash_mix(hash_mix(HASH_FNV1A_BASIS, (uint64_t) r->start_us),
											   (uint64_t) r->end_us), &key, span_eq, &added);
	if (added)
	{
		*sp = key;
		sp->in = r->start_us >= f->s->since_us && r->end_us <= f->s->until_us;
		if (sp->in)
			f->meas.log_spans++;
		else if (r->start_us < f->s->until_us && r->end_us > f->s->since_us)
			f->meas.log_spans_out++;	/* across an edge; one wholly outside is not the window's */
	}
	if ((sp->figs & (1u << k)) != 0)
		return;
	sp->figs |= 1u << k;
	if (sp->in)
		measured_add_logged(&f->meas, r);
}

/* One record of a file. */
static void
take_record(fromlog *f, const histread *h, const histread_rec *rec)
{
	fl_run	   *r = &f->runs[f->cur];

	switch (rec->kind)
	{
		case HISTREAD_SAMPLE:
		case HISTREAD_INTERVAL:
			if (rec->kind == HISTREAD_INTERVAL && f->interval_file == NULL)
				f->interval_file = strpool_intern(f->pool, h->path);
			if (rec->ts_us > r->last_row_us)
				r->last_row_us = rec->ts_us;
			if (r->first_row_us == 0 || rec->ts_us < r->first_row_us)
				r->first_row_us = rec->ts_us;
			if (f->first_us == 0 || rec->ts_us < f->first_us)
				f->first_us = rec->ts_us;
			if (rec->ts_us > f->last_us)
				f->last_us = rec->ts_us;
			if (f->row_fn != NULL)
			{
				if (row_wanted(f->s, &rec->row))
					f->row_fn(f->row_arg, rec);
			}
			else if (in_window(f->s, rec->kind == HISTREAD_INTERVAL ? rec->start_us : rec->ts_us,
							   rec->ts_us) && row_wanted(f->s, &rec->row))
				add_row(f, rec);
			break;
		case HISTREAD_HEALTH:
			fromlog_add_health(f, &rec->health);
			break;
		case HISTREAD_GAP:
			add_gap(f, &rec->gap);
			break;
		case HISTREAD_DESCRIPTION:
			evdesc_set(&f->descs, rec->desc.wait_event_type, rec->desc.wait_event,
					   rec->desc.description);
			break;
		case HISTREAD_HEAD:
		case HISTREAD_CHAIN:
			if (f->row_fn != NULL)
				f->row_fn(f->row_arg, rec);
			else
				add_head(f, rec);
			break;
		case HISTREAD_MEASURED:
			if (f->row_fn == NULL)
				add_measured(f, &rec->measured);
			break;
		case HISTREAD_META:
			if (rec->meta.log_version > f->max_version)
				f->max_version = rec->meta.log_version;
			break;
		case HISTREAD_STORE:
			break;
	}
}

/* Read one file into the window; false with *cause at its first bad record. */
static bool
read_file(fromlog *f, const char *path, char **cause)
{
	histread	h;
	histread_rec rec;
	int			rc;

	if (!histread_open(&h, path, f->pool, cause))
		return false;
	while ((rc = histread_next(&h, &rec, cause)) > 0)
	{
		if (rec.kind == HISTREAD_META && !fromlog_use_run(f, &rec.meta.run, &h, cause))
		{
			rc = -1;
			break;
		}
		take_record(f, &h, &rec);
	}
	flush_batch(f);
	if (rc == 0 && h.tail_skipped)
		msg_info("%s:%" PRIu64 ": the last record is still being written: read up to the "
				 "one before", path, h.line + 1);
	histread_close(&h);
	return rc == 0;
}

/* ---------------------------------------------------------------- the report */

/* Where a run starts and ends: its first and last health record or row. */
static void
run_span(const fl_run *r, uint64_t *start, uint64_t *end)
{
	*start = r->npts > 0 ? r->pts[0].ts_us : r->first_row_us;
	*end = r->npts > 0 && r->pts[r->npts - 1].ts_us > r->last_row_us ?
		r->pts[r->npts - 1].ts_us : r->last_row_us;
}

/* The run's coverage of the window: from its first start to its last record, cut to it. */
static void
window_span(const fromlog *f, uint64_t *first, uint64_t *last)
{
	fromlog_span(f, first, last);
	if (f->s->since_us > 0 && (uint64_t) f->s->since_us > *first)
		*first = (uint64_t) f->s->since_us;
	if (f->s->until_us != INT64_MAX && (uint64_t) f->s->until_us < *last)
		*last = (uint64_t) f->s->until_us;
}

/* Gaps in order of their start. */
static int
cmp_gap(const void *a, const void *b)
{
	const sample_gap *x = a,
			   *y = b;

	return x->start_us < y->start_us ? -1 : x->start_us > y->start_us;
}

/* Runs in order of their start. */
static int
cmp_run(const void *a, const void *b)
{
	uint64_t	sa,
				ea,
				sb,
				eb;

	run_span(a, &sa, &ea);
	run_span(b, &sb, &eb);
	return sa < sb ? -1 : sa > sb;
}

/*
 * Time between two runs is a gap too: nothing sampled then, and the
 * report says so rather than let a window look quiet (a service that was
 * down, a cron job that did not run).
 */
static void
gaps_between_runs(fromlog *f)
{
	sample_gap	g = {.reason = (char *) "no run of pgtempo-waits logged in this time"};

	qsort(f->runs, (size_t) f->nruns, sizeof(fl_run), cmp_run);
	for (int i = 1; i < f->nruns; i++)
	{
		uint64_t	s0,
					e0,
					s1,
					e1;

		run_span(&f->runs[i - 1], &s0, &e0);
		run_span(&f->runs[i], &s1, &e1);
		/* a run ends with its last health record, within a second or two of the next */
		if (s1 > e0 + 2000000)
		{
			g.start_us = e0;
			g.end_us = s1;
			add_gap(f, &g);
		}
	}
	if (f->ngaps > 1)
		qsort(f->gaps, (size_t) f->ngaps, sizeof(sample_gap), cmp_gap);
}

/* --by pid and --pid need raw rows: profile lines have no sessions. */
static bool
check_dims(const fromlog *f)
{
	bool		by_pid = f->s->npids > 0;

	for (int i = 0; i < f->s->nby; i++)
		by_pid = by_pid || f->s->by[i] == WPROF_DIM_PID;
	if (!by_pid || f->interval_file == NULL)
		return true;
	msg_error("%s cannot be used with \"%s\": its --log-interval profiles hold no sessions",
			  f->s->npids > 0 ? "--pid" : "--by pid", f->interval_file);
	msg_detail("They hold event, query, db, user, app and backend_type; raw rows "
			   "(--log without --log-interval) hold every dimension.");
	return false;
}

/*
 * Read every file (a bad one ends the reading unless --keep-going): can
 * the caller go on?  Not when a file was bad (unless --keep-going), no
 * run was read, or --by does not go with the files; the errors are said.
 * *ok: every file was read whole.  done and does: what the caller makes
 * of them ("reported", "reports"), for the hint.
 */
static bool
read_all(fromlog *f, char *const *files, int nfiles, const char *done, const char *does, bool *ok)
{
	char	   *cause = NULL;

	*ok = true;
	for (int i = 0; i < nfiles && (*ok || f->s->keep_going); i++)
		if (!read_file(f, files[i], &cause))
		{
			msg_error("%s", cause);
			free(cause);
			cause = NULL;
			*ok = false;
		}
	if (!*ok && !f->s->keep_going)
	{
		msg_detail("Nothing was %s; --keep-going %s the other files.", done, does);
		return false;
	}
	if (f->nruns == 0)
	{
		msg_error("the files hold no run of pgtempo-waits (no meta record)");
		return false;
	}
	return check_dims(f);
}

/* Say when the window holds none of the files' rows: a mistyped --since is likely. */
static void
warn_empty(const fromlog *f)
{
	char		a[FORMAT_TS_LEN],
				b[FORMAT_TS_LEN];

	if (f->prof.active > 0 || f->last_us == 0)
		return;
	format_ts(a, (int64_t) f->first_us);
	format_ts(b, (int64_t) f->last_us);
	msg_warning("no rows of the files fall between --since and --until");
	msg_detail("The files hold rows from %s to %s.", a, b);
}

/* Why the report has no figures measured by the server: one line. */
static void
text_no_measured(const fromlog *f)
{
	printf("\nmeasured by the server: none in the window: ");
	if (f->meas.log_spans_out > 0)
		printf("no span of the logs' measured records lies wholly in it (%d across its"
			   " edge)\n", f->meas.log_spans_out);
	else if (f->interval_file == NULL)
		printf("logs of samples hold no measured records (--log-interval logs do)\n");
	else if (f->max_version < format_measured_kind.version)
		printf("logs of format %d hold no measured records (format %d does)\n",
			   f->max_version, format_measured_kind.version);
	else
		printf("the logs hold no measured records (the server's counters were not read"
			   " twice)\n");
}

/* The report of the window, the sinks' files; false if an output failed. */
static bool
finish(fromlog *f, waits_settings *rs)
{
	const format_meta *m;
	sample_health h;
	report_info ri;
	uint64_t	first,
				last;
	bool		ok;

	flush_batch(f);
	fromlog_sort_points(f);
	gaps_between_runs(f);
	m = &f->runs[0].meta;
	fromlog_window_health(f, &h);
	window_span(f, &first, &last);
	f->prof.ticks = h.samples;
	f->prof.has_measured = f->prof.has_measured || m->measured;
	f->prof.hidden = h.hidden;
	f->prof.first_us = first;
	/* a sample is a row's time; the last health record comes a little after it */
	f->prof.last_us = f->win_last_us > 0 && f->win_last_us < last ? f->win_last_us : last;
	rs->include_idle = m->include_idle;
	rs->backend_types.v = (char **) m->backend_types;
	rs->backend_types.n = m->nbackend_types;
	rs->backend_types_given = m->backend_types_given;
	memset(&ri, 0, sizeof(ri));
	ri.s = rs;
	ri.src.server = m->server;
	ri.src.server_version = m->server_version;
	ri.src.source = m->source;
	ri.src.interval_s = m->interval_s;
	ri.src.period_s = m->period_s;
	ri.src.describe = evdesc_describe;
	ri.src.describe_arg = &f->descs;
	/* pg_wait_sampling samples in the server: we read its profile, no ticks are missed */
	ri.in_server = m->source != NULL && strncmp(m->source, "pg_wait_sampling", 16) == 0;
	if (!ri.in_server && h.samples > 0 && h.missed > 0)
		ri.src.period_s *= (double) (h.samples + h.missed) / (double) h.samples;
	f->out.run.src = ri.src;
	f->out.run.interval_ns = (uint64_t) llround(m->interval_s * 1e9);
	sinks_stop(&f->out);
	ok = sinks_finish(&f->out, last);
	ri.no_blockers = f->interval_file != NULL;
	ri.health = &h;
	ri.gaps = f->gaps;
	ri.ngaps = f->ngaps;
	ri.p = &f->prof;
	ri.meas = f->meas.log_spans > 0 ? &f->meas : NULL;
	if (rs->json)
		report_json(stdout, &ri);
	else
		report_text(stdout, &ri);
	if (!rs->json && ri.meas == NULL)
		text_no_measured(f);
	if (!msg_flush_stdout())
		ok = false;
	if (!report_json_file(&ri))
		ok = false;
	warn_empty(f);
	return ok;
}

/* Free what the reading kept. */
static void
free_fromlog(fromlog *f)
{
	for (int i = 0; i < f->nruns; i++)
	{
		free(f->runs[i].pts);
		free(f->runs[i].types);
	}
	free(f->runs);
	free(f->gaps);
	hash_table_free(&f->spans);
	measured_free(&f->meas);
	evdesc_free(&f->descs);
	sinks_free(&f->out);
	sample_batch_free(&f->batch);
	heads_graph_free(&f->graph);
	wprof_free(&f->prof);
	strpool_free(&f->own_pool);
}

/* Read every file (a bad one ends the run unless --keep-going), then report. */
int
fromlog_run(const waits_settings *s)
{
	fromlog		f;
	waits_settings rs = *s;
	char	   *cause = NULL;
	bool		ok = true;

	memset(&f, 0, sizeof(f));
	f.s = s;
	f.pool = &f.own_pool;
	strpool_init(f.pool);
	evdesc_init(&f.descs);
	measured_init(&f.meas, s);
	/* every row in a log was counted when it was written, idle ones too if they are there */
	wprof_init(&f.prof, true);
	sample_batch_init(&f.batch);
	sinks_init(&f.out, &rs, f.pool, &f.prof);
	sinkset_add_all(&f.out);
	for (int i = 0; i < f.out.n; i++)
		f.out.v[i]->prof.include_idle = true;
	if (!sinks_open(&f.out, SINK_CHECK, &cause) || !sinks_open(&f.out, SINK_OPEN, &cause))
	{
		msg_error("%s", cause);
		free(cause);
		sinks_abort(&f.out);
		free_fromlog(&f);
		return EXITCODE_ERROR;
	}
	if (read_all(&f, s->from_log, s->nfrom_log, "reported", "reports", &ok))
	{
		if (!finish(&f, &rs))
			ok = false;
		free_fromlog(&f);
		return ok ? EXITCODE_OK : EXITCODE_ERROR;
	}
	sinks_abort(&f.out);
	free_fromlog(&f);
	return EXITCODE_ERROR;
}

/* ---------------------------------------------------------------- the rows to a caller */

fromlog *
fromlog_read(const waits_settings *s, char *const *files, int nfiles, strpool *pool,
			 fromlog_row_fn fn, void *arg, bool *all_read)
{
	fromlog    *f = xcalloc(1, sizeof(fromlog));

	f->s = s;
	f->pool = pool;
	strpool_init(&f->own_pool);
	evdesc_init(&f->descs);
	wprof_init(&f->prof, true);
	sample_batch_init(&f->batch);
	heads_graph_init(&f->graph);
	f->row_fn = fn;
	f->row_arg = arg;
	if (read_all(f, files, nfiles, "compared", "compares", all_read))
	{
		fromlog_sort_points(f);
		return f;
	}
	fromlog_free(f);
	return NULL;
}

double
fromlog_ticks(const fromlog *f, uint64_t a, uint64_t b)
{
	double		sum = 0;
	int			samples = FORMAT_HEALTH_samples;

	for (int i = 0; i < f->nruns; i++)
	{
		double		va[FORMAT_NHEALTH],
					vb[FORMAT_NHEALTH];

		if (f->runs[i].npts == 0)
			continue;
		fromlog_counts_at(&f->runs[i], a, va);
		fromlog_counts_at(&f->runs[i], b, vb);
		sum += vb[samples] - va[samples];
	}
	return sum;
}

void
fromlog_span(const fromlog *f, uint64_t *first, uint64_t *last)
{
	*first = UINT64_MAX;
	*last = 0;
	for (int i = 0; i < f->nruns; i++)
	{
		uint64_t	start,
					end;

		run_span(&f->runs[i], &start, &end);
		if (start < *first)
			*first = start;
		if (end > *last)
			*last = end;
	}
}

const format_meta *
fromlog_meta(const fromlog *f)
{
	return &f->runs[0].meta;
}

void
fromlog_free(fromlog *f)
{
	if (f == NULL)
		return;
	free_fromlog(f);
	free(f);
}
