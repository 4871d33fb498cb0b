/*
 * series.c — the per-interval series: its rows, the sparse histogram
 * text, and its place in --json ("intervals").
 */
#include "config.h"

#include "series.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

/* What a row holds, in order: documented in pgtempo-bench(1), JSON OUTPUT. */
static const char *const row_columns[] = {
	"time_s", "epoch_s", "interval_s", "transactions", "failed", "latency_sum_ns", "histogram",
	"scripts",
};

void
series_init(series *sr, int interval_s, int ncells)
{
	memset(sr, 0, sizeof(*sr));
	sr->interval_s = interval_s;
	sr->ncells = ncells > 0 ? ncells : 1;
}

void
series_free(series *sr)
{
	for (int r = 0; r < sr->nrows; r++)
	{
		for (int c = 0; c < sr->ncells; c++)
			free(sr->rows[r].cells[c].hist_text);
		free(sr->rows[r].cells);
	}
	free(sr->rows);
	memset(sr, 0, sizeof(*sr));
}

series_row *
series_add_row(series *sr, double time_s, double epoch_s, double interval_s)
{
	series_row *row;

	if (sr->nrows == sr->maxrows)
	{
		sr->maxrows = sr->maxrows > 0 ? 2 * sr->maxrows : 64;
		sr->rows = xrealloc(sr->rows, (size_t) sr->maxrows * sizeof(series_row));
	}
	row = &sr->rows[sr->nrows++];
	row->time_s = time_s;
	row->epoch_s = epoch_s;
	row->interval_s = interval_s;
	row->cells = xcalloc((size_t) sr->ncells, sizeof(series_cell));
	return row;
}

char *
series_hist_text(const hist *h)
{
	strbuf		sb;
	int			next = -1;		/* the bucket the next count would be for */

	strbuf_init(&sb);
	for (int i = 0; h->total > 0 && i < HIST_BUCKETS; i++)
	{
		if (h->counts[i] == 0)
			continue;
		if (next < 0)
			strbuf_printf(&sb, "%d", i);
		else if (i == next + 1)
			strbuf_puts(&sb, " 0");		/* one empty bucket: shorter than a jump */
		else if (i > next)
			strbuf_printf(&sb, " +%d", i - next);
		strbuf_printf(&sb, " %llu", (unsigned long long) h->counts[i]);
		next = i + 1;
	}
	if (sb.len == 0)
	{
		strbuf_free(&sb);
		return xstrdup("");
	}
	return strbuf_detach(&sb);
}

/*
 * The next token of *p (spaces skipped): an unsigned integer, after a '+'
 * when jump is set; false at the end, or with *bad set on anything else.
 * By hand rather than strtoull(): a merge of an hour's series reads
 * millions of them.
 */
static bool
next_token(const char **p, uint64_t *v, bool *jump, bool *bad)
{
	const char *s = *p;
	uint64_t	n = 0;

	while (*s == ' ')
		s++;
	*p = s;
	if (*s == '\0')
		return false;
	*jump = *s == '+';
	if (*jump)
		s++;
	if (*s < '0' || *s > '9')
	{
		*bad = true;
		return false;
	}
	for (; *s >= '0' && *s <= '9'; s++)
	{
		if (n > (UINT64_MAX - 9) / 10)
		{
			*bad = true;
			return false;
		}
		n = n * 10 + (uint64_t) (*s - '0');
	}
	if (*s != ' ' && *s != '\0')
	{
		*bad = true;
		return false;
	}
	*v = n;
	*p = s;
	return true;
}

/* Where decode() puts each non-empty bucket. */
typedef void (*bucket_fn) (void *arg, uint32_t idx, uint64_t cnt);

/* Call fn for each non-empty bucket of text, in order; false if text is malformed. */
static bool
decode(const char *text, bucket_fn fn, void *arg)
{
	const char *p = text;
	uint64_t	v,
				idx = 0;
	bool		bad = false,
				jump,
				first = true;

	while (!bad && next_token(&p, &v, &jump, &bad))
	{
		if (first || jump)
		{
			/* the first bucket's index, or a jump over empty ones: a count follows */
			if ((jump && (first || v < 1)) || v >= HIST_BUCKETS)
				return false;
			idx = first ? v : idx + v;
			first = false;
			if (!next_token(&p, &v, &jump, &bad) || jump)
				return false;
		}
		if (idx >= HIST_BUCKETS)
			return false;
		if (v > 0)
			fn(arg, (uint32_t) idx, v);
		idx++;
	}
	return !bad;
}

