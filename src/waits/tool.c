/*
 * tool.c — pgtempo-waits' run: connect, sample at fixed deadlines until
 * the duration is over or a signal comes, keep going through lost
 * connections, feed every sink, report.
 */
#include "config.h"

#include "waits.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#include "pgtempo/clock.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "format.h"
#include "live.h"
#include "options.h"
#include "waitschart.h"
#include "wprof.h"
#include "report.h"
#include "sample.h"
#include "sampler.h"
#include "ticker.h"
#include "trace.h"
#include "sink.h"
#include "store.h"
#include "strpool.h"

#define RECONNECT_FIRST_NS	(100 * NS_PER_MS)
#define RECONNECT_MAX_NS	(5 * NS_PER_S)
#define RAW_HEALTH_EVERY_NS	(60 * NS_PER_S)

static volatile sig_atomic_t stop_flag;
static volatile sig_atomic_t reopen_flag;

/* SIGINT/SIGTERM: end the run; the report is printed as after -T. */
static void
on_stop(int signo)
{
	stop_flag = signo;
}

/* SIGHUP: reopen the log file (logrotate). */
static void
on_hup(int signo)
{
	reopen_flag = 1;
}

/* SIGINT/SIGTERM end the run, SIGHUP reopens logs, SIGPIPE is ignored. */
static void
install_signals(bool starting)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/*
	 * No SA_RESTART: a signal must cut a sleep short.  Connecting looks at
	 * the stop flag, but a password prompt or a slow DNS lookup does not:
	 * a second signal there takes its default action, as nothing has been
	 * measured yet.
	 */
	sa.sa_flags = starting ? SA_RESETHAND : 0;
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_flags = 0;
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

typedef struct run_state
{
	const waits_settings *s;
	strpool		pool;
	sampler		sm;
	bool		connected;
	wprof		run;			/* the whole run */
	wprof		iv_log;			/* the current --log-interval */
	wprof		iv_store;		/* the current --store-interval */
	wprof		live_cur;		/* the current second, for the live view */
	wprof		live_last;		/* the last whole second */
	wprof		iv_chart;		/* --chart: the current second */
	wchart		chart;
	uint64_t	iv_chart_start_us;
	uint64_t	next_chart_ns;
	sample_batch batch;
	sink_log	log;
	store		st;
	bool		live;
	live_info	linfo;
	ticker		sc;
	sample_gap *gaps;
	int			ngaps;
	bool		gap_open;
	uint64_t	t0_ns;
	uint64_t	last_sample_us;	/* wall clock of the last good sample */
	uint64_t	iv_log_start_us;
	uint64_t	iv_store_start_us;
	uint64_t	next_log_iv_ns;
	uint64_t	next_store_iv_ns;
	uint64_t	next_health_ns;
	struct rusage ru0;
	bool		time_next_sample;	/* take the next sample at once, to time it */
	double		backend_cpu0;	/* of the current connection */
	uint64_t	backend_samples0;
	const char **match_users;	/* --user values, interned, and whether a row had them */
	bool	   *user_seen;
	const char **match_apps;	/* --application-name values, the same way */
	bool	   *app_seen;
	char	   *last_failure;	/* the last sample error reported */
	char	   *reconnect_error;	/* why the last attempt to reconnect failed */
	bool		ended;			/* sampling is over: final_health is what the run measured */
	sample_health final_health;	/* the one account the log and the report both give */
} run_state;

/* A timeval in seconds. */
static double
tv_s(const struct timeval *tv)
{
	return (double) tv->tv_sec + (double) tv->tv_usec / 1e6;
}

