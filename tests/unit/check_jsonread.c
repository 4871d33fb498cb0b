/*
 * check_jsonread.c — unit tests of the strict JSON reader: documents read
 * back through the writer (json.h), rejected documents with their
 * located errors, numbers, strings, and files.
 */
#include "config.h"

#include "pgtempo/jsonread.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtempo/json.h"
#include "unit.h"
#include "../fuzz/jsonflat_agree.h"

static const struct
{
	const char *in;
	const char *want;			/* written back compactly */
} good_cases[] = {
	{"null", "null"},
	{" true ", "true"},
	{"\n\tfalse\r\n", "false"},
	{"0", "0"},
	{"-0", "0"},
	{"42", "42"},
	{"-9223372036854775808", "-9223372036854775808"},
	{"9223372036854775807", "9223372036854775807"},
	{"1.5", "1.5"},
	{"-2.25e2", "-225"},
	{"1E+2", "100"},
	{"123e-2", "1.23"},
	{"0.1", "0.1"},
	{"\"\"", "\"\""},
	{"\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "\"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\""},
	{"\"\\u00e9\\u20AC\"", "\"\xc3\xa9\xe2\x82\xac\""},
	{"\"\\ud83d\\ude00\"", "\"\xf0\x9f\x98\x80\""},
	{"\"caf\xc3\xa9\"", "\"caf\xc3\xa9\""},
	{"[]", "[]"},
	{"{}", "{}"},
	{"[1,[2,[3,[]]],{}]", "[1,[2,[3,[]]],{}]"},
	{"{\"a\":1,\"b\":[true,null],\"c\":{\"d\":\"e\"}}",
	"{\"a\":1,\"b\":[true,null],\"c\":{\"d\":\"e\"}}"},
	{" { \"k\" : [ 1 , 2 ] } ", "{\"k\":[1,2]}"},
};

START_TEST(test_good)
{
	char	   *cause = NULL;
	jsonread_doc *doc = jsonread_parse(good_cases[_i].in, strlen(good_cases[_i].in), &cause);
	strbuf		sb;
	json_writer w;

	ck_assert_msg(doc != NULL, "%s: %s", good_cases[_i].in, cause);
	strbuf_init(&sb);
	json_init(&w, &sb, false);
	jsonread_write(&w, jsonread_root(doc));
	ck_assert_str_eq(sb.data, good_cases[_i].want);
	strbuf_free(&sb);
	jsonread_free(doc);
}
END_TEST

static const struct
{
	const char *in;
	const char *want;			/* the cause */
} bad_cases[] = {
	{"", "line 1, column 1: unexpected end of input"},
	{"   \n  ", "line 2, column 3: unexpected end of input"},
	{"nul", "line 1, column 1: invalid token"},
	{"True", "line 1, column 1: invalid token"},
	{"[1,]", "line 1, column 4: invalid token"},
	{"[1 2]", "line 1, column 4: expected ',' or ']'"},
	{"{\"a\":1,}", "line 1, column 8: expected a string key"},
	{"{\"a\" 1}", "line 1, column 6: expected ':'"},
	{"{\"a\":1 \"b\":2}", "line 1, column 8: expected ',' or '}'"},
	{"{a:1}", "line 1, column 2: expected a string key"},
	{"[1]\n[2]", "line 2, column 1: unexpected text after the value"},
	{"01", "line 1, column 1: leading zero in number"},
	{"-", "line 1, column 2: unexpected end of input"},
	{"1.", "line 1, column 3: unexpected end of input"},
	{"1e", "line 1, column 3: unexpected end of input"},
	{"1.x", "line 1, column 3: invalid number"},
	{"[1,", "line 1, column 4: unexpected end of input"},
	{"{\"a\":1,\n", "line 2, column 1: unexpected end of input"},
	{".5", "line 1, column 1: invalid token"},
	{"+1", "line 1, column 1: invalid token"},
	{"NaN", "line 1, column 1: invalid token"},
	{"1e999", "line 1, column 1: number out of range"},
	{"[1e999]", "line 1, column 2: number out of range"},
	{"\"abc", "line 1, column 5: unexpected end of input"},
	{"\"a\nb\"", "line 1, column 3: control character in string"},
	{"\"\\x\"", "line 1, column 3: invalid escape in string"},
	{"\"\\u12G4\"", "line 1, column 4: invalid \\u escape"},
	{"\"\\ud800\"", "line 1, column 8: lone high surrogate in \\u escape"},
	{"\"\\udc00\"", "line 1, column 8: lone low surrogate in \\u escape"},
	{"\"\xff\"", "line 1, column 2: invalid UTF-8 in string"},
	{"\"\xc0\xaf\"", "line 1, column 2: invalid UTF-8 in string"},
	{"// c\n1", "line 1, column 1: invalid token"},
};

