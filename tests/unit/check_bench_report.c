/*
 * check_bench_report.c — the run's counters and pgbench's report layout.
 *
 * The expected texts are pgbench's lines for the same counts (the layout
 * of pgbench 15, with the newest pgbench's per-script section and
 * "other failures" line), plus our percentile lines, the histogram file
 * and the JSON document.
 */
#include "config.h"

#include "results/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "results/benchmetrics.h"
#include "results/benchwaits.h"
#include "results/jsonreport.h"
#include "results/series.h"
#include "pgtempo/xalloc.h"
#include "results/stats.h"
#include "unit.h"

/* The report of d for settings s and facts server, as a string (caller frees). */
static char *
render_facts(const bench_settings *s, const bench_server_facts *server, const report_data *d)
{
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *f = open_memstream(&buf, &len);

	report_print(f, s, server, d);
	fclose(f);
	return buf;
}

/* The same with the scale of the settings and no partitions. */
static char *
render(const bench_settings *s, const report_data *d)
{
	bench_server_facts server = {.scale = s->scale};

	return render_facts(s, &server, d);
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
	stats_add_tx(&a, STATS_OK, 1, 1e6, 0, false, false);
	stats_add_tx(&a, STATS_OK, 3, 3e6, 0, false, false);
	stats_add_tx(&a, STATS_SERIALIZATION, 2, 0, 0, false, false);
	stats_add_tx(&b, STATS_DEADLOCK, 1, 0, 0, false, false);
	stats_add_tx(&b, STATS_OTHER, 1, 0, 0, false, false);
	stats_add_tx(&b, STATS_OK, 1, 2e6, 0, false, false);
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
		stats_add_tx(&d.total, STATS_OK, 1, 2e6, 0, false, false);
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
	.failures_detailed = true,.progress = 1,.is_connect = true,.mode = QUERY_PREPARED};
	bench_server_facts server = {.scale = 5,.partition_method = "hash",.partitions = 4};
	report_data d = {0};
	char	   *out;

	s.scripts[0] = one_script("x.sql", 1);
	s.nscripts = 1;
	s.total_weight = 1;
	stats_add_tx(&d.total, STATS_OK, 2, 1e6, 0, false, false);
	stats_add_tx(&d.total, STATS_OK, 1, 3e6, 0, false, false);
	stats_add_tx(&d.total, STATS_SERIALIZATION, 3, 0, 0, false, false);
	stats_add_tx(&d.total, STATS_DEADLOCK, 1, 0, 0, false, false);
	d.bench_duration_s = 2.0;
	d.conn_total_ms = 8.0;
	out = render_facts(&s, &server, &d);
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
	stats_add_tx(&ss[0], STATS_OK, 1, 1e6, 0, false, false);
	stats_add_tx(&ss[0], STATS_OK, 1, 1e6, 0, false, false);
	stats_add_tx(&ss[1], STATS_OK, 1, 4e6, 0, false, false);
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

/* One progress line of cur - last, as a string (caller frees). */
static char *
progress_text(const bench_settings *s, const stats *cur, const stats *last, const hist *interval,
			  double interval_s, double elapsed_s, double epoch_s)
{
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *f = open_memstream(&buf, &len);
	report_progress_point p;

	report_progress_compute(&p, s, cur, last, interval, interval_s, elapsed_s, epoch_s);
	report_progress_print(f, s, &p);
	fclose(f);
	return buf;
}

START_TEST(progress_line)
{
	bench_settings s = {.max_tries = 2};
	stats		cur,
				last;
	char	   *a,
			   *b;

	stats_init(&cur);
	stats_init(&last);
	stats_add_tx(&cur, STATS_OK, 1, 1e6, 0, false, false);
	last = cur;
	stats_add_tx(&cur, STATS_OK, 2, 2e6, 0, false, false);
	stats_add_tx(&cur, STATS_OK, 1, 4e6, 0, false, false);
	stats_add_tx(&cur, STATS_DEADLOCK, 1, 0, 0, false, false);
	a = progress_text(&s, &cur, &last, NULL, 1.0, 5.02, 0);
	s.progress_timestamp = true;
	b = progress_text(&s, &cur, &last, NULL, 0.5, 5.02, 1700000000.1234);
	ck_assert_str_eq(a, "progress: 5.0 s, 2.0 tps, lat 3.000 ms stddev 1.000, 1 failed, 1 retried, 1 retries\n");
	ck_assert_str_eq(b, "progress: 1700000000.123 s, 4.0 tps, lat 3.000 ms stddev 1.000, 1 failed, 1 retried, 1 retries\n");
	free(a);
	free(b);
}
END_TEST

