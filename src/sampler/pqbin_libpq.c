/*
 * pqbin_libpq.c — binary results read with libpq alone: PostgreSQL's
 * binary formats (the types' *send functions) decoded here.
 */
#include "config.h"

#include "pqbin.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "pgtempo/xalloc.h"

#include "query.h"

/* Type oids of the columns read (pg_type.dat). */
#define BOOLOID			16
#define INT8OID			20
#define INT4OID			23
#define TEXTOID			25
#define OIDOID			26
#define INETOID			869
#define INT4ARRAYOID	1007
#define TIMESTAMPTZOID	1184

/* PostgreSQL's address families in inet's binary form (utils/inet.h). */
#define PGSQL_AF_INET	(AF_INET + 0)
#define PGSQL_AF_INET6	(AF_INET + 1)

/* Microseconds from the Unix epoch to PostgreSQL's, 2000-01-01 00:00 UTC. */
#define PG_EPOCH_US		INT64_C(946684800000000)

/* Why this thread's last read failed. */
static _Thread_local char last_error[160];

/* Say why a read failed; false. */
static bool
fail(const PGresult *res, int col, const char *fmt,...)
{
	va_list		ap;
	int			n;

	n = snprintf(last_error, sizeof(last_error), "column %d (%s): ", col + 1,
				 PQfname(res, col) ? PQfname(res, col) : "?");
	va_start(ap, fmt);
	if (n > 0 && (size_t) n < sizeof(last_error))
		vsnprintf(last_error + n, sizeof(last_error) - (size_t) n, fmt, ap);
	va_end(ap);
	return false;
}

static const char *
lp_error(void)
{
	return last_error;
}

