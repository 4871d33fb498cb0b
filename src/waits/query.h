/*
 * query.h — the SQL pgtempo-waits sends, built for the server's version
 * and the source in use.
 *
 * Every sampling statement returns the same columns (QUERY_COL_*), so one
 * reader handles all sources, and takes the same parameters: the filters
 * are never spliced into the SQL text.
 *
 *   $1 int4[]  pids            (NULL: all)
 *   $2 text[]  database names
 *   $3 text[]  user names
 *   $4 text[]  application names
 *   $5 text[]  backend types
 *   $6 bool    include idle backends
 *   $7 int4    characters of query text to return (0: none)
 *
 * Columns that a server version lacks are returned as NULL of the right
 * type: backend_type (10+; 'client backend' before), leader_pid (13+),
 * query_id (14+).
 */
#ifndef PGTEMPO_WAITS_QUERY_H
#define PGTEMPO_WAITS_QUERY_H

#include <stdbool.h>

#include "pgtempo/strbuf.h"

#define QUERY_NPARAMS 7

enum
{
	QUERY_COL_PID,				/* int4 */
	QUERY_COL_BACKEND_START,	/* timestamptz */
	QUERY_COL_BACKEND_TYPE,		/* text */
	QUERY_COL_DATNAME,			/* text */
	QUERY_COL_USENAME,			/* text */
	QUERY_COL_APPNAME,			/* text */
	QUERY_COL_CLIENT_ADDR,		/* text */
	QUERY_COL_STATE,			/* text */
	QUERY_COL_WAIT_TYPE,		/* text */
	QUERY_COL_WAIT_EVENT,		/* text */
	QUERY_COL_QUERY_ID,			/* int8 */
	QUERY_COL_LEADER_PID,		/* int4 */
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

/* Poll pg_stat_activity. */
void		query_activity_sql(strbuf *sb, const query_caps *c);
/* Read pg_wait_sampling's cumulative profile (QUERY_COL_COUNT), with session context. */
void		query_pg_wait_sampling_sql(strbuf *sb, const query_caps *c);
/* Poll pg_stat_activity with the current waits of pg_stat_wait_current. */
void		query_pg_stat_wait_current_sql(strbuf *sb, const query_caps *c);
/* Read pg_stat_wait_profile: cumulative wait_count (QUERY_COL_COUNT) and wait_time. */
void		query_pg_stat_wait_profile_sql(strbuf *sb, const query_caps *c);

/* What the server offers: version, pg_wait_sampling's version, the pg_stat_wait views. */
extern const char query_detect_sql[];
/* pg_wait_sampling's profile period in ms (text), or NULL. */
extern const char query_pws_period_sql[];
/* Does pg_wait_sampling work (is it loaded)? */
extern const char query_pws_probe_sql[];
/* Wait event descriptions (17+): type, name, description. */
extern const char query_wait_events_sql[];

#endif
