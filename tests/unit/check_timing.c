/*
 * check_timing.c — pg_test_timing's loop (through its fake-clock seam),
 * the derived tables, the clock-environment advice and the cross-CPU
 * accounting.
 */
#include "config.h"

#include "timing.h"

#include <stdlib.h>
#include <string.h>

#include "clockenv.h"
#include "crosscpu.h"
#include "unit.h"

static timing_pass *
run_fake(const uint64_t *readings, size_t n, uint64_t duration_ns)
{
	timing_pass *p = malloc(sizeof(*p));

	ck_assert_ptr_nonnull(p);
	timing_set_fake_clock(readings, n);
	timing_run(p, TIMING_CLOCK_FAKE, duration_ns, NULL);
	return p;
}

/* The loop's check sees the first backwards step and how far it went. */
START_TEST(backwards_detected)
{
	static const uint64_t r[] = {1000, 1020, 1050, 1049, 2000};
	timing_pass *p = run_fake(r, 5, NS_PER_S);

	ck_assert_int_eq(p->outcome, TIMING_BACKWARDS);
	ck_assert_uint_eq(p->warp_ns, 1);
	ck_assert_uint_eq(p->loops, 2);		/* 20 and 30, before the step back */
	ck_assert_uint_eq(p->direct[20], 1);
	ck_assert_uint_eq(p->direct[30], 1);
	free(p);
}
END_TEST

START_TEST(backwards_large_warp)
{
	static const uint64_t r[] = {5000000000ULL, 5000000100ULL, 1000};
	timing_pass *p = run_fake(r, 3, NS_PER_S);

	ck_assert_int_eq(p->outcome, TIMING_BACKWARDS);
	ck_assert_uint_eq(p->warp_ns, 5000000100ULL - 1000);
	free(p);
}
END_TEST

/* Equal readings are not backwards: a zero difference is counted. */
START_TEST(equal_readings_ok)
{
	static const uint64_t r[] = {0, 0, 0, 10, 10};
	timing_pass *p = run_fake(r, 5, 100);

	ck_assert_int_eq(p->outcome, TIMING_OK);
	ck_assert_uint_eq(p->direct[0], 3);
	ck_assert_uint_eq(p->direct[10], 1);
	free(p);
}
END_TEST

/* Every difference is counted once, exact ones and long ones, and the tables agree. */
START_TEST(counts_and_tables)
{
	/* differences: 20 x4, 999, 1000, 1999, 2000, 15000, 15000, then 1 s to end */
	static const uint64_t r[] = {0, 20, 40, 60, 80, 1079, 2079, 4078, 6078, 21078, 36078};
	timing_pass *p = run_fake(r, sizeof(r) / sizeof(r[0]), 40000);
	hlog2		us,
				ns;

	ck_assert_int_eq(p->outcome, TIMING_OK);
	/* the fake clock's next reading is +1 s, which ends the pass */
	ck_assert_uint_eq(p->loops, 11);
	ck_assert_uint_eq(p->durations.total, 11);
	ck_assert_uint_eq(p->largest_ns, NS_PER_S);
	ck_assert_uint_eq(p->largest_count, 1);
	ck_assert_uint_eq(p->elapsed_ns, 36078 + NS_PER_S);

	timing_hist_us(p, &us);
	ck_assert_uint_eq(us.count[0], 5);	/* < 1 us: 20 x4, 999 */
	ck_assert_uint_eq(us.count[1], 2);	/* < 2 us: 1000, 1999 */
	ck_assert_uint_eq(us.count[2], 1);	/* < 4 us: 2000 */
	ck_assert_uint_eq(us.count[4], 2);	/* < 16 us: 15000 x2 */
	ck_assert_uint_eq(us.count[hlog2_bucket(1000000)], 1);	/* 1 s = 10^6 us */
	ck_assert_uint_eq(hlog2_total(&us), 11);

	timing_hist_ns(p, &ns);
	ck_assert_uint_eq(ns.count[5], 4);	/* 16..31: 20 x4 */
	ck_assert_uint_eq(ns.count[10], 2); /* 512..1023: 999, 1000 */
	ck_assert_uint_eq(ns.count[11], 2); /* 1024..2047: 1999, 2000 */
	ck_assert_uint_eq(ns.count[14], 2); /* 8192..16383: 15000 x2 */
	ck_assert_uint_eq(hlog2_total(&ns), 11);
	free(p);
}
END_TEST

