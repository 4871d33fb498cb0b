/*
 * pqbin.c — what both readers share (a value stored as its C type), and
 * statements' parameters in PostgreSQL's binary formats.
 */
#include "config.h"

#include "pqbin.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

/* Type oids of the parameters (pg_type.dat). */
#define INT4OID			23
#define TEXTOID			25
#define INT4ARRAYOID	1007
#define TEXTARRAYOID	1009

/* A scalar's value, as the C type of its type. */
void
pqbin_store(pqbin_type type, void *out, int64_t v, const char *text)
{
	switch (type)
	{
		case PQBIN_INT4:
			*(int32_t *) out = (int32_t) (uint32_t) v;
			break;
		case PQBIN_INT8:
			*(int64_t *) out = v;
			break;
		case PQBIN_BOOL:
			*(bool *) out = v != 0;
			break;
		case PQBIN_OID:
			*(uint32_t *) out = (uint32_t) v;
			break;
		case PQBIN_TEXT:
			*(const char **) out = text;
			break;
	}
}

/* Store v in network byte order at out. */
static void
put_be32(char *out, uint32_t v)
{
	out[0] = (char) (v >> 24);
	out[1] = (char) (v >> 16);
	out[2] = (char) (v >> 8);
	out[3] = (char) v;
}

/* Add a parameter of type oid taking value (allocated, len bytes). */
static bool
add(pqbin_params *p, Oid type, char *value, int len)
{
	if (p->n >= PQBIN_MAX_PARAMS)
	{
		free(value);
		return false;
	}
	p->types[p->n] = type;
	p->values[p->n] = value;
	p->lengths[p->n] = len;
	p->formats[p->n] = 1;
	p->n++;
	return true;
}

bool
pqbin_put_int4(pqbin_params *p, int32_t v)
{
	char	   *b = xmalloc(4);

	put_be32(b, (uint32_t) v);
	return add(p, INT4OID, b, 4);
}

/*
 * A one-dimensional array of n elements, lower bound 1, without NULLs:
 * its header (array_recv's format) and room for size bytes of elements.
 * No elements: no dimension, as PostgreSQL sends an empty array.
 */
static char *
array_start(Oid elem, int n, size_t size, size_t *len)
{
	size_t		head = n > 0 ? 20 : 12;
	char	   *b = xmalloc(head + size);

	put_be32(b, n > 0 ? 1 : 0);		/* dimensions */
	put_be32(b + 4, 0);			/* no NULLs */
	put_be32(b + 8, elem);
	if (n > 0)
	{
		put_be32(b + 12, (uint32_t) n);
		put_be32(b + 16, 1);
	}
	*len = head;
	return b;
}

bool
pqbin_put_int4_array(pqbin_params *p, const int32_t *v, int n)
{
	size_t		len;
	char	   *b = array_start(INT4OID, n, (size_t) n * 8, &len);

	for (int i = 0; i < n; i++, len += 8)
	{
		put_be32(b + len, 4);
		put_be32(b + len + 4, (uint32_t) v[i]);
	}
	return add(p, INT4ARRAYOID, b, (int) len);
}

bool
pqbin_put_text_array(pqbin_params *p, char *const *v, int n)
{
	size_t		size = 0,
				len;
	char	   *b;

	for (int i = 0; i < n; i++)
		size += 4 + strlen(v[i]);
	b = array_start(TEXTOID, n, size, &len);
	for (int i = 0; i < n; i++)
	{
		size_t		l = strlen(v[i]);

		put_be32(b + len, (uint32_t) l);
		memcpy(b + len + 4, v[i], l);
		len += 4 + l;
	}
	return add(p, TEXTARRAYOID, b, (int) len);
}

void
pqbin_params_clear(pqbin_params *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->values[i]);
	memset(p, 0, sizeof(*p));
}

bool
pqbin_send(PGconn *conn, const pqbin_params *p, const char *stmt, const char *sql)
{
	static const pqbin_params none;

	if (p == NULL)
		p = &none;
	if (stmt != NULL)
		return PQsendQueryPrepared(conn, stmt, p->n, (const char *const *) p->values,
								   p->lengths, p->formats, 1) != 0;
	return PQsendQueryParams(conn, sql, p->n, p->types, (const char *const *) p->values,
							 p->lengths, p->formats, 1) != 0;
}
