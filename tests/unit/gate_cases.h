/*
 * gate_cases.h — one table of changes and limits that both tools' judges
 * must decide alike: check_bench_compare feeds each case to
 * pgtempo-bench's (an interval of a ratio, cmp_limit_trips), and
 * check_waits_keydiff to pgtempo-waits' (a change and its bound,
 * baseline_limit_tripped).  A limit is written after the tool's own name
 * for what it judges ("tps" + ":-5%", "total" + ":-5%").
 */
#ifndef PGTEMPO_TESTS_GATE_CASES_H
#define PGTEMPO_TESTS_GATE_CASES_H

#include <stdbool.h>

static const struct
{
	const char *limit;			/* after the name */
	double		base;
	double		lo_pct,			/* the interval of the change, in % of base */
				hi_pct;
	bool		trips;
}			gate_cases[] = {
	/* A/A-like: the interval holds 0; no limit trips, not even one of 0 */
	{":+0%", 100, -4, 4, false},
	{":-0%", 100, -4, 4, false},
	{":-5%", 100, -4, 4, false},
	{"<0.95x", 100, -4, 4, false},
	{">1.1x", 100, -4, 4, false},
	/* a real drop of 10 % (+-2) */
	{":-5%", 100, -12, -8, true},
	{":<-5%", 100, -12, -8, true},
	{"<-5%", 100, -12, -8, true},
	{"<0.95x", 100, -12, -8, true},
	{":-0%", 100, -12, -8, true},
	{":-10%", 100, -12, -8, false},	/* the interval straddles the limit */
	{":-15%", 100, -12, -8, false},
	{":+5%", 100, -12, -8, false},	/* the other way */
	{">0.8x", 100, -12, -8, true},	/* above -20 % */
	/* a real rise of 30 % (+-5) */
	{":+10%", 2000, 25, 35, true},
	{">1.2x", 2000, 25, 35, true},
	{":>+30%", 2000, 25, 35, false},
	{":+0%", 2000, 25, 35, true},
	{":-5%", 2000, 25, 35, false},
};

#endif
