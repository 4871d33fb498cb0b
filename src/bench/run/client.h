/*
 * client.h — one client's script as a state machine, driven by its
 * thread's event loop (thread.c).
 */
#ifndef PGTEMPO_BENCH_CLIENT_H
#define PGTEMPO_BENCH_CLIENT_H

#include <stdint.h>

#include "runstate.h"

/*
 * Advance c's state machine until it has to wait: for a result, a
 * connection, a \sleep, or its next turn in the run queue.
 */
void		client_advance(client *c);

/* An event on c's socket (epoll's events). */
void		client_on_event(client *c, uint32_t events);

#endif
