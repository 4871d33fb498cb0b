/*
 * fromlog.h — pgtempo-waits --from-log: the report, --chart and --folded
 * of a window of history files (--log), with no server connection.
 *
 * The files' rows are turned back into what a live run feeds its outputs:
 * raw rows into sample batches, --log-interval lines into rows that stand
 * for their samples; both go into the run profile (wprof) and through the
 * same sink list, so the report, the chart and the folded stacks are the
 * live run's code.  What the rows do not say comes from the other
 * records: the meta record says how the run sampled (interval, period,
 * source, server), the health records (counts since the run started) give
 * the samples, missed ticks and failures of the window, interpolated
 * between records where --since or --until fall between two, and the gap
 * records give the gaps.
 *
 * A window covering whole runs gives the live run's numbers; a cut one
 * counts the raw rows of the window exactly and the profile lines whose
 * middle falls in it.
 */
#ifndef PGTEMPO_WAITS_FROMLOG_H
#define PGTEMPO_WAITS_FROMLOG_H

#include "waits.h"

/* Read the files, print the report, write --chart and --folded; the exit status. */
int			fromlog_run(const waits_settings *s);

#endif
