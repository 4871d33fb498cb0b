/*
 * report.h — the final report (stdout) and the -P progress lines
 * (stderr), in pgbench's exact layout.
 */
#ifndef PGTEMPO_BENCH_REPORT_H
#define PGTEMPO_BENCH_REPORT_H

#include <stdio.h>

#include "bench.h"
#include "stats.h"

/* Everything the final report prints, merged over the threads. */
typedef struct report_data
{
	stats		total;
	const stats *scripts;		/* one per script (per-script section) */
	stats_command *const *commands;	/* [script][command] (-r) */
	double		bench_duration_s;	/* first thread's start to the end */
	double		conn_total_ms;	/* -C: time spent connecting and disconnecting */
	double		conn_elapsed_ms;	/* otherwise: time to open the connections */
} report_data;

/* Print the report from "transaction type:" on. */
void		report_print(FILE *out, const bench_settings *s, const report_data *d);

/*
 * One progress line: cur and last are the totals now and at the last
 * line, interval_s the time between them, elapsed_s the time since the
 * start and epoch_s the wall-clock time (for --progress-timestamp).
 */
void		report_progress(FILE *out, const bench_settings *s, const stats *cur,
							const stats *last, double interval_s, double elapsed_s,
							double epoch_s);

#endif
