/*
 * format.c — log lines, COPY rows, folded stacks and trace timestamps.
 */
#include "config.h"

#include "format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgtempo/json.h"
#include "pgtempo/utf8.h"

const wprof_dim format_interval_dims[] = {
	WPROF_DIM_DB, WPROF_DIM_USER, WPROF_DIM_APP, WPROF_DIM_BACKEND_TYPE,
	WPROF_DIM_EVENT, WPROF_DIM_QUERY
};
const int	format_interval_ndims = sizeof(format_interval_dims) / sizeof(format_interval_dims[0]);

/* ISO 8601 in UTC with microseconds: what PostgreSQL reads back as timestamptz. */
void
format_ts(char *buf, int64_t us)
{
	int64_t		secs = us / 1000000;
	int64_t		frac = us % 1000000;
	time_t		t;
	struct tm	tm;

	/* floor division, so times before 1970 come out right too */
	if (frac < 0)
	{
		frac += 1000000;
		secs--;
	}
	t = (time_t) secs;
	if (gmtime_r(&t, &tm) == NULL)
	{
		snprintf(buf, FORMAT_TS_LEN, "1970-01-01T00:00:00.000000Z");
		return;
	}
	snprintf(buf, FORMAT_TS_LEN, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, (int) frac);
}

/* Local time, as PostgreSQL's timestamptz output with its offset. */
void
format_local_ts(char *buf, size_t len, int64_t us)
{
	time_t		secs = (time_t) (us / 1000000);
	long		frac = (long) (us % 1000000);
	struct tm	tm;
	long		off;
	char		sign;
	size_t		n;

	if (localtime_r(&secs, &tm) == NULL)
	{
		snprintf(buf, len, "?");
		return;
	}
	n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	off = tm.tm_gmtoff;
	sign = off < 0 ? '-' : '+';
	if (off < 0)
		off = -off;
	n += (size_t) snprintf(buf + n, len - n, ".%06ld%c%02ld", frac, sign, off / 3600);
	/* like PostgreSQL: minutes and seconds of the offset only when there are some */
	if (off % 3600 != 0 && n < len)
		n += (size_t) snprintf(buf + n, len - n, ":%02ld", off % 3600 / 60);
	if (off % 60 != 0 && n < len)
		snprintf(buf + n, len - n, ":%02ld", off % 60);
}

/* A duration in the unit that reads best. */
void
format_seconds(char *buf, double s)
{
	if (s >= 1)
		snprintf(buf, FORMAT_TS_LEN, "%.4g s", s);
	else if (s >= 1e-3)
		snprintf(buf, FORMAT_TS_LEN, "%.4g ms", s * 1e3);
	else
		snprintf(buf, FORMAT_TS_LEN, "%.4g us", s * 1e6);
}

/* RFC 4180: quote only when needed, so plain values stay plain. */
/*
 * s with bytes that are not UTF-8 (an SQL_ASCII database hands out any)
 * written as \xNN, as JSON writes them: every file the tool writes is
 * UTF-8.  valid is initialized here; the caller frees it.
 */
static const char *
escaped_copy(strbuf *valid, const char *s)
{
	strbuf_init(valid);
	utf8_append_escaped(valid, s, strlen(s));
	return valid->data;
}

void
format_csv_field(strbuf *sb, const char *s)
{
	strbuf		valid;

	if (s == NULL)
		return;
	if (!utf8_valid(s, strlen(s)))
	{
		format_csv_field(sb, escaped_copy(&valid, s));
		strbuf_free(&valid);
		return;
	}
	if (strpbrk(s, ",\"\r\n") == NULL)
	{
		strbuf_puts(sb, s);
		return;
	}
	strbuf_putc(sb, '"');
	for (; *s; s++)
	{
		if (*s == '"')
			strbuf_putc(sb, '"');
		strbuf_putc(sb, *s);
	}
	strbuf_putc(sb, '"');
}

/* COPY's text format: \N for NULL, backslash escapes for the separators. */
void
format_copy_field(strbuf *sb, const char *s)
{
	if (s == NULL)
	{
		strbuf_puts(sb, "\\N");
		return;
	}
	for (; *s; s++)
	{
		switch (*s)
		{
			case '\\':
				strbuf_puts(sb, "\\\\");
				break;
			case '\t':
				strbuf_puts(sb, "\\t");
				break;
			case '\n':
				strbuf_puts(sb, "\\n");
				break;
			case '\r':
				strbuf_puts(sb, "\\r");
				break;
			default:
				strbuf_putc(sb, *s);
		}
	}
}

