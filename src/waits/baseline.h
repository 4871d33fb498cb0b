/*
 * baseline.h — pgtempo-waits --from-log with a baseline: what changed
 * between a baseline window and the window of --since/--until.
 *
 * Each window's rows (profile lines or raw rows, read by fromlog.h) are
 * cut into at most BASELINE_MAX_SLICES slices of time; for each key of
 * --by, the window's average active sessions are its samples over the
 * window's ticks, and their standard error comes from the slices' spread
 * (with their lag-1 autocorrelation allowed for), at least the sampling's
 * binomial error (keydiff.h).  The changes are judged as one family: all
 * keys, the total and each --fail-if limit; a change within its bound is
 * "no difference shown".  The rows are sorted by the size of the change.
 *
 * --baseline-windows=N: the baseline is N windows, the given one and
 * each further one shifted from the one before by the baseline's distance
 * from the window (the same hour on N days before); a key's baseline is
 * the mean of its windows' means, and the spread between them, where it
 * is more than their own errors, widens the bound (keydiff_est_pool): a
 * load that drifts between windows that much is not flagged for it.
 *
 * --fail-if: a limit trips when the whole interval of the change of what
 * it names (the sum of the events it matches: the change plus or minus its
 * bound) lies beyond the limit (gate.h, the rule of pgtempo-bench
 * --compare too); then the exit status is EXITCODE_LIMIT.
 */
#ifndef PGTEMPO_WAITS_BASELINE_H
#define PGTEMPO_WAITS_BASELINE_H

#include "waits.h"

/* Slices of a window: enough for a spread, few enough that neighbours are nearly independent. */
#define BASELINE_MAX_SLICES 240

/* The most baseline windows (--baseline-windows). */
#define BASELINE_MAX_WINDOWS 30

/*
 * Read both windows, print the comparison (text, or --json), write
 * --chart; the exit status: 0, 1 (files, outputs), or 3 (a --fail-if
 * limit tripped).
 */
int			baseline_run(const waits_settings *s);

#endif
