/*
 * check_script_errors.c — what the script parser and the script file
 * reader refuse: every load-time error with its exact output, the limit
 * on a meta-command's words, and files that are not scripts.
 *
 * Expected outputs come from pgbench 15, except where a comment says
 * otherwise.
 */
#include "config.h"

#include "check_script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

/*
 * Script text -> what is printed, for every load-time error.  One
 * difference from pgbench 15, on purpose: for a misplaced \gset or \aset
 * pgbench 15 reports the line where the scan for it began (after the
 * previous command; for the first command, the number of lines of the
 * file), pgbench 18 and pgtempo-bench the line of the \gset itself.
 */
static const struct
{
	const char *text;
	const char *want;
}			error_cases[] = {
	{"\\set",
	 "pgtempo-bench: error: t.sql:1: missing argument in command \"set\"\n"},
	{"\\set x",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"set\"\n"
	 "\\set x\n"
	 "     ^ error found here\n"},
	{"\\set x 1 +",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"set\"\n"
	 "\\set x 1 +\n"
	 "         ^ error found here\n"},
	{"\\set x 1 +\n",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"set\"\n"
	 "\\set x 1 +\n"
	 "          ^ error found here\n"},
	{"\\set x (1",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"set\"\n"
	 "\\set x (1\n"
	 "        ^ error found here\n"},
	{"\\set x 1 2",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"set\"\n"
	 "\\set x 1 2\n"
	 "         ^ error found here\n"},
	{"  \\set x 1 +\n",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"set\"\n"
	 "\\set x 1 +\n"
	 "          ^ error found here\n"},
	{"\\set x 1 + \\\n  * 2\n",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"set\"\n"
	 "\\set x 1 + \\\n"
	 "  * 2\n"
	 "               ^ error found here\n"},
	{"select 1;\n\n  \\set  x   1 + \\\n 3 4\nselect 2;",
	 "pgtempo-bench: error: t.sql:3: syntax error in command \"set\"\n"
	 "\\set  x   1 + \\\n"
	 " 3 4\n"
	 "                   ^ error found here\n"},
	{"\\set x\\\n1 +",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"set\"\n"
	 "\\set x\\\n"
	 "1 +\n"
	 "          ^ error found here\n"},
	{"\\set x 1 +\\\n",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"set\"\n"
	 "\\set x 1 +\\\n"
	 "           ^ error found here\n"},
	{"\\set x 1 + \\\n",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"set\"\n"
	 "\\set x 1 + \\\n"
	 "            ^ error found here\n"},
	{"\\set x 1\r\n\\set y 2 +\r\n",
	 "pgtempo-bench: error: t.sql:2: syntax error in command \"set\"\n"
	 "\\set y 2 +\n"
	 "           ^ error found here\n"},
	{"\\set x 5 -- comment",
	 "pgtempo-bench: error: t.sql:1: unexpected function name (comment) in command \"set\"\n"
	 "\\set x 5 -- comment\n"
	 "                  ^ error found here\n"},
	{"\\if\n\\endif",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"if\"\n"
	 "\\if\n"
	 "   ^ error found here\n"},
	{"\\elif 1 +\n",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"elif\"\n"
	 "\\elif 1 +\n"
	 "         ^ error found here\n"},
	{"\\else\n\\set x (",
	 "pgtempo-bench: error: t.sql:2: syntax error in command \"set\"\n"
	 "\\set x (\n"
	 "       ^ error found here\n"},
	{"\\sleep",
	 "pgtempo-bench: error: t.sql:1: missing argument in command \"sleep\"\n"
	 "\\sleep\n"},
	{"\\sleep abc",
	 "pgtempo-bench: error: t.sql:1: invalid sleep time, must be an integer (abc) in command \"sleep\"\n"
	 "\\sleep abc\n"
	 "       ^ error found here\n"},
	{"\\sleep 1 xs",
	 "pgtempo-bench: error: t.sql:1: unrecognized time unit, must be us, ms or s (xs) in command \"sleep\"\n"
	 "\\sleep 1 xs\n"
	 "         ^ error found here\n"},
	{"\\sleep 1.5",
	 "pgtempo-bench: error: t.sql:1: unrecognized time unit, must be us, ms or s (.5) in command \"sleep\"\n"
	 "\\sleep 1.5\n"
	 "        ^ error found here\n"},
	{"\\sleep 1 ms x",
	 "pgtempo-bench: error: t.sql:1: too many arguments in command \"sleep\"\n"
	 "\\sleep 1 ms x\n"
	 "            ^ error found here\n"},
	{"\\sleep 1ms x",
	 "pgtempo-bench: error: t.sql:1: invalid sleep time, must be an integer (1ms) in command \"sleep\"\n"
	 "\\sleep 1ms x\n"
	 "       ^ error found here\n"},
	{"\\sleep  \\\n 1 \\\n xs",
	 "pgtempo-bench: error: t.sql:1: unrecognized time unit, must be us, ms or s (xs) in command \"sleep\"\n"
	 "\\sleep  \\\n"
	 " 1 \\\n"
	 " xs\n"
	 "                ^ error found here\n"},
	{"\\SLEEP 1 XS",
	 "pgtempo-bench: error: t.sql:1: unrecognized time unit, must be us, ms or s (XS) in command \"SLEEP\"\n"
	 "\\SLEEP 1 XS\n"
	 "         ^ error found here\n"},
	{"\\sleep 0x10",
	 "pgtempo-bench: error: t.sql:1: unrecognized time unit, must be us, ms or s (x10) in command \"sleep\"\n"
	 "\\sleep 0x10\n"
	 "        ^ error found here\n"},
	{"\\sleep 1ms ms",
	 "pgtempo-bench: error: t.sql:1: invalid sleep time, must be an integer (1ms) in command \"sleep\"\n"
	 "\\sleep 1ms ms\n"
	 "       ^ error found here\n"},
	{"\\sleep - 5",
	 "pgtempo-bench: error: t.sql:1: unrecognized time unit, must be us, ms or s (5) in command \"sleep\"\n"
	 "\\sleep - 5\n"
	 "         ^ error found here\n"},
	{"\\sleep abc\\\n",
	 "pgtempo-bench: error: t.sql:1: invalid sleep time, must be an integer (abc) in command \"sleep\"\n"
	 "\\sleep abc\\\n"
	 "         ^ error found here\n"},
	{"\\sleep abc\\\r\n",
	 "pgtempo-bench: error: t.sql:1: invalid sleep time, must be an integer (abc) in command \"sleep\"\n"
	 "\\sleep abc\\\n"
	 "          ^ error found here\n"},
	{"\\sleep abc\\\r\nselect 1;",
	 "pgtempo-bench: error: t.sql:1: too many arguments in command \"sleep\"\n"
	 "\\sleep abc\\\r\n"
	 "select 1;\n"
	 "                    ^ error found here\n"},
	{"\\sleep\\\nabc\\\nx",
	 "pgtempo-bench: error: t.sql:1: invalid sleep time, must be an integer (abc) in command \"sleep\"\n"
	 "\\sleep\\\n"
	 "abc\\\n"
	 "x\n"
	 "          ^ error found here\n"},
	{"\\sleep 1 ms\\\nx",
	 "pgtempo-bench: error: t.sql:1: too many arguments in command \"sleep\"\n"
	 "\\sleep 1 ms\\\n"
	 "x\n"
	 "             ^ error found here\n"},
	{"\\sleep 1 ms x\\\n",
	 "pgtempo-bench: error: t.sql:1: too many arguments in command \"sleep\"\n"
	 "\\sleep 1 ms x\\\n"
	 "              ^ error found here\n"},
	{"\\sleep 1 xs\\\n",
	 "pgtempo-bench: error: t.sql:1: unrecognized time unit, must be us, ms or s (xs) in command \"sleep\"\n"
	 "\\sleep 1 xs\\\n"
	 "           ^ error found here\n"},
	{"\\sleep 1\r\r\n\\sleep x\r\r\n",
	 "pgtempo-bench: error: t.sql:2: invalid sleep time, must be an integer (x) in command \"sleep\"\n"
	 "\\sleep x\n"
	 "       ^ error found here\n"},
	{"\\setshell",
	 "pgtempo-bench: error: t.sql:1: missing argument in command \"setshell\"\n"
	 "\\setshell\n"},
	{"\\setshell x",
	 "pgtempo-bench: error: t.sql:1: missing argument in command \"setshell\"\n"
	 "\\setshell x\n"},
	{"\\shell",
	 "pgtempo-bench: error: t.sql:1: missing command in command \"shell\"\n"
	 "\\shell\n"},
	{"\\else x",
	 "pgtempo-bench: error: t.sql:1: unexpected argument in command \"else\"\n"
	 "\\else x\n"},
	{"\\endif x",
	 "pgtempo-bench: error: t.sql:1: unexpected argument in command \"endif\"\n"
	 "\\endif x\n"},
	{"\\startpipeline x",
	 "pgtempo-bench: error: t.sql:1: unexpected argument in command \"startpipeline\"\n"
	 "\\startpipeline x\n"},
	{"\\syncpipeline x",
	 "pgtempo-bench: error: t.sql:1: unexpected argument in command \"syncpipeline\"\n"
	 "\\syncpipeline x\n"},
	{"\\endpipeline 1",
	 "pgtempo-bench: error: t.sql:1: unexpected argument in command \"endpipeline\"\n"
	 "\\endpipeline 1\n"},
	{"\\gset a b",
	 "pgtempo-bench: error: t.sql:1: too many arguments in command \"gset\"\n"
	 "\\gset a b\n"},
	{"\\foo bar",
	 "pgtempo-bench: error: t.sql:1: invalid command in command \"foo\"\n"
	 "\\foo bar\n"},
	{"\\Foo",
	 "pgtempo-bench: error: t.sql:1: invalid command in command \"Foo\"\n"
	 "\\Foo\n"},
	{"\\set;",
	 "pgtempo-bench: error: t.sql:1: invalid command in command \"set;\"\n"
	 "\\set;\n"},
	{"\\\\",
	 "pgtempo-bench: error: t.sql:1: invalid command in command \"\\\"\n"
	 "\\\\\n"},
	{"\\aset",
	 "pgtempo-bench: error: t.sql:1: \\gset must follow an SQL command\n"},
	{"\\gset p_",
	 "pgtempo-bench: error: t.sql:1: \\gset must follow an SQL command\n"},
	{"\\set x 1\n\\gset",
	 "pgtempo-bench: error: t.sql:2: \\gset must follow an SQL command (\\set x 1)\n"},
	{"select 1 \\gset\n\\gset p_",
	 "pgtempo-bench: error: t.sql:2: \\gset must follow an SQL command\n"},
	{"select 1 \\aset\n\\aset",
	 "pgtempo-bench: error: t.sql:2: \\gset must follow an SQL command\n"},
	{"\\if true\n\\aset",
	 "pgtempo-bench: error: t.sql:2: \\gset must follow an SQL command (\\if true)\n"},
	{"select 1;\n\\sleep 1\n\n-- c\n\\gset",
	 "pgtempo-bench: error: t.sql:5: \\gset must follow an SQL command (\\sleep 1)\n"},
	{"\\",
	 "pgtempo-bench: error: empty command list for script \"t.sql\"\n"},
	{"-- only\n\n",
	 "pgtempo-bench: error: empty command list for script \"t.sql\"\n"},
	{"",
	 "pgtempo-bench: error: empty command list for script \"t.sql\"\n"},
	{"  \n\t\n",
	 "pgtempo-bench: error: empty command list for script \"t.sql\"\n"},
	{"-- a\n-- b",
	 "pgtempo-bench: error: empty command list for script \"t.sql\"\n"},
	{"\\\n\\\n",
	 "pgtempo-bench: error: empty command list for script \"t.sql\"\n"},
	{"\\elif 1\n\\endif",
	 "pgtempo-bench: error: condition error in script \"t.sql\" command 1: \\elif without matching \\if\n"},
	{"\\if 1\n\\else\n\\elif 1\n\\endif",
	 "pgtempo-bench: error: condition error in script \"t.sql\" command 3: \\elif after \\else\n"},
	{"\\if 1\n\\else\n\\else\n\\endif",
	 "pgtempo-bench: error: condition error in script \"t.sql\" command 3: \\else after \\else\n"},
	{"select 1;\n\\else",
	 "pgtempo-bench: error: condition error in script \"t.sql\" command 2: \\else without matching \\if\n"},
	{"select 1;\n\\endif",
	 "pgtempo-bench: error: condition error in script \"t.sql\" command 2: \\endif without matching \\if\n"},
	{"select 1;\n\\if 1\n\\if 2\nselect 1;\n\\endif",
	 "pgtempo-bench: error: condition error in script \"t.sql\" command 6: \\if without matching \\endif\n"},
	{"\\set x 1\n\\if 1\n\\elif 2\n\\else\n\\elif 3\n\\endif",
	 "pgtempo-bench: error: condition error in script \"t.sql\" command 5: \\elif after \\else\n"},
	{"select (1 \\set x 2\nselect 2; \\else",
	 "pgtempo-bench: error: condition error in script \"t.sql\" command 4: \\else without matching \\if\n"},
	{"select '\\else' \\set x (1",
	 "pgtempo-bench: error: t.sql:1: syntax error in command \"set\"\n"
	 "\\set x (1\n"
	 "        ^ error found here\n"},
	{"\\if 1\n\\endif\n\\endif",
	 "pgtempo-bench: error: condition error in script \"t.sql\" command 3: \\endif without matching \\if\n"},
	{"\\if 1\n\\if 2\n\\else\n\\endif\n\\else\n\\else\n\\endif",
	 "pgtempo-bench: error: condition error in script \"t.sql\" command 6: \\else after \\else\n"},
	{"select 1 \\gset\n\\if 1\n\\else\n\\else x",
	 "pgtempo-bench: error: t.sql:4: unexpected argument in command \"else\"\n"
	 "\\else x\n"},
	/* pgbench wraps these through a C int (or takes a negative time as none) */
	{"\\sleep 2147483648",
	 "pgtempo-bench: error: t.sql:1: sleep time out of range (0 .. 2147483647) in command \"sleep\"\n"
	 "\\sleep 2147483648\n"
	 "       ^ error found here\n"},
	{"\\sleep 99999999999999999999 ms",
	 "pgtempo-bench: error: t.sql:1: sleep time out of range (0 .. 2147483647) in command \"sleep\"\n"
	 "\\sleep 99999999999999999999 ms\n"
	 "       ^ error found here\n"},
	{"select 1;\n\\sleep -1s",
	 "pgtempo-bench: error: t.sql:2: sleep time out of range (0 .. 2147483647) in command \"sleep\"\n"
	 "\\sleep -1s\n"
	 "       ^ error found here\n"},
	{"\\if 1\n\\else\n\\else\n\\set x (",
	 "pgtempo-bench: error: t.sql:4: syntax error in command \"set\"\n"
	 "\\set x (\n"
	 "       ^ error found here\n"},
};

