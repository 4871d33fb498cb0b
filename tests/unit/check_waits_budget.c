/*
 * check_waits_budget.c — the cost budget: the interval that keeps the
 * sampler's backend within its share of one CPU, lowered when a sample
 * costs more, raised again when it costs less, never changed for -i.
 */
#include "config.h"

#include "budget.h"

#include <stdlib.h>

#include "unit.h"

#define MS	NS_PER_MS

/* Table: a cost per sample at an interval, and the interval that fits 2 % of a CPU. */
START_TEST(fit_table)
{
	static const struct
	{
		double		cost_us;
		uint64_t	cur_ns;
		uint64_t	want;		/* ns */
	}			cases[] = {
		/* 8 sessions at 100/s: 1.4 % fits, nothing moves */
		{140, 10 * MS, 10 * MS},
		/* exactly the budget: still fits */
		{200, 10 * MS, 10 * MS},
		/* 1,000 sessions: 1.8 ms a sample is 18 %: 1.8 ms / 2 % * 1.1 = 99 ms */
		{1800, 10 * MS, 99 * MS},
		/* just over: lowered, with a tenth to spare, in whole ms (11.55 -> 12) */
		{210, 10 * MS, 12 * MS},
		/* already lowered and fitting: kept (the band between 1 and 1.25 holds still) */
		{1800, 99 * MS, 99 * MS},
		{1800, 110 * MS, 110 * MS},
		/* the cost went down (sessions went away): raised to take 4/5 of the budget */
		{900, 99 * MS, 57 * MS},	/* 900 us / 2 % * 1.25 = 56.25 ms -> 57 */
		{140, 99 * MS, 10 * MS},	/* never faster than asked for */
		/* a huge server: never slower than one sample a second */
		{50000, 10 * MS, 1000 * MS},
		{50000, 1000 * MS, 1000 * MS},
		/* unknown cost: nothing moves */
		{-1, 10 * MS, 10 * MS},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		uint64_t	got = budget_fit(0.02, 10 * MS, cases[i].cur_ns, cases[i].cost_us);

		ck_assert_msg(got == cases[i].want, "case %zu: cost %.0f us at %llu ns: got %llu, want %llu",
					  i, cases[i].cost_us, (unsigned long long) cases[i].cur_ns,
					  (unsigned long long) got, (unsigned long long) cases[i].want);
	}
	/* no budget: nothing moves */
	ck_assert_uint_eq(budget_fit(0, 10 * MS, 10 * MS, 1800), 10 * MS);
	ck_assert(budget_cpu_share(1800, 10 * MS) > 0.179 && budget_cpu_share(1800, 10 * MS) < 0.181);
}
END_TEST

/* A window: CPU seconds of the backend read at now, after samples; what the budget does. */
typedef struct step
{
	uint64_t	now_ns;
	double		cpu_s;
	uint64_t	samples;
	budget_change want;
	uint64_t	interval_ns;
} step;

/* Walk the steps through one budget. */
static void
walk(budget *b, const step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		budget_change ch = budget_update(b, steps[i].now_ns, steps[i].cpu_s, steps[i].samples);

		ck_assert_msg(ch == steps[i].want, "step %zu: change %d, want %d", i, (int) ch,
					  (int) steps[i].want);
		ck_assert_msg(b->interval_ns == steps[i].interval_ns, "step %zu: interval %llu, want %llu",
					  i, (unsigned long long) b->interval_ns,
					  (unsigned long long) steps[i].interval_ns);
	}
}

