/*
 * thread.c — one thread's event loop over its clients.
 *
 * A thread owns an epoll set with one entry per client socket, kept
 * registered for input while the connection lives (a client that is not
 * waiting for a result gets no input, apart from the odd notice, which
 * is consumed and dropped).  Output interest is added only while libpq
 * has unsent data.  Clients that can move on without input sit in a run
 * queue; sleeping clients are found by a scan that only happens while
 * some client sleeps.  Timers (timerfds in the same set) push the -l log
 * out and mark the end of -T; the stop's eventfd wakes the loop.
 */
#include "config.h"

#include "thread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "clientio.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"
#include "startat.h"
#include "warmuprun.h"

#define MAX_EVENTS 256

static void start_deadline_timer(bthread *th);

/* Wait for events up to timeout_ns (-1: no limit), with sub-millisecond precision. */
static int
wait_events(bthread *th, struct epoll_event *ev, int64_t timeout_ns)
{
	static atomic_bool no_pwait2;

	if (timeout_ns > 0 && !atomic_load_explicit(&no_pwait2, memory_order_relaxed))
	{
#ifdef SYS_epoll_pwait2
		struct timespec ts = {.tv_sec = timeout_ns / (int64_t) NS_PER_S,
		.tv_nsec = timeout_ns % (int64_t) NS_PER_S};
		int			n = (int) syscall(SYS_epoll_pwait2, th->epfd, ev, MAX_EVENTS, &ts, NULL, 0);

		if (n >= 0 || errno != ENOSYS)
			return n;
#endif
		atomic_store(&no_pwait2, true);
	}
	if (timeout_ns > 0)
		return epoll_wait(th->epfd, ev, MAX_EVENTS,
						  (int) ((timeout_ns + (int64_t) NS_PER_MS - 1) / (int64_t) NS_PER_MS));
	return epoll_wait(th->epfd, ev, MAX_EVENTS, timeout_ns < 0 ? -1 : 0);
}

/* Lower *timeout (ns; -1: none yet) to what is left from now until at, 0 if at has passed. */
static void
lower_timeout(int64_t *timeout, uint64_t now, uint64_t at)
{
	int64_t		d = at > now ? (int64_t) (at - now) : 0;

	if (*timeout < 0 || d < *timeout)
		*timeout = d;
}

/*
 * When the thread's initial connections must be made: with -T, by the
 * end of the run and the grace a stop gives (a postmaster that accepts
 * and never answers cannot hold the run past it); without, never.
 */
static uint64_t
connect_deadline(const bthread *th)
{
	const bench_settings *s = th->r->s;

	if (s->duration <= 0)
		return CONN_NO_DEADLINE;
	return startat_run_base(s, th->start, th->r->epoch_shift_ns) +
		((uint64_t) bench_run_bound_s(s) + STOP_DEADLINE_GRACE_S) * NS_PER_S;
}

/*
 * The first of the clients being connected (th->clients[0..next)) to run
 * out of time, its time in *until; NULL when none would before deadline.
 */
static client *
first_to_expire(bthread *th, int next, uint64_t deadline, uint64_t *until)
{
	client	   *first = NULL;

	*until = deadline;
	for (int i = 0; i < next; i++)
	{
		client	   *c = &th->clients[i];

		if (c->state == CS_CONNECT && c->connect_until < *until)
		{
			first = c;
			*until = c->connect_until;
		}
	}
	return first;
}

/*
 * Whether the initial connections ran out of time (the cause printed);
 * if not, *timeout is lowered to the time left.
 */
static bool
connect_expired(bthread *th, int next, uint64_t deadline, int64_t *timeout)
{
	uint64_t	until,
				now;
	client	   *c = first_to_expire(th, next, deadline, &until);

	if (until == CONN_NO_DEADLINE)
		return false;
	now = clock_now_ns();
	if (now < until)
	{
		lower_timeout(timeout, now, until);
		return false;
	}
	clientio_connect_timed_out(c == NULL, bench_run_bound_s(th->r->s) + STOP_DEADLINE_GRACE_S);
	msg_error("could not create connection for client %d",
			  (c != NULL ? c : &th->clients[next < th->nclients ? next : 0])->ec.id);
	return true;
}

