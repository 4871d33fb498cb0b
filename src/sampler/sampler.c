/*
 * sampler.c — the connection to the sampled server and the samples read
 * over it: connect, detect the server and choose the source, prepare its
 * statements, and run them when the tool's schedule says.
 */
#include "config.h"

#include "sampler.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtempo/clock.h"
#include "pgtempo/hash.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "sampler_int.h"

/* The statements' names on the server, where pg_prepared_statements shows them. */
#define SAMPLE_STMT		"pgtempo_sample"
#define PIDS_STMT		"pgtempo_sample_pids"
#define MEASURE_STMT	"pgtempo_measure"
#define IDENTS_STMT		"pgtempo_idents"
#define COUNTERS_STMT	"pgtempo_counters"	/* sampler_read_int8 */

/*
 * The values of pg_stat_activity.backend_type that PostgreSQL itself sets
 * (10 to 18); extension workers name their own.
 */
const char *const sampler_backend_types[] = {
	"client backend", "parallel worker", "autovacuum worker", "walsender",
	"autovacuum launcher", "background writer", "checkpointer", "walwriter",
	"archiver", "startup", "walreceiver", "logical replication launcher",
	"logical replication worker", "logical replication apply worker",
	"logical replication parallel worker", "logical replication tablesync worker",
	"slotsync worker", "walsummarizer", "io worker",
	NULL
};

/* Hand a warning to the tool (its callback prints it as its own). */
static void
warn(const sampler *sm, const char *warning, const char *detail, const char *hint)
{
	if (sm->cfg.warn != NULL)
		sm->cfg.warn(sm->cfg.warn_arg, warning, detail, hint);
}

/* A warning of the names or identities cache (a failed lookup: sampling goes on). */
static void
warn_names(void *arg, const char *warning)
{
	warn(arg, warning, NULL, NULL);
}

/* The connection's last error is the sampler's. */
static sampler_status
synced(sampler *sm, sampler_status st)
{
	sm->info.last_error = sm->sc.last_error;
	return st;
}

/*
 * Another statement is to run: read the result of a sample in flight
 * first, and keep it for sampler_collect().
 */
static void
drain(sampler *sm)
{
	if (sm->in_flight && !sm->held)
	{
		sm->held_st = stmt_await(&sm->sc, &sm->held_res);
		sm->held = true;
	}
}

/* Forget a sample in flight (the connection is dropped). */
static void
forget_flight(sampler *sm)
{
	PQclear(sm->held_res);
	sm->held_res = NULL;
	sm->held = false;
	sm->in_flight = false;
}

/* ---------------------------------------------------------------- statements */

/* What the statements must do for the run's options. */
static void
set_opts(sampler *sm)
{
	const sampler_config *s = &sm->cfg;

	memset(&sm->opts, 0, sizeof(sm->opts));
	sm->opts.pids = s->npids > 0 || s->filter_pids;
	sm->opts.dbs = s->dbs.n > 0;
	sm->opts.users = s->users.n > 0;
	sm->opts.apps = s->apps.n > 0;
	sm->opts.backend_types = s->backend_types.n > 0;
	for (int i = 0; i < s->backend_types.n; i++)
		if (strcmp(s->backend_types.v[i], SAMPLER_OTHER_BACKEND_TYPE) == 0)
			sm->opts.backend_type_other = sampler_backend_types;
	sm->opts.omit = s->omit;
	sm->opts.include_idle = s->include_idle;
	sm->opts.query_text = s->query_text > 0;
}

/*
 * The statement parameters: the values of the filters in use and the
 * query text length, in query_params' order.  None (sm->sc.param.n 0) in
 * the common case of no filters.
 */
