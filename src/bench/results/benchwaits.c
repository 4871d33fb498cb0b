/*
 * benchwaits.c — --waits: the benchmark's own sessions sampled by the
 * waits tool's sampler, in a thread of its own.
 */
#include "config.h"

#include "benchwaits.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/table.h"
#include "pgtempo/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>

#include "pgtempo/clock.h"
#include "pgtempo/hash.h"
#include "sample.h"
#include "sampler.h"
#include "strpool.h"
#include "wprof.h"

struct bwaits
{
	sampler_config cfg;
	int			nslots;
	atomic_int *slots;			/* each client's backend pid; 0: none */
	int32_t    *pids;			/* the list the sampler filters by */
	int			npids;
	int32_t    *next;			/* scratch: the slots read at a tick */
	sampler    *sm;				/* NULL until the thread connected */
	strpool		pool;
	sample_batch batch;
	pthread_t	tid;
	bool		started;		/* tid runs */
	pthread_mutex_t mu;			/* the profiles, stop_req */
	pthread_cond_t cv;
	bool		stop_req;
	volatile sig_atomic_t stop; /* the sampler's: cut a statement in flight */
	wprof		total;
	wprof		interval;		/* since the last -P line */
	hash_table	seen;			/* the distinct backend pids sampled (int32_t) */
	double		cpu0_s;			/* our backend's CPU seconds once connected; < 0 unknown */
	_Atomic uint64_t measure_from_us;	/* --warmup: total counts samples from then on */
};

/* Wall-clock microseconds: the samples' timestamps. */
static uint64_t
wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* Read the clients' slots; tell the sampler when the list changed.  False with *cause. */
static bool
refresh_pids(bwaits *w, char **cause)
{
	int			n = 0;

	for (int i = 0; i < w->nslots; i++)
	{
		int			pid = atomic_load_explicit(&w->slots[i], memory_order_relaxed);

		if (pid != 0)
			w->next[n++] = pid;
	}
	if (n == w->npids && memcmp(w->next, w->pids, (size_t) n * sizeof(int32_t)) == 0)
		return true;
	memcpy(w->pids, w->next, (size_t) n * sizeof(int32_t));
	w->npids = n;
	return sampler_set_pids(w->sm, w->pids, w->npids, cause);
}

static bool
pid_eq(const void *entry, const void *key)
{
	return *(const int32_t *) entry == *(const int32_t *) key;
}

/* Count a backend as sampled (under -C, every connection is one). */
static void
note_pid(bwaits *w, int32_t pid)
{
	bool		added;
	int32_t    *e = hash_table_insert(&w->seen, hash_mix(0, (uint64_t) (uint32_t) pid), &pid,
									  pid_eq, &added);

	if (added)
		*e = pid;
}

/* Take one sample and count it in both profiles; false when sampling must end. */
static bool
take_sample(bwaits *w, bool *warned)
{
	char	   *cause = NULL;
	sampler_status st;
	const char *error;
	bool		measured;

	if (!refresh_pids(w, &cause))
	{
		msg_warning("wait sampling stopped: %s", cause);
		free(cause);
		return false;
	}
	st = sampler_sample(w->sm, &w->batch, wall_us());
	if (st == SAMPLER_OK)
	{
		pthread_mutex_lock(&w->mu);
		/* the warm-up's samples show in -P, not in the report */
		measured = w->batch.ts_us >= atomic_load(&w->measure_from_us);

		if (measured)
			wprof_tick(&w->total, w->batch.ts_us);
		wprof_tick(&w->interval, w->batch.ts_us);
		for (int i = 0; i < w->batch.nrows; i++)
		{
			if (measured)
			{
				wprof_add(&w->total, &w->batch, &w->batch.rows[i]);
				note_pid(w, w->batch.rows[i].pid);
			}
			wprof_add(&w->interval, &w->batch, &w->batch.rows[i]);
		}
		pthread_mutex_unlock(&w->mu);
		sampler_release(w->sm);
		return true;
	}
	sampler_release(w->sm);
	error = sampler_get_info(w->sm)->last_error;
	if (st == SAMPLER_INTERRUPTED)
		return false;
	if (st == SAMPLER_LOST)
	{
		msg_warning("wait sampling stopped: %s", error != NULL ? error : "the connection was lost");
		return false;
	}
	if (!*warned)
		msg_warning("a wait sample failed: %s", error != NULL ? error : "unknown error");
	*warned = true;
	return true;
}