/* A sparse histogram being filled, and its room. */
typedef struct sparse_fill
{
	series_sparse *sp;
	int			max;
} sparse_fill;

static void
sparse_add(void *arg, uint32_t idx, uint64_t cnt)
{
	sparse_fill *f = arg;
	series_sparse *sp = f->sp;

	if (sp->nb == f->max)
	{
		f->max *= 2;
		sp->idx = xrealloc(sp->idx, (size_t) f->max * sizeof(uint32_t));
		sp->cnt = xrealloc(sp->cnt, (size_t) f->max * sizeof(uint64_t));
	}
	sp->idx[sp->nb] = idx;
	sp->cnt[sp->nb++] = cnt;
	sp->total += cnt;
}

/* The error of a malformed histogram text. */
static char *
bad_text(const char *text)
{
	return xasprintf("an interval's histogram is not a list of this version's buckets: \"%.40s\"",
					 text);
}

bool
series_sparse_decode(const char *text, series_sparse *sp, char **cause)
{
	sparse_fill f = {sp, 16};

	memset(sp, 0, sizeof(*sp));
	sp->idx = xmalloc((size_t) f.max * sizeof(uint32_t));
	sp->cnt = xmalloc((size_t) f.max * sizeof(uint64_t));
	if (decode(text, sparse_add, &f))
		return true;
	*cause = bad_text(text);
	series_sparse_free(sp);
	return false;
}

void
series_sparse_free(series_sparse *sp)
{
	free(sp->idx);
	free(sp->cnt);
	memset(sp, 0, sizeof(*sp));
}

/* Count a bucket into a hist (arg), widening its min and max to the bucket's bounds. */
static void
hist_add_bucket(void *arg, uint32_t idx, uint64_t cnt)
{
	hist	   *h = arg;

	h->counts[idx] += cnt;
	h->total += cnt;
	/* min and max to the bucket, which hist_percentile() clamps to */
	if (hist_bucket_low((int) idx) < h->min)
		h->min = hist_bucket_low((int) idx);
	if (hist_bucket_high((int) idx) > h->max)
		h->max = hist_bucket_high((int) idx);
}

bool
series_hist_add(hist *h, const char *text, char **cause)
{
	if (decode(text, hist_add_bucket, h))
		return true;
	/* a partly added text is in h: the caller warns, or gives up on h */
	*cause = bad_text(text);
	return false;
}

/* A time rounded to the microsecond, so that it prints short. */
static double
us(double t)
{
	return round(t * 1e6) / 1e6;
}

/* transactions, failed, latency_sum_ns, histogram of a cell. */
static void
cell_json(json_writer *w, const series_cell *c)
{
	json_int(w, c->transactions);
	json_int(w, c->failed);
	json_double(w, round(c->latency_sum_ns));
	json_string(w, c->hist_text != NULL ? c->hist_text : "");
}

/* One row on one line, whatever the writer's layout. */
static void
row_json(json_writer *w, const series *sr, const series_row *row)
{
	bool		pretty = w->pretty;

	json_array_begin(w);
	w->pretty = false;
	json_double(w, us(row->time_s));
	json_double(w, us(row->epoch_s));
	json_double(w, us(row->interval_s));
	cell_json(w, &row->cells[0]);
	if (sr->ncells > 1)
	{
		json_array_begin(w);
		for (int c = 1; c < sr->ncells; c++)
		{
			json_array_begin(w);
			cell_json(w, &row->cells[c]);
			json_array_end(w);
		}
		json_array_end(w);
	}
	json_array_end(w);
	w->pretty = pretty;
}

