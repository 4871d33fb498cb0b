/*
 * check_waits_options.c — option values of pgtempo-waits: --by,
 * --source, --pid, --log-format and the log format a file name implies,
 * --listen's addresses.
 */
#include "config.h"

#include "options.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

#include "unit.h"

/* --backend-type: lists, all, and unknown types listed against the valid ones. */
START_TEST(backend_type_lists)
{
	waits_settings s = WAITS_SETTINGS_INIT;
	sampler_strlist l = {0};
	char	   *cause = NULL;

	ck_assert(options_parse_backend_types("client backend,checkpointer", &s, &cause));
	ck_assert_int_eq(s.backend_types.n, 2);
	ck_assert_str_eq(s.backend_types.v[1], "checkpointer");
	ck_assert(!s.backend_types_all);
	ck_assert(options_parse_backend_types("background worker", &s, &cause));
	ck_assert_int_eq(s.backend_types.n, 3);
	ck_assert(options_parse_backend_types("all", &s, &cause));
	ck_assert(s.backend_types_all);
	ck_assert(!options_parse_backend_types("checkpointer,bgwriter", &s, &cause));
	ck_assert(strncmp(cause, "invalid value \"checkpointer,bgwriter\" for option --backend-type: "
					  "\"bgwriter\" is not a backend type; valid are all, \"client backend\", ",
					  120) == 0);
	ck_assert(strstr(cause, "\"background writer\"") != NULL);
	free(cause);
	ck_assert(!options_parse_backend_types("", &s, &cause));
	free(cause);
	options_strlist_free(&s.backend_types);
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
		waits_settings s = WAITS_SETTINGS_INIT;
		char	   *cause = NULL;
		bool		ok = options_parse_by(cases[i].arg, &s, &cause);

		if (cases[i].error == NULL)
		{
			ck_assert_msg(ok, "%s: %s", cases[i].arg, cause ? cause : "");
			ck_assert_int_eq(s.nby, cases[i].n);
			for (int j = 0; j < s.nby; j++)
				ck_assert_int_eq(s.by[j], cases[i].dims[j]);
		}
		else
		{
			/* a list refused leaves the default */
			ck_assert_msg(!ok, "%s accepted", cases[i].arg);
			ck_assert(s.nby == 1 && s.by[0] == WPROF_DIM_EVENT);
			ck_assert_str_eq(cause, cases[i].error);
			free(cause);
		}
	}
}
END_TEST

