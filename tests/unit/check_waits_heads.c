/*
 * check_waits_heads.c — head blockers from one sample's rows: chains,
 * loops that must end, parallel groups, blockers without a row, several
 * heads sharing a blocked session, and the folded chains; who a session
 * is from the batch's side table when the run did not read it with the rows,
 * and the lookup that fills it: bounded, and harmless when it fails.
 */
#include "config.h"

#include "heads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idents.h"
#include "sink.h"
#include "strpool.h"
#include "unit.h"

#define MAXR 8
#define MAXB 4

/* A row: pid, its leader (0 none), wait event type (NULL on CPU, "Client" idle in a transaction), blockers. */
typedef struct hrow
{
	int32_t		pid;
	int32_t		leader;
	const char *type;
	int32_t		blk[MAXB];
} hrow;

/* A head expected: pid, blocked samples, of those direct, a cycle's, had a row. */
typedef struct hwant
{
	int32_t		pid;
	double		samples;
	double		direct;
	bool		cycle;
	bool		seen;
} hwant;

static const struct hcase
{
	const char *name;
	hrow		rows[MAXR];
	hwant		heads[MAXR];	/* pid 0 ends */
	const char *chains[MAXR];	/* "stack=samples"; NULL first: not checked */
	double		blocked;
}			cases[] = {
	{
		"A holds; B waits on A; C and D wait on B; E blocks nobody",
		{{1, 0, "Client", {0}}, {2, 0, "Lock", {1}}, {3, 0, "Lock", {2}}, {4, 0, "Lock", {2}},
		{5, 0, NULL, {0}}},
		{{1, 3, 1, false, true}},
		{"a 1;b 2=1", "a 1;b 2;c 3=1", "a 1;b 2;d 4=1"},
		3
	},
	{
		"a head on CPU (a long statement) is a head too",
		{{1, 0, NULL, {0}}, {2, 0, "Lock", {1}}},
		{{1, 1, 1, false, true}},
		{"a 1;b 2=1"},
		1
	},
	{
		"a deadlock not yet detected: the walk ends, its sessions share the samples",
		{{1, 0, "Lock", {2}}, {2, 0, "Lock", {1}}, {3, 0, "Lock", {1}}},
		{{1, 1.5, 1, true, true}, {2, 1.5, 0.5, true, true}},
		{NULL},
		3
	},
	{
		"a longer loop with a way out: the way out is the head",
		{{1, 0, "Lock", {2}}, {2, 0, "Lock", {3}}, {3, 0, "Lock", {1, 4}}, {4, 0, "IO", {0}}},
		{{4, 3, 1, false, true}},
		{"d 4;c 3=1", "d 4;c 3;b 2=1", "d 4;c 3;b 2;a 1=1"},
		3
	},
	{
		"a parallel worker waits: its leader's session is a link, not a head",
		{{1, 0, "IPC", {0}}, {11, 1, "Lock", {5}}, {12, 1, "Lock", {1}}, {3, 0, "Lock", {1}},
		{5, 0, "Client", {0}}},
		{{5, 2, 1, false, true}},
		{"e 5;a 1=1", "e 5;a 1;c 3=1"},
		2
	},
	{
		"a blocker without a row (filtered out, an idle advisory lock) is a head by its pid",
		{{2, 0, "Lock", {99}}, {3, 0, "Lock", {2}}},
		{{99, 2, 1, false, false}},
		{"99;b 2=1", "99;b 2;c 3=1"},
		2
	},
	{
		"two heads share a lock: each blocked sample is split between them",
		{{1, 0, NULL, {0}}, {2, 0, "Client", {0}}, {3, 0, "Lock", {1, 2}}, {4, 0, "Lock", {3}},
		{5, 0, "Lock", {3}}},
		{{1, 1.5, 0.5, false, true}, {2, 1.5, 0.5, false, true}},
		{"a 1;c 3=0.5", "a 1;c 3;d 4=0.5", "a 1;c 3;e 5=0.5", "b 2;c 3=0.5", "b 2;c 3;d 4=0.5",
		"b 2;c 3;e 5=0.5"},
		3
	},
	{
		"a pid listed twice (a parallel group's locks) counts once; two ways to one head count once",
		{{1, 0, "Client", {0}}, {2, 0, "Lock", {1, 1}}, {3, 0, "Lock", {1, 2}}},
		{{1, 2, 2, false, true}},
		{"a 1;b 2=1", "a 1;c 3=1"},
		2
	},
	{
		"no lock waits: no heads",
		{{1, 0, "Client", {0}}, {2, 0, "IO", {0}}},
		{{0}},
		{NULL},
		0
	},
};

