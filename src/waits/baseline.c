/*
 * baseline.c — pgtempo-waits --from-log with a baseline: both windows
 * read, sliced and compared key by key.
 */
#include "config.h"

#include "baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/hash.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

#include "baseline_int.h"
#include "fromlog.h"

/* ---------------------------------------------------------------- keys */

/*
 * A key's bytes: wprof's keys are zeroed before they are filled, so two keys of
 * the same interned strings and numbers are the same bytes, padding and
 * all, whatever fields the dimensions keep.
 */
static uint64_t
key_hash(const wprof_key *k)
{
	uint64_t	w[sizeof(wprof_key) / sizeof(uint64_t)];
	uint64_t	h = UINT64_C(0x9e3779b97f4a7c15);

	_Static_assert(sizeof(wprof_key) % sizeof(uint64_t) == 0, "a key is whole words");
	memcpy(w, k, sizeof(w));
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		h = hash_mix(h, w[i]);
	return h;
}

/* An entry of a key table: the key and its index. */
typedef struct bl_keycell
{
	wprof_key	key;
	int			idx;
} bl_keycell;

static bool
key_eq(const void *entry, const void *key)
{
	return memcmp(entry, key, sizeof(wprof_key)) == 0;
}

/* The index of key k in t (added if new). */
static int
key_index(bl_keys *t, const wprof_key *k)
{
	bool		added;
	bl_keycell *c = hash_table_insert(&t->table, key_hash(k), k, key_eq, &added);

	if (added)
	{
		memcpy(&c->key, k, sizeof(wprof_key));
		c->idx = t->n;
		if (t->n == t->cap)
		{
			t->cap = t->cap > 0 ? 2 * t->cap : 64;
			t->v = xrealloc(t->v, (size_t) t->cap * sizeof(wprof_key));
		}
		t->v[t->n++] = *k;
	}
	return c->idx;
}

/* The key of a row under the dimensions: wprof's own projection, as a report groups it. */
static wprof_key
row_key(const sample_row *r, const bool *dims)
{
	wprof_key	k = wprof_row_key(r);

	return wprof_key_project(&k, dims);
}

/* ---------------------------------------------------------------- reading */

/* Is time t in [since, until)? */
static bool
in_window(const bl_window *w, uint64_t t)
{
	return (int64_t) t >= w->since_us && (int64_t) t < w->until_us;
}

/* A row of a window: its entry, and a profile line's ticks once per interval. */
static void
window_add(bl_window *w, const histread_rec *rec, uint64_t t, int key, int ev)
{
	bool		interval = rec->kind == HISTREAD_INTERVAL;
	uint64_t	start = interval ? rec->start_us : rec->ts_us;

	if (w->n == w->cap)
	{
		w->cap = w->cap > 0 ? 2 * w->cap : 4096;
		w->e = xrealloc(w->e, w->cap * sizeof(bl_entry));
	}
	if (interval && (w->niv == 0 || start != w->iv_last_start || rec->ts_us != w->iv_last_end))
	{
		if (w->niv == w->cap_iv)
		{
			w->cap_iv = w->cap_iv > 0 ? 2 * w->cap_iv : 1024;
			w->iv = xrealloc(w->iv, w->cap_iv * sizeof(bl_iv));
		}
		w->iv[w->niv++] = (bl_iv) {t, (double) rec->ticks};
		w->iv_last_start = start;
		w->iv_last_end = rec->ts_us;
	}
	w->e[w->n++] = (bl_entry) {t, key, ev, (double) rec->row.samples};
	if (!interval)
		w->raw = true;
	if (w->first_us == 0 || start < w->first_us)
		w->first_us = start;
	if (rec->ts_us > w->last_us)
		w->last_us = rec->ts_us;
}

/*
 * The index of the row's event: a small cache by the interned names'
 * addresses first (a day of profile lines has a few dozen events and
 * a million rows), then the table.
 */
