/*
 * format.h — the text of every record pgtempo-waits writes: history log
 * lines (CSV and JSON Lines), COPY rows for --store, and folded stacks.
 *
 * Timestamps are ISO 8601 in UTC with microseconds
 * ("2025-03-01T12:00:00.123456Z"), which PostgreSQL reads as timestamptz.
 * Every function appends to a strbuf; line functions end with '\n'.
 * Text is always UTF-8: bytes that are not (an SQL_ASCII database) are
 * written as \xNN in CSV, JSON and folded stacks alike.
 */
#ifndef PGTEMPO_WAITS_FORMAT_H
#define PGTEMPO_WAITS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgtempo/json.h"
#include "pgtempo/strbuf.h"

#include "wprof.h"
#include "sample.h"

#define FORMAT_TS_LEN 64

/*
 * The columns of the history log's rows, written down once: every format
 * that holds rows (the CSV headers and lines, JSON Lines, COPY rows for
 * --store) and the reader (histread.h) are driven by these two lists.
 * A kind's rows hold its columns in this order.  For each column:
 *
 *   name    in the CSV header, as the JSON member, in the store's table
 *   type    TS a timestamp (format_ts), INT an integer (int8 in the
 *           store), INT4 one (int4 in the store), TEXT text (NULL is
 *           absent), PIDS the blocking pids, NUM1/2/3/6 a number with 1,
 *           2, 3 or 6 decimals in CSV and COPY (JSON writes it shortest);
 *           BOOL and STRS (a counted list of texts) only in JSON objects
 *   member  where a format_row holds it
 *   when    when it has a value: ALWAYS (a reader requires it), IF_KNOWN
 *           (not INT64_MIN), IF_NONZERO, IF_NONNEG, IF_MEASURED (the
 *           source measures wait time; JSON leaves the member out),
 *           IF_NONNEG_OUT (as IF_NONNEG, but JSON leaves the member out)
 *   least   the smallest value a reader accepts (TS, INT, NUM)
 *   also    COPY: in the store's rows too; REPORT: in the --json report
 *           too (format_health_members); LOGONLY: in the logs only
 *   read    READ: read back; DERIVED: computed from the others, not read;
 *           NEWER: read back, but files older than it lack it
 *
 * F is the first column of a kind (no separator before it), X the others.
 * The columns both kinds have are written once, in the lists of shared ones.
 * The store's tables (store.h) are made of the COPY columns: NOT NULL
 * where a reader requires a value.
 */
#define FORMAT_SAMPLE_COLUMNS(F, X) \
	F(ts,               TS,   ts_us,                  ALWAYS,      0,         COPY, READ) \
	X(pid,              INT4, row.pid,                ALWAYS,      1,         COPY, READ) \
	X(backend_start,    TS,   row.backend_start_us,   IF_KNOWN,    INT64_MIN, COPY, READ) \
	FORMAT_BACKEND_TYPE_COLUMN(X) \
	FORMAT_WHO_COLUMNS(X) \
	X(client_addr,      TEXT, row.client_addr,        ALWAYS,      0,         COPY, READ) \
	X(state,            TEXT, row.state,              ALWAYS,      0,         COPY, READ) \
	FORMAT_EVENT_COLUMNS(X) \
	X(leader_pid,       INT4, row.leader_pid,         IF_NONZERO,  0,         COPY, READ) \
	X(blockers,         PIDS, blockers,               ALWAYS,      0,         COPY, READ) \
	X(samples,          INT4, row.samples,            ALWAYS,      1,         COPY, READ) \
	X(wait_time_us,     INT,  row.wait_time_us,       IF_NONNEG,   -1,        COPY, READ) \
	X(query,            TEXT, row.query,              ALWAYS,      0,         COPY, READ)
#define FORMAT_INTERVAL_COLUMNS(F, X) \
	F(interval_start,   TS,   start_us,               ALWAYS,      0,         COPY, READ) \
	X(interval_end,     TS,   ts_us,                  ALWAYS,      0,         COPY, READ) \
	X(ticks,            INT,  ticks,                  ALWAYS,      0,         COPY, READ) \
	FORMAT_WHO_COLUMNS(X) \
	FORMAT_BACKEND_TYPE_COLUMN(X) \
	FORMAT_EVENT_COLUMNS(X) \
	X(samples,          INT,  row.samples,            ALWAYS,      1,         COPY, READ) \
	X(pct,              NUM2, pct,                    ALWAYS,      0,         LOGONLY, DERIVED) \
	X(est_seconds,      NUM6, est_seconds,            ALWAYS,      0,         COPY, DERIVED) \
	X(measured_seconds, NUM6, measured_seconds,       IF_MEASURED, 0,         COPY, READ) \
	X(measured_count,   INT,  row.measured_count,     IF_MEASURED, 0,         COPY, READ)
