/*
 * check_infer.c — t quantiles, Welch's interval on logarithms, the block
 * bootstrap's draws and its coverage on synthetic series (seeded: these
 * are computations, the same on every machine).
 */
#include "config.h"

#include "pgtempo/infer.h"

#include <math.h>
#include <stdlib.h>

#include "unit.h"

START_TEST(t_quantiles)
{
	/* two-sided 95 % critical values from any table of Student's t */
	static const struct
	{
		double		df;
		double		want;
	}			cases[] = {
		{1, 12.7062}, {2, 4.3027}, {3, 3.1824}, {5, 2.5706}, {10, 2.2281}, {30, 2.0423},
		{100, 1.9840}, {1e6, 1.9600},
		{2.5, 3.5747},		/* by numerical integration of the density */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		double		got = infer_t_quantile(0.975, cases[i].df);

		ck_assert_msg(fabs(got - cases[i].want) < 2e-4, "df %g: %f, want %f", cases[i].df, got,
					  cases[i].want);
		ck_assert_double_eq_tol(infer_t_quantile(0.025, cases[i].df), -got, 1e-9);
	}
	ck_assert_double_eq(infer_t_quantile(0.5, 7), 0);
	ck_assert_double_eq_tol(infer_t_quantile(0.995, 4), 4.6041, 2e-4);
}
END_TEST

START_TEST(moments_and_welch_df)
{
	static const struct
	{
		double		qa,
					dfa,
					qb,
					dfb;
		double		want;
	}			cases[] = {
		/* (qa + qb)^2 / (qa^2 / dfa + qb^2 / dfb) */
		{0.01 / 3, 2, 0.02 / 2, 1, 1.6842},
		{1, 9, 1, 9, 18},
		{1, 4, 0, 4, 4},
		{1, INFINITY, 1, 9, 36},	/* a normal side adds nothing below */
		{1, INFINITY, 1, INFINITY, INFINITY},
		{0, 3, 0, 5, 8},			/* no spread: the pooled df */
	};
	double		v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	double		mean,
				var;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		double		q[2] = {cases[i].qa, cases[i].qb},
					df[2] = {cases[i].dfa, cases[i].dfb};
		double		got = infer_welch_df(q, df, 2);

		if (isinf(cases[i].want))
			ck_assert_msg(isinf(got), "case %zu: %g", i, got);
		else
			ck_assert_msg(fabs(got - cases[i].want) < 1e-4, "case %zu: %g, want %g", i, got,
						  cases[i].want);
	}
	infer_mean_var(v, 8, &mean, &var);
	ck_assert_double_eq_tol(mean, 5, 1e-12);
	ck_assert_double_eq_tol(var, 32.0 / 7, 1e-12);
	infer_mean_var(v, 1, &mean, &var);
	ck_assert_double_eq(mean, 2);
	ck_assert(isnan(var));
	infer_mean_var(v, 0, &mean, &var);
	ck_assert(isnan(mean) && isnan(var));
}
END_TEST

START_TEST(welch_known_answer)
{
	/* logs of a: 0, 0.1, 0.2 (mean 0.1, var 0.01); of b: 0.3, 0.5 (mean 0.4, var 0.02) */
	double		a[] = {1, exp(0.1), exp(0.2)};
	double		b[] = {exp(0.3), exp(0.5)};
	infer_interval iv;
	double		se = sqrt(0.01 / 3 + 0.02 / 2);
	double		df = pow(0.01 / 3 + 0.02 / 2, 2) / (pow(0.01 / 3, 2) / 2 + pow(0.02 / 2, 2) / 1);
	double		t = infer_t_quantile(0.975, df);

	ck_assert(infer_welch_log(a, 3, b, 2, 0.95, &iv));
	ck_assert_double_eq_tol(iv.est, 0.3, 1e-12);
	ck_assert_double_eq_tol(iv.lo, 0.3 - t * se, 1e-9);
	ck_assert_double_eq_tol(iv.hi, 0.3 + t * se, 1e-9);
	/* the same values on both sides: the interval is centred on no change */
	ck_assert(infer_welch_log(a, 3, a, 3, 0.95, &iv));
	ck_assert_double_eq_tol(iv.est, 0, 1e-12);
	ck_assert_double_eq_tol(iv.lo, -iv.hi, 1e-12);
	/* one run against three: the three's spread for both, df 2 */
	ck_assert(infer_welch_log(b, 1, a, 3, 0.95, &iv));
	ck_assert_double_eq_tol(iv.hi - iv.est, infer_t_quantile(0.975, 2) * sqrt(0.01 * (1 + 1.0 / 3)),
							1e-9);
	/* too little to go on */
	ck_assert(!infer_welch_log(a, 1, b, 1, 0.95, &iv));
	ck_assert(!infer_welch_log(a, 0, b, 2, 0.95, &iv));
	b[0] = 0;
	ck_assert(!infer_welch_log(a, 3, b, 2, 0.95, &iv));
}
END_TEST