static bool
build_params(sampler *sm, char **cause)
{
	const sampler_config *s = &sm->cfg;
	pqbin_params *pp = &sm->sc.param;
	query_params p;
	bool		ok;

	pqbin_params_clear(pp);
	query_number_params(&sm->opts, &p);
	ok = (p.pids == 0 || pqbin_put_int4_array(pp, s->pids, s->npids)) &&
		(p.dbs == 0 || pqbin_put_text_array(pp, s->dbs.v, s->dbs.n)) &&
		(p.users == 0 || pqbin_put_text_array(pp, s->users.v, s->users.n)) &&
		(p.apps == 0 || pqbin_put_text_array(pp, s->apps.v, s->apps.n)) &&
		(p.backend_types == 0 ||
		 pqbin_put_text_array(pp, s->backend_types.v, s->backend_types.n)) &&
		(p.query_len == 0 || pqbin_put_int4(pp, s->query_text));
	if (!ok)
		*cause = xasprintf("could not build the statement parameters: more than %d",
						   PQBIN_MAX_PARAMS);
	return ok;
}

/* Read the names again if they are older than a minute. */
bool
sampler_refresh_names(sampler *sm, char **cause)
{
	bool		ok;

	drain(sm);
	ok = names_refresh(&sm->names, &sm->sc, sm->pool, cause);

	synced(sm, SAMPLER_OK);
	return ok;
}

/* ---------------------------------------------------------------- reading rows */

