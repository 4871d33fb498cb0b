/*
 * query.c — SQL for the server's version and the source in use.
 */
#include "config.h"

#include "query.h"

#include <inttypes.h>
#include <stdio.h>

#include "sampler.h"


const char	query_detect_sql[] =
"SELECT current_setting('server_version_num')::int4,"
" (SELECT extversion::text FROM pg_catalog.pg_extension WHERE extname = 'pg_wait_sampling'),"
" to_regclass('pg_stat_wait_current') IS NOT NULL"
" AND to_regclass('pg_stat_wait_profile') IS NOT NULL,"
" current_user::text,"
" to_regclass('pg_stat_wait_history') IS NOT NULL";

const char	query_wait_events_sql[] =
"SELECT type, name, description FROM pg_catalog.pg_wait_events";

/* pg_roles, not pg_authid: every user may read it */
const char	query_names_sql[] =
"SELECT 'd'::text, oid, datname::text FROM pg_catalog.pg_database"
" UNION ALL SELECT 'u'::text, oid, rolname::text FROM pg_catalog.pg_roles";

/* the status copy without building a row per backend: what a sample costs at least */
const char	query_backends_sql[] =
"SELECT pg_catalog.count(*)::int4 FROM pg_catalog.pg_stat_get_backend_idset()";

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
void
query_context_columns(strbuf *sb, const query_caps *c, const query_opts *o, bool with_addr)
{
	strbuf_printf(sb, " %s, %s, %s, %s, %s, %s, a.state,",
				  col(o, SAMPLER_OMIT_BACKEND_START, "a.backend_start", "NULL::timestamptz"),
				  backend_type_expr(c),
				  col(o, SAMPLER_OMIT_DATID, "a.datid", "NULL::oid"),
				  col(o, SAMPLER_OMIT_USESYSID, "a.usesysid", "NULL::oid"),
				  col(o, SAMPLER_OMIT_APPNAME, "a.application_name", "NULL::text"),
				  with_addr ? col(o, SAMPLER_OMIT_CLIENT_ADDR, "a.client_addr", "NULL::inet") :
				  "NULL::inet");
}

/* The leader_pid column of activity row "a". */
const char *
query_leader_column(const query_caps *c, const query_opts *o)
{
	return c->leader_pid ? col(o, SAMPLER_OMIT_LEADER_PID, "a.leader_pid", "NULL::int4") :
		"NULL::int4";
}

/*
 * query_id, leader_pid, xact_start, blockers and hidden of activity row "a", and the
 * query text: always with all_cols, else only when asked for (the
 * statement may end there).
 */
void
query_activity_tail_columns(strbuf *sb, const query_caps *c, const query_opts *o,
					  const char *wait_type, bool all_cols)
{
	query_params p;

	query_number_params(o, &p);
	strbuf_printf(sb,
				  " %s, %s, a.xact_start,"
				  /* CASE evaluates its result for the rows that match only: no call without a lock wait */
				  " CASE WHEN %s = 'Lock' THEN pg_catalog.pg_blocking_pids(a.pid) END,"
				  " a.query = '<insufficient privilege>'",
				  c->query_id ? "a.query_id" : "NULL::int8",
				  query_leader_column(c, o),
				  wait_type);
	if (p.query_len > 0)
		strbuf_printf(sb, ", left(a.query, $%d::int4)", p.query_len);
	else if (all_cols)
		strbuf_puts(sb, ", NULL::text");
}

/* The query text column of a source without query texts. */
void
query_no_query_column(strbuf *sb, const query_opts *o)
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
void
query_filters(strbuf *sb, const query_caps *c, const query_opts *o, const char *pid_expr,
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
		if (o->backend_type_other != NULL)
		{
			strbuf_printf(sb, " OR %s <> ALL (ARRAY[", backend_type_expr(c));
			for (int i = 0; o->backend_type_other[i] != NULL; i++)
				strbuf_printf(sb, "%s'%s'", i > 0 ? ", " : "", o->backend_type_other[i]);
			strbuf_puts(sb, "])");
		}
		strbuf_puts(sb, ")");
	}
	if (!o->include_idle)
		strbuf_printf(sb, " AND %s", keep_cond);
}

/* Not idle: the keep condition of a source whose rows have no state. */
void
query_keep_waiting(char *buf, size_t size, const char *type_col, const char *event_col)
{
	snprintf(buf, size, "NOT coalesce(%s = 'Activity' OR (%s = 'Client' AND %s = 'ClientRead'),"
			 " false)", type_col, type_col, event_col);
}

/* A cumulative in-server profile joined with the session context. */
void
query_cumulative_sql(strbuf *sb, const query_caps *c, const query_opts *o,
					 const query_cumulative *q)
{
	char		keep[256];
	char		pid[64];

	strbuf_printf(sb, "SELECT %s,", q->pid);
	query_context_columns(sb, c, o, q->with_addr);
	strbuf_printf(sb, " %s::text, %s::text, %s, %s, NULL::timestamptz, NULL::int4[], false,",
				  q->type_col, q->event_col, q->query_id, query_leader_column(c, o));
	query_no_query_column(sb, o);
	strbuf_printf(sb, " %s, %s FROM %s %s"
				  " LEFT JOIN pg_catalog.pg_stat_get_activity(NULL) a ON a.pid = %s.pid",
				  q->count, q->time, q->table, q->alias, q->alias);
	snprintf(pid, sizeof(pid), "%s.pid", q->alias);
	query_keep_waiting(keep, sizeof(keep), q->type_col, q->event_col);
	query_filters(sb, c, o, pid, keep);
}

/*
 * Whole seconds and the microseconds apart: both exact in the double
 * that date_part returns on every version, so a session's start compares
 * equal to the one its sample row carries.
 */
void
query_idents_sql(strbuf *sb, const query_caps *c)
{
	strbuf_printf(sb, "SELECT a.pid, pg_catalog.date_part('epoch',"
				  " pg_catalog.date_trunc('second', a.backend_start))::int8 * 1000000"
				  " + pg_catalog.date_part('microseconds', a.backend_start)::int8 %% 1000000,"
				  " a.datid, a.usesysid, a.application_name, %s"
				  " FROM pg_catalog.pg_stat_get_activity(NULL) a WHERE a.pid = ANY ($1::int4[])",
				  backend_type_expr(c));
}
