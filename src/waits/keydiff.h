/*
 * keydiff.h — keyed estimates in two windows turned into ranked changes:
 * what changed between a baseline and a window, and whether the change is
 * more than the estimates' noise.
 *
 * A table's rows are keys (a wait event, a --by group, a head blocker)
 * with each window's estimate: a mean (average active sessions), its
 * standard error and degrees of freedom.  A window's standard error comes
 * from batch means: its slices in about sqrt(n) runs of neighbours, whose
 * sums are near enough independent (a blocking episode or a drift of the
 * machine spans several slices, not several batches), with the batches
 * less one as degrees of freedom; a window of fewer than
 * KEYDIFF_MIN_SLICES slices has no bound.  A baseline of several
 * windows (keydiff_est_pool) adds the spread between its windows' means
 * where it is more than their own errors say.  The change is new - base;
 * its bound is a t quantile times the combined standard error, with
 * Welch-Satterthwaite's degrees of freedom.  The bounds hold for the
 * whole family of comparisons at once (Bonferroni: each at level
 * 1 - (1 - level) / family), so a report of many events flags a change
 * that is noise with a probability of at most 1 - level, not that much
 * per event.  A change within its bound is not flagged.
 *
 * Any keyed table plugs in the same way: fill keydiff_row.base and .new
 * (keydiff_est_series for a series of counts, keydiff_est_bound for an
 * estimate that comes with a 95 % bound), then keydiff_judge and
 * keydiff_sort (baseline.c does both for each of its tables, and
 * baselineout.c prints them).
 */
#ifndef PGTEMPO_WAITS_KEYDIFF_H
#define PGTEMPO_WAITS_KEYDIFF_H

#include <stdbool.h>

/* The level of the bounds, for the whole family of comparisons of a report. */
#define KEYDIFF_LEVEL 0.95

/*
 * The fewest slices a window's bound is made from: 3 batches of 4 (fewer
 * or shorter batches flag more than the level says on windows of
 * blocking episodes: check_waits_keydiff).
 */
#define KEYDIFF_MIN_SLICES 12

/* The verdict of a row whose windows have too few slices for a bound. */
#define KEYDIFF_TOO_FEW "too few slices for a bound"

/* One window's estimate of a key. */
typedef struct keydiff_est
{
	double		mean;			/* average active sessions (or any rate) */
	double		se;				/* its standard error; 0 for a key not seen */
	double		df;				/* degrees of freedom of se; INFINITY: a normal bound */
	bool		few;			/* too few slices for a bound (se and df NaN) */
	double		between;		/* a baseline of several windows: the variance between
								 * windows beyond their own errors (0: none shown or one
								 * window) ... */
	double		between_df;		/* ... and its degrees of freedom (windows - 1) */
	int			windows;		/* the windows pooled: 1 for one */
} keydiff_est;

/* One key of a table, compared. */
typedef struct keydiff_row
{
	int			key;			/* the caller's index of the key */
	keydiff_est base;
	keydiff_est new;
	double		change;			/* new - base */
	double		pct;			/* change / base in %; NaN when base is 0 */
	double		bound;			/* the change's bound at the family's level; NaN: too few slices */
	bool		flagged;		/* |change| > bound */
	const char *verdict;		/* "higher", "lower", "no difference shown", KEYDIFF_TOO_FEW */
} keydiff_row;

/*
 * The estimate from a series of n slices: y[i] counts (samples of the key)
 * and x[i] weights (sampling ticks), the mean sum(y) / sum(x) with its
 * standard error by batch means (infer_ratio_batches: floor(sqrt(n))
 * batches of neighbouring slices, batches - 1 degrees of freedom), at
 * least the slices' AR(1) allowance (infer_ratio_series, then with its
 * degrees of freedom, at most the batches' and at least half of them) and floor_se (the sampling's own error,
 * then with a normal bound).  Fewer slices with ticks than
 * KEYDIFF_MIN_SLICES: few, no standard error.
 */
void		keydiff_est_series(const double *y, const double *x, int n, double floor_se,
							   keydiff_est *out);

/*
 * A baseline of n windows' estimates as one: the mean of their means,
 * and its standard error from the spread between the means (n - 1
 * degrees of freedom) or from the windows' own errors, whichever is the
 * larger; the spread between them beyond their own errors is kept in
 * between, for the new window's side of the bound (a window of the same
 * load varies that much too).  Few when a window is.
 */
keydiff_est keydiff_est_pool(const keydiff_est *w, int n);

/* The estimate of a value given with a bound at level (0.95): a normal standard error. */
keydiff_est keydiff_est_bound(double mean, double bound, double level);

/*
 * The sampling's own standard error of a share k / ticks when k of n
 * backend samples were the key's (the profile's binomial bound,
 * wprof_error_s, without its 1.96), in active sessions.
 */
double		keydiff_sampling_se(double k, double n, double ticks);

/*
 * The bound of new - base at level over a family of comparisons (each at
 * 1 - (1 - level) / family); with a pooled baseline, its between-window
 * variance counts on the new side too.  NaN when a side has too few
 * slices.
 */
double		keydiff_bound(const keydiff_est *base, const keydiff_est *new, int family,
						  double level);

/* change, pct, bound, flagged and verdict of each row, for a family of that many comparisons. */
void		keydiff_judge(keydiff_row *rows, int n, int family, double level);

/* By the size of the change, largest first (ties: key order). */
void		keydiff_sort(keydiff_row *rows, int n);

#endif