/*
 * A histogram of 2, 4 and 8 ms: p50 is 4 ms's bucket [3997696, 4014079]
 * ns, reported as its midpoint 4005887 ns; p90 and up are 8 ms's bucket,
 * whose midpoint (8011775) is clamped to the exact maximum.
 */
static void
hist_248(hist *h)
{
	hist_init(h);
	hist_record(h, 2000000);
	hist_record(h, 4000000);
	hist_record(h, 8000000);
}

/* -R and -L: skipped, above the limit, measured latency, percentiles, lag (pgbench's order). */
START_TEST(report_rate_and_latency_limit)
{
	bench_settings s = {.nclients = 2,.nthreads = 1,.duration = 10,.scale = 1,.max_tries = 1,
	.rate = 100,.latency_limit_ns = 5000000};
	report_data d = {0};
	hist		h;
	char	   *out;

	s.scripts[0] = one_script("r.sql", 1);
	s.nscripts = 1;
	s.total_weight = 1;
	stats_add_tx(&d.total, STATS_OK, 1, 2e6, 0.5e6, true, false);
	stats_add_tx(&d.total, STATS_OK, 1, 4e6, 1e6, true, false);
	stats_add_tx(&d.total, STATS_OK, 1, 8e6, 3e6, true, true);
	stats_add_tx(&d.total, STATS_SKIPPED, 1, 0, 0, true, false);
	hist_248(&h);
	d.lat_hist = &h;
	d.bench_duration_s = 10.0;
	d.conn_elapsed_ms = 1.0;
	out = render(&s, &d);
	ck_assert_str_eq(out,
					 "transaction type: r.sql\n"
					 "scaling factor: 1\n"
					 "query mode: simple\n"
					 "number of clients: 2\n"
					 "number of threads: 1\n"
					 "maximum number of tries: 1\n"
					 "duration: 10 s\n"
					 "number of transactions actually processed: 3\n"
					 "number of failed transactions: 0 (0.000%)\n"
					 "number of transactions skipped: 1 (25.000%)\n"
					 "number of transactions above the 5.0 ms latency limit: 1/3 (33.333%)\n"
					 "latency average = 4.667 ms\n"
					 "latency stddev = 2.494 ms\n"
					 "latency percentiles: p50 = 4.006 ms, p90 = 8.000 ms, p99 = 8.000 ms, p99.9 = 8.000 ms, max = 8.000 ms\n"
					 "rate limit schedule lag: avg 1.500 (max 3.000) ms\n"
					 "initial connection time = 1.000 ms\n"
					 "tps = 0.300000 (without initial connection time)\n");
	free(out);

	/* -L alone: no skipped line, no lag; measured latencies */
	s.rate = 0;
	s.latency_limit_ns = 2500000;
	out = render(&s, &d);
	ck_assert_ptr_nonnull(strstr(out,
								 "number of failed transactions: 0 (0.000%)\n"
								 "number of transactions above the 2.5 ms latency limit: 1/3 (33.333%)\n"
								 "latency average = 4.667 ms\n"
								 "latency stddev = 2.494 ms\n"
								 "latency percentiles: p50 = 4.006 ms, p90 = 8.000 ms, p99 = 8.000 ms, p99.9 = 8.000 ms, max = 8.000 ms\n"
								 "initial connection time = 1.000 ms\n"));
	free(out);

	/* -R alone: the lag, no skipped or above-the-limit lines */
	s.rate = 100;
	s.latency_limit_ns = 0;
	out = render(&s, &d);
	ck_assert_ptr_null(strstr(out, "skipped"));
	ck_assert_ptr_null(strstr(out, "latency limit"));
	ck_assert_ptr_nonnull(strstr(out, "latency stddev = 2.494 ms\n"
								 "latency percentiles: p50 = 4.006 ms, p90 = 8.000 ms, p99 = 8.000 ms, p99.9 = 8.000 ms, max = 8.000 ms\n"
								 "rate limit schedule lag: avg 1.500 (max 3.000) ms\n"));
	free(out);
	script_free(s.scripts[0]);
}
END_TEST

