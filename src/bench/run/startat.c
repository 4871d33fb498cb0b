/*
 * startat.c — the common start of --start-at.
 *
 * The wait is on the system clock (CLOCK_REALTIME), not on a monotonic
 * deadline computed before it: the hosts agree on wall-clock time, and a
 * clock that NTP slews during the wait must still start the run at TIME.
 * ppoll() on the stop eventfd makes the wait end at once on SIGINT or
 * SIGTERM (the eventfd is never read, so it stays readable).
 */
#include "config.h"

#include "startat.h"

#include <math.h>
#include <poll.h>
#include <stdatomic.h>
#include <time.h>

#include "results/jsonreport.h"
#include "pgtempo/msg.h"
#include "stop.h"

/* The system clock as Unix time. */
static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

bool
startat_check_ahead(double start_at_epoch_s, const char *what)
{
	double		late = wall_now() - start_at_epoch_s;
	char		when[64];

	if (late < 0)
		return true;
	jsonreport_iso8601(when, sizeof(when), start_at_epoch_s);
	msg_error("start time %s (--start-at) %s %.3f s ago", when, what, late);
	return false;
}

uint64_t
startat_run_base(const bench_settings *s, uint64_t now, int64_t epoch_shift_ns)
{
	double		at_ns = s->start_at_epoch_s * 1e9 - (double) epoch_shift_ns;

	if (s->start_at_epoch_s <= 0 || at_ns <= (double) now)
		return now;
	return (uint64_t) at_ns;
}

/* Sleep until the system clock reaches t, or a stop signal. */
static void
sleep_until_wall(double t)
{
	struct pollfd pfd = {.fd = stop_wake_fd,.events = POLLIN};

	while (stop_signal == 0)
	{
		double		left = t - wall_now();
		struct timespec ts;

		if (left <= 0)
			return;
		/* wake at least every 100 ms to follow a clock that is being stepped */
		if (left > 0.1)
			left = 0.1;
		ts.tv_sec = (time_t) left;
		ts.tv_nsec = (long) ((left - (double) ts.tv_sec) * 1e9);
		(void) ppoll(stop_wake_fd >= 0 ? &pfd : NULL, stop_wake_fd >= 0 ? 1 : 0, &ts, NULL);
	}
}

bool
startat_wait(bthread *th)
{
	runner	   *r = th->r;
	const bench_settings *s = r->s;

	/* thread 0 decides for all: a thread must not skip a barrier the others wait at */
	if (th->id == 0)
	{
		r->connected_at = th->bench_start;
		if (stop_signal != 0)
			atomic_store(&r->setup_failed, true);
		else if (!atomic_load(&r->setup_failed) &&
				 !startat_check_ahead(s->start_at_epoch_s,
									  "had passed when the connections were made:"))
		{
			msg_detail("Choose a later start time, or fewer clients per host.");
			atomic_store(&r->setup_failed, true);
		}
	}
	pthread_barrier_wait(&r->barrier);
	if (atomic_load(&r->setup_failed))
		return false;
	sleep_until_wall(s->start_at_epoch_s);
	if (th->id == 0)
	{
		/* -T ends at TIME + duration: the wake-up's lateness comes off */
		double		late = wall_now() - s->start_at_epoch_s;

		th->bench_start = clock_now_ns();
		/* (with --warmup, warmup_begin() sets it) */
		if (s->duration > 0 && s->warmup == WARMUP_NONE)
			r->end_time = th->bench_start + (uint64_t) s->duration * NS_PER_S -
				(uint64_t) (late > 0 && late < 1 ? late * 1e9 : 0);
	}
	/* the end is set before anyone starts, and no thread starts before the others woke */
	pthread_barrier_wait(&r->barrier);
	if (stop_signal != 0)
		return false;
	if (th->id != 0)
		th->bench_start = clock_now_ns();
	th->start = th->bench_start;
	return true;
}
