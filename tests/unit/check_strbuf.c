/*
 * check_strbuf.c — unit tests of the growable string buffer.
 */
#include "config.h"

#include "pgtempo/strbuf.h"
#include "pgtempo/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

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

/*
 * detach hands over the string and leaves an empty buffer that owns
 * nothing (a caller who drops it leaks nothing) and can be appended to.
 */
START_TEST(test_detach)
{
	strbuf		sb;
	char	   *s;
	char	   *t;

	strbuf_init(&sb);
	strbuf_printf(&sb, "%s=%d", "answer", 42);
	s = strbuf_detach(&sb);
	ck_assert_str_eq(s, "answer=42");
	ck_assert_ptr_null(sb.data);
	ck_assert_uint_eq(sb.len, 0);
	ck_assert_uint_eq(sb.cap, 0);

	strbuf_puts(&sb, "next");
	assert_sane(&sb);
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

/* Sequences as RFC 3629 draws the line, with what utf8_append_escaped makes of them. */
static const struct
{
	const char *in;
	bool		valid;
	const char *escaped;
}			utf8_cases[] = {
	{"plain ascii", true, "plain ascii"},
	{"caf\xc3\xa9", true, "caf\xc3\xa9"},
	{"\xe2\x82\xac \xf0\x9f\x98\x80", true, "\xe2\x82\xac \xf0\x9f\x98\x80"},
	{"\xef\xbf\xbf", true, "\xef\xbf\xbf"},
	{"\xf4\x8f\xbf\xbf", true, "\xf4\x8f\xbf\xbf"},
	{"a\x9f" "b", false, "a\\x9fb"},		/* lone continuation byte */
	{"\xc0\xaf", false, "\\xc0\\xaf"},	/* overlong '/' */
	{"\xe0\x80\xaf", false, "\\xe0\\x80\\xaf"},	/* overlong, three bytes */
	{"\xed\xa0\x80", false, "\\xed\\xa0\\x80"},	/* surrogate U+D800 */
	{"\xf4\x90\x80\x80", false, "\\xf4\\x90\\x80\\x80"},	/* above U+10FFFF */
	{"\xf5\x80", false, "\\xf5\\x80"},
	{"\xc3", false, "\\xc3"},		/* truncated at the end */
	{"\xc3(", false, "\\xc3("},		/* truncated by ASCII */
	{"\xe2\x82", false, "\\xe2\\x82"},
	{"\xff\xc3\xa9", false, "\\xff\xc3\xa9"},	/* valid after invalid kept */
};

START_TEST(test_utf8_cases)
{
	strbuf		sb;
	const char *in = utf8_cases[_i].in;

	ck_assert_msg(utf8_valid(in, strlen(in)) == utf8_cases[_i].valid, "case %d", _i);
	strbuf_init(&sb);
	utf8_append_escaped(&sb, in, strlen(in));
	ck_assert_str_eq(sb.data, utf8_cases[_i].escaped);
	ck_assert(utf8_valid(sb.data, sb.len));
	strbuf_free(&sb);
}
END_TEST

/* Every two-byte input escapes to valid UTF-8, and valid input is kept as it is. */
START_TEST(test_utf8_all_pairs)
{
	strbuf		sb;
	char		in[3];
	int			a,
				b;
	bool		ok;

	strbuf_init(&sb);
	for (a = 1; a < 256; a++)
		for (b = 1; b < 256; b++)
		{
			in[0] = (char) a;
			in[1] = (char) b;
			in[2] = '\0';
			strbuf_reset(&sb);
			utf8_append_escaped(&sb, in, 2);
			ck_assert(utf8_valid(sb.data, sb.len));
			if (utf8_valid(in, 2))
				ck_assert_str_eq(sb.data, in);
			/* and for a terminal: nothing it acts on (C0, DEL, C1) survives */
			strbuf_reset(&sb);
			utf8_append_printable(&sb, in, 2);
			ok = utf8_valid(sb.data, sb.len);
			for (size_t k = 0; k < sb.len; k++)
			{
				unsigned char c = (unsigned char) sb.data[k];

				if (c < 0x20 || c == 0x7f || (c == 0xc2 && (unsigned char) sb.data[k + 1] < 0xa0))
					ok = false;
			}
			if (!ok)
				ck_abort_msg("printable %02x %02x: %s", a, b, sb.data);
		}
	strbuf_free(&sb);
}
END_TEST

/* Text for a terminal: controls escaped, invalid bytes escaped, the rest kept; its width. */
static const struct
{
	const char *in;
	const char *printable;
	int			width;			/* of the printable text */
}			printable_cases[] = {
	{"psql", "psql", 4},
	{"a\nb", "a\\nb", 4},
	{"\r\t", "\\r\\t", 4},
	{"\x1b[2Jx", "\\x1b[2Jx", 8},	/* clear the screen */
	{"\x01\x7f", "\\x01\\x7f", 8},
	{"\xc2\x9b" "31m", "\\xc2\\x9b31m", 11},	/* C1 CSI, valid UTF-8 but a control */
	{"\xc2\xa0", "\xc2\xa0", 1},	/* no-break space is printable */
	{"caf\xc3\xa9", "caf\xc3\xa9", 4},
	{"e\xcc\x81", "e\xcc\x81", 1},	/* a combining accent takes no column */
	{"\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac", 4},	/* wide CJK */
	{"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", 2},	/* an emoji */
	{"bad\xff\n", "bad\\xff\\n", 9},
	{"a\\b", "a\\b", 3},			/* a backslash stays one */
};

START_TEST(test_utf8_printable)
{
	strbuf		sb;
	const char *in = printable_cases[_i].in;

	strbuf_init(&sb);
	utf8_append_printable(&sb, in, strlen(in));
	ck_assert_str_eq(sb.data, printable_cases[_i].printable);
	ck_assert_int_eq(utf8_width(sb.data, sb.len), printable_cases[_i].width);
	ck_assert_str_eq(utf8_printable(&sb, in), printable_cases[_i].printable);
	ck_assert_str_eq(utf8_printable(&sb, NULL), "");
	strbuf_free(&sb);
}
END_TEST

START_TEST(test_check_writable)
{
	char		dir[] = "/tmp/check_strbuf.XXXXXX";
	char		path[256];
	char	   *cause = NULL;
	FILE	   *f;
	struct stat st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert(strbuf_check_writable("-", &cause));

	/* a new file: proven, then removed again */
	snprintf(path, sizeof(path), "%s/new", dir);
	ck_assert(strbuf_check_writable(path, &cause));
	ck_assert_int_ne(stat(path, &st), 0);

	/* an existing file: proven and left as it was */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("keep", f);
	fclose(f);
	ck_assert(strbuf_check_writable(path, &cause));
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 4);
	unlink(path);

	/* a missing directory and a directory itself are errors */
	snprintf(path, sizeof(path), "%s/no/such/file", dir);
	ck_assert(!strbuf_check_writable(path, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "No such file or directory"));
	ck_assert_ptr_nonnull(strstr(cause, path));
	free(cause);
	cause = NULL;
	ck_assert(!strbuf_check_writable(dir, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "could not open file"));
	free(cause);
	rmdir(dir);
}
END_TEST

