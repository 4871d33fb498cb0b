/*
 * check_sampler_pqbin.c — the sampler's binary results read the same by
 * every reader this build has (libpq alone, and libpqtypes where it was
 * found): the same bytes, in results built here, give the values that
 * PostgreSQL's binary formats hold; and the parameters are written in
 * those formats.
 */
#include "config.h"

#include "pqbin.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libpq-events.h>

#include "fakepg.h"
#include "query.h"
#include "unit.h"

#define PG_EPOCH_US		INT64_C(946684800000000)

static const pqbin_ops *const readers[] = {
	&pqbin_libpq,
#ifdef HAVE_LIBPQTYPES
	&pqbin_pqtypes,
#endif
};

#define NREADERS	((int) (sizeof(readers) / sizeof(readers[0])))

static fakepg server;
static PGconn *conn;

/* Connect to a fake server and make the connection ready for every reader. */
static void
setup(void)
{
	conn = fakepg_connect(&server);
	ck_assert_msg(conn != NULL, "could not start the fake server");
	for (int i = 0; i < NREADERS; i++)
	{
		bool		sent = false;
		char	   *cause = NULL;
		PGresult   *res,
				   *more;

		ck_assert_msg(readers[i]->setup_send(conn, &sent, &cause), "%s: %s", readers[i]->name,
					  cause);
		if (!sent)
			continue;
		res = PQgetResult(conn);
		while ((more = PQgetResult(conn)) != NULL)
			PQclear(more);
		ck_assert_msg(readers[i]->setup_result(conn, res, NULL, &cause), "%s: %s",
					  readers[i]->name, cause);
		PQclear(res);
	}
}

static void
teardown(void)
{
	fakepg_stop(&server, conn);
	conn = NULL;
}

/* ---------------------------------------------------------------- building results */

typedef struct col
{
	const char *name;
	Oid			type;
} col;

/* An empty result with binary columns, made known to the libraries' events. */
static PGresult *
result(const col *cols, int n)
{
	PGresAttDesc attrs[QUERY_NCOLS + 4];
	PGresult   *r = PQmakeEmptyPGresult(conn, PGRES_TUPLES_OK);

	ck_assert_int_le(n, (int) (sizeof(attrs) / sizeof(attrs[0])));
	for (int i = 0; i < n; i++)
		attrs[i] = (PGresAttDesc) {
		(char *) cols[i].name, 0, 0, 1, cols[i].type, -1, -1
	};
	ck_assert(PQsetResultAttrs(r, n, attrs));
	ck_assert(PQfireResultCreateEvents(conn, r));
	return r;
}

/* Set a value: len bytes, or a NULL when b is NULL. */
static void
set(PGresult *r, int row, int c, const void *b, int len)
{
	ck_assert(PQsetvalue(r, row, c, (char *) (b != NULL ? b : ""), b != NULL ? len : -1));
}

static void
be32(unsigned char *b, uint32_t v)
{
	b[0] = (unsigned char) (v >> 24);
	b[1] = (unsigned char) (v >> 16);
	b[2] = (unsigned char) (v >> 8);
	b[3] = (unsigned char) v;
}

static void
be64(unsigned char *b, uint64_t v)
{
	be32(b, (uint32_t) (v >> 32));
	be32(b + 4, (uint32_t) v);
}

static void
set_int4(PGresult *r, int row, int c, int32_t v)
{
	unsigned char b[4];

	be32(b, (uint32_t) v);
	set(r, row, c, b, 4);
}

static void
set_int8(PGresult *r, int row, int c, int64_t v)
{
	unsigned char b[8];

	be64(b, (uint64_t) v);
	set(r, row, c, b, 8);
}

static void
set_text(PGresult *r, int row, int c, const char *s)
{
	set(r, row, c, s, s != NULL ? (int) strlen(s) : 0);
}

