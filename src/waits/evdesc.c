/*
 * evdesc.c — wait event descriptions by (type, event), in core's hash table.
 */
#include "config.h"

#include "evdesc.h"

#include <string.h>

/* An entry: the pair first, as the key is laid out. */
typedef struct evdesc_entry
{
	const char *type;
	const char *event;
	const char *desc;
} evdesc_entry;

/* The pair looked up. */
typedef struct evdesc_key
{
	const char *type;
	const char *event;
} evdesc_key;

/* Does the entry hold the key's pair?  (By text: the strings need not be interned.) */
static bool
entry_eq(const void *entry, const void *key)
{
	const evdesc_entry *e = entry;
	const evdesc_key *k = key;

	return strcmp(e->type, k->type) == 0 && strcmp(e->event, k->event) == 0;
}

/* The hash of a pair. */
static uint64_t
pair_hash(const char *type, const char *event)
{
	return hash_mix(hash_fnv1a_str(type), hash_fnv1a_str(event));
}

/* An empty table. */
void
evdesc_init(evdesc_table *d)
{
	hash_table_init(&d->t, sizeof(evdesc_entry), 64);
}

/* Free the table (not the strings: they are the caller's). */
void
evdesc_free(evdesc_table *d)
{
	hash_table_free(&d->t);
}

/* Forget every pair, keeping the memory. */
void
evdesc_clear(evdesc_table *d)
{
	hash_table_clear(&d->t);
}

/* The pair's entry: found, with its description. */
bool
evdesc_find(const evdesc_table *d, const char *type, const char *event, const char **desc)
{
	evdesc_key	k = {type, event};
	const evdesc_entry *e = hash_table_find(&d->t, pair_hash(type, event), &k, entry_eq);

	*desc = e != NULL ? e->desc : NULL;
	return e != NULL;
}

/* Add the pair, or give it the new description. */
void
evdesc_set(evdesc_table *d, const char *type, const char *event, const char *desc)
{
	evdesc_key	k = {type, event};
	evdesc_entry *e = hash_table_insert(&d->t, pair_hash(type, event), &k, entry_eq, NULL);

	e->type = type;
	e->event = event;
	e->desc = desc;
}

/* The description the table holds for the pair; NULL for none or an incomplete pair. */
const char *
evdesc_describe(const void *arg, const char *type, const char *event)
{
	const char *desc = NULL;

	if (type != NULL && event != NULL)
		evdesc_find(arg, type, event, &desc);
	return desc;
}
