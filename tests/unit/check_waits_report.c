/*
 * check_waits_report.c — the text report of pgtempo-waits from fixed
 * data: the grouped table with its sub-lines, the measured-waits table,
 * pinned byte for byte; and server text with control characters or bytes
 * that are not UTF-8, which must not reach the terminal raw.
 */
#include "config.h"

#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strpool.h"
#include "unit.h"

static strpool pool;
static sample_batch batch;
static wprof prof;
static uint64_t measured_us;	/* measured wait time each row adds (pg_stat_wait) */
static const char *lock_desc = "Waiting to acquire a lock on a row.";

static void
setup(void)
{
	strpool_init(&pool);
	sample_batch_init(&batch);
	sample_batch_reset(&batch, 1000000);
	wprof_init(&prof, false);
	lock_desc = "Waiting to acquire a lock on a row.";
}

static void
teardown(void)
{
	wprof_free(&prof);
	sample_batch_free(&batch);
	strpool_free(&pool);
}

/* One row of a sample: a session in a state and wait, blocked by blocker (0: none). */
static sample_row *
add_session(int32_t pid, const char *app, const char *state, const char *type,
			const char *event, int32_t blocker)
{
	sample_row *r = sample_batch_add(&batch);

	r->pid = pid;
	r->backend_start_us = 1000000 * (int64_t) pid;
	r->backend_type = strpool_intern(&pool, "client backend");
	r->datname = strpool_intern(&pool, "bench");
	r->usename = strpool_intern(&pool, "alice");
	r->application_name = strpool_intern(&pool, app);
	r->state = strpool_intern(&pool, state);
	if (blocker != 0)
		sample_batch_add_blocker(&batch, blocker);
	sample_finish_row(r, &pool, 170000, type, event, false);
	return r;
}

/* Count n samples of one backend in one wait, as the sampler would. */
static void
add(int n, int32_t pid, const char *app, const char *type, const char *event,
	int64_t query_id, const char *query, int32_t blocker)
{
	for (int i = 0; i < n; i++)
	{
		sample_row *r = add_session(pid, app, "active", type, event, blocker);

		r->query_id = query_id;
		r->query = query;
		r->measured_us = measured_us;
		r->measured_count = measured_us > 0;
		wprof_add(&prof, &batch, r);
	}
}

static const char *
describe(const void *arg, const char *type, const char *event)
{
	(void) arg;
	(void) event;
	return strcmp(type, "Lock") == 0 ? lock_desc : NULL;
}

/* The report of the profile built so far, grouped by dims (caller frees). */
static char *
render(const wprof_dim *dims, int ndims)
{
	static const sample_health h = {
		.samples = 100, .elapsed_s = 1.0, .rate_hz = 100, .p50_ms = 0.1, .p99_ms = 0.2,
		.max_ms = 0.3, .cpu_us_per_sample = -1, .backend_cpu_us_per_sample = -1,
	};
	waits_settings s = WAITS_SETTINGS_INIT;
	report_info ri = {
		.s = &s, .health = &h, .p = &prof,
		.src = {.server = "localhost:5432", .server_version = "17.2",
			.source = "pg_stat_activity", .interval_s = 0.01, .period_s = 0.01,
		.describe = describe},
	};
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(out);
	memcpy(s.by, dims, sizeof(*dims) * (size_t) ndims);
	s.nby = ndims;
	for (int i = 0; i < 100; i++)
		wprof_tick(&prof, 1000000 + 10000 * (uint64_t) i);
	report_text(out, &ri);
	fclose(out);
	return buf;
}

/* A run with lock waits, query ids and measured durations. */
static void
fill(void)
{
	add(40, 101, "app", "Lock", "transactionid", 7, "UPDATE t\n\tSET v = v + 1", 102);
	add(25, 102, "app", "IO", "DataFileRead", 8, "SELECT 1", 0);
	add(5, 103, "psql", "LWLock", "WALWrite", 0, NULL, 0);
	add(30, 104, "psql", NULL, NULL, 9, NULL, 0);
	wprof_add_duration(&prof, "Lock", "transactionid", 1500);
	wprof_add_duration(&prof, "Lock", "transactionid", 250000);
	wprof_add_duration(&prof, "IO", "DataFileRead", 120);
}

