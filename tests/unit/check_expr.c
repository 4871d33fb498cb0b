/*
 * check_expr.c — pgbench's expression language: parsing, syntax errors
 * and their columns, evaluation, type rules and run-time errors.
 *
 * The table was produced by feeding every expression through PostgreSQL
 * 15's pgbench (\set x EXPR, then \set y debug(:x)) with the variables
 * below defined by -D, and recording what it printed: the value as
 * debug() shows it, "error: MSG" for a run-time error (just "error:"
 * when pgbench prints no message of its own), or "syntax: MSG (MORE)
 * @COLUMN" for an error at load time, the column counted from the start
 * of the expression.  Each expression is given to the parser followed by
 * the newline that ends its line in a script.
 */
#include "config.h"

#include "expr.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

#include "unit.h"

/* The -D variables of the reference run. */
static const char *const test_vars[][2] = {
	{"default_seed", "12345"},
	{"i", "7"},
	{"d", "2.5"},
	{"t", "true"},
	{"f", "off"},
	{"n", "null"},
	{"big", "9223372036854775807"},
	{"min", "-9223372036854775808"},
	{"bad", "abc"},
	{"huge", "99999999999999999999"},
	{"neg", "-3"},
	{"ws", " 12"},
	{"nan", "NaN"},
	{"inf", "-inf"},
	{"zero", "0"},
	{"dzero", "0.0"},
};

