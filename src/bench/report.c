/*
 * report.c — pgbench's report lines.
 *
 * The layout follows the newest pgbench: the per-script section has the
 * "number of transactions actually processed" line of PostgreSQL 17 and
 * later, and when no transaction ended at all the report stops after the
 * "processed" line instead of printing "0 (NaN%)" as pgbench 15 does.
 */
#include "config.h"

#include "report.h"

#include <math.h>

static const char *const query_modes[] = {"simple", "extended", "prepared"};

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

/* The failure, retry and skip lines of the totals or of one script. */
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

void
report_print(FILE *out, const bench_settings *s, const report_data *d)
{
	const stats *t = &d->total;
	int64_t		failures = stats_failures(t);
	int64_t		total_cnt = t->cnt + t->skipped + failures;
	double		tps = d->bench_duration_s > 0 ? t->cnt / d->bench_duration_s : 0.0;
	bool		per_script = s->nscripts > 1;

	fprintf(out, "transaction type: %s\n",
			s->nscripts == 1 ? s->scripts[0]->desc : "multiple scripts");
	fprintf(out, "scaling factor: %lld\n", (long long) s->scale);
	if (s->partition_method != NULL)
		fprintf(out, "partition method: %s\npartitions: %d\n", s->partition_method,
				s->partitions);
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
	/* nothing ended: the rest would be divisions by zero */
	if (total_cnt <= 0)
		return;

	print_failures(out, s, "", t, total_cnt);
	if (s->progress > 0)
		print_simple(out, "latency", &t->latency);
	else
		fprintf(out, "latency average = %.3f ms%s\n",
				d->bench_duration_s * 1000.0 * s->nclients / total_cnt,
				failures > 0 ? " (including failures)" : "");

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
		}
		if (s->per_command)
			print_commands(out, s, d, i, per_script);
	}
}

void
report_progress(FILE *out, const bench_settings *s, const stats *cur, const stats *last,
				double interval_s, double elapsed_s, double epoch_s)
{
	int64_t		cnt = cur->cnt - last->cnt;
	double		tps = interval_s > 0 ? cnt / interval_s : 0.0;
	double		lat = 0.0,
				stddev = 0.0;
	char		when[64];

	if (cnt > 0)
	{
		double		mean = (cur->latency.sum - last->latency.sum) / cnt;
		double		sq = (cur->latency.sum2 - last->latency.sum2) / cnt;

		lat = mean / 1e6;
		stddev = sq > mean * mean ? sqrt(sq - mean * mean) / 1e6 : 0.0;
	}
	if (s->progress_timestamp)
		snprintf(when, sizeof(when), "%.3f s", epoch_s);
	else
		snprintf(when, sizeof(when), "%.1f s", elapsed_s);
	fprintf(out, "progress: %s, %.1f tps, lat %.3f ms stddev %.3f, %lld failed", when, tps, lat,
			stddev, (long long) (stats_failures(cur) - stats_failures(last)));
	if (s->max_tries != 1)
		fprintf(out, ", %lld retried, %lld retries", (long long) (cur->retried - last->retried),
				(long long) (cur->retries - last->retries));
	fputc('\n', out);
}
