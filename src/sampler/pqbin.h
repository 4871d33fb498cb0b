/*
 * pqbin.h — the sampler's binary results read, and its parameters
 * written, with libpqtypes or with libpq alone.
 *
 * Every statement of the sampler returns binary results.  Two readers give
 * the same values from the same bytes: libpqtypes' (pqbin_pqtypes, built
 * when configure finds the library and --without-libpqtypes is not given)
 * and one that decodes PostgreSQL's binary formats itself over libpq
 * (pqbin_libpq, always built, so that a build with libpqtypes can test one
 * against the other).  pqbin is the reader this build uses.
 *
 * Parameters (int4, int4[], text[]) are few and written once per
 * connection: both builds send them in binary through libpq, the same
 * bytes either way (pqbin_params_*, pqbin_send).
 */
#ifndef PGTEMPO_SAMPLER_PQBIN_H
#define PGTEMPO_SAMPLER_PQBIN_H

#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

/* Room for a client address as text: INET6_ADDRSTRLEN and more. */
#define PQBIN_ADDR_LEN		64

/*
 * The columns every sampling statement has, up to QUERY_COL_HIDDEN but the
 * blockers (query.h).  A NULL reads as 0, an empty address or a NULL string;
 * strings point into the result.
 */
typedef struct pqbin_core
{
	int32_t		pid;
	int32_t		leader_pid;
	int64_t		backend_start_us;	/* since the Unix epoch; INT64_MIN: NULL */
	int64_t		xact_start_us;	/* the same */
	uint32_t	datid;
	uint32_t	usesysid;
	const char *backend_type;
	const char *appname;
	const char *state;
	const char *wait_type;
	const char *wait_event;
	char		client_addr[PQBIN_ADDR_LEN];	/* "192.0.2.1", "::1"; "": NULL */
	int64_t		query_id;
	bool		hidden;
} pqbin_core;

/* The scalar types a reader's get() reads, and the C type each is read into. */
typedef enum pqbin_type
{
	PQBIN_INT4,					/* int32_t */
	PQBIN_INT8,					/* int64_t */
	PQBIN_BOOL,					/* bool */
	PQBIN_OID,					/* uint32_t */
	PQBIN_TEXT					/* const char *, into the result */
} pqbin_type;

/*
 * For the readers: store a scalar column's value in *out, of type's C type
 * (an integer v, or text): each reader decodes a column its own way, and
 * every get() stores it the same way.
 */
void		pqbin_store(pqbin_type type, void *out, int64_t v, const char *text);

/* Called with each non-NULL element of an int4[]. */
typedef void (*pqbin_int4_fn) (void *arg, int32_t v);

/*
 * A reader.  Its get functions read column col of row: false when the
 * column is not of the type asked for or its bytes are not that type's
 * (error() says why).  A NULL reads as 0 / NULL.
 */
typedef struct pqbin_ops
{
	const char *name;			/* the library: "libpqtypes" or "libpq" */

	/*
	 * Make a new connection ready: send a statement (*sent true: pass its
	 * result to setup_result, or NULL and the server's error when it
	 * failed), false with *cause.
	 */
	bool		(*setup_send) (PGconn *conn, bool *sent, char **cause);
	bool		(*setup_result) (PGconn *conn, PGresult *res, const char *error, char **cause);

	/* A scalar column into *out, of type's C type (pqbin_get_int4 ... say which). */
	bool		(*get) (const PGresult *res, int row, int col, pqbin_type type, void *out);
	bool		(*get_int4_array) (const PGresult *res, int row, int col, pqbin_int4_fn fn,
								   void *arg);
	/* The core columns of a sampling statement's row. */
	bool		(*get_core) (const PGresult *res, int row, pqbin_core *out);
	/* Why this thread's last get or setup failed. */
	const char *(*error) (void);
} pqbin_ops;

extern const pqbin_ops pqbin_libpq;
#ifdef HAVE_LIBPQTYPES
extern const pqbin_ops pqbin_pqtypes;
#endif

/*
 * The reader of this build, chosen here above both readers (config.h says
 * which is built) so that neither they nor pqbin.c name the other.
 */
#ifdef HAVE_LIBPQTYPES
#define pqbin (&pqbin_pqtypes)
#else
#define pqbin (&pqbin_libpq)
#endif

/*
 * A reader's ops: the functions named PREFIX_setup_send ... PREFIX_error
 * of its file, and its get() named scalar.
 */
#define PQBIN_OPS(libname, prefix) { \
	.name = libname, \
	.setup_send = prefix##_setup_send, \
	.setup_result = prefix##_setup_result, \
	.get = scalar, \
	.get_int4_array = prefix##_int4_array, \
	.get_core = prefix##_core, \
	.error = prefix##_error, \
}

/*
 * A scalar column of a type, read by reader rd into its C type (get):
 * pqbin_get_int4, pqbin_get_int8, pqbin_get_bool, pqbin_get_oid and
 * pqbin_get_text, each typed so that the compiler checks out.
 */
#define PQBIN_GETTER(suffix, ctype, type) \
static inline bool \
pqbin_get_##suffix(const pqbin_ops *rd, const PGresult *res, int row, int col, ctype *out) \
{ \
	return rd->get(res, row, col, type, out); \
}

PQBIN_GETTER(int4, int32_t, PQBIN_INT4)
PQBIN_GETTER(int8, int64_t, PQBIN_INT8)
PQBIN_GETTER(bool, bool, PQBIN_BOOL)
PQBIN_GETTER(oid, uint32_t, PQBIN_OID)
PQBIN_GETTER(text, const char *, PQBIN_TEXT)

#define PQBIN_MAX_PARAMS	8

/* A statement's parameters, in binary. */
typedef struct pqbin_params
{
	int			n;
	Oid			types[PQBIN_MAX_PARAMS];
	char	   *values[PQBIN_MAX_PARAMS];
	int			lengths[PQBIN_MAX_PARAMS];
	int			formats[PQBIN_MAX_PARAMS];
} pqbin_params;

/* Add a parameter: false when there are PQBIN_MAX_PARAMS already. */
bool		pqbin_put_int4(pqbin_params *p, int32_t v);
bool		pqbin_put_int4_array(pqbin_params *p, const int32_t *v, int n);
bool		pqbin_put_text_array(pqbin_params *p, char *const *v, int n);

/* Free the values (p itself stays, empty). */
void		pqbin_params_clear(pqbin_params *p);

/*
 * Send the prepared statement stmt, or the SQL text sql when stmt is NULL,
 * with p's values (NULL: none), asking for binary results; false as libpq's
 * send functions (PQerrorMessage says why).
 */
bool		pqbin_send(PGconn *conn, const pqbin_params *p, const char *stmt, const char *sql);

#endif
