/*
 * check_expr.c — pgbench's expression language through its API: debug()
 * output, parsing a range of a line, one tree shared by many clients,
 * edge cases of variables and random functions, deep nesting and word
 * splitting.  The reference table of expressions and their outcomes is
 * in check_expr_table.c.
 */
#include "config.h"

#include "check_expr.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

/* debug() writes pgbench's line to the client's stream and passes its argument through. */
START_TEST(expr_debug_output)
{
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *out = open_memstream(&buf, &len);
	vars	   *vs = check_expr_vars_new();
	prng_state	rs;
	expr_error perr;
	expr	   *e;
	expr_env	env = {.vars = vs, .rs = &rs, .script_no = 3, .command_no = 5, .debug_out = out};
	value		v;
	char	   *err = NULL;

	prng_seed(&rs, 1);
	/* > swaps its operands, so the right one is evaluated first, as in pgbench */
	e = expr_parse("debug(1) > debug(2.5)", 0, -1, &perr);
	ck_assert_ptr_nonnull(e);
	ck_assert(expr_eval(e, &env, &v, &err));
	ck_assert_int_eq(v.type, VAL_BOOL);
	ck_assert(!v.u.b);
	expr_free(e);

	e = expr_parse("debug(null) is null and debug(true) and debug(sqrt(-1)) <> 0 "
				   "and debug(-1.0/0) < 0 and debug(:i) = 7", 0, -1, &perr);
	ck_assert_ptr_nonnull(e);
	ck_assert(expr_eval(e, &env, &v, &err));
	ck_assert_int_eq(v.type, VAL_BOOL);
	ck_assert(v.u.b);
	expr_free(e);
	fclose(out);
	ck_assert_str_eq(buf,
					 "debug(script=3,command=5): double 2.5\n"
					 "debug(script=3,command=5): int 1\n"
					 "debug(script=3,command=5): null\n"
					 "debug(script=3,command=5): boolean true\n"
					 "debug(script=3,command=5): double NaN\n"
					 "debug(script=3,command=5): double -Infinity\n"
					 "debug(script=3,command=5): int 7\n");
	free(buf);
	vars_free(vs);
}
END_TEST

/* Ranges of the text, columns relative to it, and where an expression ends. */
START_TEST(expr_parse_ranges)
{
	const char *line = "\\set x 1 + 2 trailing words";
	expr_error perr;
	expr	   *e;
	vars	   *vs = vars_new();
	prng_state	rs;
	expr_env	env = {.vars = vs, .rs = &rs, .debug_out = stderr};
	value		v;
	char	   *err = NULL;

	prng_seed(&rs, 1);
	e = expr_parse(line, 7, 12, &perr);
	ck_assert_ptr_nonnull(e);
	ck_assert(expr_eval(e, &env, &v, &err));
	ck_assert_int_eq(v.type, VAL_INT);
	ck_assert_int_eq(v.u.i, 3);
	expr_free(e);

	/* the column counts from the start of the whole text */
	e = expr_parse(line, 7, -1, &perr);
	ck_assert_ptr_null(e);
	ck_assert_str_eq(perr.msg, "syntax error");
	ck_assert_ptr_null(perr.more);
	ck_assert_int_eq(perr.column, 20);	/* the last "g" of "trailing" */
	expr_error_clear(&perr);
	ck_assert_ptr_null(perr.msg);
	ck_assert_int_eq(perr.column, -1);

	/* at the end of the text, as pgbench at the end of a file: the last character */
	e = expr_parse("\\set x (1", 7, -1, &perr);
	ck_assert_ptr_null(e);
	ck_assert_int_eq(perr.column, 8);
	expr_error_clear(&perr);
	/* with the line's newline: the newline */
	e = expr_parse("\\set x (1\n", 7, -1, &perr);
	ck_assert_ptr_null(e);
	ck_assert_int_eq(perr.column, 9);
	expr_error_clear(&perr);

	/* a newline ends the expression; a backslash-newline does not */
	e = expr_parse("1 + 2\n* 3", 0, -1, &perr);
	ck_assert_ptr_nonnull(e);
	ck_assert(expr_eval(e, &env, &v, &err));
	ck_assert_int_eq(v.u.i, 3);
	expr_free(e);
	e = expr_parse("1 + 2 \\\n* 3", 0, -1, &perr);
	ck_assert_ptr_nonnull(e);
	ck_assert(expr_eval(e, &env, &v, &err));
	ck_assert_int_eq(v.u.i, 7);
	expr_free(e);
	e = expr_parse("1 +\n2", 0, -1, &perr);
	ck_assert_ptr_null(e);
	ck_assert_str_eq(perr.msg, "syntax error");
	ck_assert_int_eq(perr.column, 3);
	expr_error_clear(&perr);

	/* nothing at all */
	e = expr_parse("", 0, -1, &perr);
	ck_assert_ptr_null(e);
	ck_assert_str_eq(perr.msg, "syntax error");
	expr_error_clear(&perr);
	e = expr_parse("   \n", 0, -1, &perr);
	ck_assert_ptr_null(e);
	ck_assert_str_eq(perr.msg, "syntax error");
	ck_assert_int_eq(perr.column, 3);
	expr_error_clear(&perr);
	vars_free(vs);
}
END_TEST

