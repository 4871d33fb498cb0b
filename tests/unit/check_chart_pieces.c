/*
 * check_chart_pieces.c — the pieces of the SVG chart writer, one at a
 * time: the well-formedness checker itself, tick steps, number formats
 * (in any locale) and escaping of text.
 */
#include "config.h"

#include "check_chart.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/strbuf.h"
#include "pgtempo/svg.h"
#include "svgcheck.h"

/* ---------------------------------------------------------------- the checker checks */

static const struct
{
	const char *doc;
	bool		ok;
}			xml_cases[] = {
	{"<a/>", true},
	{"<?xml version=\"1.0\"?>\n<a x=\"1\"><b>t &amp; &#38; &#x26;</b></a>\n", true},
	{"<a><b></a></b>", false},
	{"<a>x < y</a>", false},
	{"<a>x & y</a>", false},
	{"<a x=1/>", false},
	{"<a x=\"1\" x=\"2\"/>", false},
	{"<a x=\"<\"/>", false},
	{"<a/><b/>", false},
	{"<a>", false},
	{"<a>\x01</a>", false},
	{"<a>\xff</a>", false},
};

START_TEST(test_xml_checker)
{
	const char *err = svgcheck_xml_error(xml_cases[_i].doc);

	ck_assert_msg((err == NULL) == xml_cases[_i].ok, "case %d: %s", _i, err ? err : "accepted");
}
END_TEST

/* ---------------------------------------------------------------- ticks */

static const struct
{
	double		lo,
				hi;
	int			target;
	double		first,
				last,
				step;
	int			n;
}			tick_cases[] = {
	{0, 947, 5, 0, 1000, 200, 6},
	{0, 1, 5, 0, 1, 0.2, 6},
	{0, 100, 5, 0, 100, 20, 6},
	{0, 101, 5, 0, 150, 50, 4},
	{-3, 7, 5, -4, 8, 2, 7},
	{0.3, 0.7, 4, 0.3, 0.7, 0.1, 5},
	{12, 4.4, 4, 4, 12, 2, 5},	/* reversed bounds */
	{0, 0, 5, 0, 1, 0.2, 6},	/* empty range */
	{5, 5, 5, 4.4, 5.6, 0.2, 7},	/* one value */
	{NAN, NAN, 5, 0, 1, 0.2, 6},
	{0, INFINITY, 5, 0, 1, 0.2, 6},
	{-1e308, 1e308, 4, -1e300, 1e300, 5e299, 5},	/* clamped, no overflow */
	{0, 3.2e-7, 4, 0, 4e-7, 1e-7, 5},
	{1e9, 1e9 + 1, 4, 999999999.8, 1000000001.2, 0.5, 0},	/* n checked loosely */
};

START_TEST(test_nice_ticks)
{
	double		first,
				last,
				step;
	int			n = chart_nice_ticks(tick_cases[_i].lo, tick_cases[_i].hi, tick_cases[_i].target,
									 &first, &last, &step);
	double		tol = tick_cases[_i].step * 1e-6;

	ck_assert_msg(fabs(step - tick_cases[_i].step) <= tol, "case %d: step %g", _i, step);
	if (tick_cases[_i].n > 0)
	{
		ck_assert_msg(fabs(first - tick_cases[_i].first) <= tol, "case %d: first %g", _i, first);
		ck_assert_msg(fabs(last - tick_cases[_i].last) <= tol, "case %d: last %g", _i, last);
		ck_assert_int_eq(n, tick_cases[_i].n);
	}
	else
	{
		ck_assert(first <= tick_cases[_i].lo && last >= tick_cases[_i].hi);
		ck_assert_int_ge(n, 2);
		ck_assert_int_le(n, 12);
	}
	/* every tick is a 1-2-5 multiple: step / 10^floor(log10(step)) is 1, 2 or 5 */
	{
		double		norm = step / pow(10.0, floor(log10(step) + 1e-12));

		ck_assert_msg(fabs(norm - 1) < 1e-9 || fabs(norm - 2) < 1e-9 || fabs(norm - 5) < 1e-9,
					  "case %d: step %g is not 1-2-5", _i, step);
	}
}
END_TEST

