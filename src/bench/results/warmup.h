/*
 * warmup.h — --warmup: a first part of the run whose transactions run
 * like the others but are left out of every result.
 *
 * A fixed warm-up (--warmup=SECONDS) ends SECONDS after the transactions
 * start.  --warmup=auto ends it when the run has levelled off: each
 * second, the last WARMUP_AUTO_WINDOW one-second samples of tps and of
 * mean latency each get a least-squares line, and the warm-up is over
 * when, for both, the line changes by at most WARMUP_AUTO_TREND of the
 * window's mean across the window; at the latest after its maximum
 * (--warmup=auto:MAX, default WARMUP_AUTO_MAX_S).  A second without a
 * transaction ending is no level.
 */
#ifndef PGTEMPO_BENCH_WARMUP_H
#define PGTEMPO_BENCH_WARMUP_H

#include <stdbool.h>
#include <stdint.h>

typedef enum warmup_mode
{
	WARMUP_NONE = 0,
	WARMUP_FIXED,				/* --warmup=SECONDS */
	WARMUP_AUTO					/* --warmup=auto[:MAX] */
} warmup_mode;

/* one-second samples the levelling-off test looks at */
#define WARMUP_AUTO_WINDOW	5
/* the largest change of the fitted line across the window, relative to its mean */
#define WARMUP_AUTO_TREND	0.10
/* --warmup=auto's maximum, in seconds, when none is given */
#define WARMUP_AUTO_MAX_S	60
/* the longest warm-up (fixed or maximum) accepted, in seconds: a day */
#define WARMUP_MAX_S		86400

/*
 * Parse --warmup's value: "SECONDS" (0: none), "auto" or "auto:MAX"
 * (MAX >= 1).  False, with the message printed, if arg is none of them.
 */
bool		warmup_parse(const char *arg, warmup_mode *mode, int *seconds);

/*
 * The change across a window of n samples (n >= 2) of the straight line
 * fitted to them, relative to their mean, as a non-negative fraction;
 * INFINITY when a sample is not finite or the mean is not above 0.
 */
double		warmup_trend(const double *v, int n);

/* --warmup=auto's test, fed a sample per second. */
typedef struct warmup_detector
{
	double		tps[WARMUP_AUTO_WINDOW];	/* the last samples, oldest first */
	double		latency[WARMUP_AUTO_WINDOW];
	int			n;				/* samples in the window */
} warmup_detector;

void		warmup_detector_init(warmup_detector *d);

/*
 * Add one second: its tps and its mean latency (NAN when no transaction
 * ended in it).  True when the window is full and both have levelled off.
 */
bool		warmup_detector_add(warmup_detector *d, double tps, double latency);

/* How the warm-up went, for the report and --json. */
typedef struct warmup_outcome
{
	warmup_mode mode;
	int			requested_s;	/* fixed: its length; auto: its maximum */
	bool		ended;			/* the measured part began (a stop may come first) */
	double		actual_s;		/* from the transactions' start to the measured part's */
	bool		levelled;		/* auto: levelled off (false: reached its maximum) */
	double		measure_start_epoch_s;	/* when the measured part began (Unix time) */
} warmup_outcome;

/* Thread 0's side of the warm-up during the run. */
typedef struct warmup_run
{
	uint64_t	base;			/* when the transactions started */
	uint64_t	next_check;		/* auto: the next one-second sample; 0: none */
	uint64_t	last_at;		/* auto: the last sample's time and totals */
	int64_t		last_cnt;
	double		last_sum;
	warmup_detector det;
	warmup_outcome out;
} warmup_run;

#endif
