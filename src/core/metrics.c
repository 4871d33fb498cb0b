/*
 * metrics.c — Prometheus text exposition (0.0.4), OpenMetrics 1.0.0, and
 * the textfile write.  See metrics.h for the rules a caller relies on.
 */
#include "config.h"

#include "pgtempo/metrics.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pgtempo/hash.h"
#include "pgtempo/utf8.h"
#include "pgtempo/xalloc.h"

typedef enum
{
	MT_COUNTER,
	MT_GAUGE,
	MT_INFO,
	MT_HISTOGRAM,
} metric_type;

static const char *const type_names[] = {"counter", "gauge", "info", "histogram"};

/* A family: its samples, already written as lines (the same in both formats). */
struct metrics_family
{
	char	   *base;			/* the name less _total / _info */
	char	   *help;
	metric_type type;
	strbuf		lines;
};

/*
 * The series added so far: each one's key (its family's place, then its
 * labels as written, sorted by name) once in keys, found through seen.
 */
struct metrics_series
{
	hash_table	seen;			/* series_entry */
	strbuf		keys;			/* every key, one after another */
	strbuf		key;			/* the key being looked up */
};

/* Where a key is in keys (offsets: keys moves as it grows). */
typedef struct series_entry
{
	size_t		off;
	size_t		len;
} series_entry;

/* A key to look up, and the keys the entries point into. */
typedef struct series_lookup
{
	const strbuf *keys;
	const char *data;
	size_t		len;
} series_lookup;

void
metrics_init(metrics *m)
{
	memset(m, 0, sizeof(*m));
}

/*
 * The lines buffers are kept, emptied: an endpoint that renders at every
 * scrape would otherwise grow them anew and hand the memory back each
 * time (with a few hundred series, half of a scrape's CPU went to the
 * page faults and heap trims).
 */
void
metrics_reset(metrics *m)
{
	for (size_t i = 0; i < m->nfams; i++)
	{
		free(m->fams[i].base);
		free(m->fams[i].help);
		strbuf_reset(&m->fams[i].lines);
	}
	m->nfams = 0;
	free(m->error);
	m->error = NULL;
	if (m->series != NULL)
	{
		hash_table_clear(&m->series->seen);
		strbuf_reset(&m->series->keys);
	}
}

void
metrics_free(metrics *m)
{
	metrics_reset(m);
	for (size_t i = 0; i < m->nlines; i++)
		strbuf_free(&m->fams[i].lines);
	free(m->fams);
	if (m->series != NULL)
	{
		hash_table_free(&m->series->seen);
		strbuf_free(&m->series->keys);
		strbuf_free(&m->series->key);
		free(m->series);
	}
	memset(m, 0, sizeof(*m));
}

/* Keep the first misuse; always false, for the adders to return. */
static bool __attribute__((format(printf, 2, 3)))
misuse(metrics *m, const char *fmt, ...)
{
	va_list		ap;
	strbuf		sb;

	if (m->error != NULL)
		return false;
	strbuf_init(&sb);
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	m->error = strbuf_detach(&sb);
	return false;
}

/* [a-zA-Z_:][a-zA-Z0-9_:]*, ASCII whatever the locale says of other bytes. */
bool
metrics_name_valid(const char *name)
{
	if (name == NULL || name[0] == '\0' || isdigit((unsigned char) name[0]))
		return false;
	for (const char *p = name; *p != '\0'; p++)
		if ((unsigned char) *p >= 0x80 || !(isalnum((unsigned char) *p) || *p == '_' || *p == ':'))
			return false;
	return true;
}

/* A label name: [a-zA-Z_][a-zA-Z0-9_]*, the __ prefix reserved to Prometheus. */
static bool
label_name_valid(const char *name)
{
	if (name[0] == '\0' || isdigit((unsigned char) name[0]) ||
		(name[0] == '_' && name[1] == '_'))
		return false;
	for (const char *p = name; *p != '\0'; p++)
		if ((unsigned char) *p >= 0x80 || !(isalnum((unsigned char) *p) || *p == '_'))
			return false;
	return true;
}

