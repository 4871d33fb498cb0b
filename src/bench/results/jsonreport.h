/*
 * jsonreport.h — the --json document: the settings, every number of the
 * text report (totals, per script, per command), the latency
 * percentiles and histogram, the -P series, the server version, the
 * start and end times and the exit status.
 *
 * The field names are stable and documented one by one in
 * pgtempo-bench(1), section JSON OUTPUT; "schema" is raised when a field
 * changes meaning or goes away (adding fields does not raise it).
 */
#ifndef PGTEMPO_BENCH_JSONREPORT_H
#define PGTEMPO_BENCH_JSONREPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "pgtempo/clock.h"
#include "pgtempo/strbuf.h"
#include "report.h"
#include "series.h"

#define JSONREPORT_SCHEMA 1

/* --merge: the runs a merged document stands for. */
typedef struct jsonreport_merge
{
	const char *const *hosts;	/* each run's host */
	const char *const *files;	/* and the file it was read from */
	int			nhosts;
	const char *const *missing;	/* --allow-partial: the files left out */
	int			nmissing;
} jsonreport_merge;

/* What the document says about the run besides the settings. */
typedef struct jsonreport_run
{
	const bench_server_facts *server;	/* scale and partitions */
	const char *server_version;	/* the server's server_version; NULL: unknown */
	int			server_version_num;	/* PQserverVersion(); 0: unknown */
	double		start_epoch_s;	/* wall-clock start and end (Unix time) */
	double		end_epoch_s;
	double		bench_start_epoch_s;	/* when the measured run began; 0: it did not */
	const clock_sync *clock;	/* whether the clock was synchronized; NULL: unknown */
	const jsonreport_merge *merge;	/* --merge: the runs merged; NULL: one run */
	int			exit_status;	/* what the program returns */
	int			stop_signal;	/* SIGINT or SIGTERM stopped the run; 0: none */
	int64_t		log_lines_lost;	/* -l lines lost to write errors */
	int			clients_abandoned;	/* backends that did not answer the stop's cancel */
	const report_data *data;	/* the merged results; NULL: the run did not start */
	const bwaits_report *waits; /* --waits: the sessions' wait events; NULL: none */
	const report_progress_point *progress;	/* the -P lines, in order */
	int			nprogress;
	const warmup_outcome *warmup;	/* --warmup: how it went; NULL: none */
	const series *series;		/* the per-interval series ("intervals"); NULL: none */
} jsonreport_run;

/* Append the document (pretty-printed, with a final newline) to out. */
void		jsonreport_build(strbuf *out, const bench_settings *s, const jsonreport_run *run);

/*
 * Write the document to path ("-": stdout).  Returns false with *cause
 * set (caller frees) when the file cannot be written.
 */
bool		jsonreport_write(const char *path, const bench_settings *s, const jsonreport_run *run,
							 char **cause);

/* "2026-11-22T10:15:30.123+01:00": t (Unix time) as local time, ISO 8601. */
void		jsonreport_iso8601(char *buf, size_t len, double t);

#endif