/* The sampler's health now. */
static void
fill_health(run_state *r, sample_health *h)
{
	uint64_t	now = clock_now_ns();
	struct rusage ru;
	double		bcpu;

	if (r->ended)
	{
		*h = r->final_health;
		return;
	}
	memset(h, 0, sizeof(*h));
	h->ts_us = clock_wall_us();
	h->samples = r->sm.samples;
	h->failed = r->sm.failed;
	h->missed = r->sc.missed;
	/* an open gap's ticks are counted when it closes: count them so far here */
	h->gap_ticks = r->sc.gap_ticks + (r->gap_open ? ticker_overdue(&r->sc, now) : 0);
	h->elapsed_s = (double) (now - r->t0_ns) / 1e9;
	h->rate_hz = h->elapsed_s > 0 ? (double) h->samples / h->elapsed_s : 0;
	if (r->sm.latency.total > 0)
	{
		h->p50_ms = (double) hist_percentile(&r->sm.latency, 50) / 1e6;
		h->p99_ms = (double) hist_percentile(&r->sm.latency, 99) / 1e6;
		h->max_ms = (double) r->sm.latency.max / 1e6;
	}
	h->hidden = r->sm.hidden_rows;
	h->ngaps = r->ngaps;
	for (int i = 0; i < r->ngaps; i++)
		h->gap_s += (double) ((r->gaps[i].end_us ? r->gaps[i].end_us : h->ts_us) -
							  r->gaps[i].start_us) / 1e6;
	h->cpu_us_per_sample = -1;
	h->backend_cpu_us_per_sample = -1;
	if (h->samples > 0 && getrusage(RUSAGE_SELF, &ru) == 0)
		h->cpu_us_per_sample = (tv_s(&ru.ru_utime) + tv_s(&ru.ru_stime) -
								tv_s(&r->ru0.ru_utime) - tv_s(&r->ru0.ru_stime)) * 1e6 /
			(double) h->samples;
	if (r->connected && r->backend_cpu0 >= 0 && r->sm.samples > r->backend_samples0 &&
		(bcpu = sampler_backend_cpu_s(&r->sm)) >= 0)
		h->backend_cpu_us_per_sample = (bcpu - r->backend_cpu0) * 1e6 /
			(double) (r->sm.samples - r->backend_samples0);
}

/* Remember where the new connection's backend CPU time starts. */
static void
mark_backend_cpu(run_state *r)
{
	r->backend_cpu0 = sampler_backend_cpu_s(&r->sm);
	r->backend_samples0 = r->sm.samples;
}

/* Count a batch in every profile that wants it, and write it to the raw sinks. */
static void
consume(run_state *r, const sample_batch *b, bool tick)
{
	const waits_settings *s = r->s;

	for (int i = 0; i < b->nrows; i++)
	{
		const sample_row *row = &b->rows[i];

		/* interned: the names compare by address */
		for (int k = 0; k < s->users.n; k++)
			r->user_seen[k] |= row->usename == r->match_users[k];
		for (int k = 0; k < s->apps.n; k++)
			r->app_seen[k] |= row->application_name == r->match_apps[k];
		wprof_add(&r->run, b, row);
		if (s->log_interval_ns > 0 && s->log_path != NULL)
			wprof_add(&r->iv_log, b, row);
		if (s->store_interval_ns > 0 && s->store != NULL)
			wprof_add(&r->iv_store, b, row);
		if (r->live)
			wprof_add(&r->live_cur, b, row);
		if (s->chart_path != NULL)
			wprof_add(&r->iv_chart, b, row);
	}
	if (tick)
	{
		wprof_tick(&r->run, b->ts_us);
		wprof_tick(&r->iv_log, b->ts_us);
		wprof_tick(&r->iv_store, b->ts_us);
		wprof_tick(&r->live_cur, b->ts_us);
		wprof_tick(&r->iv_chart, b->ts_us);
		sink_log_batch(&r->log, b);
		store_add_batch(&r->st, b);
	}
}

static void
add_history_wait(void *arg, const char *type, const char *event, uint64_t wait_us)
{
	run_state  *r = arg;

	wprof_add_duration(&r->run, type, event, wait_us);
}

/*
 * pg_stat_wait: what the server measured since the last call, the wait time
 * and counts of pg_stat_wait_profile and the single waits of
 * pg_stat_wait_history.  A failure here is the connection's or the views':
 * the next sample reports it.
 */
