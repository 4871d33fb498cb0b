/*
 * benchwaits.h — --waits: what the benchmark's own sessions wait on.
 *
 * A thread of its own, over a connection of its own, samples
 * pg_stat_activity for the clients' backends only (pid = ANY($1)) with
 * the sampler library (src/sampler/sampler.h), every --waits interval
 * until the run stops.  The clients publish their backend pids in slots
 * (one per client, 0: no connection) that the sampler reads each tick,
 * so -C's new connections are followed.  A sampler that cannot connect
 * or loses its connection is a warning: the run goes on without it.
 */
#ifndef PGTEMPO_BENCH_BENCHWAITS_H
#define PGTEMPO_BENCH_BENCHWAITS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench.h"
#include "pgtempo/json.h"

/* --waits: pgtempo-waits -i's default and range (ns) */
#define BWAITS_DEFAULT_INTERVAL_NS	(10 * (int64_t) 1000000)
#define BWAITS_MIN_INTERVAL_NS		(10 * (int64_t) 1000)
#define BWAITS_MAX_INTERVAL_NS		(60 * (int64_t) 1000000000)
/* The report's table: the events with the largest shares. */
#define BWAITS_REPORT_TOP	10

/* One event's share of the sampled session time. */
typedef struct bwaits_event
{
	char	   *type;			/* "CPU" for running without a wait event */
	char	   *event;			/* NULL for CPU */
	uint64_t	samples;
	double		pct;
} bwaits_event;

/* -P: the interval's top wait. */
typedef struct bwaits_top
{
	bool		any;			/* false: nothing was sampled in the interval */
	char		type[64];		/* "CPU" for running without a wait event */
	char		event[64];		/* empty for CPU */
	double		pct;
} bwaits_top;

/*
 * The classes of the chart's waits panel: PostgreSQL's wait event types,
 * "CPU" for running without a wait event, and "other" for a type a later
 * server adds.
 */
#define BWAITS_NCLASSES 11
extern const char *const bwaits_class_names[BWAITS_NCLASSES];

/*
 * One interval's average active sessions per class: the session samples
 * of the class over the samples taken (the class's share of the time,
 * in sessions), the unit that adds up over hosts.
 */
typedef struct bwaits_mix
{
	bool		any;			/* false: no sample was taken in the interval */
	double		aas[BWAITS_NCLASSES];	/* in bwaits_class_names' order */
} bwaits_mix;

/* What the run's report shows. */
typedef struct bwaits_report
{
	int64_t		interval_ns;
	uint64_t	ticks;			/* samples taken */
	int			sessions;		/* the distinct backends sampled (-C: each connection) */
	uint64_t	counted;		/* session samples counted (the 100 %) */
	double		cost_us;		/* the server backend's CPU per sample; < 0 unknown */
	bool		pids_each;		/* the last sample read each client's status alone */
	int			backends;		/* on the server, last counted; -1: unknown */
	bwaits_event *ev;			/* largest share first */
	int			nev;
} bwaits_report;

typedef struct bwaits bwaits;

/*
 * Connect and start sampling for nclients clients; NULL (with a warning)
 * if the sampler cannot connect.
 */
bwaits	   *bwaits_start(const bench_settings *s, int nclients);

/* Client n's backend pid (0: none); w may be NULL.  Any thread. */
void		bwaits_set_pid(bwaits *w, int n, int pid);

/*
 * --warmup: count samples taken from wall-clock time epoch_us on in the
 * report (0: every sample, the default; UINT64_MAX: none yet).  Any
 * thread; w may be NULL.
 */
void		bwaits_measure_from(bwaits *w, uint64_t epoch_us);

/*
 * -P and --chart: the top wait and the mix of the interval since the
 * last call (w may be NULL: none).
 */
void		bwaits_interval_take(bwaits *w, bwaits_top *top, bwaits_mix *mix);

/* The class of a wait event type (bwaits_class_names' index). */
int			bwaits_class_of(const char *type);

/* "waits_aas": {"CPU": 0.5, "Lock": 3.2, ...} (every class), or null if !mix->any. */
void		bwaits_mix_json(json_writer *jw, const bwaits_mix *mix);

/* A top wait as the -P line's end: ", top wait Lock/transactionid 41%" (nothing if none). */
void		bwaits_top_print(FILE *out, const bwaits_top *top);

/* "top_wait": {wait_event_type, wait_event, pct}, or null if none. */
void		bwaits_top_json(json_writer *jw, const bwaits_top *top);

/* Stop sampling, free the sampler, and return the run's report (NULL if w is). */
bwaits_report *bwaits_stop(bwaits *w);

void		bwaits_report_print(FILE *out, const bwaits_report *rep);
/* "waits": [ ... ], largest share first; "waits_cost_us_per_sample" (null: unknown). */
void		bwaits_report_json(json_writer *jw, const bwaits_report *rep);
void		bwaits_report_free(bwaits_report *rep);

#endif
