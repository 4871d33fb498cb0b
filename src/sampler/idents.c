/*
 * idents.c — the identities of the sessions of lock chains, cached by pid.
 */
#include "config.h"

#include "idents.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

#include "pqbin.h"

typedef struct idents_entry
{
	int32_t		pid;
	bool		found;			/* the server had the pid when asked */
	int64_t		backend_start_us;	/* INT64_MIN unknown */
	const char *datname;		/* interned; NULL unknown */
	const char *usename;
	const char *application_name;
	const char *backend_type;
	bool		fetched;		/* asked for (else only seen in a batch, waiting to be) */
	uint64_t	fetched_ns;		/* when (monotonic) */
	uint64_t	used_ns;		/* when last seen in a batch */
	/* in the batch being filled (stamp): the backend start of the pid's row */
	uint32_t	stamp;
	int64_t		row_start_us;	/* INT64_MIN: no row, or not known */
} idents_entry;

static bool
entry_eq(const void *entry, const void *key)
{
	return ((const idents_entry *) entry)->pid == *(const int32_t *) key;
}

static uint64_t
pid_hash(int32_t pid)
{
	return hash_mix(0, (uint64_t) (uint32_t) pid);
}

static idents_entry *
find(const idents_cache *ic, int32_t pid)
{
	return hash_table_find(&ic->entries, pid_hash(pid), &pid, entry_eq);
}

void
idents_init(idents_cache *ic)
{
	memset(ic, 0, sizeof(*ic));
	hash_table_init(&ic->entries, sizeof(idents_entry), 64);
}

void
idents_free(idents_cache *ic)
{
	hash_table_free(&ic->entries);
	free(ic->pids);
	free(ic->fetch);
	memset(ic, 0, sizeof(*ic));
}

static int
cmp_pid(const void *a, const void *b)
{
	int32_t		x = *(const int32_t *) a,
				y = *(const int32_t *) b;

	return (x > y) - (x < y);
}

/* The entry of pid, added (not fetched yet) if new. */
static idents_entry *
entry_of(idents_cache *ic, int32_t pid, uint64_t now)
{
	bool		added;
	idents_entry *e = hash_table_insert(&ic->entries, pid_hash(pid), &pid, entry_eq, &added);

	if (added)
	{
		e->pid = pid;
		e->backend_start_us = INT64_MIN;
		e->used_ns = now;
	}
	return e;
}

/* Note pid as a session of the batch's chains, once. */
static void
note(idents_cache *ic, int32_t pid, uint64_t now)
{
	idents_entry *e = entry_of(ic, pid, now);

	if (e->stamp == ic->stamp)
		return;
	e->stamp = ic->stamp;
	e->row_start_us = INT64_MIN;
	if (ic->npids == ic->cap)
	{
		ic->cap = ic->cap ? 2 * ic->cap : 64;
		ic->pids = xrealloc(ic->pids, (size_t) ic->cap * sizeof(int32_t));
		ic->fetch = xrealloc(ic->fetch, (size_t) ic->cap * sizeof(int32_t));
	}
	ic->pids[ic->npids++] = pid;
}

/*
 * The sessions of b's chains (the blocked, their blockers) into ic->pids,
 * sorted and each once, with the backend start of each one's row in its
 * entry.  A pile-up of lock waits lists the same blockers in many rows:
 * each costs a lookup, only the sessions are sorted.
 */
static void
gather(idents_cache *ic, const sample_batch *b, uint64_t now)
{
	ic->npids = 0;
	/* 0 is the stamp of an entry never noted */
	if (++ic->stamp == 0)
		ic->stamp = 1;
	for (int i = 0; i < b->nrows; i++)
	{
		const sample_row *r = &b->rows[i];
		const int32_t *blk;

		if (r->nblockers == 0)
			continue;
		blk = sample_blockers(b, r);
		note(ic, sample_session_pid(r), now);
		for (int k = 0; k < r->nblockers; k++)
			note(ic, blk[k], now);
	}
	if (ic->npids > 1)
		qsort(ic->pids, (size_t) ic->npids, sizeof(int32_t), cmp_pid);
	for (int i = 0; i < b->nrows; i++)
	{
		idents_entry *e = find(ic, b->rows[i].pid);

		if (e != NULL && e->stamp == ic->stamp)
			e->row_start_us = b->rows[i].backend_start_us;
	}
}

/* Is e the session whose row started at start (INT64_MIN: no row, or not known)? */
static bool
same_session(const idents_entry *e, int64_t start)
{
	if (!e->found)
		return start == INT64_MIN;	/* gone when asked; a row now is a new session */
	return start == INT64_MIN || e->backend_start_us == INT64_MIN ||
		e->backend_start_us == start;
}

static void
warn_once(idents_cache *ic, const idents_ctx *ctx, const char *why)
{
	char	   *text;

	if (ic->warned || ctx->warn == NULL)
		return;
	ic->warned = true;
	text = xasprintf("could not look up the sessions of lock chains: %s", why);
	ctx->warn(ctx->warn_arg, text);
	free(text);
}

