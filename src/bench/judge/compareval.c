/*
 * compareval.c — what the pieces of a comparison share: a scope's name, a
 * run's value of a metric, a result's verdict and a limit's judgement
 * (the gate's rule).  Below
 * compare.c, compareboot.c and compareout.c, calling none of them.
 */
#include "config.h"

#include <math.h>

#include "compare_int.h"
#include "pgtempo/gate.h"

const char *
cmp_scope_name(const cmp *c, int scope)
{
	const merge_host *h = &c->side[0].runs[0];

	if (scope == 0)
		return "overall";
	return h->s.scripts[scope - 1]->desc;
}

double
cmp_run_value(const merge_host *h, int scope, const cmp_metric *m)
{
	const stats *st = scope == 0 ? &h->total : &h->scripts[scope - 1].st;
	const hist *hh = scope == 0 ? h->h : h->scripts[scope - 1].h;

	switch (m->kind)
	{
		case CMP_TPS:
			return h->duration_s > 0 ? (double) st->cnt / h->duration_s : NAN;
		case CMP_AVG:
			return st->latency.count > 0 ? st->latency.sum / (double) st->latency.count : NAN;
		case CMP_PCT:
			return hh->total > 0 ? (double) hist_percentile(hh, m->pct) : NAN;
	}
	return NAN;
}

void
cmp_set_verdict(cmp_result *r)
{
	gate_change ch = gate_change_rel(r->known, r->base, r->lo, r->hi);

	r->verdict = gate_verdict_word(gate_judge(&ch));
}

bool
cmp_limit_trips(const gate_limit *l, const cmp_result *r)
{
	gate_change ch = gate_change_rel(r->known, r->base, r->lo, r->hi);

	return gate_trips(l, &ch);
}
