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

#include <stddef.h>
#include <stdint.h>

#include "pgtempo/json.h"
#include "pgtempo/strbuf.h"

#include "wprof.h"
#include "sample.h"

#define FORMAT_TS_LEN 64

/* The header line of raw CSV logs (without the newline). */
#define FORMAT_CSV_SAMPLE_HEADER \
	"ts,pid,backend_start,backend_type,datname,usename,application_name,client_addr," \
	"state,wait_event_type,wait_event,query_id,leader_pid,blockers,samples,wait_time_us,query"
/* The header line of CSV logs with --log-interval. */
#define FORMAT_CSV_INTERVAL_HEADER \
	"interval_start,interval_end,ticks,datname,usename,application_name,backend_type," \
	"wait_event_type,wait_event,query_id,samples,pct,est_seconds,measured_seconds,measured_count"

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

/* Health and gap records: JSON lines, or CSV comment lines ("# health ..."). */
void		format_health_jsonl(strbuf *sb, const sample_health *h);
void		format_health_csv(strbuf *sb, const sample_health *h);
void		format_gap_jsonl(strbuf *sb, const sample_gap *g);
void		format_gap_csv(strbuf *sb, const sample_gap *g);
/* The same facts as members of a JSON object (the log's records and the --json report). */
void		format_health_members(json_writer *w, const sample_health *h);
/* The rate chosen, the cost per sample and the backends of a health record, as JSON members. */
void		format_health_cost_members(json_writer *w, const sample_health *h);
void		format_gap_members(json_writer *w, const sample_gap *g);

/*
 * The versions of the history log's records: a reader (histread.h) reads
 * files of FORMAT_LOG_VERSION_MIN to FORMAT_LOG_VERSION and refuses
 * others.  Raised when a record changes its fields or a new kind of
 * record comes.  A file says the oldest version that holds its records:
 * 2 (description records) only when the run can describe wait events
 * (PostgreSQL 17+), else 1, so that the files of a run on an older
 * server are what they were and readers of version 1 still read them.
 */
#define FORMAT_LOG_VERSION 2
#define FORMAT_LOG_VERSION_MIN 1

/* What a log's rows mean: the run that wrote them (a meta record heads every file). */
typedef struct format_meta
{
	int64_t		run_us;			/* when the run connected: tells runs apart */
	const char *source;			/* as the report's heading says it */
	const char *server;
	const char *server_version;
	double		interval_s;
	double		period_s;		/* backend time one sample stands for */
	bool		include_idle;
	bool		measured;		/* the source measures wait time */
	const char *const *backend_types;	/* counted; none: every type */
	int			nbackend_types;
	bool		backend_types_given;
	bool		descriptions;	/* the file may hold description records (version 2) */
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
