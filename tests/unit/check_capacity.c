/*
 * check_capacity.c — the parts of pgtempo-bench --capacity that need no
 * server: the objectives and the other options, a step's verdict, the lag
 * trend, the knee, the steps by rate, the bracket against --fail-if, and
 * the --chart and --metrics written from a search made up here.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/capacity_int.h"
#include "pgtempo/xalloc.h"
#include "svgcheck.h"
#include "unit.h"

/* ---------------------------------------------------------------- options */

static const struct
{
	const char *arg;
	int			n;				/* objectives; 0: refused */
	const char *name0;
	double		value0;			/* seconds */
	const char *name1;
}			objective_cases[] = {
	{"p99<10ms", 1, "p99", 0.010, NULL},
	{"p99.9<250us", 1, "p99.9", 0.000250, NULL},
	{"latency:p95<1s", 1, "p95", 1.0, NULL},
	{"avg<5ms", 1, "avg", 0.005, NULL},
	{"average<5ms", 1, "avg", 0.005, NULL},
	{"p99<10ms,avg<2ms", 2, "p99", 0.010, "avg"},
	{"p99>10ms", 0, NULL, 0, NULL},
	{"tps<10", 0, NULL, 0, NULL},
	{"p0<1ms", 0, NULL, 0, NULL},
	{"p100<1ms", 0, NULL, 0, NULL},
	{"p<1ms", 0, NULL, 0, NULL},
	{"p99x<1ms", 0, NULL, 0, NULL},
	{"p99<0ms", 0, NULL, 0, NULL},
	{"p99<-1ms", 0, NULL, 0, NULL},
	{"", 0, NULL, 0, NULL},
};

START_TEST(objectives_parse)
{
	for (size_t i = 0; i < sizeof(objective_cases) / sizeof(objective_cases[0]); i++)
	{
		capacity_settings c;
		bool		ok;
		char	   *err;

		memset(&c, 0, sizeof(c));
		unit_stderr_begin();
		ok = capacity_parse_objectives(&c, objective_cases[i].arg);
		err = unit_stderr_end();
		ck_assert_msg(ok == (objective_cases[i].n > 0), "\"%s\": %s", objective_cases[i].arg,
					  ok ? "taken" : "refused");
		ck_assert(c.wanted);
		if (!ok)
		{
			/* PostgreSQL's wording, naming the option */
			ck_assert_msg(strstr(err, "for option --capacity") != NULL, "\"%s\": %s",
						  objective_cases[i].arg, err);
			free(err);
			continue;
		}
		ck_assert_str_eq(err, "");
		free(err);
		ck_assert_int_eq(c.nobjectives, objective_cases[i].n);
		ck_assert_str_eq(c.objectives[0].name, objective_cases[i].name0);
		ck_assert_double_eq_tol(c.objectives[0].value, objective_cases[i].value0, 1e-12);
		if (objective_cases[i].name1 != NULL)
			ck_assert_str_eq(c.objectives[1].name, objective_cases[i].name1);
	}
}
END_TEST

/* Parse arg into fresh settings with parse, its message (if any) kept from the output. */
static bool
parse_quietly(bool (*parse) (capacity_settings *, const char *), const char *arg,
			  capacity_settings *c)
{
	bool		ok;

	memset(c, 0, sizeof(*c));
	unit_stderr_begin();
	ok = parse(c, arg);
	free(unit_stderr_end());
	return ok;
}

