/*
 * measured.c — the server's own measurements beside the sampled
 * estimates (see measured.h).
 */
#include "config.h"

#include "measured.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pgtempo/clock.h"
#include "pgtempo/gate.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "format.h"
#include "pgcost.h"
#include "timing.h"

/* How long the clock is read to price a timing setting. */
#define MEASURED_CLOCK_NS	(100 * NS_PER_MS)

/* A measured figure and the sampled estimate of the same thing. */
typedef struct measured_pair
{
	measured_kind kind;
	const char *name;			/* JSON */
	const char *what;			/* text */
	int			time_col;
	int			count_col;		/* -1: no count */
	const char *count_word;
	int			setting_col;	/* -1: always timed */
	const char *measured_by;	/* before a server says otherwise (measured_run.by) */
	const char *sampled_by;
	const char *sampled_type;	/* the wait event type and event of the rows; event NULL: any */
	const char *sampled_event;
	int			out_col;		/* of the time, by processes the sampling leaves out; -1: none */
} measured_pair;

static const measured_pair pairs[] = {
	{MEAS_KIND_ACTIVE, "active_time", "active time", MEAS_ACTIVE_US, -1, NULL, -1,
	"pg_stat_database.active_time", "sessions in state active", NULL, NULL, -1},
	{MEAS_KIND_READ, "data_file_reads", "data file reads", MEAS_READ_US, MEAS_BLKS_READ, "reads",
		MEAS_IO_TIMING, "pg_stat_database.blk_read_time, blks_read", "IO/DataFileRead", "IO",
	"DataFileRead", MEAS_READ_OUT_US},
	{MEAS_KIND_WRITE, "data_file_writes", "data file writes", MEAS_WRITE_US, MEAS_BLKS_WRITTEN,
		"writes", MEAS_IO_TIMING, "pg_stat_database.blk_write_time", "IO/DataFileWrite", "IO",
	"DataFileWrite", MEAS_WRITE_OUT_US},
	{MEAS_KIND_WAL_WRITE, "wal_writes", "WAL writes", MEAS_WAL_WRITE_US, MEAS_WAL_WRITE, "writes",
		MEAS_WAL_IO_TIMING, "pg_stat_wal.wal_write_time, wal_write", "IO/WALWrite", "IO",
	"WALWrite", -1},
	{MEAS_KIND_WAL_SYNC, "wal_syncs", "WAL syncs", MEAS_WAL_SYNC_US, MEAS_WAL_SYNC, "syncs",
		MEAS_WAL_IO_TIMING, "pg_stat_wal.wal_sync_time, wal_sync", "IO/WALSync", "IO", "WALSync",
	-1},
	{MEAS_KIND_LOCK, "lock_waits", "lock waits", MEAS_LOCK_US, MEAS_LOCK_WAITS, "waits", -1,
	"pg_stat_lock.wait_time, waits", "Lock", "Lock", NULL, -1},
};

#define NPAIRS ((int) (sizeof(pairs) / sizeof(pairs[0])))

/* The statistics views read, each probed once a connection: absent, or not readable by the role. */
typedef enum measured_view
{
	VIEW_DATABASE,
	VIEW_WAL,
	VIEW_IO,
	VIEW_BGWRITER,
	VIEW_LOCK,
	NVIEWS
} measured_view;

static const struct
{
	const char *name;
	const char *absent;			/* why a column of it is missing */
	const char *denied;
}			views[NVIEWS] = {
	[VIEW_DATABASE] = {"pg_stat_database", "pg_stat_database does not exist on this server",
	"this role may not read pg_stat_database"},
	[VIEW_WAL] = {"pg_stat_wal", "pg_stat_wal does not exist on this server",
	"this role may not read pg_stat_wal"},
	[VIEW_IO] = {"pg_stat_io", "pg_stat_io does not exist on this server",
	"this role may not read pg_stat_io"},
	[VIEW_BGWRITER] = {"pg_stat_bgwriter", "pg_stat_bgwriter does not exist on this server",
	"this role may not read pg_stat_bgwriter"},
	[VIEW_LOCK] = {"pg_stat_lock", "pg_stat_lock does not exist on this server",
	"this role may not read pg_stat_lock"},
};

/* The columns that are settings or flags, not counters: never summed. */
static bool
is_setting(int col)
{
	return col == MEAS_IO_TIMING || col == MEAS_WAL_IO_TIMING || col == MEAS_OWN_DB ||
		col == MEAS_DB_RESET_US || col == MEAS_WAL_RESET_US || col == MEAS_IO_RESET_US ||
		col == MEAS_LOCK_RESET_US;
}

/* A string as an E'' literal, whatever standard_conforming_strings says. */
static void
put_literal(strbuf *sb, const char *s)
{
	strbuf_puts(sb, "E'");
	for (; *s; s++)
	{
		if (*s == '\'' || *s == '\\')
			strbuf_putc(sb, *s);
		strbuf_putc(sb, *s);
	}
	strbuf_putc(sb, '\'');
}

/* A list of strings as a SQL list of literals, or NULL when empty. */
static char *
literal_list(const char *const *v, int n, const char *also)
{
	strbuf		sb;
	char	   *out;

	if (n == 0)
		return NULL;
	strbuf_init(&sb);
	for (int i = 0; i < n; i++)
	{
		if (i > 0)
			strbuf_puts(&sb, ", ");
		put_literal(&sb, v[i]);
	}
	if (also != NULL)
	{
		strbuf_puts(&sb, ", ");
		put_literal(&sb, also);
	}
	out = xstrdup(sb.data);
	strbuf_free(&sb);
	return out;
}

