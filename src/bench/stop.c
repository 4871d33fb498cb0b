/*
 * stop.c — the stop signals, the loops' wake-up and the cancel requests.
 */
#include "config.h"

#include "stop.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "pgtempo/clock.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

volatile sig_atomic_t stop_signal;
volatile sig_atomic_t stop_count;
int			stop_wake_fd = -1;

/* Threads still sending cancel requests (see cancel_main). */
static atomic_int cancels_pending;

/*
 * SIGINT/SIGTERM: the first cancels what is in flight and stops the run,
 * a second stops waiting for the backends.  Neither ends the program here:
 * the report and the logs are still to be written, whatever the server does.
 */
static void
handle_stop_signal(int signo)
{
	uint64_t	one = 1;
	int			saved_errno = errno;

	if (stop_signal == 0)
		stop_signal = signo;
	if (stop_count < 2)
		stop_count++;
	if (stop_wake_fd >= 0 && write(stop_wake_fd, &one, sizeof(one)) < 0)
	{
		/* nothing to do: the loops also poll the flag */
	}
	errno = saved_errno;
}

bool
stop_install(void)
{
	struct sigaction sa;

	stop_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (stop_wake_fd < 0)
	{
		msg_error("could not create eventfd: %s", strerror(errno));
		return false;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handle_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return true;
}

void
stop_wake(void)
{
	uint64_t	one = 1;

	if (write(stop_wake_fd, &one, sizeof(one)) < 0)
	{
		/* the loops poll the flag as well */
	}
}

/* Cancel requests for one thread's statements in flight. */
typedef struct cancel_batch
{
	int			n;
	PGcancel  **pc;
} cancel_batch;

/*
 * Send a batch of cancel requests.  PQcancel (libpq 15) connects to the
 * server and waits for it to close the connection, without a time limit:
 * this runs in a detached thread of its own, which the program does not
 * wait for, so a server that does not answer cannot hold up the report.
 */
static void *
cancel_main(void *arg)
{
	cancel_batch *b = arg;
	char		errbuf[256];

	for (int i = 0; i < b->n; i++)
	{
		/* a cancel that fails changes nothing: the client is abandoned in time */
		(void) PQcancel(b->pc[i], errbuf, sizeof(errbuf));
		PQfreeCancel(b->pc[i]);
	}
	free(b->pc);
	free(b);
	atomic_fetch_sub(&cancels_pending, 1);
	return NULL;
}

void
stop_send_cancels(PGcancel **pc, int n)
{
	cancel_batch *b;
	pthread_t	tid;
	pthread_attr_t attr;
	sigset_t	block,
				old;
	int			e;

	if (n == 0)
	{
		free(pc);
		return;
	}
	b = xcalloc(1, sizeof(*b));
	b->pc = pc;
	b->n = n;
	/* the signals stay with the threads that act on them */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	atomic_fetch_add(&cancels_pending, 1);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	e = pthread_create(&tid, &attr, cancel_main, b);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0)
	{
		atomic_fetch_sub(&cancels_pending, 1);
		msg_warning("could not create a thread for cancel requests: %s", strerror(e));
		for (int i = 0; i < b->n; i++)
			PQfreeCancel(b->pc[i]);
		free(b->pc);
		free(b);
	}
}

/*
 * No backend, not even a stopped one that resumes later, may go on
 * running a statement of the benchmark after the program.
 */
void
stop_finish(void)
{
	uint64_t	until = clock_now_ns() + (uint64_t) STOP_CANCEL_WAIT_S * NS_PER_S;
	struct timespec tick = {0, 10 * 1000 * 1000};

	while (atomic_load(&cancels_pending) > 0 && clock_now_ns() < until)
		nanosleep(&tick, NULL);
	if (atomic_load(&cancels_pending) > 0)
		msg_warning("the server did not take every cancel request within %d s",
					STOP_CANCEL_WAIT_S);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

void
stop_close(void)
{
	if (stop_wake_fd >= 0)
		close(stop_wake_fd);
	stop_wake_fd = -1;
}
