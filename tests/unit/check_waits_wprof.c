/*
 * check_waits_wprof.c — wait-event profiles: counting, classification,
 * grouping by every dimension, blockers and query ids under a group, the
 * error bound; and the interned strings they are keyed by.
 */
#include "config.h"

#include "wprof.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strpool.h"
#include "unit.h"

static strpool pool;
static sample_batch batch;

static void
setup(void)
{
	strpool_init(&pool);
	sample_batch_init(&batch);
	sample_batch_reset(&batch, 1000);
}

static void
teardown(void)
{
	sample_batch_free(&batch);
	strpool_free(&pool);
}

/* Add a row like the sampler does: raw state and wait columns. */
static sample_row *
add_row(int32_t pid, const char *db, const char *user, const char *app, const char *state,
		const char *type, const char *event, int64_t query_id)
{
	sample_row *r = sample_batch_add(&batch);

	r->pid = pid;
	r->backend_start_us = 1000000 * (int64_t) pid;
	r->backend_type = strpool_intern(&pool, "client backend");
	r->datname = strpool_intern(&pool, db);
	r->usename = strpool_intern(&pool, user);
	r->application_name = strpool_intern(&pool, app);
	r->state = strpool_intern(&pool, state);
	r->query_id = query_id;
	sample_finish_row(r, &pool, 150000, type, event, false);
	return r;
}

/* Equal strings intern to one pointer; different ones do not; NULL stays NULL. */
START_TEST(strpool_interns)
{
	const char *a = strpool_intern(&pool, "relation");
	char		buf[16];
	char		name[32];

	strcpy(buf, "relation");
	ck_assert_ptr_eq(strpool_intern(&pool, buf), a);
	ck_assert_ptr_ne(strpool_intern(&pool, "relatio"), a);
	ck_assert_ptr_eq(strpool_intern_n(&pool, "relationXYZ", 8), a);
	ck_assert_ptr_null(strpool_intern(&pool, NULL));
	/* growth keeps every string findable */
	for (int i = 0; i < 5000; i++)
	{
		snprintf(name, sizeof(name), "s%d", i);
		strpool_intern(&pool, name);
	}
	ck_assert_ptr_eq(strpool_intern(&pool, "relation"), a);
	ck_assert_str_eq(strpool_intern(&pool, "s4999"), "s4999");
	ck_assert_ptr_eq(strpool_intern(&pool, "s17"), strpool_intern(&pool, "s17"));
}
END_TEST

