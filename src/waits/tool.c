/*
 * tool.c — pgtempo-waits' run: connect, sample at fixed deadlines until
 * the duration is over or a signal comes, keep going through lost
 * connections, feed every sink, report.
 */
#include "config.h"

#include "waits.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
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
#include "pgtempo/signals.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "baseline.h"
#include "budget.h"
#include "format.h"
#include "fromlog.h"
#include "measured.h"
#include "options.h"
#include "report.h"
#include "sample.h"
#include "sampler.h"
#include "sinkset.h"
#include "strpool.h"
#include "ticker.h"
#include "trace.h"
#include "wprof.h"

#define RECONNECT_FIRST_NS	(100 * NS_PER_MS)
#define RECONNECT_MAX_NS	(5 * NS_PER_S)

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
	/*
	 * No SA_RESTART: a signal must cut a sleep short.  Connecting looks at
	 * the stop flag, but a password prompt or a slow DNS lookup does not:
	 * a second signal there takes its default action, as nothing has been
	 * measured yet.
	 */
	signals_catch_stop(on_stop, starting ? SA_RESETHAND : 0);
	signals_catch(SIGHUP, on_hup, 0, NULL);
	signals_catch(SIGPIPE, SIG_IGN, 0, NULL);
}

typedef struct run_state
{
	const waits_settings *s;
	strpool		pool;
	sampler    *sm;
	wprof		run;			/* the whole run */
	sink_list	out;			/* every output */
	sample_batch batch;
	heads_graph graph;			/* the batch's lock graph: built once, for all */
	ticker		sc;
	uint64_t	retry_at;		/* connection lost: when to try again */
	uint64_t	backoff;		/* and after that, how long to wait */
	sample_gap *gaps;
	int			ngaps;
	bool		gap_open;
	uint64_t	t0_ns;
	uint64_t	last_sample_us;	/* wall clock of the last good sample */
	struct rusage ru0;
	bool		time_next_sample;	/* take the next sample at once, to time it */
	double		backend_cpu0;	/* of the current connection */
	uint64_t	backend_samples0;
	budget		bg;				/* the cost budget: the rate that keeps our backend's CPU within it */
	bool		over_warned;	/* -i costs more than the budget: said once */
	bool		hinted;			/* the pg_wait_sampling hint: said once */
	const char **match_users;	/* --user values, interned, and whether a row had them */
	bool	   *user_seen;
	const char **match_apps;	/* --application-name values, the same way */
	bool	   *app_seen;
	char	   *last_failure;	/* the last sample error reported */
	char	   *reconnect_error;	/* why the last attempt to reconnect failed */
	bool		ended;			/* sampling is over: final_health is what the run measured */
	sample_health final_health;	/* the one account the log and the report both give */
	measured_run meas;			/* the server's own counters, beside the sampled estimates */
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
	const sampler_info *in;

	if (r->ended)
	{
		*h = r->final_health;
		return;
	}
	in = sampler_get_info(r->sm);
	memset(h, 0, sizeof(*h));
	h->ts_us = clock_wall_us();
	h->samples = in->samples;
	h->failed = in->failed;
	h->missed = r->sc.missed;
	/* an open gap's ticks are counted when it closes: count them so far here */
	h->gap_ticks = r->sc.gap_ticks + (r->gap_open ? ticker_overdue(&r->sc, now) : 0);
	h->elapsed_s = (double) (now - r->t0_ns) / 1e9;
	h->rate_hz = h->elapsed_s > 0 ? (double) h->samples / h->elapsed_s : 0;
	if (in->latency.total > 0)
	{
		h->p50_ms = (double) hist_percentile(&in->latency, 50) / 1e6;
		h->p99_ms = (double) hist_percentile(&in->latency, 99) / 1e6;
		h->max_ms = (double) in->latency.max / 1e6;
	}
	h->hidden = in->hidden_rows;
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
	if (r->backend_cpu0 >= 0 && in->samples > r->backend_samples0 &&
		(bcpu = sampler_backend_cpu_s(r->sm)) >= 0)
		h->backend_cpu_us_per_sample = (bcpu - r->backend_cpu0) * 1e6 /
			(double) (in->samples - r->backend_samples0);
	h->interval_s = (double) r->sc.interval_ns / 1e9;
	h->cost_us_per_sample = r->bg.cost_us;
	h->backends = in->backends;
}

/* fill_health for the sinks. */
static void
sink_health(void *arg, sample_health *h)
{
	fill_health(arg, h);
}

