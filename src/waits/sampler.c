/*
 * sampler.c — the connection to the sampled server and the samples read
 * over it.
 */
#include "config.h"

#include "sampler.h"

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pgtempo/clock.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "options.h"

#define SAMPLE_STMT		"pgtempo_waits_sample"
#define MEASURE_STMT	"pgtempo_waits_measure"
#define ROW_SPEC_NAME	"pgtempo_waits_row"
#define CORE_SPEC_NAME	"pgtempo_waits_core"

/*
 * The columns of a sampling statement but the blockers array, read in one
 * PQgetf: all of them, or the ones every statement has (up to
 * QUERY_COL_HIDDEN).
 */
#define CORE_SPEC "%int4 %timestamptz %text %oid %oid %text %inet %text %text %text " \
	"%int8 %int4 %bool"
#define ROW_SPEC CORE_SPEC " %text %int8 %int8"

/* Names older than this are read again, so a renamed database or user shows up. */
#define NAMES_MAX_AGE_NS	(60 * NS_PER_S)

typedef enum read_mode
{
	READ_SAMPLES,				/* one sample per row */
	READ_SAMPLE_DELTAS,			/* pg_wait_sampling: cumulative counts → samples */
	READ_MEASURE_DELTAS,		/* pg_stat_wait_profile: cumulative time and count */
	READ_BASELINE				/* cumulative: remember the counts only */
} read_mode;

/* A copy of libpq's or libpqtypes' message without the trailing newline. */
static char *
trimmed(const char *m)
{
	size_t		n;

	if (m == NULL)
		m = "unknown error";
	n = strlen(m);
	while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' '))
		n--;
	return xstrndup(m, n);
}

