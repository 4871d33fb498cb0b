/*
 * crosscpu.h — do the CPUs agree on the time?
 *
 * One thread is pinned to each CPU this process may run on.  They take
 * turns under a lock: read the last timestamp published (and which CPU
 * published it), read their own clock, check that it is not earlier,
 * and publish it.  The lock orders the reads, so a later read that
 * shows an earlier time means the two CPUs' clocks disagree by at least
 * that much: time went backwards across CPUs.  Skews smaller than the
 * lock hand-off latency (shown as the smallest forward step) cannot be
 * seen this way.
 */
#ifndef PGTEMPO_CROSSCPU_H
#define PGTEMPO_CROSSCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/clock.h"
#include "timing.h"

typedef struct crosscpu_pair
{
	uint64_t	checks;			/* reads on 'to' that followed one on 'from' */
	uint64_t	backwards;		/* of which went backwards */
	uint64_t	max_back_ns;	/* largest backwards step */
	uint64_t	min_fwd_ns;		/* smallest forward step (hand-off latency) */
} crosscpu_pair;

typedef struct crosscpu_result
{
	timing_clock clock;
	int			ncpus;
	int		   *cpus;			/* CPU numbers, ncpus of them */
	crosscpu_pair *pairs;		/* [from * ncpus + to] */
	uint64_t	checks;			/* all cross-CPU checks */
	uint64_t	backwards;		/* all backwards steps */
	uint64_t	max_back_ns;
	int			unpinned;		/* threads that could not be pinned to their CPU */
	char		why_not[160];	/* when it could not run */
} crosscpu_result;

/* Run the check for duration_ns on every allowed CPU; false if it could not run. */
bool		crosscpu_run(crosscpu_result *r, timing_clock clock, uint64_t duration_ns,
						 const clock_tsc *tsc);
/* Account one observation: a read of 'now' on CPU 'to' after 'prev' on 'from'. */
void		crosscpu_observe(crosscpu_result *r, int from, int to, uint64_t prev_ns,
							 uint64_t now_ns, bool backwards);
void		crosscpu_free(crosscpu_result *r);

#endif
