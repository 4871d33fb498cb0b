/*
 * capsweep.h — --capacity with --sweep=RATES: the deterministic form of
 * the capacity search, a fixed plan of steps that several client hosts
 * can run at once and --merge can add up.
 *
 * The plan is the rates (the total over all hosts, ascending) and the
 * clock: -T is the whole sweep, each rate gets a slot of -T / (number of
 * rates) whole seconds, and step i starts at START + i * slot, where START
 * is --start-at (or a few seconds after the command starts).  A step runs
 * a fixed warm-up (a fifth of its slot, at least 2 s), then is measured,
 * and leaves a tenth of its slot (at least 2 s) to disconnect and connect
 * again.  A step that ends early waits for its successor's start: hosts
 * stay aligned by the plan, never by talking to each other.
 *
 * --sweep-share=K/N makes this host run share K of N: each step at 1/N
 * of the plan's rate.  Each host judges its own share as the search
 * judges a step; its --json report carries the per-second histograms and
 * lag points of every step, so that --merge of the N reports judges the
 * added shares at the plan's rates and prints the same capacity report as
 * the search (a merge of reports of different plans is refused).
 */
#ifndef PGTEMPO_BENCH_CAPSWEEP_H
#define PGTEMPO_BENCH_CAPSWEEP_H

#include <stdbool.h>
#include <stdio.h>

#include "capacity.h"
#include "pgtempo/json.h"
#include "results/bench.h"

#define CAPSWEEP_MAX_RATES	32
/* the shortest slot of a step, seconds */
#define CAPSWEEP_MIN_SLOT_S	10
/* without --start-at, the plan starts this many seconds after the next whole second */
#define CAPSWEEP_LEAD_S		3

typedef struct capsweep_data capsweep_data;

typedef struct capsweep_plan
{
	double		rates[CAPSWEEP_MAX_RATES];	/* the plan's, over all hosts, ascending */
	int			nrates;
	int			share_k;		/* --sweep-share=K/N (1/1 without); K 0: a merge of N */
	int			share_n;
	double		start_epoch_s;	/* the start of step 0 */
	int			slot_s;			/* from one step's start to the next's */
	int			warm_s;			/* each step's fixed warm-up */
	int			measured_s;		/* each step's measured part */
	char		scripts[1024];	/* the scripts and weights, "tpcb-like@1,..." */
	capsweep_data *data;		/* each step's series and lag points, for --json */
} capsweep_plan;

/* --sweep=RATES: "100,200,400" or "LOW..HIGHxFACTOR"; false with the message printed. */
bool		capsweep_parse_rates(capsweep_plan *p, const char *arg);

/* --sweep-share=K/N; false with the message printed. */
bool		capsweep_parse_share(capsweep_plan *p, const char *arg);

/* The checks of --sweep's settings (with --capacity, -T long enough, --start-at for shares). */
bool		capsweep_check(const capsweep_plan *p, const capacity_settings *c, const bench_settings *s);

/* Run the plan and print its report (and --json); the exit status as capacity_run's. */
int			capsweep_run(const bench_settings *s, const capacity_settings *c, capsweep_plan *p);

/* Whether the --json report in file is a sweep's (a merge of them is capsweep_merge's). */
bool		capsweep_is_report(const char *file);

/*
 * --merge of the shares' sweep reports: the capacity report of the whole
 * plan (every share needed: allow_partial is refused), judged against
 * gate's --fail-if=capacity:<N if it has one; the exit status as
 * capacity_run's.
 */
int			capsweep_merge(const bench_settings *opts, const capacity_settings *gate, bool allow_partial,
						   char **files, int nfiles);

#endif
