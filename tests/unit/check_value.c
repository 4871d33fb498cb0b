/*
 * check_value.c — value coercions, the string -> value rules of
 * variables, how values substitute into SQL, and the variable table.
 *
 * The string cases were produced by PostgreSQL 15's pgbench (-D v=STRING,
 * then \set y debug(:v)); the substitution texts by \shell echo :v after
 * \set v EXPR.
 */
#include "config.h"

#include "lang/value.h"
#include "lang/vars.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

#include "unit.h"

/* A value the way pgbench's debug() shows it. */
static char *
show_value(const value *v)
{
	char		buf[VALUE_DESCRIBE_SIZE];

	value_describe(v, buf, sizeof(buf));
	return xstrdup(buf);
}

/* A variable's string, converted as pgbench converts it on first use. */
START_TEST(value_strings)
{
	static const struct
	{
		const char *s;
		const char *want;
	}			cases[] = {
		{"null", "null"},
		{"NULL", "null"},
		{"Null", "null"},
		{"nul", "error: malformed variable \"v\" value: \"nul\""},
		{"t", "boolean true"},
		{"tr", "boolean true"},
		{"true", "boolean true"},
		{"TRUE", "boolean true"},
		{"truex", "error: malformed variable \"v\" value: \"truex\""},
		{"y", "boolean true"},
		{"ye", "boolean true"},
		{"yes", "boolean true"},
		{"yess", "error: malformed variable \"v\" value: \"yess\""},
		{"on", "boolean true"},
		{"ON", "boolean true"},
		{"o", "error: malformed variable \"v\" value: \"o\""},
		{"of", "boolean false"},
		{"off", "boolean false"},
		{"OFF", "boolean false"},
		{"offf", "error: malformed variable \"v\" value: \"offf\""},
		{"f", "boolean false"},
		{"fa", "boolean false"},
		{"false", "boolean false"},
		{"n", "boolean false"},
		{"no", "boolean false"},
		{"non", "error: malformed variable \"v\" value: \"non\""},
		{"0", "int 0"},
		{"1", "int 1"},
		{"-1", "int -1"},
		{"+1", "int 1"},
		{" 12", "int 12"},
		{"12 ", "error: malformed variable \"v\" value: \"12 \""},
		{" 12 ", "error: malformed variable \"v\" value: \" 12 \""},
		{"-", "error: invalid input syntax for type bigint: \"-\""},
		{"+", "error: invalid input syntax for type bigint: \"+\""},
		{"--1", "error: malformed variable \"v\" value: \"--1\""},
		{"1-", "error: malformed variable \"v\" value: \"1-\""},
		{"9223372036854775807", "int 9223372036854775807"},
		{"9223372036854775808", "error: value \"9223372036854775808\" is out of range for type bigint"},
		{"-9223372036854775808", "int -9223372036854775808"},
		{"-9223372036854775809", "error: value \"-9223372036854775809\" is out of range for type bigint"},
		{"99999999999999999999", "error: value \"99999999999999999999\" is out of range for type bigint"},
		{"1.5", "double 1.5"},
		{" 1.5", "double 1.5"},
		{"1.5 ", "error: malformed variable \"v\" value: \"1.5 \""},
		{"1e3", "double 1000"},
		{"1e400", "error: malformed variable \"v\" value: \"1e400\""},
		{"1e-400", "error: malformed variable \"v\" value: \"1e-400\""},
		{"4e-320", "error: malformed variable \"v\" value: \"4e-320\""},
		{"inf", "double Infinity"},
		{"-inf", "double -Infinity"},
		{"Infinity", "double Infinity"},
		{"nan", "double NaN"},
		{"NaN", "double NaN"},
		{"0x10", "double 16"},
		{"0x1p3", "double 8"},
		{".5", "double 0.5"},
		{"5.", "double 5"},
		{"abc", "error: malformed variable \"v\" value: \"abc\""},
		{"1,5", "error: malformed variable \"v\" value: \"1,5\""},
		{"1.5.3", "error: malformed variable \"v\" value: \"1.5.3\""},
		{"\t7", "int 7"},
		{" ", "error: invalid input syntax for type bigint: \" \""},
		{"+5", "int 5"},
		{"-0", "int 0"},
		{"1e3x", "error: malformed variable \"v\" value: \"1e3x\""},
		{"  -12", "int -12"},
		{"0.5e", "error: malformed variable \"v\" value: \"0.5e\""},
		{"TrUe", "boolean true"},
		{"YES", "boolean true"},
		{"Of", "boolean false"},
		{"oN", "boolean true"},
		{"nO", "boolean false"},
		{"NULL ", "error: malformed variable \"v\" value: \"NULL \""},
		{"1_000", "error: malformed variable \"v\" value: \"1_000\""},
		{"1.5e308", "double 1.5e+308"},
		{"-1e-300", "double -1e-300"},
		{"0x", "error: malformed variable \"v\" value: \"0x\""},
		{"infinity", "double Infinity"},
		{"-nan", "double NaN"},
		{"+inf", "double Infinity"},
		{"1.7976931348623157e308", "double 1.79769313486232e+308"},
		{"2.2250738585072014e-308", "double 2.2250738585072e-308"},
		{"4.9e-324", "error: malformed variable \"v\" value: \"4.9e-324\""},
		{"12abc", "error: malformed variable \"v\" value: \"12abc\""},
		{"-12.5e-1", "double -1.25"},
	};
	int			failures = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		value		v = {.type = VAL_NONE};
		char	   *err = NULL;
		char	   *got;

		if (value_from_string("v", cases[i].s, &v, &err))
			got = show_value(&v);
		else
		{
			got = xasprintf("error: %s", err);
			free(err);
		}
		if (strcmp(got, cases[i].want) != 0)
		{
			fprintf(stderr, "[%s]: want %s, got %s\n", cases[i].s, cases[i].want, got);
			failures++;
		}
		free(got);
	}
	ck_assert_int_eq(failures, 0);
}
END_TEST

