/*
 * rowread.c — sampling statements' rows into sample batches.
 */
#include "config.h"

#include "rowread.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

#include "pqbin.h"
#include "query.h"

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

bool
rowread_setup(stmt_conn *sc, char **cause)
{
	PGresult   *res;
	sampler_status st;
	bool		sent = false,
				ok;

	/* asynchronously: the setup is a statement, and must not wait past its deadline */
	sc->sent_ns = clock_now_ns();
	if (!pqbin->setup_send(sc->conn, &sent, cause))
		return false;
	if (!sent)
		return true;
	st = stmt_await(sc, &res);
	if (st != SAMPLER_OK && st != SAMPLER_ERROR)
	{
		*cause = xasprintf("could not set up reading results with %s: %s", pqbin->name,
						   sc->last_error);
		return false;
	}
	ok = pqbin->setup_result(sc->conn, res, res == NULL ? sc->last_error : NULL, cause);
	PQclear(res);
	return ok;
}

/* ---------------------------------------------------------------- rows */

/* A blocking pid of the row being read (0: none) into the batch's last row. */
static void
add_blocker(void *arg, int32_t pid)
{
	if (pid != 0)
		sample_batch_add_blocker(arg, pid);
}

/* The columns of one row as read. */
typedef struct raw_row
{
	pqbin_core	c;
	const char *query;
	int64_t		count;
	int64_t		wtime;
	bool		wtime_null;
} raw_row;

/* Read row i; a statement may end after the hidden flag, or after the query text. */
static bool
get_row(PGresult *res, int i, raw_row *w)
{
	int			nf = PQnfields(res);
	bool		all_cols = nf >= QUERY_NCOLS;
	bool		with_query = nf > QUERY_COL_QUERY;

	w->query = NULL;
	w->count = 1;
	w->wtime = 0;
	w->wtime_null = !all_cols;
	if (!pqbin->get_core(res, i, &w->c) ||
		(with_query && !pqbin_get_text(pqbin, res, i, QUERY_COL_QUERY, &w->query)) ||
		(all_cols && (!pqbin_get_int8(pqbin, res, i, QUERY_COL_COUNT, &w->count) ||
					  !pqbin_get_int8(pqbin, res, i, QUERY_COL_WAIT_TIME, &w->wtime))))
		return false;
	if (all_cols)
		w->wtime_null = PQgetisnull(res, i, QUERY_COL_WAIT_TIME);
	return true;
}

/* Fill sample row r from a row's columns w. */
static void
fill_row(const rowread_ctx *ctx, const raw_row *w, rowread_mode mode, sample_row *r)
{
	r->pid = w->c.pid;
	r->backend_start_us = w->c.backend_start_us;
	r->xact_start_us = w->c.xact_start_us;
	r->backend_type = strpool_intern(ctx->pool, w->c.backend_type);
	r->datname = names_of(ctx->names, &ctx->names->dbs, ctx->sc, ctx->pool, w->c.datid);
	r->usename = names_of(ctx->names, &ctx->names->roles, ctx->sc, ctx->pool, w->c.usesysid);
	r->application_name = strpool_intern(ctx->pool, w->c.appname);
	if (w->c.client_addr[0] != '\0')
		r->client_addr = strpool_intern(ctx->pool, w->c.client_addr);
	/* an in-server profile's rows have no state of their own */
	r->state = mode == ROWREAD_SAMPLES ? strpool_intern(ctx->pool, w->c.state) : NULL;
	r->query_id = w->c.query_id;
	r->leader_pid = w->c.leader_pid;
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
			*cause = xasprintf("could not read a sample row: %s", pqbin->error());
			return false;
		}
		if (mode != ROWREAD_SAMPLES)
		{
			rowread_cum *c = cum_get(ctx->cum, w.c.pid, strpool_intern(ctx->pool, w.c.wait_type),
									 strpool_intern(ctx->pool, w.c.wait_event), w.c.query_id);

			dcount = cum_delta(&c->count, w.count);
			dtime = cum_delta(&c->time_us, w.wtime_null ? 0 : w.wtime);
			if (mode == ROWREAD_BASELINE || (dcount == 0 && dtime == 0))
				continue;
		}
		r = sample_batch_add(b);
		fill_row(ctx, &w, mode, r);
		if (mode == ROWREAD_SAMPLE_DELTAS)
			r->samples = (uint32_t) (dcount > UINT32_MAX ? UINT32_MAX : dcount);
		else if (mode == ROWREAD_MEASURE_DELTAS)
		{
			r->samples = 0;
			r->measured_us = (uint64_t) dtime;
			r->measured_count = (uint64_t) dcount;
		}
		sample_finish_row(r, ctx->pool, ctx->server_version, w.c.wait_type, w.c.wait_event,
						  w.c.hidden);
		if (r->cls == SAMPLE_HIDDEN)
			b->hidden++;
		if (!pqbin->get_int4_array(res, i, QUERY_COL_BLOCKERS, add_blocker, b))
		{
			*cause = xasprintf("could not read the blocking pids: %s", pqbin->error());
			return false;
		}
	}
	return true;
}