static strpool pool;
static sample_batch batch;

/* The rows of a case as the sampler reads them; application "a" for pid 1, "b" for 2 ... */
static void
fill(const struct hcase *c)
{
	sample_batch_reset(&batch, 5000000);
	for (int i = 0; i < MAXR && c->rows[i].pid != 0; i++)
	{
		const hrow *h = &c->rows[i];
		sample_row *r = sample_batch_add(&batch);
		char		app[2] = {(char) ('a' + (h->pid - 1) % 26), '\0'};
		const char *state = "active";
		const char *event = h->type != NULL ? "x" : NULL;

		r->pid = h->pid;
		r->leader_pid = h->leader;
		r->backend_start_us = 1000 * (int64_t) h->pid;
		r->xact_start_us = 2000000;
		r->application_name = strpool_intern(&pool, h->leader != 0 ? "worker" : app);
		if (h->type != NULL && strcmp(h->type, "Client") == 0)
		{
			state = "idle in transaction";
			event = "ClientRead";
		}
		r->state = strpool_intern(&pool, state);
		sample_finish_row(r, &pool, 150000, h->type, event, false);
		for (int k = 0; k < MAXB && h->blk[k] != 0; k++)
			sample_batch_add_blocker(&batch, h->blk[k]);
	}
}

static void
setup(void)
{
	strpool_init(&pool);
	sample_batch_init(&batch);
}

static void
teardown(void)
{
	sample_batch_free(&batch);
	strpool_free(&pool);
}

static bool
near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

/* Every case gives its heads, their counts and chains, and nothing else. */
START_TEST(cases_heads)
{
	const struct hcase *c = &cases[_i];
	heads_prof	h;
	const heads_cell **v;
	int			n,
				want = 0;
	double		sum = 0;

	heads_init(&h);
	fill(c);
	heads_add_batch(&h, &batch);
	v = heads_sorted(&h, &n);
	while (want < MAXR && c->heads[want].pid != 0)
		want++;
	ck_assert_msg(n == want, "%s: %d heads, not %d", c->name, n, want);
	for (int i = 0; i < n; i++)
	{
		const hwant *w = NULL;

		for (int k = 0; k < want; k++)
			if (c->heads[k].pid == v[i]->id.pid)
				w = &c->heads[k];
		ck_assert_msg(w != NULL, "%s: pid %d is no head", c->name, v[i]->id.pid);
		ck_assert_msg(near(v[i]->samples, w->samples) && near(v[i]->direct, w->direct),
					  "%s: pid %d: %g samples (%g direct), not %g (%g)", c->name, v[i]->id.pid,
					  v[i]->samples, v[i]->direct, w->samples, w->direct);
		ck_assert_msg(v[i]->cycle == w->cycle && v[i]->seen == w->seen, "%s: pid %d: flags",
					  c->name, v[i]->id.pid);
		ck_assert_msg(v[i]->id.backend_start_us == (w->seen ? 1000 * (int64_t) w->pid : INT64_MIN),
					  "%s: pid %d: backend start", c->name, v[i]->id.pid);
		if (w->seen)
			ck_assert_int_eq(v[i]->xact_start_us, 2000000);
		sum += v[i]->samples;
	}
	/* the heads' shares add up to the blocked samples, each counted once */
	ck_assert_msg(near(sum, c->blocked) && near(h.blocked, c->blocked), "%s: %g / %g blocked",
				  c->name, sum, h.blocked);
	free(v);
	if (c->chains[0] != NULL)
	{
		const heads_chain **ch = heads_chains_sorted(&h, &n);
		int			nwant = 0;

		while (nwant < MAXR && c->chains[nwant] != NULL)
			nwant++;
		ck_assert_msg(n == nwant, "%s: %d chains, not %d", c->name, n, nwant);
		for (int k = 0; k < nwant; k++)
		{
			const char *eq = strrchr(c->chains[k], '=');
			bool		found = false;

			for (int i = 0; i < n; i++)
				found |= strlen(ch[i]->stack) == (size_t) (eq - c->chains[k]) &&
					strncmp(ch[i]->stack, c->chains[k], (size_t) (eq - c->chains[k])) == 0 &&
					near(ch[i]->samples, atof(eq + 1));
			ck_assert_msg(found, "%s: no chain %s (first: %s=%g)", c->name, c->chains[k],
						  n > 0 ? ch[0]->stack : "-", n > 0 ? ch[0]->samples : 0);
		}
		free(ch);
	}
	heads_free(&h);
}
END_TEST