static void
measure(run_state *r, uint64_t now_us)
{
	sample_batch mb;

	if (!r->connected || r->sm.source != WAITS_SOURCE_PG_STAT_WAIT)
		return;
	sample_batch_init(&mb);
	if (sampler_measure(&r->sm, &mb, now_us) == SAMPLER_OK)
		consume(r, &mb, false);
	sampler_release(&r->sm);
	sample_batch_free(&mb);
	sampler_history(&r->sm, add_history_wait, r);
}

/* Write the --log-interval aggregate that ends now, and a health record. */
static void
flush_log_interval(run_state *r, uint64_t end_us)
{
	format_interval iv;
	sample_health h;

	iv.start_us = r->iv_log_start_us;
	iv.end_us = end_us;
	iv.ticks = r->iv_log.ticks;
	iv.total = r->iv_log.active;
	iv.period_s = r->sm.period_s;
	iv.measured = r->iv_log.has_measured;
	sink_log_interval(&r->log, &iv, &r->iv_log);
	fill_health(r, &h);
	sink_log_health(&r->log, &h);
	wprof_reset(&r->iv_log);
	r->iv_log_start_us = end_us;
}

/* Hand the --store-interval aggregate that ends now to the store. */
static void
flush_store_interval(run_state *r, uint64_t end_us)
{
	format_interval iv;

	iv.start_us = r->iv_store_start_us;
	iv.end_us = end_us;
	iv.ticks = r->iv_store.ticks;
	iv.total = r->iv_store.active;
	iv.period_s = r->sm.period_s;
	iv.measured = r->iv_store.has_measured;
	store_add_interval(&r->st, &iv, &r->iv_store);
	wprof_reset(&r->iv_store);
	r->iv_store_start_us = end_us;
}

/* Keep the --chart second that ends now. */
static void
flush_chart_interval(run_state *r, uint64_t end_us)
{
	if (r->iv_chart.ticks > 0 || r->iv_chart.active > 0)
		wchart_add_interval(&r->chart, (double) end_us / 1e6, &r->iv_chart);
	wprof_reset(&r->iv_chart);
	r->iv_chart_start_us = end_us;
}

/* The connection is gone: start a gap at the last good sample. */
static void
open_gap(run_state *r)
{
	sample_gap *g;

	r->gaps = xrealloc(r->gaps, (size_t) (r->ngaps + 1) * sizeof(sample_gap));
	g = &r->gaps[r->ngaps++];
	g->start_us = r->last_sample_us;
	g->end_us = 0;
	g->reason = xstrdup(r->sm.last_error ? r->sm.last_error : "connection lost");
	r->gap_open = true;
	msg_warning("connection to the server lost: %s", g->reason);
	msg_detail("Keeping what was collected; reconnecting.");
}

/* Sampling works again: the gap ends at this sample. */
static void
close_gap(run_state *r, uint64_t now_us)
{
	sample_gap *g = &r->gaps[r->ngaps - 1];

	g->end_us = now_us;
	r->gap_open = false;
	sink_log_gap(&r->log, g);
	msg_info("connection restored: sampling resumed after a gap of %.3f s",
			 (double) (g->end_us - g->start_us) / 1e6);
}

/* Pass on what a sample statement returned. */
static void
handle_sample(run_state *r, sampler_status st)
{
	switch (st)
	{
		case SAMPLER_OK:
			if (r->gap_open)
				close_gap(r, r->batch.ts_us);
			r->last_sample_us = r->batch.ts_us;
			consume(r, &r->batch, true);
			sampler_release(&r->sm);
			break;
		case SAMPLER_ERROR:
			/* the same error every tick would flood the terminal: say it when it changes */
			if (r->last_failure == NULL || strcmp(r->last_failure, r->sm.last_error) != 0)
			{
				msg_warning("a sample failed: %s", r->sm.last_error);
				free(r->last_failure);
				r->last_failure = xstrdup(r->sm.last_error);
			}
			break;
		case SAMPLER_LOST:
			open_gap(r);
			sampler_disconnect(&r->sm);
			r->connected = false;
			break;
		case SAMPLER_INTERRUPTED:
			break;
	}
}

/*
 * Take the sample that is due: pass on the one sent at the last tick, and
 * send this tick's, so that the sampler wakes once per sample.  Once a
 * second the sample is awaited at once instead, to time the statement on
 * samples chosen whatever their latency.
 */