/*
 * Open every client's connection, THREAD_CONNECT_INFLIGHT at a time; false
 * (the cause printed) if one fails or runs out of time.  A start refused
 * with EAGAIN (the server's listen queue is full) is tried again after a
 * short pause, for up to THREAD_CONNECT_RETRY_S seconds.
 */
static bool
connect_all(bthread *th)
{
	struct epoll_event ev[MAX_EVENTS];
	int			pending = th->nclients,
				next = 0,
				inflight = 0;
	uint64_t	retry_at = 0,
				retry_since = 0,
				deadline = connect_deadline(th);

	while (pending > 0)
	{
		int64_t		timeout = -1;
		int			n;

		while (inflight < THREAD_CONNECT_INFLIGHT && next < th->nclients)
		{
			client	   *c = &th->clients[next];
			bool		again = false;
			uint64_t	now;

			if (retry_at != 0)
			{
				now = clock_now_ns();
				if (now < retry_at)
				{
					lower_timeout(&timeout, now, retry_at);
					break;
				}
				retry_at = 0;
			}
			if (clientio_connect_start(c, retry_since == 0 ||
							  clock_now_ns() - retry_since < (uint64_t) THREAD_CONNECT_RETRY_S * NS_PER_S
							  ? &again : NULL))
			{
				next++;
				inflight++;
				retry_since = 0;
				c->connect_tries = 0;
				continue;
			}
			if (!again)
			{
				msg_error("could not create connection for client %d", c->ec.id);
				return false;
			}
			/* back off: 1, 2, 4 ... 64 ms, while the server works through its queue */
			now = clock_now_ns();
			if (retry_since == 0)
				retry_since = now;
			retry_at = now + ((uint64_t) 1 << (c->connect_tries < 6 ? c->connect_tries : 6)) * NS_PER_MS;
			c->connect_tries++;
		}
		if (connect_expired(th, next, deadline, &timeout))
			return false;

		n = wait_events(th, ev, timeout);

		if (n < 0 && errno != EINTR)
		{
			msg_error("epoll_wait() failed: %s", strerror(errno));
			return false;
		}
		if (stop_signal != 0)
			return false;
		for (int i = 0; i < n; i++)
		{
			client	   *c = ev[i].data.ptr;
			int			rc;

			if (c == NULL || c->state != CS_CONNECT)
				continue;
			rc = clientio_connect_poll(c);
			if (rc < 0)
			{
				msg_error("could not create connection for client %d", c->ec.id);
				return false;
			}
			if (rc > 0)
			{
				clientio_set_state(c, CS_CHOOSE);
				pending--;
				inflight--;
			}
		}
	}
	return true;
}

/*
 * The interval of the progress timer: -P, or a second when only --chart
 * needs points or --json its series of intervals.
 */
static int
progress_interval_s(const bench_settings *s)
{
	if (s->progress > 0)
		return s->progress;
	return s->chart_path != NULL || s->json_path != NULL ? 1 : 0;
}

/*
 * The stop reached the point of cancelling: send a cancel request for
 * every statement in flight, end the clients that sleep (\sleep) or
 * connect (-C), and let nothing more be sent.  The clients still waiting
 * at th->abandon_at are abandoned.
 */
static void
cancel_in_flight(bthread *th, uint64_t now)
{
	PGcancel  **pcs = xcalloc((size_t) th->nclients + 1, sizeof(PGcancel *));
	int			n = 0;

	th->abandon_at = now + (uint64_t) STOP_CANCEL_WAIT_S * NS_PER_S;
	for (int i = 0; i < th->nclients; i++)
	{
		client	   *c = &th->clients[i];

		if (c->state == CS_WAIT || c->state == CS_WAIT_ROLLBACK)
		{
			PGcancel   *pc = PQgetCancel(c->con);

			if (pc != NULL)
				pcs[n++] = pc;
			c->cancelled = true;
		}
		else if (c->state == CS_SLEEP || c->state == CS_CONNECT)
			clientio_finish(c, CS_FINISHED);
	}
	stop_send_cancels(pcs, n);
}

