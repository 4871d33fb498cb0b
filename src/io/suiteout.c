/*
 * suiteout.c — the histogram, JSON and metrics outputs (see suiteout.h).
 */
#include "config.h"

#include "suiteout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/clock.h"
#include "pgtempo/json.h"
#include "pgtempo/metrics.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/table.h"

#include "iochart.h"
#include "iofmt.h"

static const struct
{
	const char *key;
	double		pct;
}			percentiles[] = {
	{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99},
};

#define NPCT (sizeof(percentiles) / sizeof(percentiles[0]))

static const table_col hist_cols[] = {
	{"< us", 10, "", false}, {"% of total", 10, "   ", false}, {"count", 10, " ", false},
};

/* The name of the operation the settings ask for. */
static const char *
operation(const io_settings *s)
{
	return s->read_write ? "read-write" : s->write > 0 ? "write" : "read";
}

/* The log2 histogram in us (or ns) units of the run's valid request times. */
static void
log2_in(const io_stats *st, bool ns, hlog2 *h)
{
	const hist *v = st->run.valid;

	if (ns)
	{
		*h = st->log2;
		return;
	}
	/* us buckets: a request of t ns falls where t / 1000 does */
	io_stats_log2(v, 1000, h);
}

/* --histogram: the table and the percentiles, after ioping's statistics. */
static void
print_histogram(FILE *out, const io_settings *s, const io_stats *st)
{
	const hist *v = st->run.valid;
	bool		ns = s->histogram == 2;
	table_col	cols[3];
	hlog2		h;
	int			top;
	char		buf[IOFMT_MAX];

	memcpy(cols, hist_cols, sizeof(cols));
	if (ns)
		cols[0].header = "< ns";
	log2_in(st, ns, &h);
	top = hlog2_top(&h);
	fprintf(out, "\nHistogram of request times:\n");
	table_header(out, cols, 3);
	for (int b = 0; b <= top; b++)
	{
		char		c[3][32];

		snprintf(c[0], sizeof(c[0]), "%llu", 1ULL << b);
		snprintf(c[1], sizeof(c[1]), "%.5f",
				 v->total ? (double) h.count[b] * 100.0 / (double) v->total : 0.0);
		snprintf(c[2], sizeof(c[2]), "%llu", (unsigned long long) h.count[b]);
		table_row(out, cols, 3, (const char *const[]) {c[0], c[1], c[2]});
	}
	fprintf(out, "percentiles:");
	for (size_t i = 0; i < NPCT; i++)
		fprintf(out, "%s %s = %s", i ? "," : "", percentiles[i].key,
				iofmt_time(buf, hist_percentile(v, percentiles[i].pct)));
	fputc('\n', out);
}

void
suiteout_json_latency(json_writer *w, const hist *v)
{
	json_object_begin(w);
	json_kv_uint(w, "min", v->total ? v->min : 0);
	json_kv_double(w, "mean", hist_mean(v));
	json_kv_uint(w, "max", v->max);
	json_kv_double(w, "stddev", hist_stddev(v));
	json_key(w, "percentiles");
	json_object_begin(w);
	for (size_t i = 0; i < NPCT; i++)
		json_kv_uint(w, percentiles[i].key, hist_percentile(v, percentiles[i].pct));
	json_object_end(w);
	json_object_end(w);
}

