/*
 * heads.h — head blockers: the sessions at the head of the chains of
 * heavyweight lock waits, and the blocked backend time each one caused.
 *
 * A head blocker blocks others and does not itself wait on a lock.  It is
 * found from one sample's rows: each row waiting on a lock lists the pids
 * that block it (pg_blocking_pids), which make a graph of sessions; the
 * heads of a blocked row are the sessions it reaches in that graph that
 * wait for nobody.  Rules, so that every count has one meaning:
 *
 *   - A parallel query is one session: a worker's row counts for its
 *     leader (pg_blocking_pids names leaders), and the leader waits on a
 *     lock when one of its workers does.
 *   - Every blocked backend-sample counts once, to its heads, directly
 *     or through chains.  With several heads (a lock held in a shared
 *     mode by several sessions) it is split evenly among them, so the
 *     heads' blocked samples add up to the blocked samples of the sample.
 *   - A blocker with no row in the sample (filtered out, another
 *     database's under --db, an idle session holding an advisory lock)
 *     is still a head, known by its pid alone.
 *   - A chain that loops with no way out (a deadlock the server has not
 *     detected yet) has no head: its sessions count as heads instead,
 *     marked "cycle", with the samples split among them.
 *
 * Each blocked backend-sample also counts to its chain as a folded stack
 * (head;blocked;blocked-by-that), one frame per session: "app pid" (or
 * the pid alone when the session has no row or no application name).
 *
 * A session's user, database and application come from its row, else
 * (the run does not read those columns) from the batch's side table of
 * identities (sample_ident), matched by pid and backend start, or by pid
 * alone for a session without a row.
 */
#ifndef PGTEMPO_SAMPLER_HEADS_H
#define PGTEMPO_SAMPLER_HEADS_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/hash.h"

#include "sample.h"

/* One head blocker: who, what it was doing, and the blocked samples it caused. */
typedef struct heads_cell
{
	/*
	 * who: the key is id.pid and id.backend_start_us (INT64_MIN unknown,
	 * no row seen); its database, user, application and backend type as
	 * last seen heading a chain (interned; NULL unknown)
	 */
	sample_ident id;
	double		samples;		/* blocked backend-samples it heads */
	double		direct;			/* of those, of sessions waiting on it directly */
	bool		seen;			/* it had a row in a sample */
	bool		cycle;			/* counted as a head of a lock cycle */
	/* what it was doing the last time it headed a chain (interned; NULL unknown) */
	const char *state;
	const char *type;
	const char *event;
	int64_t		query_id;		/* 0: none */
	int64_t		xact_start_us;	/* INT64_MIN: unknown or no transaction */
	int64_t		last_us;		/* the sample it was last seen in as a head */
	char	   *query;			/* the text last seen, or NULL */
} heads_cell;

/* A folded chain and the blocked backend-samples it stands for. */
typedef struct heads_chain
{
	char	   *stack;
	double		samples;
} heads_chain;

/*
 * One sample's lock graph and the heads and chain of each of its blocked
 * rows: built once per batch (heads_graph_build) and counted into as many
 * profiles as want it (heads_add_graph), the run's and every output's.
 */
typedef struct heads_graph
{
	const sample_batch *b;		/* the batch it was built from, until the next build */
	struct heads_work *w;		/* the graph, and each blocked row's heads */
	uint64_t	builds;			/* how many times it was built: once per batch */
} heads_graph;

typedef struct heads_prof
{
	hash_table	cells;			/* heads_cell by pid and backend start */
	hash_table	chains;			/* heads_chain by stack */
	double		blocked;		/* blocked backend-samples (each once) */
	heads_graph g;				/* heads_add_batch's own */
} heads_prof;

void		heads_graph_init(heads_graph *g);
void		heads_graph_free(heads_graph *g);

/*
 * The lock graph of batch b and the heads of its blocked rows, into g
 * (which keeps b until the next build).  Costs nothing when no row has a
 * blocker.
 */
void		heads_graph_build(heads_graph *g, const sample_batch *b);

/* Count the blocked rows of g's batch to their heads and chains. */
void		heads_add_graph(heads_prof *h, const heads_graph *g);

void		heads_init(heads_prof *h);
void		heads_free(heads_prof *h);
/* Forget the counts (the next interval). */
void		heads_reset(heads_prof *h);

/*
 * Count the blocked rows of one sample to their heads and chains: its
 * graph built for h alone (heads_graph_build, then heads_add_graph).
 */
void		heads_add_batch(heads_prof *h, const sample_batch *b);

/* The cell of a head, created with zero counts (no info) if new: for logs read back. */
heads_cell *heads_get(heads_prof *h, int32_t pid, int64_t backend_start_us);
/* Add samples to a chain (logs read back). */
void		heads_add_chain(heads_prof *h, const char *stack, double samples);
/* Keep a copy of text as c's query text. */
void		heads_set_query(heads_cell *c, const char *text);

/* The heads, most blocked samples first (ties by pid); free() the array. */
const heads_cell **heads_sorted(const heads_prof *h, int *n);
/* The chains, most samples first (ties by stack); free() the array. */
const heads_chain **heads_chains_sorted(const heads_prof *h, int *n);

#endif
