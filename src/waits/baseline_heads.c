/*
 * baseline_heads.c — head blockers compared between the two windows of
 * --from-log with a baseline: for each head (pid and backend start), the
 * blocked sessions it caused on average in each window, the change and
 * its bound, judged in one family with the events.
 *
 * A window's heads come from its raw rows (the rows of one timestamp are
 * one sample, as the live run saw it) and from the head records of its
 * --log-interval files (counted where the interval's middle falls).  A
 * head's estimate in a window is its blocked samples over the window's
 * ticks, with the error of the window's slices, as an event's
 * (bl_series_est): each raw sample's or head record's blocked samples
 * are kept by head and time, and summed into the window's slices.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

#include "baseline_int.h"
#include "heads.h"
#include "report_heads.h"

/* A head's blocked samples at a time (a raw sample's, or a head record's middle). */
typedef struct head_at
{
	uint64_t	t_us;
	int32_t		pid;
	int64_t		backend_start_us;
	double		samples;
} head_at;

struct bl_heads
{
	heads_prof	p[2];			/* per window */
	heads_prof	one;			/* one raw sample's heads */
	head_at    *at[2];			/* per window: its heads' samples over time */
	size_t		nat[2],
				cap_at[2];
	sample_batch batch[2];		/* the raw rows of the timestamp being read */
	bool		open[2];
	const heads_cell **cell;	/* per row: the head's cell in the new window, else the baseline's */
	keydiff_row *rows;
	int			n;
};

bl_heads *
baseline_heads_new(void)
{
	bl_heads   *h = xcalloc(1, sizeof(bl_heads));

	for (int i = 0; i < 2; i++)
	{
		heads_init(&h->p[i]);
		sample_batch_init(&h->batch[i]);
	}
	heads_init(&h->one);
	return h;
}

void
baseline_heads_free(bl_heads *h)
{
	if (h == NULL)
		return;
	for (int i = 0; i < 2; i++)
	{
		heads_free(&h->p[i]);
		sample_batch_free(&h->batch[i]);
		free(h->at[i]);
	}
	heads_free(&h->one);
	free(h->cell);
	free(h->rows);
	free(h);
}

/* A head's blocked samples at time t in window side. */
static void
add_at(bl_heads *h, int side, uint64_t t, const heads_cell *c, double samples)
{
	if (h->nat[side] == h->cap_at[side])
	{
		h->cap_at[side] = h->cap_at[side] > 0 ? 2 * h->cap_at[side] : 256;
		h->at[side] = xrealloc(h->at[side], h->cap_at[side] * sizeof(head_at));
	}
	h->at[side][h->nat[side]++] = (head_at) {t, c->id.pid, c->id.backend_start_us, samples};
}

/* The sample being gathered of window side, into its heads, and each head's samples at its time. */
static void
flush(bl_heads *h, int side)
{
	size_t		pos = 0;
	double		blocked = h->p[side].blocked;

	if (!h->open[side])
		return;
	heads_add_batch(&h->p[side], &h->batch[side]);
	h->open[side] = false;
	if (h->p[side].blocked == blocked)
		return;					/* nobody blocked: no head to time */
	heads_reset(&h->one);
	heads_add_batch(&h->one, &h->batch[side]);
	for (const heads_cell *c; (c = hash_table_next(&h->one.cells, &pos)) != NULL;)
		if (c->samples > 0)
			add_at(h, side, h->batch[side].ts_us, c, c->samples);
}

void
baseline_heads_row(bl_heads *h, int side, const histread_rec *rec)
{
	if (h->open[side] && h->batch[side].ts_us != rec->ts_us)
		flush(h, side);
	if (!h->open[side])
	{
		sample_batch_reset(&h->batch[side], rec->ts_us);
		h->open[side] = true;
	}
	fromlog_batch_row(&h->batch[side], rec);
}

void
baseline_heads_record(bl_heads *h, int side, uint64_t t, const histread_rec *rec)
{
	const heads_cell *r = &rec->head.c;
	heads_cell *c;

	if (rec->kind != HISTREAD_HEAD)
		return;					/* chains are not compared */
	add_at(h, side, t, r, r->samples);
	c = heads_get(&h->p[side], r->id.pid, r->id.backend_start_us);
	c->samples += r->samples;
	c->direct += r->direct;
	h->p[side].blocked += r->samples;
	/* who it was: the latest record's (its query text is not kept) */
	if (r->last_us >= c->last_us)
	{
		c->id.datname = r->id.datname;
		c->id.usename = r->id.usename;
		c->id.application_name = r->id.application_name;
		c->last_us = r->last_us;
	}
}

/* By pid and backend start, then the baseline's first. */
typedef struct head_ref
{
	const heads_cell *c;
	int			side;
} head_ref;

