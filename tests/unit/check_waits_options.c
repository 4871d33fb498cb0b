/*
 * check_waits_options.c — option values of pgtempo-waits: --by,
 * --source, --pid, --log-format and the log format a file name implies.
 */
#include "config.h"

#include "options.h"

#include <stdlib.h>
#include <string.h>

#include "unit.h"

/* --backend-type: lists, all, and unknown types listed against the valid ones. */
START_TEST(backend_type_lists)
{
	sampler_strlist l = {0};
	bool		all = false;
	char	   *cause = NULL;

	ck_assert(options_parse_backend_types("client backend,checkpointer", &l, &all, &cause));
	ck_assert_int_eq(l.n, 2);
	ck_assert_str_eq(l.v[1], "checkpointer");
	ck_assert(!all);
	ck_assert(options_parse_backend_types("background worker", &l, &all, &cause));
	ck_assert_int_eq(l.n, 3);
	ck_assert(options_parse_backend_types("all", &l, &all, &cause));
	ck_assert(all);
	ck_assert(!options_parse_backend_types("checkpointer,bgwriter", &l, &all, &cause));
	ck_assert(strncmp(cause, "invalid value \"checkpointer,bgwriter\" for option --backend-type: "
					  "\"bgwriter\" is not a backend type; valid are all, \"client backend\", ",
					  120) == 0);
	ck_assert(strstr(cause, "\"background writer\"") != NULL);
	free(cause);
	ck_assert(!options_parse_backend_types("", &l, &all, &cause));
	free(cause);
	options_strlist_free(&l);
	options_default_backend_types_fill(&l);
	ck_assert_int_eq(l.n, 4);
	ck_assert_str_eq(l.v[0], "client backend");
	ck_assert_str_eq(l.v[3], "walsender");
	options_strlist_free(&l);
}
END_TEST

START_TEST(by_lists)
{
	static const struct
	{
		const char *arg;
		int			n;
		wprof_dim	dims[3];
		const char *error;
	}			cases[] = {
		{"event", 1, {WPROF_DIM_EVENT}, NULL},
		{"pid,event", 2, {WPROF_DIM_PID, WPROF_DIM_EVENT}, NULL},
		{"db,user,app", 3, {WPROF_DIM_DB, WPROF_DIM_USER, WPROF_DIM_APP}, NULL},
		{"backend_type", 1, {WPROF_DIM_BACKEND_TYPE}, NULL},
		{"query", 1, {WPROF_DIM_QUERY}, NULL},
		{"", 0, {0}, "invalid value \"\" for option --by: must be a comma-separated list of "
		"event, pid, query, db, user, app, backend_type"},
		{"event,", 0, {0}, "invalid value \"event,\" for option --by: must be a comma-separated "
		"list of event, pid, query, db, user, app, backend_type"},
		{"events", 0, {0}, "invalid value \"events\" for option --by: must be a comma-separated "
		"list of event, pid, query, db, user, app, backend_type"},
		{"pid,pid", 0, {0}, "invalid value \"pid,pid\" for option --by: \"pid\" is listed twice"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		wprof_dim	dims[WPROF_DIM_COUNT];
		int			n = -1;
		char	   *cause = NULL;
		bool		ok = options_parse_by(cases[i].arg, dims, &n, &cause);

		if (cases[i].error == NULL)
		{
			ck_assert_msg(ok, "%s: %s", cases[i].arg, cause ? cause : "");
			ck_assert_int_eq(n, cases[i].n);
			for (int j = 0; j < n; j++)
				ck_assert_int_eq(dims[j], cases[i].dims[j]);
		}
		else
		{
			ck_assert_msg(!ok, "%s accepted", cases[i].arg);
			ck_assert_str_eq(cause, cases[i].error);
			free(cause);
		}
	}
}
END_TEST

START_TEST(sources)
{
	static const char *const names[] = {"auto", "activity", "pg_wait_sampling", "pg_stat_wait"};
	sampler_source s;
	char	   *cause = NULL;

	for (int i = 0; i < 4; i++)
	{
		ck_assert(options_parse_source(names[i], &s, &cause));
		ck_assert_int_eq(s, i);
		ck_assert_str_eq(options_source_name(s), names[i]);
	}
	ck_assert(!options_parse_source("pgsentinel", &s, &cause));
	ck_assert_str_eq(cause, "invalid value \"pgsentinel\" for option --source: must be auto, "
					 "activity, pg_wait_sampling or pg_stat_wait");
	free(cause);
}
END_TEST

START_TEST(pid_lists)
{
	int32_t    *pids = NULL;
	int			n = 0;
	char	   *cause = NULL;

	ck_assert(options_parse_pids("12", &pids, &n, &cause));
	ck_assert(options_parse_pids("3,4, 5", &pids, &n, &cause));
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(pids[0], 12);
	ck_assert_int_eq(pids[3], 5);
	ck_assert(options_parse_pids("2147483647", &pids, &n, &cause));
	ck_assert_int_eq(pids[4], 2147483647);
	for (size_t i = 0; i < 6; i++)
	{
		static const char *const bad[] = {"0", "-1", "x", "1,,2", "2147483648", ""};

		ck_assert_msg(!options_parse_pids(bad[i], &pids, &n, &cause), "%s accepted", bad[i]);
		ck_assert(strstr(cause, "for option --pid: must be a process ID") != NULL);
		free(cause);
	}
	free(pids);
}
END_TEST

START_TEST(log_formats)
{
	waits_log_format f;
	char	   *cause = NULL;

	ck_assert(options_parse_log_format("csv", &f, &cause));
	ck_assert_int_eq(f, WAITS_LOG_CSV);
	ck_assert(options_parse_log_format("jsonl", &f, &cause));
	ck_assert_int_eq(f, WAITS_LOG_JSONL);
	ck_assert(!options_parse_log_format("json", &f, &cause));
	ck_assert_str_eq(cause, "invalid value \"json\" for option --log-format: must be csv or jsonl");
	free(cause);

	ck_assert_int_eq(options_log_format_for("w.jsonl", WAITS_LOG_AUTO), WAITS_LOG_JSONL);
	ck_assert_int_eq(options_log_format_for("w.json", WAITS_LOG_AUTO), WAITS_LOG_JSONL);
	ck_assert_int_eq(options_log_format_for("w.csv", WAITS_LOG_AUTO), WAITS_LOG_CSV);
	ck_assert_int_eq(options_log_format_for("w-%Y.log", WAITS_LOG_AUTO), WAITS_LOG_CSV);
	ck_assert_int_eq(options_log_format_for("w.jsonl", WAITS_LOG_CSV), WAITS_LOG_CSV);
	ck_assert_int_eq(options_log_format_for("w.csv", WAITS_LOG_JSONL), WAITS_LOG_JSONL);
}
END_TEST

START_TEST(strlists)
{
	sampler_strlist l = {0, NULL};

	options_strlist_add(&l, "a,b");
	options_strlist_add(&l, "");
	ck_assert_int_eq(l.n, 2);
	ck_assert_str_eq(l.v[0], "a,b");
	ck_assert_str_eq(l.v[1], "");
	options_strlist_free(&l);
	ck_assert_int_eq(l.n, 0);
	ck_assert_ptr_null(l.v);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_options");
	TCase	   *tc = tcase_create("options");

	tcase_add_test(tc, by_lists);
	tcase_add_test(tc, backend_type_lists);
	tcase_add_test(tc, sources);
	tcase_add_test(tc, pid_lists);
	tcase_add_test(tc, log_formats);
	tcase_add_test(tc, strlists);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