void
measured_init(measured_run *m, const waits_settings *s)
{
	bool		parallel = false;

	memset(m, 0, sizeof(*m));
	m->limits = s->fail_if;
	m->nlimits = s->nfail_if;
	m->period_ns = s->log_interval_ns > 0 ? (uint64_t) s->log_interval_ns :
		MEASURED_DEFAULT_PERIOD_NS;
	m->run.own_s = m->cur.own_s = m->last.own_s = -1;
	m->cpu0 = m->cpu_prev = -1;
	m->dbs_sql = literal_list((const char *const *) s->dbs.v, s->dbs.n, NULL);
	/* pg_stat_io names a parallel worker "background worker" */
	for (int i = 0; i < s->backend_types.n; i++)
		parallel |= strcmp(s->backend_types.v[i], "parallel worker") == 0;
	if (!s->backend_types_all)
		m->types_sql = literal_list((const char *const *) s->backend_types.v,
									s->backend_types.n, parallel ? "background worker" : NULL);
	for (int k = 0; k < MEAS_NKINDS; k++)
		m->by[k] = pairs[k].measured_by;
	/* until a server's statement says otherwise (build_sql) */
	for (int c = 0; c < MEAS_NCOLS; c++)
		m->reset_of[c] = c <= MEAS_WRITE_OUT_US ? MEAS_DB_RESET_US :
			c >= MEAS_WAL_WRITE && c <= MEAS_WAL_SYNC_US ? MEAS_WAL_RESET_US :
			c == MEAS_LOCK_WAITS || c == MEAS_LOCK_US ? MEAS_LOCK_RESET_US : -1;
}

void
measured_free(measured_run *m)
{
	free(m->sql);
	free(m->dbs_sql);
	free(m->types_sql);
	free(m->failed);
}

/*
 * A column of the statement: expr, or NULL with the reason the column is
 * missing; reset_col: the column that says when its counter was reset.
 */
static void
put_col(measured_run *m, strbuf *sb, int col, const char *expr, const char *missing,
		int reset_col)
{
	strbuf_puts(sb, col == 0 ? "SELECT " : ",\n  ");
	if (missing != NULL)
		strbuf_puts(sb, "NULL::int8");
	else
		strbuf_printf(sb, "(%s)::int8", expr);
	m->missing[col] = missing;
	m->reset_of[col] = reset_col;
}

/* Why view v cannot be read (acc: the probe's answer, 1 readable), or why not on this version. */
static const char *
view_missing(const int64_t *acc, measured_view v, const char *too_old)
{
	if (too_old != NULL)
		return too_old;
	return acc[v] < 0 ? views[v].absent : acc[v] == 0 ? views[v].denied : NULL;
}

/* The block reads and writes: pg_stat_io's of every process (16+), else pg_stat_database's. */
static void
put_block_cols(measured_run *m, strbuf *sb, const int64_t *acc)
{
	const char *io_missing = view_missing(acc, VIEW_IO, m->major < 16 ?
										  "pg_stat_io needs PostgreSQL 16 or later" : NULL);
	const char *db_missing = view_missing(acc, VIEW_DATABASE, NULL);
	const char *rel = "FROM pg_stat_io WHERE object IN ('relation', 'temp relation')";
	char	   *e[4];

	/* pg_stat_io has no database: with --db, the databases' own counters */
	if (io_missing != NULL || m->dbs_sql != NULL)
	{
		put_col(m, sb, MEAS_BLKS_READ, "sum(d.blks_read)", db_missing, MEAS_DB_RESET_US);
		put_col(m, sb, MEAS_READ_US, "sum(d.blk_read_time) * 1000", db_missing, MEAS_DB_RESET_US);
		put_col(m, sb, MEAS_BLKS_WRITTEN, NULL, io_missing != NULL ? io_missing :
				"pg_stat_io counts writes of every database at once (--db)", -1);
		put_col(m, sb, MEAS_WRITE_US, "sum(d.blk_write_time) * 1000", db_missing,
				MEAS_DB_RESET_US);
		put_col(m, sb, MEAS_READ_OUT_US, NULL, "not with pg_stat_database", -1);
		put_col(m, sb, MEAS_WRITE_OUT_US, NULL, "not with pg_stat_database", -1);
		return;
	}
	m->by[MEAS_KIND_READ] = "pg_stat_io.read_time, reads (relations, every backend type)";
	m->by[MEAS_KIND_WRITE] = "pg_stat_io.write_time, writes (relations, every backend type)";
	e[0] = xasprintf("SELECT sum(reads) %s", rel);
	e[1] = xasprintf("SELECT sum(read_time) * 1000 %s", rel);
	e[2] = xasprintf("SELECT sum(writes) %s", rel);
	e[3] = xasprintf("SELECT sum(write_time) * 1000 %s", rel);
	put_col(m, sb, MEAS_BLKS_READ, e[0], NULL, MEAS_IO_RESET_US);
	put_col(m, sb, MEAS_READ_US, e[1], NULL, MEAS_IO_RESET_US);
	put_col(m, sb, MEAS_BLKS_WRITTEN, e[2], NULL, MEAS_IO_RESET_US);
	put_col(m, sb, MEAS_WRITE_US, e[3], NULL, MEAS_IO_RESET_US);
	for (int i = 0; i < 4; i++)
		free(e[i]);
	/* the share of the processes the sampling leaves out, by its backend types */
	e[0] = xasprintf("SELECT coalesce(sum(read_time), 0) * 1000 %s AND backend_type NOT IN (%s)",
					 rel, m->types_sql ? m->types_sql : "''");
	e[1] = xasprintf("SELECT coalesce(sum(write_time), 0) * 1000 %s AND backend_type NOT IN (%s)",
					 rel, m->types_sql ? m->types_sql : "''");
	put_col(m, sb, MEAS_READ_OUT_US, e[0], NULL, MEAS_IO_RESET_US);
	put_col(m, sb, MEAS_WRITE_OUT_US, e[1], NULL, MEAS_IO_RESET_US);
	free(e[0]);
	free(e[1]);
}

