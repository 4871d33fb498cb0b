/*
 * bench.h — pgtempo-bench's settings, filled in by main() from the
 * command line, and the entry points that run them.
 */
#ifndef PGTEMPO_BENCH_BENCH_H
#define PGTEMPO_BENCH_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/conn.h"
#include "prng.h"
#include "script.h"
#include "vars.h"

typedef enum query_mode
{
	QUERY_SIMPLE,
	QUERY_EXTENDED,
	QUERY_PREPARED
} query_mode;

typedef struct bench_settings
{
	int			nclients;		/* -c */
	int			nthreads;		/* -j */
	int64_t		transactions;	/* -t, per client */
	query_mode	mode;			/* -M */
	int64_t		scale;			/* -s, or 1 */
	bool		scale_given;
	script	   *scripts[SCRIPT_MAX_SCRIPTS];
	int			nscripts;
	int64_t		total_weight;
	vars	   *defines;		/* -D, copied into every client */
	uint64_t	random_seed;	/* what the base sequence was seeded with */
	prng_state	base;			/* pgbench's base_random_sequence */
	bool		dry_run;		/* --dry-run */

	/* connection (-h -p -U -d / DBNAME) */
	conn_opts	conn;

	/* running */
	int			duration;		/* -T, seconds; 0: run -t transactions */
	bool		is_connect;		/* -C: a new connection per transaction */
	bool		no_vacuum;		/* -n */
	bool		vacuum_all;		/* -v */
	bool		builtin_used;	/* a builtin script runs: scale comes from the tables */
	bool		per_command;	/* -r */
	int			progress;		/* -P, seconds; 0: none */
	bool		progress_timestamp; /* --progress-timestamp */
	uint32_t	max_tries;		/* --max-tries; 0: unlimited (needs -T) */
	bool		failures_detailed;	/* --failures-detailed */
	bool		verbose_errors; /* --verbose-errors */
	bool		exit_on_abort;	/* --exit-on-abort */
	bool		continue_on_error;	/* --continue-on-error */
	bool		debug;			/* --debug */

	/* found in the database when a builtin script runs */
	int			partitions;
	const char *partition_method;	/* "range", "hash", or NULL */
} bench_settings;

/*
 * Run the scripts without a server: every client runs its transactions
 * with meta-commands executed as in a real run and each SQL command
 * printed (with its variables substituted) instead of sent.  Returns the
 * exit status: 0, or 2 if a client aborted.
 */
int			dryrun_run(bench_settings *s);

#endif
