/*
 * check_msg.c — unit tests of the diagnostics and of the out-of-memory path.
 *
 * Messages are caught by pointing file descriptor 2 (and for one test 1 as
 * well) at a temporary file around the call.
 */
#include "config.h"

#include "pgtempo/msg.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pgtempo/exitcode.h"
#include "pgtempo/xalloc.h"
#include "unit.h"

/*
 * AddressSanitizer's allocator reports an impossible request itself instead
 * of returning NULL, so the out-of-memory path cannot be seen under it.
 */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

typedef struct capture
{
	FILE	   *tmp;
	int			saved_err;
	int			saved_out;		/* -1 unless stdout is caught too */
} capture;

/* Send stderr (and stdout if with_stdout) to a fresh temporary file. */
static void
capture_begin(capture *c, bool with_stdout)
{
	fflush(stdout);
	fflush(stderr);
	c->tmp = tmpfile();
	ck_assert_ptr_nonnull(c->tmp);
	c->saved_err = dup(STDERR_FILENO);
	ck_assert_int_ge(c->saved_err, 0);
	dup2(fileno(c->tmp), STDERR_FILENO);
	c->saved_out = -1;
	if (with_stdout)
	{
		c->saved_out = dup(STDOUT_FILENO);
		ck_assert_int_ge(c->saved_out, 0);
		dup2(fileno(c->tmp), STDOUT_FILENO);
	}
}

/* Put the descriptors back and return what was written, as a malloc'd string. */
static char *
capture_end(capture *c)
{
	long		size;
	char	   *text;
	size_t		got;

	fflush(stdout);
	fflush(stderr);
	dup2(c->saved_err, STDERR_FILENO);
	close(c->saved_err);
	if (c->saved_out >= 0)
	{
		dup2(c->saved_out, STDOUT_FILENO);
		close(c->saved_out);
	}

	fseek(c->tmp, 0, SEEK_END);
	size = ftell(c->tmp);
	ck_assert_int_ge(size, 0);
	rewind(c->tmp);
	text = malloc((size_t) size + 1);
	got = fread(text, 1, (size_t) size, c->tmp);
	text[got] = '\0';
	fclose(c->tmp);
	return text;
}

typedef void (*msg_fn) (const char *fmt,...);

static const struct
{
	msg_fn		fn;
	const char *argv0;
	const char *text;
	const char *want;
}			level_cases[] = {
	{msg_error, "/usr/bin/pgtempo-bench", "could not connect",
	"pgtempo-bench: error: could not connect\n"},
	{msg_warning, "pgtempo-waits", "sampling fell behind",
	"pgtempo-waits: warning: sampling fell behind\n"},
	{msg_detail, "./pg_test_timing", "the clock went backwards by 12 ns",
	"pg_test_timing: detail: the clock went backwards by 12 ns\n"},
	{msg_hint, "/usr/lib/postgresql/15/bin/pgbench", "Use --rate to throttle.",
	"pgbench: hint: Use --rate to throttle.\n"},
	/* a message that already ends its line gets no second newline */
	{msg_error, "pgtempo-bench", "connection to server lost\n",
	"pgtempo-bench: error: connection to server lost\n"},
	/* several lines, as libpq's error messages can be, go out as they are */
	{msg_error, "pgtempo-bench", "FATAL:  no such database\nDETAIL:  none",
	"pgtempo-bench: error: FATAL:  no such database\nDETAIL:  none\n"},
	{msg_warning, "pgtempo-bench", "", "pgtempo-bench: warning: \n"},
};

START_TEST(test_levels)
{
	capture		c;
	char	   *got;

	msg_set_progname(level_cases[_i].argv0);
	capture_begin(&c, false);
	level_cases[_i].fn("%s", level_cases[_i].text);
	got = capture_end(&c);
	ck_assert_str_eq(got, level_cases[_i].want);
	free(got);
}
END_TEST

START_TEST(test_format_args)
{
	capture		c;
	char	   *got;

	msg_set_progname("pgtempo-bench");
	capture_begin(&c, false);
	msg_error("could not open file \"%s\": %s", "pgbench_log.1", strerror(ENOENT));
	msg_detail("%d of %d clients (%.1f%%)", 3, 8, 37.5);
	msg_warning("done\n");
	got = capture_end(&c);
	ck_assert_str_eq(got,
					 "pgtempo-bench: error: could not open file \"pgbench_log.1\": "
					 "No such file or directory\n"
					 "pgtempo-bench: detail: 3 of 8 clients (37.5%)\n"
					 "pgtempo-bench: warning: done\n");
	free(got);
}
END_TEST