/* WAL writes and syncs: pg_stat_wal (14-17), pg_stat_io's WAL rows (18+). */
static void
put_wal_cols(measured_run *m, strbuf *sb, const int64_t *acc)
{
	static const char *const wal_io[] = {
		"SELECT sum(writes) FROM pg_stat_io WHERE object = 'wal' AND context = 'normal'",
		"SELECT sum(fsyncs) FROM pg_stat_io WHERE object = 'wal' AND context = 'normal'",
		"SELECT sum(write_time) * 1000 FROM pg_stat_io WHERE object = 'wal' AND context = 'normal'",
		"SELECT sum(fsync_time) * 1000 FROM pg_stat_io WHERE object = 'wal' AND context = 'normal'",
	};
	static const char *const wal[] = {
		"SELECT wal_write FROM pg_stat_wal", "SELECT wal_sync FROM pg_stat_wal",
		"SELECT wal_write_time * 1000 FROM pg_stat_wal",
		"SELECT wal_sync_time * 1000 FROM pg_stat_wal",
	};
	bool		v18 = m->major >= 18;
	const char *missing = v18 ? view_missing(acc, VIEW_IO, NULL) :
		view_missing(acc, VIEW_WAL, m->major < 14 ? "pg_stat_wal needs PostgreSQL 14 or later" :
					 NULL);
	int			reset = v18 ? MEAS_IO_RESET_US : MEAS_WAL_RESET_US;

	for (int i = 0; i < 4; i++)
		put_col(m, sb, MEAS_WAL_WRITE + i, v18 ? wal_io[i] : wal[i], missing, reset);
	put_col(m, sb, MEAS_WAL_RESET_US,
			"SELECT extract(epoch FROM stats_reset) * 1000000 FROM pg_stat_wal",
			view_missing(acc, VIEW_WAL, m->major < 14 ?
						 "pg_stat_wal needs PostgreSQL 14 or later" : NULL), -1);
	if (v18)
	{
		m->by[MEAS_KIND_WAL_WRITE] = "pg_stat_io.write_time, writes (object wal)";
		m->by[MEAS_KIND_WAL_SYNC] = "pg_stat_io.fsync_time, fsyncs (object wal)";
	}
}

/*
 * The statement for a server of major version m->major, one row of
 * MEAS_NCOLS bigints; acc: the probe's answer for each view.
 */
static void
build_sql(measured_run *m, const int64_t *acc)
{
	strbuf		sb;
	bool		v14 = m->major >= 14;
	const char *io_missing = view_missing(acc, VIEW_IO, m->major < 16 ?
										  "pg_stat_io needs PostgreSQL 16 or later" : NULL);
	const char *lock_missing = view_missing(acc, VIEW_LOCK, m->major < 19 ?
											"pg_stat_lock needs PostgreSQL 19 or later" : NULL);
	char	   *own;

	strbuf_init(&sb);
	put_col(m, &sb, MEAS_ACTIVE_US, "sum(d.active_time) * 1000",
			v14 ? NULL : "pg_stat_database.active_time needs PostgreSQL 14 or later",
			MEAS_DB_RESET_US);
	put_block_cols(m, &sb, acc);
	put_col(m, &sb, MEAS_DB_RESET_US, "extract(epoch FROM max(d.stats_reset)) * 1000000", NULL, -1);
	put_col(m, &sb, MEAS_IO_RESET_US,
			"SELECT extract(epoch FROM max(stats_reset)) * 1000000 FROM pg_stat_io", io_missing, -1);
	put_wal_cols(m, &sb, acc);
	put_col(m, &sb, MEAS_LOCK_WAITS, "SELECT sum(waits) FROM pg_stat_lock", lock_missing,
			MEAS_LOCK_RESET_US);
	put_col(m, &sb, MEAS_LOCK_US, "SELECT sum(wait_time) * 1000 FROM pg_stat_lock", lock_missing,
			MEAS_LOCK_RESET_US);
	put_col(m, &sb, MEAS_LOCK_RESET_US,
			"SELECT extract(epoch FROM max(stats_reset)) * 1000000 FROM pg_stat_lock",
			lock_missing, -1);
	/* 17 took the checkpointer's and the backends' writes out of pg_stat_bgwriter */
	put_col(m, &sb, MEAS_BUF_WRITES, m->major >= 16 ?
			"SELECT sum(writes) FROM pg_stat_io WHERE object = 'relation'" :
			"SELECT buffers_checkpoint + buffers_clean + buffers_backend FROM pg_stat_bgwriter",
			m->major >= 16 ? io_missing : view_missing(acc, VIEW_BGWRITER, NULL), -1);
	put_col(m, &sb, MEAS_IO_TIMING, "current_setting('track_io_timing')::bool::int", NULL, -1);
	put_col(m, &sb, MEAS_WAL_IO_TIMING, "current_setting('track_wal_io_timing')::bool::int",
			v14 ? NULL : "track_wal_io_timing needs PostgreSQL 14 or later", -1);
	own = xasprintf("(current_database() IN (%s))::int", m->dbs_sql ? m->dbs_sql : "current_database()");
	put_col(m, &sb, MEAS_OWN_DB, own, NULL, -1);
	free(own);
	strbuf_puts(&sb, "\nFROM pg_stat_database d WHERE d.datname IS NOT NULL");
	if (m->dbs_sql != NULL)
		strbuf_printf(&sb, " AND d.datname IN (%s)", m->dbs_sql);
	free(m->sql);
	m->sql = xstrdup(sb.data);
	strbuf_free(&sb);
}

/*
 * Which views this role can read on this server, into acc (1 readable, 0
 * not, -1 absent); false with *cause if the probe itself failed.
 */
static bool
probe_views(sampler *sm, int64_t *acc, char **cause)
{
	strbuf		sb;
	bool		null[NVIEWS];
	bool		ok;

	strbuf_init(&sb);
	for (int v = 0; v < NVIEWS; v++)
		strbuf_printf(&sb, "%scoalesce(has_table_privilege(to_regclass('pg_catalog.%s'), "
					  "'SELECT')::int::int8, -1)", v == 0 ? "SELECT " : ", ", views[v].name);
	ok = sampler_read_int8(sm, sb.data, NVIEWS, acc, null, cause);
	strbuf_free(&sb);
	return ok;
}

/* A reset of a group of counters between the last read and this one (stats_reset moved). */
static bool
moved(const measured_run *m, const int64_t *v, const bool *null, int col)
{
	return col >= 0 && !null[col] && (m->prev_null[col] || v[col] != m->prev[col]);
}

/* A reset of reset column rc seen at the read of now_us, in span sp. */
static void
mark_reset(measured_span *sp, int rc, uint64_t now_us)
{
	if (!sp->reset[rc])
		sp->reset_us[rc] = now_us;
	sp->reset[rc] = true;
}

