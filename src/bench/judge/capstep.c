/*
 * capstep.c — one step of --capacity: a run at one rate, its objectives'
 * percentiles with their bootstrap intervals, its lag trend, its verdict.
 */
#include "config.h"

#include "capacity_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/exitcode.h"
#include "pgtempo/infer.h"
#include "pgtempo/xalloc.h"
#include "run/runner.h"

/* The value of objective o in a histogram of ncols columns (bucket cols[k]): seconds. */
static double
hist_value(const gate_limit *o, const uint32_t *cols, const uint64_t *acc, int ncols,
		   uint64_t total, double lat_sum_ns)
{
	uint64_t	want,
				seen = 0;
	double		p;

	if (total == 0)
		return NAN;
	if (strcmp(o->name, "avg") == 0)
		return lat_sum_ns / (double) total / 1e9;
	p = strtod(o->name + 1, NULL);
	want = (uint64_t) ceil(p / 100 * (double) total);
	if (want == 0)
		want = 1;
	for (int k = 0; k < ncols; k++)
	{
		seen += acc[k];
		if (seen >= want)
			return ((double) hist_bucket_low((int) cols[k]) +
					(double) hist_bucket_high((int) cols[k])) / 2 / 1e9;
	}
	return NAN;
}

/* A step's one-second histograms as dense rows over the buckets any of them uses. */
typedef struct step_matrix
{
	int			n;				/* seconds */
	int			ncols;			/* buckets used */
	uint32_t   *cols;			/* their bucket numbers */
	uint64_t   *rows;			/* n x ncols counts */
	uint64_t   *tot;			/* each second's count */
	double	   *lat;			/* each second's latency sum (ns) */
} step_matrix;

/* Fill m from the series' rows (n >= 1); a row that does not decode counts nothing. */
static void
step_matrix_build(step_matrix *m, const series *sr)
{
	int			n = sr->nrows;
	int		   *col = xmalloc(sizeof(int) * HIST_BUCKETS);

	memset(m, 0, sizeof(*m));
	m->n = n;
	memset(col, -1, sizeof(int) * HIST_BUCKETS);
	for (int pass = 0; pass < 2; pass++)
	{
		if (pass == 1)
		{
			/* the buckets seen, in order, and each one's column */
			m->cols = xcalloc(HIST_BUCKETS, sizeof(uint32_t));
			for (int i = 0; i < HIST_BUCKETS; i++)
				if (col[i] == 0)
				{
					m->cols[m->ncols] = (uint32_t) i;
					col[i] = m->ncols++;
				}
			m->rows = xcalloc((size_t) n * (size_t) (m->ncols + 1), sizeof(uint64_t));
			m->tot = xcalloc((size_t) n, sizeof(uint64_t));
			m->lat = xcalloc((size_t) n, sizeof(double));
		}
		for (int r = 0; r < n; r++)
		{
			series_sparse sp;
			char	   *cause = NULL;

			if (pass == 1)
				m->lat[r] = sr->rows[r].cells[0].latency_sum_ns;
			if (!series_sparse_decode(sr->rows[r].cells[0].hist_text, &sp, &cause))
			{
				free(cause);
				continue;
			}
			for (int i = 0; i < sp.nb; i++)
			{
				if (pass == 0)
					col[sp.idx[i]] = 0;
				else
				{
					m->rows[(size_t) r * m->ncols + col[sp.idx[i]]] += sp.cnt[i];
					m->tot[r] += sp.cnt[i];
				}
			}
			series_sparse_free(&sp);
		}
	}
	free(col);
}

static void
step_matrix_free(step_matrix *m)
{
	free(m->cols);
	free(m->rows);
	free(m->tot);
	free(m->lat);
}

/* Add second r of m to the running counts acc, *total and *sum. */
static void
step_matrix_add(const step_matrix *m, int r, uint64_t *acc, uint64_t *total, double *sum)
{
	for (int k = 0; k < m->ncols; k++)
		acc[k] += m->rows[(size_t) r * m->ncols + k];
	*total += m->tot[r];
	*sum += m->lat[r];
}

/*
 * The objectives' values over the step's one-second histograms, and their
 * intervals: a circular block bootstrap of the seconds (as --compare's),
 * at the level that holds for all objectives at once.
 */
