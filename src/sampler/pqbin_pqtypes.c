/*
 * pqbin_pqtypes.c — binary results read with libpqtypes.
 */
#include "config.h"

#include "pqbin.h"

#include <netdb.h>
#include <string.h>
#include <sys/socket.h>

#include <libpqtypes.h>

#include "pgtempo/xalloc.h"

#include "query.h"

#define CORE_SPEC_NAME	"pgtempo_core"

/* The core columns (pqbin_core), read in one PQgetf with a prepared specifier. */
#define CORE_SPEC "%int4 %timestamptz %text %oid %oid %text %inet %text %text %text " \
	"%int8 %int4 %timestamptz %bool"

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

static PGregisterType oid_type = {"pg_catalog.oid", oid_put, oid_get};

/* Ask the server for the oid type (asynchronously: it must not wait past its deadline). */
static bool
pt_setup_send(PGconn *conn, bool *sent, char **cause)
{
	*sent = false;
	if (!PQinitTypes(conn))
	{
		*cause = xasprintf("could not initialize libpqtypes: %s", PQgeterror());
		return false;
	}
	if (!PQregisterTypes(conn, PQT_USERDEFINED, &oid_type, 1, 1))
	{
		*cause = xasprintf("could not register the oid type: %s", PQgeterror());
		return false;
	}
	*sent = true;
	return true;
}

/* Register the oid type from the server's answer, and prepare the row specifier. */
static bool
pt_setup_result(PGconn *conn, PGresult *res, const char *error, char **cause)
{
	if (res == NULL)
	{
		*cause = xasprintf("could not register the oid type: %s", error);
		return false;
	}
	if (!PQregisterResult(conn, PQT_USERDEFINED, &oid_type, 1, res))
	{
		*cause = xasprintf("could not register the oid type: %s", PQgeterror());
		return false;
	}
	if (!PQspecPrepare(conn, CORE_SPEC_NAME, CORE_SPEC, 0))
	{
		*cause = xasprintf("could not prepare the row specifier: %s", PQgeterror());
		return false;
	}
	return true;
}

static const char *
pt_error(void)
{
	return PQgeterror();
}

/*
 * A scalar column read by PQgetf into *out (pqbin_store); 0 or NULL for a
 * NULL, and when it could not be read.  PQgetf writes the type's own C
 * type: an int for int4 and for bool (PGint4, PGbool), an Oid, a PGint8
 * or a PGtext.
 */
static bool
scalar(const PGresult *res, int row, int col, pqbin_type type, void *out)
{
	static const char *const spec[] = {
		[PQBIN_INT4] = "%int4", [PQBIN_INT8] = "%int8", [PQBIN_BOOL] = "%bool",
		[PQBIN_OID] = "%oid", [PQBIN_TEXT] = "%text",
	};
	PGint4		i = 0;
	PGint8		i8 = 0;
	Oid			oid = InvalidOid;
	PGtext		text = NULL;
	bool		ok;

	if (type == PQBIN_INT8)
		ok = PQgetf(res, row, spec[type], col, &i8) != 0;
	else if (type == PQBIN_OID)
		ok = PQgetf(res, row, spec[type], col, &oid) != 0;
	else if (type == PQBIN_TEXT)
		ok = PQgetf(res, row, spec[type], col, &text) != 0;
	else
		ok = PQgetf(res, row, spec[type], col, &i) != 0;
	if (ok)
		pqbin_store(type, out, type == PQBIN_INT8 ? i8 : type == PQBIN_OID ? (int64_t) oid : i,
					text);
	else
		pqbin_store(type, out, 0, NULL);
	return ok;
}

static bool
pt_int4_array(const PGresult *res, int row, int col, pqbin_int4_fn fn, void *arg)
{
	PGarray		arr;

	memset(&arr, 0, sizeof(arr));
	if (PQgetisnull(res, row, col))
		return true;
	if (!PQgetf(res, row, "%int4[]", col, &arr))
		return false;
	for (int j = 0; j < PQntuples(arr.res); j++)
	{
		PGint4		v = 0;

		/* a NULL element is read as "not there" */
		if (!PQgetisnull(arr.res, j, 0) && PQgetf(arr.res, j, "%int4", 0, &v))
			fn(arg, v);
	}
	PQclear(arr.res);
	return true;
}

/* The text of a client address as pg_stat_activity shows it ("192.0.2.1", "::1"). */
static void
addr_text(const PGinet *in, char *out, size_t size)
{
	struct sockaddr_storage ss;

	out[0] = '\0';
	if (in->sa_buf_len <= 0 || (size_t) in->sa_buf_len > sizeof(ss))
		return;
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, in->sa_buf, (size_t) in->sa_buf_len);
	if (getnameinfo((const struct sockaddr *) &ss, (socklen_t) in->sa_buf_len, out,
					(socklen_t) size, NULL, 0, NI_NUMERICHOST) != 0)
		out[0] = '\0';
}

static bool
pt_core(const PGresult *res, int row, pqbin_core *o)
{
	PGint4		pid = 0,
				leader = 0;
	PGtimestamp bs,
				xs;
	Oid			datid = InvalidOid,
				usesysid = InvalidOid;
	PGinet		addr;
	PGtext		btype = NULL,
				appname = NULL,
				state = NULL,
				type = NULL,
				event = NULL;
	PGint8		query_id = 0;
	PGbool		hidden = 0;

	memset(&bs, 0, sizeof(bs));
	memset(&xs, 0, sizeof(xs));
	memset(&addr, 0, sizeof(addr));
	if (!PQgetf(res, row, "@" CORE_SPEC_NAME,
				QUERY_COL_PID, &pid, QUERY_COL_BACKEND_START, &bs,
				QUERY_COL_BACKEND_TYPE, &btype, QUERY_COL_DATID, &datid,
				QUERY_COL_USESYSID, &usesysid, QUERY_COL_APPNAME, &appname,
				QUERY_COL_CLIENT_ADDR, &addr, QUERY_COL_STATE, &state,
				QUERY_COL_WAIT_TYPE, &type, QUERY_COL_WAIT_EVENT, &event,
				QUERY_COL_QUERY_ID, &query_id, QUERY_COL_LEADER_PID, &leader,
				QUERY_COL_XACT_START, &xs, QUERY_COL_HIDDEN, &hidden))
		return false;
	o->pid = pid;
	o->backend_start_us = PQgetisnull(res, row, QUERY_COL_BACKEND_START) ? INT64_MIN :
		(int64_t) bs.epoch * 1000000 + bs.time.usec;
	o->xact_start_us = PQgetisnull(res, row, QUERY_COL_XACT_START) ? INT64_MIN :
		(int64_t) xs.epoch * 1000000 + xs.time.usec;
	o->backend_type = btype;
	o->datid = datid;
	o->usesysid = usesysid;
	o->appname = appname;
	o->client_addr[0] = '\0';
	if (!PQgetisnull(res, row, QUERY_COL_CLIENT_ADDR))
		addr_text(&addr, o->client_addr, sizeof(o->client_addr));
	o->state = state;
	o->wait_type = type;
	o->wait_event = event;
	o->query_id = PQgetisnull(res, row, QUERY_COL_QUERY_ID) ? 0 : query_id;
	o->leader_pid = PQgetisnull(res, row, QUERY_COL_LEADER_PID) ? 0 : leader;
	o->hidden = hidden != 0;
	return true;
}

const pqbin_ops pqbin_pqtypes = PQBIN_OPS("libpqtypes", pt);