/* The measured-waits table that ends both reports of fill(). */
#define WANT_MEASURED_WAITS \
	"\n" \
	"measured waits (pg_stat_wait_history): 3\n" \
	"wait_event_type  wait_event        waits     total s     p50 ms     p90 ms     p99 ms     max ms\n" \
	"---------------  -------------  --------  ----------  ---------  ---------  ---------  ---------\n" \
	"Lock             transactionid         2       0.252      1.500    250.000    250.000    250.000\n" \
	"IO               DataFileRead          1       0.000      0.120      0.120      0.120      0.120\n"

/* The report of fill() by event, as the hand-written printf layout gave it. */
static const char want_by_event[] =
		"source: pg_stat_activity on PostgreSQL 17.2 (localhost:5432), interval 10 ms\n"
		"sampling: 100 samples in 1.00 s (100.00/s), 0 missed ticks, 0 failed; sample query latency p50 0.100 ms, p99 0.200 ms, max 0.300 ms\n"
		"counted: every backend type; idle backends and Activity waits excluded, idle in transaction as Client/ClientRead\n"
		"active backend samples: 100, 1.00 active sessions on average (idle backends excluded)\n"
		"\n"
		"wait_event_type  wait_event     samples  % active   est. seconds\n"
		"---------------  -------------  -------  --------  -------------\n"
		"Lock             transactionid       40     40.00  0.400 ± 0.096\n"
		"                 Waiting to acquire a lock on a row.\n"
		"                 blocked by pid 102: 40 samples (100.0 %)\n"
		"                 no blocker seen: 0 samples (0.0 % of the lock waits; it had gone when the blockers were read)\n"
		"                 query_id 7: 40 samples (100.0 %)  UPDATE t  SET v = v + 1\n"
		"CPU              CPU                 30     30.00  0.300 ± 0.090\n"
		"                 query_id 9: 30 samples (100.0 %)\n"
		"IO               DataFileRead        25     25.00  0.250 ± 0.085\n"
		"                 query_id 8: 25 samples (100.0 %)  SELECT 1\n"
		"LWLock           WALWrite             5      5.00  0.050 ± 0.043\n"
		WANT_MEASURED_WAITS;

/* The same run by application, pid and query id, with measured columns. */
static const char want_by_app[] =
		"source: pg_stat_activity on PostgreSQL 17.2 (localhost:5432), interval 10 ms\n"
		"sampling: 100 samples in 1.00 s (100.00/s), 0 missed ticks, 0 failed; sample query latency p50 0.100 ms, p99 0.200 ms, max 0.300 ms\n"
		"counted: every backend type; idle backends and Activity waits excluded, idle in transaction as Client/ClientRead\n"
		"active backend samples: 100, 1.00 active sessions on average (idle backends excluded)\n"
		"measured: 0.123 s of waits in 100 waits (pg_stat_wait_profile)\n"
		"\n"
		"application_name  pid  query_id  samples  % active   est. seconds    measured s       waits\n"
		"----------------  ---  --------  -------  --------  -------------  ------------  ----------\n"
		"app               101  7              40     40.00  0.400 ± 0.096         0.049          40\n"
		"                  blocked by pid 102: 40 samples (100.0 %)\n"
		"                  no blocker seen: 0 samples (0.0 % of the lock waits; it had gone when the blockers were read)\n"
		"psql              104  9              30     30.00  0.300 ± 0.090         0.037          30\n"
		"app               102  8              25     25.00  0.250 ± 0.085         0.031          25\n"
		"psql              103                  5      5.00  0.050 ± 0.043         0.006           5\n"
		WANT_MEASURED_WAITS;

