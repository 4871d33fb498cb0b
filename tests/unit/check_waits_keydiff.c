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

/* 20 events compared at once: the chance of any flag is about 5 %, not 1 - 0.95^20 = 64 %. */
START_TEST(null_rate_family)
{
	double		per_key,
				any,
				hit;

	flag_rates(77, 1000, 20, 0.2, 0, 0.5, 0.2, &per_key, &any, &hit);
	ck_assert_msg(any >= 0.02 && any <= 0.08, "any of 20 flagged in %.3f of the trials", any);
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
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(keydiff_suite());
}
