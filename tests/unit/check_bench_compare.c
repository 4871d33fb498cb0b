/*
 * check_bench_compare.c — unit tests of --compare's pieces: --fail-if
 * lists, the series' sparse histogram text, and the block bootstrap on
 * synthetic series (seeded): a known change is found with its sign,
 * identical processes are mostly "no difference shown", the same input
 * gives the same interval, and a short series gives none.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/compare_int.h"
#include "gate_cases.h"
#include "pgtempo/jsonread.h"
#include "pgtempo/xalloc.h"
#include "results/series.h"
#include "unit.h"

START_TEST(fail_if_lists)
{
	static const struct
	{
		const char *list;
		int			n;			/* limits read; 0: refused */
		double		first;
	}			cases[] = {
		{"tps:-5%", 1, -5}, {"p99:+10%", 1, 10}, {"tps:-5%,p99:+10%,avg:+2.5%", 3, -5},
		{"p99.9:+0%", 1, 0}, {"tps:5%", 0, 0}, {"tps:-5", 0, 0}, {"tps-5%", 0, 0},
		{"foo:-5%", 0, 0}, {"p100:+1%", 0, 0}, {"p0:+1%", 0, 0}, {"tps:-100%", 0, 0},
		{"", 0, 0}, {"tps:-x%", 0, 0}, {"tps:-5%%", 0, 0}, {":-5%", 0, 0},
		/* the gate's other spellings; waits' units are not bench's */
		{"tps<-5%", 1, -5}, {"latency:p99:>+10%", 1, 10}, {"tps<0.95x", 1, -5}, {"tps:-0.5", 0, 0},
		{"p99<10ms", 0, 0}, {"latency:tps:-5%", 0, 0}, {"total:+50%", 0, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		compare_settings cs;
		bool		ok;
		char	   *err;

		memset(&cs, 0, sizeof(cs));
		unit_stderr_begin();
		ok = compare_parse_limits(&cs, cases[i].list);
		err = unit_stderr_end();
		ck_assert_msg(ok == (cases[i].n > 0), "\"%s\": %d", cases[i].list, ok);
		if (ok)
		{
			ck_assert_int_eq(cs.nlimits, cases[i].n);
			ck_assert_double_eq_tol(cs.limits[0].value, cases[i].first, 1e-12);
		}
		else
			ck_assert_msg(strstr(err, "invalid value") != NULL, "%s", err);
		free(err);
	}
}
END_TEST

/* The cases both tools' judges decide alike (gate_cases.h), as an interval of a ratio. */
START_TEST(shared_gate_cases)
{
	for (size_t i = 0; i < sizeof(gate_cases) / sizeof(gate_cases[0]); i++)
	{
		compare_settings cs;
		cmp_metric	m = {CMP_TPS, 0, "tps", true};
		cmp_result	r = {0};
		char		list[64];

		memset(&cs, 0, sizeof(cs));
		snprintf(list, sizeof(list), "tps%s", gate_cases[i].limit);
		ck_assert_msg(compare_parse_limits(&cs, list), "%s", list);
		r.m = &m;
		r.known = true;
		r.base = gate_cases[i].base;
		r.lo = gate_cases[i].lo_pct / 100;
		r.hi = gate_cases[i].hi_pct / 100;
		ck_assert_msg(cmp_limit_trips(&cs.limits[0], &r) == gate_cases[i].trips, "case %zu: %s", i,
					  list);
		r.known = false;
		ck_assert(!cmp_limit_trips(&cs.limits[0], &r));
	}
}
END_TEST

