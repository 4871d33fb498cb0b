/*
 * check_prng.c — the random numbers must be pgbench 15's, bit for bit.
 *
 * The golden runs of script functions against pgbench 15's own output are
 * in check_prng_golden.c; this file has the generator's reference vectors,
 * the seeding order, Poisson delays and properties of the draws.
 *
 * The seeding-order tables come from pgbench's own logs: -l records the
 * script chosen for each transaction, -l --sampling-rate=0.5 which
 * transactions were sampled, and -R spaces transactions by Poisson delays
 * that can be read back (to within the 1 us by which doLog's timestamp
 * trails the latency's) as successive (time_epoch, time_us) minus latency.
 * The exact command lines are next to each table.
 */
#include "config.h"

#include "check_prng.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- reference vectors */

/* splitmix64 (Vigna's splitmix64.c): seed 0 and the widely published seed 1234567 stream. */
START_TEST(splitmix64_vectors)
{
	const uint64_t gamma = UINT64_C(0x9E3779B97F4A7C15);
	prng_state	st;

	prng_seed(&st, 0);
	ck_assert_uint_eq(st.s0, UINT64_C(0xE220A8397B1DCDAF));
	ck_assert_uint_eq(st.s1, UINT64_C(0x6E789E6AA1B965F4));

	/* seeding takes outputs 1 and 2; starting two steps later gives 3 and 4, and so on */
	prng_seed(&st, 1234567);
	ck_assert_uint_eq(st.s0, UINT64_C(6457827717110365317));
	ck_assert_uint_eq(st.s1, UINT64_C(3203168211198807973));
	prng_seed(&st, 1234567 + 2 * gamma);
	ck_assert_uint_eq(st.s0, UINT64_C(9817491932198370423));
	ck_assert_uint_eq(st.s1, UINT64_C(4593380528125082431));
	prng_seed(&st, 1234567 + 4 * gamma);
	ck_assert_uint_eq(st.s0, UINT64_C(16408922859458223821));
}
END_TEST

/* xoroshiro128** 1.0 from state {1, 2}: the reference implementation's first outputs. */
START_TEST(xoroshiro128ss_vectors)
{
	static const uint64_t want[] = {
		UINT64_C(5760), UINT64_C(97769243520), UINT64_C(9706862127477703552),
		UINT64_C(9223447511460779954), UINT64_C(8358291023205304566),
		UINT64_C(15695619998649302768), UINT64_C(8517900938696309774),
		UINT64_C(16586480348202605369), UINT64_C(6959129367028440372),
		UINT64_C(16822147227405758281),
	};
	prng_state	st = {1, 2};

	for (size_t i = 0; i < lengthof(want); i++)
		ck_assert_uint_eq(prng_u64(&st), want[i]);
}
END_TEST

/* prng_derive is "seed the child with the parent's next output", and advances the parent once. */
START_TEST(derive_is_seed_from_next)
{
	prng_state	parent,
				copy,
				child,
				expect;

	prng_seed(&parent, 42);
	copy = parent;
	prng_derive(&parent, &child);
	prng_seed(&expect, prng_u64(&copy));
	ck_assert_uint_eq(child.s0, expect.s0);
	ck_assert_uint_eq(child.s1, expect.s1);
	ck_assert_uint_eq(parent.s0, copy.s0);
	ck_assert_uint_eq(parent.s1, copy.s1);
}
END_TEST

/* ---------------------------------------------------------------- seeding order (pgbench logs) */

/*
 * Derive states in pgbench 15's order (prng.h): clients, then :default_seed
 * unless given with -D, then per thread choose/throttle/sample.
 */
static void
seed_like_pgbench(uint64_t seed, int nclients, int nthreads, bool default_seed_given,
				  int64_t *default_seed, prng_state *choose, prng_state *throttle,
				  prng_state *sample)
{
	prng_state	base,
				client;

	prng_seed(&base, seed);
	for (int c = 0; c < nclients; c++)
		prng_derive(&base, &client);
	if (!default_seed_given)
		*default_seed = (int64_t) prng_u64(&base);
	for (int t = 0; t < nthreads; t++)
	{
		prng_derive(&base, &choose[t]);
		prng_derive(&base, &throttle[t]);
		prng_derive(&base, &sample[t]);
	}
}

/*
 * pgbench -n -c 2 -j 2 -t 20 -l --random-seed=42 -f A.sql@1 -f B.sql@1
 * (A.sql: "\set a debug(:default_seed)", B.sql: "\set b 1"): script_no
 * column of pgbench_log.PID and pgbench_log.PID.1; and the same with
 * --sampling-rate=0.5: transaction_no column (1-based) of the sampled lines.
 */
