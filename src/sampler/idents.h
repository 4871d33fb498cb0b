/*
 * idents.h — who the sessions of lock chains are (user, database,
 * application, backend type), for a run that does not read those
 * columns with every row.
 *
 * Reading them with every row of every sample costs a run that only
 * reports wait events too much on a server of many sessions, but a head
 * blocker without its user and application is of little use.  So when a
 * sample has lock waits, the sessions of its chains (the blocked and
 * their blockers) are looked up in a cache, and those it does not know
 * (new, another session with the pid, or read more than
 * IDENTS_MAX_AGE_NS ago) are read with one statement for all of them, at
 * most once every IDENTS_INTERVAL_NS; until then they stay unknown.  The
 * identities go into the batch's side table (sample_ident), never into
 * the rows.
 */
#ifndef PGTEMPO_SAMPLER_IDENTS_H
#define PGTEMPO_SAMPLER_IDENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/clock.h"
#include "pgtempo/hash.h"

#include "names.h"
#include "sample.h"
#include "stmt.h"
#include "strpool.h"

/* One statement at most this often, whatever comes and goes in the chains. */
#define IDENTS_INTERVAL_NS	NS_PER_S
/* An identity read this long ago is read again (an application renamed, a pid reused). */
#define IDENTS_MAX_AGE_NS	(60 * NS_PER_S)
/* Past this many entries, those not needed for IDENTS_MAX_AGE_NS are forgotten. */
#define IDENTS_MAX_ENTRIES	4096

typedef struct idents_cache
{
	hash_table	entries;		/* idents_entry (idents.c) by pid */
	size_t		max_entries;	/* forget old ones past this, or IDENTS_MAX_ENTRIES */
	uint64_t	fetched_ns;		/* when the last statement was sent (monotonic); 0 never */
	uint64_t	statements;		/* sent so far */
	bool		warned;			/* a failed statement was reported */
	/* scratch of idents_fill: the pids of the batch's chains, those to read */
	uint32_t	stamp;			/* of the batch being filled */
	int32_t    *pids;
	int32_t    *fetch;
	int			npids,
				cap;
} idents_cache;

/* What a lookup needs: the connection, the prepared statement (query_idents_sql), names. */
typedef struct idents_ctx
{
	stmt_conn  *sc;
	const char *stmt;
	strpool    *pool;
	names_cache *names;
	/* told once when a statement fails; NULL: nobody */
	void		(*warn) (void *arg, const char *warning);
	void	   *warn_arg;
} idents_ctx;

void		idents_init(idents_cache *ic);
void		idents_free(idents_cache *ic);

/*
 * Fill b's side table with the identities of the sessions of its lock
 * chains, reading the unknown ones when allowed.  A failed statement
 * leaves them unknown (the sample stands); a lost connection shows on
 * ctx->sc.
 */
void		idents_fill(idents_cache *ic, const idents_ctx *ctx, sample_batch *b);

#endif
