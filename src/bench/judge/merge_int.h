/*
 * merge_int.h — one host's report as --merge reads it (mergeread.c) and
 * adds it up (merge.c).
 */
#ifndef PGTEMPO_BENCH_MERGE_INT_H
#define PGTEMPO_BENCH_MERGE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "results/bench.h"
#include "results/benchwaits.h"
#include "pgtempo/clock.h"
#include "pgtempo/hist.h"
#include "pgtempo/jsonread.h"
#include "results/series.h"
#include "results/stats.h"
#include "results/warmup.h"

/* One -P line of a host, the numbers that add up. */
typedef struct merge_point
{
	int64_t		k;				/* the interval's number: round(time_s / progress_s) */
	double		time_s;
	double		epoch_s;
	double		interval_s;
	int64_t		transactions;
	double		tps;
	double		latency_ms;
	double		stddev_ms;
	double		lag_ms;
	int64_t		failed;
	int64_t		skipped;
	int64_t		retried;
	int64_t		retries;
	double		max_ms;			/* NaN: the host had no percentiles for it */
	bwaits_mix	waits;			/* --waits: its sessions by wait class ("waits_aas") */
} merge_point;

/* One script of a host. */
typedef struct merge_script
{
	const char *name;			/* in the document */
	int			weight;
	stats		st;
	hist	   *h;				/* its latency histogram */
	int			ncommands;		/* -r: its commands; 0: none */
	const char **command_text;	/* in the document */
	stats_command *commands;
} merge_script;

typedef struct merge_host
{
	const char *file;
	jsonread_doc *doc;			/* NULL once dropped */
	const jsonread_value *root;
	char	   *host;			/* the strings of the host are its own */
	bench_settings s;			/* as the report needs them; its scripts name and -r list commands only */
	bench_server_facts server;
	char	   *server_version;
	int			server_version_num;
	int			nclients;
	int			nthreads;
	double		rate;			/* -R of the host; 0: none */
	double		start_epoch_s;	/* the measured run */
	double		end_epoch_s;
	double		duration_s;
	clock_sync	clock;
	int			exit_status;
	char	   *interrupted_by;
	int64_t		log_lines_lost;
	int64_t		clients_abandoned;
	stats		total;
	hist	   *h;
	double		conn_elapsed_ms;
	double		conn_total_ms;
	merge_script *scripts;
	int			nscripts;
	int			progress_s;		/* -P; 0: no series */
	merge_point *points;
	int			npoints;
	series		series;			/* "intervals"; interval_s 0: none */
	bool		has_waits;
	bwaits_report waits;		/* its events and sampling */
	warmup_outcome warmup;		/* --warmup: its "warmup"; mode WARMUP_NONE: none */
} merge_host;

/*
 * Read the report in file into *h: false with *cause set (caller frees)
 * when the file cannot be read, is not JSON, is not a pgtempo-bench
 * report, or lacks what a merge needs (a run that did not start, a
 * report written before the sums were added).
 */
bool		mergeread_host(const char *file, merge_host *h, char **cause);

void		mergeread_free(merge_host *h);

/*
 * Read the per-interval series ("intervals") of h into h->series (before
 * its document is dropped); false with *cause set (caller frees) when it
 * is malformed.  Apart from mergeread_host: a comparison by runs has no
 * use for it, and an hour's series is some 10 MB of text.
 */
bool		mergeread_series(merge_host *h, char **cause);

/*
 * Free the document once h was compared with the first host: what is
 * added up was copied out of it.  64 reports of an hour's -P 1 series
 * take 140 MB of text; only one is kept.
 */
void		mergeread_drop_doc(merge_host *h);

/*
 * Whether b ran the same benchmark as a; the first difference is printed
 * as an error.  whole_run: as parts of one run, for --merge (the same
 * duration, -P, -L, ... too); otherwise the same scripts, weights,
 * commands, data and query mode, for --compare.
 */
bool		merge_same_benchmark(const merge_host *a, const merge_host *b, bool whole_run);

/* v as compact JSON, for a message (into sb; "absent" for NULL). */
const char *merge_show_json(strbuf *sb, const jsonread_value *v);

/* Free scripts made by mergeread_host (they hold names and command lines only). */
void		mergeread_free_scripts(script **scripts, int n);

#endif
