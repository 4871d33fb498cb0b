/*
 * jsonreport.c — the --json document.
 *
 * Times are in the unit their key names (_s, _ms, _us); counts are
 * integers; a number that does not apply (the lag without -R, an average
 * of nothing) is null rather than 0, so that a dashboard can tell the two
 * apart.  Latencies are those of successful transactions, measured from
 * the scheduled start under -R, as in the text report.
 */
#include "config.h"

#include "jsonreport.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pgtempo/json.h"

static const char *const query_modes[] = {"simple", "extended", "prepared"};

void
jsonreport_iso8601(char *buf, size_t len, double t)
{
	time_t		secs = (time_t) floor(t);
	int			ms = (int) ((t - (double) secs) * 1000.0);
	struct tm	tm;
	char		date[32];
	long		off;

	if (ms > 999)
		ms = 999;
	localtime_r(&secs, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	off = tm.tm_gmtoff / 60;
	snprintf(buf, len, "%s.%03d%c%02ld:%02ld", date, ms, off < 0 ? '-' : '+',
			 labs(off) / 60, labs(off) % 60);
}

/* The exact sums of a series, which --merge adds up: count, sum, sum of squares, min, max (ns). */
static void
json_sums(json_writer *w, const stats_simple *ss)
{
	json_kv_int(w, "count", ss->count);
	json_kv_double(w, "sum_ns", ss->sum);
	json_kv_double(w, "sum_squares_ns2", ss->sum2);
	json_kv_double_or_null(w, "min_ns", ss->count > 0, ss->min);
	json_kv_double_or_null(w, "max_ns", ss->count > 0, ss->max);
}

/* The counts of a stats after "failed", as they are. */
static const json_field stats_counts[] = {
	{"serialization_failures", JSON_FIELD_INT64, offsetof(stats, serialization_failures)},
	{"deadlock_failures", JSON_FIELD_INT64, offsetof(stats, deadlock_failures)},
	{"other_failures", JSON_FIELD_INT64, offsetof(stats, other_failures)},
	{"skipped", JSON_FIELD_INT64, offsetof(stats, skipped)},
	{"late", JSON_FIELD_INT64, offsetof(stats, late)},
	{"retried", JSON_FIELD_INT64, offsetof(stats, retried)},
	{"retries", JSON_FIELD_INT64, offsetof(stats, retries)},
};

/* The counts of a stats (totals or one script); expected is -t's target or -1. */
static void
json_transactions(json_writer *w, const stats *st, int64_t expected)
{
	int64_t		failures = stats_failures(st);

	json_key(w, "transactions");
	json_object_begin(w);
	json_kv_int(w, "total", st->cnt + st->skipped + failures);
	json_kv_int(w, "processed", st->cnt);
	json_kv_int_or_null(w, "expected", expected >= 0, expected);
	json_kv_int(w, "failed", failures);
	json_kv_fields(w, st, stats_counts, sizeof(stats_counts) / sizeof(stats_counts[0]));
	json_object_end(w);
}

/* {"p50": ms, ..., "max": ms} of h. */
static void
json_percentiles(json_writer *w, const bench_settings *s, const hist *h)
{
	const double *pcts;
	int			n = report_percentiles(s, &pcts);

	json_object_begin(w);
	for (int i = 0; i < n; i++)
	{
		char		label[32];
		bool		dup = false;

		for (int k = 0; k < i; k++)
			dup = dup || pcts[k] == pcts[i];
		if (dup)
			continue;			/* --percentiles=50,50: one key */
		report_percentile_label(label, sizeof(label), pcts[i]);
		json_kv_double(w, label, (double) hist_percentile(h, pcts[i]) / 1e6);
	}
	json_kv_double(w, "max", (double) h->max / 1e6);
	json_object_end(w);
}

/* The "latency" object of a series and its histogram (h may be NULL). */
static void
json_latency(json_writer *w, const bench_settings *s, const stats_simple *lat, const hist *h,
			 bool with_estimate, double estimate_ms)
{
	bool		any = lat->count > 0;
	double		mean = any ? lat->sum / lat->count : 0.0;
	double		variance = any ? lat->sum2 / lat->count - mean * mean : 0.0;

	json_key(w, "latency");
	json_object_begin(w);
	json_kv_double_or_null(w, "average_ms", any, mean / 1e6);
	json_kv_double_or_null(w, "stddev_ms", any, (variance > 0 ? sqrt(variance) : 0.0) / 1e6);
	json_kv_double_or_null(w, "min_ms", any, lat->min / 1e6);
	json_kv_double_or_null(w, "max_ms", any, lat->max / 1e6);
	if (with_estimate)
		json_kv_double_or_null(w, "average_from_duration_ms", isfinite(estimate_ms), estimate_ms);
	json_sums(w, lat);
	json_key(w, "percentiles_ms");
	if (h != NULL && h->total > 0)
		json_percentiles(w, s, h);
	else
		json_null(w);
	json_key(w, "histogram");
	json_array_begin(w);
	for (int i = 0; h != NULL && i < HIST_BUCKETS; i++)
	{
		if (h->counts[i] == 0)
			continue;
		json_object_begin(w);
		json_kv_double(w, "low_us", (double) hist_bucket_low(i) / 1e3);
		json_kv_double(w, "high_us", (double) (hist_bucket_high(i) + 1) / 1e3);
		json_kv_uint(w, "count", h->counts[i]);
		json_object_end(w);
	}
	json_array_end(w);
	json_kv_uint(w, "histogram_clamped", h != NULL ? h->clamped : 0);
	json_object_end(w);
}

/* "lag": {average_ms, max_ms} under -R, else null. */
static void
json_lag(json_writer *w, const bench_settings *s, const stats *st)
{
	json_key(w, "lag");
	if (s->rate <= 0)
	{
		json_null(w);
		return;
	}
	json_object_begin(w);
	json_kv_double_or_null(w, "average_ms", st->cnt > 0,
						   st->cnt > 0 ? st->lag.sum / st->cnt / 1e6 : 0.0);
	json_kv_double_or_null(w, "max_ms", st->lag.count > 0, st->lag.max / 1e6);
	json_sums(w, &st->lag);
	json_object_end(w);
}

static void
json_settings(json_writer *w, const bench_settings *s, const bench_server_facts *server)
{
	const double *pcts;
	int			n = report_percentiles(s, &pcts);

	json_key(w, "settings");
	json_object_begin(w);
	json_kv_string(w, "transaction_type",
				   s->nscripts == 1 ? s->scripts[0]->desc : "multiple scripts");
	json_key(w, "scripts");
	json_array_begin(w);
	for (int i = 0; i < s->nscripts; i++)
	{
		json_object_begin(w);
		json_kv_string(w, "name", s->scripts[i]->desc);
		json_kv_int(w, "weight", s->scripts[i]->weight);
		json_object_end(w);
	}
	json_array_end(w);
	json_kv_int(w, "scale", server->scale);
	json_kv_string(w, "partition_method", server->partition_method);
	json_kv_int(w, "partitions", server->partition_method != NULL ? server->partitions : 0);
	json_kv_string(w, "query_mode", query_modes[s->mode]);
	json_kv_int(w, "clients", s->nclients);
	json_kv_int(w, "threads", s->nthreads);
	json_kv_int_or_null(w, "transactions_per_client", s->duration <= 0, s->transactions);
	json_kv_int_or_null(w, "duration_s", s->duration > 0, s->duration);
	json_kv_uint(w, "max_tries", s->max_tries);
	json_kv_bool(w, "connect_per_transaction", s->is_connect);
	json_kv_double_or_null(w, "rate_tps", s->rate > 0, s->rate);
	json_kv_double_or_null(w, "latency_limit_ms", s->latency_limit_ns > 0,
						   (double) s->latency_limit_ns / 1e6);
	json_kv_int_or_null(w, "progress_s", s->progress > 0, s->progress);
	json_kv_bool(w, "report_per_command", s->per_command);
	json_kv_bool(w, "failures_detailed", s->failures_detailed);
	json_kv_bool(w, "continue_on_error", s->continue_on_error);
	json_kv_bool(w, "vacuum", !s->no_vacuum);
	json_kv_bool(w, "vacuum_all", s->vacuum_all);
	json_kv_uint(w, "random_seed", s->random_seed);
	json_key(w, "percentiles");
	json_array_begin(w);
	for (int i = 0; i < n; i++)
		json_double(w, pcts[i]);
	json_array_end(w);
	json_kv_bool(w, "log", s->use_log);
	json_kv_string(w, "log_prefix", s->use_log ? s->log_prefix : NULL);
	json_kv_double_or_null(w, "sampling_rate", s->sampling_rate > 0, s->sampling_rate);
	json_kv_int_or_null(w, "aggregate_interval_s", s->agg_interval > 0, s->agg_interval);
	json_kv_bool(w, "aggregate_per_script", s->agg_per_script);
	json_object_end(w);
}

/* -r: the commands of script i. */
static void
json_commands(json_writer *w, const bench_settings *s, const report_data *d, int i)
{
	const script *sc = s->scripts[i];

	json_key(w, "commands");
	if (!s->per_command || d->commands == NULL)
	{
		json_null(w);
		return;
	}
	json_array_begin(w);
	for (int c = 0; c < sc->ncommands; c++)
	{
		const stats_command *cs = &d->commands[i][c];

		json_object_begin(w);
		json_kv_string(w, "command", sc->commands[c]->first_line);
		json_kv_double(w, "latency_ms", cs->count > 0 ? cs->sum / cs->count / 1e6 : 0.0);
		json_kv_double(w, "latency_sum_ns", cs->sum);
		json_kv_int(w, "count", cs->count);
		json_kv_int(w, "failures", cs->failures);
		json_kv_int(w, "retries", cs->retries);
		json_object_end(w);
	}
	json_array_end(w);
}

static void
json_results(json_writer *w, const bench_settings *s, const report_data *d)
{
	const stats *t;
	int64_t		failures,
				total_cnt;
	double		dur;

	json_key(w, "results");
	if (d == NULL)
	{
		json_null(w);
		return;
	}
	t = &d->total;
	failures = stats_failures(t);
	total_cnt = t->cnt + t->skipped + failures;
	dur = d->bench_duration_s;
	json_object_begin(w);
	json_kv_double(w, "duration_s", dur);
	json_transactions(w, t, s->duration <= 0 ? s->transactions * s->nclients : -1);
	json_kv_double(w, "tps", dur > 0 ? t->cnt / dur : 0.0);
	json_kv_double_or_null(w, "initial_connection_time_ms", !s->is_connect, d->conn_elapsed_ms);
	json_kv_double_or_null(w, "average_connection_time_ms", s->is_connect && t->cnt + failures > 0,
						   d->conn_total_ms / (double) (t->cnt + failures));
	json_kv_double(w, "connection_time_total_ms", d->conn_total_ms);
	json_latency(w, s, &t->latency, d->lat_hist, true,
				 total_cnt > 0 ? dur * 1000.0 * s->nclients / total_cnt : NAN);
	json_lag(w, s, t);

	json_key(w, "scripts");
	json_array_begin(w);
	for (int i = 0; i < s->nscripts; i++)
	{
		/* with one script, the runner keeps only the totals */
		const stats *ss = s->nscripts > 1 ? &d->scripts[i] : t;
		const hist *h = s->nscripts == 1 ? d->lat_hist :
			d->script_hists != NULL ? &d->script_hists[i] : NULL;
		int64_t		stotal = ss->cnt + ss->skipped + stats_failures(ss);

		json_object_begin(w);
		json_kv_string(w, "name", s->scripts[i]->desc);
		json_kv_int(w, "weight", s->scripts[i]->weight);
		json_kv_double(w, "weight_pct", 100.0 * s->scripts[i]->weight / s->total_weight);
		json_kv_double_or_null(w, "share_pct", total_cnt > 0,
							   total_cnt > 0 ? 100.0 * stotal / total_cnt : 0.0);
		json_transactions(w, ss, -1);
		json_kv_double(w, "tps", dur > 0 ? ss->cnt / dur : 0.0);
		json_latency(w, s, &ss->latency, h, false, 0);
		json_lag(w, s, ss);
		json_commands(w, s, d, i);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

/* The members of a progress line before "lag_ms", and after it. */
static const json_field progress_times[] = {
	{"time_s", JSON_FIELD_DOUBLE, offsetof(report_progress_point, elapsed_s)},
	{"epoch_s", JSON_FIELD_DOUBLE, offsetof(report_progress_point, epoch_s)},
	{"interval_s", JSON_FIELD_DOUBLE, offsetof(report_progress_point, interval_s)},
	{"transactions", JSON_FIELD_INT64, offsetof(report_progress_point, transactions)},
	{"tps", JSON_FIELD_DOUBLE, offsetof(report_progress_point, tps)},
	{"latency_ms", JSON_FIELD_DOUBLE, offsetof(report_progress_point, latency_ms)},
	{"stddev_ms", JSON_FIELD_DOUBLE, offsetof(report_progress_point, stddev_ms)},
};
static const json_field progress_counts[] = {
	{"failed", JSON_FIELD_INT64, offsetof(report_progress_point, failed)},
	{"skipped", JSON_FIELD_INT64, offsetof(report_progress_point, skipped)},
	{"retried", JSON_FIELD_INT64, offsetof(report_progress_point, retried)},
	{"retries", JSON_FIELD_INT64, offsetof(report_progress_point, retries)},
};

static void
json_progress(json_writer *w, const bench_settings *s, const jsonreport_run *run)
{
	const double *pcts;
	int			n = report_percentiles(s, &pcts);

	json_key(w, "progress");
	if (s->progress <= 0)
	{
		json_null(w);
		return;
	}
	json_array_begin(w);
	for (int k = 0; k < run->nprogress; k++)
	{
		const report_progress_point *p = &run->progress[k];

		json_object_begin(w);
		json_kv_fields(w, p, progress_times, sizeof(progress_times) / sizeof(progress_times[0]));
		json_kv_double_or_null(w, "lag_ms", s->rate > 0, p->lag_ms);
		json_kv_fields(w, p, progress_counts, sizeof(progress_counts) / sizeof(progress_counts[0]));
		json_key(w, "percentiles_ms");
		if (p->has_percentiles)
		{
			json_object_begin(w);
			for (int i = 0; i < n; i++)
			{
				char		label[32];
				bool		dup = false;

				for (int j = 0; j < i; j++)
					dup = dup || pcts[j] == pcts[i];
				if (dup)
					continue;
				report_percentile_label(label, sizeof(label), pcts[i]);
				json_kv_double(w, label, p->percentiles_ms[i]);
			}
			json_kv_double(w, "max", p->max_ms);
			json_object_end(w);
		}
		else
			json_null(w);
		if (s->waits_ns > 0)
		{
			bwaits_top_json(w, &p->top_wait);
			bwaits_mix_json(w, &p->waits_mix);
		}
		json_object_end(w);
	}
	json_array_end(w);
}

/* --waits: what the shares are of, which --merge adds up. */
static void
json_waits_sampling(json_writer *w, const bwaits_report *rep)
{
	json_key(w, "waits_sampling");
	json_object_begin(w);
	json_kv_double(w, "interval_ms", (double) rep->interval_ns / 1e6);
	json_kv_uint(w, "samples", rep->ticks);
	json_kv_int(w, "sessions", rep->sessions);
	json_kv_uint(w, "session_samples", rep->counted);
	json_object_end(w);
}

/* The clock's state, or the worst of the merged hosts' ({synchronized: all were}). */
static void
json_clock(json_writer *w, const clock_sync *c)
{
	json_key(w, "clock");
	if (c == NULL || !c->known)
	{
		json_null(w);
		return;
	}
	json_object_begin(w);
	json_kv_bool(w, "synchronized", c->synchronized);
	json_kv_double(w, "estimated_error_ms", c->est_error_s * 1e3);
	json_kv_double(w, "maximum_error_ms", c->max_error_s * 1e3);
	json_object_end(w);
}

/* --warmup: what was asked for and how it went; null without one. */
static void
json_warmup(json_writer *w, const warmup_outcome *o)
{
	char		req[32];

	json_key(w, "warmup");
	if (o == NULL || o->mode == WARMUP_NONE)
	{
		json_null(w);
		return;
	}
	json_object_begin(w);
	snprintf(req, sizeof(req), "%d", o->requested_s);
	json_kv_string(w, "requested", o->mode == WARMUP_AUTO ? "auto" : req);
	json_kv_int_or_null(w, "maximum_s", o->mode == WARMUP_AUTO, o->requested_s);
	json_kv_bool(w, "ended", o->ended);
	json_kv_double_or_null(w, "seconds", o->ended, o->actual_s);
	json_key(w, "levelled_off");
	if (o->mode == WARMUP_AUTO && o->ended)
		json_bool(w, o->levelled);
	else
		json_null(w);
	json_kv_double_or_null(w, "measure_start_epoch_s", o->ended, o->measure_start_epoch_s);
	json_object_end(w);
}

/* Where and when the measured run took place: what --merge checks the hosts with. */
static void
json_where_when(json_writer *w, const bench_settings *s, const jsonreport_run *run)
{
	char		when[64];
	char		host[256] = "";

	json_kv_double_or_null(w, "bench_start_epoch_s", run->bench_start_epoch_s > 0,
						   run->bench_start_epoch_s);
	json_key(w, "start_at");
	if (s->start_at_epoch_s > 0)
	{
		jsonreport_iso8601(when, sizeof(when), s->start_at_epoch_s);
		json_string(w, when);
	}
	else
		json_null(w);
	json_kv_double_or_null(w, "start_at_epoch_s", s->start_at_epoch_s > 0, s->start_at_epoch_s);
	if (run->merge == NULL && (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0'))
		strcpy(host, "unknown");
	json_kv_string(w, "host", run->merge == NULL ? host : NULL);
	json_clock(w, run->clock);
	if (run->merge != NULL)
	{
		const jsonreport_merge *m = run->merge;

		json_key(w, "hosts");
		json_array_begin(w);
		for (int i = 0; i < m->nhosts; i++)
		{
			json_object_begin(w);
			json_kv_string(w, "host", m->hosts[i]);
			json_kv_string(w, "file", m->files[i]);
			json_object_end(w);
		}
		json_array_end(w);
		json_key(w, "files_missing");
		json_array_begin(w);
		for (int i = 0; i < m->nmissing; i++)
			json_string(w, m->missing[i]);
		json_array_end(w);
	}
}

void
jsonreport_build(strbuf *out, const bench_settings *s, const jsonreport_run *run)
{
	json_writer w;
	char		when[64];

	json_init(&w, out, true);
	json_object_begin(&w);
	json_kv_string(&w, "tool", "pgtempo-bench");
	json_kv_string(&w, "version", PACKAGE_VERSION);
	json_kv_int(&w, "schema", JSONREPORT_SCHEMA);
	json_kv_string(&w, "server_version", run->server_version);
	json_key(&w, "server_version_num");
	if (run->server_version_num > 0)
		json_int(&w, run->server_version_num);
	else
		json_null(&w);
	jsonreport_iso8601(when, sizeof(when), run->start_epoch_s);
	json_kv_string(&w, "start_time", when);
	jsonreport_iso8601(when, sizeof(when), run->end_epoch_s);
	json_kv_string(&w, "end_time", when);
	json_kv_double(&w, "start_epoch_s", run->start_epoch_s);
	json_kv_double(&w, "end_epoch_s", run->end_epoch_s);
	json_where_when(&w, s, run);
	json_kv_int(&w, "exit_status", run->exit_status);
	json_kv_string(&w, "interrupted_by", run->stop_signal == SIGINT ? "SIGINT" :
				   run->stop_signal == SIGTERM ? "SIGTERM" : NULL);
	json_kv_int(&w, "log_lines_lost", run->log_lines_lost);
	json_kv_int(&w, "clients_abandoned", run->clients_abandoned);
	json_settings(&w, s, run->server);
	json_warmup(&w, run->warmup);
	json_results(&w, s, run->data);
	if (s->waits_ns > 0)
	{
		bwaits_report none = {.cost_us = -1};

		bwaits_report_json(&w, run->waits != NULL ? run->waits : &none);
		json_waits_sampling(&w, run->waits != NULL ? run->waits : &none);
	}
	json_progress(&w, s, run);
	series_json(&w, run->series);
	json_object_end(&w);
	strbuf_putc(out, '\n');
}

bool
jsonreport_write(const char *path, const bench_settings *s, const jsonreport_run *run,
				 char **cause)
{
	strbuf		sb;

	strbuf_init(&sb);
	jsonreport_build(&sb, s, run);
	return strbuf_write_free(&sb, path, cause);
}
