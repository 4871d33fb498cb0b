/*
 * sink.h — the history written to files: the --log file (raw rows or
 * interval aggregates, CSV or JSON Lines, with health and gap records)
 * and the --folded flame-graph stacks.
 */
#ifndef PGTEMPO_WAITS_SINK_H
#define PGTEMPO_WAITS_SINK_H

#include <stdbool.h>
#include <time.h>

#include "format.h"
#include "logfile.h"
#include "wprof.h"
#include "sample.h"
#include "waits.h"

typedef struct sink_log
{
	bool		active;
	logfile		lf;
	waits_log_format fmt;		/* CSV or JSONL */
	bool		intervals;		/* aggregated interval lines instead of raw rows */
	bool		include_idle;
	strbuf		line;
} sink_log;

/* Open the log file; false with *cause if it cannot be opened. */
bool		sink_log_open(sink_log *s, const waits_settings *st, time_t now, char **cause);
/* Raw mode: one line per counted row of the batch. */
void		sink_log_batch(sink_log *s, const sample_batch *b);
/* Interval mode: one line per group of the interval's profile. */
void		sink_log_interval(sink_log *s, const format_interval *iv, const wprof *p);
void		sink_log_health(sink_log *s, const sample_health *h);
void		sink_log_gap(sink_log *s, const sample_gap *g);
/* --store's row counts, at the end. */
void		sink_log_store(sink_log *s, const format_store_counts *c);
/* Once a second: write out, rotate on reopen or when the name's expansion changes. */
void		sink_log_tick(sink_log *s, time_t now, bool reopen);
/* Write out what is queued (before something that may take seconds). */
void		sink_log_flush(sink_log *s);
/* Close; false if records were lost (reported). */
bool		sink_log_close(sink_log *s);

/*
 * Write the folded stacks of the profile (sorted lines); false with *cause
 * on an error, the file then ending on a whole line.
 */
bool		sink_folded_write(const char *path, const wprof *p, char **cause);

#endif
