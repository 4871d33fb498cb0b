/*
 * merge.h — pgtempo-bench --merge: one report for runs of the same
 * benchmark on several client hosts.
 *
 * Each host's --json document carries its exact sums (counts, latency
 * sums and sums of squares, the whole latency histogram, per script and
 * per command), so the merged report is what one run with all the
 * clients would have printed: counts and sums added, percentiles from
 * the added histograms (to the bucket), tps over the span from the
 * earliest start to the latest end, the -P series added interval by
 * interval.  The runs must be of the same benchmark (same scripts and
 * weights, query mode, duration or transactions per client, ...): the
 * first difference is an error that names the field and both files.
 */
#ifndef PGTEMPO_BENCH_MERGE_H
#define PGTEMPO_BENCH_MERGE_H

#include <stdbool.h>

#include "results/bench.h"
#include "results/output.h"

/*
 * Merge the reports in files[0..nfiles) and print the report; opts gives
 * the outputs (--json, --chart, --latency-histogram) and --percentiles.
 * A file that is missing, unreadable or not a complete report is an
 * error, unless allow_partial: then it is left out with a warning.
 * Returns the exit status: 0, or 1.
 */
/* --merge's writers of the table of outputs (output.h). */
bool		merge_write_hist(const output_ctx *c, const char *path, char **cause);
bool		merge_write_json(const output_ctx *c, const char *path, char **cause);
bool		merge_write_chart(const output_ctx *c, const char *path, char **cause);

int			merge_run(const bench_settings *opts, bool allow_partial, char **files, int nfiles);

#endif