/* Every transaction skipped: pgbench would print NaN for the lag; we print 0. */
START_TEST(report_all_skipped_no_nan)
{
	bench_settings s = {.nclients = 1,.nthreads = 1,.transactions = 2,.scale = 1,.max_tries = 1,
	.rate = 10,.latency_limit_ns = 1000};
	report_data d = {0};
	hist		h;
	char	   *out;

	s.scripts[0] = one_script("r.sql", 1);
	s.nscripts = 1;
	s.total_weight = 1;
	stats_add_tx(&d.total, STATS_SKIPPED, 1, 0, 0, true, false);
	stats_add_tx(&d.total, STATS_SKIPPED, 1, 0, 0, true, false);
	hist_init(&h);
	d.lat_hist = &h;
	d.bench_duration_s = 1.0;
	out = render(&s, &d);
	ck_assert_ptr_nonnull(strstr(out,
								 "number of transactions actually processed: 0/2\n"
								 "number of failed transactions: 0 (0.000%)\n"
								 "number of transactions skipped: 2 (100.000%)\n"
								 "number of transactions above the 0.0 ms latency limit: 0/0 (0.000%)\n"
								 "rate limit schedule lag: avg 0.000 (max 0.000) ms\n"));
	ck_assert_ptr_null(strstr(out, "percentiles"));
	ck_assert_ptr_null(strstr(out, "nan"));
	free(out);
	script_free(s.scripts[0]);
}
END_TEST

/* Without -P/-R/-L, the percentile line follows pgbench's estimated average; --percentiles. */
START_TEST(report_percentiles_custom)
{
	bench_settings s = {.nclients = 1,.nthreads = 1,.transactions = 3,.scale = 1,.max_tries = 1};
	report_data d = {0};
	hist		h;
	char	   *out;

	s.scripts[0] = one_script("p.sql", 1);
	s.nscripts = 1;
	s.total_weight = 1;
	stats_add_tx(&d.total, STATS_OK, 1, 2e6, 0, false, false);
	stats_add_tx(&d.total, STATS_OK, 1, 4e6, 0, false, false);
	stats_add_tx(&d.total, STATS_OK, 1, 8e6, 0, false, false);
	hist_248(&h);
	d.lat_hist = &h;
	d.bench_duration_s = 0.015;
	s.percentiles[0] = 25;
	s.percentiles[1] = 99.99;
	s.percentiles[2] = 100;
	s.npercentiles = 3;
	out = render(&s, &d);
	ck_assert_ptr_nonnull(strstr(out,
								 "latency average = 5.000 ms\n"
								 "latency percentiles: p25 = 2.003 ms, p99.99 = 8.000 ms, p100 = 8.000 ms, max = 8.000 ms\n"
								 "initial connection time"));
	free(out);
	script_free(s.scripts[0]);
}
END_TEST

