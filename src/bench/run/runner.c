/*
 * runner.c — the run: the set-up connection (banner, table facts,
 * vacuum), the threads' start and end, the -P lines and chart points,
 * and the merged results.
 */
#include "config.h"

#include "runner.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clientio.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"
#include "results/report.h"
#include "runstate.h"
#include "startat.h"
#include "thread.h"

#define SQLSTATE_UNDEFINED_TABLE "42P01"

/* The run: what its threads share, and what only the run itself keeps. */
typedef struct run_state
{
	runner		r;				/* first: the threads see the run through it */
	bench_results *res;			/* what the run hands back */
	/* -P (thread 0): merged latency histograms at the last line and now, and the interval's */
	hist	   *prog_last;
	hist	   *prog_cur;
	hist	   *prog_interval;
	int			maxprogress;	/* allocated in res->progress */
	int			maxchart;		/* allocated in res->chart */
	bool		prog_measured;	/* --warmup: -P counts the measured part only from now on */
	/* --json's series with several scripts: their merged histograms and totals at the last row */
	hist	   *ser_last;
	hist	   *ser_cur;
	hist	   *ser_ival;
	stats	   *ser_last_st;
} run_state;

/* --chart: keep the interval's numbers. */
static void
add_chart_point(run_state *r, const report_progress_point *p, const hist *interval)
{
	bench_chart_point *cp;
	bool		any = interval != NULL && interval->total > 0;

	if (r->res->nchart == r->maxchart)
	{
		r->maxchart = r->maxchart > 0 ? 2 * r->maxchart : 64;
		r->res->chart = xrealloc(r->res->chart, (size_t) r->maxchart * sizeof(*cp));
	}
	cp = &r->res->chart[r->res->nchart++];
	cp->elapsed_s = p->elapsed_s;
	cp->tps = p->tps;
	cp->p50_ms = any ? (double) hist_percentile(interval, 50) / 1e6 : NAN;
	cp->p99_ms = any ? (double) hist_percentile(interval, 99) / 1e6 : NAN;
	cp->max_ms = any ? (double) hist_percentile(interval, 100) / 1e6 : NAN;
	cp->lag_ms = r->r.s->rate > 0 && p->transactions > 0 ? p->lag_ms : NAN;
	cp->failed = p->failed;
	cp->skipped = p->skipped;
	cp->warmup = p->warmup;
	cp->waits = p->waits_mix;
}

/*
 * The totals and the merged latency histogram (into h, when not NULL)
 * of every thread: with the warm-up's transactions until the -P line
 * where the measured part begins, and without them after it.
 */
static void
progress_totals(run_state *r, bool with_warm, stats *cur, hist *h)
{
	const bench_settings *s = r->r.s;

	stats_init(cur);
	if (h != NULL)
		hist_init(h);
	for (int i = 0; i < s->nthreads; i++)
	{
		bthread    *th = &r->r.threads[i];

		stats_merge(cur, &th->st);
		if (with_warm)
			stats_merge(cur, &th->warm_st);
		if (h != NULL)
		{
			hist_merge(h, th->lat_hist);
			if (with_warm)
				hist_merge(h, th->warm_hist);
		}
	}
}

/* The numbers of one interval into cell c. */
static void
set_cell(series_cell *c, const stats *cur, const stats *last, const hist *interval)
{
	c->transactions = cur->cnt - last->cnt;
	c->failed = stats_failures(cur) - stats_failures(last);
	c->latency_sum_ns = cur->latency.sum - last->latency.sum;
	c->hist_text = series_hist_text(interval);
}

/*
 * --json: the interval's row of the series (interval: its merged
 * histogram), with several scripts each script's numbers, taken from
 * snapshots of the threads' cumulative counters as the -P line is.
 */
