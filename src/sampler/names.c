/*
 * names.c — database and role names by oid.
 */
#include "config.h"

#include "names.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

#include "pqbin.h"
#include "query.h"

/* Names older than this are read again, so a renamed database or user shows up. */
#define NAMES_MAX_AGE_NS	(60 * NS_PER_S)

/* The slot of oid: its entry, or the free slot where it goes. */
static names_entry *
slot_of(const names_map *m, uint32_t oid)
{
	size_t		j = (size_t) (oid * UINT32_C(2654435761)) & (m->cap - 1);

	while (m->slots[j].oid != 0 && m->slots[j].oid != oid)
		j = (j + 1) & (m->cap - 1);
	return &m->slots[j];
}

/* Set the name of oid (NULL: it has none). */
static void
put(names_map *m, uint32_t oid, const char *name)
{
	names_entry *slot;

	if (m->cap == 0 || (m->n + 1) * 2 > m->cap)
	{
		names_map	bigger;

		bigger.cap = m->cap ? m->cap * 2 : 64;
		bigger.n = 0;
		bigger.slots = xcalloc(bigger.cap, sizeof(names_entry));
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].oid != 0)
				*slot_of(&bigger, m->slots[i].oid) = m->slots[i];
		bigger.n = m->n;
		free(m->slots);
		*m = bigger;
	}
	slot = slot_of(m, oid);
	if (slot->oid == 0)
	{
		slot->oid = oid;
		m->n++;
	}
	slot->name = name;
}

/* Is oid known?  Its name (maybe NULL) in *name if so. */
static bool
get(const names_map *m, uint32_t oid, const char **name)
{
	const names_entry *slot;

	if (m->n == 0)
		return false;
	slot = slot_of(m, oid);
	*name = slot->name;
	return slot->oid != 0;
}

static void
clear(names_map *m)
{
	if (m->cap > 0)
		memset(m->slots, 0, m->cap * sizeof(names_entry));
	m->n = 0;
}

bool
names_load(names_cache *nc, stmt_conn *sc, strpool *pool, char **cause)
{
	PGresult   *res = stmt_exec(sc, query_names_sql, cause);

	if (res == NULL)
		return false;
	clear(&nc->dbs);
	clear(&nc->roles);
	for (int i = 0; i < PQntuples(res); i++)
	{
		const char *kind = NULL,
				   *name = NULL;
		uint32_t	oid = InvalidOid;

		if (!pqbin_get_text(pqbin, res, i, 0, &kind) || !pqbin_get_oid(pqbin, res, i, 1, &oid) ||
			!pqbin_get_text(pqbin, res, i, 2, &name))
		{
			*cause = xasprintf("could not read the database and user names: %s",
							   pqbin->error());
			PQclear(res);
			return false;
		}
		if (oid != InvalidOid && kind != NULL)
			put(kind[0] == 'd' ? &nc->dbs : &nc->roles, oid, strpool_intern(pool, name));
	}
	PQclear(res);
	nc->loaded_ns = clock_now_ns();
	return true;
}

bool
names_refresh(names_cache *nc, stmt_conn *sc, strpool *pool, char **cause)
{
	if (sc->conn == NULL || clock_now_ns() - nc->loaded_ns < NAMES_MAX_AGE_NS)
		return true;
	return names_load(nc, sc, pool, cause);
}

const char *
names_of(names_cache *nc, names_map *m, stmt_conn *sc, strpool *pool, uint32_t oid)
{
	const char *name = NULL;
	char	   *cause = NULL;

	if (oid == InvalidOid)
		return NULL;
	if (get(m, oid, &name))
		return name;
	if (!names_load(nc, sc, pool, &cause))
	{
		/* the sample itself went through; the name stays unknown until the next refresh */
		if (nc->warn != NULL)
			nc->warn(nc->warn_arg, cause);
		free(cause);
	}
	if (get(m, oid, &name))
		return name;
	put(m, oid, NULL);
	return NULL;
}

bool
names_has(const names_map *m, const char *name)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].oid != 0 && m->slots[i].name != NULL &&
			strcmp(m->slots[i].name, name) == 0)
			return true;
	return false;
}

void
names_free(names_cache *nc)
{
	free(nc->dbs.slots);
	free(nc->roles.slots);
	nc->dbs = (names_map) {0};
	nc->roles = (names_map) {0};
	nc->loaded_ns = 0;
}
