/*
 * sampler.h — the wait-event sampler both tools link: a connection to the
 * sampled server and the samples read over it, behind an opaque handle.
 *
 * One libpq connection, in autocommit: each sample is one statement, so
 * pg_stat_activity's snapshot is taken afresh (inside a transaction it
 * would return the same rows again).  The statements are prepared once
 * per connection, the filters bound as parameters, the rows read in
 * binary.  How is the library's business (sampler_int.h and the headers
 * it includes); a tool sees this header, the sample model (sample.h),
 * the profile (wprof.h) and the string pool (strpool.h).
 *
 * The library prints nothing: a warning goes to the tool's callback
 * (sampler_config.warn), an error back through a cause.
 */
#ifndef PGTEMPO_SAMPLER_SAMPLER_H
#define PGTEMPO_SAMPLER_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/conn.h"
#include "pgtempo/hist.h"

#include "sample.h"

struct strpool;

typedef struct sampler sampler;

typedef enum sampler_status
{
	SAMPLER_OK,
	SAMPLER_ERROR,				/* the statement failed; the connection is fine */
	SAMPLER_LOST,				/* the connection is gone, or was dropped: no answer in time */
	SAMPLER_INTERRUPTED			/* a stop was requested while waiting */
} sampler_status;

/* Where samples come from. */
typedef enum sampler_source
{
	SAMPLER_SOURCE_AUTO,
	SAMPLER_SOURCE_ACTIVITY,		/* poll pg_stat_activity */
	SAMPLER_SOURCE_PG_WAIT_SAMPLING,	/* read the extension's profile */
	SAMPLER_SOURCE_PG_STAT_WAIT	/* pg_stat_wait_* views of patched servers */
} sampler_source;

typedef struct sampler_strlist
{
	int			n;
	char	  **v;
} sampler_strlist;

/*
 * Columns a run does not use (sampler_config.omit): the server returns
 * them as NULL, fewer bytes to send and nothing to read or name.
 */
#define SAMPLER_OMIT_BACKEND_START	(1u << 0)
#define SAMPLER_OMIT_DATID			(1u << 1)
#define SAMPLER_OMIT_USESYSID		(1u << 2)
#define SAMPLER_OMIT_APPNAME		(1u << 3)
#define SAMPLER_OMIT_CLIENT_ADDR	(1u << 4)
#define SAMPLER_OMIT_LEADER_PID		(1u << 5)

/* PostgreSQL's backend types, NULL-terminated (9.6 .. 18): the values a type filter takes. */
extern const char *const sampler_backend_types[];
/* The catch-all type for processes whose type is not among them. */
#define SAMPLER_OTHER_BACKEND_TYPE "background worker"

/*
 * A warning of the sampler's, with an optional detail and hint (NULL:
 * none), for the tool to print as its own (msg.h's warning, detail, hint).
 */
typedef void (*sampler_warn_fn) (void *arg, const char *warning, const char *detail,
								 const char *hint);

/*
 * What to sample and how: filled by the tool that samples (from its
 * options, or for its own sessions).  The lists are the caller's and must
 * outlive the sampler; the pid list may change between samples
 * (sampler_set_pids).
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
	unsigned	omit;			/* SAMPLER_OMIT_*: columns not needed */
	/*
	 * The user, database and application of the sessions in lock chains
	 * are wanted even when omit leaves them out: looked up apart (idents.h)
	 * into the batch's side table.
	 */
	bool		chain_idents;
	sampler_warn_fn warn;		/* NULL: warnings are dropped */
	void	   *warn_arg;
} sampler_config;

/*
 * What the sampler knows of the server and has counted, for the tool's
 * report and logs (sampler_get_info).  The strings are the sampler's:
 * a reconnect replaces them (another host of a multi-host conninfo,
 * another version after an upgrade).
 */
