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

#include "pgtempo/clock.h"
#include "pgtempo/msg.h"
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

/* Run a command; false with *cause (allocated) if it failed. */
static bool
exec_ok(PGconn *conn, const char *sql, ExecStatusType want, char **cause)
{
	PGresult   *res = PQexec(conn, sql);
	bool		ok = res != NULL && PQresultStatus(res) == want;

	if (!ok)
		*cause = result_error(res, conn);
	PQclear(res);
	return ok;
}

/* Create the table if missing and check that it has our columns. */
static bool
prepare_table(store *st, char **cause)
{
	const char *ddl = st->intervals ? STORE_PROFILE_DDL : STORE_SAMPLES_DDL;
	char	   *check = xasprintf("SELECT %s FROM %s LIMIT 0",
								  st->intervals ? STORE_PROFILE_COLUMNS : STORE_SAMPLES_COLUMNS,
								  st->intervals ? STORE_PROFILE_TABLE : STORE_SAMPLES_TABLE);
	char	   *why = NULL;
	bool		ok;

	/* two hosts creating it at once: one of them fails, and then the table is there */
	ok = exec_ok(st->conn, ddl, PGRES_COMMAND_OK, &why);
	if (!ok)
	{
		free(why);
		why = NULL;
		ok = exec_ok(st->conn, ddl, PGRES_COMMAND_OK, &why);
	}
	if (ok)
		ok = exec_ok(st->conn, check, PGRES_TUPLES_OK, &why);
	if (!ok)
	{
		*cause = xasprintf("could not prepare table %s in the store database: %s",
						   st->intervals ? STORE_PROFILE_TABLE : STORE_SAMPLES_TABLE, why);
		free(why);
	}
	free(check);
	return ok;
}

/* One COPY of a batch; false (connection kept or dropped) on failure. */
static bool
copy_batch(store *st, const strbuf *data, char **cause)
{
	char	   *sql = xasprintf("COPY %s (%s) FROM STDIN",
								st->intervals ? STORE_PROFILE_TABLE : STORE_SAMPLES_TABLE,
								st->intervals ? STORE_PROFILE_COLUMNS : STORE_SAMPLES_COLUMNS);
	PGresult   *res = PQexec(st->conn, sql);
	bool		ok;

	free(sql);
	ok = res != NULL && PQresultStatus(res) == PGRES_COPY_IN;
	if (!ok)
	{
		*cause = result_error(res, st->conn);
		PQclear(res);
		return false;
	}
	PQclear(res);
	ok = PQputCopyData(st->conn, data->data, (int) data->len) == 1 &&
		PQputCopyEnd(st->conn, NULL) == 1;
	if (!ok)
		*cause = conn_error(st->conn);
	while ((res = PQgetResult(st->conn)) != NULL)
	{
		if (PQresultStatus(res) != PGRES_COMMAND_OK && ok)
		{
			ok = false;
			*cause = result_error(res, st->conn);
		}
		PQclear(res);
	}
	return ok;
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
}

/* Send batch; on failure reconnect once.  Reports the first failure of a streak. */
static bool
send_batch(store *st, strbuf *batch, uint64_t *rows)
{
	char	   *cause = NULL;

	if (st->conn != NULL && PQstatus(st->conn) == CONNECTION_OK &&
		copy_batch(st, batch, &cause))
		goto sent;
	if (st->conn == NULL || PQstatus(st->conn) != CONNECTION_OK)
	{
		free(cause);
		cause = NULL;
		PQfinish(st->conn);
		st->conn = conn_open(&st->opts, &cause);
		if (st->conn != NULL)
			PQsetNoticeProcessor(st->conn, quiet_notices, NULL);
		if (st->conn != NULL && copy_batch(st, batch, &cause))
			goto sent;
	}
	if (!st->failing)
		msg_warning("could not write to the store database (will retry): %s",
					cause ? cause : "unknown error");
	st->failing = true;
	free(cause);
	return false;

sent:
	if (st->failing)
		msg_info("writing to the store database works again");
	st->failing = false;
	st->rows_stored += *rows;
	st->batches++;
	strbuf_reset(batch);
	*rows = 0;
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
		strbuf_append(&batch, st->pending.data, st->pending.len);
		rows += st->pending_rows;
		strbuf_reset(&st->pending);
		st->pending_rows = 0;
		pthread_mutex_unlock(&st->mu);

		if (batch.len > 0 && !send_batch(st, &batch, &rows))
			trim_pending(st, &batch, &rows);
	}
	/* the last batch: a few more tries, then count it lost */
	for (int attempt = 0; batch.len > 0 && attempt < 3; attempt++)
	{
		struct timespec pause = {0, 500 * 1000 * 1000};

		nanosleep(&pause, NULL);
		send_batch(st, &batch, &rows);
	}
	st->rows_lost += rows;
	strbuf_free(&batch);
	return NULL;
}

/* Connect, prepare the table, start the thread: all errors before sampling starts. */
bool
store_open(store *st, const waits_settings *s, const char *label, char **cause)
{
	memset(st, 0, sizeof(*st));
	if (s->store == NULL)
		return true;
	st->intervals = s->store_interval_ns > 0;
	st->include_idle = s->include_idle;
	st->label = xstrdup(s->store_label ? s->store_label : label);
	st->opts.dbname = s->store;
	st->opts.application_name = "pgtempo-waits store";
	st->opts.prompt = CONN_PROMPT_NEVER;
	st->conn = conn_open(&st->opts, cause);
	if (st->conn == NULL)
	{
		char	   *why = *cause;

		*cause = xasprintf("could not connect to the store database: %s", why);
		free(why);
		free(st->label);
		return false;
	}
	PQsetNoticeProcessor(st->conn, quiet_notices, NULL);
	if (!prepare_table(st, cause))
	{
		PQfinish(st->conn);
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
		return false;
	}
	st->thread_started = true;
	st->active = true;
	return true;
}

/* Hand the formatted rows over to the thread. */
static void
hand_over(store *st, uint64_t rows)
{
	if (rows == 0)
		return;
	pthread_mutex_lock(&st->mu);
	strbuf_append(&st->pending, st->local.data, st->local.len);
	st->pending_rows += rows;
	pthread_mutex_unlock(&st->mu);
	strbuf_reset(&st->local);
}

/* Raw mode: format the counted rows for COPY and hand them over. */
void
store_add_batch(store *st, const sample_batch *b)
{
	uint64_t	n = 0;

	if (!st->active || st->intervals)
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

	if (!st->active || !st->intervals)
		return;
	wprof_group_by(p, format_interval_dims, format_interval_ndims, 0, &g);
	for (int i = 0; i < g.n; i++)
		format_interval_copy(&st->local, st->label, iv, &g.g[i]);
	hand_over(st, (uint64_t) g.n);
	wprof_groups_free(&g);
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

/* Send the rest, stop the thread; false (and said) if rows were lost. */
bool
store_close(store *st)
{
	bool		ok;

	if (!st->active)
		return true;
	pthread_mutex_lock(&st->mu);
	st->finishing = true;
	pthread_cond_signal(&st->cv);
	pthread_mutex_unlock(&st->mu);
	pthread_join(st->thread, NULL);
	ok = st->rows_lost == 0;
	if (!ok)
		msg_error("%" PRIu64 " row%s could not be written to the store database",
				  st->rows_lost, st->rows_lost == 1 ? "" : "s");
	PQfinish(st->conn);
	pthread_mutex_destroy(&st->mu);
	pthread_cond_destroy(&st->cv);
	strbuf_free(&st->pending);
	strbuf_free(&st->local);
	free(st->label);
	st->active = false;
	return ok;
}
