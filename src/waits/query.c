/*
 * query.c — SQL for the server's version and the source in use.
 */
#include "config.h"

#include "query.h"

#include <inttypes.h>

#include "options.h"
#include "waits.h"

const char	query_detect_sql[] =
"SELECT current_setting('server_version_num')::int4,"
" (SELECT extversion::text FROM pg_catalog.pg_extension WHERE extname = 'pg_wait_sampling'),"
" to_regclass('pg_stat_wait_current') IS NOT NULL"
" AND to_regclass('pg_stat_wait_profile') IS NOT NULL,"
" current_user::text,"
" to_regclass('pg_stat_wait_history') IS NOT NULL";

/* exact: epoch seconds are numeric from PostgreSQL 14, and doubles with microsecond room before */
#define EPOCH_US(ts) "round(extract(epoch FROM " ts ") * 1000000)::int8"

const char	query_pg_stat_wait_history_last_sql[] =
"SELECT " EPOCH_US("max(sample_ts)") " FROM pg_stat_wait_history";

const char	query_pws_period_sql[] =
"SELECT current_setting('pg_wait_sampling.profile_period', true)";

const char	query_pws_probe_sql[] =
"SELECT count(*) FROM pg_wait_sampling_profile";

const char	query_wait_events_sql[] =
"SELECT type, name, description FROM pg_catalog.pg_wait_events";

/* pg_roles, not pg_authid: every user may read it */
const char	query_names_sql[] =
"SELECT 'd'::text, oid, datname::text FROM pg_catalog.pg_database"
" UNION ALL SELECT 'u'::text, oid, rolname::text FROM pg_catalog.pg_roles";

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

/* Number the parameters of the filters in use, in the documented order. */
void
query_number_params(const query_opts *o, query_params *p)
{
	int			n = 0;

	p->pids = o->pids ? ++n : 0;
	p->dbs = o->dbs ? ++n : 0;
	p->users = o->users ? ++n : 0;
	p->apps = o->apps ? ++n : 0;
	p->backend_types = o->backend_types ? ++n : 0;
	p->query_len = o->query_text ? ++n : 0;
	p->n = n;
}

/* What the history outputs, the live view, the report's --by keys and the filters use. */
unsigned
query_omit_for(const waits_settings *s)
{
	unsigned	omit = QUERY_OMIT_BACKEND_START | QUERY_OMIT_DATID | QUERY_OMIT_USESYSID |
		QUERY_OMIT_APPNAME | QUERY_OMIT_CLIENT_ADDR | QUERY_OMIT_LEADER_PID;

	if (s->top || s->log_path != NULL || s->store != NULL)
		return 0;
	/* folded stacks: datname;backend_type;wait_event_type;wait_event;query_id */
	if (s->folded_path != NULL)
		omit &= ~QUERY_OMIT_DATID;
	/* the matches of --user and --application-name are checked at the end */
	if (s->users.n > 0)
		omit &= ~QUERY_OMIT_USESYSID;
	if (s->apps.n > 0)
		omit &= ~QUERY_OMIT_APPNAME;
	for (int i = 0; i < s->nby; i++)
		switch (s->by[i])
		{
			case WPROF_DIM_PID:
				/* a session is its pid and start, shown with its user and database */
				omit &= ~(QUERY_OMIT_BACKEND_START | QUERY_OMIT_DATID | QUERY_OMIT_USESYSID);
				break;
			case WPROF_DIM_DB:
				omit &= ~QUERY_OMIT_DATID;
				break;
			case WPROF_DIM_USER:
				omit &= ~QUERY_OMIT_USESYSID;
				break;
			case WPROF_DIM_APP:
				omit &= ~QUERY_OMIT_APPNAME;
				break;
			default:
				break;
		}
	return omit;
}

/* Column expr, or a NULL of its type when the run does not use it. */
static const char *
col(const query_opts *o, unsigned bit, const char *expr, const char *null)
{
	return (o->omit & bit) ? null : expr;
}

/* The backend type of activity row "a" (all rows were client backends before 10). */
static const char *
backend_type_expr(const query_caps *c)
{
	return c->backend_type ? "a.backend_type" : "'client backend'::text";
}

/*
 * The session context columns (backend_start .. client_addr, and state)
 * of activity row "a"; without with_addr, client_addr is NULL.
 */
static void
context_columns(strbuf *sb, const query_caps *c, const query_opts *o, bool with_addr)
{
	strbuf_printf(sb, " %s, %s, %s, %s, %s, %s, a.state,",
				  col(o, QUERY_OMIT_BACKEND_START, "a.backend_start", "NULL::timestamptz"),
				  backend_type_expr(c),
				  col(o, QUERY_OMIT_DATID, "a.datid", "NULL::oid"),
				  col(o, QUERY_OMIT_USESYSID, "a.usesysid", "NULL::oid"),
				  col(o, QUERY_OMIT_APPNAME, "a.application_name", "NULL::text"),
				  with_addr ? col(o, QUERY_OMIT_CLIENT_ADDR, "a.client_addr", "NULL::inet") :
				  "NULL::inet");
}