/* The per-script section: skipped under -R -L, and the script's own percentiles. */
START_TEST(report_per_script_rate_percentiles)
{
	bench_settings s = {.nclients = 1,.nthreads = 1,.duration = 1,.scale = 1,.max_tries = 1,
	.rate = 50,.latency_limit_ns = 10000000};
	report_data d = {0};
	stats		ss[2];
	hist		hs[2],
				h;
	char	   *out;

	s.scripts[0] = one_script("a.sql", 1);
	s.scripts[1] = one_script("b.sql", 1);
	s.nscripts = 2;
	s.total_weight = 2;
	stats_init(&ss[0]);
	stats_init(&ss[1]);
	stats_add_tx(&ss[0], STATS_OK, 1, 2e6, 0, true, false);
	stats_add_tx(&ss[0], STATS_SKIPPED, 1, 0, 0, true, false);
	stats_add_tx(&ss[1], STATS_OK, 1, 4e6, 0, true, false);
	stats_add_tx(&ss[1], STATS_OK, 1, 8e6, 0, true, false);
	hist_init(&hs[0]);
	hist_record(&hs[0], 2000000);
	hist_init(&hs[1]);
	hist_record(&hs[1], 4000000);
	hist_record(&hs[1], 8000000);
	hist_248(&h);
	stats_merge(&d.total, &ss[0]);
	stats_merge(&d.total, &ss[1]);
	d.scripts = ss;
	d.lat_hist = &h;
	d.script_hists = hs;
	d.bench_duration_s = 1.0;
	out = render(&s, &d);
	ck_assert_ptr_nonnull(strstr(out,
								 "SQL script 1: a.sql\n"
								 " - weight: 1 (targets 50.0% of total)\n"
								 " - 2 transactions (50.0% of total)\n"
								 " - number of transactions actually processed: 1 (tps = 1.000000)\n"
								 " - number of failed transactions: 0 (0.000%)\n"
								 " - number of transactions skipped: 1 (50.000%)\n"
								 " - latency average = 2.000 ms\n"
								 " - latency stddev = 0.000 ms\n"
								 " - latency percentiles: p50 = 2.000 ms, p90 = 2.000 ms, p99 = 2.000 ms, p99.9 = 2.000 ms, max = 2.000 ms\n"
								 "SQL script 2: b.sql\n"
								 " - weight: 1 (targets 50.0% of total)\n"
								 " - 2 transactions (50.0% of total)\n"
								 " - number of transactions actually processed: 2 (tps = 2.000000)\n"
								 " - number of failed transactions: 0 (0.000%)\n"
								 " - number of transactions skipped: 0 (0.000%)\n"
								 " - latency average = 6.000 ms\n"
								 " - latency stddev = 2.000 ms\n"
								 " - latency percentiles: p50 = 4.006 ms, p90 = 8.000 ms, p99 = 8.000 ms, p99.9 = 8.000 ms, max = 8.000 ms\n"));
	ck_assert_ptr_null(strstr(out, "NaN"));
	free(out);
	script_free(s.scripts[0]);
	script_free(s.scripts[1]);
}
END_TEST

/* -P with -R and -L: pgbench's ", lag X ms, N skipped"; then our percentiles, opt-in. */
START_TEST(progress_rate_and_percentiles)
{
	bench_settings s = {.max_tries = 1,.rate = 100,.latency_limit_ns = 5000000,.progress = 1};
	stats		cur,
				last;
	hist	   *hcur = malloc(sizeof(hist)),
			   *hlast = malloc(sizeof(hist)),
			   *hint = malloc(sizeof(hist));
	char	   *a;

	stats_init(&cur);
	stats_init(&last);
	hist_init(hcur);
	stats_add_tx(&cur, STATS_OK, 1, 1e6, 0, true, false);
	hist_record(hcur, 1000000);
	last = cur;
	*hlast = *hcur;
	stats_add_tx(&cur, STATS_OK, 1, 2e6, 1e6, true, false);
	stats_add_tx(&cur, STATS_OK, 1, 4e6, 3e6, true, false);
	stats_add_tx(&cur, STATS_SKIPPED, 1, 0, 0, true, false);
	hist_record(hcur, 2000000);
	hist_record(hcur, 4000000);
	stats_hist_interval(hint, hcur, hlast);
	ck_assert_uint_eq(hint->total, 2);

	/* the default line is pgbench's, percentiles computed or not */
	a = progress_text(&s, &cur, &last, hint, 1.0, 1.0, 0);
	ck_assert_str_eq(a, "progress: 1.0 s, 2.0 tps, lat 3.000 ms stddev 1.000, 0 failed, lag 2.000 ms, 1 skipped\n");
	free(a);
	s.progress_percentiles = true;
	a = progress_text(&s, &cur, &last, hint, 1.0, 1.0, 0);
	ck_assert_str_eq(a, "progress: 1.0 s, 2.0 tps, lat 3.000 ms stddev 1.000, 0 failed, lag 2.000 ms, 1 skipped, "
					 "p50 2.003 p90 4.000 p99 4.000 p99.9 4.000 max 4.000 ms\n");
	free(a);

	/* -R alone: the lag, no skipped count; an empty interval prints zeros */
	s.latency_limit_ns = 0;
	stats_hist_interval(hint, hcur, hcur);
	ck_assert_uint_eq(hint->total, 0);
	a = progress_text(&s, &cur, &cur, hint, 1.0, 2.0, 0);
	ck_assert_str_eq(a, "progress: 2.0 s, 0.0 tps, lat 0.000 ms stddev 0.000, 0 failed, lag 0.000 ms, "
					 "p50 0.000 p90 0.000 p99 0.000 p99.9 0.000 max 0.000 ms\n");
	free(a);
	free(hcur);
	free(hlast);
	free(hint);
}
END_TEST