/* Remember where the new connection's backend CPU time starts (and the budget's window). */
static void
mark_backend_cpu(run_state *r)
{
	uint64_t	samples = sampler_get_info(r->sm)->samples;

	r->backend_cpu0 = sampler_backend_cpu_s(r->sm);
	r->backend_samples0 = samples;
	budget_mark(&r->bg, clock_now_ns(), r->backend_cpu0, samples);
}

/* Count a batch in the run's profile and every sink's, and write it to the raw sinks. */
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
	}
	heads_graph_build(&r->graph, b);
	wprof_add_heads(&r->run, &r->graph);
	if (tick)
	{
		wprof_tick(&r->run, b->ts_us);
		measured_rows(&r->meas, b, s->include_idle);
	}
	sinks_rows(&r->out, b, &r->graph, tick);
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

	if (!sampler_connected(r->sm) || sampler_get_info(r->sm)->source != SAMPLER_SOURCE_PG_STAT_WAIT)
		return;
	sample_batch_init(&mb);
	if (sampler_measure(r->sm, &mb, now_us) == SAMPLER_OK)
		consume(r, &mb, false);
	sampler_release(r->sm);
	sample_batch_free(&mb);
	sampler_history(r->sm, add_history_wait, r);
}

/* The connection is gone: start a gap at the last good sample. */
static void
open_gap(run_state *r)
{
	sample_gap *g;
	const char *why = sampler_get_info(r->sm)->last_error;

	r->gaps = xrealloc(r->gaps, (size_t) (r->ngaps + 1) * sizeof(sample_gap));
	g = &r->gaps[r->ngaps++];
	g->start_us = r->last_sample_us;
	g->end_us = 0;
	g->reason = xstrdup(why ? why : "connection lost");
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
	sinks_gap(&r->out, g);
	msg_info("connection restored: sampling resumed after a gap of %.3f s",
			 (double) (g->end_us - g->start_us) / 1e6);
}

/* Pass on what a sample statement returned. */
static void
handle_sample(run_state *r, sampler_status st)
{
	const char *error = sampler_get_info(r->sm)->last_error;

	switch (st)
	{
		case SAMPLER_OK:
			if (r->gap_open)
				close_gap(r, r->batch.ts_us);
			r->last_sample_us = r->batch.ts_us;
			consume(r, &r->batch, true);
			sampler_release(r->sm);
			break;
		case SAMPLER_ERROR:
			/* the same error every tick would flood the terminal: say it when it changes */
			if (r->last_failure == NULL || strcmp(r->last_failure, error) != 0)
			{
				msg_warning("a sample failed: %s", error);
				free(r->last_failure);
				r->last_failure = xstrdup(error);
			}
			break;
		case SAMPLER_LOST:
			open_gap(r);
			sampler_disconnect(r->sm);
			r->retry_at = clock_now_ns();
			r->backoff = RECONNECT_FIRST_NS;
			break;
		case SAMPLER_INTERRUPTED:
			break;
	}
}

/* ---------------------------------------------------------------- the cost budget */

/*
 * The cost budget of a run: only a polled pg_stat_activity costs more as
 * the server has more sessions (the in-server sources are read once a
 * second), and the cost must be measured: our backend's CPU time is read
 * from /proc, so the server must be on this host.  The cost is measured
 * whatever the source, for the report.
 */
static void
start_budget(run_state *r)
{
	/* on another host it is not applied (apply_budget), and the report says so */
	const sampler_info *in = sampler_get_info(r->sm);
	bool		on = in->source == SAMPLER_SOURCE_ACTIVITY;

	budget_init(&r->bg, on ? r->s->cost_budget : 0, in->interval_ns, r->s->interval_given,
				(uint64_t) r->s->cost_window_ns);
}

/* Sample every interval_ns from the next tick on; the sinks and the report say so. */
static void
set_interval(run_state *r, uint64_t interval_ns)
{
	ticker_retime(&r->sc, interval_ns);
	sampler_set_interval(r->sm, interval_ns);
	r->out.run.interval_ns = interval_ns;
	r->out.run.src.interval_s = sampler_get_info(r->sm)->period_s;
	r->out.run.src.period_s = sampler_get_info(r->sm)->period_s;
}

