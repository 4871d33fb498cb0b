/*
 * check_hist.c — bucket math, percentiles and merging of the histograms.
 */
#include "config.h"

#include "pgtempo/hist.h"

#include <math.h>
#include <stdlib.h>

#include "unit.h"

static hist *
new_hist(void)
{
	hist	   *h = malloc(sizeof(*h));

	ck_assert_ptr_nonnull(h);
	hist_init(h);
	return h;
}

START_TEST(hlog2_buckets)
{
	static const struct
	{
		uint64_t	v;
		int			bucket;
	}			cases[] = {
		{0, 0}, {1, 1}, {2, 2}, {3, 2}, {4, 3}, {7, 3}, {8, 4}, {1023, 10}, {1024, 11},
		{UINT64_C(1) << 62, 63}, {UINT64_MAX, 64},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_int_eq(hlog2_bucket(cases[i].v), cases[i].bucket);
	ck_assert_uint_eq(hlog2_bucket_max(0), 0);
	ck_assert_uint_eq(hlog2_bucket_max(1), 1);
	ck_assert_uint_eq(hlog2_bucket_max(3), 7);
	ck_assert_uint_eq(hlog2_bucket_max(64), UINT64_MAX);
	/* every value lands in the bucket whose max is the first >= it */
	for (uint64_t v = 0; v < 5000; v++)
	{
		int			b = hlog2_bucket(v);

		ck_assert_uint_le(v, hlog2_bucket_max(b));
		if (b > 0)
			ck_assert_uint_gt(v, hlog2_bucket_max(b - 1));
	}
}
END_TEST

START_TEST(hlog2_top_and_total)
{
	hlog2		h = {{0}};

	ck_assert_int_eq(hlog2_top(&h), -1);
	hlog2_record(&h, 0);
	hlog2_record(&h, 5);
	hlog2_record(&h, 6);
	hlog2_record(&h, 1000);
	ck_assert_int_eq(hlog2_top(&h), 10);
	ck_assert_uint_eq(h.count[3], 2);
	ck_assert_uint_eq(hlog2_total(&h), 4);
}
END_TEST

/* Buckets tile the range: contiguous, no gaps, no overlaps, widths as promised. */
START_TEST(hist_buckets_tile)
{
	ck_assert_uint_eq(hist_bucket_low(0), 0);
	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		uint64_t	lo = hist_bucket_low(i),
					hi = hist_bucket_high(i);

		ck_assert_uint_le(lo, hi);
		ck_assert_int_eq(hist_index(lo), i);
		ck_assert_int_eq(hist_index(hi), i);
		if (i + 1 < HIST_BUCKETS)
			ck_assert_uint_eq(hist_bucket_low(i + 1), hi + 1);
		/* width at most 1/128 of the lower bound above the exact range */
		if (lo >= HIST_SUB_COUNT)
			ck_assert_uint_le((hi - lo + 1) * 128, lo);
	}
	ck_assert_uint_eq(hist_bucket_high(HIST_BUCKETS - 1), HIST_MAX_VALUE);
	ck_assert_int_eq(hist_index(HIST_MAX_VALUE + 12345), HIST_BUCKETS - 1);
	ck_assert_int_eq(hist_index(UINT64_MAX), HIST_BUCKETS - 1);
}
END_TEST

/* 1000 * 2^k ns (microsecond octaves) and 2^k ns are always bucket boundaries. */
START_TEST(hist_boundaries_align)
{
	for (uint64_t b = 1000; b < HIST_MAX_VALUE; b *= 2)
		ck_assert_uint_eq(hist_bucket_low(hist_index(b)), b);
	for (uint64_t b = 1; b < HIST_MAX_VALUE; b *= 2)
		ck_assert_uint_eq(hist_bucket_low(hist_index(b)), b);
}
END_TEST

/* Any value from 1 us to 1 hour is reported within 1 % by a percentile. */
START_TEST(hist_accuracy_1us_to_1h)
{
	hist	   *h = new_hist();
	uint64_t	v;

	for (v = 1000; v <= UINT64_C(3600) * 1000000000; v = v + v / 7 + 13)
	{
		uint64_t	got;

		hist_reset(h);
		hist_record(h, 1);		/* min below, max above: the midpoint is not clamped */
		hist_record(h, v);
		hist_record(h, HIST_MAX_VALUE);
		got = hist_percentile(h, 50);
		ck_assert_msg(fabs((double) got - (double) v) <= 0.01 * (double) v,
					  "value %llu reported as %llu", (unsigned long long) v,
					  (unsigned long long) got);
	}
	free(h);
}
END_TEST