static void
step_values(const cap_search *cs, const series *sr, cap_step *st)
{
	int			nobj = cs->c->nobjectives;
	step_matrix m;
	uint64_t   *acc;
	double	   *boot;
	int			len,
				nblocks,
			   *starts;
	infer_rng	rng;
	double		level = gate_level(GATE_LEVEL, nobj);

	for (int i = 0; i < nobj; i++)
		st->v[i].known = false;
	if (sr->nrows < 3)
		return;
	step_matrix_build(&m, sr);
	acc = xcalloc((size_t) m.ncols + 1, sizeof(uint64_t));

	/* the whole step */
	{
		uint64_t	total = 0;
		double		sum = 0;

		for (int r = 0; r < m.n; r++)
			step_matrix_add(&m, r, acc, &total, &sum);
		for (int i = 0; i < nobj; i++)
			st->v[i].est = hist_value(&cs->c->objectives[i], m.cols, acc, m.ncols, total, sum);
	}

	len = infer_block_length(m.n);
	nblocks = infer_block_count(m.n, len);
	starts = xcalloc((size_t) nblocks, sizeof(int));
	boot = xcalloc((size_t) nobj * CAP_RESAMPLES, sizeof(double));
	infer_rng_seed(&rng, CAP_SEED);
	for (int b = 0; b < CAP_RESAMPLES; b++)
	{
		uint64_t	total = 0;
		double		sum = 0;
		int			taken = 0;

		memset(acc, 0, sizeof(uint64_t) * (size_t) m.ncols);
		infer_block_starts(&rng, m.n, nblocks, starts);
		for (int k = 0; k < nblocks && taken < m.n; k++)
			for (int j = 0; j < len && taken < m.n; j++, taken++)
				step_matrix_add(&m, (starts[k] + j) % m.n, acc, &total, &sum);
		for (int i = 0; i < nobj; i++)
			boot[(size_t) i * CAP_RESAMPLES + b] =
				hist_value(&cs->c->objectives[i], m.cols, acc, m.ncols, total, sum);
	}
	for (int i = 0; i < nobj; i++)
	{
		double	   *v = &boot[(size_t) i * CAP_RESAMPLES];
		int			k = 0;

		for (int b = 0; b < CAP_RESAMPLES; b++)
			if (isfinite(v[b]))
				v[k++] = v[b];
		if (k < CAP_RESAMPLES / 2 || !isfinite(st->v[i].est))
			continue;
		st->v[i].lo = infer_quantile(v, k, (1 - level) / 2);
		st->v[i].hi = infer_quantile(v, k, 1 - (1 - level) / 2);
		st->v[i].known = true;
	}
	free(starts);
	free(boot);
	free(acc);
	step_matrix_free(&m);
}

/*
 * Whether the schedule lag grows across the step: the least-squares slope
 * of the per-second lag against time, its lower 95 % bound (t with n - 2
 * degrees of freedom) times the step's span against limit_ms.  A lag that
 * falls by more than limit_ms (the upper bound below -limit_ms) is no
 * steady state either: a backlog from a stall (of the host, or before the
 * measured part began) drains, and the step's percentiles hold the stall.
 */
void
cap_step_lag(const bench_results *res, double limit_ms, cap_step *st)
{
	int			n = res->nprogress;
	double		mt = 0,
				ml = 0,
				sxx = 0,
				sxy = 0,
				sse = 0,
				span,
				b,
				se;

	st->lag_known = false;
	st->steady = true;
	st->draining = false;
	if (n < 4)
		return;
	for (int i = 0; i < n; i++)
	{
		mt += res->progress[i].elapsed_s / n;
		ml += res->progress[i].lag_ms / n;
	}
	for (int i = 0; i < n; i++)
	{
		double		dt = res->progress[i].elapsed_s - mt;

		sxx += dt * dt;
		sxy += dt * (res->progress[i].lag_ms - ml);
	}
	if (!(sxx > 0))
		return;
	b = sxy / sxx;
	for (int i = 0; i < n; i++)
	{
		double		e = res->progress[i].lag_ms - ml - b * (res->progress[i].elapsed_s - mt);

		sse += e * e;
	}
	se = sqrt(sse / (n - 2) / sxx);
	span = res->progress[n - 1].elapsed_s - res->progress[0].elapsed_s + res->progress[0].interval_s;
	st->lag_known = true;
	st->lag_slope = b;
	st->lag_growth_lo = (b - infer_t_quantile(0.95, n - 2) * se) * span;
	st->draining = (b + infer_t_quantile(0.95, n - 2) * se) * span < -limit_ms;
	st->steady = !(st->lag_growth_lo > limit_ms) && !st->draining;
}

/* The smallest target of the objectives, ms. */
static double
smallest_target_ms(const capacity_settings *c)
{
	double		m = INFINITY;

	for (int i = 0; i < c->nobjectives; i++)
		m = fmin(m, c->objectives[i].value * 1e3);
	return m;
}