static const struct
{
	const char *warning;
	const char *detail;
	const char *hint;
	const char *want;
}			parts_cases[] = {
	{"could not read pg_wait_events: permission denied", NULL, NULL,
	"pgtempo-bench: warning: could not read pg_wait_events: permission denied\n"},
	{"could not read pg_stat_wait_history: gone", "Reporting without it.", NULL,
	"pgtempo-bench: warning: could not read pg_stat_wait_history: gone\n"
	"pgtempo-bench: detail: Reporting without it.\n"},
	{"2 sessions are hidden", NULL, "GRANT pg_read_all_stats TO \"u\";",
	"pgtempo-bench: warning: 2 sessions are hidden\n"
	"pgtempo-bench: hint: GRANT pg_read_all_stats TO \"u\";\n"},
	/* the parts are text, not formats */
	{"50% of %s", "100%d", "%n", "pgtempo-bench: warning: 50% of %s\n"
	"pgtempo-bench: detail: 100%d\npgtempo-bench: hint: %n\n"},
};

/* A library's warning in parts: each given part on its line, in order. */
START_TEST(test_warning_parts)
{
	capture		c;
	char	   *got;

	msg_set_progname("pgtempo-bench");
	capture_begin(&c, false);
	msg_warning_parts(NULL, parts_cases[_i].warning, parts_cases[_i].detail,
					  parts_cases[_i].hint);
	got = capture_end(&c);
	ck_assert_str_eq(got, parts_cases[_i].want);
	free(got);
}
END_TEST

/* %m reports the caller's errno, and the caller's errno survives the call. */
START_TEST(test_errno_kept)
{
	capture		c;
	char	   *got;

	msg_set_progname("pgtempo-waits");
	capture_begin(&c, false);
	errno = EACCES;
	msg_error("could not open log: %m");
	ck_assert_int_eq(errno, EACCES);
	got = capture_end(&c);
	ck_assert_str_eq(got, "pgtempo-waits: error: could not open log: Permission denied\n");
	free(got);
}
END_TEST

/* A message longer than any fixed buffer arrives whole. */
START_TEST(test_long_message)
{
	capture		c;
	char	   *got;
	char	   *text = malloc(5001);
	char	   *want = malloc(5100);

	memset(text, 'q', 5000);
	text[5000] = '\0';
	sprintf(want, "pgtempo-bench: error: [%s]\n", text);

	msg_set_progname("pgtempo-bench");
	capture_begin(&c, false);
	msg_error("[%s]", text);
	got = capture_end(&c);
	ck_assert_uint_eq(strlen(got), strlen(want));
	ck_assert_str_eq(got, want);
	free(got);
	free(text);
	free(want);
}
END_TEST

/* Output already written to stdout comes out before the message. */
START_TEST(test_stdout_first)
{
	capture		c;
	char	   *got;

	msg_set_progname("pg_test_timing");
	capture_begin(&c, true);
	/* no newline: stays in stdout's buffer whether it is a file or a tty */
	printf("Testing timing overhead for 3 seconds.");
	msg_error("clock went backwards");
	printf("after");
	got = capture_end(&c);
	ck_assert_str_eq(got,
					 "Testing timing overhead for 3 seconds."
					 "pg_test_timing: error: clock went backwards\n"
					 "after");
	free(got);
}
END_TEST

START_TEST(test_try_help)
{
	capture		c;
	char	   *got;

	msg_set_progname("/opt/pgtempo/bin/pgtempo-bench");
	capture_begin(&c, false);
	msg_try_help();
	got = capture_end(&c);
	ck_assert_str_eq(got, "pgtempo-bench: hint: Try \"pgtempo-bench --help\" for more information.\n");
	free(got);
}
END_TEST