START_TEST(test_errors)
{
	char	   *err;
	script	   *s = check_script_parse_caught(error_cases[_i].text, &err);

	ck_assert_msg(s == NULL, "case %d parsed", _i);
	ck_assert_str_eq(err, error_cases[_i].want);
	free(err);
}
END_TEST

/* A meta-command takes up to 256 words, its name included. */
START_TEST(test_max_words)
{
	strbuf		text;
	char	   *err;
	script	   *s;

	strbuf_init(&text);
	strbuf_puts(&text, "\\shell");
	for (int i = 1; i < SCRIPT_MAX_ARGS; i++)
		strbuf_printf(&text, " a%d", i);
	s = check_script_parse_caught(text.data, &err);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(s->commands[0]->argc, 256);
	ck_assert_str_eq(s->commands[0]->argv[255], "a255");
	script_free(s);
	free(err);

	/* one more: an error without the line (pgbench has not kept it yet) */
	strbuf_puts(&text, " a256\nselect 1;");
	s = check_script_parse_caught(text.data, &err);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(err, "pgtempo-bench: error: t.sql:1: too many arguments in command \"shell\"\n");
	free(err);

	strbuf_reset(&text);
	strbuf_puts(&text, "select 1;\n\\sleep 1");
	for (int i = 0; i < 300; i++)
		strbuf_puts(&text, " ms");
	s = check_script_parse_caught(text.data, &err);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(err, "pgtempo-bench: error: t.sql:2: too many arguments in command \"sleep\"\n");
	free(err);
	strbuf_free(&text);
}
END_TEST

