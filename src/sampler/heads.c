/*
 * heads.c — head blockers and their chains, from one sample's rows.
 */
#include "config.h"

#include "heads.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/strbuf.h"
#include "pgtempo/utf8.h"
#include "pgtempo/xalloc.h"

/* A session of the sample's lock graph. */
typedef struct hnode
{
	int32_t		pid;
	int			row;			/* its own row in the batch, -1 none */
	int			edge;			/* its first out-edge, -1 none */
	uint32_t	mark;			/* the walk that reached it last */
	int			parent;			/* the node it was reached from in that walk */
} hnode;

/* "from waits for to": the next out-edge of from. */
typedef struct hedge
{
	int			to;
	int			next;
} hedge;

typedef struct hpid
{
	int32_t		pid;
	int			node;
} hpid;

/* One head of a blocked row: its share of the row's samples, and the chain. */
typedef struct hshare
{
	int			row;			/* the blocked row */
	int			node;			/* the head */
	double		share;
	bool		first;			/* the row's first head: the row counts as blocked */
	bool		direct;			/* the row waits on it directly */
	bool		cycle;
	size_t		stack;			/* the folded chain, at stacks.data + stack */
} hshare;

typedef struct heads_work
{
	hash_table	pids;			/* hpid: a session's pid (or a worker's) to its node */
	hnode	   *nodes;
	int			nnodes,
				nodes_cap;
	hedge	   *edges;
	int			nedges,
				edges_cap;
	int		   *queue;			/* the walk; then the heads found */
	int		   *found;
	int			queue_cap;
	uint32_t	stamp;
	hshare	   *shares;			/* each blocked row's heads, in the order counted */
	int			nshares,
				shares_cap;
	strbuf		stacks;			/* their chains, each ending in a NUL */
} heads_work;

/* ---------------------------------------------------------------- tables */

static bool
cell_eq(const void *entry, const void *key)
{
	const heads_cell *a = entry;
	const heads_cell *b = key;

	return a->id.pid == b->id.pid && a->id.backend_start_us == b->id.backend_start_us;
}

static bool
chain_eq(const void *entry, const void *key)
{
	return strcmp(((const heads_chain *) entry)->stack, key) == 0;
}

static bool
pid_eq(const void *entry, const void *key)
{
	return ((const hpid *) entry)->pid == *(const int32_t *) key;
}

void
heads_init(heads_prof *h)
{
	memset(h, 0, sizeof(*h));
	hash_table_init(&h->cells, sizeof(heads_cell), 16);
	hash_table_init(&h->chains, sizeof(heads_chain), 16);
}

/* Free the cells' and chains' strings, and empty the tables. */
static void
clear(heads_prof *h)
{
	size_t		pos = 0;

	for (heads_cell *c; (c = hash_table_next(&h->cells, &pos)) != NULL;)
		free(c->query);
	pos = 0;
	for (heads_chain *c; (c = hash_table_next(&h->chains, &pos)) != NULL;)
		free(c->stack);
	hash_table_clear(&h->cells);
	hash_table_clear(&h->chains);
	h->blocked = 0;
}

void
heads_free(heads_prof *h)
{
	clear(h);
	hash_table_free(&h->cells);
	hash_table_free(&h->chains);
	heads_graph_free(&h->g);
	memset(h, 0, sizeof(*h));
}

void
heads_reset(heads_prof *h)
{
	clear(h);
}

heads_cell *
heads_get(heads_prof *h, int32_t pid, int64_t backend_start_us)
{
	heads_cell	key;
	heads_cell *c;
	bool		added;

	memset(&key, 0, sizeof(key));
	key.id.pid = pid;
	key.id.backend_start_us = backend_start_us;
	c = hash_table_insert(&h->cells, hash_mix(hash_mix(0, (uint64_t) (uint32_t) pid),
											  (uint64_t) backend_start_us),
						  &key, cell_eq, &added);
	if (added)
	{
		c->id.pid = pid;
		c->id.backend_start_us = backend_start_us;
		c->xact_start_us = INT64_MIN;
		c->last_us = INT64_MIN;
	}
	return c;
}

void
heads_add_chain(heads_prof *h, const char *stack, double samples)
{
	bool		added;
	heads_chain *c = hash_table_insert(&h->chains, hash_fnv1a_str(stack), stack, chain_eq,
									   &added);

	if (added)
		c->stack = xstrdup(stack);
	c->samples += samples;
}