static void
add_series_row(run_state *r, const report_progress_point *p, const hist *interval,
			   const stats *cur, const stats *last)
{
	const bench_settings *s = r->r.s;
	series_row *row;

	if (r->res->series.interval_s == 0)
		series_init(&r->res->series, s->progress > 0 ? s->progress : 1,
					s->nscripts > 1 ? 1 + s->nscripts : 1);
	row = series_add_row(&r->res->series, p->elapsed_s, p->epoch_s, p->interval_s);
	set_cell(&row->cells[0], cur, last, interval);
	if (s->nscripts <= 1)
		return;
	if (r->ser_last == NULL)
	{
		r->ser_last = hist_new((size_t) s->nscripts);
		r->ser_cur = hist_new((size_t) s->nscripts);
		r->ser_ival = hist_new(1);
		r->ser_last_st = xcalloc((size_t) s->nscripts, sizeof(stats));
		for (int i = 0; i < s->nscripts; i++)
			stats_init(&r->ser_last_st[i]);
	}
	for (int i = 0; i < s->nscripts; i++)
	{
		stats		st;

		stats_init(&st);
		hist_init(&r->ser_cur[i]);
		for (int t = 0; t < s->nthreads; t++)
		{
			stats_merge(&st, &r->r.threads[t].script_stats[i]);
			if (r->r.threads[t].script_hist != NULL)
				hist_merge(&r->ser_cur[i], &r->r.threads[t].script_hist[i]);
		}
		stats_hist_interval(r->ser_ival, &r->ser_cur[i], &r->ser_last[i]);
		set_cell(&row->cells[1 + i], &st, &r->ser_last_st[i], r->ser_ival);
		r->ser_last[i] = r->ser_cur[i];
		r->ser_last_st[i] = st;
	}
}

/*
 * Thread 0's -P line: the totals of every thread since the last line.
 * The interval's percentiles come from the difference of two merged
 * snapshots of the threads' cumulative histograms (stats_hist_interval):
 * no thread resets anything, so nothing recorded between two lines is
 * lost or counted twice.
 */
static void
progress_report(runner *shared, uint64_t now, uint64_t start, stats *last, uint64_t *last_report)
{
	run_state  *r = (run_state *) shared;
	const bench_settings *s = r->r.s;
	stats		cur;
	hist	   *interval = NULL;
	report_progress_point p;
	uint64_t	mf = measure_from(&r->r);
	bool		warm = mf != 0 && !r->prog_measured;
	bool		with_hist = s->progress_percentiles || s->json_path != NULL || s->chart_path != NULL;

	if (with_hist && r->prog_last == NULL)
	{
		r->prog_last = hist_new(1);
		r->prog_cur = hist_new(1);
		r->prog_interval = hist_new(1);
	}
	progress_totals(r, warm, &cur, with_hist ? r->prog_cur : NULL);
	if (with_hist)
	{
		hist	   *t;

		stats_hist_interval(r->prog_interval, r->prog_cur, r->prog_last);
		interval = r->prog_interval;
		t = r->prog_last;
		r->prog_last = r->prog_cur;
		r->prog_cur = t;
	}
	report_progress_compute(&p, s, &cur, last, interval, (double) (now - *last_report) / 1e9,
							(double) (now - start) / 1e9,
							(double) ((int64_t) now + r->r.epoch_shift_ns) / 1e9);
	bwaits_interval_take(r->r.waits, &p.top_wait, &p.waits_mix);
	p.warmup = warm;
	if (s->progress > 0 && !s->progress_quiet)
		report_progress_print(stderr, s, &p);
	if (s->chart_path != NULL)
		add_chart_point(r, &p, interval);
	if (s->json_path != NULL && interval != NULL && !warm)
		add_series_row(r, &p, interval, &cur, last);
	/* the warm-up is left out of every result */
	if (s->json_path != NULL && s->progress > 0 && !warm)
	{
		if (r->res->nprogress == r->maxprogress)
		{
			r->maxprogress = r->maxprogress > 0 ? 2 * r->maxprogress : 64;
			r->res->progress = xrealloc(r->res->progress, (size_t) r->maxprogress * sizeof(p));
		}
		r->res->progress[r->res->nprogress++] = p;
	}
	*last = cur;
	*last_report = now;
	if (warm && now >= mf)
	{
		/* the warm-up's last line: the next ones count the measured transactions alone */
		r->prog_measured = true;
		progress_totals(r, false, last, with_hist ? r->prog_last : NULL);
	}
}