/* The interval histogram is the bucket-wise difference, and never negative. */
START_TEST(hist_interval_difference)
{
	hist	   *a = malloc(sizeof(hist)),
			   *b = malloc(sizeof(hist)),
			   *d = malloc(sizeof(hist));

	hist_init(a);
	for (uint64_t v = 1000; v < 1000000; v += 997)
		hist_record(a, v);
	*b = *a;
	for (uint64_t v = 5000; v < 50000; v += 101)
		hist_record(b, v);
	stats_hist_interval(d, b, a);
	ck_assert_uint_eq(d->total, b->total - a->total);
	for (int i = 0; i < HIST_BUCKETS; i++)
		ck_assert_uint_eq(d->counts[i], b->counts[i] - a->counts[i]);
	ck_assert_uint_ge(d->min, 4980);
	ck_assert_uint_le(d->max, 50100);
	/* reversed (a torn snapshot): empty, not a wrapped-around count */
	stats_hist_interval(d, a, b);
	ck_assert_uint_eq(d->total, 0);
	free(a);
	free(b);
	free(d);
}
END_TEST

/* --latency-histogram lines: exact bounds in microseconds, half-open, non-empty buckets only. */
START_TEST(histogram_file_text)
{
	hist	   *h = malloc(sizeof(hist));
	strbuf		sb;

	hist_init(h);
	hist_record(h, 100);
	hist_record(h, 100);
	hist_record(h, 300);
	hist_record(h, 301);
	hist_record(h, 2000000);
	strbuf_init(&sb);
	report_histogram_text(&sb, h);
	ck_assert_str_eq(sb.data,
					 "0.100 0.101 2\n"
					 "0.300 0.302 2\n"
					 "1998.848 2007.040 1\n");
	strbuf_free(&sb);
	free(h);
}
END_TEST

/* Write errors name the file; a bad directory fails at the open. */
START_TEST(write_file_errors)
{
	char	   *cause = NULL;
	char		path[] = "/tmp/check_bench_reportXXXXXX";
	int			fd = mkstemp(path);
	FILE	   *f;
	char		back[16] = {0};

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert(strbuf_write_file(path, "1 2 3\n", 6, &cause));
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(fgets(back, sizeof(back), f));
	fclose(f);
	unlink(path);
	ck_assert_str_eq(back, "1 2 3\n");

	ck_assert(!strbuf_write_file("/nonexistent-dir/x", "x", 1, &cause));
	ck_assert_str_eq(cause, "could not open file \"/nonexistent-dir/x\" for writing: No such file or directory");
	free(cause);
	if (access("/dev/full", W_OK) == 0)
	{
		ck_assert(!strbuf_write_file("/dev/full", "x", 1, &cause));
		ck_assert_str_eq(cause, "could not write to file \"/dev/full\": No space left on device");
		free(cause);
	}
}
END_TEST

