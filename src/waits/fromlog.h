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

#include "format.h"
#include "histread.h"
#include "strpool.h"
#include "waits.h"

/* Read the files, print the report, write --chart and --folded; the exit status. */
int			fromlog_run(const waits_settings *s);

/*
 * The files read for a caller that makes its own windows (baseline.h): every
 * row the filters keep (--pid, --db, --user, --application-name), in or
 * out of --since/--until, goes to fn as the file gives it; the runs' health
 * records are kept for fromlog_ticks; head and chain records of
 * --log-interval files go to fn too.  Strings are interned in pool.  NULL
 * with the error printed (a file that cannot be read, unless --keep-going;
 * no run; --by pid over profile lines); *all_read false when a file could
 * not be read whole (--keep-going went on: the exit status is still 1).
 */
typedef struct fromlog fromlog;
typedef void (*fromlog_row_fn) (void *arg, const histread_rec *rec);

fromlog    *fromlog_read(const waits_settings *s, char *const *files, int nfiles, strpool *pool,
						 fromlog_row_fn fn, void *arg, bool *all_read);
/* A raw row read back, added to the sample of its timestamp (its blockers too). */
void		fromlog_batch_row(sample_batch *b, const histread_rec *rec);
/* The sampling ticks from a to b (µs), from the runs' health records, interpolated. */
double		fromlog_ticks(const fromlog *f, uint64_t a, uint64_t b);
/* From the first run's start to the last one's end (its last record). */
void		fromlog_span(const fromlog *f, uint64_t *first, uint64_t *last);
/* How the first run sampled (every run of the files sampled the same way). */
const format_meta *fromlog_meta(const fromlog *f);
void		fromlog_free(fromlog *f);

#endif
