/*
 * check_bench_txlog.c — the -l logs: pgbench's per-transaction and
 * aggregate lines for every outcome and option, file names, interval
 * alignment, empty and last intervals, per-script aggregates, sampling,
 * lines across buffer flushes, and write errors.
 *
 * The expected lines are written from pgbench 15's formats (checked
 * against the output of pgbench 15.20 for the same options).
 */
#include "config.h"

#include "results/txlog.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgtempo/clock.h"
#include "pgtempo/msg.h"
#include "unit.h"

/*
 * The clocks of every test: the monotonic clock reads START when the
 * wall clock reads 1700000000.7 s.
 */
#define START		(UINT64_C(10) * NS_PER_S)
#define WALL_START_NS (INT64_C(1700000000) * (int64_t) NS_PER_S + 700000000)
#define SHIFT		(WALL_START_NS - (int64_t) START)
/* The monotonic time at wall-clock second 1700000000 + s. */
#define AT(s)		((uint64_t) ((INT64_C(1700000000) + (s)) * (int64_t) NS_PER_S - SHIFT))

static char dir[64];
static char prefix[128];

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check_bench_txlog.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "%s/log", dir);
	msg_set_progname("pgtempo-bench");
}

static void
teardown(void)
{
	char		cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* The settings of a plain -l run. */
static bench_settings
settings(void)
{
	bench_settings s;

	memset(&s, 0, sizeof(s));
	s.nclients = 1;
	s.nthreads = 1;
	s.max_tries = 1;
	s.nscripts = 1;
	s.use_log = true;
	s.log_prefix = prefix;
	prng_seed(&s.base, 42);
	return s;
}

/* The whole content of a file (caller frees; "" if missing). */
static char *
slurp(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char	   *buf = NULL;
	size_t		len = 0;

	if (f == NULL)
		return strdup("");
	{
		FILE	   *m = open_memstream(&buf, &len);
		char		chunk[8192];
		size_t		n;

		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fwrite(chunk, 1, n, m);
		fclose(m);
	}
	fclose(f);
	return buf;
}

/* The log of thread 0 of this process. */
static char *
log0(void)
{
	char		path[256];

	snprintf(path, sizeof(path), "%s.%d", prefix, (int) getpid());
	return slurp(path);
}

/* One transaction in a fresh log with the options of a case; its line. */
static char *
one_line(const bench_settings *s, stats_outcome o, uint64_t lat, uint64_t lag, uint32_t retries)
{
	txlog	   *l = txlog_open(s, 0, START, SHIFT);

	ck_assert_ptr_nonnull(l);
	txlog_begin(l, START, NULL);
	/* 0.123456789 s after the start: wall clock 1700000000.823456789 */
	txlog_tx(l, 3, 41, 1, o, lat, lag, retries, START + 123456789, false);
	ck_assert_int_eq(txlog_close(l, START + NS_PER_S), 0);
	return log0();
}

/* Per-transaction lines: every outcome with every optional column. */
START_TEST(tx_formats)
{
	static const struct
	{
		double		rate;
		int64_t		limit_ns;
		uint32_t	max_tries;
		bool		detailed;
		bool		cont;
		stats_outcome outcome;
		uint32_t	retries;
		const char *want;
	}			cases[] = {
		/* latency 1234567 ns is 1235 us; lag 2500 ns is 3 us (rounded) */
		{0, 0, 1, false, false, STATS_OK, 0, "3 42 1235 1 1700000000 823456\n"},
		{100, 0, 1, false, false, STATS_OK, 0, "3 42 1235 1 1700000000 823456 3\n"},
		{0, 0, 3, false, false, STATS_OK, 2, "3 42 1235 1 1700000000 823456 2\n"},
		{0, 0, 0, false, false, STATS_OK, 7, "3 42 1235 1 1700000000 823456 7\n"},
		{100, 0, 3, false, false, STATS_OK, 1, "3 42 1235 1 1700000000 823456 3 1\n"},
		/* skipped: no lag, no retries, whatever the caller passes */
		{100, 5000000, 1, false, false, STATS_SKIPPED, 0, "3 42 skipped 1 1700000000 823456 0\n"},
		{100, 5000000, 3, false, false, STATS_SKIPPED, UINT32_MAX,
		"3 42 skipped 1 1700000000 823456 0 0\n"},
		/* failures: "failed", or the kind with --failures-detailed; lag 0 */
		{0, 0, 1, false, false, STATS_SERIALIZATION, 0, "3 42 failed 1 1700000000 823456\n"},
		{0, 0, 1, false, false, STATS_DEADLOCK, 0, "3 42 failed 1 1700000000 823456\n"},
		{0, 0, 1, false, true, STATS_OTHER, 0, "3 42 failed 1 1700000000 823456\n"},
		{0, 0, 1, true, false, STATS_SERIALIZATION, 0, "3 42 serialization 1 1700000000 823456\n"},
		{0, 0, 1, true, false, STATS_DEADLOCK, 0, "3 42 deadlock 1 1700000000 823456\n"},
		{0, 0, 1, true, true, STATS_OTHER, 0, "3 42 other 1 1700000000 823456\n"},
		{100, 0, 2, false, false, STATS_SERIALIZATION, 1, "3 42 failed 1 1700000000 823456 0 1\n"},
		{100, 0, 2, true, false, STATS_DEADLOCK, 1, "3 42 deadlock 1 1700000000 823456 0 1\n"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		bench_settings s = settings();
		char	   *got;

		s.rate = cases[i].rate;
		s.latency_limit_ns = cases[i].limit_ns;
		s.max_tries = cases[i].max_tries;
		s.failures_detailed = cases[i].detailed;
		s.continue_on_error = cases[i].cont;
		got = one_line(&s, cases[i].outcome, 1234567, 2500, cases[i].retries);
		ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: got \"%s\", want \"%s\"", i,
					  got, cases[i].want);
		free(got);
	}
}
END_TEST

/* Numbers at the edges of their fields, and microseconds not zero-padded. */
START_TEST(tx_numbers)
{
	bench_settings s = settings();
	txlog	   *l;
	char	   *got;

	s.rate = 1;
	l = txlog_open(&s, 0, START, SHIFT);
	txlog_begin(l, START, NULL);
	/* at wall second 1700000001 + 608 us, a latency of 0.4 us (rounds to 0) */
	txlog_tx(l, 0, 0, 0, STATS_OK, 400, 0, 0, AT(1) + 608000, false);
	txlog_tx(l, 2147483647, INT64_C(9223372036854775806), 127, STATS_OK,
			 UINT64_C(3600) * NS_PER_S, UINT64_C(99999999999), 0, AT(2), false);
	txlog_tx(l, 10, 99, 9, STATS_OK, 999499, 1000500, 0, AT(2) + 999999999, false);
	ck_assert_int_eq(txlog_close(l, AT(3)), 0);
	got = log0();
	ck_assert_str_eq(got,
					 "0 1 0 0 1700000001 608 0\n"
					 "2147483647 9223372036854775807 3600000000 127 1700000002 0 100000000\n"
					 "10 100 999 9 1700000002 999999 1001\n");
	free(got);
}
END_TEST

/* Every digit count: the numbers around each power of ten. */
START_TEST(tx_digits)
{
	bench_settings s = settings();
	txlog	   *l;
	char	   *got,
			   *p;
	uint64_t	pow = 1;

	l = txlog_open(&s, 0, START, SHIFT);
	txlog_begin(l, START, NULL);
	for (int d = 0; d <= 18; d++, pow *= 10)
	{
		/* the transaction number written is tx_no + 1: pow - 1, pow, pow + 1 */
		for (int64_t k = -1; k <= 1; k++)
			txlog_tx(l, 0, (int64_t) pow + k - 1, 0, STATS_OK, 0, 0, 0, START, false);
	}
	ck_assert_int_eq(txlog_close(l, START), 0);
	got = log0();
	p = got;
	pow = 1;
	for (int d = 0; d <= 18; d++, pow *= 10)
	{
		for (int64_t k = -1; k <= 1; k++)
		{
			char		want[64];

			snprintf(want, sizeof(want), "0 %llu 0 0 1700000000 700000\n",
					 (unsigned long long) (pow + k));
			ck_assert_msg(strncmp(p, want, strlen(want)) == 0, "want %s", want);
			p += strlen(want);
		}
	}
	ck_assert_str_eq(p, "");
	free(got);
}
END_TEST

/* PREFIX.PID for thread 0, PREFIX.PID.N for the others; pgbench_log by default. */
START_TEST(file_names)
{
	bench_settings s = settings();
	txlog	   *l0,
			   *l2;
	char		want[256];
	char		cwd[512];
	struct stat st;

	l0 = txlog_open(&s, 0, START, SHIFT);
	l2 = txlog_open(&s, 2, START, SHIFT);
	snprintf(want, sizeof(want), "%s.%d", prefix, (int) getpid());
	ck_assert_str_eq(txlog_path(l0), want);
	ck_assert_int_eq(stat(want, &st), 0);
	snprintf(want, sizeof(want), "%s.%d.2", prefix, (int) getpid());
	ck_assert_str_eq(txlog_path(l2), want);
	ck_assert_int_eq(stat(want, &st), 0);
	txlog_close(l0, START);
	txlog_close(l2, START);

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(dir), 0);
	s.log_prefix = NULL;
	l0 = txlog_open(&s, 0, START, SHIFT);
	l2 = txlog_open(&s, 1, START, SHIFT);
	snprintf(want, sizeof(want), "pgbench_log.%d", (int) getpid());
	ck_assert_str_eq(txlog_path(l0), want);
	ck_assert_int_eq(stat(want, &st), 0);
	snprintf(want, sizeof(want), "pgbench_log.%d.1", (int) getpid());
	ck_assert_str_eq(txlog_path(l2), want);
	txlog_close(l0, START);
	txlog_close(l2, START);
	ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

/* A log that cannot be created: NULL, and pgbench's message. */
START_TEST(open_error)
{
	bench_settings s = settings();
	char		bad[256];
	char		want[512];
	char	   *err;
	txlog	   *l;

	snprintf(bad, sizeof(bad), "%s/no/such/dir/x", dir);
	s.log_prefix = bad;
	unit_stderr_begin();
	l = txlog_open(&s, 1, START, SHIFT);
	err = unit_stderr_end();
	ck_assert_ptr_null(l);
	snprintf(want, sizeof(want),
			 "pgtempo-bench: error: could not open logfile \"%s.%d.1\": No such file or directory\n",
			 bad, (int) getpid());
	ck_assert_str_eq(err, want);
	free(err);
}
END_TEST

/*
 * Intervals start at the benchmark start rounded down to a Unix second;
 * empty ones are written; the last, partial one is written at close.
 */
START_TEST(agg_intervals)
{
	bench_settings s = settings();
	txlog	   *l;
	char	   *got;

	s.agg_interval = 5;
	l = txlog_open(&s, 0, START, SHIFT);
	/* no interval before the run begins */
	ck_assert_uint_eq(txlog_next_tick(l), 0);
	txlog_begin(l, START, NULL);
	/* the run starts at wall 1700000000.7: the first interval at 1700000000 */
	ck_assert_uint_eq(txlog_next_tick(l), AT(5));
	txlog_tx(l, 0, 0, 0, STATS_OK, 1000000, 0, 0, AT(1), false);
	txlog_tx(l, 0, 1, 0, STATS_OK, 3000000, 0, 0, AT(4) + 999999999, false);
	/* the interval ends at AT(5) exactly: a transaction then is in the next one */
	txlog_tx(l, 0, 2, 0, STATS_OK, 2000000, 0, 0, AT(5), false);
	ck_assert_uint_eq(txlog_next_tick(l), AT(10));
	/* written as soon as it ends, not at close */
	got = log0();
	ck_assert_str_eq(got, "1700000000 2 4000 10000000 1000 3000 0 0 0 0 0 0 0 0 0\n");
	free(got);
	/* nothing ends for 12 s: the tick writes the empty intervals */
	txlog_tick(l, AT(9));
	ck_assert_uint_eq(txlog_next_tick(l), AT(10));
	txlog_tick(l, AT(21));
	ck_assert_uint_eq(txlog_next_tick(l), AT(25));
	txlog_tx(l, 0, 3, 0, STATS_OK, 7000000, 0, 0, AT(23), false);
	ck_assert_int_eq(txlog_close(l, AT(24)), 0);
	got = log0();
	ck_assert_str_eq(got,
					 "1700000000 2 4000 10000000 1000 3000 0 0 0 0 0 0 0 0 0\n"
					 "1700000005 1 2000 4000000 2000 2000 0 0 0 0 0 0 0 0 0\n"
					 "1700000010 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
					 "1700000015 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
					 "1700000020 1 7000 49000000 7000 7000 0 0 0 0 0 0 0 0 0\n");
	free(got);
}
END_TEST

/* A run that ends on an interval boundary has no empty last interval. */
START_TEST(agg_close_on_boundary)
{
	bench_settings s = settings();
	txlog	   *l;
	char	   *got;

	s.agg_interval = 1;
	l = txlog_open(&s, 0, START, SHIFT);
	txlog_begin(l, START, NULL);
	txlog_tx(l, 0, 0, 0, STATS_OK, 1000, 0, 0, AT(1) + 1, false);
	ck_assert_int_eq(txlog_close(l, AT(2)), 0);
	got = log0();
	ck_assert_str_eq(got,
					 "1700000000 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
					 "1700000001 1 1 1 1 1 0 0 0 0 0 0 0 0 0\n");
	free(got);

	/* a log closed before the run began (the run failed to start) stays empty */
	l = txlog_open(&s, 0, START, SHIFT);
	ck_assert_int_eq(txlog_close(l, AT(30)), 0);
	got = log0();
	ck_assert_str_eq(got, "");
	free(got);
}
END_TEST

/* The columns that apply to the options get values; the others are 0. */
START_TEST(agg_columns)
{
	static const struct
	{
		double		rate;
		int64_t		limit_ns;
		uint32_t	max_tries;
		bool		detailed;
		bool		cont;
		const char *want;
	}			cases[] = {
		{0, 0, 1, false, false, "1700000000 2 4000 10000000 1000 3000 0 0 0 0 0 0 0 0 0\n"},
		{100, 0, 1, false, false,
		"1700000000 2 4000 10000000 1000 3000 600 260000 100 500 0 0 0 0 0\n"},
		{100, 5000000, 1, false, false,
		"1700000000 2 4000 10000000 1000 3000 600 260000 100 500 1 0 0 0 0\n"},
		{0, 0, 4, false, false, "1700000000 2 4000 10000000 1000 3000 0 0 0 0 0 3 6 0 0\n"},
		{0, 0, 1, true, false, "1700000000 2 4000 10000000 1000 3000 0 0 0 0 0 0 0 2 1\n"},
		/* --continue-on-error: the newest pgbench's other_failures column */
		{0, 0, 1, true, true, "1700000000 2 4000 10000000 1000 3000 0 0 0 0 0 0 0 2 1 1\n"},
		{0, 0, 1, false, true, "1700000000 2 4000 10000000 1000 3000 0 0 0 0 0 0 0 0 0 0\n"},
		{100, 5000000, 0, true, true,
		"1700000000 2 4000 10000000 1000 3000 600 260000 100 500 1 3 6 2 1 1\n"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		bench_settings s = settings();
		txlog	   *l;
		char	   *got;

		s.agg_interval = 10;
		s.rate = cases[i].rate;
		s.latency_limit_ns = cases[i].limit_ns;
		s.max_tries = cases[i].max_tries;
		s.failures_detailed = cases[i].detailed;
		s.continue_on_error = cases[i].cont;
		l = txlog_open(&s, 0, START, SHIFT);
		txlog_begin(l, START, NULL);
		txlog_tx(l, 0, 0, 0, STATS_OK, 1000000, 100000, 0, AT(1), false);
		txlog_tx(l, 0, 1, 0, STATS_OK, 3000000, 500000, 2, AT(2), false);
		txlog_tx(l, 0, 2, 0, STATS_SERIALIZATION, 9000000, 900000, 3, AT(3), false);
		txlog_tx(l, 0, 3, 0, STATS_SERIALIZATION, 9000000, 900000, 0, AT(3), false);
		txlog_tx(l, 0, 4, 0, STATS_DEADLOCK, 9000000, 900000, 1, AT(3), false);
		txlog_tx(l, 0, 5, 0, STATS_OTHER, 9000000, 900000, 0, AT(3), false);
		/* a skipped transaction counts nothing but itself */
		txlog_tx(l, 0, 6, 0, STATS_SKIPPED, 0, 0, UINT32_MAX, AT(4), false);
		ck_assert_int_eq(txlog_close(l, AT(10)), 0);
		got = log0();
		ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: got \"%s\", want \"%s\"", i,
					  got, cases[i].want);
		free(got);
	}
}
END_TEST

/* --aggregate-per-script: a line per script per interval, the script number last. */
START_TEST(agg_per_script)
{
	bench_settings s = settings();
	txlog	   *l;
	char	   *got;

	s.agg_interval = 2;
	s.agg_per_script = true;
	s.nscripts = 3;
	s.max_tries = 2;
	l = txlog_open(&s, 0, START, SHIFT);
	txlog_begin(l, START, NULL);
	txlog_tx(l, 0, 0, 2, STATS_OK, 5000000, 0, 1, AT(1), false);
	txlog_tx(l, 1, 0, 0, STATS_OK, 1000000, 0, 0, AT(1), false);
	txlog_tx(l, 1, 1, 2, STATS_OK, 3000000, 0, 0, AT(1), false);
	txlog_tx(l, 0, 1, 0, STATS_OK, 2000000, 0, 0, AT(5), false);
	ck_assert_int_eq(txlog_close(l, AT(5) + 1), 0);
	got = log0();
	ck_assert_str_eq(got,
					 "1700000000 1 1000 1000000 1000 1000 0 0 0 0 0 0 0 0 0 0\n"
					 "1700000000 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1\n"
					 "1700000000 2 8000 34000000 3000 5000 0 0 0 0 0 1 1 0 0 2\n"
					 "1700000002 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
					 "1700000002 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1\n"
					 "1700000002 0 0 0 0 0 0 0 0 0 0 0 0 0 0 2\n"
					 "1700000004 1 2000 4000000 2000 2000 0 0 0 0 0 0 0 0 0 0\n"
					 "1700000004 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1\n"
					 "1700000004 0 0 0 0 0 0 0 0 0 0 0 0 0 0 2\n");
	free(got);

	/* with one script too: the options alone decide the columns */
	s.nscripts = 1;
	s.max_tries = 1;
	s.continue_on_error = true;
	l = txlog_open(&s, 0, START, SHIFT);
	txlog_begin(l, START, NULL);
	txlog_tx(l, 0, 0, 0, STATS_OK, 1000000, 0, 0, AT(1), false);
	ck_assert_int_eq(txlog_close(l, AT(1) + 1), 0);
	got = log0();
	ck_assert_str_eq(got, "1700000000 1 1000 1000000 1000 1000 0 0 0 0 0 0 0 0 0 0 0\n");
	free(got);
}
END_TEST

/* Log n transactions of client 0 with sampling rate r; the transaction numbers logged. */
static int
sampled(double r, const prng_state *rs, int n, bool *logged)
{
	bench_settings s = settings();
	txlog	   *l;
	char	   *got,
			   *p;
	int			lines = 0;

	s.sampling_rate = r;
	l = txlog_open(&s, 0, START, SHIFT);
	txlog_begin(l, START, rs);
	for (int i = 0; i < n; i++)
		txlog_tx(l, 0, i, 0, STATS_OK, 1000, 0, 0, START + (uint64_t) i * 1000, false);
	ck_assert_int_eq(txlog_close(l, START + NS_PER_S), 0);
	got = log0();
	memset(logged, 0, sizeof(bool) * (size_t) n);
	for (p = got; *p; p = strchr(p, '\n') + 1)
	{
		long		no;

		ck_assert_int_eq(sscanf(p, "0 %ld ", &no), 1);
		ck_assert(no >= 1 && no <= n);
		logged[no - 1] = true;
		lines++;
	}
	free(got);
	return lines;
}

/*
 * --sampling-rate: each transaction is logged when the thread's draw is
 * not above the rate (pgbench's rule), so the share logged is within
 * the binomial bounds and a seed reproduces the same lines.
 */
START_TEST(sampling)
{
	enum
	{
		N = 20000
	};
	static bool a[N],
				b[N];
	static const double rates[] = {0.01, 0.1, 0.5, 0.9};
	prng_state rs,
				copy;

	for (size_t k = 0; k < sizeof(rates) / sizeof(rates[0]); k++)
	{
		double		r = rates[k];
		double		sd = sqrt(N * r * (1 - r));
		int			n;

		prng_seed(&rs, 1000 + k);
		n = sampled(r, &rs, N, a);
		/* 6 standard deviations: a seed that fails this is a broken generator */
		ck_assert_msg(fabs(n - N * r) < 6 * sd, "rate %g: %d of %d logged", r, n, N);

		/* exactly the transactions whose draw was not above the rate */
		copy = rs;
		for (int i = 0; i < N; i++)
			ck_assert(a[i] == !(prng_double(&copy) > r));

		/* the same state again: the same lines */
		ck_assert_int_eq(sampled(r, &rs, N, b), n);
		ck_assert(memcmp(a, b, sizeof(a)) == 0);
	}

	/* without a state from txlog_begin, still deterministic from the base seed */
	ck_assert_int_eq(sampled(0.3, NULL, N, a), sampled(0.3, NULL, N, b));
	ck_assert(memcmp(a, b, sizeof(a)) == 0);

	/* rate 1: every line */
	ck_assert_int_eq(sampled(1.0, NULL, N, a), N);
}
END_TEST

/*
 * Far more lines than the buffer holds: the file always ends with a
 * whole line, and after close every line is there, once, in order.
 */
START_TEST(buffer_boundary)
{
	bench_settings s = settings();
	txlog	   *l;
	char		path[256];
	char	   *got,
			   *p;
	int			n = 20000,
				flushes = 0;
	off_t		last_size = 0;

	s.rate = 10;
	s.max_tries = 0;
	snprintf(path, sizeof(path), "%s.%d", prefix, (int) getpid());
	l = txlog_open(&s, 0, START, SHIFT);
	txlog_begin(l, START, NULL);
	for (int i = 0; i < n; i++)
	{
		struct stat st;

		/* lines of different lengths, so flushes fall at different places */
		txlog_tx(l, i % 1000, i, i % 7, (i % 13) ? STATS_OK : STATS_SERIALIZATION,
				 (uint64_t) i * 7919 * 1000, (uint64_t) (i % 97) * 1000, (uint32_t) (i % 5),
				 START + (uint64_t) i * 1000001, false);
		ck_assert_int_eq(stat(path, &st), 0);
		if (st.st_size != last_size)
		{
			char		c;
			int			fd = open(path, O_RDONLY);

			ck_assert_int_eq(pread(fd, &c, 1, st.st_size - 1), 1);
			close(fd);
			ck_assert_int_eq(c, '\n');
			ck_assert_int_le(st.st_size - last_size, 64 * 1024);
			last_size = st.st_size;
			flushes++;
		}
	}
	ck_assert_int_ge(flushes, 5);
	ck_assert_int_eq(txlog_close(l, START + (uint64_t) n * 1000001), 0);
	got = log0();
	ck_assert_int_eq(unit_count_lines(got), n);
	p = got;
	for (int i = 0; i < n; i++)
	{
		char		want[128];
		uint64_t	us = (uint64_t) i * 1000001 / 1000 + 700000;

		if (i % 13)
			snprintf(want, sizeof(want), "%d %d %llu %d %llu %llu %d %d\n", i % 1000, i + 1,
					 (unsigned long long) i * 7919, i % 7,
					 (unsigned long long) (1700000000 + us / 1000000),
					 (unsigned long long) (us % 1000000), i % 97, i % 5);
		else
			snprintf(want, sizeof(want), "%d %d failed %d %llu %llu 0 %d\n", i % 1000, i + 1,
					 i % 7, (unsigned long long) (1700000000 + us / 1000000),
					 (unsigned long long) (us % 1000000), i % 5);
		ck_assert_msg(strncmp(p, want, strlen(want)) == 0, "line %d: want %s", i + 1, want);
		p += strlen(want);
	}
	free(got);
}
END_TEST

/* /dev/full: one error message, every line counted as lost. */
START_TEST(disk_full)
{
	bench_settings s = settings();
	char		full[128],
				link[256],
				want[512],
				want_end[1024];
	char	   *err;
	txlog	   *l;
	int			n = 10000;

	if (access("/dev/full", W_OK) != 0)
		return;					/* not on this system */
	snprintf(full, sizeof(full), "%s/full", dir);
	snprintf(link, sizeof(link), "%s.%d", full, (int) getpid());
	ck_assert_int_eq(symlink("/dev/full", link), 0);
	s.log_prefix = full;

	/* a short run: the error shows at close */
	unit_stderr_begin();
	l = txlog_open(&s, 0, START, SHIFT);
	ck_assert_ptr_nonnull(l);
	txlog_begin(l, START, NULL);
	for (int i = 0; i < 10; i++)
		txlog_tx(l, 0, i, 0, STATS_OK, 1000, 0, 0, START + 1000, false);
	ck_assert_int_eq(txlog_close(l, START + 2000), 10);
	err = unit_stderr_end();
	snprintf(want, sizeof(want),
			 "pgtempo-bench: error: could not write to log file \"%s\": No space left on device\n",
			 link);
	/* at close, the file and how many lines it lacks */
	snprintf(want_end, sizeof(want_end),
			 "%spgtempo-bench: error: could not write the last 10 line(s) of log file \"%s\"\n",
			 want, link);
	ck_assert_str_eq(err, want_end);
	free(err);

	/* a long one: the error shows when the buffer first fills, once */
	unit_stderr_begin();
	l = txlog_open(&s, 0, START, SHIFT);
	txlog_begin(l, START, NULL);
	for (int i = 0; i < n; i++)
	{
		txlog_tx(l, 0, i, 0, STATS_OK, 1000, 0, 0, START + 1000, false);
		if (i == n / 2)
		{
			char	   *mid = unit_stderr_peek();

			ck_assert_str_eq(mid, want);
			free(mid);
		}
	}
	ck_assert_int_eq(txlog_close(l, START + 2000), n);
	err = unit_stderr_end();
	snprintf(want_end, sizeof(want_end),
			 "%spgtempo-bench: error: could not write the last %d line(s) of log file \"%s\"\n",
			 want, n, link);
	ck_assert_str_eq(err, want_end);
	free(err);

	/* aggregate lines are lost the same way */
	s.agg_interval = 1;
	unit_stderr_begin();
	l = txlog_open(&s, 0, START, SHIFT);
	txlog_begin(l, START, NULL);
	txlog_tx(l, 0, 0, 0, STATS_OK, 1000, 0, 0, AT(1), false);
	txlog_tick(l, AT(3));
	ck_assert_int_eq(txlog_close(l, AT(3) + 1), 4);
	err = unit_stderr_end();
	snprintf(want_end, sizeof(want_end),
			 "%spgtempo-bench: error: could not write the last 4 line(s) of log file \"%s\"\n",
			 want, link);
	ck_assert_str_eq(err, want_end);
	free(err);
}
END_TEST

/*
 * A file that fills up in the middle of a write (here: a file size
 * limit) keeps only whole lines; the others are counted as lost.
 */
START_TEST(partial_write)
{
	bench_settings s = settings();
	struct rlimit rl;
	txlog	   *l;
	char	   *got,
			   *err,
			   *p;
	char		want[256];
	int			n = 20000;
	int64_t		lost;
	int			kept;

	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &rl);
	rl.rlim_cur = 100001;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	unit_stderr_begin();
	l = txlog_open(&s, 0, START, SHIFT);
	txlog_begin(l, START, NULL);
	for (int i = 0; i < n; i++)
		txlog_tx(l, 0, i, 0, STATS_OK, 1000, 0, 0, START + 1000, false);
	lost = txlog_close(l, START + 2000);
	err = unit_stderr_end();
	ck_assert_ptr_nonnull(strstr(err, "could not write to log file"));
	ck_assert_ptr_nonnull(strstr(err, "File too large"));
	ck_assert_int_eq(unit_count_lines(err), 2);
	got = log0();
	kept = unit_count_lines(got);
	ck_assert_int_gt(kept, 0);
	ck_assert_int_eq(kept + lost, n);
	ck_assert_int_eq(got[strlen(got) - 1], '\n');
	ck_assert_int_le(strlen(got), 100001);
	/*
	 * The file holds exactly the first lines, in order, each whole.  (One
	 * assertion: Check logs each one to a file, which the limit applies to.)
	 */
	p = got;
	for (int i = 0; i < kept && p != NULL; i++)
	{
		int			len = snprintf(want, sizeof(want), "0 %d 1 0 1700000000 700001\n", i + 1);

		p = strncmp(p, want, (size_t) len) == 0 ? p + len : NULL;
	}
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(*p, '\0');
	/* the count at close is the exact number of lines the file lacks */
	snprintf(want, sizeof(want), "could not write the last %lld line(s) of log file",
			 (long long) lost);
	ck_assert_ptr_nonnull(strstr(err, want));
	free(got);
	free(err);
}
END_TEST

