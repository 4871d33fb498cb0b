/*
 * source_pws.c — samples from pg_wait_sampling's profile: the extension
 * samples in the server; its cumulative counts become deltas per read.
 */
#include "config.h"

#include "source.h"

#include <stdlib.h>

#include "pgtempo/xalloc.h"

#include "pqbin.h"

static const char period_sql[] =
"SELECT current_setting('pg_wait_sampling.profile_period', true)";

static const char probe_sql[] =
"SELECT count(*) FROM pg_wait_sampling_profile";

/* The statement that reads pg_wait_sampling's cumulative profile, with session context. */
void
source_pws_sql(strbuf *sb, const query_caps *c, const query_opts *o)
{
	static const query_cumulative q = {
		.table = "pg_wait_sampling_profile",
		.alias = "p",
		.pid = "p.pid",
		.with_addr = true,
		.type_col = "p.event_type",
		.event_col = "p.event",
		.query_id = "p.queryid::int8",
		.count = "p.count::int8",
		.time = "NULL::int8",
	};

	query_cumulative_sql(sb, c, o, &q);
}

bool
source_pws_probe(stmt_conn *sc, char **cause)
{
	PGresult   *res = stmt_exec(sc, probe_sql, cause);

	if (res == NULL)
		return false;
	PQclear(res);
	return true;
}

/* pg_wait_sampling's profile period in seconds (its default is 10 ms). */
static double
pws_period(stmt_conn *sc)
{
	char	   *cause = NULL;
	PGresult   *res = stmt_exec(sc, period_sql, &cause);
	double		ms = 10;
	const char *v = NULL;

	if (res == NULL)
		free(cause);
	else
	{
		if (PQntuples(res) == 1 && pqbin_get_text(pqbin, res, 0, 0, &v) && v != NULL && atof(v) > 0)
			ms = atof(v);
		PQclear(res);
	}
	return ms / 1000.0;
}

/* Each sample of the profile stands for the extension's profile period. */
static char *
pws_detail(stmt_conn *sc, const char *ext_version, uint64_t interval_ns, double *period_s)
{
	*period_s = pws_period(sc);
	return xasprintf("pg_wait_sampling %s (profile period %.0f ms)", ext_version,
					 *period_s * 1000);
}

const source_ops source_pws = {
	.kind = SAMPLER_SOURCE_PG_WAIT_SAMPLING,
	.mode = ROWREAD_SAMPLE_DELTAS,
	.sample_sql = source_pws_sql,
	.measure_sql = NULL,
	.name = "pg_wait_sampling",
	.detail = pws_detail,
};