/* Add this read's differences to the sums of the run and of the span, noticing resets. */
static void
account(measured_run *m, const int64_t *v, const bool *null, uint64_t now_us)
{
	for (int c = 0; c < MEAS_NCOLS; c++)
	{
		int			rc = m->reset_of[c];
		int64_t		d;

		if (is_setting(c) || null[c] || m->prev_null[c])
			continue;
		d = v[c] - m->prev[c];
		/* after a reset only what came since is known: the counter's value */
		if (moved(m, v, null, rc) || d < 0)
		{
			d = v[c];
			if (rc >= 0)
			{
				mark_reset(&m->run, rc, now_us);
				mark_reset(&m->cur, rc, now_us);
			}
		}
		m->run.sum[c] += d;
		m->cur.sum[c] += d;
	}
}

/* The first read of a connection: the views probed, the statement built; false if it failed. */
static bool
prepare(measured_run *m, sampler *sm, char **cause)
{
	int64_t		acc[NVIEWS];

	m->major = atoi(sampler_get_info(sm)->server_version);
	if (!probe_views(sm, acc, cause))
		return false;
	build_sql(m, acc);
	return true;
}

/* A read that failed: said once, unless the connection was lost (the next sample's to say). */
static void
read_failed(measured_run *m, sampler *sm, char *cause)
{
	if (sampler_connected(sm))
	{
		msg_warning("%s", cause);
		msg_detail("The report shows no figures measured by the server.");
		m->failed = cause;
	}
	else
		free(cause);
}

/* The span since the last read is over at now_us (cpu: our backend's CPU now): it becomes last. */
static void
close_span(measured_run *m, uint64_t now_us, double cpu)
{
	m->cur.start_us = m->last_us;
	m->cur.end_us = now_us;
	m->cur.own_s = m->cpu_prev >= 0 && cpu >= m->cpu_prev ? cpu - m->cpu_prev : -1;
	m->last = m->cur;
	memset(&m->cur, 0, sizeof(m->cur));
	m->cur.own_s = -1;
}

void
measured_read(measured_run *m, sampler *sm)
{
	int64_t		v[MEAS_NCOLS];
	bool		null[MEAS_NCOLS];
	char	   *cause = NULL;
	uint64_t	t0,
				now_us;
	double		ms,
				cpu;

	if (m->failed != NULL || !sampler_connected(sm))
		return;
	if (m->major == 0 && !prepare(m, sm, &cause))
	{
		m->major = 0;
		read_failed(m, sm, cause);
		return;
	}
	t0 = clock_now_ns();
	if (!sampler_read_int8(sm, m->sql, MEAS_NCOLS, v, null, &cause))
	{
		/* a lost connection is the next sample's to report; the counters wait for the next read */
		read_failed(m, sm, cause);
		return;
	}
	ms = (double) (clock_now_ns() - t0) / 1e6;
	now_us = clock_wall_us();
	cpu = sampler_backend_cpu_s(sm);
	m->stmt_ms_sum += ms;
	if (ms > m->stmt_ms_max)
		m->stmt_ms_max = ms;
	if (m->nreads == 0)
	{
		m->cpu0 = cpu;
		m->first_us = now_us;
		memcpy(m->first, v, sizeof(v));
	}
	else
	{
		account(m, v, null, now_us);
		close_span(m, now_us, cpu);
	}
	m->cpu_prev = cpu;
	m->last_us = now_us;
	m->nreads++;
	if (!null[MEAS_IO_TIMING])
		*(v[MEAS_IO_TIMING] ? &m->io_on : &m->io_off) = true;
	if (!null[MEAS_WAL_IO_TIMING])
		*(v[MEAS_WAL_IO_TIMING] ? &m->wal_io_on : &m->wal_io_off) = true;
	m->own_db = !null[MEAS_OWN_DB] && v[MEAS_OWN_DB] != 0;
	memcpy(m->prev, v, sizeof(v));
	memcpy(m->prev_null, null, sizeof(null));
	m->have_prev = true;
}

void
measured_schedule(measured_run *m, uint64_t t0_ns)
{
	m->next_ns = t0_ns + m->period_ns;
}

bool
measured_due(measured_run *m, sampler *sm, uint64_t now_ns)
{
	int			before = m->nreads;

	if (m->next_ns == 0)
		m->next_ns = now_ns + m->period_ns;
	if (now_ns < m->next_ns)
		return false;
	while (m->next_ns <= now_ns)
		m->next_ns += m->period_ns;
	measured_read(m, sm);
	return m->nreads > before && before > 0;
}

void
measured_finish(measured_run *m, sampler *sm)
{
	double		cpu;

	measured_read(m, sm);
	/*
	 * Our own statements are active time of our session: its backend's CPU
	 * time, which on a busy host falls short of it by the time it waited
	 * for a CPU.  Unknown for a server on another host, or after a
	 * reconnect (another backend).
	 */
	cpu = sampler_backend_cpu_s(sm);
	m->run.own_s = m->cpu0 >= 0 && cpu >= m->cpu0 ? cpu - m->cpu0 : -1;
}

/* Does row r describe pair p's sampled side?  (17 renamed WALSync WalSync: case is ignored.) */
static bool
row_is(const sample_row *r, const measured_pair *p)
{
	return p->sampled_type != NULL && r->cls == SAMPLE_WAIT && r->wait_event_type != NULL &&
		strcmp(r->wait_event_type, p->sampled_type) == 0 &&
		(p->sampled_event == NULL ||
		 (r->wait_event != NULL && strcasecmp(r->wait_event, p->sampled_event) == 0));
}

/* Add n samples of kind k to the run and to the span. */
static void
count(measured_run *m, int k, uint64_t n, bool bg)
{
	m->run.samples[k] += n;
	m->cur.samples[k] += n;
	if (bg)
	{
		m->run.bg_samples[k] += n;
		m->cur.bg_samples[k] += n;
	}
}