/* A flame-graph frame: "-" for none, else as utf8_append_frame writes it. */
void
format_folded_frame(strbuf *sb, const char *s)
{
	if (s == NULL || *s == '\0')
	{
		strbuf_putc(sb, '-');
		return;
	}
	utf8_append_frame(sb, s, strlen(s));
}

/* The blocking pids in PostgreSQL's int4[] syntax, so the store can COPY them. */
void
format_blockers(strbuf *sb, const int32_t *pids, int n)
{
	if (n == 0)
		return;
	strbuf_putc(sb, '{');
	for (int i = 0; i < n; i++)
		strbuf_printf(sb, "%s%" PRId32, i ? "," : "", pids[i]);
	strbuf_putc(sb, '}');
}

/* ---------------------------------------------------------------- the columns */

/* what else holds a column, and whether and how a reader reads it */
#define FORMAT_ALSO_LOGONLY 0
#define FORMAT_ALSO_COPY 1
#define FORMAT_ALSO_REPORT 2
#define FORMAT_READ_DERIVED 0
#define FORMAT_READ_READ 1
#define FORMAT_READ_NEWER 2
/* How a member is stored, from its type, so that the table cannot say it wrong. */
#define STORE_OF(T, member) _Generic(((T *) 0)->member, \
	int32_t: FORMAT_STORE_I32, uint32_t: FORMAT_STORE_U32, int64_t: FORMAT_STORE_I64, \
	uint64_t: FORMAT_STORE_U64, double: FORMAT_STORE_DOUBLE, const char *: FORMAT_STORE_TEXT, \
	char *: FORMAT_STORE_TEXT, const int32_t *: FORMAT_STORE_PIDS, bool: FORMAT_STORE_BOOL, \
	const char *const *: FORMAT_STORE_STRS)
#define MOST_OF(T, member) _Generic(((T *) 0)->member, \
	int32_t: INT32_MAX, uint32_t: UINT32_MAX, default: INT64_MAX)
