/*
 * cmpjson.h — the one JSON document of a comparison (pgtempo-bench
 * --compare, pgtempo-waits --from-log with a baseline): one envelope,
 * each tool its own members inside it.
 *
 *   {"tool", "version", "kind": "comparison", "schema",
 *    "base": {...}, "new": {...},           the two sides (cmpjson_doc.side)
 *    "method": {"level", "family", "level_each", ...},
 *    ...                                    the results (cmpjson_doc.body)
 *    "fail_if": [{"limit", ..., "tripped"}, ...],
 *    "exit_status"}
 */
#ifndef PGTEMPO_CMPJSON_H
#define PGTEMPO_CMPJSON_H

#include <stdbool.h>

#include "pgtempo/json.h"
#include "pgtempo/strbuf.h"

/* The schema of a comparison's document (1: bench's sides under "inputs"). */
#define CMPJSON_SCHEMA 2

/* A tool's writers of its own members (each gets cmpjson_doc.arg). */
typedef struct cmpjson_ops
{
	/* the members of side 0 (base) or 1 (new) */
	void		(*side) (const void *arg, json_writer *w, int side);
	/* the method's members after level, family and level_each */
	void		(*method) (const void *arg, json_writer *w);
	/* the results: members of the document after the method */
	void		(*body) (const void *arg, json_writer *w);
	/* limit i's text as given, its members after "limit", and whether it tripped */
	const char *(*limit_text) (const void *arg, int i);
	void		(*limit) (const void *arg, json_writer *w, int i);
	bool		(*tripped) (const void *arg, int i);
} cmpjson_ops;

/* A comparison as its tool hands it to cmpjson_write. */
typedef struct cmpjson_doc
{
	const char *tool;			/* "pgtempo-bench", "pgtempo-waits" */
	double		level;			/* of the bounds, for the whole family */
	int			family;			/* the comparisons judged together */
	double		level_each;		/* each one's level */
	int			nlimits;		/* --fail-if limits */
	int			exit_status;
	const cmpjson_ops *ops;
	const void *arg;			/* the tool's comparison, for ops */
} cmpjson_doc;

/* The document of d into sb (pretty, with its newline). */
void		cmpjson_write(strbuf *sb, const cmpjson_doc *d);

#endif