/* The server's message for a failed result: the primary text, else libpq's. */
static char *
result_message(const PGresult *res, const PGconn *conn)
{
	const char *m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	if (m != NULL && m[0] != '\0')
		return trimmed(m);
	m = res ? PQresultErrorMessage(res) : NULL;
	if (m != NULL && m[0] != '\0')
		return trimmed(m);
	return trimmed(PQerrorMessage(conn));
}

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
static sampler_cum *
cum_get(sampler_cums *c, int32_t pid, const char *type, const char *event, int64_t query_id)
{
	size_t		j;

	if (c->cap == 0 || (c->n + 1) * 2 > c->cap)
	{
		size_t		ncap = c->cap ? c->cap * 2 : 256;
		sampler_cum *nc = xcalloc(ncap, sizeof(sampler_cum));

		for (size_t i = 0; i < c->cap; i++)
		{
			sampler_cum *o = &c->cells[i];

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
		sampler_cum *o = &c->cells[j];

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

/* ---------------------------------------------------------------- names by oid */

/* The slot of oid: its entry, or the free slot where it goes. */
static sampler_name *
names_slot(const sampler_names *m, uint32_t oid)
{
	size_t		j = (size_t) (oid * UINT32_C(2654435761)) & (m->cap - 1);

	while (m->slots[j].oid != 0 && m->slots[j].oid != oid)
		j = (j + 1) & (m->cap - 1);
	return &m->slots[j];
}

/* Set the name of oid (NULL: it has none). */
static void
names_put(sampler_names *m, uint32_t oid, const char *name)
{
	sampler_name *slot;

	if (m->cap == 0 || (m->n + 1) * 2 > m->cap)
	{
		sampler_names bigger;

		bigger.cap = m->cap ? m->cap * 2 : 64;
		bigger.n = 0;
		bigger.slots = xcalloc(bigger.cap, sizeof(sampler_name));
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].oid != 0)
				*names_slot(&bigger, m->slots[i].oid) = m->slots[i];
		bigger.n = m->n;
		free(m->slots);
		*m = bigger;
	}
	slot = names_slot(m, oid);
	if (slot->oid == 0)
	{
		slot->oid = oid;
		m->n++;
	}
	slot->name = name;
}

/* Is oid known?  Its name (maybe NULL) in *name if so. */
static bool
names_get(const sampler_names *m, uint32_t oid, const char **name)
{
	const sampler_name *slot;

	if (m->n == 0)
		return false;
	slot = names_slot(m, oid);
	*name = slot->name;
	return slot->oid != 0;
}

static void
names_clear(sampler_names *m)
{
	if (m->cap > 0)
		memset(m->slots, 0, m->cap * sizeof(sampler_name));
	m->n = 0;
}

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

/* ---------------------------------------------------------------- statements */

/* How long the statement sent now may take: see SAMPLER_STATEMENT_TIMEOUT_NS. */
static uint64_t
statement_deadline(const sampler *sm)
{
	uint64_t	deadline = sm->sent_ns + SAMPLER_STATEMENT_TIMEOUT_NS;

	if (sm->end_ns < deadline)
		deadline = sm->end_ns;
	if (deadline < sm->sent_ns + SAMPLER_MIN_WAIT_NS)
		deadline = sm->sent_ns + SAMPLER_MIN_WAIT_NS;
	return deadline;
}

/*
 * Close the connection (the last result stays: its rows may be being
 * read).  A statement still in flight did not answer in time: cancel it
 * first.
 */
static void
drop_conn(sampler *sm)
{
	if (sm->param != NULL)
		PQparamClear(sm->param);
	sm->param = NULL;
	conn_abandon(sm->conn, SAMPLER_CANCEL_NS);
	sm->conn = NULL;
}

/* The server did not answer in time: cancel, drop the connection, say why. */
static sampler_status
give_up_statement(sampler *sm)
{
	free(sm->last_error);
	sm->last_error = xasprintf("no answer from the server for %.1f s",
							   (double) (clock_now_ns() - sm->sent_ns) / 1e9);
	drop_conn(sm);
	return SAMPLER_LOST;
}

/*
 * Wait for the result of the statement in flight; *out is NULL unless
 * SAMPLER_OK.  Never past the statement's deadline: then the connection
 * is dropped (SAMPLER_LOST).
 */
static sampler_status
await_result(sampler *sm, PGresult **out)
{
	PGconn	   *conn = sm->conn;
	PGresult   *res = NULL;
	ExecStatusType st;
	uint64_t	deadline = statement_deadline(sm);
	conn_wait	w = conn_await(conn, deadline, sm->stop);

	*out = NULL;
	if (w == CONN_WAIT_STOPPED)
	{
		/* a stop request: a server that answers gets a moment to, to end on a whole sample */
		uint64_t	grace = clock_now_ns() + SAMPLER_MIN_WAIT_NS;

		deadline = grace < deadline ? grace : deadline;
		w = conn_await(conn, deadline, NULL);
	}
	if (w == CONN_WAIT_READY)
		w = conn_result(conn, deadline, NULL, &res);
	if (w == CONN_WAIT_LOST && res != NULL)
	{
		/* the server said why before it went ("terminating connection ...") */
		free(sm->last_error);
		sm->last_error = result_message(res, conn);
		PQclear(res);
		return SAMPLER_LOST;
	}
	PQclear(w == CONN_WAIT_READY ? NULL : res);
	if (w == CONN_WAIT_TIMEOUT || w == CONN_WAIT_STOPPED)
		return give_up_statement(sm);
	if (w == CONN_WAIT_LOST)
	{
		free(sm->last_error);
		sm->last_error = conn_error(conn);
		return SAMPLER_LOST;
	}
	st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
	{
		*out = res;
		return SAMPLER_OK;
	}
	free(sm->last_error);
	sm->last_error = result_message(res, conn);
	PQclear(res);
	return PQstatus(conn) == CONNECTION_BAD ? SAMPLER_LOST : SAMPLER_ERROR;
}

/* A statement could not be sent: why, and whether the connection is still there. */
static sampler_status
send_failed(sampler *sm, const char *why)
{
	free(sm->last_error);
	sm->last_error = trimmed(why != NULL && why[0] != '\0' ? why : PQerrorMessage(sm->conn));
	return PQstatus(sm->conn) == CONNECTION_BAD ? SAMPLER_LOST : SAMPLER_ERROR;
}

/*
 * Run a statement with the filter parameters, binary results: the prepared
 * statement named stmt, or the SQL text sql when stmt is NULL.
 */
static sampler_status
run_statement(sampler *sm, const char *stmt, const char *sql, PGresult **out)
{
	*out = NULL;
	if (sm->conn == NULL)
	{
		free(sm->last_error);
		sm->last_error = xstrdup("no connection to the server");
		return SAMPLER_LOST;
	}
	sm->sent_ns = clock_now_ns();
	/* without parameters libpqtypes has nothing to add to libpq */
	if (sm->param == NULL)
	{
		if (stmt != NULL ? !PQsendQueryPrepared(sm->conn, stmt, 0, NULL, NULL, NULL, 1) :
			!PQsendQueryParams(sm->conn, sql, 0, NULL, NULL, NULL, NULL, 1))
			return send_failed(sm, NULL);
	}
	else if (stmt != NULL ? !PQparamSendQueryPrepared(sm->conn, sm->param, stmt, 1) :
			 !PQparamSendQuery(sm->conn, sm->param, sql, 1))
		return send_failed(sm, PQgeterror());
	return await_result(sm, out);
}

/*
 * Run a statement without parameters, binary results, within the
 * statement deadline; NULL with *cause on error.
 */
static PGresult *
exec_simple(sampler *sm, const char *sql, char **cause)
{
	PGresult   *res = NULL;

	if (sm->conn == NULL)
	{
		*cause = xstrdup("no connection to the server");
		return NULL;
	}
	sm->sent_ns = clock_now_ns();
	if (!PQsendQueryParams(sm->conn, sql, 0, NULL, NULL, NULL, NULL, 1))
		send_failed(sm, NULL);
	else if (await_result(sm, &res) == SAMPLER_OK)
		return res;
	*cause = xstrdup(sm->last_error);
	return NULL;
}

/* Read the names of all databases and roles; false with *cause on error. */
static bool
load_names(sampler *sm, char **cause)
{
	PGresult   *res = exec_simple(sm, query_names_sql, cause);

	if (res == NULL)
		return false;
	names_clear(&sm->dbs);
	names_clear(&sm->roles);
	for (int i = 0; i < PQntuples(res); i++)
	{
		PGtext		kind = NULL,
					name = NULL;
		Oid			oid = InvalidOid;

		if (!PQgetf(res, i, "%text %oid %text", 0, &kind, 1, &oid, 2, &name))
		{
			*cause = xasprintf("could not read the database and user names: %s", PQgeterror());
			PQclear(res);
			return false;
		}
		if (oid != InvalidOid && kind != NULL)
			names_put(kind[0] == 'd' ? &sm->dbs : &sm->roles, oid,
					  strpool_intern(sm->pool, name));
	}
	PQclear(res);
	sm->names_loaded_ns = clock_now_ns();
	return true;
}

/*
 * The name of a database or role: from the cache, else from the catalogs
 * read again (it is new).  An oid the catalogs do not have (dropped) has
 * no name, as in pg_stat_activity, and is not looked up again until the
 * next refresh.
 */
static const char *
name_of(sampler *sm, sampler_names *m, Oid oid)
{
	const char *name = NULL;
	char	   *cause = NULL;

	if (oid == InvalidOid)
		return NULL;
	if (names_get(m, oid, &name))
		return name;
	if (!load_names(sm, &cause))
	{
		/* the sample itself went through; the name stays unknown until the next refresh */
		msg_warning("%s", cause);
		free(cause);
	}
	if (names_get(m, oid, &name))
		return name;
	names_put(m, oid, NULL);
	return NULL;
}

/* Read the names again if they are older than a minute. */
bool
sampler_refresh_names(sampler *sm, char **cause)
{
	if (sm->conn == NULL || clock_now_ns() - sm->names_loaded_ns < NAMES_MAX_AGE_NS)
		return true;
	return load_names(sm, cause);
}

/* The text of a client address as pg_stat_activity shows it ("192.0.2.1", "::1"), interned. */
static const char *
addr_text(sampler *sm, const PGinet *in)
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
	return strpool_intern(sm->pool, host);
}

