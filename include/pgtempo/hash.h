/*
 * hash.h — FNV-1a, a 64-bit mixer, and one open-addressing hash table.
 *
 * The table keeps its entries inline (esize bytes each, zeroed when
 * new) with each entry's hash beside it, so a probe compares hashes and
 * calls the caller's equality function only on a hash match: a lookup
 * allocates nothing and usually calls eq once (a hit) or never (a miss).
 * Entries are never removed one by one (hash_table_clear empties the
 * table), which keeps linear probing free of tombstones.  An insert may
 * move every entry: pointers into the table are valid until the next
 * insert of a new key.  Store a pointer as the entry when the caller
 * needs stable addresses.
 */
#ifndef PGTEMPO_HASH_H
#define PGTEMPO_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HASH_FNV1A_BASIS	UINT64_C(0xcbf29ce484222325)
#define HASH_FNV1A_PRIME	UINT64_C(0x100000001b3)

/* FNV-1a over len bytes, continuing from h (HASH_FNV1A_BASIS to start). */
static inline uint64_t
hash_fnv1a_more(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
	{
		h ^= p[i];
		h *= HASH_FNV1A_PRIME;
	}
	return h;
}

/* FNV-1a of len bytes: short keys such as names, no need for more. */
static inline uint64_t
hash_fnv1a(const void *data, size_t len)
{
	return hash_fnv1a_more(HASH_FNV1A_BASIS, data, len);
}

/* FNV-1a of a NUL-terminated string (without a strlen pass). */
static inline uint64_t
hash_fnv1a_str(const char *s)
{
	uint64_t	h = HASH_FNV1A_BASIS;

	for (const unsigned char *p = (const unsigned char *) s; *p != '\0'; p++)
	{
		h ^= *p;
		h *= HASH_FNV1A_PRIME;
	}
	return h;
}

/* Fold v into h: one round of MurmurHash3's finalizer, for keys of several fields. */
static inline uint64_t
hash_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return h;
}

/* Does the entry hold key?  (The key is whatever the caller looks up by.) */
typedef bool (*hash_eq_fn) (const void *entry, const void *key);

typedef struct hash_table
{
	uint64_t   *hashes;			/* per slot: its entry's hash, 0 when free */
	char	   *entries;		/* cap entries of esize bytes */
	size_t		esize;
	size_t		cap;			/* a power of two */
	size_t		n;				/* entries in use */
} hash_table;

/* An empty table of entries of esize bytes; cap (a power of two) slots to start. */
void		hash_table_init(hash_table *t, size_t esize, size_t cap);
void		hash_table_free(hash_table *t);
/* Forget every entry, keeping the memory. */
void		hash_table_clear(hash_table *t);
/* dst becomes a copy of src, slot for slot (dst is not initialized before). */
void		hash_table_copy(hash_table *dst, const hash_table *src);

/*
 * The entry with hash h that eq finds equal to key, or NULL.  Inline, so
 * that a lookup on a hot path (a bench client's \set) costs no call but
 * the one eq makes, which the compiler can inline as well.
 */
static inline void *
hash_table_find(const hash_table *t, uint64_t h, const void *key, hash_eq_fn eq)
{
	size_t		mask = t->cap - 1;
	size_t		i;

	h = h != 0 ? h : 1;			/* as stored: 0 marks a free slot */
	for (i = (size_t) h & mask; t->hashes[i] != 0; i = (i + 1) & mask)
		if (t->hashes[i] == h && eq(t->entries + i * t->esize, key))
			return t->entries + i * t->esize;
	return NULL;
}

/*
 * The entry of key, added if new: then it is all zero bytes for the
 * caller to fill in (key included) and *added is true.  added may be NULL.
 */
void	   *hash_table_insert(hash_table *t, uint64_t h, const void *key, hash_eq_fn eq,
							  bool *added);

/*
 * Walk the entries in slot order: start with *pos = 0; each call returns
 * the next entry, NULL at the end.  No insert during a walk.
 */
void	   *hash_table_next(const hash_table *t, size_t *pos);

#endif
