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

#include "pgtempo/clock.h"
#include "pgtempo/gate.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "format.h"
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
	const char *measured_by;
	const char *sampled_by;
	int			reset_col;
} measured_pair;

static const measured_pair pairs[] = {
	{MEAS_KIND_ACTIVE, "active_time", "active time", MEAS_ACTIVE_US, -1, NULL, -1,
	"pg_stat_database.active_time", "sessions in state active", MEAS_DB_RESET_US},
	{MEAS_KIND_READ, "data_file_reads", "data file reads", MEAS_READ_US, MEAS_BLKS_READ, "reads",
		MEAS_IO_TIMING, "pg_stat_database.blk_read_time, blks_read", "IO/DataFileRead",
	MEAS_DB_RESET_US},
	{MEAS_KIND_WRITE, "data_file_writes", "data file writes", MEAS_WRITE_US, -1, NULL,
	MEAS_IO_TIMING, "pg_stat_database.blk_write_time", "IO/DataFileWrite", MEAS_DB_RESET_US},
	{MEAS_KIND_WAL_WRITE, "wal_writes", "WAL writes", MEAS_WAL_WRITE_US, MEAS_WAL_WRITE, "writes",
	MEAS_WAL_IO_TIMING, "pg_stat_wal.wal_write_time, wal_write", "IO/WALWrite", MEAS_WAL_RESET_US},
	{MEAS_KIND_WAL_SYNC, "wal_syncs", "WAL syncs", MEAS_WAL_SYNC_US, MEAS_WAL_SYNC, "syncs",
	MEAS_WAL_IO_TIMING, "pg_stat_wal.wal_sync_time, wal_sync", "IO/WALSync", MEAS_WAL_RESET_US},
};

#define NPAIRS ((int) (sizeof(pairs) / sizeof(pairs[0])))