/* The JSON document: a few fields of each part, and null where nothing applies. */
START_TEST(json_document)
{
	series		ser;
	series_row *row;
	bench_settings s = {.nclients = 2,.nthreads = 1,.transactions = 2,.scale = 1,.max_tries = 1,
	.rate = 100,.latency_limit_ns = 5000000,.progress = 1,.json_path = "-"};
	report_data d = {0};
	hist		h;
	report_progress_point pts[1];
	stats		cur,
				last;
	bench_server_facts server = {.scale = 1};
	jsonreport_run run = {.server = &server,.server_version = "15.2",.server_version_num = 150002,
		.start_epoch_s = 1700000000.25,.end_epoch_s = 1700000001.5,.exit_status = 0};
	strbuf		sb;

	s.scripts[0] = one_script("j.sql", 1);
	s.nscripts = 1;
	s.total_weight = 1;
	s.percentiles[0] = 50;
	s.percentiles[1] = 50;
	s.percentiles[2] = 99.9;
	s.npercentiles = 3;
	stats_add_tx(&d.total, STATS_OK, 1, 2e6, 0.5e6, true, false);
	stats_add_tx(&d.total, STATS_OK, 1, 4e6, 1e6, true, false);
	stats_add_tx(&d.total, STATS_OK, 1, 8e6, 3e6, true, true);
	stats_add_tx(&d.total, STATS_SKIPPED, 1, 0, 0, true, false);
	hist_248(&h);
	d.lat_hist = &h;
	d.bench_duration_s = 2.0;
	d.conn_elapsed_ms = 1.5;
	stats_init(&cur);
	stats_init(&last);
	stats_add_tx(&cur, STATS_OK, 1, 2e6, 0.5e6, true, false);
	report_progress_compute(&pts[0], &s, &cur, &last, NULL, 1.0, 1.0, 1700000001.0);
	run.data = &d;
	run.progress = pts;
	run.nprogress = 1;
	/* the series of intervals: a row on one line, its histogram as text */
	series_init(&ser, 1, 1);
	row = series_add_row(&ser, 1.0000004, 1700000001.25, 1);
	row->cells[0].transactions = 3;
	row->cells[0].latency_sum_ns = 14000000;
	row->cells[0].hist_text = xstrdup("300 1 0 2 +5 1");
	run.series = &ser;
	strbuf_init(&sb);
	jsonreport_build(&sb, &s, &run);
	ck_assert_ptr_nonnull(strstr(sb.data, "\"intervals\": {\n    \"interval_s\": 1,\n"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"rows\": [\n      [1,1700000001.25,1,3,0,14000000,\"300 1 0 2 +5 1\"]\n    ]"));
	series_free(&ser);
	run.series = NULL;
	ck_assert_ptr_nonnull(strstr(sb.data, "\"tool\": \"pgtempo-bench\""));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"schema\": 1,"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"server_version\": \"15.2\""));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"server_version_num\": 150002"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"rate_tps\": 100,"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"latency_limit_ms\": 5,"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"percentiles\": [\n      50,\n      50,\n      99.9\n    ]"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"total\": 4,\n      \"processed\": 3,\n      \"expected\": 4,"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"skipped\": 1,\n      \"late\": 1,"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"tps\": 1.5,"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"initial_connection_time_ms\": 1.5,\n    \"average_connection_time_ms\": null,"));
	/* one p50 key although 50 was asked twice */
	ck_assert_ptr_nonnull(strstr(sb.data, "\"percentiles_ms\": {\n        \"p50\": 4.005887,\n        \"p99.9\": 8,\n        \"max\": 8\n      }"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"low_us\": 1998.848,\n          \"high_us\": 2007.04,\n          \"count\": 1"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"lag\": {\n      \"average_ms\": 1.5,\n      \"max_ms\": 3,\n"
								 "      \"count\": 3,\n      \"sum_ns\": 4500000,\n"
								 "      \"sum_squares_ns2\": 10250000000000,\n"
								 "      \"min_ns\": 500000,\n      \"max_ns\": 3000000\n    }"));
	/* the exact sums --merge adds up, and where and when */
	ck_assert_ptr_nonnull(strstr(sb.data, "\"count\": 3,\n      \"sum_ns\": 14000000,\n"
								 "      \"sum_squares_ns2\": 84000000000000,\n"
								 "      \"min_ns\": 2000000,\n      \"max_ns\": 8000000,\n"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"histogram_clamped\": 0\n"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"start_at\": null,\n  \"start_at_epoch_s\": null,\n  \"host\": \""));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"commands\": null"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"time_s\": 1,"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"lag_ms\": 0.5,"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"exit_status\": 0,"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"interrupted_by\": null,"));
	ck_assert(sb.len > 0 && sb.data[sb.len - 1] == '\n');

	/* a run that did not start: results null; no -P: progress null; no series: intervals null */
	strbuf_reset(&sb);
	s.progress = 0;
	run.data = NULL;
	run.exit_status = 1;
	jsonreport_build(&sb, &s, &run);
	ck_assert_ptr_nonnull(strstr(sb.data, "\"results\": null,"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"progress\": null,\n  \"intervals\": null\n}\n"));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"exit_status\": 1,"));
	strbuf_free(&sb);
	script_free(s.scripts[0]);
}
END_TEST

