/*
 * svgcheck.h — checks of rendered charts shared by the Check suites that
 * draw them (check_chart, check_waits_bars).
 */
#ifndef PGTEMPO_TESTS_SVGCHECK_H
#define PGTEMPO_TESTS_SVGCHECK_H

#include <check.h>

#include "pgtempo/chart.h"

/*
 * NULL when doc is a well-formed XML document (one root element, matched
 * tags, quoted attributes that are unique per element, valid references,
 * no '<' in text or attribute values), else what is wrong.
 */
const char *svgcheck_xml_error(const char *doc);

/*
 * Render c, check the document (well-formed, xmllint when installed, an
 * SVG header, no script, link or style sheet, no non-finite number), and
 * hand it over (free with free()).  A failed check fails the test.
 */
char	   *svgcheck_render(const chart *c);

/* A chart to fill, by name: the suites' tables of degenerate input. */
typedef struct svgcheck_case
{
	const char *name;
	void		(*build) (chart *c);
} svgcheck_case;

/*
 * Add to tc a loop test over cases[0 .. n): each a chart titled with the
 * case's name (every other one subtitled too, so both headers are drawn),
 * filled by its build, rendered, checked and freed.  One table per suite.
 */
void		svgcheck_add_cases(TCase *tc, const svgcheck_case *cases, int n);

/*
 * A chart titled and subtitled with hostile text (markup, a control
 * character, invalid UTF-8), filled by build with the same text wherever
 * a caller can put some: rendered and checked, the text must come out
 * escaped.
 */
void		svgcheck_hostile(void (*build) (chart *c, const char *evil));

/* The number in attribute name of the element starting at el (the test fails without one). */
double		svgcheck_attr_num(const char *el, const char *name);

#endif