static void
take_sample(run_state *r)
{
	uint64_t	ts = clock_wall_us();
	sampler_status st;

	if (sampler_in_flight(&r->sm))
		handle_sample(r, sampler_collect(&r->sm, &r->batch));
	if (r->connected && r->time_next_sample)
		handle_sample(r, sampler_sample(&r->sm, &r->batch, ts));
	else if (r->connected && (st = sampler_send(&r->sm, ts)) != SAMPLER_OK)
		handle_sample(r, st);
	r->time_next_sample = false;
	ticker_done(&r->sc, clock_now_ns());
}

/* Once a second: logs, intervals, the store, the live view. */
static void
housekeeping(run_state *r, uint64_t now_ns)
{
	const waits_settings *s = r->s;
	uint64_t	now_us = clock_wall_us();
	bool		reopen = reopen_flag != 0;

	reopen_flag = 0;
	/* the sample in flight belongs before the intervals that end now */
	if (r->connected && sampler_in_flight(&r->sm))
		handle_sample(r, sampler_collect(&r->sm, &r->batch));
	r->time_next_sample = true;
	if (r->connected)
	{
		char	   *cause = NULL;

		/* a failure here is the connection's: the next sample reports it */
		if (!sampler_refresh_names(&r->sm, &cause))
			free(cause);
	}
	measure(r, now_us);
	if (s->log_interval_ns > 0 && now_ns >= r->next_log_iv_ns)
	{
		flush_log_interval(r, now_us);
		while (r->next_log_iv_ns <= now_ns)
			r->next_log_iv_ns += (uint64_t) s->log_interval_ns;
	}
	else if (s->log_interval_ns == 0 && now_ns >= r->next_health_ns)
	{
		sample_health h;

		fill_health(r, &h);
		sink_log_health(&r->log, &h);
		r->next_health_ns += RAW_HEALTH_EVERY_NS;
	}
	if (s->store_interval_ns > 0 && now_ns >= r->next_store_iv_ns)
	{
		flush_store_interval(r, now_us);
		while (r->next_store_iv_ns <= now_ns)
			r->next_store_iv_ns += (uint64_t) s->store_interval_ns;
	}
	if (s->chart_path != NULL && now_ns >= r->next_chart_ns)
	{
		flush_chart_interval(r, now_us);
		while (r->next_chart_ns <= now_ns)
			r->next_chart_ns += NS_PER_S;
	}
	sink_log_tick(&r->log, time(NULL), reopen);
	store_kick(&r->st);
	if (r->live)
	{
		wprof		tmp = r->live_last;
		sample_health h;

		r->live_last = r->live_cur;
		r->live_cur = tmp;
		wprof_reset(&r->live_cur);
		fill_health(r, &h);
		live_draw(&r->linfo, &r->run, &r->live_last, &h);
	}
}

