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
/* every record's fields and its "type" fit, the widest kinds' too */
_Static_assert((0 FORMAT_HEAD_FIELDS(FORMAT_COUNT_)) + 1 <= HISTREAD_MAX_FIELDS, "head fields");
_Static_assert((0 FORMAT_META_FIELDS(FORMAT_COUNT_)) + 1 <= HISTREAD_MAX_FIELDS, "meta fields");
_Static_assert(FORMAT_NHEALTH + 1 <= HISTREAD_MAX_FIELDS, "health fields");
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

/*
 * A boolean, or a JSON array of texts into rec's list (its count, an int,
 * right after the member): the types only the meta record has.
 */
static __attribute__((noinline)) bool
decode_json_only(histread *h, const format_column *c, const histfield *f, void *p,
				 histread_rec *rec)
{
	histfield	s;
	int		   *n = (int *) ((char *) p + sizeof(const char *const *));
	int			rc;

	if (c->type == FORMAT_COL_BOOL)
		return fbool(f, (bool *) p);
	if (f == NULL || f->t != '[')
		return false;
	*(const char *const **) p = rec->backend_types;
	*n = 0;
	for (const char *q = f->v + 1; (rc = jsonread_item(&q, f->v + f->vlen - 1, &s)) != 0;)
		if (rc < 0 || s.t != 's' || *n == HISTREAD_MAX_BACKEND_TYPES ||
			!fstr(h, -1, &s, &rec->backend_types[(*n)++]))
			return false;
	return true;
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
	if (c->type > FORMAT_COL_NUM6)
		return decode_json_only(h, c, f, p, rec);
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
	/* every row in a log was counted: the sampler's classes, by its labels */
	rec->row.cls = sample_classify(rec->row.state, rec->row.wait_event_type, false);
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

/*
 * The decoders of the kinds of records: a record's fields (JSON members,
 * or a CSV comment's) into rec; the name of a bad field, or NULL.
 */
typedef const char *(*decode_fn) (histread *h, const format_kind *k, histfield *f, int n,
								  histread_rec *rec);

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

/* A row as a JSON line: each member where format.c writes it, after "type", else wherever it is. */
static const char *
decode_json_row(histread *h, const format_kind *k, histfield *f, int n, histread_rec *rec)
{
	histfield  *c[FORMAT_NCOLUMNS];

	for (int i = 0; i < k->ncols; i++)
		c[i] = member(f, n, i + 1, k->cols[i].name, k->cols[i].namelen);
	return decode_row(h, k == &format_kinds[FORMAT_REC_SAMPLE] ? FORMAT_ROW_SAMPLE :
					  FORMAT_ROW_INTERVAL, c, rec);
}

/*
 * The meta record: who wrote it and in which version first (the caller
 * refuses other versions), then the run.  Before "version" came, "tool"
 * said both ("pgtempo-waits 0.1.0"): it is split.
 */
static const char *
decode_meta(histread *h, const format_kind *k, histfield *f, int n, histread_rec *rec)
{
	format_meta *r = &rec->meta.run;
	const char *bad;
	const char *sp;

	memset(&rec->meta, 0, sizeof(rec->meta));
	bad = decode_fields(h, k, f, n, r, rec);
	rec->meta.log_version = r->log_version;
	if (r->version == NULL && r->tool != NULL && (sp = strchr(r->tool, ' ')) != NULL)
	{
		r->version = strpool_intern(h->pool, sp + 1);
		r->tool = strpool_intern_n(h->pool, r->tool, (size_t) (sp - r->tool));
	}
	if (bad == k->cols[0].name)
		return bad;
	if (r->tool == NULL)
		return "tool";
	if (r->log_version < FORMAT_LOG_VERSION_MIN || r->log_version > FORMAT_LOG_VERSION)
		return NULL;			/* the caller says which version it is */
	if (bad != NULL)
		return bad;
	if (r->interval_s <= 0)
		return "interval_s";
	if (r->period_s <= 0)
		return "period_s";
	r->descriptions = r->log_version >= format_kinds[FORMAT_REC_DESCRIPTION].version;
	return NULL;
}

/* A health record's fields. */
static const char *
decode_health(histread *h, const format_kind *k, histfield *f, int n, histread_rec *rec)
{
	const char *bad;

	memset(&rec->health, 0, sizeof(rec->health));
	bad = decode_fields(h, k, f, n, &rec->health, rec);
	rec->ts_us = rec->health.ts_us;
	return bad;
}

/* A gap record's fields: it ends after it starts, if it ended. */
static const char *
decode_gap(histread *h, const format_kind *k, histfield *f, int n, histread_rec *rec)
{
	format_gap_rec g;
	const char *bad;

	memset(&g, 0, sizeof(g));
	if ((bad = decode_fields(h, k, f, n, &g, rec)) != NULL)
		return bad;
	if (g.gap.end_us != 0 && g.gap.end_us < g.gap.start_us)
		return k->cols[1].name;
	rec->gap = g.gap;
	return NULL;
}

/* The store's counts. */
static const char *
decode_store(histread *h, const format_kind *k, histfield *f, int n, histread_rec *rec)
{
	memset(&rec->store, 0, sizeof(rec->store));
	return decode_fields(h, k, f, n, &rec->store, rec);
}

/* A description record: the event and its text, all there. */
static const char *
decode_description(histread *h, const format_kind *k, histfield *f, int n, histread_rec *rec)
{
	const char *bad;

	memset(&rec->desc, 0, sizeof(rec->desc));
	if ((bad = decode_fields(h, k, f, n, &rec->desc, rec)) != NULL)
		return bad;
	for (int i = 0; i < k->ncols; i++)
		if (*(const char **) ((char *) &rec->desc + k->cols[i].offset) == NULL)
			return k->cols[i].name;
	return NULL;
}

/* A head or chain record: its interval in order, a chain's stack there. */
static const char *
decode_head(histread *h, const format_kind *k, histfield *f, int n, histread_rec *rec)
{
	const char *bad;

	memset(&rec->head, 0, sizeof(rec->head));
	if ((bad = decode_fields(h, k, f, n, &rec->head, rec)) != NULL)
		return bad;
	if (rec->head.end_us < rec->head.start_us)
		return "interval_end";
	if (k == &format_chain_kind && rec->head.stack == NULL)
		return "stack";
	return NULL;
}

/* A measured record: its span in order, the figure named. */
static const char *
decode_measured(histread *h, const format_kind *k, histfield *f, int n, histread_rec *rec)
{
	const char *bad;

	memset(&rec->measured, 0, sizeof(rec->measured));
	if ((bad = decode_fields(h, k, f, n, &rec->measured, rec)) != NULL)
		return bad;
	if (rec->measured.end_us < rec->measured.start_us)
		return "interval_end";
	return rec->measured.figure == NULL ? "figure" : NULL;
}

/* The decoder of each kind of record (format_kinds), and whether a meta record must come first. */
static const struct
{
	decode_fn	decode;
	bool		after_meta;
}			decoders[FORMAT_NRECKINDS] = {
	[FORMAT_REC_SAMPLE] = {decode_json_row, true},
	[FORMAT_REC_INTERVAL] = {decode_json_row, true},
	[FORMAT_REC_META] = {decode_meta, false},
	[FORMAT_REC_HEALTH] = {decode_health, false},
	[FORMAT_REC_GAP] = {decode_gap, false},
	[FORMAT_REC_STORE] = {decode_store, false},
	[FORMAT_REC_DESCRIPTION] = {decode_description, true},
	[FORMAT_REC_HEAD] = {decode_head, true},
	[FORMAT_REC_CHAIN] = {decode_head, true},
	[FORMAT_REC_MEASURED] = {decode_measured, true},
};

/* ---------------------------------------------------------------- records */

/* The meta record's checks: this version's, and before the rows. */
static int
meta_done(histread *h, histread_rec *rec, const char *bad, char **cause)
{
	const format_meta *m = &rec->meta.run;

	if (bad != NULL)
		return fail_at(h, h->rec_line, cause, "a meta record with a bad \"%s\"", bad);
	if (m->log_version < FORMAT_LOG_VERSION_MIN || m->log_version > FORMAT_LOG_VERSION)
		return fail_at(h, h->rec_line, cause, "written by %s%s%s in log format version %d; this "
					   "pgtempo-waits (%s) reads versions %d to %d", m->tool,
					   m->version != NULL ? " " : "", m->version != NULL ? m->version : "",
					   m->log_version, PACKAGE_VERSION, FORMAT_LOG_VERSION_MIN,
					   FORMAT_LOG_VERSION);
	h->seen_meta = true;
	h->log_version = m->log_version;
	return 1;
}

/* A meta record came before, of a version that has records of kind k (the common case, inline). */
#define IN_ORDER(h, k) ((h)->seen_meta && (h)->log_version >= (k)->version)

/* A record that needs a meta record before it, and a version that has it: -1 if not so. */
static int
in_order(histread *h, const format_kind *k, char **cause)
{
	if (!h->seen_meta && k->csv == FORMAT_CSV_ROW)
		return fail_at(h, h->rec_line, cause, "a row before any meta record: the file was "
					   "written by a pgtempo-waits older than log format version %d (which "
					   "does not say how it sampled), or its beginning is missing",
					   FORMAT_LOG_VERSION);
	if (!h->seen_meta)
		return fail_at(h, h->rec_line, cause, "a %s record before any meta record", k->name);
	if (h->log_version < k->version)
		return fail_at(h, h->rec_line, cause, "a %s record in a file of log format version "
					   "%d, which has none", k->name, h->log_version);
	return 0;
}

/* A record of any kind from its fields: the one dispatch of the JSON and the CSV comment records. */
static int
record(histread *h, format_reckind kind, histfield *f, int n, histread_rec *rec, char **cause)
{
	const format_kind *k = &format_kinds[kind];
	const char *bad;

	if (decoders[kind].after_meta && !IN_ORDER(h, k) && in_order(h, k, cause) < 0)
		return -1;
	bad = decoders[kind].decode(h, k, f, n, rec);
	rec->kind = (histread_kind) kind;
	if (kind == FORMAT_REC_META)
		return meta_done(h, rec, bad, cause);
	if (bad != NULL && k->csv == FORMAT_CSV_ROW)
		return fail_at(h, h->rec_line, cause, "a bad value in column \"%s\"", bad);
	if (bad != NULL)
		return fail_at(h, h->rec_line, cause, "a %s record with a bad \"%s\"", k->name, bad);
	return 1;
}

/* The kind of record named name (len bytes; comment: of a CSV comment line), or -1. */
static int
kind_named(const char *name, size_t len, bool comment)
{
	for (int i = 0; i < FORMAT_NRECKINDS; i++)
		if (format_kinds[i].namelen == len && memcmp(format_kinds[i].name, name, len) == 0 &&
			!(comment && format_kinds[i].csv == FORMAT_CSV_ROW))
			return i;
	return -1;
}

/* A JSON record of any type. */
static int
json_record(histread *h, char *text, histread_rec *rec, char **cause)
{
	histfield	f[HISTREAD_MAX_FIELDS];
	histfield  *type;
	char	   *why = NULL;
	int			n,
				rc,
				kind;

	if (!jsonread_flat(text, strlen(text), f, HISTREAD_MAX_FIELDS, &n, &why))
	{
		rc = fail_at(h, h->rec_line, cause, "not a JSON record: %s", why);
		free(why);
		return rc;
	}
	if ((type = histfield_get(f, n, "type")) == NULL || type->t != 's')
		return fail_at(h, h->rec_line, cause, "not a JSON record of pgtempo-waits");
	if ((kind = kind_named(type->v, type->vlen, false)) < 0)
		return fail_at(h, h->rec_line, cause, "a record of unknown type \"%.*s\"",
					   (int) type->vlen, type->v);
	return record(h, (format_reckind) kind, f, n, rec, cause);
}

/* A CSV comment record, "# KIND ...": its JSON object, or its key=value pairs. */
static int
csv_comment(histread *h, char *text, histread_rec *rec, char **cause)
{
	histfield	f[HISTREAD_MAX_FIELDS];
	const format_kind *k;
	char	   *body;
	size_t		len = strcspn(text + 2, " ");
	int			n,
				kind = -1;

	if (text[1] == ' ' && text[2 + len] == ' ')
		kind = kind_named(text + 2, len, true);
	if (kind < 0)
	{
		strbuf		names;

		strbuf_init(&names);
		for (int i = 0; i < FORMAT_NRECKINDS; i++)
			if (format_kinds[i].csv != FORMAT_CSV_ROW)
				strbuf_printf(&names, "%s%s", names.len > 0 ? ", " : "", format_kinds[i].name);
		n = fail_at(h, h->rec_line, cause, "an unknown comment record: not one of this "
					"version's (%s)", names.data);
		strbuf_free(&names);
		return n;
	}
	k = &format_kinds[kind];
	body = text + 2 + len + 1;
	if (k->csv == FORMAT_CSV_OBJECT &&
		(*body != '{' || !jsonread_flat(body, strlen(body), f, HISTREAD_MAX_FIELDS, &n, NULL)))
		return fail_at(h, h->rec_line, cause, "a %s record that is not a JSON object", k->name);
	if (k->csv == FORMAT_CSV_PAIRS && !histfield_pairs(body, k->rest, f, HISTREAD_MAX_FIELDS, &n))
		return fail_at(h, h->rec_line, cause, "a bad %s record", k->name);
	return record(h, (format_reckind) kind, f, n, rec, cause);
}

/* A row from its columns' fields (c[i] the kind's column i): the checks of record(). */
static int
record_row(histread *h, format_rowkind kind, histfield **c, histread_rec *rec, char **cause)
{
	const char *bad;

	if (!IN_ORDER(h, &format_kinds[kind]) && in_order(h, &format_kinds[kind], cause) < 0)
		return -1;
	if ((bad = decode_row(h, kind, c, rec)) != NULL)
		return fail_at(h, h->rec_line, cause, "a bad value in column \"%s\"", bad);
	rec->kind = (histread_kind) kind;
	return 1;
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
	return record_row(h, kind, c, rec, cause);
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
