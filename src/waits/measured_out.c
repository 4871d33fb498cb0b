/*
 * measured_out.c — the measured figures in the report (text and
 * JSON), with what a timing setting that is off would cost.
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
#include "pgcost.h"
#include "timing.h"

/* How long the clock is read to price a timing setting. */
#define MEASURED_CLOCK_NS	(100 * NS_PER_MS)

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

	measured_figure(m, p, period_s, &f);
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
	if (f.missing == NULL && !f.compared && m->run.logged)
		fputs(": not compared (in a span of the logs)", out);
	else if (f.missing == NULL && !f.compared)
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

	if (m->nreads == 0 && m->failed == NULL && m->log_spans == 0)
		return;
	fprintf(out, "\nmeasured by the server: ");
	if (m->log_spans > 0)
		fprintf(out, "spans of the logs summed: %d in the window, %d across its edge left out;"
				" sampled: the spans' estimates summed, the 95 %% bound from their samples\n",
				m->log_spans, m->log_spans_out);
	else if (m->failed != NULL)
		fprintf(out, "nothing: %s\n", m->failed);
	else
		fprintf(out, "its counters read %d times, %.3f ms a read on average, %.3f ms at most;"
				" sampled: estimates with their 95 %% bound\n", m->nreads,
				m->stmt_ms_sum / m->nreads, m->stmt_ms_max);
	for (int i = 0; i < MEASURED_NPAIRS; i++)
		text_figure(out, m, &measured_pairs[i], period_s);
	text_resets(out, m);
	if (m->io_on && m->io_off)
		fputs("  track_io_timing changed during the run: the block times are not compared\n", out);
	if (m->wal_io_on && m->wal_io_off)
		fputs("  track_wal_io_timing changed during the run: the WAL times are not compared\n",
			  out);
	measured_text_gate(out, m, period_s);
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

/* The live run's reads and the views reset in it. */
static void
json_reads(json_writer *w, const measured_run *m)
{
	json_kv_int(w, "reads", m->nreads);
	json_kv_double_or_null(w, "read_ms_avg", m->nreads > 0,
						   m->nreads > 0 ? m->stmt_ms_sum / m->nreads : 0);
	json_kv_double(w, "read_ms_max", m->stmt_ms_max);
	/* the views read on this server (pg_stat_database's and pg_stat_wal's always said) */
	for (int i = 0; i < NRESETS; i++)
		if (i < 2 || (m->sql != NULL && m->missing[resets[i].col] == NULL))
			json_kv_bool(w, resets[i].json, m->run.reset[resets[i].col]);
}

void
measured_json(json_writer *w, const measured_run *m, double period_s)
{
	measured_cost c[2];
	int			nc;
	double		clock_ns = -1;

	if (m->nreads == 0 && m->failed == NULL && m->log_spans == 0)
		return;
	json_key(w, "measured_by_server");
	json_object_begin(w);
	json_kv_string(w, "error", m->failed);
	if (m->log_spans > 0)
	{
		/* the logs say no reads nor resets: the spans summed and left out instead */
		json_kv_int(w, "log_spans", m->log_spans);
		json_kv_int(w, "log_spans_left_out", m->log_spans_out);
	}
	else
		json_reads(w, m);
	json_key(w, "figures");
	json_array_begin(w);
	for (int i = 0; i < MEASURED_NPAIRS; i++)
	{
		const measured_pair *p = &measured_pairs[i];
		measured_fig f;

		measured_figure(m, p, period_s, &f);
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
	measured_json_gate(w, m, period_s);
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