/* The empty string fails without a message, and leaves the output alone. */
START_TEST(value_empty_string)
{
	value		v = value_int(3);
	char	   *err = (char *) "untouched";

	ck_assert(!value_from_string("v", "", &v, &err));
	ck_assert_ptr_null(err);
	ck_assert_int_eq(v.type, VAL_INT);
	ck_assert_int_eq(v.u.i, 3);
}
END_TEST

/* int(), double() and boolean use, with pgbench's rounding and messages. */
START_TEST(value_coercions)
{
	static const struct
	{
		value		v;
		const char *as_int;
		const char *as_double;
		const char *as_bool;
	}			cases[] = {
		{{.type = VAL_INT, .u.i = 5}, "5", "5", "cannot coerce int to boolean"},
		{{.type = VAL_INT, .u.i = INT64_MIN}, "-9223372036854775808", "-9.22337203685478e+18",
		"cannot coerce int to boolean"},
		{{.type = VAL_INT, .u.i = INT64_MAX}, "9223372036854775807", "9.22337203685478e+18",
		"cannot coerce int to boolean"},
		{{.type = VAL_DOUBLE, .u.d = 2.5}, "2", "2.5", "cannot coerce double to boolean"},
		{{.type = VAL_DOUBLE, .u.d = 3.5}, "4", "3.5", "cannot coerce double to boolean"},
		{{.type = VAL_DOUBLE, .u.d = -2.5}, "-2", "-2.5", "cannot coerce double to boolean"},
		{{.type = VAL_DOUBLE, .u.d = -0.5}, "0", "-0.5", "cannot coerce double to boolean"},
		{{.type = VAL_DOUBLE, .u.d = 0.5000000001}, "1", "0.5000000001",
		"cannot coerce double to boolean"},
		{{.type = VAL_DOUBLE, .u.d = -9223372036854775808.0}, "-9223372036854775808",
		"-9.22337203685478e+18", "cannot coerce double to boolean"},
		{{.type = VAL_DOUBLE, .u.d = 9223372036854775807.0},
			"double to int overflow for 9223372036854775808.000000", "9.22337203685478e+18",
		"cannot coerce double to boolean"},
		{{.type = VAL_DOUBLE, .u.d = -9223372036854777856.0},
			"double to int overflow for -9223372036854777856.000000", "-9.22337203685478e+18",
		"cannot coerce double to boolean"},
		{{.type = VAL_DOUBLE, .u.d = 9223372036854774784.0}, "9223372036854774784",
		"9.22337203685477e+18", "cannot coerce double to boolean"},
		{{.type = VAL_DOUBLE, .u.d = 1e30},
			"double to int overflow for 1000000000000000019884624838656.000000", "1e+30",
		"cannot coerce double to boolean"},
		{{.type = VAL_DOUBLE, .u.d = NAN}, "double to int overflow for NaN", "NaN",
		"cannot coerce double to boolean"},
		{{.type = VAL_DOUBLE, .u.d = -INFINITY}, "double to int overflow for -Infinity",
		"-Infinity", "cannot coerce double to boolean"},
		{{.type = VAL_BOOL, .u.b = true}, "cannot coerce boolean to int",
		"cannot coerce boolean to double", "true"},
		{{.type = VAL_BOOL, .u.b = false}, "cannot coerce boolean to int",
		"cannot coerce boolean to double", "false"},
		{{.type = VAL_NULL}, "cannot coerce null to int", "cannot coerce null to double",
		"cannot coerce null to boolean"},
		{{.type = VAL_NONE}, "cannot coerce none to int", "cannot coerce none to double",
		"cannot coerce none to boolean"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		const value *v = &cases[i].v;
		int64_t		iv;
		double		dv;
		bool		bv;
		char	   *err = NULL;
		char	   *got;
		char		buf[VALUE_DOUBLE_TEXT_SIZE];

		if (value_to_int(v, &iv, &err))
			got = xasprintf("%" PRId64, iv);
		else
			got = err;
		ck_assert_msg(strcmp(got, cases[i].as_int) == 0, "case %zu int: %s", i, got);
		free(got);

		if (value_to_double(v, &dv, &err))
		{
			value_format_double(dv, false, buf, sizeof(buf));
			got = xstrdup(buf);
		}
		else
			got = err;
		ck_assert_msg(strcmp(got, cases[i].as_double) == 0, "case %zu double: %s", i, got);
		free(got);

		if (value_to_bool(v, &bv, &err))
			got = xstrdup(bv ? "true" : "false");
		else
			got = err;
		ck_assert_msg(strcmp(got, cases[i].as_bool) == 0, "case %zu bool: %s", i, got);
		free(got);
	}
}
END_TEST

/* Truth as \if and CASE WHEN see it. */
START_TEST(value_is_true_table)
{
	ck_assert(!value_is_true(&(value) {.type = VAL_NULL}));
	ck_assert(!value_is_true(&(value) {.type = VAL_NONE}));
	ck_assert(value_is_true(&(value) {.type = VAL_BOOL, .u.b = true}));
	ck_assert(!value_is_true(&(value) {.type = VAL_BOOL, .u.b = false}));
	ck_assert(value_is_true(&(value) {.type = VAL_INT, .u.i = -1}));
	ck_assert(!value_is_true(&(value) {.type = VAL_INT, .u.i = 0}));
	ck_assert(value_is_true(&(value) {.type = VAL_DOUBLE, .u.d = 0.1}));
	ck_assert(!value_is_true(&(value) {.type = VAL_DOUBLE, .u.d = 0.0}));
	ck_assert(!value_is_true(&(value) {.type = VAL_DOUBLE, .u.d = -0.0}));
	ck_assert(value_is_true(&(value) {.type = VAL_DOUBLE, .u.d = NAN}));
	ck_assert_str_eq(value_type_name(VAL_NULL), "null");
	ck_assert_str_eq(value_type_name(VAL_BOOL), "boolean");
	ck_assert_str_eq(value_type_name(VAL_INT), "int");
	ck_assert_str_eq(value_type_name(VAL_DOUBLE), "double");
	ck_assert_str_eq(value_type_name(VAL_NONE), "none");
}
END_TEST

/* The text of a value in SQL and \shell, as pgbench substitutes it. */
START_TEST(value_format_texts)
{
	static const struct
	{
		value		v;
		const char *want;
	}			cases[] = {
		{{.type = VAL_NULL}, "NULL"},
		{{.type = VAL_BOOL, .u.b = true}, "true"},
		{{.type = VAL_BOOL, .u.b = false}, "false"},
		{{.type = VAL_INT, .u.i = 0}, "0"},
		{{.type = VAL_INT, .u.i = -42}, "-42"},
		{{.type = VAL_INT, .u.i = INT64_MIN}, "-9223372036854775808"},
		{{.type = VAL_INT, .u.i = INT64_MAX}, "9223372036854775807"},
		{{.type = VAL_DOUBLE, .u.d = 1.0 / 3}, "0.333333333333333"},
		{{.type = VAL_DOUBLE, .u.d = 1e100}, "1e+100"},
		{{.type = VAL_DOUBLE, .u.d = 2.0}, "2"},
		{{.type = VAL_DOUBLE, .u.d = -0.0}, "-0"},
		{{.type = VAL_DOUBLE, .u.d = 123456789.125}, "123456789.125"},
		{{.type = VAL_DOUBLE, .u.d = 1e-5}, "1e-05"},
		{{.type = VAL_DOUBLE, .u.d = 1e15}, "1e+15"},
		{{.type = VAL_DOUBLE, .u.d = 123456789012345.0}, "123456789012345"},
		{{.type = VAL_DOUBLE, .u.d = DBL_MAX}, "1.79769313486232e+308"},
		{{.type = VAL_DOUBLE, .u.d = -DBL_MIN}, "-2.2250738585072e-308"},
		{{.type = VAL_DOUBLE, .u.d = NAN}, "NaN"},
		{{.type = VAL_DOUBLE, .u.d = -NAN}, "NaN"},
		{{.type = VAL_DOUBLE, .u.d = INFINITY}, "Infinity"},
		{{.type = VAL_DOUBLE, .u.d = -INFINITY}, "-Infinity"},
	};
	char		buf[VALUE_TEXT_SIZE];
	char		big[VALUE_DOUBLE_TEXT_SIZE];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		value_format(&cases[i].v, buf, sizeof(buf));
		ck_assert_msg(strcmp(buf, cases[i].want) == 0, "case %zu: %s", i, buf);
	}
	/* the widest texts fit the documented sizes */
	value_format_double(-DBL_MAX, true, big, sizeof(big));
	ck_assert_uint_eq(strlen(big), 1 + 309 + 7);
	ck_assert_str_eq(big + strlen(big) - 7, ".000000");
	value_format_double(-DBL_MIN, false, big, sizeof(big));
	ck_assert_uint_lt(strlen(big), VALUE_TEXT_SIZE);
	value_format_double(NAN, true, big, sizeof(big));
	ck_assert_str_eq(big, "NaN");
	value_format_double(1.5, true, big, sizeof(big));
	ck_assert_str_eq(big, "1.500000");
}
END_TEST

