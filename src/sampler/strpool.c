/*
 * strpool.c — interned strings, in core's hash table.
 */
#include "config.h"

#include "strpool.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

/* A string looked up by its first len bytes. */
typedef struct strpool_key
{
	const char *s;
	size_t		len;
} strpool_key;

/* Is the entry (the pool's copy) the key's string? */
static bool
entry_eq(const void *entry, const void *key)
{
	const char *have = *(char *const *) entry;
	const strpool_key *k = key;

	return strncmp(have, k->s, k->len) == 0 && have[k->len] == '\0';
}

/* An empty pool. */
void
strpool_init(strpool *p)
{
	hash_table_init(&p->t, sizeof(char *), 64);
}

/* Free the pool and every string in it. */
void
strpool_free(strpool *p)
{
	size_t		pos = 0;

	for (char **e; (e = hash_table_next(&p->t, &pos)) != NULL;)
		free(*e);
	hash_table_free(&p->t);
}

/* The pool's copy of the first len bytes of s, added if new. */
const char *
strpool_intern_n(strpool *p, const char *s, size_t len)
{
	strpool_key k = {s, len};
	bool		added;
	char	  **e;

	if (s == NULL)
		return NULL;
	e = hash_table_insert(&p->t, hash_fnv1a(s, len), &k, entry_eq, &added);
	if (added)
		*e = xstrndup(s, len);
	return *e;
}

/* The pool's copy of s. */
const char *
strpool_intern(strpool *p, const char *s)
{
	return s == NULL ? NULL : strpool_intern_n(p, s, strlen(s));
}
