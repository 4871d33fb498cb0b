/*
 * check_metrics.c — unit tests of the Prometheus / OpenMetrics writer and
 * the textfile write.
 */
#include "config.h"

#include "pgtempo/metrics.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

/* One sample to add: c counter, g gauge, i info. */
typedef struct
{
	char		kind;
	const char *name;
	const char *help;
	const char *labels[7];
	double		value;
} op;

static bool
apply(metrics *m, const op *o)
{
	const char *const *labels = o->labels[0] != NULL ? o->labels : NULL;

	switch (o->kind)
	{
		case 'c':
			return metrics_counter(m, o->name, o->help, labels, o->value);
		case 'g':
			return metrics_gauge(m, o->name, o->help, labels, o->value);
		case 'i':
			return metrics_info(m, o->name, o->help, labels);
	}
	ck_abort_msg("bad op kind %c", o->kind);
	return false;
}

/* Samples in, the 0.0.4 text and the OpenMetrics text out. */
static const struct
{
	const char *what;
	op			ops[4];
	const char *prom;
	const char *om;
}			cases[] = {
	{"a gauge", {{'g', "pgtempo_x_seconds", "A time.", {NULL}, 1.5}},
		"# HELP pgtempo_x_seconds A time.\n# TYPE pgtempo_x_seconds gauge\npgtempo_x_seconds 1.5\n",
	"# HELP pgtempo_x_seconds A time.\n# TYPE pgtempo_x_seconds gauge\npgtempo_x_seconds 1.5\n# EOF\n"},
	{"a counter: OpenMetrics names the family without _total",
		{{'c', "pgtempo_tx_total", "Transactions.", {"script", "0", NULL}, 12345}},
		"# HELP pgtempo_tx_total Transactions.\n# TYPE pgtempo_tx_total counter\n"
		"pgtempo_tx_total{script=\"0\"} 12345\n",
		"# HELP pgtempo_tx Transactions.\n# TYPE pgtempo_tx counter\n"
	"pgtempo_tx_total{script=\"0\"} 12345\n# EOF\n"},
	{"an info metric: a gauge of 1 in 0.0.4, type info in OpenMetrics",
		{{'i', "pgtempo_clock_info", "Clock.", {"source", "tsc", "invariant", "yes", NULL}}},
		"# HELP pgtempo_clock_info Clock.\n# TYPE pgtempo_clock_info gauge\n"
		"pgtempo_clock_info{source=\"tsc\",invariant=\"yes\"} 1\n",
		"# HELP pgtempo_clock Clock.\n# TYPE pgtempo_clock info\n"
	"pgtempo_clock_info{source=\"tsc\",invariant=\"yes\"} 1\n# EOF\n"},
	{"families grouped: samples added out of order",
		{{'g', "a", "A.", {"x", "1", NULL}, 1}, {'g', "b", "B.", {NULL}, 2},
		{'g', "a", "A.", {"x", "2", NULL}, 3}},
		"# HELP a A.\n# TYPE a gauge\na{x=\"1\"} 1\na{x=\"2\"} 3\n# HELP b B.\n# TYPE b gauge\nb 2\n",
	"# HELP a A.\n# TYPE a gauge\na{x=\"1\"} 1\na{x=\"2\"} 3\n# HELP b B.\n# TYPE b gauge\nb 2\n# EOF\n"},
	{"escaping: label values and help",
		{{'g', "e", "back\\slash \"q\"\nline", {"v", "a\\b\"c\nd", NULL}, 0}},
		"# HELP e back\\\\slash \"q\"\\nline\n# TYPE e gauge\ne{v=\"a\\\\b\\\"c\\nd\"} 0\n",
	"# HELP e back\\\\slash \\\"q\\\"\\nline\n# TYPE e gauge\ne{v=\"a\\\\b\\\"c\\nd\"} 0\n# EOF\n"},
	{"invalid UTF-8 in a label value: the text \\xNN; valid UTF-8 kept",
		{{'g', "u", "U.", {"v", "\xff" "caf\xc3\xa9", NULL}, 0}},
		"# HELP u U.\n# TYPE u gauge\nu{v=\"\\\\xFFcaf\xc3\xa9\"} 0\n",
	"# HELP u U.\n# TYPE u gauge\nu{v=\"\\\\xFFcaf\xc3\xa9\"} 0\n# EOF\n"},
	{"special values", {{'g', "n", "N.", {"k", "nan", NULL}, NAN},
		{'g', "n", "N.", {"k", "inf", NULL}, INFINITY}, {'g', "n", "N.", {"k", "-inf", NULL}, -INFINITY}},
		"# HELP n N.\n# TYPE n gauge\nn{k=\"nan\"} NaN\nn{k=\"inf\"} +Inf\nn{k=\"-inf\"} -Inf\n",
	"# HELP n N.\n# TYPE n gauge\nn{k=\"nan\"} NaN\nn{k=\"inf\"} +Inf\nn{k=\"-inf\"} -Inf\n# EOF\n"},
	{"nothing at all", {{0}}, "", "# EOF\n"},
};

