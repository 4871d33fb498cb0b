/*
 * source_psw.c — samples from the pg_stat_wait views of patched servers:
 * the current waits polled with pg_stat_activity, the measured wait time
 * and counts of pg_stat_wait_profile, the single waits of
 * pg_stat_wait_history.
 */
#include "config.h"

#include "source.h"

#include <inttypes.h>

#include "pgtempo/xalloc.h"

#include "pqbin.h"

/* exact: epoch seconds are numeric from PostgreSQL 14, and doubles with microsecond room before */
#define EPOCH_US(ts) "round(extract(epoch FROM " ts ") * 1000000)::int8"

const char	source_psw_history_last_sql[] =
"SELECT " EPOCH_US("max(sample_ts)") " FROM pg_stat_wait_history";

/* The statement that samples pg_stat_activity with the current waits of pg_stat_wait_current. */
void
source_psw_current_sql(strbuf *sb, const query_caps *c, const query_opts *o)
{
	const char *type = "CASE WHEN w.class_name IS NOT NULL THEN w.class_name::text"
		" ELSE a.wait_event_type END";

	strbuf_puts(sb, "SELECT a.pid,");
	query_context_columns(sb, c, o, true);
	strbuf_printf(sb, " %s, CASE WHEN w.class_name IS NOT NULL THEN w.event_name::text"
				  " ELSE a.wait_event END,", type);
	query_activity_tail_columns(sb, c, o, type, true);
	strbuf_puts(sb, ", 1::int8, w.wait_time::int8 FROM pg_catalog.pg_stat_get_activity(NULL) a"
				" LEFT JOIN pg_stat_wait_current w ON w.pid = a.pid");
	query_filters(sb, c, o, "a.pid",
				  "NOT coalesce(a.state = 'idle' OR (w.class_name IS NULL AND a.wait_event_type = 'Activity'),"
				  " false)");
	if (!c->backend_type)
		strbuf_puts(sb, " AND a.datid <> 0");
}

/* The statement that reads pg_stat_wait_profile's cumulative time and counts. */
void
source_psw_profile_sql(strbuf *sb, const query_caps *c, const query_opts *o)
{
	static const query_cumulative q = {
		.table = "pg_stat_wait_profile",
		.alias = "s",
		.pid = "s.pid::int4",
		.with_addr = false,
		.type_col = "s.class_name",
		.event_col = "s.event_name",
		.query_id = "NULL::int8",
		.count = "s.wait_count::int8",
		.time = "s.wait_time::int8",
	};

	query_cumulative_sql(sb, c, o, &q);
}

/* The statement that reads the waits pg_stat_wait_history recorded since since_us. */
void
source_psw_history_sql(strbuf *sb, const query_caps *c, const query_opts *o, int64_t since_us)
{
	char		keep[256];

	strbuf_puts(sb, "SELECT h.class_name::text, h.event_name::text, h.wait_time::int8, "
				EPOCH_US("h.sample_ts")
				" FROM pg_stat_wait_history h"
				" LEFT JOIN pg_catalog.pg_stat_get_activity(NULL) a ON a.pid = h.pid");
	query_keep_waiting(keep, sizeof(keep), "h.class_name", "h.event_name");
	query_filters(sb, c, o, "h.pid", keep);
	/* our own number, not user input: exact as an interval of microseconds */
	if (since_us >= 0)
		strbuf_printf(sb, " AND h.sample_ts > 'epoch'::timestamptz + %" PRId64
					  " * interval '1 microsecond'", since_us);
	else
		strbuf_puts(sb, " AND h.sample_ts IS NOT NULL");	/* it would be read every time */
	strbuf_puts(sb, " ORDER BY h.sample_ts");
}

sampler_status
source_psw_history(stmt_conn *sc, const query_caps *c, const query_opts *o, strpool *pool,
				   int64_t *since_us, sampler_wait_fn fn, void *arg)
{
	strbuf		sql;
	PGresult   *res = NULL;
	sampler_status st;

	strbuf_init(&sql);
	source_psw_history_sql(&sql, c, o, *since_us);
	st = stmt_run(sc, NULL, sql.data, &res);
	strbuf_free(&sql);
	for (int i = 0; st == SAMPLER_OK && i < PQntuples(res); i++)
	{
		const char *type = NULL,
				   *event = NULL;
		int64_t		wait_us = 0,
					ts_us = 0;

		if (!pqbin_get_text(pqbin, res, i, 0, &type) || !pqbin_get_text(pqbin, res, i, 1, &event) ||
			!pqbin_get_int8(pqbin, res, i, 2, &wait_us) || !pqbin_get_int8(pqbin, res, i, 3, &ts_us))
		{
			stmt_set_error(sc, xasprintf("could not read a row of pg_stat_wait_history: %s",
										 pqbin->error()));
			st = SAMPLER_ERROR;
			break;
		}
		if (ts_us > *since_us)
			*since_us = ts_us;
		fn(arg, type != NULL ? strpool_intern(pool, type) : NULL,
		   event != NULL ? strpool_intern(pool, event) : NULL,
		   wait_us > 0 ? (uint64_t) wait_us : 0);
	}
	PQclear(res);
	return st;
}

bool
source_psw_history_last(stmt_conn *sc, int64_t *last, char **why)
{
	PGresult   *r = stmt_exec(sc, source_psw_history_last_sql, why);
	int64_t		v = -1;

	if (r != NULL && !PQgetisnull(r, 0, 0) && !pqbin_get_int8(pqbin, r, 0, 0, &v))
		*why = xstrdup(pqbin->error());
	PQclear(r);
	*last = v;
	return *why == NULL;
}

const source_ops source_psw = {
	.kind = SAMPLER_SOURCE_PG_STAT_WAIT,
	.mode = ROWREAD_SAMPLES,
	.sample_sql = source_psw_current_sql,
	.measure_sql = source_psw_profile_sql,
	.name = "pg_stat_wait views",
	.detail = NULL,
};