/* Judge a step: the objectives' intervals, then the steady state; say why it failed. */
void
cap_judge_step(const capacity_settings *c, cap_step *st)
{
	strbuf		why;
	char	   *w;

	strbuf_init(&why);
	st->met = true;
	for (int i = 0; i < c->nobjectives; i++)
	{
		const gate_limit *o = &c->objectives[i];

		if (!st->v[i].known)
		{
			st->met = false;
			strbuf_printf(&why, "%s%s unknown (too few transactions)", why.len ? "; " : "", o->name);
		}
		else if (!(st->v[i].hi < o->value))
		{
			st->met = false;
			strbuf_printf(&why, "%s%s up to %.3f ms", why.len ? "; " : "", o->name, st->v[i].hi * 1e3);
		}
	}
	if (st->draining)
		strbuf_printf(&why, "%slag falls %.1f ms/s (a backlog drains)", why.len ? "; " : "",
					  -st->lag_slope);
	else if (!st->steady)
		strbuf_printf(&why, "%slag grows %.1f ms/s", why.len ? "; " : "", st->lag_slope);
	if (st->failed > 0)
		strbuf_printf(&why, "%s%lld failed", why.len ? "; " : "", (long long) st->failed);
	st->pass = st->met && st->steady && st->failed == 0;
	/* no objective shown above its target either: each interval's lower end is below it */
	st->inconclusive = !st->met && st->steady && st->failed == 0;
	for (int i = 0; i < c->nobjectives; i++)
		if (!st->v[i].known || !(st->v[i].lo < c->objectives[i].value))
			st->inconclusive = false;
	w = strbuf_detach(&why);
	snprintf(st->why, sizeof(st->why), "%s", w);
	free(w);
}

/* Add a run's overall series to the pool of its rate (a new rate starts a new pool). */
static void
pool_add(cap_search *cs, double rate, const series *sr)
{
	if (rate != cs->pool_rate || cs->pool.interval_s == 0 || cs->pool_drop)
	{
		series_free(&cs->pool);
		series_init(&cs->pool, 1, 1);
		cs->pool_rate = rate;
		cs->pool_runs = 0;
		cs->pool_drop = false;
	}
	cs->pool_runs++;
	for (int r = 0; r < sr->nrows; r++)
	{
		const series_row *from = &sr->rows[r];
		series_row *to = series_add_row(&cs->pool, from->time_s, from->epoch_s, from->interval_s);

		to->cells[0] = from->cells[0];
		to->cells[0].hist_text = xstrdup(from->cells[0].hist_text != NULL ? from->cells[0].hist_text : "");
	}
}

void
cap_step_settings(const cap_search *cs, double rate, int measure_s, int warm_max, bool first,
				  bench_settings *s)
{
	*s = *cs->s;
	s->rate = rate;
	s->duration = measure_s;
	s->warmup = rate > 0 ? WARMUP_AUTO : WARMUP_NONE;
	s->warmup_s = rate > 0 ? warm_max : 0;
	/* the runner keeps the one-second series and lag points for "-"; nothing is written */
	s->json_path = "-";
	s->chart_path = NULL;		/* the search's chart is drawn from the steps */
	s->progress = 1;
	s->progress_quiet = true;
	s->progress_timestamp = false;
	s->progress_percentiles = false;
	/* the tables are vacuumed once, before the first step */
	if (!first)
	{
		s->no_vacuum = true;
		s->vacuum_all = false;
		s->start_at_epoch_s = 0;
	}
}

void
cap_measure_step(const cap_search *cs, const series *sr, const bench_results *lag, cap_step *st)
{
	double		secs = 0;

	st->transactions = 0;
	st->failed = 0;
	for (int r = 0; r < sr->nrows; r++)
	{
		st->transactions += sr->rows[r].cells[0].transactions;
		st->failed += sr->rows[r].cells[0].failed;
		secs += sr->rows[r].interval_s;
	}
	st->measured_s = secs;
	st->tps = secs > 0 ? (double) st->transactions / secs : 0;
	step_values(cs, sr, st);
	cap_step_lag(lag, CAP_LAG_FRACTION * smallest_target_ms(cs->c), st);
	cap_judge_step(cs->c, st);
}

/*
 * Run one step: open loop at rate with --warmup=auto:warm_max, or the
 * closed-loop probe (rate 0, no warm-up); measure_s seconds measured.
 * False if it could not start (the cause was printed) or was stopped.
 */
bool
cap_run_step(cap_search *cs, double rate, int measure_s, int warm_max, cap_step *st)
{
	bench_settings s;
	bench_results res;

	memset(st, 0, sizeof(*st));
	st->rate = rate;
	cap_step_settings(cs, rate, measure_s, warm_max, st == &cs->steps[0], &s);
	if (!runner_run(&s, &res))
	{
		cs->status = EXITCODE_ERROR;
		return false;
	}
	pool_add(cs, rate, &res.series);
	st->runs = cs->pool_runs;
	cap_measure_step(cs, &cs->pool, &res, st);
	cap_run_status(cs, &res);
	runner_end(&s, &res);
	return cs->status == 0;
}

void
cap_run_status(cap_search *cs, const bench_results *res)
{
	if (res->stop_signal != 0)
		cs->status = EXITCODE_SIGNAL(res->stop_signal);
	else if (res->client_aborted || res->abandoned > 0 || res->setup_failed)
		cs->status = EXITCODE_RUN_FAILED;
}