/* The columns both kinds have: the backend's and its wait event. */
#define FORMAT_BACKEND_TYPE_COLUMN(X) \
	X(backend_type,     TEXT, row.backend_type,       ALWAYS,      0,         COPY, READ)
#define FORMAT_WHO_COLUMNS(X) \
	X(datname,          TEXT, row.datname,            ALWAYS,      0,         COPY, READ) \
	X(usename,          TEXT, row.usename,            ALWAYS,      0,         COPY, READ) \
	X(application_name, TEXT, row.application_name,   ALWAYS,      0,         COPY, READ)
#define FORMAT_EVENT_COLUMNS(X) \
	X(wait_event_type,  TEXT, row.wait_event_type,    ALWAYS,      0,         COPY, READ) \
	X(wait_event,       TEXT, row.wait_event,         ALWAYS,      0,         COPY, READ) \
	X(query_id,         INT,  row.query_id,           IF_NONZERO,  INT64_MIN, COPY, READ)

/*
 * The fields of the health and gap records, written down once the same
 * way: the JSON members in this order, the CSV comment line's key=value
 * pairs ("# health ts=... samples=..."), the reader.  A CSV comment has
 * no null: it leaves out a field without a value, and writes the fields
 * always there first, then those written when known, then free text,
 * which runs to the end of the line.  member is a sample_health's, and a
 * format_gap_rec's.  A health field is also marked by what it counts, so
 * that a window of records (fromlog.c) and the metrics treat it right:
 * COUNTER a count since the run started (a window takes the difference),
 * GAUGE a value now (a window takes the latest), MAXIMUM the largest so
 * far (a window takes the largest), TIME the record's time.
 */
#define FORMAT_HEALTH_FIELDS(X) \
	X(ts,                        TS,   ts_us,                     ALWAYS,        0,  LOGONLY, READ, TIME) \
	X(samples,                   INT,  samples,                   ALWAYS,        0,  REPORT,  READ, COUNTER) \
	X(elapsed_s,                 NUM3, elapsed_s,                 ALWAYS, INT64_MIN, REPORT,  READ, COUNTER) \
	X(rate_hz,                   NUM2, rate_hz,                   ALWAYS, INT64_MIN, REPORT,  READ, GAUGE) \
	X(missed_ticks,              INT,  missed,                    ALWAYS,        0,  REPORT,  READ, COUNTER) \
	X(gap_ticks,                 INT,  gap_ticks,                 ALWAYS,        0,  REPORT,  READ, COUNTER) \
	X(failed_samples,            INT,  failed,                    ALWAYS,        0,  REPORT,  READ, COUNTER) \
	X(latency_p50_ms,            NUM3, p50_ms,                    ALWAYS, INT64_MIN, REPORT,  READ, GAUGE) \
	X(latency_p99_ms,            NUM3, p99_ms,                    ALWAYS, INT64_MIN, REPORT,  READ, GAUGE) \
	X(latency_max_ms,            NUM3, max_ms,                    ALWAYS, INT64_MIN, REPORT,  READ, MAXIMUM) \
	X(gaps,                      INT,  ngaps,                     ALWAYS,        0,  LOGONLY, READ, COUNTER) \
	X(gap_seconds,               NUM3, gap_s,                     ALWAYS, INT64_MIN, LOGONLY, READ, COUNTER) \
	X(hidden_rows,               INT,  hidden,                    ALWAYS,        0,  REPORT,  READ, COUNTER) \
	X(cpu_us_per_sample,         NUM1, cpu_us_per_sample,         IF_NONNEG_OUT, -1, REPORT,  READ, GAUGE) \
	X(backend_cpu_us_per_sample, NUM1, backend_cpu_us_per_sample, IF_NONNEG_OUT, -1, REPORT,  READ, GAUGE) \
	X(interval_s,                NUM6, interval_s,                ALWAYS, INT64_MIN, LOGONLY, NEWER, GAUGE) \
	X(cost_us_per_sample,        NUM1, cost_us_per_sample,        IF_NONNEG,     -1, LOGONLY, READ, GAUGE) \
	X(backends,                  INT,  backends,                  IF_NONNEG,     -1, LOGONLY, READ, GAUGE)