void
measured_rows(measured_run *m, const sample_batch *b, bool include_idle)
{
	m->run.ticks++;
	m->cur.ticks++;
	for (int i = 0; i < b->nrows; i++)
	{
		const sample_row *r = &b->rows[i];
		bool		bg = r->backend_type != NULL &&
			(strcmp(r->backend_type, "checkpointer") == 0 ||
			 strcmp(r->backend_type, "background writer") == 0);

		if (!sample_row_counted(r, include_idle))
			continue;
		/* background processes have no state; sessions without one are an in-server source's */
		if (r->state == NULL)
		{
			if (r->backend_type == NULL || strcmp(r->backend_type, "client backend") == 0)
			{
				m->run.no_state += r->samples;
				m->cur.no_state += r->samples;
			}
		}
		else if (strcmp(r->state, "active") == 0 || strcmp(r->state, "fastpath function call") == 0)
			count(m, MEAS_KIND_ACTIVE, r->samples, bg);
		for (int k = MEAS_KIND_READ; k < MEAS_NKINDS; k++)
			if (row_is(r, &pairs[k]))
				count(m, k, r->samples, bg);
	}
}

double
measured_bound_s(uint64_t k, double period_s)
{
	/* the Poisson bound of a count, and three samples more: none seen still allows about 3 */
	return period_s * (1.96 * sqrt((double) k) + 3);
}

/* ---------------------------------------------------------------- the comparison */

/* One pair worked out for the report. */
typedef struct measured_fig
{
	const char *missing;		/* why there is no measured figure; NULL: there is */
	double		measured_s;
	bool		has_count;
	int64_t		count;
	double		sampled_s;
	double		bound_s;
	bool		compared;		/* the sampled side describes the same thing */
	bool		agree;
	bool		reset;
	double		own_s;			/* our own statements, taken off the measured active time */
	bool		own_in;			/* ... which are in it, but could not be taken off */
	double		out_s;			/* of the measured, by processes the sampling leaves out; < 0 unknown */
	const char *reasons[5];
	int			nreasons;
} measured_fig;

/* Why a measured figure lies below its sampled estimate. */
static void
reasons_below(const measured_run *m, const measured_span *sp, const measured_pair *p,
			  measured_fig *f)
{
	if (p->kind == MEAS_KIND_READ || p->kind == MEAS_KIND_WRITE)
	{
		if (sp->bg_samples[p->kind] > 0 && m->reset_of[p->time_col] == MEAS_DB_RESET_US)
			f->reasons[f->nreasons++] = "the checkpointer and the background writer add no I/O "
				"time to pg_stat_database (before PostgreSQL 16 to no view at all): their samples "
				"were counted, their time was not measured";
	}
	if (p->kind == MEAS_KIND_ACTIVE)
		f->reasons[f->nreasons++] = "the server adds a statement's active time when it ends, "
			"and a session sends it at most once a second, after a statement that touched a "
			"table, or when it ends (15: a session of pg_sleep or SELECT 1 alone sends nothing "
			"until it ends): time still running or not yet sent at the last read was sampled "
			"but not yet measured";
	else if (p->kind == MEAS_KIND_LOCK)
		f->reasons[f->nreasons++] = "pg_stat_lock adds a lock wait when it ends (and, as "
			"written for 19, may count only waits that outlast deadlock_timeout): waits still "
			"going on or short ones were sampled but not measured";
	else
		f->reasons[f->nreasons++] = "a session sends its statistics when its transaction ends, "
			"at most once a second: I/O of transactions still open at the last read was sampled "
			"but not yet measured";
}

/* Why a measured figure lies above its sampled estimate. */
static void
reasons_above(const measured_pair *p, measured_fig *f)
{
	if (p->kind == MEAS_KIND_ACTIVE)
	{
		f->reasons[f->nreasons++] = "statements that began before the first read are added "
			"whole when they end, and statistics sent late arrive after the first read";
		f->reasons[f->nreasons++] = "processes the sampling leaves out add to active_time too "
			"(other backend types, parallel workers): --backend-type=all counts them";
		return;
	}
	/* the processes left out come first when the server says they did much of it */
	if (f->out_s > 0 && f->measured_s - f->out_s <= f->sampled_s + f->bound_s)
		f->reasons[f->nreasons++] = "I/O by processes the sampling leaves out (checkpointer, "
			"background writer, WAL writer, autovacuum): --backend-type=all counts them";
	f->reasons[f->nreasons++] = "statistics of I/O before the first read were sent after it";
	if (!(f->out_s > 0 && f->measured_s - f->out_s <= f->sampled_s + f->bound_s))
		f->reasons[f->nreasons++] = "I/O by processes the sampling leaves out (checkpointer, "
			"background writer, WAL writer, autovacuum): --backend-type=all counts them";
}

/* The measured side of pair p over span sp; false (f->missing set) if there is none. */
static bool
measured_side(const measured_run *m, const measured_span *sp, const measured_pair *p,
			  measured_fig *f)
{
	bool		on = p->setting_col < 0 ||
		(p->setting_col == MEAS_IO_TIMING ? m->io_on : m->wal_io_on);
	bool		off = p->setting_col >= 0 &&
		(p->setting_col == MEAS_IO_TIMING ? m->io_off : m->wal_io_off);

	if (m->failed != NULL)
		f->missing = "the counters could not be read";
	else if (m->missing[p->time_col] != NULL)
		f->missing = m->missing[p->time_col];
	else if (m->nreads < 2)
		f->missing = "the counters were read fewer than twice";
	else if (off && !on)
		f->missing = p->setting_col == MEAS_IO_TIMING ? "track_io_timing is off" :
			"track_wal_io_timing is off";
	if (f->missing != NULL)
		return false;
	f->measured_s = (double) sp->sum[p->time_col] / 1e6;
	if (p->kind == MEAS_KIND_ACTIVE && m->own_db && sp->own_s >= 0)
	{
		f->own_s = sp->own_s;
		f->measured_s -= f->own_s;
		if (f->measured_s < 0)
			f->measured_s = 0;
	}
	else if (p->kind == MEAS_KIND_ACTIVE && m->own_db)
		f->own_in = true;
	f->has_count = p->count_col >= 0 && m->missing[p->count_col] == NULL;
	f->count = f->has_count ? sp->sum[p->count_col] : 0;
	f->out_s = p->out_col >= 0 && m->missing[p->out_col] == NULL ?
		(double) sp->sum[p->out_col] / 1e6 : -1;
	f->reset = m->reset_of[p->time_col] >= 0 && sp->reset[m->reset_of[p->time_col]];
	/* a setting turned on or off during the run leaves part of the time out */
	/* a few rows without a state are sessions starting; most of them, a source without states */
	f->compared = !off && !(p->kind == MEAS_KIND_ACTIVE &&
							sp->no_state > sp->samples[MEAS_KIND_ACTIVE]);
	return true;
}

