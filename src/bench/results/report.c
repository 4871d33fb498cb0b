/*
 * report.c — pgbench's report lines.
 *
 * The layout follows the newest pgbench: the per-script section has the
 * "number of transactions actually processed" line of PostgreSQL 17 and
 * later, and when no transaction ended at all the report stops after the
 * "processed" line instead of printing "0 (NaN%)" as pgbench 15 does.
 * The -R and -L lines (skipped, above the latency limit, schedule lag, and
 * ", lag X ms, N skipped" in progress lines) are the same in pgbench 15
 * and 18; where pgbench would divide by zero (every transaction skipped
 * or failed) we print 0 instead of NaN.
 *
 * Beyond pgbench: a "latency percentiles:" line right after the latency
 * average and stddev (totals and per script), from the runner's
 * log-linear histograms, and with --progress-percentiles the same numbers
 * at the end of each progress line, for that interval only.
 */
#include "config.h"

#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "pgtempo/xalloc.h"

static const char *const query_modes[] = {"simple", "extended", "prepared"};

static const double default_percentiles[] = {50, 90, 99, 99.9};

FILE *
report_stream(const bench_settings *s)
{
	return output_stdout_count(s) > 0 ? stderr : stdout;
}

int
report_percentiles(const bench_settings *s, const double **list)
{
	if (s->npercentiles > 0)
	{
		*list = s->percentiles;
		return s->npercentiles;
	}
	*list = default_percentiles;
	return (int) (sizeof(default_percentiles) / sizeof(default_percentiles[0]));
}

void
report_percentile_label(char *buf, size_t len, double p)
{
	snprintf(buf, len, "p%.10g", p);
}

/* A histogram value (ns) in ms. */
static double
ns_ms(uint64_t ns)
{
	return (double) ns / 1e6;
}

/* "PREFIXlatency percentiles: p50 = X ms, ..., max = Y ms", if h is not empty. */
static void
print_percentiles(FILE *out, const bench_settings *s, const char *prefix, const hist *h)
{
	const double *pcts;
	int			n = report_percentiles(s, &pcts);

	if (h == NULL || h->total == 0)
		return;
	fprintf(out, "%slatency percentiles:", prefix);
	for (int i = 0; i < n; i++)
	{
		char		label[32];

		report_percentile_label(label, sizeof(label), pcts[i]);
		fprintf(out, "%s %s = %.3f ms", i > 0 ? "," : "", label,
				ns_ms(hist_percentile(h, pcts[i])));
	}
	fprintf(out, "%s max = %.3f ms\n", n > 0 ? "," : "", ns_ms(h->max));
}

/* "PREFIX average = X ms" and "PREFIX stddev = Y ms" of a series, if not empty. */
static void
print_simple(FILE *out, const char *prefix, const stats_simple *ss)
{
	double		mean,
				variance;

	if (ss->count <= 0)
		return;
	mean = ss->sum / ss->count;
	variance = ss->sum2 / ss->count - mean * mean;
	fprintf(out, "%s average = %.3f ms\n", prefix, mean / 1e6);
	fprintf(out, "%s stddev = %.3f ms\n", prefix, (variance > 0 ? sqrt(variance) : 0.0) / 1e6);
}

