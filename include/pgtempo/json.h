/*
 * json.h — a small streaming JSON writer.
 *
 * The writer appends to a strbuf and inserts commas, colons and (when
 * pretty) newlines and indentation itself, so callers just emit values
 * and keys in order.  Non-finite doubles are written as null, strings
 * are escaped per RFC 8259 (control characters as \u00XX) and a byte
 * that is not valid UTF-8 is written as the text \xNN (utf8.h), so the
 * output is valid UTF-8 whatever the input was.
 */
#ifndef PGTEMPO_JSON_H
#define PGTEMPO_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgtempo/strbuf.h"

#define JSON_MAX_DEPTH 32

typedef struct json_writer
{
	strbuf	   *out;
	bool		pretty;
	int			depth;
	bool		first[JSON_MAX_DEPTH];	/* no element written yet at depth */
	bool		after_key;		/* a key was written, its value is next */
} json_writer;

void		json_init(json_writer *w, strbuf *out, bool pretty);
void		json_object_begin(json_writer *w);
void		json_object_end(json_writer *w);
void		json_array_begin(json_writer *w);
void		json_array_end(json_writer *w);
void		json_key(json_writer *w, const char *key);
void		json_string(json_writer *w, const char *s);	/* NULL writes null */
void		json_int(json_writer *w, int64_t v);
void		json_uint(json_writer *w, uint64_t v);
void		json_double(json_writer *w, double v);
void		json_bool(json_writer *w, bool v);
void		json_null(json_writer *w);

/* key + value in one call */
void		json_kv_string(json_writer *w, const char *key, const char *s);
void		json_kv_int(json_writer *w, const char *key, int64_t v);
void		json_kv_uint(json_writer *w, const char *key, uint64_t v);
void		json_kv_double(json_writer *w, const char *key, double v);
void		json_kv_bool(json_writer *w, const char *key, bool v);

/* key + value, or key + null where the value is not known (!known) */
void		json_kv_int_or_null(json_writer *w, const char *key, bool known, int64_t v);
void		json_kv_double_or_null(json_writer *w, const char *key, bool known, double v);

/*
 * Members written from a struct's fields, a table of them in order:
 *   static const json_field f[] = {{"time_s", JSON_FIELD_DOUBLE, offsetof(point, elapsed_s)}};
 *   json_kv_fields(w, &p, f, sizeof(f) / sizeof(f[0]));
 */
typedef enum json_field_type
{
	JSON_FIELD_DOUBLE,			/* double, as json_kv_double */
	JSON_FIELD_INT64,			/* int64_t, as json_kv_int */
	JSON_FIELD_BOOL				/* bool, as json_kv_bool */
} json_field_type;

typedef struct json_field
{
	const char *key;
	json_field_type type;
	size_t		offset;			/* offsetof the field in its struct */
} json_field;

void		json_kv_fields(json_writer *w, const void *base, const json_field *fields, size_t n);

#endif