START_TEST(resolution_and_floor_parse)
{
	static const struct
	{
		const char *arg;
		double		want;		/* < 0: refused */
	}			res[] = {
		{"5", 0.05}, {"5%", 0.05}, {"0.1", 0.001}, {"100", 1}, {"0", -1}, {"0.05", -1},
		{"101", -1}, {"x", -1}, {"5%%", -1}, {"", -1},
	};
	static const struct
	{
		const char *arg;
		bool		ok;
		double		value;
	}			floors[] = {
		{"capacity:<1500", true, 1500}, {"capacity<0.5", true, 0.5},
		{"capacity:<1500,capacity:<10", false, 0}, {"tps<10", false, 0},
		{"capacity:>10", false, 0}, {"capacity:<0", false, 0},
	};

	for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++)
	{
		capacity_settings c;
		bool		ok = parse_quietly(capacity_parse_resolution, res[i].arg, &c);

		ck_assert_msg(ok == (res[i].want > 0), "--capacity-resolution=%s", res[i].arg);
		if (ok)
			ck_assert_double_eq_tol(c.resolution, res[i].want, 1e-12);
	}
	for (size_t i = 0; i < sizeof(floors) / sizeof(floors[0]); i++)
	{
		capacity_settings c;
		bool		ok = parse_quietly(capacity_parse_fail_if, floors[i].arg, &c);

		ck_assert_msg(ok == floors[i].ok, "--fail-if=%s", floors[i].arg);
		ck_assert(c.has_floor == ok);
		if (ok)
			ck_assert_double_eq_tol(c.floor.value, floors[i].value, 1e-12);
	}
}
END_TEST

/* The settings of a search that capacity_check takes: -T 60, one client. */
static void
search_settings(bench_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->duration = 60;
	s->nclients = 1;
	s->nthreads = 1;
}

START_TEST(check_outputs)
{
	capacity_settings c;
	bench_settings s;
	char	   *err;

	memset(&c, 0, sizeof(c));
	ck_assert(capacity_parse_objectives(&c, "p99<10ms"));
	search_settings(&s);
	/* the search's outputs are taken */
	s.json_path = "-";
	s.chart_path = "c.svg";
	s.metrics_path = "m.prom";
	ck_assert(capacity_check(&c, &s));
	/* a run's histogram file and log are not */
	s.hist_path = "h.txt";
	unit_stderr_begin();
	ck_assert(!capacity_check(&c, &s));
	err = unit_stderr_end();
	ck_assert_msg(strstr(err, "--capacity needs no -l or --latency-histogram") != NULL, "%s", err);
	free(err);
	search_settings(&s);
	s.duration = 29;
	unit_stderr_begin();
	ck_assert(!capacity_check(&c, &s));
	free(unit_stderr_end());
}
END_TEST

/* ---------------------------------------------------------------- a step's verdict */

/* p99 < 10 ms and avg < 2 ms */
static void
two_objectives(capacity_settings *c)
{
	memset(c, 0, sizeof(*c));
	ck_assert(capacity_parse_objectives(c, "p99<10ms,avg<2ms"));
}

static const struct
{
	const char *name;
	bool		known[2];
	double		est[2],
				lo[2],
				hi[2];			/* ms */
	bool		steady;
	int64_t		failed;
	bool		met,
				pass,
				inconclusive;
	const char *why;			/* a part of it; "" : empty */
}			judge_cases[] = {
	{"well within", {true, true}, {5, 1}, {4, 0.8}, {6, 1.2}, true, 0, true, true, false, ""},
	{"upper end at the target", {true, true}, {5, 1}, {4, 0.8}, {10, 1.2}, true, 0,
	false, false, true, "p99 up to 10.000 ms"},
	{"estimate above", {true, true}, {12, 1}, {11, 0.8}, {14, 1.2}, true, 0,
	false, false, false, "p99 up to 14.000 ms"},
	{"second objective holds its target", {true, true}, {5, 1.5}, {4, 1}, {6, 2.5}, true, 0,
	false, false, true, "avg up to 2.500 ms"},
	{"unknown", {false, true}, {0, 1}, {0, 0.8}, {0, 1.2}, true, 0,
	false, false, false, "p99 unknown (too few transactions)"},
	{"not steady", {true, true}, {5, 1}, {4, 0.8}, {6, 1.2}, false, 0,
	true, false, false, "lag grows"},
	{"not steady, interval holds the target", {true, true}, {5, 1}, {4, 0.8}, {11, 1.2}, false, 0,
	false, false, false, "lag grows"},
	{"a failure", {true, true}, {5, 1}, {4, 0.8}, {6, 1.2}, true, 3, true, false, false, "3 failed"},
};

