/*
 * results.h — what a run hands back to its caller, and the writing of it:
 * the text report and the messages on how the run ended, then every
 * output file (output.h's sequence; the writers of a run are here).  The run itself
 * (runner.c) writes only the logs that grow during it (-l).
 */
#ifndef PGTEMPO_BENCH_RESULTS_H
#define PGTEMPO_BENCH_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "benchchart.h"
#include "benchwaits.h"
#include "pgtempo/clock.h"
#include "output.h"
#include "report.h"
#include "warmup.h"
#include "series.h"

typedef struct bench_results
{
	bench_server_facts server;	/* scale and partitions (without a builtin script: -s) */
	char	   *server_version;	/* the server's server_version; NULL: unknown */
	int			server_version_num;	/* PQserverVersion(); 0: unknown */
	bool		merged;			/* data holds the threads' merged counters */
	report_data data;
	double		start_epoch_s;	/* wall-clock start and end (Unix time) */
	double		end_epoch_s;
	double		bench_start_epoch_s;	/* when the measured run began (after connecting) */
	clock_sync	clock;			/* whether the system clock was synchronized, at the end */
	report_progress_point *progress;	/* --json with -P: every progress line, in order */
	int			nprogress;
	series		series;			/* --json: the per-interval series */
	bench_chart_point *chart;	/* --chart: a point per interval */
	int			nchart;

	/* how the run ended */
	bool		setup_failed;	/* the threads could not open their connections */
	bool		aborted_all;	/* --exit-on-abort: a client aborted... */
	int			abort_thread;	/* ... in this thread */
	bool		client_aborted; /* a client aborted */
	int			stop_signal;	/* SIGINT or SIGTERM stopped the run; 0: none */
	bool		second_signal;	/* a second one abandoned the clients still waiting */
	int			abandoned;		/* clients whose backends did not answer the cancel */
	int64_t		log_lines_lost; /* -l lines lost to write errors */
	bwaits_report *waits;		/* --waits: what the sessions waited on; NULL: none */
	warmup_outcome warmup;		/* --warmup: how it went; mode WARMUP_NONE: none */
} bench_results;

/*
 * Print the report and what went wrong, then write the output files.
 * Returns the exit status: 0, 1 (set-up failed, or an output file or the
 * -l logs were not written), 2 (a client aborted or was abandoned), or
 * 128 + N (interrupted by signal N).
 */
int			results_finish(const bench_settings *s, const bench_results *res);

/*
 * The run could not start (runner_run failed, having said why): the
 * --metrics file says so with the exit status alone, so that a monitoring
 * system sees the failure rather than the last run's numbers.  Returns
 * the exit status (1).
 */
int			results_not_started(const bench_settings *s);

/* A run's window and clock for the report (--start-at). */
void		results_window(report_window *w, double start_epoch_s, double end_epoch_s,
						   const clock_sync *c);

/*
 * A run's writers of the table of outputs (output.h; data: the
 * bench_results): --latency-histogram and --chart (nothing when the
 * threads' counters were not merged), --json, --metrics (also of a run
 * that could not start).
 */
bool		results_write_hist(const output_ctx *c, const char *path, char **cause);
bool		results_write_json(const output_ctx *c, const char *path, char **cause);
bool		results_write_chart(const output_ctx *c, const char *path, char **cause);
bool		results_write_metrics(const output_ctx *c, const char *path, char **cause);

/* Free what res points to. */
void		results_free(bench_results *res, int nscripts);

#endif