static int
event_index(baseline *b, const sample_row *r)
{
	bl_evcache *c = &b->evcache[((uintptr_t) r->wait_event_type ^ ((uintptr_t) r->wait_event >> 3)) %
								BL_EVCACHE];
	wprof_key	e;

	if (c->set && c->type == r->wait_event_type && c->event == r->wait_event)
		return c->idx;
	e = row_key(r, (const bool[WPROF_DIM_COUNT]) {[WPROF_DIM_EVENT] = true});
	*c = (bl_evcache) {r->wait_event_type, r->wait_event, key_index(&b->events, &e), true};
	return c->idx;
}

/* fromlog_row_fn: a row into the windows of the files being read (a profile line by its middle). */
static void
take_row(void *arg, const histread_rec *rec)
{
	baseline   *b = arg;
	bool		head = rec->kind == HISTREAD_HEAD || rec->kind == HISTREAD_CHAIN;
	uint64_t	start = head ? (uint64_t) rec->head.start_us :
		rec->kind == HISTREAD_INTERVAL ? rec->start_us : rec->ts_us;
	uint64_t	end = head ? (uint64_t) rec->head.end_us : rec->ts_us;
	uint64_t	t = start + (end - start) / 2;
	int			key = -1,
				ev = -1;

	for (int i = 0; i < b->nw; i++)
	{
		bl_window  *w = &b->w[i];

		if ((b->reading & (1u << i)) == 0)
			continue;
		if (head)
		{
			/* the head blockers: of the nearest baseline window and the new one */
			if (i < 2 && in_window(w, t))
				baseline_heads_record(b->heads, i, t, rec);
			continue;
		}
		/* the lines' length and a line's start, in the window or not: the slices are whole lines */
		if (rec->kind == HISTREAD_INTERVAL && w->line_us == 0)
		{
			w->line_us = rec->ts_us - start;
			w->line0_us = start;
		}
		if (!in_window(w, t))
			continue;
		if (key < 0)
		{
			ev = event_index(b, &rec->row);
			/* by event alone (the default), the keys are the events: one lookup */
			if (b->by_event_only)
				key = ev;
			else
			{
				wprof_key	k = row_key(&rec->row, b->dims);

				key = key_index(&b->keys, &k);
			}
		}
		window_add(w, rec, t, key, ev);
		if (rec->kind == HISTREAD_SAMPLE && i < 2)
			baseline_heads_row(b->heads, i, rec);
	}
}

/* Read the files of the windows in mask (one pass when both windows are of the same files). */
static bool
read_windows(baseline *b, char *const *files, int nfiles, unsigned mask)
{
	fromlog    *f;
	bool		all_read;

	b->reading = mask;
	f = fromlog_read(b->s, files, nfiles, &b->pool, take_row, b, &all_read);
	if (f == NULL)
		return false;
	b->all_read = b->all_read && all_read;
	for (int i = 0; i < b->nw; i++)
		if (mask & (1u << i))
		{
			b->w[i].fl = f;
			b->w[i].meta = *fromlog_meta(f);
		}
	b->fl[b->nfl++] = f;
	return true;
}

/* ---------------------------------------------------------------- slices */

/*
 * The start of the first profile line whose middle is at or after t: the
 * lines of a run follow each other at one length from the first one's.
 */
static uint64_t
line_edge(const bl_window *w, uint64_t t)
{
	double		l = (double) w->line_us;

	return (uint64_t) ((double) w->line0_us +
					   ceil(((double) t - (double) w->line0_us - l / 2) / l) * l);
}

/*
 * Where the window's slices start, and how long they are: over the time
 * the runs sampled in the window (quiet time without rows too), in whole
 * profile lines where the rows are lines (aligned to theirs), else in up
 * to BASELINE_MAX_SLICES equal lengths of at least a second.  false when
 * no run sampled in the window.
 */
