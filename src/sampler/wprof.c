/*
 * wprof.c — wait-event profiles.
 */
#include "config.h"

#include "wprof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/parse.h"
#include "pgtempo/xalloc.h"

static const char *const dim_names[WPROF_DIM_COUNT] = {
	[WPROF_DIM_EVENT] = "event",
	[WPROF_DIM_PID] = "pid",
	[WPROF_DIM_QUERY] = "query",
	[WPROF_DIM_DB] = "db",
	[WPROF_DIM_USER] = "user",
	[WPROF_DIM_APP] = "app",
	[WPROF_DIM_BACKEND_TYPE] = "backend_type",
};

/* The --by name of a dimension. */
const char *
wprof_dim_name(wprof_dim d)
{
	return d < WPROF_DIM_COUNT ? dim_names[d] : "?";
}

/* The dimension of a --by name (len bytes of name). */
bool
wprof_dim_parse(const char *name, size_t len, wprof_dim *out)
{
	int			d = parse_name(dim_names, WPROF_DIM_COUNT, name, len);

	if (d >= 0)
		*out = (wprof_dim) d;
	return d >= 0;
}

/* ---------------------------------------------------------------- cell tables */

/* Interned strings compare by address, so their addresses are hashed. */
static uint64_t
key_hash(const wprof_key *k)
{
	uint64_t	h = UINT64_C(0x9e3779b97f4a7c15);

	h = hash_mix(h, (uintptr_t) k->datname);
	h = hash_mix(h, (uintptr_t) k->usename);
	h = hash_mix(h, (uintptr_t) k->appname);
	h = hash_mix(h, (uintptr_t) k->backend_type);
	h = hash_mix(h, (uintptr_t) k->type);
	h = hash_mix(h, (uintptr_t) k->event);
	h = hash_mix(h, (uint64_t) k->query_id);
	h = hash_mix(h, (uint64_t) k->backend_start_us);
	h = hash_mix(h, (uint64_t) (uint32_t) k->pid);
	h = hash_mix(h, (uint64_t) k->sub);
	return h;
}

/*
 * Is the entry's key k?  Every field must match (interned strings compare
 * by address).  The entries of every table here begin with their key.
 */
static bool
key_eq(const void *entry, const void *key)
{
	const wprof_key *a = entry;
	const wprof_key *b = key;

	return a->datname == b->datname && a->usename == b->usename &&
		a->appname == b->appname && a->backend_type == b->backend_type &&
		a->type == b->type && a->event == b->event &&
		a->query_id == b->query_id && a->backend_start_us == b->backend_start_us &&
		a->pid == b->pid && a->sub == b->sub;
}

/* An empty table of entries of esize bytes that begin with a wprof_key. */
static void
table_init(hash_table *t, size_t esize)
{
	hash_table_init(t, esize, 64);
}

/* The entry of key k (a wprof_cell or a group_cell), created (with zero counts) if not there. */
static void *
table_get(hash_table *t, const wprof_key *k)
{
	bool		added;
	wprof_key  *e = hash_table_insert(t, key_hash(k), k, key_eq, &added);

	if (added)
		*e = *k;
	return e;
}

/* ---------------------------------------------------------------- profile */

/* An empty profile. */
void
wprof_init(wprof *p, bool include_idle)
{
	memset(p, 0, sizeof(*p));
	table_init(&p->main, sizeof(wprof_cell));
	table_init(&p->blockers, sizeof(wprof_cell));
	hash_table_init(&p->texts, sizeof(wprof_text), 64);
	heads_init(&p->heads);
	p->include_idle = include_idle;
}

/* Free a profile. */
void
wprof_free(wprof *p)
{
	size_t		pos = 0;

	hash_table_free(&p->main);
	hash_table_free(&p->blockers);
	for (wprof_text *t; (t = hash_table_next(&p->texts, &pos)) != NULL;)
		free(t->text);
	hash_table_free(&p->texts);
	heads_free(&p->heads);
	for (int i = 0; i < p->ndurations; i++)
		free(p->durations[i].us);
	free(p->durations);
	memset(p, 0, sizeof(*p));
}