/* inet's binary form of a textual address ("" for NULL). */
static void
set_inet(PGresult *r, int row, int c, const char *addr)
{
	unsigned char b[20];
	bool		v6 = strchr(addr, ':') != NULL;

	if (addr[0] == '\0')
	{
		set(r, row, c, NULL, 0);
		return;
	}
	b[0] = v6 ? AF_INET + 1 : AF_INET;
	b[1] = v6 ? 128 : 32;
	b[2] = 0;
	b[3] = v6 ? 16 : 4;
	ck_assert_int_eq(inet_pton(v6 ? AF_INET6 : AF_INET, addr, b + 4), 1);
	set(r, row, c, b, v6 ? 20 : 8);
}

/* ---------------------------------------------------------------- the core columns */

static const col core_cols[QUERY_NCOLS] = {
	[QUERY_COL_PID] = {"pid", 23},
	[QUERY_COL_BACKEND_START] = {"backend_start", 1184},
	[QUERY_COL_BACKEND_TYPE] = {"backend_type", 25},
	[QUERY_COL_DATID] = {"datid", 26},
	[QUERY_COL_USESYSID] = {"usesysid", 26},
	[QUERY_COL_APPNAME] = {"application_name", 25},
	[QUERY_COL_CLIENT_ADDR] = {"client_addr", 869},
	[QUERY_COL_STATE] = {"state", 25},
	[QUERY_COL_WAIT_TYPE] = {"wait_event_type", 25},
	[QUERY_COL_WAIT_EVENT] = {"wait_event", 25},
	[QUERY_COL_QUERY_ID] = {"query_id", 20},
	[QUERY_COL_LEADER_PID] = {"leader_pid", 23},
	[QUERY_COL_XACT_START] = {"xact_start", 1184},
	[QUERY_COL_BLOCKERS] = {"blockers", 1007},
	[QUERY_COL_HIDDEN] = {"hidden", 16},
	[QUERY_COL_QUERY] = {"query", 25},
	[QUERY_COL_COUNT] = {"count", 20},
	[QUERY_COL_WAIT_TIME] = {"wait_time", 20},
};

/* A row as a sampling statement returns it; null_* and "" / NULL strings: NULL. */
static const struct core_case
{
	int32_t		pid;
	bool		start_null;
	int64_t		start_pg_us;	/* µs since 2000-01-01 */
	const char *btype;
	uint32_t	datid;
	uint32_t	usesysid;
	const char *app;
	const char *addr;
	const char *state;
	const char *type;
	const char *event;
	bool		qid_null;
	int64_t		qid;
	bool		leader_null;
	int32_t		leader;
	bool		hidden;
}			core_cases[] = {
	{4242, false, INT64_C(843091200123456), "client backend", 16384, 10, "pgbench", "192.0.2.1",
	"active", "Lock", "transactionid", false, INT64_C(-7209393455375637287), false, 4241, false},
	{1, true, 0, NULL, 0, 0, NULL, "", NULL, NULL, NULL, true, 0, true, 0, true},
	{INT32_MAX, false, -1, "autovacuum worker", UINT32_MAX, 4294967294u, "", "::1", "idle", "",
	"", false, INT64_MAX, false, INT32_MIN, false},
	{77, false, INT64_C(-946684800000000), "walsender", 5, 6, "psql \xc3\xa9t\xc3\xa9",
		"2001:db8::ff00:42:8329", "idle in transaction", "IO", "DataFileRead", false, 0, false, 0,
	false},
	{78, false, INT64_C(86400000000) * 36524 + INT64_C(86399999999), "client backend", 1, 1, "x",
	"::ffff:192.0.2.7", "active", NULL, NULL, false, INT64_MIN, false, 1, false},
};

