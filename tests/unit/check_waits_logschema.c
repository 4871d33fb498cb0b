/*
 * check_waits_logschema.c — the one table of the history log's columns
 * (format.h): the CSV headers and the store's COPY columns are its names;
 * every kind of row written through it in CSV, JSON Lines and COPY reads
 * back column by column, with every value there and with every value
 * absent; and lines as earlier versions wrote them (log format 1 and 2,
 * CSV and JSON Lines) still read.  The health and gap records, written
 * through their tables of fields, read back field by field too.
 */
#include "config.h"

#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "histfield.h"
#include "histread.h"
#include "store.h"

#include "unit.h"

static const int32_t pids[] = {4711, 99};
static char texts[FORMAT_NCOLUMNS][64];

/*
 * A row of the kind with a value of its own in every column (full), or
 * with every column that may be absent absent.
 */
static void
make_row(format_rowkind kind, bool full, format_row *r)
{
	const format_kind *k = &format_kinds[kind];

	memset(r, 0, sizeof(*r));
	r->row.backend_start_us = INT64_MIN;
	r->row.wait_time_us = -1;
	r->measured = full;
	for (int i = 0; i < k->ncols; i++)
	{
		const format_column *c = &k->cols[i];
		bool		absent = !full && c->when != FORMAT_COL_ALWAYS;

		switch (c->type)
		{
			case FORMAT_COL_TS:
				if (!absent)
					format_column_set_int(c, r, INT64_C(1764151200000000) + i * INT64_C(1000003));
				break;
			case FORMAT_COL_INT:
				if (!absent)
					format_column_set_int(c, r, c->least == INT64_MIN ? -1000 - i : c->least + 100 + i);
				break;
			case FORMAT_COL_TEXT:
				/* the separators of every format, and a line break */
				snprintf(texts[c - format_columns], sizeof(texts[0]), "%s, \"q\"\t\\\n%d",
						 c->name, i);
				*(const char **) ((char *) r + c->offset) = full ? texts[c - format_columns] :
					NULL;
				break;
			case FORMAT_COL_PIDS:
				r->blockers = pids;
				r->row.nblockers = full ? 2 : 0;
				break;
			case FORMAT_COL_NUM1:
			case FORMAT_COL_NUM2:
			case FORMAT_COL_NUM3:
			case FORMAT_COL_NUM6:
				*(double *) ((char *) r + c->offset) = i + 0.25;
				break;
			case FORMAT_COL_BOOL:
			case FORMAT_COL_STRS:
				ck_abort_msg("column %s: a meta record's type in a row", c->name);
				break;
		}
	}
}

/*
 * A log of one record: the CSV header (of the kind's rows), a meta
 * record, then the row r, else the health record hl, else the gap g.
 */
static char *
write_log(format_rowkind kind, bool jsonl, const format_row *r, const sample_health *hl,
		  const sample_gap *g, size_t *len)
{
	format_meta m = {
		.run_us = 1764151200000000, .source = "pg_stat_activity", .server = "h:5432",
		.server_version = "15.2", .interval_s = 0.01, .period_s = 0.01,
	};
	strbuf		sb;
	char	   *text;

	strbuf_init(&sb);
	if (!jsonl)
		strbuf_printf(&sb, "%s\n", format_kinds[kind].csv_header);
	(jsonl ? format_meta_jsonl : format_meta_csv) (&sb, &m);
	if (r != NULL)
		(jsonl ? format_row_jsonl : format_row_csv) (&sb, kind, r);
	else if (hl != NULL)
		(jsonl ? format_health_jsonl : format_health_csv) (&sb, hl);
	else
		(jsonl ? format_gap_jsonl : format_gap_csv) (&sb, g);
	*len = sb.len;
	text = strbuf_detach(&sb);
	strbuf_free(&sb);
	return text;
}