START_TEST(step_verdicts)
{
	capacity_settings c;

	two_objectives(&c);
	for (size_t i = 0; i < sizeof(judge_cases) / sizeof(judge_cases[0]); i++)
	{
		cap_step	st;

		memset(&st, 0, sizeof(st));
		for (int k = 0; k < 2; k++)
		{
			st.v[k].known = judge_cases[i].known[k];
			st.v[k].est = judge_cases[i].est[k] / 1e3;
			st.v[k].lo = judge_cases[i].lo[k] / 1e3;
			st.v[k].hi = judge_cases[i].hi[k] / 1e3;
		}
		st.steady = judge_cases[i].steady;
		st.lag_slope = 2.5;
		st.failed = judge_cases[i].failed;
		cap_judge_step(&c, &st);
		ck_assert_msg(st.met == judge_cases[i].met, "%s: met", judge_cases[i].name);
		ck_assert_msg(st.pass == judge_cases[i].pass, "%s: pass", judge_cases[i].name);
		ck_assert_msg(st.inconclusive == judge_cases[i].inconclusive, "%s: inconclusive",
					  judge_cases[i].name);
		if (judge_cases[i].why[0] == '\0')
			ck_assert_msg(st.why[0] == '\0', "%s: why \"%s\"", judge_cases[i].name, st.why);
		else
			ck_assert_msg(strstr(st.why, judge_cases[i].why) != NULL, "%s: why \"%s\"",
						  judge_cases[i].name, st.why);
	}
}
END_TEST

/* ---------------------------------------------------------------- the lag trend */

/* n one-second progress points whose lag is base + slope * t + a fixed wiggle (ms). */
static void
lag_run(bench_results *res, int n, double slope, double wiggle)
{
	memset(res, 0, sizeof(*res));
	res->progress = xcalloc((size_t) n, sizeof(report_progress_point));
	res->nprogress = n;
	for (int i = 0; i < n; i++)
	{
		res->progress[i].elapsed_s = i + 1;
		res->progress[i].interval_s = 1;
		res->progress[i].lag_ms = 0.5 + slope * (i + 1) + wiggle * ((i % 3) - 1);
	}
}

START_TEST(lag_trend)
{
	static const struct
	{
		int			n;
		double		slope,
					wiggle,
					limit_ms;
		bool		known,
					steady,
					draining;
	}			cases[] = {
		{10, 0, 0.2, 1, true, true, false},	/* flat, noisy */
		{10, 5, 0.2, 1, true, false, false},	/* 5 ms/s over 10 s: 50 ms, far beyond 1 ms */
		{10, 0.05, 0.2, 3, true, true, false},	/* a slope within the noise and the limit */
		{10, -3, 0.1, 1, true, false, true},	/* a backlog draining: its percentiles hold a stall */
		{10, -0.05, 0.2, 3, true, true, false},	/* a fall within the noise and the limit */
		{3, 5, 0, 1, false, true, false},	/* too few points to tell */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		bench_results res;
		cap_step	st;

		memset(&st, 0, sizeof(st));
		lag_run(&res, cases[i].n, cases[i].slope, cases[i].wiggle);
		cap_step_lag(&res, cases[i].limit_ms, &st);
		ck_assert_msg(st.lag_known == cases[i].known, "case %zu: known", i);
		ck_assert_msg(st.steady == cases[i].steady, "case %zu: steady (growth from %.3f ms)", i,
					  st.lag_growth_lo);
		ck_assert_msg(st.draining == cases[i].draining, "case %zu: draining", i);
		if (st.lag_known)
			ck_assert_msg(fabs(st.lag_slope - cases[i].slope) < 0.1, "case %zu: slope %.3f", i,
						  st.lag_slope);
		free(res.progress);
	}
}
END_TEST