static const struct
{
	const char *expr;
	const char *want;
}			cases[] = {
	/* integer constants */
	{"0", "int 0"},
	{"7", "int 7"},
	{"007", "int 7"},
	{"42", "int 42"},
	{"9223372036854775807", "int 9223372036854775807"},
	{"-9223372036854775807", "int -9223372036854775807"},
	{"-9223372036854775808", "int -9223372036854775808"},
	{"- 9223372036854775808", "int -9223372036854775808"},
	{"(-9223372036854775808)", "int -9223372036854775808"},
	{"-9223372036854775808 + 1", "int -9223372036854775807"},
	{"--9223372036854775808", "error: bigint sub out of range"},
	{"-(-9223372036854775808)", "error: bigint sub out of range"},
	{"0 - -9223372036854775808", "error: bigint sub out of range"},
	{"1 - -9223372036854775808", "error: bigint sub out of range"},
	{"9223372036854775808", "syntax: syntax error @18"},
	{"+9223372036854775808", "syntax: syntax error @19"},
	{"-(9223372036854775808)", "syntax: syntax error @20"},
	{"1 - 9223372036854775808", "syntax: syntax error @22"},
	{"9223372036854775809", "syntax: bigint constant overflow (9223372036854775809) @18"},
	{"-9223372036854775809", "syntax: bigint constant overflow (9223372036854775809) @19"},
	{"99999999999999999999", "syntax: bigint constant overflow (99999999999999999999) @19"},
	{"92233720368547758080", "syntax: bigint constant overflow (92233720368547758080) @19"},
	/* double constants */
	{"1.5", "double 1.5"},
	{"0.5", "double 0.5"},
	{".5", "double 0.5"},
	{"5.", "double 5"},
	{"1e3", "double 1000"},
	{"1E3", "double 1000"},
	{"1e+3", "double 1000"},
	{"1e-3", "double 0.001"},
	{"1.5e-3", "double 0.0015"},
	{"1.e5", "double 100000"},
	{".5e1", "double 5"},
	{"1e308", "double 1e+308"},
	{"1e-308", "syntax: double constant overflow (1e-308) @5"},
	{"1e-400", "syntax: double constant overflow (1e-400) @5"},
	{"4e-320", "syntax: double constant overflow (4e-320) @5"},
	{"1e400", "syntax: double constant overflow (1e400) @4"},
	{"1e999", "syntax: double constant overflow (1e999) @4"},
	{"2.0", "double 2"},
	{"-2.0", "double -2"},
	{"0.0", "double 0"},
	{"-0.0", "double 0"},
	{"123456789012345678.0", "double 1.23456789012346e+17"},
	{"9223372036854775808.0", "double 9.22337203685478e+18"},
	{"-9223372036854775808.0", "double -9.22337203685478e+18"},
	{"100000000000000000000.0", "double 1e+20"},
	{"0.1", "double 0.1"},
	{"1e15", "double 1e+15"},
	{"1e16", "double 1e+16"},
	{"1e100", "double 1e+100"},
	{"1e-5", "double 1e-05"},
	{"0.0001", "double 0.0001"},
	{"123456.789", "double 123456.789"},
	/* booleans, null, keywords in any case */
	{"true", "boolean true"},
	{"false", "boolean false"},
	{"TRUE", "boolean true"},
	{"False", "boolean false"},
	{"tRuE", "boolean true"},
	{"null", "null"},
	{"NULL", "null"},
	{"NuLL", "null"},
	/* unary operators */
	{"+5", "int 5"},
	{"-5", "int -5"},
	{"+-+5", "int -5"},
	{"- -5", "int 5"},
	{"-(5)", "int -5"},
	{"-2.5", "double -2.5"},
	{"+2.5", "double 2.5"},
	{"-true", "error: cannot coerce boolean to int"},
	{"+true", "boolean true"},
	{"-null", "null"},
	{"+null", "null"},
	{"~0", "int -1"},
	{"~1", "int -2"},
	{"~-1", "int 0"},
	{"~9223372036854775807", "int -9223372036854775808"},
	{"~1.5", "int -3"},
	{"~true", "error: cannot coerce boolean to int"},
	{"~null", "null"},
	{"-(0.0)", "double 0"},
	/* addition and subtraction */
	{"1+2", "int 3"},
	{"1 + 2", "int 3"},
	{"2 - 3 - 4", "int -5"},
	{"1 + 2.5", "double 3.5"},
	{"2.5 + 1", "double 3.5"},
	{"0.1 + 0.2", "double 0.3"},
	{"1.5 - 0.5", "double 1"},
	{"9223372036854775807 + 1", "error: bigint add out of range"},
	{"9223372036854775807 + 0", "int 9223372036854775807"},
	{"-9223372036854775807 - 1", "int -9223372036854775808"},
	{"-9223372036854775807 - 2", "error: bigint sub out of range"},
	{"-9223372036854775808 - 1", "error: bigint sub out of range"},
	{"9223372036854775807 + 1.0", "double 9.22337203685478e+18"},
	{"1 + true", "error: cannot coerce boolean to int"},
	{"true + 1", "error: cannot coerce boolean to int"},
	{"true + 1.5", "error: cannot coerce boolean to double"},
	{"1.5 + false", "error: cannot coerce boolean to double"},
	{"1 + null", "null"},
	{"null + 1.5", "null"},
	{"null + true", "null"},
	{"null - null", "null"},
	/* multiplication */
	{"6 * 7", "int 42"},
	{"1.5 * 2", "double 3"},
	{"-3 * 4", "int -12"},
	{"4611686018427387904 * 2", "error: bigint mul out of range"},
	{"4611686018427387903 * 2", "int 9223372036854775806"},
	{"-4611686018427387904 * 2", "int -9223372036854775808"},
	{"-4611686018427387905 * 2", "error: bigint mul out of range"},
	{"-9223372036854775808 * -1", "error: bigint mul out of range"},
	{"-9223372036854775808 * 1", "int -9223372036854775808"},
	{"3037000500 * 3037000500", "error: bigint mul out of range"},
	{"1e308 * 10", "double Infinity"},
	{"-1e308 * 10", "double -Infinity"},
	{"2 * null", "null"},
	{"2 * true", "error: cannot coerce boolean to int"},
	/* division */
	{"7 / 2", "int 3"},
	{"-7 / 2", "int -3"},
	{"7 / -2", "int -3"},
	{"-7 / -2", "int 3"},
	{"6 / 3", "int 2"},
	{"0 / 5", "int 0"},
	{"5 / 0", "error: division by zero"},
	{"5 / 0.0", "double Infinity"},
	{"-5 / 0.0", "double -Infinity"},
	{"0 / 0.0", "double NaN"},
	{"0.0 / 0", "double NaN"},
	{"5.0 / 0", "double Infinity"},
	{"7.0 / 2", "double 3.5"},
	{"7 / 2.0", "double 3.5"},
	{"1.0 / 3", "double 0.333333333333333"},
	{"2.0 / 3", "double 0.666666666666667"},
	{"-2.0 / 3", "double -0.666666666666667"},
	{"-9223372036854775808 / -1", "error: bigint div out of range"},
	{"-9223372036854775808 / 1", "int -9223372036854775808"},
	{"-9223372036854775808 / 2", "int -4611686018427387904"},
	{"9223372036854775807 / -1", "int -9223372036854775807"},
	{"5 / -1", "int -5"},
	{"5 / null", "null"},
	{"null / 0", "null"},
	{"true / 1", "error: cannot coerce boolean to int"},
	/* modulo */
	{"7 % 3", "int 1"},
	{"-7 % 3", "int -1"},
	{"7 % -3", "int 1"},
	{"-7 % -3", "int -1"},
	{"5 % 0", "error: division by zero"},
	{"5 % 0.0", "error: division by zero"},
	{"5 % 0.4", "error: division by zero"},
	{"5 % 0.6", "int 0"},
	{"5 % 2.5", "int 1"},
	{"5.5 % 2", "int 0"},
	{"7.5 % 2", "int 0"},
	{"-9223372036854775808 % -1", "int 0"},
	{"9223372036854775807 % -1", "int 0"},
	{"-9223372036854775808 % 7", "int -1"},
	{"1e30 % 2", "error: double to int overflow for 1000000000000000019884624838656.000000"},
	{"mod(7, 3)", "int 1"},
	{"MOD(-7, 3)", "int -1"},
	{"mod(5, 0)", "error: division by zero"},
	{"mod(1)", "syntax: unexpected number of arguments (mod) @5"},
	{"5 % null", "null"},
	{"5 % true", "error: cannot coerce boolean to int"},
	/* comparisons */
	{"1 = 1", "boolean true"},
	{"1 = 2", "boolean false"},
	{"1 = 1.0", "boolean true"},
	{"1.0 = 1", "boolean true"},
	{"2.5 = 2.5", "boolean true"},
	{"1 <> 2", "boolean true"},
	{"1 <> 1", "boolean false"},
	{"1 != 2", "boolean true"},
	{"1 != 1.0", "boolean false"},
	{"1 < 2", "boolean true"},
	{"2 < 1", "boolean false"},
	{"1 < 1", "boolean false"},
	{"1 <= 1", "boolean true"},
	{"2 <= 1", "boolean false"},
	{"2 > 1", "boolean true"},
	{"1 > 2", "boolean false"},
	{"1 >= 1", "boolean true"},
	{"1 >= 2", "boolean false"},
	{"1 >= 1.0", "boolean true"},
	{"1.5 > 1", "boolean true"},
	{"1.5 < 2", "boolean true"},
	{"-1 < 0", "boolean true"},
	{"9223372036854775807 > -9223372036854775808", "boolean true"},
	{"9007199254740993 = 9007199254740992.0", "boolean true"},
	{"9007199254740993 = 9007199254740993", "boolean true"},
	{"true = true", "error: cannot coerce boolean to int"},
	{"true = 1", "error: cannot coerce boolean to int"},
	{"1 = false", "error: cannot coerce boolean to int"},
	{"null = null", "null"},
	{"null = 1", "null"},
	{"1 <> null", "null"},
	{"null < 1", "null"},
	{"0.0/0 = 0.0/0", "boolean false"},
	{"0.0/0 <> 0.0/0", "boolean true"},
	{"0.0/0 < 1", "boolean false"},
	{"1.0/0 > 1e308", "boolean true"},
	{"-1.0/0 < -1e308", "boolean true"},
	{"1 < 2 < 3", "syntax: syntax error @6"},
	{"1 = 1 = 1", "syntax: syntax error @6"},
	{"1 < 2 = true", "syntax: syntax error @6"},
	{"1 < 2 > 3", "syntax: syntax error @6"},
	/* bitwise operators */
	{"3 & 5", "int 1"},
	{"3 | 5", "int 7"},
	{"3 # 5", "int 6"},
	{"3 & 5.9", "int 2"},
	{"3.4 | 4", "int 7"},
	{"6 # 6", "int 0"},
	{"-1 & 255", "int 255"},
	{"0 | 0", "int 0"},
	{"1 << 0", "int 1"},
	{"1 << 2", "int 4"},
	{"1 << 62", "int 4611686018427387904"},
	{"1 << 63", "int -9223372036854775808"},
	{"1 << 64", "int 1"},
	{"1 << 65", "int 2"},
	{"1 << -1", "int -9223372036854775808"},
	{"1 << -63", "int 2"},
	{"1 << -64", "int 1"},
	{"3 << 63", "int -9223372036854775808"},
	{"-1 << 1", "int -2"},
	{"1.5 << 1", "int 4"},
	{"256 >> 4", "int 16"},
	{"256 >> 0", "int 256"},
	{"-256 >> 4", "int -16"},
	{"-1 >> 1", "int -1"},
	{"-1 >> 63", "int -1"},
	{"-8 >> 70", "int -1"},
	{"9223372036854775807 >> 62", "int 1"},
	{"-9223372036854775808 >> 63", "int -1"},
	{"1 >> 64", "int 1"},
	{"1 >> -1", "int 0"},
	{"1 << 2 << 3", "int 32"},
	{"64 >> 2 >> 1", "int 8"},
	{"1 | 2 & 4", "int 0"},
	{"1 & 2 | 4", "int 4"},
	{"1 # 3 # 7", "int 5"},
	{"3 | null", "null"},
	{"null & 1", "null"},
	{"true & 1", "error: cannot coerce boolean to int"},
	{"1 | true", "error: cannot coerce boolean to int"},
	{"1 << true", "error: cannot coerce boolean to int"},
	{"1.0/0 & 1", "error: double to int overflow for Infinity"},
	/* logical operators */
	{"true and true", "boolean true"},
	{"true and false", "boolean false"},
	{"false and true", "boolean false"},
	{"false and false", "boolean false"},
	{"true or false", "boolean true"},
	{"false or false", "boolean false"},
	{"false or true", "boolean true"},
	{"true or true", "boolean true"},
	{"not true", "boolean false"},
	{"not false", "boolean true"},
	{"not not true", "boolean true"},
	{"NOT TRUE", "boolean false"},
	{"true AND NOT false", "boolean true"},
	{"null and true", "null"},
	{"null and false", "null"},
	{"true and null", "null"},
	{"false and null", "boolean false"},
	{"null and null", "null"},
	{"null or true", "null"},
	{"null or false", "null"},
	{"true or null", "boolean true"},
	{"false or null", "null"},
	{"null or null", "null"},
	{"not null", "null"},
	{"1 and true", "error: cannot coerce int to boolean"},
	{"0 and true", "error: cannot coerce int to boolean"},
	{"true and 1", "error: cannot coerce int to boolean"},
	{"true and 2.5", "error: cannot coerce double to boolean"},
	{"false and 1", "boolean false"},
	{"false and 5/0", "boolean false"},
	{"true and 5/0", "error: division by zero"},
	{"null and 5/0", "null"},
	{"null and :undefined", "null"},
	{"true or 5/0", "boolean true"},
	{"false or 5/0", "error: division by zero"},
	{"null or 5/0", "null"},
	{"true or 1", "boolean true"},
	{"false or 1", "error: cannot coerce int to boolean"},
	{"1 or true", "error: cannot coerce int to boolean"},
	{"2.5 or false", "error: cannot coerce double to boolean"},
	{"not 1", "error: cannot coerce int to boolean"},
	{"not 0", "error: cannot coerce int to boolean"},
	{"not 0.0", "error: cannot coerce double to boolean"},
	{"not 1.5", "error: cannot coerce double to boolean"},
	{"1 = 1 and 2 = 2", "boolean true"},
	{"1 = 1 and 2 = 3 or 4 = 4", "boolean true"},
	{"not 1 = 2", "boolean true"},
	{"not true and false", "boolean false"},
	{"not false or true", "boolean true"},
	{"true or true and false", "boolean true"},
	{"false and false or true", "boolean true"},
	{"not true = false", "error: cannot coerce boolean to int"},
	/* IS, ISNULL, NOTNULL */
	{"null is null", "boolean true"},
	{"1 is null", "boolean false"},
	{"0 is null", "boolean false"},
	{"false is null", "boolean false"},
	{"null is not null", "boolean false"},
	{"1 is not null", "boolean true"},
	{"true is true", "boolean true"},
	{"false is true", "boolean false"},
	{"1 is true", "boolean false"},
	{"1.0 is true", "boolean false"},
	{"null is true", "boolean false"},
	{"true is false", "boolean false"},
	{"false is false", "boolean true"},
	{"0 is false", "boolean false"},
	{"null is false", "boolean false"},
	{"true is not true", "boolean false"},
	{"false is not true", "boolean true"},
	{"null is not true", "boolean true"},
	{"1 is not true", "boolean true"},
	{"true is not false", "boolean true"},
	{"false is not false", "boolean false"},
	{"null is not false", "boolean true"},
	{"null isnull", "boolean true"},
	{"1 isnull", "boolean false"},
	{"false isnull", "boolean false"},
	{"null notnull", "boolean false"},
	{"1 notnull", "boolean true"},
	{"null ISNULL", "boolean true"},
	{"1 NOTNULL", "boolean true"},
	{"2 is null is null", "boolean false"},
	{"1 isnull isnull", "boolean false"},
	{"1 isnull is true", "boolean false"},
	{"1 is 1", "syntax: syntax error @5"},
	{"1 is not", "syntax: syntax error @8"},
	{"1 is not 1", "syntax: syntax error @9"},
	{"1 is", "syntax: syntax error @4"},
	{"not null isnull", "boolean false"},
	{"null isnull = true", "error: cannot coerce boolean to int"},
	{"1 = 1 is true", "boolean true"},
	{"1 = null is null", "boolean true"},
	{"1 + null is null", "boolean true"},
	{"true and null is null", "boolean true"},
	{"(1 is null) = false", "error: cannot coerce boolean to int"},
	/* CASE */
	{"case when true then 1 end", "int 1"},
	{"case when false then 1 end", "null"},
	{"case when false then 1 else 2 end", "int 2"},
	{"case when null then 1 else 2 end", "int 2"},
	{"case when 0 then 1 when 2 then 3 else 4 end", "int 3"},
	{"case when 0.0 then 1 else 2 end", "int 2"},
	{"case when 1.5 then 1 else 2 end", "int 1"},
	{"case when false then 1 when true then 2 end", "int 2"},
	{"case when false then 1 when false then 2 else 3 end", "int 3"},
	{"case when true then 1 else 5/0 end", "int 1"},
	{"case when false then 5/0 else 3 end", "int 3"},
	{"case when 1 then 2 when 5/0 then 3 end", "int 2"},
	{"case when 5/0 then 1 end", "error: division by zero"},
	{"case when true then 5/0 end", "error: division by zero"},
	{"case when true then null else 1 end", "null"},
	{"case when 1 > 2 then 'a' end", "syntax: unexpected character (') @23"},
	{"case when 1 < 2 then 1.5 else 2 end", "double 1.5"},
	{"case when true then case when false then 1 else 2 end end", "int 2"},
	{"1 + case when true then 1 end", "int 2"},
	{"case when true then 1 end + 1", "int 2"},
	{"CASE WHEN TRUE THEN 1 ELSE 2 END", "int 1"},
	{"case when true then 1", "syntax: syntax error @21"},
	{"case when true then 1 else 2", "syntax: syntax error @28"},
	{"case end", "syntax: syntax error @7"},
	{"case 1 end", "syntax: syntax error @5"},
	{"case else 1 end", "syntax: syntax error @8"},
	{"case when true 1 end", "syntax: syntax error @15"},
	{"case when then 1 end", "syntax: syntax error @13"},
	{"case when true then end", "syntax: syntax error @22"},
	{"case when true then 1 else end", "syntax: syntax error @29"},
	{"case when true then 1 else 2 else 3 end", "syntax: syntax error @32"},
	{"when", "syntax: syntax error @3"},
	{"then", "syntax: syntax error @3"},
	{"else", "syntax: syntax error @3"},
	{"end", "syntax: syntax error @2"},
	/* precedence and associativity */
	{"1 + 2 * 3", "int 7"},
	{"(1 + 2) * 3", "int 9"},
	{"1 * 2 + 3", "int 5"},
	{"2 * 3 % 4", "int 2"},
	{"2 + 3 % 4", "int 5"},
	{"10 - 2 - 3", "int 5"},
	{"10 - (2 - 3)", "int 11"},
	{"100 / 10 / 5", "int 2"},
	{"2 * -3", "int -6"},
	{"-2 * 3", "int -6"},
	{"- 2 - 3", "int -5"},
	{"-2 + 5", "int 3"},
	{"~1 + 2", "int -4"},
	{"~1 | 2", "int -2"},
	{"(~1) + 2", "int 0"},
	{"~(1 + 2)", "int -4"},
	{"1 + 2 << 3", "int 24"},
	{"1 << 2 + 3", "int 32"},
	{"1 + 2 & 3", "int 3"},
	{"8 & 4 + 4", "int 8"},
	{"1 | 2 = 3", "boolean true"},
	{"1 = 3 | 2", "boolean false"},
	{"1 < 2 and 3 < 4", "boolean true"},
	{"1 + 1 = 2 and not false", "boolean true"},
	{"not 1 = 1", "boolean false"},
	{"1 + 2 * 3 - 4 / 2 % 3", "int 5"},
	{"2 * 3 < 7", "boolean true"},
	{"-1 << 2", "int -4"},
	{"((((1))))", "int 1"},
	{"1 + (2 + (3 + (4 + (5))))", "int 15"},
	/* whitespace and line continuation */
	{"  1  +  2  ", "int 3"},
	{"1\t+\t2", "int 3"},
	{"1 +\r2", "int 3"},
	{"1 + \\\n2", "int 3"},
	{"1 + \\\r\n 2", "int 3"},
	{"1 +\\\n2", "int 3"},
	{"1 \\\n+ 2 \\\n", "int 3"},
	{"(1 \\\n", "syntax: syntax error @5"},
	{"1 + \\ 2", "syntax: unexpected character (\\) @4"},
	/* variables */
	{":i", "int 7"},
	{":d", "double 2.5"},
	{":t", "boolean true"},
	{":f", "boolean false"},
	{":n", "null"},
	{":big", "int 9223372036854775807"},
	{":min", "int -9223372036854775808"},
	{":neg", "int -3"},
	{":ws", "int 12"},
	{":nan", "double NaN"},
	{":inf", "double -Infinity"},
	{":zero", "int 0"},
	{":dzero", "double 0"},
	{":default_seed", "int 12345"},
	{":i + 1", "int 8"},
	{":i * :d", "double 17.5"},
	{":big + 1", "error: bigint add out of range"},
	{":min - 1", "error: bigint sub out of range"},
	{":min / -1", "error: bigint div out of range"},
	{"-:min", "error: bigint sub out of range"},
	{":i > :d", "boolean true"},
	{":t and :f", "boolean false"},
	{":t or :n", "boolean true"},
	{":n is null", "boolean true"},
	{":t is true", "boolean true"},
	{":bad", "error: malformed variable \"bad\" value: \"abc\""},
	{":bad + 1", "error: malformed variable \"bad\" value: \"abc\""},
	{":huge", "error: value \"99999999999999999999\" is out of range for type bigint"},
	{":undefined", "error: undefined variable \"undefined\""},
	{":undefined + 1", "error: undefined variable \"undefined\""},
	{"1 + :undefined", "error: undefined variable \"undefined\""},
	{":x1", "error: undefined variable \"x1\""},
	{":1x", "error: undefined variable \"1x\""},
	{":_a", "error: undefined variable \"_a\""},
	{":I", "error: undefined variable \"I\""},
	{":i:i", "syntax: syntax error @3"},
	/* abs */
	{"abs(-3)", "int 3"},
	{"abs(3)", "int 3"},
	{"abs(0)", "int 0"},
	{"abs(-2.5)", "double 2.5"},
	{"abs(2.5)", "double 2.5"},
	{"abs(-0.0)", "double 0"},
	{"abs(-9223372036854775807)", "int 9223372036854775807"},
	{"abs(-9223372036854775808)", "int -9223372036854775808"},
	{"abs(true)", "double 4.94065645841247e-324"},
	{"abs(false)", "double 0"},
	{"abs(null)", "null"},
	{"abs(0.0/0)", "double NaN"},
	{"abs(-1.0/0)", "double Infinity"},
	{"abs()", "syntax: unexpected number of arguments (abs) @4"},
	{"abs(1, 2)", "syntax: unexpected number of arguments (abs) @8"},
	{"ABS(-3)", "int 3"},
	/* debug */
	{"debug(1)", "int 1"},
	{"debug(2.5)", "double 2.5"},
	{"debug(true)", "boolean true"},
	{"debug(null)", "null"},
	{"debug(debug(1))", "int 1"},
	{"debug()", "syntax: unexpected number of arguments (debug) @6"},
	/* double, int */
	{"double(1)", "double 1"},
	{"double(-9223372036854775808)", "double -9.22337203685478e+18"},
	{"double(9223372036854775807)", "double 9.22337203685478e+18"},
	{"double(2.5)", "double 2.5"},
	{"double(true)", "error: cannot coerce boolean to double"},
	{"double(null)", "null"},
	{"int(1)", "int 1"},
	{"int(2.5)", "int 2"},
	{"int(3.5)", "int 4"},
	{"int(-2.5)", "int -2"},
	{"int(-3.5)", "int -4"},
	{"int(2.4)", "int 2"},
	{"int(2.6)", "int 3"},
	{"int(-0.4)", "int 0"},
	{"int(1e18)", "int 1000000000000000000"},
	{"int(9.2e18)", "int 9200000000000000000"},
	{"int(9.3e18)", "error: double to int overflow for 9300000000000000000.000000"},
	{"int(-9.2e18)", "int -9200000000000000000"},
	{"int(-9223372036854775808.0)", "int -9223372036854775808"},
	{"int(9223372036854775807.0)", "error: double to int overflow for 9223372036854775808.000000"},
	{"int(1e30)", "error: double to int overflow for 1000000000000000019884624838656.000000"},
	{"int(-1e30)", "error: double to int overflow for -1000000000000000019884624838656.000000"},
	{"int(1e308)", "error: double to int overflow for 100000000000000001097906362944045541740492309677311846336810682903157585404911491537163328978494688899061249669721172515611590283743140088328307009198146046031271664502933027185697489699588559043338384466165001178426897626212945177628091195786707458122783970171784415105291802893207873272974885715430223118336.000000"},
	{"int(0.0/0)", "error: double to int overflow for NaN"},
	{"int(1.0/0)", "error: double to int overflow for Infinity"},
	{"int(-1.0/0)", "error: double to int overflow for -Infinity"},
	{"int(sqrt(-1))", "error: double to int overflow for NaN"},
	{"int(true)", "error: cannot coerce boolean to int"},
	{"int(null)", "null"},
	{"int(1, 2)", "syntax: unexpected number of arguments (int) @8"},
	/* exp, ln, sqrt, pow, pi */
	{"exp(0)", "double 1"},
	{"exp(1)", "double 2.71828182845905"},
	{"exp(-1)", "double 0.367879441171442"},
	{"exp(1000)", "double Infinity"},
	{"exp(-1000)", "double 0"},
	{"exp(709)", "double 8.21840746155497e+307"},
	{"exp(true)", "error: cannot coerce boolean to double"},
	{"exp(null)", "null"},
	{"ln(1)", "double 0"},
	{"ln(10)", "double 2.30258509299405"},
	{"ln(2.718281828459045)", "double 1"},
	{"ln(0)", "double -Infinity"},
	{"ln(-1)", "double NaN"},
	{"ln(0.5)", "double -0.693147180559945"},
	{"ln(true)", "error: cannot coerce boolean to double"},
	{"sqrt(4)", "double 2"},
	{"sqrt(2)", "double 1.4142135623731"},
	{"sqrt(0)", "double 0"},
	{"sqrt(-0.0)", "double 0"},
	{"sqrt(-1)", "double NaN"},
	{"sqrt(1e308)", "double 1e+154"},
	{"sqrt(null)", "null"},
	{"sqrt(true)", "error: cannot coerce boolean to double"},
	{"pi()", "double 3.14159265358979"},
	{"pi() * 2", "double 6.28318530717959"},
	{"PI()", "double 3.14159265358979"},
	{"pi(1)", "syntax: unexpected number of arguments (pi) @4"},
	{"pow(2, 10)", "double 1024"},
	{"pow(2.0, 10)", "double 1024"},
	{"pow(2, 0.5)", "double 1.4142135623731"},
	{"pow(2, -1)", "double 0.5"},
	{"pow(0, 0)", "double 1"},
	{"pow(0, -1)", "double Infinity"},
	{"pow(-8, 1.0/3)", "double NaN"},
	{"pow(-2, 3)", "double -8"},
	{"pow(2, 1024)", "double Infinity"},
	{"pow(10, -400)", "double 0"},
	{"pow(null, 2)", "null"},
	{"pow(2, null)", "null"},
	{"pow(2, true)", "error: cannot coerce boolean to double"},
	{"power(2, 10)", "double 1024"},
	{"power(3, 2)", "double 9"},
	{"pow(2)", "syntax: unexpected number of arguments (pow) @5"},
	{"power(1, 2, 3)", "syntax: unexpected number of arguments (power) @13"},
	/* least, greatest */
	{"least(1)", "int 1"},
	{"least(3, 1, 2)", "int 1"},
	{"least(1, 2.5, 0)", "double 0"},
	{"least(1.5, 2)", "double 1.5"},
	{"least(-9223372036854775808, 9223372036854775807)", "int -9223372036854775808"},
	{"least(1, null)", "null"},
	{"least(null, 1)", "null"},
	{"least(true)", "error: cannot coerce boolean to int"},
	{"least(1, true)", "error: cannot coerce boolean to int"},
	{"least(true, 1.5)", "error: cannot coerce boolean to double"},
	{"least(0.0/0, 1)", "double 1"},
	{"least(1, 0.0/0)", "double NaN"},
	{"greatest(1)", "int 1"},
	{"greatest(3, 1, 2)", "int 3"},
	{"greatest(1, 2.5)", "double 2.5"},
	{"greatest(1.0, 2)", "double 2"},
	{"greatest(1, true)", "error: cannot coerce boolean to int"},
	{"greatest(0.0/0, 1)", "double 1"},
	{"greatest(1, 0.0/0)", "double NaN"},
	{"least()", "syntax: at least one argument expected (least) @6"},
	{"greatest()", "syntax: at least one argument expected (greatest) @9"},
	{"least(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)", "int 1"},
	{"greatest(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)", "int 16"},
	{"least(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17)", "error: too many function arguments, maximum is 16"},
	{"least(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,5/0)", "error: too many function arguments, maximum is 16"},
	{"least(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,5/0,17)", "error: division by zero"},
	/* hash functions */
	{"hash(5)", "int 1873462279057829310"},
	{"hash(5, 12345)", "int 1873462279057829310"},
	{"hash(5, 1)", "int -498070536770548178"},
	{"hash(-1, 0)", "int 4219408603045787357"},
	{"hash(0)", "int -918216912039290200"},
	{"hash_murmur2(5)", "int 1873462279057829310"},
	{"hash_murmur2(5, 12345)", "int 1873462279057829310"},
	{"hash_murmur2(0, 0)", "int 8217090173679840641"},
	{"hash_murmur2(-9223372036854775808, 9223372036854775807)", "int 8800816955714355153"},
	{"hash_fnv1a(5)", "int -8604669049877516231"},
	{"hash_fnv1a(5, 12345)", "int -8604669049877516231"},
	{"hash_fnv1a(0, 0)", "int -6284781860667377211"},
	{"hash_fnv1a(-1, -1)", "int 9116541788052886162"},
	{"hash_fnv1a(9223372036854775807, -9223372036854775808)", "int 933822423779008957"},
	{"hash(2.5)", "int -2304584216186237393"},
	{"hash(2.5, 1.4)", "int -3163560438150112631"},
	{"hash(true)", "error: cannot coerce boolean to int"},
	{"hash(null)", "null"},
	{"hash(1, null)", "null"},
	{"hash()", "syntax: unexpected number of arguments (hash) @5"},
	{"hash(1, 2, 3)", "syntax: unexpected number of arguments (hash) @12"},
	{"hash_fnv1a()", "syntax: unexpected number of arguments (hash_fnv1a) @11"},
	{"hash_murmur2(1, 2, 3)", "syntax: unexpected number of arguments (hash_murmur2) @20"},
	{"HASH(5)", "int 1873462279057829310"},
	/* permute */
	{"permute(0, 1)", "int 0"},
	{"permute(3, 10)", "int 8"},
	{"permute(3, 10, 5)", "int 9"},
	{"permute(0, 10, 0)", "int 0"},
	{"permute(9, 10, 0)", "int 5"},
	{"permute(10, 10, 0)", "int 0"},
	{"permute(-1, 10, 0)", "int 8"},
	{"permute(12345, 1000000, 42)", "int 100143"},
	{"permute(5, 9223372036854775807, 1)", "int 944045242817975737"},
	{"permute(1, 0)", "error: permute size parameter must be greater than zero"},
	{"permute(1, -5, 3)", "error: permute size parameter must be greater than zero"},
	{"permute(1, 0.0)", "error: permute size parameter must be greater than zero"},
	{"permute(1.5, 10, 0)", "int 1"},
	{"permute(null, 10)", "null"},
	{"permute(1, true)", "error: cannot coerce boolean to int"},
	{"permute(1)", "syntax: unexpected number of arguments (permute) @9"},
	{"permute(1, 2, 3, 4)", "syntax: unexpected number of arguments (permute) @18"},
	/* random functions */
	{"random(5, 5)", "int 5"},
	{"random(-3, -3)", "int -3"},
	{"random(10, 1)", "error: empty range given to random"},
	{"random(0, 9223372036854775807)", "error: random range is too large"},
	{"random(-9223372036854775808, 9223372036854775807)", "error: random range is too large"},
	{"random(-9223372036854775808, 0)", "error: random range is too large"},
	{"random(1, 1.4)", "int 1"},
	{"random(true, 2)", "error: cannot coerce boolean to int"},
	{"random(null, 2)", "null"},
	{"random(1, 1e30)", "error: double to int overflow for 1000000000000000019884624838656.000000"},
	{"random(1)", "syntax: unexpected number of arguments (random) @8"},
	{"random()", "syntax: unexpected number of arguments (random) @7"},
	{"random(1, 2, 3)", "syntax: unexpected number of arguments (random) @14"},
	{"random_exponential(5, 5, 1)", "int 5"},
	{"random_exponential(1, 10, 0)", "error: exponential parameter must be greater than zero (not 0.000000)"},
	{"random_exponential(1, 10, -1)", "error: exponential parameter must be greater than zero (not -1.000000)"},
	{"random_exponential(1, 10, -1.5)", "error: exponential parameter must be greater than zero (not -1.500000)"},
	{"random_exponential(10, 1, 1)", "error: empty range given to random"},
	{"random_exponential(1, 10, true)", "error: cannot coerce boolean to double"},
	{"random_exponential(1, 10, null)", "null"},
	{"random_exponential(1, 10)", "syntax: unexpected number of arguments (random_exponential) @24"},
	{"random_gaussian(5, 5, 2)", "int 5"},
	{"random_gaussian(7, 7, 2.5)", "int 7"},
	{"random_gaussian(1, 10, 1.5)", "error: gaussian parameter must be at least 2.000000 (not 1.500000)"},
	{"random_gaussian(1, 10, 1.999)", "error: gaussian parameter must be at least 2.000000 (not 1.999000)"},
	{"random_gaussian(1, 10, -1.0/0)", "error: gaussian parameter must be at least 2.000000 (not -Infinity)"},
	{"random_gaussian(1, 10, 0)", "error: gaussian parameter must be at least 2.000000 (not 0.000000)"},
	{"random_gaussian(10, 1, 3)", "error: empty range given to random"},
	{"random_gaussian(0, 9223372036854775807, 3)", "error: random range is too large"},
	{"random_gaussian(1, 2)", "syntax: unexpected number of arguments (random_gaussian) @20"},
	{"random_zipfian(5, 5, 1.5)", "int 5"},
	{"random_zipfian(1, 10, 1)", "error: zipfian parameter must be in range [1.001, 1000] (not 1.000000)"},
	{"random_zipfian(1, 10, 1.0)", "error: zipfian parameter must be in range [1.001, 1000] (not 1.000000)"},
	{"random_zipfian(1, 10, 0.5)", "error: zipfian parameter must be in range [1.001, 1000] (not 0.500000)"},
	{"random_zipfian(1, 10, 1000.5)", "error: zipfian parameter must be in range [1.001, 1000] (not 1000.500000)"},
	{"random_zipfian(1, 10, 1.0/0)", "error: zipfian parameter must be in range [1.001, 1000] (not Infinity)"},
	{"random_zipfian(1, 10, 1e30)", "error: zipfian parameter must be in range [1.001, 1000] (not 1000000000000000019884624838656.000000)"},
	{"random_zipfian(1, 10, -5)", "error: zipfian parameter must be in range [1.001, 1000] (not -5.000000)"},
	{"random_zipfian(1, 10)", "syntax: unexpected number of arguments (random_zipfian) @20"},
	{"RANDOM(1, 1)", "int 1"},
	{"Random_Zipfian(3, 3, 2)", "int 3"},
	/* function names and calls */
	{"foo(1)", "syntax: unexpected function name (foo) @2"},
	{"foo()", "syntax: unexpected function name (foo) @2"},
	{"foo", "syntax: unexpected function name (foo) @2"},
	{"nan", "syntax: unexpected function name (nan) @2"},
	{"abs", "syntax: syntax error @3"},
	{"abs (1)", "int 1"},
	{"abs(,)", "syntax: syntax error @5"},
	{"abs(1,)", "syntax: syntax error @6"},
	{"abs(1 2)", "syntax: syntax error @6"},
	{"least(1,)", "syntax: syntax error @8"},
	{"abs(1)(2)", "syntax: syntax error @6"},
	{"\303\251", "syntax: unexpected function name (\303\251) @1"},
	{"ab\303\251(1)", "syntax: unexpected function name (ab\303\251) @3"},
	{"a_b(1)", "syntax: unexpected function name (a_b) @2"},
	{"random_(1)", "syntax: unexpected function name (random_) @6"},
	/* syntax errors */
	{"1 +", "syntax: syntax error @3"},
	{"1 + +", "syntax: syntax error @5"},
	{"1 2", "syntax: syntax error @2"},
	{"1 +* 2", "syntax: syntax error @3"},
	{"1 ** 2", "syntax: syntax error @3"},
	{"1 = = 2", "syntax: syntax error @4"},
	{"1 == 2", "syntax: syntax error @3"},
	{"1 !== 2", "syntax: syntax error @4"},
	{"1 <=> 2", "syntax: syntax error @4"},
	{"(1", "syntax: syntax error @2"},
	{"(1))", "syntax: syntax error @3"},
	{"()", "syntax: syntax error @1"},
	{"1,2", "syntax: syntax error @1"},
	{"1e", "syntax: syntax error @1"},
	{"1e+", "syntax: syntax error @1"},
	{"1.2.3", "syntax: syntax error @4"},
	{".e5", "syntax: unexpected character (.) @0"},
	{"0x10", "syntax: syntax error @3"},
	{"1_000", "syntax: syntax error @4"},
	{"and 1", "syntax: syntax error @2"},
	{"1 and", "syntax: syntax error @5"},
	{"not", "syntax: syntax error @3"},
	{"1 not", "syntax: syntax error @4"},
	{"is null", "syntax: syntax error @1"},
	/* unexpected characters */
	{":", "syntax: unexpected character (:) @0"},
	{": x", "syntax: unexpected character (:) @0"},
	{":x.y", "syntax: unexpected character (.) @2"},
	{"@", "syntax: unexpected character (@) @0"},
	{"!1", "syntax: unexpected character (!) @0"},
	{"1 ! 2", "syntax: unexpected character (!) @2"},
	{"1;", "syntax: unexpected character (;) @1"},
	{"$1", "syntax: unexpected character ($) @0"},
	{"?", "syntax: unexpected character (?) @0"},
	{"[1]", "syntax: unexpected character (]) @2"},
	{"{1}", "syntax: unexpected character (}) @2"},
	{"\"a\"", "syntax: unexpected character (\") @2"},
	{"'a'", "syntax: unexpected character (') @2"},
	{"\"abc\"", "syntax: unexpected character (\") @4"},
	{"1 + \"abc\"", "syntax: unexpected character (\") @8"},
	{"'abcdef' + 1", "syntax: unexpected character (') @7"},
	{"`a`", "syntax: unexpected character (`) @2"},
	{"1 + 2 -- comment", "syntax: unexpected function name (comment) @15"},
	{"1 \\ 2", "syntax: unexpected character (\\) @2"},
	/* later errors replace the first */
	{"1 2 @", "syntax: unexpected character (@) @4"},
	{"foo(1) @", "syntax: unexpected character (@) @7"},
	{"1 2 99999999999999999999", "syntax: bigint constant overflow (99999999999999999999) @23"},
	{"@ 99999999999999999999", "syntax: bigint constant overflow (99999999999999999999) @21"},
	{"abs() 1e999", "syntax: double constant overflow (1e999) @10"},
	{"1 2 @ 3 $ 4", "syntax: unexpected character ($) @8"},
	{"@ # $", "syntax: unexpected character ($) @4"},
	{"(1 99999999999999999999 @", "syntax: unexpected character (@) @24"},
	{"random(1) @ 1e400", "syntax: double constant overflow (1e400) @16"},
	{"99999999999999999999 1e400", "syntax: double constant overflow (1e400) @25"},
	{"1 + @", "syntax: unexpected character (@) @4"},
	{"1 1e400", "syntax: double constant overflow (1e400) @6"},
	/* keywords in odd places, more combinations */
	{"not(true)", "boolean false"},
	{"case(1)", "syntax: syntax error @4"},
	{"true(1)", "syntax: syntax error @4"},
	{"null(1)", "syntax: syntax error @4"},
	{"and(1)", "syntax: syntax error @2"},
	{"isnull(1)", "syntax: syntax error @5"},
	{":and", "error: undefined variable \"and\""},
	{":case", "error: undefined variable \"case\""},
	{":true", "error: undefined variable \"true\""},
	{":null", "error: undefined variable \"null\""},
	{"1 is not not null", "syntax: syntax error @11"},
	{"1 is null is not null", "boolean true"},
	{"1 = 1 isnull", "boolean false"},
	{"not 1 isnull", "boolean true"},
	{"-+9223372036854775808", "syntax: syntax error @20"},
	{"- - 9223372036854775808", "error: bigint sub out of range"},
	{"-9223372036854775808.5", "double -9.22337203685478e+18"},
	{"true is true is true", "boolean true"},
	{"not not not false", "boolean true"},
	{"1 < 2 is true and not 2 < 1 is true", "boolean true"},
	{"1 notnull and 2 notnull", "boolean true"},
	{"case when true then 1 end is null", "boolean false"},
	{"abs(-:i)", "int 7"},
	{"-abs(-2.5)", "double -2.5"},
	{"~~5", "int 5"},
	{"~-~5", "int -7"},
	{"2 * (3 + 4) # 1", "int 15"},
	{"1 # 1 << 1", "int 0"},
};