/* The banner: our version and the server's. */
static void
print_version(run_state *r, PGconn *con)
{
	const char *sv = PQparameterStatus(con, "server_version");
	FILE	   *out = report_stream(r->r.s);	/* stderr under --json=- */

	fprintf(out, "%s (pgtempo %s, server %s)\n", msg_progname(), PACKAGE_VERSION,
			sv ? sv : "unknown");
	fflush(out);
	r->res->server_version = sv != NULL ? xstrdup(sv) : NULL;
	r->res->server_version_num = PQserverVersion(con);
}

/* Run a statement whose failure does not matter (the vacuums), as pgbench does. */
static void
try_execute(PGconn *con, const char *sql)
{
	PGresult   *res = PQexec(con, sql);

	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		msg_error("%s", PQerrorMessage(con));
		msg_detail("(ignoring this error and continuing anyway)");
	}
	PQclear(res);
}

/* With a builtin script: the scale from pgbench_branches and the partitioning of pgbench_accounts. */
static bool
table_info(PGconn *con, const bench_settings *s, bench_server_facts *server)
{
	PGresult   *res = PQexec(con, "select count(*) from pgbench_branches");
	int			scale;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);

		msg_error("could not count number of branches: %s", PQerrorMessage(con));
		if (state != NULL && strcmp(state, SQLSTATE_UNDEFINED_TABLE) == 0)
			msg_hint("Perhaps you need to do initialization (\"%s -i\") in database \"%s\".",
					 msg_progname(), PQdb(con));
		PQclear(res);
		return false;
	}
	scale = atoi(PQgetvalue(res, 0, 0));
	if (scale < 0)
	{
		msg_error("invalid count(*) from pgbench_branches: \"%s\"", PQgetvalue(res, 0, 0));
		PQclear(res);
		return false;
	}
	PQclear(res);
	if (s->scale_given)
		msg_warning("scale option ignored, using count from pgbench_branches table (%d)", scale);
	server->scale = scale;

	/* the pgbench_accounts that search_path finds first */
	res = PQexec(con,
				 "select p.partstrat, (select count(*) from pg_catalog.pg_inherits i "
				 "where i.inhparent = c.oid) "
				 "from pg_catalog.pg_class c "
				 "left join pg_catalog.pg_partitioned_table p on p.partrelid = c.oid "
				 "where c.oid = pg_catalog.to_regclass('pgbench_accounts')");
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		server->partition_method = NULL;
		server->partitions = 0;
	}
	else if (PQntuples(res) == 0)
	{
		msg_error("no pgbench_accounts table found in \"search_path\"");
		msg_hint("Perhaps you need to do initialization (\"%s -i\") in database \"%s\".",
				 msg_progname(), PQdb(con));
		PQclear(res);
		return false;
	}
	else
	{
		const char *m = PQgetisnull(res, 0, 0) ? "" : PQgetvalue(res, 0, 0);

		server->partition_method = strcmp(m, "r") == 0 ? "range" : strcmp(m, "h") == 0 ? "hash" : NULL;
		server->partitions = server->partition_method != NULL ? atoi(PQgetvalue(res, 0, 1)) : 0;
	}
	PQclear(res);
	return true;
}

/* -l: open every thread's log before the run, so a bad path fails first. */
static bool
open_logs(run_state *r, uint64_t now)
{
	for (int t = 0; t < r->r.s->nthreads; t++)
	{
		r->r.threads[t].log = txlog_open(r->r.s, t, now, r->r.epoch_shift_ns);
		if (r->r.threads[t].log == NULL)
			return false;
	}
	return true;
}

/*
 * A run that ends before it starts (no server, no tables): its logs, still
 * empty, are removed, as if they had never been opened (pgbench opens them
 * later), and the thread array, which holds nothing else yet, is freed.
 */
static void
drop_logs(run_state *r)
{
	for (int t = 0; t < r->r.s->nthreads; t++)
	{
		if (r->r.threads[t].log != NULL)
		{
			(void) unlink(txlog_path(r->r.threads[t].log));
			txlog_close(r->r.threads[t].log, 0);
		}
	}
	free(r->r.threads);
}