/* ---------------------------------------------------------------- a search made up */

/* A step at rate with p99 (ms) and its interval, pass or not. */
static void
add_step(cap_search *cs, double rate, double p99, bool pass, bool again)
{
	cap_step   *st = &cs->steps[cs->nsteps++];

	memset(st, 0, sizeof(*st));
	st->rate = rate;
	st->tps = rate * 0.99;
	st->measured_s = 10;
	st->transactions = (int64_t) (rate * 10);
	st->v[0].known = true;
	st->v[0].est = p99 / 1e3;
	st->v[0].lo = p99 * 0.9 / 1e3;
	st->v[0].hi = p99 * 1.1 / 1e3;
	st->lag_known = true;
	st->steady = true;
	st->met = pass;
	st->pass = pass;
	st->again = again;
	st->runs = 1;
	snprintf(st->why, sizeof(st->why), "%s", pass ? "" : "p99 up to 12.000 ms");
}

/* The search of the man page's example: probe 100 tps, then 50, 75, 61.2, 55.3 (again), 55.3. */
static void
example_search(cap_search *cs, capacity_settings *c, bench_settings *s)
{
	memset(c, 0, sizeof(*c));
	ck_assert(capacity_parse_objectives(c, "p99<10ms"));
	search_settings(s);
	memset(cs, 0, sizeof(*cs));
	cs->s = s;
	cs->c = c;
	cs->steps[cs->nsteps++].tps = 100;
	cs->ceiling = 100;
	add_step(cs, 50, 2, true, false);
	add_step(cs, 75, 30, false, false);
	add_step(cs, 61.2, 8, true, false);
	add_step(cs, 67.7, 9.5, false, true);
	add_step(cs, 67.7, 11, false, false);
	cs->lo = 61.2;
	cs->hi = 67.7;
	cs->hi_tested = true;
	cs->stop_why = "the budget (-T) ran out";
	cs->used_s = 58;
}

START_TEST(steps_by_rate_and_knee)
{
	cap_search *cs = xcalloc(1, sizeof(*cs));
	capacity_settings c;
	bench_settings s;
	int			order[CAP_MAX_STEPS];
	int			n;
	double		kb,
				ka;

	example_search(cs, &c, &s);
	n = cap_steps_by_rate(cs, order);
	/* 50, 61.2, 67.7 (the later, pooled step), 75 */
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(order[0], 1);
	ck_assert_int_eq(order[1], 3);
	ck_assert_int_eq(order[2], 5);
	ck_assert_int_eq(order[3], 2);
	/* p99 2 ms at the lowest rate: 8 ms at 61.2 is the first above twice that */
	ck_assert(cap_find_knee(cs, &kb, &ka));
	ck_assert_double_eq(kb, 50);
	ck_assert_double_eq(ka, 61.2);
	/* flat: no knee */
	for (int k = 1; k < cs->nsteps; k++)
		cs->steps[k].v[0].est = 0.002;
	ck_assert(!cap_find_knee(cs, &kb, &ka));
	/* one step is no curve */
	cs->nsteps = 2;
	ck_assert(!cap_find_knee(cs, &kb, &ka));
	free(cs);
}
END_TEST