START_TEST(blocks_and_quantiles)
{
	static const int lengths[][2] = {{1, 1}, {7, 2}, {20, 3}, {60, 4}, {100, 5}, {3600, 15}};
	double		v[] = {5, 1, 4, 2, 3};
	infer_rng	r1,
				r2;
	int			s1[16],
				s2[16];

	for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++)
		ck_assert_int_eq(infer_block_length(lengths[i][0]), lengths[i][1]);
	ck_assert_int_eq(infer_block_count(60, 4), 15);
	/* the AR(1) rule: no correlation, the n^(1/3) floor; 0.6, (150)^(1/3) 1.875^(2/3); capped at n/3 */
	ck_assert_int_eq(infer_block_length_rho(100, 0), 5);
	ck_assert_int_eq(infer_block_length_rho(100, 0.6), 8);
	ck_assert_int_eq(infer_block_length_rho(30, 0.99), 10);
	ck_assert_int_eq(infer_block_length_rho(2, 0.9), 1);
	{
		double		alt[] = {1, -1, 1, -1, 1, -1, 1, -1};
		double		flat[] = {3, 3, 3, 3};
		double		ramp[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

		ck_assert_double_eq_tol(infer_lag1(alt, 8), -7.0 / 8, 1e-12);
		ck_assert_double_eq(infer_lag1(flat, 4), 0);
		ck_assert(infer_lag1(ramp, 10) > 0.6);
	}
	ck_assert_int_eq(infer_block_count(61, 4), 16);
	ck_assert_double_eq(infer_quantile(v, 5, 0.5), 3);
	ck_assert_double_eq(infer_quantile(v, 5, 0), 1);
	ck_assert_double_eq(infer_quantile(v, 5, 1), 5);
	ck_assert_double_eq_tol(infer_quantile(v, 5, 0.1), 1.4, 1e-12);
	ck_assert(isnan(infer_quantile(v, 0, 0.5)));
	/* seeded: the same draws, all in range */
	infer_rng_seed(&r1, 42);
	infer_rng_seed(&r2, 42);
	infer_block_starts(&r1, 10, 16, s1);
	infer_block_starts(&r2, 10, 16, s2);
	for (int i = 0; i < 16; i++)
	{
		ck_assert_int_eq(s1[i], s2[i]);
		ck_assert(s1[i] >= 0 && s1[i] < 10);
	}
}
END_TEST

/* An AR(1) series around mean mu: neighbours correlated by phi, as a run's seconds are. */
static void
ar1(infer_rng *r, double *x, int n, double mu, double phi, double sd)
{
	double		e = 0;

	for (int i = 0; i < n; i++)
	{
		/* a sum of 12 uniforms is close enough to a normal for this */
		double		z = -6;

		for (int k = 0; k < 12; k++)
			z += (double) (infer_rng_next(r) >> 11) / 9007199254740992.0;
		e = phi * e + sqrt(1 - phi * phi) * sd * z;
		x[i] = mu + e;
	}
}

/* The block bootstrap interval of log(mean(b) / mean(a)), each side resampled on its own. */
static infer_interval
mbb_ratio(infer_rng *r, const double *a, const double *b, int n, int nboot)
{
	int			len = infer_block_length(n),
				nb = infer_block_count(n, len);
	int		   *starts = malloc(sizeof(int) * (size_t) nb);
	double	   *rep = malloc(sizeof(double) * (size_t) nboot);
	double		ma = 0,
				mb = 0;
	infer_interval iv;

	for (int i = 0; i < n; i++)
	{
		ma += a[i];
		mb += b[i];
	}
	for (int k = 0; k < nboot; k++)
	{
		double		sum[2] = {0, 0};

		for (int side = 0; side < 2; side++)
		{
			const double *x = side == 0 ? a : b;
			int			got = 0;

			infer_block_starts(r, n, nb, starts);
			for (int j = 0; j < nb && got < n; j++)
				for (int t = 0; t < len && got < n; t++, got++)
					sum[side] += x[(starts[j] + t) % n];
		}
		rep[k] = log(sum[1] / sum[0]);
	}
	iv.est = log(mb / ma);
	iv.lo = infer_quantile(rep, nboot, 0.025);
	iv.hi = infer_quantile(rep, nboot, 0.975);
	free(starts);
	free(rep);
	return iv;
}

