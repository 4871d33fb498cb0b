/*
 * capsweepmerge.c — --merge of --sweep's reports: the shares of one plan
 * added second by second, each step judged at the plan's rate as the
 * search judges a step, and the capacity report of the whole plan.
 *
 * The seconds of a step are matched by their end on the plan's clock
 * (whole seconds since the step's start); their counts, latency sums and
 * histograms add up.  A step's lag at a second is the shares' lags
 * weighted by their transactions in it.
 */
#include "config.h"

#include "capsweep_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_int.h"
#include "pgtempo/exitcode.h"
#include "pgtempo/jsonread.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

/* One share's report as the merge reads it. */
typedef struct share
{
	const char *file;
	jsonread_doc *doc;
	const jsonread_value *root;
	const jsonread_value *plan;
	const jsonread_value *steps;
	int			k;				/* its share; 0: a merge of shares */
} share;

/* Member key of v if it is of type t, else NULL. */
static const jsonread_value *
get_type(const jsonread_value *v, const char *key, jsonread_type t)
{
	const jsonread_value *m = v != NULL ? jsonread_get(v, key) : NULL;

	return m != NULL && m->type == t ? m : NULL;
}

/* A number member of v, or dflt. */
static double
get_num(const jsonread_value *v, const char *key, double dflt)
{
	const jsonread_value *m = get_type(v, key, JSONREAD_NUMBER);

	return m != NULL ? m->num : dflt;
}

/* Read file into *sh when it is a sweep's report; false with *cause set (caller frees). */
static bool
read_share(const char *file, share *sh, char **cause)
{
	const jsonread_value *kind,
			   *sweep,
			   *k;

	memset(sh, 0, sizeof(*sh));
	sh->file = file;
	if ((sh->doc = jsonread_file(file, cause)) == NULL)
		return false;
	sh->root = jsonread_root(sh->doc);
	kind = get_type(sh->root, "kind", JSONREAD_STRING);
	sweep = get_type(sh->root, "sweep", JSONREAD_OBJECT);
	sh->plan = get_type(sweep, "plan", JSONREAD_OBJECT);
	sh->steps = get_type(sweep, "steps", JSONREAD_ARRAY);
	k = sweep != NULL ? jsonread_get(sweep, "share") : NULL;
	if (kind == NULL || strcmp(kind->u.str, "capacity") != 0 || sh->plan == NULL ||
		sh->steps == NULL || k == NULL || (k->type != JSONREAD_NULL && !k->is_int))
	{
		*cause = xasprintf("\"%s\" is not the report of a capacity sweep (--sweep with --json)", file);
		return false;
	}
	sh->k = k->type == JSONREAD_NULL ? 0 : (int) k->i;
	return true;
}

bool
capsweep_is_report(const char *file)
{
	share		sh;
	char	   *cause = NULL;
	bool		ok = read_share(file, &sh, &cause);

	free(cause);
	jsonread_free(sh.doc);
	return ok;
}

/* Whether b's plan is a's, member by member; the first difference is printed as an error. */
static bool
same_plan(const share *a, const share *b)
{
	for (uint32_t i = 0; i < a->plan->n; i++)
	{
		const jsonread_member *m = &a->plan->u.members[i];
		const jsonread_value *vb = jsonread_get(b->plan, m->key);
		strbuf		sa,
					sb;

		if (vb != NULL && jsonread_equal(&m->value, vb))
			continue;
		strbuf_init(&sa);
		strbuf_init(&sb);
		msg_error("\"%s\" and \"%s\" are not shares of the same sweep: the plan's %s differs",
				  a->file, b->file, m->key);
		msg_detail("It is %s in \"%s\" and %s in \"%s\".", merge_show_json(&sa, &m->value), a->file,
				   merge_show_json(&sb, vb), b->file);
		strbuf_free(&sa);
		strbuf_free(&sb);
		return false;
	}
	return true;
}

