/*
 * wprof.h — wait-event profiles: counts of samples per session, event
 * and query, regrouped on demand.
 *
 * A profile keeps one cell per fine key (session, database, user,
 * application, backend type, wait event, query id), so any grouping the
 * user asks for (--by, or a key in the live view) is computed from it
 * without sampling again.  Blocking pids of heavyweight lock waits are
 * kept in a second table under the same key plus the blocker's pid.
 *
 * Estimates: an event seen in k of the N backend samples of a run with
 * interval Δ took about k·Δ seconds of backend time.  Treating each
 * backend sample as a Bernoulli draw, the 95 % bound of that estimate is
 * 1.96·Δ·sqrt(k·(1 − k/N)) (wprof_error_s).
 */
#ifndef PGTEMPO_SAMPLER_WPROF_H
#define PGTEMPO_SAMPLER_WPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgtempo/hash.h"
#include "pgtempo/hist.h"

#include "heads.h"
#include "sample.h"

/* What a profile can be grouped by (--by). */
typedef enum wprof_dim
{
	WPROF_DIM_EVENT,			/* wait_event_type and wait_event */
	WPROF_DIM_PID,				/* a session: pid and backend_start (with its user and db) */
	WPROF_DIM_QUERY,			/* query_id */
	WPROF_DIM_DB,
	WPROF_DIM_USER,
	WPROF_DIM_APP,
	WPROF_DIM_BACKEND_TYPE,
	WPROF_DIM_COUNT
} wprof_dim;

typedef struct wprof_key
{
	const char *datname;		/* interned, or NULL */
	const char *usename;
	const char *appname;
	const char *backend_type;
	const char *type;
	const char *event;
	int64_t		query_id;
	int64_t		backend_start_us;
	int32_t		pid;
	int64_t		sub;			/* blockers table: the blocking pid */
} wprof_key;

/* An entry of a profile's tables (core's hash table, keyed by key). */
typedef struct wprof_cell
{
	wprof_key key;
	uint64_t	samples;
	uint64_t	measured_us;
	uint64_t	measured_count;
	uint64_t	blocked;		/* samples that had a blocking pid */
} wprof_cell;

typedef struct wprof_text
{
	int64_t		query_id;
	char	   *text;
} wprof_text;

/* The durations of the waits of one event that the server measured (pg_stat_wait_history). */
typedef struct wprof_duration
{
	const char *type;			/* interned */
	const char *event;
	hist	   *us;				/* microseconds */
} wprof_duration;

typedef struct wprof
{
	hash_table	main;			/* wprof_cell by fine key */
	hash_table	blockers;		/* wprof_cell by fine key and blocking pid (sub) */
	uint64_t	ticks;			/* samples taken */
	uint64_t	active;			/* backend samples counted (the N of the estimates) */
	uint64_t	idle;			/* rows not counted: idle */
	uint64_t	hidden;			/* rows not counted: insufficient privilege */
	uint64_t	measured_us;	/* measured wait time (pg_stat_wait) */
	uint64_t	measured_count;
	bool		has_measured;	/* the source measures wait time (set by the
								 * caller, or by a measured row) */
	bool		include_idle;	/* count idle rows as well */
	uint64_t	first_us;		/* wall clock of the first and last tick */
	uint64_t	last_us;
	wprof_duration *durations;	/* by event, in order of appearance */
	int			ndurations;
	int			durations_cap;
	hash_table	texts;			/* wprof_text by query id, the first text seen */
	heads_prof	heads;			/* head blockers and their chains (heads.h) */
} wprof;

/* One line of a grouped profile. */
typedef struct wprof_sub
{
	int64_t		id;				/* a query id or a blocking pid */
	uint64_t	samples;
} wprof_sub;

typedef struct wprof_group
{
	wprof_key key;			/* fields of the dimensions not grouped by are NULL/0 */
	uint64_t	samples;
	uint64_t	measured_us;
	uint64_t	measured_count;
	wprof_sub *queries;		/* the top query ids of this group */
	int			nqueries;
	wprof_sub *blockers;		/* the top blocking pids */
	int			nblockers;
	uint64_t	blocked;		/* samples of the group that had a blocker */
	uint64_t	lock_samples;	/* samples of heavyweight lock waits (type Lock): the
								 * ones without a blocker had none left to see */
} wprof_group;

typedef struct wprof_groups
{
	wprof_group *g;
	int			n;
	uint64_t	total;			/* the profile's active samples */
	wprof_sub *subs;			/* storage of the groups' sub-lists */
} wprof_groups;

void		wprof_init(wprof *p, bool include_idle);
void		wprof_free(wprof *p);
/* Forget all counts (for the next interval); keeps the memory. */
void		wprof_reset(wprof *p);
/* One sample was taken at ts_us. */
void		wprof_tick(wprof *p, uint64_t ts_us);
/* Count a measured wait of wait_us microseconds (pg_stat_wait_history). */
void		wprof_add_duration(wprof *p, const char *type, const char *event, uint64_t wait_us);

/* Count a row of a batch (idle and hidden rows only in the totals). */
void		wprof_add(wprof *p, const sample_batch *b, const sample_row *r);
/* A row's fine key (every field a profile keeps; the rest, padding included, zero). */
wprof_key	wprof_row_key(const sample_row *r);
/*
 * The part of key k that the dimensions dims[WPROF_DIM_COUNT] keep, the
 * rest zero: a group's key (a session keeps its user, database and
 * backend type).
 */
wprof_key	wprof_key_project(const wprof_key *k, const bool *dims);
/*
 * Count a whole sample's blocked rows to their head blockers (once per
 * sample, with its rows), from its lock graph built once (heads.h).
 */
void		wprof_add_heads(wprof *p, const heads_graph *g);

/*
 * Group the profile by the given dimensions, largest groups first (ties
 * in key order), with at most maxsub top query ids and blockers per
 * group.  An empty dims list groups by event.
 */
void		wprof_group_by(const wprof *p, const wprof_dim *dims, int ndims,
							 int maxsub, wprof_groups *out);
void		wprof_groups_free(wprof_groups *g);

/* Has any counted row had a query id? */
bool		wprof_has_query_ids(const wprof *p);

/* The query text seen for query_id, or NULL. */
const char *wprof_query_text(const wprof *p, int64_t query_id);

/*
 * 95 % error bound of k·period seconds estimated from k of n samples (k
 * may be a fraction: a head blocker's share of samples it heads with others).
 */
double		wprof_error_s(double k, uint64_t n, double period_s);

/* Name of a dimension as --by spells it, and the reverse (false if unknown). */
const char *wprof_dim_name(wprof_dim d);
bool		wprof_dim_parse(const char *name, size_t len, wprof_dim *out);

#endif
