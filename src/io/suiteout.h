/*
 * suiteout.h — what pgtempo-io says beyond ioping, in the suite's formats:
 *   --histogram[=us|ns]  the log2 table of request times and percentiles,
 *                        after ioping's statistics
 *   --json[=FILE]        one JSON document (stdout, instead of ioping's
 *                        text; or FILE, beside it)
 *   --metrics=FILE       the Prometheus textfile
 *   --chart=FILE         an SVG: request times over the run and their distribution
 * for ioping's runs; and the metrics of PostgreSQL's tests (pgdisk.c).
 * All come from the run's histogram: memory does not grow with requests.
 */
#ifndef PGTEMPO_IO_SUITEOUT_H
#define PGTEMPO_IO_SUITEOUT_H

#include <stdbool.h>

#include "pgtempo/hist.h"
#include "pgtempo/json.h"
#include "pgtempo/metrics.h"
#include "pgtempo/strbuf.h"
#include "settings.h"
#include "stats.h"
#include "target.h"

/* Before the run: the files asked for can be written; false after the error. */
bool		suiteout_check(const io_settings *s);

/* After the run: every output asked for; false after an error. */
bool		suiteout_write(const io_settings *s, const io_target *t, const io_stats *st);

/* The latency object of every JSON document: min, mean, max, stddev, percentiles (ns). */
void		suiteout_json_latency(json_writer *w, const hist *v);

/*
 * The families of PostgreSQL's tests (pgdisk.c), one series per test and
 * method (labels test, method, writes): requests, operations per second,
 * percentiles and the latency histogram in seconds.
 */
void		suiteout_metrics_dists(metrics *m, const io_dist *d, int n);

/* Render m into the textfile path (replaced whole), free m; false after the error. */
bool		suiteout_metrics_publish(const char *path, metrics *m);

/* Write sb's text to path (--json=FILE, --chart), free sb; false after the error. */
bool		suiteout_publish(const char *path, strbuf *sb);

#endif
