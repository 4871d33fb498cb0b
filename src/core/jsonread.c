/*
 * jsonread.c — a small strict JSON reader.
 *
 * One pass over a private copy of the text: strings are decoded in place
 * (a decoded string is never longer than its source) and the values are
 * carved from an arena, so a document costs two allocations per 64 kB of
 * values and none per value.  Containers collect their elements on a
 * scratch stack shared by every level and copy them into the arena when
 * they close, so an array of a million numbers is one block.
 */
#include "config.h"

#include "pgtempo/jsonread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgtempo/xalloc.h"

#include "jsonread_int.h"

#define ARENA_CHUNK (64 * 1024)

typedef struct arena_chunk
{
	struct arena_chunk *next;
	size_t		used;
	size_t		size;
	max_align_t data[];
} arena_chunk;

struct jsonread_doc
{
	char	   *text;			/* the private copy, strings decoded in place */
	arena_chunk *chunks;
	jsonread_value root;
};

typedef struct parser
{
	jsonread_doc *doc;
	char	   *p;
	char	   *end;
	int			line;
	const char *line_start;
	char	   *err;			/* the first error, formatted */
	jsonread_value *vstack;		/* array items being collected */
	size_t		vtop,
				vcap;
	jsonread_member *mstack;	/* object members being collected */
	size_t		mtop,
				mcap;
} parser;

static bool parse_value(parser *ps, jsonread_value *out, int depth);

/* n bytes from the document's arena, aligned for any value. */
static void *
arena_alloc(jsonread_doc *doc, size_t n)
{
	arena_chunk *c = doc->chunks;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (c == NULL || c->size - c->used < n)
	{
		size_t		size = n > ARENA_CHUNK ? n : ARENA_CHUNK;

		c = xmalloc(sizeof(arena_chunk) + size);
		c->size = size;
		c->used = 0;
		c->next = doc->chunks;
		doc->chunks = c;
	}
	c->used += n;
	return (char *) c->data + c->used - n;
}

/* Record the first error, at the current position. */
static bool
fail(parser *ps, const char *what)
{
	/* whatever was expected, a text that stops early is most likely truncated */
	if (ps->p >= ps->end)
		what = "unexpected end of input";
	if (ps->err == NULL)
		ps->err = xasprintf("line %d, column %d: %s", ps->line,
							(int) (ps->p - ps->line_start) + 1, what);
	return false;
}

static void
skip_space(parser *ps)
{
	while (ps->p < ps->end)
	{
		char		c = *ps->p;

		if (c == '\n')
		{
			ps->line++;
			ps->line_start = ps->p + 1;
		}
		else if (c != ' ' && c != '\t' && c != '\r')
			return;
		ps->p++;
	}
}

