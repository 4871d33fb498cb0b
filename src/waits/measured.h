/*
 * measured.h — what the server measured itself, beside what sampling
 * estimated: pg_stat_database's active_time (14+) and blk_read_time /
 * blk_write_time (with track_io_timing), pg_stat_wal's write and sync
 * times and counts (14-17, with track_wal_io_timing).
 *
 * The counters are read with one statement at the start, at every
 * --log-interval (else every MEASURED_DEFAULT_PERIOD_NS) and at the end,
 * never per sample; the differences are summed, a reset between two reads
 * (a counter going down, stats_reset moving) is noticed and said.  The
 * sampled side counts the rows that describe the same thing: sessions in
 * state active against active_time, IO/DataFileRead and IO/DataFileWrite
 * against the block times, IO/WALWrite and IO/WALSync against pg_stat_wal.
 * The report puts each measured figure beside its sampled estimate and
 * its bound, flags a measured figure outside the bound with what usually
 * explains it, and says which figures a setting that is off leaves out
 * and what turning it on would cost on this host.
 */
#ifndef PGTEMPO_WAITS_MEASURED_H
#define PGTEMPO_WAITS_MEASURED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pgtempo/json.h"

#include "sample.h"
#include "sampler.h"
#include "waits.h"

/* The name of --fail-if's disagreement limits: "disagree", "disagree:FIGURE" (waits.h). */
#define MEASURED_GATE_NAME "disagree"

/* Between two reads when no --log-interval is given. */
#define MEASURED_DEFAULT_PERIOD_NS	(60 * NS_PER_S)

/* The statement's columns, each a bigint (times in microseconds). */
typedef enum measured_col
{
	MEAS_ACTIVE_US,				/* pg_stat_database.active_time */
	MEAS_BLKS_READ,
	MEAS_READ_US,				/* blk_read_time */
	MEAS_WRITE_US,				/* blk_write_time */
	MEAS_DB_RESET_US,			/* max(stats_reset) of those databases */
	MEAS_WAL_WRITE,				/* pg_stat_wal */
	MEAS_WAL_SYNC,
	MEAS_WAL_WRITE_US,
	MEAS_WAL_SYNC_US,
	MEAS_WAL_RESET_US,
	MEAS_BUF_WRITES,			/* shared buffers written, by every process (for the cost) */
	MEAS_IO_TIMING,				/* track_io_timing: 1 on */
	MEAS_WAL_IO_TIMING,			/* track_wal_io_timing */
	MEAS_OWN_DB,				/* our own session's database is among those read */
	MEAS_NCOLS
} measured_col;

/* What sampling counted of the same things (samples, each standing for period_s). */
typedef enum measured_kind
{
	MEAS_KIND_ACTIVE,			/* sessions in state active */
	MEAS_KIND_READ,				/* IO/DataFileRead */
	MEAS_KIND_WRITE,			/* IO/DataFileWrite */
	MEAS_KIND_WAL_WRITE,		/* IO/WALWrite */
	MEAS_KIND_WAL_SYNC,			/* IO/WALSync */
	MEAS_NKINDS
} measured_kind;

typedef struct measured_run
{
	int			major;			/* the server's major version; 0: not connected yet */
	char	   *sql;			/* the statement, for that version and the --db list */
	char	   *dbs_sql;		/* the --db list as a SQL list, or NULL */
	const char *missing[MEAS_NCOLS];	/* why a column is not read (NULL: it is) */
	char	   *failed;			/* the statement failed: why; nothing more is read */
	int64_t		prev[MEAS_NCOLS];
	bool		prev_null[MEAS_NCOLS];
	bool		have_prev;
	int64_t		sum[MEAS_NCOLS];	/* of the differences between reads */
	int64_t		first[MEAS_NCOLS];	/* the first read's values (settings) */
	uint64_t	first_us,
				last_us;		/* wall clock of the first and last read */
	int			nreads;
	double		stmt_ms_sum,
				stmt_ms_max;	/* the statement's time, as seen here */
	/* a reset between two reads: of the databases' counters, of pg_stat_wal */
	bool		db_reset,
				wal_reset;
	uint64_t	db_reset_us,
				wal_reset_us;	/* the read after which it was seen */
	bool		io_off,
				io_on,
				wal_io_off,
				wal_io_on;		/* the settings as seen at some read */
	bool		own_db;			/* our session's statements add to active_time */
	uint64_t	period_ns;
	uint64_t	next_ns;		/* monotonic: the next read in the run */
	/* sampled */
	uint64_t	samples[MEAS_NKINDS];
	uint64_t	no_state;		/* counted session rows without a state (starting, or a source without) */
	double		cpu0;			/* our server backend's CPU seconds at the first read; < 0 unknown */
	double		own_s;			/* our own statements' active time: its CPU time; < 0 unknown */
	const waits_limit *limits;	/* --fail-if: its disagreement limits are judged here */
	int			nlimits;
} measured_run;

void		measured_init(measured_run *m, const waits_settings *s);
void		measured_free(measured_run *m);

/*
 * Read the counters now (the first call after a connection builds the
 * statement for its server).  A failure is said once and ends the reading.
 */
void		measured_read(measured_run *m, sampler *sm);
/* Read them if an interval is over (monotonic now_ns); the first read sets the schedule. */
void		measured_due(measured_run *m, sampler *sm, uint64_t now_ns);
/* The last read, and our own statements' share of active_time. */
void		measured_finish(measured_run *m, sampler *sm);

/* Count a sample's rows (a tick's batch) on the sampled side. */
void		measured_rows(measured_run *m, const sample_batch *b, bool include_idle);

/* The bound (95 %) of a sampled estimate of k samples of period_s, in seconds. */
double		measured_bound_s(uint64_t k, double period_s);

/* Is name a figure's (its JSON name: active_time, wal_syncs, ...)? */
bool		measured_figure_known(const char *name);

/*
 * How many of --fail-if's disagreement limits trip: a limit trips when the
 * interval of measured - sampled (the sampled estimate's bound about the
 * difference) of a figure it names lies wholly beyond it (gate_trips); a
 * figure not measured or not compared is not checked.
 */
int			measured_tripped(const measured_run *m, double period_s);

/* The report's section "measured by the server", sampled estimates at period_s. */
void		measured_text(FILE *out, const measured_run *m, double period_s);
/* The JSON report's member "measured_by_server". */
void		measured_json(json_writer *w, const measured_run *m, double period_s);

#endif