/* pgbench's variable names: letters, digits, _ and non-ASCII bytes, no leading digit. */
START_TEST(vars_names)
{
	static const struct
	{
		const char *name;
		bool		valid;
	}			cases[] = {
		{"a", true}, {"_", true}, {"A1", true}, {"a_b", true}, {"_1", true},
		{"\303\251t\303\251", true}, {"ab1\303\2512", true}, {"\377", true},
		{"default_seed", true}, {"scale", true},
		{"", false}, {"1a", false}, {"9", false}, {"a-b", false}, {"a b", false},
		{"a.b", false}, {":a", false}, {"a$", false}, {"a\n", false},
	};
	vars	   *vs = vars_new();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char	   *err = NULL;
		bool		ok;

		ck_assert_msg(vars_valid_name(cases[i].name) == cases[i].valid, "[%s]", cases[i].name);
		ok = vars_set_string(vs, "set", cases[i].name, "1", &err);
		ck_assert(ok == cases[i].valid);
		if (!ok)
		{
			char	   *want = xasprintf("set: invalid variable name: \"%s\"", cases[i].name);

			ck_assert_str_eq(err, want);
			free(want);
			free(err);
			ck_assert_ptr_null(vars_lookup(vs, cases[i].name));
		}
		else
			ck_assert_ptr_nonnull(vars_lookup(vs, cases[i].name));
	}
	/* the check is on creation only, and names are case-sensitive */
	ck_assert_ptr_null(vars_lookup(vs, "A"));
	ck_assert_ptr_null(vars_lookup(vs, "SCALE"));
	vars_free(vs);
}
END_TEST

