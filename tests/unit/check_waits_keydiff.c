/*
 * check_waits_keydiff.c — the comparison of keyed estimates in two
 * windows (keydiff.h) and the --fail-if limits' trip rule (baseline.h),
 * judged by their error rates on series of a known process: windows of
 * the same process are flagged at about the nominal rate (per comparison,
 * and for a family of comparisons), changes of a known size are flagged
 * and bounded.  Every series comes from a seeded generator: the rates
 * asserted are those of fixed draws, not of the machine.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/infer.h"

#include "baseline_int.h"
#include "gate_cases.h"
#include "keydiff.h"
#include "options.h"
#include "unit.h"

#define SLICES 180				/* an hour of 10 s profile lines, 2 lines a slice */
#define TICKS 2000.0			/* a slice's ticks: 20 s at 100 Hz */

static double
uniform(infer_rng *r)
{
	return ((double) (infer_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double
normal(infer_rng *r)
{
	/* Box-Muller */
	return sqrt(-2 * log(uniform(r))) * cos(2 * M_PI * uniform(r));
}

/* A Poisson count of mean lambda: exact below 30, the normal approximation above. */
static double
poisson(infer_rng *r, double lambda)
{
	double		l = exp(-lambda),
				p = 1;
	int			k = 0;

	if (lambda >= 30)
		return fmax(0, round(lambda + sqrt(lambda) * normal(r)));
	do
	{
		k++;
		p *= uniform(r);
	} while (p > l);
	return k - 1;
}

/*
 * A window of a key whose active sessions are aas on average: each
 * slice's count is Poisson of aas * TICKS times a level that wanders as
 * an AR(1) process (rho, relative spread sd; 0: a steady rate).
 */
static void
window(infer_rng *r, double aas, double rho, double sd, double *y, double *x)
{
	double		u = sd * normal(r);

	for (int i = 0; i < SLICES; i++)
	{
		u = rho * u + sd * sqrt(1 - rho * rho) * normal(r);
		x[i] = TICKS;
		y[i] = poisson(r, aas * TICKS * exp(u - sd * sd / 2));
	}
}

/* The estimate of a simulated window (the sampling's floor as baseline.c sets it). */
static keydiff_est
est_of(const double *y, const double *x, double total_samples)
{
	double		k = 0,
				t = 0;
	keydiff_est e;

	for (int i = 0; i < SLICES; i++)
	{
		k += y[i];
		t += x[i];
	}
	keydiff_est_series(y, x, SLICES, keydiff_sampling_se(k, total_samples, t), &e);
	return e;
}

/*
 * Of trials pairs of windows of nkeys keys (aas each, the new window's
 * first key shifted by delta), the share of keys flagged (per comparison)
 * and of trials with any key flagged (family-wise), the family being the
 * nkeys; *hit: the share of trials whose first key was flagged.
 */
static void
flag_rates(uint64_t seed, int trials, int nkeys, double aas, double delta, double rho, double sd,
		   double *per_key, double *any, double *hit)
{
	infer_rng	r;
	double		y[2][SLICES],
				x[2][SLICES];
	keydiff_row *rows = calloc((size_t) nkeys, sizeof(keydiff_row));
	int			flagged = 0,
				trials_any = 0,
				first = 0;

	infer_rng_seed(&r, seed);
	for (int t = 0; t < trials; t++)
	{
		bool		one = false;

		for (int k = 0; k < nkeys; k++)
		{
			window(&r, aas, rho, sd, y[0], x[0]);
			window(&r, aas + (k == 0 ? delta : 0), rho, sd, y[1], x[1]);
			rows[k].key = k;
			rows[k].base = est_of(y[0], x[0], 4 * TICKS * SLICES);
			rows[k].new = est_of(y[1], x[1], 4 * TICKS * SLICES);
		}
		keydiff_judge(rows, nkeys, nkeys, KEYDIFF_LEVEL);
		for (int k = 0; k < nkeys; k++)
		{
			flagged += rows[k].flagged && (k > 0 || delta == 0);
			one = one || rows[k].flagged;
		}
		trials_any += one;
		first += rows[0].flagged;
	}
	*per_key = (double) flagged / (trials * (delta == 0 ? nkeys : nkeys - 1));
	*any = (double) trials_any / trials;
	*hit = (double) first / trials;
	free(rows);
}

/* Same against same, one comparison: flagged at about 5 %, steady or wandering rates. */
START_TEST(null_rate_one)
{
	static const struct
	{
		double		aas;
		double		rho;
		double		sd;
	}			cases[] = {
		{0.5, 0, 0},			/* steady: the sampling's noise only */
		{0.05, 0, 0},			/* a rare event: 100 samples a slice */
		{0.5, 0.5, 0.2},		/* a wandering load, neighbours alike */
		{2.0, 0.8, 0.3},		/* strongly alike neighbours: the AR(1) allowance matters */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		double		per_key,
					any,
					hit;

		flag_rates(1000 + i, 2000, 1, cases[i].aas, 0, cases[i].rho, cases[i].sd, &per_key, &any,
				   &hit);
		ck_assert_msg(per_key >= 0.025 && per_key <= 0.08,
					  "case %zu: flagged %.3f of same-vs-same comparisons, want about 0.05", i,
					  per_key);
	}
}
END_TEST

/*
 * 20 events compared at once: the chance of any flag is at most about 5 %,
 * not 1 - 0.95^20 = 64 % (about 1 %: a window's error is the larger of
 * its batch means' and its AR(1) allowance, with the fewer degrees of
 * freedom), and not 0.
 */
START_TEST(null_rate_family)
{
	double		per_key,
				any,
				hit;

	flag_rates(77, 1000, 20, 0.2, 0, 0.5, 0.2, &per_key, &any, &hit);
	ck_assert_msg(any >= 0.004 && any <= 0.08, "any of 20 flagged in %.3f of the trials", any);
	ck_assert_msg(per_key <= 0.006, "each flagged at %.4f", per_key);
}
END_TEST

/*
 * A change of known size among 20 events: flagged when it is several
 * bounds' worth, seldom when it is a small part of one, and the others
 * stay unflagged.
 */
START_TEST(injected_change)
{
	double		per_key,
				any,
				hit;

	/* the noise of 0.2 sessions over 180 slices of 2000 ticks, wandering: about 0.01 */
	flag_rates(5, 500, 20, 0.2, 0.1, 0.5, 0.2, &per_key, &any, &hit);
	ck_assert_msg(hit >= 0.95, "a change of +0.1 flagged in %.3f of the trials", hit);
	ck_assert_msg(per_key <= 0.006, "the unchanged ones flagged at %.4f", per_key);
	flag_rates(6, 500, 20, 0.2, 0.003, 0.5, 0.2, &per_key, &any, &hit);
	ck_assert_msg(hit <= 0.15, "a change of +0.003 flagged in %.3f of the trials", hit);
	/* a drop, from a rare event to nothing */
	flag_rates(7, 500, 5, 0.05, -0.05, 0, 0, &per_key, &any, &hit);
	ck_assert_msg(hit >= 0.99, "a drop to nothing flagged in %.3f of the trials", hit);
}
END_TEST

/* The estimate of a window covers the truth at about the level asked (one comparison). */
START_TEST(change_covered)
{
	infer_rng	r;
	double		y[2][SLICES],
				x[2][SLICES];
	int			covered = 0;

	infer_rng_seed(&r, 99);
	for (int t = 0; t < 1000; t++)
	{
		keydiff_row row = {0};

		window(&r, 1.0, 0.6, 0.25, y[0], x[0]);
		window(&r, 1.5, 0.6, 0.25, y[1], x[1]);
		row.base = est_of(y[0], x[0], 4 * TICKS * SLICES);
		row.new = est_of(y[1], x[1], 4 * TICKS * SLICES);
		keydiff_judge(&row, 1, 1, KEYDIFF_LEVEL);
		covered += fabs(row.change - 0.5) <= row.bound;
	}
	ck_assert_msg(covered >= 920 && covered <= 985, "covered %d of 1000", covered);
}
END_TEST

/* Hand-made rows: the bound, the flag, the verdict, the order. */
START_TEST(judge_and_sort)
{
	static const struct
	{
		double		base,
					base_se,
					new,
					new_se;
		bool		flagged;
		const char *verdict;
	}			cases[] = {
		{1.0, 0.1, 1.5, 0.1, true, "higher"},	/* 0.5 > 1.96 * 0.141 */
		{1.0, 0.1, 1.2, 0.1, false, "no difference shown"},	/* 0.2 < 0.277 */
		{1.0, 0.1, 0.5, 0.1, true, "lower"},
		{0.0, 0.0, 0.0, 0.0, false, "no difference shown"},	/* nothing on either side */
		{0.0, 0.0, 0.3, 0.0, true, "higher"},	/* no noise at all: any change */
	};
	keydiff_row rows[5];

	memset(rows, 0, sizeof(rows));
	for (int i = 0; i < 5; i++)
	{
		rows[i].key = i;
		rows[i].base = (keydiff_est) {cases[i].base, cases[i].base_se, INFINITY};
		rows[i].new = (keydiff_est) {cases[i].new, cases[i].new_se, INFINITY};
	}
	keydiff_judge(rows, 5, 1, 0.95);
	for (int i = 0; i < 5; i++)
	{
		ck_assert_msg(rows[i].flagged == cases[i].flagged, "case %d", i);
		ck_assert_str_eq(rows[i].verdict, cases[i].verdict);
	}
	ck_assert_double_eq_tol(rows[0].bound, 1.959964 * sqrt(0.02), 1e-5);
	ck_assert(isnan(rows[4].pct));
	ck_assert_double_eq_tol(rows[0].pct, 50, 1e-9);
	/* two comparisons together: each bound wider */
	keydiff_judge(rows, 1, 2, 0.95);
	ck_assert_double_eq_tol(rows[0].bound, 2.241403 * sqrt(0.02), 1e-5);
	keydiff_judge(rows, 5, 1, 0.95);
	keydiff_sort(rows, 5);
	ck_assert_int_eq(rows[0].key, 0);	/* +0.5, then -0.5 (ties in key order) */
	ck_assert_int_eq(rows[1].key, 2);
	ck_assert_int_eq(rows[2].key, 4);
	ck_assert_int_eq(rows[3].key, 1);
	ck_assert_int_eq(rows[4].key, 3);
	/* a bound given at 95 %: the standard error back */
	ck_assert_double_eq_tol(keydiff_est_bound(3, 1.959964, 0.95).se, 1.0, 1e-5);
	/* the profile's binomial bound, without its 1.96, per tick */
	ck_assert_double_eq_tol(keydiff_sampling_se(100, 400, 1000), sqrt(75.0) / 1000, 1e-12);
	ck_assert_double_eq(keydiff_sampling_se(5, 0, 1000), 0);
}
END_TEST

/*
 * A limit trips when the whole interval of the change (change +- bound)
 * lies beyond it, in its unit and direction (the gate's rule, as
 * pgtempo-bench --compare judges it).
 */
START_TEST(limit_trips)
{
	static const struct
	{
		const char *limit;
		double		base,
					change,
					bound;
		bool		tripped;
	}			cases[] = {
		{"Lock:+0.5", 1.0, 0.6, 0.05, true},
		{"Lock:+0.5", 1.0, 0.6, 0.2, false},	/* beyond the limit, but not its interval */
		{"Lock:+0.5", 1.0, 0.6, 0.7, false},	/* within the noise */
		{"Lock:+0.5", 1.0, 0.4, 0.1, false},	/* real, but within the limit */
		{"Lock:+0.5", 1.0, -0.6, 0.1, false},	/* a drop does not pass a rise's limit */
		{"Lock:-0.5", 1.0, -0.6, 0.05, true},
		{"Lock<-0.5", 1.0, -0.6, 0.05, true},
		{"total:+50%", 1.0, 0.6, 0.05, true},	/* +55 % at least */
		{"total:+50%", 1.0, 0.6, 0.2, false},
		{"total>1.5x", 1.0, 0.6, 0.05, true},
		{"total:+50%", 1.0, 0.4, 0.1, false},
		{"total:-10%", 1.0, -0.2, 0.05, true},
		{"total:+50%", 0.0, 0.1, 0.05, true},	/* from nothing: any shown rise is beyond a % */
		{"total:+50%", 0.0, 0.1, 0.2, false},
		{"total:-10%", 0.0, 0.1, 0.05, false},
		{"total:+0", 1.0, 0.1, 0.05, true},	/* a limit of 0: the verdict "higher" */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		waits_settings s = WAITS_SETTINGS_INIT;
		keydiff_row r = {0};
		char	   *cause = NULL;

		ck_assert_msg(options_parse_fail_if(cases[i].limit, &s, &cause), "%s", cause);
		r.base.mean = cases[i].base;
		r.new.mean = cases[i].base + cases[i].change;
		keydiff_judge(&r, 1, 1, 0.95);
		r.bound = cases[i].bound;
		ck_assert_msg(baseline_limit_tripped(&s.fail_if[0], &r) == cases[i].tripped, "case %zu", i);
	}
}
END_TEST

/* The cases both tools' judges decide alike (gate_cases.h), as a change and its bound. */
START_TEST(shared_gate_cases)
{
	for (size_t i = 0; i < sizeof(gate_cases) / sizeof(gate_cases[0]); i++)
	{
		waits_settings s = WAITS_SETTINGS_INIT;
		keydiff_row r = {0};
		char	   *cause = NULL;
		char		list[64];
		double		base = gate_cases[i].base;

		snprintf(list, sizeof(list), "total%s", gate_cases[i].limit);
		ck_assert_msg(options_parse_fail_if(list, &s, &cause), "%s: %s", list, cause);
		r.base.mean = base;
		r.change = base * (gate_cases[i].lo_pct + gate_cases[i].hi_pct) / 200;
		r.new.mean = base + r.change;
		r.bound = base * (gate_cases[i].hi_pct - gate_cases[i].lo_pct) / 200;
		ck_assert_msg(baseline_limit_tripped(&s.fail_if[0], &r) == gate_cases[i].trips,
					  "case %zu: %s", i, list);
	}
}
END_TEST

/*
 * A baseline of several windows pooled by hand: the spread between their
 * means when it is more than their own errors (n - 1 degrees of freedom,
 * the excess kept for the new window's side), else their own errors
 * (Welch-Satterthwaite); a window without a bound makes none.
 */
START_TEST(pool_windows)
{
	keydiff_est w[3] = {
		{1.0, 0.01, 10, false, 0, 0, 1},
		{1.2, 0.01, 10, false, 0, 0, 1},
		{1.4, 0.01, 10, false, 0, 0, 1},
	};
	keydiff_est p = keydiff_est_pool(w, 3),
				n = {1.2, 0.01, 10, false, 0, 0, 1};

	ck_assert_double_eq_tol(p.mean, 1.2, 1e-12);
	ck_assert_double_eq_tol(p.se, sqrt(0.04 / 3), 1e-12);
	ck_assert_double_eq(p.df, 2);
	ck_assert_double_eq_tol(p.between, 0.04 - 0.0001, 1e-12);
	ck_assert_double_eq(p.between_df, 2);
	ck_assert_int_eq(p.windows, 3);
	/* the bound: base, new and a window's between-window variance; Welch-Satterthwaite over them */
	{
		double		q[3] = {0.04 / 3, 0.0001, 0.0399},
					sum = q[0] + q[1] + q[2],
					df = sum * sum / (q[0] * q[0] / 2 + q[1] * q[1] / 10 + q[2] * q[2] / 2);

		ck_assert_double_eq_tol(keydiff_bound(&p, &n, 1, 0.95),
								infer_t_quantile(0.975, df) * sqrt(sum), 1e-9);
	}
	/* alike means: their own errors, 3 x 10 degrees of freedom */
	w[1].mean = w[2].mean = 1.0;
	p = keydiff_est_pool(w, 3);
	ck_assert_double_eq_tol(p.se, 0.01 / sqrt(3), 1e-12);
	ck_assert_double_eq_tol(p.df, 30, 1e-9);
	ck_assert_double_eq(p.between, 0);
	/* one window is itself; a window without a bound: none */
	p = keydiff_est_pool(w, 1);
	ck_assert(p.mean == w[0].mean && p.se == w[0].se && p.windows == 1);
	w[2].few = true;
	p = keydiff_est_pool(w, 3);
	ck_assert(p.few && isnan(keydiff_bound(&p, &n, 1, 0.95)));
}
END_TEST

/*
 * One session all through the new window and none in the baseline (60
 * slices whose samples follow the sampling's rate in steps): flagged.
 * Its slices move in steps, so their lag-1 estimate is pinned at 0.95,
 * whose AR(1) degrees of freedom (1) made the bound 12 sessions wide (2:
 * 1.1); at least half the batches' make it 0.53.
 */
START_TEST(steady_session_flagged)
{
	double		y[60],
				x[60],
				z[60] = {0};
	keydiff_row r = {0};

	/*
	 * the sampling's rate set anew every some seconds (--cost-budget):
	 * the slices' ticks, interpolated between health records, are even,
	 * the samples taken are not
	 */
	for (int i = 0; i < 60; i++)
	{
		x[i] = 93;
		y[i] = (i < 20 ? 100 : i < 35 ? 83 : i < 50 ? 91 : 100) - (i % 3 == 0);
	}
	keydiff_est_series(z, x, 60, 0, &r.base);
	keydiff_est_series(y, x, 60, keydiff_sampling_se(5500, 20000, 5500), &r.new);
	keydiff_judge(&r, 1, 15, KEYDIFF_LEVEL);
	ck_assert_msg(r.flagged && r.bound < 0.7, "one session from none: bound %.3f, %s", r.bound,
				  r.verdict);
	ck_assert_str_eq(r.verdict, "higher");
}
END_TEST

/* ---------------------------------------------------------------- a log of episodes */

/*
 * Same against same on series like a raw log's (1 s slices of 100 ticks)
 * of pgbench's steady load: ClientRead and CPU that wander (AR(1)), and
 * blocking that comes in episodes of several slices (a Markov chain in
 * and out of an episode, each episode's strength drawn anew), to HEADS
 * head blockers; the Lock wait is the blocked sessions, the total every
 * key's.  The family is judged as baseline.c judges it; the rate of pairs
 * with a row of a kind flagged must keep the promise (5 % for the family,
 * so for each kind), within a binomial margin.
 */
#define EP_TICKS 100.0
#define EP_MAX 60
#define HEADS 4
#define EP_EVENTS 3				/* ClientRead, CPU, Lock */

/* Samples per slice of each event [e][i] and head [h][i] of one window of n slices. */
static void
episodes_window(infer_rng *r, int n, double lock_extra, double *ev, double *hd, double *x)
{
	double		u[2] = {0.1 * normal(r), 0.1 * normal(r)};

	memset(hd, 0, sizeof(double) * HEADS * EP_MAX);
	for (int i = 0; i < n; i++)
	{
		x[i] = EP_TICKS;
		u[0] = 0.7 * u[0] + 0.1 * sqrt(1 - 0.49) * normal(r);
		u[1] = 0.7 * u[1] + 0.3 * sqrt(1 - 0.49) * normal(r);
		ev[0 * EP_MAX + i] = poisson(r, 2.2 * EP_TICKS * exp(u[0]));
		ev[1 * EP_MAX + i] = poisson(r, 0.15 * EP_TICKS * exp(u[1]));
		ev[2 * EP_MAX + i] = 0;
	}
	for (int h = 0; h < HEADS; h++)
	{
		bool		on = uniform(r) < 0.3;
		double		level = 0.5 * uniform(r);

		for (int i = 0; i < n; i++)
		{
			/* episodes of 4 slices on average, 30 % of the time */
			if (on ? uniform(r) < 0.25 : uniform(r) < 0.25 * 0.3 / 0.7)
			{
				on = !on;
				level = 0.1 + 0.9 * uniform(r);
			}
			hd[h * EP_MAX + i] = on ? poisson(r, level * EP_TICKS) : 0;
		}
	}
	/* an injected change: one more session blocked by head 0 all through the window */
	for (int i = 0; i < n && lock_extra > 0; i++)
		hd[i] += poisson(r, lock_extra * EP_TICKS);
	for (int h = 0; h < HEADS; h++)
		for (int i = 0; i < n; i++)
			ev[2 * EP_MAX + i] += hd[h * EP_MAX + i];
}

/* The estimate of a series of a window of n slices, with the sampling's floor (or the floor alone). */
static keydiff_est
ep_est(const double *y, const double *x, int n, double window_samples, bool floor_only)
{
	double		k = 0,
				t = 0;
	keydiff_est e;
	double		floor_se;

	for (int i = 0; i < n; i++)
	{
		k += y[i];
		t += x[i];
	}
	floor_se = keydiff_sampling_se(k, window_samples, t);
	if (floor_only)
		return (keydiff_est) {k / t, floor_se, INFINITY, false, 0, 0, 1};
	keydiff_est_series(y, x, n, floor_se, &e);
	return e;
}

/*
 * Of trials pairs of windows of n slices, the share with an event, a head
 * and the total flagged (any[0..3)), and of rows without a bound
 * (*few); lock_extra injects a change into the new window's head 0 (and
 * so its Lock wait and total); floor_only: the sampling's error alone
 * (the old rule for heads).
 */
static void
episode_rates(uint64_t seed, int trials, int n, double lock_extra, bool floor_only, double *any,
			  double *few, double *hit)
{
	infer_rng	r;
	double		ev[2][EP_EVENTS * EP_MAX],
				hd[2][HEADS * EP_MAX],
				x[2][EP_MAX],
				tot[2][EP_MAX];
	keydiff_row rows[EP_EVENTS + HEADS + 1];
	int			counts[4] = {0},
				nofew = 0,
				hits = 0;

	infer_rng_seed(&r, seed);
	for (int t = 0; t < trials; t++)
	{
		double		samples[2] = {0, 0};

		for (int w = 0; w < 2; w++)
		{
			episodes_window(&r, n, w == 1 ? lock_extra : 0, ev[w], hd[w], x[w]);
			for (int i = 0; i < n; i++)
			{
				tot[w][i] = 0;
				for (int e = 0; e < EP_EVENTS; e++)
					tot[w][i] += ev[w][e * EP_MAX + i];
				samples[w] += tot[w][i];
			}
		}
		memset(rows, 0, sizeof(rows));
		for (int k = 0; k < EP_EVENTS + HEADS + 1; k++)
			for (int w = 0; w < 2; w++)
			{
				const double *y = k < EP_EVENTS ? &ev[w][k * EP_MAX] :
					k < EP_EVENTS + HEADS ? &hd[w][(k - EP_EVENTS) * EP_MAX] : tot[w];
				keydiff_est e = ep_est(y, x[w], n, samples[w], floor_only && k >= EP_EVENTS &&
									   k < EP_EVENTS + HEADS);

				rows[k].key = k;
				if (w == 0)
					rows[k].base = e;
				else
					rows[k].new = e;
			}
		keydiff_judge(rows, EP_EVENTS + HEADS + 1, EP_EVENTS + HEADS + 1, KEYDIFF_LEVEL);
		{
			bool		one = false;

			for (int k = 0; k < EP_EVENTS + HEADS + 1; k++)
				one = one || (rows[k].flagged && !(lock_extra > 0 && (k == 2 || k == EP_EVENTS || k == EP_EVENTS + HEADS)));
			counts[3] += one;
		}
		for (int kind = 0; kind < 3; kind++)
		{
			int			k0 = kind == 0 ? 0 : kind == 1 ? EP_EVENTS : EP_EVENTS + HEADS,
						k1 = kind == 0 ? EP_EVENTS : kind == 1 ? EP_EVENTS + HEADS : k0 + 1;
			bool		flagged = false;

			for (int k = k0; k < k1; k++)
				flagged = flagged || (rows[k].flagged && !(lock_extra > 0 && (k == 2 || k == EP_EVENTS || k == EP_EVENTS + HEADS)));
			counts[kind] += flagged;
		}
		for (int k = 0; k < EP_EVENTS + HEADS + 1; k++)
			nofew += strcmp(rows[k].verdict, KEYDIFF_TOO_FEW) == 0;
		hits += rows[EP_EVENTS].flagged && rows[EP_EVENTS].change > 0 && rows[2].flagged;
	}
	for (int kind = 0; kind < 4; kind++)
		any[kind] = (double) counts[kind] / trials;
	*few = (double) nofew / (trials * (EP_EVENTS + HEADS + 1));
	*hit = (double) hits / trials;
}

/* The promise and its binomial margin: above 5 % + 3.09 standard errors happens 1 time in 1000. */
static double
promise_limit(int trials)
{
	double		p = 1 - KEYDIFF_LEVEL;

	return p + 3.09 * sqrt(p * (1 - p) / trials);
}

/*
 * Same against same, episodes: each kind of row, and any row, keeps the
 * promise from 12 slices (the fewest with a bound) to 60; 5 have no bound.
 */
START_TEST(episodes_keep_promise)
{
	static const int slices[] = {12, 16, 20, 30, 60};
	static const char *const kind[] = {"events", "heads", "total", "any row"};
	const int	trials = 2000;

	for (size_t s = 0; s < sizeof(slices) / sizeof(slices[0]); s++)
	{
		double		any[4],
					few,
					hit;

		episode_rates(3400 + s, trials, slices[s], 0, false, any, &few, &hit);
		for (int k = 0; k < 4; k++)
			ck_assert_msg(any[k] <= promise_limit(trials),
						  "%d slices: %s flagged in %.3f of %d same-vs-same pairs, promised %.2f (limit %.3f)",
						  slices[s], kind[k], any[k], trials, 1 - KEYDIFF_LEVEL, promise_limit(trials));
		ck_assert_msg(few == 0, "%d slices: %.3f of the rows without a bound", slices[s], few);
	}
	{
		double		any[4],
					few,
					hit;

		episode_rates(3500, 200, 5, 0, false, any, &few, &hit);
		ck_assert_msg(few == 1 && any[0] == 0 && any[1] == 0 && any[2] == 0,
					  "5 slices: every row too few for a bound (%.3f)", few);
	}
}
END_TEST

/* The generator is hard: the heads' old bound (the sampling's error alone) breaks the promise. */
START_TEST(episodes_old_rule_fails)
{
	double		any[4],
				few,
				hit;
	const int	trials = 500;

	episode_rates(3600, trials, 60, 0, true, any, &few, &hit);
	ck_assert_msg(any[1] > promise_limit(trials),
				  "heads with the sampling's error alone flagged in only %.3f of the pairs", any[1]);
}
END_TEST

/* One more session blocked by a head all through the window: that head and the Lock wait flagged. */
START_TEST(episodes_injected)
{
	double		any[4],
				few,
				hit;

	episode_rates(3700, 500, 60, 2.0, false, any, &few, &hit);
	ck_assert_msg(hit >= 0.9, "60 slices: +2 blocked sessions flagged in %.3f of the pairs", hit);
	/* the other rows keep the promise meanwhile */
	ck_assert_msg(any[0] <= promise_limit(500) && any[1] <= promise_limit(500),
				  "60 slices: the unchanged rows flagged in %.3f, %.3f", any[0], any[1]);
	/* 20 slices are 4 batches (3 degrees of freedom): seen, not often (about 40 %) */
	episode_rates(3701, 500, 20, 2.0, false, any, &few, &hit);
	ck_assert_msg(hit >= 0.25, "20 slices: +2 blocked sessions flagged in %.3f of the pairs", hit);
}
END_TEST

static Suite *
keydiff_suite(void)
{
	Suite	   *s = suite_create("waits_keydiff");
	TCase	   *tc = tcase_create("keydiff");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, null_rate_one);
	tcase_add_test(tc, null_rate_family);
	tcase_add_test(tc, injected_change);
	tcase_add_test(tc, change_covered);
	tcase_add_test(tc, judge_and_sort);
	tcase_add_test(tc, limit_trips);
	tcase_add_test(tc, shared_gate_cases);
	tcase_add_test(tc, pool_windows);
	tcase_add_test(tc, steady_session_flagged);
	tcase_add_test(tc, episodes_keep_promise);
	tcase_add_test(tc, episodes_old_rule_fails);
	tcase_add_test(tc, episodes_injected);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(keydiff_suite());
}
