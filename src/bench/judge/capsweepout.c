/*
 * capsweepout.c — what a sweep adds to the capacity report: the header
 * line of its plan and the "sweep" member of --json (the plan, the share,
 * each step's seconds and lag points, which --merge reads back).
 */
#include "config.h"

#include "capsweep_int.h"

#include <stdio.h>

#include "pgtempo/json.h"
#include "results/jsonreport.h"

/* The words of a plan the report and its JSON print: its objectives, its start. */
typedef struct plan_words
{
	char		objs[512];
	char		when[64];
} plan_words;

static void
plan_words_of(const cap_search *cs, plan_words *pw)
{
	cap_objectives_text(cs->c, pw->objs, sizeof(pw->objs));
	jsonreport_iso8601(pw->when, sizeof(pw->when), cs->plan->start_epoch_s);
}

void
capsweep_print_header(FILE *out, const cap_search *cs)
{
	const capsweep_plan *p = cs->plan;
	plan_words	pw;

	plan_words_of(cs, &pw);
	fprintf(out, "capacity sweep: %s, %d steps of %d s (%d s warm-up, %d s measured) from %s, %d clients",
			pw.objs, p->nrates, p->slot_s, p->warm_s, p->measured_s, pw.when, cs->s->nclients);
	if (p->share_k == 0)
		fprintf(out, ", %d shares merged\n", p->share_n);
	else if (p->share_n > 1)
		fprintf(out, "\nshare %d of %d: this host offers 1/%d of each step's rate, judged alone\n",
				p->share_k, p->share_n, p->share_n);
	else
		fprintf(out, "\n");
}

/* A step's -P lag points: [elapsed_s, interval_s, lag_ms, transactions, warm-up] each. */
static void
write_lag(json_writer *w, const capsweep_data *d)
{
	json_key(w, "lag");
	json_array_begin(w);
	for (int i = 0; i < d->nlag; i++)
	{
		json_array_begin(w);
		json_double(w, d->lag[i].elapsed_s);
		json_double(w, d->lag[i].interval_s);
		json_double(w, d->lag[i].lag_ms);
		json_int(w, d->lag[i].transactions);
		json_bool(w, d->lag[i].warmup);
		json_array_end(w);
	}
	json_array_end(w);
}

/* The plan, as every share of it writes it (a merge compares it member by member). */
static void
write_plan(json_writer *w, const cap_search *cs)
{
	const capsweep_plan *p = cs->plan;
	plan_words	pw;

	plan_words_of(cs, &pw);
	json_key(w, "plan");
	json_object_begin(w);
	json_key(w, "rates_tps");
	json_array_begin(w);
	for (int i = 0; i < p->nrates; i++)
		json_double(w, p->rates[i]);
	json_array_end(w);
	json_kv_string(w, "objectives", pw.objs);
	json_kv_string(w, "start_at", pw.when);
	json_kv_double(w, "start_at_epoch_s", p->start_epoch_s);
	json_kv_int(w, "step_s", p->slot_s);
	json_kv_int(w, "warmup_s", p->warm_s);
	json_kv_int(w, "measured_s", p->measured_s);
	json_kv_int(w, "shares", p->share_n);
	json_kv_string(w, "scripts", p->scripts);
	json_object_end(w);
}

void
capsweep_write_json(json_writer *w, const cap_search *cs)
{
	const capsweep_plan *p = cs->plan;

	json_key(w, "sweep");
	json_object_begin(w);
	write_plan(w, cs);
	json_kv_int_or_null(w, "share", p->share_k > 0, p->share_k);
	json_key(w, "steps");
	json_array_begin(w);
	for (int i = 0; i + 1 < cs->nsteps && p->data != NULL; i++)
	{
		json_object_begin(w);
		json_kv_double(w, "offered_tps", cs->steps[i + 1].rate);
		json_kv_double(w, "start_at_epoch_s", p->data[i].epoch_s);
		series_json(w, &p->data[i].sr);
		write_lag(w, &p->data[i]);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}