/* A text[] parameter from a string list. */
static bool
put_text_array(sampler *sm, const waits_strlist *l)
{
	PGarray		arr;
	bool		ok = true;

	memset(&arr, 0, sizeof(arr));
	arr.param = PQparamCreate(sm->conn);
	if (arr.param == NULL)
		return false;
	for (int i = 0; i < l->n && ok; i++)
		ok = PQputf(arr.param, "%text", l->v[i]) != 0;
	ok = ok && PQputf(sm->param, "%text[]", &arr) != 0;
	PQparamClear(arr.param);
	return ok;
}

/* What the statements must do for the run's options. */
static void
set_opts(sampler *sm)
{
	const waits_settings *s = sm->s;

	memset(&sm->opts, 0, sizeof(sm->opts));
	sm->opts.pids = s->npids > 0;
	sm->opts.dbs = s->dbs.n > 0;
	sm->opts.users = s->users.n > 0;
	sm->opts.apps = s->apps.n > 0;
	sm->opts.backend_types = s->backend_types.n > 0;
	for (int i = 0; i < s->backend_types.n; i++)
		if (strcmp(s->backend_types.v[i], OPTIONS_OTHER_BACKEND_TYPE) == 0)
			sm->opts.backend_type_other = true;
	sm->opts.omit = query_omit_for(s);
	sm->opts.include_idle = s->include_idle;
	sm->opts.query_text = s->query_text > 0;
}

/*
 * The statement parameters: the values of the filters in use and the
 * query text length, in query_params' order.  None (sm->param NULL) in
 * the common case of no filters.
 */
static bool
build_params(sampler *sm, char **cause)
{
	const waits_settings *s = sm->s;
	query_params p;
	bool		ok = true;

	if (sm->param != NULL)
		PQparamClear(sm->param);
	sm->param = NULL;
	query_number_params(&sm->opts, &p);
	if (p.n == 0)
		return true;
	sm->param = PQparamCreate(sm->conn);
	if (sm->param == NULL)
	{
		*cause = trimmed(PQgeterror());
		return false;
	}
	if (p.pids > 0)
	{
		PGarray		arr;

		memset(&arr, 0, sizeof(arr));
		arr.param = PQparamCreate(sm->conn);
		ok = arr.param != NULL;
		for (int i = 0; i < s->npids && ok; i++)
			ok = PQputf(arr.param, "%int4", s->pids[i]) != 0;
		ok = ok && PQputf(sm->param, "%int4[]", &arr) != 0;
		if (arr.param != NULL)
			PQparamClear(arr.param);
	}
	ok = ok && (p.dbs == 0 || put_text_array(sm, &s->dbs)) &&
		(p.users == 0 || put_text_array(sm, &s->users)) &&
		(p.apps == 0 || put_text_array(sm, &s->apps)) &&
		(p.backend_types == 0 || put_text_array(sm, &s->backend_types)) &&
		(p.query_len == 0 || PQputf(sm->param, "%int4", s->query_text) != 0);
	if (!ok)
		*cause = xasprintf("could not build the statement parameters: %s", PQgeterror());
	return ok;
}

