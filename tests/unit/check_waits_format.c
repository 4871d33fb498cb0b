/*
 * check_waits_format.c — the records pgtempo-waits writes: timestamps
 * (UTC, and local as --trace writes them), CSV and COPY escaping, raw and
 * interval lines in CSV, JSON Lines and COPY, health and gap records,
 * folded stacks.
 */
#include "config.h"

#include "format.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strpool.h"
#include "unit.h"

static strpool pool;
static sample_batch batch;
static strbuf sb;

static void
setup(void)
{
	strpool_init(&pool);
	sample_batch_init(&batch);
	strbuf_init(&sb);
}

static void
teardown(void)
{
	strbuf_free(&sb);
	sample_batch_free(&batch);
	strpool_free(&pool);
}

START_TEST(timestamps)
{
	static const struct
	{
		int64_t		us;
		const char *want;
	}			cases[] = {
		{0, "1970-01-01T00:00:00.000000Z"},
		{1, "1970-01-01T00:00:00.000001Z"},
		{-1, "1969-12-31T23:59:59.999999Z"},
		{INT64_C(1700000000123456), "2023-11-14T22:13:20.123456Z"},
		{INT64_C(951782400000000), "2000-02-29T00:00:00.000000Z"},
	};
	char		buf[FORMAT_TS_LEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		format_ts(buf, cases[i].us);
		ck_assert_str_eq(buf, cases[i].want);
	}
	format_seconds(buf, 0.01);
	ck_assert_str_eq(buf, "10 ms");
	format_seconds(buf, 1);
	ck_assert_str_eq(buf, "1 s");
	format_seconds(buf, 0.00025);
	ck_assert_str_eq(buf, "250 us");
}
END_TEST

/* --trace's local timestamps: the offset's minutes and seconds only when it has some. */
START_TEST(local_timestamps)
{
	static const struct
	{
		const char *tz;
		int64_t		us;
		const char *want;
	}			cases[] = {
		{"UTC", INT64_C(1700000000123456), "2023-11-14 22:13:20.123456+00"},
		{"UTC", 0, "1970-01-01 00:00:00.000000+00"},
		{"Asia/Kolkata", INT64_C(1700000000000001), "2023-11-15 03:43:20.000001+05:30"},
		{"America/New_York", INT64_C(1700000000000000), "2023-11-14 17:13:20.000000-05"},
		/* local mean time before 1883: an offset with seconds */
		{"America/New_York", INT64_C(-3000000000000000), "1874-12-07 13:43:58.000000-04:56:02"},
	};
	char		buf[FORMAT_LOCAL_TS_LEN];

	/* TZ is left set: every other case here formats in UTC whatever it says */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		setenv("TZ", cases[i].tz, 1);
		tzset();
		format_local_ts(buf, sizeof(buf), cases[i].us);
		ck_assert_str_eq(buf, cases[i].want);
	}
}
END_TEST