/*
 * Per-transaction lines wait in the buffer at most a second: a kill -9
 * loses at most the last second of the log.
 */
START_TEST(flush_every_second)
{
	bench_settings s = settings();
	txlog	   *l = txlog_open(&s, 0, START, SHIFT);
	char	   *got;

	ck_assert_ptr_nonnull(l);
	ck_assert_uint_eq(txlog_tick_interval(l), NS_PER_S);
	txlog_begin(l, START, NULL);
	ck_assert_uint_eq(txlog_next_tick(l), START + NS_PER_S);

	/* within the first second: still buffered */
	txlog_tx(l, 0, 0, 0, STATS_OK, 1000, 0, 0, START + NS_PER_S / 2, false);
	got = log0();
	ck_assert_str_eq(got, "");
	free(got);

	/* a transaction that ends a second after the start writes both lines */
	txlog_tx(l, 0, 1, 0, STATS_OK, 1000, 0, 0, START + NS_PER_S, false);
	got = log0();
	ck_assert_int_eq(unit_count_lines(got), 2);
	free(got);
	ck_assert_uint_eq(txlog_next_tick(l), START + 2 * NS_PER_S);

	/* while no transaction ends, the timer's tick writes what waits */
	txlog_tx(l, 0, 2, 0, STATS_OK, 1000, 0, 0, START + NS_PER_S + 1, false);
	txlog_tick(l, START + 2 * NS_PER_S - 1);
	got = log0();
	ck_assert_int_eq(unit_count_lines(got), 2);
	free(got);
	txlog_tick(l, START + 2 * NS_PER_S);
	got = log0();
	ck_assert_int_eq(unit_count_lines(got), 3);
	free(got);
	ck_assert_int_eq(txlog_close(l, START + 3 * NS_PER_S), 0);

	/* aggregates tick at their interval */
	s.agg_interval = 5;
	l = txlog_open(&s, 0, START, SHIFT);
	ck_assert_uint_eq(txlog_tick_interval(l), 5 * NS_PER_S);
	txlog_close(l, START);
}
END_TEST

