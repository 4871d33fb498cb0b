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
enum
{
	COL_TIME, COL_EPOCH, COL_INTERVAL, COL_TRANSACTIONS, COL_FAILED, COL_LATENCY_SUM,
	COL_HISTOGRAM, COL_SCRIPTS, COL_COUNT
};
static const char *const row_columns[COL_COUNT] = {
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

/* Where a row's items are: a column's index in row_columns to its place in a row. */
typedef struct row_layout
{
	int			pos[COL_COUNT];		/* -1: not in the file */
	uint32_t	width;			/* items a row has, unknown columns included */
	int			cell[4];		/* a script cell's place of transactions .. histogram */
} row_layout;

/* A cell from items at the places at[0..4) (transactions .. histogram); false if malformed. */
static bool
cell_read(const jsonread_value *items, const int *at, series_cell *c)
{
	const jsonread_value *tx = &items[at[0]],
			   *failed = &items[at[1]],
			   *sum = &items[at[2]],
			   *text = &items[at[3]];

	if (tx->type != JSONREAD_NUMBER || !tx->is_int || tx->i < 0 ||
		failed->type != JSONREAD_NUMBER || !failed->is_int || failed->i < 0 ||
		sum->type != JSONREAD_NUMBER || text->type != JSONREAD_STRING)
		return false;
	c->transactions = tx->i;
	c->failed = failed->i;
	c->latency_sum_ns = sum->num;
	c->hist_text = xstrdup(text->u.str);
	return true;
}

/* Row r of the document into sr, its items where lay says; false if it is malformed. */
static bool
row_read(const jsonread_value *v, const row_layout *lay, series *sr)
{
	series_row *row;
	const jsonread_value *it = v->u.items;
	const jsonread_value *scripts;
	int			first[4] = {lay->pos[COL_TRANSACTIONS], lay->pos[COL_FAILED],
	lay->pos[COL_LATENCY_SUM], lay->pos[COL_HISTOGRAM]};

	if (v->type != JSONREAD_ARRAY || v->n != lay->width ||
		it[lay->pos[COL_TIME]].type != JSONREAD_NUMBER ||
		it[lay->pos[COL_EPOCH]].type != JSONREAD_NUMBER ||
		it[lay->pos[COL_INTERVAL]].type != JSONREAD_NUMBER)
		return false;
	row = series_add_row(sr, it[lay->pos[COL_TIME]].num, it[lay->pos[COL_EPOCH]].num,
						 it[lay->pos[COL_INTERVAL]].num);
	if (!cell_read(it, first, &row->cells[0]))
		return false;
	if (sr->ncells == 1)
		return true;
	scripts = &it[lay->pos[COL_SCRIPTS]];
	if (scripts->type != JSONREAD_ARRAY || scripts->n != (uint32_t) sr->ncells - 1)
		return false;
	for (int c = 1; c < sr->ncells; c++)
	{
		const jsonread_value *sc = &scripts->u.items[c - 1];

		if (sc->type != JSONREAD_ARRAY || sc->n != 4 ||
			!cell_read(sc->u.items, lay->cell, &row->cells[c]))
			return false;
	}
	return true;
}

/*
 * The places of a row's items from the file's "columns" (cols; NULL: a file
 * without the list, read in the order this writer has always used, the
 * scripts there when a first row has 8 items).  Columns this version does
 * not know are skipped; one named twice or a needed one missing is refused.
 * A script cell holds transactions .. histogram in the order the list gives
 * them.  False with *cause set when the list is not one.
 */
static bool
layout_read(const jsonread_value *cols, const jsonread_value *rows, row_layout *lay,
			char **cause)
{
	int			rank = 0;

	for (int k = 0; k < COL_COUNT; k++)
		lay->pos[k] = -1;
	if (cols == NULL)
	{
		const jsonread_value *first = rows->n > 0 ? &rows->u.items[0] : NULL;

		lay->width = first != NULL && first->type == JSONREAD_ARRAY && first->n == COL_COUNT ?
			COL_COUNT : COL_COUNT - 1;
		for (uint32_t k = 0; k < lay->width; k++)
			lay->pos[k] = (int) k;
	}
	else
	{
		lay->width = cols->n;
		for (uint32_t i = 0; i < cols->n; i++)
		{
			const jsonread_value *name = &cols->u.items[i];

			if (name->type != JSONREAD_STRING)
			{
				*cause = xasprintf("field \"intervals.columns[%u]\" is not a column name", i);
				return false;
			}
			for (int k = 0; k < COL_COUNT; k++)
				if (strcmp(name->u.str, row_columns[k]) == 0)
				{
					if (lay->pos[k] >= 0)
					{
						*cause = xasprintf("field \"intervals.columns\" names \"%s\" twice",
										   row_columns[k]);
						return false;
					}
					lay->pos[k] = (int) i;
				}
		}
	}
	for (int k = 0; k < COL_SCRIPTS; k++)
		if (lay->pos[k] < 0)
		{
			*cause = xasprintf("field \"intervals.columns\" has no column \"%s\"", row_columns[k]);
			return false;
		}
	/* a script cell's order: the four cell columns' order in the list */
	for (int i = 0; i < (int) lay->width; i++)
		for (int k = COL_TRANSACTIONS; k <= COL_HISTOGRAM; k++)
			if (lay->pos[k] == i)
				lay->cell[k - COL_TRANSACTIONS] = rank++;
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
	row_layout	lay;

	series_init(sr, 0, 1);
	if (iv == NULL || iv->type == JSONREAD_NULL)
		return true;
	len = jsonread_get(iv, "interval_s");
	buckets = jsonread_get(iv, "histogram_buckets");
	cols = jsonread_get(iv, "columns");
	rows = jsonread_get(iv, "rows");
	if (iv->type != JSONREAD_OBJECT || len == NULL || !len->is_int || len->i <= 0 ||
		len->i > 86400 || (cols != NULL && cols->type != JSONREAD_ARRAY) ||
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
	if (!layout_read(cols, rows, &lay, cause))
		return false;
	series_init(sr, (int) len->i, 1);
	if (lay.pos[COL_SCRIPTS] >= 0)
	{
		const jsonread_value *first = rows->n > 0 ? &rows->u.items[0] : NULL;

		/* the number of scripts is the length of a row's "scripts" item */
		sr->ncells = 1 + (first != NULL && first->type == JSONREAD_ARRAY && first->n == lay.width &&
						  first->u.items[lay.pos[COL_SCRIPTS]].type == JSONREAD_ARRAY ?
						  (int) first->u.items[lay.pos[COL_SCRIPTS]].n : 1);
	}
	for (uint32_t r = 0; r < rows->n; r++)
		if (!row_read(&rows->u.items[r], &lay, sr))
		{
			*cause = xasprintf("field \"intervals.rows[%u]\" is not a row of the series", r);
			series_free(sr);
			return false;
		}
	return true;
}