/* Work out pair p over span sp. */
static void
figure_of(const measured_run *m, const measured_span *sp, const measured_pair *p,
		  double period_s, measured_fig *f)
{
	uint64_t	k = sp->samples[p->kind];

	memset(f, 0, sizeof(*f));
	f->out_s = -1;
	f->sampled_s = (double) k * period_s;
	f->bound_s = measured_bound_s(k, period_s);
	if (!measured_side(m, sp, p, f) || !f->compared)
		return;
	f->agree = fabs(f->measured_s - f->sampled_s) <= f->bound_s;
	if (f->agree)
		return;
	if (f->reset)
		f->reasons[f->nreasons++] = "the counters were reset during the run (pg_stat_reset(), "
			"pg_stat_reset_shared()): before the reset only the time since it was measured";
	if (f->measured_s < f->sampled_s)
		reasons_below(m, sp, p, f);
	else
		reasons_above(p, f);
}

/* Work out pair p over the whole run. */
static void
figure(const measured_run *m, const measured_pair *p, double period_s, measured_fig *f)
{
	figure_of(m, &m->run, p, period_s, f);
}

int
measured_last(const measured_run *m, double period_s, bool by_ticks, format_measured_rec *recs)
{
	const measured_span *sp = &m->last;

	if (m->nreads < 2 || m->failed != NULL)
		return 0;
	if (by_ticks && sp->ticks > 0 && sp->end_us > sp->start_us)
		period_s = (double) (sp->end_us - sp->start_us) / 1e6 / (double) sp->ticks;
	for (int i = 0; i < NPAIRS; i++)
	{
		const measured_pair *p = &pairs[i];
		format_measured_rec *r = &recs[i];
		measured_fig f;

		figure_of(m, &m->last, p, period_s, &f);
		memset(r, 0, sizeof(*r));
		r->start_us = (int64_t) m->last.start_us;
		r->end_us = (int64_t) m->last.end_us;
		r->figure = p->name;
		r->measured_by = m->by[p->kind];
		r->measured_missing = f.missing;
		r->measured_seconds = f.missing == NULL ? f.measured_s : -1;
		r->measured_count = f.missing == NULL && f.has_count ? f.count : -1;
		r->sampled_by = p->sampled_by;
		r->sampled_samples = (int64_t) m->last.samples[p->kind];
		r->sampled_seconds = f.sampled_s;
		r->sampled_error_seconds = f.bound_s;
		r->verdict = f.missing != NULL || !f.compared ? NULL : f.agree ? "agree" : "disagree";
		r->reason = f.nreasons > 0 ? f.reasons[0] : NULL;
	}
	return NPAIRS;
}

bool
measured_figure_known(const char *name)
{
	for (int i = 0; i < NPAIRS; i++)
		if (strcmp(pairs[i].name, name) == 0)
			return true;
	return false;
}

/* What a --fail-if disagreement limit found. */
typedef struct measured_gate
{
	int			checked;		/* figures it names that were compared */
	bool		tripped;
	bool		fig_tripped[NPAIRS];
} measured_gate;

/* Judge disagreement limit l over the figures it names. */
static void
judge(const measured_run *m, const waits_limit *l, double period_s, measured_gate *g)
{
	memset(g, 0, sizeof(*g));
	for (int i = 0; i < NPAIRS; i++)
	{
		measured_fig f;
		gate_change ch;

		if (l->event[0] != '\0' && strcmp(l->event, pairs[i].name) != 0)
			continue;
		figure(m, &pairs[i], period_s, &f);
		if (f.missing != NULL || !f.compared)
			continue;
		g->checked++;
		/* measured - sampled, give or take the estimate's bound; % of the estimate */
		ch = gate_change_abs(true, f.sampled_s, f.measured_s - f.sampled_s - f.bound_s,
							 f.measured_s - f.sampled_s + f.bound_s);
		g->fig_tripped[i] = gate_trips(&l->lim, &ch);
		g->tripped |= g->fig_tripped[i];
	}
}

int
measured_tripped(const measured_run *m, double period_s)
{
	int			n = 0;

	for (int i = 0; i < m->nlimits; i++)
	{
		measured_gate g;

		if (!m->limits[i].disagree)
			continue;
		judge(m, &m->limits[i], period_s, &g);
		n += g.tripped;
	}
	return n;
}

/* The report's lines of --fail-if's disagreement limits. */
static void
text_gate(FILE *out, const measured_run *m, double period_s)
{
	for (int i = 0; i < m->nlimits; i++)
	{
		const waits_limit *l = &m->limits[i];
		measured_gate g;
		const char *sep = ": ";

		if (!l->disagree)
			continue;
		judge(m, l, period_s, &g);
		fprintf(out, "  --fail-if=%s: %s", l->lim.text, gate_outcome_word(g.checked > 0,
																		   g.tripped));
		for (int k = 0; k < NPAIRS; k++)
			if (g.fig_tripped[k])
			{
				fprintf(out, "%s%s", sep, pairs[k].what);
				sep = ", ";
			}
		if (g.checked == 0)
			fputs(" (no figure it names was compared)", out);
		fputc('\n', out);
	}
}

/* The JSON report's "fail_if" (with a disagreement limit): each, what it checked and what tripped it. */
static void
json_gate(json_writer *w, const measured_run *m, double period_s)
{
	bool		any = false;

	for (int i = 0; i < m->nlimits; i++)
		any |= m->limits[i].disagree;
	if (!any)
		return;
	json_key(w, "fail_if");
	json_array_begin(w);
	for (int i = 0; i < m->nlimits; i++)
	{
		const waits_limit *l = &m->limits[i];
		measured_gate g;

		if (!l->disagree)
			continue;
		judge(m, l, period_s, &g);
		json_object_begin(w);
		json_kv_string(w, "limit", l->lim.text);
		json_kv_int(w, "figures_checked", g.checked);
		json_kv_bool(w, "tripped", g.tripped);
		json_key(w, "tripped_by");
		json_array_begin(w);
		for (int k = 0; k < NPAIRS; k++)
			if (g.fig_tripped[k])
				json_string(w, pairs[k].name);
		json_array_end(w);
		json_object_end(w);
	}
	json_array_end(w);
}

