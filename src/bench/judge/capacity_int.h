/*
 * capacity_int.h — what the parts of --capacity share: a step, the search's
 * state, and the calls between the search (capacity.c), its steps
 * (capstep.c) and its report (capreport.c).
 */
#ifndef PGTEMPO_BENCH_CAPACITY_INT_H
#define PGTEMPO_BENCH_CAPACITY_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capacity.h"
#include "results/results.h"

#define CAP_MAX_STEPS	64
#define CAP_RESAMPLES	1000
#define CAP_SEED		UINT64_C(20261202)
/* the closed-loop probe's length, and the steps' measured length, bounds in seconds */
#define CAP_PROBE_MIN_S	2
#define CAP_PROBE_MAX_S	5
#define CAP_STEP_MIN_S	5
#define CAP_STEP_MAX_S	30
/* the lowest rate tried, as a fraction of the probe's ceiling */
#define CAP_MIN_FRACTION (1.0 / 64)
/* lag growth across a step that counts as "not steady": this fraction of the smallest target */
#define CAP_LAG_FRACTION 0.10
/* a rate whose interval holds the target is measured again, pooled, at most this often */
#define CAP_MAX_REPEATS	2

/* One objective's percentile in a step, with its interval (seconds). */
typedef struct cap_value
{
	bool		known;
	double		est,
				lo,
				hi;
} cap_value;

/* One step of the search. */
typedef struct cap_step
{
	double		rate;			/* offered; 0: the closed-loop probe */
	double		tps;			/* achieved, over the measured part */
	double		measured_s;
	int64_t		transactions;
	int64_t		failed;
	cap_value	v[GATE_MAX_LIMITS];
	bool		lag_known;
	double		lag_slope;		/* ms per s */
	double		lag_growth_lo;	/* the lower 95 % bound of the growth across the step, ms */
	bool		steady;
	bool		draining;		/* not steady: the lag falls (a backlog from a stall drains) */
	bool		met;			/* every objective's interval below its target */
	bool		inconclusive;	/* not met, but no interval is wholly above its target */
	int			runs;			/* the runs at this rate pooled into the step */
	bool		again;			/* inconclusive: the next step measures its rate again */
	bool		pass;
	char		why[160];
} cap_step;

typedef struct cap_search
{
	const bench_settings *s;
	const capacity_settings *c;
	cap_step	steps[CAP_MAX_STEPS];
	int			nsteps;
	double		ceiling;		/* the probe's tps */
	double		lo,
				hi;				/* the bracket: highest passing, lowest failing (hi: 0 none) */
	bool		hi_tested;		/* hi failed a step (else it is the probe's ceiling) */
	const char *stop_why;
	int			status;			/* of the runs: 0, 2, or 128 + N */
	double		used_s;
	series		pool;			/* the one-second series of the runs at pool_rate */
	double		pool_rate;
	int			pool_runs;
	bool		pool_drop;		/* the last run is not pooled: the next one starts anew */
} cap_search;

/*
 * Run one step: open loop at rate with --warmup=auto:warm_max, or the
 * closed-loop probe (rate 0, no warm-up); measure_s seconds measured.
 * False if it could not start (the cause was printed) or was stopped.
 */
bool		cap_run_step(cap_search *cs, double rate, int measure_s, int warm_max, cap_step *st);

/* The text report (stdout, or stderr when --json takes stdout). */
void		cap_print_report(FILE *out, const cap_search *cs, bool tripped);

/* Write --json to path ("-": stdout); false with the message printed. */
bool		cap_write_json(const char *path, const cap_search *cs, bool tripped, int status);

#endif