#define FORMAT_GAP_FIELDS(X) \
	X(start,                     TS,   gap.start_us,              ALWAYS,        0,  LOGONLY, READ) \
	X(end,                       TS,   gap.end_us,                IF_NONZERO,    0,  LOGONLY, READ) \
	X(seconds,                   NUM3, seconds,                   IF_NONNEG,     -1, LOGONLY, DERIVED) \
	X(reason,                    TEXT, gap.reason,                ALWAYS,        0,  LOGONLY, READ)

/*
 * The fields of an interval's head blocker records (heads.h), the same way:
 * a "head" record per head blocker and a "chain" record per folded chain,
 * after the interval's rows (log format 3).  A JSON line, or the same
 * object on a CSV comment line ("# head {...}"), which holds any text on
 * one line.  member is a format_head_rec's.  samples are blocked
 * backend-samples, fractions when several heads shared them; est_seconds
 * is samples × period.
 */
#define FORMAT_HEAD_FIELDS(X) \
	FORMAT_HEAD_INTERVAL_FIELDS(X) \
	X(pid,                       INT4, c.id.pid,                  ALWAYS,        1,  COPY,    READ) \
	X(backend_start,             TS,   c.id.backend_start_us,     IF_KNOWN, INT64_MIN, COPY,  READ) \
	X(samples,                   NUM3, c.samples,                 ALWAYS,        0,  COPY,    READ) \
	X(direct_samples,            NUM3, c.direct,                  ALWAYS,        0,  COPY,    READ) \
	X(est_seconds,               NUM6, est_seconds,               ALWAYS,        0,  COPY,    DERIVED) \
	X(cycle,                     INT4, cycle,                     IF_NONZERO,    0,  COPY,    READ) \
	X(datname,                   TEXT, c.id.datname,              ALWAYS,        0,  COPY,    READ) \
	X(usename,                   TEXT, c.id.usename,              ALWAYS,        0,  COPY,    READ) \
	X(application_name,          TEXT, c.id.application_name,     ALWAYS,        0,  COPY,    READ) \
	X(backend_type,              TEXT, c.id.backend_type,         ALWAYS,        0,  COPY,    READ) \
	X(state,                     TEXT, c.state,                   ALWAYS,        0,  COPY,    READ) \
	X(wait_event_type,           TEXT, c.type,                    ALWAYS,        0,  COPY,    READ) \
	X(wait_event,                TEXT, c.event,                   ALWAYS,        0,  COPY,    READ) \
	X(query_id,                  INT,  c.query_id,                IF_NONZERO, INT64_MIN, COPY, READ) \
	X(xact_start,                TS,   c.xact_start_us,           IF_KNOWN, INT64_MIN, COPY,  READ) \
	X(last_seen,                 TS,   c.last_us,                 IF_KNOWN, INT64_MIN, COPY,  READ) \
	X(query,                     TEXT, c.query,                   ALWAYS,        0,  COPY,    READ)
#define FORMAT_CHAIN_FIELDS(X) \
	FORMAT_HEAD_INTERVAL_FIELDS(X) \
	X(stack,                     TEXT, stack,                     ALWAYS,        0,  COPY,    READ) \
	X(samples,                   NUM3, c.samples,                 ALWAYS,        0,  COPY,    READ) \
	X(est_seconds,               NUM6, est_seconds,               ALWAYS,        0,  COPY,    DERIVED)
#define FORMAT_HEAD_INTERVAL_FIELDS(X) \
	X(interval_start,            TS,   start_us,                  ALWAYS,        0,  COPY,    READ) \
	X(interval_end,              TS,   end_us,                    ALWAYS,        0,  COPY,    READ)

/*
 * The fields of a measured record (log format 4, --log-interval): a
 * figure the server measured itself (measured.h) beside the sampled
 * estimate of the same thing, over the span between two reads of its
 * counters, one record per figure after each read.  Each value says by its
 * name which side it is: measured_* the server's, sampled_* the samples'.
 * A JSON line, or the same object on a CSV comment line ("# measured
 * {...}"); the store's pgtempo_waits_measured rows.  member is a
 * format_measured_rec's.
 */
#define FORMAT_MEASURED_FIELDS(X) \
	FORMAT_HEAD_INTERVAL_FIELDS(X) \
	X(figure,                    TEXT, figure,                    ALWAYS,        0,  COPY,    READ) \
	X(measured_by,               TEXT, measured_by,               ALWAYS,        0,  COPY,    READ) \
	X(measured_missing,          TEXT, measured_missing,          ALWAYS,        0,  COPY,    READ) \
	X(measured_seconds,          NUM6, measured_seconds,          IF_NONNEG,     -1, COPY,    READ) \
	X(measured_count,            INT,  measured_count,            IF_NONNEG,     -1, COPY,    READ) \
	X(sampled_by,                TEXT, sampled_by,                ALWAYS,        0,  COPY,    READ) \
	X(sampled_samples,           INT,  sampled_samples,           ALWAYS,        0,  COPY,    READ) \
	X(sampled_seconds,           NUM6, sampled_seconds,           ALWAYS,        0,  COPY,    READ) \
	X(sampled_error_seconds,     NUM6, sampled_error_seconds,     ALWAYS,        0,  COPY,    READ) \
	X(verdict,                   TEXT, verdict,                   ALWAYS,        0,  COPY,    READ) \
	X(reason,                    TEXT, reason,                    ALWAYS,        0,  COPY,    READ)

