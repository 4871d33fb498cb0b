/*
 * capacity.c — --capacity: the search (capacity.h says what it does), its
 * steps' judging, and its report (text and --json).
 */
#include "config.h"

#include "capacity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/clock.h"
#include "pgtempo/exitcode.h"
#include "pgtempo/infer.h"
#include "pgtempo/json.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"
#include "results/results.h"
#include "run/runner.h"

#define CAP_MAX_STEPS	64
#define CAP_RESAMPLES	1000
#define CAP_SEED		UINT64_C(20261202)
/* the closed-loop probe's length, and the steps' measured length, bounds in seconds */
#define CAP_PROBE_MIN_S	2
#define CAP_PROBE_MAX_S	5
#define CAP_STEP_MIN_S	5
#define CAP_STEP_MAX_S	30
/* the lowest rate tried, as a fraction of the probe's ceiling */
#define CAP_MIN_FRACTION (1.0 / 64)
/* lag growth across a step that counts as "not steady": this fraction of the smallest target */
#define CAP_LAG_FRACTION 0.10
/* a rate whose interval holds the target is measured again, pooled, at most this often */
#define CAP_MAX_REPEATS	2

/* One objective's percentile in a step, with its interval (seconds). */
typedef struct cap_value
{
	bool		known;
	double		est,
				lo,
				hi;
} cap_value;

/* One step of the search. */
typedef struct cap_step
{
	double		rate;			/* offered; 0: the closed-loop probe */
	double		tps;			/* achieved, over the measured part */
	double		measured_s;
	int64_t		transactions;
	int64_t		failed;
	cap_value	v[GATE_MAX_LIMITS];
	bool		lag_known;
	double		lag_slope;		/* ms per s */
	double		lag_growth_lo;	/* the lower 95 % bound of the growth across the step, ms */
	bool		steady;
	bool		met;			/* every objective's interval below its target */
	bool		inconclusive;	/* not met, but no estimate is above its target */
	int			runs;			/* the runs at this rate pooled into the step */
	bool		again;			/* inconclusive: the next step measures its rate again */
	bool		pass;
	char		why[160];
} cap_step;

typedef struct cap_search
{
	const bench_settings *s;
	const capacity_settings *c;
	cap_step	steps[CAP_MAX_STEPS];
	int			nsteps;
	double		ceiling;		/* the probe's tps */
	double		lo,
				hi;				/* the bracket: highest passing, lowest failing (hi: 0 none) */
	bool		hi_tested;		/* hi failed a step (else it is the probe's ceiling) */
	const char *stop_why;
	int			status;			/* of the runs: 0, 2, or 128 + N */
	double		used_s;
	series		pool;			/* the one-second series of the runs at pool_rate */
	double		pool_rate;
	int			pool_runs;
} cap_search;

/* What an objective is, for the messages of --capacity. */
static const char objective_help[] =
"an objective is an upper limit on a percentile or the average, as p99<10ms or avg<5ms";

/* What --fail-if's limit is outside --compare. */
static const char floor_help[] =
"outside --compare the limit is capacity:<N (transactions per second)";

/* The objective's name as it is kept: "p99", "p99.9" or "avg". */
static bool
objective_name_ok(gate_limit *l, const char **why)
{
	const char *n = l->name;
	char	   *end;
	double		p;

	*why = objective_help;
	if (strncmp(n, "latency:", 8) == 0)
		memmove(l->name, n + 8, strlen(n + 8) + 1);
	if (l->above || l->unit != GATE_UNIT_TIME || !(l->value > 0))
		return false;
	if (strcmp(l->name, "avg") == 0 || strcmp(l->name, "average") == 0)
	{
		strcpy(l->name, "avg");
		return true;
	}
	if (l->name[0] != 'p' || l->name[1] == '\0')
		return false;
	p = strtod(l->name + 1, &end);
	return *end == '\0' && p > 0 && p < 100;
}

bool
capacity_parse_objectives(capacity_settings *c, const char *arg)
{
	static const gate_spec spec = {
		"--capacity", GATE_UNIT_TIME, "p99<10ms,avg<2ms", objective_help, objective_name_ok
	};

	c->wanted = true;
	return gate_parse_report(arg, &spec, c->objectives, &c->nobjectives);
}