void
series_json(json_writer *w, const series *sr)
{
	json_key(w, "intervals");
	if (sr == NULL || sr->interval_s <= 0)
	{
		json_null(w);
		return;
	}
	json_object_begin(w);
	json_kv_int(w, "interval_s", sr->interval_s);
	json_kv_int(w, "histogram_exact_below_ns", HIST_SUB_COUNT);
	json_kv_int(w, "histogram_buckets_per_octave", HIST_HALF_COUNT);
	json_kv_int(w, "histogram_buckets", HIST_BUCKETS);
	json_key(w, "columns");
	json_array_begin(w);
	for (size_t i = 0; i < sizeof(row_columns) / sizeof(row_columns[0]); i++)
		if (i + 1 < sizeof(row_columns) / sizeof(row_columns[0]) || sr->ncells > 1)
			json_string(w, row_columns[i]);
	json_array_end(w);
	json_key(w, "rows");
	json_array_begin(w);
	for (int r = 0; r < sr->nrows; r++)
		row_json(w, sr, &sr->rows[r]);
	json_array_end(w);
	json_object_end(w);
}

/* A cell from items[0..4) of a row; false if they are not what they must be. */
static bool
cell_read(const jsonread_value *items, series_cell *c)
{
	if (items[0].type != JSONREAD_NUMBER || !items[0].is_int || items[0].i < 0 ||
		items[1].type != JSONREAD_NUMBER || !items[1].is_int || items[1].i < 0 ||
		items[2].type != JSONREAD_NUMBER || items[3].type != JSONREAD_STRING)
		return false;
	c->transactions = items[0].i;
	c->failed = items[1].i;
	c->latency_sum_ns = items[2].num;
	c->hist_text = xstrdup(items[3].u.str);
	return true;
}

/* Row r of the document into sr; false if it is malformed. */
static bool
row_read(const jsonread_value *v, series *sr)
{
	series_row *row;
	const jsonread_value *it = v->u.items;
	uint32_t	want = sr->ncells > 1 ? 8 : 7;

	if (v->type != JSONREAD_ARRAY || v->n != want || it[0].type != JSONREAD_NUMBER ||
		it[1].type != JSONREAD_NUMBER || it[2].type != JSONREAD_NUMBER)
		return false;
	row = series_add_row(sr, it[0].num, it[1].num, it[2].num);
	if (!cell_read(&it[3], &row->cells[0]))
		return false;
	if (sr->ncells == 1)
		return true;
	if (it[7].type != JSONREAD_ARRAY || it[7].n != (uint32_t) sr->ncells - 1)
		return false;
	for (int c = 1; c < sr->ncells; c++)
	{
		const jsonread_value *sc = &it[7].u.items[c - 1];

		if (sc->type != JSONREAD_ARRAY || sc->n != 4 || !cell_read(sc->u.items, &row->cells[c]))
			return false;
	}
	return true;
}

bool
series_read(const jsonread_value *root, series *sr, char **cause)
{
	const jsonread_value *iv = jsonread_get(root, "intervals");
	const jsonread_value *len,
			   *buckets,
			   *cols,
			   *rows;

	series_init(sr, 0, 1);
	if (iv == NULL || iv->type == JSONREAD_NULL)
		return true;
	len = jsonread_get(iv, "interval_s");
	buckets = jsonread_get(iv, "histogram_buckets");
	cols = jsonread_get(iv, "columns");
	rows = jsonread_get(iv, "rows");
	if (iv->type != JSONREAD_OBJECT || len == NULL || !len->is_int || len->i <= 0 ||
		len->i > 86400 || cols == NULL || cols->type != JSONREAD_ARRAY || cols->n < 7 ||
		rows == NULL || rows->type != JSONREAD_ARRAY)
	{
		*cause = xstrdup("field \"intervals\" is not a series of intervals");
		return false;
	}
	if (buckets == NULL || !buckets->is_int || buckets->i != HIST_BUCKETS)
	{
		*cause = xstrdup("field \"intervals\": its histograms are not of this version's buckets");
		return false;
	}
	series_init(sr, (int) len->i, cols->n > 7 ? 0 : 1);
	if (cols->n > 7)
	{
		const jsonread_value *first = rows->n > 0 ? &rows->u.items[0] : NULL;

		/* the number of scripts is the length of a row's last item */
		sr->ncells = 1 + (first != NULL && first->type == JSONREAD_ARRAY && first->n == 8 &&
						  first->u.items[7].type == JSONREAD_ARRAY ? (int) first->u.items[7].n : 1);
	}
	for (uint32_t r = 0; r < rows->n; r++)
		if (!row_read(&rows->u.items[r], sr))
		{
			*cause = xasprintf("field \"intervals.rows[%u]\" is not a row of the series", r);
			series_free(sr);
			return false;
		}
	return true;
}
