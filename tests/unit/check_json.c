/*
 * check_json.c — unit tests of the streaming JSON writer.
 */
#include "config.h"

#include "pgtempo/json.h"

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pgtempo/msg.h"
#include "unit.h"

/* Write a document with fn and compare it to want, in both forms. */
typedef void (*writer_fn) (json_writer *w);

static void
assert_json(writer_fn fn, bool pretty, const char *want)
{
	strbuf		sb;
	json_writer w;

	strbuf_init(&sb);
	json_init(&w, &sb, pretty);
	fn(&w);
	ck_assert_int_eq(w.depth, 0);
	ck_assert_str_eq(sb.data, want);
	strbuf_free(&sb);
}

static void
write_small(json_writer *w)
{
	json_object_begin(w);
	json_kv_int(w, "a", 1);
	json_key(w, "b");
	json_array_begin(w);
	json_int(w, 1);
	json_int(w, 2);
	json_array_end(w);
	json_object_end(w);
}

static void
write_nested(json_writer *w)
{
	json_object_begin(w);
	json_kv_string(w, "tool", "pgtempo-bench");
	json_key(w, "empty_object");
	json_object_begin(w);
	json_object_end(w);
	json_key(w, "empty_array");
	json_array_begin(w);
	json_array_end(w);
	json_key(w, "runs");
	json_array_begin(w);
	json_object_begin(w);
	json_kv_uint(w, "id", 1);
	json_kv_double(w, "tps", 1234.5);
	json_kv_bool(w, "ok", true);
	json_object_end(w);
	json_object_begin(w);
	json_kv_uint(w, "id", 2);
	json_kv_double(w, "tps", NAN);
	json_kv_bool(w, "ok", false);
	json_key(w, "err");
	json_null(w);
	json_object_end(w);
	json_array_begin(w);
	json_array_begin(w);
	json_array_end(w);
	json_string(w, NULL);
	json_array_end(w);
	json_array_end(w);
	json_kv_string(w, "last", NULL);
	json_object_end(w);
}

static void
write_or_null(json_writer *w)
{
	json_object_begin(w);
	json_kv_int_or_null(w, "n", true, -3);
	json_kv_int_or_null(w, "none", false, 7);
	json_kv_double_or_null(w, "x", true, 0.25);
	json_kv_double_or_null(w, "unknown", false, 0.25);
	json_kv_double_or_null(w, "inf", true, INFINITY);
	json_object_end(w);
}

static void
write_scalar(json_writer *w)
{
	json_string(w, "alone");
}

static void
write_empty_object(json_writer *w)
{
	json_object_begin(w);
	json_object_end(w);
}

static const struct
{
	const char *name;
	writer_fn	fn;
	const char *compact;
	const char *pretty;
}			doc_cases[] = {
	{"small", write_small,
		"{\"a\":1,\"b\":[1,2]}",
		"{\n"
		"  \"a\": 1,\n"
		"  \"b\": [\n"
		"    1,\n"
		"    2\n"
		"  ]\n"
	"}"},
	{"nested", write_nested,
		"{\"tool\":\"pgtempo-bench\",\"empty_object\":{},\"empty_array\":[],"
		"\"runs\":[{\"id\":1,\"tps\":1234.5,\"ok\":true},"
		"{\"id\":2,\"tps\":null,\"ok\":false,\"err\":null},[[],null]],"
		"\"last\":null}",
		"{\n"
		"  \"tool\": \"pgtempo-bench\",\n"
		"  \"empty_object\": {},\n"
		"  \"empty_array\": [],\n"
		"  \"runs\": [\n"
		"    {\n"
		"      \"id\": 1,\n"
		"      \"tps\": 1234.5,\n"
		"      \"ok\": true\n"
		"    },\n"
		"    {\n"
		"      \"id\": 2,\n"
		"      \"tps\": null,\n"
		"      \"ok\": false,\n"
		"      \"err\": null\n"
		"    },\n"
		"    [\n"
		"      [],\n"
		"      null\n"
		"    ]\n"
		"  ],\n"
		"  \"last\": null\n"
	"}"},
	{"or null", write_or_null,
		"{\"n\":-3,\"none\":null,\"x\":0.25,\"unknown\":null,\"inf\":null}",
		"{\n"
		"  \"n\": -3,\n"
		"  \"none\": null,\n"
		"  \"x\": 0.25,\n"
		"  \"unknown\": null,\n"
		"  \"inf\": null\n"
	"}"},
	{"scalar", write_scalar, "\"alone\"", "\"alone\""},
	{"empty object", write_empty_object, "{}", "{}"},
};