static int
cmp_ref(const void *pa, const void *pb)
{
	const head_ref *a = pa,
			   *b = pb;

	if (a->c->id.pid != b->c->id.pid)
		return a->c->id.pid < b->c->id.pid ? -1 : 1;
	if (a->c->id.backend_start_us != b->c->id.backend_start_us)
		return a->c->id.backend_start_us < b->c->id.backend_start_us ? -1 : 1;
	return a->side - b->side;
}

/* By pid and backend start, then time. */
static int
cmp_at(const void *pa, const void *pb)
{
	const head_at *a = pa,
			   *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->backend_start_us != b->backend_start_us)
		return a->backend_start_us < b->backend_start_us ? -1 : 1;
	return a->t_us < b->t_us ? -1 : a->t_us > b->t_us;
}

/*
 * Each row's estimate in window side: the samples of its head (the rows
 * are in cmp_ref's order, the times sorted the same way) by slice.
 */
static void
head_ests(bl_heads *h, int side, const bl_window *w)
{
	double	   *y = xcalloc((size_t) (w->nslices > 0 ? w->nslices : 1), sizeof(double));
	size_t		j = 0;

	/* no head seen in this window: no array (qsort must not get NULL) */
	if (h->nat[side] > 0)
		qsort(h->at[side], h->nat[side], sizeof(head_at), cmp_at);
	for (int k = 0; k < h->n; k++)
	{
		const heads_cell *c = h->cell[k];

		memset(y, 0, (size_t) w->nslices * sizeof(double));
		while (j < h->nat[side] && cmp_at(&h->at[side][j],
										   &(head_at) {0, c->id.pid, c->id.backend_start_us, 0}) < 0)
			j++;
		for (; j < h->nat[side] && h->at[side][j].pid == c->id.pid &&
			 h->at[side][j].backend_start_us == c->id.backend_start_us; j++)
			y[bl_slice_of(w, h->at[side][j].t_us)] += h->at[side][j].samples;
		bl_series_est(w, y, side == 0 ? &h->rows[k].base : &h->rows[k].new);
	}
	free(y);
}

static const char *
head_header(const void *arg, int col)
{
	(void) arg;
	return col == 0 ? "head pid" : col == 1 ? "backend start" : "application";
}

static const char *
head_cell(const void *arg, const keydiff_row *r, int col, char *buf, size_t len)
{
	const heads_cell *c = ((const bl_heads *) arg)->cell[r->key];
	char		ts[FORMAT_TS_LEN];

	if (col == 0)
		snprintf(buf, len, "%d", (int) c->id.pid);
	else if (col == 1)
	{
		if (c->id.backend_start_us == INT64_MIN)
			return "?";
		format_ts(ts, c->id.backend_start_us);
		snprintf(buf, len, "%s", ts);
	}
	else
		return c->id.application_name != NULL ? c->id.application_name : "";
	return buf;
}

static void
head_json_key(const void *arg, json_writer *w, const keydiff_row *r)
{
	const heads_cell *c = ((const bl_heads *) arg)->cell[r->key];

	report_head_json_id(w, c->id.pid, c->id.backend_start_us);
	json_kv_string(w, "usename", c->id.usename);
	json_kv_string(w, "application_name", c->id.application_name);
}

bool
baseline_heads_table(baseline *b, bl_table *t)
{
	bl_heads   *h = b->heads;
	head_ref   *v;
	int			nv[2],
				n = 0;
	const heads_cell **sorted[2];

	for (int i = 0; i < 2; i++)
	{
		flush(h, i);
		sorted[i] = heads_sorted(&h->p[i], &nv[i]);
	}
	if (nv[0] + nv[1] == 0)
	{
		free(sorted[0]);
		free(sorted[1]);
		return false;
	}
	v = xcalloc((size_t) (nv[0] + nv[1]), sizeof(head_ref));
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < nv[i]; k++)
			v[n++] = (head_ref) {sorted[i][k], i};
	qsort(v, (size_t) n, sizeof(head_ref), cmp_ref);
	h->rows = xcalloc((size_t) n, sizeof(keydiff_row));
	h->cell = xcalloc((size_t) n, sizeof(heads_cell *));
	for (int k = 0; k < n; k++)
	{
		bool		pair = k + 1 < n && cmp_ref(&v[k], &v[k + 1]) < 0 &&
			v[k].c->id.pid == v[k + 1].c->id.pid &&
			v[k].c->id.backend_start_us == v[k + 1].c->id.backend_start_us;
		keydiff_row *r = &h->rows[h->n];

		r->key = h->n;
		h->cell[h->n++] = pair ? v[k + 1].c : v[k].c;
		if (pair)
			k++;
	}
	free(v);
	free(sorted[0]);
	free(sorted[1]);
	for (int i = 0; i < 2; i++)
		head_ests(h, i, &b->w[i]);
	*t = (bl_table) {.name = "blockers", .rows = h->rows, .n = h->n, .ncols = 3,
	.header = head_header, .cell = head_cell, .json_key = head_json_key, .arg = h};
	return true;
}
