/*
 * options.h — pgtempo-bench's command line: pgbench's options and ours
 * (a run, -i, --dry-run) and --merge's, parsed into the settings with
 * pgbench's messages in pgbench's order.  main.c keeps --help and
 * --compare's own command line.
 */
#ifndef PGTEMPO_BENCH_OPTIONS_H
#define PGTEMPO_BENCH_OPTIONS_H

#include <stdbool.h>

#include "judge/compare.h"
#include "pgtempo/opt.h"
#include "results/bench.h"
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
} cmdline;

/* Whether the command line has option before "--" (which ends the options). */
bool		options_asks(int argc, char **argv, const char *option);

/*
 * Fill cl from a command line of a run, of -i or of --merge (not of
 * --compare); usage prints --help.
 */
opt_status	options_parse(int argc, char **argv, cmdline *cl, void (*usage) (void));

/* --percentiles=LIST, for every command line that takes it (ctx: a cmdline). */
opt_status	options_percentiles(const opt_def *def, void *ctx, const char *arg);

#endif
