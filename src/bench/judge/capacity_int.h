/*
 * capacity_int.h — what the parts of --capacity share: a step, the search's
 * state, and the calls between its options (capoptions.c, at the bottom),
 * its steps (capstep.c), the search (capacity.c), its report, --json and
 * exit status (capreport.c), --chart (capchart.c) and --metrics
 * (capmetrics.c); a sweep's part of the report is capsweepout.c's.
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
	bool		tripped;		/* --fail-if: the bracket lies wholly below the limit */
	double		used_s;
	series		pool;			/* the one-second series of the runs at pool_rate */
	double		pool_rate;
	int			pool_runs;
	const struct capsweep_plan *plan;	/* --sweep: its plan (capsweep.h); NULL: the search */
	bool		pool_drop;		/* the last run is not pooled: the next one starts anew */
} cap_search;

/*
 * Run one step: open loop at rate with --warmup=auto:warm_max, or the
 * closed-loop probe (rate 0, no warm-up); measure_s seconds measured.
 * False if it could not start (the cause was printed) or was stopped.
 */
bool		cap_run_step(cap_search *cs, double rate, int measure_s, int warm_max, cap_step *st);

/* The settings of a step's run (first: the run that vacuums and keeps --start-at). */
void		cap_step_settings(const cap_search *cs, double rate, int measure_s, int warm_max, bool first,
							  bench_settings *s);

/*
 * Measure and judge a step from its measured one-second series and the -P
 * lag points of lag (its progress, nprogress; st->rate set): its counts,
 * the objectives' intervals, the lag trend, the verdict.  --sweep's merge
 * judges the added shares with it.
 */
void		cap_measure_step(const cap_search *cs, const series *sr, const bench_results *lag,
							 cap_step *st);

/* A run's outcome into cs->status: a signal, or a client that aborted. */
void		cap_run_status(cap_search *cs, const bench_results *res);

/* The report (text, --json) and the exit status of a finished search or sweep; frees cs. */
int			cap_finish(cap_search *cs);


/* Judge a step from its values, lag and failures: met, pass, inconclusive, why. */
void		cap_judge_step(const capacity_settings *c, cap_step *st);

/*
 * Whether the lag grows across a run (its per-second progress points):
 * lag_known, lag_slope, lag_growth_lo and steady of st, against limit_ms.
 */
void		cap_step_lag(const bench_results *res, double limit_ms, cap_step *st);

/* The search's outcome, as the report and --metrics give it. */
typedef enum cap_verdict
{
	CAP_FOUND,					/* a rate passed (and --fail-if did not trip) */
	CAP_NONE_PASSED,			/* steps ran, none passed */
	CAP_BELOW_LIMIT,			/* --fail-if tripped: the bracket lies wholly below it */
	CAP_NO_STEP,				/* no step ran after the probe */
	CAP_NVERDICTS
} cap_verdict;

extern const char *const cap_verdict_names[CAP_NVERDICTS];

/* Whether --fail-if=capacity:<N trips: the bracket lies wholly below N. */
bool		cap_floor_tripped(const cap_search *cs);

/* The search's verdict (cs->tripped set). */
cap_verdict cap_search_verdict(const cap_search *cs);

/*
 * The knee: the first rate (in offered order) at which the first
 * objective's percentile is more than twice its value at the lowest rate
 * tried, with the rate below it; false when none is.
 */
bool		cap_find_knee(const cap_search *cs, double *below, double *at);

/*
 * The steps that stand for their rate, in offered order (of steps measured
 * at one rate, the last, which pools them): their indexes into cs->steps,
 * the probe left out; returns how many.
 */
int			cap_steps_by_rate(const cap_search *cs, int *order);

/* The objectives as given, joined by commas (capoptions.c). */
void		cap_objectives_text(const capacity_settings *c, char *buf, size_t len);

/* The text report (stdout, or stderr when an output takes stdout). */
void		cap_print_report(FILE *out, const cap_search *cs, bool tripped);

#endif
