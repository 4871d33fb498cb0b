/*
 * bench.h — pgtempo-bench's settings, filled in by main() from the
 * command line, and the entry points that run them.
 */
#ifndef PGTEMPO_BENCH_BENCH_H
#define PGTEMPO_BENCH_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/conn.h"
#include "lang/prng.h"
#include "lang/script.h"
#include "lang/vars.h"
#include "warmup.h"

typedef enum query_mode
{
	QUERY_SIMPLE,
	QUERY_EXTENDED,
	QUERY_PREPARED
} query_mode;

typedef struct output_def output_def;	/* output.h */

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
	bool		progress_quiet;	/* --capacity's steps: keep -P's points, print no line */
	uint32_t	max_tries;		/* --max-tries; 0: unlimited (needs -T) */
	bool		failures_detailed;	/* --failures-detailed */
	bool		verbose_errors; /* --verbose-errors */
	bool		exit_on_abort;	/* --exit-on-abort */
	bool		continue_on_error;	/* --continue-on-error */
	bool		debug;			/* --debug */
	int64_t		waits_ns;		/* --waits: the sampling interval; 0: no sampling */
	double		start_at_epoch_s;	/* --start-at: the common start (Unix time); 0: none */

	/* rate and latency limits */
	double		rate;			/* -R, transactions per second for the whole run; 0: none */
	int64_t		latency_limit_ns;	/* -L; 0: none */

	/* logs (-l) */
	bool		use_log;		/* -l */
	const char *log_prefix;		/* --log-prefix, default "pgbench_log" */
	double		sampling_rate;	/* --sampling-rate, (0, 1]; 0: log every transaction */
	int			agg_interval;	/* --aggregate-interval, seconds; 0: a line per transaction */
	bool		agg_per_script; /* --aggregate-per-script: a line per script per interval */

	/* latency distributions (beyond pgbench) */
/* how long backends get to answer a cancel request before their clients are
 * abandoned (run/stop.c waits it; the report names it) */
#define STOP_CANCEL_WAIT_S 1

#define BENCH_MAX_PERCENTILES 16
	double		percentiles[BENCH_MAX_PERCENTILES];	/* --percentiles, 0 < p <= 100 */
	int			npercentiles;	/* default: 50 90 99 99.9 */
	bool		progress_percentiles;	/* --progress-percentiles: -P lines show them */
	const char *json_path;		/* --json[=FILE], "-" for stdout; NULL: none */
	const char *hist_path;		/* --latency-histogram=FILE; NULL: none */
	const char *chart_path;		/* --chart=FILE.svg; NULL: none */
	const char *metrics_path;	/* --metrics=FILE, Prometheus text; NULL: none */
	const output_def *outputs;	/* the table of outputs (output.h); NULL: none */
	int			noutputs;
	char	   *command_line;	/* the arguments, for the chart's subtitle */

	/* warm-up (--warmup): run, but leave out of the results */
	warmup_mode warmup;
	int			warmup_s;		/* fixed: its length; auto: its maximum (seconds) */
} bench_settings;

/*
 * The longest -T run can last, in seconds: the warm-up (at most) and the
 * measured part (-T counts the measured part only).
 */
static inline int
bench_run_bound_s(const bench_settings *s)
{
	return s->duration + s->warmup_s;
}

/*
 * What a run learns from the server when a builtin script runs (the
 * pgbench tables); the settings are not written to once parsed.
 */
typedef struct bench_server_facts
{
	int64_t		scale;			/* count(*) of pgbench_branches; otherwise -s */
	int			partitions;
	const char *partition_method;	/* "range", "hash", or NULL */
} bench_server_facts;

/*
 * Run the scripts without a server: every client runs its transactions
 * with meta-commands executed as in a real run and each SQL command
 * printed (with its variables substituted) instead of sent.  Returns the
 * exit status: 0, or 2 if a client aborted.
 */
int			dryrun_run(const bench_settings *s);

#endif
