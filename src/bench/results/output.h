/*
 * output.h — the output files of pgtempo-bench behind one interface:
 * what an output is (its option, the check of its path before the run,
 * its writer in each mode) and the one sequence that writes them all.
 *
 * The table of outputs sits above every mode (src/bench/outputs.c names
 * each writer: a run's here in results, --merge's and --compare's in
 * judge) and reaches the modes through bench_settings.outputs; this file
 * and output.c name none of them.  Adding an output is its writer and one
 * line in that table: the option, the path check, the "only one may write
 * to standard output" rule and the writing come from the table.
 *
 * The failure rule, the same in every mode: every output asked for is
 * attempted; one that cannot be written is reported as its writer words
 * it (prog: error: could not write to file "PATH": reason) and makes the
 * exit status 1, unless it already says more (2, 3, 128 + N).  Outputs
 * that record the exit status (OUTPUT_STATUS) are written after the
 * others, so that they record those failures too.
 */
#ifndef PGTEMPO_BENCH_OUTPUT_H
#define PGTEMPO_BENCH_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"

/* What the outputs are written from. */
typedef enum output_mode
{
	OUTPUT_RUN,					/* a run that ended: bench_results */
	OUTPUT_NOT_STARTED,			/* a run that could not start: bench_results, all zero */
	OUTPUT_MERGE,				/* --merge: merge.c's merged run */
	OUTPUT_COMPARE,				/* --compare: compare.c's comparison */
	OUTPUT_CAPACITY,			/* --capacity: capacity.c's search */
	OUTPUT_NMODES
} output_mode;

/* What a writer gets. */
typedef struct output_ctx
{
	const bench_settings *s;
	const void *data;			/* the mode's (see output_mode) */
	int			status;			/* the exit status so far */
} output_ctx;

/* Write the output to path; false with *cause (allocated) if it could not be. */
typedef bool (*output_write_fn) (const output_ctx *c, const char *path, char **cause);

/* flags */
#define OUTPUT_STATUS	1u		/* records the exit status: written after the others */

struct output_def
{
	const char *option;			/* the long option, without "--" */
	size_t		field;			/* offsetof() its path (const char *) in bench_settings */
	const char *bare;			/* the path when the option comes without one; NULL: it needs one */
	bool		(*check) (const char *path, char **cause);	/* before the run */
	unsigned	flags;
	output_write_fn write[OUTPUT_NMODES];	/* NULL: not an output of that mode */
};

/* The path s gives output d; NULL: not asked for. */
const char *output_path(const bench_settings *s, const output_def *d);

/* Whether d is an output of mode (a --merge and a --compare take only their own). */
bool		output_in_mode(const output_def *d, output_mode mode);

/*
 * The paths of mode's outputs are checked before the run, so that a bad
 * path fails in the first second and not after it; false when one is
 * bad (every bad one said).
 */
bool		output_check_paths(const bench_settings *s, output_mode mode);

/* False, with an error naming it and what (a noun phrase), if an output not of mode is asked for. */
bool		output_only_mode(const bench_settings *s, output_mode mode, const char *what);

/* How many outputs write to standard output ("-"): the text report then goes to stderr. */
int			output_stdout_count(const bench_settings *s);

/* At most one of mode's outputs on standard output; false (said) if more. */
bool		output_stdout_ok(const bench_settings *s, output_mode mode);

/* Write every output of mode that s asks for from data; *status as the failure rule says. */
void		output_write_all(const bench_settings *s, output_mode mode, const void *data,
							 int *status);

#endif