/* The stop's end: the clients still waiting for their backends are given up. */
static void
abandon_waiting(bthread *th)
{
	for (int i = 0; i < th->nclients; i++)
	{
		client	   *c = &th->clients[i];

		if (c->state == CS_FINISHED || c->state == CS_ABORTED || c->state == CS_ABANDONED)
			continue;
		if (c->state == CS_WAIT || c->state == CS_WAIT_ROLLBACK)
		{
			th->abandoned++;
			clientio_finish(c, CS_ABANDONED);
		}
		else
			clientio_finish(c, CS_FINISHED);
	}
}

/*
 * Where the loop stands in a stop (a signal, or -T past its grace): sends
 * the cancels when it is time, lowers *timeout to the next step, and
 * returns true when the loop must end now (the clients left abandoned).
 */
static bool
stopping_step(bthread *th, uint64_t *now, int64_t *timeout)
{
	lazy_now(now);
	if (stop_signal != 0 && (th->cancel_at == 0 || th->cancel_at > *now))
		th->cancel_at = *now;
	if (th->abandon_at == 0 && *now >= th->cancel_at)
		cancel_in_flight(th, *now);
	if (th->remaining <= 0)
		return false;
	if (th->abandon_at == 0)
		lower_timeout(timeout, *now, th->cancel_at);
	else
	{
		if (stop_count >= 2 || *now >= th->abandon_at)
		{
			abandon_waiting(th);
			return true;
		}
		lower_timeout(timeout, *now, th->abandon_at);
	}
	return false;
}

/* The clients that can go on without input, each once per turn. */
static void
run_queue(bthread *th)
{
	client	  **t = th->runq;

	th->runq = th->runq_next;
	th->runq_next = t;
	th->nrun = th->nrun_next;
	th->nrun_next = 0;
	for (int i = 0; i < th->nrun; i++)
	{
		th->runq[i]->queued = false;
		client_advance(th->runq[i]);
	}
}

/* One event of the loop's epoll set: a timer, the stop's wake-up, or a client's socket. */
static void
on_loop_event(bthread *th, const struct epoll_event *e)
{
	if (e->data.ptr == &th->tick_fd)
	{
		uint64_t	expirations;

		/* -l: push the lines and intervals that are due out */
		if (read(th->tick_fd, &expirations, sizeof(expirations)) < 0)
		{
			/* a spurious wake-up: nothing expired */
		}
		txlog_tick(th->log, clock_now_ns());
		return;
	}
	if (e->data.ptr == &th->deadline_fd)
	{
		uint64_t	expirations;

		if (read(th->deadline_fd, &expirations, sizeof(expirations)) < 0)
		{
			/* a spurious wake-up: the check below reads the clock */
		}
		th->deadline_hit = true;
		return;
	}
	if (e->data.ptr == NULL)
	{
		/* the wake-up: a signal or --exit-on-abort; idle clients stop now */
		for (int k = 0; k < th->nclients; k++)
		{
			client	   *c = &th->clients[k];

			if (c->state == CS_CHOOSE || c->state == CS_START_TX ||
				c->state == CS_THROTTLE)
				clientio_enqueue(c);
		}
		return;
	}
	client_on_event(e->data.ptr, e->events);
}

/*
 * -C with libpq's connect_timeout: a client whose new connection got no
 * answer in time aborts, as one whose connection failed; *timeout is
 * lowered to the next such end.
 */
static void
expire_connects(bthread *th, uint64_t *now, int64_t *timeout)
{
	for (int i = 0; i < th->nclients; i++)
	{
		client	   *c = &th->clients[i];

		if (c->state != CS_CONNECT || c->connect_until == CONN_NO_DEADLINE)
			continue;
		if (lazy_now(now) >= c->connect_until)
		{
			th->conn_ns += *now - c->conn_begin;
			clientio_connect_timed_out(false, 0);
			msg_error("client %d aborted while establishing connection", c->ec.id);
			clientio_finish(c, CS_ABORTED);
		}
		else
			lower_timeout(timeout, *now, c->connect_until);
	}
}