START_TEST(seeding_order_two_threads)
{
	static const int choose_want[2][20] = {
		{1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0},
		{0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 0, 1, 0},
	};
	static const int sampled_t0[] = {2, 4, 5, 10, 11, 12, 15, 16, 17, 20};
	static const int sampled_t1[] = {1, 2, 3, 5, 6, 7, 8, 9, 11, 13, 15, 18, 19};
	const int  *sampled_want[2] = {sampled_t0, sampled_t1};
	const size_t nsampled[2] = {lengthof(sampled_t0), lengthof(sampled_t1)};
	prng_state	choose[2],
				throttle[2],
				sample[2];
	int64_t		dseed = 0;

	seed_like_pgbench(42, 2, 2, false, &dseed, choose, throttle, sample);
	ck_assert_int_eq(dseed, INT64_C(4482733528210176216));
	for (int t = 0; t < 2; t++)
	{
		size_t		k = 0;

		for (int tx = 0; tx < 20; tx++)
			ck_assert_int_eq(prng_uniform(&choose[t], 0, 1), choose_want[t][tx]);
		for (int tx = 1; tx <= 20; tx++)
			if (!(prng_double(&sample[t]) > 0.5))
			{
				ck_assert_uint_lt(k, nsampled[t]);
				ck_assert_int_eq(tx, sampled_want[t][k]);
				k++;
			}
		ck_assert_uint_eq(k, nsampled[t]);
	}
}
END_TEST

/*
 * Three clients on one thread, with and without -D default_seed=5:
 * pgbench -n -c 3 -j 1 -t 5 -l --random-seed=12345 -f A.sql@1 -f B.sql@1
 * [-D default_seed=5]; script_no column of the log, in log order.
 */
START_TEST(seeding_order_default_seed_option)
{
	static const int with_d[15] = {0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1, 0, 1};
	static const int without_d[15] = {0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1};
	prng_state	choose[1],
				throttle[1],
				sample[1];
	int64_t		dseed = 5;

	seed_like_pgbench(12345, 3, 1, true, &dseed, choose, throttle, sample);
	ck_assert_int_eq(dseed, 5);
	for (int i = 0; i < 15; i++)
		ck_assert_int_eq(prng_uniform(&choose[0], 0, 1), with_d[i]);

	seed_like_pgbench(12345, 3, 1, false, &dseed, choose, throttle, sample);
	ck_assert_int_eq(dseed, INT64_C(-7414508434323253986));
	for (int i = 0; i < 15; i++)
		ck_assert_int_eq(prng_uniform(&choose[0], 0, 1), without_d[i]);
}
END_TEST

/*
 * Check a thread's Poisson schedule against the gaps pgbench logged under
 * -R: each gap within 1 us, and the running sums too, so the 1 us reading
 * error cannot hide a real drift.  The first delay (from thread start) is
 * not observable and is checked against our own exact value only.
 */
static void
check_poisson_gaps(prng_state *rs, double center, int64_t first,
				   const int64_t *gaps, size_t ngaps)
{
	int64_t		got_sum = 0,
				want_sum = 0;

	ck_assert_int_eq(prng_poisson(rs, center), first);
	for (size_t i = 0; i < ngaps; i++)
	{
		int64_t		got = prng_poisson(rs, center);

		got_sum += got;
		want_sum += gaps[i];
		ck_assert_msg(llabs(got - gaps[i]) <= 1 && llabs(got_sum - want_sum) <= 1,
					  "delay %zu: got %" PRId64 ", pgbench log says %" PRId64,
					  i + 2, got, gaps[i]);
	}
}

/*
 * pgbench -n -c 2 -j 2 -t 25 -R 400 -l --random-seed=12345 -f T.sql
 * (T.sql: "\set x 1"; per-thread center 1e6 / 400 * 2 = 5000 us) and
 * pgbench -n -c 1 -t 15 -R 300 -l --random-seed=42 -f T.sql
 * (center 3333.33.. us): gaps between successive scheduled starts.
 */