bool
capacity_parse_resolution(capacity_settings *c, const char *arg)
{
	char	   *end;
	double		v = strtod(arg, &end);

	if (end != arg && strcmp(end, "%") == 0)
		end++;
	if (end == arg || *end != '\0' || !(v >= 0.1 && v <= 100))
	{
		msg_error("invalid value \"%s\" for option --capacity-resolution: a percentage from 0.1 to 100",
				  arg);
		return false;
	}
	c->resolution = v / 100;
	return true;
}

/* --fail-if's name outside --compare: capacity, below a rate. */
static bool
floor_name_ok(gate_limit *l, const char **why)
{
	*why = floor_help;
	return strcmp(l->name, "capacity") == 0 && !l->above && l->value > 0;
}

bool
capacity_parse_fail_if(capacity_settings *c, const char *arg)
{
	static const gate_spec spec = {
		"--fail-if", GATE_UNIT_NONE, "capacity:<1500", floor_help, floor_name_ok
	};
	int			n;
	gate_limit	l[GATE_MAX_LIMITS];

	if (!gate_parse_report(arg, &spec, l, &n))
		return false;
	if (n != 1)
	{
		msg_error("invalid value \"%s\" for option --fail-if: one limit, as in \"capacity:<1500\"",
				  arg);
		return false;
	}
	c->floor = l[0];
	c->has_floor = true;
	return true;
}

bool
capacity_check(const capacity_settings *c, const bench_settings *s)
{
	const char *bad = NULL;

	if (!c->wanted)
	{
		if (c->resolution > 0 || c->has_floor)
		{
			msg_error("%s needs --capacity", c->has_floor ? "--fail-if" : "--capacity-resolution");
			return false;
		}
		return true;
	}
	if (s->duration <= 0 || s->transactions > 0)
		bad = "a duration (-T, the whole search's budget), not -t";
	else if (s->rate > 0)
		bad = "no -R (it chooses the rates)";
	else if (s->warmup != WARMUP_NONE)
		bad = "no --warmup (each step leaves its own out)";
	else if (s->use_log || s->chart_path != NULL || s->hist_path != NULL || s->metrics_path != NULL)
		bad = "no -l, --chart, --latency-histogram or --metrics";
	else if (s->latency_limit_ns > 0 || s->dry_run || s->waits_ns > 0 || s->is_connect)
		bad = "no -L, -C, --waits or --dry-run";
	else if (s->duration < 30)
		bad = "a budget (-T) of at least 30 seconds";
	if (bad == NULL)
		return true;
	msg_error("--capacity needs %s", bad);
	return false;
}

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
 * degrees of freedom) times the step's span against limit_ms.
 */
