/*
 * sampler.h — the connection to the sampled server and the samples read
 * over it.
 *
 * One libpq connection, in autocommit: each sample is one statement, so
 * pg_stat_activity's snapshot is taken afresh (inside a transaction it
 * would return the same rows again).  The statement is prepared once per
 * connection; the filters are bound as parameters and results are read
 * in binary (int4 pids, timestamptz, text, int4[]) through pqbin.h.
 *
 * The sources (source.h) build the statements; the statements run through
 * stmt.h with a deadline each, their rows are read by rowread.h, and
 * database and user oids are named by names.h.
 */
#ifndef PGTEMPO_SAMPLER_SAMPLER_H
#define PGTEMPO_SAMPLER_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "pgtempo/clock.h"
#include "pgtempo/conn.h"
#include "pgtempo/hist.h"

#include "names.h"
#include "query.h"
#include "rowread.h"
#include "sample.h"
#include "source.h"
#include "stmt.h"
#include "strpool.h"

typedef enum sampler_status
{
	SAMPLER_OK = STMT_OK,
	SAMPLER_ERROR = STMT_ERROR, /* the statement failed; the connection is fine */
	SAMPLER_LOST = STMT_LOST,	/* the connection is gone, or was dropped: no answer in time */
	SAMPLER_INTERRUPTED = STMT_INTERRUPTED	/* a stop was requested while waiting */
} sampler_status;

/*
 * Known pids are read each alone when the server has this many times more
 * backends than pids (counted again every SAMPLER_RECOUNT_NS).
 */
#define SAMPLER_PIDS_RATIO		30
#define SAMPLER_RECOUNT_NS		(10 * NS_PER_S)

/* -i of a source that reads the server's own sampling (pg_wait_sampling, pg_stat_wait) */
#define SAMPLER_SERVER_SOURCE_INTERVAL_NS	(NS_PER_S)

typedef struct sampler_desc
{
	const char *type;
	const char *event;
	const char *description;
} sampler_desc;

/*
 * What to sample and how: filled by the tool that samples (pgtempo-waits
 * from its options, pgtempo-bench for its own sessions).  The lists are
 * the caller's and must outlive the sampler; the pid list may change
 * between samples (sampler_set_pids).
 */
typedef struct sampler_config
{
	const conn_opts *conn;
	int64_t		interval_ns;
	bool		interval_given;	/* else a server-side source picks its own */
	sampler_source source;
	/* filters, sent to the server as parameters */
	const int32_t *pids;
	int			npids;
	bool		filter_pids;	/* filter by pids even while the list is empty */
	sampler_strlist dbs;
	sampler_strlist users;
	sampler_strlist apps;
	sampler_strlist backend_types;
	bool		include_idle;
	int			query_text;		/* characters of query text kept; 0: none */
	unsigned	omit;			/* QUERY_OMIT_*: columns not needed */
} sampler_config;

typedef struct sampler
{
	sampler_config cfg;
	strpool    *pool;
	stmt_conn	sc;				/* the connection and the statement in flight */
	const source_ops *src;		/* the source in use */
	query_caps	caps;
	query_opts	opts;
	sampler_source source;		/* resolved: never AUTO after sampler_open() */
	char	   *source_detail;	/* e.g. "pg_wait_sampling 1.1" */
	bool		pws_installed;	/* the extension pg_wait_sampling is in this database */
	bool		pids_stmt;		/* known pids: a statement reading each one's status is ready */
	bool		pids_each;		/* ... and the last sample used it */
	int			backends;		/* on the server, last counted; -1: not yet */
	uint64_t	backends_ns;	/* when (monotonic) */
	char	   *server_version;	/* e.g. "15.4" */
	char	   *current_user;
	char	   *label;			/* host:port, for --store */
	double		period_s;		/* seconds one sample stands for */
	uint64_t	interval_ns;	/* between samples: -i, or the source's default */
	int			backend_pid;
	bool		backend_local;	/* our backend's /proc entry is readable */
	PGresult   *res;			/* the last sample's rows point into it */
	rowread_cums cum;			/* pg_wait_sampling_profile / pg_stat_wait_profile */
	names_cache names;			/* database and user names by oid */
	sampler_desc *descs;		/* pg_wait_events (17+) */
	int			ndescs;
	bool		history;		/* pg_stat_wait_history is read */
	bool		history_baseline;	/* history_since_us has been set */
	int64_t		history_since_us;	/* its newest sample_ts read so far; -1: none */
	bool		in_flight;		/* a sample was sent (sampler_send) and not collected */
	bool		held;			/* its result was read, to run another statement */
	stmt_status held_st;
	PGresult   *held_res;
	uint64_t	flight_ts_us;	/* the wall clock it was sent at: its timestamp */
	hist		latency;		/* sample statement latency, ns */
	uint64_t	samples;
	uint64_t	failed;
	uint64_t	hidden_rows;
	bool		hidden_warned;
	const char *last_error;		/* of the last failed statement (sc's) */
} sampler;

