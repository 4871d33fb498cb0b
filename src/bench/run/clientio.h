/*
 * clientio.h — a client's connection and the steps of its state machine
 * that talk to libpq outside the per-transaction path: opening the
 * connection, watching its socket, preparing statements, draining
 * results after an error, and ending the client.
 */
#ifndef PGTEMPO_BENCH_CLIENTIO_H
#define PGTEMPO_BENCH_CLIENTIO_H

#include <stdbool.h>

#include "runstate.h"

/* pgbench's debug lines: "prog: debug: ..." (one write, threads interleave whole lines). */
void		clientio_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Close c's connection (its socket leaves the epoll set with it). */
void		clientio_close(client *c);

/* A final state: the connection goes, and the thread has one client fewer. */
void		clientio_finish(client *c, cstate final);

/* pgbench's commandFailed(): the abort line naming the command. */
void		clientio_failed(client *c, const char *what, const char *message);

/*
 * Start opening c's connection; false if libpq refused at once: the cause
 * is printed, unless again is given and the cause was EAGAIN, which a Unix
 * socket gives while the server's listen queue is full (*again set: try
 * again a little later).  c->connect_until is set from libpq's
 * connect_timeout, which PQconnectPoll leaves to its caller.
 */
bool		clientio_connect_start(client *c, bool *again);

/*
 * A connection that got no answer in time: say so (the caller adds which
 * connection it was).  at_run_end: it was the -T deadline and its grace
 * (end_s seconds from the start), not libpq's connect_timeout.
 */
void		clientio_connect_timed_out(bool at_run_end, int end_s);

/* Drive an opening connection: 1 connected, 0 not yet, -1 failed (libpq's message printed). */
int			clientio_connect_poll(client *c);

/* Send what libpq holds; watch for output too while some is left.  False if the connection broke. */
bool		clientio_flush(client *c);

/* -M prepared: prepare command n of the client's script on this connection, once. */
void		clientio_prepare(client *c, int n);

/* Read and drop whatever results are left of the current command (blocking; error paths only). */
void		clientio_discard_results(client *c);

/* Which failure a SQL error is (after dropping the rest of the command's results). */
estatus		clientio_error_status(client *c, const char *sqlstate);

/* In pipeline mode after an error: sync, and drop everything up to the sync. */
bool		clientio_discard_until_sync(client *c);

/* Whether c's connection is idle (true), or abort it with pgbench's message. */
bool		clientio_check_idle(client *c, bool at_end);

/* Move c to state st; its thread's count of sleeping clients (nsleeping) follows. */
static inline void
clientio_set_state(client *c, cstate st)
{
	bool		was = c->state == CS_SLEEP || c->state == CS_THROTTLE;
	bool		is = st == CS_SLEEP || st == CS_THROTTLE;

	c->th->nsleeping += (int) is - (int) was;
	c->state = st;
}

/* Put c in its thread's run queue for the next turn (once). */
static inline void
clientio_enqueue(client *c)
{
	if (!c->queued)
	{
		c->queued = true;
		c->th->runq_next[c->th->nrun_next++] = c;
	}
}

#endif