void
heads_set_query(heads_cell *c, const char *text)
{
	if (c->query != NULL && text != NULL && strcmp(c->query, text) == 0)
		return;
	free(c->query);
	c->query = text != NULL ? xstrdup(text) : NULL;
}

/* ---------------------------------------------------------------- the graph */

/* The node of a pid, created (no row, no edges) if new. */
static int
node_of(heads_work *w, int32_t pid)
{
	bool		added;
	hpid	   *e = hash_table_insert(&w->pids, hash_mix(0, (uint64_t) (uint32_t) pid), &pid,
									  pid_eq, &added);

	if (added)
	{
		if (w->nnodes == w->nodes_cap)
		{
			w->nodes_cap = w->nodes_cap ? 2 * w->nodes_cap : 64;
			w->nodes = xrealloc(w->nodes, (size_t) w->nodes_cap * sizeof(hnode));
		}
		e->pid = pid;
		e->node = w->nnodes;
		w->nodes[w->nnodes] = (hnode) {.pid = pid, .row = -1, .edge = -1};
		w->nnodes++;
	}
	return e->node;
}

/* Make pid (a parallel worker) stand for the node of its leader. */
static void
alias(heads_work *w, int32_t pid, int node)
{
	bool		added;
	hpid	   *e = hash_table_insert(&w->pids, hash_mix(0, (uint64_t) (uint32_t) pid), &pid,
									  pid_eq, &added);

	e->pid = pid;
	e->node = node;
}

/* Does from wait for to already? */
static bool
has_edge(const heads_work *w, int from, int to)
{
	for (int e = w->nodes[from].edge; e >= 0; e = w->edges[e].next)
		if (w->edges[e].to == to)
			return true;
	return false;
}

static void
add_edge(heads_work *w, int from, int to)
{
	if (from == to || has_edge(w, from, to))
		return;
	if (w->nedges == w->edges_cap)
	{
		w->edges_cap = w->edges_cap ? 2 * w->edges_cap : 64;
		w->edges = xrealloc(w->edges, (size_t) w->edges_cap * sizeof(hedge));
	}
	w->edges[w->nedges] = (hedge) {.to = to, .next = w->nodes[from].edge};
	w->nodes[from].edge = w->nedges++;
}

/* Is the row blocked: a counted lock wait with blocking pids? */
static bool
blocked_row(const sample_row *r)
{
	return r->cls == SAMPLE_WAIT && r->nblockers > 0 && r->samples > 0;
}

/* The sessions of the batch, and who waits for whom. */
static void
build_graph(heads_work *w, const sample_batch *b)
{
	hash_table_clear(&w->pids);
	w->nnodes = w->nedges = 0;
	for (int i = 0; i < b->nrows; i++)
	{
		const sample_row *r = &b->rows[i];
		int			n = node_of(w, sample_session_pid(r));

		if (sample_session_pid(r) == r->pid)
			w->nodes[n].row = i;
		else
			alias(w, r->pid, n);
	}
	for (int i = 0; i < b->nrows; i++)
	{
		const sample_row *r = &b->rows[i];
		const int32_t *blk = sample_blockers(b, r);
		int			n;

		if (!blocked_row(r))
			continue;
		n = node_of(w, sample_session_pid(r));
		for (int k = 0; k < r->nblockers; k++)
			add_edge(w, n, node_of(w, blk[k]));
	}
	if (w->queue_cap < w->nnodes)
	{
		w->queue_cap = w->nnodes;
		w->queue = xrealloc(w->queue, (size_t) w->queue_cap * sizeof(int));
		w->found = xrealloc(w->found, (size_t) w->queue_cap * sizeof(int));
	}
}

/* Put y on the walk, reached from x, unless the walk has been there. */
static void
visit(heads_work *w, int *tail, int x, int y)
{
	if (w->nodes[y].mark == w->stamp)
		return;
	w->nodes[y].mark = w->stamp;
	w->nodes[y].parent = x;
	w->queue[(*tail)++] = y;
}

/*
 * Walk from the session start of row r along the waits, first to the pids
 * that block r (not all its session's: a worker's own blockers), then on:
 * the nodes reached that wait for nobody into w->found; if none (every way
 * loops), the nodes of the loop.  Returns how many; *cycle says which.
 * Each node is visited once, so a loop ends the walk.
 */
