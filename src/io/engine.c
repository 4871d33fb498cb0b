/*
 * engine.c — the request loop and its watchdog (see engine.h).
 *
 * The loop runs in the calling thread; a request's time is two clock reads
 * around the system calls, and nothing else.  The lock is taken between
 * requests only, so the watchdog can always take it: it finds the loop
 * either between requests (then it sets stop and wakes the pause) or in a
 * request (then it reports through on_cut and ends the process).
 */
#include "config.h"

#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/aio_abi.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "pgtempo/clock.h"
#include "pgtempo/signals.h"
#include "pgtempo/xalloc.h"

/* The watchdog and what it shares with the loop (the engine's or a caller's). */
struct io_watch
{
	pthread_mutex_t mu;
	pthread_cond_t cv;			/* the pause between requests */
	bool		in_request;
	bool		stop;
	int			signo;
	bool		deadline_hit;
	uint64_t	deadline_abs;	/* 0: none */
	io_on_cut	on_cut;
	void	   *ctx;
	pthread_t	dog;
	sigset_t	old_mask;		/* the mask before the watch */
};

typedef struct io_watch engine;

void		(*io_engine_request_hook) (void) = NULL;

uint64_t
io_engine_random(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* An absolute CLOCK_MONOTONIC time in ns as a timespec. */
static struct timespec
to_timespec(uint64_t ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t) (ns / NS_PER_S);
	ts.tv_nsec = (long) (ns % NS_PER_S);
	return ts;
}

/* How long a request in flight at a stop may take before the run is cut. */
#define CUT_GRACE_NS (100 * NS_PER_MS)

/*
 * The engine's stop: between requests, wake the loop; in a request, give
 * it CUT_GRACE_NS, and if it has not returned by then (a device that does
 * not answer), report now and end the process.  Called with the lock.
 */
static void
stop_locked(engine *e, int signo)
{
	uint64_t	until = clock_now_ns() + CUT_GRACE_NS;
	struct timespec ts = to_timespec(until);

	e->stop = true;
	e->signo = signo;
	e->deadline_hit = signo == 0;
	pthread_cond_broadcast(&e->cv);
	while (e->in_request && clock_now_ns() < until)
		pthread_cond_timedwait(&e->cv, &e->mu, &ts);
	if (e->in_request)
		exit(e->on_cut(e->ctx, signo, clock_now_ns()));
}

/*
 * The watchdog: waits for a stop signal or the deadline.  Cancelled by the
 * loop when the run ends; never cancelled while it holds the lock.
 */
static void *
watchdog(void *arg)
{
	engine	   *e = arg;
	sigset_t	set;

	/*
	 * A descriptor table of its own (the descriptors it needs, 1 and 2, are
	 * there, and what a cut writes it opens itself): the loop's process
	 * then has one user of its table again, so that each request's
	 * descriptor is looked up without the atomic reference count the
	 * kernel takes for a table that threads share.  Harmless if refused.
	 */
	(void) unshare(CLONE_FILES);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	for (;;)
	{
		int			signo;
		uint64_t	now = clock_now_ns();

		if (e->deadline_abs != 0 && now >= e->deadline_abs)
			signo = 0;
		else
		{
			uint64_t	wait = e->deadline_abs != 0 ? e->deadline_abs - now : 3600 * NS_PER_S;
			struct timespec ts = {(time_t) (wait / NS_PER_S), (long) (wait % NS_PER_S)};

			signo = sigtimedwait(&set, NULL, &ts);
			if (signo < 0)
				continue;		/* the timeout (EAGAIN) or EINTR: look again */
		}
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		pthread_mutex_lock(&e->mu);
		if (!e->stop)
			stop_locked(e, signo);
		pthread_mutex_unlock(&e->mu);
		if (signo == 0)
			return NULL;
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	}
}

/* The offset of request i (0-based) in the working set. */
static uint64_t
next_offset(const io_plan *p, uint64_t i, uint64_t *rng)
{
	uint64_t	slots = p->span / p->size;

	if (slots == 0)
		slots = 1;
	if (p->linear)
		return p->offset + (i % slots) * p->size;
	return p->offset + (io_engine_random(rng) % slots) * p->size;
}

/*
 * Linux AIO (glibc has no wrappers for it): submit one request and wait for
 * its completion; what it did (>= 0) or -errno.
 */