START_TEST(series_text_round_trip)
{
	hist	   *h = hist_new(2);
	series_sparse sp;
	char	   *text,
			   *cause = NULL;
	static const char *const bad[] = {
		"1 2 x", "5", "3 +0 2", "11264 1", "-1 2", "1 2 +3", "+2 1", "1 2 +11264 1", "1 +2 +3 4",
	};
	/* the first bucket, counts of the buckets that follow, jumps over empty ones */
	static const struct
	{
		const char *text;
		int			nb;
		uint32_t	last;
		uint64_t	total;
	}			good[] = {
		{"", 0, 0, 0}, {"7 1", 1, 7, 1}, {"3 1 0 2", 2, 5, 3}, {"3 1 +5 2 4", 3, 10, 7},
		{"0 1  2", 2, 1, 3},
	};

	for (uint64_t v = 1; v < 50000000; v = v * 3 / 2 + 7)
		hist_record_n(&h[0], v, v % 5 + 1);
	text = series_hist_text(&h[0]);
	ck_assert(series_sparse_decode(text, &sp, &cause));
	ck_assert_uint_eq(sp.total, h[0].total);
	ck_assert(series_hist_add(&h[1], text, &cause));
	ck_assert_uint_eq(h[1].total, h[0].total);
	for (int i = 0; i < HIST_BUCKETS; i++)
		ck_assert_uint_eq(h[1].counts[i], h[0].counts[i]);
	/* percentiles of the decoded histogram: to the bucket */
	ck_assert_uint_eq(hist_percentile(&h[1], 50), hist_percentile(&h[0], 50));
	series_sparse_free(&sp);
	free(text);
	hist_init(&h[0]);
	text = series_hist_text(&h[0]);
	ck_assert_str_eq(text, "");
	free(text);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
	{
		ck_assert_msg(series_sparse_decode(good[i].text, &sp, &cause), "\"%s\"", good[i].text);
		ck_assert_int_eq(sp.nb, good[i].nb);
		ck_assert_uint_eq(sp.total, good[i].total);
		if (sp.nb > 0)
			ck_assert_uint_eq(sp.idx[sp.nb - 1], good[i].last);
		series_sparse_free(&sp);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		bool		ok = series_sparse_decode(bad[i], &sp, &cause);

		ck_assert_msg(!ok, "\"%s\" accepted", bad[i]);
		ck_assert_ptr_nonnull(cause);
		free(cause);
		cause = NULL;
	}
	free(h);
}
END_TEST

/* A run whose n seconds are an AR(1) tps around mean_tps, latencies around 1 ms. */
static void
fake_run(merge_host *h, infer_rng *r, int n, double mean_tps)
{
	hist	   *ih = hist_new(1);
	double		e = 0;

	memset(h, 0, sizeof(*h));
	h->file = "fake.json";
	series_init(&h->series, 1, 1);
	for (int i = 0; i < n; i++)
	{
		series_row *row = series_add_row(&h->series, i + 1, 1e9 + i, 1.0);
		double		u = (double) (infer_rng_next(r) >> 11) / 9007199254740992.0 - 0.5;
		int64_t		tx;

		e = 0.6 * e + 0.08 * mean_tps * u;
		tx = (int64_t) llround(mean_tps + e);
		hist_init(ih);
		for (int64_t k = 0; k < tx; k++)
			hist_record(ih, 800000 + infer_rng_below(r, 400000));
		row->cells[0].transactions = tx;
		row->cells[0].latency_sum_ns = ih->sum;
		row->cells[0].hist_text = series_hist_text(ih);
	}
	free(ih);
}

/* A one-run-per-side comparison of tps, avg and p50 of two fake runs. */
static void
fake_cmp(cmp *c, merge_host *runs, cmp_result *res)
{
	static const cmp_metric metrics[] = {
		{CMP_TPS, 0, "tps", true}, {CMP_AVG, 0, "avg", false}, {CMP_PCT, 50, "p50", false},
	};

	memset(c, 0, sizeof(*c));
	c->side[0].runs = &runs[0];
	c->side[0].n = 1;
	c->side[1].runs = &runs[1];
	c->side[1].n = 1;
	c->nscopes = 1;
	c->nmetrics = 3;
	c->family = 1;
	c->level = GATE_LEVEL;
	memcpy(c->metrics, metrics, sizeof(metrics));
	c->results = res;
	for (int m = 0; m < 3; m++)
	{
		double		v[2];

		/* the reported values: the whole series' */
		for (int s = 0; s < 2; s++)
		{
			const series *sr = &runs[s].series;
			double		tx = 0,
						lat = 0;
			hist	   *h = hist_new(1);

			for (int i = 1; i < sr->nrows; i++)
			{
				char	   *cause = NULL;

				tx += (double) sr->rows[i].cells[0].transactions;
				lat += sr->rows[i].cells[0].latency_sum_ns;
				ck_assert(series_hist_add(h, sr->rows[i].cells[0].hist_text, &cause));
			}
			v[s] = m == 0 ? tx / (sr->nrows - 1) : m == 1 ? lat / tx : (double) hist_percentile(h, 50);
			free(h);
		}
		memset(&res[m], 0, sizeof(res[m]));
		res[m].m = &c->metrics[m];
		res[m].base = v[0];
		res[m].target = v[1];
		res[m].change = v[1] / v[0] - 1;
		res[m].known = true;
	}
}

