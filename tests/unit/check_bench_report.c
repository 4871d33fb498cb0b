/*
 * check_bench_report.c — the run's counters and pgbench's report layout.
 *
 * The expected texts are pgbench's lines for the same counts (the layout
 * of pgbench 15, with the newest pgbench's per-script section and
 * "other failures" line).
 */
#include "config.h"

#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "unit.h"

/* The report of d for settings s, as a string (caller frees). */
static char *
render(const bench_settings *s, const report_data *d)
{
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *f = open_memstream(&buf, &len);

	report_print(f, s, d);
	fclose(f);
	return buf;
}

static script *
one_script(const char *desc, int weight)
{
	script	   *sc = script_parse(desc, "\\set a 1\nselect :a;\n");

	ck_assert_ptr_nonnull(sc);
	sc->weight = weight;
	return sc;
}

START_TEST(stats_count_and_merge)
{
	stats		a,
				b;

	stats_init(&a);
	stats_init(&b);
	stats_add_tx(&a, STATS_OK, 1, 1e6, 0, false);
	stats_add_tx(&a, STATS_OK, 3, 3e6, 0, false);
	stats_add_tx(&a, STATS_SERIALIZATION, 2, 0, 0, false);
	stats_add_tx(&b, STATS_DEADLOCK, 1, 0, 0, false);
	stats_add_tx(&b, STATS_OTHER, 1, 0, 0, false);
	stats_add_tx(&b, STATS_OK, 1, 2e6, 0, false);
	stats_merge(&a, &b);
	ck_assert_int_eq(a.cnt, 3);
	ck_assert_int_eq(stats_failures(&a), 3);
	ck_assert_int_eq(a.retried, 2);
	ck_assert_int_eq(a.retries, 3);
	ck_assert_int_eq(a.latency.count, 3);
	ck_assert(a.latency.min == 1e6 && a.latency.max == 3e6 && a.latency.sum == 6e6);
}
END_TEST

START_TEST(report_t_mode)
{
	bench_settings s = {.nclients = 2,.nthreads = 1,.transactions = 20,.scale = 1,
	.max_tries = 1};
	report_data d = {0};
	char	   *out;

	s.scripts[0] = one_script("<builtin: TPC-B (sort of)>", 1);
	s.nscripts = 1;
	s.total_weight = 1;
	stats_init(&d.total);
	for (int i = 0; i < 40; i++)
		stats_add_tx(&d.total, STATS_OK, 1, 2e6, 0, false);
	d.bench_duration_s = 0.046;
	d.conn_elapsed_ms = 12.0634;
	out = render(&s, &d);
	ck_assert_str_eq(out,
					 "transaction type: <builtin: TPC-B (sort of)>\n"
					 "scaling factor: 1\n"
					 "query mode: simple\n"
					 "number of clients: 2\n"
					 "number of threads: 1\n"
					 "maximum number of tries: 1\n"
					 "number of transactions per client: 20\n"
					 "number of transactions actually processed: 40/40\n"
					 "number of failed transactions: 0 (0.000%)\n"
					 "latency average = 2.300 ms\n"
					 "initial connection time = 12.063 ms\n"
					 "tps = 869.565217 (without initial connection time)\n");
	free(out);
	script_free(s.scripts[0]);
}
END_TEST

START_TEST(report_retries_failures_progress_connect)
{
	bench_settings s = {.nclients = 1,.nthreads = 1,.duration = 2,.scale = 5,.max_tries = 3,
	.failures_detailed = true,.progress = 1,.is_connect = true,.mode = QUERY_PREPARED,
	.partition_method = "hash",.partitions = 4};
	report_data d = {0};
	char	   *out;

	s.scripts[0] = one_script("x.sql", 1);
	s.nscripts = 1;
	s.total_weight = 1;
	stats_add_tx(&d.total, STATS_OK, 2, 1e6, 0, false);
	stats_add_tx(&d.total, STATS_OK, 1, 3e6, 0, false);
	stats_add_tx(&d.total, STATS_SERIALIZATION, 3, 0, 0, false);
	stats_add_tx(&d.total, STATS_DEADLOCK, 1, 0, 0, false);
	d.bench_duration_s = 2.0;
	d.conn_total_ms = 8.0;
	out = render(&s, &d);
	ck_assert_str_eq(out,
					 "transaction type: x.sql\n"
					 "scaling factor: 5\n"
					 "partition method: hash\n"
					 "partitions: 4\n"
					 "query mode: prepared\n"
					 "number of clients: 1\n"
					 "number of threads: 1\n"
					 "maximum number of tries: 3\n"
					 "duration: 2 s\n"
					 "number of transactions actually processed: 2\n"
					 "number of failed transactions: 2 (50.000%)\n"
					 "number of serialization failures: 1 (25.000%)\n"
					 "number of deadlock failures: 1 (25.000%)\n"
					 "number of other failures: 0 (0.000%)\n"
					 "number of transactions retried: 2 (50.000%)\n"
					 "total number of retries: 3\n"
					 "latency average = 2.000 ms\n"
					 "latency stddev = 1.000 ms\n"
					 "average connection time = 2.000 ms\n"
					 "tps = 1.000000 (including reconnection times)\n");
	free(out);
	script_free(s.scripts[0]);
}
END_TEST