/* ISO 8601 with the local offset, to the millisecond. */
START_TEST(json_iso8601)
{
	char		buf[64];
	char	   *tz = getenv("TZ") ? strdup(getenv("TZ")) : NULL;

	setenv("TZ", "UTC", 1);
	tzset();
	jsonreport_iso8601(buf, sizeof(buf), 1700000000.1234);
	ck_assert_str_eq(buf, "2023-11-14T22:13:20.123+00:00");
	setenv("TZ", "EST5", 1);
	tzset();
	jsonreport_iso8601(buf, sizeof(buf), 1700000000.9999);
	ck_assert_str_eq(buf, "2023-11-14T17:13:20.999-05:00");
	if (tz != NULL)
		setenv("TZ", tz, 1);
	else
		unsetenv("TZ");
	tzset();
	free(tz);
}
END_TEST

/* The --waits table: fixed columns as before; an event name from the server printed safely. */
START_TEST(waits_table)
{
	bwaits_event ev[] = {
		{"Lock", "transactionid", 1200, 60.0},
		{"CPU", NULL, 700, 35.0},
		{"IO", "Data\n\x1b[2J", 100, 5.0},
	};
	/* the cost unknown (a server on another host): no cost line */
	bwaits_report rep = {.interval_ns = 10000000, .ticks = 500, .sessions = 4,
	.counted = 2000, .ev = ev, .nev = 3, .cost_us = -1, .backends = -1};
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *f = open_memstream(&buf, &len);
	static const char table[] =
		"wait events (sampled every 10 ms, 500 samples of 4 sessions):\n"
		"  wait_event_type  wait_event              samples      %\n"
		"  Lock             transactionid              1200   60.0\n"
		"  CPU              -                           700   35.0\n"
		"  IO               Data\\n\\x1b[2J               100    5.0\n";
	/* measured: a line after the table (which scripts parse), saying which statement */
	static const struct
	{
		bool		pids_each;
		const char *line;
	}			cost_cases[] = {
		{false, "sampling cost: 95 us of server CPU per sample (a row per backend, filtered to"
		 " the clients' pids, 12 backends)\n"},
		{true, "sampling cost: 95 us of server CPU per sample (pg_stat_get_activity(pid) of the"
		 " clients' pids, 12 backends)\n"},
	};

	bwaits_report_print(f, &rep);
	fclose(f);
	ck_assert_str_eq(buf, table);
	free(buf);
	for (size_t i = 0; i < sizeof(cost_cases) / sizeof(cost_cases[0]); i++)
	{
		rep.cost_us = 95;
		rep.backends = 12;
		rep.pids_each = cost_cases[i].pids_each;
		buf = NULL;
		f = open_memstream(&buf, &len);
		bwaits_report_print(f, &rep);
		fclose(f);
		ck_assert(strncmp(buf, table, strlen(table)) == 0);
		ck_assert_str_eq(buf + strlen(table), cost_cases[i].line);
		free(buf);
	}
}
END_TEST

/*
 * --metrics: the latency histogram's octaves hold exactly the latencies at
 * or below 2^k - 1 ns, those beyond 2^36 - 1 ns go to +Inf; the counters
 * are the report's, by kind; a run that did not start has no counters.
 */
