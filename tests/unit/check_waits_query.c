/*
 * check_waits_query.c — the SQL pgtempo-waits sends, per server version
 * and source: the columns a version lacks come as typed NULLs, every
 * statement takes the same seven parameters, and pg_blocking_pids() is
 * only called for heavyweight lock waits.
 */
#include "config.h"

#include "query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

typedef void (*builder) (strbuf *sb, const query_caps *c);

static char *
build(builder b, int version)
{
	query_caps	c;
	strbuf		sb;
	char	   *sql;

	query_caps_init(&c, version);
	strbuf_init(&sb);
	b(&sb, &c);
	sql = strbuf_detach(&sb);
	strbuf_free(&sb);			/* detach leaves a fresh buffer behind */
	return sql;
}

static bool
has(const char *sql, const char *s)
{
	return strstr(sql, s) != NULL;
}

/* Capabilities by version. */
START_TEST(caps_by_version)
{
	static const struct
	{
		int			version;
		bool		backend_type,
					leader_pid,
					query_id,
					wait_events,
					role;
	}			cases[] = {
		{90600, false, false, false, false, false},
		{100000, true, false, false, false, true},
		{120005, true, false, false, false, true},
		{130000, true, true, false, false, true},
		{140000, true, true, true, false, true},
		{160004, true, true, true, false, true},
		{170000, true, true, true, true, true},
		{190000, true, true, true, true, true},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		query_caps	c;

		query_caps_init(&c, cases[i].version);
		ck_assert_int_eq(c.server_version, cases[i].version);
		ck_assert_int_eq(c.backend_type, cases[i].backend_type);
		ck_assert_int_eq(c.leader_pid, cases[i].leader_pid);
		ck_assert_int_eq(c.query_id, cases[i].query_id);
		ck_assert_int_eq(c.wait_events_view, cases[i].wait_events);
		ck_assert_int_eq(c.read_all_stats_role, cases[i].role);
	}
}
END_TEST

/* pg_stat_activity's optional columns appear from their version on. */
START_TEST(activity_columns)
{
	static const struct
	{
		int			version;
		const char *want[4];
		const char *not_want[4];
	}			cases[] = {
		{90600, {"'client backend'::text", "NULL::int8, NULL::int4", NULL},
		{"a.backend_type", "a.leader_pid", "a.query_id", NULL}},
		{100000, {"a.backend_type", "NULL::int8, NULL::int4", NULL},
		{"a.leader_pid", "a.query_id", "'client backend'", NULL}},
		{130000, {"a.backend_type", "NULL::int8, a.leader_pid", NULL},
		{"a.query_id", NULL}},
		{150000, {"a.backend_type", "a.query_id, a.leader_pid", NULL},
		{"NULL::int4,", NULL}},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char	   *sql = build(query_activity_sql, cases[i].version);

		for (int j = 0; cases[i].want[j]; j++)
			ck_assert_msg(has(sql, cases[i].want[j]), "%d: missing %s in %s",
						  cases[i].version, cases[i].want[j], sql);
		for (int j = 0; cases[i].not_want[j]; j++)
			ck_assert_msg(!has(sql, cases[i].not_want[j]), "%d: unexpected %s in %s",
						  cases[i].version, cases[i].not_want[j], sql);
		/* the sampler's own backend is excluded, idle ones unless asked for */
		ck_assert(has(sql, "a.pid <> pg_catalog.pg_backend_pid()"));
		ck_assert(has(sql, "a.state = 'idle' OR a.wait_event_type = 'Activity'"));
		free(sql);
	}
}
END_TEST

/* Every statement uses exactly $1..$7, so one set of parameters fits all. */
START_TEST(parameters)
{
	static const builder builders[] = {
		query_activity_sql, query_pg_wait_sampling_sql,
		query_pg_stat_wait_current_sql, query_pg_stat_wait_profile_sql
	};
	static const int versions[] = {90600, 100000, 130000, 140000, 170000, 190000};

	for (size_t b = 0; b < sizeof(builders) / sizeof(builders[0]); b++)
		for (size_t v = 0; v < sizeof(versions) / sizeof(versions[0]); v++)
		{
			char	   *sql = build(builders[b], versions[v]);
			int			depth = 0;

			for (int p = 1; p <= QUERY_NPARAMS; p++)
			{
				char		ph[8];

				snprintf(ph, sizeof(ph), "$%d::", p);
				ck_assert_msg(has(sql, ph), "builder %zu, %d: no %s", b, versions[v], ph);
			}
			ck_assert(!has(sql, "$8"));
			ck_assert(!has(sql, "$0"));
			/* parentheses balance */
			for (const char *c = sql; *c; c++)
			{
				depth += *c == '(';
				depth -= *c == ')';
				ck_assert_int_ge(depth, 0);
			}
			ck_assert_int_eq(depth, 0);
			free(sql);
		}
}
END_TEST

/* pg_blocking_pids() is called only for rows waiting on a heavyweight lock. */
START_TEST(blocking_pids_only_for_locks)
{
	char	   *sql = build(query_activity_sql, 150000);
	const char *p = strstr(sql, "pg_blocking_pids");

	ck_assert_ptr_nonnull(p);
	ck_assert(has(sql, "CASE WHEN a.wait_event_type = 'Lock' THEN pg_catalog.pg_blocking_pids(a.pid) END"));
	ck_assert_ptr_null(strstr(p + 1, "pg_blocking_pids"));
	free(sql);
	/* the in-server profiles have no current lock wait to ask about */
	sql = build(query_pg_wait_sampling_sql, 150000);
	ck_assert(!has(sql, "pg_blocking_pids"));
	free(sql);
}
END_TEST

/* The other sources read their views, with the same column list. */
START_TEST(other_sources)
{
	char	   *sql = build(query_pg_wait_sampling_sql, 150000);

	ck_assert(has(sql, "FROM pg_wait_sampling_profile p"));
	ck_assert(has(sql, "p.count::int8"));
	ck_assert(has(sql, "(p.event_type = 'Client' AND p.event = 'ClientRead')"));
	free(sql);
	sql = build(query_pg_stat_wait_current_sql, 150000);
	ck_assert(has(sql, "LEFT JOIN pg_stat_wait_current w ON w.pid = a.pid"));
	ck_assert(has(sql, "w.wait_time::int8"));
	free(sql);
	sql = build(query_pg_stat_wait_profile_sql, 150000);
	ck_assert(has(sql, "FROM pg_stat_wait_profile s"));
	ck_assert(has(sql, "s.wait_count::int8, s.wait_time::int8"));
	free(sql);
	ck_assert(strstr(query_wait_events_sql, "pg_catalog.pg_wait_events") != NULL);
	ck_assert(strstr(query_detect_sql, "pg_stat_wait_profile") != NULL);
	ck_assert(strstr(query_detect_sql, "'pg_wait_sampling'") != NULL);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_query");
	TCase	   *tc = tcase_create("query");

	tcase_add_test(tc, caps_by_version);
	tcase_add_test(tc, activity_columns);
	tcase_add_test(tc, parameters);
	tcase_add_test(tc, blocking_pids_only_for_locks);
	tcase_add_test(tc, other_sources);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