/* Read the row of a log back; the record. */
static histread_rec
read_row(const char *text, size_t len, strpool *pool)
{
	char	   *path = xstrdup("/tmp/check_waits_logschema.XXXXXX");
	int			fd = mkstemp(path);
	histread	h;
	histread_rec rec;
	char	   *cause = NULL;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t) len);
	close(fd);
	ck_assert(histread_open(&h, path, pool, &cause));
	ck_assert_int_eq(histread_next(&h, &rec, &cause), 1);
	ck_assert_int_eq(rec.kind, HISTREAD_META);
	/* a description record (log format 2) may come before the row */
	do
		if (histread_next(&h, &rec, &cause) != 1)
			ck_abort_msg("%s", cause);
	while (rec.kind == HISTREAD_DESCRIPTION);
	ck_assert_int_eq(histread_next(&h, &rec, &cause), 0);
	histread_close(&h);
	unlink(path);
	free(path);
	return rec;
}

/* Each column of a row read back (as a format_row) against the row written. */
static void
check_columns(format_rowkind kind, const format_row *want, const histread_rec *rec,
			  const char *what)
{
	const format_kind *k = &format_kinds[kind];
	format_row	got;

	memset(&got, 0, sizeof(got));
	got.ts_us = (int64_t) rec->ts_us;
	got.start_us = (int64_t) rec->start_us;
	got.ticks = (int64_t) rec->ticks;
	got.row = rec->row;
	got.blockers = rec->blockers;
	got.measured_seconds = (double) rec->row.measured_us / 1e6;
	for (int i = 0; i < k->ncols; i++)
	{
		const format_column *c = &k->cols[i];
		const char *ws,
				   *gs;

		/* only a number computed from the others may go unread */
		ck_assert_msg(c->read || c->type == FORMAT_COL_NUM1 || c->type == FORMAT_COL_NUM2 ||
					  c->type == FORMAT_COL_NUM3 || c->type == FORMAT_COL_NUM6,
					  "column %s is not read back", c->name);
		if (!c->read)
			continue;
		switch (c->type)
		{
			case FORMAT_COL_TS:
			case FORMAT_COL_INT:
				ck_assert_msg(format_column_int(c, &got) == format_column_int(c, want), "%s: column %s", what,
							  c->name);
				break;
			case FORMAT_COL_TEXT:
				ws = *(const char *const *) ((const char *) want + c->offset);
				gs = *(const char *const *) ((const char *) &got + c->offset);
				ck_assert_msg((ws == NULL && gs == NULL) ||
							  (ws != NULL && gs != NULL && strcmp(ws, gs) == 0),
							  "%s: column %s", what, c->name);
				break;
			case FORMAT_COL_PIDS:
				ck_assert_msg(got.row.nblockers == want->row.nblockers, "%s: %s", what,
							  c->name);
				for (int j = 0; j < want->row.nblockers; j++)
					ck_assert_int_eq(got.blockers[j], want->blockers[j]);
				break;
			case FORMAT_COL_NUM1:
			case FORMAT_COL_NUM2:
			case FORMAT_COL_NUM3:
			case FORMAT_COL_NUM6:
				ck_assert_msg(fabs(*(const double *) ((const char *) &got + c->offset) -
								   (format_has_value(c, want) ?
									*(const double *) ((const char *) want + c->offset) : 0)) < 1e-6,
							  "%s: column %s", what, c->name);
				break;
			case FORMAT_COL_BOOL:
			case FORMAT_COL_STRS:
				ck_abort_msg("column %s: a meta record's type in a row", c->name);
				break;
		}
	}
}

/* The names in the headers and the store's column lists are the table's. */
START_TEST(names_once)
{
	for (int kind = 0; kind < FORMAT_NROWKINDS; kind++)
	{
		const format_kind *k = &format_kinds[kind];
		strbuf		csv,
					copy;

		strbuf_init(&csv);
		strbuf_init(&copy);
		strbuf_puts(&copy, "server");
		for (int i = 0; i < k->ncols; i++)
		{
			strbuf_printf(&csv, "%s%s", i ? "," : "", k->cols[i].name);
			if (k->cols[i].copy)
				strbuf_printf(&copy, ", %s", k->cols[i].name);
		}
		ck_assert_str_eq(k->csv_header, csv.data);
		ck_assert_str_eq(kind == FORMAT_ROW_SAMPLE ? STORE_SAMPLES_COLUMNS :
						 STORE_PROFILE_COLUMNS, copy.data);
		strbuf_free(&csv);
		strbuf_free(&copy);
	}
	ck_assert_str_eq(format_kinds[FORMAT_ROW_SAMPLE].csv_header, FORMAT_CSV_SAMPLE_HEADER);
	ck_assert_str_eq(format_kinds[FORMAT_ROW_INTERVAL].csv_header, FORMAT_CSV_INTERVAL_HEADER);
}
END_TEST

