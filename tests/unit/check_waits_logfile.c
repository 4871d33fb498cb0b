/*
 * check_waits_logfile.c — log files: header only on a new file, append,
 * reopen after a rename (SIGHUP), a new file when the strftime expansion
 * changes, and write errors counted instead of ignored.
 */
#include "config.h"

#include "logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgtempo/msg.h"

#include "unit.h"

static char dir[64];

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check_waits_logfile.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
teardown(void)
{
	char		cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* The whole content of a file ("" if missing). */
static char *
slurp(const char *name)
{
	char		path[256];
	FILE	   *f;
	char	   *buf = calloc(1, 1 << 20);
	size_t		n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (f != NULL)
	{
		n = fread(buf, 1, (1 << 20) - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

static char *
path_of(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

START_TEST(header_and_append)
{
	logfile		lf;
	char	   *cause = NULL;
	char	   *s;

	ck_assert(logfile_open(&lf, path_of("a.csv"), "h1,h2\n", 0, &cause));
	logfile_add(&lf, "1,2\n", 4);
	ck_assert(logfile_close(&lf));
	s = slurp("a.csv");
	ck_assert_str_eq(s, "h1,h2\n1,2\n");
	free(s);
	/* a file with content is appended to, without a second header */
	ck_assert(logfile_open(&lf, path_of("a.csv"), "h1,h2\n", 0, &cause));
	logfile_add(&lf, "3,4\n", 4);
	ck_assert(logfile_flush(&lf));
	ck_assert_uint_eq(lf.records_written, 1);
	ck_assert(logfile_close(&lf));
	s = slurp("a.csv");
	ck_assert_str_eq(s, "h1,h2\n1,2\n3,4\n");
	free(s);
}
END_TEST

/* Nothing is written before a flush; a tick flushes. */
START_TEST(buffered)
{
	logfile		lf;
	char	   *cause = NULL;
	char	   *s;

	ck_assert(logfile_open(&lf, path_of("b.jsonl"), NULL, 0, &cause));
	logfile_add(&lf, "{}\n", 3);
	s = slurp("b.jsonl");
	ck_assert_str_eq(s, "");
	free(s);
	logfile_tick(&lf, 0, false);
	s = slurp("b.jsonl");
	ck_assert_str_eq(s, "{}\n");
	free(s);
	ck_assert(logfile_close(&lf));
}
END_TEST

/* logrotate moves the file away and sends SIGHUP: the tick with reopen starts a new file. */
START_TEST(reopen_after_rename)
{
	logfile		lf;
	char	   *cause = NULL;
	char		old[256];
	char	   *s;

	ck_assert(logfile_open(&lf, path_of("r.csv"), "h\n", 0, &cause));
	logfile_add(&lf, "1\n", 2);
	snprintf(old, sizeof(old), "%s/r.csv.1", dir);
	ck_assert(logfile_flush(&lf));
	ck_assert_int_eq(rename(path_of("r.csv"), old), 0);
	logfile_add(&lf, "2\n", 2);	/* queued before the signal: goes to the old file */
	logfile_tick(&lf, 0, true);
	logfile_add(&lf, "3\n", 2);
	ck_assert(logfile_close(&lf));
	s = slurp("r.csv.1");
	ck_assert_str_eq(s, "h\n1\n2\n");
	free(s);
	s = slurp("r.csv");
	ck_assert_str_eq(s, "h\n3\n");
	free(s);
}
END_TEST

/* A path with strftime escapes starts a new file when its expansion changes. */
START_TEST(strftime_rotation)
{
	logfile		lf;
	char	   *cause = NULL;
	char		pattern[256];
	char	   *s;
	time_t		t0 = 1700000000;	/* the day and hour differ by TZ, the seconds do not */

	snprintf(pattern, sizeof(pattern), "%s/w-%%S.csv", dir);
	ck_assert(logfile_open(&lf, pattern, "h\n", t0, &cause));
	logfile_add(&lf, "a\n", 2);
	logfile_tick(&lf, t0, false);		/* same expansion: same file */
	logfile_add(&lf, "b\n", 2);
	logfile_tick(&lf, t0 + 1, false);	/* "w-21.csv": b still goes to w-20 */
	logfile_add(&lf, "c\n", 2);
	ck_assert_uint_eq(lf.files_opened, 2);
	ck_assert(logfile_close(&lf));
	s = slurp("w-20.csv");
	ck_assert_str_eq(s, "h\na\nb\n");
	free(s);
	s = slurp("w-21.csv");
	ck_assert_str_eq(s, "h\nc\n");
	free(s);
}
END_TEST

START_TEST(expand)
{
	char		out[16];

	ck_assert(logfile_expand("plain", 0, out, sizeof(out)));
	ck_assert_str_eq(out, "plain");
	ck_assert(logfile_expand("%%", 0, out, sizeof(out)));
	ck_assert_str_eq(out, "%");
	ck_assert(!logfile_expand("a-very-long-file-name", 0, out, sizeof(out)));
	ck_assert(!logfile_expand("%Y%m%d%H%M%S%Y%m%d", 0, out, sizeof(out)));
	ck_assert(!logfile_expand("%p", 0, out, 1));
}
END_TEST

/* A path that cannot be opened is an error with the file's name. */
START_TEST(unwritable)
{
	logfile		lf;
	char	   *cause = NULL;

	ck_assert(!logfile_open(&lf, path_of("no/such/dir.csv"), NULL, 0, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "could not open file \""));
	ck_assert_ptr_nonnull(strstr(cause, "No such file or directory"));
	free(cause);
	ck_assert(!logfile_open(&lf, "", NULL, 0, &cause));
	free(cause);
}
END_TEST

/* Play a disk that fills up after size bytes of a file: writes beyond fail with EFBIG. */
static void
limit_file_size(rlim_t size, struct rlimit *old)
{
	struct rlimit rl;

	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, old);
	rl = *old;
	rl.rlim_cur = size;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

/* A full disk: the records are counted lost, once said, and close says how many. */
START_TEST(disk_full)
{
	logfile		lf;
	char	   *cause = NULL;
	char	   *err;

	if (access("/dev/full", W_OK) != 0)
		return;					/* not on this system */
	unit_stderr_begin();
	ck_assert(logfile_open(&lf, "/dev/full", "h\n", 0, &cause));
	logfile_add(&lf, "1\n", 2);
	logfile_add(&lf, "2\n", 2);
	ck_assert(!logfile_flush(&lf));
	ck_assert_uint_eq(lf.records_lost, 2);	/* the header is no record */
	ck_assert(lf.failing);
	logfile_add(&lf, "3\n", 2);
	logfile_tick(&lf, 0, false);
	ck_assert_uint_eq(lf.records_lost, 3);
	ck_assert_uint_eq(lf.records_written, 0);
	ck_assert(!logfile_close(&lf));
	err = unit_stderr_end();
	ck_assert_str_eq(err,
					 "pgtempo-waits: error: could not write to log file \"/dev/full\": "
					 "No space left on device\n"
					 "pgtempo-waits: error: 3 records could not be written to log file "
					 "\"/dev/full\"\n");
	free(err);
}
END_TEST

/*
 * A write that fits only part of the buffer (the file size limit plays a
 * disk that fills up mid-write): the file is cut back to its last whole
 * line, the count of records written and lost is exact, and when there
 * is room again writing goes on after a whole line.  A record here is
 * two lines, as a CSV record with a line break in a quoted query is.
 */
START_TEST(partial_write)
{
	logfile		lf;
	char	   *cause = NULL;
	char	   *got,
			   *err;
	char		rec[64];
	struct rlimit old;
	int			n = 20000;
	int			len;
	size_t		size;

	limit_file_size(100001, &old);
	unit_stderr_begin();
	ck_assert(logfile_open(&lf, path_of("p.csv"), "head\n", 0, &cause));
	for (int i = 0; i < n; i++)
	{
		len = snprintf(rec, sizeof(rec), "%d,\"a\nb\"\n", i);
		logfile_add(&lf, rec, (size_t) len);
	}
	logfile_flush(&lf);
	ck_assert_uint_gt(lf.records_written, 0);
	ck_assert_uint_gt(lf.records_lost, 0);
	ck_assert_uint_eq(lf.records_written + lf.records_lost, n);
	got = slurp("p.csv");
	size = strlen(got);
	ck_assert_int_le(size, 100001);
	ck_assert_int_eq(got[size - 1], '\n');
	/* the header and two lines per record written, nothing else */
	ck_assert_int_eq(unit_count_lines(got), 1 + 2 * (int) lf.records_written);
	ck_assert_str_eq(got + size - 6, "\"a\nb\"\n");
	free(got);

	/* room again: the next record follows a whole line */
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	logfile_add(&lf, "last\n", 5);
	ck_assert(logfile_flush(&lf));
	ck_assert(!logfile_close(&lf));
	err = unit_stderr_end();
	ck_assert_ptr_nonnull(strstr(err, "could not write to log file"));
	ck_assert_ptr_nonnull(strstr(err, "File too large"));
	ck_assert_ptr_nonnull(strstr(err, "works again"));
	ck_assert_ptr_nonnull(strstr(err, "records could not be written"));
	free(err);
	got = slurp("p.csv");
	size = strlen(got);
	ck_assert_str_eq(got + size - 11, "\"a\nb\"\nlast\n");
	free(got);
}
END_TEST

/* A header that did not get out whole is cut away and written again. */
START_TEST(header_retried)
{
	logfile		lf;
	char	   *cause = NULL;
	char	   *got,
			   *err;
	struct rlimit old;

	limit_file_size(3, &old);
	unit_stderr_begin();
	ck_assert(logfile_open(&lf, path_of("h.csv"), "header\n", 0, &cause));
	logfile_add(&lf, "1\n", 2);
	ck_assert(!logfile_flush(&lf));
	got = slurp("h.csv");
	ck_assert_str_eq(got, "");
	free(got);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	logfile_add(&lf, "2\n", 2);
	ck_assert(!logfile_close(&lf));
	err = unit_stderr_end();
	free(err);
	got = slurp("h.csv");
	ck_assert_str_eq(got, "header\n2\n");
	free(got);
	ck_assert_uint_eq(lf.records_lost, 1);
}
END_TEST

/* "-" is standard output: a header (a pipe or new file), the records, and it stays open. */
START_TEST(standard_output)
{
	logfile		lf;
	char	   *cause = NULL;
	char	   *got;
	int			saved = dup(STDOUT_FILENO);
	int			fd = open(path_of("out"), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	ck_assert(logfile_open(&lf, "-", "h\n", 0, &cause));
	logfile_add(&lf, "1\n", 2);
	ck_assert(logfile_close(&lf));
	ck_assert_int_eq(write(STDOUT_FILENO, "after\n", 6), 6);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	got = slurp("out");
	ck_assert_str_eq(got, "h\n1\nafter\n");
	free(got);
	ck_assert_int_ne(access("-", F_OK), 0);
}
END_TEST

/* Writing past LOGFILE_FLUSH_BYTES flushes without waiting for a tick. */
START_TEST(big_batches_flush)
{
	logfile		lf;
	char	   *cause = NULL;
	char		line[1001];
	struct stat st;

	memset(line, 'x', 999);
	line[999] = '\n';
	line[1000] = '\0';
	ck_assert(logfile_open(&lf, path_of("big"), NULL, 0, &cause));
	for (int i = 0; i < 70; i++)
		logfile_add(&lf, line, 1000);
	ck_assert_int_eq(stat(path_of("big"), &st), 0);
	ck_assert_int_ge(st.st_size, LOGFILE_FLUSH_BYTES);
	ck_assert(logfile_close(&lf));
	ck_assert_int_eq(stat(path_of("big"), &st), 0);
	ck_assert_int_eq(st.st_size, 70000);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_logfile");
	TCase	   *tc = tcase_create("logfile");

	/* every expansion in these tests is of seconds, which no time zone shifts */
	setenv("TZ", "UTC", 1);
	msg_set_progname("pgtempo-waits");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, header_and_append);
	tcase_add_test(tc, buffered);
	tcase_add_test(tc, reopen_after_rename);
	tcase_add_test(tc, strftime_rotation);
	tcase_add_test(tc, expand);
	tcase_add_test(tc, unwritable);
	tcase_add_test(tc, disk_full);
	tcase_add_test(tc, partial_write);
	tcase_add_test(tc, header_retried);
	tcase_add_test(tc, standard_output);
	tcase_add_test(tc, big_batches_flush);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
