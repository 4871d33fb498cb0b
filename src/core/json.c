/*
 * json.c — a small streaming JSON writer.
 *
 * w->depth counts the open containers and w->first[depth - 1] tells
 * whether the innermost one is still empty, so up to JSON_MAX_DEPTH
 * containers can be open at once.  A writer produces one top-level value;
 * call json_init() again to write the next one.
 *
 * Misuse that can only be a bug in the caller (closing more containers than
 * were opened, nesting too deep) aborts with a message rather than writing
 * broken JSON.
 */
#include "config.h"

#include "pgtempo/json.h"
#include "pgtempo/utf8.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"

void
json_init(json_writer *w, strbuf *out, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->pretty = pretty;
}

/* Start a new line at the current depth (pretty output only). */
static void
newline_indent(json_writer *w, int depth)
{
	strbuf_putc(w->out, '\n');
	for (int i = 0; i < depth; i++)
		strbuf_append(w->out, "  ", 2);
}

/*
 * Write what has to come before a value or a key: nothing right after a
 * key, otherwise the separating comma and, when pretty, the line break.
 */
static void
begin_item(json_writer *w)
{
	if (w->after_key)
	{
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	if (!w->first[w->depth - 1])
		strbuf_putc(w->out, ',');
	w->first[w->depth - 1] = false;
	if (w->pretty)
		newline_indent(w, w->depth);
}

static void
open_container(json_writer *w, char c)
{
	if (w->depth >= JSON_MAX_DEPTH)
	{
		msg_error("json: nesting deeper than %d levels", JSON_MAX_DEPTH);
		abort();
	}
	begin_item(w);
	strbuf_putc(w->out, c);
	w->first[w->depth++] = true;
}

/* Close the innermost container; an empty one stays on its line: {} or []. */
static void
close_container(json_writer *w, char c)
{
	bool		empty;

	if (w->depth == 0)
	{
		msg_error("json: '%c' without a container to close", c);
		abort();
	}
	empty = w->first[--w->depth];
	if (w->pretty && !empty)
		newline_indent(w, w->depth);
	strbuf_putc(w->out, c);
}

void
json_object_begin(json_writer *w)
{
	open_container(w, '{');
}

void
json_object_end(json_writer *w)
{
	close_container(w, '}');
}

void
json_array_begin(json_writer *w)
{
	open_container(w, '[');
}

void
json_array_end(json_writer *w)
{
	close_container(w, ']');
}

/*
 * Append s as a quoted JSON string.  Runs of bytes that need no escape are
 * copied in one go; bytes >= 0x80 that form valid UTF-8 are among them, and
 * any other byte is written as the text \\xNN (utf8.h), so the output is
 * always valid UTF-8 JSON whatever bytes the server sent.
 */
static void
put_quoted(strbuf *out, const char *s)
{
	const char *run = s;
	const char *p;

	strbuf_putc(out, '"');
	for (p = s; *p != '\0'; p++)
	{
		unsigned char c = (unsigned char) *p;
		const char *esc;

		switch (c)
		{
			case '"':
				esc = "\\\"";
				break;
			case '\\':
				esc = "\\\\";
				break;
			case '\n':
				esc = "\\n";
				break;
			case '\t':
				esc = "\\t";
				break;
			case '\r':
				esc = "\\r";
				break;
			case '\b':
				esc = "\\b";
				break;
			case '\f':
				esc = "\\f";
				break;
			default:
				if (c >= 0x20 && c < 0x80)
					continue;
				if (c >= 0x80)
				{
					size_t		len = utf8_seq_len(p, strnlen(p, 4));

					if (len > 0)
					{
						p += len - 1;
						continue;
					}
					/* "\\xNN": the escape's backslash escaped for JSON */
					strbuf_append(out, run, p - run);
					strbuf_putc(out, '\\');
					utf8_append_escaped(out, p, 1);
					run = p + 1;
					continue;
				}
				esc = NULL;
				break;
		}
		strbuf_append(out, run, p - run);
		if (esc != NULL)
			strbuf_puts(out, esc);
		else
			strbuf_printf(out, "\\u%04x", c);
		run = p + 1;
	}
	strbuf_append(out, run, p - run);
	strbuf_putc(out, '"');
}

void
json_key(json_writer *w, const char *key)
{
	begin_item(w);
	put_quoted(w->out, key);
	if (w->pretty)
		strbuf_append(w->out, ": ", 2);
	else
		strbuf_putc(w->out, ':');
	w->after_key = true;
}

void
json_string(json_writer *w, const char *s)
{
	if (s == NULL)
	{
		json_null(w);
		return;
	}
	begin_item(w);
	put_quoted(w->out, s);
}

void
json_int(json_writer *w, int64_t v)
{
	begin_item(w);
	strbuf_printf(w->out, "%" PRId64, v);
}

void
json_uint(json_writer *w, uint64_t v)
{
	begin_item(w);
	strbuf_printf(w->out, "%" PRIu64, v);
}

/*
 * The shortest of %.15g and %.17g that reads back as the same double:
 * 0.1 stays "0.1", 0.1 + 0.2 becomes "0.30000000000000004".  JSON has no
 * NaN or infinity, so those are written as null.
 */
void
json_double(json_writer *w, double v)
{
	char		buf[32];

	if (!isfinite(v))
	{
		json_null(w);
		return;
	}
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);

	/* a locale with a decimal comma must not leak into JSON */
	for (char *p = buf; *p != '\0'; p++)
		if (*p == ',')
			*p = '.';

	begin_item(w);
	strbuf_puts(w->out, buf);
}

void
json_bool(json_writer *w, bool v)
{
	begin_item(w);
	strbuf_puts(w->out, v ? "true" : "false");
}

void
json_null(json_writer *w)
{
	begin_item(w);
	strbuf_puts(w->out, "null");
}

/*
 * json_kv_TYPE(w, key, v): the key, then v as json_TYPE writes it.  One
 * definition for the five, declared one by one in json.h.
 */
#define JSON_KV(type, ctype) \
void \
json_kv_##type(json_writer *w, const char *key, ctype v) \
{ \
	json_key(w, key); \
	json_##type(w, v); \
}

JSON_KV(string, const char *)
JSON_KV(int, int64_t)
JSON_KV(uint, uint64_t)
JSON_KV(double, double)
JSON_KV(bool, bool)

/*
 * json_kv_TYPE_or_null(w, key, known, v): the key, then v, or null where
 * v is not known.  One definition for the two, declared in json.h.
 */
#define JSON_KV_OR_NULL(type, ctype) \
void \
json_kv_##type##_or_null(json_writer *w, const char *key, bool known, ctype v) \
{ \
	json_key(w, key); \
	if (known) \
		json_##type(w, v); \
	else \
		json_null(w); \
}

JSON_KV_OR_NULL(int, int64_t)
JSON_KV_OR_NULL(double, double)

/* Each field of the table, read from base by its offset and type. */
void
json_kv_fields(json_writer *w, const void *base, const json_field *fields, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		const char *at = (const char *) base + fields[i].offset;

		switch (fields[i].type)
		{
			case JSON_FIELD_DOUBLE:
				json_kv_double(w, fields[i].key, *(const double *) (const void *) at);
				break;
			case JSON_FIELD_INT64:
				json_kv_int(w, fields[i].key, *(const int64_t *) (const void *) at);
				break;
			case JSON_FIELD_BOOL:
				json_kv_bool(w, fields[i].key, *(const bool *) at);
				break;
		}
	}
}