static void
fill_core(PGresult *r, int row, const struct core_case *c)
{
	set_int4(r, row, QUERY_COL_PID, c->pid);
	if (c->start_null)
		set(r, row, QUERY_COL_BACKEND_START, NULL, 0);
	else
		set_int8(r, row, QUERY_COL_BACKEND_START, c->start_pg_us);
	set_text(r, row, QUERY_COL_BACKEND_TYPE, c->btype);
	if (c->datid == 0)
		set(r, row, QUERY_COL_DATID, NULL, 0);
	else
		set_int4(r, row, QUERY_COL_DATID, (int32_t) c->datid);
	if (c->usesysid == 0)
		set(r, row, QUERY_COL_USESYSID, NULL, 0);
	else
		set_int4(r, row, QUERY_COL_USESYSID, (int32_t) c->usesysid);
	set_text(r, row, QUERY_COL_APPNAME, c->app);
	set_inet(r, row, QUERY_COL_CLIENT_ADDR, c->addr);
	set_text(r, row, QUERY_COL_STATE, c->state);
	set_text(r, row, QUERY_COL_WAIT_TYPE, c->type);
	set_text(r, row, QUERY_COL_WAIT_EVENT, c->event);
	if (c->qid_null)
		set(r, row, QUERY_COL_QUERY_ID, NULL, 0);
	else
		set_int8(r, row, QUERY_COL_QUERY_ID, c->qid);
	if (c->leader_null)
		set(r, row, QUERY_COL_LEADER_PID, NULL, 0);
	else
		set_int4(r, row, QUERY_COL_LEADER_PID, c->leader);
	/* a transaction that started a second after the backend, NULL with it */
	if (c->start_null)
		set(r, row, QUERY_COL_XACT_START, NULL, 0);
	else
		set_int8(r, row, QUERY_COL_XACT_START, c->start_pg_us + 1000000);
	set(r, row, QUERY_COL_BLOCKERS, NULL, 0);
	set(r, row, QUERY_COL_HIDDEN, c->hidden ? "\1" : "\0", 1);
}

static void
assert_str(const char *what, const char *got, const char *want)
{
	if (want == NULL)
		ck_assert_msg(got == NULL, "%s: \"%s\", not NULL", what, got);
	else
		ck_assert_msg(got != NULL && strcmp(got, want) == 0, "%s: \"%s\", not \"%s\"", what,
					  got ? got : "(NULL)", want);
}

/* Every reader reads each row's core columns as the values written. */
START_TEST(core_rows)
{
	int			n = (int) (sizeof(core_cases) / sizeof(core_cases[0]));
	PGresult   *r = result(core_cols, QUERY_NCOLS);

	for (int i = 0; i < n; i++)
		fill_core(r, i, &core_cases[i]);
	for (int k = 0; k < NREADERS; k++)
		for (int i = 0; i < n; i++)
		{
			const struct core_case *c = &core_cases[i];
			pqbin_core	o;

			memset(&o, 0x5a, sizeof(o));
			ck_assert_msg(readers[k]->get_core(r, i, &o), "%s row %d: %s", readers[k]->name, i,
						  readers[k]->error());
			ck_assert_int_eq(o.pid, c->pid);
			ck_assert_msg(o.backend_start_us == (c->start_null ? INT64_MIN :
												 c->start_pg_us + PG_EPOCH_US),
						  "%s row %d: backend_start %lld", readers[k]->name, i,
						  (long long) o.backend_start_us);
			ck_assert_msg(o.xact_start_us == (c->start_null ? INT64_MIN :
											  c->start_pg_us + 1000000 + PG_EPOCH_US),
						  "%s row %d: xact_start %lld", readers[k]->name, i,
						  (long long) o.xact_start_us);
			assert_str("backend_type", o.backend_type, c->btype);
			ck_assert_uint_eq(o.datid, c->datid);
			ck_assert_uint_eq(o.usesysid, c->usesysid);
			assert_str("application_name", o.appname, c->app);
			assert_str("client_addr", o.client_addr, c->addr);
			assert_str("state", o.state, c->state);
			assert_str("wait_event_type", o.wait_type, c->type);
			assert_str("wait_event", o.wait_event, c->event);
			ck_assert_msg(o.query_id == (c->qid_null ? 0 : c->qid), "%s row %d: query_id",
						  readers[k]->name, i);
			ck_assert_int_eq(o.leader_pid, c->leader_null ? 0 : c->leader);
			ck_assert_int_eq(o.hidden, c->hidden);
		}
	PQclear(r);
}
END_TEST

