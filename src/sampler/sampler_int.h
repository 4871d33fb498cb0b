/*
 * sampler_int.h — the sampler's handle inside, for the files of src/sampler only.
 *
 * The sources (source.h) build the statements; the statements run through
 * stmt.h with a deadline each, their rows are read by rowread.h, and
 * database and user oids are named by names.h.  The tools see none of
 * it: sampler.h's functions and sampler_info are their way in.
 */
#ifndef PGTEMPO_SAMPLER_SAMPLER_INT_H
#define PGTEMPO_SAMPLER_SAMPLER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "pgtempo/clock.h"

#include "idents.h"
#include "names.h"
#include "query.h"
#include "rowread.h"
#include "sampler.h"
#include "source.h"
#include "stmt.h"
#include "strpool.h"

/*
 * Known pids are read each alone when the server has this many times more
 * backends than pids (counted again every SAMPLER_RECOUNT_NS).
 */
#define SAMPLER_PIDS_RATIO		30
#define SAMPLER_RECOUNT_NS		(10 * NS_PER_S)

/* -i of a source that reads the server's own sampling (pg_wait_sampling, pg_stat_wait) */
#define SAMPLER_SERVER_SOURCE_INTERVAL_NS	(NS_PER_S)

/* How long a connection attempt may take (sampler_connect_deadline). */
#define SAMPLER_CONNECT_TIMEOUT_NS		(10 * NS_PER_S)

/* A wait event and the server's description of it (pg_wait_events, 17+). */
typedef struct sampler_desc
{
	const char *type;
	const char *event;
	const char *description;
} sampler_desc;

struct sampler
{
	sampler_config cfg;
	sampler_info info;			/* what sampler_get_info() hands out */
	strpool    *pool;
	stmt_conn	sc;				/* the connection and the statement in flight */
	const source_ops *src;		/* the source in use */
	query_caps	caps;
	query_opts	opts;
	uint64_t	backends_ns;	/* when info.backends was counted (monotonic) */
	char	   *label;			/* info's strings */
	char	   *server_version;
	char	   *source_detail;
	char	   *current_user;
	int			backend_pid;
	PGresult   *res;			/* the last sample's rows point into it */
	rowread_cums cum;			/* pg_wait_sampling_profile / pg_stat_wait_profile */
	names_cache names;			/* database and user names by oid */
	idents_cache idents;		/* who the sessions of lock chains are, when not read with the rows */
	bool		idents_on;		/* ... looked up in this run (the statement is prepared) */
	sampler_desc *descs;		/* pg_wait_events (17+) */
	int			ndescs;
	bool		counters_ready;	/* sampler_read_int8's statement is prepared on this connection */
	uint64_t	counters_hash;	/* ... of this sql (another sql is prepared under its own name) */
	bool		history;		/* pg_stat_wait_history is read */
	bool		history_baseline;	/* history_since_us has been set */
	int64_t		history_since_us;	/* its newest sample_ts read so far; -1: none */
	bool		in_flight;		/* a sample was sent (sampler_send) and not collected */
	bool		held;			/* its result was read, to run another statement */
	sampler_status held_st;
	PGresult   *held_res;
	uint64_t	flight_ts_us;	/* the wall clock it was sent at: its timestamp */
	bool		hidden_warned;
};

#endif