/* A variable keeps its string until set from a value, and gets the other form on demand. */
START_TEST(vars_string_and_value)
{
	vars	   *vs = vars_new();
	var		   *v;
	value		val;
	char	   *err = NULL;
	const char *s;

	ck_assert_ptr_null(vars_lookup(vs, "x"));
	ck_assert(vars_set_string(vs, "-D", "x", "0012", &err));
	v = vars_lookup(vs, "x");
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(v->name, "x");
	ck_assert_int_eq(v->val.type, VAL_NONE);
	ck_assert(vars_get_value(vs, v, &val, &err));
	ck_assert_int_eq(val.type, VAL_INT);
	ck_assert_int_eq(val.u.i, 12);
	/* the string as given, not as the value would print */
	ck_assert_str_eq(vars_get_string(vs, v), "0012");

	val = value_double(2.5);
	ck_assert(vars_set_value(vs, "set", "x", &val, &err));
	ck_assert_ptr_eq(vars_lookup(vs, "x"), v);
	ck_assert_ptr_null(v->svalue);
	s = vars_get_string(vs, v);
	ck_assert_str_eq(s, "2.5");
	ck_assert_ptr_eq(vars_get_string(vs, v), s);

	val = value_null();
	ck_assert(vars_set_value(vs, "set", "x", &val, &err));
	ck_assert_str_eq(vars_get_string(vs, v), "NULL");
	val = value_bool(false);
	ck_assert(vars_set_value(vs, "set", "x", &val, &err));
	ck_assert_str_eq(vars_get_string(vs, v), "false");

	/* a string replaces the value; an unusable one reports and stays unconverted */
	ck_assert(vars_set_string(vs, "gset", "x", "abc", &err));
	ck_assert(!vars_get_value(vs, v, &val, &err));
	ck_assert_str_eq(err, "malformed variable \"x\" value: \"abc\"");
	free(err);
	ck_assert_int_eq(v->val.type, VAL_NONE);
	ck_assert_str_eq(vars_get_string(vs, v), "abc");
	/* setting a variable from its own string */
	ck_assert(vars_set_string(vs, "gset", "x", v->svalue, &err));
	ck_assert_str_eq(vars_get_string(vs, v), "abc");
	ck_assert(vars_set_string(vs, "gset", "x", "", &err));
	ck_assert(!vars_get_value(vs, v, &val, &err));
	ck_assert_ptr_null(err);
	vars_free(vs);
}
END_TEST

