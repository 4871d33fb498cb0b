/*
 * store.h — --store: samples or interval aggregates written into
 * PostgreSQL tables, for a fleet of hosts reporting into one database.
 *
 * The store has its own connection and its own thread, so a slow or
 * unreachable store database never delays a sample.  Rows are formatted
 * for COPY's text format as they come, as valid UTF-8 (bytes that are not
 * are written as the text \xNN, as in every other output; the connection's
 * client_encoding is UTF8), and a batch is sent with one COPY once a
 * second (and at the end).  A batch the store rejects (a row it will not
 * take: an encoding it cannot convert to, a constraint) is split in halves
 * until the bad rows are found: those are skipped and counted, the rest
 * is stored.  A batch that cannot be sent (no connection, no answer within
 * STORE_SEND_TIMEOUT_NS) is kept and sent again after reconnecting, up to
 * STORE_MAX_PENDING bytes waiting and as many being sent; beyond that new
 * rows are dropped and counted.  At the end the rest gets
 * STORE_FINAL_TIMEOUT_NS; what is not sent by then is counted.  The
 * tables are created if missing:
 *
 *   pgtempo_waits_samples   one row per sampled backend (raw mode)
 *   pgtempo_waits_profile   one row per interval and group (--store-interval)
 *   pgtempo_waits_heads     one row per interval and head blocker (--store-interval;
 *                           a store of its own, so a batch stays one COPY)
 *   pgtempo_waits_measured  one row per figure the server measured itself and
 *                           span between two reads of its counters (measured.h;
 *                           a store of its own too)
 *   pgtempo_waits_batches   one row per run: the last batch it stored
 *
 * A COPY whose answer never came (a deadline, a lost connection) may have
 * been committed all the same, so each COPY carries a sequence number,
 * written into pgtempo_waits_batches in the same transaction; the rows of
 * a COPY in doubt are sent again with the same number, and the server's
 * row lock on the run's row tells whether the first one committed (the
 * copy is then abandoned) or not: a batch is never stored twice.
 *
 * Their columns are format.h's COPY columns (format_kind_ddl) and the man
 * page.  On a distributed database (Citus), distribute them by "server".
 */
#ifndef PGTEMPO_WAITS_STORE_H
#define PGTEMPO_WAITS_STORE_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "pgtempo/clock.h"
#include "pgtempo/strbuf.h"

#include "format.h"
#include "wprof.h"
#include "sample.h"
#include "waits.h"

#define STORE_SAMPLES_TABLE "pgtempo_waits_samples"
#define STORE_PROFILE_TABLE "pgtempo_waits_profile"
#define STORE_BATCHES_TABLE "pgtempo_waits_batches"
#define STORE_HEADS_TABLE "pgtempo_waits_heads"
#define STORE_MEASURED_TABLE "pgtempo_waits_measured"
#define STORE_MAX_PENDING ((size_t) 64 << 20)
#define STORE_SEND_TIMEOUT_NS	(10 * NS_PER_S)
#define STORE_FINAL_TIMEOUT_NS	(3 * NS_PER_S)

/* The columns the COPY rows fill: the server label, then format.h's table. */
#define STORE_SAMPLES_COLUMNS FORMAT_COPY_SAMPLE_COLUMNS
#define STORE_PROFILE_COLUMNS FORMAT_COPY_INTERVAL_COLUMNS
#define STORE_HEADS_COLUMNS FORMAT_COPY_HEAD_COLUMNS
#define STORE_MEASURED_COLUMNS FORMAT_COPY_MEASURED_COLUMNS
#define STORE_BATCHES_COLUMNS "run, server, seq, updated"

/*
 * The rows' tables are made of their COPY columns (format_kind_ddl): the
 * samples table of the sample kind's, the profile table of the interval
 * kind's, the heads table (created by a store of this version in a store
 * database of any: the other tables stay) of the head kind's, the measured
 * table (the same way) of the measured kind's.
 */
#define STORE_BATCHES_DDL \
	"CREATE TABLE IF NOT EXISTS " STORE_BATCHES_TABLE " (\n" \
	"    run              text        PRIMARY KEY,\n" \
	"    server           text        NOT NULL,\n" \
	"    seq              int8        NOT NULL,\n" \
	"    updated          timestamptz NOT NULL DEFAULT now()\n" \
	")"

typedef struct store
{
	bool		active;
	bool		intervals;		/* aggregates instead of raw rows */
	bool		heads;			/* ... of head blockers (STORE_HEADS_TABLE) */
	bool		measured;		/* the server's figures (STORE_MEASURED_TABLE) */
	bool		include_idle;
	char	   *label;			/* the "server" column */
	char	   *mark_sql;		/* the head of a batch's mark, up to its number */
	conn_opts	opts;			/* the store connection */
	PGconn	   *conn;			/* owned by the thread once it runs */
	pthread_t	thread;
	bool		thread_started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	strbuf		pending;		/* COPY rows not yet handed to the thread (under mu) */
	uint64_t	pending_rows;
	uint64_t	rows_dropped;	/* the queue was full (under mu) */
	bool		kick;			/* send now (under mu) */
	bool		finishing;		/* last batch: send and stop (under mu) */
	volatile sig_atomic_t hurry;	/* the run is over: a send in flight gives up */
	strbuf		local;			/* formatting buffer of the sampling thread */
	/* the thread's; read after it has been joined */
	uint64_t	rows_stored;
	uint64_t	rows_rejected;	/* refused by the store database, skipped */
	uint64_t	rows_lost;		/* not sent: no connection when the queue overflowed or at the end */
	uint64_t	batches;
	bool		failing;
	bool		rejected_warned;
	bool		final_phase;	/* the last sends, with the final deadline */
	uint64_t	seq;			/* the number of the last COPY sent */
	/* a COPY not known to be committed or not: its rows lead the batch */
	bool		doubt;
	uint64_t	doubt_seq;
	size_t		doubt_len;
	uint64_t	doubt_rows;
} store;

/* What a store stores: the rows (raw or intervals), the head blockers, the server's figures. */
typedef enum store_of
{
	STORE_OF_ROWS,
	STORE_OF_HEADS,				/* interval mode only */
	STORE_OF_MEASURED
} store_of;

/*
 * Connect to the store database, create the table if missing and check
 * its columns, start the thread.  False with *cause on failure.
 */
bool		store_open(store *st, const waits_settings *s, const char *label, store_of what,
					   char **cause);
/* Raw mode: queue the counted rows of a batch. */
void		store_add_batch(store *st, const sample_batch *b);
/* Interval mode: queue one row per group of the interval's profile. */
void		store_add_interval(store *st, const format_interval *iv, const wprof *p);
/* Interval mode, a heads store: queue one row per head blocker of the interval. */
void		store_add_heads(store *st, const format_interval *iv, const wprof *p);
/* A measured store: queue the server's figures of a span, n of them. */
void		store_add_measured(store *st, const format_measured_rec *recs, int n);
/* Once a second: have the thread send what is queued. */
void		store_kick(store *st);
/*
 * Send the rest (waiting at most STORE_FINAL_TIMEOUT_NS), stop the
 * thread, disconnect; false if rows were dropped, rejected or not sent
 * (reported).
 */
bool		store_close(store *st);

#endif
