/*
 * budget.c — the interval between samples that keeps the sampler's
 * backend within its share of one CPU (see budget.h).
 */
#include "config.h"

#include "budget.h"

/* No window measured yet; the interval is the one asked for. */
void
budget_init(budget *b, double share, uint64_t want_ns, bool keep, uint64_t window_ns)
{
	b->share = share;
	b->want_ns = want_ns;
	b->keep = keep;
	b->window_ns = window_ns;
	b->interval_ns = want_ns;
	b->win_ns = 0;
	b->win_cpu_s = -1;
	b->win_samples = 0;
	b->cost_us = -1;
	b->max_cost_us = -1;
	b->max_interval_ns = want_ns;
	b->changes = 0;
}

/* A new window starts now. */
void
budget_mark(budget *b, uint64_t now_ns, double cpu_s, uint64_t samples)
{
	b->win_ns = now_ns;
	b->win_cpu_s = cpu_s;
	b->win_samples = samples;
	b->recheck_ns = 0;
}

/* ns rounded up to whole milliseconds. */
static uint64_t
whole_ms(uint64_t ns)
{
	return (ns + NS_PER_MS - 1) / NS_PER_MS * NS_PER_MS;
}

/* The interval at which cost_us per sample takes share / room, within [want, max]. */
static uint64_t
fitting(double share, uint64_t want_ns, double cost_us, double room)
{
	double		need = cost_us * 1e3 / share * room;
	uint64_t	ns;

	if (need >= (double) BUDGET_MAX_INTERVAL_NS)
		return want_ns > BUDGET_MAX_INTERVAL_NS ? want_ns : BUDGET_MAX_INTERVAL_NS;
	ns = whole_ms((uint64_t) need);
	return ns < want_ns ? want_ns : ns;
}

/* The interval that fits the cost (see budget.h). */
uint64_t
budget_fit(double share, uint64_t want_ns, uint64_t cur_ns, double cost_us)
{
	uint64_t	to;

	if (share <= 0 || cost_us < 0)
		return cur_ns;
	/* over: lower the rate at once, to fit with a tenth to spare (never past one a second) */
	if (budget_cpu_share(cost_us, cur_ns) > share)
	{
		to = fitting(share, want_ns, cost_us, 1.1);
		return to > cur_ns ? to : cur_ns;
	}
	/* under: raise it to the rate that takes four fifths of the budget, if that is faster */
	to = fitting(share, want_ns, cost_us, 1.25);
	return to < cur_ns ? to : cur_ns;
}

/* Has the window its time and samples? */
bool
budget_due(const budget *b, uint64_t now_ns, uint64_t samples)
{
	/* the first window is short: a big server should not pay the full rate for long */
	return now_ns >= b->win_ns + (b->cost_us < 0 ? b->window_ns / 10 : b->window_ns) &&
		samples >= b->win_samples + BUDGET_WINDOW_SAMPLES && now_ns >= b->recheck_ns;
}

/* Measure the window that ends now, and fit the interval to it. */
budget_change
budget_update(budget *b, uint64_t now_ns, double cpu_s, uint64_t samples)
{
	uint64_t	to;
	budget_change ch = BUDGET_NONE;

	if (!budget_due(b, now_ns, samples))
		return BUDGET_NONE;
	if (cpu_s < 0 || b->win_cpu_s < 0 || cpu_s < b->win_cpu_s)
	{
		/* not measured (another host, or the connection changed): start again */
		budget_mark(b, now_ns, cpu_s, samples);
		return BUDGET_NONE;
	}
	/* enough CPU time to measure it well, even in the clock ticks of /proc/PID/stat */
	if (cpu_s - b->win_cpu_s < BUDGET_WINDOW_CPU_S && now_ns < b->win_ns + 10 * b->window_ns)
	{
		/* not yet: /proc is read again a first window later, not at every sample */
		b->recheck_ns = now_ns + b->window_ns / 10;
		return BUDGET_NONE;
	}
	b->cost_us = (cpu_s - b->win_cpu_s) * 1e6 / (double) (samples - b->win_samples);
	if (b->cost_us > b->max_cost_us)
		b->max_cost_us = b->cost_us;
	budget_mark(b, now_ns, cpu_s, samples);
	if (b->share <= 0)
		return BUDGET_NONE;
	if (b->keep)
		return budget_cpu_share(b->cost_us, b->interval_ns) > b->share ? BUDGET_OVER : BUDGET_NONE;
	to = budget_fit(b->share, b->want_ns, b->interval_ns, b->cost_us);
	if (to > b->interval_ns)
		ch = BUDGET_LOWERED;
	else if (to < b->interval_ns)
		ch = BUDGET_RAISED;
	if (ch != BUDGET_NONE)
	{
		b->interval_ns = to;
		b->changes++;
		if (to > b->max_interval_ns)
			b->max_interval_ns = to;
	}
	return ch;
}
