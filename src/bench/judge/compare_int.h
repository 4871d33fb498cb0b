/*
 * compare_int.h — the comparison as compare.c computes it and
 * compareboot.c (the bootstrap) and compareout.c (text, JSON, chart)
 * use it.  Calls go one way: compare.c calls the bootstrap and the
 * outputs, and they (and compare.c) call compareval.c, which calls none
 * of them.
 */
#ifndef PGTEMPO_BENCH_COMPARE_INT_H
#define PGTEMPO_BENCH_COMPARE_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "compare.h"
#include "merge_int.h"
#include "pgtempo/infer.h"

#define CMP_RESAMPLES 2000
#define CMP_SEED UINT64_C(0x70677465)	/* "pgte": the same input, the same interval */
#define CMP_MIN_INTERVALS 20		/* a series shorter than this gives no interval */
#define CMP_MAX_GROUPS 240			/* a longer series is summed into this many groups */
#define CMP_MIN_TAIL 10				/* transactions beyond a percentile, at least */
#define CMP_MAX_METRICS (2 + BENCH_MAX_PERCENTILES)

typedef enum cmp_kind
{
	CMP_TPS,
	CMP_AVG,
	CMP_PCT
} cmp_kind;

/* What is compared: tps, the latency average, or a percentile. */
typedef struct cmp_metric
{
	cmp_kind	kind;
	double		pct;			/* CMP_PCT */
	char		name[16];		/* "tps", "avg", "p99" (--fail-if and JSON) */
	bool		higher_is_better;
} cmp_metric;

/* One line of the table: a metric of the whole run or of one script. */
typedef struct cmp_result
{
	int			scope;			/* 0: overall; 1 + i: script i */
	const cmp_metric *m;
	double		base;			/* the value (several runs: their geometric mean) */
	double		target;
	bool		known;			/* the interval could be computed */
	char		why[96];		/* if not: why */
	double		change;			/* target / base - 1 */
	double		lo;				/* its interval */
	double		hi;
	const char *verdict;		/* gate_verdict_word's */
} cmp_result;

/* One side: its runs. */
typedef struct cmp_side
{
	merge_host *runs;
	int			n;
} cmp_side;

/* A setting that differs between the runs: each run's value as compact JSON. */
typedef struct cmp_diff
{
	char	   *field;
	char	  **values;			/* [side][run]: side 0's runs first */
} cmp_diff;

typedef struct cmp
{
	const bench_settings *opts;
	const compare_settings *cs;
	cmp_side	side[2];		/* 0: base, 1: new */
	int			nscopes;		/* 1, or 1 + the number of scripts */
	cmp_metric	metrics[CMP_MAX_METRICS];
	int			nmetrics;
	cmp_result *results;		/* [scope * nmetrics + metric] */
	bool		by_runs;		/* several runs on a side: the run is the unit */
	int			interval_s;		/* one run per side: the series' interval */
	int			block_len;		/* and the bootstrap's block, in (grouped) intervals */
	int			group;			/* intervals summed into one before resampling */
	int			nintervals[2];	/* each side's intervals used */
	cmp_diff   *diffs;
	int			ndiffs;
	int			family;			/* the intervals judged together: scopes x metrics */
	double		level;			/* each one's: gate_level(GATE_LEVEL, family) */
	bool		tripped[GATE_MAX_LIMITS];	/* --fail-if: passed */
	bool		checked[GATE_MAX_LIMITS];	/* --fail-if: its interval was known */
} cmp;

/* compareval.c: the name of scope k: "overall" or the script's. */
const char *cmp_scope_name(const cmp *c, int scope);

/* compareval.c: the value of metric m of run h (scope: 0 overall, 1 + i script i); NaN if none. */
double		cmp_run_value(const merge_host *h, int scope, const cmp_metric *m);

/* compareval.c: the verdict of r from its interval (gate_judge). */
void		cmp_set_verdict(cmp_result *r);

/* compareval.c: does r trip limit l: its whole interval beyond it (gate_trips)? */
bool		cmp_limit_trips(const gate_limit *l, const cmp_result *r);

/*
 * One run per side: the intervals of every result of scope from a block
 * bootstrap of the two runs' series (c->interval_s and the block set).
 */
void		cmpboot_scope(cmp *c, int scope);

/* The table on out, and the notes on what the intervals cover. */
void		cmpout_print(FILE *out, const cmp *c);

/* --json and --chart; false with *cause set (caller frees). */
bool		cmpout_json(const char *path, const cmp *c, int exit_status, char **cause);
bool		cmpout_chart(const char *path, const cmp *c, char **cause);

/* Room for a distribution's curve: 0.02 nines apart up to log10(2^64), and its end. */
#define CMP_CURVE_MAX 1000

/*
 * A latency distribution as the chart draws it: x the percentile as nines
 * (-log10(1 - p): 0 = p0, 1 = p90, 2 = p99), y the latency in ms, every
 * 0.02 nines and last at 1 - 1/n, the highest percentile that n latencies
 * support; returns the number of points (at most CMP_CURVE_MAX).
 */
int			cmpchart_curve(const hist *h, double *x, double *y);

#endif