/* --fail-if lists: what each item names, its limit, and the errors. */
START_TEST(fail_if_lists)
{
#define FI_EXAMPLE ", as in \"Lock:+0.5,total:+50%\""
#define FI_ITEM "each item is NAME:LIMIT or NAME<LIMIT" FI_EXAMPLE
#define FI_LIMIT "the limit is a signed number of active sessions (+0.5) or a signed percentage (-10%), " \
	"or a ratio after < or > (<0.95x)" FI_EXAMPLE
#define FI_NAME "the name is total, a wait event type, a wait event, or TYPE:EVENT" FI_EXAMPLE
	static const struct
	{
		const char *arg;
		int			n;
		const char *type;		/* of the last item */
		const char *event;
		bool		total,
					either,
					pct;
		double		value;
		const char *why;		/* the error after the value, or NULL */
	}			cases[] = {
		{"Lock:+0.5", 1, "Lock", "", false, true, false, 0.5, NULL},
		{"total:+50%", 1, "total", "", true, false, true, 50, NULL},
		{"Lock:+0.5,total:+50%", 2, "total", "", true, false, true, 50, NULL},
		{"Lock:transactionid:+1", 1, "Lock", "transactionid", false, false, false, 1, NULL},
		{"DataFileRead:-0.25", 1, "DataFileRead", "", false, true, false, -0.25, NULL},
		{"IO:-10%", 1, "IO", "", false, true, true, -10, NULL},
		/* the gate's other spellings */
		{"Lock>0.5", 1, "Lock", "", false, true, false, 0.5, NULL},
		{"Lock:transactionid:<-1", 1, "Lock", "transactionid", false, false, false, -1, NULL},
		{"IO/DataFileRead>+0.25", 1, "IO", "DataFileRead", false, false, false, 0.25, NULL},
		{"total>1.5x", 1, "total", "", true, false, true, 50, NULL},
		{"Lock:+5ms", 0, NULL, NULL, false, false, false, 0, FI_LIMIT},
		/* a live run's disagreement limits: alone, per figure, by a time or a share */
		{"disagree", 1, "", "", false, false, false, 0, NULL},
		{"disagree:wal_syncs", 1, "", "wal_syncs", false, false, false, 0, NULL},
		{"disagree:active_time:+50ms", 1, "", "active_time", false, false, false, 0.05, NULL},
		{"disagree<-10%", 1, "", "", false, false, true, -10, NULL},
		{"Lock:+0.5,disagree", 2, "", "", false, false, false, 0, NULL},
		{"disagree:bogus", 0, NULL, NULL, false, false, false, 0,
		"the figures are active_time, data_file_reads, data_file_writes, wal_writes and "
		"wal_syncs" FI_EXAMPLE},
		{"disagreement", 0, NULL, NULL, false, false, false, 0, FI_ITEM},
		{"", 0, NULL, NULL, false, false, false, 0, "it is empty" FI_EXAMPLE},
		{"Lock", 0, NULL, NULL, false, false, false, 0, FI_ITEM},
		{"Lock:+0.5,", 0, NULL, NULL, false, false, false, 0, "an item is empty" FI_EXAMPLE},
		{"Lock:+0.5,,total:+1", 0, NULL, NULL, false, false, false, 0, "an item is empty" FI_EXAMPLE},
		{"Lock:0.5", 0, NULL, NULL, false, false, false, 0, FI_LIMIT},
		{"Lock:+", 0, NULL, NULL, false, false, false, 0, FI_LIMIT},
		{"Lock:", 0, NULL, NULL, false, false, false, 0, FI_LIMIT},
		{"Lock:+x", 0, NULL, NULL, false, false, false, 0, FI_LIMIT},
		{"Lock:+0.5%%", 0, NULL, NULL, false, false, false, 0, FI_LIMIT},
		{"Lock:+1e3", 0, NULL, NULL, false, false, false, 0, FI_LIMIT},
		{"Lock:+inf", 0, NULL, NULL, false, false, false, 0, FI_LIMIT},
		{"total:-100%", 0, NULL, NULL, false, false, false, 0,
		"a drop cannot be 100 % or more" FI_EXAMPLE},
		{":+1", 0, NULL, NULL, false, false, false, 0, FI_ITEM},
		{"Lock::+1", 0, NULL, NULL, false, false, false, 0, FI_NAME},
		{"a:b:c:+1", 0, NULL, NULL, false, false, false, 0, FI_NAME},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		waits_settings s = WAITS_SETTINGS_INIT;
		char	   *cause = NULL;
		bool		ok = options_parse_fail_if(cases[i].arg, &s, &cause);

		if (cases[i].why == NULL)
		{
			const waits_limit *l = &s.fail_if[s.nfail_if - 1];

			ck_assert_msg(ok, "%s: %s", cases[i].arg, cause ? cause : "");
			ck_assert_int_eq(s.nfail_if, cases[i].n);
			ck_assert_str_eq(l->type, cases[i].type);
			ck_assert_str_eq(l->event, cases[i].event);
			ck_assert(l->total == cases[i].total && l->either == cases[i].either &&
					  (l->lim.unit == GATE_UNIT_PCT) == cases[i].pct);
			ck_assert_double_eq_tol(l->lim.value, cases[i].value, 1e-12);
		}
		else
		{
			char	   *want = xasprintf("invalid value \"%s\" for option --fail-if: %s",
										 cases[i].arg, cases[i].why);

			ck_assert_msg(!ok, "%s accepted", cases[i].arg);
			ck_assert_int_eq(s.nfail_if, 0);
			ck_assert_str_eq(cause, want);
			free(want);
			free(cause);
		}
	}
#undef FI_EXAMPLE
#undef FI_ITEM
#undef FI_LIMIT
#undef FI_NAME
}
END_TEST

