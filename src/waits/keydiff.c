/*
 * keydiff.c — two windows' keyed estimates into ranked, judged changes.
 */
#include "config.h"

#include "keydiff.h"

#include <math.h>
#include <stdlib.h>

#include "pgtempo/gate.h"
#include "pgtempo/infer.h"

void
keydiff_est_series(const double *y, const double *x, int n, double floor_se, keydiff_est *out)
{
	infer_ratio r;

	out->mean = 0;
	out->se = floor_se;
	out->df = INFINITY;
	if (!infer_ratio_series(y, x, n, &r))
		return;
	out->mean = r.est;
	if (isfinite(r.se) && r.se > floor_se)
	{
		out->se = r.se;
		out->df = r.df;
	}
}

keydiff_est
keydiff_est_bound(double mean, double bound, double level)
{
	/* a normal quantile: the t quantile of very many degrees of freedom */
	double		z = infer_t_quantile(0.5 + level / 2, 1e9);

	return (keydiff_est) {mean, bound / z, INFINITY};
}

double
keydiff_sampling_se(double k, double n, double ticks)
{
	if (n <= 0 || ticks <= 0)
		return 0;
	return sqrt(k * (1 - k / n)) / ticks;
}

double
keydiff_bound(const keydiff_est *base, const keydiff_est *new, int family, double level)
{
	double		qa = base->se * base->se,
				qb = new->se * new->se;
	double		df,
				alpha = 1 - gate_level(level, family);	/* Bonferroni */

	if (!(qa + qb > 0))
		return 0;
	/* Welch-Satterthwaite; a side with a normal bound adds nothing to the sum below */
	df = infer_welch_df(qa, base->df, qb, new->df);
	if (!isfinite(df) || df > 1e9)
		df = 1e9;
	return infer_t_quantile(1 - alpha / 2, df) * sqrt(qa + qb);
}

void
keydiff_judge(keydiff_row *rows, int n, int family, double level)
{
	for (int i = 0; i < n; i++)
	{
		keydiff_row *r = &rows[i];
		gate_change ch;

		r->change = r->new.mean - r->base.mean;
		r->pct = r->base.mean > 0 ? 100 * r->change / r->base.mean : NAN;
		r->bound = keydiff_bound(&r->base, &r->new, family, level);
		ch = gate_change_abs(true, r->base.mean, r->change - r->bound, r->change + r->bound);
		r->verdict = gate_verdict_word(gate_judge(&ch));
		r->flagged = gate_judge(&ch) != GATE_NO_DIFFERENCE;
	}
}

static int
cmp_row(const void *a, const void *b)
{
	const keydiff_row *x = a,
			   *y = b;

	if (fabs(x->change) != fabs(y->change))
		return fabs(x->change) > fabs(y->change) ? -1 : 1;
	return x->key - y->key;
}

void
keydiff_sort(keydiff_row *rows, int n)
{
	if (n > 1)
		qsort(rows, (size_t) n, sizeof(keydiff_row), cmp_row);
}