/* The share of part in whole, in percent, for "(%.3f%%)". */
static double
pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* The failure, retry and skip lines of the totals or of one script (pgbench's order). */
static void
print_failures(FILE *out, const bench_settings *s, const char *prefix, const stats *st,
			   int64_t total_cnt)
{
	int64_t		failures = stats_failures(st);

	fprintf(out, "%snumber of failed transactions: %lld (%.3f%%)\n", prefix,
			(long long) failures, pct(failures, total_cnt));
	if (s->failures_detailed)
	{
		fprintf(out, "%snumber of serialization failures: %lld (%.3f%%)\n", prefix,
				(long long) st->serialization_failures,
				pct(st->serialization_failures, total_cnt));
		fprintf(out, "%snumber of deadlock failures: %lld (%.3f%%)\n", prefix,
				(long long) st->deadlock_failures, pct(st->deadlock_failures, total_cnt));
		fprintf(out, "%snumber of other failures: %lld (%.3f%%)\n", prefix,
				(long long) st->other_failures, pct(st->other_failures, total_cnt));
	}
	if (s->max_tries != 1)
	{
		fprintf(out, "%snumber of transactions retried: %lld (%.3f%%)\n", prefix,
				(long long) st->retried, pct(st->retried, total_cnt));
		fprintf(out, "%stotal number of retries: %lld\n", prefix, (long long) st->retries);
	}
	if (s->rate > 0 && s->latency_limit_ns > 0)
		fprintf(out, "%snumber of transactions skipped: %lld (%.3f%%)\n", prefix,
				(long long) st->skipped, pct(st->skipped, total_cnt));
}

/* -r: one line per command of script i. */
static void
print_commands(FILE *out, const bench_settings *s, const report_data *d, int i, bool per_script)
{
	const script *sc = s->scripts[i];

	fprintf(out, "%sstatement latencies in milliseconds%s:\n", per_script ? " - " : "",
			s->max_tries == 1 ? " and failures" : ", failures and retries");
	for (int c = 0; c < sc->ncommands; c++)
	{
		const stats_command *cs = &d->commands[i][c];
		double		ms = cs->count > 0 ? cs->sum / cs->count / 1e6 : 0.0;

		if (s->max_tries == 1)
			fprintf(out, "   %11.3f  %10lld  %s\n", ms, (long long) cs->failures,
					sc->commands[c]->first_line);
		else
			fprintf(out, "   %11.3f  %10lld  %10lld  %s\n", ms, (long long) cs->failures,
					(long long) cs->retries, sc->commands[c]->first_line);
	}
}

/* --warmup: how long it was, and why it ended then (left out of everything below). */
static void
print_warmup(FILE *out, const warmup_outcome *o)
{
	if (!o->ended)
		fprintf(out, "warm-up: not over when the run ended (nothing was measured)\n");
	else if (o->mode == WARMUP_FIXED)
		fprintf(out, "warm-up: %.0f s (not counted)\n", o->actual_s);
	else
		fprintf(out, "warm-up: %.0f s (auto, %s of %d s; not counted)\n", o->actual_s,
				o->levelled ? "levelled off within its maximum" : "reached its maximum",
				o->requested_s);
}

/* --start-at and --merge: the window and the clocks. */
static void
print_window(FILE *out, const report_window *w)
{
	if (w->nhosts > 0)
		fprintf(out, "number of hosts: %d\n", w->nhosts);
	fprintf(out, "start time: %s\nend time: %s\n", w->start, w->end);
	if (w->nhosts > 0)
		fprintf(out, "clocks: %d of %d synchronized", w->nsynced, w->nhosts);
	else
		fprintf(out, "clock: %s", w->nknown == 0 ? "status unknown" :
				w->nsynced > 0 ? "synchronized" : "NOT synchronized");
	if (w->nknown > 0)
		fprintf(out, ", %sestimated error %.3f ms, %smaximum error %.3f ms",
				w->nhosts > 0 ? "largest " : "", w->est_error_ms,
				w->nhosts > 0 ? "largest " : "", w->max_error_ms);
	fputc('\n', out);
}

void
report_print(FILE *out, const bench_settings *s, const bench_server_facts *server,
			 const report_data *d)
{
	const stats *t = &d->total;
	int64_t		failures = stats_failures(t);
	int64_t		total_cnt = t->cnt + t->skipped + failures;
	double		tps = d->bench_duration_s > 0 ? t->cnt / d->bench_duration_s : 0.0;
	bool		per_script = s->nscripts > 1;

	fprintf(out, "transaction type: %s\n",
			s->nscripts == 1 ? s->scripts[0]->desc : "multiple scripts");
	fprintf(out, "scaling factor: %lld\n", (long long) server->scale);
	if (server->partition_method != NULL)
		fprintf(out, "partition method: %s\npartitions: %d\n", server->partition_method,
				server->partitions);
	fprintf(out, "query mode: %s\n", query_modes[s->mode]);
	fprintf(out, "number of clients: %d\n", s->nclients);
	fprintf(out, "number of threads: %d\n", s->nthreads);
	if (s->max_tries != 0)
		fprintf(out, "maximum number of tries: %u\n", s->max_tries);
	if (s->duration <= 0)
	{
		fprintf(out, "number of transactions per client: %lld\n", (long long) s->transactions);
		fprintf(out, "number of transactions actually processed: %lld/%lld\n",
				(long long) t->cnt, (long long) (s->transactions * s->nclients));
	}
	else
	{
		fprintf(out, "duration: %d s\n", s->duration);
		fprintf(out, "number of transactions actually processed: %lld\n", (long long) t->cnt);
	}
	if (d->warmup != NULL)
		print_warmup(out, d->warmup);
	if (d->window != NULL)
		print_window(out, d->window);
	/* nothing ended: the rest would be divisions by zero */
	if (total_cnt <= 0)
		return;

	print_failures(out, s, "", t, total_cnt);
	if (s->latency_limit_ns > 0)
		fprintf(out, "number of transactions above the %.1f ms latency limit: %lld/%lld (%.3f%%)\n",
				(double) s->latency_limit_ns / 1e6, (long long) t->late, (long long) t->cnt,
				pct(t->late, t->cnt));
	/* measured latencies, or pgbench's estimate from the run time */
	if (s->rate > 0 || s->progress > 0 || s->latency_limit_ns > 0)
		print_simple(out, "latency", &t->latency);
	else
		fprintf(out, "latency average = %.3f ms%s\n",
				d->bench_duration_s * 1000.0 * s->nclients / total_cnt,
				failures > 0 ? " (including failures)" : "");
	print_percentiles(out, s, "", d->lat_hist);
	if (s->rate > 0)
		fprintf(out, "rate limit schedule lag: avg %.3f (max %.3f) ms\n",
				t->cnt > 0 ? t->lag.sum / t->cnt / 1e6 : 0.0,
				t->lag.count > 0 ? t->lag.max / 1e6 : 0.0);

	if (s->is_connect)
	{
		fprintf(out, "average connection time = %.3f ms\n",
				d->conn_total_ms / (t->cnt + failures > 0 ? t->cnt + failures : 1));
		fprintf(out, "tps = %f (including reconnection times)\n", tps);
	}
	else
	{
		fprintf(out, "initial connection time = %.3f ms\n", d->conn_elapsed_ms);
		fprintf(out, "tps = %f (without initial connection time)\n", tps);
	}
	if (d->waits != NULL)
		bwaits_report_print(out, d->waits);

	if (!per_script && !s->per_command)
		return;
	for (int i = 0; i < s->nscripts; i++)
	{
		if (per_script)
		{
			const stats *ss = &d->scripts[i];
			int64_t		sfail = stats_failures(ss);
			int64_t		stotal = ss->cnt + ss->skipped + sfail;

			fprintf(out, "SQL script %d: %s\n", i + 1, s->scripts[i]->desc);
			fprintf(out, " - weight: %d (targets %.1f%% of total)\n", s->scripts[i]->weight,
					100.0 * s->scripts[i]->weight / s->total_weight);
			fprintf(out, " - %lld transactions (%.1f%% of total)\n", (long long) stotal,
					100.0 * stotal / total_cnt);
			if (stotal > 0)
			{
				fprintf(out, " - number of transactions actually processed: %lld (tps = %f)\n",
						(long long) ss->cnt,
						d->bench_duration_s > 0 ? ss->cnt / d->bench_duration_s : 0.0);
				print_failures(out, s, " - ", ss, stotal);
			}
			print_simple(out, " - latency", &ss->latency);
			print_percentiles(out, s, " - ",
							  d->script_hists != NULL ? &d->script_hists[i] : NULL);
		}
		if (s->per_command)
			print_commands(out, s, d, i, per_script);
	}
}

void
report_data_free(report_data *d, int nscripts)
{
	if (d->commands != NULL)
		for (int i = 0; i < nscripts; i++)
			free(d->commands[i]);
	free(d->commands);
	free(d->scripts);
	free(d->lat_hist);
	free(d->script_hists);
	memset(d, 0, sizeof(*d));
}

void
report_progress_compute(report_progress_point *p, const bench_settings *s, const stats *cur,
						const stats *last, const hist *interval, double interval_s,
						double elapsed_s, double epoch_s)
{
	int64_t		cnt = cur->cnt - last->cnt;

	memset(p, 0, sizeof(*p));
	p->elapsed_s = elapsed_s;
	p->epoch_s = epoch_s;
	p->interval_s = interval_s;
	p->transactions = cnt;
	p->tps = interval_s > 0 ? cnt / interval_s : 0.0;
	if (cnt > 0)
	{
		double		mean = (cur->latency.sum - last->latency.sum) / cnt;
		double		sq = (cur->latency.sum2 - last->latency.sum2) / cnt;

		p->latency_ms = mean / 1e6;
		p->stddev_ms = sq > mean * mean ? sqrt(sq - mean * mean) / 1e6 : 0.0;
		p->lag_ms = (cur->lag.sum - last->lag.sum) / cnt / 1e6;
	}
	p->failed = stats_failures(cur) - stats_failures(last);
	p->skipped = cur->skipped - last->skipped;
	p->retried = cur->retried - last->retried;
	p->retries = cur->retries - last->retries;
	if (interval != NULL)
	{
		const double *pcts;
		int			n = report_percentiles(s, &pcts);

		p->has_percentiles = true;
		for (int i = 0; i < n; i++)
			p->percentiles_ms[i] = ns_ms(hist_percentile(interval, pcts[i]));
		p->max_ms = interval->total > 0 ? ns_ms(interval->max) : 0.0;
	}
}

void
report_progress_print(FILE *out, const bench_settings *s, const report_progress_point *p)
{
	char		when[64];

	if (s->progress_timestamp)
		snprintf(when, sizeof(when), "%.3f s", p->epoch_s);
	else
		snprintf(when, sizeof(when), "%.1f s", p->elapsed_s);
	fprintf(out, "progress: %s, %.1f tps, lat %.3f ms stddev %.3f, %lld failed", when, p->tps,
			p->latency_ms, p->stddev_ms, (long long) p->failed);
	if (s->rate > 0)
	{
		fprintf(out, ", lag %.3f ms", p->lag_ms);
		if (s->latency_limit_ns > 0)
			fprintf(out, ", %lld skipped", (long long) p->skipped);
	}
	if (s->max_tries != 1)
		fprintf(out, ", %lld retried, %lld retries", (long long) p->retried,
				(long long) p->retries);
	if (s->progress_percentiles && p->has_percentiles)
	{
		const double *pcts;
		int			n = report_percentiles(s, &pcts);

		fputc(',', out);
		for (int i = 0; i < n; i++)
		{
			char		label[32];

			report_percentile_label(label, sizeof(label), pcts[i]);
			fprintf(out, " %s %.3f", label, p->percentiles_ms[i]);
		}
		fprintf(out, " max %.3f ms", p->max_ms);
	}
	bwaits_top_print(out, &p->top_wait);
	if (p->warmup)
		fputs(" (warm-up)", out);
	fputc('\n', out);
}

void
report_histogram_text(strbuf *out, const hist *h)
{
	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		uint64_t	lo,
					hi;

		if (h->counts[i] == 0)
			continue;
		lo = hist_bucket_low(i);
		hi = hist_bucket_high(i) + 1;
		/* exact: the bounds are whole nanoseconds */
		strbuf_printf(out, "%" PRIu64 ".%03" PRIu64 " %" PRIu64 ".%03" PRIu64 " %" PRIu64 "\n",
					  lo / 1000, lo % 1000, hi / 1000, hi % 1000, h->counts[i]);
	}
}

bool
report_histogram_write(const char *path, const hist *h, char **cause)
{
	strbuf		sb;

	strbuf_init(&sb);
	report_histogram_text(&sb, h);
	return strbuf_write_free(&sb, path, cause);
}