/*
 * A write that fails half-way (a file size limit: EFBIG, as a full disk
 * gives ENOSPC) leaves the file that was there as it was, or no file,
 * and no temporary file; the error names the path and the reason.
 */
START_TEST(test_write_file_fails)
{
	char		dir[] = "/tmp/check_strbuf.XXXXXX";
	char		path[64],
				link[80],
				fresh[80],
				want[160];
	char	   *cause = NULL;
	char	   *text;
	char		big[8192];
	struct rlimit lim = {4096, 4096},
				old;
	struct stat st;
	bool		ok[3];
	char	   *why[3] = {NULL, NULL, NULL};

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/report.json", dir);
	snprintf(link, sizeof(link), "%s/link.json", dir);
	snprintf(fresh, sizeof(fresh), "%s/fresh.json", dir);
	memset(big, 'x', sizeof(big));
	ck_assert(strbuf_write_file(path, "old and complete\n", 17, &cause));
	ck_assert_int_eq(chmod(path, 0640), 0);
	ck_assert_int_eq(symlink("report.json", link), 0);

	/*
	 * Under a file size limit of 4 kB (the soft one: it can be lifted again),
	 * the three writes fail; the limit goes before the checks, as Check
	 * writes its own messages to a file.
	 */
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ok[0] = strbuf_write_file(path, big, sizeof(big), &why[0]);
	ok[1] = strbuf_write_file(link, big, sizeof(big), &why[1]);
	ok[2] = strbuf_write_file(fresh, big, sizeof(big), &why[2]);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);

	ck_assert(!ok[0] && !ok[1] && !ok[2]);
	snprintf(want, sizeof(want), "could not write to file \"%s\": %s", path, strerror(EFBIG));
	ck_assert_str_eq(why[0], want);
	text = unit_slurp(path);
	/* not ck_assert_str_eq: a long text would be too long for Check's message */
	ck_assert_msg(strcmp(text, "old and complete\n") == 0,
				  "the file that was there was changed: now %zu bytes", strlen(text));
	free(text);
	/* through a symbolic link: the file it points to is kept, the link stays */
	ck_assert(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	/* a new file is not left half-written, and no temporary file is left */
	ck_assert_int_eq(access(fresh, F_OK), -1);
	ck_assert_int_eq(unit_count_entries(dir), 2);
	for (int i = 0; i < 3; i++)
		free(why[i]);

	/* within the limit: replaced whole, its mode kept, the link still a link */
	ck_assert(strbuf_write_file(link, "new\n", 4, &cause));
	text = unit_slurp(path);
	ck_assert_str_eq(text, "new\n");
	free(text);
	ck_assert(stat(path, &st) == 0 && (st.st_mode & 07777) == 0640);
	ck_assert(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	ck_assert_int_eq(unit_count_entries(dir), 2);

	/* a device is written straight into */
	ck_assert(strbuf_write_file("/dev/null", big, 100, &cause));
	unlink(link);
	unlink(path);
	rmdir(dir);
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

	tc = tcase_create("utf8");
	tcase_add_loop_test(tc, test_utf8_cases, 0,
						sizeof(utf8_cases) / sizeof(utf8_cases[0]));
	tcase_add_test(tc, test_utf8_all_pairs);
	tcase_add_loop_test(tc, test_utf8_printable, 0,
						sizeof(printable_cases) / sizeof(printable_cases[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_test(tc, test_check_writable);
	tcase_add_test(tc, test_write_file_fails);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	return unit_run(strbuf_suite());
}
