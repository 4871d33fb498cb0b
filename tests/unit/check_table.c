/*
 * check_table.c — unit tests of the plain-text table printer.
 */
#include "config.h"

#include "pgtempo/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static const table_col cols[] = {
	{"name", 6, "", true}, {"count", 7, "  ", false}, {"%", 6, " | ", false},
};

/* What fn wrote, as a string (caller frees). */
static char *
capture(void (*fn) (FILE *out))
{
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(out);
	fn(out);
	fclose(out);
	return buf;
}

static void
write_table(FILE *out)
{
	table_header(out, cols, 3);
	table_rule(out, cols, 3);
	table_row(out, cols, 3, (const char *const[]) {"CPU", "42", "3.5"});
	/* wider than its column: written whole, the rest of the row shifts */
	table_row(out, cols, 3, (const char *const[]) {"IO:DataFileRead", "1234567890", ""});
}

START_TEST(test_table)
{
	char	   *got = capture(write_table);

	ck_assert_str_eq(got,
					 "name      count |      %\n"
					 "------  ------- | ------\n"
					 "CPU          42 |    3.5\n"
					 "IO:DataFileRead  1234567890 |       \n");
	free(got);
}
END_TEST

/* Columns sized by their contents, in terminal columns; server text made printable. */
static void
write_fitted(FILE *out)
{
	table_col	fit[] = {{"wait_event", 0, "", true}, {"samples", 7, "  ", false}};
	static const char *const rows[][2] = {
		{"caf\xc3\xa9", "1"},				/* 5 bytes, 4 columns */
		{"\xe6\x97\xa5\xe6\x9c\xac", "22"},	/* 6 bytes, 4 columns */
		{"app\n\x1b[2J", "3"},				/* a newline and a clear-screen */
		{"bad\xff", "4"},
	};

	table_fit(&fit[0], fit[0].header);
	for (int i = 0; i < 4; i++)
		table_fit(&fit[0], rows[i][0]);
	table_header(out, fit, 2);
	table_rule(out, fit, 2);
	for (int i = 0; i < 4; i++)
		table_row(out, fit, 2, rows[i]);
	fprintf(out, "%*s<\n", table_offset(fit, 1), "");
}

START_TEST(test_table_fitted)
{
	char	   *got = capture(write_fitted);

	ck_assert_str_eq(got,
					 "wait_event    samples\n"
					 "------------  -------\n"
					 "caf\xc3\xa9                1\n"
					 "\xe6\x97\xa5\xe6\x9c\xac               22\n"
					 "app\\n\\x1b[2J        3\n"
					 "bad\\xff             4\n"
					 "              <\n");
	free(got);
}
END_TEST

static Suite *
table_suite(void)
{
	Suite	   *s = suite_create("table");
	TCase	   *tc = tcase_create("layout");

	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_table_fitted);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(table_suite());
}