/*
 * --warmup, each turn of a thread's loop: the log learns when the
 * measured part starts, -T's timer is set once its end is known, and the
 * wait is cut short to notice both (a second at most while they are not
 * known) and thread 0's next warm-up step.
 */
static void
warmup_wait(bthread *th, uint64_t warm_next, uint64_t *now, int64_t *timeout)
{
	warm_sync(th);
	if (!th->deadline_tried && atomic_load_explicit(&th->r->end_time, memory_order_relaxed) != 0)
		start_deadline_timer(th);
	/* now read first: an argument reading *now beside lazy_now(now) may see 0 (then: no wait at all) */
	if (!th->measure_known || (th->r->s->duration > 0 && !th->deadline_tried))
	{
		uint64_t	t = lazy_now(now);

		lower_timeout(timeout, t, t + NS_PER_S);
	}
	if (warm_next != 0)
		lower_timeout(timeout, lazy_now(now), warm_next);
}

/*
 * Thread 0's warm-up step; when the measured part begins, a progress
 * line ends the warm-up's last interval there and the next ones count
 * from it.  Returns the next step's time, 0: none.
 */
static uint64_t
warmup_tick(bthread *th, uint64_t *next_report, stats *last, uint64_t *last_report)
{
	runner	   *r = th->r;
	uint64_t	now = clock_now_ns();
	bool		ended;
	uint64_t	next = warmup_step(r, now, &ended);

	if (ended && *next_report != 0)
	{
		r->on_progress(r, now, th->start, last, last_report);
		*next_report = now + (uint64_t) progress_interval_s(r->s) * NS_PER_S;
	}
	return next;
}

