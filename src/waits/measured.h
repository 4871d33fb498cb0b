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

#include "format.h"
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
	MEAS_BLKS_READ,				/* blks_read, or (16+) pg_stat_io's reads */
	MEAS_READ_US,				/* blk_read_time, or (16+) pg_stat_io's read_time */
	MEAS_BLKS_WRITTEN,			/* 16+: pg_stat_io's writes */
	MEAS_WRITE_US,				/* blk_write_time, or (16+) pg_stat_io's write_time */
	MEAS_READ_OUT_US,			/* 16+: of the read time, by processes the sampling leaves out */
	MEAS_WRITE_OUT_US,			/* ... of the write time */
	MEAS_DB_RESET_US,			/* max(stats_reset) of those databases */
	MEAS_IO_RESET_US,			/* 16+: max(stats_reset) of pg_stat_io */
	MEAS_WAL_WRITE,				/* pg_stat_wal (14-17), pg_stat_io's WAL rows (18+) */
	MEAS_WAL_SYNC,
	MEAS_WAL_WRITE_US,
	MEAS_WAL_SYNC_US,
	MEAS_WAL_RESET_US,
	MEAS_LOCK_WAITS,			/* 19+: pg_stat_lock */
	MEAS_LOCK_US,
	MEAS_LOCK_RESET_US,
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
	MEAS_KIND_LOCK,				/* Lock */
	MEAS_NKINDS
} measured_kind;

/*
 * The counters and the samples over a span of the run: the whole run, or
 * the time between two reads (an interval of the logs, store and metrics).
 */
typedef struct measured_span
{
	int64_t		sum[MEAS_NCOLS];	/* of the differences between reads */
	uint64_t	samples[MEAS_NKINDS];
	uint64_t	bg_samples[MEAS_NKINDS];	/* of them, by the checkpointer or the background writer */
	uint64_t	no_state;		/* counted session rows without a state (starting, or a source without) */
	uint64_t	ticks;			/* samples taken (a span's own period: its length over them) */
	bool		reset[MEAS_NCOLS];	/* by reset column: its group was reset in the span */
	uint64_t	reset_us[MEAS_NCOLS];	/* the read after which it was first seen */
	double		own_s;			/* our own statements' active time: its CPU time; < 0 unknown */
	uint64_t	start_us,
				end_us;			/* wall clock of the reads that bound it */
	/* summed from the measured records of logs (--from-log): the two below hold */
	bool		logged;
	double		logged_s[MEAS_NKINDS];	/* the records' sampled seconds, summed */
	bool		uncompared[MEAS_NKINDS];	/* a record of the kind was not compared */
	bool		seen[MEAS_NKINDS];	/* a record of the kind was read */
} measured_span;

/* The figures (format_measured_rec), at most. */
#define MEASURED_NFIGS MEAS_NKINDS

typedef struct measured_run
{
	int			major;			/* the server's major version; 0: not connected yet */
	char	   *sql;			/* the statement, for that version and the --db list */
	char	   *dbs_sql;		/* the --db list as a SQL list, or NULL */
	char	   *types_sql;		/* the sampled backend types as pg_stat_io names them; NULL: all */
	const char *missing[MEAS_NCOLS];	/* why a column is not read (NULL: it is) */
	int			reset_of[MEAS_NCOLS];	/* a counter's reset column; -1: none */
	const char *by[MEAS_NKINDS];	/* what measures a kind on this server */
	char	   *failed;			/* the statement failed: why; nothing more is read */
	int64_t		prev[MEAS_NCOLS];
	bool		prev_null[MEAS_NCOLS];
	bool		have_prev;
	measured_span run;			/* the whole run */
	measured_span cur;			/* since the last read */
	measured_span last;			/* between the last two reads */
	int64_t		first[MEAS_NCOLS];	/* the first read's values (settings) */
	uint64_t	first_us,
				last_us;		/* wall clock of the first and last read */
	int			nreads;
	double		stmt_ms_sum,
				stmt_ms_max;	/* the statement's time, as seen here */
	bool		io_off,
				io_on,
				wal_io_off,
				wal_io_on;		/* the settings as seen at some read */
	bool		own_db;			/* our session's statements add to active_time */
	uint64_t	period_ns;
	uint64_t	next_ns;		/* monotonic: the next read in the run */
	double		cpu0;			/* our server backend's CPU seconds at the first read; < 0 unknown */
	double		cpu_prev;		/* ... at the last read */
	const waits_limit *limits;	/* --fail-if: its disagreement limits are judged here */
	int			nlimits;
	int			log_spans;		/* --from-log: the logs' spans summed in run; 0: a live run */
	int			log_spans_out;	/* ... and those left out (crossing the window's edge) */
} measured_run;

void		measured_init(measured_run *m, const waits_settings *s);
void		measured_free(measured_run *m);

/*
 * Read the counters now (the first call after a connection builds the
 * statement for its server).  A failure is said once and ends the reading.
 */
void		measured_read(measured_run *m, sampler *sm);
/* The reads are due every period from the monotonic t0_ns (sampling's start). */
void		measured_schedule(measured_run *m, uint64_t t0_ns);
/* Read them if an interval is over (monotonic now_ns); true if they were read. */
bool		measured_due(measured_run *m, sampler *sm, uint64_t now_ns);
/* The last read, and our own statements' share of active_time. */
void		measured_finish(measured_run *m, sampler *sm);

/* Count a sample's rows (a tick's batch) on the sampled side. */
void		measured_rows(measured_run *m, const sample_batch *b, bool include_idle);

/* The bound (95 %) of a sampled estimate of k samples of period_s, in seconds. */
double		measured_bound_s(uint64_t k, double period_s);

/*
 * The figures of the span between the last two reads (after a read that
 * followed another) into recs[MEASURED_NFIGS]: with by_ticks a sample
 * stands for the span's length over the samples taken in it (the cost
 * budget may change the rate within a run), else (an in-server source,
 * whose rows are its own samples) for period_s; returns how many (0: no
 * such span).
 */
int			measured_last(const measured_run *m, double period_s, bool by_ticks,
						  format_measured_rec *recs);

/* Is name a figure's (its JSON name: active_time, wal_syncs, ...)? */
bool		measured_figure_known(const char *name);
/* The index of the figure of that name (measured_kind's order), or -1. */
int			measured_figure_of(const char *name);

/*
 * Add a measured record of a --log-interval log to m.run (m from
 * measured_init, --from-log): per figure, the measured seconds (to the
 * microsecond the log holds) and count, the sampled samples and sampled
 * seconds are summed; the bound is worked out again from the summed
 * samples, each standing for the summed seconds over them.  A figure
 * missing in a record stays missing (with the record's reason), one not
 * compared in a record is not compared.  The caller counts the spans
 * (m->log_spans); returns the figure's index, -1 for a figure not known.
 */
int			measured_add_logged(measured_run *m, const format_measured_rec *r);

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