typedef struct sampler_info
{
	/* the server and the source, as of the last connection */
	const char *label;			/* host:port */
	const char *server_version;	/* e.g. "15.4" */
	bool		no_query_ids;	/* the server is known to have none (before 14) */
	bool		pws_installed;	/* the extension pg_wait_sampling is in this database */
	sampler_source source;		/* resolved: never AUTO */
	const char *source_detail;	/* e.g. "pg_wait_sampling 1.1" */
	uint64_t	interval_ns;	/* between samples: -i, the source's default, or set */
	double		period_s;		/* seconds one sample stands for */
	bool		backend_local;	/* our server backend's CPU time can be read (this host) */
	bool		known_pids;		/* pids filtered: a statement reads each one's status alone */
	bool		pids_each;		/* ... and the last sample used it */
	int			backends;		/* on the server, last counted; -1: not yet */
	bool		descriptions;	/* pg_wait_events was read (17+): sampler_describe knows events */
	/* the samples */
	uint64_t	samples;		/* taken */
	uint64_t	failed;			/* that returned an error */
	uint64_t	hidden_rows;	/* rows hidden by missing privileges */
	hist		latency;		/* statement latency, ns, of samples taken whole */
	const char *last_error;		/* of the last failed statement; NULL: none */
} sampler_info;

/*
 * When an attempt to connect gives up: in 10 s, or at the run's end
 * (monotonic ns; UINT64_MAX: none) if that comes first.  A postmaster
 * that never answers cannot hold a run past its end.
 */
uint64_t	sampler_connect_deadline(uint64_t end_ns);

/*
 * Connect (prompting for a password if needed), find the server's
 * version and the source to use, and prepare, all by
 * sampler_connect_deadline(end_ns).  NULL with *cause on failure.  Row
 * strings are interned in pool (strpool.h), which must outlive the sampler.
 */
sampler    *sampler_open(const sampler_config *cfg, struct strpool *pool,
						 volatile sig_atomic_t *stop, uint64_t end_ns, char **cause);

/* Disconnect and free everything (NULL: nothing). */
void		sampler_close(sampler *sm);

/* What the sampler knows and has counted, kept up to date: valid until sampler_close(). */
const sampler_info *sampler_get_info(const sampler *sm);

/*
 * Sample these pids from the next statement on (cfg.filter_pids); the
 * list stays the caller's.  False with *cause if the parameters cannot
 * be built.
 */
bool		sampler_set_pids(sampler *sm, const int32_t *pids, int npids, char **cause);

/*
 * Set the run's end (monotonic ns), once sampling starts.  A statement
 * (or connection attempt) without an answer in 10 s is cancelled and its
 * connection dropped (SAMPLER_LOST); it is also cut at the run's end, but
 * gets at least half a second, and the cancel request at most half a
 * second more: a run ends at most a second after its end whatever the
 * server does.  After a stop request a statement in flight gets half a
 * second more.
 */
void		sampler_set_end(sampler *sm, uint64_t end_ns);

/* Sample every interval_ns from now on (a cost budget changed the rate): info says so. */
void		sampler_set_interval(sampler *sm, uint64_t interval_ns);

/*
 * After a lost connection: try once to connect again, waiting at most
 * until the monotonic time give_up_ns (sampler_connect_deadline), and
 * set up as before.  The source stays the one chosen at the start.
 */
bool		sampler_reconnect(sampler *sm, uint64_t give_up_ns, char **cause);

/* Drop the connection (kept state stays). */
void		sampler_disconnect(sampler *sm);

/* Is the sampler connected? */
bool		sampler_connected(const sampler *sm);

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
bool		sampler_in_flight(const sampler *sm);

/* pg_stat_wait only: the measured wait time and counts since the last call, as rows of b. */
sampler_status sampler_measure(sampler *sm, sample_batch *b, uint64_t ts_us);

/* Free the last result. */
void		sampler_release(sampler *sm);

/* The server's description of a wait event (17+), or NULL. */
const char *sampler_describe(const sampler *sm, const char *type, const char *event);

/* Is name one of the server's databases (as last read)? */
bool		sampler_has_database(const sampler *sm, const char *name);

/*
 * Read the database and user names again if they are a minute old, so
 * renames show up; false with *cause on error.
 */
bool		sampler_refresh_names(sampler *sm, char **cause);

/* A wait read from pg_stat_wait_history: its type and event (interned) and duration. */
typedef void (*sampler_wait_fn) (void *arg, const char *type, const char *event, uint64_t wait_us);

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

/*
 * Run sql (no parameters), which returns one row of n bigint columns, into
 * v and isnull (a NULL reads as 0); false with *cause if it fails.  It is
 * prepared once a connection: every call of a run passes the same sql.
 * Used for the server's own counters, read a few times a run
 * (waits/measured.h).
 */
bool		sampler_read_int8(sampler *sm, const char *sql, int n, int64_t *v, bool *isnull,
							  char **cause);

#endif
