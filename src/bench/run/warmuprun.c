/*
 * warmuprun.c — --warmup during a run: thread 0 fixes where the measured
 * part begins (at once for a fixed warm-up, after the levelling-off test
 * of results/warmup.c for --warmup=auto) and -T's end after it.
 */
#include "config.h"

#include "warmuprun.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>

#include "runstate.h"

/* Fix the start of the measured part, and -T's end after it. */
static void
publish(runner *r, uint64_t at)
{
	const bench_settings *s = r->s;

	atomic_store(&r->end_time, s->duration > 0 ? at + (uint64_t) s->duration * NS_PER_S : 0);
	bwaits_measure_from(r->waits, (uint64_t) (((int64_t) at + r->epoch_shift_ns) / (int64_t) NS_PER_US));
	atomic_store_explicit(&r->measure_from, at, memory_order_release);
}

void
warmup_begin(runner *r, uint64_t base)
{
	const bench_settings *s = r->s;
	warmup_run *w = &r->warm;

	w->base = base;
	w->out.mode = s->warmup;
	w->out.requested_s = s->warmup_s;
	w->last_at = base;
	warmup_detector_init(&w->det);
	if (s->warmup == WARMUP_FIXED || (s->warmup == WARMUP_AUTO && s->warmup_s <= 1))
		publish(r, base + (uint64_t) s->warmup_s * NS_PER_S);
	else if (s->warmup == WARMUP_AUTO)
		w->next_check = base + NS_PER_S;
}

/*
 * --warmup=auto's sample of the second that ended: the warm-up's
 * transactions of every thread (read while they change, as the -P line
 * does), and the decision.  The end is set at the next whole second, so
 * no thread can start a transaction after it without knowing it.
 */
static void
sample(runner *r, uint64_t now)
{
	const bench_settings *s = r->s;
	warmup_run *w = &r->warm;
	int64_t		cnt = 0;
	double		sum = 0,
				secs = (double) (now - w->last_at) / 1e9;
	int			k = (int) ((now - w->base) / NS_PER_S);
	bool		levelled;

	for (int i = 0; i < s->nthreads; i++)
	{
		cnt += r->threads[i].warm_st.cnt;
		sum += r->threads[i].warm_st.latency.sum;
	}
	levelled = warmup_detector_add(&w->det, secs > 0 ? (double) (cnt - w->last_cnt) / secs : 0,
								   cnt > w->last_cnt ? (sum - w->last_sum) / (double) (cnt - w->last_cnt) : NAN);
	w->last_at = now;
	w->last_cnt = cnt;
	w->last_sum = sum;
	if (levelled || k + 1 >= s->warmup_s)
	{
		int			end_s = k + 1 < s->warmup_s ? k + 1 : s->warmup_s;

		/* a sample taken late (the thread was held up) must not set an end already past */
		if (w->base + (uint64_t) end_s * NS_PER_S <= now)
			end_s = k + 1;
		w->out.levelled = levelled;
		w->next_check = 0;
		publish(r, w->base + (uint64_t) end_s * NS_PER_S);
		return;
	}
	while (w->next_check <= now)
		w->next_check += NS_PER_S;
}

uint64_t
warmup_step(runner *r, uint64_t now, bool *ended)
{
	warmup_run *w = &r->warm;
	uint64_t	mf;

	*ended = false;
	if (w->next_check != 0 && now >= w->next_check)
		sample(r, now);
	mf = measure_from(r);
	if (mf == UINT64_MAX)
		return w->next_check;
	if (now < mf)
		return mf;
	w->out.ended = true;
	w->out.actual_s = (double) (mf - w->base) / 1e9;
	w->out.measure_start_epoch_s = (double) ((int64_t) mf + r->epoch_shift_ns) / 1e9;
	if (w->out.mode == WARMUP_AUTO)
	{
		if (w->out.levelled)
			fprintf(stderr, "warm-up ended after %.0f s: tps and latency levelled off\n",
					w->out.actual_s);
		else
			fprintf(stderr, "warm-up ended after %.0f s: reached its maximum of %d s without levelling off\n",
					w->out.actual_s, w->out.requested_s);
	}
	else
		fprintf(stderr, "warm-up ended after %.0f s\n", w->out.actual_s);
	*ended = true;
	return 0;
}