/* Samples add up over a run, and a reset forgets them. */
START_TEST(adds_up_and_resets)
{
	heads_prof	h;
	const heads_cell **v;
	int			n;

	heads_init(&h);
	fill(&cases[0]);
	for (int i = 0; i < 4; i++)
		heads_add_batch(&h, &batch);
	v = heads_sorted(&h, &n);
	ck_assert_int_eq(n, 1);
	ck_assert(near(v[0]->samples, 12) && near(v[0]->direct, 4));
	free(v);
	heads_reset(&h);
	v = heads_sorted(&h, &n);
	ck_assert_int_eq(n, 0);
	ck_assert(h.blocked == 0);
	free(v);
	heads_free(&h);
}
END_TEST

/* A frame holds no ';' or line break of an application name. */
START_TEST(frames_are_clean)
{
	heads_prof	h;
	const heads_chain **ch;
	int			n;

	heads_init(&h);
	fill(&cases[1]);
	/* the folded stacks' frame escaper (utf8_append_frame): ';', controls, bytes not UTF-8 */
	batch.rows[0].application_name = strpool_intern(&pool, "x;y\nz\x1b\xff\xc3\xa9");
	heads_add_batch(&h, &batch);
	ch = heads_chains_sorted(&h, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(ch[0]->stack, "x:y z\\x1b\\xff\xc3\xa9 1;b 2");
	free(ch);
	heads_free(&h);
}
END_TEST

/* An identity of the side table: pid, backend start (0: its row's), application, user. */
typedef struct iident
{
	int32_t		pid;
	int64_t		start;
	const char *app;
	const char *user;
} iident;

static const struct icase
{
	const char *name;
	int			base;			/* the case of cases[] whose rows are read, without identities */
	const char *row_app;		/* the first row's own application name; NULL: not read either */
	iident		idents[4];		/* by pid; pid 0 ends */
	const char *head_app;		/* the first head's, NULL none */
	const char *head_user;
	const char *chain;			/* a stack there must be */
}			icases[] = {
	{
		"the run read no identities: the side table's show, a session without one is its pid",
		0, NULL, {{1, 0, "appA", "alice"}, {2, 0, "appB", "bob"}, {3, 0, "appC", "carol"}},
		"appA", "alice", "appA 1;appB 2;4"
	},
	{
		"a value the row has wins over the side table's",
		0, "own", {{1, 0, "appA", "alice"}, {2, 0, "appB", "bob"}},
		"own", "alice", "own 1;appB 2;3"
	},
	{
		"another session that had the pid (another backend start) is not the head",
		0, NULL, {{1, 999, "appA", "alice"}, {2, 0, "appB", "bob"}},
		NULL, NULL, "1;appB 2;3"
	},
	{
		"a head without a row is found by its pid alone",
		5, NULL, {{99, 5555, "app99", "dave"}},
		"app99", "dave", "app99 99;2;3"
	},
};

/* A head's user and application, and its chains' frames, fall back to the side table. */
START_TEST(identities_from_side_table)
{
	const struct icase *c = &icases[_i];
	heads_prof	h;
	const heads_cell **v;
	const heads_chain **ch;
	int			n;
	bool		found = false;

	heads_init(&h);
	fill(&cases[c->base]);
	for (int i = 0; i < batch.nrows; i++)
		batch.rows[i].application_name = batch.rows[i].usename = batch.rows[i].datname = NULL;
	batch.rows[0].application_name = c->row_app ? strpool_intern(&pool, c->row_app) : NULL;
	for (int k = 0; k < 4 && c->idents[k].pid != 0; k++)
	{
		const iident *d = &c->idents[k];
		sample_ident id = {d->pid, d->start ? d->start : 1000 * (int64_t) d->pid,
			strpool_intern(&pool, "db"), strpool_intern(&pool, d->user),
		strpool_intern(&pool, d->app), strpool_intern(&pool, "client backend")};

		sample_batch_add_ident(&batch, &id);
	}
	heads_add_batch(&h, &batch);
	v = heads_sorted(&h, &n);
	ck_assert_msg(n == 1, "%s: %d heads", c->name, n);
	ck_assert_msg(c->head_app ? v[0]->id.application_name && strcmp(v[0]->id.application_name, c->head_app) == 0 :
				  v[0]->id.application_name == NULL, "%s: application %s", c->name,
				  v[0]->id.application_name ? v[0]->id.application_name : "(none)");
	ck_assert_msg(c->head_user ? v[0]->id.usename && strcmp(v[0]->id.usename, c->head_user) == 0 :
				  v[0]->id.usename == NULL, "%s: user %s", c->name,
				  v[0]->id.usename ? v[0]->id.usename : "(none)");
	free(v);
	ch = heads_chains_sorted(&h, &n);
	for (int i = 0; i < n; i++)
		found |= strcmp(ch[i]->stack, c->chain) == 0;
	ck_assert_msg(found, "%s: no chain %s (first: %s)", c->name, c->chain,
				  n > 0 ? ch[0]->stack : "-");
	free(ch);
	heads_free(&h);
}
END_TEST

/* A later sample without the side table's identity keeps the head's. */
START_TEST(identity_kept)
{
	heads_prof	h;
	const heads_cell **v;
	int			n;
	sample_ident id = {1, 1000, NULL, strpool_intern(&pool, "alice"),
	strpool_intern(&pool, "appA"), NULL};

	heads_init(&h);
	fill(&cases[1]);
	batch.rows[0].application_name = batch.rows[0].usename = NULL;
	sample_batch_add_ident(&batch, &id);
	heads_add_batch(&h, &batch);
	batch.nidents = 0;
	heads_add_batch(&h, &batch);
	v = heads_sorted(&h, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(v[0]->id.application_name, "appA");
	ck_assert_str_eq(v[0]->id.usename, "alice");
	free(v);
	heads_free(&h);
}
END_TEST

static int	warnings;

static void
count_warning(void *arg, const char *warning)
{
	(void) arg;
	ck_assert_ptr_nonnull(strstr(warning, "could not look up the sessions of lock chains"));
	warnings++;
}

/*
 * The lookup of a batch with lock waits: a failed statement (no server
 * here) warns once, leaves the side table empty, and another batch right
 * after (new blockers, a pile-up that changes) sends no second statement
 * within IDENTS_INTERVAL_NS.  A batch without lock waits asks nothing.
 */
START_TEST(lookup_bounded)
{
	idents_cache ic;
	names_cache nc = {0};
	stmt_conn	sc = {0};
	idents_ctx	ctx = {&sc, "pgtempo_idents", &pool, &nc, count_warning, NULL};
	uint64_t	t0 = clock_now_ns();

	warnings = 0;
	idents_init(&ic);
	fill(&cases[8]);
	idents_fill(&ic, &ctx, &batch);
	ck_assert_uint_eq(ic.statements, 0);
	fill(&cases[0]);
	idents_fill(&ic, &ctx, &batch);
	ck_assert_uint_eq(ic.statements, 1);
	ck_assert_int_eq(warnings, 1);
	ck_assert_int_eq(batch.nidents, 0);
	for (int i = 0; i < 5; i++)
	{
		fill(&cases[i % 2 ? 5 : 6]);
		idents_fill(&ic, &ctx, &batch);
	}
	/* one a second at most: more only if this machine held the test up that long */
	ck_assert_uint_le(ic.statements, 1 + (clock_now_ns() - t0) / IDENTS_INTERVAL_NS);
	ck_assert_int_eq(warnings, 1);
	idents_free(&ic);
	names_free(&nc);
	free(sc.last_error);
}
END_TEST

/* Two profiles hold the same heads, chains and blocked samples, exactly. */
static void
same_heads(const heads_prof *a, const heads_prof *b)
{
	const heads_cell **va,
			  **vb;
	const heads_chain **ca,
			  **cb;
	int			na,
				nb;

	ck_assert(a->blocked == b->blocked);
	va = heads_sorted(a, &na);
	vb = heads_sorted(b, &nb);
	ck_assert_int_eq(na, nb);
	for (int i = 0; i < na; i++)
		ck_assert(va[i]->id.pid == vb[i]->id.pid && va[i]->samples == vb[i]->samples &&
				  va[i]->direct == vb[i]->direct && va[i]->cycle == vb[i]->cycle &&
				  va[i]->seen == vb[i]->seen && va[i]->id.application_name == vb[i]->id.application_name &&
				  va[i]->last_us == vb[i]->last_us);
	free(va);
	free(vb);
	ca = heads_chains_sorted(a, &na);
	cb = heads_chains_sorted(b, &nb);
	ck_assert_int_eq(na, nb);
	for (int i = 0; i < na; i++)
		ck_assert(strcmp(ca[i]->stack, cb[i]->stack) == 0 && ca[i]->samples == cb[i]->samples);
	free(ca);
	free(cb);
}

/* Count into a sink's profile only (the sinks' raw calls are not wanted). */
static const sink_ops counting_ops = {0};

/*
 * One lock graph per batch, for every profile: the graph built once and
 * counted into the run's profile and two sinks' (sinks_rows) gives each
 * exactly what a graph of its own (heads_add_batch) gives, twice over
 * (the second batch rebuilds the graph in place), and is built once per
 * batch.
 */
START_TEST(graph_once_per_batch)
{
	waits_settings st = WAITS_SETTINGS_INIT;
	wprof		run,
				own;
	sink_list	l;
	heads_graph g;

	wprof_init(&run, false);
	wprof_init(&own, false);
	sinks_init(&l, &st, &pool, &run);
	sink_new(&l, &counting_ops, sizeof(sink))->counts_rows = true;
	sink_new(&l, &counting_ops, sizeof(sink))->counts_rows = true;
	heads_graph_init(&g);
	for (int pass = 0; pass < 2; pass++)
	{
		fill(&cases[_i]);
		heads_graph_build(&g, &batch);
		wprof_add_heads(&run, &g);
		sinks_rows(&l, &batch, &g, false);
		heads_add_batch(&own.heads, &batch);
		ck_assert_uint_eq(g.builds, (uint64_t) pass + 1);
		same_heads(&run.heads, &own.heads);
		for (int k = 0; k < l.n; k++)
			same_heads(&l.v[k]->prof.heads, &own.heads);
	}
	ck_assert(cases[_i].blocked == 0 || own.heads.blocked > 0);
	heads_graph_free(&g);
	sinks_free(&l);
	wprof_free(&run);
	wprof_free(&own);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_heads");
	TCase	   *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, cases_heads, 0, (int) (sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, adds_up_and_resets);
	tcase_add_test(tc, frames_are_clean);
	tcase_add_loop_test(tc, identities_from_side_table, 0,
						(int) (sizeof(icases) / sizeof(icases[0])));
	tcase_add_test(tc, identity_kept);
	tcase_add_loop_test(tc, graph_once_per_batch, 0, (int) (sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, lookup_bounded);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