/* ---------------------------------------------------------------- number format */

static const struct
{
	double		v;
	const char *want;
}			number_cases[] = {
	{0, "0"},
	{-0.0, "0"},
	{0.25, "0.25"},
	{1, "1"},
	{1.5, "1.5"},
	{12.34, "12.3"},
	{950, "950"},
	{999.4, "999"},
	{999.7, "1k"},
	{1500, "1.5k"},
	{-1500, "-1.5k"},
	{12345, "12.3k"},
	{123456, "123k"},
	{2e6, "2M"},
	{2.5e9, "2.5G"},
	{1e12, "1T"},
	{999.96e12, "1e15"},
	{1.5e20, "1.5e20"},
	{0.001234, "0.00123"},
	{0.0001, "0.0001"},
	{1.2e-5, "1.2e-5"},
	{-3e-7, "-3e-7"},
	{99.96, "100"},
	{NAN, "NaN"},
	{INFINITY, "inf"},
	{-INFINITY, "-inf"},
};

START_TEST(test_format_number)
{
	char		buf[16];

	svg_format_number(number_cases[_i].v, buf, sizeof(buf));
	ck_assert_str_eq(buf, number_cases[_i].want);
}
END_TEST

/* A decimal-comma locale (when one is installed) changes nothing. */
START_TEST(test_format_locale)
{
	static const char *const locales[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "nl_NL.UTF-8"};
	char		buf[16];
	chart	   *c;
	char	   *doc;
	int			s;

	for (size_t i = 0; i < sizeof(locales) / sizeof(locales[0]); i++)
		if (setlocale(LC_ALL, locales[i]) != NULL)
			break;
	svg_format_number(1.5, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1.5");
	c = chart_new("t", NULL);
	s = chart_add_series(c, chart_add_panel(c, NULL, 0), "s", CHART_LINE, CHART_LEFT, CHART_AUTO);
	chart_add_point(c, s, 0.25, 0.125);
	chart_add_point(c, s, 0.75, 0.375);
	doc = svgcheck_render(c);
	ck_assert_ptr_null(strstr(doc, ",5"));
	free(doc);
	chart_free(c);
	setlocale(LC_ALL, "C");
}
END_TEST

/* ---------------------------------------------------------------- escaping */

static const struct
{
	const char *in;
	const char *want;
}			escape_cases[] = {
	{"plain", "plain"},
	{"a<b&c>d", "a&lt;b&amp;c&gt;d"},
	{"\"q\" 'a'", "&quot;q&quot; &apos;a&apos;"},
	{"tab\there\nnl", "tab here nl"},
	{"bell\x07", "bell"},
	{"caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x93\x88", "caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x93\x88"},
	{"latin1 \xE9t\xE9", "latin1 \xEF\xBF\xBDt\xEF\xBF\xBD"},
	{"overlong \xC0\xAF", "overlong \xEF\xBF\xBD\xEF\xBF\xBD"},
	{"cut \xE2\x80", "cut \xEF\xBF\xBD\xEF\xBF\xBD"},
	{"nonchar \xEF\xBF\xBE", "nonchar \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
	{"surrogate \xED\xA0\x80", "surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
	{"", ""},
};

START_TEST(test_escape)
{
	strbuf		sb;

	strbuf_init(&sb);
	svg_text(&sb, escape_cases[_i].in, 0);
	ck_assert_str_eq(sb.data, escape_cases[_i].want);
	strbuf_free(&sb);
}
END_TEST

/* The "pieces" test case. */
TCase *
check_chart_pieces_tcase(void)
{
	TCase	   *tc = tcase_create("pieces");

	tcase_add_loop_test(tc, test_xml_checker, 0, N(xml_cases));
	tcase_add_loop_test(tc, test_nice_ticks, 0, N(tick_cases));
	tcase_add_loop_test(tc, test_format_number, 0, N(number_cases));
	tcase_add_test(tc, test_format_locale);
	tcase_add_loop_test(tc, test_escape, 0, N(escape_cases));
	return tc;
}