#define NCASES	(sizeof(cases) / sizeof(cases[0]))

static vars *
test_vars_new(void)
{
	vars	   *vs = vars_new();
	char	   *err = NULL;

	for (size_t i = 0; i < sizeof(test_vars) / sizeof(test_vars[0]); i++)
		ck_assert_msg(vars_set_string(vs, "-D", test_vars[i][0], test_vars[i][1], &err),
					  "%s", err);
	return vs;
}

/* A value the way pgbench's debug() shows it, without the prefix. */
static char *
show_value(const value *v)
{
	char		buf[VALUE_DESCRIBE_SIZE];

	value_describe(v, buf, sizeof(buf));
	return xstrdup(buf);
}

/* Parse and evaluate text as it is; the outcome in the table's notation. */
static char *
run_expr_text(const char *line, vars *vs, prng_state *rs, FILE *debug_out)
{
	expr_error perr;
	expr	   *e = expr_parse(line, 0, -1, &perr);
	char	   *got;

	if (e == NULL)
	{
		if (perr.more != NULL)
			got = xasprintf("syntax: %s (%s) @%d", perr.msg, perr.more, perr.column);
		else
			got = xasprintf("syntax: %s @%d", perr.msg, perr.column);
		expr_error_clear(&perr);
	}
	else
	{
		expr_env	env = {.vars = vs, .rs = rs, .script_no = 0, .command_no = 1,
		.debug_out = debug_out};
		value		v;
		char	   *err = NULL;

		if (expr_eval(e, &env, &v, &err))
			got = show_value(&v);
		else
		{
			got = err != NULL ? xasprintf("error: %s", err) : xstrdup("error:");
			free(err);
		}
		expr_free(e);
	}
	return got;
}