START_TEST(test_documents)
{
	assert_json(doc_cases[_i].fn, false, doc_cases[_i].compact);
	assert_json(doc_cases[_i].fn, true, doc_cases[_i].pretty);
}
END_TEST

/* The writer appends after whatever the buffer already holds. */
START_TEST(test_appends_to_buffer)
{
	strbuf		sb;
	json_writer w;

	strbuf_init(&sb);
	strbuf_puts(&sb, "data: ");
	json_init(&w, &sb, false);
	write_small(&w);
	strbuf_putc(&sb, '\n');
	json_init(&w, &sb, false);
	json_array_begin(&w);
	json_bool(&w, true);
	json_array_end(&w);
	ck_assert_str_eq(sb.data, "data: {\"a\":1,\"b\":[1,2]}\n[true]");
	strbuf_free(&sb);
}
END_TEST

/* A table of fields writes each as its json_kv_* would, in the table's order. */
START_TEST(test_fields)
{
	static const struct
	{
		int64_t		n;
		bool		flag;
		double		x;
	}			v = {-7, true, 0.25};
	static const json_field f[] = {
		{"x", JSON_FIELD_DOUBLE, offsetof(__typeof__(v), x)},
		{"n", JSON_FIELD_INT64, offsetof(__typeof__(v), n)},
		{"flag", JSON_FIELD_BOOL, offsetof(__typeof__(v), flag)},
		{"n2", JSON_FIELD_INT64, offsetof(__typeof__(v), n)},
	};
	strbuf		a,
				b;
	json_writer w;

	strbuf_init(&a);
	strbuf_init(&b);
	json_init(&w, &a, false);
	json_object_begin(&w);
	json_kv_fields(&w, &v, f, sizeof(f) / sizeof(f[0]));
	json_object_end(&w);
	json_init(&w, &b, false);
	json_object_begin(&w);
	json_kv_double(&w, "x", v.x);
	json_kv_int(&w, "n", v.n);
	json_kv_bool(&w, "flag", v.flag);
	json_kv_int(&w, "n2", v.n);
	json_object_end(&w);
	ck_assert_str_eq(a.data, "{\"x\":0.25,\"n\":-7,\"flag\":true,\"n2\":-7}");
	ck_assert_str_eq(a.data, b.data);
	strbuf_free(&a);
	strbuf_free(&b);
}
END_TEST

static const struct
{
	const char *in;
	const char *want;
}			escape_cases[] = {
	{"plain", "\"plain\""},
	{"", "\"\""},
	{"say \"hi\"", "\"say \\\"hi\\\"\""},
	{"C:\\dir\\", "\"C:\\\\dir\\\\\""},
	{"a\nb\tc\rd\be\ff", "\"a\\nb\\tc\\rd\\be\\ff\""},
	{"\x01\x1f", "\"\\u0001\\u001f\""},
	{"x\x1b[0m", "\"x\\u001b[0m\""},
	{"/path/", "\"/path/\""},
	{"\x7f", "\"\x7f\""},
	{"h\xc3\xa9llo \xe2\x82\xac", "\"h\xc3\xa9llo \xe2\x82\xac\""},
	{"bad \xff\xfe utf8", "\"bad \\\\xff\\\\xfe utf8\""},
	{"cut \xc3", "\"cut \\\\xc3\""},
	{"\xed\xa0\x80\xc3\xa9", "\"\\\\xed\\\\xa0\\\\x80\xc3\xa9\""},
	{"\"", "\"\\\"\""},
	{"end\n", "\"end\\n\""},
};

/* A string is escaped the same way as a value and as a key. */
START_TEST(test_escape)
{
	strbuf		sb;
	json_writer w;
	char	   *want;
	size_t		wlen = strlen(escape_cases[_i].want);

	strbuf_init(&sb);
	json_init(&w, &sb, false);
	json_string(&w, escape_cases[_i].in);
	ck_assert_str_eq(sb.data, escape_cases[_i].want);

	strbuf_reset(&sb);
	json_init(&w, &sb, false);
	json_object_begin(&w);
	json_kv_int(&w, escape_cases[_i].in, 0);
	json_object_end(&w);
	want = malloc(wlen + 5);
	sprintf(want, "{%s:0}", escape_cases[_i].want);
	ck_assert_str_eq(sb.data, want);

	free(want);
	strbuf_free(&sb);
}
END_TEST