/* Start the next interval: counts go, query texts stay. */
void
wprof_reset(wprof *p)
{
	hash_table_clear(&p->main);
	hash_table_clear(&p->blockers);
	heads_reset(&p->heads);
	p->ticks = p->active = p->idle = p->hidden = 0;
	p->measured_us = p->measured_count = 0;
	/* has_measured stays: it says what the source can do, not what happened */
	p->first_us = p->last_us = 0;
	for (int i = 0; i < p->ndurations; i++)
		hist_reset(p->durations[i].us);
	/* query texts are kept: they describe query ids, not counts */
}

void
wprof_add_duration(wprof *p, const char *type, const char *event, uint64_t wait_us)
{
	wprof_duration *d = NULL;

	/* a handful of events: a scan is cheaper than a table */
	for (int i = 0; i < p->ndurations && d == NULL; i++)
		if (p->durations[i].type == type && p->durations[i].event == event)
			d = &p->durations[i];
	if (d == NULL)
	{
		if (p->ndurations == p->durations_cap)
		{
			p->durations_cap = p->durations_cap > 0 ? 2 * p->durations_cap : 8;
			p->durations = xrealloc(p->durations,
									(size_t) p->durations_cap * sizeof(*p->durations));
		}
		d = &p->durations[p->ndurations++];
		d->type = type;
		d->event = event;
		d->us = hist_new(1);
	}
	hist_record(d->us, wait_us);
}

/* Count one sample taken at ts_us. */
void
wprof_tick(wprof *p, uint64_t ts_us)
{
	if (p->ticks == 0)
		p->first_us = ts_us;
	p->last_us = ts_us;
	p->ticks++;
}

/* Is the entry the text of the query id key? */
static bool
text_eq(const void *entry, const void *key)
{
	return ((const wprof_text *) entry)->query_id == *(const int64_t *) key;
}

/* Remember the first text seen for a query id. */
static void
remember_text(wprof *p, int64_t query_id, const char *text)
{
	bool		added;
	wprof_text *t = hash_table_insert(&p->texts, hash_mix(0, (uint64_t) query_id), &query_id,
									  text_eq, &added);

	if (added)
	{
		t->query_id = query_id;
		t->text = xstrdup(text);
	}
}

/* The text first seen for a query id. */
const char *
wprof_query_text(const wprof *p, int64_t query_id)
{
	const wprof_text *t = hash_table_find(&p->texts, hash_mix(0, (uint64_t) query_id),
										  &query_id, text_eq);

	return t != NULL ? t->text : NULL;
}

/* A row's fine key: every field a profile keeps, the rest zero. */
wprof_key
wprof_row_key(const sample_row *r)
{
	wprof_key	k;

	/* field by field after the memset: the hash reads the padding too */
	memset(&k, 0, sizeof(k));
	k.datname = r->datname;
	k.usename = r->usename;
	k.appname = r->application_name;
	k.backend_type = r->backend_type;
	k.type = r->wait_event_type;
	k.event = r->wait_event;
	k.query_id = r->query_id;
	k.backend_start_us = r->backend_start_us;
	k.pid = r->pid;
	return k;
}

/* Count a row under its fine key, its blockers and its query text. */
void
wprof_add(wprof *p, const sample_batch *b, const sample_row *r)
{
	wprof_key k;
	wprof_cell *c;

	if (r->cls == SAMPLE_HIDDEN)
	{
		p->hidden += r->samples;
		return;
	}
	if (r->cls == SAMPLE_IDLE && !p->include_idle)
	{
		p->idle += r->samples;
		return;
	}
	k = wprof_row_key(r);
	c = table_get(&p->main, &k);
	c->samples += r->samples;
	c->measured_us += r->measured_us;
	c->measured_count += r->measured_count;
	p->active += r->samples;
	if (r->measured_us > 0 || r->measured_count > 0)
	{
		p->measured_us += r->measured_us;
		p->measured_count += r->measured_count;
		p->has_measured = true;
	}
	if (r->nblockers > 0)
	{
		const int32_t *blk = sample_blockers(b, r);

		c->blocked += r->samples;
		for (int i = 0; i < r->nblockers; i++)
		{
			wprof_cell *bc;

			k.sub = blk[i];
			bc = table_get(&p->blockers, &k);
			bc->samples += r->samples;
		}
	}
	if (r->query != NULL && r->query_id != 0)
		remember_text(p, r->query_id, r->query);
}

void
wprof_add_heads(wprof *p, const heads_graph *g)
{
	heads_add_graph(&p->heads, g);
}