/*
 * Script files: what script_read_file() reads or refuses.  PATH in want
 * stands for the file's name.  pgbench reads a device or a huge file until
 * memory runs out, stops at a NUL byte without a word, and waits on a FIFO.
 */
typedef enum file_kind
{
	F_TEXT,						/* a regular file with text (len bytes) */
	F_SPARSE,					/* a regular file of len bytes, all holes */
	F_DIR,
	F_FIFO,
	F_PATH						/* text is an existing path */
} file_kind;

static const struct
{
	file_kind	kind;
	const char *text;
	size_t		len;
	const char *want;			/* the text read, or "error: CAUSE" */
}			file_cases[] = {
	{F_TEXT, "select 1;\n", 10, "select 1;\n"},
	{F_TEXT, "", 0, ""},
	{F_TEXT, "\\set x 1\n\\set y\0 2\n", 19, "error: PATH:2: script contains a NUL byte"},
	{F_TEXT, "\0", 1, "error: PATH:1: script contains a NUL byte"},
	{F_TEXT, "a\nb\nc\n\0\n", 8, "error: PATH:4: script contains a NUL byte"},
	{F_SPARSE, NULL, SCRIPT_MAX_FILE_SIZE, "error: PATH:1: script contains a NUL byte"},
	{F_SPARSE, NULL, SCRIPT_MAX_FILE_SIZE + 1,
	"error: could not read file \"PATH\": it is larger than a script can be (16777217 bytes, at most 16 MB)"},
	{F_SPARSE, NULL, (size_t) 2 << 30,
	"error: could not read file \"PATH\": it is larger than a script can be (2147483648 bytes, at most 16 MB)"},
	{F_DIR, NULL, 0, "error: could not read file \"PATH\": Is a directory"},
	{F_FIFO, NULL, 0, ""},
	{F_PATH, "/dev/zero", 0, "error: could not read file \"PATH\": it is a device, not a regular file"},
	{F_PATH, "/nonexistent/x.sql", 0,
	"error: could not open file \"PATH\": No such file or directory"},
};