/* The columns that are settings or flags, not counters: never summed. */
static bool
is_setting(int col)
{
	return col == MEAS_IO_TIMING || col == MEAS_WAL_IO_TIMING || col == MEAS_OWN_DB ||
		col == MEAS_DB_RESET_US || col == MEAS_WAL_RESET_US;
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

void
measured_init(measured_run *m, const waits_settings *s)
{
	memset(m, 0, sizeof(*m));
	m->limits = s->fail_if;
	m->nlimits = s->nfail_if;
	m->period_ns = s->log_interval_ns > 0 ? (uint64_t) s->log_interval_ns :
		MEASURED_DEFAULT_PERIOD_NS;
	if (s->dbs.n > 0)
	{
		strbuf		sb;

		strbuf_init(&sb);
		for (int i = 0; i < s->dbs.n; i++)
		{
			if (i > 0)
				strbuf_puts(&sb, ", ");
			put_literal(&sb, s->dbs.v[i]);
		}
		m->dbs_sql = xstrdup(sb.data);
		strbuf_free(&sb);
	}
}

void
measured_free(measured_run *m)
{
	free(m->sql);
	free(m->dbs_sql);
	free(m->failed);
}

/* A column of the statement: expr, or NULL with the reason the column is missing. */
static void
put_col(measured_run *m, strbuf *sb, int col, const char *expr, const char *missing)
{
	strbuf_puts(sb, col == 0 ? "SELECT " : ",\n  ");
	if (missing != NULL)
		strbuf_puts(sb, "NULL::int8");
	else
		strbuf_printf(sb, "(%s)::int8", expr);
	m->missing[col] = missing;
}

/* The statement for a server of major version m->major, one row of MEAS_NCOLS bigints. */
static void
build_sql(measured_run *m)
{
	strbuf		sb;
	bool		v14 = m->major >= 14;
	const char *wal_missing = !v14 ? "pg_stat_wal needs PostgreSQL 14 or later" :
		m->major >= 18 ? "PostgreSQL 18 moved WAL writes and syncs to pg_stat_io, which is not "
		"read yet" : NULL;
	char	   *own;

	strbuf_init(&sb);
	put_col(m, &sb, MEAS_ACTIVE_US, "sum(d.active_time) * 1000",
			v14 ? NULL : "pg_stat_database.active_time needs PostgreSQL 14 or later");
	put_col(m, &sb, MEAS_BLKS_READ, "sum(d.blks_read)", NULL);
	put_col(m, &sb, MEAS_READ_US, "sum(d.blk_read_time) * 1000", NULL);
	put_col(m, &sb, MEAS_WRITE_US, "sum(d.blk_write_time) * 1000", NULL);
	put_col(m, &sb, MEAS_DB_RESET_US, "extract(epoch FROM max(d.stats_reset)) * 1000000", NULL);
	put_col(m, &sb, MEAS_WAL_WRITE, "SELECT wal_write FROM pg_stat_wal", wal_missing);
	put_col(m, &sb, MEAS_WAL_SYNC, "SELECT wal_sync FROM pg_stat_wal", wal_missing);
	put_col(m, &sb, MEAS_WAL_WRITE_US, "SELECT wal_write_time * 1000 FROM pg_stat_wal",
			wal_missing);
	put_col(m, &sb, MEAS_WAL_SYNC_US, "SELECT wal_sync_time * 1000 FROM pg_stat_wal",
			wal_missing);
	put_col(m, &sb, MEAS_WAL_RESET_US,
			"SELECT extract(epoch FROM stats_reset) * 1000000 FROM pg_stat_wal",
			v14 ? NULL : "pg_stat_wal needs PostgreSQL 14 or later");
	/* 17 took the checkpointer's and the backends' writes out of pg_stat_bgwriter */
	put_col(m, &sb, MEAS_BUF_WRITES, m->major >= 16 ?
			"SELECT sum(writes) FROM pg_stat_io WHERE object = 'relation'" :
			"SELECT buffers_checkpoint + buffers_clean + buffers_backend FROM pg_stat_bgwriter",
			NULL);
	put_col(m, &sb, MEAS_IO_TIMING, "current_setting('track_io_timing')::bool::int", NULL);
	put_col(m, &sb, MEAS_WAL_IO_TIMING, "current_setting('track_wal_io_timing')::bool::int",
			v14 ? NULL : "track_wal_io_timing needs PostgreSQL 14 or later");
	own = xasprintf("(current_database() IN (%s))::int", m->dbs_sql ? m->dbs_sql : "current_database()");
	put_col(m, &sb, MEAS_OWN_DB, own, NULL);
	free(own);
	strbuf_puts(&sb, "\nFROM pg_stat_database d WHERE d.datname IS NOT NULL");
	if (m->dbs_sql != NULL)
		strbuf_printf(&sb, " AND d.datname IN (%s)", m->dbs_sql);
	free(m->sql);
	m->sql = xstrdup(sb.data);
	strbuf_free(&sb);
}

/* A reset of a group of counters between the last read and this one (stats_reset moved). */
static bool
moved(const measured_run *m, const int64_t *v, const bool *null, int col)
{
	return !null[col] && (m->prev_null[col] || v[col] != m->prev[col]);
}

/* Add this read's differences to the sums, noticing resets. */
static void
account(measured_run *m, const int64_t *v, const bool *null, uint64_t now_us)
{
	bool		db_reset = moved(m, v, null, MEAS_DB_RESET_US);
	bool		wal_reset = moved(m, v, null, MEAS_WAL_RESET_US);

	for (int c = 0; c < MEAS_NCOLS; c++)
	{
		bool		wal = c >= MEAS_WAL_WRITE && c <= MEAS_WAL_SYNC_US;
		bool		reset = wal ? wal_reset : c != MEAS_BUF_WRITES && db_reset;
		int64_t		d;

		if (is_setting(c) || null[c] || m->prev_null[c])
			continue;
		d = v[c] - m->prev[c];
		/* after a reset only what came since is known: the counter's value */
		if (reset || d < 0)
		{
			d = v[c];
			if (c != MEAS_BUF_WRITES)
				*(wal ? &m->wal_reset : &m->db_reset) = true;
			if (wal && !m->wal_reset_us)
				m->wal_reset_us = now_us;
			else if (!wal && c != MEAS_BUF_WRITES && !m->db_reset_us)
				m->db_reset_us = now_us;
		}
		m->sum[c] += d;
	}
}

void
measured_read(measured_run *m, sampler *sm)
{
	int64_t		v[MEAS_NCOLS];
	bool		null[MEAS_NCOLS];
	char	   *cause = NULL;
	uint64_t	t0,
				now_us;
	double		ms;

	if (m->failed != NULL || !sampler_connected(sm))
		return;
	if (m->major == 0)
	{
		m->major = atoi(sampler_get_info(sm)->server_version);
		build_sql(m);
	}
	t0 = clock_now_ns();
	if (!sampler_read_int8(sm, m->sql, MEAS_NCOLS, v, null, &cause))
	{
		/* a lost connection is the next sample's to report; the counters wait for the next read */
		if (sampler_connected(sm))
		{
			msg_warning("%s", cause);
			msg_detail("The report shows no figures measured by the server.");
			m->failed = cause;
		}
		else
			free(cause);
		return;
	}
	ms = (double) (clock_now_ns() - t0) / 1e6;
	now_us = clock_wall_us();
	m->stmt_ms_sum += ms;
	if (ms > m->stmt_ms_max)
		m->stmt_ms_max = ms;
	if (m->nreads == 0)
	{
		m->cpu0 = sampler_backend_cpu_s(sm);
		m->first_us = now_us;
		memcpy(m->first, v, sizeof(v));
	}
	else
		account(m, v, null, now_us);
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
measured_due(measured_run *m, sampler *sm, uint64_t now_ns)
{
	if (m->next_ns == 0)
		m->next_ns = now_ns + m->period_ns;
	if (now_ns < m->next_ns)
		return;
	while (m->next_ns <= now_ns)
		m->next_ns += m->period_ns;
	measured_read(m, sm);
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
	m->own_s = m->cpu0 >= 0 && cpu >= m->cpu0 ? cpu - m->cpu0 : -1;
}

void
measured_rows(measured_run *m, const sample_batch *b, bool include_idle)
{
	for (int i = 0; i < b->nrows; i++)
	{
		const sample_row *r = &b->rows[i];

		if (!sample_row_counted(r, include_idle))
			continue;
		/* background processes have no state; sessions without one are an in-server source's */
		if (r->state == NULL)
		{
			if (r->backend_type == NULL || strcmp(r->backend_type, "client backend") == 0)
				m->no_state += r->samples;
		}
		else if (strcmp(r->state, "active") == 0 || strcmp(r->state, "fastpath function call") == 0)
			m->samples[MEAS_KIND_ACTIVE] += r->samples;
		if (r->cls != SAMPLE_WAIT || r->wait_event_type == NULL || r->wait_event == NULL ||
			strcmp(r->wait_event_type, "IO") != 0)
			continue;
		/* pairs[k] is of kind k: its sampled_by is "IO/" and the event */
		for (int k = MEAS_KIND_READ; k < MEAS_NKINDS; k++)
			if (strcmp(r->wait_event, pairs[k].sampled_by + 3) == 0)
				m->samples[k] += r->samples;
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
	const char *reasons[4];
	int			nreasons;
} measured_fig;

/* Work out pair p. */
static void
figure(const measured_run *m, const measured_pair *p, double period_s, measured_fig *f)
{
	uint64_t	k = m->samples[p->kind];
	bool		on = p->setting_col < 0 ||
		(p->setting_col == MEAS_IO_TIMING ? m->io_on : m->wal_io_on);
	bool		off = p->setting_col >= 0 &&
		(p->setting_col == MEAS_IO_TIMING ? m->io_off : m->wal_io_off);

	memset(f, 0, sizeof(*f));
	f->sampled_s = (double) k * period_s;
	f->bound_s = measured_bound_s(k, period_s);
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
		return;
	f->measured_s = (double) m->sum[p->time_col] / 1e6;
	if (p->kind == MEAS_KIND_ACTIVE && m->own_db && m->own_s >= 0)
	{
		f->own_s = m->own_s;
		f->measured_s -= f->own_s;
		if (f->measured_s < 0)
			f->measured_s = 0;
	}
	else if (p->kind == MEAS_KIND_ACTIVE && m->own_db)
		f->own_in = true;
	f->has_count = p->count_col >= 0 && m->missing[p->count_col] == NULL;
	f->count = f->has_count ? m->sum[p->count_col] : 0;
	f->reset = p->reset_col == MEAS_WAL_RESET_US ? m->wal_reset : m->db_reset;
	/* a setting turned on or off during the run leaves part of the time out */
	/* a few rows without a state are sessions starting; most of them, a source without states */
	f->compared = !off && !(p->kind == MEAS_KIND_ACTIVE &&
							m->no_state > m->samples[MEAS_KIND_ACTIVE]);
	if (!f->compared)
		return;
	f->agree = fabs(f->measured_s - f->sampled_s) <= f->bound_s;
	if (f->agree)
		return;
	if (f->reset)
		f->reasons[f->nreasons++] = "the counters were reset during the run (pg_stat_reset(), "
			"pg_stat_reset_shared()): before the reset only the time since it was measured";
	if (f->measured_s < f->sampled_s)
		f->reasons[f->nreasons++] = p->kind == MEAS_KIND_ACTIVE ?
			"the server adds a statement's active time when it ends, and a session sends it at "
			"most once a second, after a statement that touched a table, or when it ends (15: "
			"a session of pg_sleep or SELECT 1 alone sends nothing until it ends): time still "
			"running or not yet sent at the last read was sampled but not yet measured" :
			"a session sends its statistics when its transaction ends, at most once a second: "
			"I/O of transactions still open at the last read was sampled but not yet measured";
	else
	{
		f->reasons[f->nreasons++] = p->kind == MEAS_KIND_ACTIVE ?
			"statements that began before the first read are added whole when they end, and "
			"statistics sent late arrive after the first read" :
			"statistics of I/O before the first read were sent after it";
		f->reasons[f->nreasons++] = p->kind == MEAS_KIND_ACTIVE ?
			"processes the sampling leaves out add to active_time too (other backend types, "
			"parallel workers): --backend-type=all counts them" :
			"I/O by processes the sampling leaves out (checkpointer, background writer, WAL "
			"writer, autovacuum): --backend-type=all counts them";
	}
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
		n = m->sum[MEAS_BLKS_READ] + m->sum[MEAS_BUF_WRITES];
	}
	else
	{
		if (m->missing[MEAS_WAL_WRITE] != NULL)
			return -1;
		n = m->sum[MEAS_WAL_WRITE] + m->sum[MEAS_WAL_SYNC];
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
			"pg_stat_database.blk_read_time and blk_write_time",
			"block reads and writes", timed_rate(m, MEAS_IO_TIMING), -1};
	if (m->wal_io_off && m->missing[MEAS_WAL_WRITE_US] == NULL)
		c[n++] = (measured_cost) {"track_wal_io_timing",
			"pg_stat_wal.wal_write_time and wal_sync_time",
			"WAL writes and syncs", timed_rate(m, MEAS_WAL_IO_TIMING), -1};
	/* each timed operation reads the clock twice, before and after */
	for (int i = 0; i < n; i++)
		if (c[i].rate >= 0 && clock_ns > 0)
			c[i].us_per_s = c[i].rate * 2 * clock_ns / 1e3;
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
	{
		const measured_pair *p = &pairs[i];
		measured_fig f;

		figure(m, p, period_s, &f);
		fprintf(out, "  %s: ", p->what);
		if (f.missing != NULL)
			fprintf(out, "measured: none (%s);", f.missing);
		else
		{
			fprintf(out, "measured %.3f s", f.measured_s);
			text_per_op(out, p, &f);
			fprintf(out, " (%s)", p->measured_by);
			if (f.own_s > 0)
				fprintf(out, ", less %.3f s of this sampler's own statements (its backend's CPU"
						" time)", f.own_s);
			else if (f.own_in)
				fputs(", with this sampler's own statements (its backend's CPU time is not known"
					  " here)", out);
			fputc(';', out);
		}
		fprintf(out, " sampled %.3f ± %.3f s (%s)", f.sampled_s, f.bound_s, p->sampled_by);
		if (f.missing == NULL && !f.compared)
			fputs(p->kind == MEAS_KIND_ACTIVE && m->no_state > m->samples[MEAS_KIND_ACTIVE] ?
				  ": not compared (the source gives no session states)" :
				  ": not compared (the setting changed during the run)", out);
		else if (f.missing == NULL)
			fputs(f.agree ? ": within the bound" : ": disagree", out);
		fputc('\n', out);
		if (f.missing == NULL && f.compared && !f.agree)
		{
			fprintf(out, "    disagreement: measured %.3f s lies %s the sampled bound"
					" [%.3f, %.3f] s; what usually explains it:\n", f.measured_s,
					f.measured_s < f.sampled_s ? "below" : "above",
					f.sampled_s - f.bound_s, f.sampled_s + f.bound_s);
			for (int r = 0; r < f.nreasons; r++)
				fprintf(out, "    - %s\n", f.reasons[r]);
		}
	}
	if (m->db_reset || m->wal_reset)
	{
		char		ts[FORMAT_TS_LEN];

		format_ts(ts, (int64_t) (m->db_reset ? m->db_reset_us : m->wal_reset_us));
		fprintf(out, "  counter reset: %s%s%s reset during the run (seen at the read of %s)\n",
				m->db_reset ? "pg_stat_database" : "", m->db_reset && m->wal_reset ? " and " : "",
				m->wal_reset ? "pg_stat_wal" : "", ts);
	}
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
	json_kv_bool(w, "reset_pg_stat_database", m->db_reset);
	json_kv_bool(w, "reset_pg_stat_wal", m->wal_reset);
	json_key(w, "figures");
	json_array_begin(w);
	for (int i = 0; i < NPAIRS; i++)
	{
		const measured_pair *p = &pairs[i];
		measured_fig f;

		figure(m, p, period_s, &f);
		json_object_begin(w);
		json_kv_string(w, "what", p->name);
		json_kv_string(w, "measured_by", p->measured_by);
		json_kv_string(w, "measured_missing", f.missing);
		json_kv_double_or_null(w, "measured_seconds", f.missing == NULL, f.measured_s);
		json_kv_int_or_null(w, "measured_count", f.missing == NULL && f.has_count, f.count);
		json_kv_double_or_null(w, "measured_ms_each", f.missing == NULL && f.has_count &&
							   f.count > 0, f.count > 0 ? f.measured_s * 1e3 / f.count : 0);
		json_kv_double_or_null(w, "measured_own_seconds", !f.own_in, f.own_s);
		json_kv_string(w, "sampled_by", p->sampled_by);
		json_kv_uint(w, "sampled_samples", m->samples[p->kind]);
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