/* Any query id among the counted rows? */
bool
wprof_has_query_ids(const wprof *p)
{
	size_t		pos = 0;

	for (const wprof_cell *c; (c = hash_table_next(&p->main, &pos)) != NULL;)
		if (c->key.query_id != 0)
			return true;
	return false;
}

/* The 95 % binomial error bound of an estimate of k·period seconds. */
double
wprof_error_s(double k, uint64_t n, double period_s)
{
	double		p;

	if (n == 0 || k <= 0)
		return 0;
	p = k / (double) n;
	return 1.96 * period_s * sqrt(k * (p < 1 ? 1.0 - p : 0.0));
}

/* ---------------------------------------------------------------- grouping */

/* The part of key k that the dimensions keep. */
wprof_key
wprof_key_project(const wprof_key *k, const bool *dims)
{
	wprof_key g;

	memset(&g, 0, sizeof(g));
	if (dims[WPROF_DIM_EVENT])
	{
		g.type = k->type;
		g.event = k->event;
	}
	if (dims[WPROF_DIM_PID])
	{
		/* a session's user, database and type do not change */
		g.pid = k->pid;
		g.backend_start_us = k->backend_start_us;
		g.usename = k->usename;
		g.datname = k->datname;
		g.backend_type = k->backend_type;
	}
	if (dims[WPROF_DIM_QUERY])
		g.query_id = k->query_id;
	if (dims[WPROF_DIM_DB])
		g.datname = k->datname;
	if (dims[WPROF_DIM_USER])
		g.usename = k->usename;
	if (dims[WPROF_DIM_APP])
		g.appname = k->appname;
	if (dims[WPROF_DIM_BACKEND_TYPE])
		g.backend_type = k->backend_type;
	return g;
}

/* NULL sorts first, then strcmp order. */
static int
strcmp_null(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (a == NULL)
		return -1;
	if (b == NULL)
		return 1;
	return strcmp(a, b);
}

#define CMP_INT(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

/* Key order for stable output: event, names, then numbers. */
static int
key_cmp(const wprof_key *a, const wprof_key *b)
{
	int			c;

	if ((c = strcmp_null(a->type, b->type)) != 0 ||
		(c = strcmp_null(a->event, b->event)) != 0 ||
		(c = strcmp_null(a->datname, b->datname)) != 0 ||
		(c = strcmp_null(a->usename, b->usename)) != 0 ||
		(c = strcmp_null(a->appname, b->appname)) != 0 ||
		(c = strcmp_null(a->backend_type, b->backend_type)) != 0)
		return c;
	CMP_INT(a->pid, b->pid);
	CMP_INT(a->backend_start_us, b->backend_start_us);
	CMP_INT(a->query_id, b->query_id);
	return 0;
}

/* Largest first; ties in key order, so the output is stable. */
static int
group_cmp(const void *pa, const void *pb)
{
	const wprof_group *a = pa;
	const wprof_group *b = pb;

	CMP_INT(b->samples, a->samples);
	CMP_INT(b->measured_us, a->measured_us);
	return key_cmp(&a->key, &b->key);
}

/* A group being summed (the groups table's entry): its line, and its place once sorted. */
typedef struct group_cell
{
	wprof_group g;				/* first: the entry begins with g.key */
	int			index;
} group_cell;

typedef struct sub_entry
{
	int			group;
	wprof_sub sub;
} sub_entry;

/* Sub-list order: by group, then largest first. */
static int
sub_cmp(const void *pa, const void *pb)
{
	const sub_entry *a = pa;
	const sub_entry *b = pb;

	CMP_INT(a->group, b->group);
	CMP_INT(b->sub.samples, a->sub.samples);
	CMP_INT(a->sub.id, b->sub.id);
	return 0;
}

/*
 * Sum a table's cells (query ids of the main table, or blockers) into
 * (group, id) entries; returns the entries sorted by group, then largest.
 */
