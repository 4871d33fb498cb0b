/*
 * options.h — pgtempo-bench's command line: pgbench's options and ours
 * (a run, -i, --dry-run) and --merge's, parsed into the settings with
 * pgbench's messages in pgbench's order.  main.c keeps --help and
 * --compare's own command line.
 */
#ifndef PGTEMPO_BENCH_OPTIONS_H
#define PGTEMPO_BENCH_OPTIONS_H

#include <stdbool.h>

#include "judge/capacity.h"
#include "judge/capsweep.h"
#include "judge/compare.h"
#include "pgtempo/opt.h"
#include "results/bench.h"
#include "results/output.h"
#include "run/init.h"

/* The command line: the settings and what it asks for besides them. */
typedef struct cmdline
{
	bench_settings s;
	bool		init_mode;		/* -i */
	bool		merge_mode;		/* --merge */
	bool		allow_partial;	/* --merge --allow-partial */
	init_settings init;
	/* --compare */
	bool		compare_mode;
	compare_settings cmp;
	capacity_settings cap;		/* --capacity */
	capsweep_plan sweep;		/* --sweep, --sweep-share */
	/* the command line being parsed (an output's option looks at the next argument) */
	int			argc;
	char	  **argv;
} cmdline;

/* Whether the command line has option before "--" (which ends the options). */
bool		options_asks(int argc, char **argv, const char *option);

/*
 * Fill cl from a command line of a run, of -i or of --merge (not of
 * --compare); usage prints --help.
 */
opt_status	options_parse(int argc, char **argv, cmdline *cl, void (*usage) (void));

/*
 * A copy (to be freed) of the option table own, with the options of
 * mode's outputs (s->outputs) put before own's last entry (--help), each
 * with these opt_def flags; *count: its length.
 */
opt_def    *options_with_outputs(const opt_def *own, size_t n, output_mode mode, unsigned flags,
								 const bench_settings *s, size_t *count);

/* --percentiles=LIST, for every command line that takes it (ctx: a cmdline). */
opt_status	options_percentiles(const opt_def *def, void *ctx, const char *arg);

#endif