/* Consume the literal word (true, false, null). */
static bool
expect_word(parser *ps, const char *word)
{
	size_t		n = strlen(word);

	if ((size_t) (ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return fail(ps, "invalid token");
	ps->p += n;
	return true;
}

/* A string at ps->p (on the quote), decoded in place. */
static bool
parse_string(parser *ps, const char **out, uint32_t *len)
{
	char	   *start = ++ps->p;
	char	   *dst = start;
	const char *p = start;
	const char *err = jsonread_string_body(&p, ps->end, &dst, NULL);

	ps->p = (char *) p;
	if (err != NULL)
		return fail(ps, err);
	if (ps->p >= ps->end)
		return fail(ps, "unterminated string");
	ps->p++;
	*dst = '\0';				/* fits: the closing quote was at or after dst */
	*out = start;
	*len = (uint32_t) (dst - start);
	return true;
}

/* A number at ps->p. */
static bool
parse_number(parser *ps, jsonread_value *v)
{
	char	   *start = ps->p;
	const char *p = start;
	jsonread_number_parts np;
	const char *err = jsonread_number_scan(&p, ps->end, &np);

	ps->p = (char *) p;
	if (err == NULL && (err = jsonread_number_value(start, p, &np, v)) != NULL)
		ps->p = start;			/* point at the number */
	return err == NULL || fail(ps, err);
}

/* Push v on the scratch stack of array items. */
static void
push_value(parser *ps, const jsonread_value *v)
{
	if (ps->vtop == ps->vcap)
	{
		ps->vcap = ps->vcap > 0 ? 2 * ps->vcap : 256;
		ps->vstack = xrealloc(ps->vstack, ps->vcap * sizeof(*ps->vstack));
	}
	ps->vstack[ps->vtop++] = *v;
}

static bool
parse_array(parser *ps, jsonread_value *out, int depth)
{
	size_t		base = ps->vtop;
	jsonread_value *items;

	ps->p++;
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == ']')
		ps->p++;
	else
	{
		for (;;)
		{
			jsonread_value v;

			if (!parse_value(ps, &v, depth + 1))
				return false;
			push_value(ps, &v);
			skip_space(ps);
			if (ps->p < ps->end && *ps->p == ',')
				ps->p++;
			else if (ps->p < ps->end && *ps->p == ']')
			{
				ps->p++;
				break;
			}
			else
				return fail(ps, "expected ',' or ']'");
		}
	}
	out->type = JSONREAD_ARRAY;
	out->n = (uint32_t) (ps->vtop - base);
	items = arena_alloc(ps->doc, (out->n > 0 ? out->n : 1) * sizeof(*items));
	if (out->n > 0)
		memcpy(items, ps->vstack + base, out->n * sizeof(*items));
	out->u.items = items;
	ps->vtop = base;
	return true;
}

/* One "key": value member, pushed on the scratch stack of members. */
static bool
parse_member(parser *ps, int depth)
{
	jsonread_member m;
	uint32_t	len;

	skip_space(ps);
	if (ps->p >= ps->end || *ps->p != '"')
		return fail(ps, "expected a string key");
	if (!parse_string(ps, &m.key, &len))
		return false;
	skip_space(ps);
	if (ps->p >= ps->end || *ps->p != ':')
		return fail(ps, "expected ':'");
	ps->p++;
	if (!parse_value(ps, &m.value, depth + 1))
		return false;
	if (ps->mtop == ps->mcap)
	{
		ps->mcap = ps->mcap > 0 ? 2 * ps->mcap : 64;
		ps->mstack = xrealloc(ps->mstack, ps->mcap * sizeof(*ps->mstack));
	}
	ps->mstack[ps->mtop++] = m;
	return true;
}

static bool
parse_object(parser *ps, jsonread_value *out, int depth)
{
	size_t		base = ps->mtop;
	jsonread_member *members;

	ps->p++;
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == '}')
		ps->p++;
	else
	{
		for (;;)
		{
			if (!parse_member(ps, depth))
				return false;
			skip_space(ps);
			if (ps->p < ps->end && *ps->p == ',')
				ps->p++;
			else if (ps->p < ps->end && *ps->p == '}')
			{
				ps->p++;
				break;
			}
			else
				return fail(ps, "expected ',' or '}'");
		}
	}
	out->type = JSONREAD_OBJECT;
	out->n = (uint32_t) (ps->mtop - base);
	members = arena_alloc(ps->doc, (out->n > 0 ? out->n : 1) * sizeof(*members));
	if (out->n > 0)
		memcpy(members, ps->mstack + base, out->n * sizeof(*members));
	out->u.members = members;
	ps->mtop = base;
	return true;
}

static bool
parse_value(parser *ps, jsonread_value *out, int depth)
{
	memset(out, 0, sizeof(*out));
	if (depth > JSONREAD_MAX_DEPTH)
		return fail(ps, "nested too deeply");
	skip_space(ps);
	if (ps->p >= ps->end)
		return fail(ps, "unexpected end of input");
	switch (*ps->p)
	{
		case '{':
			return parse_object(ps, out, depth);
		case '[':
			return parse_array(ps, out, depth);
		case '"':
			out->type = JSONREAD_STRING;
			return parse_string(ps, &out->u.str, &out->n);
		case 't':
		case 'f':
			out->type = JSONREAD_BOOL;
			out->b = *ps->p == 't';
			return expect_word(ps, out->b ? "true" : "false");
		case 'n':
			out->type = JSONREAD_NULL;
			return expect_word(ps, "null");
		default:
			if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
				return parse_number(ps, out);
			return fail(ps, "invalid token");
	}
}

/* Parse the document's own text (text[len] is writable). */
static jsonread_doc *
parse_owned(jsonread_doc *doc, size_t len, char **cause)
{
	parser		ps = {.doc = doc, .p = doc->text, .end = doc->text + len, .line = 1,
	.line_start = doc->text};
	bool		ok = parse_value(&ps, &doc->root, 0);

	if (ok)
	{
		skip_space(&ps);
		if (ps.p < ps.end)
			ok = fail(&ps, "unexpected text after the value");
	}
	free(ps.vstack);
	free(ps.mstack);
	if (!ok)
	{
		*cause = ps.err;
		jsonread_free(doc);
		return NULL;
	}
	return doc;
}

jsonread_doc *
jsonread_parse(const char *text, size_t len, char **cause)
{
	jsonread_doc *doc = xcalloc(1, sizeof(*doc));

	doc->text = xmalloc(len + 1);
	memcpy(doc->text, text, len);
	doc->text[len] = '\0';
	return parse_owned(doc, len, cause);
}