static bool
slice_span(bl_window *w)
{
	uint64_t	first,
				last,
				a,
				b;

	fromlog_span(w->fl, &first, &last);
	a = w->since_us > (int64_t) first ? (uint64_t) w->since_us : first;
	b = w->until_us < (int64_t) last ? (uint64_t) w->until_us : last;
	if (w->line_us > 0)
	{
		/* from the first line whose middle is in the window to the end of the last one */
		a = line_edge(w, a);
		b = line_edge(w, b);
	}
	/* one empty slice where no run sampled */
	w->nslices = 1;
	w->slice0_us = a;
	w->slice_us = 1;
	if (b <= a)
		return false;
	if (w->line_us > 0)
	{
		double		lines;
		int			group;

		lines = round((double) (b - a) / (double) w->line_us);
		group = (int) ceil(lines / BASELINE_MAX_SLICES);
		w->nslices = (int) ceil(lines / group);
		w->slice_us = (double) group * (double) w->line_us;
	}
	else
	{
		w->nslices = (int) fmin(BASELINE_MAX_SLICES, fmax(1, (double) (b - a) / 1e6));
		w->slice_us = (double) (b - a) / w->nslices;
	}
	return true;
}

/*
 * Cut a window into slices: each slice's ticks from the runs' health
 * records (interpolated; at the lines' ends, where the service writes
 * them, exact), or where there are none, the profile lines' ticks or the
 * raw rows' distinct times; each entry's slice in its t_us.
 */
static void
make_slices(bl_window *w)
{
	double	   *line_ticks;
	int		   *lines;
	int			nlines = 0;
	double		per_slice;

	if (w->fl == NULL)
		return;
	if (!slice_span(w))
	{
		/* the window and the runs do not meet: no ticks (sampled() says so), no rows */
		w->ticks = xcalloc(1, sizeof(double));
		for (size_t i = 0; i < w->n; i++)
			w->e[i].t_us = 0;
		return;
	}
	w->ticks = xcalloc((size_t) w->nslices, sizeof(double));
	line_ticks = xcalloc((size_t) w->nslices, sizeof(double));
	lines = xcalloc((size_t) w->nslices, sizeof(int));
	for (size_t i = 0; i < w->niv; i++)
	{
		line_ticks[bl_slice_of(w, w->iv[i].t_us)] += w->iv[i].ticks;
		lines[bl_slice_of(w, w->iv[i].t_us)]++;
	}
	for (size_t i = 0; w->niv == 0 && i < w->n; i++)
		if (i == 0 || w->e[i].t_us != w->e[i - 1].t_us)
			line_ticks[bl_slice_of(w, w->e[i].t_us)] += 1;
	per_slice = w->line_us > 0 ? round(w->slice_us / (double) w->line_us) : INFINITY;
	for (int k = 0; k < w->nslices; k++)
		nlines += lines[k];
	for (int k = 0; k < w->nslices; k++)
	{
		double		a = (double) w->slice0_us + k * w->slice_us;

		/*
		 * A line in every interval of the window: the lines' own ticks,
		 * exact.  Decided for the window, not slice by slice: intervals
		 * that drift (a late sample on a loaded machine) leave a slice
		 * without a line and its neighbour with two, and the health
		 * records' ticks of the first would count the second's again.
		 */
		w->ticks[k] = nlines >= per_slice * w->nslices ? line_ticks[k] :
			fromlog_ticks(w->fl, (uint64_t) a, (uint64_t) (a + w->slice_us));
		w->total_ticks += w->ticks[k];
	}
	if (w->total_ticks <= 0)
	{
		/* no health records: the lines' ticks, or the raw rows' distinct times */
		memcpy(w->ticks, line_ticks, (size_t) w->nslices * sizeof(double));
		for (int k = 0; k < w->nslices; k++)
			w->total_ticks += w->ticks[k];
	}
	free(line_ticks);
	free(lines);
	for (size_t i = 0; i < w->n; i++)
	{
		w->samples += w->e[i].samples;
		w->e[i].t_us = (uint64_t) bl_slice_of(w, w->e[i].t_us);
	}
}

/* ---------------------------------------------------------------- estimates */

/* Does the event (type, event) fall under limit l? */
static bool
limit_matches(const waits_limit *l, const wprof_key *e)
{
	const char *type = e->type ? e->type : "";
	const char *event = e->event ? e->event : "";

	if (l->total)
		return true;
	if (l->either)
		return strcmp(type, l->type) == 0 || strcmp(event, l->type) == 0;
	return strcmp(type, l->type) == 0 && strcmp(event, l->event) == 0;
}