START_TEST(report_nothing_ran_no_nan)
{
	bench_settings s = {.nclients = 2,.nthreads = 1,.transactions = 2,.scale = 1,
	.max_tries = 1};
	report_data d = {0};
	char	   *out;

	s.scripts[0] = one_script("e.sql", 1);
	s.nscripts = 1;
	s.total_weight = 1;
	d.bench_duration_s = 0.01;
	out = render(&s, &d);
	ck_assert_ptr_null(strstr(out, "NaN"));
	ck_assert_ptr_nonnull(strstr(out, "number of transactions actually processed: 0/4\n"));
	ck_assert_ptr_null(strstr(out, "tps"));
	free(out);
	script_free(s.scripts[0]);
}
END_TEST

START_TEST(report_per_script_and_commands)
{
	bench_settings s = {.nclients = 1,.nthreads = 1,.transactions = 3,.scale = 1,
	.max_tries = 1,.per_command = true};
	report_data d = {0};
	stats		ss[2];
	stats_command c0[3] = {{1, 1000, 0, 0}, {2, 3e6, 1, 0}, {0}};
	stats_command c1[3] = {{0}};
	stats_command *cmds[2] = {c0, c1};
	char	   *out;

	s.scripts[0] = one_script("<builtin: select only>", 2);
	s.scripts[1] = one_script("<builtin: simple update>", 1);
	s.nscripts = 2;
	s.total_weight = 3;
	stats_init(&ss[0]);
	stats_init(&ss[1]);
	stats_add_tx(&ss[0], STATS_OK, 1, 1e6, 0, false);
	stats_add_tx(&ss[0], STATS_OK, 1, 1e6, 0, false);
	stats_add_tx(&ss[1], STATS_OK, 1, 4e6, 0, false);
	stats_merge(&d.total, &ss[0]);
	stats_merge(&d.total, &ss[1]);
	d.scripts = ss;
	d.commands = cmds;
	d.bench_duration_s = 0.5;
	d.conn_elapsed_ms = 1;
	out = render(&s, &d);
	ck_assert_ptr_nonnull(strstr(out,
								 "tps = 6.000000 (without initial connection time)\n"
								 "SQL script 1: <builtin: select only>\n"
								 " - weight: 2 (targets 66.7% of total)\n"
								 " - 2 transactions (66.7% of total)\n"
								 " - number of transactions actually processed: 2 (tps = 4.000000)\n"
								 " - number of failed transactions: 0 (0.000%)\n"
								 " - latency average = 1.000 ms\n"
								 " - latency stddev = 0.000 ms\n"
								 " - statement latencies in milliseconds and failures:\n"
								 "         0.001           0  \\set a 1\n"
								 "         1.500           1  select :a;\n"
								 "SQL script 2: <builtin: simple update>\n"));
	free(out);
	script_free(s.scripts[0]);
	script_free(s.scripts[1]);
}
END_TEST

START_TEST(progress_line)
{
	bench_settings s = {.max_tries = 2};
	stats		cur,
				last;
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *f = open_memstream(&buf, &len);

	stats_init(&cur);
	stats_init(&last);
	stats_add_tx(&cur, STATS_OK, 1, 1e6, 0, false);
	last = cur;
	stats_add_tx(&cur, STATS_OK, 2, 2e6, 0, false);
	stats_add_tx(&cur, STATS_OK, 1, 4e6, 0, false);
	stats_add_tx(&cur, STATS_DEADLOCK, 1, 0, 0, false);
	report_progress(f, &s, &cur, &last, 1.0, 5.02, 0);
	s.progress_timestamp = true;
	report_progress(f, &s, &cur, &last, 0.5, 5.02, 1700000000.1234);
	fclose(f);
	ck_assert_str_eq(buf,
					 "progress: 5.0 s, 2.0 tps, lat 3.000 ms stddev 1.000, 1 failed, 1 retried, 1 retries\n"
					 "progress: 1700000000.123 s, 4.0 tps, lat 3.000 ms stddev 1.000, 1 failed, 1 retried, 1 retries\n");
	free(buf);
}
END_TEST

static Suite *
report_suite(void)
{
	Suite	   *s = suite_create("bench_report");
	TCase	   *tc = tcase_create("report");

	tcase_add_test(tc, stats_count_and_merge);
	tcase_add_test(tc, report_t_mode);
	tcase_add_test(tc, report_retries_failures_progress_connect);
	tcase_add_test(tc, report_nothing_ran_no_nan);
	tcase_add_test(tc, report_per_script_and_commands);
	tcase_add_test(tc, progress_line);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(report_suite());
}
