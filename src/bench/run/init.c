/*
 * init.c — pgbench's initialization mode (-i).
 *
 * The steps, their statements and their messages are pgbench's, so that
 * both programs leave the same tables with the same rows behind.  As in
 * PostgreSQL 18, client-side generation (g) loads all three tables with
 * COPY, FREEZE'd when the server allows it (14 and later, ordinary
 * tables only: not a partitioned pgbench_accounts).
 *
 * What differs is the cost.  pgbench formats every row with printf and
 * sends it as a CopyData message of its own; here the same text rows are
 * written into one large buffer (the id in decimal, then a tail that
 * changes only with the branch) and sent in messages of 256 kB.  That
 * costs the client a fraction of pgbench's CPU time, and the server less
 * too: it handles a few hundred messages instead of one per row.
 *
 * SIGINT sends a cancel request for the statement the server is running
 * (PQcancel is safe in a signal handler) and makes the steps stop: no
 * statement is started after it, and the one that was running fails.
 */
#include "config.h"

#include "init.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "pgtempo/clock.h"
#include "pgtempo/exitcode.h"
#include "pgtempo/msg.h"
#include "pgtempo/signals.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

/* Rows per unit of scale, as in pgbench. */
#define NBRANCHES	1
#define NTELLERS	10
#define NACCOUNTS	100000

/* Progress: a line every this many rows, or with -q every LOG_STEP_SECONDS. */
#define PROGRESS_ROWS		100000
#define QUIET_CHECK_ROWS	100
#define LOG_STEP_SECONDS	5

/* COPY data goes out in messages of about this size. */
#define COPY_BUFFER_SIZE	(256 * 1024)
/* The longest row: two 20-digit numbers and the tail. */
#define ROW_MAX				64

/* State shared with the SIGINT handler. */
static volatile sig_atomic_t cancel_requested;
static PGcancel *volatile cancel_handle;

/* A connection and what the steps need to know. */
typedef struct init_ctx
{
	const init_settings *s;
	PGconn	   *conn;
	strbuf		sql;			/* the statement being built */
} init_ctx;

/* One table that generation fills. */
typedef struct gen_table
{
	const char *name;
	int64_t		rows_per_scale;
	int			per_parent;		/* rows per bid, which is the second column; 0: none */
	const char *suffix;			/* the rest of pgbench's text row */
} gen_table;

/*
 * pgbench fills them in this order, in case foreign keys exist already.
 * The filler is NULL but in pgbench_accounts, where it is '' (blanks).
 */
static const gen_table gen_tables[] = {
	{"pgbench_branches", NBRANCHES, 0, "\t0\t\\N\n"},
	{"pgbench_tellers", NTELLERS, NTELLERS, "\t0\t\\N\n"},
	{"pgbench_accounts", NACCOUNTS, NACCOUNTS, "\t0\t\n"},
};

#define NGEN_TABLES (sizeof(gen_tables) / sizeof(gen_tables[0]))

/* A COPY in progress: the buffer, the row tail, the progress report. */
typedef struct copy_state
{
	PGconn	   *conn;
	const gen_table *t;
	char	   *buf;
	size_t		len;

	char		tail[ROW_MAX];	/* the row after its id */
	size_t		tail_len;
	int64_t		parent_next;	/* first row of the next bid */

	/* progress */
	int64_t		total;
	uint64_t	start_ns;
	int			log_interval;
	int			chars;
	int			prev_chars;
	char		eol;
} copy_state;

/* Two digits at a time, for the ids. */
static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* ---------------------------------------------------------------- settings */

bool
init_set_steps(init_settings *s, const char *arg)
{
	if (arg[0] == '\0')
	{
		msg_error("no initialization steps specified");
		return false;
	}
	for (const char *p = arg; *p != '\0'; p++)
	{
		if (strchr(INIT_ALL_STEPS " ", *p) == NULL)
		{
			msg_error("unrecognized initialization step \"%c\"", *p);
			msg_detail("Allowed step characters are: \"" INIT_ALL_STEPS "\".");
			return false;
		}
	}
	free(s->steps);
	s->steps = xstrdup(arg);
	return true;
}