/* Each kind of row in CSV and JSON Lines, all values there or all absent, reads back. */
START_TEST(round_trip_columns)
{
	for (int v = 0; v < 2 * 2 * FORMAT_NROWKINDS; v++)
	{
		format_rowkind kind = (format_rowkind) (v % FORMAT_NROWKINDS);
		bool		jsonl = (v / FORMAT_NROWKINDS) & 1;
		bool		full = (v / FORMAT_NROWKINDS) & 2;
		format_row	r;
		strpool		pool;
		size_t		len;
		char	   *text;
		char		what[64];
		histread_rec rec;

		snprintf(what, sizeof(what), "%s %s %s", format_kinds[kind].name,
				 jsonl ? "jsonl" : "csv", full ? "full" : "absent");
		strpool_init(&pool);
		make_row(kind, full, &r);
		text = write_log(kind, jsonl, &r, NULL, NULL, &len);
		rec = read_row(text, len, &pool);
		ck_assert_int_eq(rec.kind, kind == FORMAT_ROW_SAMPLE ? HISTREAD_SAMPLE :
						 HISTREAD_INTERVAL);
		check_columns(kind, &r, &rec, what);
		free(text);
		strpool_free(&pool);
	}
}
END_TEST

/* COPY's text format undone: \N is NULL (returned as NULL), backslash escapes. */
static char *
copy_unescape(const char *s, size_t len)
{
	strbuf		sb;
	char	   *out;

	if (len == 2 && memcmp(s, "\\N", 2) == 0)
		return NULL;
	strbuf_init(&sb);
	for (size_t i = 0; i < len; i++)
	{
		if (s[i] != '\\' || i + 1 == len)
		{
			strbuf_putc(&sb, s[i]);
			continue;
		}
		i++;
		strbuf_putc(&sb, s[i] == 't' ? '\t' : s[i] == 'n' ? '\n' : s[i] == 'r' ? '\r' : s[i]);
	}
	out = strbuf_detach(&sb);
	strbuf_free(&sb);
	return out;
}

/* A COPY row holds, column by column, what the CSV line holds (an empty field as \N). */
START_TEST(copy_matches_csv)
{
	for (int v = 0; v < 2 * FORMAT_NROWKINDS; v++)
	{
		format_rowkind kind = (format_rowkind) (v % FORMAT_NROWKINDS);
		const format_kind *k = &format_kinds[kind];
		format_row	r;
		strbuf		csv,
					copy;
		histfield	f[32];
		int			n;
		const char *p;

		make_row(kind, v >= FORMAT_NROWKINDS, &r);
		strbuf_init(&csv);
		strbuf_init(&copy);
		format_row_csv(&csv, kind, &r);
		format_row_copy(&copy, kind, "db1:5432", &r);
		csv.data[--csv.len] = '\0';
		ck_assert(histfield_csv(csv.data, f, 32, &n));
		ck_assert_int_eq(n, k->ncols);
		ck_assert(strncmp(copy.data, "db1:5432\t", 9) == 0);
		p = copy.data + 9;
		for (int i = 0; i < k->ncols; i++)
		{
			size_t		flen;
			char	   *field;

			if (!k->cols[i].copy)
				continue;
			flen = strcspn(p, "\t\n");
			field = copy_unescape(p, flen);
			if (f[i].vlen == 0)
				ck_assert_msg(field == NULL, "%s: column %s", k->name, k->cols[i].name);
			else
				ck_assert_msg(field != NULL && strlen(field) == f[i].vlen &&
							  memcmp(field, f[i].v, f[i].vlen) == 0, "%s: column %s",
							  k->name, k->cols[i].name);
			free(field);
			p += flen;
			ck_assert(*p == (i + 1 < k->ncols ? '\t' : '\n') || *p == '\n');
			p++;
		}
		ck_assert_int_eq(*p, '\0');
		strbuf_free(&csv);
		strbuf_free(&copy);
	}
}
END_TEST