/*
 * Write out and close every thread's log (on every way out of the run:
 * the end, an abort, a signal); returns the number of lines lost to
 * write errors.
 */
static int64_t
close_logs(run_state *r, uint64_t now)
{
	int64_t		lost = 0;

	for (int t = 0; t < r->r.s->nthreads; t++)
	{
		if (r->r.threads[t].log != NULL)
		{
			lost += txlog_close(r->r.threads[t].log, now);
			r->r.threads[t].log = NULL;
		}
	}
	return lost;
}


/*
 * Merge the threads' counters and histograms into res->data: the report,
 * --json and --latency-histogram read them there.
 */
static void
merge_results(run_state *r, uint64_t start_time, uint64_t end)
{
	const bench_settings *s = r->r.s;
	report_data *d = &r->res->data;
	uint64_t	bench_start = 0,
				conn_ns = 0,
				mf,
				measured;

	memset(d, 0, sizeof(*d));
	stats_init(&d->total);
	d->scripts = xcalloc((size_t) s->nscripts, sizeof(stats));
	d->commands = xcalloc((size_t) s->nscripts, sizeof(stats_command *));
	for (int i = 0; i < s->nscripts; i++)
		d->commands[i] = xcalloc((size_t) s->scripts[i]->ncommands + 1, sizeof(stats_command));
	d->lat_hist = hist_new(1);
	if (s->nscripts > 1)
		d->script_hists = hist_new((size_t) s->nscripts);
	for (int t = 0; t < s->nthreads; t++)
	{
		bthread    *th = &r->r.threads[t];

		stats_merge(&d->total, &th->st);
		hist_merge(d->lat_hist, th->lat_hist);
		for (int i = 0; i < s->nscripts; i++)
		{
			stats_merge(&d->scripts[i], &th->script_stats[i]);
			if (d->script_hists != NULL && th->script_hist != NULL)
				hist_merge(&d->script_hists[i], &th->script_hist[i]);
			for (int k = 0; k < s->scripts[i]->ncommands; k++)
			{
				d->commands[i][k].count += th->cmd_stats[i][k].count;
				d->commands[i][k].sum += th->cmd_stats[i][k].sum;
				d->commands[i][k].failures += th->cmd_stats[i][k].failures;
				d->commands[i][k].retries += th->cmd_stats[i][k].retries;
			}
		}
		conn_ns += th->conn_ns;
		if (bench_start == 0 || th->bench_start < bench_start)
			bench_start = th->bench_start;
	}
	/* --warmup: the measured part only (nothing of it if the run stopped before) */
	mf = measure_from(&r->r);
	measured = mf > bench_start ? (mf < end ? mf : end) : bench_start;
	d->bench_duration_s = (double) (end - measured) / 1e9;
	d->conn_total_ms = (double) conn_ns / 1e6;
	/* --start-at: the wait for the common start is not connection time */
	d->conn_elapsed_ms = (double) ((r->r.connected_at != 0 ? r->r.connected_at : bench_start) -
								   start_time) / 1e6;
	r->res->bench_start_epoch_s = (double) ((int64_t) measured + r->r.epoch_shift_ns) / 1e9;
	r->res->merged = true;
}

/* The vacuums before the run (-n: none; -v: pgbench_accounts too). */
static void
vacuum(const bench_settings *s, PGconn *con)
{
	if (s->no_vacuum)
		return;
	fprintf(stderr, "starting vacuum...");
	try_execute(con, "vacuum pgbench_branches");
	try_execute(con, "vacuum pgbench_tellers");
	try_execute(con, "truncate pgbench_history");
	fprintf(stderr, "end.\n");
	if (s->vacuum_all)
	{
		fprintf(stderr, "starting vacuum pgbench_accounts...");
		try_execute(con, "vacuum analyze pgbench_accounts");
		fprintf(stderr, "end.\n");
	}
}

/*
 * Seed the clients (their variables and random states) and deal them to
 * the threads; false (the cause printed) if a -D value does not fit.
 */