START_TEST(metrics_octaves_and_counters)
{
	static const uint64_t lat[] = {0, 1023, 1024, 2047, 2048, (UINT64_C(1) << 36) - 1,
	UINT64_C(1) << 36, UINT64_C(1) << 40};
	static const char *const want[] = {
		"pgtempo_bench_latency_seconds_bucket{script=\"0\",le=\"1.023e-06\"} 2\n",
		"pgtempo_bench_latency_seconds_bucket{script=\"0\",le=\"2.047e-06\"} 4\n",
		"pgtempo_bench_latency_seconds_bucket{script=\"0\",le=\"4.095e-06\"} 5\n",
		"pgtempo_bench_latency_seconds_bucket{script=\"0\",le=\"34.359738367\"} 5\n",
		"pgtempo_bench_latency_seconds_bucket{script=\"0\",le=\"68.719476735\"} 6\n",
		"pgtempo_bench_latency_seconds_bucket{script=\"0\",le=\"+Inf\"} 8\n",
		"pgtempo_bench_latency_seconds_count{script=\"0\"} 8\n",
		"pgtempo_bench_transactions_total{script=\"0\"} 8\n",
		"pgtempo_bench_failures_total{script=\"0\",kind=\"serialization\"} 1\n",
		"pgtempo_bench_failures_total{script=\"0\",kind=\"deadlock\"} 0\n",
		"pgtempo_bench_failures_total{script=\"0\",kind=\"other\"} 2\n",
		"pgtempo_bench_retries_total{script=\"0\"} 1\n",
		"pgtempo_bench_tps{script=\"0\"} 4\n",
		"pgtempo_bench_exit_status 0\n",
		"pgtempo_bench_script_info{script=\"0\",name=\"x.sql\",weight=\"3\"} 1\n",
	};
	bench_settings s = {.nclients = 2,.nthreads = 1,.transactions = 4,.max_tries = 2};
	bench_results res;
	metrics		m;
	strbuf		sb;
	char	   *cause = NULL;

	memset(&res, 0, sizeof(res));
	s.scripts[0] = one_script("x.sql", 3);
	s.nscripts = 1;
	s.total_weight = 3;
	res.merged = true;
	stats_init(&res.data.total);
	res.data.lat_hist = hist_new(1);
	res.data.bench_duration_s = 2;
	for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++)
	{
		stats_add_tx(&res.data.total, STATS_OK, 1, (double) lat[i], 0, false, false);
		hist_record(res.data.lat_hist, lat[i]);
	}
	stats_add_tx(&res.data.total, STATS_SERIALIZATION, 2, 0, 0, false, false);
	stats_add_tx(&res.data.total, STATS_OTHER, 1, 0, 0, false, false);
	stats_add_tx(&res.data.total, STATS_OTHER, 1, 0, 0, false, false);
	metrics_init(&m);
	strbuf_init(&sb);
	benchmetrics_build(&m, &s, &res, 0);
	ck_assert(metrics_render(&m, 0, &sb, &cause));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(sb.data, want[i]) != NULL, "missing: %sin:\n%s", want[i], sb.data);

	/* the run did not start: its own metrics only */
	res.merged = false;
	metrics_reset(&m);
	strbuf_reset(&sb);
	benchmetrics_build(&m, &s, &res, 1);
	ck_assert(metrics_render(&m, 0, &sb, &cause));
	ck_assert_ptr_nonnull(strstr(sb.data, "pgtempo_bench_exit_status 1\n"));
	ck_assert_ptr_null(strstr(sb.data, "transactions_total"));
	ck_assert_ptr_null(strstr(sb.data, "latency_seconds"));

	free(res.data.lat_hist);
	strbuf_free(&sb);
	metrics_free(&m);
	script_free(s.scripts[0]);
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
	tcase_add_test(tc, report_rate_and_latency_limit);
	tcase_add_test(tc, report_all_skipped_no_nan);
	tcase_add_test(tc, report_percentiles_custom);
	tcase_add_test(tc, report_per_script_rate_percentiles);
	tcase_add_test(tc, progress_rate_and_percentiles);
	tcase_add_test(tc, hist_interval_difference);
	tcase_add_test(tc, histogram_file_text);
	tcase_add_test(tc, write_file_errors);
	tcase_add_test(tc, json_document);
	tcase_add_test(tc, json_iso8601);
	tcase_add_test(tc, waits_table);
	tcase_add_test(tc, metrics_octaves_and_counters);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(report_suite());
}
