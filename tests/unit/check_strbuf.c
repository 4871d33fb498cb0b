/*
 * check_strbuf.c — unit tests of the growable string buffer.
 */
#include "config.h"

#include "pgtempo/strbuf.h"

#include <stdlib.h>
#include <string.h>

#include "unit.h"

/* The invariants every operation must keep. */
static void
assert_sane(const strbuf *sb)
{
	ck_assert_ptr_nonnull(sb->data);
	ck_assert_uint_lt(sb->len, sb->cap);
	ck_assert_uint_eq(strlen(sb->data), sb->len);
}

START_TEST(test_init_empty)
{
	strbuf		sb;

	strbuf_init(&sb);
	assert_sane(&sb);
	ck_assert_str_eq(sb.data, "");
	ck_assert_uint_eq(sb.len, 0);
	strbuf_free(&sb);
	ck_assert_ptr_null(sb.data);
	ck_assert_uint_eq(sb.len, 0);
	ck_assert_uint_eq(sb.cap, 0);
}
END_TEST

START_TEST(test_append_mixed)
{
	strbuf		sb;

	strbuf_init(&sb);
	strbuf_puts(&sb, "abc");
	strbuf_putc(&sb, '-');
	strbuf_append(&sb, "defghi", 3);
	strbuf_append(&sb, "zzz", 0);
	strbuf_puts(&sb, "");
	strbuf_printf(&sb, "[%d|%s|%5.2f]", 42, "x", 3.14159);
	assert_sane(&sb);
	ck_assert_str_eq(sb.data, "abc-def[42|x| 3.14]");
	ck_assert_uint_eq(sb.len, 19);
	strbuf_free(&sb);
}
END_TEST

/* strbuf_append copies exactly n bytes, NUL bytes included. */
START_TEST(test_append_embedded_nul)
{
	strbuf		sb;

	strbuf_init(&sb);
	strbuf_append(&sb, "a\0b", 3);
	ck_assert_uint_eq(sb.len, 3);
	ck_assert_mem_eq(sb.data, "a\0b\0", 4);
	strbuf_free(&sb);
}
END_TEST

