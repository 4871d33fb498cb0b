/*
 * infer.c — t quantiles, Welch's interval on logarithms, the moving
 * block bootstrap's draws, sample quantiles.
 */
#include "config.h"

#include "pgtempo/infer.h"
#include "pgtempo/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
infer_rng_seed(infer_rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t
infer_rng_next(infer_rng *r)
{
	uint64_t	z = (r->state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

uint32_t
infer_rng_below(infer_rng *r, uint32_t n)
{
	/* Lemire's multiply-shift: the bias for n < 2^32 is below 2^-32 */
	return (uint32_t) (((infer_rng_next(r) >> 32) * (uint64_t) n) >> 32);
}

/* The continued fraction of the regularized incomplete beta (modified Lentz). */
static double
beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double		c = 1.0,
				d = 1.0 - (a + b) * x / (a + 1.0),
				h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 300; m++)
	{
		double		m2 = 2.0 * m;
		double		num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		double		del;

		for (int step = 0; step < 2; step++)
		{
			d = 1.0 + num * d;
			c = 1.0 + num / c;
			if (fabs(d) < tiny)
				d = tiny;
			if (fabs(c) < tiny)
				c = tiny;
			d = 1.0 / d;
			h *= d * c;
			num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		}
		del = d * c;
		if (fabs(del - 1.0) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double
inc_beta(double a, double b, double x)
{
	double		front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_cf(a, b, x) / a;
	return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

/* P(T <= t) for Student's t with df degrees of freedom. */
static double
t_cdf(double t, double df)
{
	double		tail = 0.5 * inc_beta(df / 2.0, 0.5, df / (df + t * t));

	return t >= 0 ? 1.0 - tail : tail;
}

double
infer_t_quantile(double p, double df)
{
	double		lo = 0,
				hi = 1;

	if (p == 0.5)
		return 0;
	if (p < 0.5)
		return -infer_t_quantile(1.0 - p, df);
	while (t_cdf(hi, df) < p && hi < 1e12)
		hi *= 2;
	/* bisection: t_cdf is monotone, 200 halvings reach the double's precision */
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++)
	{
		double		mid = (lo + hi) / 2;

		if (t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void
infer_mean_var(const double *v, int n, double *mean, double *var)
{
	double		s = 0,
				ss = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	*mean = n > 0 ? s / n : NAN;
	for (int i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*var = n > 1 ? ss / (n - 1) : NAN;
}

double
infer_welch_df(const double *q, const double *df, int n)
{
	double		sum = 0,
				den = 0,
				dfsum = 0;

	for (int i = 0; i < n; i++)
	{
		sum += q[i];
		dfsum += df[i];
		if (q[i] > 0 && isfinite(df[i]))
			den += q[i] * q[i] / df[i];
	}
	if (!(sum > 0))
		return dfsum;
	return den > 0 ? sum * sum / den : INFINITY;
}

/* Mean and sample variance of log(v[0..n)); false if a value is not positive. */
static bool
log_moments(const double *v, int n, double *mean, double *var)
{
	double	   *lv = xmalloc(sizeof(double) * (size_t) (n > 0 ? n : 1));
	bool		ok = true;

	for (int i = 0; i < n && ok; i++)
	{
		ok = v[i] > 0 && isfinite(v[i]);
		lv[i] = ok ? log(v[i]) : 0;
	}
	if (ok)
		infer_mean_var(lv, n, mean, var);
	free(lv);
	return ok;
}

bool
infer_welch_log(const double *a, int na, const double *b, int nb, double level,
				infer_interval *out)
{
	double		ma,
				va,
				mb,
				vb,
				se,
				df,
				t;

	if (na < 1 || nb < 1 || na + nb < 3 || !log_moments(a, na, &ma, &va) ||
		!log_moments(b, nb, &mb, &vb))
		return false;
	if (na == 1 || nb == 1)
	{
		/* one run on one side: the other side's spread stands for both */
		double		v = na == 1 ? vb : va;

		se = sqrt(v * (1.0 / na + 1.0 / nb));
		df = (na == 1 ? nb : na) - 1;
	}
	else
	{
		double		q[2] = {va / na, vb / nb},
					d[2] = {na - 1, nb - 1};

		se = sqrt(q[0] + q[1]);
		df = infer_welch_df(q, d, 2);
	}
	t = infer_t_quantile(0.5 + level / 2.0, df);
	out->est = mb - ma;
	out->lo = out->est - t * se;
	out->hi = out->est + t * se;
	return true;
}

int
infer_block_length(int n)
{
	int			len = (int) lround(cbrt((double) n));

	return len < 1 ? 1 : len;
}

int
infer_block_length_rho(int n, double rho)
{
	int			len = infer_block_length(n);
	double		r = fmin(fabs(rho), 0.99);
	double		plug = cbrt(1.5 * n) * pow(2 * r / (1 - r * r), 2.0 / 3.0);

	if (plug > len)
		len = (int) lround(plug);
	if (len > n / 3)
		len = n / 3 > 1 ? n / 3 : 1;
	return len;
}

double
infer_lag1(const double *x, int n)
{
	double		mean = 0,
				num = 0,
				den = 0;

	if (n < 3)
		return 0;
	for (int i = 0; i < n; i++)
		mean += x[i];
	mean /= n;
	for (int i = 0; i < n; i++)
	{
		den += (x[i] - mean) * (x[i] - mean);
		if (i > 0)
			num += (x[i] - mean) * (x[i - 1] - mean);
	}
	return den > 0 ? num / den : 0;
}

/*
 * The ratio of sums over the n pairs with x > 0, the part both estimators
 * share: out cleared, est and n set, se NaN; *sx the sum of those x.  false
 * when no x > 0.
 */
static bool
ratio_of_sums(const double *y, const double *x, int n, infer_ratio *out, double *sx)
{
	double		sy = 0;
	int			m = 0;

	memset(out, 0, sizeof(*out));
	*sx = 0;
	for (int i = 0; i < n; i++)
		if (x[i] > 0)
		{
			sy += y[i];
			*sx += x[i];
			m++;
		}
	if (m == 0)
		return false;
	out->est = sy / *sx;
	out->n = m;
	out->se = NAN;
	return true;
}

bool
infer_ratio_series(const double *y, const double *x, int n, infer_ratio *out)
{
	double		sx,
				ss = 0;
	double	   *e;
	int			m;

	if (!ratio_of_sums(y, x, n, out, &sx))
		return false;
	m = out->n;
	if (m < 2)
		return true;
	e = xmalloc((size_t) m * sizeof(double));
	m = 0;
	for (int i = 0; i < n; i++)
		if (x[i] > 0)
		{
			e[m] = y[i] - out->est * x[i];
			ss += e[m] * e[m];
			m++;
		}
	/*
	 * neighbouring slices of one workload go together: fewer values than
	 * slices to go on; the lag-1 estimate of a short series is low by
	 * about (1 + 3 rho) / m (Kendall), added back
	 */
	out->rho = infer_lag1(e, m);
	out->rho = fmin(fmax(out->rho + (1 + 3 * out->rho) / m, 0), 0.95);
	free(e);
	out->se = sqrt(ss / (m - 1) * m * (1 + out->rho) / (1 - out->rho)) / sx;
	out->df = fmax(m * (1 - out->rho) / (1 + out->rho) - 1, 1);
	return true;
}

int
infer_block_count(int n, int len)
{
	return (n + len - 1) / len;
}

void
infer_block_starts(infer_rng *r, int n, int nblocks, int *starts)
{
	for (int i = 0; i < nblocks; i++)
		starts[i] = (int) infer_rng_below(r, (uint32_t) n);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

double
infer_quantile(double *v, int n, double q)
{
	double		h,
				f;
	int			i;

	if (n <= 0)
		return NAN;
	qsort(v, (size_t) n, sizeof(double), cmp_double);
	h = (n - 1) * q;
	i = (int) floor(h);
	if (i >= n - 1)
		return v[n - 1];
	if (i < 0)
		return v[0];
	f = h - i;
	return v[i] + f * (v[i + 1] - v[i]);
}

/* ---------------------------------------------------------------- batch means */

/* A ratio of sums with its standard error from nb batches of neighbouring values. */
bool
infer_ratio_batches(const double *y, const double *x, int n, int nb, infer_ratio *out)
{
	double		sx,
				ss = 0;
	double	   *e;
	int			m;

	if (!ratio_of_sums(y, x, n, out, &sx))
		return false;
	out->df = NAN;
	if (nb < 2 || nb > out->n)
		return true;
	/* batch k holds the valid slices j with floor(j nb / m) = k: sizes differ by one at most */
	e = xcalloc((size_t) nb, sizeof(double));
	m = 0;
	for (int i = 0; i < n; i++)
		if (x[i] > 0)
		{
			e[(int) ((int64_t) m * nb / out->n)] += y[i] - out->est * x[i];
			m++;
		}
	for (int k = 0; k < nb; k++)
		ss += e[k] * e[k];
	free(e);
	out->se = sqrt(ss * nb / (nb - 1)) / sx;
	out->df = nb - 1;
	return true;
}