static const struct
{
	double		in;
	const char *want;
}			double_cases[] = {
	{0.1, "0.1"},
	{0.5, "0.5"},
	{3.0, "3"},
	{-2.0, "-2"},
	{0.0, "0"},
	{-0.0, "-0"},
	{1e300, "1e+300"},
	{1e-300, "1e-300"},
	{1234.5, "1234.5"},
	{123456.789, "123456.789"},
	{1e21, "1e+21"},
	{0.1 + 0.2, "0.30000000000000004"},
	{1.0 / 3.0, "0.33333333333333331"},
	{DBL_MAX, "1.7976931348623157e+308"},
	{5e-324, "4.94065645841247e-324"},
	{9007199254740993.0, "9007199254740992"},
	{NAN, "null"},
	{INFINITY, "null"},
	{-INFINITY, "null"},
};

START_TEST(test_double)
{
	strbuf		sb;
	json_writer w;

	strbuf_init(&sb);
	json_init(&w, &sb, false);
	json_double(&w, double_cases[_i].in);
	ck_assert_str_eq(sb.data, double_cases[_i].want);
	/* what is written must read back as the same value */
	if (isfinite(double_cases[_i].in))
		ck_assert(strtod(sb.data, NULL) == double_cases[_i].in);
	strbuf_free(&sb);
}
END_TEST

START_TEST(test_integers)
{
	strbuf		sb;
	json_writer w;

	strbuf_init(&sb);
	json_init(&w, &sb, false);
	json_array_begin(&w);
	json_int(&w, 0);
	json_int(&w, -1);
	json_int(&w, INT64_MIN);
	json_int(&w, INT64_MAX);
	json_uint(&w, UINT64_MAX);
	json_uint(&w, 0);
	json_bool(&w, false);
	json_null(&w);
	json_array_end(&w);
	ck_assert_str_eq(sb.data,
					 "[0,-1,-9223372036854775808,9223372036854775807,"
					 "18446744073709551615,0,false,null]");
	strbuf_free(&sb);
}
END_TEST

/* JSON_MAX_DEPTH containers may be open at once. */
START_TEST(test_max_depth)
{
	strbuf		sb;
	json_writer w;
	char		want[2 * JSON_MAX_DEPTH + 1];

	strbuf_init(&sb);
	json_init(&w, &sb, false);
	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		json_array_begin(&w);
	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		json_array_end(&w);
	memset(want, '[', JSON_MAX_DEPTH);
	memset(want + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
	want[2 * JSON_MAX_DEPTH] = '\0';
	ck_assert_str_eq(sb.data, want);
	strbuf_free(&sb);
}
END_TEST

static void
nest_too_deep(void)
{
	strbuf		sb;
	json_writer w;

	msg_set_progname("/usr/bin/pgtempo-bench");
	strbuf_init(&sb);
	json_init(&w, &sb, true);
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		json_object_begin(&w);
}

static void
close_too_many(void)
{
	strbuf		sb;
	json_writer w;

	msg_set_progname("/usr/bin/pgtempo-bench");
	strbuf_init(&sb);
	json_init(&w, &sb, false);
	json_array_begin(&w);
	json_array_end(&w);
	json_object_end(&w);
}

static const struct
{
	void		(*fn) (void);
	const char *want;
}			abort_cases[] = {
	{nest_too_deep, "pgtempo-bench: error: json: nesting deeper than 32 levels\n"},
	{close_too_many, "pgtempo-bench: error: json: '}' without a container to close\n"},
};

/* Misuse is a bug in the caller: the writer says so and aborts. */
START_TEST(test_misuse_aborts)
{
	char		err[256];
	int			status;

	status = unit_run_in_child(abort_cases[_i].fn, err, sizeof(err));
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
				  "child did not abort (status %d)", status);
	ck_assert_str_eq(err, abort_cases[_i].want);
}
END_TEST

static Suite *
json_suite(void)
{
	Suite	   *s = suite_create("json");
	TCase	   *tc;

	tc = tcase_create("structure");
	tcase_add_loop_test(tc, test_documents, 0, sizeof(doc_cases) / sizeof(doc_cases[0]));
	tcase_add_test(tc, test_appends_to_buffer);
	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_max_depth);
	tcase_add_loop_test(tc, test_misuse_aborts, 0, sizeof(abort_cases) / sizeof(abort_cases[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("strings");
	tcase_add_loop_test(tc, test_escape, 0, sizeof(escape_cases) / sizeof(escape_cases[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("numbers");
	tcase_add_loop_test(tc, test_double, 0, sizeof(double_cases) / sizeof(double_cases[0]));
	tcase_add_test(tc, test_integers);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	return unit_run(json_suite());
}
