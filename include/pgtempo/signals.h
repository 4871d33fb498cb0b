/*
 * signals.h — the signals a tool catches, installed one way everywhere.
 *
 * SIGINT and SIGTERM are the stop signals: each tool decides what a stop
 * means (finish the pass, report, cancel what is in flight), but all of
 * them install the handler here, and a thread that sends cancel requests
 * blocks both, so that the signals stay with the threads that act on them.
 */
#ifndef PGTEMPO_SIGNALS_H
#define PGTEMPO_SIGNALS_H

#include <signal.h>

typedef void (*signals_handler) (int signo);

/*
 * Set signo's action to handler (a function, SIG_DFL or SIG_IGN) with
 * sigaction's flags (SA_RESETHAND, SA_RESTART; no SA_RESTART means a
 * signal cuts a sleep short), blocking no other signal meanwhile.  The
 * action replaced goes to *old unless old is NULL.  Safe in a handler.
 */
void		signals_catch(int signo, signals_handler handler, int flags, struct sigaction *old);

/* The same for both stop signals, SIGINT and SIGTERM. */
void		signals_catch_stop(signals_handler handler, int flags);

/* Put back the action signals_catch() replaced. */
void		signals_restore(int signo, const struct sigaction *old);

/* Block SIGINT and SIGTERM in the calling thread (threads it starts inherit it); the mask before goes to *old. */
void		signals_block_stop(sigset_t *old);

#endif