/* A field written in the log only, always, with no default, read back as it is. */
#define FORMAT_LOG_FIELD_(X, name, kind, member) X(name, kind, member, ALWAYS, 0, LOGONLY, READ)

/*
 * The fields of the meta, description and store records, the same way:
 * the meta record's and the description's as one JSON object (a JSON
 * line, or a CSV comment line "# meta {...}"), the store's like health's.
 * member is a format_meta's, a format_description's and a
 * format_store_counts'.  A meta record of log format 1 to 3 written before
 * "version" came says both in "tool" ("pgtempo-waits 0.1.0"): a reader
 * splits it.
 */
#define FORMAT_META_FIELDS(X) \
	FORMAT_LOG_FIELD_(X, log_version, INT4, log_version) \
	FORMAT_LOG_FIELD_(X, tool, TEXT, tool) \
	X(version,                   TEXT, version,                   ALWAYS,        0,  LOGONLY, NEWER) \
	FORMAT_LOG_FIELD_(X, run, TS, run_us) \
	FORMAT_LOG_FIELD_(X, source, TEXT, source) \
	FORMAT_LOG_FIELD_(X, server, TEXT, server) \
	FORMAT_LOG_FIELD_(X, server_version, TEXT, server_version) \
	FORMAT_LOG_FIELD_(X, interval_s, NUM6, interval_s) \
	FORMAT_LOG_FIELD_(X, period_s, NUM6, period_s) \
	FORMAT_LOG_FIELD_(X, include_idle, BOOL, include_idle) \
	FORMAT_LOG_FIELD_(X, measured, BOOL, measured) \
	FORMAT_LOG_FIELD_(X, backend_types, STRS, backend_types) \
	FORMAT_LOG_FIELD_(X, backend_types_given, BOOL, backend_types_given)
#define FORMAT_DESCRIPTION_FIELDS(X) \
	FORMAT_LOG_FIELD_(X, wait_event_type, TEXT, wait_event_type) \
	FORMAT_LOG_FIELD_(X, wait_event, TEXT, wait_event) \
	FORMAT_LOG_FIELD_(X, description, TEXT, description)
#define FORMAT_STORE_FIELDS(X) \
	FORMAT_LOG_FIELD_(X, rows_stored, INT, stored) \
	FORMAT_LOG_FIELD_(X, rows_rejected, INT, rejected) \
	FORMAT_LOG_FIELD_(X, rows_dropped, INT, dropped) \
	FORMAT_LOG_FIELD_(X, rows_unsent, INT, unsent)

/* The header lines of CSV logs (without the newline): raw rows, and --log-interval's. */
#define FORMAT_HDR_FIRST_(name, ...) #name
#define FORMAT_HDR_NEXT_(name, ...) "," #name
#define FORMAT_CSV_SAMPLE_HEADER FORMAT_SAMPLE_COLUMNS(FORMAT_HDR_FIRST_, FORMAT_HDR_NEXT_)
#define FORMAT_CSV_INTERVAL_HEADER FORMAT_INTERVAL_COLUMNS(FORMAT_HDR_FIRST_, FORMAT_HDR_NEXT_)
/* The columns of the store's COPY rows after its server label ("server, ts, pid, ..."). */
#define FORMAT_COPY_NAME_(name, type, member, when, least, also, read) FORMAT_COPY_##also##_(name)
#define FORMAT_COPY_COPY_(name) ", " #name
#define FORMAT_COPY_LOGONLY_(name)
#define FORMAT_COPY_SAMPLE_COLUMNS "server" FORMAT_SAMPLE_COLUMNS(FORMAT_COPY_NAME_, FORMAT_COPY_NAME_)
#define FORMAT_COPY_INTERVAL_COLUMNS "server" FORMAT_INTERVAL_COLUMNS(FORMAT_COPY_NAME_, FORMAT_COPY_NAME_)
#define FORMAT_COPY_HEAD_COLUMNS "server" FORMAT_HEAD_FIELDS(FORMAT_COPY_NAME_)
#define FORMAT_COPY_MEASURED_COLUMNS "server" FORMAT_MEASURED_FIELDS(FORMAT_COPY_NAME_)

