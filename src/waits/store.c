/*
 * store.c — samples or interval aggregates into PostgreSQL tables.
 */
#include "config.h"

#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pgtempo/clock.h"
#include "pgtempo/msg.h"
#include "pgtempo/utf8.h"
#include "pgtempo/xalloc.h"

/* Notices ("relation already exists, skipping") are not for the user. */
static void
quiet_notices(void *arg, const char *message)
{
}

/* The server's message of a failed result (its primary text), else libpq's. */
static char *
result_error(const PGresult *res, PGconn *conn)
{
	const char *m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	return m != NULL ? xstrdup(m) : conn_error(conn);
}

/* How a COPY of some rows went. */
typedef enum send_result
{
	SEND_OK,
	SEND_STORED,				/* a COPY in doubt had been committed: not sent again */
	SEND_REJECTED,				/* the store refused the rows; the connection is fine */
	SEND_FAILED					/* no connection, or no answer in time: send again later */
} send_result;

/*
 * The mark that goes with each COPY, in the same query string and so the
 * same transaction: the run's row in STORE_BATCHES_TABLE takes the COPY's
 * number, unless it has that number already (a COPY in doubt that was
 * committed), and then 1 / 0 fails the transaction before the COPY runs.
 * A COPY of the same number still in flight holds the row: the mark waits
 * for it to end.  A failing statement rather than a row count, so that an
 * abandoned backend that runs its query late cannot store its rows either.
 */
#define STORE_MARK_HEAD \
	"WITH m AS (INSERT INTO " STORE_BATCHES_TABLE " AS b (run, server, seq) VALUES (%s, %s, "
#define STORE_MARK_TAIL \
	") ON CONFLICT (run) DO UPDATE SET seq = excluded.seq, updated = now() " \
	"WHERE b.seq < excluded.seq RETURNING 1) SELECT 1 / count(*) FROM m; "
#define SQLSTATE_DIVISION_BY_ZERO "22012"

/*
 * A send during the run stops when the run ends (a COPY cut short stores
 * nothing: its rows are sent again by the final flush, with its own
 * deadline); the final flush does not.
 */
static volatile sig_atomic_t *
send_stop(store *st)
{
	return st->final_phase ? NULL : &st->hurry;
}

/* The store's answer took too long: cancel, drop the connection. */
static void
drop_conn(store *st)
{
	conn_abandon(st->conn, 500 * NS_PER_MS);
	st->conn = NULL;
}

/* Run a command before deadline_ns; false with *cause (allocated) if it failed. */
static bool
exec_ok(store *st, const char *sql, ExecStatusType want, uint64_t deadline_ns, char **cause)
{
	PGresult   *res = NULL;
	conn_wait	w = conn_exec(st->conn, sql, 0, deadline_ns, NULL, &res);
	bool		ok = w == CONN_WAIT_READY && PQresultStatus(res) == want;

	if (w == CONN_WAIT_TIMEOUT)
	{
		*cause = xstrdup("no answer from the store database in time");
		drop_conn(st);
	}
	else if (!ok)
		*cause = result_error(res, st->conn);
	PQclear(res);
	return ok;
}

/*
 * A fresh store connection: UTF8 as client encoding (the rows are UTF-8),
 * non-blocking, so that no send waits past its deadline.
 */
static bool
connect_store(store *st, uint64_t deadline_ns, char **cause)
{
	st->conn = conn_connect(&st->opts, deadline_ns, NULL, cause);
	if (st->conn == NULL)
		return false;
	PQsetNoticeProcessor(st->conn, quiet_notices, NULL);
	if (PQsetnonblocking(st->conn, 1) != 0 ||
		!exec_ok(st, "SET client_encoding = 'UTF8'", PGRES_COMMAND_OK, deadline_ns, cause))
	{
		if (*cause == NULL)
			*cause = conn_error(st->conn);
		PQfinish(st->conn);
		st->conn = NULL;
		return false;
	}
	return true;
}