/* Say on stderr what the budget did: a lower or a higher rate, or (once) -i over the budget. */
static void
tell_budget(run_state *r, budget_change ch, uint64_t was_ns)
{
	const budget *b = &r->bg;
	const sampler_info *in = sampler_get_info(r->sm);
	char		was[FORMAT_TS_LEN],
				now[FORMAT_TS_LEN],
				at[32] = "";

	format_seconds(was, (double) was_ns / 1e9);
	format_seconds(now, (double) b->interval_ns / 1e9);
	if (in->backends >= 0)
		snprintf(at, sizeof(at), " at %d backends", in->backends);
	if (ch == BUDGET_LOWERED)
	{
		msg_info("cost budget: a sample costs the server %.0f us of CPU%s, %.1f %% of one CPU "
				 "every %s: sampling every %s to stay within %g %%", b->cost_us, at,
				 budget_cpu_share(b->cost_us, was_ns) * 100, was, now, b->share * 100);
		if (!in->pws_installed && !r->hinted)
			msg_hint("pg_wait_sampling (shared_preload_libraries, then CREATE EXTENSION) samples "
					 "inside the server; reading its profile once a second would cost about "
					 "%.1f ms of CPU a second here, besides its collector's own",
					 b->cost_us / 1e3);
		r->hinted = true;
	}
	else if (ch == BUDGET_RAISED)
		msg_info("cost budget: a sample costs the server %.0f us of CPU%s now: sampling every %s",
				 b->cost_us, at, now);
	else if (ch == BUDGET_OVER && !r->over_warned)
	{
		r->over_warned = true;
		msg_warning("sampling every %s costs the server %.0f us of CPU per sample%s: %.1f %% of "
					"one CPU, over the cost budget of %g %%", now, b->cost_us, at,
					budget_cpu_share(b->cost_us, b->interval_ns) * 100, b->share * 100);
		msg_detail("-i keeps the rate asked for; without it the rate is lowered to fit the "
				   "budget (--cost-budget).");
	}
}

/* Once a second: what a sample costs the server, and the rate that fits the budget. */
static void
apply_budget(run_state *r, uint64_t now_ns)
{
	budget	   *b = &r->bg;
	const sampler_info *in = sampler_get_info(r->sm);
	uint64_t	was = b->interval_ns;
	uint64_t	win = b->win_ns;
	budget_change ch;
	char	   *cause = NULL;
	int			n;

	/* /proc is read only when a window may end */
	if (!sampler_connected(r->sm) || !in->backend_local || !budget_due(b, now_ns, in->samples))
		return;
	ch = budget_update(b, now_ns, sampler_backend_cpu_s(r->sm), in->samples);
	if (b->win_ns == win || b->cost_us < 0)
		return;					/* no window was measured */
	/* a failure here is the connection's: the next sample reports it */
	if (!sampler_count_backends(r->sm, &n, &cause))
		free(cause);
	if (ch == BUDGET_LOWERED || ch == BUDGET_RAISED)
		set_interval(r, b->interval_ns);
	tell_budget(r, ch, was);
}

/* What sampling cost the server, and what the budget did, for the report. */
static void
fill_cost(const run_state *r, double period_s, report_cost *c)
{
	const budget *b = &r->bg;
	const sampler_info *in = sampler_get_info(r->sm);

	memset(c, 0, sizeof(*c));
	c->share = b->share;
	c->measured = in->backend_local;
	c->user_interval = b->keep;
	c->known_pids = in->known_pids;
	c->pids_each = in->pids_each;
	c->npids = r->s->npids;
	c->want_interval_s = (double) b->want_ns / 1e9;
	c->interval_s = (double) b->interval_ns / 1e9;
	c->max_interval_s = (double) b->max_interval_ns / 1e9;
	c->cost_us = b->cost_us;
	c->max_cost_us = b->max_cost_us;
	c->backends = in->backends;
	c->changes = b->changes;
	/* an estimate's error bound grows as the square root of the period (wprof_error_s) */
	c->error_factor = b->changes > 0 ? sqrt(period_s / c->want_interval_s) : 1;
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

	if (sampler_in_flight(r->sm))
		handle_sample(r, sampler_collect(r->sm, &r->batch));
	if (sampler_connected(r->sm) && r->time_next_sample)
		handle_sample(r, sampler_sample(r->sm, &r->batch, ts));
	else if (sampler_connected(r->sm) && (st = sampler_send(r->sm, ts)) != SAMPLER_OK)
		handle_sample(r, st);
	r->time_next_sample = false;
	ticker_done(&r->sc, clock_now_ns());
	/* until a first window is measured, at every sample: a big server pays the full rate briefly */
	if (r->bg.cost_us < 0 && sampler_get_info(r->sm)->backend_local)
		apply_budget(r, clock_now_ns());
}