static uint32_t
be32(const unsigned char *b)
{
	return (uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 | (uint32_t) b[2] << 8 | b[3];
}

/*
 * The bytes of a column of type oid, in binary: NULL for a NULL (*v
 * unset), *v and *len otherwise; false when the column is not that.
 */
static bool
column(const PGresult *res, int row, int col, Oid type, const unsigned char **v, int *len)
{
	if (col < 0 || col >= PQnfields(res))
		return fail(res, col, "no such column");
	if (PQftype(res, col) != type)
		return fail(res, col, "type oid %u, not %u", (unsigned) PQftype(res, col),
					(unsigned) type);
	if (PQfformat(res, col) != 1)
		return fail(res, col, "not in binary");
	*v = NULL;
	*len = 0;
	if (PQgetisnull(res, row, col))
		return true;
	*v = (const unsigned char *) PQgetvalue(res, row, col);
	*len = PQgetlength(res, row, col);
	return true;
}

/* A fixed-size column: its bytes or NULL; false when the size is wrong. */
static bool
fixed(const PGresult *res, int row, int col, Oid type, int size, const unsigned char **v)
{
	int			len;

	if (!column(res, row, col, type, v, &len))
		return false;
	if (*v != NULL && len != size)
		return fail(res, col, "%d bytes, not %d", len, size);
	return true;
}

/* An integer of size bytes in network order (0: NULL); false as fixed(). */
static bool
integer(const PGresult *res, int row, int col, Oid type, int size, uint64_t *out)
{
	const unsigned char *v;

	*out = 0;
	if (!fixed(res, row, col, type, size, &v))
		return false;
	for (int i = 0; v != NULL && i < size; i++)
		*out = *out << 8 | v[i];
	return true;
}

/* The scalar types' oids, and their sizes in binary (text: any). */
static const struct
{
	Oid			oid;
	int			size;
}			scalar_types[] = {
	[PQBIN_INT4] = {INT4OID, 4},
	[PQBIN_INT8] = {INT8OID, 8},
	[PQBIN_BOOL] = {BOOLOID, 1},
	[PQBIN_OID] = {OIDOID, 4},
	[PQBIN_TEXT] = {TEXTOID, 0},
};

/*
 * A scalar column into *out (pqbin_store): an integer of its type's size,
 * or text, whose binary form is its characters (libpq ends every value
 * with a NUL); 0 or NULL for a NULL, and when it is not of that type.
 */
static bool
scalar(const PGresult *res, int row, int col, pqbin_type type, void *out)
{
	const unsigned char *v = NULL;
	uint64_t	n = 0;
	int			len;
	bool		ok = type == PQBIN_TEXT ?
		column(res, row, col, scalar_types[type].oid, &v, &len) :
		integer(res, row, col, scalar_types[type].oid, scalar_types[type].size, &n);

	pqbin_store(type, out, (int64_t) n, ok ? (const char *) v : NULL);
	return ok;
}

/* timestamptz: µs since 2000-01-01 UTC (integer datetimes, PostgreSQL 8.4 on). */
static bool
timestamptz(const PGresult *res, int row, int col, int64_t *out)
{
	uint64_t	v;

	*out = INT64_MIN;
	if (!integer(res, row, col, TIMESTAMPTZOID, 8, &v))
		return false;
	if (!PQgetisnull(res, row, col))
		*out = (int64_t) v + PG_EPOCH_US;
	return true;
}

/* inet: family, bits, is_cidr, address length, address; as text ("" for NULL). */
static bool
inet(const PGresult *res, int row, int col, char *out, size_t size)
{
	const unsigned char *v;
	int			len;

	out[0] = '\0';
	if (!column(res, row, col, INETOID, &v, &len))
		return false;
	if (v == NULL)
		return true;
	if (len >= 4 && v[0] == PGSQL_AF_INET && v[3] == 4 && len == 8)
		inet_ntop(AF_INET, v + 4, out, (socklen_t) size);
	else if (len >= 4 && v[0] == PGSQL_AF_INET6 && v[3] == 16 && len == 20)
		inet_ntop(AF_INET6, v + 4, out, (socklen_t) size);
	else
		return fail(res, col, "not an inet address");
	return true;
}

/*
 * int4[]: dimensions, NULL flag, element type, a size and lower bound per
 * dimension, then each element as a length (-1: NULL) and its bytes.
 */
static bool
lp_int4_array(const PGresult *res, int row, int col, pqbin_int4_fn fn, void *arg)
{
	const unsigned char *v,
			   *end;
	int			len;
	uint32_t	ndim;
	uint64_t	n = 1;

	if (!column(res, row, col, INT4ARRAYOID, &v, &len))
		return false;
	if (v == NULL)
		return true;
	end = v + len;
	if (len < 12 || (ndim = be32(v)) > 6 || be32(v + 8) != INT4OID ||
		(size_t) len < 12 + (size_t) ndim * 8)
		return fail(res, col, "not an int4 array");
	for (uint32_t d = 0; d < ndim; d++)
		n *= be32(v + 12 + d * 8);
	if (ndim == 0)
		n = 0;
	v += 12 + ndim * 8;
	for (uint64_t i = 0; i < n; i++)
	{
		uint32_t	l;

		if (end - v < 4)
			return fail(res, col, "int4 array cut short");
		l = be32(v);
		v += 4;
		if (l == UINT32_MAX)
			continue;			/* a NULL element */
		if (l != 4 || end - v < 4)
			return fail(res, col, "int4 array element of %u bytes", (unsigned) l);
		fn(arg, (int32_t) be32(v));
		v += 4;
	}
	return true;
}

static bool
lp_core(const PGresult *res, int row, pqbin_core *o)
{
	return scalar(res, row, QUERY_COL_PID, PQBIN_INT4, &o->pid) &&
		timestamptz(res, row, QUERY_COL_BACKEND_START, &o->backend_start_us) &&
		scalar(res, row, QUERY_COL_BACKEND_TYPE, PQBIN_TEXT, &o->backend_type) &&
		scalar(res, row, QUERY_COL_DATID, PQBIN_OID, &o->datid) &&
		scalar(res, row, QUERY_COL_USESYSID, PQBIN_OID, &o->usesysid) &&
		scalar(res, row, QUERY_COL_APPNAME, PQBIN_TEXT, &o->appname) &&
		inet(res, row, QUERY_COL_CLIENT_ADDR, o->client_addr, sizeof(o->client_addr)) &&
		scalar(res, row, QUERY_COL_STATE, PQBIN_TEXT, &o->state) &&
		scalar(res, row, QUERY_COL_WAIT_TYPE, PQBIN_TEXT, &o->wait_type) &&
		scalar(res, row, QUERY_COL_WAIT_EVENT, PQBIN_TEXT, &o->wait_event) &&
		scalar(res, row, QUERY_COL_QUERY_ID, PQBIN_INT8, &o->query_id) &&
		scalar(res, row, QUERY_COL_LEADER_PID, PQBIN_INT4, &o->leader_pid) &&
		timestamptz(res, row, QUERY_COL_XACT_START, &o->xact_start_us) &&
		scalar(res, row, QUERY_COL_HIDDEN, PQBIN_BOOL, &o->hidden);
}

/*
 * libpq needs nothing set up, but the backend is better off with one large
 * allocation made and freed first.  Every sample copies the backend status
 * array (pg_stat_get_activity()) into a fresh block of a few hundred kB,
 * which glibc's malloc serves with new pages, page faults included (about 8
 * per sample, a tenth or more of the backend's CPU per sample), until a
 * larger block has been freed: that raises its mmap threshold, and the copy
 * comes from the heap from then on.  libpqtypes' type lookup at connect
 * happens to do that; this statement does it on purpose, so that the
 * sampler's backend costs the same with either reader.
 */
#define WARM_UP_SQL		"SELECT length(repeat('x', 4 * 1024 * 1024))"

static bool
lp_setup_send(PGconn *conn, bool *sent, char **cause)
{
	*sent = PQsendQueryParams(conn, WARM_UP_SQL, 0, NULL, NULL, NULL, NULL, 1) != 0;
	if (!*sent)
		*cause = xasprintf("could not send the first statement: %s", PQerrorMessage(conn));
	return *sent;
}

/* The answer does not matter, only what the backend did for it; nor does a failure. */
static bool
lp_setup_result(PGconn *conn, PGresult *res, const char *error, char **cause)
{
	return true;
}

const pqbin_ops pqbin_libpq = PQBIN_OPS("libpq", lp);
