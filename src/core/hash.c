/*
 * hash.c — the open-addressing hash table (linear probing, power-of-two
 * size, at most three quarters full).
 */
#include "config.h"

#include "pgtempo/hash.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

/* 0 marks a free slot: a real hash of 0 is stored as 1 (as hash_table_find looks it up). */
static inline uint64_t
stored_hash(uint64_t h)
{
	return h != 0 ? h : 1;
}

static inline void *
entry_at(const hash_table *t, size_t i)
{
	return t->entries + i * t->esize;
}

void
hash_table_init(hash_table *t, size_t esize, size_t cap)
{
	assert(cap >= 2 && (cap & (cap - 1)) == 0);
	t->esize = esize;
	t->cap = cap;
	t->n = 0;
	t->hashes = xcalloc(cap, sizeof(uint64_t));
	t->entries = xcalloc(cap, esize);
}

void
hash_table_free(hash_table *t)
{
	free(t->hashes);
	free(t->entries);
	memset(t, 0, sizeof(*t));
}

void
hash_table_clear(hash_table *t)
{
	memset(t->hashes, 0, t->cap * sizeof(uint64_t));
	memset(t->entries, 0, t->cap * t->esize);
	t->n = 0;
}

void
hash_table_copy(hash_table *dst, const hash_table *src)
{
	*dst = *src;
	dst->hashes = xmalloc(src->cap * sizeof(uint64_t));
	dst->entries = xmalloc(src->cap * src->esize);
	memcpy(dst->hashes, src->hashes, src->cap * sizeof(uint64_t));
	memcpy(dst->entries, src->entries, src->cap * src->esize);
}

/* The slot of the entry with hash h equal to key, or the free slot where it would go. */
static size_t
find_slot(const hash_table *t, uint64_t h, const void *key, hash_eq_fn eq)
{
	size_t		mask = t->cap - 1;
	size_t		i = (size_t) h & mask;

	while (t->hashes[i] != 0 &&
		   (t->hashes[i] != h || !eq(entry_at(t, i), key)))
		i = (i + 1) & mask;
	return i;
}

/* Double the table; the stored hashes place every entry again. */
static void
grow(hash_table *t)
{
	hash_table	big;

	hash_table_init(&big, t->esize, t->cap * 2);
	for (size_t i = 0; i < t->cap; i++)
	{
		size_t		j;

		if (t->hashes[i] == 0)
			continue;
		j = (size_t) t->hashes[i] & (big.cap - 1);
		while (big.hashes[j] != 0)
			j = (j + 1) & (big.cap - 1);
		big.hashes[j] = t->hashes[i];
		memcpy(entry_at(&big, j), entry_at(t, i), t->esize);
	}
	big.n = t->n;
	hash_table_free(t);
	*t = big;
}

void *
hash_table_insert(hash_table *t, uint64_t h, const void *key, hash_eq_fn eq, bool *added)
{
	size_t		i;

	h = stored_hash(h);
	i = find_slot(t, h, key, eq);
	if (added != NULL)
		*added = t->hashes[i] == 0;
	if (t->hashes[i] != 0)
		return entry_at(t, i);
	/* at most three quarters full, so probe runs stay short */
	if ((t->n + 1) * 4 > t->cap * 3)
	{
		grow(t);
		i = find_slot(t, h, key, eq);
	}
	t->hashes[i] = h;
	t->n++;
	return entry_at(t, i);
}

void *
hash_table_next(const hash_table *t, size_t *pos)
{
	for (size_t i = *pos; i < t->cap; i++)
		if (t->hashes[i] != 0)
		{
			*pos = i + 1;
			return entry_at(t, i);
		}
	*pos = t->cap;
	return NULL;
}