/*
 * How long the server may take before it counts as not answering: a
 * statement (or connection attempt) that has no answer by then is
 * cancelled and its connection dropped (SAMPLER_LOST).  It is also cut
 * at the run's end (end_ns), but gets at least SAMPLER_MIN_WAIT_NS, and
 * the cancel request at most SAMPLER_CANCEL_NS: a run ends at most a
 * second after its end whatever the server does.  After a stop request a
 * statement in flight gets SAMPLER_MIN_WAIT_NS more.
 */
#define SAMPLER_STATEMENT_TIMEOUT_NS	STMT_TIMEOUT_NS
#define SAMPLER_CONNECT_TIMEOUT_NS		(10 * NS_PER_S)
#define SAMPLER_MIN_WAIT_NS				STMT_MIN_WAIT_NS
#define SAMPLER_CANCEL_NS				STMT_CANCEL_NS

/*
 * When an attempt to connect gives up: SAMPLER_CONNECT_TIMEOUT_NS from
 * now, or the run's end (monotonic ns; UINT64_MAX: none) if that comes
 * first.  A postmaster that never answers cannot hold a run past its end.
 */
uint64_t	sampler_connect_deadline(uint64_t end_ns);

/*
 * Connect (prompting for a password if needed), find the server's
 * version and the source to use, and prepare, all by
 * sampler_connect_deadline(end_ns).  False with *cause on failure.
 */
bool		sampler_open(sampler *sm, const sampler_config *cfg, strpool *pool,
						 volatile sig_atomic_t *stop, uint64_t end_ns, char **cause);

/*
 * Sample these pids from the next statement on (cfg.filter_pids); the
 * list stays the caller's.  False with *cause if the parameters cannot
 * be built.
 */
bool		sampler_set_pids(sampler *sm, const int32_t *pids, int npids, char **cause);

/* Set the run's end (monotonic ns), once sampling starts. */
static inline void
sampler_set_end(sampler *sm, uint64_t end_ns)
{
	sm->sc.end_ns = end_ns;
}

/*
 * After a lost connection: try once to connect again, waiting at most
 * until the monotonic time give_up_ns (sampler_connect_deadline), and
 * set up as before.  The
 * source stays the one chosen at the start.
 */
bool		sampler_reconnect(sampler *sm, uint64_t give_up_ns, char **cause);

/* Drop the connection (kept state stays). */
void		sampler_disconnect(sampler *sm);
void		sampler_close(sampler *sm);

static inline bool
sampler_connected(const sampler *sm)
{
	return sm->sc.conn != NULL;
}

/*
 * Take one sample into b (reset to ts_us first).  The rows' query texts
 * point into the result, valid until the next call or sampler_release().
 */
sampler_status sampler_sample(sampler *sm, sample_batch *b, uint64_t ts_us);

/*
 * The same in two steps, so that the sampler wakes once per sample: send
 * the sampling statement at the tick (ts_us, the sample's time), and at
 * the next wake-up collect its rows into b (reset to ts_us).  Collecting
 * waits for the result if it is not there yet; statements run in between
 * (names, measures, history) read it first and keep it.  Only samples
 * taken with sampler_sample() count in the latency.
 */
sampler_status sampler_send(sampler *sm, uint64_t ts_us);
sampler_status sampler_collect(sampler *sm, sample_batch *b);

/* Is a sample sent and not collected? */
static inline bool
sampler_in_flight(const sampler *sm)
{
	return sm->in_flight;
}

/* pg_stat_wait only: the measured wait time and counts since the last call, as rows of b. */
sampler_status sampler_measure(sampler *sm, sample_batch *b, uint64_t ts_us);

/* Free the last result. */
void		sampler_release(sampler *sm);

/* The server's description of a wait event (17+), or NULL. */
const char *sampler_describe(const sampler *sm, const char *type, const char *event);

/*
 * Read the database and user names again if they are a minute old, so
 * renames show up; false with *cause on error.
 */
bool		sampler_refresh_names(sampler *sm, char **cause);

/* A wait read from pg_stat_wait_history: its type and event (interned) and duration. */
typedef source_wait_fn sampler_wait_fn;

/*
 * pg_stat_wait only, when the server has pg_stat_wait_history: call fn for
 * each wait it recorded since the last call (the first call: since the
 * sampler connected), with the filters applied.  If the view cannot be
 * read (SAMPLER_ERROR), a warning says so and it is not read again.
 */
sampler_status sampler_history(sampler *sm, sampler_wait_fn fn, void *arg);

/* CPU seconds our server backend has used, when it runs on this host; < 0 if unknown. */
double		sampler_backend_cpu_s(const sampler *sm);

/*
 * The number of backends on the server with a status (its sessions and
 * background processes) into *n; false with *cause if it cannot be read.
 */
bool		sampler_count_backends(sampler *sm, int *n, char **cause);

#endif