START_TEST(per_loop)
{
	static const uint64_t r[] = {0, 10, 20, 30};
	timing_pass *p = run_fake(r, 4, 25);

	ck_assert_uint_eq(p->loops, 3);
	ck_assert_uint_eq(p->elapsed_ns, 30);
	ck_assert_double_eq_tol(timing_per_loop_ns(p), 10.0, 1e-9);
	free(p);
}
END_TEST

START_TEST(fake_clock_spec)
{
	uint64_t   *v;
	size_t		n;

	ck_assert(timing_parse_fake_clock("0,10,5", &v, &n));
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(v[2], 5);
	free(v);
	ck_assert(!timing_parse_fake_clock("", &v, &n));
	ck_assert(!timing_parse_fake_clock("1,x", &v, &n));
	ck_assert(!timing_parse_fake_clock("-1", &v, &n));
	ck_assert(!timing_parse_fake_clock("1;2", &v, &n));
}
END_TEST

START_TEST(clock_names)
{
	timing_clock c;

	ck_assert(timing_clock_parse("rdtscp", &c));
	ck_assert_int_eq(c, TIMING_CLOCK_RDTSCP);
	ck_assert(timing_clock_parse("system", &c));
	ck_assert_int_eq(c, TIMING_CLOCK_SYSTEM);
	ck_assert(!timing_clock_parse("tsc", &c));
	ck_assert(!timing_clock_parse("all", &c));
	ck_assert_str_eq(timing_clock_name(TIMING_CLOCK_RDTSC), "rdtsc");
}
END_TEST

/* The real system clock runs a short pass without going backwards. */
START_TEST(system_pass)
{
	timing_pass *p = malloc(sizeof(*p));

	timing_run(p, TIMING_CLOCK_SYSTEM, 50 * NS_PER_MS, NULL);
	ck_assert_int_eq(p->outcome, TIMING_OK);
	ck_assert_uint_gt(p->loops, 1000);
	ck_assert_uint_eq(p->durations.total, p->loops);
	ck_assert_uint_ge(p->elapsed_ns, 50 * NS_PER_MS);
	free(p);
}
END_TEST

/* ---------------------------------------------------------------- clockenv */

static clockenv
env_of(const char *current, const char *available, bool tsc_flag, bool hypervisor)
{
	clockenv	e;

	memset(&e, 0, sizeof(e));
	strcpy(e.current, current);
	strcpy(e.available, available);
	e.flags_known = true;
	e.tsc = tsc_flag;
	e.hypervisor = hypervisor;
	return e;
}

