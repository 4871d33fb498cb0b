/*
 * stop.h — how a run is stopped: SIGINT/SIGTERM, the wake-up of every
 * event loop, and the cancel requests sent for the statements in flight.
 *
 * The first signal stops new transactions and has each thread cancel
 * what is in flight; a second one abandons the clients still waiting.
 * The handler only sets stop_signal and stop_count and writes to
 * stop_wake_fd, an eventfd in every thread's epoll set; the loops act.
 */
#ifndef PGTEMPO_BENCH_STOP_H
#define PGTEMPO_BENCH_STOP_H

#include <signal.h>
#include <stdbool.h>

#include <libpq-fe.h>

#include "results/bench.h"

/* -T: how long transactions in flight at the deadline may still take before they are cancelled */
#define STOP_DEADLINE_GRACE_S 1

/* The first stop signal (0: none) and how many came (at most 2 counted). */
extern volatile sig_atomic_t stop_signal;
extern volatile sig_atomic_t stop_count;

/* The eventfd that wakes every loop (edge-triggered in their epoll sets), or -1. */
extern int	stop_wake_fd;

/* Create the eventfd and catch SIGINT and SIGTERM; false with the cause printed. */
bool		stop_install(void);

/* Wake every loop (--exit-on-abort: a client aborted). */
void		stop_wake(void);

/*
 * Send the n cancel requests pc[] (both freed here) with
 * conn_cancel_send(), not waiting: PQcancel has no time limit.
 */
void		stop_send_cancels(PGcancel **pc, int n);

/*
 * Before the program exits (which would end the threads sending them):
 * give the cancel requests (conn_cancel_drain()) up to STOP_CANCEL_WAIT_S
 * seconds to reach the server, then restore the default actions of the
 * stop signals.
 */
void		stop_finish(void);

/* Close the eventfd. */
void		stop_close(void);

#endif