START_TEST(test_exposition)
{
	metrics		m;
	strbuf		prom,
				om;
	char	   *cause = NULL;

	metrics_init(&m);
	for (int i = 0; i < 4 && cases[_i].ops[i].kind != 0; i++)
		ck_assert_msg(apply(&m, &cases[_i].ops[i]), "%s: op %d refused", cases[_i].what, i);
	strbuf_init(&prom);
	strbuf_init(&om);
	ck_assert(metrics_render(&m, 0, &prom, &cause));
	ck_assert(metrics_render(&m, METRICS_OPENMETRICS, &om, &cause));
	ck_assert_msg(strcmp(prom.data, cases[_i].prom) == 0, "%s: got\n%s", cases[_i].what, prom.data);
	ck_assert_msg(strcmp(om.data, cases[_i].om) == 0, "%s: got\n%s", cases[_i].what, om.data);
	/* reset empties it for the next scrape */
	metrics_reset(&m);
	strbuf_reset(&prom);
	ck_assert(metrics_render(&m, 0, &prom, &cause));
	ck_assert_str_eq(prom.data, "");
	strbuf_free(&prom);
	strbuf_free(&om);
	metrics_free(&m);
}
END_TEST

static const struct
{
	double		v;
	const char *want;
}			doubles[] = {
	{0, "0"}, {1, "1"}, {-2.5, "-2.5"}, {0.1, "0.1"}, {1e-9, "1e-09"},
	{123456789, "123456789"}, {9007199254740992.0, "9007199254740992"},
	{1.0 / 3, "0.3333333333333333"}, {2.0 / 3, "0.6666666666666666"}, {0.1 + 0.2, "0.30000000000000004"},
	{1e21, "1e+21"}, {5e-324, "4.94065645841247e-324"},
	{1.7976931348623157e308, "1.7976931348623157e+308"},
};

/* Shortest text that reads back, and Prometheus' spelling of the special values. */
START_TEST(test_format_double)
{
	char		buf[METRICS_DOUBLE_MAX];

	ck_assert_str_eq(metrics_format_double(buf, doubles[_i].v), doubles[_i].want);
	ck_assert(strtod(buf, NULL) == doubles[_i].v);
}
END_TEST

START_TEST(test_format_special)
{
	char		buf[METRICS_DOUBLE_MAX];

	ck_assert_str_eq(metrics_format_double(buf, NAN), "NaN");
	ck_assert_str_eq(metrics_format_double(buf, -NAN), "NaN");
	ck_assert_str_eq(metrics_format_double(buf, INFINITY), "+Inf");
	ck_assert_str_eq(metrics_format_double(buf, -INFINITY), "-Inf");
}
END_TEST

