/*
 * capsweep.c — --sweep: its options, its plan run step by step on the
 * plan's clock, its bracket, and what its report adds (capsweep.h says
 * what it does); the merge of the shares is capsweepmerge.c's.
 */
#include "config.h"

#include "capsweep_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgtempo/exitcode.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"
#include "results/jsonreport.h"
#include "run/runner.h"
#include "run/startat.h"

/* What --sweep takes, for its messages. */
static const char rates_help[] =
"a list of rates in ascending order, as 100,200,400, or a geometric range LOW..HIGHxFACTOR, as 100..1600x2";

/* A rate of --sweep's value at *pos, up to stop (a rate's own '.' is not one); false when there is none. */
static bool
parse_rate(const char **pos, char stop, double *v)
{
	char		buf[64];
	const char *end = *pos;
	char	   *num_end;
	size_t		len;

	while (*end != '\0' && *end != ',' && *end != stop && !(end[0] == '.' && end[1] == '.'))
		end++;
	len = (size_t) (end - *pos);
	if (len == 0 || len >= sizeof(buf) || **pos == '-' || **pos == '+' || **pos == ' ')
		return false;
	memcpy(buf, *pos, len);
	buf[len] = '\0';
	*v = strtod(buf, &num_end);
	if (*num_end != '\0' || !(*v > 0 && *v <= 1e9))
		return false;
	*pos = end;
	return true;
}

/* "LOW..HIGHxFACTOR" at arg into p; false when it is not one. */
static bool
parse_range(capsweep_plan *p, const char *arg)
{
	const char *pos = arg;
	double		low,
				high,
				f;

	if (!parse_rate(&pos, 'x', &low) || strncmp(pos, "..", 2) != 0)
		return false;
	pos += 2;
	if (!parse_rate(&pos, 'x', &high) || *pos++ != 'x' || !parse_rate(&pos, 'x', &f) || *pos != '\0' ||
		!(f > 1) || high < low)
		return false;
	p->nrates = 0;
	/* a rate within a millionth of HIGH is HIGH, not one past it */
	for (double r = low; r <= high * (1 + 1e-6); r *= f)
	{
		if (p->nrates == CAPSWEEP_MAX_RATES)
			return false;
		p->rates[p->nrates++] = r;
	}
	return true;
}

bool
capsweep_parse_rates(capsweep_plan *p, const char *arg)
{
	const char *pos = arg;
	bool		ok = true;

	if (strstr(arg, "..") != NULL)
		ok = parse_range(p, arg);
	else
	{
		p->nrates = 0;
		while (ok)
		{
			double		v;

			ok = p->nrates < CAPSWEEP_MAX_RATES && parse_rate(&pos, ',', &v) &&
				(p->nrates == 0 || v > p->rates[p->nrates - 1]) && (*pos == ',' || *pos == '\0');
			if (ok)
				p->rates[p->nrates++] = v;
			if (!ok || *pos++ == '\0')
				break;
		}
	}
	if (ok && p->nrates >= 1)
		return true;
	msg_error("invalid value \"%s\" for option --sweep", arg);
	msg_detail("It takes %s, at most %d rates.", rates_help, CAPSWEEP_MAX_RATES);
	return false;
}

bool
capsweep_parse_share(capsweep_plan *p, const char *arg)
{
	int			k,
				n,
				used = 0;

	if (sscanf(arg, "%d/%d%n", &k, &n, &used) == 2 && arg[used] == '\0' && arg[0] != '+' &&
		n >= 1 && n <= 1000 && k >= 1 && k <= n)
	{
		p->share_k = k;
		p->share_n = n;
		return true;
	}
	msg_error("invalid value \"%s\" for option --sweep-share: K/N, share K of N (1 <= K <= N <= 1000)",
			  arg);
	return false;
}

bool
capsweep_check(const capsweep_plan *p, const capacity_settings *c, const bench_settings *s)
{
	if (p->nrates == 0)
	{
		if (p->share_n > 0)
		{
			msg_error("--sweep-share needs --sweep");
			return false;
		}
		return true;
	}
	if (!c->wanted)
	{
		msg_error("--sweep needs --capacity (the objectives that judge its steps)");
		return false;
	}
	if (s->duration / p->nrates < CAPSWEEP_MIN_SLOT_S)
	{
		msg_error("--sweep needs at least %d s a step: -T of at least %d s for %d rates",
				  CAPSWEEP_MIN_SLOT_S, CAPSWEEP_MIN_SLOT_S * p->nrates, p->nrates);
		return false;
	}
	if (p->share_n > 1 && s->start_at_epoch_s <= 0)
	{
		msg_error("--sweep-share needs --start-at: the shares' common start");
		return false;
	}
	if (c->resolution > 0)
	{
		msg_error("--capacity-resolution is the search's: a sweep's resolution is its plan's");
		return false;
	}
	return true;
}

