/*
 * keydiff.c — two windows' keyed estimates into ranked, judged changes.
 */
#include "config.h"

#include "keydiff.h"

#include <math.h>
#include <stdlib.h>

#include "pgtempo/gate.h"
#include "pgtempo/infer.h"

/* A window's estimate by batch means, at least the sampling's error; few below KEYDIFF_MIN_SLICES. */
void
keydiff_est_series(const double *y, const double *x, int n, double floor_se, keydiff_est *out)
{
	infer_ratio r,
				ar;
	int			m = 0,
				nb;

	*out = (keydiff_est) {0, floor_se, INFINITY, false, 0, 0, 1};
	for (int i = 0; i < n; i++)
		m += x[i] > 0;
	nb = (int) floor(sqrt(m));
	if (!infer_ratio_batches(y, x, n, nb, &r))
		return;
	out->mean = r.est;
	if (m < KEYDIFF_MIN_SLICES || !isfinite(r.se))
	{
		out->few = true;
		out->se = NAN;
		out->df = NAN;
		return;
	}
	/*
	 * neighbours alike over more than a batch (an AR(1) of a slow wander):
	 * the slices' lag-1 allowance says more, with its own degrees of
	 * freedom, at most the batches' and at least half of them (a lag-1
	 * estimate pinned at its 0.95 by a series that moves in steps, one
	 * session all along sampled at a rate set anew every some seconds,
	 * says 1: a bound of 12 sessions)
	 */
	if (infer_ratio_series(y, x, n, &ar) && isfinite(ar.se) && ar.se > r.se)
	{
		r.se = ar.se;
		r.df = fmin(fmax(ar.df, r.df / 2), r.df);
	}
	if (r.se > floor_se)
	{
		out->se = r.se;
		out->df = r.df;
	}
}

/* The mean of the windows' means; the larger of the spread between them and their own errors. */
keydiff_est
keydiff_est_pool(const keydiff_est *w, int n)
{
	keydiff_est p = {0, 0, INFINITY, false, 0, 0, n};
	double		within = 0,
				den = 0,
				spread = 0;

	for (int i = 0; i < n; i++)
	{
		p.mean += w[i].mean / n;
		p.few = p.few || w[i].few;
	}
	if (n == 1)
		return w[0];
	if (p.few)
		return (keydiff_est) {p.mean, NAN, NAN, true, 0, 0, n};
	for (int i = 0; i < n; i++)
	{
		double		q = w[i].se * w[i].se;

		spread += (w[i].mean - p.mean) * (w[i].mean - p.mean) / (n - 1);
		within += q / n;
		den += isfinite(w[i].df) ? q * q / (n * n) / w[i].df : 0;
	}
	if (spread > within)
	{
		/* one window's variance, as its means spread: n - 1 degrees of freedom */
		p.se = sqrt(spread / n);
		p.df = n - 1;
		p.between = spread - within;
		p.between_df = n - 1;
	}
	else
	{
		/* the windows' own errors (Welch-Satterthwaite over them) */
		p.se = sqrt(within / n);
		p.df = den > 0 ? within * within / den : INFINITY;
	}
	return p;
}

keydiff_est
keydiff_est_bound(double mean, double bound, double level)
{
	/* a normal quantile: the t quantile of very many degrees of freedom */
	double		z = infer_t_quantile(0.5 + level / 2, 1e9);

	return (keydiff_est) {mean, bound / z, INFINITY, false, 0, 0, 1};
}

double
keydiff_sampling_se(double k, double n, double ticks)
{
	if (n <= 0 || ticks <= 0)
		return 0;
	return sqrt(k * (1 - k / n)) / ticks;
}

/* A t quantile at the family's level times the combined error, Welch-Satterthwaite's df. */
double
keydiff_bound(const keydiff_est *base, const keydiff_est *new, int family, double level)
{
	/* the variances: the baseline's, the new window's, and a window's between windows */
	double		q[3] = {base->se * base->se, new->se * new->se, base->between};
	double		d[3] = {base->df, new->df, base->between_df};
	double		sum = q[0] + q[1] + q[2],
				df,
				alpha = 1 - gate_level(level, family);	/* Bonferroni */

	if (base->few || new->few)
		return NAN;
	if (!(sum > 0))
		return 0;
	/* Welch-Satterthwaite; a part with a normal bound adds nothing to its denominator */
	df = infer_welch_df(q, d, 3);
	if (!isfinite(df) || df > 1e9)
		df = 1e9;
	return infer_t_quantile(1 - alpha / 2, df) * sqrt(sum);
}

/* Each row's change, bound and verdict (none without a bound). */
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
		if (isnan(r->bound))
		{
			r->flagged = false;
			r->verdict = KEYDIFF_TOO_FEW;
			continue;
		}
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
