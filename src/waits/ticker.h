/*
 * ticker.h — a fixed-rate schedule at absolute deadlines.
 *
 * Tick k is due at start + k * interval.  A slow sample does not shift
 * the schedule: after it, the next tick is the next one due, and every
 * deadline that passed without a sample starting is counted as missed.
 * A sample that starts late but before the following deadline is not a
 * miss.  While the connection is down, the ticks that pass are counted
 * as gap ticks instead (ticker_resume()).
 */
#ifndef PGTEMPO_WAITS_TICKER_H
#define PGTEMPO_WAITS_TICKER_H

#include <stdint.h>

typedef struct ticker
{
	uint64_t	start_ns;		/* monotonic time of tick 0 */
	uint64_t	interval_ns;
	uint64_t	tick;			/* the next tick to run */
	uint64_t	missed;			/* deadlines passed without a sample */
	uint64_t	gap_ticks;		/* deadlines passed while disconnected */
} ticker;

void		ticker_init(ticker *s, uint64_t start_ns, uint64_t interval_ns);

/* When the next tick is due. */
static inline uint64_t
ticker_deadline(const ticker *s)
{
	return s->start_ns + s->tick * s->interval_ns;
}

/*
 * The sample for the current tick has finished at now_ns: move on to the
 * next tick, skipping (and counting) any whose whole slot has passed.
 */
void		ticker_done(ticker *s, uint64_t now_ns);

/*
 * Sampling resumes at now_ns after a gap: skip to the tick due next,
 * counting the ticks skipped as gap ticks.
 */
void		ticker_resume(ticker *s, uint64_t now_ns);

/*
 * From the next tick on, ticks come every interval_ns (the cost budget
 * changed the rate); the next tick stays due when it was.
 */
void		ticker_retime(ticker *s, uint64_t interval_ns);

/* The ticks due by now_ns that have not run: while disconnected, the gap's ticks so far. */
uint64_t	ticker_overdue(const ticker *s, uint64_t now_ns);

/*
 * The run ends at stop_ns: every tick due before it that has not run is
 * missed, and none after it is (a last sample that ran past the end had
 * counted the ticks it overran as missed).
 */
void		ticker_end(ticker *s, uint64_t stop_ns);

#endif