/* Prepare a statement; false with *cause on error. */
static bool
prepare(sampler *sm, const char *name, const char *sql, char **cause)
{
	PGresult   *res = NULL;

	sm->sent_ns = clock_now_ns();
	if (!PQsendPrepare(sm->conn, name, sql, 0, NULL))
		send_failed(sm, NULL);
	else if (await_result(sm, &res) == SAMPLER_OK)
	{
		PQclear(res);
		return true;
	}
	*cause = xasprintf("could not prepare the sampling statement: %s", sm->last_error);
	return false;
}

/* ---------------------------------------------------------------- reading rows */

/* Warn once that rows are hidden, naming the role that would show them. */
static void
warn_hidden(sampler *sm, int n)
{
	if (sm->hidden_warned)
		return;
	sm->hidden_warned = true;
	if (sm->caps.read_all_stats_role)
	{
		msg_warning("%d session%s of other users %s hidden as <insufficient privilege>: "
					"user \"%s\" needs the pg_read_all_stats role to see their wait events",
					n, n == 1 ? "" : "s", n == 1 ? "is" : "are", sm->current_user);
		msg_hint("GRANT pg_read_all_stats TO \"%s\";", sm->current_user);
	}
	else
		msg_warning("%d session%s of other users %s hidden as <insufficient privilege>: "
					"only a superuser sees their wait events on this server version",
					n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
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

/* Turn the rows of res into sample rows of b, the way mode says. */
static bool
read_rows(sampler *sm, PGresult *res, sample_batch *b, read_mode mode, char **cause)
{
	int			n = PQntuples(res);
	int			nf = PQnfields(res);
	/* a statement may end after the hidden flag, or after the query text */
	bool		all_cols = nf >= QUERY_NCOLS;
	bool		with_query = !all_cols && nf > QUERY_COL_QUERY;

	for (int i = 0; i < n; i++)
	{
		PGint4		pid = 0,
					leader = 0;
		PGtimestamp bs;
		Oid			datid = InvalidOid,
					usesysid = InvalidOid;
		PGinet		addr;
		PGtext		btype = NULL,
					appname = NULL,
					state = NULL,
					type = NULL,
					event = NULL,
					query = NULL;
		PGint8		query_id = 0,
					count = 1,
					wtime = 0;
		PGbool		hidden = 0;
		bool		wtime_null = !all_cols;
		sample_row *r;
		int64_t		dcount = 0,
					dtime = 0;

		if (all_cols ?
			!PQgetf(res, i, "@" ROW_SPEC_NAME,
					QUERY_COL_PID, &pid, QUERY_COL_BACKEND_START, &bs,
					QUERY_COL_BACKEND_TYPE, &btype, QUERY_COL_DATID, &datid,
					QUERY_COL_USESYSID, &usesysid, QUERY_COL_APPNAME, &appname,
					QUERY_COL_CLIENT_ADDR, &addr, QUERY_COL_STATE, &state,
					QUERY_COL_WAIT_TYPE, &type, QUERY_COL_WAIT_EVENT, &event,
					QUERY_COL_QUERY_ID, &query_id, QUERY_COL_LEADER_PID, &leader,
					QUERY_COL_HIDDEN, &hidden, QUERY_COL_QUERY, &query,
					QUERY_COL_COUNT, &count, QUERY_COL_WAIT_TIME, &wtime) :
			!PQgetf(res, i, "@" CORE_SPEC_NAME,
					QUERY_COL_PID, &pid, QUERY_COL_BACKEND_START, &bs,
					QUERY_COL_BACKEND_TYPE, &btype, QUERY_COL_DATID, &datid,
					QUERY_COL_USESYSID, &usesysid, QUERY_COL_APPNAME, &appname,
					QUERY_COL_CLIENT_ADDR, &addr, QUERY_COL_STATE, &state,
					QUERY_COL_WAIT_TYPE, &type, QUERY_COL_WAIT_EVENT, &event,
					QUERY_COL_QUERY_ID, &query_id, QUERY_COL_LEADER_PID, &leader,
					QUERY_COL_HIDDEN, &hidden) ||
			(with_query && !PQgetf(res, i, "%text", QUERY_COL_QUERY, &query)))
		{
			*cause = xasprintf("could not read a sample row: %s", PQgeterror());
			return false;
		}
		if (PQgetisnull(res, i, QUERY_COL_QUERY_ID))
			query_id = 0;
		if (all_cols)
			wtime_null = PQgetisnull(res, i, QUERY_COL_WAIT_TIME);

		if (mode != READ_SAMPLES)
		{
			sampler_cum *c = cum_get(&sm->cum, pid, strpool_intern(sm->pool, type),
									 strpool_intern(sm->pool, event), query_id);

			dcount = cum_delta(&c->count, count);
			dtime = cum_delta(&c->time_us, wtime_null ? 0 : wtime);
			if (mode == READ_BASELINE || (dcount == 0 && dtime == 0))
				continue;
		}

		r = sample_batch_add(b);
		r->pid = pid;
		if (!PQgetisnull(res, i, QUERY_COL_BACKEND_START))
			r->backend_start_us = (int64_t) bs.epoch * 1000000 + bs.time.usec;
		r->backend_type = strpool_intern(sm->pool, btype);
		r->datname = name_of(sm, &sm->dbs, datid);
		r->usename = name_of(sm, &sm->roles, usesysid);
		r->application_name = strpool_intern(sm->pool, appname);
		if (!PQgetisnull(res, i, QUERY_COL_CLIENT_ADDR))
			r->client_addr = addr_text(sm, &addr);
		/* an in-server profile's rows have no state of their own */
		r->state = mode == READ_SAMPLES ? strpool_intern(sm->pool, state) : NULL;
		r->query_id = query_id;
		r->leader_pid = PQgetisnull(res, i, QUERY_COL_LEADER_PID) ? 0 : leader;
		r->query = query;
		if (mode == READ_SAMPLES && !wtime_null)
			r->wait_time_us = wtime;
		if (mode == READ_SAMPLE_DELTAS)
			r->samples = (uint32_t) (dcount > UINT32_MAX ? UINT32_MAX : dcount);
		else if (mode == READ_MEASURE_DELTAS)
		{
			r->samples = 0;
			r->measured_us = (uint64_t) dtime;
			r->measured_count = (uint64_t) dcount;
		}
		sample_finish_row(r, sm->pool, sm->caps.server_version, type, event, hidden != 0);
		if (r->cls == SAMPLE_HIDDEN)
		{
			b->hidden++;
			sm->hidden_rows++;
		}
		if (!PQgetisnull(res, i, QUERY_COL_BLOCKERS) && !read_blockers(res, i, b))
		{
			*cause = xasprintf("could not read the blocking pids: %s", PQgeterror());
			return false;
		}
	}
	if (b->hidden > 0)
		warn_hidden(sm, b->hidden);
	return true;
}

/* ---------------------------------------------------------------- setting up */

/* Load pg_wait_events (17+) once: descriptions for the report. */
static void
load_descriptions(sampler *sm)
{
	PGresult   *res;
	char	   *cause = NULL;

	if (!sm->caps.wait_events_view || sm->ndescs > 0)
		return;
	res = exec_simple(sm, query_wait_events_sql, &cause);
	if (res == NULL)
	{
		/* descriptions are a nicety: say so and go on */
		msg_warning("could not read pg_wait_events: %s", cause);
		free(cause);
		return;
	}
	sm->descs = xcalloc((size_t) PQntuples(res) + 1, sizeof(sampler_desc));
	for (int i = 0; i < PQntuples(res); i++)
	{
		const char *type = PQgetvalue(res, i, 0);
		const char *event = PQgetvalue(res, i, 1);

		sample_normalize_event(sm->caps.server_version, &type, &event);
		sm->descs[sm->ndescs].type = strpool_intern(sm->pool, type);
		sm->descs[sm->ndescs].event = strpool_intern(sm->pool, event);
		sm->descs[sm->ndescs].description = strpool_intern(sm->pool, PQgetvalue(res, i, 2));
		sm->ndescs++;
	}
	PQclear(res);
}

/* The server's description of an event, from pg_wait_events. */
const char *
sampler_describe(const sampler *sm, const char *type, const char *event)
{
	for (int i = 0; i < sm->ndescs; i++)
		if (sm->descs[i].type == type && sm->descs[i].event == event)
			return sm->descs[i].description;
	return NULL;
}

/* Is pg_wait_sampling usable (its library loaded)?  false with *cause if not. */
static bool
probe_pws(sampler *sm, char **cause)
{
	PGresult   *res = exec_simple(sm, query_pws_probe_sql, cause);

	if (res == NULL)
		return false;
	PQclear(res);
	return true;
}

/* pg_wait_sampling's profile period in seconds (its default is 10 ms). */
static double
pws_period(sampler *sm)
{
	char	   *cause = NULL;
	PGresult   *res = exec_simple(sm, query_pws_period_sql, &cause);
	double		ms = 10;
	PGtext		v = NULL;

	if (res == NULL)
		free(cause);
	else
	{
		if (PQntuples(res) == 1 && PQgetf(res, 0, "%text", 0, &v) && v != NULL && atof(v) > 0)
			ms = atof(v);
		PQclear(res);
	}
	return ms / 1000.0;
}

/* Choose the source: the one asked for, or the best one the server has. */
static bool
choose_source(sampler *sm, const char *pws_version, bool have_psw, char **cause)
{
	char	   *why = NULL;
	waits_source want = sm->source;

	if (want == WAITS_SOURCE_AUTO)
	{
		if (have_psw)
			want = WAITS_SOURCE_PG_STAT_WAIT;
		else if (pws_version != NULL && probe_pws(sm, &why))
			want = WAITS_SOURCE_PG_WAIT_SAMPLING;
		else
		{
			if (why != NULL)
			{
				msg_warning("extension pg_wait_sampling is installed but cannot be read: %s", why);
				msg_detail("Sampling pg_stat_activity instead.");
				msg_hint("pg_wait_sampling must be in shared_preload_libraries.");
				free(why);
			}
			want = WAITS_SOURCE_ACTIVITY;
		}
	}
	else if (want == WAITS_SOURCE_PG_STAT_WAIT && !have_psw)
	{
		*cause = xstrdup("source pg_stat_wait: the views pg_stat_wait_current and "
						 "pg_stat_wait_profile do not exist in this database");
		return false;
	}
	else if (want == WAITS_SOURCE_PG_WAIT_SAMPLING)
	{
		if (pws_version == NULL)
		{
			*cause = xstrdup("source pg_wait_sampling: the extension pg_wait_sampling is not "
							 "installed in this database (CREATE EXTENSION pg_wait_sampling; it "
							 "must also be in shared_preload_libraries)");
			return false;
		}
		if (!probe_pws(sm, &why))
		{
			*cause = xasprintf("source pg_wait_sampling: the extension cannot be read: %s "
							   "(is it in shared_preload_libraries?)", why);
			free(why);
			return false;
		}
	}

	sm->source = want;
	/* pg_wait_sampling samples by itself: reading its profile once a second will do */
	sm->interval_ns = (uint64_t) sm->s->interval_ns;
	if (want == WAITS_SOURCE_PG_WAIT_SAMPLING && !sm->s->interval_given)
		sm->interval_ns = WAITS_DEFAULT_SERVER_SOURCE_INTERVAL_NS;
	free(sm->source_detail);
	switch (want)
	{
		case WAITS_SOURCE_PG_WAIT_SAMPLING:
			sm->period_s = pws_period(sm);
			sm->source_detail = xasprintf("pg_wait_sampling %s (profile period %.0f ms)",
										  pws_version, sm->period_s * 1000);
			break;
		case WAITS_SOURCE_PG_STAT_WAIT:
			sm->period_s = (double) sm->interval_ns / 1e9;
			sm->source_detail = xstrdup("pg_stat_wait views");
			break;
		default:
			sm->period_s = (double) sm->interval_ns / 1e9;
			sm->source_detail = xstrdup("pg_stat_activity");
			break;
	}
	return true;
}

/* May we read our backend's /proc entry (a server on this host)? */
static bool
backend_is_local(const sampler *sm)
{
	const char *host = PQhost(sm->conn);
	char		path[64],
				comm[64] = "";
	FILE	   *f;

	if (host == NULL || !(host[0] == '/' || host[0] == '@' || strcmp(host, "localhost") == 0 ||
						  strcmp(host, "127.0.0.1") == 0 || strcmp(host, "::1") == 0))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", sm->backend_pid);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	if (fgets(comm, sizeof(comm), f) == NULL)
		comm[0] = '\0';
	fclose(f);
	return strncmp(comm, "postgres", 8) == 0;
}

/*
 * Our backend's CPU seconds from /proc, when the server is on this host:
 * schedstat's run time in ns where the kernel has it, else stat's utime
 * and stime, which come in clock ticks (10 ms: coarse over a short run).
 */
double
sampler_backend_cpu_s(const sampler *sm)
{
	char		path[64],
				buf[1024];
	FILE	   *f;
	size_t		n;
	char	   *p;
	unsigned long long utime,
				stime,
				run_ns;

	if (!sm->backend_local || sm->conn == NULL)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/schedstat", sm->backend_pid);
	if ((f = fopen(path, "r")) != NULL)
	{
		int			got = fscanf(f, "%llu", &run_ns);

		fclose(f);
		/* 0 when the kernel keeps no schedule statistics */
		if (got == 1 && run_ns > 0)
			return (double) run_ns / 1e9;
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", sm->backend_pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* fields after the command name, which is in parentheses and may hold spaces */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			   &utime, &stime) != 2)
		return -1;
	return (double) (utime + stime) / (double) sysconf(_SC_CLK_TCK);
}

/* A pg_stat_wait_history that cannot be read stays so: say it once, and sample on without it. */
static void
give_up_history(sampler *sm, const char *why)
{
	msg_warning("could not read pg_stat_wait_history: %s", why);
	msg_detail("Reporting the samples and pg_stat_wait_profile without it.");
	sm->history = false;
}

/* Everything a fresh connection needs before it can sample. */
static bool
setup(sampler *sm, char **cause)
{
	PGregisterType oid_type = {"pg_catalog.oid", oid_put, oid_get};
	PGresult   *res;
	PGint4		version = 0;
	PGtext		pws_version = NULL,
				user = NULL;
	PGbool		have_psw = 0,
				have_history = 0;
	strbuf		sql;
	bool		ok;
	const char *v;
	char	   *pws_copy;

	if (!PQinitTypes(sm->conn))
	{
		*cause = xasprintf("could not initialize libpqtypes: %s", PQgeterror());
		return false;
	}
	/* asynchronously: the lookup is a statement, and must not wait past its deadline */
	sm->sent_ns = clock_now_ns();
	if (!PQregisterTypes(sm->conn, PQT_USERDEFINED, &oid_type, 1, 1))
	{
		*cause = xasprintf("could not register the oid type: %s", PQgeterror());
		return false;
	}
	if (await_result(sm, &res) != SAMPLER_OK)
	{
		*cause = xasprintf("could not register the oid type: %s", sm->last_error);
		return false;
	}
	ok = PQregisterResult(sm->conn, PQT_USERDEFINED, &oid_type, 1, res) != 0;
	PQclear(res);
	if (!ok)
	{
		*cause = xasprintf("could not register the oid type: %s", PQgeterror());
		return false;
	}
	if (!PQspecPrepare(sm->conn, ROW_SPEC_NAME, ROW_SPEC, 0) ||
		!PQspecPrepare(sm->conn, CORE_SPEC_NAME, CORE_SPEC, 0))
	{
		*cause = xasprintf("could not prepare the row specifier: %s", PQgeterror());
		return false;
	}
	if ((res = exec_simple(sm, query_detect_sql, cause)) == NULL)
		return false;
	if (!PQgetf(res, 0, "%int4 %text %bool %text %bool", 0, &version, 1, &pws_version,
				2, &have_psw, 3, &user, 4, &have_history))
	{
		*cause = xasprintf("could not read the server's capabilities: %s", PQgeterror());
		PQclear(res);
		return false;
	}
	if (version < QUERY_MIN_SERVER_VERSION)
	{
		*cause = xasprintf("server version %d.%d is not supported: pgtempo-waits needs "
						   "PostgreSQL 9.6 or later (wait events in pg_stat_activity)",
						   version / 10000, version / 100 % 100);
		PQclear(res);
		return false;
	}
	query_caps_init(&sm->caps, version);
	free(sm->current_user);
	sm->current_user = xstrdup(user ? user : "");
	pws_copy = pws_version ? xstrdup(pws_version) : NULL;
	PQclear(res);
	v = PQparameterStatus(sm->conn, "server_version");
	free(sm->server_version);
	sm->server_version = xstrdup(v ? v : "?");
	free(sm->label);
	sm->label = xasprintf("%s:%s", PQhost(sm->conn), PQport(sm->conn));
	sm->backend_pid = PQbackendPID(sm->conn);
	sm->backend_local = backend_is_local(sm);

	ok = choose_source(sm, pws_copy, have_psw != 0, cause);
	free(pws_copy);
	if (!ok)
		return false;
	sm->history = sm->source == WAITS_SOURCE_PG_STAT_WAIT && have_history;

	if (!load_names(sm, cause))
		return false;
	set_opts(sm);
	strbuf_init(&sql);
	switch (sm->source)
	{
		case WAITS_SOURCE_PG_WAIT_SAMPLING:
			query_pg_wait_sampling_sql(&sql, &sm->caps, &sm->opts);
			break;
		case WAITS_SOURCE_PG_STAT_WAIT:
			query_pg_stat_wait_current_sql(&sql, &sm->caps, &sm->opts);
			break;
		default:
			query_activity_sql(&sql, &sm->caps, &sm->opts);
			break;
	}
	ok = prepare(sm, SAMPLE_STMT, sql.data, cause);
	if (ok && sm->source == WAITS_SOURCE_PG_STAT_WAIT)
	{
		strbuf_reset(&sql);
		query_pg_stat_wait_profile_sql(&sql, &sm->caps, &sm->opts);
		ok = prepare(sm, MEASURE_STMT, sql.data, cause);
	}
	strbuf_free(&sql);
	if (!ok || !build_params(sm, cause))
		return false;
	load_descriptions(sm);

	/* the in-server profiles count from long ago: only what comes from now on is ours */
	if (!sm->cum.baseline && sm->source != WAITS_SOURCE_ACTIVITY)
	{
		sample_batch b;
		sampler_status st;
		PGresult   *r = NULL;

		sample_batch_init(&b);
		st = run_statement(sm, sm->source == WAITS_SOURCE_PG_STAT_WAIT ? MEASURE_STMT : SAMPLE_STMT,
						   NULL, &r);
		ok = st == SAMPLER_OK && read_rows(sm, r, &b, READ_BASELINE, cause);
		if (st != SAMPLER_OK)
			*cause = xasprintf("could not read the server's wait profile: %s", sm->last_error);
		PQclear(r);
		sample_batch_free(&b);
		if (!ok)
			return false;
		sm->cum.baseline = true;
	}
	/* the same for the history: only waits recorded from now on */
	if (sm->history && !sm->history_baseline)
	{
		char	   *why = NULL;
		PGresult   *r = exec_simple(sm, query_pg_stat_wait_history_last_sql, &why);
		PGint8		last = -1;

		if (r != NULL && !PQgetisnull(r, 0, 0) && !PQgetf(r, 0, "%int8", 0, &last))
			why = xstrdup(PQgeterror());
		PQclear(r);
		if (why != NULL)
			give_up_history(sm, why);
		free(why);
		sm->history_since_us = last;
		sm->history_baseline = true;
	}
	return true;
}

/* The first connection: prompts for a password if needed; any failure ends the run. */
bool
sampler_open(sampler *sm, const waits_settings *s, strpool *pool,
			 volatile sig_atomic_t *stop, char **cause)
{
	uint64_t	give_up;

	memset(sm, 0, sizeof(*sm));
	sm->s = s;
	sm->pool = pool;
	sm->stop = stop;
	sm->source = s->source;
	hist_init(&sm->latency);
	/*
	 * Connecting and setting up are bounded by the connect timeout, not by
	 * -T: a short -T on a busy host must still get its connection.
	 */
	give_up = clock_now_ns() + SAMPLER_CONNECT_TIMEOUT_NS;
	sm->end_ns = give_up;
	sm->conn = conn_connect(&s->conn, give_up, stop, cause);
	if (sm->conn == NULL)
		return false;
	if (!setup(sm, cause))
	{
		sampler_disconnect(sm);
		return false;
	}
	return true;
}

/* Connect again without blocking past give_up_ns or a stop request. */
bool
sampler_reconnect(sampler *sm, uint64_t give_up_ns, char **cause)
{
	sm->conn = conn_connect(&sm->s->conn, give_up_ns, sm->stop, cause);
	if (sm->conn == NULL)
		return false;
	if (!setup(sm, cause))
	{
		sampler_disconnect(sm);
		return false;
	}
	return true;
}

/* Free the last result (the rows' query texts point into it). */
void
sampler_release(sampler *sm)
{
	PQclear(sm->res);
	sm->res = NULL;
}

/* Drop the connection; counters and caches stay for the next one. */
void
sampler_disconnect(sampler *sm)
{
	sampler_release(sm);
	drop_conn(sm);
}

/* Free everything. */
void
sampler_close(sampler *sm)
{
	sampler_disconnect(sm);
	free(sm->cum.cells);
	free(sm->dbs.slots);
	free(sm->roles.slots);
	free(sm->descs);
	free(sm->source_detail);
	free(sm->server_version);
	free(sm->current_user);
	free(sm->label);
	free(sm->last_error);
	memset(sm, 0, sizeof(*sm));
}

/* Run a statement and read its rows in the given mode. */
static sampler_status
sample_with(sampler *sm, const char *stmt, read_mode mode, sample_batch *b, uint64_t ts_us)
{
	uint64_t	t0 = clock_now_ns();
	sampler_status st;
	char	   *cause = NULL;

	sampler_release(sm);
	sample_batch_reset(b, ts_us);
	st = run_statement(sm, stmt, NULL, &sm->res);
	if (st == SAMPLER_OK && !read_rows(sm, sm->res, b, mode, &cause))
	{
		free(sm->last_error);
		sm->last_error = cause;
		st = SAMPLER_ERROR;
	}
	/* a name lookup while reading the rows may have found the server gone */
	if (st == SAMPLER_OK && (sm->conn == NULL || PQstatus(sm->conn) == CONNECTION_BAD))
		st = SAMPLER_LOST;
	if (st == SAMPLER_ERROR)
		sm->failed++;
	if (st == SAMPLER_OK && mode != READ_MEASURE_DELTAS)
	{
		hist_record(&sm->latency, clock_now_ns() - t0);
		sm->samples++;
	}
	return st;
}

/* Take the sample of one tick. */
sampler_status
sampler_sample(sampler *sm, sample_batch *b, uint64_t ts_us)
{
	read_mode	mode = sm->source == WAITS_SOURCE_PG_WAIT_SAMPLING ?
		READ_SAMPLE_DELTAS : READ_SAMPLES;

	return sample_with(sm, SAMPLE_STMT, mode, b, ts_us);
}

/* pg_stat_wait_history: the waits recorded since the last call, oldest first. */
sampler_status
sampler_history(sampler *sm, sampler_wait_fn fn, void *arg)
{
	strbuf		sql;
	PGresult   *res = NULL;
	sampler_status st;

	if (!sm->history)
		return SAMPLER_OK;
	strbuf_init(&sql);
	query_pg_stat_wait_history_sql(&sql, &sm->caps, &sm->opts, sm->history_since_us);
	st = run_statement(sm, NULL, sql.data, &res);
	strbuf_free(&sql);
	for (int i = 0; st == SAMPLER_OK && i < PQntuples(res); i++)
	{
		PGtext		type = NULL,
					event = NULL;
		PGint8		wait_us = 0,
					ts_us = 0;

		if (!PQgetf(res, i, "%text %text %int8 %int8", 0, &type, 1, &event, 2, &wait_us,
					3, &ts_us))
		{
			free(sm->last_error);
			sm->last_error = xasprintf("could not read a row of pg_stat_wait_history: %s",
									   PQgeterror());
			st = SAMPLER_ERROR;
			break;
		}
		if (ts_us > sm->history_since_us)
			sm->history_since_us = ts_us;
		fn(arg, type != NULL ? strpool_intern(sm->pool, type) : NULL,
		   event != NULL ? strpool_intern(sm->pool, event) : NULL,
		   wait_us > 0 ? (uint64_t) wait_us : 0);
	}
	if (st == SAMPLER_ERROR)
		give_up_history(sm, sm->last_error);
	PQclear(res);
	return st;
}

/* pg_stat_wait: the measured time and counts added since the last call. */
sampler_status
sampler_measure(sampler *sm, sample_batch *b, uint64_t ts_us)
{
	if (sm->source != WAITS_SOURCE_PG_STAT_WAIT)
	{
		sample_batch_reset(b, ts_us);
		return SAMPLER_OK;
	}
	return sample_with(sm, MEASURE_STMT, READ_MEASURE_DELTAS, b, ts_us);
}