START_TEST(test_bad)
{
	char	   *cause = NULL;
	jsonread_doc *doc = jsonread_parse(bad_cases[_i].in, strlen(bad_cases[_i].in), &cause);

	ck_assert_msg(doc == NULL, "accepted: %s", bad_cases[_i].in);
	ck_assert_str_eq(cause, bad_cases[_i].want);
	free(cause);
}
END_TEST

/* Nesting deeper than JSONREAD_MAX_DEPTH is an error, not a stack overflow. */
START_TEST(test_depth)
{
	char		text[2 * (JSONREAD_MAX_DEPTH + 2) + 1];
	char	   *cause = NULL;
	int			n = JSONREAD_MAX_DEPTH + 1;
	jsonread_doc *doc;

	for (int i = 0; i < n; i++)
	{
		text[i] = '[';
		text[2 * n - 1 - i] = ']';
	}
	text[2 * n] = '\0';
	doc = jsonread_parse(text, strlen(text), &cause);
	ck_assert_ptr_nonnull(doc);
	jsonread_free(doc);

	memmove(text + 1, text, strlen(text) + 1);
	text[0] = '[';
	strcat(text, "]");
	doc = jsonread_parse(text, strlen(text), &cause);
	ck_assert_ptr_null(doc);
	ck_assert_ptr_nonnull(strstr(cause, "nested too deeply"));
	free(cause);
}
END_TEST

/* Every double written with %.17g (and the writer's shortest form) reads back exactly. */
START_TEST(test_number_round_trip)
{
	unsigned	seed = 12345;

	for (int i = 0; i < 20000; i++)
	{
		double		v;
		char		buf[64];
		char	   *cause = NULL;
		jsonread_doc *doc;
		strbuf		sb;
		json_writer w;

		seed = seed * 1103515245u + 12345u;
		v = ldexp((double) (seed >> 4) / (1u << 28), (int) (seed % 80) - 40) * (seed & 1 ? 1 : -1);
		snprintf(buf, sizeof(buf), "%.17g", v);
		doc = jsonread_parse(buf, strlen(buf), &cause);
		ck_assert_msg(doc != NULL && jsonread_root(doc)->num == v, "%s", buf);
		jsonread_free(doc);

		strbuf_init(&sb);
		json_init(&w, &sb, false);
		json_double(&w, v);
		doc = jsonread_parse(sb.data, sb.len, &cause);
		ck_assert_msg(doc != NULL && jsonread_root(doc)->num == v, "%s", sb.data);
		jsonread_free(doc);
		strbuf_free(&sb);
	}
}
END_TEST

static const struct
{
	const char *in;
	double		want;
	bool		is_int;
} number_cases[] = {
	{"12345678901234567890", 12345678901234567890.0, false},	/* past int64 */
	{"1234567890123456789", 1234567890123456789.0, true},
	{"0.30000000000000004", 0.30000000000000004, false},
	{"2.2250738585072014e-308", 2.2250738585072014e-308, false},
	{"1.7976931348623157e308", 1.7976931348623157e308, false},
	{"5e-324", 5e-324, false},
	{"1e-400", 0.0, false},
	{"-1.25", -1.25, false},
	{"1.0", 1.0, false},
};

START_TEST(test_numbers)
{
	char	   *cause = NULL;
	jsonread_doc *doc = jsonread_parse(number_cases[_i].in, strlen(number_cases[_i].in), &cause);

	ck_assert_ptr_nonnull(doc);
	ck_assert_msg(jsonread_root(doc)->num == number_cases[_i].want, "%s", number_cases[_i].in);
	ck_assert_int_eq(jsonread_root(doc)->is_int, number_cases[_i].is_int);
	jsonread_free(doc);
}
END_TEST