#define OLD_META(v) "{\"type\":\"meta\",\"log_version\":" #v ",\"tool\":\"pgtempo-waits 0.1.0\"," \
	"\"run\":\"2023-11-14T22:13:20.000000Z\",\"source\":\"pg_stat_activity\",\"server\":" \
	"\"/tmp:5432\",\"server_version\":\"15.2\",\"interval_s\":0.01,\"period_s\":0.01," \
	"\"include_idle\":false,\"measured\":true,\"backend_types\":[\"client backend\"]," \
	"\"backend_types_given\":false}\n"

/* Lines as the writers before the table wrote them: log format 1 and 2, CSV and JSON Lines. */
START_TEST(old_files)
{
	static const struct
	{
		const char *text;
		int			pid;		/* a sample's; 0 for a profile line */
		int64_t		query_id;
		uint64_t	measured_us;
	}			cases[] = {
		{"ts,pid,backend_start,backend_type,datname,usename,application_name,client_addr,"
			"state,wait_event_type,wait_event,query_id,leader_pid,blockers,samples,"
			"wait_time_us,query\n# meta " OLD_META(1)
			"2023-11-14T22:13:20.123456Z,4242,2023-11-14T22:13:20.000000Z,client backend,"
			"shop,app,\"web,1\",10.0.0.1,active,Lock,relation,-77,4200,\"{11,12}\",1,,"
			"\"update t set v = 'x\"\"y'\"\n", 4242, -77, 0},
		{OLD_META(2)
			"{\"type\":\"description\",\"wait_event_type\":\"Lock\",\"wait_event\":"
			"\"relation\",\"description\":\"Waiting\"}\n"
			"{\"type\":\"sample\",\"ts\":\"2023-11-14T22:13:20.123456Z\",\"pid\":7,"
			"\"backend_start\":null,\"backend_type\":null,\"datname\":null,\"usename\":null,"
			"\"application_name\":null,\"client_addr\":null,\"state\":\"active\","
			"\"wait_event_type\":\"CPU\",\"wait_event\":\"CPU\",\"query_id\":null,"
			"\"leader_pid\":null,\"blockers\":[],\"samples\":1,\"wait_time_us\":null,"
			"\"query\":null}\n", 7, 0, 0},
		{"interval_start,interval_end,ticks,datname,usename,application_name,backend_type,"
			"wait_event_type,wait_event,query_id,samples,pct,est_seconds,measured_seconds,"
			"measured_count\n# meta " OLD_META(2)
			"2023-11-14T22:13:20.000000Z,2023-11-14T22:13:30.000000Z,1000,shop,app,web,"
			"client backend,IO,DataFileRead,99,100,25.00,1.000000,1.500000,3\n", 0, 99, 1500000},
		{OLD_META(1)
			"{\"type\":\"interval\",\"interval_start\":\"2023-11-14T22:13:20.000000Z\","
			"\"interval_end\":\"2023-11-14T22:13:30.000000Z\",\"ticks\":1000,"
			"\"datname\":\"shop\",\"usename\":\"app\",\"application_name\":\"web\","
			"\"backend_type\":\"client backend\",\"wait_event_type\":\"IO\","
			"\"wait_event\":\"DataFileRead\",\"query_id\":99,\"samples\":100,\"pct\":25,"
			"\"est_seconds\":1}\n", 0, 99, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		strpool		pool;
		const char *text = cases[i].text;
		histread_rec rec;

		strpool_init(&pool);
		rec = read_row(text, strlen(text), &pool);
		ck_assert_int_eq(rec.row.pid, cases[i].pid);
		ck_assert_int_eq(rec.row.query_id, cases[i].query_id);
		ck_assert_int_eq(rec.row.measured_us, cases[i].measured_us);
		if (cases[i].pid == 4242)
		{
			ck_assert_str_eq(rec.row.application_name, "web,1");
			ck_assert_str_eq(rec.row.query, "update t set v = 'x\"y'");
			ck_assert_int_eq(rec.row.nblockers, 2);
			ck_assert_int_eq(rec.blockers[1], 12);
			ck_assert_int_eq(rec.row.leader_pid, 4200);
		}
		if (cases[i].pid == 0)
		{
			ck_assert_int_eq(rec.ticks, 1000);
			ck_assert_int_eq(rec.ts_us - rec.start_us, 10000000);
			ck_assert_int_eq(rec.row.samples, 100);
		}
		strpool_free(&pool);
	}
}
END_TEST

/* An integer column: int64's whole range, nothing past it, nothing after the digits. */
START_TEST(integers)
{
	static const struct
	{
		const char *text;
		bool		ok;
		int64_t		want;
	}			cases[] = {
		{"9223372036854775807", true, INT64_MAX},
		{"-9223372036854775808", true, INT64_MIN},
		{"9223372036854775808", false, 0},
		{"-9223372036854775809", false, 0},
		{"18446744073709551616", false, 0},
		{"+42", false, 0},	/* JSON's number grammar, CSV too: no plus sign */
		{"-0", true, 0},
		{"-", false, 0},
		{"4x", false, 0},
		{"1.5", false, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		strbuf		sb;
		char	   *path = xstrdup("/tmp/check_waits_logschema.XXXXXX");
		int			fd = mkstemp(path);
		histread	h;
		histread_rec rec;
		strpool		pool;
		char	   *cause = NULL;
		int			rc;

		strbuf_init(&sb);
		strbuf_printf(&sb, "%s\n# meta " OLD_META(1) "2023-11-14T22:13:20.123456Z,7,,,,,,,active,"
					  "CPU,CPU,%s,,,1,,\n", FORMAT_CSV_SAMPLE_HEADER, cases[i].text);
		ck_assert_int_eq(write(fd, sb.data, sb.len), (ssize_t) sb.len);
		close(fd);
		strpool_init(&pool);
		ck_assert(histread_open(&h, path, &pool, &cause));
		ck_assert_int_eq(histread_next(&h, &rec, &cause), 1);
		rc = histread_next(&h, &rec, &cause);
		ck_assert_msg(rc == (cases[i].ok ? 1 : -1), "%s: %d", cases[i].text, rc);
		if (cases[i].ok)
			ck_assert(rec.row.query_id == cases[i].want);
		else
			ck_assert_ptr_nonnull(strstr(cause, "\"query_id\""));
		free(cause);
		histread_close(&h);
		strpool_free(&pool);
		strbuf_free(&sb);
		unlink(path);
		free(path);
	}
}
END_TEST

/*
 * A health record with a value of its own in every member (full), or with
 * those that may be unknown unknown.  Written out member by member, not
 * from the table, so that a field the table loses is missed here.  Every
 * number is exact in binary and at one decimal.
 */
static sample_health
make_health(bool full)
{
	sample_health h;

	memset(&h, 0, sizeof(h));
	h.ts_us = 1764151260000000;
	h.samples = 6000;
	h.failed = 1;
	h.missed = 3;
	h.gap_ticks = 150;
	h.elapsed_s = 60.5;
	h.rate_hz = 99.5;
	h.p50_ms = 0.5;
	h.p99_ms = 3.5;
	h.max_ms = 7.5;
	h.hidden = 4;
	h.ngaps = 2;
	h.gap_s = 1.5;
	h.cpu_us_per_sample = full ? 60.5 : -1;
	h.backend_cpu_us_per_sample = full ? 96.5 : -1;
	h.interval_s = 0.0625;
	h.cost_us_per_sample = full ? 1812.5 : -1;
	h.backends = full ? 1006 : -1;
	return h;
}

/* Every member of two health records the same. */
static void
check_health(const sample_health *want, const sample_health *got, const char *what)
{
	ck_assert_msg(got->ts_us == want->ts_us && got->samples == want->samples &&
				  got->failed == want->failed && got->missed == want->missed &&
				  got->gap_ticks == want->gap_ticks && got->hidden == want->hidden &&
				  got->ngaps == want->ngaps && got->backends == want->backends,
				  "%s: a count or time", what);
	ck_assert_msg(got->elapsed_s == want->elapsed_s && got->rate_hz == want->rate_hz &&
				  got->p50_ms == want->p50_ms && got->p99_ms == want->p99_ms &&
				  got->max_ms == want->max_ms && got->gap_s == want->gap_s &&
				  got->interval_s == want->interval_s, "%s: a number", what);
	ck_assert_msg(got->cpu_us_per_sample == want->cpu_us_per_sample &&
				  got->backend_cpu_us_per_sample == want->backend_cpu_us_per_sample &&
				  got->cost_us_per_sample == want->cost_us_per_sample, "%s: a cost", what);
}

/* Health and gap records in CSV and JSON Lines, every value there or the unknown ones not, read back. */
START_TEST(round_trip_records)
{
	for (int v = 0; v < 2 * 2 * 2; v++)
	{
		bool		gap = v & 1;
		bool		jsonl = v & 2;
		bool		full = v & 4;
		sample_health hl = make_health(full);
		/* the reason as CSV keeps it: no ';' or line break */
		sample_gap	g = {1764151210000000, full ? 1764151211500000 : 0,
		(char *) "server closed the connection, unexpectedly"};
		strpool		pool;
		size_t		len;
		char	   *text;
		char		what[64];
		histread_rec rec;

		snprintf(what, sizeof(what), "%s %s %s", gap ? "gap" : "health",
				 jsonl ? "jsonl" : "csv", full ? "full" : "absent");
		strpool_init(&pool);
		text = write_log(FORMAT_ROW_SAMPLE, jsonl, NULL, gap ? NULL : &hl, &g, &len);
		rec = read_row(text, len, &pool);
		ck_assert_msg(rec.kind == (gap ? HISTREAD_GAP : HISTREAD_HEALTH), "%s", what);
		if (gap)
		{
			ck_assert_msg(rec.gap.start_us == g.start_us && rec.gap.end_us == g.end_us,
						  "%s: start or end", what);
			ck_assert_msg(rec.gap.reason != NULL && strcmp(rec.gap.reason, g.reason) == 0,
						  "%s: reason", what);
		}
		else
		{
			check_health(&hl, &rec.health, what);
			ck_assert_int_eq(rec.ts_us, hl.ts_us);
		}
		free(text);
		strpool_free(&pool);
	}
}
END_TEST

/* Every record of a log after its meta record (log format 3, with head records). */
static int
read_records(const char *text, strpool *pool, histread_rec *recs, int max, char **cause)
{
	char	   *path = xstrdup("/tmp/check_waits_logschema.XXXXXX");
	int			fd = mkstemp(path);
	histread	h;
	histread_rec rec;
	int			n = 0,
				rc;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t) strlen(text));
	close(fd);
	ck_assert(histread_open(&h, path, pool, cause));
	while ((rc = histread_next(&h, &rec, cause)) == 1)
		if (rec.kind != HISTREAD_META && n < max)
			recs[n++] = rec;
	histread_close(&h);
	unlink(path);
	free(path);
	return rc < 0 ? -1 : n;
}