START_TEST(bootstrap_finds_a_change)
{
	merge_host	runs[2];
	cmp			c;
	cmp_result	res[3],
				again[3];
	infer_rng	r;

	infer_rng_seed(&r, 7);
	fake_run(&runs[0], &r, 60, 1000);
	fake_run(&runs[1], &r, 60, 1150);
	fake_cmp(&c, runs, res);
	cmpboot_scope(&c, 0);
	ck_assert_msg(res[0].known && res[0].lo < 0.15 && 0.15 < res[0].hi + 0.02,
				  "tps: [%f, %f]", res[0].lo, res[0].hi);
	ck_assert_str_eq(res[0].verdict, "higher");
	/* correlated seconds: longer blocks than round(59^(1/3)) */
	ck_assert(c.block_len > 4 && c.block_len <= 59 / 3);
	ck_assert_int_eq(c.nintervals[0], 59);
	/* the same input, the same interval */
	fake_cmp(&c, runs, again);
	cmpboot_scope(&c, 0);
	ck_assert_double_eq(again[0].lo, res[0].lo);
	ck_assert_double_eq(again[0].hi, res[0].hi);
	ck_assert_double_eq(again[2].hi, res[2].hi);
	series_free(&runs[0].series);
	series_free(&runs[1].series);
}
END_TEST

START_TEST(bootstrap_aa_and_short)
{
	merge_host	runs[2];
	cmp			c;
	cmp_result	res[3];
	infer_rng	r;
	int			none = 0,
				pairs = 40;

	/*
	 * identical processes: the interval holds 0 most of the time (95 %
	 * promised; 93 % over 200 pairs of these series)
	 */
	infer_rng_seed(&r, 11);
	for (int p = 0; p < pairs; p++)
	{
		fake_run(&runs[0], &r, 40, 1000);
		fake_run(&runs[1], &r, 40, 1000);
		fake_cmp(&c, runs, res);
		cmpboot_scope(&c, 0);
		ck_assert(res[0].known);
		none += strcmp(res[0].verdict, "no difference shown") == 0;
		series_free(&runs[0].series);
		series_free(&runs[1].series);
	}
	ck_assert_msg(none >= pairs * 0.8, "%d of %d", none, pairs);
	/* 15 s: too short */
	fake_run(&runs[0], &r, 15, 1000);
	fake_run(&runs[1], &r, 15, 2000);
	fake_cmp(&c, runs, res);
	cmpboot_scope(&c, 0);
	ck_assert(!res[0].known);
	ck_assert_str_eq(res[0].verdict, "unknown");
	ck_assert_msg(strstr(res[0].why, "too few data for an interval") != NULL, "%s", res[0].why);
	series_free(&runs[0].series);
	series_free(&runs[1].series);
}
END_TEST

/* Two series are the same: their rows, cells and histogram texts. */
static void
assert_same_series(const series *a, const series *b, const char *name)
{
	ck_assert_msg(a->interval_s == b->interval_s && a->ncells == b->ncells &&
				  a->nrows == b->nrows, "%s: shape", name);
	for (int r = 0; r < a->nrows; r++)
	{
		ck_assert_msg(a->rows[r].time_s == b->rows[r].time_s &&
					  a->rows[r].epoch_s == b->rows[r].epoch_s &&
					  a->rows[r].interval_s == b->rows[r].interval_s, "%s: row %d", name, r);
		for (int c = 0; c < a->ncells; c++)
		{
			const series_cell *x = &a->rows[r].cells[c],
					   *y = &b->rows[r].cells[c];

			ck_assert_msg(x->transactions == y->transactions && x->failed == y->failed &&
						  x->latency_sum_ns == y->latency_sum_ns &&
						  strcmp(x->hist_text, y->hist_text) == 0, "%s: row %d cell %d", name, r, c);
		}
	}
}

