/*
 * histread.c — reading the history logs back, a record at a time.
 */
#include "config.h"

#include "histread.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgtempo/xalloc.h"

#include "format.h"
#include "histfield.h"

#define HISTREAD_CHUNK (1 << 20)
/* A record longer than this is not one of ours (query texts are cut at 1,000,000 characters). */
#define HISTREAD_MAX_RECORD (16 << 20)
#define HISTREAD_MAX_FIELDS 24
/* A file written this recently may end on a record still being written. */
#define HISTREAD_WRITING_S 5

/* ---------------------------------------------------------------- the file */

/* Open the file; its format is known from its first line. */
bool
histread_open(histread *h, const char *path, strpool *pool, char **cause)
{
	memset(h, 0, sizeof(*h));
	h->fd = strcmp(path, "-") == 0 ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
	if (h->fd < 0)
	{
		*cause = xasprintf("could not open file \"%s\" for reading: %s", path, strerror(errno));
		return false;
	}
	h->path = xstrdup(path);
	h->pool = pool;
	strbuf_init(&h->scratch);
	for (size_t i = 0; i < sizeof(h->last_text) / sizeof(h->last_text[0]); i++)
		strbuf_init(&h->last_text[i]);
	return true;
}

/* Close the file and free the reader. */
void
histread_close(histread *h)
{
	if (h->fd >= 0)
		close(h->fd);
	free(h->buf);
	free(h->path);
	strbuf_free(&h->scratch);
	for (size_t i = 0; i < sizeof(h->last_text) / sizeof(h->last_text[0]); i++)
		strbuf_free(&h->last_text[i]);
	memset(h, 0, sizeof(*h));
	h->fd = -1;
}

