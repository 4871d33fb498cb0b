/*
 * budget.h — the sampler's cost budget: the share of one CPU its server
 * backend may spend on sampling, and the interval between samples that
 * keeps it there.
 *
 * What a sample of pg_stat_activity costs the server grows with the
 * number of sessions (pg_stat_get_activity(NULL) copies every session's
 * status and builds a row for each): here about 0.1 ms at 8 sessions and
 * 2 ms at 1,000.  At the default 100 samples/s that is 1 % of a CPU on a
 * small server and 20 % on a big one.  So the cost of a sample is
 * measured over windows (a second or more, the first a tenth; see below)
 * from our backend's CPU time in /proc (the server runs on this host),
 * and the interval is set so that cost / interval stays within the
 * share: lowered at once when a window goes
 * over it, raised again (never above the rate asked for) when a window
 * shows it would fit with room to spare.  With an interval the user
 * chose, the budget only says what the rate costs.
 */
#ifndef PGTEMPO_WAITS_BUDGET_H
#define PGTEMPO_WAITS_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/clock.h"

/* The default share of one CPU: 2 % (pgtempo-waits(1) says why). */
#define BUDGET_DEFAULT_SHARE	0.02
/* The interval is never lowered past one sample a second. */
#define BUDGET_MAX_INTERVAL_NS	NS_PER_S
/*
 * A window is measured once it has lasted its length (--cost-window; the
 * first one a tenth of it), holds this many samples and this much of the
 * backend's CPU time, or has lasted ten times its length: enough CPU time
 * to measure even in the 10 ms clock ticks of /proc/PID/stat, where the
 * kernel keeps no schedstat.
 */
#define BUDGET_WINDOW_NS		NS_PER_S
#define BUDGET_MIN_WINDOW_NS	(10 * NS_PER_MS)
#define BUDGET_MAX_WINDOW_LEN_NS	(60 * NS_PER_S)
#define BUDGET_WINDOW_SAMPLES	10
#define BUDGET_WINDOW_CPU_S		0.02

/* What a window's measurement did to the interval. */
typedef enum budget_change
{
	BUDGET_NONE,				/* no window ended, or nothing to change */
	BUDGET_LOWERED,				/* the rate was lowered to fit */
	BUDGET_RAISED,				/* the rate was raised: the cost went down */
	BUDGET_OVER					/* over the budget at the user's rate, which is kept */
} budget_change;

typedef struct budget
{
	double		share;			/* of one CPU; 0: no budget */
	uint64_t	want_ns;		/* the interval asked for */
	bool		keep;			/* the user chose it: never change it */
	uint64_t	window_ns;		/* a window's length (the first a tenth, the longest 10x) */
	uint64_t	interval_ns;	/* in use */
	/* the window being measured */
	uint64_t	win_ns;			/* monotonic time it began */
	double		win_cpu_s;		/* the backend's CPU seconds then */
	uint64_t	win_samples;	/* samples taken by then */
	uint64_t	recheck_ns;		/* too little CPU time at the last look: not before then */
	/* what the windows found */
	double		cost_us;		/* backend CPU per sample, last window; < 0: unknown */
	double		max_cost_us;	/* the highest window's; < 0: unknown */
	uint64_t	max_interval_ns;	/* the longest interval used */
	int			changes;		/* times the interval changed */
} budget;

/*
 * A budget of share of one CPU for samples every want_ns, measured over
 * windows of window_ns; keep: the user chose the interval.
 */
void		budget_init(budget *b, double share, uint64_t want_ns, bool keep, uint64_t window_ns);

/*
 * Start a window at monotonic now_ns: the backend's CPU seconds (< 0:
 * unknown, the server is not on this host) and the samples taken so far.
 */
void		budget_mark(budget *b, uint64_t now_ns, double cpu_s, uint64_t samples);

/* Is the window long enough to end, in time and samples (the CPU time is not read yet)? */
bool		budget_due(const budget *b, uint64_t now_ns, uint64_t samples);

/*
 * End the window if it is long enough: measure the cost per sample and
 * set b->interval_ns to fit the share.  Starts the next window.
 */
budget_change budget_update(budget *b, uint64_t now_ns, double cpu_s, uint64_t samples);

/*
 * The interval for a cost of cost_us per sample, now cur_ns, between
 * want_ns and BUDGET_MAX_INTERVAL_NS in whole milliseconds: over the share,
 * the one that fits with a tenth to spare; under it, the one that takes
 * four fifths of the share if that is shorter; else cur_ns.  So a cost
 * near the limit does not move the rate up and down.
 */
uint64_t	budget_fit(double share, uint64_t want_ns, uint64_t cur_ns, double cost_us);

/* The share of one CPU that cost_us per sample every interval_ns takes. */
static inline double
budget_cpu_share(double cost_us, uint64_t interval_ns)
{
	return cost_us * 1e3 / (double) interval_ns;
}

#endif
