/*
 * rowread.h — the rows of a sampling statement (query.h's QUERY_COL_*)
 * read into a sample batch.
 *
 * Results are binary, read through pqbin.h (libpqtypes, or libpq alone),
 * which gets each new connection ready (rowread_setup).  Sources
 * whose server keeps cumulative counts (pg_wait_sampling's profile,
 * pg_stat_wait_profile) are read as the increase since the last read.
 */
#ifndef PGTEMPO_SAMPLER_ROWREAD_H
#define PGTEMPO_SAMPLER_ROWREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "names.h"
#include "sample.h"
#include "stmt.h"
#include "strpool.h"

typedef enum rowread_mode
{
	ROWREAD_SAMPLES,			/* one sample per row */
	ROWREAD_SAMPLE_DELTAS,		/* pg_wait_sampling: cumulative counts → samples */
	ROWREAD_MEASURE_DELTAS,		/* pg_stat_wait_profile: cumulative time and count */
	ROWREAD_BASELINE			/* cumulative: remember the counts only */
} rowread_mode;

/* Cumulative counters of an in-server profile, to turn them into deltas. */
typedef struct rowread_cum
{
	int32_t		pid;
	const char *type;
	const char *event;
	int64_t		query_id;
	int64_t		count;
	int64_t		time_us;
	bool		used;
} rowread_cum;

typedef struct rowread_cums
{
	rowread_cum *cells;
	size_t		cap;
	size_t		n;
	bool		baseline;		/* the first read has been taken */
} rowread_cums;

/* What reading rows needs. */
typedef struct rowread_ctx
{
	stmt_conn  *sc;				/* to look up names not known yet */
	strpool    *pool;
	names_cache *names;
	rowread_cums *cum;
	int			server_version;
} rowread_ctx;

/* Make a new connection ready for reading rows (pqbin's setup); false with *cause. */
bool		rowread_setup(stmt_conn *sc, char **cause);

/* Turn the rows of res into sample rows of b, the way mode says; false with *cause. */
bool		rowread_rows(const rowread_ctx *ctx, PGresult *res, sample_batch *b,
						 rowread_mode mode, char **cause);

void		rowread_cums_free(rowread_cums *c);

#endif