/* Classification of pg_stat_activity rows. */
START_TEST(classify_table)
{
	static const struct
	{
		const char *state;
		const char *type;
		bool		hidden;
		sample_class want;
	}			cases[] = {
		{"active", NULL, false, SAMPLE_CPU},
		{"active", "", false, SAMPLE_CPU},
		{"active", "Lock", false, SAMPLE_WAIT},
		{"active", "Timeout", false, SAMPLE_WAIT},
		{"idle", "Client", false, SAMPLE_IDLE},
		{"idle", NULL, false, SAMPLE_IDLE},
		{"idle in transaction", "Client", false, SAMPLE_WAIT},
		/* idle in a transaction is waiting for the client, never CPU */
		{"idle in transaction", NULL, false, SAMPLE_WAIT},
		{"idle in transaction (aborted)", NULL, false, SAMPLE_WAIT},
		{"active", "Activity", false, SAMPLE_IDLE},
		{NULL, "Activity", false, SAMPLE_IDLE},		/* a background process's main loop */
		{NULL, "IO", false, SAMPLE_WAIT},
		{NULL, NULL, false, SAMPLE_CPU},	/* a background worker at work */
		{NULL, NULL, true, SAMPLE_HIDDEN},
		{"active", "Lock", true, SAMPLE_HIDDEN},
		/* our own labels, as a log read back holds them: the class they label */
		{"active", SAMPLE_CPU_TYPE, false, SAMPLE_CPU},
		{NULL, SAMPLE_CPU_TYPE, false, SAMPLE_CPU},
		{"active", SAMPLE_IDLE_TYPE, false, SAMPLE_IDLE},
		{NULL, SAMPLE_IDLE_TYPE, false, SAMPLE_IDLE},
		{NULL, SAMPLE_CLIENT_TYPE, false, SAMPLE_WAIT},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(sample_classify(cases[i].state, cases[i].type, cases[i].hidden) == cases[i].want,
					  "case %zu", i);
}
END_TEST

/* Every counted row has a label: idle in a transaction, idle without a wait event. */
START_TEST(row_labels)
{
	static const struct
	{
		const char *state;
		const char *type;
		const char *event;
		sample_class cls;
		const char *want_type;
		const char *want_event;
	}			cases[] = {
		{"idle in transaction", NULL, NULL, SAMPLE_WAIT, "Client", "ClientRead"},
		{"idle in transaction", "Client", "ClientRead", SAMPLE_WAIT, "Client", "ClientRead"},
		{"idle in transaction (aborted)", NULL, NULL, SAMPLE_WAIT, "Client", "ClientRead"},
		{"idle", NULL, NULL, SAMPLE_IDLE, "Idle", "idle"},
		{"idle", "", NULL, SAMPLE_IDLE, "Idle", "idle"},
		{"idle", "Client", "ClientRead", SAMPLE_IDLE, "Client", "ClientRead"},
		{NULL, "Activity", "WalWriterMain", SAMPLE_IDLE, "Activity", "WalWriterMain"},
		{"active", NULL, NULL, SAMPLE_CPU, "CPU", "CPU"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		sample_row *r = add_row(1, "db", "u", "a", cases[i].state, cases[i].type,
								cases[i].event, 0);

		ck_assert_msg(r->cls == cases[i].cls, "case %zu: class", i);
		ck_assert_str_eq(r->wait_event_type, cases[i].want_type);
		ck_assert_str_eq(r->wait_event, cases[i].want_event);
		/* the state is kept as the server said it */
		if (cases[i].state != NULL)
			ck_assert_str_eq(r->state, cases[i].state);
	}
}
END_TEST

/* Lock groups know their lock samples; the ones without a blocker are the rest. */
START_TEST(lock_no_blocker)
{
	wprof		p;
	wprof_groups g;
	wprof_dim	by[] = {WPROF_DIM_EVENT};

	wprof_init(&p, false);
	add_row(1, "db", "u", "a", "active", "Lock", "relation", 0);
	sample_batch_add_blocker(&batch, 9);
	add_row(2, "db", "u", "a", "active", "Lock", "relation", 0);
	add_row(3, "db", "u", "a", "active", "Lock", "relation", 0);
	sample_batch_add_blocker(&batch, 9);
	sample_batch_add_blocker(&batch, 8);
	add_row(4, "db", "u", "a", "active", "IO", "DataFileRead", 0);
	for (int i = 0; i < batch.nrows; i++)
		wprof_add(&p, &batch, &batch.rows[i]);
	wprof_group_by(&p, by, 1, 3, &g);
	ck_assert_int_eq(g.n, 2);
	ck_assert_str_eq(g.g[0].key.event, "relation");
	ck_assert_uint_eq(g.g[0].lock_samples, 3);
	ck_assert_uint_eq(g.g[0].blocked, 2);
	ck_assert_int_eq(g.g[0].nblockers, 2);
	ck_assert_uint_eq(g.g[1].lock_samples, 0);
	ck_assert(!wprof_has_query_ids(&p));
	wprof_groups_free(&g);
	add_row(5, "db", "u", "a", "active", NULL, NULL, 42);
	wprof_add(&p, &batch, &batch.rows[batch.nrows - 1]);
	ck_assert(wprof_has_query_ids(&p));
	wprof_free(&p);
}
END_TEST

/* PostgreSQL 19 renamed BufferPin/BufferPin: older servers' rows get the new name. */
START_TEST(normalize_buffer_pin)
{
	const char *t = "BufferPin",
			   *e = "BufferPin";

	sample_normalize_event(180000, &t, &e);
	ck_assert_str_eq(t, "Buffer");
	ck_assert_str_eq(e, "BufferCleanup");
	t = e = "BufferPin";
	sample_normalize_event(190000, &t, &e);
	ck_assert_str_eq(t, "BufferPin");
	t = "Buffer";
	e = "BufferCleanup";
	sample_normalize_event(190000, &t, &e);
	ck_assert_str_eq(t, "Buffer");
	ck_assert_str_eq(e, "BufferCleanup");
	t = "LWLock";
	e = "BufferContent";
	sample_normalize_event(150000, &t, &e);
	ck_assert_str_eq(t, "LWLock");
	ck_assert_str_eq(e, "BufferContent");
	t = NULL;
	e = NULL;
	sample_normalize_event(90600, &t, &e);
	ck_assert_ptr_null(t);
}
END_TEST

/* CPU rows get the CPU labels; idle and hidden rows count only in the totals. */
START_TEST(counting)
{
	wprof		p;

	wprof_init(&p, false);
	add_row(1, "db", "u", "a", "active", "Lock", "relation", 7);
	add_row(2, "db", "u", "a", "active", NULL, NULL, 8);
	add_row(3, "db", "u", "a", "idle", "Client", "ClientRead", 0);
	sample_finish_row(sample_batch_add(&batch), &pool, 150000, NULL, NULL, true);
	ck_assert_str_eq(batch.rows[1].wait_event_type, "CPU");
	ck_assert_str_eq(batch.rows[1].wait_event, "CPU");
	for (int i = 0; i < batch.nrows; i++)
		wprof_add(&p, &batch, &batch.rows[i]);
	wprof_tick(&p, 1000);
	ck_assert_uint_eq(p.active, 2);
	ck_assert_uint_eq(p.idle, 1);
	ck_assert_uint_eq(p.hidden, 1);
	ck_assert_uint_eq(p.ticks, 1);
	ck_assert_uint_eq(p.main.n, 2);
	wprof_free(&p);

	/* with --include-idle the idle row counts */
	wprof_init(&p, true);
	for (int i = 0; i < batch.nrows; i++)
		wprof_add(&p, &batch, &batch.rows[i]);
	ck_assert_uint_eq(p.active, 3);
	ck_assert_uint_eq(p.idle, 0);
	wprof_free(&p);
}
END_TEST

/* Grouping by event: sums, order, shares, top query ids and blockers per group. */
START_TEST(group_by_event)
{
	wprof		p;
	wprof_groups g;
	wprof_dim	by[] = {WPROF_DIM_EVENT};

	wprof_init(&p, false);
	for (int tick = 0; tick < 10; tick++)
	{
		sample_row *r;

		sample_batch_reset(&batch, 1000 + (uint64_t) tick);
		/* pid 10 waits on a lock held by 20 the whole time */
		r = add_row(10, "db", "u", "app", "active", "Lock", "relation", 111);
		sample_batch_add_blocker(&batch, 20);
		(void) r;
		/* pid 11 too, for 4 ticks, blocked by 20 and 21 */
		if (tick < 4)
		{
			add_row(11, "db", "u", "app", "active", "Lock", "relation", 222);
			sample_batch_add_blocker(&batch, 20);
			sample_batch_add_blocker(&batch, 21);
		}
		/* pid 20 sleeps; pid 30 is on CPU 3 ticks of 10 */
		add_row(20, "db", "u", "app", "active", "Timeout", "PgSleep", 333);
		if (tick < 3)
			add_row(30, "db2", "v", "other", "active", NULL, NULL, 0);
		for (int i = 0; i < batch.nrows; i++)
			wprof_add(&p, &batch, &batch.rows[i]);
		wprof_tick(&p, batch.ts_us);
	}
	ck_assert_uint_eq(p.active, 10 + 4 + 10 + 3);
	wprof_group_by(&p, by, 1, 3, &g);
	ck_assert_int_eq(g.n, 3);
	ck_assert_uint_eq(g.total, 27);
	ck_assert_str_eq(g.g[0].key.type, "Lock");
	ck_assert_str_eq(g.g[0].key.event, "relation");
	ck_assert_uint_eq(g.g[0].samples, 14);
	ck_assert_uint_eq(g.g[0].blocked, 14);
	/* blockers: 20 in all 14 samples, 21 in 4 */
	ck_assert_int_eq(g.g[0].nblockers, 2);
	ck_assert_int_eq(g.g[0].blockers[0].id, 20);
	ck_assert_uint_eq(g.g[0].blockers[0].samples, 14);
	ck_assert_int_eq(g.g[0].blockers[1].id, 21);
	ck_assert_uint_eq(g.g[0].blockers[1].samples, 4);
	/* query ids under the lock group */
	ck_assert_int_eq(g.g[0].nqueries, 2);
	ck_assert_int_eq(g.g[0].queries[0].id, 111);
	ck_assert_uint_eq(g.g[0].queries[0].samples, 10);
	ck_assert_int_eq(g.g[0].queries[1].id, 222);
	ck_assert_str_eq(g.g[1].key.type, "Timeout");
	ck_assert_uint_eq(g.g[1].samples, 10);
	ck_assert_int_eq(g.g[1].nblockers, 0);
	ck_assert_str_eq(g.g[2].key.type, "CPU");
	ck_assert_uint_eq(g.g[2].samples, 3);
	ck_assert_int_eq(g.g[2].nqueries, 0);	/* query id 0 is no query */
	wprof_groups_free(&g);

	/* maxsub cuts the sub-lists */
	wprof_group_by(&p, by, 1, 1, &g);
	ck_assert_int_eq(g.g[0].nqueries, 1);
	ck_assert_int_eq(g.g[0].nblockers, 1);
	wprof_groups_free(&g);
	wprof_free(&p);
}
END_TEST

/* Every other dimension, alone and combined. */
START_TEST(group_by_dims)
{
	wprof		p;
	wprof_groups g;

	wprof_init(&p, false);
	add_row(1, "a", "u1", "x", "active", "IO", "DataFileRead", 5);
	add_row(2, "a", "u2", "x", "active", "IO", "DataFileRead", 5);
	add_row(2, "a", "u2", "x", "active", "IO", "DataFileRead", 5);
	add_row(3, "b", "u1", "y", "active", "LWLock", "WALWrite", 6);
	for (int i = 0; i < batch.nrows; i++)
		wprof_add(&p, &batch, &batch.rows[i]);

	{
		wprof_dim	by[] = {WPROF_DIM_PID};

		wprof_group_by(&p, by, 1, 3, &g);
		ck_assert_int_eq(g.n, 3);
		ck_assert_int_eq(g.g[0].key.pid, 2);
		ck_assert_uint_eq(g.g[0].samples, 2);
		ck_assert_str_eq(g.g[0].key.usename, "u2");	/* a session keeps its user */
		ck_assert_ptr_null(g.g[0].key.type);
		wprof_groups_free(&g);
	}
	{
		wprof_dim	by[] = {WPROF_DIM_DB};

		wprof_group_by(&p, by, 1, 3, &g);
		ck_assert_int_eq(g.n, 2);
		ck_assert_str_eq(g.g[0].key.datname, "a");
		ck_assert_uint_eq(g.g[0].samples, 3);
		ck_assert_ptr_null(g.g[0].key.usename);
		wprof_groups_free(&g);
	}
	{
		wprof_dim	by[] = {WPROF_DIM_USER, WPROF_DIM_EVENT};

		wprof_group_by(&p, by, 2, 3, &g);
		ck_assert_int_eq(g.n, 3);
		ck_assert_str_eq(g.g[0].key.usename, "u2");
		ck_assert_uint_eq(g.g[0].samples, 2);
		/* ties are ordered by key: IO before LWLock */
		ck_assert_str_eq(g.g[1].key.type, "IO");
		ck_assert_str_eq(g.g[2].key.type, "LWLock");
		wprof_groups_free(&g);
	}
	{
		wprof_dim	by[] = {WPROF_DIM_QUERY};

		wprof_group_by(&p, by, 1, 3, &g);
		ck_assert_int_eq(g.n, 2);
		ck_assert_int_eq(g.g[0].key.query_id, 5);
		ck_assert_uint_eq(g.g[0].samples, 3);
		ck_assert_int_eq(g.g[0].nqueries, 0);	/* no sub-list when grouped by query */
		wprof_groups_free(&g);
	}
	{
		wprof_dim	by[] = {WPROF_DIM_APP};

		wprof_group_by(&p, by, 1, 3, &g);
		ck_assert_int_eq(g.n, 2);
		ck_assert_str_eq(g.g[0].key.appname, "x");
		wprof_groups_free(&g);
	}
	{
		wprof_dim	by[] = {WPROF_DIM_BACKEND_TYPE};

		wprof_group_by(&p, by, 1, 3, &g);
		ck_assert_int_eq(g.n, 1);
		ck_assert_uint_eq(g.g[0].samples, 4);
		wprof_groups_free(&g);
	}
	/* no dimensions: by event */
	wprof_group_by(&p, NULL, 0, 3, &g);
	ck_assert_int_eq(g.n, 2);
	ck_assert_str_eq(g.g[0].key.event, "DataFileRead");
	wprof_groups_free(&g);
	wprof_free(&p);
}
END_TEST

/* Weighted rows (in-server profiles) and measured time (pg_stat_wait). */
START_TEST(weights_and_measured)
{
	wprof		p;
	wprof_groups g;
	sample_row *r;

	wprof_init(&p, false);
	r = add_row(1, "a", "u", "x", NULL, "IO", "DataFileRead", 0);
	r->samples = 40;
	r = add_row(1, "a", "u", "x", NULL, "Lock", "tuple", 0);
	r->samples = 0;
	r->measured_us = 2500000;
	r->measured_count = 12;
	for (int i = 0; i < batch.nrows; i++)
		wprof_add(&p, &batch, &batch.rows[i]);
	ck_assert_uint_eq(p.active, 40);
	ck_assert(p.has_measured);
	ck_assert_uint_eq(p.measured_us, 2500000);
	ck_assert_uint_eq(p.measured_count, 12);
	wprof_group_by(&p, NULL, 0, 3, &g);
	ck_assert_int_eq(g.n, 2);
	ck_assert_uint_eq(g.g[0].samples, 40);
	ck_assert_uint_eq(g.g[1].samples, 0);
	ck_assert_uint_eq(g.g[1].measured_us, 2500000);
	ck_assert_uint_eq(g.g[1].measured_count, 12);
	wprof_groups_free(&g);
	wprof_free(&p);
}
END_TEST

/* Query texts: the first one seen per query id; none for id 0. */
START_TEST(query_texts)
{
	wprof		p;
	sample_row *r;

	wprof_init(&p, false);
	r = add_row(1, "a", "u", "x", "active", NULL, NULL, 42);
	r->query = "select 1";
	r = add_row(2, "a", "u", "x", "active", NULL, NULL, 42);
	r->query = "select 2";
	r = add_row(3, "a", "u", "x", "active", NULL, NULL, 0);
	r->query = "select 3";
	for (int i = 0; i < batch.nrows; i++)
		wprof_add(&p, &batch, &batch.rows[i]);
	ck_assert_str_eq(wprof_query_text(&p, 42), "select 1");
	ck_assert_ptr_null(wprof_query_text(&p, 0));
	ck_assert_ptr_null(wprof_query_text(&p, 43));
	/* many ids: the table grows */
	for (int64_t id = 100; id < 2100; id++)
	{
		sample_batch_reset(&batch, 1);
		r = add_row(1, "a", "u", "x", "active", NULL, NULL, id);
		r->query = id == 1999 ? "the one" : "other";
		wprof_add(&p, &batch, r);
	}
	ck_assert_str_eq(wprof_query_text(&p, 1999), "the one");
	ck_assert_str_eq(wprof_query_text(&p, 42), "select 1");
	/* a reset forgets counts, not texts */
	wprof_reset(&p);
	ck_assert_uint_eq(p.active, 0);
	ck_assert_uint_eq(p.main.n, 0);
	ck_assert_str_eq(wprof_query_text(&p, 42), "select 1");
	wprof_free(&p);
}
END_TEST

/* The 95 % bound: 1.96 * period * sqrt(k (1 - k/n)). */
START_TEST(error_bound)
{
	ck_assert_double_eq_tol(wprof_error_s(50, 100, 0.01), 1.96 * 0.01 * 5.0, 1e-12);
	ck_assert_double_eq_tol(wprof_error_s(100, 100, 0.01), 0.0, 1e-12);
	ck_assert_double_eq_tol(wprof_error_s(0, 100, 0.01), 0.0, 1e-12);
	ck_assert_double_eq_tol(wprof_error_s(0, 0, 0.01), 0.0, 1e-12);
	ck_assert_double_eq_tol(wprof_error_s(1, 4, 1.0), 1.96 * sqrt(0.75), 1e-12);
}
END_TEST

/* --by names, both ways. */
START_TEST(dim_names)
{
	static const char *const names[] = {"event", "pid", "query", "db", "user", "app", "backend_type"};
	wprof_dim	d;

	for (int i = 0; i < WPROF_DIM_COUNT; i++)
	{
		ck_assert_str_eq(wprof_dim_name((wprof_dim) i), names[i]);
		ck_assert(wprof_dim_parse(names[i], strlen(names[i]), &d));
		ck_assert_int_eq(d, i);
	}
	ck_assert(!wprof_dim_parse("events", 6, &d));
	ck_assert(!wprof_dim_parse("even", 4, &d));
	ck_assert(wprof_dim_parse("pid,x", 3, &d));
}
END_TEST

/*
 * One projection of a row's key for a report and a baseline alike: a
 * session (--by pid) keeps its backend type, user and database, so two
 * rows of one pid and start that differ in backend type stay apart; by
 * event they are one key; what the dimensions drop is zero.
 */
START_TEST(key_projection)
{
	sample_row	a,
				b;
	bool		by_pid[WPROF_DIM_COUNT] = {[WPROF_DIM_PID] = true};
	bool		by_event[WPROF_DIM_COUNT] = {[WPROF_DIM_EVENT] = true};
	wprof_key	fa,
				fb,
				ka,
				kb;

	memset(&a, 0, sizeof(a));
	a.pid = 42;
	a.backend_start_us = 1000;
	a.datname = strpool_intern(&pool, "shop");
	a.usename = strpool_intern(&pool, "app");
	a.application_name = strpool_intern(&pool, "web");
	a.wait_event_type = strpool_intern(&pool, "Lock");
	a.wait_event = strpool_intern(&pool, "relation");
	a.query_id = 7;
	a.backend_type = strpool_intern(&pool, "client backend");
	b = a;
	b.backend_type = strpool_intern(&pool, "parallel worker");
	fa = wprof_row_key(&a);
	fb = wprof_row_key(&b);
	ka = wprof_key_project(&fa, by_pid);
	kb = wprof_key_project(&fb, by_pid);
	ck_assert_str_eq(ka.backend_type, "client backend");
	ck_assert(memcmp(&ka, &kb, sizeof(ka)) != 0);
	ck_assert_int_eq(ka.pid, 42);
	ck_assert_str_eq(ka.usename, "app");
	ck_assert_str_eq(ka.datname, "shop");
	ck_assert(ka.type == NULL && ka.event == NULL && ka.appname == NULL && ka.query_id == 0);
	ka = wprof_key_project(&fa, by_event);
	kb = wprof_key_project(&fb, by_event);
	ck_assert(memcmp(&ka, &kb, sizeof(ka)) == 0);
	ck_assert_str_eq(ka.event, "relation");
	ck_assert(ka.backend_type == NULL && ka.pid == 0);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_wprof");
	TCase	   *tc = tcase_create("wprof");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, strpool_interns);
	tcase_add_test(tc, classify_table);
	tcase_add_test(tc, normalize_buffer_pin);
	tcase_add_test(tc, row_labels);
	tcase_add_test(tc, lock_no_blocker);
	tcase_add_test(tc, counting);
	tcase_add_test(tc, group_by_event);
	tcase_add_test(tc, group_by_dims);
	tcase_add_test(tc, weights_and_measured);
	tcase_add_test(tc, query_texts);
	tcase_add_test(tc, error_bound);
	tcase_add_test(tc, dim_names);
	tcase_add_test(tc, key_projection);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
