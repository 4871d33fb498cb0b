/*
 * sample.h — one sample: the rows read for one tick, and what each row
 * means (on CPU, waiting, idle, or hidden from us).
 *
 * Strings in a row are interned (strpool) except the query text, which
 * points into the result it was read from and lives only until the rows
 * have been handed to the sinks.
 */
#ifndef PGTEMPO_SAMPLER_SAMPLE_H
#define PGTEMPO_SAMPLER_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

struct strpool;

/* The labels of a backend that is active but not waiting. */
#define SAMPLE_CPU_TYPE		"CPU"
#define SAMPLE_CPU_EVENT	"CPU"
/* The labels of an idle row that has no wait event (shown with --include-idle). */
#define SAMPLE_IDLE_TYPE	"Idle"
#define SAMPLE_IDLE_EVENT	"idle"
/* A session idle in a transaction waits for its client, with or without a wait event. */
#define SAMPLE_CLIENT_TYPE	"Client"
#define SAMPLE_CLIENT_EVENT	"ClientRead"

typedef enum sample_class
{
	SAMPLE_CPU,					/* state active (or a background process), no wait event */
	SAMPLE_WAIT,				/* a wait event */
	SAMPLE_IDLE,				/* idle: waiting for the client, or a process's main loop */
	SAMPLE_HIDDEN				/* <insufficient privilege>: nothing known */
} sample_class;

typedef struct sample_row
{
	int32_t		pid;
	int64_t		backend_start_us;	/* µs since the epoch; INT64_MIN unknown */
	const char *backend_type;
	const char *datname;
	const char *usename;
	const char *application_name;
	const char *client_addr;
	const char *state;
	const char *wait_event_type;	/* "CPU" for SAMPLE_CPU */
	const char *wait_event;
	int64_t		query_id;		/* 0: none */
	int32_t		leader_pid;		/* 0: none */
	int64_t		xact_start_us;	/* µs since the epoch; INT64_MIN none or unknown */
	int			nblockers;		/* pids blocking a heavyweight lock wait */
	int			blockers_off;	/* where they are in the batch's blockers */
	const char *query;			/* truncated text, or NULL */
	uint32_t	samples;		/* how many samples the row stands for (1 for polling) */
	int64_t		wait_time_us;	/* measured time of the current wait; -1 unknown */
	uint64_t	measured_us;	/* measured wait time added (pg_stat_wait profile) */
	uint64_t	measured_count; /* measured waits added */
	sample_class cls;
} sample_row;

/*
 * Who a session in a lock chain is, when the run does not read these
 * columns with every row: looked up apart (idents.h), kept beside the
 * rows so the rows themselves (and the profile keys made of them) stay
 * as read.  Strings interned; NULL unknown.
 */
typedef struct sample_ident
{
	int32_t		pid;
	int64_t		backend_start_us;	/* INT64_MIN unknown */
	const char *datname;
	const char *usename;
	const char *application_name;
	const char *backend_type;
} sample_ident;

typedef struct sample_batch
{
	uint64_t	ts_us;			/* wall-clock time the sample was taken */
	sample_row *rows;
	int			nrows;
	int			cap;
	int32_t    *blockers;
	int			nblockers;
	int			blockers_cap;
	int			hidden;			/* rows we may not see */
	/* the identities of the sessions in lock chains, by increasing pid (see sample_ident) */
	sample_ident *idents;
	int			nidents;
	int			idents_cap;
} sample_batch;

/* A period without samples because the connection was lost. */
typedef struct sample_gap
{
	uint64_t	start_us;		/* wall clock of the last sample before it */
	uint64_t	end_us;			/* of the first sample after it; 0 while open */
	char	   *reason;			/* libpq's message */
} sample_gap;

