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
 * ticks, with the sampling's binomial error, as the report's bound for a
 * head: blocked time has no slices of its own to show its spread.
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

struct bl_heads
{
	heads_prof	p[2];			/* per window */
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
	}
	free(h->cell);
	free(h->rows);
	free(h);
}

/* The sample being gathered of window side, into its heads. */
static void
flush(bl_heads *h, int side)
{
	if (!h->open[side])
		return;
	heads_add_batch(&h->p[side], &h->batch[side]);
	h->open[side] = false;
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
baseline_heads_record(bl_heads *h, int side, const histread_rec *rec)
{
	const heads_cell *r = &rec->head.c;
	heads_cell *c;

	if (rec->kind != HISTREAD_HEAD)
		return;					/* chains are not compared */
	c = heads_get(&h->p[side], r->pid, r->backend_start_us);
	c->samples += r->samples;
	c->direct += r->direct;
	h->p[side].blocked += r->samples;
	/* who it was: the latest record's (its query text is not kept) */
	if (r->last_us >= c->last_us)
	{
		c->datname = r->datname;
		c->usename = r->usename;
		c->appname = r->appname;
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

	if (a->c->pid != b->c->pid)
		return a->c->pid < b->c->pid ? -1 : 1;
	if (a->c->backend_start_us != b->c->backend_start_us)
		return a->c->backend_start_us < b->c->backend_start_us ? -1 : 1;
	return a->side - b->side;
}

/* A window's estimate of a head: its blocked samples over the window's ticks. */
static keydiff_est
head_est(const bl_window *w, double samples)
{
	keydiff_est e = {0, 0, INFINITY};

	if (w->total_ticks > 0)
	{
		e.mean = samples / w->total_ticks;
		e.se = keydiff_sampling_se(samples, w->samples, w->total_ticks);
	}
	return e;
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
		snprintf(buf, len, "%d", (int) c->pid);
	else if (col == 1)
	{
		if (c->backend_start_us == INT64_MIN)
			return "?";
		format_ts(ts, c->backend_start_us);
		snprintf(buf, len, "%s", ts);
	}
	else
		return c->appname != NULL ? c->appname : "";
	return buf;
}

static void
head_json_key(const void *arg, json_writer *w, const keydiff_row *r)
{
	const heads_cell *c = ((const bl_heads *) arg)->cell[r->key];

	report_head_json_id(w, c);
	json_kv_string(w, "usename", c->usename);
	json_kv_string(w, "application_name", c->appname);
}

void
baseline_heads_table(baseline *b)
{
	bl_heads   *h = b->heads;
	head_ref   *v;
	int			nv[2],
				n = 0;
	const heads_cell **sorted[2];
	bl_table	t = {.name = "blockers", .ncols = 3, .header = head_header,
	.cell = head_cell, .json_key = head_json_key, .arg = h};

	for (int i = 0; i < 2; i++)
	{
		flush(h, i);
		sorted[i] = heads_sorted(&h->p[i], &nv[i]);
	}
	if (nv[0] + nv[1] == 0)
	{
		free(sorted[0]);
		free(sorted[1]);
		return;
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
			v[k].c->pid == v[k + 1].c->pid &&
			v[k].c->backend_start_us == v[k + 1].c->backend_start_us;
		keydiff_row *r = &h->rows[h->n];

		r->key = h->n;
		r->base = head_est(&b->w[0], v[k].side == 0 ? v[k].c->samples : 0);
		r->new = head_est(&b->w[1], v[k].side == 1 ? v[k].c->samples :
						  pair ? v[k + 1].c->samples : 0);
		h->cell[h->n++] = pair ? v[k + 1].c : v[k].c;
		if (pair)
			k++;
	}
	free(v);
	free(sorted[0]);
	free(sorted[1]);
	t.rows = h->rows;
	t.n = h->n;
	baseline_add_table(b, &t);
}