/* Whether the shares are all of one plan, each share once, none missing. */
static bool
shares_complete(const share *sh, int n)
{
	int			want = (int) get_num(sh[0].plan, "shares", 0);
	bool	   *seen;
	bool		ok = true;

	for (int i = 0; i < n; i++)
		if (sh[i].k == 0)
		{
			msg_error("\"%s\" is a merge of shares already: merge the shares' own reports", sh[i].file);
			return false;
		}
		else if (i > 0 && !same_plan(&sh[0], &sh[i]))
			return false;
	if (want < 1 || want > 1000)
	{
		msg_error("\"%s\" has no number of shares in its plan", sh[0].file);
		return false;
	}
	seen = xcalloc((size_t) want + 1, sizeof(bool));
	for (int i = 0; i < n && ok; i++)
	{
		if (sh[i].k < 1 || sh[i].k > want || seen[sh[i].k])
		{
			msg_error("\"%s\" is share %d of %d, %s", sh[i].file, sh[i].k, want,
					  sh[i].k < 1 || sh[i].k > want ? "not one of the plan's" : "given twice");
			ok = false;
		}
		else
			seen[sh[i].k] = true;
	}
	for (int k = 1; k <= want && ok; k++)
		if (!seen[k])
		{
			msg_error("share %d of %d of the sweep is missing: the merge needs all of them", k, want);
			ok = false;
		}
	free(seen);
	return ok;
}

/* The merged plan from the first share's. */
static bool
read_plan(const share *sh, capsweep_plan *p, capacity_settings *c)
{
	const jsonread_value *rates = get_type(sh->plan, "rates_tps", JSONREAD_ARRAY);
	const jsonread_value *objs = get_type(sh->plan, "objectives", JSONREAD_STRING);
	const jsonread_value *scripts = get_type(sh->plan, "scripts", JSONREAD_STRING);

	memset(p, 0, sizeof(*p));
	p->share_n = (int) get_num(sh->plan, "shares", 0);
	p->start_epoch_s = get_num(sh->plan, "start_at_epoch_s", 0);
	p->slot_s = (int) get_num(sh->plan, "step_s", 0);
	p->warm_s = (int) get_num(sh->plan, "warmup_s", 0);
	p->measured_s = (int) get_num(sh->plan, "measured_s", 0);
	if (rates == NULL || rates->n < 1 || rates->n > CAPSWEEP_MAX_RATES || objs == NULL ||
		p->slot_s <= 0 || !(p->start_epoch_s > 0))
	{
		msg_error("\"%s\" has no complete plan of a sweep", sh->file);
		return false;
	}
	p->nrates = (int) rates->n;
	for (int i = 0; i < p->nrates; i++)
		p->rates[i] = rates->u.items[i].type == JSONREAD_NUMBER ? rates->u.items[i].num : 0;
	snprintf(p->scripts, sizeof(p->scripts), "%s", scripts != NULL ? scripts->u.str : "");
	memset(c, 0, sizeof(*c));
	return capacity_parse_objectives(c, objs->u.str);
}

/* Step i of share sh: its seconds into *sr; false with the cause printed. */
static bool
read_step_series(const share *sh, int i, series *sr)
{
	char	   *cause = NULL;

	memset(sr, 0, sizeof(*sr));
	if (series_read(&sh->steps->u.items[i], sr, &cause) && sr->interval_s > 0)
		return true;
	msg_error("\"%s\": step %d has no per-second series%s%s", sh->file, i + 1, cause ? ": " : "",
			  cause ? cause : "");
	free(cause);
	return false;
}

