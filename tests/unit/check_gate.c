/*
 * check_gate.c — the limit grammar (every spelling the tools took before
 * it, the new ones, the errors), the rule that judges a change against a
 * limit, and the verdicts.
 */
#include "config.h"

#include "pgtempo/gate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

/* A name check like a tool's: "bad" is refused, "latency:X" is X. */
static bool
name_ok(gate_limit *l, const char **why)
{
	*why = "not a name this tool knows";
	if (strcmp(l->name, "bad") == 0)
		return false;
	if (strncmp(l->name, "latency:", 8) == 0)
		memmove(l->name, l->name + 8, strlen(l->name + 8) + 1);
	return true;
}

static const gate_spec every_unit = {
	"--fail-if", GATE_UNIT_NONE | GATE_UNIT_PCT | GATE_UNIT_TIME, "tps:-5%",
	"the limit is a signed change", name_ok
};
static const gate_spec pct_only = {
	"--fail-if", GATE_UNIT_PCT, "tps:-5%", "the limit is a signed change in %", NULL
};

START_TEST(grammar)
{
	static const struct
	{
		const char *list;
		const char *name;		/* of the first limit */
		bool		above;
		gate_unit	unit;
		double		value;
		int			n;
	}			cases[] = {
		/* bench's spellings before the gate */
		{"tps:-5%", "tps", false, GATE_UNIT_PCT, -5, 1},
		{"p99:+10%,tps:-5%", "p99", true, GATE_UNIT_PCT, 10, 2},
		{"p99.9:+0.5%", "p99.9", true, GATE_UNIT_PCT, 0.5, 1},
		{"avg:+0%", "avg", true, GATE_UNIT_PCT, 0, 1},
		{"tps:-5.%", "tps", false, GATE_UNIT_PCT, -5, 1},
		/* waits' */
		{"Lock:+0.5", "Lock", true, GATE_UNIT_NONE, 0.5, 1},
		{"total:+50%,Lock:+0.5", "total", true, GATE_UNIT_PCT, 50, 2},
		{"Lock:transactionid:-.2", "Lock:transactionid", false, GATE_UNIT_NONE, -0.2, 1},
		{"Timeout:-0.01", "Timeout", false, GATE_UNIT_NONE, -0.01, 1},
		/* with an operator */
		{"tps<-5%", "tps", false, GATE_UNIT_PCT, -5, 1},
		{"tps:<-5%", "tps", false, GATE_UNIT_PCT, -5, 1},
		{"p99>10%", "p99", true, GATE_UNIT_PCT, 10, 1},
		{"p99:>+10%", "p99", true, GATE_UNIT_PCT, 10, 1},
		{"tps<0.95x", "tps", false, GATE_UNIT_PCT, -5, 1},
		{"p99>1.5x", "p99", true, GATE_UNIT_PCT, 50, 1},
		{"IO/DataFileRead>0.5", "IO/DataFileRead", true, GATE_UNIT_NONE, 0.5, 1},
		{"Lock:transactionid:>1", "Lock:transactionid", true, GATE_UNIT_NONE, 1, 1},
		{"capacity:<1500", "capacity", false, GATE_UNIT_NONE, 1500, 1},
		{"latency:p99<10ms", "p99", false, GATE_UNIT_TIME, 0.010, 1},
		{"latency:p99:>+250us", "p99", true, GATE_UNIT_TIME, 0.00025, 1},
		{"p50>2s", "p50", true, GATE_UNIT_TIME, 2, 1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		gate_limit l[GATE_MAX_LIMITS];
		int			n = -1;
		char	   *cause = NULL;

		ck_assert_msg(gate_parse(cases[i].list, &every_unit, l, &n, &cause), "%s: %s",
					  cases[i].list, cause);
		ck_assert_int_eq(n, cases[i].n);
		ck_assert_str_eq(l[0].name, cases[i].name);
		ck_assert_msg(l[0].above == cases[i].above, "%s: direction", cases[i].list);
		ck_assert_int_eq(l[0].unit, cases[i].unit);
		ck_assert_msg(fabs(l[0].value - cases[i].value) < 1e-12, "%s: %g, want %g",
					  cases[i].list, l[0].value, cases[i].value);
	}
}
END_TEST

START_TEST(grammar_errors)
{
	static const struct
	{
		const char *list;
		const gate_spec *spec;
		const char *why;
	}			cases[] = {
		{"", &every_unit, "it is empty"},
		{"tps", &every_unit, "each item is NAME:LIMIT or NAME<LIMIT"},
		{":+5%", &every_unit, "each item is NAME:LIMIT or NAME<LIMIT"},
		{"<5%", &every_unit, "each item is NAME:LIMIT or NAME<LIMIT"},
		{"tps:5%", &every_unit, "the limit is a signed change"},
		{"tps:-5%,", &every_unit, "an item is empty"},
		{"tps:-5%,,p99:+1%", &every_unit, "an item is empty"},
		{",tps:-5%", &every_unit, "an item is empty"},
		{"tps:-5%%", &every_unit, "the limit is a signed change"},
		{"tps:-1e2%", &every_unit, "the limit is a signed change"},
		{"tps:-inf%", &every_unit, "the limit is a signed change"},
		{"tps:-%", &every_unit, "the limit is a signed change"},
		{"tps:+-5%", &every_unit, "the limit is a signed change"},
		{"tps:-5 %", &every_unit, "the limit is a signed change"},
		{"tps:-5kb", &every_unit, "the limit is a signed change"},
		{"tps:-100%", &every_unit, "a drop cannot be 100 % or more"},
		{"tps<-150%", &every_unit, "a drop cannot be 100 % or more"},
		{"tps:-0.95x", &every_unit, "a ratio (x) is a positive number after < or >"},
		{"tps<-0.95x", &every_unit, "a ratio (x) is a positive number after < or >"},
		{"tps<0x", &every_unit, "a ratio (x) is a positive number after < or >"},
		{"Lock:+1000000", &every_unit, "the limit is a signed change"},
		{"bad:+5%", &every_unit, "not a name this tool knows"},
		{"Lock:+0.5", &pct_only, "the limit is a signed change in %"},
		{"p99<10ms", &pct_only, "the limit is a signed change in %"},
		{"a:+1,b:+1,c:+1,d:+1,e:+1,f:+1,g:+1,h:+1,i:+1,j:+1,k:+1,l:+1,m:+1,n:+1,o:+1,p:+1,q:+1",
		 &every_unit, "at most 16 limits"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		gate_limit l[GATE_MAX_LIMITS];
		int			n = -1;
		char	   *cause = NULL;
		char	   *want;

		ck_assert_msg(!gate_parse(cases[i].list, cases[i].spec, l, &n, &cause), "%s parsed",
					  cases[i].list);
		ck_assert_int_eq(n, 0);
		want = malloc(strlen(cases[i].list) + strlen(cases[i].why) + 100);
		sprintf(want, "invalid value \"%s\" for option --fail-if: %s, as in \"%s\"",
				cases[i].list, cases[i].why, cases[i].spec->example);
		ck_assert_str_eq(cause, want);
		free(want);
		free(cause);
	}
}
END_TEST

/* The one rule for latency names, which --capacity and --compare's --fail-if share. */
START_TEST(latency_names)
{
	static const struct
	{
		const char *in;
		const char *out;		/* NULL: refused */
	}			cases[] = {
		{"p99", "p99"}, {"p99.9", "p99.9"}, {"p50", "p50"}, {"p0.1", "p0.1"},
		{"latency:p99", "p99"}, {"avg", "avg"}, {"average", "avg"}, {"latency:average", "avg"},
		{"p", NULL}, {"p0", NULL}, {"p100", NULL}, {"p1e1", NULL}, {"p99.", NULL}, {"p.5", NULL},
		{"pinf", NULL}, {"pnan", NULL}, {"p 99", NULL}, {"p+99", NULL}, {"p99x", NULL},
		{"tps", NULL}, {"latency:tps", NULL}, {"latency:", NULL}, {"P99", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		gate_limit	l;

		memset(&l, 0, sizeof(l));
		strcpy(l.name, cases[i].in);
		ck_assert_msg(gate_latency_name(&l) == (cases[i].out != NULL), "%s", cases[i].in);
		if (cases[i].out != NULL)
			ck_assert_str_eq(l.name, cases[i].out);
	}
}
END_TEST

START_TEST(rule)
{
	static const struct
	{
		const char *limit;
		bool		known;
		double		base;
		double		lo,
					hi;			/* of new - base */
		bool		trips;
	}			cases[] = {
		/* the whole interval beyond the limit trips it; a part of it does not */
		{"Lock:+0.5", true, 1, 0.6, 0.9, true},
		{"Lock:+0.5", true, 1, 0.4, 0.9, false},
		{"Lock:+0.5", true, 1, 0.5, 0.9, false},
		{"Lock:-0.5", true, 1, -0.9, -0.6, true},
		{"Lock:-0.5", true, 1, -0.9, -0.4, false},
		{"Lock:+0.5", true, 1, -0.9, -0.6, false},
		{"Lock:+0.5", false, 1, 0.6, 0.9, false},
		/* in % of the base */
		{"total:+50%", true, 2, 1.1, 1.5, true},
		{"total:+50%", true, 2, 0.9, 1.5, false},
		{"total:+50%", true, 0, 0.1, 0.2, true},	/* from 0: any rise is +inf % */
		{"total:-10%", true, 0, -0.2, -0.1, true},
		{"total:-10%", true, 0, -0.2, 0.1, false},
		{"tps<0.95x", true, 100, -8, -6, true},
		{"tps<0.95x", true, 100, -8, -4, false},
		/* a limit of 0: the verdict's own rule */
		{"x:+0", true, 1, 1e-9, 1, true},
		{"x:+0", true, 1, 0, 1, false},
		{"x:-0", true, 1, -1, -1e-9, true},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		gate_limit l;
		int			n;
		char	   *cause = NULL;
		gate_change c = gate_change_abs(cases[i].known, cases[i].base, cases[i].lo, cases[i].hi);

		ck_assert_msg(gate_parse(cases[i].limit, &every_unit, &l, &n, &cause), "%s", cause);
		ck_assert_msg(gate_trips(&l, &c) == cases[i].trips, "case %zu: %s on [%g, %g] of %g", i,
					  cases[i].limit, cases[i].lo, cases[i].hi, cases[i].base);
	}
}
END_TEST

START_TEST(relative_and_absolute_agree)
{
	/* an interval of a ratio (bench) and of a difference (waits): one judgement */
	gate_change r = gate_change_rel(true, 200, -0.08, -0.06);
	gate_change a = gate_change_abs(true, 200, -16, -12);
	gate_limit l;
	int			n;
	char	   *cause = NULL;

	ck_assert_double_eq_tol(r.lo, a.lo, 1e-12);
	ck_assert_double_eq_tol(r.hi_pct, a.hi_pct, 1e-12);
	ck_assert(gate_parse("tps:-5%", &every_unit, &l, &n, &cause));
	ck_assert(gate_trips(&l, &r) && gate_trips(&l, &a));
	ck_assert(gate_parse("tps:-7%", &every_unit, &l, &n, &cause));
	ck_assert(!gate_trips(&l, &r) && !gate_trips(&l, &a));
}
END_TEST

START_TEST(verdicts)
{
	static const struct
	{
		bool		known;
		double		lo,
					hi;
		gate_verdict want;
		const char *word;
	}			cases[] = {
		{true, 0.1, 0.3, GATE_HIGHER, "higher"},
		{true, -0.3, -0.1, GATE_LOWER, "lower"},
		{true, -0.1, 0.3, GATE_NO_DIFFERENCE, "no difference shown"},
		{true, 0, 0.3, GATE_NO_DIFFERENCE, "no difference shown"},
		{true, 0, 0, GATE_NO_DIFFERENCE, "no difference shown"},
		{false, 0.1, 0.3, GATE_UNKNOWN, "unknown"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		gate_change c = gate_change_abs(cases[i].known, 1, cases[i].lo, cases[i].hi);

		ck_assert_int_eq(gate_judge(&c), cases[i].want);
		ck_assert_str_eq(gate_verdict_word(gate_judge(&c)), cases[i].word);
	}
	ck_assert_str_eq(gate_outcome_word(true, true), "the change is beyond the limit");
	ck_assert_str_eq(gate_outcome_word(true, false), "not shown beyond the limit");
	ck_assert_str_eq(gate_outcome_word(false, false), "not checked");
	/* Bonferroni: 20 intervals at 99.75 % each hold at 95 % together */
	ck_assert_double_eq_tol(gate_level(0.95, 20), 0.9975, 1e-12);
	ck_assert_double_eq_tol(gate_level(0.95, 1), 0.95, 1e-12);
	ck_assert_double_eq_tol(gate_level(0.95, 0), 0.95, 1e-12);
}
END_TEST

static Suite *
gate_suite(void)
{
	Suite	   *s = suite_create("gate");
	TCase	   *tc = tcase_create("gate");

	tcase_add_test(tc, grammar);
	tcase_add_test(tc, grammar_errors);
	tcase_add_test(tc, latency_names);
	tcase_add_test(tc, rule);
	tcase_add_test(tc, relative_and_absolute_agree);
	tcase_add_test(tc, verdicts);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(gate_suite());
}
