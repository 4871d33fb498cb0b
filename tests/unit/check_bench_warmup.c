/*
 * check_bench_warmup.c — --warmup's values and --warmup=auto's
 * levelling-off test on synthetic one-second series: a ramp then a
 * plateau ends in the plateau, noise at a level ends as soon as the
 * window is full, a steady ramp or a rise in latency never ends (the run
 * then stops at the maximum), a second without transactions is no level.
 */
#include "config.h"

#include "results/warmup.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "unit.h"

START_TEST(parse_values)
{
	static const struct
	{
		const char *arg;
		bool		ok;
		warmup_mode mode;
		int			seconds;
	}			cases[] = {
		{"10", true, WARMUP_FIXED, 10},
		{" 3 ", true, WARMUP_FIXED, 3},
		{"0", true, WARMUP_NONE, 0},
		{"86400", true, WARMUP_FIXED, 86400},
		{"auto", true, WARMUP_AUTO, WARMUP_AUTO_MAX_S},
		{"auto:1", true, WARMUP_AUTO, 1},
		{"auto:120", true, WARMUP_AUTO, 120},
		{"-1", false},
		{"x", false},
		{"", false},
		{"1.5", false},
		{"10s", false},
		{"86401", false},
		{"auto:0", false},
		{"auto:", false},
		{"auto:-5", false},
		{"auto:x", false},
		{"autox", false},
		{"AUTO", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		warmup_mode mode = WARMUP_NONE;
		int			seconds = -7;
		bool		ok;
		char	   *err;
		char		want[128];

		unit_stderr_begin();
		ok = warmup_parse(cases[i].arg, &mode, &seconds);
		err = unit_stderr_end();
		ck_assert_msg(ok == cases[i].ok, "\"%s\": %d", cases[i].arg, ok);
		if (ok)
		{
			ck_assert_int_eq(mode, cases[i].mode);
			ck_assert_int_eq(seconds, cases[i].seconds);
			ck_assert_str_eq(err, "");
		}
		else
		{
			snprintf(want, sizeof(want),
					 "pgtempo-bench: error: invalid value \"%s\" for option --warmup\n",
					 cases[i].arg);
			ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "\"%s\": %s", cases[i].arg, err);
		}
		free(err);
	}
}
END_TEST

START_TEST(trend_values)
{
	static const struct
	{
		double		v[5];
		double		want;
	}			cases[] = {
		{{100, 100, 100, 100, 100}, 0},
		/* a line from 90 to 110: 20 across the window, of a mean of 100 */
		{{90, 95, 100, 105, 110}, 0.2},
		{{110, 105, 100, 95, 90}, 0.2},
		/* one outlier in the middle moves no line */
		{{100, 100, 150, 100, 100}, 0},
		/* one at the end moves it by a fifth of itself: slope 10, span 4, mean 110 */
		{{100, 100, 100, 100, 150}, 40.0 / 110},
		{{0, 0, 0, 0, 0}, INFINITY},
		{{100, NAN, 100, 100, 100}, INFINITY},
		{{-1, -1, -1, -1, -1}, INFINITY},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		double		got = warmup_trend(cases[i].v, 5);

		if (isinf(cases[i].want))
			ck_assert_msg(isinf(got), "case %zu: %g", i, got);
		else
			ck_assert_msg(fabs(got - cases[i].want) < 1e-12, "case %zu: %g, want %g", i, got,
						  cases[i].want);
	}
}
END_TEST

/* A small deterministic noise in [-1, 1] (a linear congruential generator). */
static double
noise(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return ((double) ((*state >> 8) & 0xffff) / 32767.5) - 1.0;
}

/*
 * Feed n seconds of tps(t) and latency(t) (t from 1) and return the
 * second at which the detector said "levelled off", or 0 if it never did.
 */
static int
levels_at(int n, double (*tps) (int, unsigned *), double (*lat) (int, unsigned *))
{
	warmup_detector d;
	unsigned	st = 12345;

	warmup_detector_init(&d);
	for (int t = 1; t <= n; t++)
	{
		double		x = tps(t, &st);
		double		y = lat(t, &st);

		if (warmup_detector_add(&d, x, y))
			return t;
	}
	return 0;
}

/* tps ramps from 200 to 1000 over 10 s, then holds with 2 % noise */
static double
ramp_plateau_tps(int t, unsigned *st)
{
	return t <= 10 ? 200 + 80.0 * t : 1000 * (1 + 0.02 * noise(st));
}

/* latency falls from 40 ms to 8 ms over the same ramp, then holds with 3 % noise */
static double
ramp_plateau_lat(int t, unsigned *st)
{
	return t <= 10 ? 40 - 3.2 * t : 8 * (1 + 0.03 * noise(st));
}

static double
level_tps(int t, unsigned *st)
{
	(void) t;
	return 5000 * (1 + 0.08 * noise(st));
}

static double
level_lat(int t, unsigned *st)
{
	(void) t;
	return 1.6 * (1 + 0.08 * noise(st));
}

/* a steady ramp: 5 % more tps every second, for ever */
static double
steady_ramp_tps(int t, unsigned *st)
{
	(void) st;
	return 100 * pow(1.05, t);
}

/* latency that keeps rising by 4 % a second while tps holds */
static double
rising_lat(int t, unsigned *st)
{
	(void) st;
	return 2 * pow(1.04, t);
}

/* long transactions: one second in two sees none end */
static double
gappy_tps(int t, unsigned *st)
{
	(void) st;
	return t % 2 ? 1 : 0;
}

static double
gappy_lat(int t, unsigned *st)
{
	(void) st;
	return t % 2 ? 1500 : NAN;
}

START_TEST(detector_series)
{
	int			t;

	/* the ramp ends at 10 s: the first window wholly on the plateau ends at 15 s */
	t = levels_at(60, ramp_plateau_tps, ramp_plateau_lat);
	ck_assert_msg(t > 10 && t <= 15, "ramp then plateau: %d", t);
	/* noise at a level: as soon as the window is full */
	ck_assert_int_eq(levels_at(60, level_tps, level_lat), WARMUP_AUTO_WINDOW);
	/* no level: the maximum decides */
	ck_assert_int_eq(levels_at(120, steady_ramp_tps, level_lat), 0);
	ck_assert_int_eq(levels_at(120, level_tps, rising_lat), 0);
	ck_assert_int_eq(levels_at(120, gappy_tps, gappy_lat), 0);
}
END_TEST

/* A window that levelled off and then ramps again stops being level. */
START_TEST(detector_window_slides)
{
	warmup_detector d;

	warmup_detector_init(&d);
	for (int i = 0; i < 4; i++)
		ck_assert(!warmup_detector_add(&d, 100, 10));
	ck_assert(warmup_detector_add(&d, 100, 10));
	ck_assert(warmup_detector_add(&d, 100, 10));
	ck_assert(!warmup_detector_add(&d, 200, 10));
	ck_assert_int_eq(d.n, WARMUP_AUTO_WINDOW);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("bench_warmup");
	TCase	   *tc = tcase_create("warmup");

	msg_set_progname("pgtempo-bench");
	tcase_add_test(tc, parse_values);
	tcase_add_test(tc, trend_values);
	tcase_add_test(tc, detector_series);
	tcase_add_test(tc, detector_window_slides);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
