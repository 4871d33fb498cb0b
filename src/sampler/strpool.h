/*
 * strpool.h — interned strings.
 *
 * Database, user, application and wait event names repeat in every
 * sample: each distinct string is stored once, and the pointer returned
 * for equal strings is the same, so aggregation keys compare and hash
 * pointers instead of strings.  Nothing is freed before strpool_free().
 */
#ifndef PGTEMPO_SAMPLER_STRPOOL_H
#define PGTEMPO_SAMPLER_STRPOOL_H

#include <stddef.h>

#include "pgtempo/hash.h"

typedef struct strpool
{
	hash_table	t;				/* entries: the pool's char * copies */
} strpool;

void		strpool_init(strpool *p);
void		strpool_free(strpool *p);
/* The pool's copy of s (NULL for NULL). */
const char *strpool_intern(strpool *p, const char *s);
/* The same, for the first len bytes of s. */
const char *strpool_intern_n(strpool *p, const char *s, size_t len);

#endif