START_TEST(poisson_throttle_schedule)
{
	static const int64_t gaps_12345_t0[] = {
		13475, 7777, 3811, 3395, 1420, 551, 1080, 5578, 1616, 2782, 1121, 123,
		11455, 8677, 7002, 598, 934, 2850, 3164, 3257, 864, 3564, 11816, 14213,
	};
	static const int64_t gaps_12345_t1[] = {
		4023, 2957, 11463, 7707, 65, 6871, 7802, 16989, 5879, 1882, 20039, 695,
		748, 10931, 433, 1387, 4611, 2755, 7311, 7146, 9190, 13945, 12073, 3253,
	};
	static const int64_t gaps_42[] = {
		5223, 10163, 2108, 1819, 397, 254, 2364, 4564, 1616, 4130, 7074, 52, 765, 273,
	};
	prng_state	choose[2],
				throttle[2],
				sample[2];
	int64_t		dseed;

	seed_like_pgbench(12345, 2, 2, false, &dseed, choose, throttle, sample);
	check_poisson_gaps(&throttle[0], 1000000.0 / 400 * 2, 513,
					   gaps_12345_t0, lengthof(gaps_12345_t0));
	check_poisson_gaps(&throttle[1], 1000000.0 / 400 * 2, 3467,
					   gaps_12345_t1, lengthof(gaps_12345_t1));

	seed_like_pgbench(42, 1, 1, false, &dseed, choose, throttle, sample);
	check_poisson_gaps(&throttle[0], 1000000.0 / 300 * 1, 5001, gaps_42, lengthof(gaps_42));
}
END_TEST

/*
 * Exact Poisson values for a range of centers.  These are our own outputs
 * (pgbench agreement is established above, to the log's 1 us), kept so
 * that a change in rounding or in the formula cannot pass unnoticed.
 */
START_TEST(poisson_exact)
{
	static const double centers[] = {
		0.4, 1.0, 3.0, 0.5, 2.5, 0.25, 10.0, 10.0, 100.0, 1.5, 33.3, 250.0, 1e6, 1e9,
	};
	static const int64_t want[] = {
		0, 2, 3, 1, 0, 0, 15, 32, 23, 2, 9, 743, 1310306, 340440347,
	};
	prng_state	st;

	prng_seed(&st, 7);
	for (size_t i = 0; i < lengthof(want); i++)
		ck_assert_int_eq(prng_poisson(&st, centers[i]), want[i]);
	/* a zero center never waits, whatever the draw */
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(prng_poisson(&st, 0.0), 0);
}
END_TEST

/* ---------------------------------------------------------------- properties */

START_TEST(range_degenerate_draws_nothing)
{
	prng_state	st,
				before;

	prng_seed(&st, 99);
	before = st;
	ck_assert_uint_eq(prng_u64_range(&st, 17, 17), 17);
	ck_assert_uint_eq(prng_u64_range(&st, 18, 17), 18);
	ck_assert_int_eq(prng_uniform(&st, -3, -3), -3);
	ck_assert_int_eq(prng_zipfian(&st, 9, 9, 1.5), 9);
	ck_assert_int_eq(prng_permute(5, 1, 123), 0);
	ck_assert_uint_eq(st.s0, before.s0);
	ck_assert_uint_eq(st.s1, before.s1);

	/* exponential and gaussian still draw (pgbench does), and return min */
	ck_assert_int_eq(prng_exponential(&st, 4, 4, 1.0), 4);
	ck_assert(st.s0 != before.s0 || st.s1 != before.s1);
	before = st;
	ck_assert_int_eq(prng_gaussian(&st, 4, 4, 2.0), 4);
	ck_assert(st.s0 != before.s0 || st.s1 != before.s1);
}
END_TEST

/* The whole 64-bit range needs no shift and no rejection: it is exactly the next output. */
START_TEST(range_full_is_raw_output)
{
	prng_state	a,
				b;

	prng_seed(&a, 5);
	b = a;
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(prng_u64_range(&a, 0, UINT64_MAX), prng_u64(&b));
}
END_TEST

START_TEST(range_bounds)
{
	static const struct
	{
		int64_t		min,
					max;
	}			ranges[] = {
		{0, 1}, {1, 3}, {-3, 3}, {1, 100}, {0, 1000}, {-1000000, 1000000},
		{0, INT64_C(4294967296)}, {INT64_MIN, -2}, {1, INT64_MAX},
		{INT64_C(-4611686018427387904), INT64_C(4611686018427387902)},
		{INT64_MAX - 5, INT64_MAX}, {INT64_MIN, INT64_MIN + 5},
	};
	prng_state	st;

	prng_seed(&st, 2024);
	for (size_t r = 0; r < lengthof(ranges); r++)
	{
		int64_t		lo = ranges[r].min,
					hi = ranges[r].max;

		for (int i = 0; i < 2000; i++)
		{
			int64_t		u = prng_uniform(&st, lo, hi),
						e = prng_exponential(&st, lo, hi, 0.5 + i % 7),
						g = prng_gaussian(&st, lo, hi, 2.0 + i % 5),
						z = prng_zipfian(&st, lo, hi, 1.05 + (i % 9) * 0.5);

			ck_assert(u >= lo && u <= hi);
			ck_assert(e >= lo && e <= hi);
			ck_assert(g >= lo && g <= hi);
			ck_assert(z >= lo && z <= hi);
		}
	}
}
END_TEST

