/*
 * measured_fig.c — the measured figures worked out: each beside its
 * sampled estimate and bound, the reasons for a disagreement, and
 * --fail-if=disagree.
 */
#include "config.h"

#include "measured_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pgtempo/clock.h"
#include "pgtempo/gate.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "format.h"

double
measured_bound_s(uint64_t k, double period_s)
{
	/* the Poisson bound of a count, and three samples more: none seen still allows about 3 */
	return period_s * (1.96 * sqrt((double) k) + 3);
}

/* ---------------------------------------------------------------- the comparison */


/* Why a measured figure lies below its sampled estimate. */
static void
reasons_below(const measured_run *m, const measured_span *sp, const measured_pair *p,
			  measured_fig *f)
{
	if (p->kind == MEAS_KIND_READ || p->kind == MEAS_KIND_WRITE)
	{
		if (sp->bg_samples[p->kind] > 0 && m->reset_of[p->time_col] == MEAS_DB_RESET_US)
			f->reasons[f->nreasons++] = "the checkpointer and the background writer add no I/O "
				"time to pg_stat_database (before PostgreSQL 16 to no view at all): their samples "
				"were counted, their time was not measured";
	}
	if (p->kind == MEAS_KIND_ACTIVE)
		f->reasons[f->nreasons++] = "the server adds a statement's active time when it ends, "
			"and a session sends it at most once a second, after a statement that touched a "
			"table, or when it ends (15: a session of pg_sleep or SELECT 1 alone sends nothing "
			"until it ends): time still running or not yet sent at the last read was sampled "
			"but not yet measured";
	else if (p->kind == MEAS_KIND_LOCK)
		f->reasons[f->nreasons++] = "pg_stat_lock adds a lock wait when it ends (and, as "
			"written for 19, may count only waits that outlast deadlock_timeout): waits still "
			"going on or short ones were sampled but not measured";
	else
		f->reasons[f->nreasons++] = "a session sends its statistics when its transaction ends, "
			"at most once a second: I/O of transactions still open at the last read was sampled "
			"but not yet measured";
}

/* Why a measured figure lies above its sampled estimate. */
static void
reasons_above(const measured_pair *p, measured_fig *f)
{
	if (p->kind == MEAS_KIND_ACTIVE)
	{
		f->reasons[f->nreasons++] = "statements that began before the first read are added "
			"whole when they end, and statistics sent late arrive after the first read";
		f->reasons[f->nreasons++] = "processes the sampling leaves out add to active_time too "
			"(other backend types, parallel workers): --backend-type=all counts them";
		return;
	}
	/* the processes left out come first when the server says they did much of it */
	if (f->out_s > 0 && f->measured_s - f->out_s <= f->sampled_s + f->bound_s)
		f->reasons[f->nreasons++] = "I/O by processes the sampling leaves out (checkpointer, "
			"background writer, WAL writer, autovacuum): --backend-type=all counts them";
	f->reasons[f->nreasons++] = "statistics of I/O before the first read were sent after it";
	if (!(f->out_s > 0 && f->measured_s - f->out_s <= f->sampled_s + f->bound_s))
		f->reasons[f->nreasons++] = "I/O by processes the sampling leaves out (checkpointer, "
			"background writer, WAL writer, autovacuum): --backend-type=all counts them";
}

/* The measured side of pair p over span sp; false (f->missing set) if there is none. */
static bool
measured_side(const measured_run *m, const measured_span *sp, const measured_pair *p,
			  measured_fig *f)
{
	bool		on = p->setting_col < 0 ||
		(p->setting_col == MEAS_IO_TIMING ? m->io_on : m->wal_io_on);
	bool		off = p->setting_col >= 0 &&
		(p->setting_col == MEAS_IO_TIMING ? m->io_off : m->wal_io_off);

	if (m->failed != NULL)
		f->missing = "the counters could not be read";
	else if (m->missing[p->time_col] != NULL)
		f->missing = m->missing[p->time_col];
	else if (sp->logged && !sp->seen[p->kind])
		f->missing = "not in the logs";
	else if (m->nreads < 2 && m->log_spans == 0)
		f->missing = "the counters were read fewer than twice";
	else if (off && !on)
		f->missing = p->setting_col == MEAS_IO_TIMING ? "track_io_timing is off" :
			"track_wal_io_timing is off";
	if (f->missing != NULL)
		return false;
	f->measured_s = (double) sp->sum[p->time_col] / 1e6;
	if (p->kind == MEAS_KIND_ACTIVE && m->own_db && sp->own_s >= 0)
	{
		f->own_s = sp->own_s;
		f->measured_s -= f->own_s;
		if (f->measured_s < 0)
			f->measured_s = 0;
	}
	else if (p->kind == MEAS_KIND_ACTIVE && m->own_db)
		f->own_in = true;
	f->has_count = p->count_col >= 0 && m->missing[p->count_col] == NULL;
	f->count = f->has_count ? sp->sum[p->count_col] : 0;
	f->out_s = p->out_col >= 0 && m->missing[p->out_col] == NULL ?
		(double) sp->sum[p->out_col] / 1e6 : -1;
	f->reset = m->reset_of[p->time_col] >= 0 && sp->reset[m->reset_of[p->time_col]];
	/* a setting turned on or off during the run leaves part of the time out */
	/* a few rows without a state are sessions starting; most of them, a source without states */
	f->compared = !off && !(p->kind == MEAS_KIND_ACTIVE &&
							sp->no_state > sp->samples[MEAS_KIND_ACTIVE]) &&
		!(sp->logged && sp->uncompared[p->kind]);
	return true;
}

