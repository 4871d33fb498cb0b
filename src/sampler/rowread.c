/*
 * rowread.c — sampling statements' rows into sample batches.
 */
#include "config.h"

#include "rowread.h"

#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "pgtempo/xalloc.h"

#include "query.h"

#define CORE_SPEC_NAME	"pgtempo_waits_core"

/*
 * The columns every sampling statement has (up to QUERY_COL_HIDDEN) but
 * the blockers array, read in one PQgetf with a prepared specifier.
 */
#define CORE_SPEC "%int4 %timestamptz %text %oid %oid %text %inet %text %text %text " \
	"%int8 %int4 %bool"

/* ---------------------------------------------------------------- cumulative counters */

/* Hash of a cumulative-counter key (interned strings hash by address). */
static uint64_t
cum_hash(int32_t pid, const char *type, const char *event, int64_t query_id)
{
	uint64_t	h = (uint64_t) (uint32_t) pid * UINT64_C(0x9e3779b97f4a7c15);

	h ^= (uintptr_t) type * UINT64_C(0xff51afd7ed558ccd);
	h ^= (uintptr_t) event * UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= (uint64_t) query_id * UINT64_C(0x2545f4914f6cdd1d);
	return h ^ (h >> 29);
}

/* The counter cell of a key, created with zero counts if new. */
static rowread_cum *
cum_get(rowread_cums *c, int32_t pid, const char *type, const char *event, int64_t query_id)
{
	size_t		j;

	if (c->cap == 0 || (c->n + 1) * 2 > c->cap)
	{
		size_t		ncap = c->cap ? c->cap * 2 : 256;
		rowread_cum *nc = xcalloc(ncap, sizeof(rowread_cum));

		for (size_t i = 0; i < c->cap; i++)
		{
			rowread_cum *o = &c->cells[i];

			if (!o->used)
				continue;
			j = cum_hash(o->pid, o->type, o->event, o->query_id) & (ncap - 1);
			while (nc[j].used)
				j = (j + 1) & (ncap - 1);
			nc[j] = *o;
		}
		free(c->cells);
		c->cells = nc;
		c->cap = ncap;
	}
	j = cum_hash(pid, type, event, query_id) & (c->cap - 1);
	while (c->cells[j].used)
	{
		rowread_cum *o = &c->cells[j];

		if (o->pid == pid && o->type == type && o->event == event && o->query_id == query_id)
			return o;
		j = (j + 1) & (c->cap - 1);
	}
	c->cells[j].used = true;
	c->cells[j].pid = pid;
	c->cells[j].type = type;
	c->cells[j].event = event;
	c->cells[j].query_id = query_id;
	c->n++;
	return &c->cells[j];
}

/* The increase of a cumulative counter; a smaller value means it was reset. */
static int64_t
cum_delta(int64_t *prev, int64_t now)
{
	int64_t		d = now >= *prev ? now - *prev : now;

	*prev = now;
	return d;
}

void
rowread_cums_free(rowread_cums *c)
{
	free(c->cells);
	memset(c, 0, sizeof(*c));
}

/* ---------------------------------------------------------------- types */

/*
 * libpqtypes has no handler for oid: its binary form is 4 bytes in
 * network order.  It only gets values, but libpqtypes checks for a put
 * handler when it looks one up.
 */
static int
oid_put(PGtypeArgs *args)
{
	return args->errorf(args, "oid parameters are not supported");
}

static int
oid_get(PGtypeArgs *args)
{
	const PGresult *res = args->get.result;
	int			row = args->get.tup_num,
				col = args->get.field_num;
	Oid		   *out = va_arg(args->ap, Oid *);
	const unsigned char *v;

	*out = InvalidOid;
	if (PQgetisnull(res, row, col))
		return 0;
	/* format 1: binary, as every result here is */
	if (args->format != 1 || PQgetlength(res, row, col) != 4)
		return args->errorf(args, "unexpected format of an oid");
	v = (const unsigned char *) PQgetvalue(res, row, col);
	*out = (Oid) v[0] << 24 | (Oid) v[1] << 16 | (Oid) v[2] << 8 | (Oid) v[3];
	return 0;
}

