/*
 * check_waits_query.c — the SQL pgtempo-waits sends, per server version,
 * source and options: the columns a version lacks come as typed NULLs,
 * pg_stat_activity is read without the view's joins, only the filters in
 * use are in the statement (numbered the same way for every source), and
 * pg_blocking_pids() is only called for heavyweight lock waits.
 */
#include "config.h"

#include "query.h"
#include "source.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "unit.h"
#include "waits.h"

typedef void (*builder) (strbuf *sb, const query_caps *c, const query_opts *o);

static const query_opts no_opts;

static const query_opts all_opts = {
	.pids = true, .dbs = true, .users = true, .apps = true, .backend_types = true,
	.include_idle = true, .query_text = true
};

static char *
build_with(builder b, int version, const query_opts *o)
{
	query_caps	c;
	strbuf		sb;
	char	   *sql;

	query_caps_init(&c, version);
	strbuf_init(&sb);
	b(&sb, &c, o);
	sql = strbuf_detach(&sb);
	strbuf_free(&sb);			/* detach leaves a fresh buffer behind */
	return sql;
}

static char *
build(builder b, int version)
{
	return build_with(b, version, &no_opts);
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
		const char *want[5];
		const char *not_want[5];
	}			cases[] = {
		{90600, {"'client backend'::text", "NULL::int8, NULL::int4", "a.datid <> 0", NULL},
		{"a.backend_type", "a.leader_pid", "a.query_id", NULL}},
		{100000, {"a.backend_type", "NULL::int8, NULL::int4", NULL},
		{"a.leader_pid", "a.query_id", "'client backend'", "a.datid <> 0", NULL}},
		{130000, {"a.backend_type", "NULL::int8, a.leader_pid", NULL},
		{"a.query_id", NULL}},
		{150000, {"a.backend_type", "a.query_id, a.leader_pid", NULL},
		{"NULL::int4,", NULL}},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char	   *sql = build(source_activity_sql, cases[i].version);

		for (int j = 0; cases[i].want[j]; j++)
			ck_assert_msg(has(sql, cases[i].want[j]), "%d: missing %s in %s",
						  cases[i].version, cases[i].want[j], sql);
		for (int j = 0; cases[i].not_want[j]; j++)
			ck_assert_msg(!has(sql, cases[i].not_want[j]), "%d: unexpected %s in %s",
						  cases[i].version, cases[i].not_want[j], sql);
		/* the sampler's own backend is excluded, idle ones unless asked for */
		ck_assert(has(sql, "a.pid <> pg_catalog.pg_backend_pid()"));
		ck_assert(has(sql, "a.state IS DISTINCT FROM 'idle'"
					  " AND a.wait_event_type IS DISTINCT FROM 'Activity'"));
		/* the function under the view, without its joins: names come as oids */
		ck_assert(has(sql, "FROM pg_catalog.pg_stat_get_activity(NULL) a"));
		ck_assert(has(sql, "a.datid, a.usesysid,"));
		ck_assert(!has(sql, "pg_stat_activity"));
		ck_assert(!has(sql, "pg_database"));
		ck_assert(!has(sql, "pg_roles"));
		ck_assert(!has(sql, "pg_authid"));
		/* no filter, no parameter */
		ck_assert(!has(sql, "$"));
		/* no query text, one sample per row, no measured time: the last columns are left out */
		ck_assert(has(sql, "a.query = '<insufficient privilege>' FROM"));
		free(sql);
	}
}
END_TEST

/* Parameters are numbered in one order, skipping the filters not in use. */
START_TEST(param_numbers)
{
	static const struct
	{
		query_opts	o;
		query_params want;
	}			cases[] = {
		{{0}, {0, 0, 0, 0, 0, 0, 0}},
		{{.include_idle = true}, {0, 0, 0, 0, 0, 0, 0}},
		{{.query_text = true}, {0, 0, 0, 0, 0, 1, 1}},
		{{.users = true, .backend_types = true}, {0, 0, 1, 0, 2, 0, 2}},
		{{.pids = true, .apps = true, .query_text = true}, {1, 0, 0, 2, 0, 3, 3}},
		{{.pids = true, .dbs = true, .users = true, .apps = true, .backend_types = true,
		.query_text = true}, {1, 2, 3, 4, 5, 6, 6}},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		query_params p;

		query_number_params(&cases[i].o, &p);
		ck_assert_msg(memcmp(&p, &cases[i].want, sizeof(p)) == 0, "case %zu", i);
	}
}
END_TEST