/* Create a table if missing and check that it has our columns. */
static bool
prepare_one(store *st, const char *table, const char *ddl, const char *columns,
			uint64_t deadline_ns, char **cause)
{
	char	   *check = xasprintf("SELECT %s FROM %s LIMIT 0", columns, table);
	char	   *why = NULL;
	bool		ok;

	/* two hosts creating it at once: one of them fails, and then the table is there */
	ok = exec_ok(st, ddl, PGRES_COMMAND_OK, deadline_ns, &why);
	if (!ok && st->conn != NULL)
	{
		free(why);
		why = NULL;
		ok = exec_ok(st, ddl, PGRES_COMMAND_OK, deadline_ns, &why);
	}
	if (ok)
		ok = exec_ok(st, check, PGRES_TUPLES_OK, deadline_ns, &why);
	if (!ok)
	{
		*cause = xasprintf("could not prepare table %s in the store database: %s", table, why);
		free(why);
	}
	free(check);
	return ok;
}

/* The kind of record a store's table holds, the table and its COPY columns. */
static format_reckind
table_of(const store *st, const char **table, const char **columns)
{
	if (st->measured)
	{
		*table = STORE_MEASURED_TABLE;
		*columns = STORE_MEASURED_COLUMNS;
		return FORMAT_REC_MEASURED;
	}
	*table = st->heads ? STORE_HEADS_TABLE :
		st->intervals ? STORE_PROFILE_TABLE : STORE_SAMPLES_TABLE;
	*columns = st->heads ? STORE_HEADS_COLUMNS :
		st->intervals ? STORE_PROFILE_COLUMNS : STORE_SAMPLES_COLUMNS;
	return st->heads ? FORMAT_REC_HEAD : st->intervals ? FORMAT_REC_INTERVAL : FORMAT_REC_SAMPLE;
}

/* The rows' table, made of the columns of format.h's kind of its rows, and the batches' marks. */
static bool
prepare_table(store *st, uint64_t deadline_ns, char **cause)
{
	const char *table;
	const char *columns;
	format_reckind kind = table_of(st, &table, &columns);
	strbuf		ddl;
	bool		ok;

	strbuf_init(&ddl);
	format_kind_ddl(&ddl, &format_kinds[kind], table);
	ok = prepare_one(st, table, ddl.data, columns, deadline_ns, cause);
	strbuf_free(&ddl);
	return ok && st->conn != NULL &&
		prepare_one(st, STORE_BATCHES_TABLE, STORE_BATCHES_DDL, STORE_BATCHES_COLUMNS,
					deadline_ns, cause);
}

/*
 * This run's key in STORE_BATCHES_TABLE (the label, the time it started
 * and the pid) and the head of its mark, quoted for SQL.
 */
static bool
prepare_mark(store *st, char **cause)
{
	uint64_t	us = clock_wall_us();
	/* the heads' and the figures' stores are runs of their own: their batches are numbered apart */
	char	   *run = xasprintf("%s %" PRIu64 ".%06" PRIu64 " %ld%s", st->label,
								us / 1000000, us % 1000000, (long) getpid(),
								st->heads ? " heads" : st->measured ? " measured" : "");
	char	   *run_lit = PQescapeLiteral(st->conn, run, strlen(run));
	char	   *label_lit = PQescapeLiteral(st->conn, st->label, strlen(st->label));
	bool		ok = run_lit != NULL && label_lit != NULL;

	if (ok)
		st->mark_sql = xasprintf(STORE_MARK_HEAD, run_lit, label_lit);
	else
		*cause = conn_error(st->conn);
	PQfreemem(run_lit);
	PQfreemem(label_lit);
	free(run);
	return ok;
}