/* How well the sampler kept up, for the report and the logs. */
typedef struct sample_health
{
	uint64_t	ts_us;			/* when this was taken */
	uint64_t	samples;		/* samples taken */
	uint64_t	failed;			/* samples that returned an error */
	uint64_t	missed;			/* ticks missed because a sample ran late */
	uint64_t	gap_ticks;		/* ticks in connection gaps */
	double		elapsed_s;		/* since sampling started */
	double		rate_hz;		/* samples / elapsed */
	double		p50_ms;			/* sample query latency */
	double		p99_ms;
	double		max_ms;
	uint64_t	hidden;			/* rows hidden by missing privileges */
	int			ngaps;
	double		gap_s;			/* total time in gaps */
	double		cpu_us_per_sample;	/* our own CPU time; < 0 unknown */
	double		backend_cpu_us_per_sample;	/* our server backend's; < 0 unknown */
	/* the cost budget (waits/budget.h): the rate chosen, what a sample costs, at how many backends */
	double		interval_s;		/* between samples now */
	double		cost_us_per_sample;	/* our backend's CPU per sample, last window; < 0 unknown */
	int			backends;		/* on the server, last counted; < 0 unknown */
} sample_health;

void		sample_batch_init(sample_batch *b);
void		sample_batch_free(sample_batch *b);
void		sample_batch_reset(sample_batch *b, uint64_t ts_us);
/* A new zeroed row at the end of the batch. */
sample_row *sample_batch_add(sample_batch *b);
/* Append a blocking pid to the batch's last row. */
void		sample_batch_add_blocker(sample_batch *b, int32_t pid);
/* Append an identity to the side table: in increasing pid order, one per pid. */
void		sample_batch_add_ident(sample_batch *b, const sample_ident *id);

/*
 * The identity of pid in the side table, or NULL: when both its and the
 * caller's backend start (INT64_MIN: not known) are known, they must be
 * the same session's.
 */
const sample_ident *sample_batch_ident(const sample_batch *b, int32_t pid,
									   int64_t backend_start_us);

/* Is the row part of the history (logs, store, folded)?  Idle rows only when asked for. */
static inline bool
sample_row_counted(const sample_row *r, bool include_idle)
{
	return r->cls == SAMPLE_CPU || r->cls == SAMPLE_WAIT ||
		(r->cls == SAMPLE_IDLE && include_idle);
}

/* The pid of the session a row belongs to: a parallel worker's leader. */
static inline int32_t
sample_session_pid(const sample_row *r)
{
	return r->leader_pid != 0 && r->leader_pid != r->pid ? r->leader_pid : r->pid;
}

static inline const int32_t *
sample_blockers(const sample_batch *b, const sample_row *r)
{
	return b->blockers + r->blockers_off;
}

/*
 * Classify a row from pg_stat_activity's state and wait event.
 * "idle" sessions and processes waiting in their main loop (wait event
 * type Activity) are idle; a session "idle in transaction" (or aborted)
 * waits for its client, holding locks and a snapshot, so it is a wait
 * (Client/ClientRead), never CPU; any other row with no wait event is on
 * CPU; a row we may not see is hidden.  Our own labels, CPU and Idle (a
 * log read back holds them), are classed as the rows they label.
 */
sample_class sample_classify(const char *state, const char *wait_event_type, bool hidden);

/*
 * Map a wait event to the name PostgreSQL 19 gives it, so profiles from
 * servers of different versions line up: before 19, the buffer pin wait
 * was BufferPin/BufferPin; 19 calls it Buffer/BufferCleanup.  The
 * strings returned are static or the ones passed in.
 */
void		sample_normalize_event(int server_version, const char **type, const char **event);

/* Is state one of the "idle in transaction" states? */
bool		sample_idle_in_transaction(const char *state);

/*
 * Fill the classification and labels of r from the raw columns (interning
 * through pool).  Every counted row gets a label: CPU/CPU on CPU,
 * Client/ClientRead idle in a transaction, Idle/idle for an idle row
 * without a wait event.
 */
void		sample_finish_row(sample_row *r, struct strpool *pool, int server_version,
							  const char *type, const char *event, bool hidden);

#endif