/*
 * backend_start from 1900 to 2200, to the microsecond: libpqtypes goes
 * through a double (exact while seconds since 2000 stay under 2^33, until
 * 2272) and the libpq reader does not; both are held to the exact value.
 */
START_TEST(timestamps_exact)
{
	PGresult   *r = result(core_cols, QUERY_NCOLS);
	uint64_t	x = 88172645463325252u;

	fill_core(r, 0, &core_cases[0]);
	for (int i = 0; i < 200000; i++)
	{
		int64_t		us;

		/* xorshift: the same values every run */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		us = (int64_t) (x % (UINT64_C(86400000000) * 36525 * 3)) -
			INT64_C(86400000000) * 36525;
		set_int8(r, 0, QUERY_COL_BACKEND_START, us);
		for (int k = 0; k < NREADERS; k++)
		{
			pqbin_core	o;

			ck_assert(readers[k]->get_core(r, 0, &o));
			ck_assert_msg(o.backend_start_us == us + PG_EPOCH_US,
						  "%s: %lld µs since 2000 read as %lld since 1970", readers[k]->name,
						  (long long) us, (long long) o.backend_start_us);
		}
	}
	PQclear(r);
}
END_TEST

/* ---------------------------------------------------------------- other columns */

/* What the five pqbin_get_* read into, set to what no read gives. */
typedef struct read_values
{
	int32_t		i4;
	int64_t		i8;
	bool		b;
	uint32_t	o;
	const char *t;
} read_values;

static const read_values untouched = {7, 7, true, 7, "?"};

/* int4, int8, bool, oid and text columns, NULLs read as 0 / false / NULL. */
START_TEST(scalars)
{
	static const col cols[] = {{"i4", 23}, {"i8", 20}, {"b", 16}, {"o", 26}, {"t", 25}};
	static const struct
	{
		bool		null;
		int32_t		i4;
		int64_t		i8;
		bool		b;
		uint32_t	o;
		const char *t;
	}			cases[] = {
		{false, 150004, INT64_C(1700000000123456), true, 16384, "16.4"},
		{false, -1, -1, false, UINT32_MAX, ""},
		{false, INT32_MIN, INT64_MIN, true, 1, "pg_read_all_stats \xe2\x9c\x93"},
		{true, 0, 0, false, 0, NULL},
	};
	int			n = (int) (sizeof(cases) / sizeof(cases[0]));
	PGresult   *r = result(cols, 5);

	for (int i = 0; i < n; i++)
	{
		if (cases[i].null)
		{
			for (int c = 0; c < 5; c++)
				set(r, i, c, NULL, 0);
			continue;
		}
		set_int4(r, i, 0, cases[i].i4);
		set_int8(r, i, 1, cases[i].i8);
		set(r, i, 2, cases[i].b ? "\1" : "\0", 1);
		set_int4(r, i, 3, (int32_t) cases[i].o);
		set_text(r, i, 4, cases[i].t);
	}
	for (int k = 0; k < NREADERS; k++)
		for (int i = 0; i < n; i++)
		{
			const pqbin_ops *rd = readers[k];
			read_values v = untouched;

			ck_assert_msg(pqbin_get_int4(rd, r, i, 0, &v.i4) && pqbin_get_int8(rd, r, i, 1, &v.i8) &&
						  pqbin_get_bool(rd, r, i, 2, &v.b) && pqbin_get_oid(rd, r, i, 3, &v.o) &&
						  pqbin_get_text(rd, r, i, 4, &v.t), "%s row %d: %s", rd->name, i, rd->error());
			ck_assert_int_eq(v.i4, cases[i].i4);
			ck_assert_msg(v.i8 == cases[i].i8, "%s row %d: int8 %lld", rd->name, i,
						  (long long) v.i8);
			ck_assert_int_eq(v.b, cases[i].b);
			ck_assert_uint_eq(v.o, cases[i].o);
			assert_str("text", v.t, cases[i].t);
		}
	PQclear(r);
}
END_TEST