/* The slot, warm-up and measured part of each step, from -T; the start. */
static void
plan_times(capsweep_plan *p, const bench_settings *s)
{
	struct timespec ts;

	if (p->share_n == 0)
	{
		p->share_k = 1;
		p->share_n = 1;
	}
	p->slot_s = s->duration / p->nrates;
	p->warm_s = p->slot_s / 5 < 2 ? 2 : p->slot_s / 5;
	p->measured_s = p->slot_s - p->warm_s - (p->slot_s / 10 < 2 ? 2 : p->slot_s / 10);
	clock_gettime(CLOCK_REALTIME, &ts);
	p->start_epoch_s = s->start_at_epoch_s > 0 ? s->start_at_epoch_s :
		(double) ts.tv_sec + 1 + CAPSWEEP_LEAD_S;
	p->data = xcalloc((size_t) p->nrates, sizeof(capsweep_data));
	for (int i = 0, used = 0; i < s->nscripts && used < (int) sizeof(p->scripts); i++)
		used += snprintf(p->scripts + used, sizeof(p->scripts) - (size_t) used, "%s%s@%d", i ? "," : "",
						 s->scripts[i]->desc, s->scripts[i]->weight);
}

/* The -P line at a step's start. */
static void
progress_start(const cap_search *cs, int i)
{
	const capsweep_plan *p = cs->plan;

	if (cs->s->progress <= 0)
		return;
	fprintf(stderr, "capacity sweep: step %d of %d: %.1f tps offered", i + 1, p->nrates, p->rates[i]);
	if (p->share_n > 1)
		fprintf(stderr, " (share %d of %d: %.1f tps)", p->share_k, p->share_n, p->rates[i] / p->share_n);
	fprintf(stderr, ", %d s of %d s left\n", (p->nrates - i) * p->slot_s, p->nrates * p->slot_s);
}

/* Run step i of the plan on the plan's clock into cs->steps[i + 1]; false to stop. */
static bool
run_one(cap_search *cs, int i)
{
	capsweep_plan *p = (capsweep_plan *) cs->plan;
	capsweep_data *d = &p->data[i];
	cap_step   *st = &cs->steps[cs->nsteps];
	bench_settings rs;
	bench_results res;

	memset(st, 0, sizeof(*st));
	st->rate = p->rates[i] / p->share_n;
	st->runs = 1;
	d->epoch_s = p->start_epoch_s + (double) i * p->slot_s;
	cap_step_settings(cs, st->rate, p->measured_s, 0, i == 0, &rs);
	rs.warmup = WARMUP_FIXED;
	rs.warmup_s = p->warm_s;
	rs.start_at_epoch_s = d->epoch_s;
	progress_start(cs, i);
	if (!startat_check_ahead(d->epoch_s, "had passed when the step was to start:") ||
		!runner_run(&rs, &res))
	{
		cs->status = EXITCODE_ERROR;
		return false;
	}
	if (res.setup_failed)
	{
		/* its clients did not start (the cause was printed): not a step of the report */
		cap_run_status(cs, &res);
		runner_end(&rs, &res);
		return false;
	}
	cs->nsteps++;
	/* the step's series and lag points are kept for --json */
	d->sr = res.series;
	memset(&res.series, 0, sizeof(res.series));
	d->nlag = res.nprogress;
	d->lag = xmalloc(sizeof(report_progress_point) * (size_t) (d->nlag > 0 ? d->nlag : 1));
	if (d->nlag > 0)
		memcpy(d->lag, res.progress, sizeof(report_progress_point) * (size_t) d->nlag);
	cap_measure_step(cs, &d->sr, &res, st);
	cap_run_status(cs, &res);
	runner_end(&rs, &res);
	if (cs->s->progress > 0)
		fprintf(stderr, "capacity sweep: step %d of %d: %.1f tps achieved: %s%s%s\n", i + 1, p->nrates,
				st->tps, st->pass ? "pass" : "fail", st->why[0] ? ": " : "", st->why);
	return cs->status == 0;
}

void
capsweep_bracket(cap_search *cs)
{
	cs->lo = 0;
	cs->hi = 0;
	cs->hi_tested = false;
	for (int k = 1; k < cs->nsteps; k++)
		if (!cs->steps[k].pass && (cs->hi == 0 || cs->steps[k].rate < cs->hi))
		{
			cs->hi = cs->steps[k].rate;
			cs->hi_tested = true;
		}
	for (int k = 1; k < cs->nsteps; k++)
		if (cs->steps[k].pass && (cs->hi == 0 || cs->steps[k].rate < cs->hi) &&
			cs->steps[k].rate > cs->lo)
			cs->lo = cs->steps[k].rate;
	/* no rate failed: the capacity is at least the plan's highest */
	if (!cs->hi_tested)
		cs->hi = cs->lo;
}

int
capsweep_run(const bench_settings *s, const capacity_settings *c, capsweep_plan *p)
{
	cap_search *cs = xcalloc(1, sizeof(cap_search));
	double		t0;
	int			status;

	cs->s = s;
	cs->c = c;
	cs->plan = p;
	plan_times(p, s);
	t0 = p->start_epoch_s;
	/* steps[0] is the search's probe: a sweep has none */
	cs->nsteps = 1;
	cs->stop_why = "the plan ran to its end";
	for (int i = 0; i < p->nrates; i++)
		if (!run_one(cs, i))
		{
			cs->stop_why = "a step could not run (see above)";
			break;
		}
	capsweep_bracket(cs);
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		cs->used_s = (double) ts.tv_sec + (double) ts.tv_nsec / 1e9 - t0;
	}
	status = cap_finish(cs);
	capsweep_free_data(p);
	return status;
}

void
capsweep_free_data(capsweep_plan *p)
{
	for (int i = 0; p->data != NULL && i < p->nrates; i++)
	{
		series_free(&p->data[i].sr);
		free(p->data[i].lag);
	}
	free(p->data);
	p->data = NULL;
}