START_TEST(floor_and_verdict)
{
	static const struct
	{
		double		floor;		/* 0: no --fail-if */
		double		lo,
					hi;
		int			nsteps;
		bool		tripped;
		cap_verdict verdict;
	}			cases[] = {
		{0, 61.2, 67.7, 6, false, CAP_FOUND},
		{1500, 61.2, 67.7, 6, true, CAP_BELOW_LIMIT},
		{67.7, 61.2, 67.7, 6, false, CAP_FOUND},	/* the bracket reaches the limit */
		{64, 61.2, 67.7, 6, false, CAP_FOUND},	/* the limit lies within it */
		{10, 61.2, 67.7, 6, false, CAP_FOUND},
		{0, 0, 1.6, 6, false, CAP_NONE_PASSED},
		{1500, 0, 1.6, 6, true, CAP_BELOW_LIMIT},
		{1500, 0, 100, 1, false, CAP_NO_STEP},	/* only the probe ran */
		{0, 0, 100, 1, false, CAP_NO_STEP},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cap_search *cs = xcalloc(1, sizeof(*cs));
		capacity_settings c;
		bench_settings s;
		char		arg[64];

		example_search(cs, &c, &s);
		if (cases[i].floor > 0)
		{
			snprintf(arg, sizeof(arg), "capacity:<%g", cases[i].floor);
			ck_assert(capacity_parse_fail_if(&c, arg));
		}
		cs->lo = cases[i].lo;
		cs->hi = cases[i].hi;
		cs->nsteps = cases[i].nsteps;
		cs->tripped = cap_floor_tripped(cs);
		ck_assert_msg(cs->tripped == cases[i].tripped, "case %zu: tripped", i);
		ck_assert_msg(cap_search_verdict(cs) == cases[i].verdict, "case %zu: verdict %s", i,
					  cap_verdict_names[cap_search_verdict(cs)]);
		free(cs);
	}
}
END_TEST

/* ---------------------------------------------------------------- --chart and --metrics */

/* A path in a fresh temporary directory (caller frees both). */
static char *
temp_path(const char *name, char **dir)
{
	char		tmpl[] = "/tmp/check_capacity.XXXXXX";

	ck_assert(mkdtemp(tmpl) != NULL);
	*dir = xstrdup(tmpl);
	return xasprintf("%s/%s", tmpl, name);
}

/* The number of times needle occurs in hay. */
static int
count_of(const char *hay, const char *needle)
{
	int			n = 0;

	for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
		n++;
	return n;
}

START_TEST(chart_written)
{
	cap_search *cs = xcalloc(1, sizeof(*cs));
	capacity_settings c;
	bench_settings s;
	char	   *dir,
			   *path = temp_path("cap.svg", &dir),
			   *cause = NULL,
			   *svg;
	const char *xml;
	output_ctx	oc = {&s, cs, 0};

	example_search(cs, &c, &s);
	s.command_line = "pgtempo-bench --capacity=p99<10ms -T 60 <&>";
	ck_assert_msg(capacity_write_chart(&oc, path, &cause), "%s", cause);
	svg = unit_slurp(path);
	xml = svgcheck_xml_error(svg);
	ck_assert_msg(xml == NULL, "%s", xml);
	ck_assert(strstr(svg, "p99 against the offered rate (objective p99&lt;10ms)") != NULL);
	/* the value, its interval's two ends, the objective, capacity, bracket, knee */
	ck_assert_int_eq(count_of(svg, "<path class=\"line\""), 7);
	ck_assert(strstr(svg, "<title>capacity: 61.2 tps</title>") != NULL);
	ck_assert(strstr(svg, "<title>bracket's upper end: 67.7 tps</title>") != NULL ||
			  strstr(svg, "<title>bracket&#39;s upper end: 67.7 tps</title>") != NULL ||
			  strstr(svg, "<title>bracket&apos;s upper end: 67.7 tps</title>") != NULL);
	ck_assert(strstr(svg, "<title>knee: between 50.0 and 61.2 tps</title>") != NULL);
	ck_assert(strstr(svg, "offered rate (tps)") != NULL);
	free(svg);

	/* two objectives: two panels; nothing passed: no capacity line */
	ck_assert(capacity_parse_objectives(&c, "p99<10ms,p50<5ms"));
	for (int k = 1; k < cs->nsteps; k++)
	{
		cs->steps[k].v[1] = cs->steps[k].v[0];
		cs->steps[k].pass = false;
	}
	cs->lo = 0;
	cs->hi = 50;
	ck_assert_msg(capacity_write_chart(&oc, path, &cause), "%s", cause);
	svg = unit_slurp(path);
	ck_assert_msg(svgcheck_xml_error(svg) == NULL, "%s", svgcheck_xml_error(svg));
	ck_assert(strstr(svg, "p50 against the offered rate") != NULL);
	ck_assert(strstr(svg, "capacity: ") == NULL);
	free(svg);

	/* a path that cannot be written: the cause names it */
	ck_assert(!capacity_write_chart(&oc, "/nonexistent/dir/cap.svg", &cause));
	ck_assert_msg(strstr(cause, "/nonexistent/dir/cap.svg") != NULL, "%s", cause);
	free(cause);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	free(cs);
}
END_TEST