/* Count the variables foreach visits and check each is the one lookup finds. */
static void
count_var(var *v, void *arg)
{
	void	  **a = arg;
	vars	   *vs = a[0];
	int		   *n = a[1];

	ck_assert_ptr_eq(vars_lookup(vs, v->name), v);
	(*n)++;
}

/* Many variables: the table grows, pointers stay valid, copies are deep. */
START_TEST(vars_many)
{
	enum
	{
		NVARS = 20000
	};
	vars	   *vs = vars_new();
	vars	   *copy;
	var		   *first;
	char		name[32],
				sval[32];
	char	   *err = NULL;
	int			n = 0;
	void	   *arg[2];

	ck_assert(vars_set_string(vs, "-D", "v0", "0", &err));
	first = vars_lookup(vs, "v0");
	for (int i = 1; i < NVARS; i++)
	{
		value		val = value_int(i);

		snprintf(name, sizeof(name), "v%d", i);
		if (i % 2 == 0)
		{
			snprintf(sval, sizeof(sval), "%d", i);
			ck_assert(vars_set_string(vs, "-D", name, sval, &err));
		}
		else
			ck_assert(vars_set_value(vs, "set", name, &val, &err));
	}
	ck_assert_ptr_eq(vars_lookup(vs, "v0"), first);
	for (int i = 0; i < NVARS; i++)
	{
		var		   *v;
		value		val;

		snprintf(name, sizeof(name), "v%d", i);
		v = vars_lookup(vs, name);
		ck_assert_ptr_nonnull(v);
		ck_assert_str_eq(v->name, name);
		ck_assert(vars_get_value(vs, v, &val, &err));
		ck_assert_int_eq(val.type, VAL_INT);
		ck_assert_int_eq(val.u.i, i);
	}
	ck_assert_ptr_null(vars_lookup(vs, "v20000"));
	ck_assert_ptr_null(vars_lookup(vs, "v-1"));
	arg[0] = vs;
	arg[1] = &n;
	vars_foreach(vs, count_var, arg);
	ck_assert_int_eq(n, NVARS);

	/* a copy is independent of its original */
	copy = vars_copy(vs);
	n = 0;
	arg[0] = copy;
	vars_foreach(copy, count_var, arg);
	ck_assert_int_eq(n, NVARS);
	ck_assert_ptr_ne(vars_lookup(copy, "v0"), first);
	ck_assert(vars_set_string(copy, "-D", "v0", "changed", &err));
	ck_assert(vars_set_string(copy, "-D", "only_in_copy", "1", &err));
	ck_assert_str_eq(vars_get_string(vs, first), "0");
	ck_assert_ptr_null(vars_lookup(vs, "only_in_copy"));
	ck_assert_str_eq(vars_get_string(copy, vars_lookup(copy, "v1")), "1");
	ck_assert_str_eq(vars_get_string(copy, vars_lookup(copy, "v2")), "2");
	vars_free(copy);

	/* an empty table copies too */
	copy = vars_new();
	vars_free(vars_copy(copy));
	vars_free(copy);
	vars_free(vs);
	vars_free(NULL);
}
END_TEST

static Suite *
value_suite(void)
{
	Suite	   *s = suite_create("value");
	TCase	   *tc = tcase_create("value");

	tcase_add_test(tc, value_strings);
	tcase_add_test(tc, value_empty_string);
	tcase_add_test(tc, value_coercions);
	tcase_add_test(tc, value_is_true_table);
	tcase_add_test(tc, value_format_texts);
	suite_add_tcase(s, tc);

	tc = tcase_create("vars");
	tcase_add_test(tc, vars_names);
	tcase_add_test(tc, vars_string_and_value);
	tcase_add_test(tc, vars_many);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(value_suite());
}
