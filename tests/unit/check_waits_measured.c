/*
 * check_waits_measured.c — the server's own counters beside the sampled
 * estimates: which rows count for which figure, the bound, and the
 * report's lines for agreement, disagreement with its reasons, a reset, a
 * setting that is off and a column the server does not have.
 */
#include "config.h"

#include "measured_int.h"
#include "options.h"

#include <stdlib.h>
#include <string.h>

#include "unit.h"

/* A row of a sample. */
static void
add_row(sample_batch *b, const char *btype, const char *state, sample_class cls,
		const char *type, const char *event)
{
	sample_row *r = sample_batch_add(b);

	r->backend_type = btype;
	r->state = state;
	r->cls = cls;
	r->wait_event_type = type;
	r->wait_event = event;
	r->samples = 1;
}

START_TEST(rows_counted)
{
	waits_settings s = WAITS_SETTINGS_INIT;
	measured_run m;
	sample_batch b;

	measured_init(&m, &s);
	sample_batch_init(&b);
	add_row(&b, "client backend", "active", SAMPLE_CPU, "CPU", "CPU");
	add_row(&b, "client backend", "active", SAMPLE_WAIT, "IO", "DataFileRead");
	add_row(&b, "client backend", "fastpath function call", SAMPLE_WAIT, "IO", "WALSync");
	add_row(&b, "client backend", "idle in transaction", SAMPLE_WAIT, "Client", "ClientRead");
	add_row(&b, "client backend", "idle", SAMPLE_IDLE, "Client", "ClientRead");
	/* a background process has no state: not a session, its I/O counts all the same */
	add_row(&b, "checkpointer", NULL, SAMPLE_WAIT, "IO", "DataFileWrite");
	add_row(&b, "walwriter", NULL, SAMPLE_WAIT, "IO", "WALWrite");
	add_row(&b, "client backend", "active", SAMPLE_WAIT, "LWLock", "WALWrite");
	/* 17's names of the same events */
	add_row(&b, "client backend", "active", SAMPLE_WAIT, "IO", "WalSync");
	add_row(&b, "client backend", "active", SAMPLE_WAIT, "Lock", "transactionid");
	measured_rows(&m, &b, false);
	ck_assert_uint_eq(m.run.samples[MEAS_KIND_ACTIVE], 6);
	ck_assert_uint_eq(m.run.samples[MEAS_KIND_READ], 1);
	ck_assert_uint_eq(m.run.samples[MEAS_KIND_WRITE], 1);
	ck_assert_uint_eq(m.run.samples[MEAS_KIND_WAL_WRITE], 1);
	ck_assert_uint_eq(m.run.samples[MEAS_KIND_WAL_SYNC], 2);
	ck_assert_uint_eq(m.run.samples[MEAS_KIND_LOCK], 1);
	/* the checkpointer's: a background process's, counted apart too */
	ck_assert_uint_eq(m.run.bg_samples[MEAS_KIND_WRITE], 1);
	ck_assert_uint_eq(m.run.ticks, 1);
	ck_assert_uint_eq(m.run.no_state, 0);
	/* a session without a state: an in-server source's */
	sample_batch_reset(&b, 0);
	add_row(&b, "client backend", NULL, SAMPLE_CPU, "CPU", "CPU");
	measured_rows(&m, &b, false);
	ck_assert_uint_eq(m.run.no_state, 1);
	sample_batch_free(&b);
	measured_free(&m);
}
END_TEST