/* The kinds of rows: a CSV file holds one, a JSON Lines file either ("type"). */
typedef enum format_rowkind
{
	FORMAT_ROW_SAMPLE,			/* a backend at one sample ("sample") */
	FORMAT_ROW_INTERVAL,		/* a group of a --log-interval profile ("interval") */
	FORMAT_NROWKINDS
} format_rowkind;

/* Every kind of record a log holds: the rows' first, then the others (format_kinds). */
typedef enum format_reckind
{
	FORMAT_REC_SAMPLE = FORMAT_ROW_SAMPLE,
	FORMAT_REC_INTERVAL = FORMAT_ROW_INTERVAL,
	FORMAT_REC_META,
	FORMAT_REC_HEALTH,
	FORMAT_REC_GAP,
	FORMAT_REC_STORE,
	FORMAT_REC_DESCRIPTION,
	FORMAT_REC_HEAD,
	FORMAT_REC_CHAIN,
	FORMAT_REC_MEASURED,
	FORMAT_NRECKINDS
} format_reckind;

/* How a kind of record is written in a CSV log. */
typedef enum format_csvform
{
	FORMAT_CSV_ROW,				/* a line under the kind's header */
	FORMAT_CSV_PAIRS,			/* a comment line of key=value pairs: "# health ts=..." */
	FORMAT_CSV_OBJECT			/* a comment line holding the JSON object: "# meta {...}" */
} format_csvform;

/* What a health field counts (FORMAT_HEALTH_FIELDS); NONE in the other tables. */
typedef enum format_colagg
{
	FORMAT_AGG_NONE,
	FORMAT_AGG_TIME,
	FORMAT_AGG_COUNTER,
	FORMAT_AGG_GAUGE,
	FORMAT_AGG_MAXIMUM
} format_colagg;

/* A column's type; those after FORMAT_COL_NUM6 are only in JSON objects (the meta record). */
typedef enum format_coltype
{
	FORMAT_COL_TS,
	FORMAT_COL_INT,
	FORMAT_COL_TEXT,
	FORMAT_COL_PIDS,
	FORMAT_COL_NUM1,
	FORMAT_COL_NUM2,
	FORMAT_COL_NUM3,
	FORMAT_COL_NUM6,
	FORMAT_COL_BOOL,
	FORMAT_COL_STRS
} format_coltype;

typedef enum format_colwhen
{
	FORMAT_COL_ALWAYS,
	FORMAT_COL_IF_KNOWN,
	FORMAT_COL_IF_NONZERO,
	FORMAT_COL_IF_NONNEG,
	FORMAT_COL_IF_MEASURED,
	FORMAT_COL_IF_NONNEG_OUT
} format_colwhen;

/* How a format_row member is stored: the reader writes any of them from one integer. */
typedef enum format_colstore
{
	FORMAT_STORE_I32,
	FORMAT_STORE_U32,
	FORMAT_STORE_I64,
	FORMAT_STORE_U64,
	FORMAT_STORE_DOUBLE,
	FORMAT_STORE_TEXT,
	FORMAT_STORE_PIDS,
	FORMAT_STORE_BOOL,
	FORMAT_STORE_STRS			/* a const char *const * and its count, an int, right after it */
} format_colstore;

/* One row of a log, whatever its format: what the writers write and the reader fills. */
typedef struct format_row
{
	int64_t		ts_us;			/* a sample's time; an interval's end */
	int64_t		start_us;		/* an interval's start */
	int64_t		ticks;			/* an interval's sampling ticks */
	sample_row	row;			/* the backend, or the interval's group and its counts */
	const int32_t *blockers;	/* row.nblockers of them */
	double		pct;			/* the group's share of the interval's active samples */
	double		est_seconds;	/* the backend time its samples stand for */
	double		measured_seconds;	/* row.measured_us in seconds */
	bool		measured;		/* the source measures wait time: the measured_ columns */
} format_row;

/* A column of the table above. */
typedef struct format_column
{
	const char *name;
	size_t		namelen;
	format_coltype type;
	format_colwhen when;
	format_colstore store;
	size_t		offset;			/* of its member in format_row (sample_health, format_gap_rec) */
	int64_t		least;
	int64_t		most;			/* the largest value its member holds (TS, INT) */
	int64_t		absent;			/* what a reader stores when it has no value (TS, INT) */
	bool		required;		/* a reader refuses a row without its value */
	bool		copy;			/* in the store's COPY rows */
	bool		report;			/* in the --json report's health object */
	bool		read;			/* a reader reads it back */
	const char *sql;			/* its type in the store's table */
	format_colagg agg;			/* a health field's: what it counts */
} format_column;