/*
 * --warmup: the warm-up's lines end with "warmup", the measured ones are
 * a plain run's, numbered on their own.
 */
START_TEST(warmup_tx_lines)
{
	bench_settings s = settings();
	txlog	   *l;
	char	   *got;

	s.warmup = WARMUP_FIXED;
	s.warmup_s = 2;
	s.rate = 100;
	l = txlog_open(&s, 0, START, SHIFT);
	txlog_begin(l, START, NULL);
	txlog_tx(l, 0, 0, 0, STATS_OK, 1500, 500, 0, AT(1), true);
	txlog_tx(l, 0, 1, 0, STATS_SKIPPED, 0, 0, 0, AT(1) + 1000, true);
	txlog_measure_from(l, AT(2));
	txlog_tx(l, 0, 0, 0, STATS_OK, 2500, 700, 0, AT(2) + 5000, false);
	/* a warm-up transaction that ended in the measured part is still one */
	txlog_tx(l, 1, 2, 0, STATS_OK, 1000000, 0, 0, AT(2) + 6000, true);
	ck_assert_int_eq(txlog_close(l, AT(3)), 0);
	got = log0();
	ck_assert_str_eq(got,
					 "0 1 2 0 1700000001 0 1 warmup\n"
					 "0 2 skipped 0 1700000001 1 0 warmup\n"
					 "0 1 3 0 1700000002 5 1\n"
					 "1 3 1000 0 1700000002 6 0 warmup\n");
	free(got);
}
END_TEST

