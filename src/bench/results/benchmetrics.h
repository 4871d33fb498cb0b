/*
 * benchmetrics.h — a run's results as Prometheus metrics (--metrics=FILE);
 * the names are listed in pgtempo-bench(1), section METRICS.
 */
#ifndef PGTEMPO_BENCH_METRICS_H
#define PGTEMPO_BENCH_METRICS_H

#include <stdbool.h>

#include "bench.h"
#include "pgtempo/metrics.h"
#include "results.h"

/*
 * The latency histogram's bucket bounds: 2^k - 1 ns for k = MIN_EXP ..
 * MAX_EXP (about 1 us to 69 s), boundaries of the report's log-linear
 * histogram, so that every bucket's count is exact; then +Inf.
 */
#define BENCHMETRICS_MIN_EXP 10
#define BENCHMETRICS_MAX_EXP 36

/*
 * Add the run's metrics to m; status is the exit status.  Without
 * results (the run did not start) only the run's own metrics are added.
 */
void		benchmetrics_build(metrics *m, const bench_settings *s, const bench_results *res,
							   int status);

/* Build, render and write the file; false with *cause (caller frees). */
bool		benchmetrics_write(const char *path, const bench_settings *s, const bench_results *res,
							   int status, char **cause);

#endif