bool
init_set_partition_method(init_settings *s, const char *arg)
{
	if (strcasecmp(arg, "range") == 0)
		s->partition_method = INIT_PART_RANGE;
	else if (strcasecmp(arg, "hash") == 0)
		s->partition_method = INIT_PART_HASH;
	else
	{
		msg_error("invalid partition method, expecting \"range\" or \"hash\", got: \"%s\"", arg);
		return false;
	}
	return true;
}

bool
init_settings_finish(init_settings *s)
{
	char	   *p;

	if (s->partitions == 0 && s->partition_method != INIT_PART_NONE)
	{
		msg_error("--partition-method requires greater than zero --partitions");
		return false;
	}
	if (s->partitions > 0 && s->partition_method == INIT_PART_NONE)
		s->partition_method = INIT_PART_RANGE;
	if (s->steps == NULL)
		s->steps = xstrdup(INIT_DEFAULT_STEPS);
	if (s->no_vacuum)
		while ((p = strchr(s->steps, 'v')) != NULL)
			*p = ' ';
	if (s->foreign_keys && strchr(s->steps, 'f') == NULL)
	{
		size_t		n = strlen(s->steps);

		s->steps = xrealloc(s->steps, n + 2);
		s->steps[n] = 'f';
		s->steps[n + 1] = '\0';
	}
	return true;
}

void
init_settings_free(init_settings *s)
{
	free(s->steps);
	s->steps = NULL;
}

/* ---------------------------------------------------------------- cancel */

/* Write a string to stderr from a signal handler. */
static void
write_stderr_safe(const char *str)
{
	ssize_t		rc = write(STDERR_FILENO, str, strlen(str));

	(void) rc;
}

/*
 * SIGINT: ask the server to cancel what it runs and tell the steps to
 * stop.  A second SIGINT, when the first seems not to be enough, ends
 * the program the default way.
 */
static void
handle_sigint(int signo)
{
	int			save_errno = errno;
	char		errbuf[256];
	PGcancel   *cancel = cancel_handle;

	if (cancel_requested)
	{
		signals_catch(signo, SIG_DFL, 0, NULL);
		raise(signo);
		errno = save_errno;
		return;
	}
	cancel_requested = 1;
	if (cancel != NULL)
	{
		if (PQcancel(cancel, errbuf, sizeof(errbuf)))
			write_stderr_safe("Cancel request sent\n");
		else
		{
			write_stderr_safe("Could not send cancel request: ");
			write_stderr_safe(errbuf);
			write_stderr_safe("\n");
		}
	}
	errno = save_errno;
}

/* ---------------------------------------------------------------- statements */

/*
 * Run one statement that returns no rows.  On failure says so in
 * pgbench's words, unless the failure is the user's cancel request.
 */
static bool
run_sql(init_ctx *c, const char *sql)
{
	PGresult   *res;
	bool		ok;

	if (cancel_requested)
		return false;
	res = PQexec(c->conn, sql);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok && !cancel_requested)
	{
		msg_error("query failed: %s", PQerrorMessage(c->conn));
		msg_detail("Query was: %s", sql);
	}
	PQclear(res);
	return ok && !cancel_requested;
}

/* Append " tablespace|using index tablespace <quoted name>" to c->sql. */
static bool
append_tablespace(init_ctx *c, const char *clause, const char *name)
{
	char	   *quoted = PQescapeIdentifier(c->conn, name, strlen(name));

	if (quoted == NULL)
	{
		msg_error("%s", PQerrorMessage(c->conn));
		return false;
	}
	strbuf_printf(&c->sql, " %s %s", clause, quoted);
	PQfreemem(quoted);
	return true;
}

/* ---------------------------------------------------------------- d, t */

/* d: drop the four tables in one statement, whatever keys link them. */
static bool
step_drop(init_ctx *c)
{
	fprintf(stderr, "dropping old tables...\n");
	return run_sql(c, "drop table if exists pgbench_accounts, pgbench_branches, "
				   "pgbench_history, pgbench_tellers");
}

