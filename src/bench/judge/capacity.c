/*
 * capacity.c — --capacity's search (capacity.h says what it does); its
 * options are capoptions.c's, its steps capstep.c's, its report capreport.c's.
 */
#include "config.h"

#include "capacity_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/clock.h"
#include "pgtempo/exitcode.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"


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
	int			repeats = 0;	/* of the current rate */

	cs->stop_why = "the budget (-T) ran out";
	progress_start(cs, 0, left_s(cs, start));
	if (!cap_run_step(cs, 0, probe_s, 0, &cs->steps[cs->nsteps++]))
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
		if (!cap_run_step(cs, rate, step_s, warm_max, st))
			break;
		progress_end(cs, st);
		if ((st->inconclusive || st->draining) && repeats < CAP_MAX_REPEATS)
		{
			/*
			 * the interval holds the target: more of the same rate, pooled,
			 * narrows it; a backlog drained: the rate again, that run left out
			 */
			snprintf(st->why + strlen(st->why), sizeof(st->why) - strlen(st->why),
					 st->draining ? ": measured again without it" : "; holds the target: measured again");
			st->again = true;
			cs->pool_drop = st->draining;
			repeats++;
			continue;
		}
		repeats = 0;
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

int
capacity_run(const bench_settings *s, const capacity_settings *c)
{
	cap_search *cs = xcalloc(1, sizeof(cap_search));

	cs->s = s;
	cs->c = c;
	search(cs);
	return cap_finish(cs);
}