static ssize_t
aio_request(aio_context_t ctx, const io_plan *p, void *buf, const io_request *r)
{
	struct iocb cb;
	struct iocb *cbs[1] = {&cb};
	struct io_event ev;

	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = (uint32_t) p->fd;
	cb.aio_lio_opcode = r->write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
	cb.aio_buf = (uint64_t) (uintptr_t) buf;
	cb.aio_nbytes = p->size;
	cb.aio_offset = (int64_t) r->offset;
	cb.aio_rw_flags = p->rwf_flags;
	if (syscall(SYS_io_submit, ctx, 1L, cbs) != 1)
		return -errno;
	while (syscall(SYS_io_getevents, ctx, 1L, 1L, &ev, NULL) != 1)
		if (errno != EINTR)
			return -errno;
	return (ssize_t) ev.res;
}

/* One request, r's kind and offset given: its start, time and bytes done in r; 0 or errno. */
static int
do_request(aio_context_t aio, const io_plan *p, void *buf, io_request *r)
{
	struct iovec iov = {buf, p->size};
	uint64_t	t1;
	ssize_t		n;

	if (!r->write && p->drop_cache)
		posix_fadvise(p->fd, (off_t) r->offset, (off_t) p->size, POSIX_FADV_DONTNEED);
	if (io_engine_request_hook != NULL)
		io_engine_request_hook();
	r->start_ns = clock_now_ns();
	if (p->async)
	{
		n = aio_request(aio, p, buf, r);
		if (n < 0)
		{
			errno = (int) -n;
			n = -1;
		}
	}
	else if (p->rwf_flags != 0)
		n = r->write ? pwritev2(p->fd, &iov, 1, (off_t) r->offset, p->rwf_flags)
			: preadv2(p->fd, &iov, 1, (off_t) r->offset, p->rwf_flags);
	else
	{
		/*
		 * The system call itself: glibc's pread and pwrite, once the
		 * watchdog's thread exists, switch thread cancellation on and off
		 * around it (two atomic operations, about 20 ns of a 500 ns cached
		 * read here); this thread is never cancelled.
		 */
		n = syscall(r->write ? SYS_pwrite64 : SYS_pread64, p->fd, buf, (size_t) p->size,
					(off_t) r->offset);
	}
	if (n >= 0 && r->write && p->sync_writes && fdatasync(p->fd) != 0)
		n = -1;
	t1 = clock_now_ns();
	r->time_ns = t1 - r->start_ns;
	r->bytes = n > 0 ? (uint64_t) n : 0;
	return n < 0 ? errno : 0;
}

/* Pause, with the lock, until the absolute time next_ns or a stop. */
static void
pause_locked(engine *e, uint64_t next_ns)
{
	struct timespec ts = to_timespec(next_ns);

	while (!e->stop && clock_now_ns() < next_ns)
		pthread_cond_timedwait(&e->cv, &e->mu, &ts);
}

/*
 * The loop proper: requests until the plan, a stop or an error ends it.
 * The lock is held but while a request is in the kernel (and while the
 * loop pauses), so each request takes it once.
 */
static void
loop(engine *e, aio_context_t aio, const io_plan *p, void *buf, io_on_request on_request,
	 io_outcome *out)
{
	uint64_t	rng = p->seed;
	uint64_t	planned = out->start_ns;

	pthread_mutex_lock(&e->mu);
	for (uint64_t i = 0; (p->count == 0 || i < p->count) && !e->stop; i++)
	{
		io_request r;
		int			err;
		uint64_t	end;

		memset(&r, 0, sizeof(r));
		r.index = i + 1;
		r.write = p->op == IO_OP_WRITE || (p->op == IO_OP_PINGPONG && i % 2 == 0);
		r.offset = next_offset(p, i, &rng);
		r.burst_start = p->burst > 0 && i > 0 && i % p->burst == 0;
		e->in_request = true;
		pthread_mutex_unlock(&e->mu);
		err = do_request(aio, p, buf, &r);
		pthread_mutex_lock(&e->mu);
		e->in_request = false;
		pthread_cond_broadcast(&e->cv);	/* a watchdog may wait for it */
		end = r.start_ns + r.time_ns;
		out->end_ns = end;
		/* -N: "would block" is an answer, not a failure */
		r.eagain = err == EAGAIN && (p->rwf_flags & RWF_NOWAIT) != 0;
		if (r.eagain)
			err = 0;
		if (err != 0 || (r.bytes != p->size && !r.eagain))
		{
			out->end = IO_END_ERROR;
			out->errnum = err;
			out->write = r.write;
			out->bytes = r.bytes;
			pthread_mutex_unlock(&e->mu);
			return;
		}
		/* a request that returned counts, a stop meanwhile or not */
		if (!on_request(e->ctx, &r))
		{
			out->end = IO_END_STOPPED;
			pthread_mutex_unlock(&e->mu);
			return;
		}
		if (e->stop || (p->count != 0 && i + 1 >= p->count))
			break;
		/* the next start: at once within a burst, else one interval on */
		if (p->burst == 0 || (i + 1) % p->burst == 0)
		{
			planned += p->interval_ns;
			if (planned < end)
				planned = end;
		}
		else
			planned = end;
		if (e->deadline_abs != 0 && planned >= e->deadline_abs)
		{
			out->end = IO_END_DEADLINE;
			pthread_mutex_unlock(&e->mu);
			return;
		}
		if (planned > end)
			pause_locked(e, planned);
	}
	if (e->stop)
		out->end = e->deadline_hit ? IO_END_DEADLINE : IO_END_SIGNAL;
	out->signo = e->signo;
	pthread_mutex_unlock(&e->mu);
}