/* Read the "intervals" of text (BUCKETS: this version's count) into *sr; false as series_read. */
static bool
read_intervals(const char *text, series *sr, char **cause)
{
	const char *at = strstr(text, "BUCKETS");
	char	   *full;
	jsonread_doc *doc;
	bool		ok;

	ck_assert(at != NULL);
	full = xasprintf("%.*s%d%s", (int) (at - text), text, HIST_BUCKETS, at + strlen("BUCKETS"));
	doc = jsonread_parse(full, strlen(full), cause);
	ck_assert_msg(doc != NULL, "test document: %s", *cause);
	ok = series_read(jsonread_root(doc), sr, cause);
	jsonread_free(doc);
	free(full);
	return ok;
}

#define IV_HEAD "{\"intervals\":{\"interval_s\":1,\"histogram_buckets\":BUCKETS,"
#define COLS7 "\"time_s\",\"epoch_s\",\"interval_s\",\"transactions\",\"failed\",\"latency_sum_ns\",\"histogram\""
#define ROWS7 "\"rows\":[[1,1700000001,1,5,1,5000,\"3 2 0 3\"],[2,1700000002,1.5,4,0,4000,\"7 4\"]]}}"
#define ROWS8 "\"rows\":[[1,1700000001,1,5,1,5000,\"3 2 0 3\",[[2,0,2000,\"3 2\"],[3,1,3000,\"5 3\"]]]," \
	"[2,1700000002,1.5,4,0,4000,\"7 4\",[[4,0,4000,\"7 4\"],[0,0,0,\"\"]]]]}}"

/*
 * The series' rows are read by the column names the file carries: another
 * order, a column this version does not know, or no list at all (the
 * writer's order) read the same; a list that cannot be read is refused.
 */
START_TEST(series_read_by_columns)
{
	static const struct
	{
		const char *name;
		const char *text;
		int			like;		/* 7: as the series without scripts, 8: with; 0: refused */
		const char *cause;		/* when refused: a part of the message */
	}			cases[] = {
		{"reordered", IV_HEAD "\"columns\":[\"histogram\",\"interval_s\",\"transactions\",\"time_s\","
			"\"latency_sum_ns\",\"epoch_s\",\"failed\"],\"rows\":[[\"3 2 0 3\",1,5,1,5000,1700000001,1],"
		"[\"7 4\",1.5,4,2,4000,1700000002,0]]}}", 7, NULL},
		{"reordered, scripts", IV_HEAD "\"columns\":[\"histogram\",\"scripts\",\"interval_s\",\"transactions\","
			"\"time_s\",\"latency_sum_ns\",\"epoch_s\",\"failed\"],\"rows\":["
			"[\"3 2 0 3\",[[\"3 2\",2,2000,0],[\"5 3\",3,3000,1]],1,5,1,5000,1700000001,1],"
		"[\"7 4\",[[\"7 4\",4,4000,0],[\"\",0,0,0]],1.5,4,2,4000,1700000002,0]]}}", 8, NULL},
		{"no list", IV_HEAD ROWS7, 7, NULL},
		{"no list, scripts", IV_HEAD ROWS8, 8, NULL},
		{"unknown column", IV_HEAD "\"columns\":[\"time_s\",\"epoch_s\",\"interval_s\",\"transactions\","
			"\"failed\",\"p999_ns\",\"latency_sum_ns\",\"histogram\"],\"rows\":[[1,1700000001,1,5,1,77,5000,"
		"\"3 2 0 3\"],[2,1700000002,1.5,4,0,77,4000,\"7 4\"]]}}", 7, NULL},
		{"twice", IV_HEAD "\"columns\":[" COLS7 ",\"failed\"]," ROWS7, 0, "names \"failed\" twice"},
		{"missing", IV_HEAD "\"columns\":[\"time_s\",\"epoch_s\",\"interval_s\",\"transactions\","
			"\"failed\",\"latency_sum_ns\"],\"rows\":[]}}", 0, "has no column \"histogram\""},
		{"not a name", IV_HEAD "\"columns\":[" COLS7 ",3]," ROWS7, 0, "columns[7]\" is not a column name"},
		{"row too short", IV_HEAD "\"columns\":[" COLS7 ",\"p999_ns\"]," ROWS7, 0, "rows[0]\" is not a row"},
	};
	series		want7,
				want8;
	char	   *cause = NULL;

	ck_assert(read_intervals(IV_HEAD "\"columns\":[" COLS7 "]," ROWS7, &want7, &cause));
	ck_assert(read_intervals(IV_HEAD "\"columns\":[" COLS7 ",\"scripts\"]," ROWS8, &want8, &cause));
	ck_assert_int_eq(want7.ncells, 1);
	ck_assert_int_eq(want8.ncells, 3);
	ck_assert_int_eq(want8.rows[1].cells[1].transactions, 4);
	ck_assert_str_eq(want8.rows[0].cells[2].hist_text, "5 3");
	ck_assert(want7.rows[1].interval_s == 1.5);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		series		got;
		bool		ok = read_intervals(cases[i].text, &got, &cause);

		if (cases[i].like == 0)
		{
			ck_assert_msg(!ok, "%s: read", cases[i].name);
			ck_assert_msg(strstr(cause, cases[i].cause) != NULL, "%s: \"%s\"", cases[i].name, cause);
			free(cause);
			cause = NULL;
			continue;
		}
		ck_assert_msg(ok, "%s: %s", cases[i].name, ok ? "" : cause);
		assert_same_series(&got, cases[i].like == 7 ? &want7 : &want8, cases[i].name);
		series_free(&got);
	}
	series_free(&want7);
	series_free(&want8);
}
END_TEST