static void
done_nothing(void *arg)
{
}

/* Two head or chain records the same in every column the reader reads. */
static void
check_head_fields(const format_kind *k, const format_head_rec *want, const format_head_rec *got,
				  const char *what)
{
	for (int i = 0; i < k->ncols; i++)
	{
		const format_column *c = &k->cols[i];
		const char *ws,
				   *gs;

		if (!c->read)
			continue;
		ws = *(const char *const *) ((const char *) want + c->offset);
		gs = *(const char *const *) ((const char *) got + c->offset);
		if (c->type == FORMAT_COL_TEXT)
			ck_assert_msg(ws == NULL ? gs == NULL : gs != NULL && strcmp(ws, gs) == 0,
						  "%s: %s \"%s\", not \"%s\"", what, c->name, gs ? gs : "(null)",
						  ws ? ws : "(null)");
		else if (c->type == FORMAT_COL_INT || c->type == FORMAT_COL_TS)
			ck_assert_msg(format_column_int(c, want) == format_column_int(c, got), "%s: %s",
						  what, c->name);
		else
			ck_assert_msg(*(const double *) ((const char *) want + c->offset) ==
						  *(const double *) ((const char *) got + c->offset), "%s: %s", what,
						  c->name);
	}
}

/* Head and chain records in CSV and JSON Lines, every field there or the unknown ones not, read back. */
START_TEST(round_trip_heads)
{
	for (int v = 0; v < 2 * 2; v++)
	{
		bool		jsonl = v & 1;
		bool		full = v & 2;
		format_meta m = {
			.run_us = 1764151200000000, .source = "pg_stat_activity", .server = "h:5432",
			.server_version = "15.2", .interval_s = 0.01, .period_s = 0.01, .heads = true,
		};
		format_interval iv = {1764151200000000, 1764151260000000, 6000, 9000, 0.01, false};
		heads_prof	hp;
		heads_cell *c;
		strpool		pool;
		strbuf		sb;
		histread_rec recs[4];
		format_head_rec want;
		char	   *cause = NULL;
		char		what[64];

		snprintf(what, sizeof(what), "heads %s %s", jsonl ? "jsonl" : "csv",
				 full ? "full" : "absent");
		heads_init(&hp);
		c = heads_get(&hp, 4242, full ? INT64_C(1764151100000000) : INT64_MIN);
		c->samples = 1000.0 / 3;
		c->direct = 1.0 / 3;
		if (full)
		{
			c->cycle = true;
			c->id.datname = "shop";
			c->id.usename = "app \"x\"";
			c->id.application_name = "web, 1";
			c->id.backend_type = "client backend";
			c->state = "idle in transaction";
			c->type = "Client";
			c->event = "ClientRead";
			c->query_id = -77;
			c->xact_start_us = INT64_C(1764151150000000);
			c->last_us = INT64_C(1764151259990000);
			heads_set_query(c, "update t\nset v = 'x;y'");
		}
		heads_add_chain(&hp, full ? "web, 1 4242;b 7;c\t8" : "4242;7", 2.5);
		strbuf_init(&sb);
		if (!jsonl)
			strbuf_printf(&sb, "%s\n", FORMAT_CSV_INTERVAL_HEADER);
		(jsonl ? format_meta_jsonl : format_meta_csv) (&sb, &m);
		format_heads_records(&sb, jsonl, &iv, &hp, done_nothing, NULL);
		strpool_init(&pool);
		ck_assert_msg(read_records(sb.data, &pool, recs, 4, &cause) == 2, "%s: %s", what,
					  cause ? cause : "not two records");
		ck_assert_int_eq(recs[0].kind, HISTREAD_HEAD);
		ck_assert_int_eq(recs[1].kind, HISTREAD_CHAIN);
		format_head_rec_of(&want, &iv, c, NULL);
		check_head_fields(&format_head_kind, &want, &recs[0].head, what);
		format_head_rec_of(&want, &iv, NULL, (const heads_chain *) hash_table_next(&hp.chains,
																				 &(size_t) {0}));
		check_head_fields(&format_chain_kind, &want, &recs[1].head, what);
		/* a file of log format 1 (or 2) holds no head record: it is refused */
		m.heads = false;
		strbuf_reset(&sb);
		format_meta_jsonl(&sb, &m);
		format_heads_records(&sb, true, &iv, &hp, done_nothing, NULL);
		ck_assert_int_eq(read_records(sb.data, &pool, recs, 4, &cause), -1);
		ck_assert_msg(strstr(cause, "a head record in a file of log format version 1, which has none") != NULL,
					  "%s", cause);
		free(cause);
		strbuf_free(&sb);
		strpool_free(&pool);
		heads_free(&hp);
	}
}
END_TEST