/* The figures of the span the server's counters were just read at the end of, to the sinks. */
static void
measured_out(run_state *r)
{
	format_measured_rec recs[MEASURED_NFIGS];
	/* pg_wait_sampling's rows are its own samples, each of its period: not our ticks */
	int			n = measured_last(&r->meas, r->out.run.src.period_s, !r->out.run.in_server, recs);

	if (n > 0)
		sinks_measured(&r->out, recs, n);
}

/* Once a second: the server's names, its measured waits, every sink's second. */
static void
housekeeping(run_state *r, uint64_t now_ns)
{
	uint64_t	now_us = clock_wall_us();
	bool		reopen = reopen_flag != 0;

	reopen_flag = 0;
	/* the sample in flight belongs before the intervals that end now */
	if (sampler_connected(r->sm) && sampler_in_flight(r->sm))
		handle_sample(r, sampler_collect(r->sm, &r->batch));
	r->time_next_sample = true;
	apply_budget(r, now_ns);
	if (sampler_connected(r->sm))
	{
		char	   *cause = NULL;

		/* a failure here is the connection's: the next sample reports it */
		if (!sampler_refresh_names(r->sm, &cause))
			free(cause);
		measure(r, now_us);
		if (measured_due(&r->meas, r->sm, now_ns))
			measured_out(r);
		/* a statement without an answer in time dropped the connection: lost, as in a sample */
		if (!sampler_connected(r->sm) && !stop_flag)
			handle_sample(r, SAMPLER_LOST);
	}
	sinks_second(&r->out, now_ns, now_us, reopen);
}