/* Many small appends grow the buffer many times over without losing a byte. */
START_TEST(test_growth_many_appends)
{
	strbuf		sb;
	size_t		n = 100000;

	strbuf_init(&sb);
	for (size_t i = 0; i < n; i++)
	{
		if (i % 3 == 0)
			strbuf_putc(&sb, (char) ('a' + i % 26));
		else if (i % 3 == 1)
			strbuf_append(&sb, &"abcdefghijklmnopqrstuvwxyz"[i % 26], 1);
		else
			strbuf_printf(&sb, "%c", (int) ('a' + i % 26));
	}
	assert_sane(&sb);
	ck_assert_uint_eq(sb.len, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(sb.data[i] == 'a' + (int) (i % 26), "byte %zu is '%c'", i, sb.data[i]);
	strbuf_free(&sb);
}
END_TEST

/* Lengths around the initial capacity and far beyond it. */
static const size_t printf_lengths[] = {0, 1, 31, 32, 62, 63, 64, 65, 127, 128, 129, 255, 256,
4095, 4096, 100000};

START_TEST(test_printf_long)
{
	size_t		n = printf_lengths[_i];
	char	   *arg = malloc(n + 1);
	char	   *want = malloc(n + 32);
	strbuf		sb;

	memset(arg, 'x', n);
	arg[n] = '\0';
	want[0] = '#';
	want[1] = '<';
	memset(want + 2, 'x', n);
	strcpy(want + 2 + n, ">7|");

	strbuf_init(&sb);
	strbuf_putc(&sb, '#');
	strbuf_printf(&sb, "<%s>%d", arg, 7);
	strbuf_putc(&sb, '|');
	assert_sane(&sb);
	ck_assert_uint_eq(sb.len, n + 5);
	ck_assert_str_eq(sb.data, want);

	strbuf_free(&sb);
	free(arg);
	free(want);
}
END_TEST

/* After reserve(n), n more bytes go in without moving the data. */
START_TEST(test_reserve)
{
	strbuf		sb;
	char	   *before;

	strbuf_init(&sb);
	strbuf_puts(&sb, "head");
	strbuf_reserve(&sb, 10000);
	ck_assert_uint_ge(sb.cap, sb.len + 10000 + 1);
	ck_assert_str_eq(sb.data, "head");
	before = sb.data;
	for (int i = 0; i < 10000; i++)
		strbuf_putc(&sb, 'y');
	ck_assert_ptr_eq(sb.data, before);
	ck_assert_uint_eq(sb.len, 10004);
	assert_sane(&sb);
	strbuf_free(&sb);
}
END_TEST

START_TEST(test_reset_keeps_memory)
{
	strbuf		sb;
	char	   *before;
	size_t		cap;

	strbuf_init(&sb);
	for (int i = 0; i < 1000; i++)
		strbuf_puts(&sb, "0123456789");
	before = sb.data;
	cap = sb.cap;
	strbuf_reset(&sb);
	ck_assert_ptr_eq(sb.data, before);
	ck_assert_uint_eq(sb.cap, cap);
	ck_assert_uint_eq(sb.len, 0);
	ck_assert_str_eq(sb.data, "");
	strbuf_puts(&sb, "again");
	ck_assert_str_eq(sb.data, "again");
	strbuf_free(&sb);
}
END_TEST

/* detach hands over the string and leaves a usable empty buffer. */
START_TEST(test_detach)
{
	strbuf		sb;
	char	   *s;
	char	   *t;

	strbuf_init(&sb);
	strbuf_printf(&sb, "%s=%d", "answer", 42);
	s = strbuf_detach(&sb);
	ck_assert_str_eq(s, "answer=42");
	assert_sane(&sb);
	ck_assert_uint_eq(sb.len, 0);
	ck_assert_str_eq(sb.data, "");
	ck_assert_ptr_ne(sb.data, s);

	strbuf_puts(&sb, "next");
	ck_assert_str_eq(s, "answer=42");
	t = strbuf_detach(&sb);
	ck_assert_str_eq(t, "next");

	/* detaching an empty buffer gives an empty string, not NULL */
	free(s);
	s = strbuf_detach(&sb);
	ck_assert_str_eq(s, "");

	free(s);
	free(t);
	strbuf_free(&sb);
}
END_TEST

/* A zeroed strbuf works like an initialized one. */
START_TEST(test_zeroed)
{
	strbuf		sb = {0};
	strbuf		sb2 = {0};
	char	   *s;

	strbuf_printf(&sb, "%d-%s", 5, "five");
	assert_sane(&sb);
	ck_assert_str_eq(sb.data, "5-five");
	strbuf_free(&sb);
	strbuf_putc(&sb, 'c');
	ck_assert_str_eq(sb.data, "c");
	strbuf_free(&sb);

	s = strbuf_detach(&sb2);
	ck_assert_str_eq(s, "");
	free(s);
	strbuf_free(&sb2);
}
END_TEST

static Suite *
strbuf_suite(void)
{
	Suite	   *s = suite_create("strbuf");
	TCase	   *tc;

	tc = tcase_create("basic");
	tcase_add_test(tc, test_init_empty);
	tcase_add_test(tc, test_append_mixed);
	tcase_add_test(tc, test_append_embedded_nul);
	tcase_add_test(tc, test_zeroed);
	suite_add_tcase(s, tc);

	tc = tcase_create("growth");
	tcase_add_test(tc, test_growth_many_appends);
	tcase_add_loop_test(tc, test_printf_long, 0,
						sizeof(printf_lengths) / sizeof(printf_lengths[0]));
	tcase_add_test(tc, test_reserve);
	suite_add_tcase(s, tc);

	tc = tcase_create("ownership");
	tcase_add_test(tc, test_reset_keeps_memory);
	tcase_add_test(tc, test_detach);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	return unit_run(strbuf_suite());
}
