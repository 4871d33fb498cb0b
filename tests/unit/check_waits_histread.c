/*
 * check_waits_histread.c — reading the history logs back: what format.c
 * writes reads back the same (CSV and JSON Lines, raw rows and profile
 * lines, meta, description, health and gap records; a file without
 * description records reads as before), and a file that is cut off, of
 * another version or not a log at all is an error naming its line; the
 * table of descriptions --from-log fills; the times of --since and --until.
 */
#include "config.h"

#include "histread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "evdesc.h"
#include "format.h"
#include "histfield.h"

#include "unit.h"

/* Write text to a new temporary file last written age seconds ago; its path (caller frees). */
static char *
temp_file_aged(const char *text, size_t len, time_t age)
{
	char	   *path = xstrdup("/tmp/check_waits_histread.XXXXXX");
	int			fd = mkstemp(path);
	struct timeval tv[2] = {{time(NULL) - age, 0}, {time(NULL) - age, 0}};

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t) len);
	close(fd);
	ck_assert_int_eq(utimes(path, tv), 0);
	return path;
}

/* A file of text that no run is writing any more. */
static char *
temp_file(const char *text, size_t len)
{
	return temp_file_aged(text, len, 3600);
}

/*
 * Read every record of text: the kinds as letters (M meta, S sample,
 * I interval, H health, G gap, T store, D description) into kinds, and the error, if
 * any, into *cause.  The records' last sample row into *last.
 */
static int
read_all(const char *text, size_t len, strpool *pool, char *kinds, size_t cap,
		 histread_rec *last, char **cause)
{
	char	   *path = temp_file(text, len);
	histread	h;
	histread_rec rec;
	int			rc;
	size_t		n = 0;

	*cause = NULL;
	ck_assert(histread_open(&h, path, pool, cause));
	while ((rc = histread_next(&h, &rec, cause)) > 0 && n + 1 < cap)
	{
		kinds[n++] = "SIMHGTDECR"[rec.kind];
		if (rec.kind == HISTREAD_SAMPLE || rec.kind == HISTREAD_INTERVAL)
			*last = rec;
	}
	kinds[n] = '\0';
	histread_close(&h);
	unlink(path);
	free(path);
	return rc;
}

#define META_CSV "# meta {\"type\":\"meta\",\"log_version\":1,\"tool\":\"pgtempo-waits 0.1.0\"," \
	"\"run\":\"2026-11-26T10:00:00.000000Z\",\"source\":\"pg_stat_activity\",\"server\":\"h:5432\"," \
	"\"server_version\":\"15.2\",\"interval_s\":0.01,\"period_s\":0.01,\"include_idle\":false," \
	"\"measured\":false,\"backend_types\":[\"client backend\"],\"backend_types_given\":false}\n"
/* The same meta record in log format 2 (description records), as a JSON line. */
#define META2_JSON "{\"type\":\"meta\",\"log_version\":2,\"tool\":\"pgtempo-waits 0.1.0\"," \
	"\"run\":\"2026-11-26T10:00:00.000000Z\",\"source\":\"pg_stat_activity\",\"server\":\"h:5432\"," \
	"\"server_version\":\"17.2\",\"interval_s\":0.01,\"period_s\":0.01,\"include_idle\":false," \
	"\"measured\":false,\"backend_types\":[\"client backend\"],\"backend_types_given\":false}\n"
/* ... in log format 4 (measured records), and a measured record ending at END. */
#define META4_JSON "{\"type\":\"meta\",\"log_version\":4,\"tool\":\"pgtempo-waits 0.1.0\"," \
	"\"run\":\"2026-11-26T10:00:00.000000Z\",\"source\":\"pg_stat_activity\",\"server\":\"h:5432\"," \
	"\"server_version\":\"15.2\",\"interval_s\":0.01,\"period_s\":0.01,\"include_idle\":false," \
	"\"measured\":false,\"backend_types\":[\"client backend\"],\"backend_types_given\":false}\n"