/* The event loop of one thread, until its clients are done (or the run is stopped). */
static void
event_loop(bthread *th)
{
	runner	   *r = th->r;
	const bench_settings *s = r->s;
	struct epoll_event ev[MAX_EVENTS];
	uint64_t	next_report = 0,
				last_report = th->start,
				warm_next = 0;	/* thread 0: warmup_step()'s next call; 0: none */
	stats		last;

	stats_init(&last);
	if (progress_interval_s(s) > 0 && th->id == 0)
		next_report = th->start + (uint64_t) progress_interval_s(s) * NS_PER_S;
	if (s->warmup != WARMUP_NONE && th->id == 0)
		warm_next = clock_now_ns();

	while (th->remaining > 0)
	{
		int64_t		timeout = -1;
		int			n;
		uint64_t	now;

		if (th->nrun_next > 0)
			run_queue(th);
		if (th->remaining <= 0)
			break;
		if (atomic_load_explicit(&r->abort_all, memory_order_relaxed))
		{
			/* --exit-on-abort: no backend goes on with a statement after the program */
			if (th->abandon_at == 0)
				cancel_in_flight(th, clock_now_ns());
			break;
		}

		now = 0;
		if (th->nrun_next > 0)
			timeout = 0;
		else
		{
			for (int i = 0; th->nsleeping > 0 && i < th->nclients; i++)
				if (th->clients[i].state == CS_SLEEP || th->clients[i].state == CS_THROTTLE)
					lower_timeout(&timeout, lazy_now(&now), th->clients[i].sleep_until);
			if (next_report != 0)
				lower_timeout(&timeout, lazy_now(&now), next_report);
		}
		if (s->warmup != WARMUP_NONE)
			warmup_wait(th, warm_next, &now, &timeout);
		if (th->connect_timeouts)
			expire_connects(th, &now, &timeout);
		if ((stop_signal != 0 || th->deadline_hit) && stopping_step(th, &now, &timeout))
			break;
		if (th->remaining <= 0)
			break;

		n = wait_events(th, ev, timeout);
		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			msg_error("epoll_wait() failed: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++)
			on_loop_event(th, &ev[i]);
		if (th->nsleeping > 0)
		{
			for (int i = 0; i < th->nclients; i++)
				if (th->clients[i].state == CS_SLEEP || th->clients[i].state == CS_THROTTLE)
					client_advance(&th->clients[i]);
		}
		if (warm_next != 0 && clock_now_ns() >= warm_next)
			warm_next = warmup_tick(th, &next_report, &last, &last_report);
		if (next_report != 0)
		{
			now = clock_now_ns();
			if (now >= next_report)
			{
				r->on_progress(r, now, th->start, &last, &last_report);
				do
					next_report += (uint64_t) progress_interval_s(s) * NS_PER_S;
				while (now >= next_report);
			}
		}
	}
}

/*
 * -l: a timerfd in the epoll set fires at each --aggregate-interval's end,
 * or every second for per-transaction lines, so lines reach the file while
 * no transaction ends, without a timeout on every epoll_wait (arming a
 * timer at each wait cost about a microsecond per transaction).  Without
 * one, lines are still written when the next transaction ends.
 */
static void
start_tick_timer(bthread *th)
{
	uint64_t	next = txlog_next_tick(th->log);
	uint64_t	now = clock_now_ns();
	uint64_t	first = next > now ? next - now : 1;
	uint64_t	every = txlog_tick_interval(th->log);
	struct itimerspec its = {
		.it_value = {.tv_sec = (time_t) (first / NS_PER_S),.tv_nsec = (long) (first % NS_PER_S)},
		.it_interval = {.tv_sec = (time_t) (every / NS_PER_S),.tv_nsec = (long) (every % NS_PER_S)},
	};
	struct epoll_event ev = {.events = EPOLLIN,.data.ptr = &th->tick_fd};

	if (next == 0 || every == 0)
		return;
	th->tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (th->tick_fd < 0)
		return;
	if (timerfd_settime(th->tick_fd, 0, &its, NULL) < 0 ||
		epoll_ctl(th->epfd, EPOLL_CTL_ADD, th->tick_fd, &ev) < 0)
	{
		close(th->tick_fd);
		th->tick_fd = -1;
	}
}

/*
 * -T: a timerfd in the epoll set fires when the statements still in
 * flight after the deadline's grace are to be cancelled, so the loop
 * wakes even when no backend answers (and no wait needs a timeout before).
 */
static void
start_deadline_timer(bthread *th)
{
	struct itimerspec its = {{0, 0}, {0, 0}};
	struct epoll_event ev = {.events = EPOLLIN,.data.ptr = &th->deadline_fd};

	th->deadline_tried = true;
	th->cancel_at = th->r->end_time + (uint64_t) STOP_DEADLINE_GRACE_S * NS_PER_S;
	its.it_value.tv_sec = (time_t) (th->cancel_at / NS_PER_S);
	its.it_value.tv_nsec = (long) (th->cancel_at % NS_PER_S);
	th->deadline_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (th->deadline_fd < 0 ||
		timerfd_settime(th->deadline_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0 ||
		epoll_ctl(th->epfd, EPOLL_CTL_ADD, th->deadline_fd, &ev) < 0)
	{
		msg_warning("could not set a timer for the end of -T: %s", strerror(errno));
		if (th->deadline_fd >= 0)
			close(th->deadline_fd);
		th->deadline_fd = -1;
	}
}

void *
thread_main(void *arg)
{
	bthread    *th = arg;
	runner	   *r = th->r;
	struct epoll_event wake = {.events = EPOLLIN | EPOLLET,.data.ptr = NULL};

	th->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (th->epfd < 0 || epoll_ctl(th->epfd, EPOLL_CTL_ADD, stop_wake_fd, &wake) < 0)
	{
		msg_error("could not create epoll set: %s", strerror(errno));
		th->failed = true;
	}

	pthread_barrier_wait(&r->barrier);
	th->start = clock_now_ns();
	/* (with --warmup, warmup_begin() sets it) */
	if (th->id == 0 && r->s->duration > 0 && r->s->warmup == WARMUP_NONE)
		r->end_time = th->start + (uint64_t) r->s->duration * NS_PER_S;
	if (!th->failed && !r->s->is_connect && !connect_all(th))
		th->failed = true;
	if (th->failed)
		atomic_store(&r->setup_failed, true);
	for (int i = 0; i < th->nclients; i++)
		clientio_set_state(&th->clients[i], CS_CHOOSE);

	pthread_barrier_wait(&r->barrier);
	th->bench_start = clock_now_ns();
	/* --start-at: all threads wait for the common start (startat.c) */
	if (r->s->start_at_epoch_s > 0 && !startat_wait(th))
		return NULL;
	if (atomic_load(&r->setup_failed) || stop_signal != 0)
		return NULL;
	if (th->id == 0 && r->s->warmup != WARMUP_NONE)
		warmup_begin(r, th->bench_start);
	if (r->s->rate > 0 && th->nclients > 0)
	{
		/* the thread's share of the rate is its share of the clients */
		th->throttle_trigger = th->bench_start;
		th->throttle_delay_us = 1e6 * r->s->nclients / (r->s->rate * th->nclients);
	}
	if (th->log != NULL)
	{
		txlog_begin(th->log, th->bench_start, &th->setup->sample_rs);
		start_tick_timer(th);
	}

	if (th->r->end_time != 0)
		start_deadline_timer(th);
	for (int i = 0; i < th->nclients; i++)
		clientio_enqueue(&th->clients[i]);
	event_loop(th);
	return NULL;
}

/* Give each thread its clients, buffers and counters. */
void
thread_init_all(runner *r, setup_thread *setup)
{
	const bench_settings *s = r->s;
	int			ncmds = r->cmd_base[s->nscripts];

	for (int t = 0; t < s->nthreads; t++)
	{
		bthread    *th = &r->threads[t];

		th->r = r;
		th->id = t;
		th->setup = &setup[t];
		th->clients = &r->clients[setup[t].first_client];
		th->nclients = setup[t].nclients;
		th->remaining = th->nclients;
		th->runq = xcalloc((size_t) th->nclients, sizeof(client *));
		th->runq_next = xcalloc((size_t) th->nclients, sizeof(client *));
		th->epfd = -1;
		th->tick_fd = -1;
		th->deadline_fd = -1;
		stats_init(&th->st);
		th->script_stats = xcalloc((size_t) s->nscripts, sizeof(stats));
		th->lat_hist = hist_new(1);
		stats_init(&th->warm_st);
		if (s->warmup != WARMUP_NONE)
			th->warm_hist = hist_new(1);
		if (s->nscripts > 1)
			th->script_hist = hist_new((size_t) s->nscripts);
		if (s->mode != QUERY_SIMPLE)
			th->params = xcalloc(SCRIPT_MAX_PARAMS, sizeof(char *));
		th->cmd_stats = xcalloc((size_t) s->nscripts, sizeof(stats_command *));
		for (int i = 0; i < s->nscripts; i++)
			th->cmd_stats[i] = xcalloc((size_t) s->scripts[i]->ncommands + 1,
									   sizeof(stats_command));
		for (int i = 0; i < th->nclients; i++)
		{
			client	   *c = &th->clients[i];

			c->th = th;
			c->sock = -1;
			c->ec.simple_protocol = s->mode == QUERY_SIMPLE;
			if (s->mode == QUERY_PREPARED)
				c->prepared = xcalloc((size_t) ncmds + 1, sizeof(bool));
		}
	}
}

void
thread_free_all(runner *r)
{
	const bench_settings *s = r->s;

	for (int t = 0; t < s->nthreads; t++)
	{
		bthread    *th = &r->threads[t];

		for (int i = 0; i < th->nclients; i++)
		{
			client	   *c = &th->clients[i];

			if (c->con != NULL)
			{
				if (c->pending != NULL)
					PQclear(c->pending);
				PQfinish(c->con);
			}
			free(c->prepared);
			vars_free(c->ec.vars);
		}
		if (th->epfd >= 0)
			close(th->epfd);
		if (th->tick_fd >= 0)
			close(th->tick_fd);
		if (th->deadline_fd >= 0)
			close(th->deadline_fd);
		for (int i = 0; i < s->nscripts; i++)
			free(th->cmd_stats[i]);
		free(th->cmd_stats);
		free(th->script_stats);
		free(th->lat_hist);
		free(th->warm_hist);
		free(th->params);
		strbuf_free(&th->sql);
		strbuf_free(&th->varname);
		free(th->script_hist);
		free(th->runq);
		free(th->runq_next);
	}
}