START_TEST(sources)
{
	static const char *const names[] = {"auto", "activity", "pg_wait_sampling", "pg_stat_wait"};
	waits_settings s = WAITS_SETTINGS_INIT;
	char	   *cause = NULL;

	for (int i = 0; i < 4; i++)
	{
		ck_assert(options_parse_source(names[i], &s, &cause));
		ck_assert_int_eq(s.source, i);
		ck_assert_str_eq(options_source_name(s.source), names[i]);
	}
	ck_assert(!options_parse_source("pgsentinel", &s, &cause));
	ck_assert_str_eq(cause, "invalid value \"pgsentinel\" for option --source: must be auto, "
					 "activity, pg_wait_sampling or pg_stat_wait");
	free(cause);
}
END_TEST

START_TEST(pid_lists)
{
	waits_settings s = WAITS_SETTINGS_INIT;
	char	   *cause = NULL;

	ck_assert(options_parse_pids("12", &s, &cause));
	ck_assert(options_parse_pids("3,4, 5", &s, &cause));
	ck_assert_int_eq(s.npids, 4);
	ck_assert_int_eq(s.pids[0], 12);
	ck_assert_int_eq(s.pids[3], 5);
	ck_assert(options_parse_pids("2147483647", &s, &cause));
	ck_assert_int_eq(s.pids[4], 2147483647);
	for (size_t i = 0; i < 6; i++)
	{
		static const char *const bad[] = {"0", "-1", "x", "1,,2", "2147483648", ""};

		ck_assert_msg(!options_parse_pids(bad[i], &s, &cause), "%s accepted", bad[i]);
		ck_assert(strstr(cause, "for option --pid: must be a process ID") != NULL);
		free(cause);
	}
	/* --trace: the same list, into its own field */
	ck_assert(options_parse_trace_pids("7,8", &s, &cause));
	ck_assert(s.ntrace_pids == 2 && s.trace_pids[0] == 7 && s.trace_pids[1] == 8);
	free(s.pids);
	free(s.trace_pids);
}
END_TEST

START_TEST(log_formats)
{
	waits_settings s = WAITS_SETTINGS_INIT;
	char	   *cause = NULL;

	ck_assert(options_parse_log_format("csv", &s, &cause));
	ck_assert_int_eq(s.log_format, WAITS_LOG_CSV);
	ck_assert(options_parse_log_format("jsonl", &s, &cause));
	ck_assert_int_eq(s.log_format, WAITS_LOG_JSONL);
	ck_assert(!options_parse_log_format("json", &s, &cause));
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

/* --listen: [HOST:]PORT, IPv6 in brackets; the rest refused with the value named. */
START_TEST(listen_addresses)
{
	static const struct
	{
		const char *arg;
		const char *host;		/* NULL: refused */
		int			port;
	}			cases[] = {
		{"9817", "127.0.0.1", 9817},
		{"0", "127.0.0.1", 0},
		{"127.0.0.1:9817", "127.0.0.1", 9817},
		{"0.0.0.0:1", "0.0.0.0", 1},
		{"localhost:65535", "localhost", 65535},
		{"[::1]:9817", "::1", 9817},
		{"[::]:80", "::", 80},
		{":9817", NULL},
		{"::1:9817", NULL},
		{"[::1]", NULL},
		{"host:", NULL},
		{"host:x", NULL},
		{"65536", NULL},
		{"-1", NULL},
		{"+80", NULL},
		{"", NULL},
		{"[]:80", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		waits_settings s = WAITS_SETTINGS_INIT;
		char	   *cause = NULL;
		bool		ok = options_parse_listen(cases[i].arg, &s, &cause);

		ck_assert_msg(ok == (cases[i].host != NULL), "--listen=%s", cases[i].arg);
		if (ok)
		{
			ck_assert_str_eq(s.listen_host, cases[i].host);
			ck_assert_int_eq(s.listen_port, cases[i].port);
		}
		else
		{
			ck_assert_ptr_nonnull(strstr(cause, "for option --listen"));
			ck_assert_ptr_nonnull(strstr(cause, cases[i].arg));
			ck_assert_int_eq(s.listen_port, -1);
		}
		free(cause);
		free(s.listen_host);
	}
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
	tcase_add_test(tc, fail_if_lists);
	tcase_add_test(tc, backend_type_lists);
	tcase_add_test(tc, sources);
	tcase_add_test(tc, pid_lists);
	tcase_add_test(tc, log_formats);
	tcase_add_test(tc, strlists);
	tcase_add_test(tc, listen_addresses);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