/*
 * Set the watch up and start its watchdog: the stop signals are blocked in
 * the calling thread from now on (the mask before is kept in w).
 */
static void
watch_begin(io_watch *w, uint64_t deadline_abs, io_on_cut on_cut, void *ctx)
{
	pthread_condattr_t ca;

	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	w->on_cut = on_cut;
	w->ctx = ctx;
	w->deadline_abs = deadline_abs;
	/* the stop signals go to the watchdog alone */
	signals_block_stop(&w->old_mask);
	pthread_create(&w->dog, NULL, watchdog, w);
}

/*
 * Stop the watchdog (the loop has ended: nothing is left to cut) and free
 * what the watch holds; the stop signals stay blocked.
 */
static void
watch_finish(io_watch *w)
{
	pthread_mutex_lock(&w->mu);
	w->stop = true;				/* from now on the watchdog has nothing to cut */
	pthread_mutex_unlock(&w->mu);
	pthread_cancel(w->dog);
	pthread_join(w->dog, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
}

void
io_engine_run(const io_plan *p, io_on_request on_request, io_on_cut on_cut, void *ctx,
			  io_outcome *out)
{
	engine		e;
	aio_context_t aio = 0;		/* -A: the context, 0 when none */
	void	   *buf;

	memset(out, 0, sizeof(*out));
	if (posix_memalign(&buf, p->align > 0 ? p->align : 4096, p->size) != 0)
		buf = NULL;
	if (buf == NULL)
		xmalloc(SIZE_MAX);		/* the one out-of-memory path */
	/* a pattern that no layer below can compress away */
	for (uint64_t i = 0, s = p->seed ^ 0x5eed; i < p->size / 8; i++)
		((uint64_t *) buf)[i] = io_engine_random(&s);

	if (p->async && syscall(SYS_io_setup, 1L, &aio) != 0)
	{
		out->end = IO_END_ERROR;
		out->errnum = errno;
		free(buf);
		return;
	}
	out->start_ns = out->end_ns = clock_now_ns();
	out->end = IO_END_COUNT;
	watch_begin(&e, p->deadline_ns != 0 ? out->start_ns + p->deadline_ns : 0, on_cut, ctx);
	loop(&e, aio, p, buf, on_request, out);
	watch_finish(&e);
	/*
	 * The stop signals stay blocked: one that comes now waits, harmless,
	 * until the caller has reported and ended.
	 */
	if (aio != 0)
		syscall(SYS_io_destroy, aio);
	free(buf);
}

io_watch *
io_watch_start(uint64_t deadline_ns, io_on_cut on_cut, void *ctx)
{
	io_watch   *w = xmalloc(sizeof(*w));

	watch_begin(w, deadline_ns != 0 ? clock_now_ns() + deadline_ns : 0, on_cut, ctx);
	return w;
}

bool
io_watch_enter(io_watch *w)
{
	bool		go;

	pthread_mutex_lock(&w->mu);
	go = !w->stop;
	w->in_request = go;
	pthread_mutex_unlock(&w->mu);
	if (go && io_engine_request_hook != NULL)
		io_engine_request_hook();
	return go;
}

void
io_watch_leave(io_watch *w)
{
	pthread_mutex_lock(&w->mu);
	w->in_request = false;
	pthread_cond_broadcast(&w->cv);	/* the watchdog may wait for it */
	pthread_mutex_unlock(&w->mu);
}

int
io_watch_end(io_watch *w)
{
	int			signo;

	watch_finish(w);
	signo = w->signo;
	pthread_sigmask(SIG_SETMASK, &w->old_mask, NULL);
	free(w);
	return signo;
}