/* Wait for the end of a statement or of the COPY; the connection is dropped on a timeout. */
static send_result
copy_wait(store *st, uint64_t deadline_ns, ExecStatusType want, uint64_t *bad_line, char **cause)
{
	PGresult   *res = NULL;
	conn_wait	w = conn_result(st->conn, deadline_ns, send_stop(st), &res);
	send_result r;

	if (w != CONN_WAIT_READY)
	{
		PQclear(res);
		*cause = w == CONN_WAIT_TIMEOUT ? xstrdup("no answer from the store database in time") :
			conn_error(st->conn);
		drop_conn(st);
		return SEND_FAILED;
	}
	if (res != NULL && PQresultStatus(res) == want)
		r = SEND_OK;
	else
	{
		const char *ctx = res ? PQresultErrorField(res, PG_DIAG_CONTEXT) : NULL;
		const char *at = ctx ? strstr(ctx, ", line ") : NULL;

		*cause = result_error(res, st->conn);
		r = PQstatus(st->conn) == CONNECTION_OK ? SEND_REJECTED : SEND_FAILED;
		/* "COPY table, line N: ...": the row the store refused */
		if (bad_line != NULL && at != NULL)
			*bad_line = strtoull(at + 7, NULL, 10);
	}
	PQclear(res);
	return r;
}

/* Queue data for the COPY in flight, flushing as the socket takes it. */
static send_result
copy_put(store *st, const char *data, size_t len, uint64_t deadline_ns, char **cause)
{
	while (len > 0)
	{
		int			n = len > 65536 ? 65536 : (int) len;
		int			rc = PQputCopyData(st->conn, data, n);
		conn_wait	w;

		if (rc < 0)
		{
			*cause = conn_error(st->conn);
			drop_conn(st);
			return SEND_FAILED;
		}
		if (rc == 1)
		{
			data += n;
			len -= (size_t) n;
		}
		/* libpq's buffer is full (rc 0) or filling: let the socket take it */
		w = conn_flush(st->conn, rc == 1 && len > 0 ? 0 : deadline_ns, send_stop(st));
		if (w != CONN_WAIT_READY && w != CONN_WAIT_TIMEOUT)
		{
			*cause = conn_error(st->conn);
			drop_conn(st);
			return SEND_FAILED;
		}
		if (w == CONN_WAIT_TIMEOUT && clock_now_ns() >= deadline_ns)
		{
			*cause = xstrdup("no answer from the store database in time");
			drop_conn(st);
			return SEND_FAILED;
		}
	}
	return SEND_OK;
}

/* Read what is left of the statement in flight; the connection is dropped if it does not end in time. */
static void
drain(store *st, uint64_t deadline_ns)
{
	PGresult   *res = NULL;

	if (conn_result(st->conn, deadline_ns, send_stop(st), &res) != CONN_WAIT_READY)
		drop_conn(st);
	PQclear(res);
}

/*
 * Start the COPY numbered seq, behind its mark (STORE_MARK_HEAD):
 * SEND_OK when the COPY is ready for the rows, SEND_STORED when the mark
 * found that COPY committed already.
 */
static send_result
copy_start(store *st, uint64_t seq, uint64_t deadline_ns, char **cause)
{
	const char *table;
	const char *columns;
	char	   *sql;
	bool		sent;
	PGresult   *res;
	conn_wait	w;
	const char *state;
	send_result r;

	table_of(st, &table, &columns);
	sql = xasprintf("%s%" PRIu64 STORE_MARK_TAIL "COPY %s (%s) FROM STDIN", st->mark_sql, seq,
					table, columns);
	sent = PQsendQuery(st->conn, sql) == 1;
	free(sql);
	if (!sent)
	{
		*cause = conn_error(st->conn);
		return SEND_FAILED;
	}
	/* the mark's result on its own: conn_result() would read on into the COPY's */
	if ((w = conn_await(st->conn, deadline_ns, send_stop(st))) != CONN_WAIT_READY)
	{
		*cause = w == CONN_WAIT_TIMEOUT ? xstrdup("no answer from the store database in time") :
			conn_error(st->conn);
		drop_conn(st);
		return SEND_FAILED;
	}
	res = PQgetResult(st->conn);
	if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK)
	{
		PQclear(res);
		/* a COPY that does not start (no table) is not the rows' fault: send again later */
		return copy_wait(st, deadline_ns, PGRES_COPY_IN, NULL, cause) == SEND_OK ?
			SEND_OK : SEND_FAILED;
	}
	state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	if (state != NULL && strcmp(state, SQLSTATE_DIVISION_BY_ZERO) == 0)
		r = SEND_STORED;
	else
	{
		*cause = result_error(res, st->conn);
		r = SEND_FAILED;
	}
	PQclear(res);
	/* the rest of the query string was skipped: its end */
	drain(st, deadline_ns);
	return r;
}