/* The clock-read cost here, ns per read (the core timing loop of pg_test_timing). */
static double
clock_read_ns(void)
{
	timing_pass *pass = xcalloc(1, sizeof(timing_pass));
	double		ns = -1;

	if (timing_run(pass, TIMING_CLOCK_SYSTEM, MEASURED_CLOCK_NS, NULL) == TIMING_OK)
		ns = timing_per_loop_ns(pass);
	free(pass);
	return ns;
}

/* The operations a second a timing setting would time, from the counters (< 0: unknown). */
static double
timed_rate(const measured_run *m, int setting_col)
{
	double		s = (double) (m->last_us - m->first_us) / 1e6;
	int64_t		n;

	if (s <= 0)
		return -1;
	if (setting_col == MEAS_IO_TIMING)
	{
		if (m->missing[MEAS_BUF_WRITES] != NULL)
			return -1;
		n = m->run.sum[MEAS_BLKS_READ] + m->run.sum[MEAS_BUF_WRITES];
	}
	else
	{
		if (m->missing[MEAS_WAL_WRITE] != NULL)
			return -1;
		n = m->run.sum[MEAS_WAL_WRITE] + m->run.sum[MEAS_WAL_SYNC];
	}
	return (double) n / s;
}

/* A setting that is off: what it would cost on this host. */
typedef struct measured_cost
{
	const char *setting;
	const char *leaves_out;
	const char *ops;
	double		rate;			/* operations a second; < 0 unknown */
	double		us_per_s;		/* CPU a second it would cost; < 0 unknown */
} measured_cost;

/* The settings that are off, with their cost (clock_ns: a clock read here). */
static int
costs(const measured_run *m, double clock_ns, measured_cost *c)
{
	int			n = 0;

	if (m->failed != NULL || m->nreads < 2)
		return 0;
	if (m->io_off)
		c[n++] = (measured_cost) {"track_io_timing",
			m->reset_of[MEAS_READ_US] == MEAS_IO_RESET_US ? "pg_stat_io.read_time and write_time" :
			"pg_stat_database.blk_read_time and blk_write_time",
			"block reads and writes", timed_rate(m, MEAS_IO_TIMING), -1};
	if (m->wal_io_off && m->missing[MEAS_WAL_WRITE_US] == NULL)
		c[n++] = (measured_cost) {"track_wal_io_timing",
			m->reset_of[MEAS_WAL_WRITE_US] == MEAS_IO_RESET_US ?
			"pg_stat_io.write_time and fsync_time of WAL" :
			"pg_stat_wal.wal_write_time and wal_sync_time",
			"WAL writes and syncs", timed_rate(m, MEAS_WAL_IO_TIMING), -1};
	/* priced as pg_test_timing prices them: two clock reads per timed operation */
	for (int i = 0; i < n; i++)
		if (c[i].rate >= 0 && clock_ns > 0)
			c[i].us_per_s = pgcost_us_per_s(c[i].rate, clock_ns);
	return n;
}

/* The settings that are off, priced: the clock is read for a while only when one is. */
static int
priced_costs(const measured_run *m, measured_cost *c, double *clock_ns)
{
	*clock_ns = -1;
	if (costs(m, -1, c) > 0)
		*clock_ns = clock_read_ns();
	return costs(m, *clock_ns, c);
}

/* "N.NNN ms" of a measured average per operation. */
static void
text_per_op(FILE *out, const measured_pair *p, const measured_fig *f)
{
	if (!f->has_count)
		return;
	fprintf(out, " in %" PRId64 " %s", f->count, p->count_word);
	if (f->count > 0)
		fprintf(out, ", %.3f ms each", f->measured_s * 1e3 / (double) f->count);
}

/* The reset columns and their views, in the order the report names them. */
static const struct
{
	int			col;
	const char *view;
	const char *json;
}			resets[] = {
	{MEAS_DB_RESET_US, "pg_stat_database", "reset_pg_stat_database"},
	{MEAS_WAL_RESET_US, "pg_stat_wal", "reset_pg_stat_wal"},
	{MEAS_IO_RESET_US, "pg_stat_io", "reset_pg_stat_io"},
	{MEAS_LOCK_RESET_US, "pg_stat_lock", "reset_pg_stat_lock"},
};

#define NRESETS ((int) (sizeof(resets) / sizeof(resets[0])))

/* One figure's line, and its disagreement with what usually explains it. */
static void
text_figure(FILE *out, const measured_run *m, const measured_pair *p, double period_s)
{
	measured_fig f;

	figure(m, p, period_s, &f);
	fprintf(out, "  %s: ", p->what);
	if (f.missing != NULL)
		fprintf(out, "measured: none (%s);", f.missing);
	else
	{
		fprintf(out, "measured %.3f s", f.measured_s);
		text_per_op(out, p, &f);
		fprintf(out, " (%s)", m->by[p->kind]);
		if (f.own_s > 0)
			fprintf(out, ", less %.3f s of this sampler's own statements (its backend's CPU"
					" time)", f.own_s);
		else if (f.own_in)
			fputs(", with this sampler's own statements (its backend's CPU time is not known"
				  " here)", out);
		if (f.out_s > 0)
			fprintf(out, ", %.3f s of it by processes the sampling leaves out", f.out_s);
		fputc(';', out);
	}
	fprintf(out, " sampled %.3f ± %.3f s (%s)", f.sampled_s, f.bound_s, p->sampled_by);
	if (f.missing == NULL && !f.compared)
		fputs(p->kind == MEAS_KIND_ACTIVE && m->run.no_state > m->run.samples[MEAS_KIND_ACTIVE] ?
			  ": not compared (the source gives no session states)" :
			  ": not compared (the setting changed during the run)", out);
	else if (f.missing == NULL)
		fputs(f.agree ? ": within the bound" : ": disagree", out);
	fputc('\n', out);
	if (f.missing != NULL || !f.compared || f.agree)
		return;
	fprintf(out, "    disagreement: measured %.3f s lies %s the sampled bound"
			" [%.3f, %.3f] s; what usually explains it:\n", f.measured_s,
			f.measured_s < f.sampled_s ? "below" : "above",
			f.sampled_s - f.bound_s, f.sampled_s + f.bound_s);
	for (int r = 0; r < f.nreasons; r++)
		fprintf(out, "    - %s\n", f.reasons[r]);
}