/* The leader_pid column of activity row "a". */
static const char *
leader_column(const query_caps *c, const query_opts *o)
{
	return c->leader_pid ? col(o, QUERY_OMIT_LEADER_PID, "a.leader_pid", "NULL::int4") :
		"NULL::int4";
}

/*
 * query_id, leader_pid, blockers and hidden of activity row "a", and the
 * query text: always with all_cols, else only when asked for (the
 * statement may end there).
 */
static void
activity_tail_columns(strbuf *sb, const query_caps *c, const query_opts *o,
					  const char *wait_type, bool all_cols)
{
	query_params p;

	query_number_params(o, &p);
	strbuf_printf(sb,
				  " %s, %s,"
				  " CASE WHEN %s = 'Lock' THEN pg_catalog.pg_blocking_pids(a.pid) END,"
				  " a.query = '<insufficient privilege>'",
				  c->query_id ? "a.query_id" : "NULL::int8",
				  leader_column(c, o),
				  wait_type);
	if (p.query_len > 0)
		strbuf_printf(sb, ", left(a.query, $%d::int4)", p.query_len);
	else if (all_cols)
		strbuf_puts(sb, ", NULL::text");
}

/* The query text column of a source without query texts. */
static void
no_query_column(strbuf *sb, const query_opts *o)
{
	query_params p;

	query_number_params(o, &p);
	/* the parameter is still taken, so every source binds the same ones */
	if (p.query_len > 0)
		strbuf_printf(sb, " CASE WHEN $%d::int4 > 0 THEN NULL::text END,", p.query_len);
	else
		strbuf_puts(sb, " NULL::text,");
}

/*
 * The WHERE clause: pid_expr is the pid column to filter on, keep_cond
 * says which rows are not idle (added unless idle rows are wanted), and
 * only the filters in use appear.  Databases and users are matched by
 * name through the catalogs, so one created during the run is found.
 */
static void
filters(strbuf *sb, const query_caps *c, const query_opts *o, const char *pid_expr,
		const char *keep_cond)
{
	query_params p;

	query_number_params(o, &p);
	strbuf_printf(sb, " WHERE %s <> pg_catalog.pg_backend_pid()", pid_expr);
	if (p.pids > 0)
		strbuf_printf(sb, " AND %s = ANY ($%d::int4[])", pid_expr, p.pids);
	if (p.dbs > 0)
		strbuf_printf(sb, " AND a.datid IN (SELECT d.oid FROM pg_catalog.pg_database d"
					  " WHERE d.datname::text = ANY ($%d::text[]))", p.dbs);
	if (p.users > 0)
		strbuf_printf(sb, " AND a.usesysid IN (SELECT r.oid FROM pg_catalog.pg_roles r"
					  " WHERE r.rolname::text = ANY ($%d::text[]))", p.users);
	if (p.apps > 0)
		strbuf_printf(sb, " AND a.application_name = ANY ($%d::text[])", p.apps);
	if (p.backend_types > 0)
	{
		/*
		 * A row whose type we may not see (<insufficient privilege>) is kept:
		 * it is counted as hidden, and the warning about it says why.
		 */
		strbuf_printf(sb, " AND (%s = ANY ($%d::text[]) OR %s IS NULL",
					  backend_type_expr(c), p.backend_types, backend_type_expr(c));
		/* "background worker": the types PostgreSQL does not set (our constants, no input) */
		if (o->backend_type_other)
		{
			strbuf_printf(sb, " OR %s <> ALL (ARRAY[", backend_type_expr(c));
			for (int i = 0; options_backend_type_names[i] != NULL; i++)
				strbuf_printf(sb, "%s'%s'", i > 0 ? ", " : "", options_backend_type_names[i]);
			strbuf_puts(sb, "])");
		}
		strbuf_puts(sb, ")");
	}
	if (!o->include_idle)
		strbuf_printf(sb, " AND %s", keep_cond);
}

/*
 * The statement that samples pg_stat_activity, from the function under
 * the view.  Before 10 the view joined the catalogs with inner joins,
 * which hid processes without a database (the autovacuum launcher):
 * they are left out the same way.
 */