/* Work out pair p over span sp. */
static void
figure_of(const measured_run *m, const measured_span *sp, const measured_pair *p,
		  double period_s, measured_fig *f)
{
	uint64_t	k = sp->samples[p->kind];

	memset(f, 0, sizeof(*f));
	f->out_s = -1;
	f->sampled_s = (double) k * period_s;
	f->bound_s = measured_bound_s(k, period_s);
	if (sp->logged)
	{
		/* the records' own estimates: a sample stands for their summed seconds over the samples */
		f->sampled_s = sp->logged_s[p->kind];
		f->bound_s = measured_bound_s(k, k > 0 ? f->sampled_s / (double) k : period_s);
	}
	if (!measured_side(m, sp, p, f) || !f->compared)
		return;
	f->agree = fabs(f->measured_s - f->sampled_s) <= f->bound_s;
	if (f->agree)
		return;
	if (f->reset)
		f->reasons[f->nreasons++] = "the counters were reset during the run (pg_stat_reset(), "
			"pg_stat_reset_shared()): before the reset only the time since it was measured";
	if (f->measured_s < f->sampled_s)
		reasons_below(m, sp, p, f);
	else
		reasons_above(p, f);
}

/* Work out pair p over the whole run. */
void
measured_figure(const measured_run *m, const measured_pair *p, double period_s, measured_fig *f)
{
	figure_of(m, &m->run, p, period_s, f);
}

int
measured_last(const measured_run *m, double period_s, bool by_ticks, format_measured_rec *recs)
{
	const measured_span *sp = &m->last;

	if (m->nreads < 2 || m->failed != NULL)
		return 0;
	if (by_ticks && sp->ticks > 0 && sp->end_us > sp->start_us)
		period_s = (double) (sp->end_us - sp->start_us) / 1e6 / (double) sp->ticks;
	for (int i = 0; i < MEASURED_NPAIRS; i++)
	{
		const measured_pair *p = &measured_pairs[i];
		format_measured_rec *r = &recs[i];
		measured_fig f;

		figure_of(m, &m->last, p, period_s, &f);
		memset(r, 0, sizeof(*r));
		r->start_us = (int64_t) m->last.start_us;
		r->end_us = (int64_t) m->last.end_us;
		r->figure = p->name;
		r->measured_by = m->by[p->kind];
		r->measured_missing = f.missing;
		r->measured_seconds = f.missing == NULL ? f.measured_s : -1;
		r->measured_count = f.missing == NULL && f.has_count ? f.count : -1;
		r->sampled_by = p->sampled_by;
		r->sampled_samples = (int64_t) m->last.samples[p->kind];
		r->sampled_seconds = f.sampled_s;
		r->sampled_error_seconds = f.bound_s;
		r->verdict = f.missing != NULL || !f.compared ? NULL : f.agree ? "agree" : "disagree";
		r->reason = f.nreasons > 0 ? f.reasons[0] : NULL;
	}
	return MEASURED_NPAIRS;
}

int
measured_figure_of(const char *name)
{
	for (int i = 0; i < MEASURED_NPAIRS; i++)
		if (strcmp(measured_pairs[i].name, name) == 0)
			return i;
	return -1;
}

bool
measured_figure_known(const char *name)
{
	return measured_figure_of(name) >= 0;
}

