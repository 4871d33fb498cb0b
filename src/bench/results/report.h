/*
 * report.h — the final report (stdout) and the -P progress lines
 * (stderr), in pgbench's exact layout, plus our latency percentiles;
 * and the --latency-histogram file.
 */
#ifndef PGTEMPO_BENCH_REPORT_H
#define PGTEMPO_BENCH_REPORT_H

#include <stdio.h>

#include "bench.h"
#include "benchwaits.h"
#include "pgtempo/hist.h"
#include "pgtempo/strbuf.h"
#include "stats.h"
#include "warmup.h"

/*
 * When the measured run took place and how far the clocks can be
 * trusted: printed under --start-at and by --merge, after the duration.
 */
typedef struct report_window
{
	int			nhosts;			/* --merge: the runs merged; 0: this run only */
	char		start[64];		/* the measured run's start and end, ISO 8601 */
	char		end[64];
	int			nknown;			/* hosts whose clock status is known */
	int			nsynced;		/* of which synchronized */
	double		est_error_ms;	/* the largest estimated and maximum errors */
	double		max_error_ms;
} report_window;

/* Everything the final report prints, merged over the threads. */
typedef struct report_data
{
	stats		total;
	stats	   *scripts;		/* one per script (per-script section) */
	stats_command **commands;	/* [script][command] (-r) */
	hist	   *lat_hist;		/* latencies of successful transactions; NULL: none */
	hist	   *script_hists;	/* one per script when there are several, else NULL */
	double		bench_duration_s;	/* first thread's start to the end */
	double		conn_total_ms;	/* -C: time spent connecting and disconnecting */
	double		conn_elapsed_ms;	/* otherwise: time to open the connections */
	const bwaits_report *waits; /* --waits: the sessions' wait events; NULL: none */
	const report_window *window;	/* --start-at, --merge: printed; NULL: not */
	const warmup_outcome *warmup;	/* --warmup: printed; NULL: none */
} report_data;

/* The numbers of one -P line (kept in memory for --json). */
typedef struct report_progress_point
{
	double		elapsed_s;		/* since the start */
	double		epoch_s;		/* wall-clock (Unix) time */
	double		interval_s;		/* since the previous line */
	int64_t		transactions;	/* successful, in the interval */
	double		tps;
	double		latency_ms;		/* average, from the scheduled start under -R */
	double		stddev_ms;
	double		lag_ms;			/* -R: average schedule lag */
	int64_t		failed;
	int64_t		skipped;		/* -R with -L */
	int64_t		retried;
	int64_t		retries;
	bool		has_percentiles;	/* an interval histogram was given */
	double		percentiles_ms[BENCH_MAX_PERCENTILES];	/* in report_percentiles() order */
	double		max_ms;			/* the highest bucket's midpoint */
	bwaits_top	top_wait;		/* --waits: the interval's top wait */
	bwaits_mix	waits_mix;		/* --waits: the interval's sessions by wait class */
	bool		warmup;			/* --warmup: an interval of the warm-up */
} report_progress_point;

/* Where the text report goes: stderr when an output takes stdout (output.h). */
FILE	   *report_stream(const bench_settings *s);

/* The percentiles to report: --percentiles, or 50, 90, 99 and 99.9. */
int			report_percentiles(const bench_settings *s, const double **list);

/* "p50", "p99.9": how percentile p is named in the report and in JSON. */
void		report_percentile_label(char *buf, size_t len, double p);

/* Print the report from "transaction type:" on; server: the scale and partitions. */
void		report_print(FILE *out, const bench_settings *s, const bench_server_facts *server,
						 const report_data *d);

/* Free what report_data points to (when it was allocated by the runner). */
void		report_data_free(report_data *d, int nscripts);

/*
 * The numbers of one progress line: cur and last are the totals now and
 * at the last line, interval the histogram of the latencies in between
 * (NULL: no percentiles), interval_s the time between them, elapsed_s the
 * time since the start and epoch_s the wall-clock time.
 */
void		report_progress_compute(report_progress_point *p, const bench_settings *s,
									const stats *cur, const stats *last, const hist *interval,
									double interval_s, double elapsed_s, double epoch_s);

/*
 * Print a progress line: pgbench's, then with --progress-percentiles the
 * interval's percentiles.
 */
void		report_progress_print(FILE *out, const bench_settings *s,
								  const report_progress_point *p);

/*
 * The --latency-histogram text: one "low_us high_us count" line per
 * non-empty bucket, in order; a latency L is counted on the line with
 * low_us <= L < high_us.
 */
void		report_histogram_text(strbuf *out, const hist *h);
/* --latency-histogram: that text into path, whole (strbuf_write_file); false with *cause. */
bool		report_histogram_write(const char *path, const hist *h, char **cause);


#endif
