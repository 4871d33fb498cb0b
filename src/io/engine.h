/*
 * engine.h — the request loop: requests of one size against one open file,
 * timed one by one, at a pace, until a count, a deadline or a stop signal.
 *
 * The engine knows nothing of ioping or of any output: each request that
 * returns goes to the caller's on_request (called with the engine's lock
 * held), and whatever ends the run is in the outcome.  A watchdog thread
 * takes SIGINT and SIGTERM and holds the deadline: when either comes while
 * a request is still in the kernel (a device that does not answer), it
 * calls on_cut, which must report what was measured, and the process ends
 * there with the status on_cut returns; otherwise the loop ends at once.
 * ioping's front end (tool.c) runs its requests through io_engine_run();
 * PostgreSQL's questions (pgdisk.c: many files, several writes and a sync
 * per request) run loops of their own under the same watchdog (io_watch).
 */
#ifndef PGTEMPO_IO_ENGINE_H
#define PGTEMPO_IO_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum io_op
{
	IO_OP_READ,
	IO_OP_WRITE,
	IO_OP_PINGPONG				/* write, read, write, ...: ioping -G */
} io_op;

typedef struct io_plan
{
	int			fd;
	io_op		op;
	uint64_t	size;			/* bytes per request */
	uint64_t	offset;			/* the working set: [offset, offset + span) */
	uint64_t	span;
	bool		linear;			/* in order, wrapping; else random, size-aligned */
	uint64_t	seed;			/* random offsets */
	bool		drop_cache;		/* POSIX_FADV_DONTNEED before each read (untimed) */
	bool		sync_writes;	/* fdatasync after each write (timed) */
	int			rwf_flags;		/* preadv2/pwritev2 flags: RWF_NOWAIT, RWF_HIPRI */
	bool		async;			/* Linux AIO: io_submit, then io_getevents (timed) */
	size_t		align;			/* buffer alignment (direct I/O) */
	uint64_t	count;			/* 0: no limit */
	uint64_t	interval_ns;	/* between starts (or bursts) */
	uint64_t	burst;			/* requests without a pause between them, 0: none */
	uint64_t	deadline_ns;	/* after the start, 0: none */
} io_plan;

typedef struct io_request
{
	uint64_t	index;			/* 1, 2, ... */
	bool		write;
	uint64_t	offset;
	uint64_t	bytes;			/* done */
	uint64_t	start_ns;		/* clock_now_ns() */
	uint64_t	time_ns;		/* the request's time */
	bool		burst_start;	/* the first of a burst after the first burst */
	bool		eagain;			/* RWF_NOWAIT: the kernel would have waited (bytes 0) */
} io_request;

typedef enum io_end
{
	IO_END_COUNT,				/* the count was reached */
	IO_END_DEADLINE,
	IO_END_SIGNAL,
	IO_END_STOPPED,				/* on_request said stop */
	IO_END_ERROR				/* a request failed: errnum, or a short one */
} io_end;

typedef struct io_outcome
{
	io_end		end;
	int			signo;			/* IO_END_SIGNAL */
	int			errnum;			/* IO_END_ERROR: errno, 0 for a short request */
	bool		write;			/* IO_END_ERROR: the failed request's kind */
	uint64_t	bytes;			/* IO_END_ERROR: what a short request did */
	uint64_t	start_ns;		/* the run's start and the last request's end */
	uint64_t	end_ns;
} io_outcome;

/* A request returned; false stops the run (IO_END_STOPPED). */
typedef bool (*io_on_request) (void *ctx, const io_request *r);

/*
 * The run is cut while a request hangs (signo 0: at the deadline): report,
 * and return the exit status.
 */
typedef int (*io_on_cut) (void *ctx, int signo, uint64_t now_ns);

/*
 * Run the plan; the outcome says why it ended.  With async, an AIO context
 * that cannot be set up ends it at once as IO_END_ERROR with its errno.
 */
void		io_engine_run(const io_plan *p, io_on_request on_request, io_on_cut on_cut,
						  void *ctx, io_outcome *out);

/*
 * The watchdog alone, around a caller's own loop: the same deadline, stop
 * signals and cut as io_engine_run's.  io_watch_start() blocks SIGINT and
 * SIGTERM in the calling thread and starts the watchdog (deadline_ns after
 * now, 0: none); the loop brackets each request's system calls with
 * io_watch_enter() and io_watch_leave(), and io_watch_end() ends the watch.
 */
typedef struct io_watch io_watch;

io_watch   *io_watch_start(uint64_t deadline_ns, io_on_cut on_cut, void *ctx);

/*
 * A request begins (io_engine_request_hook runs here, untimed); false when
 * the deadline or a stop signal came: then make no request.
 */
bool		io_watch_enter(io_watch *w);

/* The request returned. */
void		io_watch_leave(io_watch *w);

/*
 * Stop the watchdog and free w, unblock the stop signals again; the stop
 * signal that ended the watch, or 0 (none, or the deadline).
 */
int			io_watch_end(io_watch *w);

/*
 * For the tests: called in each request, before its system calls (and not
 * timed), so that a test can make a request that never returns.  NULL.
 */
extern void (*io_engine_request_hook) (void);

/* The next random number of a splitmix64 sequence. */
uint64_t	io_engine_random(uint64_t *state);

#endif