START_TEST(hist_percentiles_uniform)
{
	hist	   *h = new_hist();

	/* 1..100000 ns: the p-th percentile is p*1000 within 1 % */
	for (uint64_t v = 1; v <= 100000; v++)
		hist_record(h, v);
	ck_assert_uint_eq(h->total, 100000);
	ck_assert_uint_eq(h->min, 1);
	ck_assert_uint_eq(h->max, 100000);
	ck_assert_uint_eq(hist_percentile(h, 0), 1);
	ck_assert_uint_eq(hist_percentile(h, 100), 100000);
	for (int p = 1; p < 100; p++)
	{
		double		want = p * 1000.0;
		double		got = (double) hist_percentile(h, p);

		ck_assert_msg(fabs(got - want) <= 0.01 * want, "p%d: got %.0f want %.0f", p, got, want);
	}
	ck_assert_double_eq_tol(hist_mean(h), 50000.5, 1e-6);
	/* population stddev of 1..n is sqrt((n^2 - 1) / 12) */
	ck_assert_double_eq_tol(hist_stddev(h), sqrt((1e10 - 1) / 12), 1e-3);
	free(h);
}
END_TEST

START_TEST(hist_exact_small_values)
{
	hist	   *h = new_hist();

	hist_record_n(h, 20, 90);
	hist_record_n(h, 30, 9);
	hist_record(h, 255);
	ck_assert_uint_eq(hist_percentile(h, 50), 20);
	ck_assert_uint_eq(hist_percentile(h, 90), 20);
	ck_assert_uint_eq(hist_percentile(h, 90.5), 30);
	ck_assert_uint_eq(hist_percentile(h, 99), 30);
	ck_assert_uint_eq(hist_percentile(h, 99.5), 255);
	ck_assert_uint_eq(hist_count_range(h, 0, 29), 90);
	ck_assert_uint_eq(hist_count_range(h, 30, 255), 10);
	free(h);
}
END_TEST

START_TEST(hist_empty)
{
	hist	   *h = new_hist();

	ck_assert_uint_eq(hist_percentile(h, 50), 0);
	ck_assert_double_eq(hist_mean(h), 0);
	ck_assert_double_eq(hist_stddev(h), 0);
	ck_assert_uint_eq(h->min, UINT64_MAX);
	free(h);
}
END_TEST

START_TEST(hist_clamping)
{
	hist	   *h = new_hist();

	hist_record(h, HIST_MAX_VALUE * 4);
	ck_assert_uint_eq(h->clamped, 1);
	ck_assert_uint_eq(h->counts[HIST_BUCKETS - 1], 1);
	/* the exact max is kept even though the bucket is clamped */
	ck_assert_uint_eq(h->max, HIST_MAX_VALUE * 4);
	ck_assert_uint_eq(hist_percentile(h, 50), HIST_MAX_VALUE * 4);
	free(h);
}
END_TEST

/* Merging two halves gives the same histogram as recording everything in one. */
START_TEST(hist_merge_equals_whole)
{
	hist	   *a = new_hist(),
			   *b = new_hist(),
			   *all = new_hist();
	uint64_t	x = 88172645463325252ULL;

	for (int i = 0; i < 200000; i++)
	{
		uint64_t	v;

		/* xorshift: a reproducible spread over many magnitudes */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x >> (20 + x % 40);
		hist_record(i % 2 ? a : b, v);
		hist_record(all, v);
	}
	hist_merge(a, b);
	ck_assert_uint_eq(a->total, all->total);
	ck_assert_uint_eq(a->min, all->min);
	ck_assert_uint_eq(a->max, all->max);
	ck_assert_double_eq_tol(a->sum, all->sum, all->sum * 1e-12);
	for (int i = 0; i < HIST_BUCKETS; i++)
		ck_assert_uint_eq(a->counts[i], all->counts[i]);
	for (double p = 0; p <= 100; p += 0.5)
		ck_assert_uint_eq(hist_percentile(a, p), hist_percentile(all, p));
	free(a);
	free(b);
	free(all);
}
END_TEST

static Suite *
hist_suite(void)
{
	Suite	   *s = suite_create("hist");
	TCase	   *tc = tcase_create("hlog2");

	tcase_add_test(tc, hlog2_buckets);
	tcase_add_test(tc, hlog2_top_and_total);
	suite_add_tcase(s, tc);

	tc = tcase_create("loglinear");
	tcase_add_test(tc, hist_buckets_tile);
	tcase_add_test(tc, hist_boundaries_align);
	tcase_add_test(tc, hist_accuracy_1us_to_1h);
	tcase_add_test(tc, hist_percentiles_uniform);
	tcase_add_test(tc, hist_exact_small_values);
	tcase_add_test(tc, hist_empty);
	tcase_add_test(tc, hist_clamping);
	tcase_add_test(tc, hist_merge_equals_whole);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(hist_suite());
}