int
measured_add_logged(measured_run *m, const format_measured_rec *r)
{
	int			i = measured_figure_of(r->figure);
	const measured_pair *p;
	measured_span *sp = &m->run;

	if (i < 0)
		return -1;
	p = &measured_pairs[i];
	sp->logged = true;
	sp->seen[p->kind] = true;
	if (sp->start_us == 0 || (uint64_t) r->start_us < sp->start_us)
		sp->start_us = (uint64_t) r->start_us;
	if ((uint64_t) r->end_us > sp->end_us)
		sp->end_us = (uint64_t) r->end_us;
	if (r->measured_by != NULL)
		m->by[p->kind] = r->measured_by;
	if (p->out_col >= 0)
		m->missing[p->out_col] = "not in the logs";
	if (r->measured_missing != NULL || r->measured_seconds < 0)
	{
		if (m->missing[p->time_col] == NULL)
			m->missing[p->time_col] = r->measured_missing != NULL ? r->measured_missing :
				"not in the logs";
	}
	else
	{
		/* the log holds microseconds: summed as such, exactly */
		sp->sum[p->time_col] += llround(r->measured_seconds * 1e6);
		if (p->count_col >= 0 && r->measured_count >= 0)
			sp->sum[p->count_col] += r->measured_count;
		else if (p->count_col >= 0)
			m->missing[p->count_col] = "not in the logs";
		if (r->verdict == NULL)
			sp->uncompared[p->kind] = true;
	}
	sp->samples[p->kind] += r->sampled_samples > 0 ? (uint64_t) r->sampled_samples : 0;
	sp->logged_s[p->kind] += r->sampled_seconds;
	return i;
}

/* What a --fail-if disagreement limit found. */
typedef struct measured_gate
{
	int			checked;		/* figures it names that were compared */
	bool		tripped;
	bool		fig_tripped[MEASURED_NPAIRS];
} measured_gate;

/* Judge disagreement limit l over the figures it names. */
static void
judge(const measured_run *m, const waits_limit *l, double period_s, measured_gate *g)
{
	memset(g, 0, sizeof(*g));
	for (int i = 0; i < MEASURED_NPAIRS; i++)
	{
		measured_fig f;
		gate_change ch;

		if (l->event[0] != '\0' && strcmp(l->event, measured_pairs[i].name) != 0)
			continue;
		measured_figure(m, &measured_pairs[i], period_s, &f);
		if (f.missing != NULL || !f.compared)
			continue;
		g->checked++;
		/* measured - sampled, give or take the estimate's bound; % of the estimate */
		ch = gate_change_abs(true, f.sampled_s, f.measured_s - f.sampled_s - f.bound_s,
							 f.measured_s - f.sampled_s + f.bound_s);
		g->fig_tripped[i] = gate_trips(&l->lim, &ch);
		g->tripped |= g->fig_tripped[i];
	}
}

int
measured_tripped(const measured_run *m, double period_s)
{
	int			n = 0;

	for (int i = 0; i < m->nlimits; i++)
	{
		measured_gate g;

		if (!m->limits[i].disagree)
			continue;
		judge(m, &m->limits[i], period_s, &g);
		n += g.tripped;
	}
	return n;
}

/* The report's lines of --fail-if's disagreement limits. */
void
measured_text_gate(FILE *out, const measured_run *m, double period_s)
{
	for (int i = 0; i < m->nlimits; i++)
	{
		const waits_limit *l = &m->limits[i];
		measured_gate g;
		const char *sep = ": ";

		if (!l->disagree)
			continue;
		judge(m, l, period_s, &g);
		fprintf(out, "  --fail-if=%s: %s", l->lim.text, gate_outcome_word(g.checked > 0,
																		   g.tripped));
		for (int k = 0; k < MEASURED_NPAIRS; k++)
			if (g.fig_tripped[k])
			{
				fprintf(out, "%s%s", sep, measured_pairs[k].what);
				sep = ", ";
			}
		if (g.checked == 0)
			fputs(" (no figure it names was compared)", out);
		fputc('\n', out);
	}
}

/* The JSON report's "fail_if" (with a disagreement limit): each, what it checked and what tripped it. */
void
measured_json_gate(json_writer *w, const measured_run *m, double period_s)
{
	bool		any = false;

	for (int i = 0; i < m->nlimits; i++)
		any |= m->limits[i].disagree;
	if (!any)
		return;
	json_key(w, "fail_if");
	json_array_begin(w);
	for (int i = 0; i < m->nlimits; i++)
	{
		const waits_limit *l = &m->limits[i];
		measured_gate g;

		if (!l->disagree)
			continue;
		judge(m, l, period_s, &g);
		json_object_begin(w);
		json_kv_string(w, "limit", l->lim.text);
		json_kv_int(w, "figures_checked", g.checked);
		json_kv_bool(w, "tripped", g.tripped);
		json_key(w, "tripped_by");
		json_array_begin(w);
		for (int k = 0; k < MEASURED_NPAIRS; k++)
			if (g.fig_tripped[k])
				json_string(w, measured_pairs[k].name);
		json_array_end(w);
		json_object_end(w);
	}
	json_array_end(w);
}
