/*
 * timing.h — the measuring loop of pg_test_timing.
 *
 * A pass reads one clock over and over for a fixed time and counts the
 * difference between consecutive reads.  Differences below
 * TIMING_DIRECT ns are counted exactly in an array (that is nearly all
 * of them, and one increment is the cheapest record there is); longer
 * ones go to a log-linear histogram off the hot path.  After the loop
 * the exact counts are folded into the histogram, from which both
 * log2 tables and the percentiles are derived.
 */
#ifndef PGTEMPO_TIMING_H
#define PGTEMPO_TIMING_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/clock.h"
#include "pgtempo/hist.h"

typedef enum timing_clock
{
	TIMING_CLOCK_SYSTEM = 0,	/* clock_gettime(CLOCK_MONOTONIC) */
	TIMING_CLOCK_RDTSC,
	TIMING_CLOCK_RDTSCP,
	TIMING_CLOCK_COUNT,
	TIMING_CLOCK_FAKE			/* test seam: a list of readings, see timing_set_fake_clock() */
} timing_clock;

#define TIMING_DIRECT 10000

typedef enum timing_outcome
{
	TIMING_OK = 0,
	TIMING_BACKWARDS,			/* a read was earlier than the one before it */
	TIMING_INTERRUPTED,			/* stopped early by timing_request_stop() */
	TIMING_UNAVAILABLE			/* the clock cannot be used here; see why_not */
} timing_outcome;

typedef struct timing_pass
{
	timing_clock clock;
	timing_outcome outcome;
	char		why_not[160];	/* TIMING_UNAVAILABLE: the reason */
	uint64_t	loops;			/* differences recorded */
	uint64_t	elapsed_ns;		/* wall time of the loop, by the pass's clock */
	uint64_t	warp_ns;		/* TIMING_BACKWARDS: how far back it went */
	uint64_t	largest_ns;		/* exact largest difference */
	uint64_t	largest_count;
	hist		durations;		/* every difference, in ns */
	uint64_t	direct[TIMING_DIRECT];	/* exact counts of differences < TIMING_DIRECT */
} timing_pass;

const char *timing_clock_name(timing_clock c);
/* How the clock is read, for the report ("clock_gettime(CLOCK_MONOTONIC)", ...). */
const char *timing_clock_description(timing_clock c);
/* Parse a clock name; false if unknown. */
bool		timing_clock_parse(const char *name, timing_clock *c);

/*
 * Run one pass of duration_ns.  tsc is needed for the TSC clocks (it
 * gives the conversion to ns) and may be NULL for the others.  The pass
 * stops at the first backwards step.
 */
timing_outcome timing_run(timing_pass *p, timing_clock clock, uint64_t duration_ns,
						  const clock_tsc *tsc);

/* Ask a running pass to stop soon; async-signal-safe. */
void		timing_request_stop(void);
bool		timing_stop_requested(void);

/*
 * Test seam: make TIMING_CLOCK_FAKE return these readings (in ns) in
 * order; after the last one it keeps advancing by one second per read so
 * the pass ends.  The array must outlive the pass.
 */
void		timing_set_fake_clock(const uint64_t *readings, size_t n);
/* Parse "v1,v2,..." (as in PGTEMPO_FAKE_CLOCK) into a new array. */
bool		timing_parse_fake_clock(const char *spec, uint64_t **readings, size_t *n);

/* The log2 tables the reports print, derived from p->durations. */
void		timing_hist_us(const timing_pass *p, hlog2 *out);	/* bucket b: < 2^b us */
void		timing_hist_ns(const timing_pass *p, hlog2 *out);	/* bucket b: <= 2^b - 1 ns */
double		timing_per_loop_ns(const timing_pass *p);

#endif