/* Read row i of the statement's result into the cache; false when it cannot be read. */
static bool
read_ident(idents_cache *ic, const idents_ctx *ctx, const PGresult *res, int i, uint64_t now)
{
	int32_t		pid = 0;
	int64_t		start = 0;
	uint32_t	datid = 0,
				usesysid = 0;
	const char *app = NULL,
			   *type = NULL;
	idents_entry *e;

	if (!pqbin_get_int4(pqbin, res, i, 0, &pid) || !pqbin_get_int8(pqbin, res, i, 1, &start) ||
		!pqbin_get_oid(pqbin, res, i, 2, &datid) || !pqbin_get_oid(pqbin, res, i, 3, &usesysid) ||
		!pqbin_get_text(pqbin, res, i, 4, &app) || !pqbin_get_text(pqbin, res, i, 5, &type))
		return false;
	e = entry_of(ic, pid, now);
	e->found = true;
	e->fetched = true;
	/* NULL for a session of another user without pg_read_all_stats */
	e->backend_start_us = PQgetisnull(res, i, 1) ? INT64_MIN : start;
	e->application_name = strpool_intern(ctx->pool, app);
	e->backend_type = strpool_intern(ctx->pool, type);
	e->fetched_ns = now;
	/* the names may need the catalogs read again: the result is all here, the connection free */
	e->datname = names_of(ctx->names, &ctx->names->dbs, ctx->sc, ctx->pool, datid);
	e->usename = names_of(ctx->names, &ctx->names->roles, ctx->sc, ctx->pool, usesysid);
	return true;
}

/* Read the identities of the nfetch pids of ic->fetch with one statement. */
static void
fetch(idents_cache *ic, const idents_ctx *ctx, int nfetch, uint64_t now)
{
	pqbin_params p = {0};
	PGresult   *res = NULL;
	sampler_status st;

	ic->fetched_ns = now;
	ic->statements++;
	/* a pid the server no longer has is known as gone, not asked for again at once */
	for (int k = 0; k < nfetch; k++)
	{
		idents_entry *e = entry_of(ic, ic->fetch[k], now);

		e->found = false;
		e->backend_start_us = INT64_MIN;
		e->application_name = e->backend_type = e->datname = e->usename = NULL;
		e->fetched = true;
		e->fetched_ns = now;
	}
	pqbin_put_int4_array(&p, ic->fetch, nfetch);
	st = stmt_run_params(ctx->sc, ctx->stmt, &p, &res);
	pqbin_params_clear(&p);
	if (st != SAMPLER_OK)
	{
		/* not known to be gone: asked for again at the next moment allowed */
		for (int k = 0; k < nfetch; k++)
			entry_of(ic, ic->fetch[k], now)->fetched = false;
		warn_once(ic, ctx, ctx->sc->last_error);
		return;
	}
	for (int i = 0; i < PQntuples(res); i++)
		if (!read_ident(ic, ctx, res, i, now))
		{
			warn_once(ic, ctx, pqbin->error());
			break;
		}
	PQclear(res);
}

/*
 * Past IDENTS_MAX_ENTRIES, keep only the entries needed lately; if those
 * are more, not again before there are twice as many.
 */
static void
forget_old(idents_cache *ic, uint64_t now)
{
	hash_table	kept;
	size_t		pos = 0;

	if (ic->entries.n <= IDENTS_MAX_ENTRIES || ic->entries.n <= ic->max_entries)
		return;
	hash_table_init(&kept, sizeof(idents_entry), 64);
	for (idents_entry *e; (e = hash_table_next(&ic->entries, &pos)) != NULL;)
		if (now - e->used_ns < IDENTS_MAX_AGE_NS)
			*(idents_entry *) hash_table_insert(&kept, pid_hash(e->pid), &e->pid, entry_eq,
												NULL) = *e;
	hash_table_free(&ic->entries);
	ic->entries = kept;
	ic->max_entries = 2 * kept.n;
}

void
idents_fill(idents_cache *ic, const idents_ctx *ctx, sample_batch *b)
{
	uint64_t	now = clock_now_ns();
	int			nfetch = 0;

	gather(ic, b, now);
	for (int k = 0; k < ic->npids; k++)
	{
		const idents_entry *e = find(ic, ic->pids[k]);

		if (!e->fetched || !same_session(e, e->row_start_us) ||
			now - e->fetched_ns >= IDENTS_MAX_AGE_NS)
			ic->fetch[nfetch++] = ic->pids[k];
	}
	if (nfetch > 0 && (ic->fetched_ns == 0 || now - ic->fetched_ns >= IDENTS_INTERVAL_NS))
		fetch(ic, ctx, nfetch, now);
	/* in pid order, as the side table is searched */
	for (int k = 0; k < ic->npids; k++)
	{
		idents_entry *e = find(ic, ic->pids[k]);

		e->used_ns = now;
		if (!e->found || !same_session(e, e->row_start_us))
			continue;
		sample_batch_add_ident(b, &(sample_ident) {
			.pid = e->pid, .backend_start_us = e->backend_start_us, .datname = e->datname,
			.usename = e->usename, .application_name = e->application_name,
			.backend_type = e->backend_type});
	}
	forget_old(ic, now);
}