/* hostile_text: escaped in place, aligned by terminal columns, the query cut before the "\xc3\xa9". */
static const char want_hostile[] =
	"source: pg_stat_activity on PostgreSQL 17.2 (localhost:5432), interval 10 ms\n"
	"sampling: 100 samples in 1.00 s (100.00/s), 0 missed ticks, 0 failed; sample query latency p50 0.100 ms, p99 0.200 ms, max 0.300 ms\n"
	"counted: every backend type; idle backends and Activity waits excluded, idle in transaction as Client/ClientRead\n"
	"active backend samples: 6, 0.06 active sessions on average (idle backends excluded)\n"
	"\n"
	"application_name  wait_event_type  wait_event    samples  % active   est. seconds\n"
	"----------------  ---------------  ------------  -------  --------  -------------\n"
	"evil\\napp\\x1b[2J  Lock             tuple               3     50.00  0.030 \xc2\xb1 0.024\n"
	"                  Waiting \\x1b]0;owned\\x07for a lock.\n"
	"                  no blocker seen: 3 samples (100.0 % of the lock waits; it had gone when the blockers were read)\n"
	"                  query_id 11: 3 samples (100.0 %)  SELECT '\\x1b[31mred'\n"
	"\xe6\x97\xa5\xe6\x9c\xac              IO               Data\\xffRead        2     33.33  0.020 \xc2\xb1 0.023\n"
	"caf\xc3\xa9              IPC              BufferIO            1     16.67  0.010 \xc2\xb1 0.018\n"
	"                  query_id 12: 1 sample (100.0 %)  SELECT 12345678901234567890123456789012345678901234567890123456789012345678901 \n";

/*
 * The head blockers of one sample: 201 idle in its transaction heads
 * 202 and 203 (through 202), 299 has no row and heads 204, 206's row is
 * hidden and it heads 205.  N = 5 backend samples (the hidden row is not
 * one): 201's 2 stand for 0.020 s ± 1.96 × 0.01 × sqrt(2 × (1 − 2/5)),
 * 206's and 299's 1 for 0.010 s ± 0.018 (ties by pid).  Chains at 0.010 s
 * each, ties in text order; a control character in a frame is \xNN, as
 * in every folded stack (utf8_append_frame).
 */
static const char want_heads[] =
	"\nhead blockers: 0.040 s of blocked backend time (directly and through chains)\n"
	"  pid 201 (started 1970-01-01T00:03:21.000000Z): 0.020 \xc2\xb1 0.021 s blocked, 0.010 s directly\n"
	"      alice@bench, batch\\x1b, idle in transaction, Client/ClientRead, xact 4.0 s\n"
	"      query: UPDATE t SET v = 1\n"
	"  pid 206: 0.010 \xc2\xb1 0.018 s blocked, 0.010 s directly\n"
	"      hidden (insufficient privilege)\n"
	"  pid 299: 0.010 \xc2\xb1 0.018 s blocked, 0.010 s directly\n"
	"      not in the samples (filtered out, or idle)\n"
	"chains (folded: head;blocked;blocked by that):\n"
	"  206;web 205  0.010 s\n"
	"  299;web 204  0.010 s\n"
	"  batch\\x1b 201;web 202  0.010 s\n"
	"  batch\\x1b 201;web 202;web 203  0.010 s\n";

START_TEST(head_blockers)
{
	static const wprof_dim ev[] = {WPROF_DIM_EVENT};
	sample_row *a = add_session(201, "batch\x1b", "idle in transaction", "Client", "ClientRead", 0);
	sample_row *h;
	char	   *got;
	const char *sec;

	a->xact_start_us = 1000000 - 4000000;
	a->query = "UPDATE t SET v = 1";
	add_session(202, "web", "active", "Lock", "relation", 201);
	add_session(203, "web", "active", "Lock", "relation", 202);
	add_session(204, "web", "active", "Lock", "tuple", 299);
	add_session(205, "web", "active", "Lock", "tuple", 206);
	/* a row we may not read: nothing but its pid */
	h = sample_batch_add(&batch);
	h->pid = 206;
	sample_finish_row(h, &pool, 170000, NULL, NULL, true);
	for (int i = 0; i < batch.nrows; i++)
		wprof_add(&prof, &batch, &batch.rows[i]);
	{
		heads_graph g;

		heads_graph_init(&g);
		heads_graph_build(&g, &batch);
		wprof_add_heads(&prof, &g);
		heads_graph_free(&g);
	}
	got = render(ev, 1);
	sec = strstr(got, "\nhead blockers:");
	ck_assert_msg(sec != NULL, "no head blockers section:\n%s", got);
	ck_assert_str_eq(sec, want_heads);
	free(got);
}
END_TEST

