/*
 * thread.h — a thread of the run: its clients, its buffers and counters,
 * and its event loop (epoll over non-blocking libpq connections).
 */
#ifndef PGTEMPO_BENCH_THREAD_H
#define PGTEMPO_BENCH_THREAD_H

#include "runstate.h"

/*
 * Initial connections being opened at once per thread.  The postmaster
 * starts backends one after the other: more attempts in flight do not make
 * it faster, they only fill its listen queue (then a Unix socket refuses
 * with EAGAIN instead of letting the server say "too many clients") and
 * hold file descriptors; 32 keep it busy (see bench/bench.sh).
 */
#define THREAD_CONNECT_INFLIGHT 32
/* how long a start refused with EAGAIN (a full listen queue) is tried again */
#define THREAD_CONNECT_RETRY_S 10

/* Give each of r's threads its clients (from setup), buffers and counters. */
void		thread_init_all(runner *r, setup_thread *setup);

/* Free what thread_init_all() and the loops allocated, and close the connections left. */
void		thread_free_all(runner *r);

/*
 * A thread's life (arg: its bthread): connect its clients, wait for the
 * others at the barrier, run the event loop until its clients are done or
 * the run is stopped.
 */
void	   *thread_main(void *arg);

#endif