/*
 * The sampler thread: it connects (here, not before the run: a server
 * that does not answer cannot hold the run's start, and the stop request
 * cuts the attempt), then takes a sample at every interval, on an
 * absolute schedule, until stopped.
 */
static void *
sampler_main(void *arg)
{
	bwaits	   *w = arg;
	uint64_t	interval = (uint64_t) w->cfg.interval_ns;
	uint64_t	next;
	bool		warned = false;
	char	   *cause = NULL;

	w->sm = sampler_open(&w->cfg, &w->pool, &w->stop, UINT64_MAX, &cause);
	if (w->sm == NULL)
	{
		if (!w->stop)
			msg_warning("could not sample wait events: %s", cause);
		free(cause);
		return NULL;
	}
	/* the stop request bounds the statements from here on: no run end of its own */
	sampler_set_end(w->sm, UINT64_MAX);
	w->cpu0_s = sampler_backend_cpu_s(w->sm);
	next = clock_now_ns();

	for (;;)
	{
		struct timespec ts = {(time_t) (next / NS_PER_S), (long) (next % NS_PER_S)};
		bool		stop;
		uint64_t	now;

		pthread_mutex_lock(&w->mu);
		while (!w->stop_req &&
			   pthread_cond_timedwait(&w->cv, &w->mu, &ts) != ETIMEDOUT)
			;
		stop = w->stop_req;
		pthread_mutex_unlock(&w->mu);
		if (stop || !take_sample(w, &warned))
			break;
		/* a sample that ran late skips the ticks it missed */
		now = clock_now_ns();
		next += interval;
		if (next <= now)
			next += (now - next) / interval * interval + interval;
	}
	return NULL;
}

bwaits *
bwaits_start(const bench_settings *s, int nclients)
{
	bwaits	   *w = xcalloc(1, sizeof(*w));
	pthread_condattr_t ca;
	int			e;

	atomic_init(&w->measure_from_us, s->warmup != WARMUP_NONE ? UINT64_MAX : 0);
	w->cfg.conn = &s->conn;
	w->cfg.interval_ns = s->waits_ns;
	w->cfg.interval_given = true;
	w->cfg.source = SAMPLER_SOURCE_ACTIVITY;
	w->cfg.filter_pids = true;
	/* the sampler prints nothing itself: its warnings are ours, "pgtempo-bench: warning: ..." */
	w->cfg.warn = msg_warning_parts;
	/* the report is by event: the sessions' other columns are not read */
	w->cfg.omit = SAMPLER_OMIT_BACKEND_START | SAMPLER_OMIT_DATID | SAMPLER_OMIT_USESYSID |
		SAMPLER_OMIT_APPNAME | SAMPLER_OMIT_CLIENT_ADDR | SAMPLER_OMIT_LEADER_PID;
	w->nslots = nclients;
	w->slots = xcalloc((size_t) nclients, sizeof(atomic_int));
	w->pids = xcalloc((size_t) nclients + 1, sizeof(int32_t));
	w->next = xcalloc((size_t) nclients + 1, sizeof(int32_t));
	strpool_init(&w->pool);
	sample_batch_init(&w->batch);
	wprof_init(&w->total, false);
	wprof_init(&w->interval, false);
	hash_table_init(&w->seen, sizeof(int32_t), 64);
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	e = pthread_create(&w->tid, NULL, sampler_main, w);
	if (e != 0)
	{
		msg_warning("could not sample wait events: could not create thread: %s", strerror(e));
		bwaits_report_free(bwaits_stop(w));
		return NULL;
	}
	w->started = true;
	/* so that top -H and /proc name it (15 characters at most) */
	pthread_setname_np(w->tid, "bench-waits");
	return w;
}