/* The value of the sample line that starts with "name " in text; NAN without one. */
static double
sample(const char *text, const char *name)
{
	size_t		len = strlen(name);

	for (const char *p = text; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, name, len) == 0 && p[len] == ' ')
			return strtod(p + len + 1, NULL);
	return NAN;
}

START_TEST(metrics_written)
{
	cap_search *cs = xcalloc(1, sizeof(*cs));
	capacity_settings c;
	bench_settings s;
	char	   *dir,
			   *path = temp_path("cap.prom", &dir),
			   *cause = NULL,
			   *text;
	output_ctx	oc = {&s, cs, 3};

	example_search(cs, &c, &s);
	ck_assert(capacity_parse_fail_if(&c, "capacity:<1500"));
	cs->tripped = cap_floor_tripped(cs);
	ck_assert_msg(capacity_write_metrics(&oc, path, &cause), "%s", cause);
	text = unit_slurp(path);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_tps"), 61.2);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_bracket_low_tps"), 61.2);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_bracket_high_tps"), 67.7);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_ceiling_tps"), 100);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_steps"), 5);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_knee_tps"), 61.2);
	ck_assert_double_eq(sample(text, "pgtempo_bench_exit_status"), 3);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_verdict{verdict=\"below_limit\"}"), 1);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_verdict{verdict=\"found\"}"), 0);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_objective_seconds{metric=\"p99\"}"), 0.01);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_step_offered_tps{step=\"3\"}"), 61.2);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_step_pass{step=\"3\"}"), 1);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_step_pass{step=\"2\"}"), 0);
	ck_assert_double_eq_tol(sample(text, "pgtempo_bench_capacity_step_latency_seconds{step=\"2\",metric=\"p99\",bound=\"high\"}"),
							0.033, 1e-12);
	/* one HELP and one TYPE per family, every step's rate */
	ck_assert_int_eq(count_of(text, "# TYPE pgtempo_bench_capacity_step_offered_tps gauge\n"), 1);
	ck_assert_int_eq(count_of(text, "pgtempo_bench_capacity_step_offered_tps{"), 5);
	free(text);

	/* no rate passed: no capacity, the verdict says so */
	cs->lo = 0;
	cs->tripped = false;
	for (int k = 1; k < cs->nsteps; k++)
		cs->steps[k].pass = false;
	oc.status = 0;
	ck_assert_msg(capacity_write_metrics(&oc, path, &cause), "%s", cause);
	text = unit_slurp(path);
	ck_assert(isnan(sample(text, "pgtempo_bench_capacity_tps")));
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_verdict{verdict=\"none_passed\"}"), 1);
	ck_assert_double_eq(sample(text, "pgtempo_bench_capacity_bracket_low_tps"), 0);
	free(text);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	free(cs);
}
END_TEST

static Suite *
capacity_suite(void)
{
	Suite	   *s = suite_create("capacity");
	TCase	   *tc = tcase_create("capacity");

	tcase_add_test(tc, objectives_parse);
	tcase_add_test(tc, resolution_and_floor_parse);
	tcase_add_test(tc, check_outputs);
	tcase_add_test(tc, step_verdicts);
	tcase_add_test(tc, lag_trend);
	tcase_add_test(tc, steps_by_rate_and_knee);
	tcase_add_test(tc, floor_and_verdict);
	tcase_add_test(tc, chart_written);
	tcase_add_test(tc, metrics_written);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(capacity_suite());
}
