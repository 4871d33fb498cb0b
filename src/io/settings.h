/*
 * settings.h — what pgtempo-io was asked to do: ioping's options, then the
 * suite's outputs.  main.c fills it; nothing else writes to it.
 */
#ifndef PGTEMPO_IO_SETTINGS_H
#define PGTEMPO_IO_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/conn.h"

typedef struct io_settings
{
	const char *target;			/* directory, file or device */

	/* modes: ioping's flags */
	bool		async;			/* -A */
	bool		cached;			/* -C */
	bool		direct;			/* -D */
	bool		read_write;		/* -G: ping-pong */
	bool		linear;			/* -L */
	bool		nowait;			/* -N */
	bool		hipri;			/* -H */
	int			write;			/* -W, counted: -WWW for a file or device */
	bool		sync;			/* -Y */
	bool		dsync;			/* -y */
	bool		rapid;			/* -R */
	bool		keep;			/* -k */

	/* parameters; a flag says whether the user gave it */
	uint64_t	warmup;			/* -a */
	uint64_t	burst;			/* -b */
	uint64_t	count;			/* -c, 0: no limit */
	uint64_t	seed;			/* -e, 0: from the clock */
	int64_t		interval_ns;	/* -i */
	bool		interval_set;
	uint64_t	size;			/* -s */
	bool		size_set;
	uint64_t	work_size;		/* -S, 0: the default of the target */
	uint64_t	work_offset;	/* -o */
	int64_t		deadline_ns;	/* -w, 0: none */
	bool		deadline_set;
	uint64_t	speed_limit;	/* -l, bytes per second, 0: none */
	uint64_t	rate_limit;		/* -r, requests per second, 0: none */
	int64_t		min_time_ns;	/* -t */
	int64_t		max_time_ns;	/* -T, 0: none */

	/* output: ioping's */
	bool		batch;			/* -B */
	bool		print_time;		/* -I */
	const char *time_format;	/* -I's argument */
	bool		ioping_json;	/* -J */
	uint64_t	print_count;	/* -p */
	int64_t		print_interval_ns;	/* -P */
	bool		quiet;			/* -q */

	/* output: the suite's */
	bool		json;			/* --json: the document on stdout */
	const char *json_path;		/* --json=FILE: beside the report */
	const char *metrics_path;	/* --metrics=FILE */
	const char *chart_path;		/* --chart=FILE */
	int			histogram;		/* --histogram: 0 none, 1 us, 2 ns */

	/* PostgreSQL's questions (pgdisk.h) */
	const char *pgdata;			/* --pgdata: the cluster's files to read */
	bool		pg;				/* --pg or a connection option: ask the server */
	conn_opts	conn;			/* --host --port --username --dbname */
	const char *wal_sync_dir;	/* --wal-sync: the sync test's directory */
} io_settings;

#define IO_SETTINGS_INIT { \
	.warmup = 1, \
	.interval_ns = 1000000000, \
	.size = 4096, \
	.time_format = "%b %d %T", \
}

#endif