/* A session starting has no state yet: one such row does not stop the comparison, most do. */
START_TEST(stateless_rows)
{
	static const struct
	{
		uint64_t	active;
		uint64_t	no_state;
		bool		compared;
	}			cases[] = {
		{600, 1, true}, {600, 600, true}, {0, 600, false}, {100, 600, false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		waits_settings s = WAITS_SETTINGS_INIT;
		measured_run m;
		char	   *buf = NULL;
		size_t		len = 0;
		FILE	   *f;

		measured_init(&m, &s);
		m.nreads = 2;
		m.io_on = m.wal_io_on = true;
		m.run.own_s = -1;
		m.run.samples[MEAS_KIND_ACTIVE] = cases[i].active;
		m.run.no_state = cases[i].no_state;
		f = open_memstream(&buf, &len);
		measured_text(f, &m, 0.01);
		fclose(f);
		ck_assert_msg((strstr(buf, "not compared (the source gives no session states)") == NULL) ==
					  cases[i].compared, "case %zu: %s", i, buf);
		free(buf);
		measured_free(&m);
	}
}
END_TEST

START_TEST(bound)
{
	/* none seen still allows 3 samples */
	ck_assert_double_eq_tol(measured_bound_s(0, 0.01), 0.03, 1e-12);
	ck_assert_double_eq_tol(measured_bound_s(100, 0.01), 0.01 * (19.6 + 3), 1e-12);
}
END_TEST

/* A run read twice: 600 active samples of 10 ms, active_time us measured. */
static void
two_reads(measured_run *m, int64_t active_us)
{
	waits_settings s = WAITS_SETTINGS_INIT;

	measured_init(m, &s);
	m->nreads = 2;
	m->first_us = 1000000;
	m->last_us = 11000000;
	m->io_on = m->wal_io_on = true;
	m->run.own_s = -1;
	m->run.samples[MEAS_KIND_ACTIVE] = 600;
	m->run.sum[MEAS_ACTIVE_US] = active_us;
	m->run.sum[MEAS_BLKS_READ] = 1000;
	m->run.sum[MEAS_READ_US] = 20000;
}

/* The text section of m at 10 ms a sample. */
static char *
text_of(const measured_run *m)
{
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *f = open_memstream(&buf, &len);

	measured_text(f, m, 0.01);
	fclose(f);
	return buf;
}

START_TEST(agree_and_disagree)
{
	static const struct
	{
		int64_t		active_us;
		bool		reset;
		const char *want;
	}			cases[] = {
		/* 6 s sampled, bound 0.01 * (1.96 * sqrt(600) + 3) = 0.510 s */
		{6300000, false, "  active time: measured 6.300 s (pg_stat_database.active_time); "
		"sampled 6.000 ± 0.510 s (sessions in state active): within the bound\n"},
		{6600000, false, "    disagreement: measured 6.600 s lies above the sampled bound "
		"[5.490, 6.510] s; what usually explains it:\n"
		"    - statements that began before the first read"},
		{2000000, true, "    disagreement: measured 2.000 s lies below the sampled bound "
		"[5.490, 6.510] s; what usually explains it:\n"
		"    - the counters were reset during the run"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		measured_run m;
		char	   *t;

		two_reads(&m, cases[i].active_us);
		m.run.reset[MEAS_DB_RESET_US] = cases[i].reset;
		m.run.reset_us[MEAS_DB_RESET_US] = 5000000;
		t = text_of(&m);
		ck_assert_msg(strstr(t, cases[i].want) != NULL, "case %zu: %s", i, t);
		ck_assert_msg(strstr(t, "  data file reads: measured 0.020 s in 1000 reads, 0.020 ms each")
					  != NULL, "%s", t);
		ck_assert((strstr(t, "  counter reset: pg_stat_database reset during the run") != NULL) ==
				  cases[i].reset);
		free(t);
		measured_free(&m);
	}
}
END_TEST

/* --fail-if's disagreement limits against the figures of two_reads: sampled 6.000 ± 0.510 s. */
START_TEST(gate)
{
	static const struct
	{
		int64_t		active_us;
		const char *list;
		int			tripped;
		const char *line;		/* of the report, or NULL */
	}			cases[] = {
		{6300000, "disagree", 0, "  --fail-if=disagree: not shown beyond the limit\n"},
		{6600000, "disagree", 1, "  --fail-if=disagree: the change is beyond the limit: active time\n"},
		{6600000, "disagree:active_time:+0.5s", 0, NULL},
		{6600000, "disagree:+50ms", 1, NULL},
		{6600000, "disagree<0", 0, NULL},
		{6600000, "disagree:wal_syncs,disagree:active_time", 1,
		"  --fail-if=disagree:wal_syncs: not shown beyond the limit\n"},
		{2000000, "disagree:-1s,disagree:active_time>0", 1, NULL},
		{2000000, "disagree:active_time:-50%", 1, NULL},
		{2000000, "disagree:active_time:-70%", 0, NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		waits_settings s = WAITS_SETTINGS_INIT;
		measured_run m;
		char	   *cause = NULL;
		char	   *t;

		ck_assert_msg(options_parse_fail_if(cases[i].list, &s, &cause), "%s", cause);
		two_reads(&m, cases[i].active_us);
		m.limits = s.fail_if;
		m.nlimits = s.nfail_if;
		ck_assert_msg(measured_tripped(&m, 0.01) == cases[i].tripped, "case %zu", i);
		t = text_of(&m);
		if (cases[i].line != NULL)
			ck_assert_msg(strstr(t, cases[i].line) != NULL, "case %zu: %s", i, t);
		free(t);
		measured_free(&m);
	}
	/* a figure not measured is not checked: nothing trips */
	{
		waits_settings s = WAITS_SETTINGS_INIT;
		measured_run m;
		char	   *cause = NULL;
		char	   *t;

		ck_assert(options_parse_fail_if("disagree:data_file_reads", &s, &cause));
		two_reads(&m, 2000000);
		m.io_on = false;
		m.io_off = true;
		m.limits = s.fail_if;
		m.nlimits = s.nfail_if;
		ck_assert_int_eq(measured_tripped(&m, 0.01), 0);
		t = text_of(&m);
		ck_assert_msg(strstr(t, "  --fail-if=disagree:data_file_reads: not checked (no figure it "
							 "names was compared)\n") != NULL, "%s", t);
		free(t);
		measured_free(&m);
	}
}
END_TEST

/* A span's records: each side named, a sample standing for the span over its ticks. */
START_TEST(span_records)
{
	measured_run m;
	format_measured_rec recs[MEASURED_NFIGS];
	int			n;

	two_reads(&m, 0);
	/* 2 s between the reads, 100 ticks: 20 ms a sample, whatever the period given */
	m.last.start_us = 1000000;
	m.last.end_us = 3000000;
	m.last.ticks = 100;
	m.last.samples[MEAS_KIND_ACTIVE] = 150;
	m.last.sum[MEAS_ACTIVE_US] = 2900000;
	m.last.own_s = -1;
	n = measured_last(&m, 0.01, true, recs);
	ck_assert_int_eq(n, MEASURED_NFIGS);
	ck_assert_str_eq(recs[MEAS_KIND_ACTIVE].figure, "active_time");
	ck_assert_str_eq(recs[MEAS_KIND_ACTIVE].measured_by, "pg_stat_database.active_time");
	ck_assert_str_eq(recs[MEAS_KIND_ACTIVE].sampled_by, "sessions in state active");
	ck_assert_double_eq_tol(recs[MEAS_KIND_ACTIVE].sampled_seconds, 3.0, 1e-9);
	ck_assert_double_eq_tol(recs[MEAS_KIND_ACTIVE].measured_seconds, 2.9, 1e-9);
	ck_assert_str_eq(recs[MEAS_KIND_ACTIVE].verdict, "agree");
	ck_assert_int_eq(recs[MEAS_KIND_ACTIVE].start_us, 1000000);
	/* a reset in the span: its reason first */
	m.last.sum[MEAS_ACTIVE_US] = 500000;
	m.last.reset[MEAS_DB_RESET_US] = true;
	measured_last(&m, 0.01, true, recs);
	ck_assert_str_eq(recs[MEAS_KIND_ACTIVE].verdict, "disagree");
	ck_assert_msg(strstr(recs[MEAS_KIND_ACTIVE].reason, "reset during the run") != NULL, "%s",
				  recs[MEAS_KIND_ACTIVE].reason);
	/* a setting off: no measured side, no verdict */
	m.io_on = false;
	m.io_off = true;
	measured_last(&m, 0.01, true, recs);
	ck_assert_str_eq(recs[MEAS_KIND_READ].measured_missing, "track_io_timing is off");
	ck_assert(recs[MEAS_KIND_READ].measured_seconds < 0 && recs[MEAS_KIND_READ].verdict == NULL);
	/* an in-server source: its samples of its own period, whatever our ticks */
	m.last.sum[MEAS_ACTIVE_US] = 1500000;
	m.last.reset[MEAS_DB_RESET_US] = false;
	measured_last(&m, 0.01, false, recs);
	ck_assert_double_eq_tol(recs[MEAS_KIND_ACTIVE].sampled_seconds, 1.5, 1e-9);
	ck_assert_str_eq(recs[MEAS_KIND_ACTIVE].verdict, "agree");
	/* read once: no span */
	m.nreads = 1;
	ck_assert_int_eq(measured_last(&m, 0.01, true, recs), 0);
	measured_free(&m);
}
END_TEST

START_TEST(setting_off_and_missing)
{
	measured_run m;
	char	   *t;

	two_reads(&m, 6000000);
	m.io_on = false;
	m.io_off = true;
	m.run.sum[MEAS_BUF_WRITES] = 200;
	m.missing[MEAS_WAL_WRITE_US] = m.missing[MEAS_WAL_SYNC_US] =
		m.missing[MEAS_WAL_WRITE] = m.missing[MEAS_WAL_SYNC] = "pg_stat_wal needs PostgreSQL 14 or later";
	t = text_of(&m);
	ck_assert_msg(strstr(t, "  data file reads: measured: none (track_io_timing is off); sampled "
						 "0.000 ± 0.030 s (IO/DataFileRead)\n") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "  WAL syncs: measured: none (pg_stat_wal needs PostgreSQL 14 or later)")
				  != NULL, "%s", t);
	/* 1,200 block I/Os in 10 s: 120 a second, two clock reads each */
	ck_assert_msg(strstr(t, "  track_io_timing is off: pg_stat_database.blk_read_time and "
						 "blk_write_time are not measured; turning it on reads the clock twice "
						 "per operation, ") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "at the 120.0 block reads and writes a second of this run") != NULL,
				  "%s", t);
	ck_assert(strstr(t, "track_wal_io_timing") == NULL);
	free(t);
	measured_free(&m);
}
END_TEST

/* A log's measured record of one figure. */
static format_measured_rec
logged(const char *figure, int64_t start_us, double measured_s, int64_t count, int64_t samples,
	   double sampled_s, const char *missing)
{
	format_measured_rec r = {start_us, start_us + 1000000, figure, "by the server", missing,
	measured_s, count, "by the samples", samples, sampled_s, 0, "agree", NULL};

	return r;
}

/* The logs' records summed per figure (--from-log): the figures and the report's section. */
START_TEST(logged_spans)
{
	waits_settings s = WAITS_SETTINGS_INIT;
	measured_run m;
	format_measured_rec r;
	measured_fig f;
	char		want[200];
	char	   *t;

	measured_init(&m, &s);
	r = logged("active_time", 1000000, 1.234567, -1, 100, 1.2, NULL);
	ck_assert_int_eq(measured_add_logged(&m, &r), MEAS_KIND_ACTIVE);
	r = logged("active_time", 2000000, 0.765433, -1, 50, 0.9, NULL);
	measured_add_logged(&m, &r);
	r = logged("wal_syncs", 1000000, 0.5, 10, 3, 0.03, NULL);
	ck_assert_int_eq(measured_add_logged(&m, &r), MEAS_KIND_WAL_SYNC);
	r = logged("wal_syncs", 2000000, 0.25, 5, 2, 0.025, NULL);
	r.verdict = "disagree";
	measured_add_logged(&m, &r);
	/* missing in one span: missing in the sum, with the record's reason */
	r = logged("data_file_reads", 1000000, 0.1, 4, 0, 0, NULL);
	measured_add_logged(&m, &r);
	r = logged("data_file_reads", 2000000, -1, -1, 0, 0, "track_io_timing is off");
	measured_add_logged(&m, &r);
	r = logged("no_such_figure", 1000000, 1, -1, 1, 1, NULL);
	ck_assert_int_eq(measured_add_logged(&m, &r), -1);
	m.log_spans = 2;
	measured_figure(&m, &measured_pairs[MEAS_KIND_ACTIVE], 0.01, &f);
	ck_assert(f.missing == NULL && f.compared && f.agree);
	/* the measured seconds to the microsecond, the sampled ones the records' */
	ck_assert_double_eq_tol(f.measured_s, 2.0, 1e-12);
	ck_assert_double_eq_tol(f.sampled_s, 2.1, 1e-12);
	ck_assert_double_eq_tol(f.bound_s, measured_bound_s(150, 2.1 / 150), 1e-12);
	measured_figure(&m, &measured_pairs[MEAS_KIND_WAL_SYNC], 0.01, &f);
	ck_assert(f.has_count && f.count == 15);
	ck_assert_double_eq_tol(f.measured_s, 0.75, 1e-12);
	ck_assert_double_eq_tol(f.bound_s, measured_bound_s(5, 0.055 / 5), 1e-12);
	/* summed, 0.75 s lies beyond 0.055 ± 0.08 s */
	ck_assert(f.compared && !f.agree && f.nreasons > 0);
	measured_figure(&m, &measured_pairs[MEAS_KIND_READ], 0.01, &f);
	ck_assert_str_eq(f.missing, "track_io_timing is off");
	t = text_of(&m);
	ck_assert_msg(strstr(t, "\nmeasured by the server: spans of the logs summed: 2 in the window, "
						 "0 across its edge left out;") != NULL, "%s", t);
	snprintf(want, sizeof(want), "  active time: measured 2.000 s (by the server); sampled 2.100 "
			 "± %.3f s (sessions in state active): within the bound\n", measured_bound_s(150, 0.014));
	ck_assert_msg(strstr(t, want) != NULL, "%s", t);
	ck_assert_msg(strstr(t, "  WAL syncs: measured 0.750 s in 15 syncs, 50.000 ms each (by the "
						 "server); sampled 0.055 ± ") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "    disagreement: measured 0.750 s lies above") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "  data file reads: measured: none (track_io_timing is off)") != NULL,
				  "%s", t);
	/* a figure the logs hold no record of */
	ck_assert_msg(strstr(t, "  lock waits: measured: none (not in the logs); sampled 0.000 ± "
						 "0.030 s (Lock)\n") != NULL, "%s", t);
	/* no reads, resets nor costs of this host: the logs do not say */
	ck_assert(strstr(t, "counters read") == NULL && strstr(t, "counter reset") == NULL &&
			  strstr(t, "is off: ") == NULL);
	free(t);
	measured_free(&m);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_measured");
	TCase	   *tc = tcase_create("measured");

	tcase_add_test(tc, rows_counted);
	tcase_add_test(tc, stateless_rows);
	tcase_add_test(tc, bound);
	tcase_add_test(tc, agree_and_disagree);
	tcase_add_test(tc, setting_off_and_missing);
	tcase_add_test(tc, gate);
	tcase_add_test(tc, span_records);
	tcase_add_test(tc, logged_spans);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