/* Health and gap records as earlier versions wrote them, before the cost budget and after. */
START_TEST(old_records)
{
	static const char *const cases[] = {
		FORMAT_CSV_SAMPLE_HEADER "\n# meta " OLD_META(1)
		"# health ts=2023-11-14T22:13:20.000000Z samples=300 elapsed_s=3.000 rate_hz=100.00 "
		"missed_ticks=2 gap_ticks=250 failed_samples=0 latency_p50_ms=0.250 "
		"latency_p99_ms=1.500 latency_max_ms=2.000 gaps=1 gap_seconds=2.500 hidden_rows=0\n",
		OLD_META(1)
		"{\"type\":\"health\",\"ts\":\"2023-11-14T22:13:20.000000Z\",\"samples\":300,"
		"\"elapsed_s\":3,\"rate_hz\":100,\"missed_ticks\":2,\"gap_ticks\":250,"
		"\"failed_samples\":0,\"latency_p50_ms\":0.25,\"latency_p99_ms\":1.5,"
		"\"latency_max_ms\":2,\"gaps\":1,\"gap_seconds\":2.5,\"hidden_rows\":0}\n",
		FORMAT_CSV_SAMPLE_HEADER "\n# meta " OLD_META(2)
		"# health ts=2023-11-14T22:13:20.000000Z samples=300 elapsed_s=3.000 rate_hz=100.00 "
		"missed_ticks=2 gap_ticks=250 failed_samples=0 latency_p50_ms=0.250 "
		"latency_p99_ms=1.500 latency_max_ms=2.000 gaps=1 gap_seconds=2.500 hidden_rows=0 "
		"interval_s=0.091000 cpu_us_per_sample=61.2 backends=1006\n",
		OLD_META(2)
		"{\"type\":\"health\",\"ts\":\"2023-11-14T22:13:20.000000Z\",\"samples\":300,"
		"\"elapsed_s\":3,\"rate_hz\":100,\"missed_ticks\":2,\"gap_ticks\":250,"
		"\"failed_samples\":0,\"latency_p50_ms\":0.25,\"latency_p99_ms\":1.5,"
		"\"latency_max_ms\":2,\"gaps\":1,\"gap_seconds\":2.5,\"hidden_rows\":0,"
		"\"cpu_us_per_sample\":61.25,\"interval_s\":0.091,\"cost_us_per_sample\":null,"
		"\"backends\":1006}\n",
		FORMAT_CSV_SAMPLE_HEADER "\n# meta " OLD_META(1)
		"# gap start=2023-11-14T22:13:20.000000Z end=2023-11-14T22:13:22.500000Z "
		"seconds=2.500 reason=server closed: gone \n",
		OLD_META(2)
		"{\"type\":\"gap\",\"start\":\"2023-11-14T22:13:20.000000Z\","
		"\"end\":\"2023-11-14T22:13:22.500000Z\",\"seconds\":2.5,"
		"\"reason\":\"server closed; gone\\n\"}\n",
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		strpool		pool;
		histread_rec rec;
		bool		newer = i == 2 || i == 3;

		strpool_init(&pool);
		rec = read_row(cases[i], strlen(cases[i]), &pool);
		if (i >= 4)
		{
			ck_assert_int_eq(rec.kind, HISTREAD_GAP);
			ck_assert_int_eq(rec.gap.start_us, INT64_C(1700000000000000));
			ck_assert_int_eq(rec.gap.end_us - rec.gap.start_us, 2500000);
			ck_assert_str_eq(rec.gap.reason, i == 4 ? "server closed: gone " :
							 "server closed; gone\n");
			strpool_free(&pool);
			continue;
		}
		ck_assert_int_eq(rec.kind, HISTREAD_HEALTH);
		ck_assert_int_eq(rec.health.ts_us, INT64_C(1700000000000000));
		ck_assert_int_eq(rec.health.samples, 300);
		ck_assert_int_eq(rec.health.gap_ticks, 250);
		ck_assert_int_eq(rec.health.ngaps, 1);
		ck_assert(rec.health.p50_ms == 0.25 && rec.health.gap_s == 2.5);
		/* the cost budget's fields: none before it, unknown ones left out or null */
		ck_assert(rec.health.interval_s == (newer ? 0.091 : 0));
		ck_assert(rec.health.cpu_us_per_sample == (newer ? (i == 2 ? 61.2 : 61.25) : -1));
		ck_assert(rec.health.backend_cpu_us_per_sample == -1);
		ck_assert(rec.health.cost_us_per_sample == -1);
		ck_assert_int_eq(rec.health.backends, newer ? 1006 : -1);
		strpool_free(&pool);
	}
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_logschema");
	TCase	   *tc = tcase_create("logschema");

	tcase_add_test(tc, names_once);
	tcase_add_test(tc, round_trip_columns);
	tcase_add_test(tc, copy_matches_csv);
	tcase_add_test(tc, old_files);
	tcase_add_test(tc, integers);
	tcase_add_test(tc, round_trip_records);
	tcase_add_test(tc, old_records);
	tcase_add_test(tc, round_trip_heads);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