/* Histograms: cumulative buckets, +Inf equal to _count, an overflow bucket. */
START_TEST(test_histogram)
{
	static const double le[] = {0.001, 0.01, 0.1};
	static const uint64_t counts[] = {1, 2, 3};
	static const double le_inf[] = {1, INFINITY};
	static const uint64_t counts_inf[] = {2, 5};
	metrics		m;
	strbuf		sb;
	char	   *cause = NULL;

	metrics_init(&m);
	strbuf_init(&sb);
	ck_assert(metrics_histogram(&m, "h_seconds", "H.", (const char *[]) {"script", "a", NULL},
								le, counts, 3, 0.5));
	ck_assert(metrics_histogram(&m, "o", "O.", NULL, le_inf, counts_inf, 2, 12.25));
	ck_assert(metrics_render(&m, 0, &sb, &cause));
	ck_assert_str_eq(sb.data,
					 "# HELP h_seconds H.\n# TYPE h_seconds histogram\n"
					 "h_seconds_bucket{script=\"a\",le=\"0.001\"} 1\n"
					 "h_seconds_bucket{script=\"a\",le=\"0.01\"} 3\n"
					 "h_seconds_bucket{script=\"a\",le=\"0.1\"} 6\n"
					 "h_seconds_bucket{script=\"a\",le=\"+Inf\"} 6\n"
					 "h_seconds_sum{script=\"a\"} 0.5\n"
					 "h_seconds_count{script=\"a\"} 6\n"
					 "# HELP o O.\n# TYPE o histogram\n"
					 "o_bucket{le=\"1\"} 2\n"
					 "o_bucket{le=\"+Inf\"} 7\n"
					 "o_sum 12.25\n"
					 "o_count 7\n");
	strbuf_free(&sb);
	metrics_free(&m);
}
END_TEST

/* Each misuse is refused, kept (the first one), and fails the render. */
static const struct
{
	const char *what;
	op			ops[2];
	const char *cause;
}			misuses[] = {
	{"counter without _total", {{'c', "pgtempo_tx", "T.", {NULL}, 1}},
	"counter \"pgtempo_tx\": the name must end in _total"},
	{"info without _info", {{'i', "pgtempo_clock", "C.", {NULL}}},
	"info \"pgtempo_clock\": the name must end in _info"},
	{"a bare _total", {{'c', "_total", "T.", {NULL}, 1}}, "the name must end in _total"},
	{"name starts with a digit", {{'g', "1x", "X.", {NULL}, 1}}, "invalid metric name \"1x\""},
	{"name with a dash", {{'g', "a-b", "X.", {NULL}, 1}}, "invalid metric name \"a-b\""},
	{"empty name", {{'g', "", "X.", {NULL}, 1}}, "invalid metric name \"\""},
	{"non-ASCII name", {{'g', "caf\xc3\xa9", "X.", {NULL}, 1}}, "invalid metric name"},
	{"no help", {{'g', "x", NULL, {NULL}, 1}}, "metric \"x\" has no help text"},
	{"reserved label name", {{'g', "x", "X.", {"__name__", "y", NULL}, 1}},
	"metric \"x\": invalid label name \"__name__\""},
	{"label name with a colon", {{'g', "x", "X.", {"a:b", "y", NULL}, 1}}, "invalid label name \"a:b\""},
	{"label given twice", {{'g', "x", "X.", {"a", "1", "a", "2", NULL}, 1}},
	"metric \"x\": label \"a\" given twice"},
	{"two types", {{'g', "x", "X.", {NULL}, 1}, {'c', "x_total", "X.", {NULL}, 1}},
	"metric family \"x\" added as gauge and as counter"},
	{"two help texts", {{'g', "x", "X.", {"a", "1", NULL}, 1}, {'g', "x", "Y.", {"a", "2", NULL}, 1}},
	"metric family \"x\" added with two help texts"},
	{"a NaN counter", {{'c', "x_total", "X.", {NULL}, NAN}}, "counter \"x_total\": value nan is not a count"},
	{"a negative counter", {{'c', "x_total", "X.", {NULL}, -1}}, "counter \"x_total\": value -1 is not a count"},
	{"the first misuse is kept", {{'g', "1x", "X.", {NULL}, 1}, {'g', "2x", "X.", {NULL}, 1}},
	"invalid metric name \"1x\""},
	{"one series twice", {{'g', "x", "X.", {"a", "1", NULL}, 1}, {'g', "x", "X.", {"a", "1", NULL}, 2}},
	"metric \"x\": the series {a=\"1\"} added twice"},
	{"one series twice, its labels in another order",
		{{'g', "x", "X.", {"b", "2", "a", "1", NULL}, 1}, {'g', "x", "X.", {"a", "1", "b", "2", NULL}, 1}},
	"metric \"x\": the series {a=\"1\",b=\"2\"} added twice"},
	{"a label of empty value is no label", {{'g', "x", "X.", {NULL}, 1}, {'g', "x", "X.", {"a", "", NULL}, 1}},
	"metric \"x\": the series without labels added twice"},
	{"two values written alike (an invalid byte as the text \\xFF)",
		{{'g', "x", "X.", {"v", "\xff", NULL}, 1}, {'g', "x", "X.", {"v", "\\xFF", NULL}, 1}},
	"metric \"x\": the series {v=\"\\\\xFF\"} added twice"},
	{"a counter twice", {{'c', "x_total", "X.", {NULL}, 1}, {'c', "x_total", "X.", {NULL}, 2}},
	"metric \"x_total\": the series without labels added twice"},
	{"an info twice", {{'i', "x_info", "X.", {"v", "1", NULL}}, {'i', "x_info", "X.", {"v", "1", NULL}}},
	"metric \"x_info\": the series {v=\"1\"} added twice"},
};