/* Add the shares' seconds of a step into d->sr, matched on the plan's clock. */
static bool
add_seconds(const share *sh, int n, int i, capsweep_data *d)
{
	series	   *hs = xcalloc((size_t) n, sizeof(series));
	int		   *cur = xcalloc((size_t) n, sizeof(int));
	hist	   *h = hist_new(1);
	bool		ok = true;

	for (int j = 0; j < n && ok; j++)
		ok = read_step_series(&sh[j], i, &hs[j]);
	series_init(&d->sr, 1, 1);
	while (ok)
	{
		int64_t		k = INT64_MAX;
		series_row *row;

		for (int j = 0; j < n; j++)
			if (cur[j] < hs[j].nrows && llround(hs[j].rows[cur[j]].epoch_s - d->epoch_s) < k)
				k = llround(hs[j].rows[cur[j]].epoch_s - d->epoch_s);
		if (k == INT64_MAX)
			break;
		row = series_add_row(&d->sr, 0, 0, 0);
		hist_init(h);
		for (int j = 0; j < n; j++)
			for (; cur[j] < hs[j].nrows && llround(hs[j].rows[cur[j]].epoch_s - d->epoch_s) == k; cur[j]++)
			{
				const series_row *r = &hs[j].rows[cur[j]];
				char	   *cause = NULL;

				row->time_s = fmax(row->time_s, r->time_s);
				row->epoch_s = fmax(row->epoch_s, r->epoch_s);
				row->interval_s = fmax(row->interval_s, r->interval_s);
				row->cells[0].transactions += r->cells[0].transactions;
				row->cells[0].failed += r->cells[0].failed;
				row->cells[0].latency_sum_ns += r->cells[0].latency_sum_ns;
				if (!series_hist_add(h, r->cells[0].hist_text, &cause))
				{
					msg_error("\"%s\": step %d: %s", sh[j].file, i + 1, cause);
					free(cause);
					ok = false;
				}
			}
		row->cells[0].hist_text = series_hist_text(h);
	}
	for (int j = 0; j < n; j++)
		series_free(&hs[j]);
	free(hs);
	free(cur);
	free(h);
	return ok;
}

/* A lag point of a share: [elapsed_s, interval_s, lag_ms, transactions, warm-up]; false if not one. */
static bool
lag_point(const jsonread_value *v, report_progress_point *p)
{
	if (v->type != JSONREAD_ARRAY || v->n != 5)
		return false;
	for (int i = 0; i < 4; i++)
		if (v->u.items[i].type != JSONREAD_NUMBER)
			return false;
	memset(p, 0, sizeof(*p));
	p->elapsed_s = v->u.items[0].num;
	p->interval_s = v->u.items[1].num;
	p->lag_ms = v->u.items[2].num;
	p->transactions = (int64_t) v->u.items[3].num;
	p->warmup = v->u.items[4].type == JSONREAD_BOOL && v->u.items[4].b;
	return true;
}

/* The shares' lag points of step i added: matched by their second, weighted by transactions. */
static bool
add_lag(const share *sh, int n, int i, capsweep_data *d)
{
	int			max = 0;

	for (int j = 0; j < n; j++)
	{
		const jsonread_value *l = get_type(&sh[j].steps->u.items[i], "lag", JSONREAD_ARRAY);

		if (l == NULL)
		{
			msg_error("\"%s\": step %d has no lag points", sh[j].file, i + 1);
			return false;
		}
		for (uint32_t q = 0; q < l->n; q++)
		{
			report_progress_point p;
			int			k;

			if (!lag_point(&l->u.items[q], &p) || !(p.elapsed_s >= 0 && p.elapsed_s < 1e6))
			{
				msg_error("\"%s\": step %d has a malformed lag point", sh[j].file, i + 1);
				return false;
			}
			k = (int) lround(p.elapsed_s);
			if (k >= max)
			{
				d->lag = xrealloc(d->lag, sizeof(report_progress_point) * (size_t) (k + 1));
				memset(d->lag + max, 0, sizeof(report_progress_point) * (size_t) (k + 1 - max));
				max = k + 1;
			}
			/* interval_s marks a second some share has; lag_ms holds the weighted sum till the end */
			d->lag[k].elapsed_s = fmax(d->lag[k].elapsed_s, p.elapsed_s);
			d->lag[k].interval_s = fmax(d->lag[k].interval_s, p.interval_s);
			d->lag[k].lag_ms += p.lag_ms * (double) (p.transactions > 0 ? p.transactions : 1);
			d->lag[k].transactions += p.transactions > 0 ? p.transactions : 1;
			d->lag[k].warmup = d->lag[k].warmup || p.warmup;
		}
	}
	for (int k = 0; k < max; k++)
		if (d->lag[k].interval_s > 0)
		{
			d->lag[d->nlag] = d->lag[k];
			d->lag[d->nlag].lag_ms /= (double) d->lag[k].transactions;
			d->nlag++;
		}
	return true;
}