/* The views reset during the run, and when the first was seen. */
static void
text_resets(FILE *out, const measured_run *m)
{
	const char *names[NRESETS];
	int			n = 0;
	uint64_t	us = 0;
	char		ts[FORMAT_TS_LEN];

	for (int i = 0; i < NRESETS; i++)
		if (m->run.reset[resets[i].col])
		{
			if (n == 0)
				us = m->run.reset_us[resets[i].col];
			names[n++] = resets[i].view;
		}
	if (n == 0)
		return;
	format_ts(ts, (int64_t) us);
	fputs("  counter reset: ", out);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", names[i]);
	fprintf(out, " reset during the run (seen at the read of %s)\n", ts);
}

void
measured_text(FILE *out, const measured_run *m, double period_s)
{
	measured_cost c[2];
	int			nc;
	double		clock_ns = -1;

	if (m->nreads == 0 && m->failed == NULL)
		return;
	fprintf(out, "\nmeasured by the server: ");
	if (m->failed != NULL)
		fprintf(out, "nothing: %s\n", m->failed);
	else
		fprintf(out, "its counters read %d times, %.3f ms a read on average, %.3f ms at most;"
				" sampled: estimates with their 95 %% bound\n", m->nreads,
				m->stmt_ms_sum / m->nreads, m->stmt_ms_max);
	for (int i = 0; i < NPAIRS; i++)
		text_figure(out, m, &pairs[i], period_s);
	text_resets(out, m);
	if (m->io_on && m->io_off)
		fputs("  track_io_timing changed during the run: the block times are not compared\n", out);
	if (m->wal_io_on && m->wal_io_off)
		fputs("  track_wal_io_timing changed during the run: the WAL times are not compared\n",
			  out);
	text_gate(out, m, period_s);
	nc = priced_costs(m, c, &clock_ns);
	for (int i = 0; i < nc; i++)
	{
		fprintf(out, "  %s is off: %s are not measured; turning it on reads the clock twice"
				" per operation", c[i].setting, c[i].leaves_out);
		if (clock_ns > 0)
			fprintf(out, ", %.1f ns a read on this host", clock_ns);
		if (c[i].us_per_s >= 0)
			fprintf(out, ": at the %.1f %s a second of this run, %.1f us of CPU a second"
					" (%.4f %% of one CPU)\n", c[i].rate, c[i].ops, c[i].us_per_s,
					c[i].us_per_s / 1e4);
		else
			fprintf(out, " (the rate of %s is not known)\n", c[i].ops);
	}
}

void
measured_json(json_writer *w, const measured_run *m, double period_s)
{
	measured_cost c[2];
	int			nc;
	double		clock_ns = -1;

	if (m->nreads == 0 && m->failed == NULL)
		return;
	json_key(w, "measured_by_server");
	json_object_begin(w);
	json_kv_string(w, "error", m->failed);
	json_kv_int(w, "reads", m->nreads);
	json_kv_double_or_null(w, "read_ms_avg", m->nreads > 0,
						   m->nreads > 0 ? m->stmt_ms_sum / m->nreads : 0);
	json_kv_double(w, "read_ms_max", m->stmt_ms_max);
	/* the views read on this server (pg_stat_database's and pg_stat_wal's always said) */
	for (int i = 0; i < NRESETS; i++)
		if (i < 2 || (m->sql != NULL && m->missing[resets[i].col] == NULL))
			json_kv_bool(w, resets[i].json, m->run.reset[resets[i].col]);
	json_key(w, "figures");
	json_array_begin(w);
	for (int i = 0; i < NPAIRS; i++)
	{
		const measured_pair *p = &pairs[i];
		measured_fig f;

		figure(m, p, period_s, &f);
		json_object_begin(w);
		json_kv_string(w, "what", p->name);
		json_kv_string(w, "measured_by", m->by[p->kind]);
		json_kv_string(w, "measured_missing", f.missing);
		json_kv_double_or_null(w, "measured_seconds", f.missing == NULL, f.measured_s);
		json_kv_int_or_null(w, "measured_count", f.missing == NULL && f.has_count, f.count);
		json_kv_double_or_null(w, "measured_ms_each", f.missing == NULL && f.has_count &&
							   f.count > 0, f.count > 0 ? f.measured_s * 1e3 / f.count : 0);
		json_kv_double_or_null(w, "measured_own_seconds", !f.own_in, f.own_s);
		if (p->out_col >= 0 && m->sql != NULL && m->missing[p->out_col] == NULL)
			json_kv_double_or_null(w, "measured_out_seconds", f.out_s >= 0, f.out_s);
		json_kv_string(w, "sampled_by", p->sampled_by);
		json_kv_uint(w, "sampled_samples", m->run.samples[p->kind]);
		json_kv_double(w, "sampled_seconds", f.sampled_s);
		json_kv_double(w, "sampled_error_seconds", f.bound_s);
		json_key(w, "agree");
		if (f.missing != NULL || !f.compared)
			json_null(w);
		else
			json_bool(w, f.agree);
		json_key(w, "reasons");
		json_array_begin(w);
		for (int r = 0; r < f.nreasons; r++)
			json_string(w, f.reasons[r]);
		json_array_end(w);
		json_object_end(w);
	}
	json_array_end(w);
	json_gate(w, m, period_s);
	nc = priced_costs(m, c, &clock_ns);
	json_key(w, "timing_off");
	json_array_begin(w);
	for (int i = 0; i < nc; i++)
	{
		json_object_begin(w);
		json_kv_string(w, "setting", c[i].setting);
		json_kv_string(w, "leaves_out", c[i].leaves_out);
		json_kv_double_or_null(w, "clock_read_ns", clock_ns > 0, clock_ns);
		json_kv_double_or_null(w, "operations_per_second", c[i].rate >= 0, c[i].rate);
		json_kv_double_or_null(w, "cpu_us_per_second", c[i].us_per_s >= 0, c[i].us_per_s);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}