static const wprof_dim by_event[] = {WPROF_DIM_EVENT};
static const wprof_dim by_app_pid_query[] = {WPROF_DIM_APP, WPROF_DIM_PID, WPROF_DIM_QUERY};

START_TEST(by_event_layout)
{
	char	   *got;

	fill();
	got = render(by_event, 1);
	ck_assert_str_eq(got, want_by_event);
	free(got);
}
END_TEST

START_TEST(by_app_measured_layout)
{
	char	   *got;

	measured_us = 1234;
	fill();
	got = render(by_app_pid_query, 3);
	ck_assert_str_eq(got, want_by_app);
	free(got);
}
END_TEST

/*
 * Server text with a newline, escape sequences, bytes that are not UTF-8
 * and wide characters: every line stays one line, nothing reaches the
 * terminal raw, and the columns still line up.
 */
START_TEST(hostile_text)
{
	static const wprof_dim by_app_event[] = {WPROF_DIM_APP, WPROF_DIM_EVENT};
	char	   *got;

	lock_desc = "Waiting \x1b]0;owned\x07" "for a lock.";
	add(3, 201, "evil\napp\x1b[2J", "Lock", "tuple", 11, "SELECT '\x1b[31mred'", 0);
	add(2, 202, "\xe6\x97\xa5\xe6\x9c\xac", "IO", "Data\xff" "Read", 0, NULL, 0);
	/* 79 ASCII bytes, then a two-byte character the 80-byte cut falls inside */
	add(1, 203, "caf\xc3\xa9", "IPC", "BufferIO", 12,
		"SELECT 12345678901234567890123456789012345678901234567890123456789012345678901 \xc3\xa9 x", 0);
	got = render(by_app_event, 2);
	ck_assert_str_eq(got, want_hostile);
	free(got);
}
END_TEST

/* One sample in a sub-line: "1 sample", not "1 samples". */
START_TEST(one_sample)
{
	static const char want[] =
		"Lock             tuple             2     66.67  0.020 \xc2\xb1 0.016\n"
		"                 Waiting to acquire a lock on a row.\n"
		"                 blocked by pid 302: 1 sample (50.0 %)\n"
		"                 no blocker seen: 1 sample (50.0 % of the lock waits; it had gone when the blockers were read)\n"
		"                 query_id 13: 1 sample (50.0 %)  SELECT 1\n"
		"                 query_id 14: 1 sample (50.0 %)  SELECT 2\n"
		"CPU              CPU               1     33.33  0.010 \xc2\xb1 0.016\n"
		"                 query_id 15: 1 sample (100.0 %)\n";
	char	   *got;

	add(1, 301, "app", "Lock", "tuple", 13, "SELECT 1", 302);
	add(1, 303, "app", "Lock", "tuple", 14, "SELECT 2", 0);
	add(1, 304, "app", NULL, NULL, 15, NULL, 0);
	got = render(by_event, 1);
	ck_assert_msg(strstr(got, want) != NULL, "%s", got);
	free(got);
}
END_TEST

static Suite *
report_suite(void)
{
	Suite	   *s = suite_create("waits_report");
	TCase	   *tc = tcase_create("text");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, by_event_layout);
	tcase_add_test(tc, by_app_measured_layout);
	tcase_add_test(tc, hostile_text);
	tcase_add_test(tc, one_sample);
	tcase_add_test(tc, head_blockers);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(report_suite());
}