/* The steps every share ran (a share that stopped early ends the merged plan). */
static int
common_steps(const share *sh, int n, int nrates)
{
	int			m = nrates;

	for (int j = 0; j < n; j++)
		if ((int) sh[j].steps->n < m)
		{
			msg_warning("\"%s\" ran %u of the plan's %d steps: the merge stops there", sh[j].file,
						sh[j].steps->n, nrates);
			m = (int) sh[j].steps->n;
		}
	return m;
}

/* The whole plan's steps judged from the shares added; false with the cause printed. */
static bool
merge_steps(cap_search *cs, const share *sh, int n)
{
	capsweep_plan *p = (capsweep_plan *) cs->plan;
	int			m = common_steps(sh, n, p->nrates);
	bench_results *lag = xmalloc(sizeof(bench_results));
	bool		ok = true;

	p->data = xcalloc((size_t) p->nrates, sizeof(capsweep_data));
	cs->nsteps = 1;
	for (int i = 0; i < m; i++)
	{
		capsweep_data *d = &p->data[i];
		cap_step   *st = &cs->steps[cs->nsteps];

		d->epoch_s = p->start_epoch_s + (double) i * p->slot_s;
		if (!add_seconds(sh, n, i, d) || !add_lag(sh, n, i, d))
		{
			ok = false;
			break;
		}
		memset(st, 0, sizeof(*st));
		st->rate = p->rates[i];
		st->runs = 1;
		/* the lag points as a run's: what cap_measure_step reads of it */
		memset(lag, 0, sizeof(*lag));
		lag->progress = d->lag;
		lag->nprogress = d->nlag;
		cap_measure_step(cs, &d->sr, lag, st);
		cs->nsteps++;
	}
	free(lag);
	cs->stop_why = m == p->nrates ? "the plan ran to its end" : "a share stopped early";
	return ok;
}

/* The merged report's settings: the shares' clients added, the first's budget; their worst status. */
static void
add_hosts(cap_search *cs, bench_settings *s, const share *sh, int n)
{
	s->nclients = 0;
	s->duration = (int) get_num(sh[0].root, "budget_s", 0);
	for (int j = 0; j < n; j++)
	{
		int			st = (int) get_num(sh[j].root, "exit_status", 0);

		s->nclients += (int) get_num(sh[j].root, "clients", 0);
		cs->used_s = fmax(cs->used_s, get_num(sh[j].root, "used_s", 0));
		/* a run that failed or was stopped taints the merge; a tripped --fail-if does not */
		if (st != EXITCODE_OK && st != EXITCODE_LIMIT && cs->status == 0)
			cs->status = st;
	}
}

int
capsweep_merge(const bench_settings *opts, const capacity_settings *gate, bool allow_partial,
			   char **files, int nfiles)
{
	share	   *sh = xcalloc((size_t) nfiles, sizeof(share));
	cap_search *cs = xcalloc(1, sizeof(cap_search));
	capsweep_plan plan;
	capacity_settings c;
	bench_settings s = *opts;
	int			status = EXITCODE_ERROR;
	bool		ok = true;

	memset(&plan, 0, sizeof(plan));
	if (allow_partial)
	{
		msg_error("--allow-partial: a merge of sweep reports needs every share");
		ok = false;
	}
	else if (!output_only_mode(opts, OUTPUT_CAPACITY, "a merge of sweep reports"))
		ok = false;
	for (int i = 0; i < nfiles && ok; i++)
	{
		char	   *cause = NULL;

		if (!(ok = read_share(files[i], &sh[i], &cause)))
		{
			msg_error("%s", cause);
			free(cause);
		}
	}
	ok = ok && shares_complete(sh, nfiles) && read_plan(&sh[0], &plan, &c);
	c.floor = gate->floor;
	c.has_floor = gate->has_floor;
	if (ok)
	{
		plan.share_k = 0;
		cs->s = &s;
		cs->c = &c;
		cs->plan = &plan;
		add_hosts(cs, &s, sh, nfiles);
		ok = merge_steps(cs, sh, nfiles);
	}
	if (ok)
	{
		capsweep_bracket(cs);
		status = cap_finish(cs);
		cs = NULL;
	}
	free(cs);
	capsweep_free_data(&plan);
	for (int i = 0; i < nfiles; i++)
		jsonread_free(sh[i].doc);
	free(sh);
	return status;
}
