/*
 * init.h — pgbench's initialization mode (-i): create the four
 * pgbench_* tables, fill them, vacuum them, add their keys.
 *
 * The command line is pgbench's; main() fills init_settings from it:
 *
 *   -i, --initialize        run init_run() instead of a benchmark
 *   -I, --init-steps=STEPS  init_set_steps()
 *   -F, --fillfactor=NUM    parse_int64(arg, "-F/--fillfactor", 10, 100, ...)
 *   -n, --no-vacuum         no_vacuum = true
 *   -q, --quiet             quiet = true
 *   -s, --scale=NUM         parse_int64(arg, "-s/--scale", 1, INT_MAX, ...)
 *   --foreign-keys          foreign_keys = true
 *   --index-tablespace=TS   index_tablespace
 *   --partition-method=M    init_set_partition_method()
 *   --partitions=NUM        parse_int64(arg, "--partitions", 0, INT_MAX, ...)
 *   --tablespace=TS         tablespace
 *   --unlogged-tables       unlogged_tables = true
 *
 * then calls init_settings_finish() once all options are read, and
 * init_run() with the connection options.  Everything printed goes to
 * stderr, in pgbench's words.
 */
#ifndef PGTEMPO_BENCH_INIT_H
#define PGTEMPO_BENCH_INIT_H

#include <stdbool.h>

#include "pgtempo/conn.h"

#define INIT_DEFAULT_STEPS	"dtgvp"
#define INIT_ALL_STEPS		"dtgGvpf"

/* From this scale on, account ids do not fit an int: aid becomes bigint. */
#define INIT_SCALE_32BIT_THRESHOLD 20000

typedef enum init_partition_method
{
	INIT_PART_NONE,
	INIT_PART_RANGE,
	INIT_PART_HASH
} init_partition_method;

typedef struct init_settings
{
	char	   *steps;			/* -I (allocated), NULL for the default */
	int			scale;			/* -s */
	int			fillfactor;		/* -F, 10..100 */
	bool		quiet;			/* -q: progress every 5 s, not every 100000 rows */
	bool		no_vacuum;		/* -n: the v steps are skipped */
	bool		foreign_keys;	/* --foreign-keys: an f step is added */
	bool		unlogged_tables;	/* --unlogged-tables */
	const char *tablespace;		/* --tablespace, or NULL */
	const char *index_tablespace;	/* --index-tablespace, or NULL */
	int			partitions;		/* --partitions, 0: pgbench_accounts is not partitioned */
	init_partition_method partition_method; /* --partition-method */
} init_settings;

/* The defaults, for an initializer: init_settings s = INIT_SETTINGS_DEFAULT; */
#define INIT_SETTINGS_DEFAULT { \
	.steps = NULL, .scale = 1, .fillfactor = 100, \
	.partitions = 0, .partition_method = INIT_PART_NONE }

/*
 * Check a -I value and keep a copy of it in s->steps (a later -I
 * replaces an earlier one).  Spaces are allowed and ignored.  False, with
 * pgbench's message, when it is empty or has a letter not in
 * INIT_ALL_STEPS.
 */
bool		init_set_steps(init_settings *s, const char *arg);

/* --partition-method: "range" or "hash" in any case; false with pgbench's message. */
bool		init_set_partition_method(init_settings *s, const char *arg);

/*
 * What pgbench does once every option is read: --partition-method needs
 * --partitions; --partitions alone means range partitioning; no -I means
 * INIT_DEFAULT_STEPS; -n blanks out each v, --foreign-keys appends an f
 * unless there is one.  False, with pgbench's message, on a conflict.
 */
bool		init_settings_finish(init_settings *s);

/* Free what init_settings owns (the steps). */
void		init_settings_free(init_settings *s);

/*
 * Connect and run each step of s->steps in order, printing pgbench's
 * progress lines and the final "done in ..." line.  An interrupt
 * (SIGINT) cancels the statement the server is running and stops.
 * Returns EXITCODE_OK, EXITCODE_ERROR (the reason printed) or
 * EXITCODE_SIGNAL(SIGINT) (pgtempo/exitcode.h).
 */
int			init_run(const init_settings *s, const conn_opts *conn);

#endif