/* Sleep until the monotonic time until_ns, or a key (the live view), or a signal. */
static void
wait_until(run_state *r, uint64_t until_ns)
{
	struct timespec ts;

	switch (sinks_wait(&r->out, until_ns))
	{
		case SINK_WAIT_QUIT:
			stop_flag = -1;
			return;
		case SINK_WAIT_DONE:
			return;
		case SINK_WAIT_NONE:
			break;
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

/*
 * What the sinks and the report say about the sampled server, after the
 * first connection and after each reconnect.  The strings are interned in
 * the run's pool: a reconnect frees and replaces the sampler's own (another
 * host of a multi-host conninfo, another server version after an upgrade),
 * while the report, the live view and the chart read them until the end.
 */
static void
describe_source(run_state *r)
{
	report_source *src = &r->out.run.src;
	const sampler_info *in = sampler_get_info(r->sm);

	src->server = strpool_intern(&r->pool, in->label);
	src->server_version = strpool_intern(&r->pool, in->server_version);
	src->source = strpool_intern(&r->pool, in->source_detail);
	src->interval_s = (double) in->interval_ns / 1e9;
	src->period_s = in->period_s;
	/* none before 17: the --log sink then writes its files as before (log format 1) */
	src->describe = in->descriptions ? describe : NULL;
	src->describe_arg = r->sm;
	r->out.run.interval_ns = in->interval_ns;
	r->out.run.in_server = in->source == SAMPLER_SOURCE_PG_WAIT_SAMPLING;
	if (in->source == SAMPLER_SOURCE_PG_STAT_WAIT)
		r->run.has_measured = true;
}

/* The sampling loop; returns when the duration is over or a stop was requested. */
static void
sample_loop(run_state *r)
{
	const waits_settings *s = r->s;
	uint64_t	end_ns = s->duration_ns > 0 ? r->t0_ns + (uint64_t) s->duration_ns : UINT64_MAX;
	uint64_t	next_house = r->t0_ns + NS_PER_S;

	/* no statement waits past the end: a server that stops answering cannot hold the run */
	sampler_set_end(r->sm, end_ns);
	r->time_next_sample = true;
	for (;;)
	{
		uint64_t	now = clock_now_ns();
		uint64_t	wake;

		if (stop_flag || now >= end_ns)
			break;
		if (sampler_connected(r->sm) && now >= ticker_deadline(&r->sc))
			take_sample(r);
		else if (!sampler_connected(r->sm) && now >= r->retry_at)
		{
			char	   *cause = NULL;

			/* reconnecting may take seconds: what the log has queued goes out first */
			sinks_flush(&r->out);

			if (sampler_reconnect(r->sm, sampler_connect_deadline(end_ns), &cause))
			{
				describe_source(r);
				mark_backend_cpu(r);
				ticker_resume(&r->sc, clock_now_ns());
			}
			else
			{
				free(r->reconnect_error);
				r->reconnect_error = cause;
				r->retry_at = clock_now_ns() + r->backoff;
				r->backoff = r->backoff * 2 > RECONNECT_MAX_NS ? RECONNECT_MAX_NS : r->backoff * 2;
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
		wake = sampler_connected(r->sm) ? ticker_deadline(&r->sc) : r->retry_at;
		if (next_house < wake)
			wake = next_house;
		if (end_ns < wake)
			wake = end_ns;
		if (wake > clock_now_ns())
			wait_until(r, wake);
	}
	/* the sample sent at the last tick */
	if (sampler_connected(r->sm) && sampler_in_flight(r->sm))
		handle_sample(r, sampler_collect(r->sm, &r->batch));
}

/*
 * Open or prove writable every output before connecting, so that a bad
 * path fails at once, not after the run: the log (its first expansion) is
 * opened, the files written at the end are checked.
 */
static bool
open_outputs(run_state *r, char **cause)
{
	if (fcntl(STDOUT_FILENO, F_GETFL) < 0)
	{
		*cause = xasprintf("standard output is not open: the report could not be written");
		return false;
	}
	return sinks_open(&r->out, SINK_CHECK, cause) && sinks_open(&r->out, SINK_OPEN, cause);
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

/* A --db that names no database is a mistake to report before sampling. */
static bool
check_databases(const run_state *r, char **cause)
{
	for (int i = 0; i < r->s->dbs.n; i++)
		if (!sampler_has_database(r->sm, r->s->dbs.v[i]))
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
			if (sampler_get_info(r->sm)->no_query_ids)
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
	report_cost cost;
	bool		outputs_ok;
	bool		gave_up = r->gap_open;
	uint64_t	stop_ns;
	int			reads = r->meas.nreads;

	measure(r, clock_wall_us());
	measured_finish(&r->meas, r->sm);
	if (r->meas.nreads > reads && reads > 0)
		measured_out(r);
	sinks_stop(&r->out);
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
		sinks_gap(&r->out, &r->gaps[r->ngaps - 1]);
	}
	else
		ticker_end(&r->sc, stop_ns);
	/* from here on every health record is this one: elapsed time stops with sampling */
	fill_health(r, &r->final_health);
	r->ended = true;
	/* the store's last rows get at most STORE_FINAL_TIMEOUT_NS; the log says what became of them */
	outputs_ok = sinks_finish(&r->out, end_us);

	fill_health(r, &h);
	memset(&ri, 0, sizeof(ri));
	ri.s = s;
	ri.src = r->out.run.src;
	ri.in_server = sampler_get_info(r->sm)->source == SAMPLER_SOURCE_PG_WAIT_SAMPLING;
	/* a polled sample after missed ticks stands for the ticks it missed too */
	if (r->bg.changes > 0 && h.samples > 0)
	{
		/* the budget changed the rate: a sample stands for its share of the time sampled */
		ri.src.period_s = (h.elapsed_s - h.gap_s) / (double) h.samples;
		ri.src.interval_s = ri.src.period_s;
	}
	else if (!ri.in_server && h.samples > 0 && h.missed > 0)
		ri.src.period_s *= (double) (h.samples + h.missed) / (double) h.samples;
	fill_cost(r, ri.src.period_s, &cost);
	ri.cost = &cost;
	ri.health = &h;
	ri.gaps = r->gaps;
	ri.ngaps = r->ngaps;
	ri.p = &r->run;
	ri.gave_up = gave_up;
	ri.store = s->store != NULL ? &r->out.run.stored : NULL;
	ri.meas = &r->meas;
	if (s->json)
		report_json(stdout, &ri);
	else
		report_text(stdout, &ri);
	/* a report that did not get out is a failed run, whatever else went well */
	if (!msg_flush_stdout())
		outputs_ok = false;
	if (!report_json_file(&ri))
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
		return EXITCODE_RUN_FAILED;
	}
	if (!outputs_ok)
		return EXITCODE_ERROR;
	/* --fail-if=disagree: a figure measured by the server outside its sampled bound */
	return measured_tripped(&r->meas, ri.src.period_s) > 0 ? EXITCODE_LIMIT : EXITCODE_OK;
}

/* Say on stderr what is sampled, how, and how often: auto's choice is visible. */
static void
announce(const run_state *r)
{
	char		every[FORMAT_TS_LEN];
	const sampler_info *in = sampler_get_info(r->sm);

	format_seconds(every, (double) in->interval_ns / 1e9);
	msg_info("sampling %s of PostgreSQL %s at %s every %s%s", in->source_detail,
			 in->server_version, in->label, every,
			 r->s->duration_ns > 0 ? "" : " until interrupted");
}

/* Free everything a run allocated. */
static void
free_state(run_state *r)
{
	sampler_close(r->sm);
	wprof_free(&r->run);
	heads_graph_free(&r->graph);
	sinks_free(&r->out);
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
	measured_free(&r->meas);
	strpool_free(&r->pool);
}

/* An error before sampling started: say it, close what was opened; the exit status. */
static int
fail_start(run_state *r, char *cause)
{
	msg_error("%s", cause);
	free(cause);
	sinks_abort(&r->out);
	free_state(r);
	return EXITCODE_ERROR;
}

/* The whole run: open outputs, connect, sample, finish; returns the exit status. */
int
waits_run(const waits_settings *s)
{
	run_state	r;
	char	   *cause = NULL;
	sampler_config cfg;
	int			status;
	/* connecting counts from here: -T holds while it waits for the server */
	uint64_t	connect_end = s->duration_ns > 0 ?
		clock_now_ns() + (uint64_t) s->duration_ns : UINT64_MAX;

	stop_flag = 0;
	reopen_flag = 0;
	if (s->nfrom_log > 0)
		return s->compare ? baseline_run(s) : fromlog_run(s);
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
	heads_graph_init(&r.graph);
	sinks_init(&r.out, s, &r.pool, &r.run);
	r.out.run.health = sink_health;
	r.out.run.health_arg = &r;
	r.out.run.missed = &r.sc.missed;
	sinkset_add_all(&r.out);
	sample_batch_init(&r.batch);
	measured_init(&r.meas, s);
	init_matches(&r);

	if (!open_outputs(&r, &cause))
		return fail_start(&r, cause);
	options_sampler_config(s, &cfg);
	/* the sampler prints nothing itself: its warnings are ours, "pgtempo-waits: warning: ..." */
	cfg.warn = msg_warning_parts;
	if ((r.sm = sampler_open(&cfg, &r.pool, &stop_flag, connect_end, &cause)) == NULL ||
		!check_databases(&r, &cause))
		return fail_start(&r, cause);
	describe_source(&r);
	start_budget(&r);
	if (!sinks_open(&r.out, SINK_CONNECTED, &cause))
		return fail_start(&r, cause);
	if (stop_flag)
	{
		/* interrupted while connecting (a password prompt, a slow server) */
		return fail_start(&r, xstrdup("interrupted before sampling started"));
	}
	install_signals(false);
	announce(&r);
	if (!sinks_open(&r.out, SINK_BEGIN, &cause))
		return fail_start(&r, cause);

#ifdef PR_SET_TIMERSLACK
	/* a sleeper may wake up to 50 us late by default: much, at thousands of samples a second */
	if (sampler_get_info(r.sm)->interval_ns < NS_PER_MS)
		prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
	/* the counters' first read: before the budget's window starts, so that it is not counted */
	measured_read(&r.meas, r.sm);
	getrusage(RUSAGE_SELF, &r.ru0);
	r.t0_ns = clock_now_ns();
	r.last_sample_us = clock_wall_us();
	mark_backend_cpu(&r);
	ticker_init(&r.sc, r.t0_ns, sampler_get_info(r.sm)->interval_ns);
	/* the counters are read when the --log-interval's intervals end */
	measured_schedule(&r.meas, r.t0_ns);
	sinks_start(&r.out, r.t0_ns, r.last_sample_us, r.run.has_measured);
	/* nothing fails here: the live view draws, the log's health schedule starts */
	sinks_open(&r.out, SINK_STARTED, &cause);

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
	free(s->metrics_path);
	free(s->listen_host);
	free(s->web_config_path);
	free(s->store);
	free(s->store_label);
	free(s->trace_pids);
	free(s->trace_path);
	for (int i = 0; i < s->nfrom_log; i++)
		free(s->from_log[i]);
	free(s->from_log);
	s->from_log = NULL;
	for (int i = 0; i < s->nbaseline; i++)
		free(s->baseline[i]);
	free(s->baseline);
	s->baseline = NULL;
	s->nbaseline = 0;
	s->nfrom_log = 0;
	s->trace_pids = NULL;
	s->trace_path = NULL;
	s->pids = NULL;
	s->log_path = s->folded_path = s->chart_path = s->store = s->store_label = NULL;
	s->metrics_path = s->listen_host = s->web_config_path = NULL;
}