static bool
make_clients(run_state *r, setup_thread *setup)
{
	const bench_settings *s = r->r.s;
	exec_client *ec = xcalloc((size_t) s->nclients, sizeof(exec_client));
	prng_state	base = s->base;

	r->r.clients = xcalloc((size_t) s->nclients, sizeof(client));
	if (!setup_clients(ec, s->nclients, setup, s->nthreads, s->defines, r->res->server.scale,
					   s->random_seed, &base))
	{
		free(ec);
		return false;
	}
	for (int i = 0; i < s->nclients; i++)
		r->r.clients[i].ec = ec[i];
	free(ec);
	return true;
}

/*
 * Everything before the threads start: the -l logs (first, so that a bad
 * path fails before any connection), the set-up connection with the
 * banner and the tables' facts, the clients, the vacuum.  False (the
 * cause printed, the logs removed) if the run cannot take place.
 */
static bool
set_up(run_state *r, setup_thread *setup)
{
	const bench_settings *s = r->r.s;
	char	   *cause = NULL;
	PGconn	   *con;
	struct timespec wall;
	uint64_t	now,
				deadline;

	clock_gettime(CLOCK_REALTIME, &wall);
	now = clock_now_ns();
	r->r.epoch_shift_ns = (int64_t) wall.tv_sec * (int64_t) NS_PER_S + wall.tv_nsec - (int64_t) now;
	if (s->use_log && !open_logs(r, now))
		return false;
	/* with -T, connecting gives up when the run would have ended, grace included */
	deadline = s->duration > 0 ? startat_run_base(s, now, r->r.epoch_shift_ns) +
		((uint64_t) bench_run_bound_s(s) + STOP_DEADLINE_GRACE_S) * NS_PER_S : CONN_NO_DEADLINE;
	con = conn_connect(&s->conn, deadline, NULL, &cause);
	if (con == NULL)
	{
		if (clock_now_ns() >= deadline)
			clientio_connect_timed_out(true, bench_run_bound_s(s) + STOP_DEADLINE_GRACE_S);
		else
			msg_error("%s", cause);
		msg_error("could not create connection for setup");
		free(cause);
		return false;
	}
	print_version(r, con);
	if (s->debug)
		clientio_debug("pghost: %s pgport: %s nclients: %d %s: %lld dbName: %s", PQhost(con),
					   PQport(con), s->nclients, s->duration <= 0 ? "nxacts" : "duration",
					   s->duration <= 0 ? (long long) s->transactions : (long long) s->duration,
					   PQdb(con));
	if ((s->builtin_used && !table_info(con, s, &r->res->server)) || !make_clients(r, setup))
	{
		PQfinish(con);
		return false;
	}
	vacuum(s, con);
	PQfinish(con);
	return true;
}

/*
 * -M prepared's statement names: "P_n", n counting the SQL commands of all
 * scripts in order, as pgbench 15 and later name them (meta-commands take
 * no number), so that server logs and pg_prepared_statements show the
 * same names with either tool.
 */
static void
name_statements(run_state *r)
{
	const bench_settings *s = r->r.s;
	int			n = 0;

	for (int i = 0; i < s->nscripts; i++)
		for (int j = 0; j < s->scripts[i]->ncommands; j++)
			if (s->scripts[i]->commands[j]->type == CMD_SQL)
				r->r.prepnames[r->r.cmd_base[i] + j] = xasprintf("P_%d", n++);
}

/* Load-time resolution: weights, overall command numbers, statement names. */
static void
resolve_commands(run_state *r)
{
	const bench_settings *s = r->r.s;
	int			k = 0;

	for (int i = 0; i < s->nscripts; i++)
	{
		r->r.weights[i] = s->scripts[i]->weight;
		r->r.cmd_base[i] = k;
		k += s->scripts[i]->ncommands;
	}
	r->r.cmd_base[s->nscripts] = k;
	r->r.prepnames = xcalloc((size_t) k + 1, sizeof(char *));
	name_statements(r);
}