/*
 * A kind of record: its name, how a CSV log holds it, its fields in order,
 * and the log format version that brought it.  The reader (histread.c)
 * decodes each kind by its own table of decoders, in this order.
 */
typedef struct format_kind
{
	const char *name;			/* the JSON record type, and a CSV comment's first word */
	size_t		namelen;
	format_csvform csv;
	const char *csv_header;		/* FORMAT_CSV_ROW: the CSV file's header */
	const char *rest;			/* FORMAT_CSV_PAIRS: the field whose text runs to the end */
	const format_column *cols;
	int			ncols;
	int			version;		/* the oldest log format version that has it */
} format_kind;

/* The columns of both kinds, one after the other: a column's index here tells it from any other. */
#define FORMAT_COUNT_(...) + 1
#define FORMAT_NCOLUMNS (0 FORMAT_SAMPLE_COLUMNS(FORMAT_COUNT_, FORMAT_COUNT_) \
						 FORMAT_INTERVAL_COLUMNS(FORMAT_COUNT_, FORMAT_COUNT_))
extern const format_column format_columns[FORMAT_NCOLUMNS];
/* Every kind of record, by format_reckind (a format_rowkind is one too). */
extern const format_kind format_kinds[FORMAT_NRECKINDS];

/* A gap record's fields: the gap, and its length (-1 while open). */
typedef struct format_gap_rec
{
	sample_gap	gap;
	double		seconds;
} format_gap_rec;

/*
 * A head or chain record's fields: an interval's head blocker (its cell,
 * whose seen is not logged: a reader takes it from state and backend
 * start), or one of its chains (stack, and c.samples).
 */
typedef struct format_head_rec
{
	int64_t		start_us;		/* the interval */
	int64_t		end_us;
	heads_cell	c;
	double		est_seconds;	/* c.samples × period */
	int32_t		cycle;			/* c.cycle as a number: 1 a head of a lock cycle */
	const char *stack;			/* a chain's */
} format_head_rec;

/* The health, gap, head and chain records' kinds. */
#define format_health_kind (format_kinds[FORMAT_REC_HEALTH])
/* A health field's index in its kind's columns: FORMAT_HEALTH_samples, ... */
#define FORMAT_HEALTH_INDEX_(name, ...) FORMAT_HEALTH_##name,
enum
{
	FORMAT_HEALTH_FIELDS(FORMAT_HEALTH_INDEX_)
	FORMAT_NHEALTH
};
#define format_gap_kind (format_kinds[FORMAT_REC_GAP])
#define format_head_kind (format_kinds[FORMAT_REC_HEAD])
#define format_chain_kind (format_kinds[FORMAT_REC_CHAIN])
#define format_measured_kind (format_kinds[FORMAT_REC_MEASURED])

/* A measured record's fields (FORMAT_MEASURED_FIELDS). */
typedef struct format_measured_rec
{
	int64_t		start_us;		/* the span: the reads that bound it */
	int64_t		end_us;
	const char *figure;			/* active_time, data_file_reads, ... */
	const char *measured_by;	/* the server's view and columns */
	const char *measured_missing;	/* why there is no measured figure; NULL: there is */
	double		measured_seconds;	/* < 0: none */
	int64_t		measured_count; /* < 0: none */
	const char *sampled_by;		/* the sampled rows of the same thing */
	int64_t		sampled_samples;
	double		sampled_seconds;
	double		sampled_error_seconds;	/* the estimate's bound (95 %) */
	const char *verdict;		/* "agree", "disagree", or NULL: not compared */
	const char *reason;			/* the first thing that usually explains a disagreement */
} format_measured_rec;

/* A measured record: a JSON line, or a CSV comment line ("# measured {...}"). */
void		format_measured_line(strbuf *sb, bool jsonl, const format_measured_rec *r);
/* A measured record as a COPY row for --store's measured table, label first. */
void		format_measured_copy(strbuf *sb, const char *label, const format_measured_rec *r);

/* A description record's fields. */
typedef struct format_description
{
	const char *wait_event_type;
	const char *wait_event;
	const char *description;
} format_description;

/*
 * A record of any kind but the rows (r its struct: a format_meta, a
 * sample_health, ...): a JSON line, or the CSV comment line of its kind.
 */
void		format_record(strbuf *sb, bool jsonl, format_reckind kind, const void *r);

/*
 * The store's CREATE TABLE of a kind's COPY columns, after its "server"
 * label column, named table (store.h).
 */