/* Parse and evaluate one expression followed by a newline. */
static char *
run_expr(const char *text, vars *vs, prng_state *rs, FILE *debug_out)
{
	char	   *line = xasprintf("%s\n", text);
	char	   *got = run_expr_text(line, vs, rs, debug_out);

	free(line);
	return got;
}

/* Every case of the table, each with fresh variables as in its own pgbench run. */
START_TEST(expr_table)
{
	FILE	   *devnull = fopen("/dev/null", "w");
	int			failures = 0;

	ck_assert_ptr_nonnull(devnull);
	for (size_t i = 0; i < NCASES; i++)
	{
		vars	   *vs = test_vars_new();
		prng_state	rs;
		char	   *got;

		prng_seed(&rs, 42);
		got = run_expr(cases[i].expr, vs, &rs, devnull);
		if (strcmp(got, cases[i].want) != 0)
		{
			fprintf(stderr, "case %zu: [%s]\n  want: %s\n  got:  %s\n",
					i, cases[i].expr, cases[i].want, got);
			failures++;
		}
		free(got);
		vars_free(vs);
	}
	fclose(devnull);
	ck_assert_msg(failures == 0, "%d of %zu expression cases failed", failures, NCASES);
}
END_TEST

/* debug() writes pgbench's line to the client's stream and passes its argument through. */
START_TEST(expr_debug_output)
{
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *out = open_memstream(&buf, &len);
	vars	   *vs = test_vars_new();
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
	vars	   *vs = test_vars_new();
	prng_state	rs;
	char	   *got;

	prng_seed(&rs, 1);
	got = run_expr("random_zipfian(1, 10, 0.0/0)", vs, &rs, stderr);
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
		vars	   *vs = test_vars_new();
		prng_state	rs;
		char	   *text = deep_text(deep_cases[i].head, deep_cases[i].mid,
									 deep_cases[i].tail, deep_cases[i].n);
		char	   *got;

		prng_seed(&rs, 42);
		got = run_expr_text(text, vs, &rs, stderr);
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
	TCase	   *tc = tcase_create("table");

	tcase_add_test(tc, expr_table);
	suite_add_tcase(s, tc);

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