/* The partitions of pgbench_accounts (--partitions). */
static bool
create_partitions(init_ctx *c)
{
	const init_settings *s = c->s;
	const char *unlogged = s->unlogged_tables ? " unlogged" : "";
	int64_t		part_size = ((int64_t) NACCOUNTS * s->scale + s->partitions - 1) / s->partitions;

	fprintf(stderr, "creating %d partitions...\n", s->partitions);
	for (int p = 1; p <= s->partitions; p++)
	{
		strbuf_reset(&c->sql);
		strbuf_printf(&c->sql, "create%s table pgbench_accounts_%d\n"
					  "  partition of pgbench_accounts\n", unlogged, p);
		if (s->partition_method == INIT_PART_RANGE)
		{
			/* open-ended at both ends: any aid has a partition */
			strbuf_puts(&c->sql, "  for values from (");
			if (p == 1)
				strbuf_puts(&c->sql, "minvalue");
			else
				strbuf_printf(&c->sql, "%" PRId64, (p - 1) * part_size + 1);
			strbuf_puts(&c->sql, ") to (");
			if (p < s->partitions)
				strbuf_printf(&c->sql, "%" PRId64, p * part_size + 1);
			else
				strbuf_puts(&c->sql, "maxvalue");
			strbuf_putc(&c->sql, ')');
		}
		else
			strbuf_printf(&c->sql, "  for values with (modulus %d, remainder %d)",
						  s->partitions, p - 1);
		strbuf_printf(&c->sql, " with (fillfactor=%d)", s->fillfactor);
		if (!run_sql(c, c->sql.data))
			return false;
	}
	return true;
}

/* t: create the four tables (and the partitions), as pgbench declares them. */
static bool
step_create(init_ctx *c)
{
	/*
	 * The filler columns make rows TPC-B's 100 bytes only in
	 * pgbench_accounts, where they hold blanks; elsewhere they stay NULL,
	 * as they always have in pgbench.
	 */
	static const struct
	{
		const char *table;
		const char *cols;		/* when account ids fit an int */
		const char *bigcols;	/* from INIT_SCALE_32BIT_THRESHOLD on */
		bool		fillfactor;
	}			ddl[] = {
		{"pgbench_history",
			"tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22)",
			"tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)",
		false},
		{"pgbench_tellers",
			"tid int not null,bid int,tbalance int,filler char(84)",
			"tid int not null,bid int,tbalance int,filler char(84)",
		true},
		{"pgbench_accounts",
			"aid    int not null,bid int,abalance int,filler char(84)",
			"aid bigint not null,bid int,abalance int,filler char(84)",
		true},
		{"pgbench_branches",
			"bid int not null,bbalance int,filler char(88)",
			"bid int not null,bbalance int,filler char(88)",
		true},
	};
	const init_settings *s = c->s;
	bool		partitioned = s->partition_method != INIT_PART_NONE;

	/*
	 * --unlogged-tables makes the four tables unlogged, but with partitions
	 * only the partitions, as pgbench 18 does: a server from 18 on refuses
	 * an unlogged partitioned table, and a logged pgbench_accounts may not
	 * reference an unlogged pgbench_branches (--foreign-keys).  Any server
	 * gets the same tables.
	 */
	bool		unlogged = s->unlogged_tables && !partitioned;

	fprintf(stderr, "creating tables...\n");
	for (size_t i = 0; i < sizeof(ddl) / sizeof(ddl[0]); i++)
	{
		bool		parent = partitioned && strcmp(ddl[i].table, "pgbench_accounts") == 0;

		strbuf_reset(&c->sql);
		strbuf_printf(&c->sql, "create%s table %s(%s)",
					  unlogged ? " unlogged" : "",
					  ddl[i].table,
					  s->scale >= INIT_SCALE_32BIT_THRESHOLD ? ddl[i].bigcols : ddl[i].cols);
		if (parent)
			strbuf_printf(&c->sql, " partition by %s (aid)",
						  s->partition_method == INIT_PART_RANGE ? "range" : "hash");
		else if (ddl[i].fillfactor)
			strbuf_printf(&c->sql, " with (fillfactor=%d)", s->fillfactor);
		if (s->tablespace != NULL && !append_tablespace(c, "tablespace", s->tablespace))
			return false;
		if (!run_sql(c, c->sql.data))
			return false;
	}
	return !partitioned || create_partitions(c);
}