/* Start the threads (this one is thread 0), wait for them, and hand the outcome to res. */
static void
run_threads(run_state *r)
{
	const bench_settings *s = r->r.s;
	bench_results *res = r->res;
	uint64_t	start_time,
				end;

	if (s->waits_ns > 0)
		r->r.waits = bwaits_start(s, s->nclients);
	start_time = clock_now_ns();
	pthread_barrier_init(&r->r.barrier, NULL, (unsigned) s->nthreads);
	for (int t = 1; t < s->nthreads; t++)
	{
		int			e = pthread_create(&r->r.threads[t].tid, NULL, thread_main, &r->r.threads[t]);

		/* the threads started wait at the barrier for this one: nothing to recover */
		if (e != 0)
			msg_fatal_errno(e, "could not create thread");
	}
	thread_main(&r->r.threads[0]);
	for (int t = 1; t < s->nthreads; t++)
		pthread_join(r->r.threads[t].tid, NULL);
	end = clock_now_ns();
	pthread_barrier_destroy(&r->r.barrier);
	res->waits = bwaits_stop(r->r.waits);
	r->r.waits = NULL;

	res->log_lines_lost = close_logs(r, end);
	for (int t = 0; t < s->nthreads; t++)
		res->abandoned += r->r.threads[t].abandoned;
	for (int i = 0; i < s->nclients; i++)
		if (r->r.clients[i].state == CS_ABORTED)
			res->client_aborted = true;
	res->setup_failed = atomic_load(&r->r.setup_failed);
	res->aborted_all = atomic_load(&r->r.abort_all);
	res->abort_thread = atomic_load(&r->r.abort_thread) - 1;
	res->stop_signal = stop_signal;
	res->second_signal = stop_count >= 2;
	res->warmup = r->r.warm.out;
	res->start_epoch_s = (double) ((int64_t) start_time + r->r.epoch_shift_ns) / 1e9;
	res->end_epoch_s = (double) ((int64_t) end + r->r.epoch_shift_ns) / 1e9;
	clock_sync_status(&res->clock);
	if (!res->setup_failed || res->stop_signal != 0)
		merge_results(r, start_time, end);
	res->data.waits = res->waits;
}

/* Free what the run allocated (res aside). */
static void
free_run(run_state *r, setup_thread *setup)
{
	const bench_settings *s = r->r.s;

	close_logs(r, clock_now_ns());
	free(r->prog_last);
	free(r->prog_cur);
	free(r->prog_interval);
	free(r->ser_last);
	free(r->ser_cur);
	free(r->ser_ival);
	free(r->ser_last_st);
	if (r->r.prepnames != NULL)
	{
		for (int i = 0; i < r->r.cmd_base[s->nscripts]; i++)
			free(r->r.prepnames[i]);
		free(r->r.prepnames);
	}
	free(r->r.threads);
	free(r->r.clients);
	free(setup);
}

bool
runner_run(const bench_settings *s, bench_results *res)
{
	run_state	r;
	setup_thread *setup;
	bool		ok = true;

	memset(&r, 0, sizeof(r));
	memset(res, 0, sizeof(*res));
	r.r.s = s;
	r.r.on_progress = progress_report;
	atomic_init(&r.r.measure_from, s->warmup != WARMUP_NONE ? UINT64_MAX : 0);
	atomic_init(&r.r.end_time, 0);
	r.res = res;
	res->server.scale = s->scale;
	r.r.threads = xcalloc((size_t) s->nthreads, sizeof(bthread));
	setup = xcalloc((size_t) s->nthreads, sizeof(setup_thread));
	if (!set_up(&r, setup))
	{
		drop_logs(&r);
		for (int i = 0; r.r.clients != NULL && i < s->nclients; i++)
			vars_free(r.r.clients[i].ec.vars);
		free(r.r.clients);
		free(setup);
		results_free(res, s->nscripts);
		return false;
	}
	resolve_commands(&r);
	thread_init_all(&r.r, setup);
	if (stop_install())
		run_threads(&r);
	else
	{
		results_free(res, s->nscripts);
		ok = false;
	}
	thread_free_all(&r.r);
	free_run(&r, setup);
	stop_close();
	return ok;
}

void
runner_end(const bench_settings *s, bench_results *res)
{
	stop_finish();
	results_free(res, s->nscripts);
}