/* what a reader gives a column without a value: what the writer takes for none */
#define ABSENT_ALWAYS 0
#define ABSENT_IF_KNOWN INT64_MIN
#define ABSENT_IF_NONZERO 0
#define ABSENT_IF_NONNEG (-1)
#define ABSENT_IF_MEASURED 0
#define ABSENT_IF_NONNEG_OUT (-1)
/* each type of the tables: its column type, its type in the store, whether a reader requires it */
#define COLTYPE_TS FORMAT_COL_TS
#define COLTYPE_INT FORMAT_COL_INT
#define COLTYPE_INT4 FORMAT_COL_INT
#define COLTYPE_TEXT FORMAT_COL_TEXT
#define COLTYPE_PIDS FORMAT_COL_PIDS
#define COLTYPE_NUM1 FORMAT_COL_NUM1
#define COLTYPE_NUM2 FORMAT_COL_NUM2
#define COLTYPE_NUM3 FORMAT_COL_NUM3
#define COLTYPE_NUM6 FORMAT_COL_NUM6
#define COLTYPE_BOOL FORMAT_COL_BOOL
#define COLTYPE_STRS FORMAT_COL_STRS
#define SQL_TS "timestamptz"
#define SQL_INT "int8"
#define SQL_INT4 "int4"
#define SQL_TEXT "text"
#define SQL_PIDS "int4[]"
#define SQL_NUM1 "float8"
#define SQL_NUM2 "float8"
#define SQL_NUM3 "float8"
#define SQL_NUM6 "float8"
#define SQL_BOOL "bool"
#define SQL_STRS "text[]"
/* text and pids are never missing: none is a value of its own */
#define REQUIRED_TS(when) FORMAT_COL_##when == FORMAT_COL_ALWAYS
#define REQUIRED_INT(when) REQUIRED_TS(when)
#define REQUIRED_INT4(when) REQUIRED_TS(when)
#define REQUIRED_NUM1(when) REQUIRED_TS(when)
#define REQUIRED_NUM2(when) REQUIRED_TS(when)
#define REQUIRED_NUM3(when) REQUIRED_TS(when)
#define REQUIRED_NUM6(when) REQUIRED_TS(when)
#define REQUIRED_BOOL(when) REQUIRED_TS(when)
#define REQUIRED_STRS(when) REQUIRED_TS(when)
#define REQUIRED_TEXT(when) false
#define REQUIRED_PIDS(when) false
#define COLUMN_OF(T, name, type, member, when, least, also, read, agg) \
	{#name, sizeof(#name) - 1, COLTYPE_##type, FORMAT_COL_##when, STORE_OF(T, member), \
	 offsetof(T, member), least, MOST_OF(T, member), ABSENT_##when, \
	 (REQUIRED_##type(when)) && FORMAT_READ_##read != FORMAT_READ_NEWER, \
	 FORMAT_ALSO_##also == FORMAT_ALSO_COPY, FORMAT_ALSO_##also == FORMAT_ALSO_REPORT, \
	 FORMAT_READ_##read != FORMAT_READ_DERIVED, SQL_##type, FORMAT_AGG_##agg},
#define COLUMN(name, type, member, when, least, also, read) \
	COLUMN_OF(format_row, name, type, member, when, least, also, read, NONE)
#define HEALTH_FIELD(name, type, member, when, least, also, read, agg) \
	COLUMN_OF(sample_health, name, type, member, when, least, also, read, agg)
#define GAP_FIELD(name, type, member, when, least, also, read) \
	COLUMN_OF(format_gap_rec, name, type, member, when, least, also, read, NONE)
#define HEAD_FIELD(name, type, member, when, least, also, read) \
	COLUMN_OF(format_head_rec, name, type, member, when, least, also, read, NONE)
#define META_FIELD(name, type, member, when, least, also, read) \
	COLUMN_OF(format_meta, name, type, member, when, least, also, read, NONE)
#define DESCRIPTION_FIELD(name, type, member, when, least, also, read) \
	COLUMN_OF(format_description, name, type, member, when, least, also, read, NONE)
#define MEASURED_FIELD(name, type, member, when, least, also, read) \
	COLUMN_OF(format_measured_rec, name, type, member, when, least, also, read, NONE)
#define STORE_FIELD(name, type, member, when, least, also, read) \
	COLUMN_OF(format_store_counts, name, type, member, when, least, also, read, NONE)
#define NSAMPLE_COLS (0 FORMAT_SAMPLE_COLUMNS(FORMAT_COUNT_, FORMAT_COUNT_))

/* a list of texts is read as its pointer and the count right after it */
_Static_assert(offsetof(format_meta, nbackend_types) ==
			   offsetof(format_meta, backend_types) + sizeof(const char *const *),
			   "format_meta: nbackend_types right after backend_types");

const format_column format_columns[FORMAT_NCOLUMNS] = {
	FORMAT_SAMPLE_COLUMNS(COLUMN, COLUMN)
	FORMAT_INTERVAL_COLUMNS(COLUMN, COLUMN)
};

static const format_column health_fields[] = {FORMAT_HEALTH_FIELDS(HEALTH_FIELD)};
static const format_column gap_fields[] = {FORMAT_GAP_FIELDS(GAP_FIELD)};
static const format_column head_fields[] = {FORMAT_HEAD_FIELDS(HEAD_FIELD)};
static const format_column chain_fields[] = {FORMAT_CHAIN_FIELDS(HEAD_FIELD)};
static const format_column meta_fields[] = {FORMAT_META_FIELDS(META_FIELD)};
static const format_column description_fields[] = {FORMAT_DESCRIPTION_FIELDS(DESCRIPTION_FIELD)};
static const format_column store_fields[] = {FORMAT_STORE_FIELDS(STORE_FIELD)};
static const format_column measured_fields[] = {FORMAT_MEASURED_FIELDS(MEASURED_FIELD)};

#define NFIELDS(a) ((int) (sizeof(a) / sizeof((a)[0])))
#define KIND(name, csv, header, rest, cols, ncols, version) \
	{name, sizeof(name) - 1, FORMAT_CSV_##csv, header, rest, cols, ncols, version}

/* Every kind of record: name, CSV form, fields, the log format version that brought it. */
const format_kind format_kinds[FORMAT_NRECKINDS] = {
	[FORMAT_REC_SAMPLE] = KIND("sample", ROW, FORMAT_CSV_SAMPLE_HEADER, NULL,
							   format_columns, NSAMPLE_COLS, 1),
	[FORMAT_REC_INTERVAL] = KIND("interval", ROW, FORMAT_CSV_INTERVAL_HEADER, NULL,
								 format_columns + NSAMPLE_COLS, FORMAT_NCOLUMNS - NSAMPLE_COLS, 1),
	[FORMAT_REC_META] = KIND("meta", OBJECT, NULL, NULL, meta_fields, NFIELDS(meta_fields), 1),
	[FORMAT_REC_HEALTH] = KIND("health", PAIRS, NULL, NULL, health_fields,
							   NFIELDS(health_fields), 1),
	[FORMAT_REC_GAP] = KIND("gap", PAIRS, NULL, "reason", gap_fields, NFIELDS(gap_fields), 1),
	[FORMAT_REC_STORE] = KIND("store", PAIRS, NULL, NULL, store_fields, NFIELDS(store_fields), 1),
	[FORMAT_REC_DESCRIPTION] = KIND("description", OBJECT, NULL, NULL, description_fields,
									NFIELDS(description_fields), 2),
	[FORMAT_REC_HEAD] = KIND("head", OBJECT, NULL, NULL, head_fields, NFIELDS(head_fields), 3),
	[FORMAT_REC_CHAIN] = KIND("chain", OBJECT, NULL, NULL, chain_fields, NFIELDS(chain_fields), 3),
	[FORMAT_REC_MEASURED] = KIND("measured", OBJECT, NULL, NULL, measured_fields,
								 NFIELDS(measured_fields), 4),
};

/* A number column's value. */
static double
double_of(const format_column *c, const void *r)
{
	return *(const double *) ((const char *) r + c->offset);
}

/* A text column's value (NULL: none). */
static const char *
text_of(const format_column *c, const void *r)
{
	return *(const char *const *) ((const char *) r + c->offset);
}

/* A boolean column's value. */
static bool
bool_of(const format_column *c, const void *r)
{
	return *(const bool *) ((const char *) r + c->offset);
}

double
format_column_number(const format_column *c, const void *r)
{
	if (c->store == FORMAT_STORE_DOUBLE)
		return double_of(c, r);
	if (c->store == FORMAT_STORE_U64)
		return (double) (uint64_t) format_column_int(c, r);
	return (double) format_column_int(c, r);
}

void
format_column_set_number(const format_column *c, void *r, double v)
{
	if (c->store == FORMAT_STORE_DOUBLE)
		*(double *) ((char *) r + c->offset) = v;
	else if (c->store == FORMAT_STORE_U64)
		format_column_set_int(c, r, (int64_t) (uint64_t) llround(v));
	else
		format_column_set_int(c, r, llround(v));
}

const format_column *
format_kind_column(const format_kind *k, const char *name)
{
	for (int i = 0; i < k->ncols; i++)
		if (strcmp(k->cols[i].name, name) == 0)
			return &k->cols[i];
	return NULL;
}

/* Whether column c of r (a format_row, or a record's struct) has a value. */
bool
format_has_value(const format_column *c, const void *r)
{
	switch (c->when)
	{
		case FORMAT_COL_IF_KNOWN:
			return format_column_int(c, r) != INT64_MIN;
		case FORMAT_COL_IF_NONZERO:
			return format_column_int(c, r) != 0;
		case FORMAT_COL_IF_NONNEG:
		case FORMAT_COL_IF_NONNEG_OUT:
			if (c->store == FORMAT_STORE_DOUBLE)
				return double_of(c, r) >= 0;
			return format_column_int(c, r) >= 0;
		case FORMAT_COL_IF_MEASURED:
			return ((const format_row *) r)->measured;
		default:
			return true;
	}
}

/* The decimals a number column has in CSV and COPY. */
static int
num_digits(format_coltype type)
{
	return type == FORMAT_COL_NUM1 ? 1 : type == FORMAT_COL_NUM2 ? 2 :
		type == FORMAT_COL_NUM3 ? 3 : 6;
}

/*
 * How a delimited row is written: a CSV log line, or a row in COPY's text
 * format for --store.  The two hold the same columns in the same order.
 */
typedef struct row_style
{
	char		sep;
	const char *null;			/* an absent value */
	void		(*field) (strbuf *sb, const char *s);	/* text, NULL is absent */
	const char *quote;			/* around the blockers array, which holds commas */
} row_style;

static const row_style csv_style = {',', "", format_csv_field, "\""};
static const row_style copy_style = {'\t', "\\N", format_copy_field, ""};
/* a CSV comment record's key=value pairs: its free text stays on the line */
static const row_style pair_style = {' ', "", format_folded_frame, ""};

/* One column's value in a delimited row (or a comment record's pair, r its struct). */
static void
delimited_value(strbuf *sb, const row_style *st, const format_column *c, const void *r)
{
	const format_row *fr = r;	/* PIDS are a format_row's */
	char		ts[FORMAT_TS_LEN];

	if (!format_has_value(c, r) || (c->type == FORMAT_COL_PIDS && fr->row.nblockers == 0))
	{
		strbuf_puts(sb, st->null);
		return;
	}
	switch (c->type)
	{
		case FORMAT_COL_TS:
			format_ts(ts, format_column_int(c, r));
			strbuf_puts(sb, ts);
			break;
		case FORMAT_COL_INT:
			if (c->store == FORMAT_STORE_U64)
				strbuf_printf(sb, "%" PRIu64, (uint64_t) format_column_int(c, r));
			else
				strbuf_printf(sb, "%" PRId64, format_column_int(c, r));
			break;
		case FORMAT_COL_TEXT:
			st->field(sb, text_of(c, r));
			break;
		case FORMAT_COL_PIDS:
			strbuf_puts(sb, st->quote);
			format_blockers(sb, fr->blockers, fr->row.nblockers);
			strbuf_puts(sb, st->quote);
			break;
		case FORMAT_COL_NUM1:
		case FORMAT_COL_NUM2:
		case FORMAT_COL_NUM3:
		case FORMAT_COL_NUM6:
			strbuf_printf(sb, "%.*f", num_digits(c->type), double_of(c, r));
			break;
		case FORMAT_COL_BOOL:
			strbuf_puts(sb, bool_of(c, r) ? "true" : "false");
			break;
		case FORMAT_COL_STRS:
			/* only in JSON objects */
			break;
	}
}

/* One CSV line, in the order of the kind's header. */
void
format_row_csv(strbuf *sb, format_rowkind kind, const format_row *r)
{
	const format_kind *k = &format_kinds[kind];

	for (int i = 0; i < k->ncols; i++)
	{
		if (i > 0)
			strbuf_putc(sb, csv_style.sep);
		delimited_value(sb, &csv_style, &k->cols[i], r);
	}
	strbuf_putc(sb, '\n');
}

/* One COPY row of a kind: the label, then the columns the store's table has. */
static void
kind_copy(strbuf *sb, const format_kind *k, const char *label, const void *r)
{
	format_copy_field(sb, label);
	for (int i = 0; i < k->ncols; i++)
	{
		if (!k->cols[i].copy)
			continue;
		strbuf_putc(sb, copy_style.sep);
		delimited_value(sb, &copy_style, &k->cols[i], r);
	}
	strbuf_putc(sb, '\n');
}

void
format_row_copy(strbuf *sb, format_rowkind kind, const char *label, const format_row *r)
{
	kind_copy(sb, &format_kinds[kind], label, r);
}

void
format_head_copy(strbuf *sb, const char *label, const format_head_rec *r)
{
	kind_copy(sb, &format_head_kind, label, r);
}

void
format_measured_copy(strbuf *sb, const char *label, const format_measured_rec *r)
{
	kind_copy(sb, &format_measured_kind, label, r);
}

void
format_measured_line(strbuf *sb, bool jsonl, const format_measured_rec *r)
{
	format_record(sb, jsonl, FORMAT_REC_MEASURED, r);
}

/* A raw row as a format_row. */
void
format_sample_row(format_row *fr, const sample_batch *b, const sample_row *r)
{
	memset(fr, 0, sizeof(*fr));
	fr->ts_us = (int64_t) b->ts_us;
	fr->row = *r;
	fr->blockers = sample_blockers(b, r);
}

/* One raw CSV line. */
void
format_sample_csv(strbuf *sb, const sample_batch *b, const sample_row *r)
{
	format_row	fr;

	format_sample_row(&fr, b, r);
	format_row_csv(sb, FORMAT_ROW_SAMPLE, &fr);
}

/* One COPY row of the samples table, in the order of FORMAT_COPY_SAMPLE_COLUMNS. */
void
format_sample_copy(strbuf *sb, const char *label, const sample_batch *b, const sample_row *r)
{
	format_row	fr;

	format_sample_row(&fr, b, r);
	format_row_copy(sb, FORMAT_ROW_SAMPLE, label, &fr);
}

/* k as a percentage of n (0 when n is 0). */
static double
pct_of(uint64_t k, uint64_t n)
{
	return n > 0 ? 100.0 * (double) k / (double) n : 0.0;
}

/* An interval's group as a format_row. */
void
format_interval_row(format_row *fr, const format_interval *iv, const wprof_group *g)
{
	memset(fr, 0, sizeof(*fr));
	fr->start_us = (int64_t) iv->start_us;
	fr->ts_us = (int64_t) iv->end_us;
	fr->ticks = (int64_t) iv->ticks;
	fr->row.datname = g->key.datname;
	fr->row.usename = g->key.usename;
	fr->row.application_name = g->key.appname;
	fr->row.backend_type = g->key.backend_type;
	fr->row.wait_event_type = g->key.type;
	fr->row.wait_event = g->key.event;
	fr->row.query_id = g->key.query_id;
	fr->row.samples = (uint32_t) g->samples;
	fr->row.measured_us = g->measured_us;
	fr->row.measured_count = g->measured_count;
	fr->pct = pct_of(g->samples, iv->total);
	fr->est_seconds = (double) g->samples * iv->period_s;
	fr->measured_seconds = (double) g->measured_us / 1e6;
	fr->measured = iv->measured;
}

/* One aggregated CSV line. */
void
format_interval_csv(strbuf *sb, const format_interval *iv, const wprof_group *g)
{
	format_row	fr;

	format_interval_row(&fr, iv, g);
	format_row_csv(sb, FORMAT_ROW_INTERVAL, &fr);
}

/* One COPY row of the profile table, in the order of FORMAT_COPY_INTERVAL_COLUMNS. */
void
format_interval_copy(strbuf *sb, const char *label, const format_interval *iv,
					 const wprof_group *g)
{
	format_row	fr;

	format_interval_row(&fr, iv, g);
	format_row_copy(sb, FORMAT_ROW_INTERVAL, label, &fr);
}

/* Begin the JSON line of a record of this type. */
static void
jsonl_begin(json_writer *w, strbuf *sb, const char *type)
{
	json_init(w, sb, false);
	json_object_begin(w);
	json_kv_string(w, "type", type);
}

/* A column's value (it has one) as a JSON value. */
static void
json_value(json_writer *w, const format_column *c, const void *r)
{
	const format_row *fr = r;	/* PIDS are a format_row's */
	char		ts[FORMAT_TS_LEN];

	switch (c->type)
	{
		case FORMAT_COL_TS:
			format_ts(ts, format_column_int(c, r));
			json_string(w, ts);
			break;
		case FORMAT_COL_INT:
			if (c->store == FORMAT_STORE_U64)
				json_uint(w, (uint64_t) format_column_int(c, r));
			else
				json_int(w, format_column_int(c, r));
			break;
		case FORMAT_COL_TEXT:
			json_string(w, text_of(c, r));
			break;
		case FORMAT_COL_PIDS:
			json_array_begin(w);
			for (int j = 0; j < fr->row.nblockers; j++)
				json_int(w, fr->blockers[j]);
			json_array_end(w);
			break;
		case FORMAT_COL_NUM1:
		case FORMAT_COL_NUM2:
		case FORMAT_COL_NUM3:
		case FORMAT_COL_NUM6:
			json_double(w, double_of(c, r));
			break;
		case FORMAT_COL_BOOL:
			json_bool(w, bool_of(c, r));
			break;
		case FORMAT_COL_STRS:
			{
				const char *const *v = *(const char *const *const *) ((const char *) r + c->offset);
				int			n = *(const int *) ((const char *) r + c->offset + sizeof(v));

				json_array_begin(w);
				for (int j = 0; j < n; j++)
					json_string(w, v[j]);
				json_array_end(w);
			}
			break;
	}
}

/*
 * The kind's columns of r as JSON members (only the REPORT ones if
 * report_only): absent values are null, so that every record has every
 * key, but for the measured columns of a source that measures none and
 * the IF_NONNEG_OUT ones.
 */
static void
json_members(json_writer *w, const format_kind *k, const void *r, bool report_only)
{
	for (int i = 0; i < k->ncols; i++)
	{
		const format_column *c = &k->cols[i];
		bool		has;

		if (report_only && !c->report)
			continue;
		has = format_has_value(c, r);
		if (!has && (c->when == FORMAT_COL_IF_MEASURED || c->when == FORMAT_COL_IF_NONNEG_OUT))
			continue;
		json_key(w, c->name);
		if (has)
			json_value(w, c, r);
		else
			json_null(w);
	}
}

/* A JSON line of the kind: its type, then its columns of r. */
static void
kind_jsonl(strbuf *sb, const format_kind *k, const void *r)
{
	json_writer w;

	jsonl_begin(&w, sb, k->name);
	json_members(&w, k, r, false);
	json_object_end(&w);
	strbuf_putc(sb, '\n');
}

/* One JSON line of a row. */
void
format_row_jsonl(strbuf *sb, format_rowkind kind, const format_row *r)
{
	kind_jsonl(sb, &format_kinds[kind], r);
}

/*
 * A CSV comment record of the kind: "# kind k=v ...", the fields always
 * there first, then those with a value now, then free text, which runs to
 * the end of the line.
 */
static void
kind_csv_comment(strbuf *sb, const format_kind *k, const void *r)
{
	strbuf_printf(sb, "# %s", k->name);
	for (int pass = 0; pass < 3; pass++)
		for (int i = 0; i < k->ncols; i++)
		{
			const format_column *c = &k->cols[i];
			int			in = c->type == FORMAT_COL_TEXT ? 2 : c->when == FORMAT_COL_ALWAYS ? 0 : 1;

			if (in != pass || !format_has_value(c, r))
				continue;
			strbuf_printf(sb, " %s=", c->name);
			delimited_value(sb, &pair_style, c, r);
		}
	strbuf_putc(sb, '\n');
}

/* One raw JSON line. */
void
format_sample_jsonl(strbuf *sb, const sample_batch *b, const sample_row *r)
{
	format_row	fr;

	format_sample_row(&fr, b, r);
	format_row_jsonl(sb, FORMAT_ROW_SAMPLE, &fr);
}

/* One aggregated JSON line. */
void
format_interval_jsonl(strbuf *sb, const format_interval *iv, const wprof_group *g)
{
	format_row	fr;

	format_interval_row(&fr, iv, g);
	format_row_jsonl(sb, FORMAT_ROW_INTERVAL, &fr);
}

/* The counts and latencies of the sampler's health, as JSON members. */
void
format_health_members(json_writer *w, const sample_health *h)
{
	json_members(w, &format_health_kind, h, true);
}

/* The sampler's health as a JSON line; our own cost too, so that a report from the log shows it. */
void
format_health_jsonl(strbuf *sb, const sample_health *h)
{
	kind_jsonl(sb, &format_health_kind, h);
}

/* The sampler's health as a CSV comment line, which CSV readers can skip. */
void
format_health_csv(strbuf *sb, const sample_health *h)
{
	kind_csv_comment(sb, &format_health_kind, h);
}

/* A gap's fields: its length is null while it is open. */
static format_gap_rec
gap_rec(const sample_gap *g)
{
	format_gap_rec r = {*g, -1};

	if (g->end_us != 0)
		r.seconds = (double) (g->end_us - g->start_us) / 1e6;
	return r;
}

/* A connection gap as JSON members: start, end and seconds (null while open), reason. */
void
format_gap_members(json_writer *w, const sample_gap *g)
{
	format_gap_rec r = gap_rec(g);

	json_members(w, &format_gap_kind, &r, false);
}

/* A connection gap as a JSON line. */
void
format_gap_jsonl(strbuf *sb, const sample_gap *g)
{
	format_gap_rec r = gap_rec(g);

	kind_jsonl(sb, &format_gap_kind, &r);
}

/* A connection gap as a CSV comment line. */
void
format_gap_csv(strbuf *sb, const sample_gap *g)
{
	format_gap_rec r = gap_rec(g);

	kind_csv_comment(sb, &format_gap_kind, &r);
}

/* The meta record as a JSON line: the log format's version, who wrote it, then the run's description. */
void
format_meta_jsonl(strbuf *sb, const format_meta *m)
{
	format_record(sb, true, FORMAT_REC_META, m);
}

/* The meta record as a CSV comment line: one JSON object, which holds any text on one line. */
void
format_meta_csv(strbuf *sb, const format_meta *m)
{
	format_record(sb, false, FORMAT_REC_META, m);
}

/* A wait event's description as a JSON line. */
void
format_description_jsonl(strbuf *sb, const char *type, const char *event, const char *desc)
{
	format_description d = {type, event, desc};

	format_record(sb, true, FORMAT_REC_DESCRIPTION, &d);
}

/* A wait event's description as a CSV comment line: a JSON object, as the meta record. */
void
format_description_csv(strbuf *sb, const char *type, const char *event, const char *desc)
{
	format_description d = {type, event, desc};

	format_record(sb, false, FORMAT_REC_DESCRIPTION, &d);
}

void
format_head_rec_of(format_head_rec *r, const format_interval *iv, const heads_cell *c,
				   const heads_chain *ch)
{
	memset(r, 0, sizeof(*r));
	r->start_us = (int64_t) iv->start_us;
	r->end_us = (int64_t) iv->end_us;
	if (ch != NULL)
	{
		r->stack = ch->stack;
		r->c.samples = ch->samples;
	}
	else
	{
		r->c = *c;
		r->cycle = c->cycle;
	}
	r->est_seconds = r->c.samples * iv->period_s;
}

/* A record of the kind: a JSON line, or the same object on a CSV comment line. */
static void
kind_object_line(strbuf *sb, bool jsonl, const format_kind *k, const void *r)
{
	if (!jsonl)
		strbuf_printf(sb, "# %s ", k->name);
	kind_jsonl(sb, k, r);
}

void
format_heads_records(strbuf *sb, bool jsonl, const format_interval *iv, const heads_prof *h,
					 void (*done) (void *arg), void *arg)
{
	format_head_rec r;
	int			n;
	const heads_cell **v = heads_sorted(h, &n);
	const heads_chain **ch;

	for (int i = 0; i < n; i++)
	{
		format_head_rec_of(&r, iv, v[i], NULL);
		kind_object_line(sb, jsonl, &format_head_kind, &r);
		done(arg);
	}
	free(v);
	ch = heads_chains_sorted(h, &n);
	for (int i = 0; i < n; i++)
	{
		format_head_rec_of(&r, iv, NULL, ch[i]);
		kind_object_line(sb, jsonl, &format_chain_kind, &r);
		done(arg);
	}
	free(ch);
}

/* The store's row counts as a JSON line. */
void
format_store_jsonl(strbuf *sb, const format_store_counts *c)
{
	format_record(sb, true, FORMAT_REC_STORE, c);
}

/* The store's row counts as a CSV comment line. */
void
format_store_csv(strbuf *sb, const format_store_counts *c)
{
	format_record(sb, false, FORMAT_REC_STORE, c);
}

/*
 * Any record but a row, as its kind is written: the meta record says who
 * wrote it and the oldest log format version that holds the file's records.
 */
void
format_record(strbuf *sb, bool jsonl, format_reckind kind, const void *r)
{
	const format_kind *k = &format_kinds[kind];
	format_meta m;

	if (kind == FORMAT_REC_META)
	{
		m = *(const format_meta *) r;
		m.log_version = m.measured_figs ? format_kinds[FORMAT_REC_MEASURED].version :
			m.heads ? format_kinds[FORMAT_REC_HEAD].version :
			m.descriptions ? format_kinds[FORMAT_REC_DESCRIPTION].version : FORMAT_LOG_VERSION_MIN;
		m.tool = "pgtempo-waits";
		m.version = PACKAGE_VERSION;
		r = &m;
	}
	if (jsonl || k->csv == FORMAT_CSV_OBJECT)
		kind_object_line(sb, jsonl, k, r);
	else
		kind_csv_comment(sb, k, r);
}

/* The store's table of a kind: its label, then its COPY columns, NOT NULL where required. */
void
format_kind_ddl(strbuf *sb, const format_kind *k, const char *table)
{
	strbuf_printf(sb, "CREATE TABLE IF NOT EXISTS %s (\n    %-16s %-11s NOT NULL", table,
				  "server", "text");
	for (int i = 0; i < k->ncols; i++)
	{
		const format_column *c = &k->cols[i];

		if (!c->copy)
			continue;
		if (c->type != FORMAT_COL_TEXT && c->type != FORMAT_COL_PIDS &&
			c->when == FORMAT_COL_ALWAYS)
			strbuf_printf(sb, ",\n    %-16s %-11s NOT NULL", c->name, c->sql);
		else
			strbuf_printf(sb, ",\n    %-16s %s", c->name, c->sql);
	}
	strbuf_puts(sb, "\n)");
}

/* One folded stack: database, backend type, event type, event, query id. */
void
format_folded_line(strbuf *sb, const wprof_key *k, uint64_t count)
{
	char		qid[24] = "";

	format_folded_frame(sb, k->datname);
	strbuf_putc(sb, ';');
	format_folded_frame(sb, k->backend_type);
	strbuf_putc(sb, ';');
	format_folded_frame(sb, k->type);
	strbuf_putc(sb, ';');
	format_folded_frame(sb, k->event);
	strbuf_putc(sb, ';');
	if (k->query_id != 0)
		snprintf(qid, sizeof(qid), "%" PRId64, k->query_id);
	format_folded_frame(sb, qid);
	strbuf_printf(sb, " %" PRIu64 "\n", count);
}