/* The JSON document: target, settings, counts, latency, percentiles, histogram. */
static void
json_document(strbuf *sb, const io_settings *s, const io_target *t, const io_stats *st)
{
	json_writer w;
	io_figures	f;
	const hist *v = st->run.valid;
	int			top = hlog2_top(&st->log2);

	io_stats_figures(&st->run, &f);
	json_init(&w, sb, true);
	json_object_begin(&w);
	json_kv_string(&w, "tool", "pgtempo-io");
	json_kv_string(&w, "version", PACKAGE_VERSION);
	json_key(&w, "target");
	json_object_begin(&w);
	json_kv_string(&w, "path", t->path);
	json_kv_string(&w, "fstype", t->fstype);
	json_kv_string(&w, "device", t->device);
	json_kv_uint(&w, "device_size", t->device_size);
	json_object_end(&w);
	json_key(&w, "settings");
	json_object_begin(&w);
	json_kv_string(&w, "operation", operation(s));
	json_kv_uint(&w, "size", s->size);
	json_kv_uint(&w, "work_size", t->work_size);
	json_kv_uint(&w, "work_offset", t->work_offset);
	json_kv_string(&w, "pattern", s->linear ? "sequential" : "random");
	json_kv_string(&w, "cache", s->direct ? "direct" : s->cached ? "cached" : "dropped");
	json_kv_bool(&w, "sync", s->sync);
	json_kv_bool(&w, "dsync", s->dsync);
	json_object_end(&w);
	json_key(&w, "requests");
	json_object_begin(&w);
	json_kv_uint(&w, "valid", f.count);
	json_kv_uint(&w, "total", f.load_count);
	json_kv_uint(&w, "too_fast", st->too_fast);
	json_kv_uint(&w, "too_slow", st->too_slow);
	json_kv_uint(&w, "bytes", f.load_bytes);
	json_kv_uint(&w, "elapsed_ns", f.load_time_ns);
	json_kv_double(&w, "iops", f.iops);
	json_kv_double(&w, "bytes_per_second", f.bps);
	json_object_end(&w);
	json_key(&w, "latency_ns");
	suiteout_json_latency(&w, v);
	json_key(&w, "histogram_ns");
	json_array_begin(&w);
	for (int b = 0; b <= top; b++)
	{
		json_object_begin(&w);
		json_kv_uint(&w, "le_ns", hlog2_bucket_max(b));
		json_kv_uint(&w, "count", st->log2.count[b]);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_object_end(&w);
	strbuf_putc(sb, '\n');
}

/* A duration histogram in seconds from a log2 histogram of ns (sum_ns: the exact sum). */
static void
add_log2_histogram(metrics *m, const char *name, const char *help, const char *const *labels,
				   const hlog2 *h, double sum_ns)
{
	double		le[HLOG2_BUCKETS];
	int			top = hlog2_top(h);

	if (top < 0)
		top = 0;
	for (int b = 0; b <= top; b++)
		le[b] = (double) hlog2_bucket_max(b) / 1e9;
	metrics_histogram(m, name, help, labels, le, h->count, (size_t) top + 1, sum_ns / 1e9);
}

/* The Prometheus textfile's families. */
static void
add_metrics(metrics *m, const io_settings *s, const io_target *t, const io_stats *st)
{
	const char *labels[] = {"target", t->path, "operation", operation(s), NULL};
	io_figures	f;

	io_stats_figures(&st->run, &f);
	metrics_info(m, "pgtempo_io_target_info", "The target and its file system.",
				 (const char *[]) {"target", t->path, "fstype", t->fstype,
				 "device", t->device, NULL});
	metrics_counter(m, "pgtempo_io_requests_total",
					"Requests counted in the statistics (not warm-up, not too fast or slow).",
					labels, (double) f.count);
	metrics_counter(m, "pgtempo_io_requests_generated_total", "Every request made.",
					labels, (double) f.load_count);
	metrics_gauge(m, "pgtempo_io_iops", "Requests per second of request time.", labels, f.iops);
	metrics_gauge(m, "pgtempo_io_throughput_bytes_per_second",
				  "Bytes per second of request time.", labels, f.bps);
	add_log2_histogram(m, "pgtempo_io_request_duration_seconds", "Time of each counted request.",
					   labels, &st->log2, st->run.valid->sum);
}

void
suiteout_metrics_dists(metrics *m, const io_dist *d, int n)
{
	for (int i = 0; i < n; i++)
	{
		char		writes[16];
		const char *labels[] = {"test", d[i].test, "method", d[i].method, "writes", writes, NULL};
		hlog2		h;

		if (d[i].h == NULL)
			continue;
		snprintf(writes, sizeof(writes), "%d", d[i].writes);
		metrics_info(m, "pgtempo_io_pg_test_info",
					 "A test of PostgreSQL's questions: its method, writes per sync, direct I/O.",
					 (const char *[]) {"test", d[i].test, "method", d[i].method, "writes", writes,
					 "direct_io", d[i].direct ? "true" : "false", NULL});
		metrics_counter(m, "pgtempo_io_pg_requests_total",
						"Requests of the test (a sync test's: its writes and their sync).",
						labels, (double) d[i].h->total);
		metrics_gauge(m, "pgtempo_io_pg_operations_per_second",
					  "Requests per second of the test's time (pg_test_fsync's ops/sec).",
					  labels, d[i].ops_per_sec);
		metrics_gauge(m, "pgtempo_io_pg_test_seconds", "How long the test ran.", labels,
					  d[i].seconds);
		for (size_t p = 0; p < NPCT && d[i].h->total > 0; p++)
			metrics_gauge(m, "pgtempo_io_pg_request_duration_percentile_seconds",
						  "Percentiles of the test's request times.",
						  (const char *[]) {"test", d[i].test, "method", d[i].method,
						  "writes", writes, "percentile", percentiles[p].key + 1, NULL},
						  (double) hist_percentile(d[i].h, percentiles[p].pct) / 1e9);
		io_stats_log2(d[i].h, 1, &h);
		add_log2_histogram(m, "pgtempo_io_pg_request_duration_seconds",
						   "Time of each request of the test.", labels, &h, d[i].h->sum);
	}
}

bool
suiteout_metrics_publish(const char *path, metrics *m)
{
	strbuf		sb;
	char	   *cause = NULL;
	bool		ok;

	strbuf_init(&sb);
	ok = metrics_render(m, 0, &sb, &cause) && metrics_write_file(path, &sb, &cause);
	if (!ok)
	{
		msg_error("%s", cause);
		free(cause);
	}
	strbuf_free(&sb);
	metrics_free(m);
	return ok;
}

/* --metrics: the textfile, replaced whole. */
static bool
write_metrics(const io_settings *s, const io_target *t, const io_stats *st)
{
	metrics		m;

	metrics_init(&m);
	add_metrics(&m, s, t, st);
	return suiteout_metrics_publish(s->metrics_path, &m);
}

bool
suiteout_check(const io_settings *s)
{
	char	   *cause = NULL;

	if ((s->metrics_path != NULL && !metrics_check_path(s->metrics_path, &cause)) ||
		(s->json_path != NULL && !strbuf_check_writable(s->json_path, &cause)) ||
		(s->chart_path != NULL && !strbuf_check_writable(s->chart_path, &cause)))
	{
		msg_error("%s", cause);
		free(cause);
		return false;
	}
	return true;
}

bool
suiteout_write(const io_settings *s, const io_target *t, const io_stats *st)
{
	bool		ok = true;

	if (s->histogram != 0 && !s->json)
		print_histogram(stdout, s, st);
	if (s->json || s->json_path != NULL)
	{
		strbuf		sb;

		strbuf_init(&sb);
		json_document(&sb, s, t, st);
		if (s->json_path != NULL)
			ok = suiteout_publish(s->json_path, &sb);
		else
		{
			fwrite(sb.data, 1, sb.len, stdout);
			strbuf_free(&sb);
		}
	}
	if (s->metrics_path != NULL && !write_metrics(s, t, st))
		ok = false;
	if (s->chart_path != NULL && st->timeline != NULL)
	{
		strbuf		sb;

		strbuf_init(&sb);
		iochart_render(s, t, st, &sb);
		if (!suiteout_publish(s->chart_path, &sb))
			ok = false;
	}
	return ok;
}

bool
suiteout_publish(const char *path, strbuf *sb)
{
	char	   *cause = NULL;
	bool		ok = strbuf_write_file(path, sb->data, sb->len, &cause);

	if (!ok)
	{
		msg_error("%s", cause);
		free(cause);
	}
	strbuf_free(sb);
	return ok;
}
