/*
 * strpool.c — interned strings.
 */
#include "config.h"

#include "strpool.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

/* An empty pool. */
void
strpool_init(strpool *p)
{
	p->cap = 64;
	p->n = 0;
	p->slots = xcalloc(p->cap, sizeof(char *));
}

/* Free the pool and every string in it. */
void
strpool_free(strpool *p)
{
	for (size_t i = 0; i < p->cap; i++)
		free(p->slots[i]);
	free(p->slots);
	p->slots = NULL;
	p->cap = p->n = 0;
}

/* FNV-1a: short strings, no need for more. */
uint64_t
strpool_hash(const char *s, size_t len)
{
	uint64_t	h = UINT64_C(14695981039346656037);

	for (size_t i = 0; i < len; i++)
	{
		h ^= (unsigned char) s[i];
		h *= UINT64_C(1099511628211);
	}
	return h;
}

/* Double the table when it is half full, so probe sequences stay short. */
static void
grow(strpool *p)
{
	size_t		ncap = p->cap * 2;
	char	  **nslots = xcalloc(ncap, sizeof(char *));

	for (size_t i = 0; i < p->cap; i++)
	{
		char	   *s = p->slots[i];
		size_t		j;

		if (s == NULL)
			continue;
		j = strpool_hash(s, strlen(s)) & (ncap - 1);
		while (nslots[j] != NULL)
			j = (j + 1) & (ncap - 1);
		nslots[j] = s;
	}
	free(p->slots);
	p->slots = nslots;
	p->cap = ncap;
}

/* The pool's copy of the first len bytes of s, added if new. */
const char *
strpool_intern_n(strpool *p, const char *s, size_t len)
{
	size_t		j;

	if (s == NULL)
		return NULL;
	if ((p->n + 1) * 2 > p->cap)
		grow(p);
	j = strpool_hash(s, len) & (p->cap - 1);
	while (p->slots[j] != NULL)
	{
		if (strncmp(p->slots[j], s, len) == 0 && p->slots[j][len] == '\0')
			return p->slots[j];
		j = (j + 1) & (p->cap - 1);
	}
	p->slots[j] = xstrndup(s, len);
	p->n++;
	return p->slots[j];
}

/* The pool's copy of s. */
const char *
strpool_intern(strpool *p, const char *s)
{
	return s == NULL ? NULL : strpool_intern_n(p, s, strlen(s));
}
