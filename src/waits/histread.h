/*
 * histread.h — reading pgtempo-waits' history logs (--log) back, a record
 * at a time: raw sample rows or --log-interval profiles, as CSV or JSON
 * Lines, with their meta, health and gap records (format.h writes them).
 *
 * A file is recognized by its first line: one of the two CSV headers, or
 * a JSON object.  Every record must be whole and of this version's shape;
 * anything else is an error naming the file and the line, so a file that
 * was cut off, written by another version or not a log at all is never
 * half read.  One exception: a file written in the last few seconds (a
 * run is appending to it) may end on part of a record, which is left for
 * the next reader (tail_skipped says so).  A meta record must come before
 * the first row: it says how the rows were sampled (format_meta).  Files
 * of log format versions 1 to 4 are read; version 2 adds description
 * records, which a file of version 1 cannot hold, and version 3 head
 * blocker and chain records, version 4 measured records.
 *
 * Strings of rows are interned in the caller's pool; a column that holds
 * the same text as in the row before is not looked up again, which keeps
 * reading an hour of rows at 100 Hz well under a second a million rows.
 */
#ifndef PGTEMPO_WAITS_HISTREAD_H
#define PGTEMPO_WAITS_HISTREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgtempo/strbuf.h"

#include "format.h"
#include "sample.h"
#include "strpool.h"

/* A record's kind: format.h's kinds of records (format_kinds), by the same numbers. */
typedef enum histread_kind
{
	HISTREAD_SAMPLE = FORMAT_REC_SAMPLE,	/* a raw row: ts_us, row, blockers */
	HISTREAD_INTERVAL = FORMAT_REC_INTERVAL,	/* a profile line: start_us, end_us, ticks, row (no pid) */
	HISTREAD_META = FORMAT_REC_META,
	HISTREAD_HEALTH = FORMAT_REC_HEALTH,
	HISTREAD_GAP = FORMAT_REC_GAP,
	HISTREAD_STORE = FORMAT_REC_STORE,	/* --store's counts: nothing to report */
	HISTREAD_DESCRIPTION = FORMAT_REC_DESCRIPTION,	/* a wait event's description (log format 2) */
	HISTREAD_HEAD = FORMAT_REC_HEAD,	/* an interval's head blocker (log format 3) */
	HISTREAD_CHAIN = FORMAT_REC_CHAIN,	/* one of its chains (log format 3) */
	HISTREAD_MEASURED = FORMAT_REC_MEASURED	/* a figure measured by the server (log format 4) */
} histread_kind;

/* How the file is written. */
typedef enum histread_format
{
	HISTREAD_CSV_RAW,
	HISTREAD_CSV_INTERVAL,
	HISTREAD_JSONL
} histread_format;

#define HISTREAD_MAX_BLOCKERS 64
#define HISTREAD_MAX_BACKEND_TYPES 32
/* Interned texts remembered per column (a power of 2) */
#define HISTREAD_SEEN 16

/*
 * The meta record: the run it describes as format_meta_* wrote it, with
 * who wrote it (run.tool and run.version, interned like every string here).
 */
typedef struct histread_meta
{
	int			log_version;
	format_meta run;			/* its backend_types: the record's, valid until the next */
} histread_meta;

typedef struct histread_rec
{
	histread_kind kind;
	uint64_t	line;			/* where the record starts */
	histread_meta meta;
	uint64_t	ts_us;			/* a sample's; an interval's end; a health record's */
	uint64_t	start_us;		/* an interval's start */
	uint64_t	ticks;			/* an interval's */
	sample_row	row;			/* a sample or an interval's key and counts */
	int32_t		blockers[HISTREAD_MAX_BLOCKERS];
	const char *backend_types[HISTREAD_MAX_BACKEND_TYPES];	/* meta.run's */
	sample_health health;
	sample_gap	gap;			/* reason interned */
	format_description desc;	/* a description record's event and its text, interned */
	format_store_counts store;	/* a store record's counts */
	format_head_rec head;		/* a head or chain record's fields, strings interned */
	format_measured_rec measured;	/* a measured record's fields, strings interned */
} histread_rec;

typedef struct histread
{
	char	   *path;
	int			fd;
	strpool    *pool;
	histread_format fmt;
	bool		recognized;		/* the first line was read */
	char	   *buf;			/* what was read and not yet parsed */
	size_t		len;
	size_t		pos;
	size_t		cap;
	bool		eof;
	uint64_t	line;			/* lines consumed */
	uint64_t	rec_line;		/* where the record read last starts */
	bool		seen_meta;		/* rows may come */
	int			log_version;	/* the last meta record's */
	bool		tail_skipped;	/* it ended on part of a record, written seconds ago */
	strbuf		scratch;		/* unquoted and unescaped text */
	/*
	 * Texts a column had lately, interned: a text column holds few
	 * values (events, applications), each of which would be hashed again
	 * row after row.  And a timestamp column's text in the row before and
	 * its value: a profile's lines of one interval share both its times.
	 */
	struct
	{
		const char *s;
		size_t		len;
	}			seen[FORMAT_NCOLUMNS][HISTREAD_SEEN];
	strbuf		last_text[FORMAT_NCOLUMNS];
	int64_t		last_ts[FORMAT_NCOLUMNS];
	bool		last_set[FORMAT_NCOLUMNS];
} histread;

/* Open a log file; false with *cause ("could not open ..."). */
bool		histread_open(histread *h, const char *path, strpool *pool, char **cause);
/*
 * The next record: 1 with *rec filled, 0 at the end of the file, -1 with
 * *cause ("FILE:LINE: what is wrong") when the file is not a whole log of
 * a version this one reads.
 */
int			histread_next(histread *h, histread_rec *rec, char **cause);
void		histread_close(histread *h);

#endif