#define MEASURED_JSON(END) "{\"type\":\"measured\",\"interval_start\":" \
	"\"2026-11-26T10:00:00.000000Z\",\"interval_end\":\"" END "\",\"figure\":\"active_time\"," \
	"\"measured_by\":\"pg_stat_database.active_time\",\"measured_missing\":null," \
	"\"measured_seconds\":1.5,\"measured_count\":null,\"sampled_by\":\"sessions in state active\"," \
	"\"sampled_samples\":140,\"sampled_seconds\":1.4,\"sampled_error_seconds\":0.26," \
	"\"verdict\":\"agree\",\"reason\":null}\n"
#define DESC_JSON "{\"type\":\"description\",\"wait_event_type\":\"Lock\",\"wait_event\":" \
	"\"relation\",\"description\":\"Waiting to acquire a lock on a relation\"}\n"
#define ROW_CSV "2026-11-26T10:00:01.000000Z,42,2026-11-26T09:00:00.000000Z,client backend,db,u," \
	"psql,,active,Lock,relation,7,,\"{10,11}\",1,,select 1\n"

/*
 * The meta record before "version" came said both in "tool": read as the
 * new one, tool and version apart; a tool with no version has none.
 */
START_TEST(old_meta)
{
	static const char *const texts[] = {
		FORMAT_CSV_SAMPLE_HEADER "\n" META_CSV,
		META2_JSON,
		"{\"type\":\"meta\",\"log_version\":1,\"tool\":\"pgtempo-waits\",\"version\":\"0.1.0\","
		"\"run\":\"2026-11-26T10:00:00.000000Z\",\"source\":\"s\",\"server\":\"h\","
		"\"server_version\":\"15\",\"interval_s\":0.01,\"period_s\":0.01,"
		"\"include_idle\":false,\"measured\":false,\"backend_types\":[],"
		"\"backend_types_given\":false}\n",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
	{
		strpool		pool;
		histread	h;
		histread_rec rec;
		char	   *cause = NULL;
		char	   *path = temp_file(texts[i], strlen(texts[i]));

		strpool_init(&pool);
		ck_assert(histread_open(&h, path, &pool, &cause));
		ck_assert_int_eq(histread_next(&h, &rec, &cause), 1);
		ck_assert_int_eq(rec.kind, HISTREAD_META);
		ck_assert_str_eq(rec.meta.run.tool, "pgtempo-waits");
		ck_assert_str_eq(rec.meta.run.version, "0.1.0");
		ck_assert_int_eq(rec.meta.run.nbackend_types, i < 2 ? 1 : 0);
		histread_close(&h);
		unlink(path);
		free(path);
		strpool_free(&pool);
	}
}
END_TEST

/* Files that are not whole logs of this version: the error and its line. */
START_TEST(bad_files)
{
	static const struct
	{
		const char *name;
		const char *text;
		const char *kinds;		/* read before the error */
		const char *error;		/* NULL: no error */
	}			cases[] = {
		{"empty", "", "", NULL},
		{"header only", FORMAT_CSV_SAMPLE_HEADER "\n", "", NULL},
		{"cut off", FORMAT_CSV_SAMPLE_HEADER "\n" META_CSV "2026-11-26T10:00:01.0", "M",
		 ":3: the last record has no end of line"},
		{"cut in quotes", FORMAT_CSV_SAMPLE_HEADER "\n" META_CSV
			"2026-11-26T10:00:01.000000Z,42,,,,,,,,,,,,,1,,\"select\n", "M",
		 ":3: the last record has no end of line"},
		{"foreign", "hello, world\n", "", ":1: not a pgtempo-waits history log"},
		{"binary", "\x7f" "ELF\0\0\n", "", ":1: a NUL byte"},
		{"other csv header", "ts,pid,state\n", "", ":1: the CSV header of another version"},
		{"other version", "{\"type\":\"meta\",\"log_version\":5,\"tool\":\"pgtempo-waits 9\"}\n",
		 "", ":1: written by pgtempo-waits 9 in log format version 5; this pgtempo-waits ("
		 PACKAGE_VERSION ") reads versions 1 to 4"},
		{"version 2", META2_JSON DESC_JSON, "MD", NULL},
		/* a figure measured by the server: log format 4, its span in order */
		{"measured", META4_JSON MEASURED_JSON("2026-11-26T10:00:01.000000Z"), "MR", NULL},
		{"measured, version 2", META2_JSON MEASURED_JSON("2026-11-26T10:00:01.000000Z"), "M",
		 ":2: a measured record in a file of log format version 2"},
		{"measured backwards", META4_JSON MEASURED_JSON("2026-11-26T09:00:00.000000Z"), "M",
		 ":2: a measured record with a bad \"interval_end\""},
		{"description, version 1", FORMAT_CSV_SAMPLE_HEADER "\n" META_CSV "# description "
		 DESC_JSON, "M", ":3: a description record in a file of log format version 1"},
		{"description first", DESC_JSON META2_JSON, "", ":1: a description record before any "
		 "meta record"},
		{"description cut", META2_JSON "{\"type\":\"description\",\"wait_event_type\":\"Lock\","
		 "\"description\":\"d\"}\n", "M", ":2: a description record with a bad \"wait_event\""},
		{"description empty", META2_JSON "{\"type\":\"description\",\"wait_event_type\":\"Lock\","
		 "\"wait_event\":\"relation\",\"description\":\"\"}\n", "M", ":2: a description record "
		 "with a bad \"description\""},
		{"description csv", FORMAT_CSV_SAMPLE_HEADER "\n# meta " META2_JSON
		 "# description {\"type\":\n", "M", ":3: a description record that is not a JSON object"},
		{"no meta", FORMAT_CSV_SAMPLE_HEADER "\n" ROW_CSV, "", ":2: a row before any meta record"},
		{"fields", FORMAT_CSV_SAMPLE_HEADER "\n" META_CSV "2026-11-26T10:00:01.000000Z,42\n", "M",
		 ":3: 2 fields where the header has 17"},
		{"bad ts", FORMAT_CSV_SAMPLE_HEADER "\n" META_CSV
			"2026-11-26 10:00:01,42,,,,,,,,,,,,,1,,\n", "M", ":3: a bad value in column \"ts\""},
		{"bad pid", FORMAT_CSV_SAMPLE_HEADER "\n" META_CSV
			"2026-11-26T10:00:01.000000Z,x,,,,,,,,,,,,,1,,\n", "M", "column \"pid\""},
		{"bad blockers", FORMAT_CSV_SAMPLE_HEADER "\n" META_CSV
			"2026-11-26T10:00:01.000000Z,4,,,,,,,,,,,,{a},1,,\n", "M", "column \"blockers\""},
		{"stray quote", FORMAT_CSV_SAMPLE_HEADER "\n" META_CSV
			"2026-11-26T10:00:01.000000Z,4,a\"b\",,,,,,,,,,,,1,,\n", "M", ":3: not a CSV record"},
		{"unknown comment", FORMAT_CSV_SAMPLE_HEADER "\n# what is this\n", "",
		 ":2: an unknown comment record"},
		{"bad health", FORMAT_CSV_SAMPLE_HEADER "\n" META_CSV "# health ts=x\n", "M",
		 ":3: a health record with a bad \"ts\""},
		{"empty line", FORMAT_CSV_SAMPLE_HEADER "\n" META_CSV "\n", "M", ":3: an empty line"},
		{"json type", "{\"type\":\"what\"}\n", "", ":1: a record of unknown type \"what\""},
		{"json broken", "{\"type\":\"sample\",\n", "", ":1: not a JSON record"},
		{"json array", "{\"type\":\"sample\"}\n[1]\n", "", ":1: a row before any meta record"},
		/* a member name longer than the column's where the column should be (found by fuzzing) */
		{"json long key", "{\"type\":\"meta\",\"log_version\":1,\"tool\":\"t\",\"run\":"
			"\"2026-11-26T10:00:00.000000Z\",\"source\":\"s\",\"server\":\"h\","
			"\"server_version\":\"15\",\"interval_s\":0.01,\"period_s\":0.01,"
			"\"include_idle\":false,\"measured\":false,\"backend_types\":[],"
			"\"backend_types_given\":false}\n{\"type\":\"sample\",\"ts_and_then_a_long_name_that"
			"_is_no_column_of_the_log_at_all_not_even_close\":1}\n", "M",
		 ":2: a bad value in column \"ts\""},
		{"json missing", "{\"type\":\"meta\",\"log_version\":1,\"tool\":\"t\"}\n", "",
		 ":1: a meta record with a bad \"run\""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		strpool		pool;
		char		kinds[16];
		histread_rec last;
		char	   *cause;
		size_t		len = strlen(cases[i].text);
		int			rc;

		/* the binary case holds NUL bytes: its length is what is written */
		if (strcmp(cases[i].name, "binary") == 0)
			len = 7;
		strpool_init(&pool);
		rc = read_all(cases[i].text, len, &pool, kinds, sizeof(kinds), &last, &cause);
		ck_assert_msg(strcmp(kinds, cases[i].kinds) == 0, "%s: read %s", cases[i].name, kinds);
		if (cases[i].error == NULL)
			ck_assert_msg(rc == 0 && cause == NULL, "%s: %s", cases[i].name, cause);
		else
			ck_assert_msg(rc < 0 && cause != NULL && strstr(cause, cases[i].error) != NULL &&
						  strstr(cause, "/tmp/check_waits_histread.") == cause,
						  "%s: got \"%s\"", cases[i].name, cause ? cause : "(none)");
		free(cause);
		strpool_free(&pool);
	}
}
END_TEST

/*
 * A file a run is appending to may end on part of a record: its whole
 * records are read, the rest is left; the same file written an hour ago
 * was cut off.
 */
START_TEST(being_written)
{
	const char *text = FORMAT_CSV_SAMPLE_HEADER "\n" META_CSV ROW_CSV "2026-11-26T10:00:01.0";
	strpool		pool;

	strpool_init(&pool);
	for (int aged = 0; aged < 2; aged++)
	{
		char	   *path = temp_file_aged(text, strlen(text), aged ? 3600 : 0);
		histread	h;
		histread_rec rec;
		char	   *cause = NULL;
		int			n = 0,
					rc;

		ck_assert(histread_open(&h, path, &pool, &cause));
		while ((rc = histread_next(&h, &rec, &cause)) > 0)
			n++;
		ck_assert_int_eq(n, 2);
		ck_assert_int_eq(rc, aged ? -1 : 0);
		ck_assert(h.tail_skipped == !aged);
		if (aged)
			ck_assert_ptr_nonnull(strstr(cause, ":4: the last record has no end of line"));
		free(cause);
		histread_close(&h);
		unlink(path);
		free(path);
	}
	strpool_free(&pool);
}
END_TEST

/* A description with what CSV and JSON must quote: a comma, a quote, a line break. */
#define ODD_DESC "Waiting, as \"the\" server says;\nthen \\ more"

/*
 * A log of both formats written by format.c, as the --log sink writes it;
 * with described, in log format 2 with a description record before the row.
 */
static char *
write_log(bool jsonl, bool intervals, bool described, strpool *pool, size_t *len)
{
	static const char *const types[] = {"client backend", "walsender"};
	format_meta m = {
		.run_us = 1764151200000000, .source = "pg_stat_activity", .server = "h,\"q\":5432",
		.server_version = "15.2", .interval_s = 0.01, .period_s = 0.01,
		.backend_types = types, .nbackend_types = 2, .descriptions = described,
	};
	sample_health hl = {.ts_us = 1764151260000000, .samples = 6000, .missed = 3,
		.failed = 1, .elapsed_s = 60.001, .rate_hz = 99.99, .p50_ms = 0.5, .p99_ms = 2.25,
	.max_ms = 7.125, .hidden = 4, .ngaps = 1, .gap_s = 1.5, .cpu_us_per_sample = 60.5,
	.backend_cpu_us_per_sample = -1};
	sample_gap gap = {1764151210000000, 1764151211500000, "server closed; the connection"};
	format_interval iv = {1764151200000000, 1764151210000000, 1000, 2000, 0.01, true};
	wprof_group g;
	sample_batch b;
	sample_row *r;
	strbuf		sb;
	char	   *text;

	strbuf_init(&sb);
	if (!jsonl)
		strbuf_puts(&sb, intervals ? FORMAT_CSV_INTERVAL_HEADER "\n" :
					FORMAT_CSV_SAMPLE_HEADER "\n");
	(jsonl ? format_meta_jsonl : format_meta_csv) (&sb, &m);
	if (described)
		(jsonl ? format_description_jsonl : format_description_csv) (&sb, "Lock", "relation",
																	 ODD_DESC);
	sample_batch_init(&b);
	sample_batch_reset(&b, 1764151201000000);
	r = sample_batch_add(&b);
	r->pid = 42;
	r->backend_start_us = 1764150000123456;
	r->backend_type = strpool_intern(pool, "client backend");
	r->datname = strpool_intern(pool, "db, \"quoted\"");
	r->usename = strpool_intern(pool, "u");
	r->application_name = strpool_intern(pool, "app\nwith a line break");
	r->state = strpool_intern(pool, "active");
	r->wait_event_type = strpool_intern(pool, "Lock");
	r->wait_event = strpool_intern(pool, "relation");
	r->query_id = -77;
	r->query = "select 'é', \"x\"\tfrom t";
	sample_batch_add_blocker(&b, 10);
	sample_batch_add_blocker(&b, 11);
	if (intervals)
	{
		memset(&g, 0, sizeof(g));
		g.key.datname = r->datname;
		g.key.usename = r->usename;
		g.key.appname = r->application_name;
		g.key.backend_type = r->backend_type;
		g.key.type = r->wait_event_type;
		g.key.event = r->wait_event;
		g.key.query_id = r->query_id;
		g.samples = 1500;
		g.measured_us = 2500000;
		g.measured_count = 12;
		(jsonl ? format_interval_jsonl : format_interval_csv) (&sb, &iv, &g);
	}
	else
		(jsonl ? format_sample_jsonl : format_sample_csv) (&sb, &b, r);
	(jsonl ? format_gap_jsonl : format_gap_csv) (&sb, &gap);
	(jsonl ? format_health_jsonl : format_health_csv) (&sb, &hl);
	sample_batch_free(&b);
	*len = sb.len;
	text = strbuf_detach(&sb);
	strbuf_free(&sb);			/* detach leaves a fresh buffer behind */
	return text;
}

/*
 * Both formats, both kinds of rows, with and without a description
 * record: every field reads back as it was written.
 */
START_TEST(round_trip)
{
	for (int v = 0; v < 8; v++)
	{
		bool		jsonl = v & 1,
					intervals = v & 2,
					described = v & 4;
		strpool		pool;
		size_t		len;
		char	   *text;
		char	   *path;
		histread	h;
		histread_rec rec;
		char	   *cause = NULL;

		strpool_init(&pool);
		text = write_log(jsonl, intervals, described, &pool, &len);
		path = temp_file(text, len);
		ck_assert(histread_open(&h, path, &pool, &cause));
		ck_assert_int_eq(histread_next(&h, &rec, &cause), 1);
		ck_assert_int_eq(rec.kind, HISTREAD_META);
		ck_assert_int_eq(rec.meta.run.run_us, 1764151200000000);
		ck_assert_str_eq(rec.meta.run.server, "h,\"q\":5432");
		ck_assert_int_eq(rec.meta.run.nbackend_types, 2);
		ck_assert_str_eq(rec.meta.run.backend_types[1], "walsender");
		ck_assert(rec.meta.run.interval_s == 0.01 && rec.meta.run.period_s == 0.01);
		ck_assert_int_eq(rec.meta.log_version, described ? 2 : 1);
		ck_assert(rec.meta.run.descriptions == described);
		ck_assert_str_eq(rec.meta.run.tool, "pgtempo-waits");
		ck_assert_str_eq(rec.meta.run.version, PACKAGE_VERSION);
		if (described)
		{
			ck_assert_int_eq(histread_next(&h, &rec, &cause), 1);
			ck_assert_int_eq(rec.kind, HISTREAD_DESCRIPTION);
			ck_assert_str_eq(rec.desc.wait_event_type, "Lock");
			ck_assert_str_eq(rec.desc.wait_event, "relation");
			ck_assert_str_eq(rec.desc.description, ODD_DESC);
			/* interned, as the rows' names: the table looks them up as the report will */
			ck_assert_ptr_eq(rec.desc.wait_event, strpool_intern(&pool, "relation"));
		}
		ck_assert_int_eq(histread_next(&h, &rec, &cause), 1);
		ck_assert_int_eq(rec.kind, intervals ? HISTREAD_INTERVAL : HISTREAD_SAMPLE);
		ck_assert_str_eq(rec.row.datname, "db, \"quoted\"");
		ck_assert_str_eq(rec.row.application_name, "app\nwith a line break");
		ck_assert_str_eq(rec.row.wait_event, "relation");
		ck_assert_int_eq(rec.row.query_id, -77);
		ck_assert_int_eq(rec.row.cls, SAMPLE_WAIT);
		if (intervals)
		{
			ck_assert_int_eq(rec.start_us, 1764151200000000);
			ck_assert_int_eq(rec.ts_us, 1764151210000000);
			ck_assert_int_eq(rec.ticks, 1000);
			ck_assert_int_eq(rec.row.samples, 1500);
			ck_assert_int_eq(rec.row.measured_us, 2500000);
			ck_assert_int_eq(rec.row.measured_count, 12);
		}
		else
		{
			ck_assert_int_eq(rec.ts_us, 1764151201000000);
			ck_assert_int_eq(rec.row.pid, 42);
			ck_assert_int_eq(rec.row.backend_start_us, 1764150000123456);
			ck_assert_str_eq(rec.row.query, "select 'é', \"x\"\tfrom t");
			ck_assert_int_eq(rec.row.nblockers, 2);
			ck_assert_int_eq(rec.blockers[1], 11);
			ck_assert_int_eq(rec.row.samples, 1);
		}
		ck_assert_int_eq(histread_next(&h, &rec, &cause), 1);
		ck_assert_int_eq(rec.kind, HISTREAD_GAP);
		ck_assert_int_eq(rec.gap.end_us - rec.gap.start_us, 1500000);
		/* a CSV comment line holds the reason as a folded frame does: ';' as ':' */
		ck_assert_str_eq(rec.gap.reason, jsonl ? "server closed; the connection" :
						 "server closed: the connection");
		ck_assert_int_eq(histread_next(&h, &rec, &cause), 1);
		ck_assert_int_eq(rec.kind, HISTREAD_HEALTH);
		ck_assert_int_eq(rec.health.samples, 6000);
		ck_assert_int_eq(rec.health.missed, 3);
		ck_assert_int_eq(rec.health.failed, 1);
		ck_assert_int_eq(rec.health.hidden, 4);
		ck_assert_int_eq(rec.health.ngaps, 1);
		ck_assert(rec.health.elapsed_s == 60.001 && rec.health.max_ms == 7.125);
		ck_assert(rec.health.cpu_us_per_sample == 60.5);
		ck_assert(rec.health.backend_cpu_us_per_sample == -1);
		ck_assert_int_eq(histread_next(&h, &rec, &cause), 0);
		histread_close(&h);
		unlink(path);
		free(path);
		free(text);
		strpool_free(&pool);
	}
}
END_TEST

/*
 * The table of descriptions: found by text, a pair without a description
 * is known too, the last one set wins (two files that differ), clearing
 * forgets; the report's callback says nothing of a pair it lacks.
 */
START_TEST(descriptions)
{
	evdesc_table d;
	const char *desc = "x";
	char		type[] = "Lock";

	evdesc_init(&d);
	ck_assert(!evdesc_find(&d, "Lock", "relation", &desc));
	ck_assert_ptr_null(desc);
	evdesc_set(&d, "Lock", "relation", "first");
	evdesc_set(&d, "IO", "DataFileRead", NULL);
	evdesc_set(&d, "Lock", "relation", "second");
	/* another copy of the same text finds the pair */
	ck_assert(evdesc_find(&d, type, "relation", &desc));
	ck_assert_str_eq(desc, "second");
	ck_assert(evdesc_find(&d, "IO", "DataFileRead", &desc));
	ck_assert_ptr_null(desc);
	ck_assert_str_eq(evdesc_describe(&d, "Lock", "relation"), "second");
	ck_assert_ptr_null(evdesc_describe(&d, "Lock", "tuple"));
	ck_assert_ptr_null(evdesc_describe(&d, "Lock", NULL));
	ck_assert_ptr_null(evdesc_describe(&d, NULL, "relation"));
	/* more pairs than the table's first size */
	for (int i = 0; i < 200; i++)
	{
		static char names[200][8];

		snprintf(names[i], sizeof(names[i]), "e%d", i);
		evdesc_set(&d, "Lock", names[i], names[i]);
	}
	ck_assert_str_eq(evdesc_describe(&d, "Lock", "e150"), "e150");
	ck_assert_str_eq(evdesc_describe(&d, "Lock", "relation"), "second");
	evdesc_clear(&d);
	ck_assert(!evdesc_find(&d, "Lock", "relation", &desc));
	evdesc_free(&d);
}
END_TEST

/* Timestamps as format_ts writes them, and nothing else. */
START_TEST(timestamps)
{
	static const struct
	{
		const char *text;
		int64_t		us;			/* -1: refused */
	}			cases[] = {
		{"1970-01-01T00:00:00.000000Z", 0},
		{"2026-11-26T03:10:00.250000Z", 1795662600250000},
		{"2000-02-29T23:59:59.999999Z", 951868799999999},
		{"2026-11-26T03:10:00Z", -1},
		{"2026-11-26 03:10:00.000000Z", -1},
		{"2026-13-26T03:10:00.000000Z", -1},
		{"2026-11-26T03:10:00.00000xZ", -1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		int64_t		us = -1;
		bool		ok = histfield_ts(cases[i].text, strlen(cases[i].text), &us);
		char		back[FORMAT_TS_LEN];

		ck_assert_msg(ok == (cases[i].us >= 0), "%s", cases[i].text);
		if (!ok)
			continue;
		ck_assert_msg(us == cases[i].us, "%s: %lld", cases[i].text, (long long) us);
		format_ts(back, us);
		ck_assert_str_eq(back, cases[i].text);
	}
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_histread");
	TCase	   *tc = tcase_create("histread");

	setenv("TZ", "UTC", 1);
	tcase_add_test(tc, bad_files);
	tcase_add_test(tc, old_meta);
	tcase_add_test(tc, being_written);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, descriptions);
	tcase_add_test(tc, timestamps);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