/*
 * Where window side's estimate of row k goes: k a key, nrows the total,
 * nrows + 1 + l limit l.
 */
static keydiff_est *
est_of(baseline *b, int side, int k)
{
	keydiff_row *r = k < b->nrows ? &b->rows[k] : k == b->nrows ? &b->total :
		&b->limits[k - b->nrows - 1];

	if (side >= 2)
		return &b->more[(size_t) (side - 2) * (size_t) (b->nrows + 1 + b->s->nfail_if) +
						(size_t) k];
	return side == 0 ? &r->base : &r->new;
}

/*
 * The estimates of window side of keys [k0, k1), the total and the
 * limits: one pass over the entries into per-slice sums.
 */
static void
estimate_keys(baseline *b, int side, int k0, int k1, bool totals)
{
	const bl_window *w = &b->w[side];
	int			ns = w->nslices > 0 ? w->nslices : 1;
	int			nlim = b->s->nfail_if;
	double	   *y = xcalloc((size_t) (k1 - k0 + 1 + nlim) * (size_t) ns, sizeof(double));
	double	   *ytot = y + (size_t) (k1 - k0) * (size_t) ns;
	double	   *ylim = ytot + ns;

	for (size_t i = 0; i < w->n; i++)
	{
		const bl_entry *e = &w->e[i];
		int			sl = (int) e->t_us;

		if (e->key >= k0 && e->key < k1)
			y[(size_t) (e->key - k0) * (size_t) ns + (size_t) sl] += e->samples;
		if (!totals)
			continue;
		ytot[sl] += e->samples;
		for (int l = 0; l < nlim; l++)
			if (b->ev_limit[(size_t) e->ev * (size_t) nlim + (size_t) l])
				ylim[(size_t) l * (size_t) ns + (size_t) sl] += e->samples;
	}
	for (int k = k0; k < k1; k++)
		bl_series_est(w, y + (size_t) (k - k0) * (size_t) ns, est_of(b, side, k));
	if (totals)
	{
		bl_series_est(w, ytot, est_of(b, side, b->nrows));
		b->avg[side] = est_of(b, side, b->nrows)->mean;
		for (int l = 0; l < nlim; l++)
			bl_series_est(w, ylim + (size_t) l * (size_t) ns, est_of(b, side, b->nrows + 1 + l));
	}
	free(y);
}

/* The baseline windows' estimates of each row as one (keydiff_est_pool), in the rows' base. */
static void
pool_baseline(baseline *b)
{
	keydiff_est *e = xcalloc((size_t) b->nw, sizeof(keydiff_est));

	for (int k = 0; k < b->nrows + 1 + b->s->nfail_if; k++)
	{
		int			n = 0;

		for (int side = 0; side < b->nw; side++)
			if (side != 1)
				e[n++] = *est_of(b, side, k);
		*est_of(b, 0, k) = keydiff_est_pool(e, n);
	}
	free(e);
}

