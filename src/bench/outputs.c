/*
 * outputs.c — the table of pgtempo-bench's outputs, above the modes: each
 * line is an output's option, its path when the option comes bare, the
 * check of its path before the run, and its writer in each mode it
 * belongs to.  Adding an output is its writer and one line here.
 */
#include "config.h"

#include "outputs.h"

#include <stddef.h>

#include "judge/capacity.h"
#include "judge/compare.h"
#include "judge/merge.h"
#include "pgtempo/metrics.h"
#include "pgtempo/strbuf.h"
#include "results/results.h"

#define PATH(f)	offsetof(bench_settings, f)

/*
 * In the order the "only one of ... can write to standard output" error
 * names them; those that record the exit status are written last, the
 * metrics last of all (its exit status is the program's).
 */
const output_def outputs_table[] = {
	{"json", PATH(json_path), "-", strbuf_check_writable, OUTPUT_STATUS,
	{[OUTPUT_RUN] = results_write_json, [OUTPUT_MERGE] = merge_write_json, [OUTPUT_COMPARE] = compare_write_json,
	[OUTPUT_CAPACITY] = capacity_write_json}},
	{"latency-histogram", PATH(hist_path), NULL, strbuf_check_writable, 0,
	{[OUTPUT_RUN] = results_write_hist, [OUTPUT_MERGE] = merge_write_hist}},
	{"chart", PATH(chart_path), NULL, strbuf_check_writable, 0,
	{[OUTPUT_RUN] = results_write_chart, [OUTPUT_MERGE] = merge_write_chart, [OUTPUT_COMPARE] = compare_write_chart,
	[OUTPUT_CAPACITY] = capacity_write_chart}},
	/* the textfile also needs its temporary file beside it */
	{"metrics", PATH(metrics_path), NULL, metrics_check_path, OUTPUT_STATUS,
	{[OUTPUT_RUN] = results_write_metrics, [OUTPUT_NOT_STARTED] = results_write_metrics,
	[OUTPUT_CAPACITY] = capacity_write_metrics}},
};

const int	outputs_count = (int) (sizeof(outputs_table) / sizeof(outputs_table[0]));