/* ---------------------------------------------------------------- g */

/* Write v in decimal at p; returns the end. */
static inline char *
put_uint(char *p, uint64_t v)
{
	char		tmp[20];
	char	   *t = tmp + sizeof(tmp);
	size_t		n;

	while (v >= 100)
	{
		unsigned	d = (unsigned) (v % 100) * 2;

		v /= 100;
		t -= 2;
		t[0] = digit_pairs[d];
		t[1] = digit_pairs[d + 1];
	}
	if (v >= 10)
	{
		t -= 2;
		t[0] = digit_pairs[v * 2];
		t[1] = digit_pairs[v * 2 + 1];
	}
	else
		*--t = (char) ('0' + v);
	n = (size_t) (tmp + sizeof(tmp) - t);
	memcpy(p, t, n);
	return p + n;
}

/*
 * Find out which tables COPY may FREEZE: on servers from 14 on, those
 * that are ordinary tables (a partitioned table cannot be frozen).
 */
static bool
plan_freeze(init_ctx *c, bool *freeze)
{
	static const char query[] =
		"select c.relname from pg_catalog.pg_class c "
		"where c.oid in ('pgbench_branches'::pg_catalog.regclass, "
		"'pgbench_tellers'::pg_catalog.regclass, "
		"'pgbench_accounts'::pg_catalog.regclass) "
		"and c.relkind = 'r'";
	PGresult   *res;

	memset(freeze, 0, sizeof(bool) * NGEN_TABLES);
	if (PQserverVersion(c->conn) < 140000)
		return true;
	if (cancel_requested)
		return false;
	res = PQexec(c->conn, query);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		if (!cancel_requested)
		{
			msg_error("query failed: %s", PQerrorMessage(c->conn));
			msg_detail("Query was: %s", query);
		}
		PQclear(res);
		return false;
	}
	for (int r = 0; r < PQntuples(res); r++)
		for (size_t i = 0; i < NGEN_TABLES; i++)
			if (strcmp(PQgetvalue(res, r, 0), gen_tables[i].name) == 0)
				freeze[i] = true;
	PQclear(res);
	return true;
}

/* The tail of the rows of branch bid: "\t<bid>" if the table has one, then the rest. */
static void
build_tail(copy_state *cs, int64_t bid)
{
	const gen_table *t = cs->t;
	char	   *p = cs->tail;
	size_t		n = strlen(t->suffix);

	if (t->per_parent > 0)
	{
		*p++ = '\t';
		p = put_uint(p, (uint64_t) bid);
	}
	memcpy(p, t->suffix, n);
	cs->tail_len = (size_t) (p - cs->tail) + n;
}

/* Send what the buffer holds. */
static bool
copy_flush(copy_state *cs)
{
	if (cs->len > 0 && PQputCopyData(cs->conn, cs->buf, (int) cs->len) != 1)
		return false;
	cs->len = 0;
	return true;
}

/* Rows [from, to) into the buffer, flushing it as it fills. */
static bool
copy_rows(copy_state *cs, int64_t from, int64_t to)
{
	const gen_table *t = cs->t;

	for (int64_t k = from; k < to; k++)
	{
		char	   *p;

		if (cs->len + ROW_MAX > COPY_BUFFER_SIZE)
		{
			if (cancel_requested || !copy_flush(cs))
				return false;
		}
		if (t->per_parent > 0 && k >= cs->parent_next)
		{
			int64_t		bid = k / t->per_parent + 1;

			build_tail(cs, bid);
			cs->parent_next = bid * t->per_parent;
		}
		p = put_uint(cs->buf + cs->len, (uint64_t) k + 1);
		memcpy(p, cs->tail, cs->tail_len);
		cs->len = (size_t) (p - cs->buf) + cs->tail_len;
	}
	return true;
}