/*
 * The chart's latency curves go as far as the data do: the last point at
 * 1 - 1/n (log10(n) nines), for the counts the issue saw cut short
 * (27,000 and 420,000) and a few more; no point a gap, x rising by at most
 * 0.02 nines, the last y the latency at that percentile.
 */
START_TEST(chart_curve_to_the_end)
{
	static const uint64_t counts[] = {1, 2, 10, 1000, 27000, 420000, 1000000};
	double	   *x = xcalloc(CMP_CURVE_MAX, sizeof(double)),
			   *y = xcalloc(CMP_CURVE_MAX, sizeof(double));

	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
	{
		uint64_t	n = counts[c];
		hist	   *h = hist_new(1);
		uint64_t	state = 36;
		int			k;
		double		want = n > 1 ? 100 * (1 - 1 / (double) n) : 0;

		/* latencies from 1 ms with a long tail: 1 ms / u, u uniform in (0, 1] */
		for (uint64_t i = 0; i < n; i++)
		{
			state = state * 6364136223846793005ULL + 1442695040888963407ULL;
			hist_record(h, (uint64_t) (1e6 / ((double) ((state >> 11) + 1) / 9007199254740992.0)));
		}
		k = cmpchart_curve(h, x, y);
		ck_assert_int_ge(k, 1);
		ck_assert_double_eq_tol(x[k - 1], n > 1 ? log10((double) n) : 0, 1e-9);
		ck_assert_double_eq_tol(100 * (1 - pow(10, -x[k - 1])), want, 1e-6);
		ck_assert_double_eq((double) hist_percentile(h, want) / 1e6, y[k - 1]);
		/* the end is the largest latency but one: beyond it only the maximum */
		ck_assert_double_le(y[k - 1], (double) h->max / 1e6);
		for (int i = 0; i < k; i++)
		{
			ck_assert_msg(isfinite(y[i]) && y[i] > 0, "n %llu: point %d (%.2f nines) is a gap",
						  (unsigned long long) n, i, x[i]);
			if (i > 0)
				ck_assert_msg(x[i] > x[i - 1] && x[i] - x[i - 1] <= 0.02 + 1e-9 &&
							  y[i] >= y[i - 1], "n %llu: point %d", (unsigned long long) n, i);
		}
		free(h);
	}
	free(x);
	free(y);
}
END_TEST

static Suite *
compare_suite(void)
{
	Suite	   *s = suite_create("bench_compare");
	TCase	   *tc = tcase_create("compare");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, fail_if_lists);
	tcase_add_test(tc, shared_gate_cases);
	tcase_add_test(tc, series_text_round_trip);
	tcase_add_test(tc, series_read_by_columns);
	tcase_add_test(tc, bootstrap_finds_a_change);
	tcase_add_test(tc, bootstrap_aa_and_short);
	tcase_add_test(tc, chart_curve_to_the_end);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(compare_suite());
}