/* Every estimate of both windows, the changes judged as one family, the limits checked. */
static void
compare(baseline *b)
{
	int			nlim = b->s->nfail_if;
	/* the dense sums of a pass stay within some 32 MB */
	double		most = 1;
	int			chunk;

	for (int i = 0; i < b->nw; i++)
		most = fmax(most, b->w[i].nslices);
	chunk = (int) fmax(1, 4e6 / most);

	b->ev_limit = xcalloc((size_t) b->events.n * (size_t) (nlim > 0 ? nlim : 1), sizeof(bool));
	for (int e = 0; e < b->events.n; e++)
		for (int l = 0; l < nlim; l++)
			if (limit_matches(&b->s->fail_if[l], &b->events.v[e]))
			{
				b->ev_limit[(size_t) e * (size_t) nlim + (size_t) l] = true;
				b->matched[l] = true;
			}
	b->nrows = b->by_event_only ? b->events.n : b->keys.n;
	b->rows = xcalloc((size_t) (b->nrows > 0 ? b->nrows : 1), sizeof(keydiff_row));
	for (int k = 0; k < b->nrows; k++)
		b->rows[k].key = k;
	b->more = xcalloc((size_t) (b->nw - 2 > 0 ? b->nw - 2 : 1) * (size_t) (b->nrows + 1 + nlim),
					  sizeof(keydiff_est));
	for (int side = 0; side < b->nw; side++)
		for (int k0 = 0; k0 < b->nrows || k0 == 0; k0 += chunk)
			estimate_keys(b, side, k0, k0 + chunk < b->nrows ? k0 + chunk : b->nrows, k0 == 0);
	if (b->nw > 2)
		pool_baseline(b);
	b->tables[0].rows = b->rows;
	b->tables[0].n = b->nrows;
	/* every table's keys, the total, and the limits that are not the total: one family */
	b->family = 1;
	for (int t = 0; t < b->ntables; t++)
		b->family += b->tables[t].n;
	for (int l = 0; l < nlim; l++)
		b->family += !b->s->fail_if[l].total;
	for (int t = 0; t < b->ntables; t++)
	{
		keydiff_judge(b->tables[t].rows, b->tables[t].n, b->family, KEYDIFF_LEVEL);
		keydiff_sort(b->tables[t].rows, b->tables[t].n);
	}
	keydiff_judge(&b->total, 1, b->family, KEYDIFF_LEVEL);
	keydiff_judge(b->limits, nlim, b->family, KEYDIFF_LEVEL);
	for (int l = 0; l < nlim; l++)
		b->tripped[l] = baseline_limit_tripped(&b->s->fail_if[l], &b->limits[l]);
}

/* One more table to compare (its rows' estimates filled in); false if there are too many. */
static bool
add_table(baseline *b, const bl_table *t)
{
	if (b->ntables == BL_MAX_TABLES)
		return false;
	b->tables[b->ntables++] = *t;
	return true;
}

bool
baseline_limit_tripped(const waits_limit *l, const keydiff_row *r)
{
	gate_change ch = gate_change_abs(true, r->base.mean, r->change - r->bound,
									 r->change + r->bound);

	return gate_trips(&l->lim, &ch);
}

/* ---------------------------------------------------------------- the run */

static void
free_baseline(baseline *b)
{
	for (int i = 0; i < b->nw; i++)
	{
		free(b->w[i].e);
		free(b->w[i].iv);
		free(b->w[i].ticks);
	}
	for (int i = 0; i < b->nfl; i++)
		fromlog_free(b->fl[i]);
	hash_table_free(&b->keys.table);
	hash_table_free(&b->events.table);
	free(b->keys.v);
	free(b->events.v);
	free(b->rows);
	free(b->more);
	free(b->ev_limit);
	baseline_heads_free(b->heads);
	strpool_free(&b->pool);
}

/* The windows' bounds and files. */
static void
set_windows(baseline *b)
{
	const waits_settings *s = b->s;

	b->w[0].since_us = s->baseline_since_us;
	b->w[0].until_us = s->baseline_until_us;
	b->w[0].files = s->nbaseline > 0 ? s->baseline : s->from_log;
	b->w[0].nfiles = s->nbaseline > 0 ? s->nbaseline : s->nfrom_log;
	b->w[1].since_us = s->since_us;
	b->w[1].until_us = s->until_us;
	b->w[1].files = s->from_log;
	b->w[1].nfiles = s->nfrom_log;
	/* the further baseline windows: each shifted from the one before as the baseline is from the window */
	b->nw = 1 + (s->baseline_windows > 1 ? s->baseline_windows : 1);
	for (int i = 2; i < b->nw; i++)
	{
		int64_t		d = s->since_us - s->baseline_since_us;

		b->w[i] = b->w[0];
		b->w[i].since_us = b->w[i - 1 == 1 ? 0 : i - 1].since_us - d;
		b->w[i].until_us = b->w[i - 1 == 1 ? 0 : i - 1].until_us - d;
	}
	for (int d = 0; d < s->nby; d++)
		b->dims[s->by[d]] = true;
	if (s->nby == 0)
		b->dims[WPROF_DIM_EVENT] = true;
	b->by_event_only = s->nby == 0 || (s->nby == 1 && s->by[0] == WPROF_DIM_EVENT);
}