/* Read all of fd into a malloc'd buffer with room for a final NUL. */
static char *
read_all(int fd, size_t *len)
{
	struct stat st;
	size_t		cap = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t) st.st_size + 1 : 65536;
	char	   *buf = xmalloc(cap);

	*len = 0;
	for (;;)
	{
		ssize_t		n;

		if (*len + 1 >= cap)
		{
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + *len, cap - *len - 1);
		if (n == 0)
			break;
		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			free(buf);
			return NULL;
		}
		*len += (size_t) n;
	}
	buf[*len] = '\0';
	return buf;
}

jsonread_doc *
jsonread_file(const char *path, char **cause)
{
	int			fd = open(path, O_RDONLY | O_CLOEXEC);
	jsonread_doc *doc;
	size_t		len;
	char	   *inner = NULL;

	if (fd < 0)
	{
		*cause = xasprintf("could not open file \"%s\": %s", path, strerror(errno));
		return NULL;
	}
	doc = xcalloc(1, sizeof(*doc));
	doc->text = read_all(fd, &len);
	if (doc->text == NULL)
	{
		*cause = xasprintf("could not read file \"%s\": %s", path, strerror(errno));
		close(fd);
		free(doc);
		return NULL;
	}
	close(fd);
	doc = parse_owned(doc, len, &inner);
	if (doc == NULL)
	{
		*cause = xasprintf("file \"%s\" is not valid JSON: %s", path, inner);
		free(inner);
	}
	return doc;
}

const jsonread_value *
jsonread_root(const jsonread_doc *doc)
{
	return &doc->root;
}

void
jsonread_free(jsonread_doc *doc)
{
	if (doc == NULL)
		return;
	while (doc->chunks != NULL)
	{
		arena_chunk *next = doc->chunks->next;

		free(doc->chunks);
		doc->chunks = next;
	}
	free(doc->text);
	free(doc);
}

const jsonread_value *
jsonread_get(const jsonread_value *v, const char *key)
{
	if (v == NULL || v->type != JSONREAD_OBJECT)
		return NULL;
	/* the first byte first: most keys differ there, and strcmp() is a call */
	for (uint32_t k = 0; k < v->n; k++)
		if (v->u.members[k].key[0] == key[0] && strcmp(v->u.members[k].key, key) == 0)
			return &v->u.members[k].value;
	return NULL;
}

bool
jsonread_equal(const jsonread_value *a, const jsonread_value *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type)
	{
		case JSONREAD_NULL:
			return true;
		case JSONREAD_BOOL:
			return a->b == b->b;
		case JSONREAD_NUMBER:
			return a->is_int && b->is_int ? a->i == b->i : a->num == b->num;
		case JSONREAD_STRING:
			return a->n == b->n && memcmp(a->u.str, b->u.str, a->n) == 0;
		case JSONREAD_ARRAY:
			if (a->n != b->n)
				return false;
			for (uint32_t i = 0; i < a->n; i++)
				if (!jsonread_equal(&a->u.items[i], &b->u.items[i]))
					return false;
			return true;
		case JSONREAD_OBJECT:
			if (a->n != b->n)
				return false;
			for (uint32_t i = 0; i < a->n; i++)
				if (strcmp(a->u.members[i].key, b->u.members[i].key) != 0 ||
					!jsonread_equal(&a->u.members[i].value, &b->u.members[i].value))
					return false;
			return true;
	}
	return false;
}

void
jsonread_write(json_writer *w, const jsonread_value *v)
{
	switch (v->type)
	{
		case JSONREAD_NULL:
			json_null(w);
			break;
		case JSONREAD_BOOL:
			json_bool(w, v->b);
			break;
		case JSONREAD_NUMBER:
			if (v->is_int)
				json_int(w, v->i);
			else
				json_double(w, v->num);
			break;
		case JSONREAD_STRING:
			json_string(w, v->u.str);
			break;
		case JSONREAD_ARRAY:
			json_array_begin(w);
			for (uint32_t i = 0; i < v->n; i++)
				jsonread_write(w, &v->u.items[i]);
			json_array_end(w);
			break;
		case JSONREAD_OBJECT:
			json_object_begin(w);
			for (uint32_t i = 0; i < v->n; i++)
			{
				json_key(w, v->u.members[i].key);
				jsonread_write(w, &v->u.members[i].value);
			}
			json_object_end(w);
			break;
	}
}

const char *
jsonread_type_name(jsonread_type t)
{
	static const char *const names[] = {"null", "boolean", "number", "string", "array", "object"};

	return names[t];
}