/* Print pgbench's progress line for j rows done. */
static void
copy_progress(copy_state *cs, int64_t j, double elapsed)
{
	char		line[512];
	double		remaining = ((double) cs->total - j) * elapsed / j;
	int			n;

	n = snprintf(line, sizeof(line) - 2,
				 "%" PRId64 " of %" PRId64 " tuples (%d%%) of %s done (elapsed %.2f s, remaining %.2f s)",
				 j, cs->total, (int) ((j * 100) / cs->total), cs->t->name, elapsed, remaining);
	if (n < 0)
		return;
	if (n > (int) sizeof(line) - 2)
		n = (int) sizeof(line) - 2;
	cs->chars = n;
	/* blank out what is left of a longer previous line */
	while (n < cs->prev_chars && n < (int) sizeof(line) - 2)
		line[n++] = ' ';
	line[n++] = cs->eol;
	fwrite(line, 1, (size_t) n, stderr);
	cs->prev_chars = cs->chars;
}

/* End the COPY (or abort it, when !ok) and read its outcome. */
static bool
copy_finish(init_ctx *c, copy_state *cs, bool ok, const char *sql)
{
	PGresult   *res;
	bool		reported = false;

	if (ok && !copy_flush(cs))
		ok = false;
	if (PQputCopyEnd(c->conn, ok ? NULL : "canceled by the client") != 1)
		ok = false;
	while ((res = PQgetResult(c->conn)) != NULL)
	{
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
		{
			if (!cancel_requested && !reported)
			{
				msg_error("query failed: %s", PQerrorMessage(c->conn));
				msg_detail("Query was: %s", sql);
				reported = true;
			}
			ok = false;
		}
		PQclear(res);
	}
	if (!ok && !reported && !cancel_requested)
	{
		msg_error("could not send COPY data: %s", PQerrorMessage(c->conn));
		msg_detail("Query was: %s", sql);
	}
	return ok && !cancel_requested;
}

/* Load one table with COPY, printing pgbench's progress lines. */
static bool
copy_table(init_ctx *c, const gen_table *t, bool freeze, char *buf)
{
	const init_settings *s = c->s;
	copy_state	cs;
	PGresult   *res;
	int64_t		k = 0;
	bool		ok = true;

	memset(&cs, 0, sizeof(cs));
	cs.conn = c->conn;
	cs.t = t;
	cs.buf = buf;
	cs.total = t->rows_per_scale * s->scale;
	cs.log_interval = 1;
	/* on a terminal the line is rewritten in place */
	cs.eol = isatty(fileno(stderr)) ? '\r' : '\n';
	build_tail(&cs, 1);
	cs.parent_next = t->per_parent;

	strbuf_reset(&c->sql);
	strbuf_printf(&c->sql, "copy %s from stdin%s", t->name, freeze ? " with (freeze on)" : "");

	if (cancel_requested)
		return false;
	res = PQexec(c->conn, c->sql.data);
	if (PQresultStatus(res) != PGRES_COPY_IN)
	{
		if (!cancel_requested)
		{
			msg_error("query failed: %s", PQerrorMessage(c->conn));
			msg_detail("Query was: %s", c->sql.data);
		}
		PQclear(res);
		return false;
	}
	PQclear(res);
	cs.start_ns = clock_now_ns();

	while (k < cs.total)
	{
		int64_t		step = s->quiet ? QUIET_CHECK_ROWS : PROGRESS_ROWS;
		int64_t		stop = (k / step + 1) * step;
		double		elapsed;

		if (stop > cs.total)
			stop = cs.total;
		if (!copy_rows(&cs, k, stop) || cancel_requested)
		{
			ok = false;
			break;
		}
		k = stop;
		if (!s->quiet && k % PROGRESS_ROWS == 0)
			copy_progress(&cs, k, (double) (clock_now_ns() - cs.start_ns) / NS_PER_S);
		else if (s->quiet && k % QUIET_CHECK_ROWS == 0)
		{
			elapsed = (double) (clock_now_ns() - cs.start_ns) / NS_PER_S;
			if (k == cs.total || elapsed >= cs.log_interval * LOG_STEP_SECONDS)
			{
				copy_progress(&cs, k, elapsed);
				cs.log_interval = (int) ceil(elapsed / LOG_STEP_SECONDS);
			}
		}
	}
	if (cs.chars != 0 && cs.eol != '\n')
		fprintf(stderr, "%*c\r", cs.chars, ' ');
	return copy_finish(c, &cs, ok, c->sql.data);
}