void
bwaits_set_pid(bwaits *w, int n, int pid)
{
	if (w != NULL && n >= 0 && n < w->nslots)
		atomic_store_explicit(&w->slots[n], pid, memory_order_relaxed);
}

void
bwaits_measure_from(bwaits *w, uint64_t epoch_us)
{
	if (w != NULL)
		atomic_store(&w->measure_from_us, epoch_us);
}

/* A group's event for the report: none for CPU, which has no wait event. */
static const char *
event_of(const wprof_group *g)
{
	return strcmp(g->key.type, SAMPLE_CPU_TYPE) == 0 ? NULL : g->key.event;
}

const char *const bwaits_class_names[BWAITS_NCLASSES] = {
	SAMPLE_CPU_TYPE, "Lock", "LWLock", "IO", "IPC", "BufferPin", "Client", "Timeout",
	"Activity", "Extension", "other"
};

int
bwaits_class_of(const char *type)
{
	for (int i = 0; i < BWAITS_NCLASSES - 1; i++)
		if (strcmp(type, bwaits_class_names[i]) == 0)
			return i;
	return BWAITS_NCLASSES - 1;
}

void
bwaits_mix_json(json_writer *jw, const bwaits_mix *mix)
{
	json_key(jw, "waits_aas");
	if (!mix->any)
	{
		json_null(jw);
		return;
	}
	json_object_begin(jw);
	for (int i = 0; i < BWAITS_NCLASSES; i++)
		json_kv_double(jw, bwaits_class_names[i], mix->aas[i]);
	json_object_end(jw);
}

void
bwaits_interval_take(bwaits *w, bwaits_top *top, bwaits_mix *mix)
{
	wprof_groups g;

	memset(top, 0, sizeof(*top));
	memset(mix, 0, sizeof(*mix));
	if (w == NULL)
		return;
	pthread_mutex_lock(&w->mu);
	wprof_group_by(&w->interval, NULL, 0, 0, &g);
	if (w->interval.ticks > 0)
	{
		mix->any = true;
		for (int i = 0; i < g.n; i++)
			mix->aas[bwaits_class_of(g.g[i].key.type)] +=
				(double) g.g[i].samples / (double) w->interval.ticks;
	}
	if (g.n > 0 && g.total > 0)
	{
		const char *ev = event_of(&g.g[0]);

		top->any = true;
		snprintf(top->type, sizeof(top->type), "%s", g.g[0].key.type);
		snprintf(top->event, sizeof(top->event), "%s", ev != NULL ? ev : "");
		top->pct = 100.0 * (double) g.g[0].samples / (double) g.total;
	}
	wprof_groups_free(&g);
	wprof_reset(&w->interval);
	pthread_mutex_unlock(&w->mu);
}

bwaits_report *
bwaits_stop(bwaits *w)
{
	bwaits_report *rep;
	wprof_groups g;
	bool		running;

	if (w == NULL)
		return NULL;
	running = w->started;
	pthread_mutex_lock(&w->mu);
	w->stop_req = true;
	w->stop = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	if (running)
		pthread_join(w->tid, NULL);

	rep = xcalloc(1, sizeof(*rep));
	rep->interval_ns = w->cfg.interval_ns;
	rep->ticks = w->total.ticks;
	/* what a sample cost the server: its backend's CPU, on this host */
	rep->cost_us = -1;
	if (running && w->cpu0_s >= 0 && rep->ticks > 0)
	{
		double		cpu = sampler_backend_cpu_s(w->sm);

		if (cpu >= w->cpu0_s)
			rep->cost_us = (cpu - w->cpu0_s) * 1e6 / (double) rep->ticks;
	}
	rep->backends = -1;
	if (w->sm != NULL)
	{
		rep->pids_each = sampler_get_info(w->sm)->pids_each;
		rep->backends = sampler_get_info(w->sm)->backends;
	}
	rep->sessions = (int) w->seen.n;
	wprof_group_by(&w->total, NULL, 0, 0, &g);
	rep->counted = g.total;
	rep->ev = xcalloc((size_t) g.n + 1, sizeof(bwaits_event));
	for (int i = 0; i < g.n; i++)
	{
		const char *ev = event_of(&g.g[i]);
		bwaits_event *e = &rep->ev[rep->nev++];

		e->type = xstrdup(g.g[i].key.type);
		e->event = ev != NULL ? xstrdup(ev) : NULL;
		e->samples = g.g[i].samples;
		e->pct = g.total > 0 ? 100.0 * (double) e->samples / (double) g.total : 0;
	}
	wprof_groups_free(&g);

	sampler_close(w->sm);
	wprof_free(&w->total);
	wprof_free(&w->interval);
	hash_table_free(&w->seen);
	sample_batch_free(&w->batch);
	strpool_free(&w->pool);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w->slots);
	free(w->pids);
	free(w->next);
	free(w);
	return rep;
}


