/*
 * benchchart.h — pgtempo-bench --chart: the run over time as an SVG.
 *
 * The runner takes a point per progress interval (-P, or every second
 * when only --chart asks for them): throughput, latency percentiles of
 * the interval, schedule lag under -R, failures and skipped
 * transactions.  bench_chart_write() draws them with the core's chart
 * module: a throughput panel (with the -R target dashed and failures
 * marked above it) and a latency panel (p50, p99 and max on a log axis,
 * the schedule lag on a right axis under -R).
 */
#ifndef PGTEMPO_BENCH_BENCHCHART_H
#define PGTEMPO_BENCH_BENCHCHART_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "benchwaits.h"

typedef struct bench_chart_point
{
	double		elapsed_s;		/* end of the interval, since the start */
	double		tps;
	double		p50_ms;			/* NaN: no transaction ended in the interval */
	double		p99_ms;
	double		max_ms;
	double		lag_ms;			/* -R: average schedule lag; NaN: none */
	int64_t		failed;
	int64_t		skipped;
	bool		warmup;			/* --warmup: an interval of the warm-up */
	bwaits_mix	waits;			/* --waits: the sessions by wait class */
} bench_chart_point;

/*
 * Draw the points into an SVG file at s->chart_path; subtitle says what
 * ran (it is escaped).  Returns false with *cause set (caller frees) when
 * the file cannot be written.
 */
bool		bench_chart_write(const bench_settings *s, const char *subtitle,
							  const bench_chart_point *pts, int n, char **cause);

#endif