/* want with PATH replaced by path. */
static char *
file_want(const char *want, const char *path)
{
	const char *p = strstr(want, "PATH");
	strbuf		sb;
	char	   *text;

	strbuf_init(&sb);
	while (p != NULL)
	{
		strbuf_append(&sb, want, (size_t) (p - want));
		strbuf_puts(&sb, path);
		want = p + 4;
		p = strstr(want, "PATH");
	}
	strbuf_puts(&sb, want);
	text = strbuf_detach(&sb);
	strbuf_free(&sb);
	return text;
}

START_TEST(test_read_file)
{
	char		dir[] = "/tmp/check_script.XXXXXX";
	char	   *path;
	char	   *cause = NULL;
	char	   *text;
	char	   *got;
	char	   *want;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	path = xasprintf("%s/f", dir);
	switch (file_cases[_i].kind)
	{
		case F_TEXT:
		case F_SPARSE:
			{
				FILE	   *f = fopen(path, "w");

				ck_assert_ptr_nonnull(f);
				if (file_cases[_i].kind == F_TEXT)
					ck_assert_uint_eq(fwrite(file_cases[_i].text, 1, file_cases[_i].len, f),
									  file_cases[_i].len);
				else
					ck_assert_int_eq(ftruncate(fileno(f), (off_t) file_cases[_i].len), 0);
				ck_assert_int_eq(fclose(f), 0);
				break;
			}
		case F_DIR:
			ck_assert_int_eq(mkdir(path, 0700), 0);
			break;
		case F_FIFO:
			ck_assert_int_eq(mkfifo(path, 0600), 0);
			break;
		case F_PATH:
			free(path);
			path = xstrdup(file_cases[_i].text);
			break;
	}

	text = script_read_file(path, &cause);
	if (text != NULL)
	{
		ck_assert_ptr_null(cause);
		got = text;
	}
	else
	{
		got = xasprintf("error: %s", cause);
		free(cause);
	}
	want = file_want(file_cases[_i].want, path);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);

	if (file_cases[_i].kind != F_PATH)
	{
		if (file_cases[_i].kind == F_DIR)
			rmdir(path);
		else
			unlink(path);
	}
	rmdir(dir);
	free(path);
}
END_TEST

/* The "errors" test case: load-time errors and script files. */
TCase *
check_script_errors_tcase(void)
{
	TCase	   *tc = tcase_create("errors");

	tcase_add_loop_test(tc, test_errors, 0, sizeof(error_cases) / sizeof(error_cases[0]));
	tcase_add_test(tc, test_max_words);
	tcase_add_loop_test(tc, test_read_file, 0, sizeof(file_cases) / sizeof(file_cases[0]));
	return tc;
}