/* Warn once that rows are hidden, naming the role that would show them. */
static void
warn_hidden(sampler *sm, int n)
{
	char	   *text,
			   *hint = NULL;

	if (sm->hidden_warned)
		return;
	sm->hidden_warned = true;
	if (sm->caps.read_all_stats_role)
	{
		text = xasprintf("%d session%s of other users %s hidden as <insufficient privilege>: "
						 "user \"%s\" needs the pg_read_all_stats role to see their wait events",
						 n, n == 1 ? "" : "s", n == 1 ? "is" : "are", sm->current_user);
		hint = xasprintf("GRANT pg_read_all_stats TO \"%s\";", sm->current_user);
	}
	else
		text = xasprintf("%d session%s of other users %s hidden as <insufficient privilege>: "
						 "only a superuser sees their wait events on this server version",
						 n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
	warn(sm, text, NULL, hint);
	free(text);
	free(hint);
}

/* Turn the rows of res into sample rows of b, the way mode says. */
static bool
read_rows(sampler *sm, PGresult *res, sample_batch *b, rowread_mode mode, char **cause)
{
	rowread_ctx ctx = {&sm->sc, sm->pool, &sm->names, &sm->cum, sm->caps.server_version};
	int			hidden0 = b->hidden;
	bool		ok = rowread_rows(&ctx, res, b, mode, cause);

	sm->info.hidden_rows += (uint64_t) (b->hidden - hidden0);
	if (ok && b->hidden > 0)
		warn_hidden(sm, b->hidden);
	return ok;
}

/* ---------------------------------------------------------------- setting up */

/* Load pg_wait_events (17+) once: descriptions for the report. */
static void
load_descriptions(sampler *sm)
{
	PGresult   *res;
	char	   *cause = NULL;

	if (!sm->caps.wait_events_view || sm->descs != NULL)
		return;
	res = stmt_exec(&sm->sc, query_wait_events_sql, &cause);
	if (res == NULL)
	{
		/* descriptions are a nicety: say so and go on */
		char	   *text = xasprintf("could not read pg_wait_events: %s", cause);

		warn(sm, text, NULL, NULL);
		free(text);
		free(cause);
		return;
	}
	sm->descs = xcalloc((size_t) PQntuples(res) + 1, sizeof(sampler_desc));
	for (int i = 0; i < PQntuples(res); i++)
	{
		const char *type = PQgetvalue(res, i, 0);
		const char *event = PQgetvalue(res, i, 1);

		sample_normalize_event(sm->caps.server_version, &type, &event);
		sm->descs[sm->ndescs].type = strpool_intern(sm->pool, type);
		sm->descs[sm->ndescs].event = strpool_intern(sm->pool, event);
		sm->descs[sm->ndescs].description = strpool_intern(sm->pool, PQgetvalue(res, i, 2));
		sm->ndescs++;
	}
	sm->info.descriptions = sm->ndescs > 0;
	PQclear(res);
}

/* The server's description of an event, from pg_wait_events. */
const char *
sampler_describe(const sampler *sm, const char *type, const char *event)
{
	for (int i = 0; i < sm->ndescs; i++)
		if (sm->descs[i].type == type && sm->descs[i].event == event)
			return sm->descs[i].description;
	return NULL;
}

/* Choose the source: the one asked for, or the best one the server has. */
static bool
choose_source(sampler *sm, const char *pws_version, bool have_psw, char **cause)
{
	char	   *why = NULL;
	sampler_source want = sm->info.source;

	if (want == SAMPLER_SOURCE_AUTO)
	{
		if (have_psw)
			want = SAMPLER_SOURCE_PG_STAT_WAIT;
		else if (pws_version != NULL && source_pws_probe(&sm->sc, &why))
			want = SAMPLER_SOURCE_PG_WAIT_SAMPLING;
		else
		{
			if (why != NULL)
			{
				char	   *text = xasprintf("extension pg_wait_sampling is installed but cannot "
											 "be read: %s", why);

				warn(sm, text, "Sampling pg_stat_activity instead.",
					 "pg_wait_sampling must be in shared_preload_libraries.");
				free(text);
				free(why);
			}
			want = SAMPLER_SOURCE_ACTIVITY;
		}
	}
	else if (want == SAMPLER_SOURCE_PG_STAT_WAIT && !have_psw)
	{
		*cause = xstrdup("source pg_stat_wait: the views pg_stat_wait_current and "
						 "pg_stat_wait_profile do not exist in this database");
		return false;
	}
	else if (want == SAMPLER_SOURCE_PG_WAIT_SAMPLING)
	{
		if (pws_version == NULL)
		{
			*cause = xstrdup("source pg_wait_sampling: the extension pg_wait_sampling is not "
							 "installed in this database (CREATE EXTENSION pg_wait_sampling; it "
							 "must also be in shared_preload_libraries)");
			return false;
		}
		if (!source_pws_probe(&sm->sc, &why))
		{
			*cause = xasprintf("source pg_wait_sampling: the extension cannot be read: %s "
							   "(is it in shared_preload_libraries?)", why);
			free(why);
			return false;
		}
	}

	sm->info.source = want;
	/* pg_wait_sampling samples by itself: reading its profile once a second will do */
	sm->info.interval_ns = (uint64_t) sm->cfg.interval_ns;
	if (want == SAMPLER_SOURCE_PG_WAIT_SAMPLING && !sm->cfg.interval_given)
		sm->info.interval_ns = SAMPLER_SERVER_SOURCE_INTERVAL_NS;
	sm->src = want == SAMPLER_SOURCE_PG_WAIT_SAMPLING ? &source_pws :
		want == SAMPLER_SOURCE_PG_STAT_WAIT ? &source_psw : &source_activity;
	free(sm->source_detail);
	if (sm->src->detail != NULL)
		sm->source_detail = sm->src->detail(&sm->sc, pws_version, sm->info.interval_ns,
											&sm->info.period_s);
	else
	{
		sm->info.period_s = (double) sm->info.interval_ns / 1e9;
		sm->source_detail = xstrdup(sm->src->name);
	}
	sm->info.source_detail = sm->source_detail;
	return true;
}

/* May we read our backend's /proc entry (a server on this host)? */
static bool
backend_is_local(const sampler *sm)
{
	const char *host = PQhost(sm->sc.conn);
	char		path[64],
				comm[64] = "";
	FILE	   *f;

	if (host == NULL || !(host[0] == '/' || host[0] == '@' || strcmp(host, "localhost") == 0 ||
						  strcmp(host, "127.0.0.1") == 0 || strcmp(host, "::1") == 0))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", sm->backend_pid);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	if (fgets(comm, sizeof(comm), f) == NULL)
		comm[0] = '\0';
	fclose(f);
	return strncmp(comm, "postgres", 8) == 0;
}

/*
 * Our backend's CPU seconds from /proc, when the server is on this host:
 * schedstat's run time in ns where the kernel has it, else stat's utime
 * and stime, which come in clock ticks (10 ms: coarse over a short run).
 */
double
sampler_backend_cpu_s(const sampler *sm)
{
	char		path[64],
				buf[1024];
	FILE	   *f;
	size_t		n;
	char	   *p;
	unsigned long long utime,
				stime,
				run_ns;

	if (!sm->info.backend_local || sm->sc.conn == NULL)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/schedstat", sm->backend_pid);
	if ((f = fopen(path, "r")) != NULL)
	{
		int			got = fscanf(f, "%llu", &run_ns);

		fclose(f);
		/* 0 when the kernel keeps no schedule statistics */
		if (got == 1 && run_ns > 0)
			return (double) run_ns / 1e9;
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", sm->backend_pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* fields after the command name, which is in parentheses and may hold spaces */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			   &utime, &stime) != 2)
		return -1;
	return (double) (utime + stime) / (double) sysconf(_SC_CLK_TCK);
}

/* The number of backends with a status on the server. */
bool
sampler_count_backends(sampler *sm, int *n, char **cause)
{
	PGresult   *res;
	int32_t		v = 0;
	bool		ok;

	drain(sm);
	res = stmt_exec(&sm->sc, query_backends_sql, cause);
	synced(sm, SAMPLER_OK);
	if (res == NULL)
		return false;
	ok = PQntuples(res) == 1 && pqbin_get_int4(pqbin, res, 0, 0, &v);
	if (!ok)
		*cause = xasprintf("could not count the server's backends: %s",
						   PQntuples(res) != 1 ? "not one row" : pqbin->error());
	else
	{
		*n = v;
		sm->info.backends = v;
		sm->backends_ns = clock_now_ns();
	}
	PQclear(res);
	return ok;
}

bool
sampler_read_int8(sampler *sm, const char *sql, int n, int64_t *v, bool *isnull, char **cause)
{
	static const pqbin_params none = {0};
	PGresult   *res = NULL;
	bool		ok;

	uint64_t	hash = hash_fnv1a_str(sql);
	char		name[64];

	drain(sm);
	/* a statement run once (a probe) before the one of the run is prepared apart */
	snprintf(name, sizeof(name), COUNTERS_STMT "_%016" PRIx64, hash);
	/* prepared once a connection: planning took twice as long as running it (0.7 against 0.3 ms) */
	if ((!sm->counters_ready || sm->counters_hash != hash) &&
		!stmt_prepare(&sm->sc, name, sql, cause))
	{
		synced(sm, SAMPLER_ERROR);
		return false;
	}
	sm->counters_ready = true;
	sm->counters_hash = hash;
	if (stmt_run_params(&sm->sc, name, &none, &res) != SAMPLER_OK)
	{
		*cause = xasprintf("could not read the server's counters: %s", sm->sc.last_error);
		synced(sm, SAMPLER_ERROR);
		return false;
	}
	synced(sm, SAMPLER_OK);
	ok = PQntuples(res) == 1 && PQnfields(res) == n;
	for (int i = 0; ok && i < n; i++)
	{
		isnull[i] = PQgetisnull(res, 0, i);
		v[i] = 0;
		ok = isnull[i] || pqbin_get_int8(pqbin, res, 0, i, &v[i]);
	}
	if (!ok)
		*cause = xasprintf("could not read the server's counters: %s",
						   PQntuples(res) != 1 || PQnfields(res) != n ?
						   "not one row of the columns asked for" : pqbin->error());
	PQclear(res);
	return ok;
}

/*
 * The statement for the next sample.  With known pids: a call of
 * pg_stat_get_activity(pid) per pid costs more than a row of
 * pg_stat_get_activity(NULL) per backend (measured with 8 pids: 94 against
 * 34 us at 8 backends, about even at 200, 342 against 608 us at 400 and
 * 723 against 1,828 at 1,000), so the pids are read each alone only when
 * the server has SAMPLER_PIDS_RATIO times more backends than pids; the
 * backends are counted every SAMPLER_RECOUNT_NS.
 */
static const char *
pick_sample(sampler *sm)
{
	char	   *cause = NULL;
	int			n;

	if (!sm->info.known_pids)
		return SAMPLE_STMT;
	if (sm->info.backends < 0 || clock_now_ns() - sm->backends_ns >= SAMPLER_RECOUNT_NS)
	{
		/* a failure here is the connection's: the sample reports it */
		if (!sampler_count_backends(sm, &n, &cause))
		{
			free(cause);
			sm->backends_ns = clock_now_ns();
		}
	}
	sm->info.pids_each = sm->info.backends >
		SAMPLER_PIDS_RATIO * (sm->cfg.npids > 0 ? sm->cfg.npids : 1);
	return sm->info.pids_each ? PIDS_STMT : SAMPLE_STMT;
}

/* A pg_stat_wait_history that cannot be read stays so: say it once, and sample on without it. */
static void
give_up_history(sampler *sm, const char *why)
{
	char	   *text = xasprintf("could not read pg_stat_wait_history: %s", why);

	warn(sm, text, "Reporting the samples and pg_stat_wait_profile without it.", NULL);
	free(text);
	sm->history = false;
}

/* The server's version and capabilities, our user, our backend; false with *cause. */
static bool
detect(sampler *sm, char **pws_version, bool *have_psw, bool *have_history, char **cause)
{
	PGresult   *res;
	int32_t		version = 0;
	const char *pws = NULL,
			   *user = NULL;
	bool		psw = false,
				history = false;
	const char *v;

	if ((res = stmt_exec(&sm->sc, query_detect_sql, cause)) == NULL)
		return false;
	if (PQntuples(res) != 1 || !pqbin_get_int4(pqbin, res, 0, 0, &version) ||
		!pqbin_get_text(pqbin, res, 0, 1, &pws) || !pqbin_get_bool(pqbin, res, 0, 2, &psw) ||
		!pqbin_get_text(pqbin, res, 0, 3, &user) || !pqbin_get_bool(pqbin, res, 0, 4, &history))
	{
		*cause = xasprintf("could not read the server's capabilities: %s",
						   PQntuples(res) != 1 ? "not one row" : pqbin->error());
		PQclear(res);
		return false;
	}
	if (version < QUERY_MIN_SERVER_VERSION)
	{
		*cause = xasprintf("server version %d.%d is not supported: sampling needs "
						   "PostgreSQL 9.6 or later (wait events in pg_stat_activity)",
						   version / 10000, version / 100 % 100);
		PQclear(res);
		return false;
	}
	query_caps_init(&sm->caps, version);
	sm->info.no_query_ids = !sm->caps.query_id;
	free(sm->current_user);
	sm->current_user = xstrdup(user ? user : "");
	*pws_version = pws ? xstrdup(pws) : NULL;
	sm->info.pws_installed = pws != NULL;
	*have_psw = psw;
	*have_history = history;
	PQclear(res);
	v = PQparameterStatus(sm->sc.conn, "server_version");
	free(sm->server_version);
	sm->server_version = xstrdup(v ? v : "?");
	sm->info.server_version = sm->server_version;
	free(sm->label);
	sm->label = xasprintf("%s:%s", PQhost(sm->sc.conn), PQport(sm->sc.conn));
	sm->info.label = sm->label;
	sm->backend_pid = PQbackendPID(sm->sc.conn);
	sm->info.backend_local = backend_is_local(sm);
	return true;
}

/* Prepare the source's statements and bind the filters. */
static bool
prepare_statements(sampler *sm, char **cause)
{
	strbuf		sql;
	bool		ok;

	set_opts(sm);
	strbuf_init(&sql);
	sm->src->sample_sql(&sql, &sm->caps, &sm->opts);
	ok = stmt_prepare(&sm->sc, SAMPLE_STMT, sql.data, cause);
	/* known pids: also the statement that reads only their status (pick_sample) */
	sm->info.known_pids = ok && sm->opts.pids && sm->info.source == SAMPLER_SOURCE_ACTIVITY;
	if (sm->info.known_pids)
	{
		strbuf_reset(&sql);
		sm->opts.pids_each = true;
		sm->src->sample_sql(&sql, &sm->caps, &sm->opts);
		sm->opts.pids_each = false;
		ok = stmt_prepare(&sm->sc, PIDS_STMT, sql.data, cause);
	}
	if (ok && sm->src->measure_sql != NULL)
	{
		strbuf_reset(&sql);
		sm->src->measure_sql(&sql, &sm->caps, &sm->opts);
		ok = stmt_prepare(&sm->sc, MEASURE_STMT, sql.data, cause);
	}
	/* the sessions of lock chains are named apart when the rows do not name them */
	sm->idents_on = sm->cfg.chain_idents &&
		(sm->opts.omit & (SAMPLER_OMIT_DATID | SAMPLER_OMIT_USESYSID | SAMPLER_OMIT_APPNAME));
	if (ok && sm->idents_on)
	{
		strbuf_reset(&sql);
		query_idents_sql(&sql, &sm->caps);
		ok = stmt_prepare(&sm->sc, IDENTS_STMT, sql.data, cause);
	}
	strbuf_free(&sql);
	return ok && build_params(sm, cause);
}

/*
 * The in-server profiles count from long ago, the history keeps old waits:
 * only what comes from now on is ours.
 */
static bool
take_baselines(sampler *sm, char **cause)
{
	if (!sm->cum.baseline && sm->info.source != SAMPLER_SOURCE_ACTIVITY)
	{
		sample_batch b;
		sampler_status st;
		PGresult   *r = NULL;
		bool		ok;

		sample_batch_init(&b);
		st = stmt_run(&sm->sc, sm->src->measure_sql != NULL ? MEASURE_STMT : SAMPLE_STMT, NULL, &r);
		ok = st == SAMPLER_OK && read_rows(sm, r, &b, ROWREAD_BASELINE, cause);
		if (st != SAMPLER_OK)
			*cause = xasprintf("could not read the server's wait profile: %s", sm->sc.last_error);
		PQclear(r);
		sample_batch_free(&b);
		if (!ok)
			return false;
		sm->cum.baseline = true;
	}
	if (sm->history && !sm->history_baseline)
	{
		char	   *why = NULL;

		if (!source_psw_history_last(&sm->sc, &sm->history_since_us, &why))
			give_up_history(sm, why);
		free(why);
		sm->history_baseline = true;
	}
	return true;
}

/* Everything a fresh connection needs before it can sample. */
static bool
setup(sampler *sm, char **cause)
{
	char	   *pws_version = NULL;
	bool		have_psw = false,
				have_history = false,
				ok;

	sm->counters_ready = false;
	if (!rowread_setup(&sm->sc, cause) ||
		!detect(sm, &pws_version, &have_psw, &have_history, cause))
		return false;
	ok = choose_source(sm, pws_version, have_psw, cause);
	free(pws_version);
	if (!ok)
		return false;
	sm->history = sm->info.source == SAMPLER_SOURCE_PG_STAT_WAIT && have_history;
	if (!names_load(&sm->names, &sm->sc, sm->pool, cause) || !prepare_statements(sm, cause))
		return false;
	load_descriptions(sm);
	return take_baselines(sm, cause);
}

/* Connect, waiting at most until give_up_ns, and set up; false with *cause. */
static bool
connect_and_setup(sampler *sm, uint64_t give_up_ns, char **cause)
{
	bool		ok;

	sm->sc.conn = conn_connect(sm->cfg.conn, give_up_ns, sm->sc.stop, cause);
	if (sm->sc.conn == NULL)
		return false;
	ok = setup(sm, cause);
	if (!ok)
		sampler_disconnect(sm);
	synced(sm, SAMPLER_OK);
	return ok;
}

/* Rebuild the parameters with the new pid list; the statement stays prepared. */
bool
sampler_set_pids(sampler *sm, const int32_t *pids, int npids, char **cause)
{
	sm->cfg.pids = pids;
	sm->cfg.npids = npids;
	if (sm->sc.conn == NULL)
		return true;			/* set up with them on reconnecting */
	return build_params(sm, cause);
}

uint64_t
sampler_connect_deadline(uint64_t end_ns)
{
	uint64_t	give_up = clock_now_ns() + SAMPLER_CONNECT_TIMEOUT_NS;

	return end_ns < give_up ? end_ns : give_up;
}

/* The first connection: prompts for a password if needed; any failure ends the run. */
sampler *
sampler_open(const sampler_config *cfg, strpool *pool, volatile sig_atomic_t *stop,
			 uint64_t end_ns, char **cause)
{
	sampler    *sm = xcalloc(1, sizeof(*sm));
	uint64_t	give_up;

	sm->cfg = *cfg;
	sm->pool = pool;
	sm->sc.stop = stop;
	sm->names.warn = warn_names;
	sm->names.warn_arg = sm;
	idents_init(&sm->idents);
	sm->info.source = cfg->source;
	sm->info.backends = -1;
	hist_init(&sm->info.latency);
	/* the setup queries too: the run's end holds whatever the server does */
	give_up = sampler_connect_deadline(end_ns);
	sm->sc.end_ns = give_up;
	if (!connect_and_setup(sm, give_up, cause))
	{
		sampler_close(sm);
		return NULL;
	}
	return sm;
}

const sampler_info *
sampler_get_info(const sampler *sm)
{
	return &sm->info;
}

void
sampler_set_end(sampler *sm, uint64_t end_ns)
{
	sm->sc.end_ns = end_ns;
}

/* The source's own default is replaced: a sample stands for the new interval. */
void
sampler_set_interval(sampler *sm, uint64_t interval_ns)
{
	sm->info.interval_ns = interval_ns;
	sm->info.period_s = (double) interval_ns / 1e9;
}

bool
sampler_connected(const sampler *sm)
{
	return sm->sc.conn != NULL;
}

bool
sampler_in_flight(const sampler *sm)
{
	return sm->in_flight;
}

/* Look the name up among the databases read at connect (or at the last refresh). */
bool
sampler_has_database(const sampler *sm, const char *name)
{
	return names_has(&sm->names.dbs, name);
}

/* Connect again without blocking past give_up_ns or a stop request. */
bool
sampler_reconnect(sampler *sm, uint64_t give_up_ns, char **cause)
{
	return connect_and_setup(sm, give_up_ns, cause);
}

/* Free the last result (the rows' query texts point into it). */
void
sampler_release(sampler *sm)
{
	PQclear(sm->res);
	sm->res = NULL;
}

/* Drop the connection; counters and caches stay for the next one. */
void
sampler_disconnect(sampler *sm)
{
	sampler_release(sm);
	forget_flight(sm);
	stmt_drop(&sm->sc);
}

/* Free everything. */
void
sampler_close(sampler *sm)
{
	if (sm == NULL)
		return;
	sampler_disconnect(sm);
	rowread_cums_free(&sm->cum);
	names_free(&sm->names);
	idents_free(&sm->idents);
	free(sm->descs);
	free(sm->source_detail);
	free(sm->server_version);
	free(sm->current_user);
	free(sm->label);
	free(sm->sc.last_error);
	free(sm);
}

/*
 * Who the sessions of b's lock chains are, into its side table: the rows
 * do not say (sampler_config.chain_idents).  Its statement's cost on the
 * server counts in the budget like the sample's: the budget measures our
 * backend's CPU time.
 */
static void
look_up_idents(sampler *sm, sample_batch *b)
{
	idents_ctx	ctx = {&sm->sc, IDENTS_STMT, sm->pool, &sm->names, warn_names, sm};

	idents_fill(&sm->idents, &ctx, b);
}

/* Read the rows of a sample statement's result (sm->res), count it; t0: when it was sent. */
static sampler_status
finish_sample(sampler *sm, sampler_status st, rowread_mode mode, sample_batch *b, uint64_t t0,
			  bool timed)
{
	char	   *cause = NULL;
	uint64_t	t1;

	if (st == SAMPLER_OK && !read_rows(sm, sm->res, b, mode, &cause))
	{
		stmt_set_error(&sm->sc, cause);
		st = SAMPLER_ERROR;
	}
	/* the sample's latency is its statement's: without a lookup of identities */
	t1 = clock_now_ns();
	if (st == SAMPLER_OK && sm->idents_on && b->nblockers > 0 &&
		(mode == ROWREAD_SAMPLES || mode == ROWREAD_SAMPLE_DELTAS))
		look_up_idents(sm, b);
	/* a name lookup while reading the rows may have found the server gone */
	if (st == SAMPLER_OK && (sm->sc.conn == NULL || PQstatus(sm->sc.conn) == CONNECTION_BAD))
		st = SAMPLER_LOST;
	if (st == SAMPLER_ERROR)
		sm->info.failed++;
	if (st == SAMPLER_OK && mode != ROWREAD_MEASURE_DELTAS)
	{
		if (timed)
			hist_record(&sm->info.latency, t1 - t0);
		sm->info.samples++;
	}
	return synced(sm, st);
}

/* Run a statement and read its rows in the given mode. */
static sampler_status
sample_with(sampler *sm, const char *stmt, rowread_mode mode, sample_batch *b, uint64_t ts_us)
{
	uint64_t	t0 = clock_now_ns();
	sampler_status st;

	drain(sm);
	sampler_release(sm);
	sample_batch_reset(b, ts_us);
	st = stmt_run(&sm->sc, stmt, NULL, &sm->res);
	return finish_sample(sm, st, mode, b, t0, true);
}

/* Send the sample of one tick; sampler_collect() reads it. */
sampler_status
sampler_send(sampler *sm, uint64_t ts_us)
{
	sampler_status st;

	drain(sm);
	if (sm->in_flight)
		return SAMPLER_OK;		/* the caller collects first; never two in flight */
	st = stmt_send(&sm->sc, pick_sample(sm), NULL);
	if (st == SAMPLER_OK)
	{
		sm->in_flight = true;
		sm->flight_ts_us = ts_us;
	}
	else if (st == SAMPLER_ERROR)
		sm->info.failed++;
	return synced(sm, st);
}

/* Collect the sample sent last (not timed: when its rows came is not known). */
sampler_status
sampler_collect(sampler *sm, sample_batch *b)
{
	sampler_status st;

	sampler_release(sm);
	sample_batch_reset(b, sm->flight_ts_us);
	if (!sm->in_flight)
		return SAMPLER_OK;
	drain(sm);
	st = sm->held_st;
	sm->res = sm->held_res;
	sm->held_res = NULL;
	sm->held = false;
	sm->in_flight = false;
	return finish_sample(sm, st, sm->src->mode, b, 0, false);
}

/* Take the sample of one tick. */
sampler_status
sampler_sample(sampler *sm, sample_batch *b, uint64_t ts_us)
{
	return sample_with(sm, pick_sample(sm), sm->src->mode, b, ts_us);
}

/* pg_stat_wait_history: the waits recorded since the last call, oldest first. */
sampler_status
sampler_history(sampler *sm, sampler_wait_fn fn, void *arg)
{
	sampler_status st;

	if (!sm->history)
		return SAMPLER_OK;
	drain(sm);
	st = source_psw_history(&sm->sc, &sm->caps, &sm->opts, sm->pool, &sm->history_since_us,
							fn, arg);
	if (st == SAMPLER_ERROR)
		give_up_history(sm, sm->sc.last_error);
	return synced(sm, st);
}

/* pg_stat_wait: the measured time and counts added since the last call. */
sampler_status
sampler_measure(sampler *sm, sample_batch *b, uint64_t ts_us)
{
	if (sm->src->measure_sql == NULL)
	{
		sample_batch_reset(b, ts_us);
		return SAMPLER_OK;
	}
	return sample_with(sm, MEASURE_STMT, ROWREAD_MEASURE_DELTAS, b, ts_us);
}