/* Empty the four tables, in one statement in case foreign keys link them. */
static bool
truncate_tables(init_ctx *c)
{
	return run_sql(c, "truncate table pgbench_accounts, pgbench_branches, "
				   "pgbench_history, pgbench_tellers");
}

/*
 * g: fill the tables from the client, in one transaction with the
 * truncation so that COPY can freeze the rows.
 */
static bool
step_generate_client(init_ctx *c)
{
	bool		freeze[NGEN_TABLES];
	char	   *buf;
	bool		ok;

	fprintf(stderr, "generating data (client-side)...\n");
	if (!run_sql(c, "begin") || !truncate_tables(c) || !plan_freeze(c, freeze))
		return false;
	buf = xmalloc(COPY_BUFFER_SIZE);
	ok = true;
	for (size_t i = 0; ok && i < NGEN_TABLES; i++)
		ok = copy_table(c, &gen_tables[i], freeze[i], buf);
	free(buf);
	return ok && run_sql(c, "commit");
}

/* G: fill the tables with INSERT ... SELECT from generate_series(). */
static bool
step_generate_server(init_ctx *c)
{
	int64_t		scale = c->s->scale;

	fprintf(stderr, "generating data (server-side)...\n");
	if (!run_sql(c, "begin") || !truncate_tables(c))
		return false;

	strbuf_reset(&c->sql);
	strbuf_printf(&c->sql, "insert into pgbench_branches(bid,bbalance) "
				  "select bid, 0 "
				  "from generate_series(1, %" PRId64 ") as bid", NBRANCHES * scale);
	if (!run_sql(c, c->sql.data))
		return false;

	strbuf_reset(&c->sql);
	strbuf_printf(&c->sql, "insert into pgbench_tellers(tid,bid,tbalance) "
				  "select tid, (tid - 1) / %d + 1, 0 "
				  "from generate_series(1, %" PRId64 ") as tid", NTELLERS, NTELLERS * scale);
	if (!run_sql(c, c->sql.data))
		return false;

	strbuf_reset(&c->sql);
	strbuf_printf(&c->sql, "insert into pgbench_accounts(aid,bid,abalance,filler) "
				  "select aid, (aid - 1) / %d + 1, 0, '' "
				  "from generate_series(1, %" PRId64 ") as aid",
				  NACCOUNTS, (int64_t) NACCOUNTS * scale);
	if (!run_sql(c, c->sql.data))
		return false;

	return run_sql(c, "commit");
}

/* ---------------------------------------------------------------- v, p, f */

/* v: vacuum analyze each table. */
static bool
step_vacuum(init_ctx *c)
{
	fprintf(stderr, "vacuuming...\n");
	return run_sql(c, "vacuum analyze pgbench_branches") &&
		run_sql(c, "vacuum analyze pgbench_tellers") &&
		run_sql(c, "vacuum analyze pgbench_accounts") &&
		run_sql(c, "vacuum analyze pgbench_history");
}

/* p: primary keys, in the index tablespace if one was given. */
static bool
step_primary_keys(init_ctx *c)
{
	static const char *const pkeys[] = {
		"alter table pgbench_branches add primary key (bid)",
		"alter table pgbench_tellers add primary key (tid)",
		"alter table pgbench_accounts add primary key (aid)",
	};

	fprintf(stderr, "creating primary keys...\n");
	for (size_t i = 0; i < sizeof(pkeys) / sizeof(pkeys[0]); i++)
	{
		strbuf_reset(&c->sql);
		strbuf_puts(&c->sql, pkeys[i]);
		if (c->s->index_tablespace != NULL &&
			!append_tablespace(c, "using index tablespace", c->s->index_tablespace))
			return false;
		if (!run_sql(c, c->sql.data))
			return false;
	}
	return true;
}

