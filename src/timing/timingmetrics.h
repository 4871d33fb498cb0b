/*
 * timingmetrics.h — pg_test_timing's results as Prometheus metrics
 * (--metrics=FILE); the names are listed in the man page's METRICS section.
 */
#ifndef PGTEMPO_TIMING_METRICS_H
#define PGTEMPO_TIMING_METRICS_H

#include "pgtempo/metrics.h"

#include "results.h"

/*
 * Bucket bounds of the read-duration histogram: 2^b - 1 ns for b = 0..
 * TIMINGMETRICS_MIN_TOP at least (the ns table's "<= ns" rows), so that
 * every run has the same series; higher ones only when a read took longer.
 */
#define TIMINGMETRICS_MIN_TOP 30

/* Add every metric of the results to m. */
void		timingmetrics_build(metrics *m, const timing_results *r);

/* Build, render and write the file; false with *cause (caller frees). */
bool		timingmetrics_write(const char *path, const timing_results *r, char **cause);

#endif