static void
step_lag(const bench_results *res, double limit_ms, cap_step *st)
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
	st->steady = !(st->lag_growth_lo > limit_ms);
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
static void
step_judge(const cap_search *cs, cap_step *st)
{
	strbuf		why;
	char	   *w;

	strbuf_init(&why);
	st->met = true;
	for (int i = 0; i < cs->c->nobjectives; i++)
	{
		const gate_limit *o = &cs->c->objectives[i];

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
	if (!st->steady)
		strbuf_printf(&why, "%slag grows %.1f ms/s", why.len ? "; " : "", st->lag_slope);
	if (st->failed > 0)
		strbuf_printf(&why, "%s%lld failed", why.len ? "; " : "", (long long) st->failed);
	st->pass = st->met && st->steady && st->failed == 0;
	st->inconclusive = !st->met && st->steady && st->failed == 0;
	for (int i = 0; i < cs->c->nobjectives; i++)
		if (!st->v[i].known || !(st->v[i].est < cs->c->objectives[i].value))
			st->inconclusive = false;
	w = strbuf_detach(&why);
	snprintf(st->why, sizeof(st->why), "%s", w);
	free(w);
}

/* Add a run's overall series to the pool of its rate (a new rate starts a new pool). */
static void
pool_add(cap_search *cs, double rate, const series *sr)
{
	if (rate != cs->pool_rate || cs->pool.interval_s == 0)
	{
		series_free(&cs->pool);
		series_init(&cs->pool, 1, 1);
		cs->pool_rate = rate;
		cs->pool_runs = 0;
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

/*
 * Run one step: open loop at rate with --warmup=auto:warm_max, or the
 * closed-loop probe (rate 0, no warm-up); measure_s seconds measured.
 * False if it could not start (the cause was printed) or was stopped.
 */
static bool
run_step(cap_search *cs, double rate, int measure_s, int warm_max, cap_step *st)
{
	bench_settings s = *cs->s;
	bench_results res;
	double		secs = 0;

	memset(st, 0, sizeof(*st));
	st->rate = rate;
	s.rate = rate;
	s.duration = measure_s;
	s.warmup = rate > 0 ? WARMUP_AUTO : WARMUP_NONE;
	s.warmup_s = rate > 0 ? warm_max : 0;
	/* the runner keeps the one-second series and lag points for "-"; nothing is written */
	s.json_path = "-";
	s.progress = 1;
	s.progress_quiet = true;
	s.progress_timestamp = false;
	s.progress_percentiles = false;
	/* the tables are vacuumed once, before the probe */
	if (st != &cs->steps[0])
	{
		s.no_vacuum = true;
		s.vacuum_all = false;
		s.start_at_epoch_s = 0;
	}
	if (!runner_run(&s, &res))
	{
		cs->status = EXITCODE_ERROR;
		return false;
	}
	pool_add(cs, rate, &res.series);
	st->runs = cs->pool_runs;
	for (int r = 0; r < cs->pool.nrows; r++)
	{
		st->transactions += cs->pool.rows[r].cells[0].transactions;
		st->failed += cs->pool.rows[r].cells[0].failed;
		secs += cs->pool.rows[r].interval_s;
	}
	st->measured_s = secs;
	st->tps = secs > 0 ? (double) st->transactions / secs : 0;
	step_values(cs, &cs->pool, st);
	step_lag(&res, CAP_LAG_FRACTION * smallest_target_ms(cs->c), st);
	step_judge(cs, st);
	if (res.stop_signal != 0)
		cs->status = EXITCODE_SIGNAL(res.stop_signal);
	else if (res.client_aborted || res.abandoned > 0 || res.setup_failed)
		cs->status = EXITCODE_RUN_FAILED;
	runner_end(&s, &res);
	return cs->status == 0;
}

/* Seconds left of the budget. */
static double
left_s(const cap_search *cs, uint64_t start)
{
	return cs->s->duration - (double) (clock_now_ns() - start) / 1e9;
}

/* The -P line at a step's start. */
static void
progress_start(const cap_search *cs, double rate, double left)
{
	if (cs->s->progress <= 0)
		return;
	if (rate == 0)
		fprintf(stderr, "capacity: probe: closed loop with %d clients, %.0f s of %d s left\n",
				cs->s->nclients, left, cs->s->duration);
	else
		fprintf(stderr, "capacity: step %d: %.1f tps offered, bracket %.1f-%.1f tps, %.0f s of %d s left\n",
				cs->nsteps, rate, cs->lo, cs->hi, left, cs->s->duration);
}

/* The -P line at a step's end. */
static void
progress_end(const cap_search *cs, const cap_step *st)
{
	if (cs->s->progress <= 0)
		return;
	if (st->rate == 0)
		fprintf(stderr, "capacity: probe: %.1f tps\n", st->tps);
	else
		fprintf(stderr, "capacity: step %d: %.1f tps achieved: %s%s%s\n", cs->nsteps - 1, st->tps,
				st->pass ? "pass" : "fail", st->why[0] ? ": " : "", st->why);
}

/* The search: probe, bracket, bisect. */
static void
search(cap_search *cs)
{
	uint64_t	start = clock_now_ns();
	int			T = cs->s->duration;
	int			probe_s = T / 20 < CAP_PROBE_MIN_S ? CAP_PROBE_MIN_S :
		T / 20 > CAP_PROBE_MAX_S ? CAP_PROBE_MAX_S : T / 20;
	int			step_s = T / 10 < CAP_STEP_MIN_S ? CAP_STEP_MIN_S :
		T / 10 > CAP_STEP_MAX_S ? CAP_STEP_MAX_S : T / 10;
	int			warm_max = step_s / 2 < WARMUP_AUTO_WINDOW ? WARMUP_AUTO_WINDOW : step_s / 2;
	double		resolution = cs->c->resolution > 0 ? cs->c->resolution : CAPACITY_RESOLUTION;
	double		rate;

	cs->stop_why = "the budget (-T) ran out";
	progress_start(cs, 0, left_s(cs, start));
	if (!run_step(cs, 0, probe_s, 0, &cs->steps[cs->nsteps++]))
		return;
	progress_end(cs, &cs->steps[0]);
	cs->ceiling = cs->steps[0].tps;
	if (!(cs->ceiling > 0))
	{
		cs->stop_why = "the probe ran no transaction";
		return;
	}
	cs->lo = 0;
	cs->hi = cs->ceiling;
	rate = cs->ceiling / 2;
	for (;;)
	{
		cap_step   *st;

		/* a step needs its warm-up (at most), its measured part and a second to connect */
		if (left_s(cs, start) < step_s + warm_max + 1 || cs->nsteps == CAP_MAX_STEPS)
			break;
		progress_start(cs, rate, left_s(cs, start));
		st = &cs->steps[cs->nsteps++];
		if (!run_step(cs, rate, step_s, warm_max, st))
			break;
		progress_end(cs, st);
		if (st->inconclusive && st->runs <= CAP_MAX_REPEATS)
		{
			/* the interval holds the target: more of the same rate, pooled, narrows it */
			snprintf(st->why + strlen(st->why), sizeof(st->why) - strlen(st->why),
					 "; holds the target: measured again");
			st->again = true;
			continue;
		}
		if (st->pass)
			cs->lo = rate;
		else
		{
			cs->hi = rate;
			cs->hi_tested = true;
		}
		if (cs->lo > 0 && cs->hi / cs->lo - 1 <= resolution)
		{
			cs->stop_why = "the bracket is within the resolution";
			break;
		}
		if (cs->lo == 0)
		{
			if (rate / 2 < cs->ceiling * CAP_MIN_FRACTION)
			{
				cs->stop_why = "no rate down to 1/64 of the probe's ceiling passed";
				break;
			}
			rate = rate / 2;
		}
		else
			rate = sqrt(cs->lo * cs->hi);
	}
	cs->used_s = (double) (clock_now_ns() - start) / 1e9;
}

/*
 * The knee: the first rate (in offered order) at which the first
 * objective's percentile is more than twice its value at the lowest rate
 * tried, with the rate below it; false when none is.
 */
static bool
find_knee(const cap_search *cs, double *below, double *at)
{
	int			order[CAP_MAX_STEPS];
	int			n = 0;
	double		base;

	for (int i = 1; i < cs->nsteps; i++)
		if (cs->steps[i].v[0].known)
			order[n++] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && cs->steps[order[j]].rate < cs->steps[order[j - 1]].rate; j--)
		{
			int			t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	if (n < 2)
		return false;
	base = cs->steps[order[0]].v[0].est;
	for (int i = 1; i < n; i++)
		if (cs->steps[order[i]].v[0].est > 2 * base)
		{
			*below = cs->steps[order[i - 1]].rate;
			*at = cs->steps[order[i]].rate;
			return true;
		}
	return false;
}

/* The objectives as given, joined by commas. */
static void
objectives_text(const capacity_settings *c, char *buf, size_t len)
{
	size_t		used = 0;

	buf[0] = '\0';
	for (int i = 0; i < c->nobjectives && used < len; i++)
		used += (size_t) snprintf(buf + used, len - used, "%s%s", i ? "," : "", c->objectives[i].text);
}

/* The text report (stdout, or stderr when --json takes stdout). */
static void
print_report(FILE *out, const cap_search *cs, bool tripped)
{
	const capacity_settings *c = cs->c;
	char		objs[512];
	double		kb,
				ka;

	objectives_text(c, objs, sizeof(objs));
	fprintf(out, "capacity search: %s, resolution %.1f %%, budget %d s (used %.0f s), %d clients\n",
			objs, 100 * (c->resolution > 0 ? c->resolution : CAPACITY_RESOLUTION),
			cs->s->duration, cs->used_s, cs->s->nclients);
	if (cs->nsteps > 0)
		fprintf(out, "closed-loop probe: %.1f tps (the ceiling)\n", cs->steps[0].tps);
	fprintf(out, "%4s %12s %12s", "step", "offered tps", "achieved tps");
	for (int i = 0; i < c->nobjectives; i++)
	{
		char		h[64];

		snprintf(h, sizeof(h), "%s ms [95%% interval]", c->objectives[i].name);
		fprintf(out, " %-26s", h);
	}
	fprintf(out, " %12s %7s  %s\n", "lag ms/s", "verdict", "why");
	for (int k = 1; k < cs->nsteps; k++)
	{
		const cap_step *st = &cs->steps[k];

		fprintf(out, "%4d %12.1f %12.1f", k, st->rate, st->tps);
		for (int i = 0; i < c->nobjectives; i++)
		{
			char		v[64];

			if (st->v[i].known)
				snprintf(v, sizeof(v), "%.3f [%.3f, %.3f]", st->v[i].est * 1e3, st->v[i].lo * 1e3,
						 st->v[i].hi * 1e3);
			else
				snprintf(v, sizeof(v), "unknown");
			fprintf(out, " %-26s", v);
		}
		if (st->lag_known)
			fprintf(out, " %12.3f", st->lag_slope);
		else
			fprintf(out, " %12s", "unknown");
		fprintf(out, " %7s  %s\n", st->pass ? "pass" : st->again ? "again" : "fail", st->why);
	}
	if (cs->lo > 0)
		fprintf(out, "capacity: %.1f tps at %s (bracket %.1f-%.1f tps, %.1f %% wide%s)\n", cs->lo, objs,
				cs->lo, cs->hi, 100 * (cs->hi / cs->lo - 1),
				cs->hi_tested ? "" : "; its upper end is the probe's ceiling");
	else
		fprintf(out, "capacity: below %.1f tps at %s (no rate tried passed)\n", cs->hi, objs);
	if (find_knee(cs, &kb, &ka))
		fprintf(out, "knee: between %.1f and %.1f tps (%s more than doubles from the lowest rate tried)\n",
				kb, ka, c->objectives[0].name);
	else
		fprintf(out, "knee: not seen (%s stays within twice its value at the lowest rate tried)\n",
				c->objectives[0].name);
	fprintf(out, "search stopped: %s\n", cs->stop_why);
	if (c->has_floor)
		fprintf(out, "fail-if %s: %s\n", c->floor.text,
				tripped ? "the capacity's bracket lies wholly below the limit" :
				"not shown below the limit");
}

/* One step of --json's "steps". */
static void
write_json_step(json_writer *w, const capacity_settings *c, const cap_step *st)
{
	json_object_begin(w);
	json_kv_double(w, "offered_tps", st->rate);
	json_kv_double(w, "achieved_tps", st->tps);
	json_kv_double(w, "measured_s", st->measured_s);
	json_kv_int(w, "runs_pooled", st->runs);
	json_kv_int(w, "transactions", st->transactions);
	json_kv_int(w, "failed", st->failed);
	json_key(w, "objectives");
	json_array_begin(w);
	for (int i = 0; i < c->nobjectives; i++)
	{
		json_object_begin(w);
		json_kv_string(w, "metric", c->objectives[i].name);
		json_kv_double_or_null(w, "value_ms", st->v[i].known, st->v[i].est * 1e3);
		json_kv_double_or_null(w, "low_ms", st->v[i].known, st->v[i].lo * 1e3);
		json_kv_double_or_null(w, "high_ms", st->v[i].known, st->v[i].hi * 1e3);
		json_object_end(w);
	}
	json_array_end(w);
	json_kv_double_or_null(w, "lag_slope_ms_per_s", st->lag_known, st->lag_slope);
	json_kv_bool(w, "objectives_met", st->met);
	json_kv_bool(w, "steady", st->steady);
	json_kv_bool(w, "pass", st->pass);
	json_kv_bool(w, "measured_again", st->again);
	json_kv_string(w, "why", st->why);
	json_object_end(w);
}

/* --json: the search as one document. */
static bool
write_json(const char *path, const cap_search *cs, bool tripped, int status)
{
	const capacity_settings *c = cs->c;
	strbuf		sb;
	json_writer w;
	char	   *cause = NULL;
	double		kb,
				ka;
	bool		knee = find_knee(cs, &kb, &ka);
	bool		ok;

	strbuf_init(&sb);
	json_init(&w, &sb, true);
	json_object_begin(&w);
	json_kv_string(&w, "tool", "pgtempo-bench");
	json_kv_string(&w, "version", PACKAGE_VERSION);
	json_kv_string(&w, "kind", "capacity");
	json_kv_int(&w, "schema", 1);
	json_key(&w, "objectives");
	json_array_begin(&w);
	for (int i = 0; i < c->nobjectives; i++)
	{
		json_object_begin(&w);
		json_kv_string(&w, "objective", c->objectives[i].text);
		json_kv_string(&w, "metric", c->objectives[i].name);
		json_kv_double(&w, "target_ms", c->objectives[i].value * 1e3);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_kv_double(&w, "resolution_pct", 100 * (c->resolution > 0 ? c->resolution : CAPACITY_RESOLUTION));
	json_kv_int(&w, "budget_s", cs->s->duration);
	json_kv_double(&w, "used_s", cs->used_s);
	json_kv_int(&w, "clients", cs->s->nclients);
	json_kv_double(&w, "ceiling_tps", cs->ceiling);
	json_key(&w, "steps");
	json_array_begin(&w);
	for (int k = 1; k < cs->nsteps; k++)
		write_json_step(&w, c, &cs->steps[k]);
	json_array_end(&w);
	json_key(&w, "capacity");
	json_object_begin(&w);
	json_kv_double_or_null(&w, "tps", cs->lo > 0, cs->lo);
	json_kv_double_or_null(&w, "bracket_low_tps", cs->nsteps > 1, cs->lo);
	json_kv_double_or_null(&w, "bracket_high_tps", cs->nsteps > 1, cs->hi);
	json_kv_bool(&w, "high_tested", cs->hi_tested);
	json_kv_string(&w, "stopped", cs->stop_why);
	json_object_end(&w);
	json_key(&w, "knee");
	json_object_begin(&w);
	json_kv_double_or_null(&w, "below_tps", knee, kb);
	json_kv_double_or_null(&w, "at_tps", knee, ka);
	json_object_end(&w);
	if (c->has_floor)
	{
		json_key(&w, "fail_if");
		json_object_begin(&w);
		json_kv_string(&w, "limit", c->floor.text);
		json_kv_double(&w, "limit_tps", c->floor.value);
		json_kv_bool(&w, "tripped", tripped);
		json_object_end(&w);
	}
	json_kv_int(&w, "exit_status", status);
	json_object_end(&w);
	strbuf_putc(&sb, '\n');
	ok = strbuf_write_free(&sb, path, &cause);
	if (!ok)
	{
		msg_error("%s", cause);
		free(cause);
	}
	return ok;
}

int
capacity_run(const bench_settings *s, const capacity_settings *c)
{
	cap_search *cs = xcalloc(1, sizeof(cap_search));
	bool		tripped = false;
	int			status;
	FILE	   *out = report_stream(s);

	cs->s = s;
	cs->c = c;
	search(cs);
	status = cs->status;
	if (cs->nsteps < 1 || (cs->status == EXITCODE_ERROR && cs->nsteps < 2))
	{
		series_free(&cs->pool);
		free(cs);
		return EXITCODE_ERROR;
	}
	if (c->has_floor && cs->nsteps > 1)
	{
		gate_change ch = {true, cs->lo, cs->hi, 0, 0};

		tripped = gate_trips(&c->floor, &ch);
	}
	if (status == 0 && tripped)
		status = EXITCODE_LIMIT;
	print_report(out, cs, tripped);
	fflush(out);
	if (s->json_path != NULL && !write_json(s->json_path, cs, tripped, status) && status == 0)
		status = EXITCODE_ERROR;
	series_free(&cs->pool);
	free(cs);
	return status;
}
