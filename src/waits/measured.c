/*
 * measured.c — the server's own measurements beside the sampled
 * estimates (see measured.h): the counters' statement, its reads and
 * spans, and the samples counted against them.
 */
#include "config.h"

#include "measured_int.h"

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

const measured_pair measured_pairs[MEASURED_NPAIRS] = {
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
		m->by[k] = measured_pairs[k].measured_by;
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
			if (row_is(r, &measured_pairs[k]))
				count(m, k, r->samples, bg);
	}
}
