/*
 * signals.c — installing signal handlers and blocking the stop signals.
 */
#include "config.h"

#include "pgtempo/signals.h"

#include <pthread.h>
#include <string.h>

void
signals_catch(int signo, signals_handler handler, int flags, struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(signo, &sa, old);
}

void
signals_catch_stop(signals_handler handler, int flags)
{
	signals_catch(SIGINT, handler, flags, NULL);
	signals_catch(SIGTERM, handler, flags, NULL);
}

void
signals_restore(int signo, const struct sigaction *old)
{
	sigaction(signo, old, NULL);
}

void
signals_block_stop(sigset_t *old)
{
	sigset_t	block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, old);
}