void		format_kind_ddl(strbuf *sb, const format_kind *k, const char *table);

/* An integer or timestamp column's value in r (a format_row, or a record's struct), whatever the width of its member. */
static inline int64_t
format_column_int(const format_column *c, const void *r)
{
	const char *p = (const char *) r + c->offset;

	switch (c->store)
	{
		case FORMAT_STORE_I32:
			return *(const int32_t *) p;
		case FORMAT_STORE_U32:
			return *(const uint32_t *) p;
		case FORMAT_STORE_U64:
			return (int64_t) *(const uint64_t *) p;
		default:
			return *(const int64_t *) p;
	}
}

/* Set an integer or timestamp column's member of r to v (in its range). */
static inline void
format_column_set_int(const format_column *c, void *r, int64_t v)
{
	char	   *p = (char *) r + c->offset;

	if (c->store == FORMAT_STORE_I64)
		*(int64_t *) p = v;
	else if (c->store == FORMAT_STORE_I32)
		*(int32_t *) p = (int32_t) v;
	else if (c->store == FORMAT_STORE_U32)
		*(uint32_t *) p = (uint32_t) v;
	else
		*(uint64_t *) p = (uint64_t) v;
}

/* A number, integer or timestamp column's value in r as a double. */
double		format_column_number(const format_column *c, const void *r);
/* Set such a column's member of r to v (rounded for an integer). */
void		format_column_set_number(const format_column *c, void *r, double v);
/* The column of k named name, or NULL. */
const format_column *format_kind_column(const format_kind *k, const char *name);

/* Does column c of row r have a value (else it is written null, empty or \N)? */
bool		format_has_value(const format_column *c, const void *r);

/* A row in each format: a CSV line, a JSON line, a COPY row after the label. */
void		format_row_csv(strbuf *sb, format_rowkind kind, const format_row *r);
void		format_row_jsonl(strbuf *sb, format_rowkind kind, const format_row *r);
void		format_row_copy(strbuf *sb, format_rowkind kind, const char *label,
							const format_row *r);

/* The dimensions interval records are grouped by. */
extern const wprof_dim format_interval_dims[];
extern const int format_interval_ndims;

/* us since the epoch as ISO 8601 UTC with microseconds; buf has FORMAT_TS_LEN bytes. */
void		format_ts(char *buf, int64_t us);

/* The longest text of format_local_ts, with its NUL. */
#define FORMAT_LOCAL_TS_LEN 40

/*
 * us since the epoch in local time with microseconds and the UTC offset,
 * as PostgreSQL prints a timestamptz: "2026-11-24 10:03:35.603464+00"
 * ("+05:30" when the offset has minutes).  The --trace lines have it.
 */
void		format_local_ts(char *buf, size_t len, int64_t us);

/* A duration for people: "10 ms", "1 s", "250 us" (buf has FORMAT_TS_LEN bytes). */
void		format_seconds(char *buf, double s);

/* One CSV field: empty for NULL, quoted when it holds a comma, quote, CR or LF. */
void		format_csv_field(strbuf *sb, const char *s);
/* One field of COPY's text format: \N for NULL, backslash escapes. */
void		format_copy_field(strbuf *sb, const char *s);
/*
 * One frame of a folded stack: "-" for NULL or empty; ';' and line breaks
 * replaced, other control characters as \xNN.
 */
void		format_folded_frame(strbuf *sb, const char *s);

/* A blockers array as PostgreSQL writes int4[] ("{1,2}"), or nothing when there are none. */
void		format_blockers(strbuf *sb, const int32_t *pids, int n);

/* A raw history record. */
void		format_sample_csv(strbuf *sb, const sample_batch *b, const sample_row *r);
void		format_sample_jsonl(strbuf *sb, const sample_batch *b, const sample_row *r);
/* A row for COPY into the samples table (see store.h), label first. */
void		format_sample_copy(strbuf *sb, const char *label, const sample_batch *b,
							   const sample_row *r);

/* An aggregated interval record; g from format_interval_dims grouping. */
typedef struct format_interval
{
	uint64_t	start_us;
	uint64_t	end_us;
	uint64_t	ticks;
	uint64_t	total;			/* active samples of the interval */
	double		period_s;		/* seconds one sample stands for */
	bool		measured;		/* the source measures wait time */
} format_interval;

void		format_interval_csv(strbuf *sb, const format_interval *iv, const wprof_group *g);
void		format_interval_jsonl(strbuf *sb, const format_interval *iv, const wprof_group *g);
void		format_interval_copy(strbuf *sb, const char *label, const format_interval *iv,
								 const wprof_group *g);