/*
 * A column not of the type asked for is refused by every reader, and what
 * it would have been read into is 0 or NULL, as for a NULL.
 */
START_TEST(refused_reads_as_zero)
{
	static const col cols[] = {{"n", 20}, {"t", 25}};
	PGresult   *r = result(cols, 2);

	set_int8(r, 0, 0, 5);
	set_text(r, 0, 1, "5");
	for (int k = 0; k < NREADERS; k++)
	{
		const pqbin_ops *rd = readers[k];
		read_values v = untouched;

		ck_assert_msg(!pqbin_get_int4(rd, r, 0, 0, &v.i4) && v.i4 == 0, "%s: int4", rd->name);
		ck_assert_msg(!pqbin_get_int8(rd, r, 0, 1, &v.i8) && v.i8 == 0, "%s: int8", rd->name);
		ck_assert_msg(!pqbin_get_bool(rd, r, 0, 0, &v.b) && !v.b, "%s: bool", rd->name);
		ck_assert_msg(!pqbin_get_oid(rd, r, 0, 0, &v.o) && v.o == 0, "%s: oid", rd->name);
		ck_assert_msg(!pqbin_get_text(rd, r, 0, 0, &v.t) && v.t == NULL, "%s: text", rd->name);
	}
	PQclear(r);
}
END_TEST

/* pqbin_store: each type's C type, from the integer or the text a reader decoded. */
START_TEST(store_types)
{
	int32_t		i4 = 7;
	int64_t		i8 = 7;
	bool		b = false;
	uint32_t	o = 7;
	const char *t = NULL;

	pqbin_store(PQBIN_INT4, &i4, -1, NULL);
	ck_assert_int_eq(i4, -1);
	pqbin_store(PQBIN_INT4, &i4, INT64_C(0xffffffff), NULL);	/* 4 bytes in network order */
	ck_assert_int_eq(i4, -1);
	pqbin_store(PQBIN_INT4, &i4, INT32_MIN, NULL);
	ck_assert_int_eq(i4, INT32_MIN);
	pqbin_store(PQBIN_INT8, &i8, INT64_MIN, NULL);
	ck_assert(i8 == INT64_MIN);
	pqbin_store(PQBIN_BOOL, &b, 2, NULL);
	ck_assert(b);
	pqbin_store(PQBIN_BOOL, &b, 0, NULL);
	ck_assert(!b);
	pqbin_store(PQBIN_OID, &o, INT64_C(0xffffffff), NULL);
	ck_assert_uint_eq(o, UINT32_MAX);
	pqbin_store(PQBIN_OID, &o, -1, NULL);
	ck_assert_uint_eq(o, UINT32_MAX);
	pqbin_store(PQBIN_TEXT, &t, 0, "x");
	ck_assert_str_eq(t, "x");
	pqbin_store(PQBIN_TEXT, &t, 0, NULL);
	ck_assert_ptr_null(t);
}
END_TEST

/* An int4[] column's bytes: ndim dimensions of the sizes in dims, elements (NULL_ELEM: NULL). */
#define NULL_ELEM	INT32_MIN
static int
int4_array(unsigned char *b, int ndim, const int *dims, const int32_t *v, int n)
{
	int			len = 12 + ndim * 8;
	bool		nulls = false;

	for (int i = 0; i < n; i++)
		nulls = nulls || v[i] == NULL_ELEM;
	be32(b, (uint32_t) ndim);
	be32(b + 4, nulls);
	be32(b + 8, 23);
	for (int d = 0; d < ndim; d++)
	{
		be32(b + 12 + d * 8, (uint32_t) dims[d]);
		be32(b + 16 + d * 8, 1);
	}
	for (int i = 0; i < n; i++)
	{
		be32(b + len, v[i] == NULL_ELEM ? UINT32_MAX : 4);
		len += 4;
		if (v[i] != NULL_ELEM)
		{
			be32(b + len, (uint32_t) v[i]);
			len += 4;
		}
	}
	return len;
}