/* Sleep until the monotonic time until_ns, or a key, or a signal. */
static void
wait_until(run_state *r, uint64_t until_ns)
{
	struct timespec ts;

	if (r->live)
	{
		sample_health h;

		switch (live_wait(until_ns))
		{
			case LIVE_QUIT:
				stop_flag = -1;
				break;
			case LIVE_REDRAW:
				fill_health(r, &h);
				live_draw(&r->linfo, &r->run, &r->live_last, &h);
				break;
			case LIVE_NONE:
				break;
		}
		return;
	}
	ts.tv_sec = (time_t) (until_ns / NS_PER_S);
	ts.tv_nsec = (long) (until_ns % NS_PER_S);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* report_describe_fn over the sampler's event descriptions. */
static const char *
describe(const void *arg, const char *type, const char *event)
{
	return sampler_describe(arg, type, event);
}

/* The sampling loop; returns when the duration is over or a stop was requested. */
static void
sample_loop(run_state *r)
{
	const waits_settings *s = r->s;
	uint64_t	end_ns = s->duration_ns > 0 ? r->t0_ns + (uint64_t) s->duration_ns : UINT64_MAX;
	uint64_t	next_house = r->t0_ns + NS_PER_S;
	uint64_t	retry_at = 0;
	uint64_t	backoff = RECONNECT_FIRST_NS;

	/* no statement waits past the end: a server that stops answering cannot hold the run */
	sampler_set_end(&r->sm, end_ns);
	r->time_next_sample = true;
	for (;;)
	{
		uint64_t	now = clock_now_ns();
		uint64_t	wake;

		if (stop_flag || now >= end_ns)
			break;
		if (r->connected && now >= ticker_deadline(&r->sc))
		{
			take_sample(r);
			if (!r->connected)
			{
				retry_at = clock_now_ns();
				backoff = RECONNECT_FIRST_NS;
			}
		}
		else if (!r->connected && now >= retry_at)
		{
			char	   *cause = NULL;
			uint64_t	give_up = now + SAMPLER_CONNECT_TIMEOUT_NS;

			if (give_up > end_ns)
				give_up = end_ns;
			/* reconnecting may take seconds: what the log has queued goes out first */
			sink_log_flush(&r->log);

			if (sampler_reconnect(&r->sm, give_up, &cause))
			{
				r->connected = true;
				mark_backend_cpu(r);
				ticker_resume(&r->sc, clock_now_ns());
			}
			else
			{
				free(r->reconnect_error);
				r->reconnect_error = cause;
				retry_at = clock_now_ns() + backoff;
				backoff = backoff * 2 > RECONNECT_MAX_NS ? RECONNECT_MAX_NS : backoff * 2;
			}
		}

		now = clock_now_ns();
		if (now >= next_house)
		{
			housekeeping(r, now);
			while (next_house <= now)
				next_house += NS_PER_S;
		}
		if (stop_flag)
			break;
		wake = r->connected ? ticker_deadline(&r->sc) : retry_at;
		if (next_house < wake)
			wake = next_house;
		if (end_ns < wake)
			wake = end_ns;
		if (wake > clock_now_ns())
			wait_until(r, wake);
	}
	/* the sample sent at the last tick */
	if (r->connected && sampler_in_flight(&r->sm))
		handle_sample(r, sampler_collect(&r->sm, &r->batch));
}

/*
 * Open or prove writable every output before connecting, so that a bad
 * path fails at once, not after the run: the log (its first expansion) is
 * opened, the files written at the end are checked.
 */
static bool
open_outputs(run_state *r, char **cause)
{
	const waits_settings *s = r->s;

	if (fcntl(STDOUT_FILENO, F_GETFL) < 0)
	{
		*cause = xasprintf("standard output is not open: the report could not be written");
		return false;
	}
	if (s->folded_path != NULL && !strbuf_check_writable(s->folded_path, cause))
		return false;
	if (s->chart_path != NULL && !strbuf_check_writable(s->chart_path, cause))
		return false;
	return sink_log_open(&r->log, s, time(NULL), cause);
}

/* Intern the --user and --application-name values, to see at the end which matched nothing. */
static void
init_matches(run_state *r)
{
	const waits_settings *s = r->s;

	r->match_users = xcalloc((size_t) s->users.n + 1, sizeof(char *));
	r->user_seen = xcalloc((size_t) s->users.n + 1, sizeof(bool));
	for (int i = 0; i < s->users.n; i++)
		r->match_users[i] = strpool_intern(&r->pool, s->users.v[i]);
	r->match_apps = xcalloc((size_t) s->apps.n + 1, sizeof(char *));
	r->app_seen = xcalloc((size_t) s->apps.n + 1, sizeof(bool));
	for (int i = 0; i < s->apps.n; i++)
		r->match_apps[i] = strpool_intern(&r->pool, s->apps.v[i]);
}

/* Is name one of the server's databases (as read at connect)? */
static bool
database_exists(const sampler *sm, const char *name)
{
	for (size_t i = 0; i < sm->names.dbs.cap; i++)
		if (sm->names.dbs.slots[i].oid != 0 && sm->names.dbs.slots[i].name != NULL &&
			strcmp(sm->names.dbs.slots[i].name, name) == 0)
			return true;
	return false;
}

/* A --db that names no database is a mistake to report before sampling. */
static bool
check_databases(const run_state *r, char **cause)
{
	for (int i = 0; i < r->s->dbs.n; i++)
		if (!database_exists(&r->sm, r->s->dbs.v[i]))
		{
			*cause = xasprintf("database \"%s\" of option --db does not exist", r->s->dbs.v[i]);
			return false;
		}
	return true;
}

/* Warn once about the filters that matched nothing, and an empty query_id column. */
static void
warn_unmatched(const run_state *r)
{
	const waits_settings *s = r->s;
	const char *what = s->include_idle ? "backend" : "active backend";

	for (int i = 0; i < s->users.n; i++)
		if (!r->user_seen[i])
			msg_warning("--user \"%s\" matched no %s during the run", s->users.v[i], what);
	for (int i = 0; i < s->apps.n; i++)
		if (!r->app_seen[i])
			msg_warning("--application-name \"%s\" matched no %s during the run",
						s->apps.v[i], what);
	for (int i = 0; i < s->nby; i++)
		if (s->by[i] == WPROF_DIM_QUERY && r->run.active > 0 && !wprof_has_query_ids(&r->run))
		{
			if (r->sm.caps.server_version > 0 && !r->sm.caps.query_id)
				msg_warning("the query_id column is empty: query ids need PostgreSQL 14 or later");
			else
				msg_warning("the query_id column is empty: the server computed no query ids "
							"(compute_query_id is off, or auto without a module such as "
							"pg_stat_statements that turns it on)");
		}
}

/* Everything after the loop: last intervals, files, the report.  Returns the exit status. */
static int
finish(run_state *r)
{
	const waits_settings *s = r->s;
	uint64_t	end_us;
	sample_health h;
	report_info ri;
	char	   *cause = NULL;
	bool		outputs_ok = true;
	bool		gave_up = r->gap_open;
	format_store_counts stored;
	uint64_t	stop_ns;

	measure(r, clock_wall_us());
	if (r->live)
		live_end();
	end_us = clock_wall_us();
	/* every tick due by the end is accounted for: sampled, missed or in a gap */
	stop_ns = clock_now_ns();
	if (s->duration_ns > 0 && stop_ns > r->t0_ns + (uint64_t) s->duration_ns)
		stop_ns = r->t0_ns + (uint64_t) s->duration_ns;
	if (r->gap_open)
	{
		/* the gap lasts to the end: its ticks count as gap ticks, in the log and the report */
		r->gaps[r->ngaps - 1].end_us = end_us;
		ticker_resume(&r->sc, stop_ns);
		sink_log_gap(&r->log, &r->gaps[r->ngaps - 1]);
	}
	else
		r->sc.missed += ticker_overdue(&r->sc, stop_ns);
	/* from here on every health record is this one: elapsed time stops with sampling */
	fill_health(r, &r->final_health);
	r->ended = true;
	if (s->log_interval_ns > 0)
		flush_log_interval(r, end_us);
	else
	{
		fill_health(r, &h);
		sink_log_health(&r->log, &h);
	}
	if (s->store_interval_ns > 0 && s->store != NULL)
		flush_store_interval(r, end_us);
	/* the store's last rows (at most STORE_FINAL_TIMEOUT_NS), and what became of them, in the log */
	if (!store_close(&r->st))
		outputs_ok = false;
	stored.stored = r->st.rows_stored;
	stored.rejected = r->st.rows_rejected;
	stored.dropped = r->st.rows_dropped;
	stored.unsent = r->st.rows_lost;
	if (s->store != NULL)
		sink_log_store(&r->log, &stored);
	if (!sink_log_close(&r->log))
		outputs_ok = false;
	if (s->folded_path != NULL && !sink_folded_write(s->folded_path, &r->run, &cause))
	{
		msg_error("%s", cause);
		free(cause);
		outputs_ok = false;
	}
	if (s->chart_path != NULL)
	{
		char	   *subtitle = xasprintf("%s, PostgreSQL %s, %s every %.3g ms", r->sm.label,
										 r->sm.server_version, r->sm.source_detail,
										 (double) r->sm.interval_ns / 1e6);
		bool		written;

		flush_chart_interval(r, end_us);
		written = wchart_write(&r->chart, &r->run, s->chart_path, subtitle, &cause);
		free(subtitle);
		if (!written)
		{
			msg_error("%s", cause);
			free(cause);
			cause = NULL;
			outputs_ok = false;
		}
	}

	fill_health(r, &h);
	memset(&ri, 0, sizeof(ri));
	ri.s = s;
	ri.source = r->sm.source_detail;
	ri.server_version = r->sm.server_version;
	ri.server = r->sm.label;
	ri.interval_s = (double) r->sm.interval_ns / 1e9;
	ri.in_server = r->sm.source == WAITS_SOURCE_PG_WAIT_SAMPLING;
	ri.period_s = r->sm.period_s;
	/* a polled sample after missed ticks stands for the ticks it missed too */
	if (r->sm.source != WAITS_SOURCE_PG_WAIT_SAMPLING && h.samples > 0 && h.missed > 0)
		ri.period_s *= (double) (h.samples + h.missed) / (double) h.samples;
	ri.health = &h;
	ri.gaps = r->gaps;
	ri.ngaps = r->ngaps;
	ri.p = &r->run;
	ri.describe = describe;
	ri.describe_arg = &r->sm;
	ri.gave_up = gave_up;
	ri.store = s->store != NULL ? &stored : NULL;
	if (s->json)
		report_json(stdout, &ri);
	else
		report_text(stdout, &ri);
	/* a report that did not get out is a failed run, whatever else went well */
	if (!msg_flush_stdout())
		outputs_ok = false;
	warn_unmatched(r);
	if (gave_up)
	{
		/* the run was cut short by the server: lost, or not answering at the end */
		if (r->reconnect_error != NULL)
		{
			msg_error("gave up: the connection to the server was lost and could not be made again");
			msg_detail("The last attempt to connect failed: %s", r->reconnect_error);
		}
		else
			msg_error("the run was cut short: %s", r->gaps[r->ngaps - 1].reason);
		return WAITS_EXIT_GAVE_UP;
	}
	return outputs_ok ? WAITS_EXIT_OK : WAITS_EXIT_ERROR;
}

/* Say on stderr what is sampled, how, and how often: auto's choice is visible. */
static void
announce(const run_state *r)
{
	char		every[FORMAT_TS_LEN];

	format_seconds(every, (double) r->sm.interval_ns / 1e9);
	msg_info("sampling %s of PostgreSQL %s at %s every %s%s", r->sm.source_detail,
			 r->sm.server_version, r->sm.label, every,
			 r->s->duration_ns > 0 ? "" : " until interrupted");
}

/* Free everything a run allocated. */
static void
free_state(run_state *r)
{
	sampler_close(&r->sm);
	wprof_free(&r->run);
	wprof_free(&r->iv_log);
	wprof_free(&r->iv_store);
	wprof_free(&r->live_cur);
	wprof_free(&r->live_last);
	wprof_free(&r->iv_chart);
	wchart_free(&r->chart);
	sample_batch_free(&r->batch);
	for (int i = 0; i < r->ngaps; i++)
		free(r->gaps[i].reason);
	free(r->gaps);
	free(r->last_failure);
	free(r->reconnect_error);
	free(r->match_users);
	free(r->user_seen);
	free(r->match_apps);
	free(r->app_seen);
	strpool_free(&r->pool);
}

/* The whole run: open outputs, connect, sample, finish; returns the exit status. */
int
waits_run(const waits_settings *s)
{
	run_state	r;
	char	   *cause = NULL;
	int			status;

	stop_flag = 0;
	reopen_flag = 0;
	if (s->ntrace_pids > 0)
	{
		/* a trace never has a report to lose: signals act at once, from the start */
		install_signals(false);
		return trace_run(s, &stop_flag, &reopen_flag);
	}
	memset(&r, 0, sizeof(r));
	r.s = s;
	install_signals(true);
	strpool_init(&r.pool);
	wprof_init(&r.run, s->include_idle);
	wprof_init(&r.iv_log, s->include_idle);
	wprof_init(&r.iv_store, s->include_idle);
	wprof_init(&r.live_cur, s->include_idle);
	wprof_init(&r.live_last, s->include_idle);
	wprof_init(&r.iv_chart, s->include_idle);
	wchart_init(&r.chart, &r.pool);
	sample_batch_init(&r.batch);
	init_matches(&r);

	if (!open_outputs(&r, &cause))
	{
		msg_error("%s", cause);
		free(cause);
		sink_log_close(&r.log);
		free_state(&r);
		return WAITS_EXIT_ERROR;
	}
	if (!sampler_open(&r.sm, s, &r.pool, &stop_flag, &cause) ||
		!check_databases(&r, &cause))
	{
		msg_error("%s", cause);
		free(cause);
		sink_log_close(&r.log);
		free_state(&r);
		return WAITS_EXIT_ERROR;
	}
	r.connected = true;
	if (r.sm.source == WAITS_SOURCE_PG_STAT_WAIT)
		r.run.has_measured = r.iv_log.has_measured = r.iv_store.has_measured =
			r.live_cur.has_measured = r.live_last.has_measured = true;
	if (!store_open(&r.st, s, r.sm.label, &cause))
	{
		msg_error("%s", cause);
		free(cause);
		sink_log_close(&r.log);
		free_state(&r);
		return WAITS_EXIT_ERROR;
	}
	if (stop_flag)
	{
		/* interrupted while connecting (a password prompt, a slow server) */
		msg_error("interrupted before sampling started");
		store_close(&r.st);
		sink_log_close(&r.log);
		free_state(&r);
		return WAITS_EXIT_ERROR;
	}
	install_signals(false);
	announce(&r);

	if (s->top)
	{
		if (!live_begin(s, &cause))
		{
			msg_error("%s", cause);
			free(cause);
			store_close(&r.st);
			sink_log_close(&r.log);
			free_state(&r);
			return WAITS_EXIT_ERROR;
		}
		r.live = true;
		r.linfo.server = r.sm.label;
		r.linfo.server_version = r.sm.server_version;
		r.linfo.source = r.sm.source_detail;
		r.linfo.interval_s = (double) r.sm.interval_ns / 1e9;
		r.linfo.period_s = r.sm.period_s;
		r.linfo.describe = describe;
		r.linfo.describe_arg = &r.sm;
	}

#ifdef PR_SET_TIMERSLACK
	/* a sleeper may wake up to 50 us late by default: much, at thousands of samples a second */
	if (r.sm.interval_ns < NS_PER_MS)
		prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
	getrusage(RUSAGE_SELF, &r.ru0);
	r.t0_ns = clock_now_ns();
	r.last_sample_us = clock_wall_us();
	r.iv_log_start_us = r.iv_store_start_us = r.last_sample_us;
	r.next_log_iv_ns = r.t0_ns + (uint64_t) s->log_interval_ns;
	r.next_store_iv_ns = r.t0_ns + (uint64_t) s->store_interval_ns;
	r.next_health_ns = r.t0_ns + RAW_HEALTH_EVERY_NS;
	r.iv_chart_start_us = r.last_sample_us;
	r.next_chart_ns = r.t0_ns + NS_PER_S;
	mark_backend_cpu(&r);
	ticker_init(&r.sc, r.t0_ns, r.sm.interval_ns);
	if (r.live)
	{
		sample_health h;

		fill_health(&r, &h);
		live_draw(&r.linfo, &r.run, &r.live_last, &h);
	}

	sample_loop(&r);
	status = finish(&r);
	free_state(&r);
	return status;
}

/* Free what the option parser allocated. */
void
waits_settings_free(waits_settings *s)
{
	free(s->pids);
	options_strlist_free(&s->dbs);
	options_strlist_free(&s->users);
	options_strlist_free(&s->apps);
	options_strlist_free(&s->backend_types);
	free(s->log_path);
	free(s->folded_path);
	free(s->chart_path);
	free(s->store);
	free(s->store_label);
	free(s->trace_pids);
	free(s->trace_path);
	s->trace_pids = NULL;
	s->trace_path = NULL;
	s->pids = NULL;
	s->log_path = s->folded_path = s->chart_path = s->store = s->store_label = NULL;
}