/*
 * Did a run sample in window i?  If not, there is nothing to compare
 * with, and no change to claim (a mistyped time, a service that was down).
 */
static bool
sampled(const baseline *b, int i)
{
	const bl_window *w = &b->w[i];
	uint64_t	first,
				last;
	char		a[FORMAT_TS_LEN],
				z[FORMAT_TS_LEN];

	if (w->total_ticks > 0)
		return true;
	fromlog_span(w->fl, &first, &last);
	format_ts(a, (int64_t) first);
	format_ts(z, (int64_t) last);
	if (i < 2)
		msg_error("the %s window holds no samples of its files", i == 0 ? "baseline" : "new");
	else
		msg_error("baseline window %d of %d holds no samples of its files", i, b->nw - 1);
	if (w->line_us > 0)
		msg_detail("Its files hold runs from %s to %s, in profile lines of %g s, each counted "
				   "where its middle falls.", a, z, (double) w->line_us / 1e6);
	else
		msg_detail("Its files hold runs from %s to %s.", a, z);
	return false;
}

/* Say which limits name nothing in either window. */
static void
warn_unmatched(const baseline *b)
{
	for (int l = 0; l < b->s->nfail_if; l++)
		if (!b->matched[l])
			msg_warning("--fail-if=%s: no event of either window matches \"%s\"",
						b->s->fail_if[l].lim.text, b->s->fail_if[l].type);
}

int
baseline_run(const waits_settings *s)
{
	baseline	b;
	bl_table	tb;
	char	   *cause = NULL;
	bool		ok;
	int			status = EXITCODE_OK;

	memset(&b, 0, sizeof(b));
	b.s = s;
	b.all_read = true;
	strpool_init(&b.pool);
	hash_table_init(&b.keys.table, sizeof(bl_keycell), 64);
	hash_table_init(&b.events.table, sizeof(bl_keycell), 64);
	set_windows(&b);
	b.heads = baseline_heads_new();
	if (s->nbaseline == 0)
		ok = read_windows(&b, s->from_log, s->nfrom_log, (1u << b.nw) - 1);
	else
		ok = read_windows(&b, s->baseline, s->nbaseline, ((1u << b.nw) - 1) & ~2u) &&
			read_windows(&b, s->from_log, s->nfrom_log, 2u);
	for (int i = 0; i < b.nw && ok; i++)
		if (b.w[i].raw && b.w[i].niv > 0)
		{
			/* a slice is whole profile lines or a length of raw rows: not both */
			msg_error("the %s window holds both raw rows and --log-interval profile lines",
					  i == 1 ? "new" : "baseline");
			msg_detail("Compare files of one kind: %s.", i != 1 && s->nbaseline > 0 ?
					   "give --baseline the files of one" : "give the files of one");
			ok = false;
		}
	if (!ok)
	{
		free_baseline(&b);
		return EXITCODE_ERROR;
	}
	for (int i = 0; i < b.nw; i++)
		make_slices(&b.w[i]);
	tb = baselineout_event_table(&b);
	add_table(&b, &tb);
	for (int i = 0; i < b.nw; i++)
		if (!sampled(&b, i))
		{
			free_baseline(&b);
			return EXITCODE_ERROR;
		}
	if (baseline_heads_table(&b, &tb))
		add_table(&b, &tb);
	compare(&b);
	for (int l = 0; l < s->nfail_if; l++)
		if (b.tripped[l])
			status = EXITCODE_LIMIT;
	if (s->json)
		baseline_json(stdout, &b, status);
	else
		baseline_text(stdout, &b);
	ok = msg_flush_stdout();
	if (!baseline_json_file(&b, status))
		ok = false;
	warn_unmatched(&b);
	if (s->chart_path != NULL && !baseline_chart(s->chart_path, &b, &cause))
	{
		msg_error("%s", cause);
		free(cause);
		ok = false;
	}
	free_baseline(&b);
	/* --keep-going compared what could be read: still an error (a limit's 3 says more) */
	if (ok && !b.all_read && status == EXITCODE_OK)
		status = EXITCODE_ERROR;
	return ok ? status : EXITCODE_ERROR;
}
