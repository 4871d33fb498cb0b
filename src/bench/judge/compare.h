/*
 * compare.h — pgtempo-bench --compare: is the change between two sets of
 * runs of one benchmark real, or noise?
 *
 * Each side is one or several runs' --json reports (a run, or a --merge
 * of several hosts).  For tps, the latency average and each percentile,
 * overall and per script, the comparison gives the base and new values,
 * the change in %, its interval (95 % for all the lines together) and a
 * verdict (gate.h: one rule and one vocabulary with pgtempo-waits).  With several runs
 * per side the run is the unit (Welch's t on the logarithms); with one
 * run per side the interval comes from a block bootstrap over each run's
 * per-interval series, and covers the noise within a run only.
 */
#ifndef PGTEMPO_BENCH_COMPARE_H
#define PGTEMPO_BENCH_COMPARE_H

#include "results/bench.h"
#include "pgtempo/gate.h"
#include "results/output.h"

typedef struct compare_settings
{
	char	  **base;			/* the base runs' reports */
	int			nbase;
	char	  **target;			/* --to: the new runs' reports */
	int			ntarget;
	gate_limit	limits[GATE_MAX_LIMITS];	/* --fail-if: name "tps", "avg", "p99", ... */
	int			nlimits;
} compare_settings;

/*
 * Parse --fail-if's LIST ("tps:-5%,p99:+10%", the gate's grammar: names
 * tps, avg, pNN or latency:avg, latency:pNN; changes in % or x) into cs;
 * false with the error printed.
 */
bool		compare_parse_limits(compare_settings *cs, const char *list);

/*
 * Compare and print the table; opts gives --json, --chart and
 * --percentiles.  Returns the exit status: 0; 1 for input that cannot be
 * compared (unreadable, not the same benchmark) or an output not
 * written; 3 when a --fail-if limit is passed (an output not written
 * then says so, output.h's rule).
 */
int			compare_run(const bench_settings *opts, const compare_settings *cs);

/* --compare's writers of the table of outputs (output.h; data: the comparison). */
bool		compare_write_json(const output_ctx *c, const char *path, char **cause);
bool		compare_write_chart(const output_ctx *c, const char *path, char **cause);

#endif
