/*
 * check_waits_bars.c — unit tests of pgtempo-waits' bar panel (waitsbars.c),
 * rendered through the core chart.
 */
#include "config.h"

#include "waitsbars.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/chart.h"
#include "svgcheck.h"
#include "unit.h"

/* Values as text after the bars, lengths in proportion, colours as the areas'. */
START_TEST(test_bars)
{
	chart	   *c = chart_new("bars", NULL);
	wbars	   *b = wbars_add_panel(c, "profile", "%");
	wbars	   *n = wbars_add_panel(c, "counts", "samples");
	char	   *doc;
	const char *big,
			   *half;

	wbars_add(b, "CPU", 60, "600 samples", CHART_AUTO);
	wbars_add(b, "IO:WALSync", 30, "300 samples", CHART_AUTO);
	wbars_add(b, "rare", 0.01, NULL, CHART_GREY);
	wbars_add(n, "x", 1500, NULL, CHART_AUTO);
	doc = svgcheck_render(c);
	ck_assert_ptr_nonnull(strstr(doc, ">60.0%<tspan"));
	ck_assert_ptr_nonnull(strstr(doc, ">600 samples</tspan>"));
	ck_assert_ptr_nonnull(strstr(doc, ">&lt;0.1%</text>"));
	ck_assert_ptr_nonnull(strstr(doc, ">1.5k samples</text>"));
	/* bars are as long as their value: the second half the first */
	big = strstr(doc, "<rect class=\"bar\"");
	ck_assert_ptr_nonnull(big);
	half = strstr(big + 1, "<rect class=\"bar\"");
	ck_assert_ptr_nonnull(half);
	ck_assert(fabs(svgcheck_attr_num(half, "width") * 2 - svgcheck_attr_num(big, "width")) < 0.2);
	/* colours: auto from the start of the palette, grey on request */
	ck_assert_ptr_nonnull(strstr(big, "fill=\"#0072B2\""));
	ck_assert_ptr_nonnull(strstr(half, "fill=\"#E69F00\""));
	ck_assert_ptr_nonnull(strstr(doc, "fill=\"#BBBBBB\""));
	free(doc);
	chart_free(c);
}
END_TEST

/* Hostile text in the title, unit, label and note. */
static void
hostile_bars(chart *c, const char *evil)
{
	wbars_add(wbars_add_panel(c, evil, evil), evil, 42, evil, CHART_AUTO);
}

START_TEST(test_bars_hostile_text)
{
	svgcheck_hostile(hostile_bars);
}
END_TEST

/* ---------------------------------------------------------------- degenerate input */

static void
degenerate_no_bars(chart *c)
{
	chart_add_panel(c, "empty", 0);
	wbars_add_panel(c, "no bars", "%");
}

static void
degenerate_all_zero(chart *c)
{
	wbars	   *b = wbars_add_panel(c, "bars", "%");

	wbars_add(b, "zero", 0, "0 samples", CHART_AUTO);
	wbars_add(b, "negative", -5, NULL, CHART_AUTO);
	wbars_add(b, "nan", NAN, NULL, CHART_AUTO);
}

static void
degenerate_huge(chart *c)
{
	wbars	   *b = wbars_add_panel(c, "bars", "tps");

	wbars_add(b, "big", 1e308, "n", CHART_AUTO);
	wbars_add(b, "small", 1e-308, "n", CHART_AUTO);
	wbars_add(b, "max", DBL_MAX, NULL, CHART_NCOLOURS + 5);
}

static const svgcheck_case degenerate_cases[] = {
	{"no bars", degenerate_no_bars},
	{"all zero", degenerate_all_zero},
	{"huge", degenerate_huge},
};

/* An empty panel keeps a row that says so. */
START_TEST(test_no_data)
{
	chart	   *c = chart_new("t", NULL);
	char	   *doc;

	wbars_add_panel(c, "Profile", "%");
	doc = svgcheck_render(c);
	ck_assert_ptr_nonnull(strstr(doc, ">no data</text>"));
	ck_assert_ptr_null(strstr(doc, "class=\"bar\""));
	free(doc);
	chart_free(c);
}
END_TEST

#define N(a) ((int) (sizeof(a) / sizeof((a)[0])))

static Suite *
waits_bars_suite(void)
{
	Suite	   *s = suite_create("waits_bars");
	TCase	   *tc = tcase_create("render");

	tcase_add_test(tc, test_bars);
	tcase_add_test(tc, test_bars_hostile_text);
	svgcheck_add_cases(tc, degenerate_cases, N(degenerate_cases));
	tcase_add_test(tc, test_no_data);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(waits_bars_suite());
}