static sub_entry *
collect_subs(const hash_table *src, bool use_query, const bool *dims,
			 hash_table *groups, size_t *nout)
{
	hash_table	acc;
	sub_entry  *out;
	size_t		n = 0,
				pos = 0;
	const wprof_cell *c;

	table_init(&acc, sizeof(wprof_cell));
	while ((c = hash_table_next(src, &pos)) != NULL)
	{
		wprof_key gk;
		const group_cell *gc;
		wprof_cell *ac;

		if (c->samples == 0)
			continue;
		if (use_query && c->key.query_id == 0)
			continue;
		gk = wprof_key_project(&c->key, dims);
		gk.sub = 0;
		gc = table_get(groups, &gk);
		gk.sub = (int64_t) gc->index;	/* which group, kept in the key */
		gk.query_id = use_query ? c->key.query_id : 0;
		gk.pid = use_query ? gk.pid : (int32_t) c->key.sub;
		gk.backend_start_us = use_query ? gk.backend_start_us : 0;
		ac = table_get(&acc, &gk);
		ac->samples += c->samples;
	}
	out = xcalloc(acc.n + 1, sizeof(sub_entry));
	pos = 0;
	while ((c = hash_table_next(&acc, &pos)) != NULL)
	{
		out[n].group = (int) c->key.sub;
		out[n].sub.id = use_query ? c->key.query_id : c->key.pid;
		out[n].sub.samples = c->samples;
		n++;
	}
	hash_table_free(&acc);
	qsort(out, n, sizeof(sub_entry), sub_cmp);
	*nout = n;
	return out;
}

/* Regroup the fine cells by the dimensions asked for, with top sub-lists. */
void
wprof_group_by(const wprof *p, const wprof_dim *dims, int ndims,
				 int maxsub, wprof_groups *out)
{
	bool		use[WPROF_DIM_COUNT] = {false};
	hash_table	groups;
	const wprof_cell *c;
	group_cell *gc;
	size_t		pos = 0;
	sub_entry  *qs,
			   *bs;
	size_t		nq,
				nb,
				nsubs = 0;
	int			n = 0;

	if (ndims == 0)
		use[WPROF_DIM_EVENT] = true;
	for (int i = 0; i < ndims; i++)
		use[dims[i]] = true;

	/* sum the cells into groups */
	table_init(&groups, sizeof(group_cell));
	while ((c = hash_table_next(&p->main, &pos)) != NULL)
	{
		wprof_key gk = wprof_key_project(&c->key, use);

		gc = table_get(&groups, &gk);
		gc->g.samples += c->samples;
		gc->g.measured_us += c->measured_us;
		gc->g.measured_count += c->measured_count;
		gc->g.blocked += c->blocked;
		if (c->key.type != NULL && strcmp(c->key.type, "Lock") == 0)
			gc->g.lock_samples += c->samples;
	}

	/* order them; each group cell learns its place */
	memset(out, 0, sizeof(*out));
	out->total = p->active;
	out->g = xcalloc(groups.n + 1, sizeof(wprof_group));
	pos = 0;
	while ((gc = hash_table_next(&groups, &pos)) != NULL)
		out->g[n++] = gc->g;
	out->n = n;
	qsort(out->g, n, sizeof(wprof_group), group_cmp);
	for (int i = 0; i < n; i++)
	{
		gc = table_get(&groups, &out->g[i].key);
		gc->index = i;
	}

	/* the top query ids and blockers of each group */
	qs = use[WPROF_DIM_QUERY] ? xcalloc(1, sizeof(sub_entry)) :
		collect_subs(&p->main, true, use, &groups, &nq);
	if (use[WPROF_DIM_QUERY])
		nq = 0;
	bs = collect_subs(&p->blockers, false, use, &groups, &nb);
	out->subs = xcalloc(nq + nb + 1, sizeof(wprof_sub));
	for (int pass = 0; pass < 2; pass++)
	{
		sub_entry  *e = pass == 0 ? qs : bs;
		size_t		ne = pass == 0 ? nq : nb;

		for (size_t i = 0; i < ne;)
		{
			wprof_group *g = &out->g[e[i].group];
			int			taken = 0;

			if (pass == 0)
				g->queries = &out->subs[nsubs];
			else
				g->blockers = &out->subs[nsubs];
			for (; i < ne && &out->g[e[i].group] == g; i++)
				if (taken < maxsub)
				{
					out->subs[nsubs++] = e[i].sub;
					taken++;
				}
			if (pass == 0)
				g->nqueries = taken;
			else
				g->nblockers = taken;
		}
	}
	free(qs);
	free(bs);
	hash_table_free(&groups);
}

/* Free a grouping. */
void
wprof_groups_free(wprof_groups *g)
{
	free(g->g);
	free(g->subs);
	memset(g, 0, sizeof(*g));
}
