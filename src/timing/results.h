/*
 * results.h — what pg_test_timing is asked (settings) and what it found
 * (results): tool.c fills the results, report.c prints them.
 */
#ifndef PGTEMPO_TIMING_RESULTS_H
#define PGTEMPO_TIMING_RESULTS_H

#include <stdbool.h>

#include "clockenv.h"
#include "crosscpu.h"
#include "timing.h"

typedef enum timing_unit
{
	TIMING_UNIT_US,				/* PostgreSQL 15's table: "< us" */
	TIMING_UNIT_NS				/* PostgreSQL 19's tables: "<= ns" and exact durations */
} timing_unit;

typedef struct timing_settings
{
	unsigned int duration_s;	/* -d, 1..UINT_MAX */
	double		cutoff;			/* -c, percent, 0..100 */
	timing_unit unit;			/* --histogram */
	bool		clocks[TIMING_CLOCK_COUNT]; /* --clock */
	bool		cross_cpu;		/* --cross-cpu */
	bool		json;			/* --json, --json=-: JSON on stdout instead of the report */
	const char *json_path;		/* --json=FILE: the JSON document also in FILE; NULL: none */
	const char *metrics_path;	/* --metrics, or NULL */
} timing_settings;

#define TIMING_SETTINGS_INIT { \
	.duration_s = 3, .cutoff = 99.99, .unit = TIMING_UNIT_US, \
	.clocks = {[TIMING_CLOCK_SYSTEM] = true}, .cross_cpu = false, .json = false }

typedef struct timing_results
{
	const timing_settings *settings;
	clockenv	env;
	clock_tsc	tsc;
	timing_pass *passes[TIMING_CLOCK_COUNT];	/* the passes run, in order */
	int			npasses;
	crosscpu_result cross[TIMING_CLOCK_COUNT];
	bool		cross_ran[TIMING_CLOCK_COUNT];
	int			signo;			/* the signal that interrupted the run, or 0 */
	int			exit_status;
} timing_results;

/* The counts and verdicts below are computed from the above where they are used. */

/* How many clocks the settings ask for. */
static inline int
results_nclocks(const timing_settings *s)
{
	int			n = 0;

	for (int c = 0; c < TIMING_CLOCK_COUNT; c++)
		n += s->clocks[c];
	return n;
}

/* Whether a pass saw time go backwards (the passes stop at the first that does). */
static inline bool
results_backwards(const timing_results *r)
{
	return r->npasses > 0 && r->passes[r->npasses - 1]->outcome == TIMING_BACKWARDS;
}

/* How many cross-CPU checks ran. */
static inline int
results_ncross(const timing_results *r)
{
	int			n = 0;

	for (int c = 0; c < TIMING_CLOCK_COUNT; c++)
		n += r->cross_ran[c];
	return n;
}

/* Whether a cross-CPU check saw time go backwards. */
static inline bool
results_cross_backwards(const timing_results *r)
{
	for (int c = 0; c < TIMING_CLOCK_COUNT; c++)
		if (r->cross_ran[c] && r->cross[c].backwards)
			return true;
	return false;
}

#endif
