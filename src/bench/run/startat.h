/*
 * startat.h — --start-at: runs on several hosts that begin (and with -T
 * end) at the same instant.
 *
 * Each thread opens its connections as usual; then thread 0 checks that
 * the start time is still ahead (a start the connections missed is an
 * error that says by how much), every thread sleeps until the system
 * clock reaches it, and thread 0 sets -T's end from that instant.  A
 * signal during the wait ends the run with nothing measured.
 */
#ifndef PGTEMPO_BENCH_STARTAT_H
#define PGTEMPO_BENCH_STARTAT_H

#include <stdbool.h>
#include <stdint.h>

#include "runstate.h"

/*
 * Called by every thread once all connections are open: wait for
 * s->start_at_epoch_s; false when the run must not start (missed, or
 * stopped by a signal).  On true th->start and th->bench_start are the
 * common start.
 */
bool		startat_wait(bthread *th);

/*
 * When the run's clock starts, for the deadlines counted from it (-T's
 * end for connecting): now, or the --start-at time (on the monotonic
 * clock, through epoch_shift_ns) when that is later.
 */
uint64_t	startat_run_base(const bench_settings *s, uint64_t now, int64_t epoch_shift_ns);

/* The message for a start time that is not ahead of now: true if it is ahead. */
bool		startat_check_ahead(double start_at_epoch_s, const char *what);

#endif
