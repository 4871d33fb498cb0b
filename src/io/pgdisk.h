/*
 * pgdisk.h — PostgreSQL's questions about its disks: 8 KiB random and
 * sequential reads over a cluster's own relation files (read-only, direct
 * I/O where the filesystem allows), the ratio beside random_page_cost,
 * and the write-and-sync latency of each wal_sync_method in a work file
 * (pg_test_fsync's test, with the distribution).  pgdisk_run() returns
 * the exit status (tool.h's codes).
 */
#ifndef PGTEMPO_IO_PGDISK_H
#define PGTEMPO_IO_PGDISK_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/hist.h"
#include "settings.h"

#define PGDISK_BLOCK 8192
#define PGDISK_DEFAULT_NS (5 * UINT64_C(1000000000))	/* per test, as pg_test_fsync */

/* One timed series of requests: the distribution in ns and the time it ran. */
typedef struct pgdisk_series
{
	const char *name;
	int			writes;			/* sync test: writes per sync; reads: 1 */
	bool		direct;			/* opened with O_DIRECT */
	hist	   *h;
	uint64_t	elapsed_ns;
} pgdisk_series;

/* Operations per second of a series (0 when it did not run). */
double		pgdisk_ops(const pgdisk_series *x);

/* The ratio of random to sequential mean time per page (0 if unknown). */
double		pgdisk_ratio(const pgdisk_series *random, const pgdisk_series *seq);

/*
 * The sync method the numbers favour: the lowest median with one write per
 * sync among those that ran; NULL if none ran.
 */
const char *pgdisk_favoured(const pgdisk_series *x, int n);

/* Everything --pgdata, the connection options and --wal-sync ask for. */
int			pgdisk_run(const io_settings *s);

#endif