/* The count of $n placeholders with distinct n, and the highest n. */
static int
max_param(const char *sql)
{
	int			max = 0;

	for (const char *c = strchr(sql, '$'); c != NULL; c = strchr(c + 1, '$'))
	{
		int			n = atoi(c + 1);

		if (n > max)
			max = n;
	}
	return max;
}

/*
 * Every statement of every source takes exactly the parameters numbered
 * for the options (a source that has no use for one still takes it, so
 * the same values bind to all), each with its type; parentheses balance.
 */
START_TEST(parameters)
{
	static const builder builders[] = {
		source_activity_sql, source_pws_sql,
		source_psw_current_sql, source_psw_profile_sql
	};
	static const int versions[] = {90600, 100000, 130000, 140000, 170000, 190000};
	static const query_opts opts[] = {
		{0},
		{.query_text = true},
		{.dbs = true, .include_idle = true},
		{.pids = true, .users = true, .apps = true, .backend_types = true},
		{.pids = true, .dbs = true, .users = true, .apps = true, .backend_types = true,
		.include_idle = true, .query_text = true},
	};

	for (size_t b = 0; b < sizeof(builders) / sizeof(builders[0]); b++)
		for (size_t v = 0; v < sizeof(versions) / sizeof(versions[0]); v++)
			for (size_t o = 0; o < sizeof(opts) / sizeof(opts[0]); o++)
			{
				char	   *sql = build_with(builders[b], versions[v], &opts[o]);
				query_params p;
				int			depth = 0;
				static const struct
				{
					size_t		off;
					const char *type;
				}			types[] = {
					{offsetof(query_params, pids), "::int4[]"},
					{offsetof(query_params, dbs), "::text[]"},
					{offsetof(query_params, users), "::text[]"},
					{offsetof(query_params, apps), "::text[]"},
					{offsetof(query_params, backend_types), "::text[]"},
					{offsetof(query_params, query_len), "::int4"},
				};

				query_number_params(&opts[o], &p);
				ck_assert_msg(max_param(sql) == p.n, "builder %zu, %d, opts %zu: $%d, want $%d",
							  b, versions[v], o, max_param(sql), p.n);
				for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
				{
					int			n = *(const int *) ((const char *) &p + types[t].off);
					char		ph[24];

					if (n == 0)
						continue;
					snprintf(ph, sizeof(ph), "$%d%s", n, types[t].type);
					ck_assert_msg(has(sql, ph), "builder %zu, %d, opts %zu: no %s in %s",
								  b, versions[v], o, ph, sql);
				}
				/* idle rows are filtered on the server unless wanted */
				ck_assert_int_eq(has(sql, "'Activity'"), !opts[o].include_idle);
				ck_assert(!has(sql, "$0"));
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

/* Filters by name go through the catalogs, with the values as parameters. */
START_TEST(name_filters)
{
	char	   *sql = build_with(source_activity_sql, 150000, &all_opts);

	ck_assert(has(sql, "a.pid = ANY ($1::int4[])"));
	ck_assert(has(sql, "FROM pg_catalog.pg_stat_get_activity(NULL) a WHERE"));
	/* known pids, each alone: one status row per pid, not one per session of the server */
	{
		query_opts	o = all_opts;
		char	   *each;

		o.pids_each = true;
		each = build_with(source_activity_sql, 150000, &o);
		ck_assert(has(each, " FROM (SELECT DISTINCT unnest($1::int4[])) k(pid),"
					  " LATERAL pg_catalog.pg_stat_get_activity(k.pid) a WHERE"));
		ck_assert(!has(each, "pg_stat_get_activity(NULL)"));
		/* the same parameters as the statement it stands in for */
		ck_assert(has(each, "a.application_name = ANY ($4::text[])"));
		ck_assert(has(each, "left(a.query, $6::int4) FROM"));
		free(each);
		/* without a pid filter it means nothing */
		o.pids = false;
		each = build_with(source_activity_sql, 150000, &o);
		ck_assert(has(each, "FROM pg_catalog.pg_stat_get_activity(NULL) a WHERE"));
		free(each);
	}
	ck_assert(has(sql, "a.datid IN (SELECT d.oid FROM pg_catalog.pg_database d"
				  " WHERE d.datname::text = ANY ($2::text[]))"));
	ck_assert(has(sql, "a.usesysid IN (SELECT r.oid FROM pg_catalog.pg_roles r"
				  " WHERE r.rolname::text = ANY ($3::text[]))"));
	ck_assert(has(sql, "a.application_name = ANY ($4::text[])"));
	ck_assert(has(sql, "AND (a.backend_type = ANY ($5::text[]) OR a.backend_type IS NULL)"));
	ck_assert(has(sql, "a.query = '<insufficient privilege>', left(a.query, $6::int4) FROM"));
	free(sql);
	/* "background worker": also every type PostgreSQL does not set itself */
	{
		query_opts	o = all_opts;

		o.backend_type_other = sampler_backend_types;
		sql = build_with(source_activity_sql, 150000, &o);
		ck_assert(has(sql, "AND (a.backend_type = ANY ($5::text[]) OR a.backend_type IS NULL"
					  " OR a.backend_type <> ALL "
					  "(ARRAY['client backend', 'parallel worker', "));
		ck_assert(has(sql, "'io worker']))"));
		free(sql);
	}
	/* a source with measured time has every column */
	sql = build_with(source_psw_current_sql, 150000, &no_opts);
	ck_assert(has(sql, "a.query = '<insufficient privilege>', NULL::text, 1::int8, w.wait_time::int8 FROM"));
	free(sql);
	/* before 10 every row is a client backend */
	sql = build_with(source_activity_sql, 90600, &all_opts);
	ck_assert(has(sql, "('client backend'::text = ANY ($5::text[])"));
	free(sql);
	/* the catalogs every user may read */
	ck_assert(strstr(query_names_sql, "pg_catalog.pg_database") != NULL);
	ck_assert(strstr(query_names_sql, "pg_catalog.pg_roles") != NULL);
	ck_assert(strstr(query_names_sql, "pg_authid") == NULL);
}
END_TEST

/* Columns the run does not use come back as NULL of their type. */
START_TEST(omitted_columns)
{
	query_opts	o = no_opts;
	char	   *sql;

	o.omit = SAMPLER_OMIT_BACKEND_START | SAMPLER_OMIT_DATID | SAMPLER_OMIT_USESYSID |
		SAMPLER_OMIT_APPNAME | SAMPLER_OMIT_CLIENT_ADDR | SAMPLER_OMIT_LEADER_PID;
	sql = build_with(source_activity_sql, 150000, &o);
	ck_assert(has(sql, "SELECT a.pid, NULL::timestamptz, a.backend_type, NULL::oid, NULL::oid,"
				  " NULL::text, NULL::inet, a.state, a.wait_event_type, a.wait_event,"
				  " a.query_id, NULL::int4,"));
	free(sql);
	o.omit = SAMPLER_OMIT_CLIENT_ADDR;
	sql = build_with(source_activity_sql, 150000, &o);
	ck_assert(has(sql, "SELECT a.pid, a.backend_start, a.backend_type, a.datid, a.usesysid,"
				  " a.application_name, NULL::inet, a.state,"));
	ck_assert(has(sql, "a.query_id, a.leader_pid,"));
	free(sql);
}
END_TEST

/* Which columns a run omits, from its outputs, --by keys and filters. */
START_TEST(omit_for_settings)
{
	/* backend_start and leader_pid never: the head blockers need them */
	static const unsigned all = SAMPLER_OMIT_DATID |
		SAMPLER_OMIT_USESYSID | SAMPLER_OMIT_APPNAME | SAMPLER_OMIT_CLIENT_ADDR;
	waits_settings s = WAITS_SETTINGS_INIT;
	char		log[] = "x.csv";

	ck_assert_uint_eq(options_query_omit(&s), all);
	s.by[0] = WPROF_DIM_PID;
	ck_assert_uint_eq(options_query_omit(&s), SAMPLER_OMIT_APPNAME | SAMPLER_OMIT_CLIENT_ADDR);
	s.by[0] = WPROF_DIM_APP;
	ck_assert_uint_eq(options_query_omit(&s), all & ~SAMPLER_OMIT_APPNAME);
	s.by[0] = WPROF_DIM_EVENT;
	s.top = true;
	ck_assert_uint_eq(options_query_omit(&s), 0);
	s.top = false;
	s.log_path = log;
	ck_assert_uint_eq(options_query_omit(&s), 0);
}
END_TEST

/* pg_blocking_pids() is called only for rows waiting on a heavyweight lock. */
START_TEST(blocking_pids_only_for_locks)
{
	char	   *sql = build(source_activity_sql, 150000);
	const char *p = strstr(sql, "pg_blocking_pids");

	ck_assert_ptr_nonnull(p);
	ck_assert(has(sql, "CASE WHEN a.wait_event_type = 'Lock' THEN pg_catalog.pg_blocking_pids(a.pid) END"));
	ck_assert_ptr_null(strstr(p + 1, "pg_blocking_pids"));
	free(sql);
	/* the in-server profiles have no current lock wait to ask about */
	sql = build(source_pws_sql, 150000);
	ck_assert(!has(sql, "pg_blocking_pids"));
	free(sql);
}
END_TEST

/* The other sources read their views, with the same column list. */
START_TEST(other_sources)
{
	char	   *sql = build(source_pws_sql, 150000);

	ck_assert(has(sql, "FROM pg_wait_sampling_profile p"));
	ck_assert(has(sql, "p.count::int8"));
	ck_assert(has(sql, "(p.event_type = 'Client' AND p.event = 'ClientRead')"));
	free(sql);
	sql = build(source_psw_current_sql, 150000);
	ck_assert(has(sql, "LEFT JOIN pg_stat_wait_current w ON w.pid = a.pid"));
	ck_assert(has(sql, "w.wait_time::int8"));
	free(sql);
	sql = build(source_psw_profile_sql, 150000);
	ck_assert(has(sql, "FROM pg_stat_wait_profile s"));
	ck_assert(has(sql, "s.wait_count::int8, s.wait_time::int8"));
	free(sql);
	ck_assert(strstr(query_wait_events_sql, "pg_catalog.pg_wait_events") != NULL);
	ck_assert(strstr(query_detect_sql, "pg_stat_wait_profile") != NULL);
	ck_assert(strstr(query_detect_sql, "'pg_wait_sampling'") != NULL);
	ck_assert(strstr(query_detect_sql, "to_regclass('pg_stat_wait_history')") != NULL);
}
END_TEST

/* pg_stat_wait_history: only what came after the last read, oldest first, filtered. */
START_TEST(history_since)
{
	query_caps	c;
	strbuf		sb;

	query_caps_init(&c, 150000);
	strbuf_init(&sb);
	source_psw_history_sql(&sb, &c, &no_opts, -1);
	ck_assert(has(sb.data, "FROM pg_stat_wait_history h"));
	ck_assert(has(sb.data, "round(extract(epoch FROM h.sample_ts) * 1000000)::int8"));
	ck_assert(has(sb.data, "WHERE h.pid <> pg_catalog.pg_backend_pid()"));
	ck_assert(!has(sb.data, "h.sample_ts >"));
	ck_assert(has(sb.data, " AND h.sample_ts IS NOT NULL"));
	ck_assert(has(sb.data, " ORDER BY h.sample_ts"));
	strbuf_reset(&sb);
	source_psw_history_sql(&sb, &c, &all_opts, INT64_C(1732400000123456));
	ck_assert(has(sb.data, " AND h.sample_ts > 'epoch'::timestamptz + 1732400000123456"
				  " * interval '1 microsecond' ORDER BY h.sample_ts"));
	/* the filters take the sampling statement's parameters */
	ck_assert(has(sb.data, "h.pid = ANY ($1::int4[])"));
	ck_assert(has(sb.data, "a.application_name = ANY ($4::text[])"));
	ck_assert(!has(sb.data, "ClientRead"));	/* --include-idle */
	strbuf_free(&sb);
	ck_assert(has(source_psw_history_last_sql, "max(sample_ts)"));
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_query");
	TCase	   *tc = tcase_create("query");

	tcase_add_test(tc, caps_by_version);
	tcase_add_test(tc, activity_columns);
	tcase_add_test(tc, param_numbers);
	tcase_add_test(tc, parameters);
	tcase_add_test(tc, name_filters);
	tcase_add_test(tc, blocking_pids_only_for_locks);
	tcase_add_test(tc, omitted_columns);
	tcase_add_test(tc, omit_for_settings);
	tcase_add_test(tc, other_sources);
	tcase_add_test(tc, history_since);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
