/*
 * histfield.h — the fields of the history logs' records (histread.h reads
 * the records): a CSV record (RFC 4180 quotes, unquoted in place), the
 * "key=value" pairs of a CSV comment record, and the times in them; the
 * JSON records are split by jsonread_flat into the same fields.
 *
 * Values are spans of the record's text, not copies: they live as long
 * as the record does.
 */
#ifndef PGTEMPO_WAITS_HISTFIELD_H
#define PGTEMPO_WAITS_HISTFIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgtempo/jsonread.h"

/*
 * One member of a JSON object (the flat scan of jsonread splits the JSON
 * records), or one CSV field: its text as written.
 */
typedef jsonread_field histfield;

/* Split a CSV record (NUL-terminated) into fields, unquoting in place; false on a stray quote. */
bool		histfield_csv(char *p, histfield *f, int max, int *n);
/*
 * The "key=value key=value" pairs of a comment record; the value of
 * rest_key (if not NULL) runs to the end of the line.  Cuts p in place.
 */
bool		histfield_pairs(char *p, const char *rest_key, histfield *f, int max, int *n);
/* The member named key, or NULL. */
histfield  *histfield_get(histfield *f, int n, const char *key);
/* "2025-03-01T12:00:00.123456Z" (what format_ts writes) to us since the epoch; false if not. */
bool		histfield_ts(const char *s, size_t len, int64_t *us);

#endif