/*
 * --warmup with --aggregate-interval: warm-up lines for the intervals that
 * begin in it, measured lines for those that end after it (both for the
 * one where it ends), and a warm-up line later only when one ended there.
 */
START_TEST(warmup_agg_lines)
{
	bench_settings s = settings();
	txlog	   *l;
	char	   *got;

	s.warmup = WARMUP_AUTO;
	s.warmup_s = 60;
	s.agg_interval = 2;
	l = txlog_open(&s, 0, START, SHIFT);
	txlog_begin(l, START, NULL);
	txlog_tx(l, 0, 0, 0, STATS_OK, 1000, 0, 0, AT(1), true);
	/* the end is not known yet: the interval is the warm-up's alone */
	txlog_tick(l, AT(2));
	txlog_measure_from(l, AT(3) + 500000000);
	txlog_tx(l, 0, 1, 0, STATS_OK, 2000, 0, 0, AT(3), true);
	txlog_tx(l, 0, 0, 0, STATS_OK, 3000, 0, 0, AT(3) + 600000000, false);
	txlog_tx(l, 0, 1, 0, STATS_OK, 5000, 0, 0, AT(5), false);
	txlog_tx(l, 1, 2, 0, STATS_OK, 7000, 0, 0, AT(5) + 1, true);
	txlog_tick(l, AT(8));
	ck_assert_int_eq(txlog_close(l, AT(8)), 0);
	got = log0();
	ck_assert_str_eq(got,
					 "1700000000 1 1 1 1 1 0 0 0 0 0 0 0 0 0 warmup\n"
					 "1700000002 1 2 4 2 2 0 0 0 0 0 0 0 0 0 warmup\n"
					 "1700000002 1 3 9 3 3 0 0 0 0 0 0 0 0 0\n"
					 "1700000004 1 7 49 7 7 0 0 0 0 0 0 0 0 0 warmup\n"
					 "1700000004 1 5 25 5 5 0 0 0 0 0 0 0 0 0\n"
					 "1700000006 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	free(got);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("bench_txlog");
	TCase	   *tc = tcase_create("txlog");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, tx_formats);
	tcase_add_test(tc, tx_numbers);
	tcase_add_test(tc, tx_digits);
	tcase_add_test(tc, file_names);
	tcase_add_test(tc, open_error);
	tcase_add_test(tc, agg_intervals);
	tcase_add_test(tc, agg_close_on_boundary);
	tcase_add_test(tc, agg_columns);
	tcase_add_test(tc, agg_per_script);
	tcase_add_test(tc, sampling);
	tcase_add_test(tc, buffer_boundary);
	tcase_add_test(tc, disk_full);
	tcase_add_test(tc, partial_write);
	tcase_add_test(tc, flush_every_second);
	tcase_add_test(tc, warmup_tx_lines);
	tcase_add_test(tc, warmup_agg_lines);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