/* End the COPY in flight: the rows sent are for the server to commit. */
static send_result
copy_end(store *st, uint64_t deadline_ns, char **cause)
{
	for (;;)
	{
		int			rc = PQputCopyEnd(st->conn, NULL);
		conn_wait	w;

		if (rc == 1)
			return SEND_OK;
		w = rc < 0 ? CONN_WAIT_LOST : conn_flush(st->conn, deadline_ns, send_stop(st));
		if (w != CONN_WAIT_READY)
		{
			*cause = w == CONN_WAIT_TIMEOUT ? xstrdup("no answer from the store database in time") :
				conn_error(st->conn);
			drop_conn(st);
			return SEND_FAILED;
		}
	}
}

/*
 * One COPY of the nrows rows data[0..len), before deadline_ns; *bad_line:
 * the row refused, if known.  A COPY that failed on the way may have been
 * committed all the same (its answer was lost): it is in doubt, and the
 * next COPY is of the same rows with the same number, which the mark
 * finds stored or not.  The caller sends the rows in doubt first.
 */
static send_result
copy_rows(store *st, const char *data, size_t len, uint64_t nrows, uint64_t deadline_ns,
		  uint64_t *bad_line, char **cause)
{
	uint64_t	seq = st->doubt ? st->doubt_seq : ++st->seq;
	send_result r = copy_start(st, seq, deadline_ns, cause);

	if (r == SEND_OK)
		r = copy_put(st, data, len, deadline_ns, cause);
	if (r == SEND_OK)
		r = copy_end(st, deadline_ns, cause);
	if (r == SEND_OK)
		r = copy_wait(st, deadline_ns, PGRES_COMMAND_OK, bad_line, cause);
	st->doubt = r == SEND_FAILED;
	st->doubt_seq = seq;
	st->doubt_len = len;
	st->doubt_rows = nrows;
	return r;
}

/* The length of the first k rows of data[0..len). */
static size_t
rows_len(const char *data, size_t len, uint64_t k)
{
	const char *p = data;

	for (uint64_t i = 0; i < k && p < data + len; i++)
		p = (const char *) memchr(p, '\n', (size_t) (data + len - p)) + 1;
	return (size_t) (p - data);
}

/* A row the store refused: skipped, counted, the first one explained. */
static void
skip_row(store *st, size_t len, size_t *done_len, uint64_t *done_rows, char **cause)
{
	if (!st->rejected_warned)
		msg_warning("the store database rejected a row, skipped: %s", *cause);
	st->rejected_warned = true;
	free(*cause);
	*cause = NULL;
	st->rows_rejected++;
	*done_len += len;
	(*done_rows)++;
}

/*
 * COPY the nrows rows of data[0..len); if the store rejects one, store
 * the rows before it (COPY names the line), skip it and go on with the
 * rest; if it does not say which, halve until the bad rows are found.
 * SEND_FAILED when the connection fails on the way: what was done is in
 * *done_len and *done_rows, the caller keeps the rest.
 */
static send_result
send_rows(store *st, const char *data, size_t len, uint64_t nrows, uint64_t deadline_ns,
		  size_t *done_len, uint64_t *done_rows, char **cause)
{
	while (nrows > 0)
	{
		uint64_t	bad = 0;
		send_result r = copy_rows(st, data, len, nrows, deadline_ns, &bad, cause);
		size_t		head,
					row;

		if (r == SEND_OK || r == SEND_STORED)
		{
			st->rows_stored += nrows;
			*done_len += len;
			*done_rows += nrows;
			return SEND_OK;
		}
		if (r == SEND_FAILED)
			return r;
		if (nrows == 1)
		{
			skip_row(st, len, done_len, done_rows, cause);
			return SEND_OK;
		}
		if (bad < 1 || bad > nrows)
		{
			/* no line number: halves */
			uint64_t	half = nrows / 2;

			head = rows_len(data, len, half);
			free(*cause);
			*cause = NULL;
			r = send_rows(st, data, head, half, deadline_ns, done_len, done_rows, cause);
			if (r != SEND_OK)
				return r;
			return send_rows(st, data + head, len - head, nrows - half, deadline_ns,
							 done_len, done_rows, cause);
		}
		head = rows_len(data, len, bad - 1);
		row = rows_len(data + head, len - head, 1);
		if (bad > 1)
		{
			char	   *why = *cause;

			*cause = NULL;
			r = send_rows(st, data, head, bad - 1, deadline_ns, done_len, done_rows, cause);
			if (r != SEND_OK)
			{
				free(why);
				return r;
			}
			*cause = why;
		}
		skip_row(st, row, done_len, done_rows, cause);
		data += head + row;
		len -= head + row;
		nrows -= bad;
	}
	return SEND_OK;
}