/* A small range is covered completely, and doubles are 52-bit fractions in [0, 1). */
START_TEST(uniform_covers_and_double_grid)
{
	prng_state	st;
	int			seen[7] = {0};

	prng_seed(&st, 1);
	for (int i = 0; i < 700; i++)
		seen[prng_uniform(&st, -3, 3) + 3]++;
	for (int v = 0; v < 7; v++)
		ck_assert_int_gt(seen[v], 50);

	for (int i = 0; i < 10000; i++)
	{
		double		d = prng_double(&st),
					scaled = ldexp(d, 52);

		ck_assert(d >= 0.0 && d < 1.0);
		ck_assert(scaled == floor(scaled));
	}
}
END_TEST

/* permute() is a bijection of [0, size), periodic in val with period size. */
START_TEST(permute_is_bijection)
{
	static const int64_t seeds[] = {0, 1, -1, 5, 42, INT64_MIN, INT64_MAX};
	static bool hit[1000];

	for (size_t s = 0; s < lengthof(seeds); s++)
	{
		for (int64_t size = 1; size <= 70; size++)
		{
			memset(hit, 0, sizeof(hit));
			for (int64_t v = 0; v < size; v++)
			{
				int64_t		p = prng_permute(v, size, seeds[s]);

				ck_assert(p >= 0 && p < size);
				ck_assert_msg(!hit[p], "permute(., %" PRId64 ", %" PRId64 ") hits %" PRId64 " twice",
							  size, seeds[s], p);
				hit[p] = true;
				ck_assert_int_eq(prng_permute(v + size, size, seeds[s]), p);
				ck_assert_int_eq(prng_permute(v + 7 * size, size, seeds[s]), p);
			}
		}
		memset(hit, 0, sizeof(hit));
		for (int64_t v = 0; v < 1000; v++)
		{
			int64_t		p = prng_permute(v, 1000, seeds[s]);

			ck_assert(p >= 0 && p < 1000 && !hit[p]);
			hit[p] = true;
		}
	}
}
END_TEST

/* Huge sizes stay in range, and negative inputs reduce as unsigned (two's complement) values. */
START_TEST(permute_huge_and_negative)
{
	prng_state	st;

	prng_seed(&st, 3);
	for (int i = 0; i < 2000; i++)
	{
		int64_t		size = (int64_t) (prng_u64(&st) >> 1);
		int64_t		val = (int64_t) prng_u64(&st);
		int64_t		p;

		if (size == 0)
			size = 1;
		p = prng_permute(val, size, (int64_t) prng_u64(&st));
		ck_assert(p >= 0 && p < size);
	}
	/* (uint64) -1 % 1000 == 615 */
	ck_assert_int_eq(prng_permute(-1, 1000, 5), prng_permute(615, 1000, 5));
}
END_TEST

static Suite *
prng_suite(void)
{
	Suite	   *s = suite_create("prng");
	TCase	   *tc = tcase_create("generator");

	tcase_add_test(tc, splitmix64_vectors);
	tcase_add_test(tc, xoroshiro128ss_vectors);
	tcase_add_test(tc, derive_is_seed_from_next);
	suite_add_tcase(s, tc);

	tc = tcase_create("pgbench");
	check_prng_add_golden(tc);
	tcase_add_test(tc, seeding_order_two_threads);
	tcase_add_test(tc, seeding_order_default_seed_option);
	tcase_add_test(tc, poisson_throttle_schedule);
	tcase_add_test(tc, poisson_exact);
	suite_add_tcase(s, tc);

	tc = tcase_create("properties");
	tcase_add_test(tc, range_degenerate_draws_nothing);
	tcase_add_test(tc, range_full_is_raw_output);
	tcase_add_test(tc, range_bounds);
	tcase_add_test(tc, uniform_covers_and_double_grid);
	tcase_add_test(tc, permute_is_bijection);
	tcase_add_test(tc, permute_huge_and_negative);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(prng_suite());
}