char *
metrics_format_double(char *buf, double v)
{
	if (isnan(v))
		return strcpy(buf, "NaN");
	if (isinf(v))
		return strcpy(buf, v > 0 ? "+Inf" : "-Inf");
	/* the fewest digits that read back as v (%.17g always does) */
	for (int prec = 15; prec <= 17; prec++)
	{
		snprintf(buf, METRICS_DOUBLE_MAX, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

/* A label value: \\ \" \n escaped, an invalid UTF-8 byte as the text \xNN. */
static void
put_label_value(strbuf *sb, const char *v)
{
	size_t		n = strlen(v);

	for (size_t i = 0; i < n;)
	{
		size_t		k = utf8_seq_len(v + i, n - i);

		if (k == 0)
		{
			strbuf_printf(sb, "\\\\x%02X", (unsigned char) v[i]);
			i++;
			continue;
		}
		if (v[i] == '\\')
			strbuf_puts(sb, "\\\\");
		else if (v[i] == '"')
			strbuf_puts(sb, "\\\"");
		else if (v[i] == '\n')
			strbuf_puts(sb, "\\n");
		else
			strbuf_append(sb, v + i, k);
		i += k;
	}
}

/* Check labels; false after recording a misuse. */
static bool
labels_valid(metrics *m, const char *name, const char *const *labels, bool histogram)
{
	if (labels == NULL)
		return true;
	for (size_t i = 0; labels[i] != NULL; i += 2)
	{
		if (labels[i + 1] == NULL)
			return misuse(m, "metric \"%s\": label \"%s\" has no value", name, labels[i]);
		if (!label_name_valid(labels[i]) || (histogram && strcmp(labels[i], "le") == 0))
			return misuse(m, "metric \"%s\": invalid label name \"%s\"", name, labels[i]);
		for (size_t j = 0; j < i; j += 2)
			if (strcmp(labels[j], labels[i]) == 0)
				return misuse(m, "metric \"%s\": label \"%s\" given twice", name, labels[i]);
	}
	return true;
}

/* name{labels[,le="..."]} value\n; le NULL: none. */
static void
put_sample(strbuf *sb, const char *name, const char *suffix, const char *const *labels,
		   const char *le, const char *value)
{
	bool		any = false;

	strbuf_puts(sb, name);
	strbuf_puts(sb, suffix);
	for (size_t i = 0; labels != NULL && labels[i] != NULL; i += 2)
	{
		strbuf_puts(sb, any ? "," : "{");
		strbuf_puts(sb, labels[i]);
		strbuf_puts(sb, "=\"");
		put_label_value(sb, labels[i + 1]);
		strbuf_putc(sb, '"');
		any = true;
	}
	if (le != NULL)
	{
		strbuf_puts(sb, any ? ",le=\"" : "{le=\"");
		strbuf_puts(sb, le);
		strbuf_putc(sb, '"');
		any = true;
	}
	if (any)
		strbuf_putc(sb, '}');
	strbuf_putc(sb, ' ');
	strbuf_puts(sb, value);
	strbuf_putc(sb, '\n');
}

/*
 * The family of a sample named name, created at its first sample; NULL
 * after a misuse (a bad name, a clash of types or help texts).
 */
static metrics_family *
family(metrics *m, const char *name, const char *help, metric_type type,
	   const char *const *labels)
{
	const char *suffix = type == MT_COUNTER ? "_total" : type == MT_INFO ? "_info" : "";
	size_t		nlen = name != NULL ? strlen(name) : 0,
				slen = strlen(suffix);
	char	   *base;
	metrics_family *f;

	if (!metrics_name_valid(name))
		return misuse(m, "invalid metric name \"%s\"", name != NULL ? name : "(null)"), NULL;
	if (nlen <= slen || strcmp(name + nlen - slen, suffix) != 0)
		return misuse(m, "%s \"%s\": the name must end in %s", type_names[type], name, suffix), NULL;
	if (help == NULL)
		return misuse(m, "metric \"%s\" has no help text", name), NULL;
	if (!labels_valid(m, name, labels, type == MT_HISTOGRAM))
		return NULL;
	base = xstrndup(name, nlen - slen);
	for (size_t i = 0; i < m->nfams; i++)
	{
		f = &m->fams[i];
		if (strcmp(f->base, base) != 0)
			continue;
		free(base);
		if (f->type != type)
			return misuse(m, "metric family \"%s\" added as %s and as %s", f->base,
						  type_names[f->type], type_names[type]), NULL;
		if (strcmp(f->help, help) != 0)
			return misuse(m, "metric family \"%s\" added with two help texts", f->base), NULL;
		return f;
	}
	if (m->nfams == m->capfams)
	{
		m->capfams = m->capfams == 0 ? 16 : 2 * m->capfams;
		m->fams = xrealloc(m->fams, m->capfams * sizeof(*m->fams));
	}
	f = &m->fams[m->nfams++];
	f->base = base;
	f->help = xstrdup(help);
	f->type = type;
	/* a slot used before a reset keeps its (emptied) buffer */
	if (m->nfams > m->nlines)
	{
		strbuf_init(&f->lines);
		m->nlines = m->nfams;
	}
	return f;
}

static bool
series_eq(const void *entry, const void *key)
{
	const series_entry *e = entry;
	const series_lookup *k = key;

	return e->len == k->len && memcmp(k->keys->data + e->off, k->data, k->len) == 0;
}

/*
 * Note the series of family f with these labels; false after a misuse
 * when it was added before.  Its key is f's place, then the labels as
 * put_sample writes them, sorted by name (few labels: each pass picks the
 * next name up), those of an empty value left out: Prometheus reads a=""
 * as no label a, and two values that write alike are one series to it.
 */
static bool
series_new(metrics *m, const metrics_family *f, const char *name, const char *const *labels)
{
	metrics_series *s = m->series;
	size_t		fi = (size_t) (f - m->fams);
	const char *prev = NULL;
	series_lookup k;
	series_entry *e;
	bool		added;

	if (s == NULL)
	{
		s = m->series = xmalloc(sizeof(*s));
		hash_table_init(&s->seen, sizeof(series_entry), 64);
		strbuf_init(&s->keys);
		strbuf_init(&s->key);
	}
	strbuf_reset(&s->key);
	strbuf_append(&s->key, (const char *) &fi, sizeof(fi));
	for (;;)
	{
		const char *const *next = NULL;

		for (size_t i = 0; labels != NULL && labels[i] != NULL; i += 2)
			if (labels[i + 1][0] != '\0' && (prev == NULL || strcmp(labels[i], prev) > 0) &&
				(next == NULL || strcmp(labels[i], next[0]) < 0))
				next = labels + i;
		if (next == NULL)
			break;
		if (prev != NULL)
			strbuf_putc(&s->key, ',');
		strbuf_printf(&s->key, "%s=\"", next[0]);
		put_label_value(&s->key, next[1]);
		strbuf_putc(&s->key, '"');
		prev = next[0];
	}
	k.keys = &s->keys;
	k.data = s->key.data;
	k.len = s->key.len;
	e = hash_table_insert(&s->seen, hash_fnv1a(k.data, k.len), &k, series_eq, &added);
	if (!added)
	{
		if (prev == NULL)
			return misuse(m, "metric \"%s\": the series without labels added twice", name);
		return misuse(m, "metric \"%s\": the series {%s} added twice", name,
					  s->key.data + sizeof(fi));
	}
	e->off = s->keys.len;
	e->len = k.len;
	strbuf_append(&s->keys, k.data, k.len);
	return true;
}

/* A counter, gauge or info sample. */
static bool
add_scalar(metrics *m, metric_type type, const char *name, const char *help,
		   const char *const *labels, double value)
{
	metrics_family *f = family(m, name, help, type, labels);
	char		num[METRICS_DOUBLE_MAX];

	if (f == NULL || !series_new(m, f, name, labels))
		return false;
	put_sample(&f->lines, name, "", labels, NULL, metrics_format_double(num, value));
	return true;
}

bool
metrics_counter(metrics *m, const char *name, const char *help,
				const char *const *labels, double value)
{
	/* OpenMetrics parsers refuse these, and rate() of them means nothing */
	if (isnan(value) || value < 0)
		return misuse(m, "counter \"%s\": value %g is not a count", name != NULL ? name : "(null)",
					  value);
	return add_scalar(m, MT_COUNTER, name, help, labels, value);
}

bool
metrics_gauge(metrics *m, const char *name, const char *help,
			  const char *const *labels, double value)
{
	return add_scalar(m, MT_GAUGE, name, help, labels, value);
}

bool
metrics_info(metrics *m, const char *name, const char *help, const char *const *labels)
{
	return add_scalar(m, MT_INFO, name, help, labels, 1);
}

bool
metrics_histogram(metrics *m, const char *name, const char *help,
				  const char *const *labels, const double *le,
				  const uint64_t *counts, size_t n, double sum)
{
	metrics_family *f;
	char		bound[METRICS_DOUBLE_MAX],
				num[METRICS_DOUBLE_MAX];
	uint64_t	cum = 0;

	if (n == 0)
		return misuse(m, "histogram \"%s\" has no buckets", name != NULL ? name : "(null)");
	if (isnan(sum))
		return misuse(m, "histogram \"%s\": the sum is NaN", name != NULL ? name : "(null)");
	for (size_t i = 0; i < n; i++)
		if (isnan(le[i]) || (i > 0 && !(le[i] > le[i - 1])) || (isinf(le[i]) && i != n - 1))
			return misuse(m, "histogram \"%s\": bucket bounds not strictly increasing at %zu",
						  name != NULL ? name : "(null)", i);
	if ((f = family(m, name, help, MT_HISTOGRAM, labels)) == NULL ||
		!series_new(m, f, name, labels))
		return false;
	for (size_t i = 0; i < n; i++)
	{
		cum += counts[i];
		snprintf(num, sizeof(num), "%llu", (unsigned long long) cum);
		put_sample(&f->lines, name, "_bucket", labels, metrics_format_double(bound, le[i]), num);
	}
	snprintf(num, sizeof(num), "%llu", (unsigned long long) cum);
	if (!isinf(le[n - 1]))
		put_sample(&f->lines, name, "_bucket", labels, "+Inf", num);
	put_sample(&f->lines, name, "_sum", labels, NULL, metrics_format_double(bound, sum));
	put_sample(&f->lines, name, "_count", labels, NULL, num);
	return true;
}

/* Help text: \\ and \n escaped (and \" in OpenMetrics). */
static void
put_help(strbuf *sb, const char *help, bool om)
{
	for (const char *p = help; *p != '\0'; p++)
	{
		if (*p == '\\')
			strbuf_puts(sb, "\\\\");
		else if (*p == '\n')
			strbuf_puts(sb, "\\n");
		else if (*p == '"' && om)
			strbuf_puts(sb, "\\\"");
		else
			strbuf_putc(sb, *p);
	}
}

bool
metrics_render(const metrics *m, unsigned flags, strbuf *out, char **cause)
{
	bool		om = (flags & METRICS_OPENMETRICS) != 0;

	if (m->error != NULL)
	{
		*cause = xstrdup(m->error);
		return false;
	}
	for (size_t i = 0; i < m->nfams; i++)
	{
		const metrics_family *f = &m->fams[i];
		const char *suffix = "";
		const char *type = type_names[f->type];

		/* 0.0.4 names a counter's and an info's family by its sample; info is a gauge there */
		if (!om && f->type == MT_COUNTER)
			suffix = "_total";
		else if (!om && f->type == MT_INFO)
		{
			suffix = "_info";
			type = "gauge";
		}
		strbuf_printf(out, "# HELP %s%s ", f->base, suffix);
		put_help(out, f->help, om);
		strbuf_printf(out, "\n# TYPE %s%s %s\n", f->base, suffix, type);
		strbuf_append(out, f->lines.data, f->lines.len);
	}
	if (om)
		strbuf_puts(out, "# EOF\n");
	return true;
}

const char *
metrics_content_type(unsigned flags)
{
	if (flags & METRICS_OPENMETRICS)
		return "application/openmetrics-text; version=1.0.0; charset=utf-8";
	return "text/plain; version=0.0.4; charset=utf-8";
}

/* The q parameter of a media range whose parameters run from p (at a ';') to end: 1 if none. */
static double
accept_q(const char *p, const char *end)
{
	while (p != NULL && p < end)
	{
		const char *q = p + 1;
		const char *next = memchr(q, ';', (size_t) (end - q));

		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (end - q >= 2 && (q[0] == 'q' || q[0] == 'Q') && q[1] == '=')
			return strtod(q + 2, NULL);
		p = next;
	}
	return 1;
}

bool
metrics_accepts_openmetrics(const char *accept)
{
	static const char om[] = "application/openmetrics-text";
	const char *p = accept;

	while (p != NULL && *p != '\0')
	{
		const char *end = strchr(p, ',');
		const char *semi;
		size_t		tlen;

		if (end == NULL)
			end = p + strlen(p);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		semi = memchr(p, ';', (size_t) (end - p));
		tlen = (size_t) ((semi != NULL ? semi : end) - p);
		while (tlen > 0 && (p[tlen - 1] == ' ' || p[tlen - 1] == '\t'))
			tlen--;
		if (tlen == sizeof(om) - 1 && strncasecmp(p, om, tlen) == 0 &&
			(semi == NULL || accept_q(semi, end) > 0))
			return true;
		p = *end != '\0' ? end + 1 : end;
	}
	return false;
}

bool
metrics_check_path(const char *path, char **cause)
{
	return strbuf_check_replaceable(path, cause);
}

bool
metrics_write_file(const char *path, const strbuf *sb, char **cause)
{
	return strbuf_replace_file(path, sb->data != NULL ? sb->data : "", sb->len, cause);
}