START_TEST(test_misuse)
{
	metrics		m;
	strbuf		sb;
	char	   *cause = NULL;
	bool		ok = true;

	metrics_init(&m);
	strbuf_init(&sb);
	ck_assert(metrics_gauge(&m, "fine", "F.", NULL, 1));
	for (int i = 0; i < 2 && misuses[_i].ops[i].kind != 0; i++)
		ok = apply(&m, &misuses[_i].ops[i]) && ok;
	ck_assert_msg(!ok, "%s: accepted", misuses[_i].what);
	ck_assert(!metrics_render(&m, 0, &sb, &cause));
	ck_assert_msg(strstr(cause, misuses[_i].cause) != NULL, "%s: cause \"%s\"", misuses[_i].what, cause);
	ck_assert_str_eq(sb.data, "");
	free(cause);
	/* reset forgets the misuse */
	metrics_reset(&m);
	ck_assert(metrics_render(&m, 0, &sb, &cause));
	strbuf_free(&sb);
	metrics_free(&m);
}
END_TEST

START_TEST(test_histogram_misuse)
{
	static const double unordered[] = {1, 1};
	static const double nan_le[] = {NAN};
	static const double inf_first[] = {INFINITY, 1};
	static const uint64_t counts[] = {1, 1};
	static const char *const le_label[] = {"le", "1", NULL};
	static const struct
	{
		const double *le;
		size_t		n;
		const char *const *labels;
		double		sum;
		const char *cause;
	}			bad[] = {
		{unordered, 2, NULL, 0, "bucket bounds not strictly increasing at 1"},
		{nan_le, 1, NULL, 0, "bucket bounds not strictly increasing at 0"},
		{inf_first, 2, NULL, 0, "bucket bounds not strictly increasing at 0"},
		{unordered, 0, NULL, 0, "has no buckets"},
		{unordered, 1, le_label, 0, "invalid label name \"le\""},
		{inf_first + 1, 1, NULL, NAN, "histogram \"h\": the sum is NaN"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		metrics		m;
		strbuf		sb;
		char	   *cause = NULL;

		metrics_init(&m);
		strbuf_init(&sb);
		ck_assert(!metrics_histogram(&m, "h", "H.", bad[i].labels, bad[i].le, counts, bad[i].n,
									  bad[i].sum));
		ck_assert(!metrics_render(&m, 0, &sb, &cause));
		ck_assert_msg(strstr(cause, bad[i].cause) != NULL, "case %zu: cause \"%s\"", i, cause);
		free(cause);
		strbuf_free(&sb);
		metrics_free(&m);
	}
}
END_TEST

/*
 * A histogram's series twice is refused too; the same labels in another
 * family, or another label value, are other series; a reset forgets every
 * series (an endpoint adds the same ones at each scrape).
 */
START_TEST(test_series)
{
	static const double le[] = {1};
	static const uint64_t counts[] = {1};
	static const char *const a1[] = {"a", "1", NULL};
	static const char *const a2[] = {"a", "2", NULL};
	metrics		m;
	strbuf		sb;
	char	   *cause = NULL;

	metrics_init(&m);
	strbuf_init(&sb);
	for (int scrape = 0; scrape < 2; scrape++)
	{
		metrics_reset(&m);
		ck_assert(metrics_histogram(&m, "h", "H.", a1, le, counts, 1, 0));
		ck_assert(metrics_histogram(&m, "h", "H.", a2, le, counts, 1, 0));
		ck_assert(metrics_gauge(&m, "g", "G.", a1, 1));
		ck_assert(metrics_counter(&m, "g2_total", "G.", a1, 1));
		ck_assert(metrics_gauge(&m, "g", "G.", NULL, 1));
		strbuf_reset(&sb);
		ck_assert_msg(metrics_render(&m, 0, &sb, &cause), "scrape %d: %s", scrape, cause);
	}
	ck_assert(!metrics_histogram(&m, "h", "H.", a2, le, counts, 1, 0));
	ck_assert(!metrics_render(&m, 0, &sb, &cause));
	ck_assert_str_eq(cause, "metric \"h\": the series {a=\"2\"} added twice");
	free(cause);
	strbuf_free(&sb);
	metrics_free(&m);
}
END_TEST

static const struct
{
	const char *accept;
	bool		om;
}			accepts[] = {
	{NULL, false}, {"", false}, {"*/*", false}, {"text/plain; version=0.0.4", false},
	/* what Prometheus 2.x sends */
	{"application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
	"text/plain;version=0.0.4;q=0.5,*/*;q=0.1", true},
	{"APPLICATION/OpenMetrics-Text; version=1.0.0", true},
	{"text/plain;q=0.5, application/openmetrics-text ; q=0.1", true},
	{"application/openmetrics-text;q=0", false},
	{"application/openmetrics-text; version=1.0.0; q=0.0, text/plain", false},
	{"application/openmetrics-textual", false},
};

START_TEST(test_accepts_openmetrics)
{
	ck_assert_msg(metrics_accepts_openmetrics(accepts[_i].accept) == accepts[_i].om,
				  "Accept: %s", accepts[_i].accept ? accepts[_i].accept : "(none)");
}
END_TEST

START_TEST(test_content_type)
{
	ck_assert_str_eq(metrics_content_type(0), "text/plain; version=0.0.4; charset=utf-8");
	ck_assert_str_eq(metrics_content_type(METRICS_OPENMETRICS),
					 "application/openmetrics-text; version=1.0.0; charset=utf-8");
}
END_TEST

/* Every kind of family, in one exposition. */
static void
build_all(metrics *m)
{
	static const double le[] = {1e-6, 1e-3, 1};
	static const uint64_t counts[] = {3, 0, 2};

	metrics_counter(m, "pgtempo_test_things_total", "Things \"done\".\\ Two\nlines.",
					(const char *[]) {"kind", "a\\b\"c\nd", NULL}, 7);
	metrics_gauge(m, "pgtempo_test_seconds", "Seconds.", NULL, 0.25);
	metrics_info(m, "pgtempo_test_info", "What ran.", (const char *[]) {"version", "1.0", NULL});
	metrics_histogram(m, "pgtempo_test_latency_seconds", "Latency.",
					  (const char *[]) {"script", "0", NULL}, le, counts, 3, 1.5);
	metrics_gauge(m, "pgtempo_test_seconds", "Seconds.", (const char *[]) {"k", "half", NULL}, 0.5);
	metrics_counter(m, "pgtempo_test_things_total", "Things \"done\".\\ Two\nlines.",
					(const char *[]) {"kind", "b", NULL}, 2);
	metrics_gauge(m, "pgtempo_test_seconds", "Seconds.", (const char *[]) {"k", "nan", NULL}, NAN);
}

/* The file: replaced whole, no temporary file left; a bad path refused early. */
START_TEST(test_write_file)
{
	char		dir[] = "/tmp/check_metrics.XXXXXX";
	char		path[80],
				missing[80];
	metrics		m;
	strbuf		sb;
	char	   *cause = NULL;
	char	   *text;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/pgtempo.prom", dir);
	snprintf(missing, sizeof(missing), "%s/no/such/dir/pgtempo.prom", dir);
	metrics_init(&m);
	strbuf_init(&sb);
	build_all(&m);
	ck_assert(metrics_render(&m, 0, &sb, &cause));

	ck_assert(metrics_check_path(path, &cause));
	ck_assert_int_eq(unit_count_entries(dir), 0);
	ck_assert(metrics_write_file(path, &sb, &cause));
	text = unit_slurp(path);
	ck_assert_str_eq(text, sb.data);
	free(text);
	ck_assert_int_eq(unit_count_entries(dir), 1);
	/* the second write replaces the first */
	strbuf_reset(&sb);
	ck_assert(metrics_render(&m, METRICS_OPENMETRICS, &sb, &cause));
	ck_assert(metrics_check_path(path, &cause));
	ck_assert(metrics_write_file(path, &sb, &cause));
	text = unit_slurp(path);
	ck_assert_str_eq(text, sb.data);
	free(text);
	ck_assert_int_eq(unit_count_entries(dir), 1);

	ck_assert(!metrics_check_path(missing, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "No such file or directory"));
	ck_assert_ptr_nonnull(strstr(cause, missing));
	free(cause);
	ck_assert(!metrics_write_file(missing, &sb, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "No such file or directory"));
	free(cause);

	unlink(path);
	rmdir(dir);
	strbuf_free(&sb);
	metrics_free(&m);
}
END_TEST

/*
 * A directory we may not create in fails the early check, even where the
 * file itself is writable (the temporary file could not be made), and
 * the write does not fall back to writing straight into the file.
 */
START_TEST(test_unwritable_dir)
{
	char		dir[] = "/tmp/check_metrics.XXXXXX";
	char		path[80];
	strbuf		sb = {0};
	char	   *cause = NULL;
	char	   *text;

	if (geteuid() == 0)
	{
		fprintf(stderr, "# running as root, which creates files anywhere: skipped\n");
		return;
	}
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	strbuf_puts(&sb, "old\n");
	ck_assert(metrics_write_file(path, &sb, &cause));
	ck_assert_int_eq(chmod(dir, 0555), 0);
	ck_assert(!metrics_check_path(path, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "could not create temporary file"));
	ck_assert_ptr_nonnull(strstr(cause, "Permission denied"));
	free(cause);
	strbuf_puts(&sb, "new\n");
	ck_assert(!metrics_write_file(path, &sb, &cause));
	free(cause);
	text = unit_slurp(path);
	ck_assert_str_eq(text, "old\n");
	free(text);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	unlink(path);
	rmdir(dir);
	strbuf_free(&sb);
}
END_TEST

/* A write that fails half-way (a file size limit, as a full disk) leaves the old file, no temporary. */
START_TEST(test_write_file_fails)
{
	char		dir[] = "/tmp/check_metrics.XXXXXX";
	char		path[80];
	strbuf		sb = {0};
	char	   *cause = NULL;
	char	   *text;
	struct rlimit lim = {4096, 4096},
				old;
	bool		ok;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	strbuf_puts(&sb, "old\n");
	ck_assert(metrics_write_file(path, &sb, &cause));
	for (int i = 0; i < 1000; i++)
		strbuf_puts(&sb, "pgtempo_filler 1\n");
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ok = metrics_write_file(path, &sb, &cause);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	ck_assert(!ok);
	ck_assert_msg(strstr(cause, "could not write to file") != NULL && strstr(cause, path) != NULL,
				  "cause: %s", cause);
	free(cause);
	text = unit_slurp(path);
	ck_assert_str_eq(text, "old\n");
	free(text);
	ck_assert_int_eq(unit_count_entries(dir), 1);
	unlink(path);
	rmdir(dir);
	strbuf_free(&sb);
}
END_TEST

/*
 * What promtool (Prometheus' own parser and linter) says of the 0.0.4
 * text: nothing.  Skipped where promtool is not installed (CI installs it).
 */
START_TEST(test_promtool)
{
	char		dir[] = "/tmp/check_metrics.XXXXXX";
	char		path[80],
				cmd[256];
	metrics		m;
	strbuf		sb;
	char	   *cause = NULL;
	int			status;

	if (system("command -v promtool >/dev/null 2>&1") != 0)
	{
		fprintf(stderr, "# promtool not installed: skipped\n");
		return;
	}
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/all.prom", dir);
	metrics_init(&m);
	strbuf_init(&sb);
	build_all(&m);
	ck_assert(metrics_render(&m, 0, &sb, &cause));
	ck_assert(metrics_write_file(path, &sb, &cause));
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s >%s.out 2>&1", path, path);
	status = system(cmd);
	snprintf(cmd, sizeof(cmd), "%s.out", path);
	{
		char	   *out = unit_slurp(cmd);

		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
					  "promtool check metrics failed:\n%s\non:\n%s", out, sb.data);
		free(out);
	}
	unlink(cmd);
	unlink(path);
	rmdir(dir);
	strbuf_free(&sb);
	metrics_free(&m);
}
END_TEST

