/*
 * live.h — --top: a live, top-like view of the sampling, redrawn every
 * second: per-group bars for the last second and the whole run, the top
 * sessions and queries, and the sampler's health.
 *
 * Keys: g regroups (event, pid, query, db, user, app, backend_type),
 * p or space pauses the display (sampling goes on), q quits (the report
 * is printed as after -T).
 *
 * The terminal is restored on every way out: a normal end, a signal
 * (the caller's SIGINT/SIGTERM handlers end the loop), exit() (an atexit
 * handler), and a crash or abort (a signal handler restores the terminal
 * modes, leaves the alternate screen and re-raises).  While the view is
 * up, what the program writes to stderr goes to a temporary file, is
 * shown on the view's last line, and is copied to stderr at the end.
 *
 * The view uses the terminal on stdin/stdout when both are terminals,
 * else /dev/tty, so the report can go to a redirected stdout.
 */
#ifndef PGTEMPO_WAITS_LIVE_H
#define PGTEMPO_WAITS_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "wprof.h"
#include "report.h"
#include "sample.h"
#include "waits.h"

typedef enum live_action
{
	LIVE_NONE,
	LIVE_REDRAW,				/* a key changed what is shown */
	LIVE_QUIT
} live_action;

/* Take over the terminal; false with *cause if there is none. */
bool		live_begin(const waits_settings *s, char **cause);
/* Redraw from the whole run's profile and the last second's. */
void		live_draw(const report_source *info, const wprof *run, const wprof *last,
					  const sample_health *h);
/* Wait for a key or until the monotonic time until_ns; handle keys. */
live_action live_wait(uint64_t until_ns);
/* Give the terminal back and replay what went to stderr meanwhile (idempotent). */
void		live_end(void);
bool		live_active(void);

#endif
