/*
 * stop.c — the stop signals, the loops' wake-up and the cancel requests.
 */
#include "config.h"

#include "stop.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "pgtempo/clock.h"
#include "pgtempo/conn.h"
#include "pgtempo/msg.h"
#include "pgtempo/signals.h"

volatile sig_atomic_t stop_signal;
volatile sig_atomic_t stop_count;
int			stop_wake_fd = -1;

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
	stop_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (stop_wake_fd < 0)
	{
		msg_error("could not create eventfd: %s", strerror(errno));
		return false;
	}
	signals_catch_stop(handle_stop_signal, 0);
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

void
stop_send_cancels(PGcancel **pc, int n)
{
	char	   *cause = NULL;

	if (!conn_cancel_send(pc, n, 0, &cause))
	{
		msg_warning("%s", cause);
		free(cause);
	}
}

/*
 * No backend, not even a stopped one that resumes later, may go on
 * running a statement of the benchmark after the program.
 */
void
stop_finish(void)
{
	if (!conn_cancel_drain((uint64_t) STOP_CANCEL_WAIT_S * NS_PER_S))
		msg_warning("the server did not take every cancel request within %d s",
					STOP_CANCEL_WAIT_S);
	signals_catch_stop(SIG_DFL, 0);
}

void
stop_close(void)
{
	if (stop_wake_fd >= 0)
		close(stop_wake_fd);
	stop_wake_fd = -1;
}