static int
find_heads(heads_work *w, const sample_batch *b, const sample_row *r, int start, bool *cycle)
{
	const int32_t *blk = sample_blockers(b, r);
	int			head = 0,
				tail = 0,
				nfound = 0;
	bool		back = false;	/* a wait leads back to start */

	w->stamp++;
	w->nodes[start].mark = w->stamp;
	w->nodes[start].parent = -1;
	w->queue[tail++] = start;
	for (int k = 0; k < r->nblockers; k++)
		visit(w, &tail, start, node_of(w, blk[k]));
	head = 1;
	while (head < tail)
	{
		int			x = w->queue[head++];

		if (w->nodes[x].edge < 0)
			w->found[nfound++] = x;
		for (int e = w->nodes[x].edge; e >= 0; e = w->edges[e].next)
		{
			back |= w->edges[e].to == start;
			visit(w, &tail, x, w->edges[e].to);
		}
	}
	*cycle = nfound == 0;
	if (!*cycle)
		return nfound;
	/* no way out: every session reached is on a loop, or waits for one */
	for (int i = back ? 0 : 1; i < tail; i++)
		w->found[nfound++] = w->queue[i];
	return nfound;
}

/*
 * The identity of node x from the batch's side table, when the run did
 * not read it with the rows (NULL: none): the same session as its row,
 * or the pid alone when it has no row.
 */
static const sample_ident *
ident_of(const sample_batch *b, const hnode *x)
{
	if (b->nidents == 0)
		return NULL;
	return sample_batch_ident(b, x->pid,
							  x->row >= 0 ? b->rows[x->row].backend_start_us : INT64_MIN);
}

/*
 * A row's value, else the side table's, else the one known before: a
 * later sample without it (the session's lookup still waiting) keeps it.
 */
#define OR_IDENT(v, id, field, old) \
	((v) != NULL ? (v) : (id) != NULL && (id)->field != NULL ? (id)->field : (old))

/* One session's frame: "app pid", or the pid alone. */
static void
put_frame(strbuf *sb, const sample_batch *b, const hnode *n)
{
	const char *app = n->row >= 0 ? b->rows[n->row].application_name : NULL;

	if (app == NULL)
	{
		const sample_ident *id = ident_of(b, n);

		app = id != NULL ? id->application_name : NULL;
	}
	if (app != NULL && app[0] != '\0')
	{
		utf8_append_frame(sb, app, strlen(app));
		strbuf_putc(sb, ' ');
	}
	strbuf_printf(sb, "%" PRId32, n->pid);
}

/* What head node x was doing, from its row (who it is: else the side table), into its cell. */
static void
describe(heads_cell *c, const sample_batch *b, const hnode *x)
{
	const sample_ident *id = ident_of(b, x);
	const sample_row *r;

	c->last_us = (int64_t) b->ts_us;
	if (x->row < 0)
	{
		if (id != NULL)
		{
			c->id.datname = id->datname;
			c->id.usename = id->usename;
			c->id.application_name = id->application_name;
			c->id.backend_type = id->backend_type;
		}
		return;
	}
	r = &b->rows[x->row];
	c->seen = true;
	c->id.datname = OR_IDENT(r->datname, id, datname, c->id.datname);
	c->id.usename = OR_IDENT(r->usename, id, usename, c->id.usename);
	c->id.application_name = OR_IDENT(r->application_name, id, application_name,
									  c->id.application_name);
	c->id.backend_type = OR_IDENT(r->backend_type, id, backend_type, c->id.backend_type);
	c->state = r->state;
	c->type = r->wait_event_type;
	c->event = r->wait_event;
	c->query_id = r->query_id;
	c->xact_start_us = r->xact_start_us;
	if (r->query != NULL)
		heads_set_query(c, r->query);
}

