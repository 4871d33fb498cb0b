/*
 * waits.h — pgtempo-waits as a whole: the settings main() fills in, and
 * the entry point that runs the sampler with them.
 *
 * Data flow: one connection → a sample every interval at absolute
 * deadlines (sched) → rows read in binary (sampler) and classified
 * (sample) → aggregated (wprof) and handed to every output through one
 * interface (sink.h: the log, the store, the folded stacks, the chart,
 * the live view) → the report at the end (report).
 */
#ifndef PGTEMPO_WAITS_WAITS_H
#define PGTEMPO_WAITS_WAITS_H

#include <stdbool.h>
#include <stdint.h>

#include "pgtempo/clock.h"
#include "pgtempo/conn.h"
#include "pgtempo/exitcode.h"	/* waits_run() and trace_run() return these */
#include "pgtempo/gate.h"

#include "budget.h"
#include "sampler.h"
#include "wprof.h"


typedef enum waits_log_format
{
	WAITS_LOG_AUTO,				/* from the file name: .jsonl/.json, else csv */
	WAITS_LOG_CSV,
	WAITS_LOG_JSONL
} waits_log_format;

#define WAITS_MAX_LIMITS GATE_MAX_LIMITS

/*
 * A --fail-if limit (baseline.h): the change of what it names beyond
 * lim.value (gate.h: active sessions, or % of the baseline's) trips it.
 * A disagreement limit (measured.h) is of a live run: the measured figure
 * minus its sampled estimate (seconds, or % of the estimate), its interval
 * the estimate's bound.
 */
typedef struct waits_limit
{
	gate_limit	lim;			/* as parsed: its text, direction, unit and value */
	char		type[64];		/* TYPE, or TYPE of TYPE:EVENT; "" for total */
	char		event[64];		/* EVENT of TYPE:EVENT; "" otherwise */
	bool		total;			/* "total": every event */
	bool		either;			/* one word: a type or an event of that name */
	bool		disagree;		/* "disagree" or "disagree:FIGURE" (FIGURE in event; "": all) */
} waits_limit;

/* A list of strings given by repeating an option. */
typedef struct waits_settings
{
	conn_opts	conn;
	int64_t		interval_ns;	/* -i */
	bool		interval_given;
	double		cost_budget;	/* --cost-budget: share of one CPU; 0: none */
	int64_t		cost_window_ns;	/* --cost-window: how long a cost is measured */
	int64_t		duration_ns;	/* -T; 0: until interrupted */
	sampler_source source;
	/* filters, sent to the server as parameters */
	int32_t    *pids;
	int			npids;
	sampler_strlist dbs;
	sampler_strlist users;
	sampler_strlist apps;
	sampler_strlist backend_types;	/* filled with the default types unless given */
	bool		backend_types_given;	/* --backend-type other than all */
	bool		backend_types_all;	/* --backend-type=all: no filter */
	bool		include_idle;
	int			query_text;		/* characters of query text kept; 0: none */
	/* report */
	wprof_dim by[WPROF_DIM_COUNT];
	int			nby;
	bool		json;			/* --json, --json=-: the JSON report instead of the text one */
	const char *json_path;		/* --json=FILE: the JSON report also in FILE; NULL: none */
	int			blockers;		/* --blockers: blocking pids listed per group */
	/* history */
	char	   *log_path;
	waits_log_format log_format;
	int64_t		log_interval_ns;	/* 0: raw rows */
	char	   *folded_path;
	char	   *chart_path;		/* --chart: an SVG of the shares over time */
	bool		top;
	char	   *store;			/* conninfo of the store database */
	char	   *store_label;	/* the "source" column; default host:port */
	int64_t		store_interval_ns;	/* 0: raw rows */
	/* --trace: follow these backends' waits instead of sampling (trace.h) */
	int32_t    *trace_pids;
	int			ntrace_pids;
	char	   *trace_path;		/* --trace-file; NULL: standard output */
	/* --from-log: report from these history files instead of sampling (fromlog.h) */
	char	  **from_log;
	int			nfrom_log;
	int64_t		since_us;		/* --since; INT64_MIN: from the first record */
	int64_t		until_us;		/* --until; INT64_MAX: to the last */
	bool		keep_going;		/* --keep-going: a bad file is skipped, not fatal */
	/* a comparison with a baseline window (baseline.h) */
	char	  **baseline;		/* --baseline=FILE: its files; none: those of --from-log */
	int			nbaseline;
	int64_t		baseline_since_us;	/* --baseline-since; INT64_MIN: from the first record */
	int64_t		baseline_until_us;	/* --baseline-until; INT64_MAX: to the last */
	int64_t		baseline_since_shift_us;	/* --baseline-since=-SHIFT: --since - SHIFT */
	int64_t		baseline_until_shift_us;	/* --baseline-until=-SHIFT: --until - SHIFT */
	int			baseline_windows;	/* --baseline-windows: the baseline and the windows
									 * before it at its distance from the window; 0: one */
	bool		compare;		/* a baseline option was given */
	waits_limit fail_if[WAITS_MAX_LIMITS];	/* --fail-if */
	int			nfail_if;
	/* metrics for Prometheus (sink_metrics.h) */
	char	   *metrics_path;	/* --metrics: a textfile, at each --log-interval and at the end */
	char	   *listen_host;	/* --listen: serve /metrics on this address (listen.h) */
	int			listen_port;	/* 0: a free port, said on stderr; -1: no --listen */
	char	   *web_config_path;	/* --web-config-file: TLS and users (webconfig.h) */
	/* --log-retain: rotated files of the --log pattern are deleted past these */
	int64_t		log_retain_ns;	/* 0: kept whatever their age */
	int64_t		log_retain_bytes;	/* 0: kept whatever their size */
} waits_settings;

#define WAITS_DEFAULT_INTERVAL_NS	(10 * NS_PER_MS)
/* The in-server sources keep their own profile: reading it once a second is enough. */
#define WAITS_DEFAULT_QUERY_TEXT	200
#define WAITS_DEFAULT_BLOCKERS		3

#define WAITS_SETTINGS_INIT { \
	.interval_ns = WAITS_DEFAULT_INTERVAL_NS, .source = SAMPLER_SOURCE_AUTO, \
	.cost_budget = BUDGET_DEFAULT_SHARE, .cost_window_ns = BUDGET_WINDOW_NS, \
	.by = {WPROF_DIM_EVENT}, .nby = 1, .log_format = WAITS_LOG_AUTO, \
	.blockers = WAITS_DEFAULT_BLOCKERS, .since_us = INT64_MIN, .until_us = INT64_MAX, \
	.baseline_since_us = INT64_MIN, .baseline_until_us = INT64_MAX, \
	.listen_port = -1 }

/* Run the sampler with these settings; returns the exit status. */
int			waits_run(const waits_settings *s);

/* Free what the option parser allocated. */
void		waits_settings_free(waits_settings *s);

#endif