/* Equality: by value, members in order. */
START_TEST(test_equal)
{
	static const struct
	{
		const char *a;
		const char *b;
		bool		eq;
	}			cases[] = {
		{"[1,2.5,\"x\",null,true]", "[1, 2.50, \"x\", null, true]", true},
		{"{\"a\":{\"b\":[]}}", "{ \"a\" : { \"b\" : [ ] } }", true},
		{"1", "1.0", true},
		{"1", "2", false},
		{"[1,2]", "[1,2,3]", false},
		{"{\"a\":1,\"b\":2}", "{\"b\":2,\"a\":1}", false},
		{"\"a\\u0000b\"", "\"a\\u0000c\"", false},
		{"null", "false", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char	   *cause = NULL;
		jsonread_doc *a = jsonread_parse(cases[i].a, strlen(cases[i].a), &cause);
		jsonread_doc *b = jsonread_parse(cases[i].b, strlen(cases[i].b), &cause);

		ck_assert_msg(jsonread_equal(jsonread_root(a), jsonread_root(b)) == cases[i].eq,
					  "%s vs %s", cases[i].a, cases[i].b);
		jsonread_free(a);
		jsonread_free(b);
	}
}
END_TEST

/* Lookup by key, the first of duplicates; \u0000 kept in a string's length. */
START_TEST(test_get)
{
	const char *text = "{\"a\":1,\"b\":{\"c\":\"x\\u0000y\"},\"a\":2}";
	char	   *cause = NULL;
	jsonread_doc *doc = jsonread_parse(text, strlen(text), &cause);
	const jsonread_value *root = jsonread_root(doc);
	const jsonread_value *c = jsonread_get(jsonread_get(root, "b"), "c");

	ck_assert_int_eq(jsonread_get(root, "a")->i, 1);
	ck_assert_ptr_null(jsonread_get(root, "z"));
	ck_assert_ptr_null(jsonread_get(jsonread_get(root, "a"), "c"));
	ck_assert_ptr_null(jsonread_get(NULL, "a"));
	ck_assert_int_eq(c->n, 3);
	ck_assert_int_eq(memcmp(c->u.str, "x\0y", 4), 0);
	ck_assert_str_eq(jsonread_type_name(root->type), "object");
	jsonread_free(doc);
}
END_TEST

/* A large array (more than one arena chunk) and a file, read whole. */
START_TEST(test_file)
{
	char		path[] = "/tmp/check_jsonread_XXXXXX";
	int			fd = mkstemp(path);
	FILE	   *f = fdopen(fd, "w");
	char	   *cause = NULL;
	jsonread_doc *doc;
	const jsonread_value *root;

	fputs("[", f);
	for (int i = 0; i < 100000; i++)
		fprintf(f, "%s{\"i\":%d,\"x\":%d.5}", i > 0 ? "," : "", i, i);
	fputs("]\n", f);
	fclose(f);
	doc = jsonread_file(path, &cause);
	ck_assert_msg(doc != NULL, "%s", cause);
	root = jsonread_root(doc);
	ck_assert_int_eq(root->n, 100000);
	ck_assert_int_eq(jsonread_get(&root->u.items[99999], "i")->i, 99999);
	ck_assert(jsonread_get(&root->u.items[7], "x")->num == 7.5);
	jsonread_free(doc);

	f = fopen(path, "w");
	fputs("{\"a\": [1, 2,", f);
	fclose(f);
	ck_assert_ptr_null(jsonread_file(path, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "is not valid JSON: line 1, column 13: unexpected end of input"));
	free(cause);
	unlink(path);
	ck_assert_ptr_null(jsonread_file(path, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "could not open file"));
	free(cause);
}
END_TEST

/* The flat scan: flat objects split, everything else refused with where and why. */
static const struct
{
	const char *in;
	int			n;				/* members; -1: refused */
	const char *cause;			/* when refused */
} flat_cases[] = {
	{"{}", 0, NULL},
	{" { } ", 0, NULL},
	{"{\"a\":1,\"b\":\"x\\ny\",\"c\":null,\"d\":true,\"e\":false,\"f\":[1,\"2\",null],\"g\":[]}",
	7, NULL},
	{"{\"ts\":\"2026-11-26T03:10:00.000000Z\",\"q\":\"\\ud83d\\ude00\"}", 2, NULL},
	{"{\"a\":\"\\ud800\"}", -1, "column 13: lone high surrogate in \\u escape"},
	{"{\"a\":\"\\udc00x\"}", -1, "column 13: lone low surrogate in \\u escape"},
	{"{\"a\":1-2e}", -1, "column 7: expected ',' or '}'"},
	{"{\"a\":1e}", -1, "column 8: invalid number"},
	{"{\"a\":01}", -1, "column 6: leading zero in number"},
	{"{\"a\":+1}", -1, "column 6: invalid token"},
	{"{\"a\":.5}", -1, "column 6: invalid token"},
	{"{\"a\":[1-2]}", -1, "column 8: expected ',' or ']'"},
	{"{\"a\":[1,]}", -1, "column 9: invalid token"},
	{"{\"a\":\"\xff\"}", -1, "column 7: invalid UTF-8 in string"},
	{"{\"a\":\"\x01\"}", -1, "column 7: control character in string"},
	{"{\"a\":\"\\x\"}", -1, "column 8: invalid escape in string"},
	{"{\"a\":{}}", -1, "column 6: a nested value: not a flat record"},
	{"{\"a\":[[1]]}", -1, "column 7: a nested value: not a flat record"},
	{"{\"a\":nul}", -1, "column 6: invalid token"},
	{"{\"a\":1,}", -1, "column 8: expected a string key"},
	{"{\"a\" 1}", -1, "column 6: expected ':'"},
	{"{\"a\":1} x", -1, "column 9: unexpected text after the object"},
	{"{\"a\":1", -1, "column 7: unexpected end of input"},
	{"{\"a\":\"b", -1, "column 8: unexpected end of input"},
	{"[1]", -1, "column 1: not a JSON object"},
	{"", -1, "column 1: unexpected end of input"},
};

START_TEST(test_flat)
{
	jsonread_field f[8];
	char	   *cause = NULL;
	int			n = -1;
	bool		ok = jsonread_flat(flat_cases[_i].in, strlen(flat_cases[_i].in), f, 8, &n, &cause);

	ck_assert_msg(ok == (flat_cases[_i].n >= 0), "%s: %s", flat_cases[_i].in,
				  ok ? "accepted" : cause);
	if (ok)
		ck_assert_int_eq(n, flat_cases[_i].n);
	else
		ck_assert_str_eq(cause, flat_cases[_i].cause);
	free(cause);
	/* the same text, with the tree parser */
	ck_assert_msg(jsonflat_agree(flat_cases[_i].in, strlen(flat_cases[_i].in)) == NULL, "%s",
				  flat_cases[_i].in);
}
END_TEST

/* More members than room: refused, not overrun. */
START_TEST(test_flat_max)
{
	jsonread_field f[2];
	char	   *cause = NULL;
	int			n;

	ck_assert(!jsonread_flat("{\"a\":1,\"b\":2,\"c\":3}", 19, f, 2, &n, &cause));
	ck_assert_str_eq(cause, "column 14: too many members");
	free(cause);
}
END_TEST

/* Every case of the tree parser as a member value: where the flat scan accepts, they agree. */
START_TEST(test_flat_agrees)
{
	strbuf		sb;

	strbuf_init(&sb);
	for (size_t i = 0; i < sizeof(good_cases) / sizeof(good_cases[0]); i++)
	{
		strbuf_reset(&sb);
		strbuf_printf(&sb, "{\"k\":%s,\"\\u00e9\":%s}", good_cases[i].in, good_cases[i].in);
		ck_assert_msg(jsonflat_agree(sb.data, sb.len) == NULL, "%s", sb.data);
	}
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
	{
		jsonread_field f[4];
		int			n;

		strbuf_reset(&sb);
		strbuf_printf(&sb, "{\"k\":%s}", bad_cases[i].in);
		ck_assert_msg(!jsonread_flat(sb.data, sb.len, f, 4, &n, NULL), "%s", sb.data);
	}
	strbuf_free(&sb);
}
END_TEST

/* Escapes undone: the tree's decoding, so a lone surrogate is refused too. */
static const struct
{
	const char *in;
	const char *out;			/* NULL: refused */
} unescape_cases[] = {
	{"plain", "plain"},
	{"a\\\"b\\\\c\\/d", "a\"b\\c/d"},
	{"\\n\\r\\t\\b\\f", "\n\r\t\b\f"},
	{"\\u00e9\\u20ac", "\xc3\xa9\xe2\x82\xac"},
	{"\\ud83d\\ude00", "\xF0\x9F\x98\x80"},
	{"\\ud800", NULL},
	{"\\ud800x", NULL},
	{"\\udc00", NULL},
	{"\\x41", NULL},
	{"\\u12", NULL},
	{"end\\", NULL},
	{"a\"b", NULL},				/* a quote ends a string */
	{"\xff", NULL},
};

START_TEST(test_unescape)
{
	strbuf		sb;
	bool		ok;

	strbuf_init(&sb);
	ok = jsonread_unescape(&sb, unescape_cases[_i].in, strlen(unescape_cases[_i].in));
	ck_assert_msg(ok == (unescape_cases[_i].out != NULL), "%s", unescape_cases[_i].in);
	if (ok)
		ck_assert_str_eq(sb.data, unescape_cases[_i].out);
	strbuf_free(&sb);
}
END_TEST

/* A list's items, as an array's inside or a CSV "{1,2}" inside. */
static const struct
{
	const char *in;
	int			n;				/* items; -1: not a list */
} item_cases[] = {
	{"", 0},
	{"  ", 0},
	{"1", 1},
	{"1,2, 3 ", 3},
	{"\"a\",null,true", 3},
	{"1,", -1},
	{",1", -1},
	{"1 2", -1},
	{"1-2", -1},
	{"[1]", -1},
	{"\"\\ud800\"", -1},
};

START_TEST(test_items)
{
	const char *p = item_cases[_i].in;
	const char *end = p + strlen(p);
	jsonread_field item;
	int			n = 0,
				rc;

	while ((rc = jsonread_item(&p, end, &item)) > 0)
		n++;
	ck_assert_msg((rc < 0 ? -1 : n) == item_cases[_i].n, "\"%s\": %d items, rc %d",
				  item_cases[_i].in, n, rc);
}
END_TEST

/* A special byte at every offset of a long string: found where it is (strings go 8 bytes at a time). */
START_TEST(test_string_offsets)
{
	static const struct
	{
		const char *ins;		/* written */
		const char *dec;		/* decoded; NULL: refused at it */
	}			kinds[] = {
		{"\\n", "\n"}, {"\\\"", "\""}, {"\xc3\xa9", "\xc3\xa9"}, {"\x01", NULL}, {"\xff", NULL},
		{"~", "~"}, {"\x7f", "\x7f"}, {" ", " "},
	};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (int at = 0; at < 20; at++)
		{
			char		text[64],
						want[64];
			char	   *cause = NULL;
			jsonread_doc *doc;

			snprintf(text, sizeof(text), "\"%.*s%s%.*s\"", at, "abcdefghijklmnopqrstuvwxyz",
					 kinds[k].ins, 19 - at, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
			doc = jsonread_parse(text, strlen(text), &cause);
			if (kinds[k].dec == NULL)
			{
				snprintf(want, sizeof(want), "line 1, column %d: ", at + 2);
				ck_assert_msg(doc == NULL && strncmp(cause, want, strlen(want)) == 0, "%s: %s",
							  text, cause ? cause : "accepted");
				free(cause);
				continue;
			}
			snprintf(want, sizeof(want), "%.*s%s%.*s", at, "abcdefghijklmnopqrstuvwxyz",
					 kinds[k].dec, 19 - at, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
			ck_assert_msg(doc != NULL, "%s: %s", text, cause);
			ck_assert_str_eq(jsonread_root(doc)->u.str, want);
			jsonread_free(doc);
			snprintf(want, sizeof(want), "{\"k\":%s}", text);
			ck_assert_msg(jsonflat_agree(want, strlen(want)) == NULL, "%s", want);
		}
}
END_TEST

/* The number of all of a text, by the tree's grammar. */
START_TEST(test_number_span)
{
	jsonread_value v;

	ck_assert(jsonread_number("-12", 3, &v) && v.is_int && v.i == -12);
	ck_assert(jsonread_number("2.5e1", 5, &v) && !v.is_int && v.num == 25);
	ck_assert(jsonread_number("12", 1, &v) && v.i == 1);	/* the len bytes only */
	ck_assert(!jsonread_number("1-2e", 4, &v));
	ck_assert(!jsonread_number("1e", 2, &v));
	ck_assert(!jsonread_number("", 0, &v));
	ck_assert(!jsonread_number("1 ", 2, &v));
	ck_assert(!jsonread_number("1e999", 5, &v));
}
END_TEST

/* jsonread_number (with its quick path for plain numbers) agrees with the tree parser. */
static void
assert_number_as_tree(const char *text)
{
	jsonread_value v;
	char	   *cause = NULL;
	jsonread_doc *doc = jsonread_parse(text, strlen(text), &cause);
	bool		ok = jsonread_number(text, strlen(text), &v);

	ck_assert_msg(ok == (doc != NULL && jsonread_root(doc)->type == JSONREAD_NUMBER), "%s", text);
	if (doc != NULL && ok)
	{
		const jsonread_value *t = jsonread_root(doc);

		ck_assert_msg(v.num == t->num && v.is_int == t->is_int && (!v.is_int || v.i == t->i),
					  "%s: %.17g against %.17g", text, v.num, t->num);
	}
	jsonread_free(doc);
	free(cause);
}

START_TEST(test_number_quick_path)
{
	static const char *const edges[] = {
		"0", "0.5", "00", "01", ".5", "5.", "1.2.3", "-0", "0.0", "1.", "+1",
		"123456789012345", "1234567890123456", "12345678901234.5", "1234567890123.45",
		"0.000000000000001", "0.0000000000000001", "9007199254740993", "9007199254740993.5",
		"0.1", "0.3", "4.35", "1000", "0.300", "999999999999999", "99999999999999.99",
	};
	unsigned	seed = 777;

	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		assert_number_as_tree(edges[i]);
	/* digits with a point somewhere (or none), 1 to 18 of them */
	for (int i = 0; i < 20000; i++)
	{
		char		buf[32];
		int			n,
					dot;

		seed = seed * 1103515245u + 12345u;
		n = 1 + (int) ((seed >> 8) % 18);
		dot = (int) ((seed >> 16) % (unsigned) (n + 1));
		for (int k = 0, j = 0; k < n; k++)
		{
			seed = seed * 1103515245u + 12345u;
			if (k == dot && k > 0)
				buf[j++] = '.';
			buf[j++] = (char) ('0' + (seed >> 12) % 10);
			buf[j] = '\0';
		}
		assert_number_as_tree(buf);
	}
}
END_TEST

static Suite *
jsonread_suite(void)
{
	Suite	   *s = suite_create("jsonread");
	TCase	   *tc = tcase_create("documents");

	tcase_add_loop_test(tc, test_good, 0, sizeof(good_cases) / sizeof(good_cases[0]));
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad_cases) / sizeof(bad_cases[0]));
	tcase_add_test(tc, test_depth);
	tcase_add_test(tc, test_get);
	tcase_add_test(tc, test_equal);
	tcase_add_test(tc, test_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("numbers");
	tcase_add_test(tc, test_number_round_trip);
	tcase_add_loop_test(tc, test_numbers, 0, sizeof(number_cases) / sizeof(number_cases[0]));
	tcase_add_test(tc, test_number_quick_path);
	tcase_add_loop_test(tc, test_flat, 0, sizeof(flat_cases) / sizeof(flat_cases[0]));
	tcase_add_test(tc, test_flat_max);
	tcase_add_test(tc, test_flat_agrees);
	tcase_add_loop_test(tc, test_unescape, 0, sizeof(unescape_cases) / sizeof(unescape_cases[0]));
	tcase_add_loop_test(tc, test_items, 0, sizeof(item_cases) / sizeof(item_cases[0]));
	tcase_add_test(tc, test_number_span);
	tcase_add_test(tc, test_string_offsets);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(jsonread_suite());
}
