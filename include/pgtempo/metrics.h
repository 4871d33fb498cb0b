/*
 * metrics.h — metrics for monitoring stacks: Prometheus' text exposition
 * format 0.0.4 or OpenMetrics 1.0.0, and the textfile that node_exporter's
 * textfile collector reads.
 *
 * API (stable: later changes add, they do not change):
 *
 *   metrics m;  metrics_init(&m);              a set of metric families
 *   metrics_counter(&m, "pgtempo_x_total", help, labels, v)   name ends in _total
 *   metrics_gauge(&m, "pgtempo_y_seconds", help, labels, v)
 *   metrics_info(&m, "pgtempo_z_info", help, labels)          a gauge of 1, name ends in _info
 *   metrics_histogram(&m, "pgtempo_w_seconds", help, labels, le, counts, n, sum)
 *   metrics_render(&m, flags, &sb, &cause)     append the exposition to a strbuf;
 *                                              flags 0 or METRICS_OPENMETRICS
 *   metrics_content_type(flags)                the HTTP Content-Type of that text
 *   metrics_accepts_openmetrics(accept)        whether an Accept header asks for OpenMetrics
 *   metrics_reset(&m)  metrics_free(&m)        empty (keeping memory) / release
 *   metrics_check_path(path, &cause)           before a run: the textfile can be written
 *   metrics_write_file(path, &sb, &cause)      temporary file, fsync, rename
 *   metrics_format_double(buf, v)  metrics_name_valid(name)   the pieces, for callers' checks
 *
 * labels are NULL (none) or a NULL-terminated array of name, value pairs:
 * (const char *[]) {"script", "0", NULL}.  Label names are checked
 * ([a-zA-Z_][a-zA-Z0-9_]*, not __..., not le in a histogram); values are
 * escaped (\\ \" \n) and made valid UTF-8 (an invalid byte becomes the text
 * \xNN).  Metric names are checked ([a-zA-Z_:][a-zA-Z0-9_:]*).
 *
 * Families are grouped by the writer: samples may be added in any order,
 * and each family is written once, with one # HELP and one # TYPE line, in
 * the order its first sample was added; its samples keep their order.  A
 * family is its name less _total (counter) or _info (info): adding one
 * name as two types, or with two help texts, is a misuse, and so is adding
 * one series twice: the same name and label set (in any order; a label of
 * empty value is no label, as Prometheus reads it), which promtool refuses
 * ("metric not unique") and a scrape would reject.
 *
 * Misuse (a bad name, a counter not ending in _total or whose value is NaN
 * or negative, a histogram's bounds out of order or its sum NaN...) is kept, the first one only: the adder returns false and
 * metrics_render() fails with its description, so that a caller may add
 * without checking each call and still never publish a malformed file.
 *
 * Values: shortest text that reads back as the same double (integers
 * exactly up to 2^53), NaN, +Inf, -Inf; no timestamps; a final newline
 * (OpenMetrics: "# EOF" last).
 *
 * In OpenMetrics a counter's TYPE and HELP name the family without _total
 * and an info metric is of type info (named without _info); in the 0.0.4
 * text both name the sample (pgtempo_x_total counter, pgtempo_z_info gauge).
 *
 * The textfile: metrics_write_file() writes a temporary file beside path
 * (path.tmpPID.N, which the textfile collector ignores, as it reads *.prom
 * only), fsyncs it and renames it over path, so a reader sees the old file
 * or the new one, never half of one; every write is checked and a failure
 * leaves the old file in place and no temporary file.  "-" is standard
 * output.  A path not ending in .prom is written as given, without a
 * warning: the file may be meant for promtool, a pushgateway or a script.
 */
#ifndef PGTEMPO_METRICS_H
#define PGTEMPO_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgtempo/strbuf.h"

/* metrics_render() flags */
#define METRICS_OPENMETRICS 0x1u

/* Room for a value as metrics_format_double() writes it, the NUL included. */
#define METRICS_DOUBLE_MAX 32

typedef struct metrics_family metrics_family;
typedef struct metrics_series metrics_series;

typedef struct metrics
{
	metrics_family *fams;		/* in the order of their first sample */
	size_t		nfams;
	size_t		capfams;
	size_t		nlines;			/* fams whose lines buffer is allocated (kept by reset) */
	metrics_series *series;		/* every series added, or NULL before the first */
	char	   *error;			/* the first misuse, or NULL */
} metrics;

void		metrics_init(metrics *m);
/* Drop every family and the error, keeping memory: for the next scrape. */
void		metrics_reset(metrics *m);
void		metrics_free(metrics *m);

bool		metrics_counter(metrics *m, const char *name, const char *help,
							const char *const *labels, double value);
bool		metrics_gauge(metrics *m, const char *name, const char *help,
						  const char *const *labels, double value);
bool		metrics_info(metrics *m, const char *name, const char *help,
						 const char *const *labels);

/*
 * A histogram from per-bucket counts: counts[i] observations fell in
 * (le[i-1], le[i]], i = 0..n-1, n >= 1, le strictly increasing.  If
 * le[n-1] is +Inf, counts[n-1] is the overflow; otherwise a +Inf bucket
 * is added holding everything (nothing fell above le[n-1]).  The writer
 * makes the buckets cumulative; _count is their total, _sum is sum.
 */
bool		metrics_histogram(metrics *m, const char *name, const char *help,
							  const char *const *labels, const double *le,
							  const uint64_t *counts, size_t n, double sum);

/* Append the exposition to out; false with *cause (caller frees) after a misuse. */
bool		metrics_render(const metrics *m, unsigned flags, strbuf *out, char **cause);

/* "text/plain; version=0.0.4; charset=utf-8" or the OpenMetrics type. */
const char *metrics_content_type(unsigned flags);

/*
 * True if an HTTP Accept header (NULL: none) accepts
 * application/openmetrics-text with a q above 0.
 */
bool		metrics_accepts_openmetrics(const char *accept);

/* Prove before a run that metrics_write_file(path) can work; false with *cause. */
bool		metrics_check_path(const char *path, char **cause);

/* Replace path with sb's text (see above); false with *cause (caller frees). */
bool		metrics_write_file(const char *path, const strbuf *sb, char **cause);

/* v as the exposition writes it, into buf[METRICS_DOUBLE_MAX]; returns buf. */
char	   *metrics_format_double(char *buf, double v);

/* True for a valid metric name. */
bool		metrics_name_valid(const char *name);

#endif
