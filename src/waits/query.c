/*
 * query.c — SQL for the server's version and the source in use.
 */
#include "config.h"

#include "query.h"

const char	query_detect_sql[] =
"SELECT current_setting('server_version_num')::int4,"
" (SELECT extversion::text FROM pg_catalog.pg_extension WHERE extname = 'pg_wait_sampling'),"
" to_regclass('pg_stat_wait_current') IS NOT NULL"
" AND to_regclass('pg_stat_wait_profile') IS NOT NULL,"
" current_user::text";

const char	query_pws_period_sql[] =
"SELECT current_setting('pg_wait_sampling.profile_period', true)";

const char	query_pws_probe_sql[] =
"SELECT count(*) FROM pg_wait_sampling_profile";

const char	query_wait_events_sql[] =
"SELECT type, name, description FROM pg_catalog.pg_wait_events";

/* What a server of this version has, so the SQL asks for no column it lacks. */
void
query_caps_init(query_caps *c, int server_version)
{
	c->server_version = server_version;
	c->backend_type = server_version >= 100000;
	c->read_all_stats_role = server_version >= 100000;
	c->leader_pid = server_version >= 130000;
	c->query_id = server_version >= 140000;
	c->wait_events_view = server_version >= 170000;
}

/* The backend type of pg_stat_activity row "a" (all rows were client backends before 10). */
static const char *
backend_type_expr(const query_caps *c)
{
	return c->backend_type ? "a.backend_type" : "'client backend'::text";
}

/*
 * The session context columns (backend_start .. application_name, and
 * client_addr, state) from pg_stat_activity "a".
 */
static void
context_columns(strbuf *sb, const query_caps *c, bool with_addr)
{
	strbuf_printf(sb,
				  " a.backend_start, %s, a.datname::text, a.usename::text,"
				  " a.application_name, %s, a.state,",
				  backend_type_expr(c),
				  with_addr ? "a.client_addr::text" : "NULL::text");
}

/* query_id, leader_pid, blockers, hidden and query text of activity row "a". */
static void
activity_tail_columns(strbuf *sb, const query_caps *c, const char *wait_type)
{
	strbuf_printf(sb,
				  " %s, %s,"
				  " CASE WHEN %s = 'Lock' THEN pg_catalog.pg_blocking_pids(a.pid) END,"
				  " a.query = '<insufficient privilege>',"
				  " CASE WHEN $7::int4 > 0 THEN left(a.query, $7::int4) END,",
				  c->query_id ? "a.query_id" : "NULL::int8",
				  c->leader_pid ? "a.leader_pid" : "NULL::int4",
				  wait_type);
}

/*
 * The filters, all parameters; pid_expr is the pid column to filter on.
 * A NULL array means no filter.  "idle_cond" says which rows are idle.
 */
static void
filters(strbuf *sb, const query_caps *c, const char *pid_expr, const char *idle_cond)
{
	strbuf_printf(sb,
				  " WHERE %s <> pg_catalog.pg_backend_pid()"
				  " AND ($1::int4[] IS NULL OR %s = ANY ($1::int4[]))"
				  " AND ($2::text[] IS NULL OR a.datname::text = ANY ($2::text[]))"
				  " AND ($3::text[] IS NULL OR a.usename::text = ANY ($3::text[]))"
				  " AND ($4::text[] IS NULL OR a.application_name = ANY ($4::text[]))"
				  " AND ($5::text[] IS NULL OR %s = ANY ($5::text[]))"
				  " AND ($6::bool OR NOT coalesce((%s), false))",
				  pid_expr, pid_expr, backend_type_expr(c), idle_cond);
}

/* The statement that samples pg_stat_activity. */
void
query_activity_sql(strbuf *sb, const query_caps *c)
{
	strbuf_puts(sb, "SELECT a.pid,");
	context_columns(sb, c, true);
	strbuf_puts(sb, " a.wait_event_type, a.wait_event,");
	activity_tail_columns(sb, c, "a.wait_event_type");
	strbuf_puts(sb, " 1::int8, NULL::int8 FROM pg_catalog.pg_stat_activity a");
	filters(sb, c, "a.pid", "a.state = 'idle' OR a.wait_event_type = 'Activity'");
}

/* The statement that reads pg_wait_sampling's cumulative profile. */
void
query_pg_wait_sampling_sql(strbuf *sb, const query_caps *c)
{
	strbuf_puts(sb, "SELECT p.pid,");
	context_columns(sb, c, true);
	strbuf_printf(sb,
				  " p.event_type::text, p.event::text, p.queryid::int8, %s,"
				  " NULL::int4[], false, CASE WHEN $7::int4 > 0 THEN NULL::text END,"
				  " p.count::int8, NULL::int8"
				  " FROM pg_wait_sampling_profile p"
				  " LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = p.pid",
				  c->leader_pid ? "a.leader_pid" : "NULL::int4");
	/* the profile has no state: waiting for the client counts as idle */
	filters(sb, c, "p.pid",
			"p.event_type = 'Activity' OR (p.event_type = 'Client' AND p.event = 'ClientRead')");
}

/* The statement that samples pg_stat_activity with the current waits of pg_stat_wait_current. */
void
query_pg_stat_wait_current_sql(strbuf *sb, const query_caps *c)
{
	const char *type = "CASE WHEN w.class_name IS NOT NULL THEN w.class_name::text"
		" ELSE a.wait_event_type END";

	strbuf_puts(sb, "SELECT a.pid,");
	context_columns(sb, c, true);
	strbuf_printf(sb, " %s, CASE WHEN w.class_name IS NOT NULL THEN w.event_name::text"
				  " ELSE a.wait_event END,", type);
	activity_tail_columns(sb, c, type);
	strbuf_puts(sb, " 1::int8, w.wait_time::int8 FROM pg_catalog.pg_stat_activity a"
				" LEFT JOIN pg_stat_wait_current w ON w.pid = a.pid");
	filters(sb, c, "a.pid",
			"a.state = 'idle' OR (w.class_name IS NULL AND a.wait_event_type = 'Activity')");
}

/* The statement that reads pg_stat_wait_profile's cumulative time and counts. */
void
query_pg_stat_wait_profile_sql(strbuf *sb, const query_caps *c)
{
	strbuf_puts(sb, "SELECT s.pid::int4,");
	context_columns(sb, c, false);
	strbuf_printf(sb,
				  " s.class_name::text, s.event_name::text, NULL::int8, %s,"
				  " NULL::int4[], false, CASE WHEN $7::int4 > 0 THEN NULL::text END,"
				  " s.wait_count::int8, s.wait_time::int8"
				  " FROM pg_stat_wait_profile s"
				  " LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = s.pid",
				  c->leader_pid ? "a.leader_pid" : "NULL::int4");
	filters(sb, c, "s.pid",
			"s.class_name = 'Activity'"
			" OR (s.class_name = 'Client' AND s.event_name = 'ClientRead')");
}