static const struct
{
	const char *argv0;
	const char *want;
}			progname_cases[] = {
	{"/usr/lib/postgresql/15/bin/pgbench", "pgbench"},
	{"pg_test_timing", "pg_test_timing"},
	{"./pgtempo-waits", "pgtempo-waits"},
	{"../build/src/pgtempo-bench", "pgtempo-bench"},
	{"/pgtempo-bench", "pgtempo-bench"},
	{"dir.d/prog.exe", "prog.exe"},
	/* nothing usable: the default */
	{"", "pgtempo"},
	{NULL, "pgtempo"},
	{"/usr/bin/", "pgtempo"},
};

START_TEST(test_progname)
{
	msg_set_progname("something-else");
	msg_set_progname(progname_cases[_i].argv0);
	ck_assert_str_eq(msg_progname(), progname_cases[_i].want);
}
END_TEST

/* The name is copied: the caller's string may change or go away. */
START_TEST(test_progname_copied)
{
	char		argv0[] = "/usr/bin/pgtempo-bench";

	msg_set_progname(argv0);
	memset(argv0, 'x', sizeof(argv0) - 1);
	ck_assert_str_eq(msg_progname(), "pgtempo-bench");
}
END_TEST

static void
call_fatal(void)
{
	msg_set_progname("/usr/bin/pgtempo-bench");
	msg_fatal("could not create %d threads", 4);
}

START_TEST(test_fatal_exits_1)
{
	char		err[256];
	int			status;

	status = unit_run_in_child(call_fatal, err, sizeof(err));
	ck_assert_msg(WIFEXITED(status), "child did not exit (status %d)", status);
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	ck_assert_str_eq(err, "pgtempo-bench: error: could not create 4 threads\n");
}
END_TEST

static void
call_fatal_errno(void)
{
	msg_set_progname("/usr/bin/pgtempo-bench");
	msg_fatal_errno(EAGAIN, "could not create thread");
}

/* The errno variant says why the call failed, on the same line, and ends the same way. */
START_TEST(test_fatal_errno_exits_1)
{
	char		err[256];
	char		want[256];
	int			status;

	status = unit_run_in_child(call_fatal_errno, err, sizeof(err));
	ck_assert_msg(WIFEXITED(status), "child did not exit (status %d)", status);
	ck_assert_int_eq(WEXITSTATUS(status), EXITCODE_ERROR);
	snprintf(want, sizeof(want), "pgtempo-bench: error: could not create thread: %s\n",
			 strerror(EAGAIN));
	ck_assert_str_eq(err, want);
}
END_TEST

#ifndef UNDER_ASAN
static void
exhaust_memory(void)
{
	volatile size_t huge = SIZE_MAX / 2;

	msg_set_progname("/usr/bin/pgtempo-waits");
	free(xmalloc(huge));
}

/* xmalloc never returns NULL: it says "out of memory" and aborts. */
START_TEST(test_out_of_memory)
{
	char		err[256];
	int			status;

	status = unit_run_in_child(exhaust_memory, err, sizeof(err));
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
				  "child did not abort (status %d)", status);
	ck_assert_str_eq(err, "pgtempo-waits: error: out of memory\n");
}
END_TEST
#endif

static Suite *
msg_suite(void)
{
	Suite	   *s = suite_create("msg");
	TCase	   *tc;

	tc = tcase_create("output");
	tcase_add_loop_test(tc, test_levels, 0, sizeof(level_cases) / sizeof(level_cases[0]));
	tcase_add_test(tc, test_format_args);
	tcase_add_loop_test(tc, test_warning_parts, 0, sizeof(parts_cases) / sizeof(parts_cases[0]));
	tcase_add_test(tc, test_errno_kept);
	tcase_add_test(tc, test_long_message);
	tcase_add_test(tc, test_stdout_first);
	tcase_add_test(tc, test_try_help);
	suite_add_tcase(s, tc);

	tc = tcase_create("progname");
	tcase_add_loop_test(tc, test_progname, 0, sizeof(progname_cases) / sizeof(progname_cases[0]));
	tcase_add_test(tc, test_progname_copied);
	suite_add_tcase(s, tc);

	tc = tcase_create("fatal");
	tcase_add_test(tc, test_fatal_exits_1);
	tcase_add_test(tc, test_fatal_errno_exits_1);

#ifndef UNDER_ASAN
	tcase_add_test(tc, test_out_of_memory);
#endif
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	return unit_run(msg_suite());
}
