/*
 * query.h — the SQL the sampler sends, built for the server's version,
 * the source in use and the options of the run.
 *
 * Every sampling statement returns the same columns (QUERY_COL_*), so one
 * reader handles all sources; a statement may end after QUERY_COL_HIDDEN
 * or after QUERY_COL_QUERY, and the columns it leaves out mean no query
 * text, one sample, no measured time.  The statements are lean, as one runs
 * every few milliseconds on the server being measured: pg_stat_activity
 * is read through the function under it, pg_stat_get_activity(), without
 * the view's joins with pg_database and pg_authid (database and user come
 * as oids and are named from a cache on the client), and a filter or the
 * query text is in the statement only when the run asks for it.
 *
 * Filter values are never spliced into the SQL text: each filter in use
 * takes one parameter, numbered in this order from $1 (query_params):
 *
 *   int4[]  pids            --pid
 *   text[]  database names  --db
 *   text[]  user names      --user
 *   text[]  application names --application-name
 *   text[]  backend types   --backend-type (by default the sessions' types;
 *                           "background worker" also takes any type that
 *                           PostgreSQL does not set itself)
 *   int4    characters of query text to return   --query-text
 *
 * Columns that a server version lacks are returned as NULL of the right
 * type: backend_type (10+; 'client backend' before), leader_pid (13+),
 * query_id (14+).  xact_start is NULL for the in-server profiles.
 */
#ifndef PGTEMPO_SAMPLER_QUERY_H
#define PGTEMPO_SAMPLER_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgtempo/strbuf.h"

/* What the run asks of a sampling statement. */
typedef struct query_opts
{
	bool		pids;			/* filter on pids */
	bool		pids_each;		/* ... reading each pid's status alone (source_activity.c) */
	bool		dbs;			/* on database names */
	bool		users;			/* on user names */
	bool		apps;			/* on application names */
	bool		backend_types;	/* on backend types */
	/* ... or a type PostgreSQL does not set itself: none of these (NULL-terminated; NULL: no) */
	const char *const *backend_type_other;
	bool		include_idle;	/* keep idle backends */
	bool		query_text;		/* return the query text */
	unsigned	omit;			/* SAMPLER_OMIT_*: columns returned as NULL */
} query_opts;

/* The number of each parameter a statement takes (0: not taken), and how many. */
typedef struct query_params
{
	int			pids;
	int			dbs;
	int			users;
	int			apps;
	int			backend_types;
	int			query_len;
	int			n;
} query_params;

void		query_number_params(const query_opts *o, query_params *p);

enum
{
	QUERY_COL_PID,				/* int4 */
	QUERY_COL_BACKEND_START,	/* timestamptz */
	QUERY_COL_BACKEND_TYPE,		/* text */
	QUERY_COL_DATID,			/* oid: named on the client */
	QUERY_COL_USESYSID,			/* oid: named on the client */
	QUERY_COL_APPNAME,			/* text */
	QUERY_COL_CLIENT_ADDR,		/* inet */
	QUERY_COL_STATE,			/* text */
	QUERY_COL_WAIT_TYPE,		/* text */
	QUERY_COL_WAIT_EVENT,		/* text */
	QUERY_COL_QUERY_ID,			/* int8 */
	QUERY_COL_LEADER_PID,		/* int4 */
	QUERY_COL_XACT_START,		/* timestamptz: for a head blocker's transaction age */
	QUERY_COL_BLOCKERS,			/* int4[]: only for heavyweight lock waits */
	QUERY_COL_HIDDEN,			/* bool: <insufficient privilege> */
	QUERY_COL_QUERY,			/* text */
	QUERY_COL_COUNT,			/* int8: samples (cumulative for in-server profiles) */
	QUERY_COL_WAIT_TIME,		/* int8: µs (pg_stat_wait) */
	QUERY_NCOLS
};

/* What the server has, from its version. */
typedef struct query_caps
{
	int			server_version;	/* e.g. 150004 */
	bool		backend_type;	/* pg_stat_activity.backend_type, 10+ */
	bool		leader_pid;		/* 13+ */
	bool		query_id;		/* 14+ */
	bool		wait_events_view;	/* pg_wait_events, 17+ */
	bool		read_all_stats_role;	/* pg_read_all_stats, 10+ */
} query_caps;

/* The oldest server with wait events in pg_stat_activity. */
#define QUERY_MIN_SERVER_VERSION 90600

void		query_caps_init(query_caps *c, int server_version);

/*
 * Pieces of the sources' statements (source.h), over activity row "a" =
 * pg_stat_get_activity(NULL): the session context columns (backend_start
 * .. client_addr, and state; without with_addr, client_addr is NULL) ...
 */
void		query_context_columns(strbuf *sb, const query_caps *c, const query_opts *o,
								  bool with_addr);
/* ... the leader_pid column ... */
const char *query_leader_column(const query_caps *c, const query_opts *o);
/*
 * ... query_id, leader_pid, blockers and hidden, and the query text: always
 * with all_cols, else only when asked for (the statement may end there) ...
 */
void		query_activity_tail_columns(strbuf *sb, const query_caps *c, const query_opts *o,
										const char *wait_type, bool all_cols);
/* ... the query text column of a source without query texts ... */
void		query_no_query_column(strbuf *sb, const query_opts *o);
/*
 * ... and the WHERE clause: pid_expr is the pid column to filter on,
 * keep_cond says which rows are not idle (added unless idle rows are
 * wanted), and only the filters in use appear.
 */
void		query_filters(strbuf *sb, const query_caps *c, const query_opts *o,
						  const char *pid_expr, const char *keep_cond);

/* The keep condition of rows without a state: not an Activity or Client/ClientRead wait. */
void		query_keep_waiting(char *buf, size_t size, const char *type_col, const char *event_col);

/* A cumulative in-server profile (table alias) read with the session context of its pids. */
typedef struct query_cumulative
{
	const char *table;			/* e.g. "pg_wait_sampling_profile" */
	const char *alias;			/* its alias, e.g. "p" */
	const char *pid;			/* the pid column as selected, e.g. "p.pid" */
	bool		with_addr;		/* client_addr from the activity row */
	const char *type_col;		/* wait event type, e.g. "p.event_type" */
	const char *event_col;
	const char *query_id;		/* an int8 expression */
	const char *count;			/* int8: cumulative samples or waits */
	const char *time;			/* int8: cumulative µs, or NULL::int8 */
} query_cumulative;

void		query_cumulative_sql(strbuf *sb, const query_caps *c, const query_opts *o,
								 const query_cumulative *q);

/* What the server offers: version, pg_wait_sampling's version, the pg_stat_wait views. */
extern const char query_detect_sql[];
/* Wait event descriptions (17+): type, name, description. */
extern const char query_wait_events_sql[];
/* The names of databases ('d') and roles ('u'): kind, oid, name. */
extern const char query_names_sql[];
/* The number of backends with a status (sessions and background processes): int4. */
extern const char query_backends_sql[];

/*
 * Who the sessions of pids ($1, int4[]) are, for a run that does not read
 * it with every row (idents.h): pid int4, backend start int8 (µs since
 * the Unix epoch, exactly as the sampling statements' timestamptz reads),
 * datid oid, usesysid oid, application_name text, backend_type text.
 */
void		query_idents_sql(strbuf *sb, const query_caps *c);

#endif