START_TEST(block_bootstrap_coverage)
{
	/*
	 * 300 pairs of correlated series (phi 0.5, 120 values) whose means
	 * differ by 5 %: the 95 % interval must hold the true log ratio about
	 * 95 % of the time.  The block bootstrap is known to run a little
	 * short on series this long, hence the tolerance.
	 */
	enum
	{
		PAIRS = 300, N = 120, B = 400
	};
	double		a[N],
				b[N];
	infer_rng	r;
	int			covered = 0;
	double		truth = log(1.05);

	infer_rng_seed(&r, 20261128);
	for (int p = 0; p < PAIRS; p++)
	{
		infer_interval iv;

		ar1(&r, a, N, 1000, 0.5, 50);
		ar1(&r, b, N, 1050, 0.5, 50);
		iv = mbb_ratio(&r, a, b, N, B);
		covered += iv.lo <= truth && truth <= iv.hi;
	}
	ck_assert_msg(covered >= PAIRS * 0.86 && covered <= PAIRS * 0.99,
				  "covered %d of %d", covered, PAIRS);
}
END_TEST

/*
 * Batch means by hand: 6 values in 3 batches of 2 and in 2 of 3, a gap
 * (x = 0) left out, too few batches, and uneven batches (7 in 3: 3, 2, 2).
 */
START_TEST(ratio_batches)
{
	const double y[] = {1, 3, 2, 2, 5, 5},
				x[] = {1, 1, 1, 1, 1, 1};
	const double yg[] = {1, 3, 9, 2, 2, 5, 5},
				xg[] = {1, 1, 0, 1, 1, 1, 1};
	infer_ratio r;

	/* est 3; residual sums -2, -2, 4: se sqrt(24 * 3 / 2) / 6 = 1, df 2 */
	ck_assert(infer_ratio_batches(y, x, 6, 3, &r));
	ck_assert_double_eq_tol(r.est, 3, 1e-12);
	ck_assert_double_eq_tol(r.se, 1, 1e-12);
	ck_assert_double_eq(r.df, 2);
	ck_assert_int_eq(r.n, 6);
	/* residual sums -3, 3: se sqrt(18 * 2) / 6 = 1, df 1 */
	ck_assert(infer_ratio_batches(y, x, 6, 2, &r));
	ck_assert_double_eq_tol(r.se, 1, 1e-12);
	ck_assert_double_eq(r.df, 1);
	/* the gap is not a value: the same batches */
	ck_assert(infer_ratio_batches(yg, xg, 7, 3, &r));
	ck_assert_double_eq_tol(r.est, 3, 1e-12);
	ck_assert_double_eq_tol(r.se, 1, 1e-12);
	/* one batch, or more batches than values: no standard error */
	ck_assert(infer_ratio_batches(y, x, 6, 1, &r));
	ck_assert(isnan(r.se) && isnan(r.df));
	ck_assert(infer_ratio_batches(y, x, 6, 7, &r));
	ck_assert(isnan(r.se));
	/* no value with a weight */
	ck_assert(!infer_ratio_batches(y, (const double[6]) {0}, 6, 3, &r));
	/* 7 values in 3 batches: 3, 2, 2 (the first floor(j 3 / 7)): est 4, residuals -3-1+0, -2-2, +1+7 */
	{
		const double y7[] = {1, 3, 4, 2, 2, 5, 11};

		ck_assert(infer_ratio_batches(y7, (const double[7]) {1, 1, 1, 1, 1, 1, 1}, 7, 3, &r));
		ck_assert_double_eq_tol(r.est, 4, 1e-12);
		ck_assert_double_eq_tol(r.se, sqrt((16.0 + 16 + 64) * 3 / 2) / 7, 1e-12);
	}
}
END_TEST

static Suite *
infer_suite(void)
{
	Suite	   *s = suite_create("infer");
	TCase	   *tc = tcase_create("infer");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_quantiles);
	tcase_add_test(tc, moments_and_welch_df);
	tcase_add_test(tc, welch_known_answer);
	tcase_add_test(tc, blocks_and_quantiles);
	tcase_add_test(tc, block_bootstrap_coverage);
	tcase_add_test(tc, ratio_batches);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(infer_suite());
}
