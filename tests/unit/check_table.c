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

static Suite *
table_suite(void)
{
	Suite	   *s = suite_create("table");
	TCase	   *tc = tcase_create("layout");

	tcase_add_test(tc, test_table);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(table_suite());
}
