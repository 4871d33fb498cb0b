/*
 * suiteout.h — what pgtempo-io says beyond ioping, in the suite's formats:
 *   --histogram[=us|ns]  the log2 table of request times and percentiles,
 *                        after ioping's statistics
 *   --json[=FILE]        one JSON document (stdout, instead of ioping's
 *                        text; or FILE, beside it)
 *   --metrics=FILE       the Prometheus textfile
 *   --chart=FILE         an SVG: request times over the run and their distribution
 * All come from the run's histogram: memory does not grow with requests.
 */
#ifndef PGTEMPO_IO_SUITEOUT_H
#define PGTEMPO_IO_SUITEOUT_H

#include <stdbool.h>

#include "pgtempo/hist.h"
#include "pgtempo/json.h"
#include "settings.h"
#include "stats.h"
#include "target.h"

/* Before the run: the files asked for can be written; false after the error. */
bool		suiteout_check(const io_settings *s);

/* After the run: every output asked for; false after an error. */
bool		suiteout_write(const io_settings *s, const io_target *t, const io_stats *st);

/* The latency object of every JSON document: min, mean, max, stddev, percentiles (ns). */
void		suiteout_json_latency(json_writer *w, const hist *v);

#endif