/* Drop the first len bytes (rows rows) of batch: they are done. */
static void
consume_front(strbuf *batch, size_t len, uint64_t *rows, uint64_t nrows)
{
	memmove(batch->data, batch->data + len, batch->len - len + 1);
	batch->len -= len;
	*rows -= nrows;
}

/* Keep the newest STORE_MAX_PENDING bytes of buf, counting whole lines dropped. */
static void
trim_pending(store *st, strbuf *buf, uint64_t *rows)
{
	size_t		cut;
	uint64_t	dropped = 0;

	if (buf->len <= STORE_MAX_PENDING)
		return;
	cut = buf->len - STORE_MAX_PENDING;
	/* to the end of a line */
	while (cut < buf->len && buf->data[cut - 1] != '\n')
		cut++;
	for (size_t i = 0; i < cut; i++)
		if (buf->data[i] == '\n')
			dropped++;
	memmove(buf->data, buf->data + cut, buf->len - cut + 1);
	buf->len -= cut;
	*rows -= dropped;
	st->rows_lost += dropped;
	/* rows in doubt that go are counted lost, though they may have been stored */
	if (st->doubt && cut >= st->doubt_len)
		st->doubt = false;
	else if (st->doubt)
	{
		st->doubt_len -= cut;
		st->doubt_rows -= dropped;
	}
}

/*
 * Send batch before deadline_ns, connecting again first if needed.
 * What was stored or skipped leaves the batch; the rest stays for later.
 * Reports the first failure of a streak.
 */
static bool
send_batch(store *st, strbuf *batch, uint64_t *rows, uint64_t deadline_ns)
{
	char	   *cause = NULL;
	size_t		done_len = 0;
	uint64_t	done_rows = 0;
	send_result r = SEND_FAILED;

	if (st->conn != NULL && PQstatus(st->conn) != CONNECTION_OK)
	{
		PQfinish(st->conn);
		st->conn = NULL;
	}
	if (st->conn != NULL || connect_store(st, deadline_ns, &cause))
	{
		/* the rows in doubt on their own first, with their number */
		r = send_rows(st, batch->data, st->doubt ? st->doubt_len : batch->len,
					  st->doubt ? st->doubt_rows : *rows, deadline_ns, &done_len, &done_rows,
					  &cause);
		if (r == SEND_OK && done_len < batch->len)
			r = send_rows(st, batch->data + done_len, batch->len - done_len, *rows - done_rows,
						  deadline_ns, &done_len, &done_rows, &cause);
	}
	consume_front(batch, done_len, rows, done_rows);
	if (r != SEND_OK)
	{
		if (!st->failing && !st->hurry)
			msg_warning("could not write to the store database (will retry): %s",
						cause ? cause : "unknown error");
		st->failing = true;
		free(cause);
		return false;
	}
	if (st->failing)
		msg_info("writing to the store database works again");
	st->failing = false;
	st->batches++;
	return true;
}

