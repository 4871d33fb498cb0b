/*
 * histfield.h — the fields of the history logs' records (histread.h reads
 * the records): a JSON object on one line (scalars and flat arrays, as
 * format.c writes them), a CSV record (RFC 4180 quotes, unquoted in
 * place), the "key=value" pairs of a CSV comment record, and the times
 * in them and on the command line (--since, --until).
 *
 * Values are spans of the record's text, not copies: they live as long
 * as the record does.
 */
#ifndef PGTEMPO_WAITS_HISTFIELD_H
#define PGTEMPO_WAITS_HISTFIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgtempo/strbuf.h"

/* One member of a JSON object, or one CSV field: its text as written. */
typedef struct histfield
{
	const char *key;			/* JSON: the member's name */
	size_t		klen;
	char		t;				/* JSON: 's' string, 'n' number, '0' null, 'b' bool, '[' array */
	char	   *v;				/* the value (a string without its quotes) */
	size_t		vlen;
	bool		esc;			/* a JSON string with escapes */
} histfield;

/*
 * Split a one-line JSON object into its members (at most max); false if
 * it is not one.  Strings keep their escapes (esc says there are some).
 */
bool		histfield_json(const char *p, histfield *f, int max, int *n);
/* Split a CSV record (NUL-terminated) into fields, unquoting in place; false on a stray quote. */
bool		histfield_csv(char *p, histfield *f, int max, int *n);
/*
 * The "key=value key=value" pairs of a comment record; the value of
 * rest_key (if not NULL) runs to the end of the line.  Cuts p in place.
 */
bool		histfield_pairs(char *p, const char *rest_key, histfield *f, int max, int *n);
/* The member named key, or NULL. */
histfield  *histfield_get(histfield *f, int n, const char *key);
/* A JSON string's text with its escapes undone into sb; false on a bad escape. */
bool		histfield_unescape(strbuf *sb, const char *s, size_t len);
/* The closing quote of the JSON string that starts after a quote at p[-1], or NULL. */
const char *histfield_string_end(const char *p, bool *esc);
/* p past JSON white space. */
const char *histfield_ws(const char *p);

/* "2025-03-01T12:00:00.123456Z" (what format_ts writes) to us since the epoch; false if not. */
bool		histfield_ts(const char *s, size_t len, int64_t *us);

/*
 * A --since/--until value: ISO 8601 with or without an offset
 * ("2026-11-26T03:10", "2026-11-26 03:10:00+01:00", "...Z"; local time
 * without one), or HH:MM[:SS] of the day now is in (local time).  False
 * with *cause in PostgreSQL's wording for option name.
 */
bool		histfield_parse_time(const char *arg, const char *name, int64_t now_us,
								 int64_t *us, char **cause);

#endif
