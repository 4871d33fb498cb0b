/*
 * outputs.h — the table of pgtempo-bench's outputs: every output file,
 * above the modes that write it (see results/output.h for what an entry
 * holds and the one sequence that writes them).
 */
#ifndef PGTEMPO_BENCH_OUTPUTS_H
#define PGTEMPO_BENCH_OUTPUTS_H

#include "results/output.h"

extern const output_def outputs_table[];
extern const int outputs_count;

#endif