typedef struct pids
{
	int32_t		v[8];
	int			n;
} pids;

static void
add_pid(void *arg, int32_t v)
{
	pids	   *p = arg;

	ck_assert_int_lt(p->n, 8);
	p->v[p->n++] = v;
}

/* pg_blocking_pids(): every element but the NULLs, in order, whatever the dimensions. */
START_TEST(int4_arrays)
{
	static const col cols[] = {{"blockers", 1007}};
	static const struct
	{
		int			ndim;
		int			dims[2];
		int32_t		v[6];
		int			n;
		int32_t		want[6];
		int			nwant;
	}			cases[] = {
		{0, {0}, {0}, 0, {0}, 0},
		{1, {1}, {4242}, 1, {4242}, 1},
		{1, {3}, {1, -2, INT32_MAX}, 3, {1, -2, INT32_MAX}, 3},
		{1, {3}, {5, NULL_ELEM, 6}, 3, {5, 6}, 2},
		{2, {2, 3}, {1, 2, 3, 4, 5, 6}, 6, {1, 2, 3, 4, 5, 6}, 6},
	};
	int			n = (int) (sizeof(cases) / sizeof(cases[0]));
	PGresult   *r = result(cols, 1);

	for (int i = 0; i < n; i++)
	{
		unsigned char b[128];

		set(r, i, 0, b, int4_array(b, cases[i].ndim, cases[i].dims, cases[i].v, cases[i].n));
	}
	set(r, n, 0, NULL, 0);
	for (int k = 0; k < NREADERS; k++)
		for (int i = 0; i <= n; i++)
		{
			pids		got = {.n = 0};
			int			nwant = i < n ? cases[i].nwant : 0;

			ck_assert_msg(readers[k]->get_int4_array(r, i, 0, add_pid, &got), "%s row %d: %s",
						  readers[k]->name, i, readers[k]->error());
			ck_assert_int_eq(got.n, nwant);
			for (int j = 0; j < nwant; j++)
				ck_assert_int_eq(got.v[j], cases[i].want[j]);
		}
	PQclear(r);
}
END_TEST

/*
 * libpq alone checks what it decodes: a column not of the type asked for,
 * or of the wrong size, is an error that names it.
 */
START_TEST(libpq_refuses)
{
	static const col cols[] = {{"n", 20}, {"short", 23}, {"addr", 869}, {"arr", 1007}};
	static const unsigned char bad_addr[] = {9, 32, 0, 4, 1, 2, 3, 4};
	static const unsigned char bad_arr[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 23};
	PGresult   *r = result(cols, 4);
	int32_t		i4;
	pids		got = {.n = 0};

	set_int8(r, 0, 0, 1);
	set(r, 0, 1, "\0\0\1", 3);
	set(r, 0, 2, bad_addr, sizeof(bad_addr));
	set(r, 0, 3, bad_arr, sizeof(bad_arr));
	ck_assert(!pqbin_get_int4(&pqbin_libpq, r, 0, 0, &i4));
	ck_assert_str_eq(pqbin_libpq.error(), "column 1 (n): type oid 20, not 23");
	ck_assert(!pqbin_get_int4(&pqbin_libpq, r, 0, 1, &i4));
	ck_assert_str_eq(pqbin_libpq.error(), "column 2 (short): 3 bytes, not 4");
	ck_assert(!pqbin_get_int4(&pqbin_libpq, r, 0, 9, &i4));
	ck_assert(!pqbin_libpq.get_int4_array(r, 0, 3, add_pid, &got));
	ck_assert_str_eq(pqbin_libpq.error(), "column 4 (arr): not an int4 array");
	PQclear(r);
}
END_TEST