START_TEST(field_escaping)
{
	static const struct
	{
		const char *in;
		const char *csv;
		const char *copy;
		const char *frame;
	}			cases[] = {
		{NULL, "", "\\N", "-"},
		{"", "", "", "-"},
		{"plain text", "plain text", "plain text", "plain text"},
		{"a,b", "\"a,b\"", "a,b", "a,b"},
		{"say \"hi\"", "\"say \"\"hi\"\"\"", "say \"hi\"", "say \"hi\""},
		{"two\nlines", "\"two\nlines\"", "two\\nlines", "two lines"},
		{"tab\there", "tab\there", "tab\\there", "tab here"},
		{"back\\slash", "back\\slash", "back\\\\slash", "back\\slash"},
		{"a;b", "a;b", "a;b", "a:b"},
		{"cr\r", "\"cr\r\"", "cr\\r", "cr "},
		/* an escape sequence: a frame holds no control character */
		{"esc\x1b[2J", "esc\x1b[2J", "esc\x1b[2J", "esc\\x1b[2J"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		strbuf_reset(&sb);
		format_csv_field(&sb, cases[i].in);
		ck_assert_str_eq(sb.data, cases[i].csv);
		strbuf_reset(&sb);
		format_copy_field(&sb, cases[i].in);
		ck_assert_str_eq(sb.data, cases[i].copy);
		strbuf_reset(&sb);
		format_folded_frame(&sb, cases[i].in);
		ck_assert_str_eq(sb.data, cases[i].frame);
	}
}
END_TEST

/* A lock waiter's row with every field set, and a CPU row with the optional ones empty. */
static void
make_rows(void)
{
	sample_row *r;

	sample_batch_reset(&batch, INT64_C(1700000000123456));
	r = sample_batch_add(&batch);
	r->pid = 4242;
	r->backend_start_us = INT64_C(1700000000000000);
	r->backend_type = strpool_intern(&pool, "client backend");
	r->datname = strpool_intern(&pool, "shop");
	r->usename = strpool_intern(&pool, "app");
	r->application_name = strpool_intern(&pool, "web,1");
	r->client_addr = strpool_intern(&pool, "10.0.0.1");
	r->state = strpool_intern(&pool, "active");
	r->query_id = -77;
	r->leader_pid = 4200;
	r->query = "update t set v = 'x\"y'";
	sample_finish_row(r, &pool, 150000, "Lock", "relation", false);
	sample_batch_add_blocker(&batch, 11);
	sample_batch_add_blocker(&batch, 12);

	r = sample_batch_add(&batch);
	r->pid = 7;
	r->state = strpool_intern(&pool, "active");
	sample_finish_row(r, &pool, 150000, NULL, NULL, false);
}

START_TEST(sample_csv)
{
	make_rows();
	format_sample_csv(&sb, &batch, &batch.rows[0]);
	ck_assert_str_eq(sb.data,
					 "2023-11-14T22:13:20.123456Z,4242,2023-11-14T22:13:20.000000Z,client backend,"
					 "shop,app,\"web,1\",10.0.0.1,active,Lock,relation,-77,4200,\"{11,12}\",1,,"
					 "\"update t set v = 'x\"\"y'\"\n");
	strbuf_reset(&sb);
	format_sample_csv(&sb, &batch, &batch.rows[1]);
	ck_assert_str_eq(sb.data,
					 "2023-11-14T22:13:20.123456Z,7,,,,,,,active,CPU,CPU,,,,1,,\n");
	/* as many fields as the header has */
	{
		int			commas = 0;

		for (const char *p = FORMAT_CSV_SAMPLE_HEADER; *p; p++)
			commas += *p == ',';
		ck_assert_int_eq(commas, 16);
	}
}
END_TEST

/* Bytes that are not UTF-8 (an SQL_ASCII database) come out as \xNN in CSV and JSON Lines. */
START_TEST(invalid_utf8)
{
	make_rows();
	batch.rows[0].query = "select '\xff\xc3(', 1";
	batch.rows[0].application_name = strpool_intern(&pool, "caf\xe9");
	format_sample_csv(&sb, &batch, &batch.rows[0]);
	ck_assert_ptr_nonnull(strstr(sb.data, ",caf\\xe9,"));
	ck_assert_ptr_nonnull(strstr(sb.data, ",\"select '\\xff\\xc3(', 1\"\n"));
	strbuf_reset(&sb);
	format_sample_jsonl(&sb, &batch, &batch.rows[0]);
	ck_assert_ptr_nonnull(strstr(sb.data, "\"application_name\":\"caf\\\\xe9\""));
	ck_assert_ptr_nonnull(strstr(sb.data, "\"query\":\"select '\\\\xff\\\\xc3(', 1\"}\n"));
	strbuf_reset(&sb);
	format_folded_frame(&sb, "caf\xe9;x");
	ck_assert_str_eq(sb.data, "caf\\xe9:x");
	/* and a valid multibyte character is left alone */
	strbuf_reset(&sb);
	format_csv_field(&sb, "caf\xc3\xa9");
	ck_assert_str_eq(sb.data, "caf\xc3\xa9");
}
END_TEST

START_TEST(sample_jsonl)
{
	make_rows();
	format_sample_jsonl(&sb, &batch, &batch.rows[0]);
	ck_assert_str_eq(sb.data,
					 "{\"type\":\"sample\",\"ts\":\"2023-11-14T22:13:20.123456Z\",\"pid\":4242,"
					 "\"backend_start\":\"2023-11-14T22:13:20.000000Z\",\"backend_type\":\"client backend\","
					 "\"datname\":\"shop\",\"usename\":\"app\",\"application_name\":\"web,1\","
					 "\"client_addr\":\"10.0.0.1\",\"state\":\"active\",\"wait_event_type\":\"Lock\","
					 "\"wait_event\":\"relation\",\"query_id\":-77,\"leader_pid\":4200,"
					 "\"blockers\":[11,12],\"samples\":1,\"wait_time_us\":null,"
					 "\"query\":\"update t set v = 'x\\\"y'\"}\n");
	strbuf_reset(&sb);
	format_sample_jsonl(&sb, &batch, &batch.rows[1]);
	ck_assert_str_eq(sb.data,
					 "{\"type\":\"sample\",\"ts\":\"2023-11-14T22:13:20.123456Z\",\"pid\":7,"
					 "\"backend_start\":null,\"backend_type\":null,\"datname\":null,\"usename\":null,"
					 "\"application_name\":null,\"client_addr\":null,\"state\":\"active\","
					 "\"wait_event_type\":\"CPU\",\"wait_event\":\"CPU\",\"query_id\":null,"
					 "\"leader_pid\":null,\"blockers\":[],\"samples\":1,\"wait_time_us\":null,"
					 "\"query\":null}\n");
}
END_TEST

START_TEST(sample_copy)
{
	make_rows();
	format_sample_copy(&sb, "db1:5432", &batch, &batch.rows[0]);
	ck_assert_str_eq(sb.data,
					 "db1:5432\t2023-11-14T22:13:20.123456Z\t4242\t2023-11-14T22:13:20.000000Z\t"
					 "client backend\tshop\tapp\tweb,1\t10.0.0.1\tactive\tLock\trelation\t-77\t4200\t"
					 "{11,12}\t1\t\\N\tupdate t set v = 'x\"y'\n");
	strbuf_reset(&sb);
	format_sample_copy(&sb, "db1:5432", &batch, &batch.rows[1]);
	ck_assert_str_eq(sb.data,
					 "db1:5432\t2023-11-14T22:13:20.123456Z\t7\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\tactive\t"
					 "CPU\tCPU\t\\N\t\\N\t\\N\t1\t\\N\t\\N\n");
}
END_TEST

START_TEST(interval_lines)
{
	wprof_group g;
	format_interval iv = {
		.start_us = INT64_C(1700000000000000), .end_us = INT64_C(1700000010000000),
		.ticks = 1000, .total = 400, .period_s = 0.01, .measured = false
	};

	memset(&g, 0, sizeof(g));
	g.key.datname = "shop";
	g.key.usename = "app";
	g.key.appname = "web";
	g.key.backend_type = "client backend";
	g.key.type = "IO";
	g.key.event = "DataFileRead";
	g.key.query_id = 99;
	g.samples = 100;
	format_interval_csv(&sb, &iv, &g);
	ck_assert_str_eq(sb.data,
					 "2023-11-14T22:13:20.000000Z,2023-11-14T22:13:30.000000Z,1000,shop,app,web,"
					 "client backend,IO,DataFileRead,99,100,25.00,1.000000,,\n");
	strbuf_reset(&sb);
	format_interval_jsonl(&sb, &iv, &g);
	ck_assert_str_eq(sb.data,
					 "{\"type\":\"interval\",\"interval_start\":\"2023-11-14T22:13:20.000000Z\","
					 "\"interval_end\":\"2023-11-14T22:13:30.000000Z\",\"ticks\":1000,"
					 "\"datname\":\"shop\",\"usename\":\"app\",\"application_name\":\"web\","
					 "\"backend_type\":\"client backend\",\"wait_event_type\":\"IO\","
					 "\"wait_event\":\"DataFileRead\",\"query_id\":99,\"samples\":100,\"pct\":25,"
					 "\"est_seconds\":1}\n");
	strbuf_reset(&sb);
	iv.measured = true;
	g.measured_us = 1500000;
	g.measured_count = 3;
	format_interval_copy(&sb, "h", &iv, &g);
	ck_assert_str_eq(sb.data,
					 "h\t2023-11-14T22:13:20.000000Z\t2023-11-14T22:13:30.000000Z\t1000\tshop\tapp\t"
					 "web\tclient backend\tIO\tDataFileRead\t99\t100\t1.000000\t1.500000\t3\n");
	{
		int			commas = 0;

		for (const char *p = FORMAT_CSV_INTERVAL_HEADER; *p; p++)
			commas += *p == ',';
		ck_assert_int_eq(commas, 14);
	}
}
END_TEST

/* The meta record that heads every log file: its version and the run's description. */
START_TEST(meta)
{
	static const char *const types[] = {"client backend", "walsender"};
	format_meta m = {
		.run_us = INT64_C(1700000000000000), .source = "pg_stat_activity",
		.server = "/tmp:5432", .server_version = "15.2", .interval_s = 0.01, .period_s = 0.01,
		.measured = true, .backend_types = types, .nbackend_types = 2,
	};
	const char *want = "{\"type\":\"meta\",\"log_version\":1,\"tool\":\"pgtempo-waits\","
		"\"version\":\"" PACKAGE_VERSION "\",\"run\":\"2023-11-14T22:13:20.000000Z\",\"source\":"
		"\"pg_stat_activity\",\"server\":\"/tmp:5432\",\"server_version\":\"15.2\","
		"\"interval_s\":0.01,\"period_s\":0.01,\"include_idle\":false,\"measured\":true,"
		"\"backend_types\":[\"client backend\",\"walsender\"],\"backend_types_given\":false}\n";

	format_meta_jsonl(&sb, &m);
	ck_assert_str_eq(sb.data, want);
	strbuf_reset(&sb);
	format_meta_csv(&sb, &m);
	ck_assert(strncmp(sb.data, "# meta ", 7) == 0);
	ck_assert_str_eq(sb.data + 7, want);
	/* a run that can describe its events writes version 2, the rest unchanged */
	strbuf_reset(&sb);
	m.descriptions = true;
	format_meta_jsonl(&sb, &m);
	ck_assert(strncmp(sb.data, "{\"type\":\"meta\",\"log_version\":2,\"tool\"", 37) == 0);
	ck_assert_str_eq(strstr(sb.data, ",\"tool\""), strstr(want, ",\"tool\""));
}
END_TEST

/* A description record: one line in both formats, whatever the text holds. */
START_TEST(description)
{
	const char *want = "{\"type\":\"description\",\"wait_event_type\":\"Lock\","
		"\"wait_event\":\"relation\",\"description\":\"Waiting, \\\"here\\\"\\nand \\u0001 "
		"\\\\x\"}\n";

	format_description_jsonl(&sb, "Lock", "relation", "Waiting, \"here\"\nand \001 \\x");
	ck_assert_str_eq(sb.data, want);
	strbuf_reset(&sb);
	format_description_csv(&sb, "Lock", "relation", "Waiting, \"here\"\nand \001 \\x");
	ck_assert(strncmp(sb.data, "# description ", 14) == 0);
	ck_assert_str_eq(sb.data + 14, want);
}
END_TEST

START_TEST(health_and_gaps)
{
	sample_health h;
	sample_gap	g = {INT64_C(1700000000000000), INT64_C(1700000002500000), (char *) "server closed; gone\n"};

	memset(&h, 0, sizeof(h));
	h.ts_us = INT64_C(1700000000000000);
	h.samples = 300;
	h.elapsed_s = 3;
	h.rate_hz = 100;
	h.missed = 2;
	h.gap_ticks = 250;
	h.p50_ms = 0.25;
	h.p99_ms = 1.5;
	h.max_ms = 2;
	h.ngaps = 1;
	h.gap_s = 2.5;
	h.cpu_us_per_sample = h.backend_cpu_us_per_sample = -1;
	/* the cost budget's: the rate chosen; the cost and the backends not measured yet */
	h.interval_s = 0.01;
	h.cost_us_per_sample = -1;
	h.backends = -1;
	format_health_csv(&sb, &h);
	ck_assert_str_eq(sb.data,
					 "# health ts=2023-11-14T22:13:20.000000Z samples=300 elapsed_s=3.000 "
					 "rate_hz=100.00 missed_ticks=2 gap_ticks=250 failed_samples=0 latency_p50_ms=0.250 "
					 "latency_p99_ms=1.500 latency_max_ms=2.000 gaps=1 gap_seconds=2.500 "
					 "hidden_rows=0 interval_s=0.010000\n");
	strbuf_reset(&sb);
	format_health_jsonl(&sb, &h);
	ck_assert_str_eq(sb.data,
					 "{\"type\":\"health\",\"ts\":\"2023-11-14T22:13:20.000000Z\",\"samples\":300,"
					 "\"elapsed_s\":3,\"rate_hz\":100,\"missed_ticks\":2,\"gap_ticks\":250,"
					 "\"failed_samples\":0,"
					 "\"latency_p50_ms\":0.25,\"latency_p99_ms\":1.5,\"latency_max_ms\":2,"
					 "\"gaps\":1,\"gap_seconds\":2.5,\"hidden_rows\":0,\"interval_s\":0.01,"
					 "\"cost_us_per_sample\":null,\"backends\":null}\n");
	strbuf_reset(&sb);
	/* the budget lowered the rate: what a sample costs, at how many backends */
	h.interval_s = 0.091;
	h.cost_us_per_sample = 1812.25;
	h.backends = 1006;
	format_health_csv(&sb, &h);
	ck_assert(strstr(sb.data, " hidden_rows=0 interval_s=0.091000 cost_us_per_sample=1812.2"
					 " backends=1006\n") != NULL);
	strbuf_reset(&sb);
	format_health_jsonl(&sb, &h);
	ck_assert(strstr(sb.data, "\"interval_s\":0.091,\"cost_us_per_sample\":1812.25,"
					 "\"backends\":1006}\n") != NULL);
	strbuf_reset(&sb);
	/* the sampler's cost, when it is known, for a report from the log */
	h.cpu_us_per_sample = 61.25;
	h.backend_cpu_us_per_sample = 96.5;
	format_health_csv(&sb, &h);
	ck_assert_ptr_nonnull(strstr(sb.data, " hidden_rows=0 interval_s=0.091000 cpu_us_per_sample=61.2 "
								 "backend_cpu_us_per_sample=96.5 cost_us_per_sample=1812.2"
								 " backends=1006\n"));
	strbuf_reset(&sb);
	format_health_jsonl(&sb, &h);
	ck_assert_ptr_nonnull(strstr(sb.data, "\"hidden_rows\":0,\"cpu_us_per_sample\":61.25,"
								 "\"backend_cpu_us_per_sample\":96.5,\"interval_s\":0.091,"
								 "\"cost_us_per_sample\":1812.25,\"backends\":1006}\n"));
	strbuf_reset(&sb);
	format_gap_csv(&sb, &g);
	ck_assert_str_eq(sb.data,
					 "# gap start=2023-11-14T22:13:20.000000Z end=2023-11-14T22:13:22.500000Z "
					 "seconds=2.500 reason=server closed: gone \n");
	strbuf_reset(&sb);
	format_gap_jsonl(&sb, &g);
	ck_assert_str_eq(sb.data,
					 "{\"type\":\"gap\",\"start\":\"2023-11-14T22:13:20.000000Z\","
					 "\"end\":\"2023-11-14T22:13:22.500000Z\",\"seconds\":2.5,"
					 "\"reason\":\"server closed; gone\\n\"}\n");
	{
		format_store_counts c = {.stored = 10, .rejected = 2, .dropped = 0, .unsent = 3};

		strbuf_reset(&sb);
		format_store_csv(&sb, &c);
		ck_assert_str_eq(sb.data, "# store rows_stored=10 rows_rejected=2 rows_dropped=0 "
						 "rows_unsent=3\n");
		strbuf_reset(&sb);
		format_store_jsonl(&sb, &c);
		ck_assert_str_eq(sb.data, "{\"type\":\"store\",\"rows_stored\":10,\"rows_rejected\":2,"
						 "\"rows_dropped\":0,\"rows_unsent\":3}\n");
	}
}
END_TEST

START_TEST(folded)
{
	wprof_key	k;

	memset(&k, 0, sizeof(k));
	k.datname = "shop";
	k.backend_type = "client backend";
	k.type = "Lock";
	k.event = "relation";
	k.query_id = -5;
	format_folded_line(&sb, &k, 42);
	ck_assert_str_eq(sb.data, "shop;client backend;Lock;relation;-5 42\n");
	strbuf_reset(&sb);
	k.datname = NULL;
	k.backend_type = "autovacuum;worker";
	k.query_id = 0;
	format_folded_line(&sb, &k, 1);
	ck_assert_str_eq(sb.data, "-;autovacuum:worker;Lock;relation;- 1\n");
	/* one frame escaper (utf8_append_frame, heads.c's too): controls, bytes not UTF-8 */
	strbuf_reset(&sb);
	k.datname = "a;b\r\n\tc\x1b\x7f\xc3(\xe2\x82\xac";
	format_folded_line(&sb, &k, 1);
	ck_assert_str_eq(sb.data, "a:b   c\\x1b\\x7f\\xc3(\xe2\x82\xac;autovacuum:worker;Lock;"
					 "relation;- 1\n");
}
END_TEST

/*
 * The store's tables are made of the COPY columns: the very statements
 * the store sent when they were written out by hand.
 */
START_TEST(store_ddl)
{
	static const struct
	{
		format_reckind kind;
		const char *ddl;
	}			cases[] = {
		{FORMAT_REC_SAMPLE,
			"CREATE TABLE IF NOT EXISTS t (\n"
			"    server           text        NOT NULL,\n"
			"    ts               timestamptz NOT NULL,\n"
			"    pid              int4        NOT NULL,\n"
			"    backend_start    timestamptz,\n"
			"    backend_type     text,\n"
			"    datname          text,\n"
			"    usename          text,\n"
			"    application_name text,\n"
			"    client_addr      text,\n"
			"    state            text,\n"
			"    wait_event_type  text,\n"
			"    wait_event       text,\n"
			"    query_id         int8,\n"
			"    leader_pid       int4,\n"
			"    blockers         int4[],\n"
			"    samples          int4        NOT NULL,\n"
			"    wait_time_us     int8,\n"
			"    query            text\n"
		")"},
		{FORMAT_REC_INTERVAL,
			"CREATE TABLE IF NOT EXISTS t (\n"
			"    server           text        NOT NULL,\n"
			"    interval_start   timestamptz NOT NULL,\n"
			"    interval_end     timestamptz NOT NULL,\n"
			"    ticks            int8        NOT NULL,\n"
			"    datname          text,\n"
			"    usename          text,\n"
			"    application_name text,\n"
			"    backend_type     text,\n"
			"    wait_event_type  text,\n"
			"    wait_event       text,\n"
			"    query_id         int8,\n"
			"    samples          int8        NOT NULL,\n"
			"    est_seconds      float8      NOT NULL,\n"
			"    measured_seconds float8,\n"
			"    measured_count   int8\n"
		")"},
		{FORMAT_REC_HEAD,
			"CREATE TABLE IF NOT EXISTS t (\n"
			"    server           text        NOT NULL,\n"
			"    interval_start   timestamptz NOT NULL,\n"
			"    interval_end     timestamptz NOT NULL,\n"
			"    pid              int4        NOT NULL,\n"
			"    backend_start    timestamptz,\n"
			"    samples          float8      NOT NULL,\n"
			"    direct_samples   float8      NOT NULL,\n"
			"    est_seconds      float8      NOT NULL,\n"
			"    cycle            int4,\n"
			"    datname          text,\n"
			"    usename          text,\n"
			"    application_name text,\n"
			"    backend_type     text,\n"
			"    state            text,\n"
			"    wait_event_type  text,\n"
			"    wait_event       text,\n"
			"    query_id         int8,\n"
			"    xact_start       timestamptz,\n"
			"    last_seen        timestamptz,\n"
			"    query            text\n"
		")"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		strbuf_reset(&sb);
		format_kind_ddl(&sb, &format_kinds[cases[i].kind], "t");
		ck_assert_str_eq(sb.data, cases[i].ddl);
	}
}
END_TEST

/* Every kind of record once in the table: names apart, a version each, rows' headers. */
START_TEST(record_kinds)
{
	for (int i = 0; i < FORMAT_NRECKINDS; i++)
	{
		const format_kind *k = &format_kinds[i];

		ck_assert_uint_eq(strlen(k->name), k->namelen);
		ck_assert(k->version >= FORMAT_LOG_VERSION_MIN && k->version <= FORMAT_LOG_VERSION);
		ck_assert(k->ncols > 0);
		ck_assert((k->csv == FORMAT_CSV_ROW) == (k->csv_header != NULL));
		ck_assert((k->csv == FORMAT_CSV_ROW) == (i < FORMAT_NROWKINDS));
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(format_kinds[j].name, k->name);
	}
	/* the health fields say what they count; the other tables say nothing */
	for (int i = 0; i < format_health_kind.ncols; i++)
		ck_assert(format_health_kind.cols[i].agg != FORMAT_AGG_NONE);
	ck_assert(format_health_kind.cols[0].agg == FORMAT_AGG_TIME);
	ck_assert_int_eq(format_health_kind.ncols, FORMAT_NHEALTH);
	ck_assert_str_eq(format_health_kind.cols[FORMAT_HEALTH_samples].name, "samples");
	ck_assert(format_health_kind.cols[FORMAT_HEALTH_latency_max_ms].agg == FORMAT_AGG_MAXIMUM);
	ck_assert(format_health_kind.cols[FORMAT_HEALTH_latency_p50_ms].agg == FORMAT_AGG_GAUGE);
	ck_assert(format_health_kind.cols[FORMAT_HEALTH_missed_ticks].agg == FORMAT_AGG_COUNTER);
	ck_assert(format_kinds[FORMAT_REC_META].cols[0].agg == FORMAT_AGG_NONE);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_format");
	TCase	   *tc = tcase_create("format");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, timestamps);
	tcase_add_test(tc, local_timestamps);
	tcase_add_test(tc, field_escaping);
	tcase_add_test(tc, sample_csv);
	tcase_add_test(tc, sample_jsonl);
	tcase_add_test(tc, invalid_utf8);
	tcase_add_test(tc, sample_copy);
	tcase_add_test(tc, interval_lines);
	tcase_add_test(tc, health_and_gaps);
	tcase_add_test(tc, meta);
	tcase_add_test(tc, description);
	tcase_add_test(tc, folded);
	tcase_add_test(tc, store_ddl);
	tcase_add_test(tc, record_kinds);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
