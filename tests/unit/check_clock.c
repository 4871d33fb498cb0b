/*
 * check_clock.c — the monotonic clock and TSC tick conversion.
 */
#include "config.h"

#include "pgtempo/clock.h"

#include <math.h>

#include "unit.h"

START_TEST(now_is_monotonic)
{
	uint64_t	prev = clock_now_ns();

	for (int i = 0; i < 100000; i++)
	{
		uint64_t	now = clock_now_ns();

		ck_assert_uint_ge(now, prev);
		prev = now;
	}
}
END_TEST

START_TEST(now_tracks_sleep)
{
	uint64_t	t0 = clock_now_ns();
	struct timespec nap = {0, 20 * 1000 * 1000};
	uint64_t	dt;

	nanosleep(&nap, NULL);
	dt = clock_now_ns() - t0;
	ck_assert_uint_ge(dt, 20 * NS_PER_MS);
	ck_assert_uint_lt(dt, 5 * NS_PER_S);
}
END_TEST

/* Ticks convert to ns exactly enough at typical and odd frequencies. */
START_TEST(tsc_conversion)
{
	static const uint64_t freqs[] = {
		1000000000, 2445428000, 3000000000, 2100000000, 19200000, 4999999999, 1193182,
	};
	static const uint64_t ticks[] = {0, 1, 7, 1000, 123456789, UINT64_C(1) << 40,
	UINT64_C(3600) * 5000000000};

	for (size_t f = 0; f < sizeof(freqs) / sizeof(freqs[0]); f++)
	{
		clock_tsc	t = {0};

		clock_tsc_set_hz(&t, freqs[f], CLOCK_TSC_CALIBRATED);
		ck_assert_uint_eq(t.hz, freqs[f]);
		ck_assert_int_eq(t.source, CLOCK_TSC_CALIBRATED);
		for (size_t i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++)
		{
			long double want = (long double) ticks[i] * 1e9L / freqs[f];
			uint64_t	got = clock_tsc_to_ns(&t, ticks[i]);

			/* within 1 ns plus 1e-9 relative (the 32.32 factor's rounding) */
			ck_assert_msg(fabsl((long double) got - want) <= 1 + want * 1e-9L,
						  "%llu ticks at %llu Hz: got %llu want %.1Lf",
						  (unsigned long long) ticks[i], (unsigned long long) freqs[f],
						  (unsigned long long) got, want);
		}
	}
}
END_TEST

START_TEST(tsc_source_names)
{
	ck_assert_str_eq(clock_tsc_source_name(CLOCK_TSC_CALIBRATED),
					 "calibrated against CLOCK_MONOTONIC_RAW");
	ck_assert_str_eq(clock_tsc_source_name(CLOCK_TSC_CPUID_15H),
					 "CPUID leaf 0x15 (crystal clock ratio)");
	ck_assert_str_eq(clock_tsc_source_name(CLOCK_TSC_NONE), "unknown");
}
END_TEST

/* Where the TSC is usable, its probed frequency agrees with a fresh calibration. */
START_TEST(tsc_probe_consistent)
{
	clock_tsc	t;

	clock_tsc_probe(&t);
	if (!t.usable)
	{
		ck_assert_str_ne(t.why_not, "");
		return;
	}
	ck_assert_uint_gt(t.hz, 1000000);
	{
		uint64_t	cal = clock_tsc_calibrate(50);
		double		rel = fabs((double) cal - (double) t.hz) / (double) t.hz;

		/* CPUID's nominal figure may differ from the measured one a little */
		ck_assert_msg(rel < 0.02, "probe %llu Hz, calibration %llu Hz",
					  (unsigned long long) t.hz, (unsigned long long) cal);
	}
#ifdef CLOCK_HAVE_TSC
	{
		/* a TSC interval converts to roughly the same system-clock interval */
		uint64_t	n0 = clock_now_ns(),
					t0 = clock_rdtscp();
		struct timespec nap = {0, 30 * 1000 * 1000};
		uint64_t	dn,
					dt;

		nanosleep(&nap, NULL);
		dt = clock_tsc_to_ns(&t, clock_rdtscp() - t0);
		dn = clock_now_ns() - n0;
		ck_assert_msg(fabs((double) dt - (double) dn) < 0.02 * (double) dn + 50000,
					  "tsc says %llu ns, system clock %llu ns", (unsigned long long) dt,
					  (unsigned long long) dn);
	}
#endif
}
END_TEST

/* adjtimex(2) in read-only mode answers without privileges; errors are never negative. */
START_TEST(sync_status_readable)
{
	clock_sync	cs;

	clock_sync_status(&cs);
	ck_assert(cs.known);
	ck_assert(cs.est_error_s >= 0 && cs.max_error_s >= 0);
	ck_assert(cs.max_error_s < 100);	/* the kernel caps maxerror at 16 s */
}
END_TEST

static Suite *
clock_suite(void)
{
	Suite	   *s = suite_create("clock");
	TCase	   *tc = tcase_create("monotonic");

	tcase_add_test(tc, now_is_monotonic);
	tcase_add_test(tc, now_tracks_sleep);
	tcase_add_test(tc, sync_status_readable);
	suite_add_tcase(s, tc);
	tc = tcase_create("tsc");
	tcase_add_test(tc, tsc_conversion);
	tcase_add_test(tc, tsc_source_names);
	tcase_add_test(tc, tsc_probe_consistent);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(clock_suite());
}
