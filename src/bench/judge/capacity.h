/*
 * capacity.h — --capacity=OBJECTIVES: the highest Poisson rate (-R) at
 * which the server meets latency objectives, found by a search of runs.
 *
 * A short closed-loop probe gives a ceiling; then open-loop steps (-R
 * semantics: latency from each transaction's scheduled start), each with
 * --warmup=auto left out, bracket the capacity below the ceiling and
 * narrow the bracket by geometric bisection.  A step passes when, for
 * every objective, the upper end of the 95 % interval of its percentile
 * (a circular block bootstrap over the step's one-second histograms,
 * Bonferroni over the objectives) lies below the target, and when the
 * schedule lag does not grow across the step (the least-squares slope of
 * the per-second lag, whose lower 95 % bound times the step's length must
 * stay below a tenth of the smallest target).  The search stops when the
 * bracket is within --capacity-resolution or -T (the whole search's
 * budget) leaves no time for another step.
 */
#ifndef PGTEMPO_BENCH_CAPACITY_H
#define PGTEMPO_BENCH_CAPACITY_H

#include <stdbool.h>

#include "pgtempo/gate.h"
#include "results/bench.h"
#include "results/output.h"

/* --capacity-resolution's default: the bracket's width relative to its low end */
#define CAPACITY_RESOLUTION 0.05

typedef struct capacity_settings
{
	bool		wanted;			/* --capacity given */
	gate_limit	objectives[GATE_MAX_LIMITS];	/* "p99<10ms": name "p99" or "avg", seconds */
	int			nobjectives;
	double		resolution;		/* --capacity-resolution as a fraction; 0: the default */
	gate_limit	floor;			/* --fail-if=capacity:<N */
	bool		has_floor;
} capacity_settings;

/* --capacity=LIST; false with the message printed. */
bool		capacity_parse_objectives(capacity_settings *c, const char *arg);

/* --capacity-resolution=PCT (a percentage, "5" or "5%"); false with the message printed. */
bool		capacity_parse_resolution(capacity_settings *c, const char *arg);

/* --fail-if=capacity:<N outside --compare; false with the message printed. */
bool		capacity_parse_fail_if(capacity_settings *c, const char *arg);

/*
 * The checks of the settings for a search (-T needed, no -R, -t, -l...);
 * also refuses --capacity-resolution or --fail-if without --capacity.
 */
bool		capacity_check(const capacity_settings *c, const bench_settings *s);

/*
 * Run the search and print its report, then write its outputs (--json,
 * --chart, --metrics) through the table of outputs.  Returns the exit
 * status: 0, 1 (a step could not start or an output was not written), 2
 * (a client aborted), 3 (--fail-if: the bracket lies wholly below the
 * limit), or 128 + N (interrupted by signal N).
 */
int			capacity_run(const bench_settings *s, const capacity_settings *c);

/* The outputs of a search (c->data: the search), for the table of outputs. */
bool		capacity_write_json(const output_ctx *c, const char *path, char **cause);
bool		capacity_write_chart(const output_ctx *c, const char *path, char **cause);
bool		capacity_write_metrics(const output_ctx *c, const char *path, char **cause);

#endif