void
bwaits_top_print(FILE *out, const bwaits_top *top)
{
	if (top->any)
		fprintf(out, ", top wait %s%s%s %.0f%%", top->type, top->event[0] != '\0' ? "/" : "",
				top->event, top->pct);
}

void
bwaits_top_json(json_writer *jw, const bwaits_top *top)
{
	json_key(jw, "top_wait");
	if (!top->any)
	{
		json_null(jw);
		return;
	}
	json_object_begin(jw);
	json_kv_string(jw, "wait_event_type", top->type);
	json_kv_string(jw, "wait_event", top->event[0] != '\0' ? top->event : NULL);
	json_kv_double(jw, "pct", top->pct);
	json_object_end(jw);
}

void
bwaits_report_print(FILE *out, const bwaits_report *rep)
{
	static const table_col cols[] = {
		{"wait_event_type", 16, "  ", true}, {"wait_event", 20, " ", true},
		{"samples", 10, " ", false}, {"%", 6, " ", false},
	};
	int			n = rep->nev < BWAITS_REPORT_TOP ? rep->nev : BWAITS_REPORT_TOP;

	fprintf(out, "wait events (sampled every %g ms, %llu samples of %d sessions):\n",
			(double) rep->interval_ns / 1e6, (unsigned long long) rep->ticks, rep->sessions);
	table_header(out, cols, TABLE_NCOLS(cols));
	for (int i = 0; i < n; i++)
	{
		char		samples[24],
					pct[32];

		snprintf(samples, sizeof(samples), "%llu", (unsigned long long) rep->ev[i].samples);
		snprintf(pct, sizeof(pct), "%.1f", rep->ev[i].pct);
		table_row(out, cols, TABLE_NCOLS(cols), (const char *const[]) {
			rep->ev[i].type, rep->ev[i].event != NULL ? rep->ev[i].event : "-", samples, pct});
	}
	/* after the table, which readers parse; with many backends only the clients' status is read */
	if (rep->cost_us >= 0)
		fprintf(out, "sampling cost: %.0f us of server CPU per sample (%s, %d backends)\n",
				rep->cost_us, rep->pids_each ? "pg_stat_get_activity(pid) of the clients' pids" :
				"a row per backend, filtered to the clients' pids", rep->backends);
}

void
bwaits_report_json(json_writer *jw, const bwaits_report *rep)
{
	json_key(jw, "waits");
	json_array_begin(jw);
	for (int i = 0; i < rep->nev; i++)
	{
		json_object_begin(jw);
		json_kv_string(jw, "wait_event_type", rep->ev[i].type);
		json_kv_string(jw, "wait_event", rep->ev[i].event);
		json_kv_uint(jw, "samples", rep->ev[i].samples);
		json_kv_double(jw, "pct", rep->ev[i].pct);
		json_object_end(jw);
	}
	json_array_end(jw);
	json_key(jw, "waits_cost_us_per_sample");
	if (rep->cost_us >= 0)
		json_double(jw, rep->cost_us);
	else
		json_null(jw);
}

void
bwaits_report_free(bwaits_report *rep)
{
	if (rep == NULL)
		return;
	for (int i = 0; i < rep->nev; i++)
	{
		free(rep->ev[i].type);
		free(rep->ev[i].event);
	}
	free(rep->ev);
	free(rep);
}
