/*
 * names.h — the names of databases and roles by oid, read from the
 * catalogs on the sampler's connection.
 *
 * Samples carry oids (pg_stat_get_activity() without the view's joins);
 * the names come from this cache, filled when an unknown oid shows up and
 * read again when a minute old, so that renames show up.
 */
#ifndef PGTEMPO_SAMPLER_NAMES_H
#define PGTEMPO_SAMPLER_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stmt.h"
#include "strpool.h"

/* The name of a database or role by oid, NULL if it has none (dropped). */
typedef struct names_entry
{
	uint32_t	oid;			/* 0: free slot */
	const char *name;			/* interned */
} names_entry;

/* Names by oid (open addressing). */
typedef struct names_map
{
	names_entry *slots;
	size_t		cap;			/* a power of two */
	size_t		n;
} names_map;

/* Both maps and where they are read from. */
typedef struct names_cache
{
	names_map	dbs;			/* database names by oid */
	names_map	roles;			/* user names by oid */
	uint64_t	loaded_ns;		/* when they were last read */
	/* told when names_of() could not read the catalogs again; NULL: nobody */
	void		(*warn) (void *arg, const char *warning);
	void	   *warn_arg;
} names_cache;

/* Read the names of all databases and roles; false with *cause on error. */
bool		names_load(names_cache *nc, stmt_conn *sc, strpool *pool, char **cause);

/* Read them again if a minute old; false with *cause on error. */
bool		names_refresh(names_cache *nc, stmt_conn *sc, strpool *pool, char **cause);

/*
 * The name of oid in m (one of nc's maps): from the cache, else from the
 * catalogs read again.  An oid the catalogs do not have (dropped) has no
 * name, as in pg_stat_activity, and is not looked up again until the next
 * refresh.
 */
const char *names_of(names_cache *nc, names_map *m, stmt_conn *sc, strpool *pool, uint32_t oid);

/* Does m (one of nc's maps) hold this name? */
bool		names_has(const names_map *m, const char *name);

/* Free the maps (warn stays set). */
void		names_free(names_cache *nc);

#endif
