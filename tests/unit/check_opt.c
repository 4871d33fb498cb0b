/*
 * check_opt.c — unit tests of command lines as tables (core/opt).
 */
#include "config.h"

#include "pgtempo/opt.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "unit.h"

typedef struct toy
{
	bool		flag;
	const char *str;
	char	   *dup;
	int			num;
} toy;

static int	usage_calls;

static void
toy_usage(void)
{
	usage_calls++;
}

/* A handler that stops the parse with success, as -b list does. */
static opt_status
toy_stop(const opt_def *def, void *ctx, const char *arg)
{
	(void) def;
	(void) ctx;
	(void) arg;
	return OPT_EXIT_OK;
}

static const opt_def toy_options[] = {
	{"flag", 'f', no_argument, opt_true, offsetof(toy, flag), .flags = 1},
	{"str", 0, required_argument, opt_string, offsetof(toy, str), .flags = 2},
	{"dup", 0, required_argument, opt_strdup, offsetof(toy, dup)},
	{"num", 'n', required_argument, opt_int, offsetof(toy, num), 1, 10, "-n/--num", .flags = 4},
	{"stop", 0, no_argument, toy_stop},
	{"help", '?', no_argument, NULL},
};

static const opt_parser toy_parser = {toy_options, OPT_COUNT(toy_options), toy_usage, true};

#define HINT "prog: hint: Try \"prog --help\" for more information.\n"
#define MAXARGS 6

/* A command line, what opt_parse() must return and leave behind. */
static const struct
{
	const char *argv[MAXARGS];
	opt_status	want;
	const char *want_err;
	bool		flag;
	const char *str;
	const char *dup;
	int			num;
	unsigned	seen;
	int			usage;
	int			optind;			/* after the parse (OPT_OK only) */
}			cases[] = {
	{{"prog", "-f", "--str=a", "-n", "7", "db"}, OPT_OK, "", true, "a", NULL, 7, 7, 0, 5},
	{{"prog", "--dup", "x", "--dup=y"}, OPT_OK, "", false, NULL, "y", 0, 0, 0, 4},
	{{"prog", "--fl", "--nu=3"}, OPT_OK, "", true, NULL, NULL, 3, 5, 0, 3},
	{{"prog", "-n", "0"}, OPT_ERROR, "prog: error: -n/--num must be in range 1..10\n" HINT},
	{{"prog", "-n", "x"}, OPT_ERROR, "prog: error: invalid value \"x\" for option -n/--num\n" HINT},
	{{"prog", "-n"}, OPT_ERROR, "prog: error: option requires an argument -- 'n'\n" HINT},
	{{"prog", "--str"}, OPT_ERROR, "prog: error: option \"--str\" requires an argument\n" HINT},
	{{"prog", "-x"}, OPT_ERROR, "prog: error: invalid option -- 'x'\n" HINT},
	{{"prog", "--bogus"}, OPT_ERROR, "prog: error: unrecognized option \"--bogus\"\n" HINT},
	{{"prog", "-f", "-n", "2", "--help"}, OPT_EXIT_OK, "", true, NULL, NULL, 2, 5, 1},
	{{"prog", "-?", "--bogus"}, OPT_EXIT_OK, "", false, NULL, NULL, 0, 0, 1},
	{{"prog", "--stop", "--bogus"}, OPT_EXIT_OK, ""},
};

START_TEST(test_cases)
{
	toy			t = {0};
	char	   *argv[MAXARGS + 1] = {0};
	int			argc = 0;
	unsigned	seen = 0;
	opt_status	st;
	char	   *err;

	msg_set_progname("prog");
	for (; argc < MAXARGS && cases[_i].argv[argc] != NULL; argc++)
		argv[argc] = strdup(cases[_i].argv[argc]);
	usage_calls = 0;
	optind = 0;					/* glibc: start afresh */
	unit_stderr_begin();
	st = opt_parse(&toy_parser, argc, argv, &t, &seen);
	err = unit_stderr_end();
	ck_assert_int_eq(st, cases[_i].want);
	ck_assert_str_eq(err, cases[_i].want_err);
	ck_assert_int_eq(usage_calls, cases[_i].usage);
	if (st != OPT_ERROR)
	{
		ck_assert_int_eq(t.flag, cases[_i].flag);
		ck_assert_pstr_eq(t.str, cases[_i].str);
		ck_assert_pstr_eq(t.dup, cases[_i].dup);
		ck_assert_int_eq(t.num, cases[_i].num);
		ck_assert_uint_eq(seen, cases[_i].seen);
	}
	if (st == OPT_OK)
		ck_assert_int_eq(optind, cases[_i].optind);
	free(err);
	free(t.dup);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
}
END_TEST

START_TEST(test_no_more_args)
{
	char	   *argv[] = {"prog", "a", "b", NULL};
	char	   *err;

	msg_set_progname("prog");
	optind = 3;
	ck_assert(opt_no_more_args(3, argv));
	optind = 1;
	unit_stderr_begin();
	ck_assert(!opt_no_more_args(3, argv));
	err = unit_stderr_end();
	ck_assert_str_eq(err, "prog: error: too many command-line arguments (first is \"a\")\n" HINT);
	free(err);
}
END_TEST

static Suite *
opt_suite(void)
{
	Suite	   *s = suite_create("opt");
	TCase	   *tc = tcase_create("parse");

	tcase_add_loop_test(tc, test_cases, 0, OPT_COUNT(cases));
	tcase_add_test(tc, test_no_more_args);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(opt_suite());
}
