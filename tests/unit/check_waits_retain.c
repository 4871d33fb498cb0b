/*
 * check_waits_retain.c — --log-retain: which names a pattern made, which
 * files go past an age or a size, and a run of logfile that deletes the
 * old files of its pattern and nothing else.
 */
#include "config.h"

#include "retain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "pgtempo/msg.h"

#include "logfile.h"
#include "options.h"

#include "unit.h"

/* Names a pattern made, and names it did not. */
START_TEST(name_matches)
{
	static const struct
	{
		const char *pattern;
		const char *name;
		bool		match;
	}			cases[] = {
		{"/var/log/w-%Y%m%d.csv", "w-20261126.csv", true},
		{"/var/log/w-%Y%m%d.csv", "w-2026112.csv", false},
		{"/var/log/w-%Y%m%d.csv", "w-202611260.csv", false},
		{"/var/log/w-%Y%m%d.csv", "w-backup.csv", false},
		{"/var/log/w-%Y%m%d.csv", "w-20261126.csv.gz", false},
		{"/var/log/w-%Y%m%d.csv", "x-20261126.csv", false},
		{"w-%Y-%m-%dT%H.jsonl", "w-2026-11-26T03.jsonl", true},
		{"w-%Y-%m-%dT%H.jsonl", "w-2026-11-26T3.jsonl", false},
		{"w-%a-%H%%.csv", "w-Thu-03%.csv", true},
		{"w-%a-%H%%.csv", "w--03%.csv", false},
		{"w-%s.csv", "w-1795662600.csv", true},
		{"w-%s.csv", "w-.csv", false},
		{"w-%e.csv", "w- 6.csv", true},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(retain_name_matches(cases[i].pattern, cases[i].name) == cases[i].match,
					  "%s ~ %s", cases[i].pattern, cases[i].name);
}
END_TEST

/* Patterns whose files can be told, and the ones that cannot. */
START_TEST(pattern_ok)
{
	static const struct
	{
		const char *pattern;
		const char *error;		/* NULL: fine */
	}			cases[] = {
		{"/var/log/w-%Y%m%d.csv", NULL},
		{"w-%F.csv", "escape %F is not one of"},
		{"/var/log/%Y/w-%m.csv", "in the file name, not in its directory"},
		{"/var/log/w.csv", "is never rotated"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char	   *cause = NULL;
		bool		ok = retain_pattern_ok(cases[i].pattern, &cause);

		ck_assert_msg(ok == (cases[i].error == NULL), "%s", cases[i].pattern);
		if (!ok)
			ck_assert_msg(strstr(cause, cases[i].error) != NULL, "%s", cause);
		free(cause);
	}
}
END_TEST

/* The age limit and the size limit, newest kept first. */
START_TEST(choose)
{
	const time_t now = 1000000;
	retain_file files[] = {
		{"a", now - 100, 10}, {"b", now - 5000, 10}, {"c", now - 200, 10}, {"d", now - 300, 10},
	};
	static const struct
	{
		int64_t		age,
					bytes,
					current;
		const char *keep;		/* of a b c d */
	}			cases[] = {
		{0, 0, 0, "yyyy"},
		{1000, 0, 0, "ynyy"},
		{250, 0, 0, "ynyn"},
		{0, 30, 0, "ynyy"},
		{0, 30, 5, "ynyn"},
		{0, 25, 15, "ynnn"},
		{150, 1000, 0, "ynnn"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		bool		keep[4];
		char		got[5] = "";

		retain_choose(files, 4, now, cases[i].age, cases[i].bytes, cases[i].current, keep);
		for (int k = 0; k < 4; k++)
			got[k] = keep[k] ? 'y' : 'n';
		ck_assert_msg(strcmp(got, cases[i].keep) == 0, "case %zu: %s", i, got);
	}
}
END_TEST

/* Make a file of size bytes last written age seconds before now. */
static void
make_file(const char *dir, const char *name, size_t size, time_t now, time_t age)
{
	char		path[256];
	FILE	   *f;
	struct timeval tv[2];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	for (size_t i = 0; i < size; i++)
		fputc('x', f);
	ck_assert_int_eq(fclose(f), 0);
	tv[0].tv_sec = tv[1].tv_sec = now - age;
	tv[0].tv_usec = tv[1].tv_usec = 0;
	ck_assert_int_eq(utimes(path, tv), 0);
}

/* Does dir/name exist? */
static bool
exists(const char *dir, const char *name)
{
	char		path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* A log with --log-retain deletes its pattern's old files at open, and no other file. */
START_TEST(logfile_deletes)
{
	char		dir[] = "/tmp/check_waits_retain.XXXXXX";
	char		pattern[128];
	char		cmd[160];
	time_t		now = time(NULL);
	logfile		lf;
	char	   *cause = NULL;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(pattern, sizeof(pattern), "%s/w-%%Y%%m%%d%%H%%M%%S.csv", dir);
	make_file(dir, "w-20200101000000.csv", 10, now, 3 * 86400);	/* old: goes */
	make_file(dir, "w-20200102000000.csv", 10, now, 3600);	/* recent: stays */
	make_file(dir, "w-backup.csv", 10, now, 30 * 86400);	/* not the pattern's: stays */
	make_file(dir, "w-20200101000000.csv.gz", 10, now, 30 * 86400);	/* nor this */
	make_file(dir, "other.csv", 10, now, 30 * 86400);
	ck_assert(logfile_open(&lf, pattern, "h\n", now, &cause));
	logfile_retain(&lf, 86400LL * 1000000000, 0, now);
	ck_assert(!exists(dir, "w-20200101000000.csv"));
	ck_assert(exists(dir, "w-20200102000000.csv"));
	ck_assert(exists(dir, "w-backup.csv"));
	ck_assert(exists(dir, "w-20200101000000.csv.gz"));
	ck_assert(exists(dir, "other.csv"));
	/* a size limit smaller than the file being written deletes every other one, never it */
	logfile_add(&lf, "0123456789\n", 11);
	ck_assert(logfile_flush(&lf));
	lf.retain_bytes = 5;
	logfile_tick(&lf, now + 61, false);
	ck_assert(!exists(dir, "w-20200102000000.csv"));
	ck_assert(access(lf.path, F_OK) == 0);
	ck_assert(exists(dir, "w-backup.csv"));
	ck_assert(logfile_close(&lf));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/*
 * A directory that cannot be listed: a warning that says so, once while it
 * lasts (the directory moved away while the file stays open: the same for
 * root, whom a mode would not stop).
 */
START_TEST(unreadable_dir_said_once)
{
	char		dir[] = "/tmp/check_waits_retain.XXXXXX";
	char		sub[160],
				moved[160],
				pattern[192],
				cmd[192];
	time_t		now = time(NULL);
	logfile		lf;
	char	   *cause = NULL;
	char	   *err;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/logs", dir);
	snprintf(moved, sizeof(moved), "%s/moved", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(pattern, sizeof(pattern), "%s/w-%%Y.csv", sub);
	ck_assert(logfile_open(&lf, pattern, "h\n", now, &cause));
	ck_assert_int_eq(rename(sub, moved), 0);
	unit_stderr_begin();
	logfile_retain(&lf, 86400LL * 1000000000, 0, now);
	logfile_tick(&lf, now + 61, false);
	logfile_tick(&lf, now + 122, false);
	err = unit_stderr_end();
	ck_assert_msg(strstr(err, "pgtempo-waits: warning: could not open directory \"") != NULL &&
				  strstr(err, "/logs/\" to delete old log files: No such file or directory\n") != NULL,
				  "%s", err);
	ck_assert_int_eq(unit_count_lines(err), 1);
	free(err);
	/* the directory back: the next failure is said again */
	ck_assert_int_eq(rename(moved, sub), 0);
	lf.next_retain = 0;
	logfile_retain(&lf, 86400LL * 1000000000, 0, now + 183);
	ck_assert_int_eq(rename(sub, moved), 0);
	unit_stderr_begin();
	logfile_tick(&lf, now + 244, false);
	err = unit_stderr_end();
	ck_assert_int_eq(unit_count_lines(err), 1);
	free(err);
	ck_assert_int_eq(rename(moved, sub), 0);
	ck_assert(logfile_close(&lf));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* --log-retain's values. */
START_TEST(parse_retain)
{
	static const struct
	{
		const char *arg;
		int64_t		age_ns;
		int64_t		bytes;
		const char *error;
	}			cases[] = {
		{"7d", 7 * 86400LL * 1000000000, 0, NULL},
		{"36h", 36 * 3600LL * 1000000000, 0, NULL},
		{"90min", 5400LL * 1000000000, 0, NULL},
		{"1.5GB", 0, 1610612736, NULL},
		{"500 MB", 0, 524288000, NULL},
		{"1.5d", 129600LL * 1000000000, 0, NULL},
		{"3600 s", 3600LL * 1000000000, 0, NULL},
		{"1TB", 0, 1099511627776LL, NULL},
		{"7", 0, 0, "must be an age with a unit"},
		{"0.5s", 0, 0, "must be an age with a unit"},
		{"0x1h", 0, 0, "must be an age with a unit"},
		{"0x1GB", 0, 0, "must be an age with a unit"},
		{"1e1d", 0, 0, "must be an age with a unit"},
		{"infd", 0, 0, "must be an age with a unit"},
		{"nanGB", 0, 0, "must be an age with a unit"},
		{"7 days", 0, 0, "must be an age with a unit"},
		{"5 parsecs", 0, 0, "must be an age with a unit"},
		{"-1d", 0, 0, "must be an age with a unit"},
		{"GB", 0, 0, "must be an age with a unit"},
		{"0.0001kB", 0, 0, "must be an age with a unit"},
		{"0.001min", 0, 0, "must be an age with a unit"},
		{"1e300d", 0, 0, "must be an age with a unit"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		waits_settings s = WAITS_SETTINGS_INIT;
		char	   *cause = NULL;
		bool		ok = options_parse_retain(cases[i].arg, &s, &cause);

		ck_assert_msg(ok == (cases[i].error == NULL), "%s", cases[i].arg);
		if (ok)
			ck_assert_msg(s.log_retain_ns == cases[i].age_ns &&
						  s.log_retain_bytes == cases[i].bytes, "%s", cases[i].arg);
		else
			ck_assert_msg(strstr(cause, cases[i].error) != NULL &&
						  strstr(cause, "for option --log-retain") != NULL, "%s", cause);
		free(cause);
	}
	/* an age and a size: once each */
	{
		waits_settings s = WAITS_SETTINGS_INIT;
		char	   *cause = NULL;

		ck_assert(options_parse_retain("2d", &s, &cause));
		ck_assert(options_parse_retain("1GB", &s, &cause));
		ck_assert(!options_parse_retain("3d", &s, &cause));
		ck_assert_ptr_nonnull(strstr(cause, "the age twice"));
		free(cause);
	}
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_retain");
	TCase	   *tc = tcase_create("retain");

	setenv("TZ", "UTC", 1);
	msg_set_progname("pgtempo-waits");
	tcase_add_test(tc, name_matches);
	tcase_add_test(tc, pattern_ok);
	tcase_add_test(tc, choose);
	tcase_add_test(tc, logfile_deletes);
	tcase_add_test(tc, unreadable_dir_said_once);
	tcase_add_test(tc, parse_retain);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
