/*
 * jsonread.h — a small strict JSON reader (RFC 8259) into a read-only tree.
 *
 * The whole text is parsed at once into values that live in one arena,
 * freed together with the document.  Strict: no comments, no trailing
 * commas, no leading zeros, no NaN, no control characters in strings,
 * nothing after the top-level value, and strings must be valid UTF-8
 * (\u escapes included: a lone surrogate is an error).  An error says
 * where: "line 3, column 7: expected ',' or '}'".
 *
 * Numbers are kept as doubles (correctly rounded, whatever the locale);
 * an integer that fits in int64_t is also kept exactly.  Object members
 * keep their order; a lookup by key is a linear scan (the documents our
 * tools read have small objects), and with duplicate keys the first wins.
 */
#ifndef PGTEMPO_JSONREAD_H
#define PGTEMPO_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgtempo/json.h"
#include "pgtempo/strbuf.h"

#define JSONREAD_MAX_DEPTH 64

typedef enum jsonread_type
{
	JSONREAD_NULL,
	JSONREAD_BOOL,
	JSONREAD_NUMBER,
	JSONREAD_STRING,
	JSONREAD_ARRAY,
	JSONREAD_OBJECT
} jsonread_type;

typedef struct jsonread_value jsonread_value;
typedef struct jsonread_member jsonread_member;

struct jsonread_value
{
	jsonread_type type;
	bool		is_int;			/* a number written as an integer that fits in int64_t */
	bool		b;				/* JSONREAD_BOOL */
	uint32_t	n;				/* array: items; object: members; string: bytes */
	double		num;			/* JSONREAD_NUMBER */
	int64_t		i;				/* when is_int */
	union
	{
		const char *str;		/* decoded, NUL-terminated (may hold \u0000) */
		const jsonread_value *items;
		const jsonread_member *members;
	}			u;
};

struct jsonread_member
{
	const char *key;
	jsonread_value value;
};

typedef struct jsonread_doc jsonread_doc;

/*
 * Parse text[0..len).  NULL with *cause set (caller frees) when it is not
 * one well-formed JSON value.
 */
jsonread_doc *jsonread_parse(const char *text, size_t len, char **cause);

/*
 * Read and parse the file at path; NULL with *cause set (caller frees)
 * when it cannot be read or is not well-formed ("FILE: line 3, ...").
 */
jsonread_doc *jsonread_file(const char *path, char **cause);

const jsonread_value *jsonread_root(const jsonread_doc *doc);
void		jsonread_free(jsonread_doc *doc);

/* The member key of object v; NULL when v is NULL, not an object, or has none. */
const jsonread_value *jsonread_get(const jsonread_value *v, const char *key);

/* Whether a and b are the same value (numbers by value, objects member by member in order). */
bool		jsonread_equal(const jsonread_value *a, const jsonread_value *b);

/* "object", "number", ...: for messages. */
const char *jsonread_type_name(jsonread_type t);

/* Write v with the JSON writer (as compact or pretty as w is). */
void		jsonread_write(json_writer *w, const jsonread_value *v);

/*
 * The number that is all of the len bytes at s, by the grammar and the
 * rounding of the tree; false if it is not one.
 */
bool		jsonread_number(const char *s, size_t len, jsonread_value *v);

/*
 * The flat scan: a JSON object of scalars and arrays of scalars (the
 * records of a log, one a line) split into its members without building
 * a tree, 2-3 times faster than jsonread_parse.  The text is held to the
 * same grammar (strings, numbers, literals are scanned by the same code);
 * values stay spans of the text, strings with their escapes, which
 * jsonread_unescape undoes.
 */
typedef struct jsonread_field
{
	const char *key;			/* the member's name, as written */
	size_t		klen;
	char		t;				/* 's' string, 'n' number, '0' null, 'b' bool, '[' array */
	char	   *v;				/* a string without its quotes; an array with its brackets */
	size_t		vlen;
	bool		esc;			/* a string with escapes */
} jsonread_field;

/*
 * Split the object text[0..len) into its members (at most max, in *n);
 * false with *cause (if not NULL) when it is not a flat object:
 * "column 12: lone high surrogate in \u escape".
 */
bool		jsonread_flat(const char *text, size_t len, jsonread_field *f, int max, int *n,
						  char **cause);

/*
 * A string's text as jsonread_flat found it (between its quotes), its
 * escapes undone into sb; false if it is not one.
 */
bool		jsonread_unescape(strbuf *sb, const char *s, size_t len);

/*
 * The next item of a list [*pos, end), scalars separated by commas (the
 * inside of an array of jsonread_flat, between its brackets): 1 with
 * *item and *pos past it, 0 at the end, -1 if it is not such a list.
 */
int			jsonread_item(const char **pos, const char *end, jsonread_field *item);

#endif