/* The store thread: wait for a kick (or a second), send what is queued. */
static void *
store_main(void *arg)
{
	store	   *st = arg;
	strbuf		batch;
	uint64_t	rows = 0;
	bool		finishing = false;
	uint64_t	final_deadline;

	strbuf_init(&batch);
	while (!finishing)
	{
		struct timespec until;

		pthread_mutex_lock(&st->mu);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		while (!st->kick && !st->finishing)
			if (pthread_cond_timedwait(&st->cv, &st->mu, &until) == ETIMEDOUT)
				break;
		st->kick = false;
		finishing = st->finishing;
		/* what waits here is bounded too: beyond it the queue keeps its newest rows */
		strbuf_append(&batch, st->pending.data, st->pending.len);
		rows += st->pending_rows;
		strbuf_reset(&st->pending);
		st->pending_rows = 0;
		pthread_mutex_unlock(&st->mu);

		if (finishing)
			break;
		if (batch.len > 0 &&
			!send_batch(st, &batch, &rows, clock_now_ns() + STORE_SEND_TIMEOUT_NS))
			trim_pending(st, &batch, &rows);
	}
	/* the last batch: tries until the final deadline, then what is left is lost */
	st->final_phase = true;
	final_deadline = clock_now_ns() + STORE_FINAL_TIMEOUT_NS;
	while (batch.len > 0 && clock_now_ns() < final_deadline)
	{
		struct timespec pause = {0, 200 * 1000 * 1000};

		if (!send_batch(st, &batch, &rows, final_deadline) && clock_now_ns() < final_deadline)
			nanosleep(&pause, NULL);
	}
	st->rows_lost += rows;
	strbuf_free(&batch);
	return NULL;
}

/* Connect, prepare the table, start the thread: all errors before sampling starts. */
bool
store_open(store *st, const waits_settings *s, const char *label, store_of what, char **cause)
{
	uint64_t	deadline;

	memset(st, 0, sizeof(*st));
	if (s->store == NULL)
		return true;
	st->intervals = s->store_interval_ns > 0;
	st->heads = what == STORE_OF_HEADS && st->intervals;
	st->measured = what == STORE_OF_MEASURED;
	st->include_idle = s->include_idle;
	st->label = xstrdup(s->store_label ? s->store_label : label);
	st->opts.dbname = s->store;
	st->opts.application_name = "pgtempo-waits store";
	st->opts.prompt = CONN_PROMPT_NEVER;
	deadline = clock_now_ns() + STORE_SEND_TIMEOUT_NS;
	if (!connect_store(st, deadline, cause))
	{
		char	   *why = *cause;

		*cause = xasprintf("could not connect to the store database: %s", why);
		free(why);
		free(st->label);
		return false;
	}
	if (!prepare_table(st, deadline, cause) || !prepare_mark(st, cause))
	{
		conn_abandon(st->conn, 500 * NS_PER_MS);
		free(st->label);
		return false;
	}
	strbuf_init(&st->pending);
	strbuf_init(&st->local);
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->cv, NULL);
	if (pthread_create(&st->thread, NULL, store_main, st) != 0)
	{
		*cause = xasprintf("could not start the store thread: %s", strerror(errno));
		PQfinish(st->conn);
		free(st->label);
		free(st->mark_sql);
		return false;
	}
	st->thread_started = true;
	st->active = true;
	return true;
}

/*
 * Append COPY text to sb as valid UTF-8: a byte that is not becomes the
 * text \xNN, as in every other output (a backslash doubled for COPY).
 * COPY's own escapes are ASCII, so this is the same as escaping each
 * field before formatting.
 */
static void
append_utf8_copy(strbuf *sb, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	while (n > 0)
	{
		size_t		k = utf8_seq_len(s, n);

		if (k > 0)
			strbuf_append(sb, s, k);
		else
		{
			unsigned char c = (unsigned char) *s;
			char		esc[5] = {'\\', '\\', 'x', hex[c >> 4], hex[c & 0xF]};

			strbuf_append(sb, esc, sizeof(esc));
			k = 1;
		}
		s += k;
		n -= k;
	}
}

/*
 * Hand the formatted rows over to the thread, as valid UTF-8.  When the
 * queue is full (the store is slow or gone), they are dropped and counted.
 */
