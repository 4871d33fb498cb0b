/*
 * source_activity.c — samples from pg_stat_activity, polled.
 */
#include "config.h"

#include "source.h"

/*
 * The statement that samples pg_stat_activity, from the function under
 * the view.  Before 10 the view joined the catalogs with inner joins,
 * which hid processes without a database (the autovacuum launcher):
 * they are left out the same way.
 *
 * pg_stat_get_activity(NULL) builds a row for every session of the server
 * (and looks up each one's PGPROC), whatever the filters then keep: with
 * known pids (--pid, pgtempo-bench --waits) and pids_each it is called
 * once per pid instead, so the statement costs what those sessions cost
 * (the calls of one statement share one copy of the server's session
 * status).  A call costs more than a row, so that is cheaper only on a
 * server with many more backends than pids (sampler.c chooses).
 */
void
source_activity_sql(strbuf *sb, const query_caps *c, const query_opts *o)
{
	query_params p;

	query_number_params(o, &p);
	strbuf_puts(sb, "SELECT a.pid,");
	query_context_columns(sb, c, o, true);
	strbuf_puts(sb, " a.wait_event_type, a.wait_event,");
	/* one sample per row, no measured time: the last columns are left out */
	query_activity_tail_columns(sb, c, o, "a.wait_event_type", false);
	if (p.pids > 0 && o->pids_each)
		strbuf_printf(sb, " FROM (SELECT DISTINCT unnest($%d::int4[])) k(pid),"
					  " LATERAL pg_catalog.pg_stat_get_activity(k.pid) a", p.pids);
	else
		strbuf_puts(sb, " FROM pg_catalog.pg_stat_get_activity(NULL) a");
	query_filters(sb, c, o, "a.pid",
				  "a.state IS DISTINCT FROM 'idle' AND a.wait_event_type IS DISTINCT FROM 'Activity'");
	if (!c->backend_type)
		strbuf_puts(sb, " AND a.datid <> 0");
}

const source_ops source_activity = {
	.kind = SAMPLER_SOURCE_ACTIVITY,
	.mode = ROWREAD_SAMPLES,
	.sample_sql = source_activity_sql,
	.measure_sql = NULL,
	.name = "pg_stat_activity",
	.detail = NULL,
};
