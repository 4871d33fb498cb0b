/*
 * evdesc.h — wait event descriptions by (type, event): what the server's
 * pg_wait_events says (PostgreSQL 17+), as the history logs record it.
 *
 * The --log sink keeps one table per file (the pairs the file has
 * described so far, with or without a description); --from-log keeps one
 * for the window (what the files said), which the report reads through
 * evdesc_describe as a live run reads the server's.  The table keeps the
 * pointers it is given: the strings must outlive it (a run's string pool).
 */
#ifndef PGTEMPO_WAITS_EVDESC_H
#define PGTEMPO_WAITS_EVDESC_H

#include <stdbool.h>

#include "pgtempo/hash.h"

typedef struct evdesc_table
{
	hash_table	t;				/* evdesc entries (evdesc.c) */
} evdesc_table;

void		evdesc_init(evdesc_table *d);
void		evdesc_free(evdesc_table *d);
/* Forget every pair (a new file describes them again). */
void		evdesc_clear(evdesc_table *d);
/* Is the pair in the table?  *desc is then its description (NULL: it has none). */
bool		evdesc_find(const evdesc_table *d, const char *type, const char *event,
						const char **desc);
/* Set the pair's description (NULL: it has none); a pair set before takes the new one. */
void		evdesc_set(evdesc_table *d, const char *type, const char *event, const char *desc);
/* A report_describe_fn (report.h) over the table arg: the pair's description, or NULL. */
const char *evdesc_describe(const void *arg, const char *type, const char *event);

#endif