START_TEST(advice_rules)
{
	static const struct
	{
		const char *current;
		const char *available;
		bool		tsc;
		bool		hypervisor;
		const char *want;		/* a word the advice must contain, or NULL for none */
	}			cases[] = {
		{"tsc", "tsc hpet acpi_pm", true, false, NULL},
		{"kvm-clock", "kvm-clock tsc", true, true, "TSC is available but not used"},
		{"kvm-clock", "kvm-clock", true, true, NULL},
		{"acpi_pm", "acpi_pm", true, false, "slow to read"},
		{"hpet", "hpet acpi_pm tsc", true, false, "offers tsc"},
		{"acpi_pm", "acpi_pm tsc", true, false, "offers tsc"},
		{"jiffies", "jiffies", false, false, "every few milliseconds"},
		{"hpet", "hpet acpi_pm", true, false, "slow to read"},
		{"arch_sys_counter", "arch_sys_counter", false, false, NULL},
		{"xen", "xen tsc", true, true, "offers tsc"},
		{"", "", true, false, NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		clockenv	e = env_of(cases[i].current, cases[i].available, cases[i].tsc,
							   cases[i].hypervisor);
		const char *got = clockenv_advice(&e);

		if (cases[i].want == NULL)
			ck_assert_msg(got == NULL, "case %zu: unexpected advice \"%s\"", i, got);
		else
			ck_assert_msg(got && strstr(got, cases[i].want),
						  "case %zu: advice \"%s\" lacks \"%s\"", i, got ? got : "(none)",
						  cases[i].want);
	}
}
END_TEST

START_TEST(list_has_whole_words)
{
	ck_assert(clockenv_list_has("tsc hpet", "tsc"));
	ck_assert(clockenv_list_has("fpu constant_tsc tsc", "tsc"));
	ck_assert(!clockenv_list_has("constant_tsc nonstop_tsc", "tsc"));
	ck_assert(!clockenv_list_has("rdtscp", "rdtsc"));
	ck_assert(clockenv_list_has(" rdtscp\n", "rdtscp"));
}
END_TEST

/* ---------------------------------------------------------------- cross-CPU */

START_TEST(cross_observe)
{
	crosscpu_result r;
	crosscpu_pair pairs[4];

	memset(&r, 0, sizeof(r));
	for (int i = 0; i < 4; i++)
	{
		memset(&pairs[i], 0, sizeof(pairs[i]));
		pairs[i].min_fwd_ns = UINT64_MAX;
	}
	r.ncpus = 2;
	r.pairs = pairs;
	crosscpu_observe(&r, 0, 1, 1000, 1100, false);
	crosscpu_observe(&r, 0, 1, 2000, 2040, false);
	crosscpu_observe(&r, 1, 0, 3000, 2900, true);
	crosscpu_observe(&r, 1, 0, 4000, 3990, true);
	ck_assert_uint_eq(r.checks, 4);
	ck_assert_uint_eq(r.backwards, 2);
	ck_assert_uint_eq(r.max_back_ns, 100);
	ck_assert_uint_eq(pairs[0 * 2 + 1].min_fwd_ns, 40);
	ck_assert_uint_eq(pairs[0 * 2 + 1].backwards, 0);
	ck_assert_uint_eq(pairs[1 * 2 + 0].backwards, 2);
	ck_assert_uint_eq(pairs[1 * 2 + 0].max_back_ns, 100);
}
END_TEST

/* A real run on this machine's CPUs: every check is counted in some pair. */
START_TEST(cross_run_counts)
{
	crosscpu_result r;
	uint64_t	sum = 0;

	if (!crosscpu_run(&r, TIMING_CLOCK_SYSTEM, 100 * NS_PER_MS, NULL))
	{
		ck_assert_int_lt(r.ncpus, 2);
		ck_assert_str_ne(r.why_not, "");
		crosscpu_free(&r);
		return;
	}
	for (int i = 0; i < r.ncpus * r.ncpus; i++)
		sum += r.pairs[i].checks;
	ck_assert_uint_eq(sum, r.checks);
	for (int i = 0; i < r.ncpus; i++)
		ck_assert_uint_eq(r.pairs[i * r.ncpus + i].checks, 0);
	ck_assert_uint_eq(r.backwards, 0);
	crosscpu_free(&r);
}
END_TEST

static Suite *
timing_suite(void)
{
	Suite	   *s = suite_create("timing");
	TCase	   *tc = tcase_create("loop");

	tcase_add_test(tc, backwards_detected);
	tcase_add_test(tc, backwards_large_warp);
	tcase_add_test(tc, equal_readings_ok);
	tcase_add_test(tc, counts_and_tables);
	tcase_add_test(tc, per_loop);
	tcase_add_test(tc, fake_clock_spec);
	tcase_add_test(tc, clock_names);
	tcase_add_test(tc, system_pass);
	suite_add_tcase(s, tc);

	tc = tcase_create("clockenv");
	tcase_add_test(tc, advice_rules);
	tcase_add_test(tc, list_has_whole_words);
	suite_add_tcase(s, tc);

	tc = tcase_create("crosscpu");
	tcase_add_test(tc, cross_observe);
	tcase_add_test(tc, cross_run_counts);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(timing_suite());
}