static void
hand_over(store *st, uint64_t rows)
{
	if (rows == 0)
		return;
	pthread_mutex_lock(&st->mu);
	if (st->pending.len + st->local.len > STORE_MAX_PENDING)
		st->rows_dropped += rows;
	else
	{
		if (utf8_valid(st->local.data, st->local.len))
			strbuf_append(&st->pending, st->local.data, st->local.len);
		else
			append_utf8_copy(&st->pending, st->local.data, st->local.len);
		st->pending_rows += rows;
	}
	pthread_mutex_unlock(&st->mu);
	strbuf_reset(&st->local);
}

/* Raw mode: format the counted rows for COPY and hand them over. */
void
store_add_batch(store *st, const sample_batch *b)
{
	uint64_t	n = 0;

	if (!st->active || st->intervals || st->measured)
		return;
	for (int i = 0; i < b->nrows; i++)
	{
		const sample_row *r = &b->rows[i];

		if (!sample_row_counted(r, st->include_idle) || r->samples == 0)
			continue;
		format_sample_copy(&st->local, st->label, b, r);
		n++;
	}
	hand_over(st, n);
}

/* Interval mode: format one row per group and hand them over. */
void
store_add_interval(store *st, const format_interval *iv, const wprof *p)
{
	wprof_groups g;

	if (!st->active || !st->intervals || st->heads || st->measured)
		return;
	wprof_group_by(p, format_interval_dims, format_interval_ndims, 0, &g);
	for (int i = 0; i < g.n; i++)
		format_interval_copy(&st->local, st->label, iv, &g.g[i]);
	hand_over(st, (uint64_t) g.n);
	wprof_groups_free(&g);
}

void
store_add_heads(store *st, const format_interval *iv, const wprof *p)
{
	int			n;
	const heads_cell **v;
	format_head_rec r;

	if (!st->active || !st->heads)
		return;
	v = heads_sorted(&p->heads, &n);
	for (int i = 0; i < n; i++)
	{
		format_head_rec_of(&r, iv, v[i], NULL);
		format_head_copy(&st->local, st->label, &r);
	}
	free(v);
	hand_over(st, (uint64_t) n);
}

void
store_add_measured(store *st, const format_measured_rec *recs, int n)
{
	if (!st->active || !st->measured)
		return;
	for (int i = 0; i < n; i++)
		format_measured_copy(&st->local, st->label, &recs[i]);
	hand_over(st, (uint64_t) n);
}

/* Have the thread send now rather than at its next second. */
void
store_kick(store *st)
{
	if (!st->active)
		return;
	pthread_mutex_lock(&st->mu);
	st->kick = true;
	pthread_cond_signal(&st->cv);
	pthread_mutex_unlock(&st->mu);
}

/* Send the rest, stop the thread; false (and said) if rows were dropped, rejected or lost. */
bool
store_close(store *st)
{
	bool		ok;

	if (!st->active)
		return true;
	pthread_mutex_lock(&st->mu);
	st->finishing = true;
	st->hurry = 1;
	pthread_cond_signal(&st->cv);
	pthread_mutex_unlock(&st->mu);
	pthread_join(st->thread, NULL);
	ok = st->rows_lost == 0 && st->rows_dropped == 0 && st->rows_rejected == 0;
	if (st->rows_rejected > 0)
		msg_error("%" PRIu64 " row%s rejected by the store database, skipped",
				  st->rows_rejected, st->rows_rejected == 1 ? " was" : "s were");
	if (st->rows_dropped > 0)
		msg_error("%" PRIu64 " row%s dropped: the queue for the store database was full",
				  st->rows_dropped, st->rows_dropped == 1 ? " was" : "s were");
	if (st->rows_lost > 0)
		msg_error("%" PRIu64 " row%s could not be written to the store database",
				  st->rows_lost, st->rows_lost == 1 ? "" : "s");
	if (!ok)
		msg_detail("%" PRIu64 " row%s stored.", st->rows_stored, st->rows_stored == 1 ? "" : "s");
	conn_abandon(st->conn, 500 * NS_PER_MS);
	st->conn = NULL;
	pthread_mutex_destroy(&st->mu);
	pthread_cond_destroy(&st->cv);
	strbuf_free(&st->pending);
	strbuf_free(&st->local);
	free(st->label);
	free(st->mark_sql);
	st->active = false;
	return ok;
}