/* The format_row of a raw row, and of an interval's group. */
void		format_sample_row(format_row *fr, const sample_batch *b, const sample_row *r);
void		format_interval_row(format_row *fr, const format_interval *iv, const wprof_group *g);

/*
 * The head and chain records of an interval's head blockers (h's, most
 * blocked first): JSON lines, or CSV comment lines holding the same
 * objects ("# head {...}"); each record is appended to sb and then
 * handed to done (which may empty sb).
 */
void		format_heads_records(strbuf *sb, bool jsonl, const format_interval *iv,
								 const heads_prof *h, void (*done) (void *arg), void *arg);
/* A head record as a COPY row for --store's heads table, label first. */
void		format_head_copy(strbuf *sb, const char *label, const format_head_rec *r);
/* A head or chain record's fields from a cell or a chain (the other NULL). */
void		format_head_rec_of(format_head_rec *r, const format_interval *iv,
							   const heads_cell *c, const heads_chain *ch);

/* Health and gap records: JSON lines, or CSV comment lines ("# health ..."). */
void		format_health_jsonl(strbuf *sb, const sample_health *h);
void		format_health_csv(strbuf *sb, const sample_health *h);
void		format_gap_jsonl(strbuf *sb, const sample_gap *g);
void		format_gap_csv(strbuf *sb, const sample_gap *g);
/* The health's counts and latencies (REPORT fields), and a gap, as JSON members (the --json report). */
void		format_health_members(json_writer *w, const sample_health *h);
void		format_gap_members(json_writer *w, const sample_gap *g);

/*
 * The versions of the history log's records: a reader (histread.h) reads
 * files of FORMAT_LOG_VERSION_MIN to FORMAT_LOG_VERSION and refuses
 * others.  Raised when a record changes its fields or a new kind of
 * record comes.  A file says the oldest version that holds its records:
 * 3 (head and chain records) only for interval profiles of a source that
 * reads blockers, 4 (measured records) only for interval profiles of a live
 * run that reads the server's counters, 2 (description records) only when
 * the run can describe
 * wait events (PostgreSQL 17+), else 1, so that the files of a run on an
 * older server are what they were and readers of version 1 still read them.
 */
#define FORMAT_LOG_VERSION 4
#define FORMAT_LOG_VERSION_MIN 1

/* What a log's rows mean: the run that wrote them (a meta record heads every file). */
typedef struct format_meta
{
	int32_t		log_version;	/* set by the writer: the oldest that holds the file's records */
	const char *tool;			/* set by the writer: "pgtempo-waits" */
	const char *version;		/* set by the writer: PACKAGE_VERSION */
	int64_t		run_us;			/* when the run connected: tells runs apart */
	const char *source;			/* as the report's heading says it */
	const char *server;
	const char *server_version;
	double		interval_s;
	double		period_s;		/* backend time one sample stands for */
	bool		include_idle;
	bool		measured;		/* the source measures wait time */
	const char *const *backend_types;	/* counted; none: every type */
	int			nbackend_types;	/* right after backend_types (FORMAT_STORE_STRS) */
	bool		backend_types_given;
	bool		descriptions;	/* the file may hold description records (version 2) */
	bool		heads;			/* ... and head and chain records (version 3) */
	bool		measured_figs;	/* ... and measured records (version 4) */
} format_meta;

/* The meta record: a JSON line, or the same object on a CSV comment line ("# meta {...}"). */
void		format_meta_jsonl(strbuf *sb, const format_meta *m);
void		format_meta_csv(strbuf *sb, const format_meta *m);

/*
 * A description record: the server's description of a wait event, before
 * the first row of the event in a file, so that a report from the file
 * describes it as the live one does.  A JSON line, or the same object on a
 * CSV comment line ("# description {...}"), which holds any text on one line.
 */
void		format_description_jsonl(strbuf *sb, const char *type, const char *event,
									 const char *desc);
void		format_description_csv(strbuf *sb, const char *type, const char *event,
								   const char *desc);

/* --store's rows at the end of a run. */
typedef struct format_store_counts
{
	uint64_t	stored;
	uint64_t	rejected;		/* refused by the store database, skipped */
	uint64_t	dropped;		/* the queue was full */
	uint64_t	unsent;			/* not sent by the end */
} format_store_counts;

/* The store's counts: a JSON line, or a CSV comment line ("# store ..."). */
void		format_store_jsonl(strbuf *sb, const format_store_counts *c);
void		format_store_csv(strbuf *sb, const format_store_counts *c);

/* One folded-stack line: datname;backend_type;wait_event_type;wait_event;query_id count */
void		format_folded_line(strbuf *sb, const wprof_key *k, uint64_t count);

#endif
