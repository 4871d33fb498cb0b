/*
 * mergeread.c — reading one host's --json report for --merge.
 *
 * Every field is checked for its type as it is read; the first problem
 * is kept (with the field's path) and reading goes on, so the code reads
 * like the document and is checked once at the end.  A report without
 * the exact sums (written before they were added to the schema) is
 * refused rather than merged from rounded averages.
 */
#include "config.h"

#include "merge_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/jsonreport.h"
#include "pgtempo/xalloc.h"

/* The reading of one document: its file and the first problem found. */
typedef struct rd
{
	char	   *err;
} rd;

static void rd_fail(rd *r, const char *fmt,...) __attribute__((format(printf, 2, 3)));

/* Keep the first problem. */
static void
rd_fail(rd *r, const char *fmt,...)
{
	va_list		ap;
	char		buf[512];

	if (r->err != NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->err = xstrdup(buf);
}

/* obj.key of type t (JSONREAD_NULL: any type); NULL (the problem kept) if not there. */
static const jsonread_value *
field(rd *r, const jsonread_value *obj, const char *path, const char *key, jsonread_type t)
{
	const jsonread_value *v = jsonread_get(obj, key);

	if (v == NULL)
	{
		rd_fail(r, "field \"%s%s\" is missing", path, key);
		return NULL;
	}
	if (t != JSONREAD_NULL && v->type != t)
	{
		rd_fail(r, "field \"%s%s\" is a%s %s, not a%s %s", path, key,
				v->type == JSONREAD_ARRAY || v->type == JSONREAD_OBJECT ? "n" : "",
				jsonread_type_name(v->type), t == JSONREAD_ARRAY || t == JSONREAD_OBJECT ? "n" : "",
				jsonread_type_name(t));
		return NULL;
	}
	return v;
}

/* A number; null gives dflt. */
static double
num(rd *r, const jsonread_value *obj, const char *path, const char *key, double dflt)
{
	const jsonread_value *v = field(r, obj, path, key, JSONREAD_NULL);

	if (v == NULL || v->type == JSONREAD_NULL)
		return dflt;
	if (v->type != JSONREAD_NUMBER)
	{
		rd_fail(r, "field \"%s%s\" is not a number", path, key);
		return dflt;
	}
	return v->num;
}

/* An integer that is not negative; null gives 0. */
static int64_t
count(rd *r, const jsonread_value *obj, const char *path, const char *key)
{
	const jsonread_value *v = field(r, obj, path, key, JSONREAD_NULL);

	if (v == NULL || v->type == JSONREAD_NULL)
		return 0;
	if (v->type != JSONREAD_NUMBER || !v->is_int || v->i < 0)
	{
		rd_fail(r, "field \"%s%s\" is not a count", path, key);
		return 0;
	}
	return v->i;
}

/* A string; null gives NULL. */
static const char *
str(rd *r, const jsonread_value *obj, const char *path, const char *key)
{
	const jsonread_value *v = field(r, obj, path, key, JSONREAD_NULL);

	if (v == NULL || v->type == JSONREAD_NULL)
		return NULL;
	if (v->type != JSONREAD_STRING)
	{
		rd_fail(r, "field \"%s%s\" is not a string", path, key);
		return NULL;
	}
	return v->u.str;
}

/* count, sum_ns, sum_squares_ns2, min_ns, max_ns of a latency or lag object. */
static void
read_sums(rd *r, const jsonread_value *obj, const char *path, stats_simple *ss)
{
	stats_simple_init(ss);
	ss->count = count(r, obj, path, "count");
	ss->sum = num(r, obj, path, "sum_ns", 0);
	ss->sum2 = num(r, obj, path, "sum_squares_ns2", 0);
	ss->min = num(r, obj, path, "min_ns", 0);
	ss->max = num(r, obj, path, "max_ns", 0);
}

/* The "transactions" counts and the latency and lag sums of the totals or a script. */
static void
read_stats(rd *r, const jsonread_value *obj, const char *path, stats *st)
{
	char		p[128];
	const jsonread_value *tx,
			   *lat,
			   *lag;

	stats_init(st);
	snprintf(p, sizeof(p), "%stransactions.", path);
	tx = field(r, obj, path, "transactions", JSONREAD_OBJECT);
	st->cnt = count(r, tx, p, "processed");
	st->serialization_failures = count(r, tx, p, "serialization_failures");
	st->deadlock_failures = count(r, tx, p, "deadlock_failures");
	st->other_failures = count(r, tx, p, "other_failures");
	st->skipped = count(r, tx, p, "skipped");
	st->late = count(r, tx, p, "late");
	st->retried = count(r, tx, p, "retried");
	st->retries = count(r, tx, p, "retries");
	snprintf(p, sizeof(p), "%slatency.", path);
	lat = field(r, obj, path, "latency", JSONREAD_OBJECT);
	read_sums(r, lat, p, &st->latency);
	lag = field(r, obj, path, "lag", JSONREAD_NULL);
	if (lag != NULL && lag->type == JSONREAD_OBJECT)
	{
		snprintf(p, sizeof(p), "%slag.", path);
		read_sums(r, lag, p, &st->lag);
	}
}

/* The latency histogram of obj.latency into a new hist, with st's exact sums. */
static hist *
read_hist(rd *r, const jsonread_value *obj, const char *path, const stats *st)
{
	char		p[128];
	const jsonread_value *lat = field(r, obj, path, "latency", JSONREAD_OBJECT);
	const jsonread_value *arr;
	hist	   *h = hist_new(1);

	snprintf(p, sizeof(p), "%slatency.", path);
	arr = field(r, lat, p, "histogram", JSONREAD_ARRAY);
	for (uint32_t i = 0; arr != NULL && i < arr->n; i++)
	{
		const jsonread_value *b = &arr->u.items[i];
		double		low_ns = round(num(r, b, "histogram[].", "low_us", -1) * 1e3);
		double		high_ns = round(num(r, b, "histogram[].", "high_us", -1) * 1e3);
		int64_t		n = count(r, b, "histogram[].", "count");
		int			idx = low_ns >= 0 && low_ns <= (double) HIST_MAX_VALUE ?
			hist_index((uint64_t) low_ns) : -1;

		if (idx < 0 || (double) hist_bucket_low(idx) != low_ns ||
			(double) hist_bucket_high(idx) + 1 != high_ns)
		{
			rd_fail(r, "field \"%shistogram\": bucket %u is not one of this version's buckets", p, i);
			break;
		}
		h->counts[idx] += (uint64_t) n;
		h->total += (uint64_t) n;
	}
	h->clamped = (uint64_t) count(r, lat, p, "histogram_clamped");
	if (h->total != (uint64_t) st->latency.count)
		rd_fail(r, "field \"%shistogram\" counts %llu latencies, \"count\" says %lld", p,
				(unsigned long long) h->total, (long long) st->latency.count);
	if (h->total > 0)
	{
		h->min = (uint64_t) st->latency.min;
		h->max = (uint64_t) st->latency.max;
	}
	h->sum = st->latency.sum;
	h->sumsq = st->latency.sum2;
	return h;
}

/* -r: the commands of a script. */
static void
read_commands(rd *r, const jsonread_value *obj, const char *path, merge_script *ms)
{
	const jsonread_value *arr = field(r, obj, path, "commands", JSONREAD_NULL);

	if (arr == NULL || arr->type == JSONREAD_NULL)
		return;
	if (arr->type != JSONREAD_ARRAY)
	{
		rd_fail(r, "field \"%scommands\" is not an array", path);
		return;
	}
	ms->ncommands = (int) arr->n;
	ms->command_text = xcalloc(arr->n + 1, sizeof(char *));
	ms->commands = xcalloc(arr->n + 1, sizeof(stats_command));
	for (uint32_t c = 0; c < arr->n; c++)
	{
		const jsonread_value *cmd = &arr->u.items[c];
		stats_command *cs = &ms->commands[c];

		ms->command_text[c] = str(r, cmd, "commands[].", "command");
		cs->count = count(r, cmd, "commands[].", "count");
		cs->sum = num(r, cmd, "commands[].", "latency_sum_ns", 0);
		cs->failures = count(r, cmd, "commands[].", "failures");
		cs->retries = count(r, cmd, "commands[].", "retries");
	}
}

/* results.scripts: each script's counts, histogram and commands. */
static void
read_scripts(rd *r, const jsonread_value *results, merge_host *h)
{
	const jsonread_value *arr = field(r, results, "results.", "scripts", JSONREAD_ARRAY);

	if (arr == NULL || arr->n == 0)
	{
		rd_fail(r, "field \"results.scripts\" has no script");
		return;
	}
	h->nscripts = (int) arr->n;
	h->scripts = xcalloc(arr->n, sizeof(merge_script));
	for (uint32_t i = 0; i < arr->n; i++)
	{
		const jsonread_value *sc = &arr->u.items[i];
		merge_script *ms = &h->scripts[i];
		char		p[64];

		snprintf(p, sizeof(p), "results.scripts[%u].", i);
		ms->name = str(r, sc, p, "name");
		ms->weight = (int) count(r, sc, p, "weight");
		read_stats(r, sc, p, &ms->st);
		ms->h = read_hist(r, sc, p, &ms->st);
		read_commands(r, sc, p, ms);
	}
}

/*
 * --waits: a progress entry's sessions by wait class, if it has them (a
 * report of a version before "waits_aas" has none; a class it does not
 * name had no sessions).
 */
static void
read_waits_mix(rd *r, const jsonread_value *o, bwaits_mix *mix)
{
	const jsonread_value *wa = jsonread_get(o, "waits_aas");

	if (wa == NULL || wa->type != JSONREAD_OBJECT)
		return;
	mix->any = true;
	for (int k = 0; k < BWAITS_NCLASSES; k++)
		if (jsonread_get(wa, bwaits_class_names[k]) != NULL)
			mix->aas[k] = num(r, wa, "progress[].waits_aas.", bwaits_class_names[k], 0);
}

/* The -P series, each line's interval numbered from the start. */
static void
read_progress(rd *r, const jsonread_value *root, merge_host *h)
{
	const jsonread_value *arr = field(r, root, "", "progress", JSONREAD_NULL);

	if (arr == NULL || arr->type == JSONREAD_NULL || h->progress_s <= 0)
		return;
	if (arr->type != JSONREAD_ARRAY)
	{
		rd_fail(r, "field \"progress\" is not an array");
		return;
	}
	h->points = xcalloc(arr->n + 1, sizeof(merge_point));
	h->npoints = (int) arr->n;
	for (uint32_t i = 0; i < arr->n; i++)
	{
		const jsonread_value *o = &arr->u.items[i];
		merge_point *p = &h->points[i];
		const jsonread_value *pc = jsonread_get(o, "percentiles_ms");

		p->time_s = num(r, o, "progress[].", "time_s", 0);
		p->k = llround(p->time_s / h->progress_s);
		p->epoch_s = num(r, o, "progress[].", "epoch_s", 0);
		p->interval_s = num(r, o, "progress[].", "interval_s", 0);
		p->transactions = count(r, o, "progress[].", "transactions");
		p->tps = num(r, o, "progress[].", "tps", 0);
		p->latency_ms = num(r, o, "progress[].", "latency_ms", 0);
		p->stddev_ms = num(r, o, "progress[].", "stddev_ms", 0);
		p->lag_ms = num(r, o, "progress[].", "lag_ms", 0);
		p->failed = count(r, o, "progress[].", "failed");
		p->skipped = count(r, o, "progress[].", "skipped");
		p->retried = count(r, o, "progress[].", "retried");
		p->retries = count(r, o, "progress[].", "retries");
		p->max_ms = pc != NULL && pc->type == JSONREAD_OBJECT ?
			num(r, pc, "progress[].percentiles_ms.", "max", NAN) : NAN;
		read_waits_mix(r, o, &p->waits);
	}
}

/* --warmup: the report's "warmup" object (none: no warm-up, or a version before it). */
static void
read_warmup(rd *r, const jsonread_value *root, merge_host *h)
{
	const jsonread_value *o = jsonread_get(root, "warmup");
	const char *req;
	const jsonread_value *lev;

	if (o == NULL || o->type != JSONREAD_OBJECT)
		return;
	req = str(r, o, "warmup.", "requested");
	if (req == NULL)
		return;
	h->warmup.mode = strcmp(req, "auto") == 0 ? WARMUP_AUTO : WARMUP_FIXED;
	h->warmup.requested_s = h->warmup.mode == WARMUP_AUTO ?
		(int) count(r, o, "warmup.", "maximum_s") : atoi(req);
	lev = field(r, o, "warmup.", "ended", JSONREAD_BOOL);
	h->warmup.ended = lev != NULL && lev->b;
	h->warmup.actual_s = num(r, o, "warmup.", "seconds", 0);
	lev = jsonread_get(o, "levelled_off");
	h->warmup.levelled = lev != NULL && lev->type == JSONREAD_BOOL && lev->b;
	h->warmup.measure_start_epoch_s = num(r, o, "warmup.", "measure_start_epoch_s", 0);
}

/* --waits: the events and what their shares are of. */
static void
read_waits(rd *r, const jsonread_value *root, merge_host *h)
{
	const jsonread_value *arr = jsonread_get(root, "waits");
	const jsonread_value *smp;

	if (arr == NULL)
		return;
	h->has_waits = true;
	arr = field(r, root, "", "waits", JSONREAD_ARRAY);
	smp = field(r, root, "", "waits_sampling", JSONREAD_OBJECT);
	h->waits.interval_ns = (int64_t) llround(num(r, smp, "waits_sampling.", "interval_ms", 0) * 1e6);
	h->waits.ticks = (uint64_t) count(r, smp, "waits_sampling.", "samples");
	h->waits.sessions = (int) count(r, smp, "waits_sampling.", "sessions");
	h->waits.counted = (uint64_t) count(r, smp, "waits_sampling.", "session_samples");
	h->waits.cost_us = -1;
	h->waits.backends = -1;
	if (arr == NULL)
		return;
	h->waits.ev = xcalloc(arr->n + 1, sizeof(bwaits_event));
	h->waits.nev = (int) arr->n;
	for (uint32_t i = 0; i < arr->n; i++)
	{
		const jsonread_value *o = &arr->u.items[i];
		const char *type = str(r, o, "waits[].", "wait_event_type");
		const char *event = str(r, o, "waits[].", "wait_event");

		h->waits.ev[i].type = xstrdup(type != NULL ? type : "?");
		h->waits.ev[i].event = event != NULL ? xstrdup(event) : NULL;
		h->waits.ev[i].samples = (uint64_t) count(r, o, "waits[].", "samples");
	}
}

/* A script that only names itself and its commands' first lines, for the report. */
static script *
report_script(const merge_script *ms)
{
	script	   *sc = xcalloc(1, sizeof(*sc));

	sc->desc = xstrdup(ms->name != NULL ? ms->name : "?");
	sc->weight = ms->weight;
	sc->ncommands = ms->ncommands;
	sc->commands = xcalloc((size_t) ms->ncommands + 1, sizeof(command *));
	for (int c = 0; c < ms->ncommands; c++)
	{
		sc->commands[c] = xcalloc(1, sizeof(command));
		sc->commands[c]->first_line = xstrdup(ms->command_text[c] != NULL ? ms->command_text[c] : "");
	}
	return sc;
}

void
mergeread_free_scripts(script **scripts, int n)
{
	for (int i = 0; i < n; i++)
	{
		for (int c = 0; c < scripts[i]->ncommands; c++)
		{
			free(scripts[i]->commands[c]->first_line);
			free(scripts[i]->commands[c]);
		}
		free(scripts[i]->commands);
		free(scripts[i]->desc);
		free(scripts[i]);
	}
}

/* The settings the report prints, from "settings" (the scripts from results.scripts). */
static void
read_settings(rd *r, const jsonread_value *st, merge_host *h)
{
	static const char *const modes[] = {"simple", "extended", "prepared"};
	const char *mode = str(r, st, "settings.", "query_mode");
	const jsonread_value *pcts = field(r, st, "settings.", "percentiles", JSONREAD_ARRAY);
	bench_settings *s = &h->s;

	for (int m = 0; m < 3; m++)
		if (mode != NULL && strcmp(mode, modes[m]) == 0)
			s->mode = (query_mode) m;
	s->transactions = count(r, st, "settings.", "transactions_per_client");
	s->duration = (int) count(r, st, "settings.", "duration_s");
	s->max_tries = (uint32_t) count(r, st, "settings.", "max_tries");
	s->is_connect = jsonread_get(st, "connect_per_transaction") != NULL &&
		jsonread_get(st, "connect_per_transaction")->b;
	s->latency_limit_ns = llround(num(r, st, "settings.", "latency_limit_ms", 0) * 1e6);
	s->progress = h->progress_s;
	s->per_command = jsonread_get(st, "report_per_command") != NULL &&
		jsonread_get(st, "report_per_command")->b;
	s->failures_detailed = jsonread_get(st, "failures_detailed") != NULL &&
		jsonread_get(st, "failures_detailed")->b;
	s->continue_on_error = jsonread_get(st, "continue_on_error") != NULL &&
		jsonread_get(st, "continue_on_error")->b;
	s->random_seed = (uint64_t) num(r, st, "settings.", "random_seed", 0);
	for (uint32_t i = 0; pcts != NULL && i < pcts->n && i < BENCH_MAX_PERCENTILES; i++)
		s->percentiles[s->npercentiles++] = pcts->u.items[i].num;
	h->server.scale = count(r, st, "settings.", "scale");
	h->server.partition_method = str(r, st, "settings.", "partition_method");
	if (h->server.partition_method != NULL)
		h->server.partition_method = xstrdup(h->server.partition_method);
	h->server.partitions = (int) count(r, st, "settings.", "partitions");
}

/* The scripts for the report, once results.scripts was read. */
static void
make_scripts(merge_host *h)
{
	h->s.nscripts = h->nscripts < SCRIPT_MAX_SCRIPTS ? h->nscripts : SCRIPT_MAX_SCRIPTS;
	for (int i = 0; i < h->s.nscripts; i++)
	{
		h->s.scripts[i] = report_script(&h->scripts[i]);
		h->s.total_weight += h->scripts[i].weight;
	}
	if (h->s.total_weight <= 0)
		h->s.total_weight = 1;
}

/* The top level: what ran where and when, and how it ended. */
static void
read_run(rd *r, const jsonread_value *root, merge_host *h)
{
	const jsonread_value *tool = jsonread_get(root, "tool");
	const jsonread_value *clock = jsonread_get(root, "clock");
	const jsonread_value *settings;

	if (tool == NULL || tool->type != JSONREAD_STRING || strcmp(tool->u.str, "pgtempo-bench") != 0)
	{
		rd_fail(r, "not a pgtempo-bench --json report");
		return;
	}
	if (jsonread_get(root, "bench_start_epoch_s") == NULL)
	{
		rd_fail(r, "written by a pgtempo-bench that did not record the sums a merge needs: run it with this version");
		return;
	}
	settings = field(r, root, "", "settings", JSONREAD_OBJECT);
	if (count(r, root, "", "schema") != JSONREPORT_SCHEMA)
		rd_fail(r, "schema %lld, this version reads schema %d",
				(long long) count(r, root, "", "schema"), JSONREPORT_SCHEMA);
	h->host = str(r, root, "", "host") != NULL ? xstrdup(str(r, root, "", "host")) : NULL;
	h->start_epoch_s = num(r, root, "", "bench_start_epoch_s", 0);
	h->end_epoch_s = num(r, root, "", "end_epoch_s", 0);
	h->exit_status = (int) count(r, root, "", "exit_status");
	h->interrupted_by = str(r, root, "", "interrupted_by") != NULL ?
		xstrdup(str(r, root, "", "interrupted_by")) : NULL;
	h->log_lines_lost = count(r, root, "", "log_lines_lost");
	h->clients_abandoned = count(r, root, "", "clients_abandoned");
	if (clock != NULL && clock->type == JSONREAD_OBJECT)
	{
		const jsonread_value *sync = field(r, clock, "clock.", "synchronized", JSONREAD_BOOL);

		h->clock.known = true;
		h->clock.synchronized = sync != NULL && sync->b;
		h->clock.est_error_s = num(r, clock, "clock.", "estimated_error_ms", 0) / 1e3;
		h->clock.max_error_s = num(r, clock, "clock.", "maximum_error_ms", 0) / 1e3;
	}
	h->nclients = (int) count(r, settings, "settings.", "clients");
	h->nthreads = (int) count(r, settings, "settings.", "threads");
	h->rate = num(r, settings, "settings.", "rate_tps", 0);
	h->progress_s = (int) count(r, settings, "settings.", "progress_s");
	h->server_version = str(r, root, "", "server_version") != NULL ?
		xstrdup(str(r, root, "", "server_version")) : NULL;
	h->server_version_num = (int) count(r, root, "", "server_version_num");
	read_settings(r, settings, h);
}

bool
mergeread_host(const char *file, merge_host *h, char **cause)
{
	rd			r = {NULL};
	const jsonread_value *results;

	memset(h, 0, sizeof(*h));
	h->file = file;
	h->doc = jsonread_file(file, cause);
	if (h->doc == NULL)
		return false;
	h->root = jsonread_root(h->doc);
	read_run(&r, h->root, h);
	results = r.err == NULL ? field(&r, h->root, "", "results", JSONREAD_NULL) : NULL;
	if (results != NULL && results->type != JSONREAD_OBJECT)
		rd_fail(&r, "the run did not start (\"results\" is null): nothing to merge");
	if (r.err == NULL)
	{
		h->duration_s = num(&r, results, "results.", "duration_s", 0);
		h->conn_elapsed_ms = num(&r, results, "results.", "initial_connection_time_ms", 0);
		h->conn_total_ms = num(&r, results, "results.", "connection_time_total_ms", 0);
		read_stats(&r, results, "results.", &h->total);
		h->h = read_hist(&r, results, "results.", &h->total);
		read_scripts(&r, results, h);
		read_progress(&r, h->root, h);
		read_waits(&r, h->root, h);
		read_warmup(&r, h->root, h);
	}
	if (r.err != NULL)
	{
		*cause = xasprintf("file \"%s\": %s", file, r.err);
		free(r.err);
		mergeread_free(h);
		return false;
	}
	if (h->host == NULL)
		h->host = xstrdup(file);
	make_scripts(h);
	return true;
}

bool
mergeread_series(merge_host *h, char **cause)
{
	char	   *err = NULL;

	if (series_read(h->root, &h->series, &err))
		return true;
	*cause = xasprintf("file \"%s\": %s", h->file, err);
	free(err);
	return false;
}

void
mergeread_drop_doc(merge_host *h)
{
	for (int i = 0; i < h->nscripts; i++)
	{
		free(h->scripts[i].command_text);
		h->scripts[i].command_text = NULL;
		h->scripts[i].name = NULL;
	}
	jsonread_free(h->doc);
	h->doc = NULL;
	h->root = NULL;
}

void
mergeread_free(merge_host *h)
{
	free(h->host);
	free(h->interrupted_by);
	free(h->server_version);
	free((char *) h->server.partition_method);
	for (int i = 0; i < h->nscripts; i++)
	{
		free(h->scripts[i].h);
		free(h->scripts[i].command_text);
		free(h->scripts[i].commands);
	}
	free(h->scripts);
	mergeread_free_scripts(h->s.scripts, h->s.nscripts);
	free(h->h);
	free(h->points);
	series_free(&h->series);
	for (int i = 0; i < h->waits.nev; i++)
	{
		free(h->waits.ev[i].type);
		free(h->waits.ev[i].event);
	}
	free(h->waits.ev);
	jsonread_free(h->doc);
	memset(h, 0, sizeof(*h));
}