/* One tree, many clients: each evaluation sees its own variables, as they are now. */
START_TEST(expr_shared_tree)
{
	expr_error perr;
	expr	   *e = expr_parse(":a * 2 + (hash(:a) - hash(:a, :default_seed))", 0, -1, &perr);
	vars	   *v1 = vars_new(),
			   *v2;
	prng_state	rs;
	expr_env	env = {.rs = &rs, .debug_out = stderr};
	value		v,
				a = value_int(21);
	char	   *err = NULL;

	prng_seed(&rs, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert(vars_set_string(v1, "-D", "a", "5", &err));
	ck_assert(vars_set_string(v1, "-D", "default_seed", "99", &err));
	v2 = vars_copy(v1);
	ck_assert(vars_set_value(v2, "set", "a", &a, &err));

	env.vars = v1;
	ck_assert(expr_eval(e, &env, &v, &err));
	ck_assert_int_eq(v.u.i, 10);
	env.vars = v2;
	ck_assert(expr_eval(e, &env, &v, &err));
	ck_assert_int_eq(v.u.i, 42);
	a = value_double(1.25);
	ck_assert(vars_set_value(v2, "set", "a", &a, &err));
	ck_assert(expr_eval(e, &env, &v, &err));
	ck_assert_int_eq(v.type, VAL_DOUBLE);
	ck_assert_double_eq(v.u.d, 2.5);

	/* hash() without a seed needs :default_seed */
	vars_free(v1);
	v1 = vars_new();
	ck_assert(vars_set_string(v1, "-D", "a", "5", &err));
	env.vars = v1;
	ck_assert(!expr_eval(e, &env, &v, &err));
	ck_assert_str_eq(err, "undefined variable \"default_seed\"");
	free(err);
	vars_free(v1);
	vars_free(v2);
	expr_free(e);
}
END_TEST

/* A variable set to the empty string fails without a message, as in pgbench. */
START_TEST(expr_empty_variable)
{
	expr_error perr;
	expr	   *e = expr_parse("1 + :v", 0, -1, &perr);
	vars	   *vs = vars_new();
	prng_state	rs;
	expr_env	env = {.vars = vs, .rs = &rs, .debug_out = stderr};
	value		v;
	char	   *err = NULL;

	prng_seed(&rs, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert(vars_set_string(vs, "gset", "v", "", &err));
	ck_assert(!expr_eval(e, &env, &v, &err));
	ck_assert_ptr_null(err);
	/* and succeeds once the variable is usable */
	ck_assert(vars_set_string(vs, "gset", "v", "41", &err));
	ck_assert(expr_eval(e, &env, &v, &err));
	ck_assert_int_eq(v.u.i, 42);
	expr_free(e);
	vars_free(vs);
}
END_TEST

/*
 * Where pgtempo-bench deliberately differs: pgbench accepts NaN as the
 * zipfian parameter and then never returns; an error is better.
 */
START_TEST(expr_zipfian_nan)
{
	vars	   *vs = check_expr_vars_new();
	prng_state	rs;
	char	   *got;

	prng_seed(&rs, 1);
	got = check_expr_run("random_zipfian(1, 10, 0.0/0)", vs, &rs, stderr);
	ck_assert_str_eq(got, "error: zipfian parameter must be in range [1.001, 1000] (not NaN)");
	free(got);
	vars_free(vs);
}
END_TEST

/* The random functions stay in their range whatever the state draws. */
START_TEST(expr_random_in_range)
{
	static const char *const exprs[] = {
		"random(1, 10)",
		"random(-5, 5)",
		"random_exponential(1, 10, 1.5)",
		"random_gaussian(1, 10, 2.5)",
		"random_zipfian(1, 10, 1.5)",
		"random(-9223372036854775807, -1) < 0",
	};
	vars	   *vs = vars_new();
	prng_state	rs;
	expr_env	env = {.vars = vs, .rs = &rs, .debug_out = stderr};

	prng_seed(&rs, 12345);
	for (size_t k = 0; k < sizeof(exprs) / sizeof(exprs[0]); k++)
	{
		expr_error perr;
		expr	   *e = expr_parse(exprs[k], 0, -1, &perr);
		int64_t		lo = k == 1 ? -5 : 1,
					hi = k == 1 ? 5 : 10;
		bool		seen_lo = false,
					seen_hi = false;

		ck_assert_ptr_nonnull(e);
		for (int i = 0; i < 2000; i++)
		{
			value		v;
			char	   *err = NULL;

			ck_assert(expr_eval(e, &env, &v, &err));
			if (v.type == VAL_BOOL)
			{
				ck_assert(v.u.b);
				continue;
			}
			ck_assert_int_eq(v.type, VAL_INT);
			ck_assert_int_ge(v.u.i, lo);
			ck_assert_int_le(v.u.i, hi);
			seen_lo |= v.u.i == lo;
			seen_hi |= v.u.i == hi;
		}
		/* uniform draws reach both ends in 2000 tries */
		if (k < 2)
			ck_assert(seen_lo && seen_hi);
		expr_free(e);
	}
	vars_free(vs);
}
END_TEST

/*
 * Long and deep expressions: HEAD repeated n times, then MID, then TAIL
 * repeated n times.  A chain of binary operators of any length is a value
 * (pgbench crashes on 1 + 1 + ... of 40,000 terms); nesting is limited to
 * 1000 levels, each parenthesis, call, CASE or prefix operator one level,
 * with the column of the token where the limit was crossed (pgbench stops
 * at its parser's stack with "memory exhausted", or crashes evaluating).
 */
static const struct
{
	const char *head;
	const char *mid;
	const char *tail;
	int			n;
	const char *want;
}			deep_cases[] = {
	/* chains: any length */
	{"1 + ", "1", "", 40000, "int 40001"},
	{"1 - ", "1", "", 40000, "int -39999"},
	{"1 * ", "1", "", 40000, "int 1"},
	{"2 * ", "1", "", 62, "int 4611686018427387904"},
	{"2 * ", "1", "", 63, "error: bigint mul out of range"},
	{"4611686018427387904 + ", "0", "", 40000, "error: bigint add out of range"},
	{":i + ", "0", "", 40000, "int 280000"},
	{"1 + ", "null", "", 40000, "null"},
	{"1 + ", "1.5", "", 40000, "double 40001.5"},
	{"1 + 2 * 3 - ", "1", "", 20000, "int 100001"},
	{"7 & ", "3", "", 40000, "int 3"},
	{"1 << 1 >> ", "1", "", 40000, "int 1"},
	{"true and ", "true", "", 40000, "boolean true"},
	{"false and ", "1 / 0 = 1", "", 40000, "boolean false"},
	{"true and ", "null", "", 40000, "null"},
	{"false or ", "true", "", 40000, "boolean true"},
	{"true or ", "1 / 0 = 1", "", 40000, "boolean true"},
	{"true and ", "2", "", 40000, "error: cannot coerce int to boolean"},
	{"1 = 1 and ", "1 / 0 = 1", "", 40000, "error: division by zero"},
	{"1 + ", "abs(-1)", "", 40000, "int 40001"},
	/* nesting: 1000 levels */
	{"(", "1", ")", 1000, "int 1"},
	{"(", "1", ")", 1001, "syntax: expression is too deeply nested (at most 1000 levels) @1000"},
	{"(", "1", ")", 40000, "syntax: expression is too deeply nested (at most 1000 levels) @1000"},
	{"abs(", "1", ")", 1000, "int 1"},
	{"abs(", "1", ")", 1001, "syntax: expression is too deeply nested (at most 1000 levels) @4003"},
	{"abs(", "1", ")", 40000, "syntax: expression is too deeply nested (at most 1000 levels) @4003"},
	/* a parenthesis and a right operand: two levels */
	{"1 + (", "1", ")", 500, "int 501"},
	{"1 + (", "1", ")", 501, "syntax: expression is too deeply nested (at most 1000 levels) @3006"},
	{"1 + (", "1", ")", 40000, "syntax: expression is too deeply nested (at most 1000 levels) @5004"},
	{"-", "1", "", 1000, "int 1"},
	{"-", "1", "", 1001, "syntax: expression is too deeply nested (at most 1000 levels) @1001"},
	{"- ", "1", "", 40000, "syntax: expression is too deeply nested (at most 1000 levels) @8196"},
	{"+", "1", "", 1000, "int 1"},
	{"+", "1", "", 1001, "syntax: expression is too deeply nested (at most 1000 levels) @1001"},
	{"~", "5", "", 1000, "int 5"},
	{"~", "5", "", 40000, "syntax: expression is too deeply nested (at most 1000 levels) @4098"},
	{"not ", "true", "", 1000, "boolean true"},
	{"not ", "true", "", 40000, "syntax: expression is too deeply nested (at most 1000 levels) @16394"},
	{"1 = not ", "true", "", 40000, "syntax: expression is too deeply nested (at most 1000 levels) @10928"},
	{"case when true then ", "1", " end", 1000, "int 1"},
	{"case when true then ", "1", " end", 40000, "syntax: expression is too deeply nested (at most 1000 levels) @20493"},
	{"greatest(1, ", "2", ")", 999, "int 2"},
	{"(1 + ", "1", ") + 1", 499, "int 999"},
};

/* Repeat head n times, mid, tail n times, and a newline. */
static char *
deep_text(const char *head, const char *mid, const char *tail, int n)
{
	size_t		hl = strlen(head),
				ml = strlen(mid),
				tl = strlen(tail);
	char	   *s = xmalloc((hl + tl) * (size_t) n + ml + 2);
	char	   *p = s;

	for (int i = 0; i < n; i++, p += hl)
		memcpy(p, head, hl);
	memcpy(p, mid, ml);
	p += ml;
	for (int i = 0; i < n; i++, p += tl)
		memcpy(p, tail, tl);
	*p++ = '\n';
	*p = '\0';
	return s;
}

START_TEST(expr_deep)
{
	int			failures = 0;

	for (size_t i = 0; i < sizeof(deep_cases) / sizeof(deep_cases[0]); i++)
	{
		vars	   *vs = check_expr_vars_new();
		prng_state	rs;
		char	   *text = deep_text(deep_cases[i].head, deep_cases[i].mid,
									 deep_cases[i].tail, deep_cases[i].n);
		char	   *got;

		prng_seed(&rs, 42);
		got = check_expr_run_text(text, vs, &rs, stderr);
		if (strcmp(got, deep_cases[i].want) != 0)
		{
			fprintf(stderr, "deep case %zu: [%s]x%d [%s] [%s]x%d\n  want: %s\n  got:  %s\n",
					i, deep_cases[i].head, deep_cases[i].n, deep_cases[i].mid,
					deep_cases[i].tail, deep_cases[i].n, deep_cases[i].want, got);
			failures++;
		}
		free(got);
		free(text);
		vars_free(vs);
	}
	ck_assert_msg(failures == 0, "%d deep expression cases failed", failures);
}
END_TEST

/* Words of a meta-command line, as pgbench splits them. */
START_TEST(expr_words)
{
	static const struct
	{
		const char *text;
		int			start;
		const char *want;		/* words joined by "|", each followed by @offset */
	}			wcases[] = {
		{"set x 1 + 2", 0, "set@0|x@4|1@6|+@8|2@10"},
		{"\\set  x\t:y", 1, "set@1|x@6|:y@8"},
		{"  ", 0, ""},
		{"", 0, ""},
		{"a\nb", 0, "a@0"},
		{"a \\\n b", 0, "a@0|b@5"},
		{"a\\\nb", 0, "a@0|b@3"},
		{"a\\\r\nb", 0, "a@0|b@4"},
		{"a\\b c\\", 0, "a\\b@0|c\\@4"},
		{"a \\ b", 0, "a@0|\\@2|b@4"},
		{"a\tb\rc\fd\ve", 0, "a@0|b@2|c@4|d@6|e@8"},
		{"shell echo 'a b' \"c\"", 0, "shell@0|echo@6|'a@11|b'@14|\"c\"@17"},
		{"x \\\n\\\ny", 0, "x@0|y@6"},
		{"sleep 10 ms\n\\set x 1", 0, "sleep@0|10@6|ms@9"},
	};

	for (size_t i = 0; i < sizeof(wcases) / sizeof(wcases[0]); i++)
	{
		char	  **words;
		int		   *offsets;
		int			n = expr_split_words(wcases[i].text, wcases[i].start, -1, &words, &offsets);
		char		got[256] = "";

		for (int w = 0; w < n; w++)
		{
			size_t		l = strlen(got);

			snprintf(got + l, sizeof(got) - l, "%s%s@%d", w > 0 ? "|" : "", words[w], offsets[w]);
			free(words[w]);
		}
		free(words);
		free(offsets);
		ck_assert_msg(strcmp(got, wcases[i].want) == 0, "[%s]: got %s, want %s",
					  wcases[i].text, got, wcases[i].want);
	}
}
END_TEST

static Suite *
expr_suite(void)
{
	Suite	   *s = suite_create("expr");
	TCase	   *tc;

	suite_add_tcase(s, check_expr_table_tcase());

	tc = tcase_create("api");
	tcase_add_test(tc, expr_debug_output);
	tcase_add_test(tc, expr_parse_ranges);
	tcase_add_test(tc, expr_shared_tree);
	tcase_add_test(tc, expr_empty_variable);
	tcase_add_test(tc, expr_zipfian_nan);
	tcase_add_test(tc, expr_random_in_range);
	tcase_add_test(tc, expr_deep);
	tcase_add_test(tc, expr_words);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(expr_suite());
}