/* Read more of the file after what is left; false at its end or on an error (*err). */
static bool
fill(histread *h, int *err)
{
	ssize_t		n;

	if (h->pos > 0)
	{
		memmove(h->buf, h->buf + h->pos, h->len - h->pos);
		h->len -= h->pos;
		h->pos = 0;
	}
	if (h->cap - h->len < HISTREAD_CHUNK)
	{
		h->cap = h->len + 2 * HISTREAD_CHUNK;
		h->buf = xrealloc(h->buf, h->cap + 1);
	}
	do
		n = read(h->fd, h->buf + h->len, HISTREAD_CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		*err = errno;
	if (n <= 0)
	{
		h->eof = true;
		return false;
	}
	h->len += (size_t) n;
	return true;
}

/* Where the record at from ends (its '\n'), honouring CSV quotes; NULL if not in buf. */
static char *
record_end(histread *h, size_t from, bool csv)
{
	char	   *p = h->buf + from;
	char	   *end = h->buf + h->len;
	char	   *nl = memchr(p, '\n', (size_t) (end - p));

	if (!csv || *p == '#' || nl == NULL || memchr(p, '"', (size_t) (nl - p)) == NULL)
		return nl;
	/* quoted fields may hold line breaks: the record ends at a newline outside quotes */
	for (bool inq = false; p < end; p++)
	{
		if (*p == '"')
			inq = !inq;
		else if (*p == '\n' && !inq)
			return p;
	}
	return NULL;
}

/* An error at the record that starts on line; returns -1. */
static int
fail_at(histread *h, uint64_t line, char **cause, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
fail_at(histread *h, uint64_t line, char **cause, const char *fmt, ...)
{
	va_list		ap;
	strbuf		sb;

	strbuf_init(&sb);
	strbuf_printf(&sb, "%s:%" PRIu64 ": ", h->path, line);
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	*cause = strbuf_detach(&sb);
	strbuf_free(&sb);
	return -1;
}

/*
 * Is the file being appended to right now?  A reader can catch a write
 * halfway: a regular file written in the last few seconds may end on
 * part of a record that is still coming, which is no sign of damage.
 */
static bool
being_written(const histread *h)
{
	struct stat st;

	return fstat(h->fd, &st) == 0 && S_ISREG(st.st_mode) &&
		st.st_mtime >= time(NULL) - HISTREAD_WRITING_S;
}

/*
 * The next whole record: 1 with *rec and *rlen (its newline replaced by a
 * NUL), 0 at the end, -1 on a record cut off or unreadable.
 */
static int
next_span(histread *h, char **rec, size_t *rlen, char **cause)
{
	char	   *nl;
	int			err = 0;

	for (;;)
	{
		if (h->pos < h->len &&
			(nl = record_end(h, h->pos, h->fmt != HISTREAD_JSONL && h->recognized)) != NULL)
			break;
		if (h->len - h->pos > HISTREAD_MAX_RECORD)
			return fail_at(h, h->line + 1, cause, "a record longer than %d MB: not a "
						   "pgtempo-waits log", HISTREAD_MAX_RECORD >> 20);
		if (!h->eof && fill(h, &err))
			continue;
		if (err != 0)
			return fail_at(h, h->line + 1, cause, "could not read: %s", strerror(err));
		if (h->pos == h->len)
			return 0;
		if (being_written(h))
		{
			/* a run is appending to it: the whole records are what it holds so far */
			h->tail_skipped = true;
			return 0;
		}
		return fail_at(h, h->line + 1, cause, "the last record has no end of line: the file "
					   "was cut off (a full disk, a copy or a crash while it was written)");
	}
	*rec = h->buf + h->pos;
	*rlen = (size_t) (nl - *rec);
	h->rec_line = h->line + 1;
	*nl = '\0';
	h->pos += *rlen + 1;
	for (char *p = *rec; (p = memchr(p, '\n', (size_t) (nl - p))) != NULL; p++)
		h->line++;
	h->line++;
	return 1;
}

/* ---------------------------------------------------------------- values */

/* Is s the text timestamp column col had in the row before? */
static inline bool
same_as_last(const histread *h, int col, const char *s, size_t len)
{
	return col >= 0 && h->last_set[col] && h->last_text[col].len == len &&
		memcmp(h->last_text[col].data, s, len) == 0;
}

/* Keep s as timestamp column col's text of the row before. */
static void
keep_last(histread *h, int col, const char *s, size_t len)
{
	strbuf_reset(&h->last_text[col]);
	strbuf_append(&h->last_text[col], s, len);
	h->last_set[col] = true;
}

/* The interned copy of s (len > 0), from column col's recent texts when it is one of them. */
static const char *
intern_seen(histread *h, int col, const char *s, size_t len)
{
	size_t		slot;

	if (col < 0)
		return strpool_intern_n(h->pool, s, len);
	/* the length and both ends tell a column's few values apart */
	slot = (len + (unsigned char) s[0] * 7u + (unsigned char) s[len - 1] * 13u) & (HISTREAD_SEEN - 1);
	if (h->seen[col][slot].len != len || memcmp(h->seen[col][slot].s, s, len) != 0)
	{
		h->seen[col][slot].s = strpool_intern_n(h->pool, s, len);
		h->seen[col][slot].len = len;
	}
	return h->seen[col][slot].s;
}

/* A text value interned (NULL for null or empty). */
static bool
fstr(histread *h, int col, const histfield *f, const char **out)
{
	const char *s;
	size_t		len;

	if (f == NULL || f->t == '0')
	{
		*out = NULL;
		return true;
	}
	if (f->t != 's')
		return false;
	s = f->v;
	len = f->vlen;
	if (f->esc)
	{
		if (!jsonread_unescape(&h->scratch, f->v, f->vlen))
			return false;
		s = h->scratch.data;
		len = h->scratch.len;
	}
	*out = len == 0 ? NULL : intern_seen(h, col, s, len);
	return true;
}

/* An integer value (JSON's grammar, CSV too); *v = absent when null or empty. */
static bool
fint(const histfield *f, int64_t absent, int64_t *v)
{
	jsonread_value n;

	if (f == NULL || f->t == '0')
	{
		*v = absent;
		return true;
	}
	if (!jsonread_number(f->v, f->vlen, &n) || !n.is_int)
		return false;
	*v = n.i;
	return true;
}

/* A number (JSON's grammar, CSV too); absent when null or empty. */
static bool
fdouble(const histfield *f, double absent, double *v)
{
	jsonread_value n;

	if (f == NULL || f->t == '0')
	{
		*v = absent;
		return true;
	}
	if (!jsonread_number(f->v, f->vlen, &n))
		return false;
	*v = n.num;
	return true;
}

/* A timestamp as format_ts writes it; absent when null or empty; the column's last one is reused. */
static bool
fts(histread *h, int col, const histfield *f, int64_t absent, int64_t *us)
{
	if (f == NULL || f->t == '0')
	{
		*us = absent;
		return true;
	}
	if (f->t != 's')
		return false;
	if (same_as_last(h, col, f->v, f->vlen))
	{
		*us = h->last_ts[col];
		return true;
	}
	if (!histfield_ts(f->v, f->vlen, us))
		return false;
	if (col >= 0)
	{
		keep_last(h, col, f->v, f->vlen);
		h->last_ts[col] = *us;
	}
	return true;
}

/* A JSON boolean. */
static bool
fbool(const histfield *f, bool *v)
{
	if (f == NULL || f->t != 'b')
		return false;
	*v = f->v[0] == 't';
	return true;
}

/* Blocking pids: "{1,2}" (CSV) or [1,2] (JSON) into pids[*n]; none when empty. */
static bool
fblockers(const histfield *f, int32_t *pids, int *n)
{
	const char *p;
	const char *end;
	histfield	item;
	int64_t		v;
	int			rc;

	*n = 0;
	if (f == NULL || f->t == '0')
		return true;
	p = f->v;
	end = f->v + f->vlen;
	if (f->vlen < 2 || !((p[0] == '{' && end[-1] == '}') || (p[0] == '[' && end[-1] == ']')))
		return false;
	for (p++; (rc = jsonread_item(&p, end - 1, &item)) > 0;)
	{
		if (item.t != 'n' || !fint(&item, -1, &v) || v <= 0 || v > INT32_MAX ||
			*n == HISTREAD_MAX_BLOCKERS)
			return false;
		pids[(*n)++] = (int32_t) v;
	}
	return rc == 0;
}

/* The class of a logged row: every row in a log was counted. */
static sample_class
logged_class(const sample_row *r)
{
	if (r->wait_event_type != NULL && strcmp(r->wait_event_type, SAMPLE_CPU_TYPE) == 0)
		return SAMPLE_CPU;
	if ((r->state != NULL && strcmp(r->state, "idle") == 0) ||
		(r->wait_event_type != NULL && (strcmp(r->wait_event_type, SAMPLE_IDLE_TYPE) == 0 ||
										strcmp(r->wait_event_type, "Activity") == 0)))
		return SAMPLE_IDLE;
	return SAMPLE_WAIT;
}

/*
 * One column's value from its field (NULL: not there) into r (a
 * format_row, or a record's struct); false if it is bad.  slot is the
 * column's index in format_columns (-1: none, its text is not kept).
 */
static inline bool
decode_column(histread *h, const format_column *c, int slot, const histfield *f,
			  void *r, histread_rec *rec)
{
	void	   *p = (char *) r + c->offset;
	int64_t		v;
	double		d;

	if (c->required && (f == NULL || f->t == '0'))
		return false;
	/* tests, not a switch: a jump table's branch is mispredicted column after column */
	if (c->type == FORMAT_COL_TEXT)
		return fstr(h, slot, f, (const char **) p);
	if (c->type == FORMAT_COL_INT || c->type == FORMAT_COL_TS)
	{
		if (!(c->type == FORMAT_COL_INT ? fint(f, c->absent, &v) : fts(h, slot, f, c->absent, &v)) ||
			v < c->least || v > c->most)
			return false;
		format_column_set_int(c, r, v);
		return true;
	}
	if (c->type == FORMAT_COL_PIDS)
	{
		format_row *fr = r;		/* PIDS are a format_row's */

		fr->blockers = rec->blockers;
		return fblockers(f, rec->blockers, &fr->row.nblockers);
	}
	/* a number */
	if (!fdouble(f, (double) c->absent, &d) || d < (double) c->least)
		return false;
	*(double *) p = d;
	return true;
}

/*
 * A row of the kind from its fields (c[i] the kind's column i, NULL if
 * not there); the name of a bad column, or NULL.
 */
static const char *
decode_row(histread *h, format_rowkind kind, histfield **c, histread_rec *rec)
{
	const format_kind *k = &format_kinds[kind];
	int			slot0 = (int) (k->cols - format_columns);
	format_row	fr;

	memset(&fr, 0, sizeof(fr));
	/* no log has the transaction's start: a head blocker read back has no age */
	fr.row.xact_start_us = INT64_MIN;
	for (int i = 0; i < k->ncols; i++)
		if (k->cols[i].read && !decode_column(h, &k->cols[i], slot0 + i, c[i], &fr, rec))
			return k->cols[i].name;
	if (kind == FORMAT_ROW_INTERVAL)
	{
		if (fr.ts_us < fr.start_us)
			return k->cols[1].name;
		/* the columns a profile line has not: no backend */
		fr.row.backend_start_us = INT64_MIN;
		fr.row.wait_time_us = -1;
		fr.row.measured_us = (uint64_t) llround(fr.measured_seconds * 1e6);
	}
	rec->ts_us = (uint64_t) fr.ts_us;
	rec->start_us = (uint64_t) fr.start_us;
	rec->ticks = (uint64_t) fr.ticks;
	rec->row = fr.row;
	rec->row.cls = logged_class(&rec->row);
	return NULL;
}

/* The index of k's column named key, looked for from column from on (wrapping); -1 none. */
static int
column_named(const format_kind *k, const char *key, size_t klen, int from)
{
	for (int i = 0; i < k->ncols; i++)
	{
		int			c = (from + i) % k->ncols;

		if (k->cols[c].namelen == klen && memcmp(k->cols[c].name, key, klen) == 0)
			return c;
	}
	return -1;
}

/*
 * A record's fields (JSON members, or a CSV comment's pairs) into r; a
 * bad one's name, or NULL.  The first field of a name counts; a name that
 * is not a column is skipped.  Each field is looked for from the column
 * after the one before: the writers' order costs one comparison a field.
 */
static const char *
decode_fields(histread *h, const format_kind *k, histfield *f, int n, void *r,
			  histread_rec *rec)
{
	const histfield *of[FORMAT_NCOLUMNS] = {0};

	for (int j = 0, c = 0; j < n; j++)
	{
		int			at = column_named(k, f[j].key, f[j].klen, c);

		if (at < 0 || of[at] != NULL)
			continue;
		of[at] = &f[j];
		c = at + 1;
	}
	for (int i = 0; i < k->ncols; i++)
		if (k->cols[i].read && !decode_column(h, &k->cols[i], -1, of[i], r, rec))
			return k->cols[i].name;
	return NULL;
}

/* A health record's fields; a bad one's name, or NULL. */
static const char *
decode_health(histread *h, histfield *f, int n, histread_rec *rec)
{
	const char *bad;

	memset(&rec->health, 0, sizeof(rec->health));
	bad = decode_fields(h, &format_health_kind, f, n, &rec->health, rec);
	rec->ts_us = rec->health.ts_us;
	return bad;
}

/* A gap record's fields; a bad one's name, or NULL. */
static const char *
decode_gap(histread *h, histfield *f, int n, histread_rec *rec)
{
	format_gap_rec g;
	const char *bad;

	memset(&g, 0, sizeof(g));
	if ((bad = decode_fields(h, &format_gap_kind, f, n, &g, rec)) != NULL)
		return bad;
	if (g.gap.end_us != 0 && g.gap.end_us < g.gap.start_us)
		return format_gap_kind.cols[1].name;
	rec->gap = g.gap;
	return NULL;
}

/* The meta record's members; a bad one's name, or NULL. */
static const char *
decode_meta(histread *h, histfield *f, int n, histread_rec *rec)
{
	histread_meta *m = &rec->meta;
	format_meta *r = &m->run;
	histfield	   *bt = histfield_get(f, n, "backend_types");
	histfield	s;
	int64_t		v;
	int			rc;

	memset(m, 0, sizeof(*m));
	if (!fint(histfield_get(f, n, "log_version"), -1, &v) || v < 0 || v > INT32_MAX)
		return "log_version";
	m->log_version = (int) v;
	if (!fstr(h, -1, histfield_get(f, n, "tool"), &m->tool) || m->tool == NULL)
		return "tool";
	if (m->log_version < FORMAT_LOG_VERSION_MIN || m->log_version > FORMAT_LOG_VERSION)
		return NULL;			/* the caller says which version it is */
	r->descriptions = m->log_version >= 2;
	if (!fts(h, -1, histfield_get(f, n, "run"), -1, &r->run_us) || r->run_us < 0)
		return "run";
	if (!fstr(h, -1, histfield_get(f, n, "source"), &r->source) ||
		!fstr(h, -1, histfield_get(f, n, "server"), &r->server) ||
		!fstr(h, -1, histfield_get(f, n, "server_version"), &r->server_version))
		return "source, server or server_version";
	if (!fdouble(histfield_get(f, n, "interval_s"), -1, &r->interval_s) || r->interval_s <= 0)
		return "interval_s";
	if (!fdouble(histfield_get(f, n, "period_s"), -1, &r->period_s) || r->period_s <= 0)
		return "period_s";
	if (!fbool(histfield_get(f, n, "include_idle"), &r->include_idle) ||
		!fbool(histfield_get(f, n, "measured"), &r->measured) ||
		!fbool(histfield_get(f, n, "backend_types_given"), &r->backend_types_given))
		return "include_idle, measured or backend_types_given";
	if (bt == NULL || bt->t != '[')
		return "backend_types";
	r->backend_types = rec->backend_types;
	/* the array's strings */
	for (const char *p = bt->v + 1; (rc = jsonread_item(&p, bt->v + bt->vlen - 1, &s)) != 0;)
		if (rc < 0 || s.t != 's' || r->nbackend_types == HISTREAD_MAX_BACKEND_TYPES ||
			!fstr(h, -1, &s, &rec->backend_types[r->nbackend_types++]))
			return "backend_types";
	return NULL;
}

/* ---------------------------------------------------------------- records */

/* The meta record's checks: this version's, and before the rows. */
static int
meta_done(histread *h, histread_rec *rec, const char *bad, char **cause)
{
	if (bad != NULL)
		return fail_at(h, h->rec_line, cause, "a meta record with a bad \"%s\"", bad);
	if (rec->meta.log_version < FORMAT_LOG_VERSION_MIN ||
		rec->meta.log_version > FORMAT_LOG_VERSION)
		return fail_at(h, h->rec_line, cause, "written by %s in log format version %d; this "
					   "pgtempo-waits (%s) reads versions %d to %d", rec->meta.tool,
					   rec->meta.log_version, PACKAGE_VERSION, FORMAT_LOG_VERSION_MIN,
					   FORMAT_LOG_VERSION);
	rec->kind = HISTREAD_META;
	h->seen_meta = true;
	h->log_version = rec->meta.log_version;
	return 1;
}

/* A description record's members: the event and its text, all there. */
static int
description_record(histread *h, histfield *f, int n, histread_rec *rec, char **cause)
{
	if (!h->seen_meta || h->log_version < 2)
		return fail_at(h, h->rec_line, cause, "a description record %s",
					   h->seen_meta ? "in a file of log format version 1, which has none" :
					   "before any meta record");
	if (!fstr(h, -1, histfield_get(f, n, "wait_event_type"), &rec->desc_type) ||
		!fstr(h, -1, histfield_get(f, n, "wait_event"), &rec->desc_event) ||
		!fstr(h, -1, histfield_get(f, n, "description"), &rec->desc) ||
		rec->desc_type == NULL || rec->desc_event == NULL || rec->desc == NULL)
		return fail_at(h, h->rec_line, cause, "a description record without its "
					   "\"wait_event_type\", \"wait_event\" or \"description\"");
	rec->kind = HISTREAD_DESCRIPTION;
	return 1;
}

/* A head or chain record (log format 3): its fields as the table says. */
static int
head_record(histread *h, histfield *f, int n, bool chain, histread_rec *rec, char **cause)
{
	const format_kind *k = chain ? &format_chain_kind : &format_head_kind;
	const char *bad;

	if (!h->seen_meta || h->log_version < 3)
		return fail_at(h, h->rec_line, cause, "a %s record %s", k->name,
					   h->seen_meta ? "in a file of log format version 1 or 2, which has none" :
					   "before any meta record");
	memset(&rec->head, 0, sizeof(rec->head));
	if ((bad = decode_fields(h, k, f, n, &rec->head, rec)) != NULL)
		return fail_at(h, h->rec_line, cause, "a %s record with a bad \"%s\"", k->name, bad);
	if (rec->head.end_us < rec->head.start_us || (chain && rec->head.stack == NULL))
		return fail_at(h, h->rec_line, cause, "a bad %s record", k->name);
	rec->kind = chain ? HISTREAD_CHAIN : HISTREAD_HEAD;
	return 1;
}

/* A row's checks: decoded, and a meta record before it. */
static int
row_done(histread *h, histread_rec *rec, histread_kind kind, const char *bad, char **cause)
{
	if (!h->seen_meta)
		return fail_at(h, h->rec_line, cause, "a row before any meta record: the file was "
					   "written by a pgtempo-waits older than log format version %d (which "
					   "does not say how it sampled), or its beginning is missing",
					   FORMAT_LOG_VERSION);
	if (bad != NULL)
		return fail_at(h, h->rec_line, cause, "a bad value in column \"%s\"", bad);
	rec->kind = kind;
	return 1;
}

/* The member named key (klen bytes): where format.c writes it (at), else wherever it is. */
static histfield *
member(histfield *f, int n, int at, const char *key, size_t klen)
{
	if (at < n && f[at].klen == klen && memcmp(f[at].key, key, klen) == 0)
		return &f[at];
	for (int i = 0; i < n; i++)
		if (f[i].klen == klen && memcmp(f[i].key, key, klen) == 0)
			return &f[i];
	return NULL;
}

/* A JSON record of any type. */
static int
json_record(histread *h, char *text, histread_rec *rec, char **cause)
{
	histfield		f[HISTREAD_MAX_FIELDS];
	histfield	   *c[HISTREAD_MAX_FIELDS];
	histfield	   *type;
	char	   *why = NULL;
	int			n,
				rc;

	if (!jsonread_flat(text, strlen(text), f, HISTREAD_MAX_FIELDS, &n, &why))
	{
		rc = fail_at(h, h->rec_line, cause, "not a JSON record: %s", why);
		free(why);
		return rc;
	}
	if ((type = histfield_get(f, n, "type")) == NULL || type->t != 's')
		return fail_at(h, h->rec_line, cause, "not a JSON record of pgtempo-waits");
#define IS(t) (type->vlen == strlen(t) && memcmp(type->v, t, type->vlen) == 0)
	if (IS("meta"))
		return meta_done(h, rec, decode_meta(h, f, n, rec), cause);
	for (int kind = 0; kind < FORMAT_NROWKINDS; kind++)
	{
		const format_kind *k = &format_kinds[kind];

		if (!IS(k->name))
			continue;
		/* each member where format.c writes it, after "type", else wherever it is */
		for (int i = 0; i < k->ncols; i++)
			c[i] = member(f, n, i + 1, k->cols[i].name, k->cols[i].namelen);
		return row_done(h, rec, kind == FORMAT_ROW_SAMPLE ? HISTREAD_SAMPLE : HISTREAD_INTERVAL,
						decode_row(h, kind, c, rec), cause);
	}
	if (IS("health") || IS("gap"))
	{
		const char *bad = IS("health") ? decode_health(h, f, n, rec) : decode_gap(h, f, n, rec);

		if (bad != NULL)
			return fail_at(h, h->rec_line, cause, "a %.*s record with a bad \"%s\"",
						   (int) type->vlen, type->v, bad);
		rec->kind = IS("health") ? HISTREAD_HEALTH : HISTREAD_GAP;
		return 1;
	}
	if (IS("store"))
	{
		rec->kind = HISTREAD_STORE;
		return 1;
	}
	if (IS("description"))
		return description_record(h, f, n, rec, cause);
	if (IS("head") || IS("chain"))
		return head_record(h, f, n, IS("chain"), rec, cause);
#undef IS
	return fail_at(h, h->rec_line, cause, "a record of unknown type \"%.*s\"",
				   (int) type->vlen, type->v);
}

/* A CSV comment record: meta, description, health, gap or store. */
static int
csv_comment(histread *h, char *text, histread_rec *rec, char **cause)
{
	histfield		f[HISTREAD_MAX_FIELDS];
	int			n;
	const char *bad;

	if (strncmp(text, "# meta {", 8) == 0)
	{
		if (!jsonread_flat(text + 7, strlen(text + 7), f, HISTREAD_MAX_FIELDS, &n, NULL))
			return fail_at(h, h->rec_line, cause, "a meta record that is not a JSON object");
		return meta_done(h, rec, decode_meta(h, f, n, rec), cause);
	}
	if (strncmp(text, "# description {", 15) == 0)
	{
		if (!jsonread_flat(text + 14, strlen(text + 14), f, HISTREAD_MAX_FIELDS, &n, NULL))
			return fail_at(h, h->rec_line, cause, "a description record that is not a JSON "
						   "object");
		return description_record(h, f, n, rec, cause);
	}
	if (strncmp(text, "# head {", 8) == 0 || strncmp(text, "# chain {", 9) == 0)
	{
		bool		chain = text[2] == 'c';
		const char *obj = text + (chain ? 8 : 7);

		if (!jsonread_flat(obj, strlen(obj), f, HISTREAD_MAX_FIELDS, &n, NULL))
			return fail_at(h, h->rec_line, cause, "a %s record that is not a JSON object",
						   chain ? "chain" : "head");
		return head_record(h, f, n, chain, rec, cause);
	}
	if (strncmp(text, "# store ", 8) == 0)
	{
		rec->kind = HISTREAD_STORE;
		return 1;
	}
	if (strncmp(text, "# health ", 9) == 0)
	{
		if (!histfield_pairs(text + 9, NULL, f, HISTREAD_MAX_FIELDS, &n) ||
			(bad = decode_health(h, f, n, rec)) != NULL)
			return fail_at(h, h->rec_line, cause, "a bad health record");
		rec->kind = HISTREAD_HEALTH;
		return 1;
	}
	if (strncmp(text, "# gap ", 6) == 0)
	{
		if (!histfield_pairs(text + 6, "reason", f, HISTREAD_MAX_FIELDS, &n) ||
			(bad = decode_gap(h, f, n, rec)) != NULL)
			return fail_at(h, h->rec_line, cause, "a bad gap record");
		rec->kind = HISTREAD_GAP;
		return 1;
	}
	return fail_at(h, h->rec_line, cause, "an unknown comment record: not one of this "
				   "version's (meta, description, head, chain, health, gap, store)");
}

/* A CSV row of the file's kind: its fields in the order of the header. */
static int
csv_row(histread *h, char *text, histread_rec *rec, char **cause)
{
	histfield		f[HISTREAD_MAX_FIELDS];
	histfield	   *c[HISTREAD_MAX_FIELDS];
	format_rowkind kind = h->fmt == HISTREAD_CSV_RAW ? FORMAT_ROW_SAMPLE : FORMAT_ROW_INTERVAL;
	int			want = format_kinds[kind].ncols;
	int			n;

	if (!histfield_csv(text, f, HISTREAD_MAX_FIELDS, &n))
		return fail_at(h, h->rec_line, cause, "not a CSV record (a stray quote)");
	if (n != want)
		return fail_at(h, h->rec_line, cause, "%d fields where the header has %d", n, want);
	for (int i = 0; i < n; i++)
		c[i] = &f[i];
	return row_done(h, rec, kind == FORMAT_ROW_SAMPLE ? HISTREAD_SAMPLE : HISTREAD_INTERVAL,
					decode_row(h, kind, c, rec), cause);
}

/* The first line says what the file is; 1 if it is a record to read, 0 a header. */
static int
recognize(histread *h, const char *text, char **cause)
{
	h->recognized = true;
	if (strcmp(text, format_kinds[FORMAT_ROW_SAMPLE].csv_header) == 0)
		h->fmt = HISTREAD_CSV_RAW;
	else if (strcmp(text, format_kinds[FORMAT_ROW_INTERVAL].csv_header) == 0)
		h->fmt = HISTREAD_CSV_INTERVAL;
	else if (text[0] == '{')
	{
		h->fmt = HISTREAD_JSONL;
		return 1;
	}
	else if (strncmp(text, "ts,", 3) == 0 || strncmp(text, "interval_start,", 15) == 0)
		return fail_at(h, h->rec_line, cause, "the CSV header of another version of "
					   "pgtempo-waits: its columns are not this version's");
	else
		return fail_at(h, h->rec_line, cause, "not a pgtempo-waits history log: the first "
					   "line is neither one of its CSV headers nor a JSON record");
	return 0;
}

/* The next record of the file. */
int
histread_next(histread *h, histread_rec *rec, char **cause)
{
	char	   *text = NULL;
	size_t		len = 0;
	int			rc;

	for (;;)
	{
		if ((rc = next_span(h, &text, &len, cause)) <= 0)
			return rc;
		if (len > 0 && text[len - 1] == '\r')
			text[--len] = '\0';
		if (memchr(text, '\0', len) != NULL)
			return fail_at(h, h->rec_line, cause, "a NUL byte: not a text file");
		rec->line = h->rec_line;
		if (!h->recognized && (rc = recognize(h, text, cause)) <= 0)
		{
			if (rc < 0)
				return rc;
			continue;
		}
		if (len == 0)
			return fail_at(h, h->rec_line, cause, "an empty line");
		if (h->fmt == HISTREAD_JSONL)
			return json_record(h, text, rec, cause);
		if (text[0] == '#')
			return csv_comment(h, text, rec, cause);
		return csv_row(h, text, rec, cause);
	}
}
