/*
 * source.h — where samples come from: one interface, one file per source.
 *
 *   source_activity.c  pg_stat_activity, polled
 *   source_pws.c       pg_wait_sampling's profile: its cumulative counts
 *                      turned into deltas per poll
 *   source_psw.c       the pg_stat_wait views of patched servers: current
 *                      waits polled, measured wait time and counts from
 *                      pg_stat_wait_profile as deltas, single waits from
 *                      pg_stat_wait_history
 *
 * A source says how to build its statements (query.h's columns) and how
 * their rows are read (rowread.h); the sampler runs them on its schedule.
 */
#ifndef PGTEMPO_SAMPLER_SOURCE_H
#define PGTEMPO_SAMPLER_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/strbuf.h"

#include "query.h"
#include "rowread.h"
#include "sampler.h"
#include "stmt.h"
#include "strpool.h"

typedef struct source_ops
{
	sampler_source kind;
	const char *name;			/* for the report */
	/* how the sampling statement's rows are read */
	rowread_mode mode;
	/* the sampling statement */
	void		(*sample_sql) (strbuf *sb, const query_caps *c, const query_opts *o);
	/* the statement of measured wait time and counts; NULL: none */
	void		(*measure_sql) (strbuf *sb, const query_caps *c, const query_opts *o);
	/*
	 * Once chosen: the source's text for the report (ext_version: the
	 * extension's, or NULL) and the seconds one sample stands for.  NULL:
	 * the name, and a sample stands for one interval.
	 */
	char	   *(*detail) (stmt_conn *sc, const char *ext_version, uint64_t interval_ns,
						   double *period_s);
} source_ops;

extern const source_ops source_activity;
extern const source_ops source_pws;
extern const source_ops source_psw;

/* The statements of each source, built for the server and the run (also for the unit tests). */
void		source_activity_sql(strbuf *sb, const query_caps *c, const query_opts *o);
void		source_pws_sql(strbuf *sb, const query_caps *c, const query_opts *o);
void		source_psw_current_sql(strbuf *sb, const query_caps *c, const query_opts *o);
void		source_psw_profile_sql(strbuf *sb, const query_caps *c, const query_opts *o);

/* pg_wait_sampling: does it work (is its library loaded)?  false with *cause if not. */
bool		source_pws_probe(stmt_conn *sc, char **cause);

/*
 * pg_stat_wait_history: the waits recorded after since_us (microseconds
 * since the Unix epoch; < 0: all of them), oldest first: class_name,
 * event_name, wait_time (int8, microseconds), sample_ts (int8, microseconds
 * since the epoch).  The filters' parameters are the sampling statement's.
 */
void		source_psw_history_sql(strbuf *sb, const query_caps *c, const query_opts *o,
								   int64_t since_us);
/* The newest sample_ts of pg_stat_wait_history (int8 microseconds), NULL if it is empty. */
extern const char source_psw_history_last_sql[];

/*
 * Call fn for each wait pg_stat_wait_history recorded after *since_us, with
 * the filters applied, and move *since_us to the newest one read.
 */
sampler_status source_psw_history(stmt_conn *sc, const query_caps *c, const query_opts *o,
							   strpool *pool, int64_t *since_us, sampler_wait_fn fn, void *arg);

/* The newest sample_ts of the history in *last (-1: empty); false with *why. */
bool		source_psw_history_last(stmt_conn *sc, int64_t *last, char **why);

#endif