/* f: foreign keys between the tables. */
static bool
step_foreign_keys(init_ctx *c)
{
	static const char *const fkeys[] = {
		"alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches",
		"alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) references pgbench_branches",
		"alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) references pgbench_branches",
		"alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) references pgbench_tellers",
		"alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) references pgbench_accounts",
	};

	fprintf(stderr, "creating foreign keys...\n");
	for (size_t i = 0; i < sizeof(fkeys) / sizeof(fkeys[0]); i++)
		if (!run_sql(c, fkeys[i]))
			return false;
	return true;
}

/* ---------------------------------------------------------------- run */

/* The steps: letter, name in the "done in" line, function. */
static const struct
{
	char		letter;
	const char *op;
	bool		(*run) (init_ctx *c);
}			init_steps[] = {
	{'d', "drop tables", step_drop},
	{'t', "create tables", step_create},
	{'g', "client-side generate", step_generate_client},
	{'G', "server-side generate", step_generate_server},
	{'v', "vacuum", step_vacuum},
	{'p', "primary keys", step_primary_keys},
	{'f', "foreign keys", step_foreign_keys},
};

/* Run the steps on an open connection; the exit status. */
static int
run_steps(init_ctx *c, const char *steps)
{
	strbuf		stats;
	double		run_time = 0.0;

	strbuf_init(&stats);
	for (const char *p = steps; *p != '\0'; p++)
	{
		size_t		i;
		uint64_t	start;
		double		elapsed;

		if (*p == ' ')
			continue;
		for (i = 0; i < sizeof(init_steps) / sizeof(init_steps[0]); i++)
			if (init_steps[i].letter == *p)
				break;
		if (i == sizeof(init_steps) / sizeof(init_steps[0]))
		{
			msg_error("unrecognized initialization step \"%c\"", *p);
			strbuf_free(&stats);
			return EXITCODE_ERROR;
		}
		if (cancel_requested)
			break;
		start = clock_now_ns();
		if (!init_steps[i].run(c))
		{
			if (cancel_requested)
				msg_error("initialization canceled by user during \"%s\"", init_steps[i].op);
			strbuf_free(&stats);
			return cancel_requested ? EXITCODE_SIGNAL(SIGINT) : EXITCODE_ERROR;
		}
		elapsed = (double) (clock_now_ns() - start) / NS_PER_S;
		strbuf_printf(&stats, "%s%s %.2f s", stats.len > 0 ? ", " : "", init_steps[i].op, elapsed);
		run_time += elapsed;
	}
	if (cancel_requested)
	{
		msg_error("initialization canceled by user");
		strbuf_free(&stats);
		return EXITCODE_SIGNAL(SIGINT);
	}
	fprintf(stderr, "done in %.2f s (%s).\n", run_time, stats.data);
	strbuf_free(&stats);
	return EXITCODE_OK;
}

int
init_run(const init_settings *s, const conn_opts *conn)
{
	init_ctx	c;
	char	   *cause = NULL;
	struct sigaction old_sa;
	int			status;

	memset(&c, 0, sizeof(c));
	c.s = s;
	c.conn = conn_open(conn, &cause);
	if (c.conn == NULL)
	{
		msg_error("%s", cause);
		msg_error("could not create connection for initialization");
		free(cause);
		return EXITCODE_ERROR;
	}
	strbuf_init(&c.sql);

	cancel_requested = 0;
	cancel_handle = PQgetCancel(c.conn);
	signals_catch(SIGINT, handle_sigint, SA_RESTART, &old_sa);

	status = run_steps(&c, s->steps != NULL ? s->steps : INIT_DEFAULT_STEPS);

	signals_restore(SIGINT, &old_sa);
	PQfreeCancel(cancel_handle);
	cancel_handle = NULL;
	strbuf_free(&c.sql);
	PQfinish(c.conn);
	return status;
}
