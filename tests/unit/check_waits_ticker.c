/*
 * check_waits_ticker.c — the fixed-rate schedule of pgtempo-waits: ticks
 * at absolute deadlines, missed ticks counted, gaps skipped.
 */
#include "config.h"

#include "ticker.h"

#include <stdlib.h>

#include "unit.h"

/* Samples that end before the next deadline keep the schedule exactly. */
START_TEST(on_time)
{
	ticker		t;

	ticker_init(&t, 1000, 10);
	ck_assert_uint_eq(ticker_deadline(&t), 1000);
	for (int k = 0; k < 100; k++)
	{
		ck_assert_uint_eq(ticker_deadline(&t), 1000 + 10 * (uint64_t) k);
		ticker_done(&t, ticker_deadline(&t) + 3);
	}
	ck_assert_uint_eq(t.tick, 100);
	ck_assert_uint_eq(t.missed, 0);
}
END_TEST

/*
 * A run of 100 ticks (-T 1 s at 10 ms) whose last sample ends 25 ms past
 * the end: the two ticks it overran are after the end, not missed; and a
 * run that stopped early has its unrun ticks missed.
 */
START_TEST(end)
{
	ticker		t;

	ticker_init(&t, 1000, 10);
	for (int k = 0; k < 99; k++)
		ticker_done(&t, ticker_deadline(&t) + 3);
	ticker_done(&t, 1000 + 1000 + 25);
	ck_assert_uint_eq(t.missed, 2);
	ticker_end(&t, 1000 + 1000);
	ck_assert_uint_eq(t.missed, 0);
	ck_assert_uint_eq(t.tick, 100);

	ticker_init(&t, 1000, 10);
	for (int k = 0; k < 50; k++)
		ticker_done(&t, ticker_deadline(&t) + 3);
	ticker_end(&t, 1000 + 1000);
	ck_assert_uint_eq(t.missed, 50);
	ck_assert_uint_eq(t.tick, 100);
}
END_TEST

/* Table: one sample at tick 0 that ends at a given time; what comes next. */
START_TEST(slow_sample_table)
{
	static const struct
	{
		uint64_t	done_at;	/* start 0, interval 10 */
		uint64_t	next_tick;
		uint64_t	missed;
	}			cases[] = {
		{0, 1, 0},
		{9, 1, 0},
		{10, 1, 0},				/* tick 1 due now: late, not missed */
		{19, 1, 0},
		{20, 2, 1},				/* tick 1's slot is over: missed */
		{25, 2, 1},
		{99, 9, 8},
		{100, 10, 9},
		{1000005, 100000, 99999},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		ticker		t;

		ticker_init(&t, 0, 10);
		ticker_done(&t, cases[i].done_at);
		ck_assert_msg(t.tick == cases[i].next_tick && t.missed == cases[i].missed,
					  "done at %llu: tick %llu missed %llu, want %llu and %llu",
					  (unsigned long long) cases[i].done_at, (unsigned long long) t.tick,
					  (unsigned long long) t.missed, (unsigned long long) cases[i].next_tick,
					  (unsigned long long) cases[i].missed);
	}
}
END_TEST

/* A slow sample does not shift the later deadlines. */
START_TEST(no_drift)
{
	ticker		t;

	ticker_init(&t, 500, 100);
	ticker_done(&t, 500 + 350);		/* ticks 1 and 2 missed, 3 is late */
	ck_assert_uint_eq(t.tick, 3);
	ck_assert_uint_eq(t.missed, 2);
	ck_assert_uint_eq(ticker_deadline(&t), 800);
	ticker_done(&t, 860);
	ck_assert_uint_eq(ticker_deadline(&t), 900);
	ck_assert_uint_eq(t.missed, 2);
}
END_TEST

/* The ticks of a connection gap are gap ticks, not missed ones. */
START_TEST(gap)
{
	ticker		t;

	ticker_init(&t, 0, 10);
	ticker_done(&t, 5);				/* next is tick 1 */
	ticker_resume(&t, 1234);		/* back at 1234: ticks 1..122 passed */
	ck_assert_uint_eq(t.tick, 123);
	ck_assert_uint_eq(t.gap_ticks, 122);
	ck_assert_uint_eq(t.missed, 0);
	/* resuming before the next deadline changes nothing */
	ticker_resume(&t, 1235);
	ck_assert_uint_eq(t.tick, 123);
	ck_assert_uint_eq(t.gap_ticks, 122);
}
END_TEST

/* An interval of 0 is treated as 1 ns rather than dividing by zero. */
START_TEST(zero_interval)
{
	ticker		t;

	ticker_init(&t, 0, 0);
	ck_assert_uint_eq(t.interval_ns, 1);
	ticker_done(&t, 3);
	ck_assert_uint_eq(t.tick, 3);
	ck_assert_uint_eq(t.missed, 2);
}
END_TEST

/* The cost budget changes the interval: the next tick stays due, the ones after follow the new one. */
START_TEST(retime)
{
	ticker		t;

	ticker_init(&t, 0, 10);
	ticker_done(&t, 3);			/* tick 1 due at 10 */
	ticker_done(&t, 25);		/* tick 1 ran late; tick 2 due at 20 runs at once */
	ck_assert_uint_eq(ticker_deadline(&t), 20);
	ticker_retime(&t, 100);
	ck_assert_uint_eq(ticker_deadline(&t), 20);
	ticker_done(&t, 21);
	ck_assert_uint_eq(ticker_deadline(&t), 120);
	ticker_done(&t, 121);
	ck_assert_uint_eq(ticker_deadline(&t), 220);
	/* the counts of the old schedule stay, misses are counted at the new interval */
	ck_assert_uint_eq(t.missed, 0);
	ticker_done(&t, 450);
	ck_assert_uint_eq(t.missed, 1);
	ck_assert_uint_eq(ticker_deadline(&t), 420);
	/* and back to a faster rate */
	ticker_retime(&t, 10);
	ck_assert_uint_eq(ticker_deadline(&t), 420);
	ticker_done(&t, 421);
	ck_assert_uint_eq(ticker_deadline(&t), 430);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_ticker");
	TCase	   *tc = tcase_create("ticker");

	tcase_add_test(tc, on_time);
	tcase_add_test(tc, slow_sample_table);
	tcase_add_test(tc, no_drift);
	tcase_add_test(tc, gap);
	tcase_add_test(tc, zero_interval);
	tcase_add_test(tc, retime);
	tcase_add_test(tc, end);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