void
query_activity_sql(strbuf *sb, const query_caps *c, const query_opts *o)
{
	strbuf_puts(sb, "SELECT a.pid,");
	context_columns(sb, c, o, true);
	strbuf_puts(sb, " a.wait_event_type, a.wait_event,");
	/* one sample per row, no measured time: the last columns are left out */
	activity_tail_columns(sb, c, o, "a.wait_event_type", false);
	strbuf_puts(sb, " FROM pg_catalog.pg_stat_get_activity(NULL) a");
	filters(sb, c, o, "a.pid",
			"a.state IS DISTINCT FROM 'idle' AND a.wait_event_type IS DISTINCT FROM 'Activity'");
	if (!c->backend_type)
		strbuf_puts(sb, " AND a.datid <> 0");
}

/* The statement that reads pg_wait_sampling's cumulative profile. */
void
query_pg_wait_sampling_sql(strbuf *sb, const query_caps *c, const query_opts *o)
{
	strbuf_puts(sb, "SELECT p.pid,");
	context_columns(sb, c, o, true);
	strbuf_printf(sb,
				  " p.event_type::text, p.event::text, p.queryid::int8, %s,"
				  " NULL::int4[], false,",
				  leader_column(c, o));
	no_query_column(sb, o);
	strbuf_puts(sb, " p.count::int8, NULL::int8"
				" FROM pg_wait_sampling_profile p"
				" LEFT JOIN pg_catalog.pg_stat_get_activity(NULL) a ON a.pid = p.pid");
	/* the profile has no state: waiting for the client counts as idle */
	filters(sb, c, o, "p.pid",
			"NOT coalesce(p.event_type = 'Activity'"
			" OR (p.event_type = 'Client' AND p.event = 'ClientRead'), false)");
}

/* The statement that samples pg_stat_activity with the current waits of pg_stat_wait_current. */
void
query_pg_stat_wait_current_sql(strbuf *sb, const query_caps *c, const query_opts *o)
{
	const char *type = "CASE WHEN w.class_name IS NOT NULL THEN w.class_name::text"
		" ELSE a.wait_event_type END";

	strbuf_puts(sb, "SELECT a.pid,");
	context_columns(sb, c, o, true);
	strbuf_printf(sb, " %s, CASE WHEN w.class_name IS NOT NULL THEN w.event_name::text"
				  " ELSE a.wait_event END,", type);
	activity_tail_columns(sb, c, o, type, true);
	strbuf_puts(sb, ", 1::int8, w.wait_time::int8 FROM pg_catalog.pg_stat_get_activity(NULL) a"
				" LEFT JOIN pg_stat_wait_current w ON w.pid = a.pid");
	filters(sb, c, o, "a.pid",
			"NOT coalesce(a.state = 'idle' OR (w.class_name IS NULL AND a.wait_event_type = 'Activity'),"
			" false)");
	if (!c->backend_type)
		strbuf_puts(sb, " AND a.datid <> 0");
}

/* The statement that reads the waits pg_stat_wait_history recorded since since_us. */
void
query_pg_stat_wait_history_sql(strbuf *sb, const query_caps *c, const query_opts *o,
							   int64_t since_us)
{
	strbuf_puts(sb, "SELECT h.class_name::text, h.event_name::text, h.wait_time::int8, "
				EPOCH_US("h.sample_ts")
				" FROM pg_stat_wait_history h"
				" LEFT JOIN pg_catalog.pg_stat_get_activity(NULL) a ON a.pid = h.pid");
	filters(sb, c, o, "h.pid",
			"NOT coalesce(h.class_name = 'Activity'"
			" OR (h.class_name = 'Client' AND h.event_name = 'ClientRead'), false)");
	/* our own number, not user input: exact as an interval of microseconds */
	if (since_us >= 0)
		strbuf_printf(sb, " AND h.sample_ts > 'epoch'::timestamptz + %" PRId64
					  " * interval '1 microsecond'", since_us);
	else
		strbuf_puts(sb, " AND h.sample_ts IS NOT NULL");	/* it would be read every time */
	strbuf_puts(sb, " ORDER BY h.sample_ts");
}

/* The statement that reads pg_stat_wait_profile's cumulative time and counts. */
void
query_pg_stat_wait_profile_sql(strbuf *sb, const query_caps *c, const query_opts *o)
{
	strbuf_puts(sb, "SELECT s.pid::int4,");
	context_columns(sb, c, o, false);
	strbuf_printf(sb,
				  " s.class_name::text, s.event_name::text, NULL::int8, %s,"
				  " NULL::int4[], false,",
				  leader_column(c, o));
	no_query_column(sb, o);
	strbuf_puts(sb, " s.wait_count::int8, s.wait_time::int8"
				" FROM pg_stat_wait_profile s"
				" LEFT JOIN pg_catalog.pg_stat_get_activity(NULL) a ON a.pid = s.pid");
	filters(sb, c, o, "s.pid",
			"NOT coalesce(s.class_name = 'Activity'"
			" OR (s.class_name = 'Client' AND s.event_name = 'ClientRead'), false)");
}