/* ---------------------------------------------------------------- parameters */

/* Parameters in array_recv's and int4recv's formats, with their types. */
START_TEST(params_binary)
{
	static const int32_t pids_v[] = {1, -2};
	static char *const names[] = {"postgres", ""};
	static const unsigned char want_pids[] = {
		0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 2, 0, 0, 0, 1,
		0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0xff, 0xff, 0xff, 0xfe
	};
	static const unsigned char want_names[] = {
		0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 25, 0, 0, 0, 2, 0, 0, 0, 1,
		0, 0, 0, 8, 'p', 'o', 's', 't', 'g', 'r', 'e', 's', 0, 0, 0, 0
	};
	static const unsigned char want_empty[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23};
	static const unsigned char want_int4[] = {0, 0, 0x01, 0x2c};
	pqbin_params p = {.n = 0};

	ck_assert(pqbin_put_int4_array(&p, pids_v, 2));
	ck_assert(pqbin_put_text_array(&p, names, 2));
	ck_assert(pqbin_put_int4_array(&p, NULL, 0));
	ck_assert(pqbin_put_int4(&p, 300));
	ck_assert_int_eq(p.n, 4);
	ck_assert_uint_eq(p.types[0], 1007);
	ck_assert_uint_eq(p.types[1], 1009);
	ck_assert_uint_eq(p.types[3], 23);
	ck_assert_int_eq(p.lengths[0], (int) sizeof(want_pids));
	ck_assert_mem_eq(p.values[0], want_pids, sizeof(want_pids));
	ck_assert_int_eq(p.lengths[1], (int) sizeof(want_names));
	ck_assert_mem_eq(p.values[1], want_names, sizeof(want_names));
	ck_assert_int_eq(p.lengths[2], (int) sizeof(want_empty));
	ck_assert_mem_eq(p.values[2], want_empty, sizeof(want_empty));
	ck_assert_int_eq(p.lengths[3], 4);
	ck_assert_mem_eq(p.values[3], want_int4, 4);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(p.formats[i], 1);
	while (p.n < PQBIN_MAX_PARAMS)
		ck_assert(pqbin_put_int4(&p, 1));
	ck_assert(!pqbin_put_int4(&p, 1));
	pqbin_params_clear(&p);
	ck_assert_int_eq(p.n, 0);
}
END_TEST

/*
 * A failed setup statement: libpq's first statement is a nicety for the
 * backend and its failure is none; libpqtypes cannot read oids without its
 * type lookup, and says so.
 */
START_TEST(setup_failure)
{
	char	   *cause = NULL;

	ck_assert(pqbin_libpq.setup_result(conn, NULL, "canceling statement", &cause));
	ck_assert_ptr_null(cause);
#ifdef HAVE_LIBPQTYPES
	ck_assert(!pqbin_pqtypes.setup_result(conn, NULL, "canceling statement", &cause));
	ck_assert_str_eq(cause, "could not register the oid type: canceling statement");
	free(cause);
#endif
}
END_TEST

/* The build reads with libpqtypes exactly when configure found it (and was not told not to). */
START_TEST(build_reader)
{
#ifdef HAVE_LIBPQTYPES
	ck_assert_str_eq(pqbin->name, "libpqtypes");
#else
	ck_assert_str_eq(pqbin->name, "libpq");
#endif
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("sampler_pqbin");
	TCase	   *tc = tcase_create("readers");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, core_rows);
	tcase_add_test(tc, timestamps_exact);
	tcase_add_test(tc, scalars);
	tcase_add_test(tc, refused_reads_as_zero);
	tcase_add_test(tc, store_types);
	tcase_add_test(tc, int4_arrays);
	tcase_add_test(tc, libpq_refuses);
	tcase_add_test(tc, params_binary);
	tcase_add_test(tc, setup_failure);
	tcase_add_test(tc, build_reader);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
