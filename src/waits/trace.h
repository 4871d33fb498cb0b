/*
 * trace.h — pgtempo-waits --trace: follow a few backends and write a line
 * when each wait begins and one when it ends (the pg_stat_wait design's
 * pg_start_trace(pid, file)).
 *
 *   start <timestamp> <wait_event_type> <wait_event> <p1> <p2> <p3> <p4> <p5>
 *   stop <timestamp> <wait_event_type>
 *
 * With several backends every line starts with the backend's pid and a
 * space.  The backends are polled with a prepared statement reading three
 * columns of pg_stat_activity for their pids, at fixed deadlines; a change
 * is stamped with the midpoint of
 * the time between the last poll that saw the old state and the first
 * that saw the new one.  pg_locks is read only when a Lock wait begins.
 * The lines are written by the trace sink (sink.h, sink_trace.c), with a
 * timestamp as PostgreSQL prints a timestamptz, in local time.
 */
#ifndef PGTEMPO_WAITS_TRACE_H
#define PGTEMPO_WAITS_TRACE_H

#include <signal.h>
#include <stdint.h>

#include "waits.h"

/* The default time between polls in trace mode. */
#define TRACE_DEFAULT_INTERVAL_NS	(NS_PER_MS)

/*
 * Run the trace with these settings; returns the exit status.  The
 * caller's signal handlers set *stop (SIGINT, SIGTERM: end the trace) and
 * *reopen (SIGHUP: reopen the trace file), without SA_RESTART.
 */
int			trace_run(const waits_settings *s, volatile sig_atomic_t *stop,
					  volatile sig_atomic_t *reopen);

#endif
