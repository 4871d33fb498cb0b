/*
 * infer.h — small inferential statistics for comparisons of runs:
 * Student's t quantiles, Welch's interval for a ratio of geometric
 * means, a seeded moving block bootstrap for a series whose neighbouring
 * values are not independent, and sample quantiles.
 *
 * Everything is deterministic: the bootstrap draws from a seeded
 * generator, so the same input gives the same interval.
 */
#ifndef PGTEMPO_INFER_H
#define PGTEMPO_INFER_H

#include <stdbool.h>
#include <stdint.h>

/* A point estimate and its interval (on whatever scale the caller works in). */
typedef struct infer_interval
{
	double		est;
	double		lo;
	double		hi;
} infer_interval;

/* splitmix64: small, fast, and the same everywhere. */
typedef struct infer_rng
{
	uint64_t	state;
} infer_rng;

void		infer_rng_seed(infer_rng *r, uint64_t seed);
uint64_t	infer_rng_next(infer_rng *r);
/* Uniform in [0, n), n > 0. */
uint32_t	infer_rng_below(infer_rng *r, uint32_t n);

/* The quantile p (0 < p < 1) of Student's t with df > 0 degrees of freedom. */
double		infer_t_quantile(double p, double df);

/* The mean and sample variance of v[0..n) (the variance NaN with fewer than 2 values). */
void		infer_mean_var(const double *v, int n, double *mean, double *var);

/*
 * Welch-Satterthwaite's degrees of freedom of a sum of n squared standard
 * errors q[i] with df[i] degrees of freedom each (an infinite df: a normal
 * error, which adds nothing to the denominator); INFINITY when all are
 * normal, the sum of the df when the sum of the q is 0.
 */
double		infer_welch_df(const double *q, const double *df, int n);

/*
 * The interval at level (0.95) of log(geometric mean of b / geometric
 * mean of a): Welch's t on the logarithms, so the change is a ratio and
 * the interval is symmetric in log space.  With one value on one side
 * and two or more on the other, the other side's variance stands for
 * both (df of that side).  false when there is too little to go on: a
 * side without values, one value on each side, or a value that is not
 * positive.
 */
bool		infer_welch_log(const double *a, int na, const double *b, int nb, double level,
							infer_interval *out);

/* The block length of the moving block bootstrap for n values: round(n^(1/3)), at least 1. */
int			infer_block_length(int n);

/*
 * The block length for n values whose lag-1 autocorrelation is rho: the
 * AR(1) plug-in rule, (3n/2)^(1/3) (2 rho / (1 - rho^2))^(2/3), rounded,
 * at least infer_block_length(n) and at most n / 3.
 */
int			infer_block_length_rho(int n, double rho);

/* The lag-1 autocorrelation of x[0..n); 0 with fewer than 3 values or no variance. */
double		infer_lag1(const double *x, int n);

/* A ratio of sums estimated from a series, with its standard error (infer_ratio_series). */
typedef struct infer_ratio
{
	double		est;			/* sum(y) / sum(x) */
	double		se;				/* its standard error; NaN with fewer than 2 values */
	double		df;				/* the degrees of freedom of se (effective values - 1) */
	double		rho;			/* the lag-1 autocorrelation allowed for, 0..0.95 */
	int			n;				/* the values with x > 0 */
} infer_ratio;

/*
 * The ratio sum(y) / sum(x) over a series of n (y, x) pairs (a count in
 * each slice of time and the slice's weight, for example samples of an
 * event and the sampling ticks), and its standard error by batch means:
 * the spread of the slices' residuals y - est x, inflated by (1 + rho) /
 * (1 - rho) for their lag-1 autocorrelation rho (an AR(1) process; a
 * negative rho counts as 0, rho is at most 0.95), with n (1 - rho) /
 * (1 + rho) - 1 degrees of freedom, at least 1.  Slices with x = 0 (a gap)
 * are left out.  false when no slice has x > 0.
 */
bool		infer_ratio_series(const double *y, const double *x, int n, infer_ratio *out);

/*
 * The ratio sum(y) / sum(x) over a series of n (y, x) pairs, as
 * infer_ratio_series, with its standard error by nonoverlapping batch
 * means: the slices with x > 0, in order, cut into nb runs of
 * neighbours (sizes differing by one at most), and the spread of the
 * runs' residual sums sum(y - est x) (their mean is 0), nb - 1 degrees
 * of freedom.  Neighbouring values may be alike: batches long enough to
 * be near independent need no model of how.  rho is 0.  se and df are
 * NaN when nb < 2 or nb is more than the values; false when no value has
 * x > 0.
 */
bool		infer_ratio_batches(const double *y, const double *x, int n, int nb,
								infer_ratio *out);

/*
 * One resample of a series of n values, as blocks of len consecutive
 * indexes that wrap around at the end (a circular moving block
 * bootstrap): starts[0..nblocks) each uniform in [0, n), nblocks =
 * ceil(n / len); the resample is the first n indexes of the blocks laid
 * end to end.
 */
int			infer_block_count(int n, int len);
void		infer_block_starts(infer_rng *r, int n, int nblocks, int *starts);

/*
 * The sample quantile q (0..1) of v[0..n) by linear interpolation between
 * order statistics (Hyndman and Fan's type 7); sorts v.  NaN when n is 0.
 */
double		infer_quantile(double *v, int n, double q);

#endif