/* The heads of blocked row i, their shares and chains, onto w->shares. */
static void
row_heads(heads_work *w, const sample_batch *b, int i)
{
	const sample_row *r = &b->rows[i];
	int			start = node_of(w, sample_session_pid(r));
	bool		cycle;
	int			n = find_heads(w, b, r, start, &cycle);

	/* n == 0: blocked by its own parallel group only */
	for (int k = 0; k < n; k++)
	{
		hshare	   *s;

		if (w->nshares == w->shares_cap)
		{
			w->shares_cap = w->shares_cap ? 2 * w->shares_cap : 16;
			w->shares = xrealloc(w->shares, (size_t) w->shares_cap * sizeof(hshare));
		}
		s = &w->shares[w->nshares++];
		s->row = i;
		s->node = w->found[k];
		s->share = (double) r->samples / n;
		s->first = k == 0;
		s->direct = w->nodes[s->node].parent == start;
		s->cycle = cycle;
		s->stack = w->stacks.len;
		/* the chain: the head first, then each session that waits for the one before */
		for (int y = w->found[k]; y >= 0; y = w->nodes[y].parent)
		{
			if (y != w->found[k])
				strbuf_putc(&w->stacks, ';');
			put_frame(&w->stacks, b, &w->nodes[y]);
		}
		strbuf_putc(&w->stacks, '\0');
	}
}

void
heads_graph_init(heads_graph *g)
{
	memset(g, 0, sizeof(*g));
}

void
heads_graph_free(heads_graph *g)
{
	if (g->w != NULL)
	{
		hash_table_free(&g->w->pids);
		free(g->w->nodes);
		free(g->w->edges);
		free(g->w->queue);
		free(g->w->found);
		free(g->w->shares);
		strbuf_free(&g->w->stacks);
		free(g->w);
	}
	memset(g, 0, sizeof(*g));
}

void
heads_graph_build(heads_graph *g, const sample_batch *b)
{
	heads_work *w = g->w;

	g->b = b;
	g->builds++;
	if (w != NULL)
		w->nshares = 0;
	if (b->nblockers == 0)
		return;
	if (w == NULL)
	{
		w = g->w = xcalloc(1, sizeof(heads_work));
		hash_table_init(&w->pids, sizeof(hpid), 64);
		strbuf_init(&w->stacks);
	}
	strbuf_reset(&w->stacks);
	build_graph(w, b);
	for (int i = 0; i < b->nrows; i++)
		if (blocked_row(&b->rows[i]))
			row_heads(w, b, i);
}

void
heads_add_graph(heads_prof *h, const heads_graph *g)
{
	const sample_batch *b = g->b;

	for (int i = 0; g->w != NULL && i < g->w->nshares; i++)
	{
		const hshare *s = &g->w->shares[i];
		const hnode *x = &g->w->nodes[s->node];
		heads_cell *c = heads_get(h, x->pid,
								  x->row >= 0 ? b->rows[x->row].backend_start_us : INT64_MIN);

		if (s->first)
			h->blocked += b->rows[s->row].samples;
		c->samples += s->share;
		if (s->direct)
			c->direct += s->share;
		c->cycle |= s->cycle;
		describe(c, b, x);
		heads_add_chain(h, g->w->stacks.data + s->stack, s->share);
	}
}

void
heads_add_batch(heads_prof *h, const sample_batch *b)
{
	if (b->nblockers == 0)
		return;
	heads_graph_build(&h->g, b);
	heads_add_graph(h, &h->g);
}

/* ---------------------------------------------------------------- sorted */

static int
cmp_cell(const void *a, const void *b)
{
	const heads_cell *x = *(const heads_cell *const *) a;
	const heads_cell *y = *(const heads_cell *const *) b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->id.pid != y->id.pid)
		return x->id.pid < y->id.pid ? -1 : 1;
	return x->id.backend_start_us < y->id.backend_start_us ? -1 :
		x->id.backend_start_us > y->id.backend_start_us;
}

static int
cmp_chain(const void *a, const void *b)
{
	const heads_chain *x = *(const heads_chain *const *) a;
	const heads_chain *y = *(const heads_chain *const *) b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->stack, y->stack);
}

/* The entries of a table as an array of pointers sorted by cmp. */
static const void **
sorted(const hash_table *t, int (*cmp) (const void *, const void *), int *n)
{
	const void **v = xcalloc(t->n + 1, sizeof(void *));
	size_t		pos = 0;
	int			k = 0;

	for (const void *e; (e = hash_table_next(t, &pos)) != NULL;)
		v[k++] = e;
	qsort(v, (size_t) k, sizeof(void *), cmp);
	*n = k;
	return v;
}

const heads_cell **
heads_sorted(const heads_prof *h, int *n)
{
	return (const heads_cell **) sorted(&h->cells, cmp_cell, n);
}

const heads_chain **
heads_chains_sorted(const heads_prof *h, int *n)
{
	return (const heads_chain **) sorted(&h->chains, cmp_chain, n);
}