bool
rowread_setup(stmt_conn *sc, char **cause)
{
	PGregisterType oid_type = {"pg_catalog.oid", oid_put, oid_get};
	PGresult   *res;
	bool		ok;

	if (!PQinitTypes(sc->conn))
	{
		*cause = xasprintf("could not initialize libpqtypes: %s", PQgeterror());
		return false;
	}
	/* asynchronously: the lookup is a statement, and must not wait past its deadline */
	sc->sent_ns = clock_now_ns();
	if (!PQregisterTypes(sc->conn, PQT_USERDEFINED, &oid_type, 1, 1))
	{
		*cause = xasprintf("could not register the oid type: %s", PQgeterror());
		return false;
	}
	if (stmt_await(sc, &res) != STMT_OK)
	{
		*cause = xasprintf("could not register the oid type: %s", sc->last_error);
		return false;
	}
	ok = PQregisterResult(sc->conn, PQT_USERDEFINED, &oid_type, 1, res) != 0;
	PQclear(res);
	if (!ok)
	{
		*cause = xasprintf("could not register the oid type: %s", PQgeterror());
		return false;
	}
	if (!PQspecPrepare(sc->conn, CORE_SPEC_NAME, CORE_SPEC, 0))
	{
		*cause = xasprintf("could not prepare the row specifier: %s", PQgeterror());
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- rows */

/* The text of a client address as pg_stat_activity shows it ("192.0.2.1", "::1"), interned. */
static const char *
addr_text(strpool *pool, const PGinet *in)
{
	struct sockaddr_storage ss;
	char		host[NI_MAXHOST];

	if (in->sa_buf_len <= 0 || (size_t) in->sa_buf_len > sizeof(ss))
		return NULL;
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, in->sa_buf, (size_t) in->sa_buf_len);
	if (getnameinfo((const struct sockaddr *) &ss, (socklen_t) in->sa_buf_len, host, sizeof(host),
					NULL, 0, NI_NUMERICHOST) != 0)
		return NULL;
	return strpool_intern(pool, host);
}

/* Read the blocking pids of row i into the batch's last row. */
static bool
read_blockers(PGresult *res, int i, sample_batch *b)
{
	PGarray		arr;

	memset(&arr, 0, sizeof(arr));
	if (!PQgetf(res, i, "%int4[]", QUERY_COL_BLOCKERS, &arr))
		return false;
	for (int j = 0; j < PQntuples(arr.res); j++)
	{
		PGint4		pid = 0;

		if (PQgetf(arr.res, j, "%int4", 0, &pid) && pid != 0)
			sample_batch_add_blocker(b, pid);
	}
	PQclear(arr.res);
	return true;
}

/* The columns of one row as read. */
typedef struct raw_row
{
	PGint4		pid;
	PGint4		leader;
	PGtimestamp bs;
	Oid			datid;
	Oid			usesysid;
	PGinet		addr;
	PGtext		btype;
	PGtext		appname;
	PGtext		state;
	PGtext		type;
	PGtext		event;
	PGtext		query;
	PGint8		query_id;
	PGint8		count;
	PGint8		wtime;
	PGbool		hidden;
	bool		wtime_null;
} raw_row;

/* Read row i; a statement may end after the hidden flag, or after the query text. */
static bool
get_row(PGresult *res, int i, raw_row *w)
{
	int			nf = PQnfields(res);
	bool		all_cols = nf >= QUERY_NCOLS;
	bool		with_query = !all_cols && nf > QUERY_COL_QUERY;

	memset(w, 0, sizeof(*w));
	w->count = 1;
	w->wtime_null = !all_cols;
	if (!PQgetf(res, i, "@" CORE_SPEC_NAME,
				QUERY_COL_PID, &w->pid, QUERY_COL_BACKEND_START, &w->bs,
				QUERY_COL_BACKEND_TYPE, &w->btype, QUERY_COL_DATID, &w->datid,
				QUERY_COL_USESYSID, &w->usesysid, QUERY_COL_APPNAME, &w->appname,
				QUERY_COL_CLIENT_ADDR, &w->addr, QUERY_COL_STATE, &w->state,
				QUERY_COL_WAIT_TYPE, &w->type, QUERY_COL_WAIT_EVENT, &w->event,
				QUERY_COL_QUERY_ID, &w->query_id, QUERY_COL_LEADER_PID, &w->leader,
				QUERY_COL_HIDDEN, &w->hidden) ||
		(all_cols && !PQgetf(res, i, "%text %int8 %int8", QUERY_COL_QUERY, &w->query,
							 QUERY_COL_COUNT, &w->count, QUERY_COL_WAIT_TIME, &w->wtime)) ||
		(with_query && !PQgetf(res, i, "%text", QUERY_COL_QUERY, &w->query)))
		return false;
	if (PQgetisnull(res, i, QUERY_COL_QUERY_ID))
		w->query_id = 0;
	if (all_cols)
		w->wtime_null = PQgetisnull(res, i, QUERY_COL_WAIT_TIME);
	return true;
}

/* Fill sample row r from row i's columns w. */
static void
fill_row(const rowread_ctx *ctx, PGresult *res, int i, const raw_row *w, rowread_mode mode,
		 sample_row *r)
{
	r->pid = w->pid;
	if (!PQgetisnull(res, i, QUERY_COL_BACKEND_START))
		r->backend_start_us = (int64_t) w->bs.epoch * 1000000 + w->bs.time.usec;
	r->backend_type = strpool_intern(ctx->pool, w->btype);
	r->datname = names_of(ctx->names, &ctx->names->dbs, ctx->sc, ctx->pool, w->datid);
	r->usename = names_of(ctx->names, &ctx->names->roles, ctx->sc, ctx->pool, w->usesysid);
	r->application_name = strpool_intern(ctx->pool, w->appname);
	if (!PQgetisnull(res, i, QUERY_COL_CLIENT_ADDR))
		r->client_addr = addr_text(ctx->pool, &w->addr);
	/* an in-server profile's rows have no state of their own */
	r->state = mode == ROWREAD_SAMPLES ? strpool_intern(ctx->pool, w->state) : NULL;
	r->query_id = w->query_id;
	r->leader_pid = PQgetisnull(res, i, QUERY_COL_LEADER_PID) ? 0 : w->leader;
	r->query = w->query;
	if (mode == ROWREAD_SAMPLES && !w->wtime_null)
		r->wait_time_us = w->wtime;
}

bool
rowread_rows(const rowread_ctx *ctx, PGresult *res, sample_batch *b, rowread_mode mode,
			 char **cause)
{
	int			n = PQntuples(res);

	for (int i = 0; i < n; i++)
	{
		raw_row		w;
		sample_row *r;
		int64_t		dcount = 0,
					dtime = 0;

		if (!get_row(res, i, &w))
		{
			*cause = xasprintf("could not read a sample row: %s", PQgeterror());
			return false;
		}
		if (mode != ROWREAD_SAMPLES)
		{
			rowread_cum *c = cum_get(ctx->cum, w.pid, strpool_intern(ctx->pool, w.type),
									 strpool_intern(ctx->pool, w.event), w.query_id);

			dcount = cum_delta(&c->count, w.count);
			dtime = cum_delta(&c->time_us, w.wtime_null ? 0 : w.wtime);
			if (mode == ROWREAD_BASELINE || (dcount == 0 && dtime == 0))
				continue;
		}
		r = sample_batch_add(b);
		fill_row(ctx, res, i, &w, mode, r);
		if (mode == ROWREAD_SAMPLE_DELTAS)
			r->samples = (uint32_t) (dcount > UINT32_MAX ? UINT32_MAX : dcount);
		else if (mode == ROWREAD_MEASURE_DELTAS)
		{
			r->samples = 0;
			r->measured_us = (uint64_t) dtime;
			r->measured_count = (uint64_t) dcount;
		}
		sample_finish_row(r, ctx->pool, ctx->server_version, w.type, w.event, w.hidden != 0);
		if (r->cls == SAMPLE_HIDDEN)
			b->hidden++;
		if (!PQgetisnull(res, i, QUERY_COL_BLOCKERS) && !read_blockers(res, i, b))
		{
			*cause = xasprintf("could not read the blocking pids: %s", PQgeterror());
			return false;
		}
	}
	return true;
}