/*
 * The OpenMetrics text through a strict OpenMetrics parser (Python's
 * prometheus_client, Debian's python3-prometheus-client): it parses, and
 * has the families and samples we wrote.  Skipped where it is missing.
 */
static const char om_check_py[] =
	"import sys\n"
	"from prometheus_client.openmetrics.parser import text_string_to_metric_families as p\n"
	"fams = list(p(open(sys.argv[1]).read()))\n"
	"print(' '.join('%s:%s:%d' % (f.name, f.type, len(f.samples)) for f in fams))\n";

START_TEST(test_openmetrics_parser)
{
	char		dir[] = "/tmp/check_metrics.XXXXXX";
	char		path[80],
				py[80],
				out[96],
				cmd[512];
	metrics		m;
	strbuf		sb = {0};
	char	   *cause = NULL;
	char	   *text;
	int			status;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/all.om", dir);
	snprintf(py, sizeof(py), "%s/check.py", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	strbuf_puts(&sb, om_check_py);
	ck_assert(metrics_write_file(py, &sb, &cause));
	strbuf_reset(&sb);
	metrics_init(&m);
	build_all(&m);
	ck_assert(metrics_render(&m, METRICS_OPENMETRICS, &sb, &cause));
	ck_assert(metrics_write_file(path, &sb, &cause));
	/* the first python3 that has the parser (a pyenv one on PATH may not) */
	snprintf(cmd, sizeof(cmd),
			 "for py in python3 /usr/bin/python3; do "
			 "if $py -c 'import prometheus_client.openmetrics.parser' 2>/dev/null; then "
			 "exec $py %s %s >%s 2>&1; fi; done; exit 77", py, path, out);
	status = system(cmd);
	text = unit_slurp(out);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		fprintf(stderr, "# python3-prometheus-client not installed: skipped\n");
	else
	{
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
					  "the OpenMetrics parser refused it:\n%s\non:\n%s", text, sb.data);
		ck_assert_str_eq(text, "pgtempo_test_things:counter:2 pgtempo_test_seconds:gauge:3 "
						 "pgtempo_test:info:1 pgtempo_test_latency_seconds:histogram:6\n");
	}
	free(text);
	unlink(out);
	unlink(py);
	unlink(path);
	rmdir(dir);
	strbuf_free(&sb);
	metrics_free(&m);
}
END_TEST

static Suite *
metrics_suite(void)
{
	Suite	   *s = suite_create("metrics");
	TCase	   *tc;

	tc = tcase_create("exposition");
	tcase_add_loop_test(tc, test_exposition, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_loop_test(tc, test_format_double, 0, sizeof(doubles) / sizeof(doubles[0]));
	tcase_add_test(tc, test_format_special);
	tcase_add_test(tc, test_histogram);
	tcase_add_loop_test(tc, test_misuse, 0, sizeof(misuses) / sizeof(misuses[0]));
	tcase_add_test(tc, test_histogram_misuse);
	tcase_add_test(tc, test_series);
	tcase_add_loop_test(tc, test_accepts_openmetrics, 0, sizeof(accepts) / sizeof(accepts[0]));
	tcase_add_test(tc, test_content_type);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_test(tc, test_write_file);
	tcase_add_test(tc, test_unwritable_dir);
	tcase_add_test(tc, test_write_file_fails);
	tcase_add_test(tc, test_promtool);
	tcase_add_test(tc, test_openmetrics_parser);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(metrics_suite());
}