/* Sessions come (2 ms a sample) and go (0.14 ms): lowered at once, raised again. */
START_TEST(sessions_come_and_go)
{
	budget		b;
	static const step steps[] = {
		/* the first window is short, but needs its samples ... */
		{50 * MS, 0.010, 5, BUDGET_NONE, 10 * MS},
		/* ... and 20 ms of CPU time, measurable in clock ticks too */
		{100 * MS, 0.018, 10, BUDGET_NONE, 10 * MS},
		/* (looked at again a tenth of a second later, not at every sample) */
		{150 * MS, 0.030, 15, BUDGET_NONE, 10 * MS},
		{200 * MS, 0.040, 20, BUDGET_LOWERED, 110 * MS},
		/* then windows of a second: the same cost, nothing moves */
		{600 * MS, 0.060, 30, BUDGET_NONE, 110 * MS},
		{1200 * MS, 0.062, 31, BUDGET_NONE, 110 * MS},
		/* the sessions went away: 0.14 ms a sample, too little CPU for a window ... */
		{3200 * MS, 0.0634, 41, BUDGET_NONE, 110 * MS},
		/* ... until the window has lasted 10 s */
		{11200 * MS, 0.0746, 121, BUDGET_RAISED, 10 * MS},
		{12200 * MS, 0.0886, 221, BUDGET_NONE, 10 * MS},
	};

	budget_init(&b, 0.02, 10 * MS, false, BUDGET_WINDOW_NS);
	ck_assert(b.cost_us < 0);
	budget_mark(&b, 0, 0.0, 0);
	walk(&b, steps, sizeof(steps) / sizeof(steps[0]));
	ck_assert_int_eq(b.changes, 2);
	ck_assert_uint_eq(b.max_interval_ns, 110 * MS);
	ck_assert(b.max_cost_us > 1999 && b.max_cost_us < 2001);
	ck_assert(b.cost_us > 139 && b.cost_us < 141);
}
END_TEST

/* --cost-window=100ms: every window, and the longest wait for CPU time, a tenth as long. */
START_TEST(short_window)
{
	budget		b;
	static const step steps[] = {
		/* the first window is a tenth of 100 ms, with its samples and 20 ms of CPU */
		{5 * MS, 0.010, 5, BUDGET_NONE, 10 * MS},
		{10 * MS, 0.024, 12, BUDGET_LOWERED, 110 * MS},
		/* then windows of 100 ms: the sessions went away, too little CPU ... */
		{900 * MS, 0.025, 20, BUDGET_NONE, 110 * MS},
		/* ... until the window has lasted ten times 100 ms, not 10 s */
		{1011 * MS, 0.0254, 22, BUDGET_RAISED, 10 * MS},
	};

	budget_init(&b, 0.02, 10 * MS, false, 100 * MS);
	budget_mark(&b, 0, 0.0, 0);
	walk(&b, steps, sizeof(steps) / sizeof(steps[0]));
	ck_assert_int_eq(b.changes, 2);
}
END_TEST

/* -i: the user's rate is kept; over the budget is said, not acted on. */
START_TEST(user_interval_kept)
{
	budget		b;
	static const step steps[] = {
		{100 * MS, 0.024, 12, BUDGET_OVER, 10 * MS},
		{11100 * MS, 0.0254, 22, BUDGET_NONE, 10 * MS},
	};

	budget_init(&b, 0.02, 10 * MS, true, BUDGET_WINDOW_NS);
	budget_mark(&b, 0, 0.0, 0);
	walk(&b, steps, sizeof(steps) / sizeof(steps[0]));
	ck_assert_int_eq(b.changes, 0);
}
END_TEST

/* No CPU time to read (another host), or a new backend: nothing is measured or changed. */
START_TEST(unmeasured)
{
	budget		b;
	static const step steps[] = {
		{200 * MS, -1, 20, BUDGET_NONE, 10 * MS},
		/* the CPU time went back: a new connection's backend; the window starts again */
		{400 * MS, 0.5, 40, BUDGET_NONE, 10 * MS},
		{600 * MS, 0.1, 60, BUDGET_NONE, 10 * MS},
		{800 * MS, 0.124, 72, BUDGET_LOWERED, 110 * MS},
	};

	budget_init(&b, 0.02, 10 * MS, false, BUDGET_WINDOW_NS);
	budget_mark(&b, 0, -1, 0);
	walk(&b, steps, sizeof(steps) / sizeof(steps[0]));
}
END_TEST

/* --cost-budget=0: the cost is measured for the report, the rate never changes. */
START_TEST(no_budget)
{
	budget		b;
	static const step steps[] = {
		{100 * MS, 0.024, 12, BUDGET_NONE, 10 * MS},
	};

	budget_init(&b, 0, 10 * MS, false, BUDGET_WINDOW_NS);
	budget_mark(&b, 0, 0.0, 0);
	walk(&b, steps, sizeof(steps) / sizeof(steps[0]));
	ck_assert(b.cost_us > 1999 && b.cost_us < 2001);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_budget");
	TCase	   *tc = tcase_create("budget");

	tcase_add_test(tc, fit_table);
	tcase_add_test(tc, sessions_come_and_go);
	tcase_add_test(tc, short_window);
	tcase_add_test(tc, user_interval_kept);
	tcase_add_test(tc, unmeasured);
	tcase_add_test(tc, no_budget);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
