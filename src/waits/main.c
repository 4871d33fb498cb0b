/*
 * pgtempo-waits — sample the wait events of every backend over libpq and
 * turn them into profiles, logs, flame graphs and a live view.  main()
 * parses options into a settings struct and hands over to waits_run();
 * everything else is in objects the tests link.
 */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/opt.h"
#include "pgtempo/parse.h"
#include "pgtempo/xalloc.h"

#include "baseline.h"
#include "histfield.h"
#include "listen.h"
#include "measured.h"
#include "options.h"
#include "retain.h"
#include "sinkset.h"
#include "waits.h"

static void usage_history(void);

/* The --help text, kept in step with the man page. */
static void
usage(void)
{
	printf("%s samples the wait events of PostgreSQL's backends from pg_stat_activity,\n"
		   "at a fixed interval over one connection, and reports where the time goes.\n\n"
		   "Usage:\n  %s [OPTION]... [DBNAME]\n  %s --from-log FILE... [OPTION]...\n\n",
		   msg_progname(), msg_progname(), msg_progname());
	printf("Sampling options:\n"
		   "  -i, --interval=TIME        time between samples (default 10ms; units us, ms, s)\n"
		   "  -T, --duration=TIME        stop after this long (default: until interrupted;\n"
		   "                             units us, ms, s, min, h; default unit s)\n"
		   "      --source=SOURCE        auto (default), activity, pg_wait_sampling, pg_stat_wait\n"
		   "      --cost-budget=PERCENT  share of one CPU the sampler's server backend may use\n"
		   "                             (default 2); without -i the rate is lowered to fit\n"
		   "      --cost-window=TIME     how long the cost of a sample is measured before the\n"
		   "                             rate is set (default 1s; the first a tenth of it)\n"
		   "      --include-idle         also count idle backends (idle sessions, Activity waits)\n"
		   "      --query-text[=CHARS]   keep query texts, cut to CHARS characters (default 200)\n"
		   "\nFilters (repeat an option for several values):\n"
		   "      --pid=PID[,PID...]     only these processes\n"
		   "      --db=NAME              only backends connected to this database\n"
		   "      --user=NAME            only backends of this user\n"
		   "      --application-name=NAME  only backends with this application_name\n"
		   "      --backend-type=TYPE[,TYPE...]  only these backend types, or all (default:\n"
		   "                             client backend, parallel worker, autovacuum worker,\n"
		   "                             walsender)\n"
		   "\nOutput options:\n"
		   "      --by=DIMS              group the profile by a comma-separated list of\n"
		   "                             event, pid, query, db, user, app, backend_type\n"
		   "                             (default event)\n"
		   "      --blockers=N           blocking pids listed per lock wait (default 3)\n"
		   "      --json                 print the report as one JSON document\n"
		   "      --json=FILE            also write the JSON document to FILE (\"-\": --json)\n"
		   "      --log=FILE             write the sample history to FILE (- for standard\n"
		   "                             output; strftime escapes start a new file when\n"
		   "                             they expand differently; SIGHUP reopens it)\n"
		   "      --log-format=FORMAT    csv or jsonl (default: from the file name, else csv)\n"
		   "      --log-interval=SECONDS write a profile per interval instead of raw rows\n"
		   "                             (and the --metrics file at each interval)\n"
		   "      --folded=FILE          write flame-graph folded stacks to FILE (- for\n"
		   "                             standard output)\n"
		   "      --chart=FILE           draw the wait-event shares over time as an SVG file\n"
		   "      --top                  show a live view (keys: g regroup, p pause, q quit)\n"
		   "      --metrics=FILE         write metrics for Prometheus to FILE (a textfile for\n"
		   "                             node_exporter) at the end and each --log-interval\n"
		   "      --listen=[HOST:]PORT   serve the metrics at http://HOST:PORT/metrics while\n"
		   "                             sampling (HOST default 127.0.0.1; IPv6 in brackets)\n"
		   "      --web-config-file=FILE TLS and basic authentication for --listen, from an\n"
		   "                             exporter's web configuration file\n"
		   "      --store=CONNINFO       write samples into tables of this database\n"
		   "      --store-interval=SECONDS  store a profile per interval instead of raw rows\n"
		   "      --store-label=TEXT     the \"server\" column of stored rows (default host:port)\n"
		   "      --log-retain=LIMIT     delete the --log pattern's older files: past an age\n"
		   "                             (units s, min, h, d) or a total size (kB, MB, GB,\n"
		   "                             TB); give it twice for both\n");
	usage_history();
}

/* --help's options from --from-log on. */
static void
usage_history(void)
{
	printf("\nReports from history files (instead of sampling, no server connection):\n"
		   "      --from-log FILE...     report from these --log files (csv or jsonl, raw\n"
		   "                             rows or --log-interval profiles); every argument\n"
		   "                             after it is a file too\n"
		   "      --since=TIME           from this time: ISO 8601, with or without an\n"
		   "                             offset (2026-11-26T03:10, ...+01:00, ...Z),\n"
		   "                             HH:MM of today (local time without an offset),\n"
		   "                             or @EPOCH\n"
		   "      --until=TIME           up to this time (the same forms)\n"
		   "      --keep-going           report the other files when one cannot be read\n"
		   "                             (the exit status is still 1)\n"
		   "      --baseline-since=TIME  compare the window with a baseline from TIME (the\n"
		   "                             same forms, or -SHIFT before --since: -7d, -1h)\n"
		   "      --baseline-until=TIME  the baseline's end (default: as long as the window)\n"
		   "      --baseline=FILE        the baseline's files (repeat it; default: those of\n"
		   "                             --from-log)\n"
		   "      --baseline-windows=N   N baseline windows, each shifted back from the one\n"
		   "                             before by the baseline's distance from the window\n"
		   "                             (the spread between them widens the bound)\n"
		   "      --fail-if=LIST         exit with status 3 when the interval of a change lies\n"
		   "                             wholly beyond a limit: NAME:LIMIT,... with NAME\n"
		   "                             total, an event type, an event or TYPE:EVENT, and\n"
		   "                             LIMIT a signed change in active sessions or %%\n"
		   "                             (Lock:+0.5,total:+50%%), or NAME<LIMIT (total>1.5x);\n"
		   "                             live: disagree[:FIGURE] (measured off its bound)\n"
		   "  --pid, --db, --user and --application-name select the files' rows as they\n"
		   "  select a live run's\n"
		   "\nTrace mode (instead of sampling):\n"
		   "      --trace=PID[,PID...]   write a line when a wait of these backends starts\n"
		   "                             and one when it stops (polled every 1ms unless -i)\n"
		   "      --trace-file=FILE      write the trace to FILE instead of standard output\n"
		   "                             (appended to; SIGHUP reopens it)\n"
		   "\nConnection options:\n"
		   "  -d, --dbname=DBNAME        database to connect to (a name, conninfo or URI)\n"
		   "  -h, --host=HOSTNAME        database server host or socket directory\n"
		   "  -p, --port=PORT            database server port\n"
		   "  -U, --username=USERNAME    user name to connect as\n"
		   "  -w, --no-password          never prompt for password\n"
		   "  -W, --password             force password prompt\n"
		   "\nOther options:\n"
		   "  -V, --version              output version information, then exit\n"
		   "  -?, --help                 show this help, then exit\n\n"
		   "Exit status: 0 if all went well, 1 on a usage error, a connection error at the\n"
		   "start or an output that could not be written, 2 if the connection was lost and\n"
		   "could not be made again, 3 if a --fail-if limit was passed.  SIGINT and SIGTERM\n"
		   "end the run with the report.\n\n"
		   "See 'man pgtempo-waits' for more information.\n");
}

/* A whole-number option: false with the message reported; a range error names its unit. */
static bool
count_opt(const char *arg, const char *name, const char *unit, int64_t min, int64_t max,
		  int64_t *out)
{
	char	   *cause = NULL;

	if (!parse_int64(arg, name, INT64_MIN, INT64_MAX, out, &cause))
	{
		msg_error("%s", cause);
		free(cause);
		return false;
	}
	if (*out >= min && *out <= max)
		return true;
	msg_error("%s must be between %lld and %lld %s", name, (long long) min, (long long) max,
			  unit);
	return false;
}

/* An option given, by its name: what a mode does not go with. */
typedef struct option_given
{
	bool		given;
	const char *name;
} option_given;

/* False, with the error said, when one of the n options was given with mode. */
static bool
none_given(const char *mode, const option_given *other, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (other[i].given)
		{
			msg_error("%s cannot be used with %s", mode, other[i].name);
			return false;
		}
	return true;
}

/* --trace goes with the connection options, -i and -T only; --trace-file needs it. */
static bool
trace_options_ok(const waits_settings *s)
{
	const option_given other[] = {
		{s->source != SAMPLER_SOURCE_AUTO, "--source"},
		{s->include_idle, "--include-idle"},
		{s->query_text > 0, "--query-text"},
		{s->npids > 0, "--pid"},
		{s->dbs.n > 0, "--db"},
		{s->users.n > 0, "--user"},
		{s->apps.n > 0, "--application-name"},
		{s->backend_types_given || s->backend_types_all, "--backend-type"},
		{s->nby != 1 || s->by[0] != WPROF_DIM_EVENT, "--by"},
	};

	if (s->ntrace_pids == 0)
	{
		if (s->trace_path == NULL)
			return true;
		msg_error("--trace-file needs --trace");
		return false;
	}
	if (s->trace_path != NULL && s->trace_path[0] == '\0')
	{
		msg_error("invalid value \"\" for option --trace-file");
		return false;
	}
	return none_given("--trace", other, OPT_COUNT(other)) &&
		sinkset_options_ok(s, SINKSET_NOT_TRACE, "--trace");
}

/* -i, -T, --log-interval, --store-interval: a duration in [min, max] ns. */
static opt_status
handle_duration(const opt_def *def, void *ctx, const char *arg)
{
	int64_t    *out = (int64_t *) ((char *) ctx + def->field);

	return parse_duration_opt(arg, def->label, def->unit, def->min, def->max, out) ? OPT_OK : OPT_ERROR;
}

/* --blockers, --query-text=N: a count in [min, max] of def->unit. */
static opt_status
handle_count(const opt_def *def, void *ctx, const char *arg)
{
	int64_t		v;

	if (arg == NULL)
		v = WAITS_DEFAULT_QUERY_TEXT;	/* --query-text without a value */
	else if (!count_opt(arg, def->label, def->unit, def->min, def->max, &v))
		return OPT_ERROR;
	*(int *) ((char *) ctx + def->field) = (int) v;
	return OPT_OK;
}

/* --db, --user, --application-name: one more value for the filter. */
static opt_status
handle_strlist(const opt_def *def, void *ctx, const char *arg)
{
	options_strlist_add((sampler_strlist *) ((char *) ctx + def->field), arg);
	return OPT_OK;
}

/* --cost-budget: a percentage of one CPU, "2" or "2%"; 0 turns the budget off. */
static opt_status
handle_budget(const opt_def *def, void *ctx, const char *arg)
{
	char	   *num = xstrdup(arg);
	size_t		n = strlen(num);
	double		pct = 0;
	char	   *cause = NULL;
	bool		ok;

	(void) def;
	if (n > 0 && num[n - 1] == '%')
		num[n - 1] = '\0';
	ok = parse_double(num, "--cost-budget", 0, 100, &pct, &cause);
	free(num);
	if (!ok)
		return opt_fail(cause);
	((waits_settings *) ctx)->cost_budget = pct / 100;
	return OPT_OK;
}

/*
 * The options whose value options.c parses into the settings: one handler
 * finds the parser by the option's name.
 */
static const struct
{
	const char *name;
	options_parse_fn parse;
}			value_parsers[] = {
	{"source", options_parse_source},
	{"pid", options_parse_pids},
	{"backend-type", options_parse_backend_types},
	{"by", options_parse_by},
	{"log-format", options_parse_log_format},
	{"log-retain", options_parse_retain},
	{"fail-if", options_parse_fail_if},
};

/* --source, --pid, --backend-type, --by, --log-format, --log-retain, --fail-if. */
static opt_status
handle_parsed(const opt_def *def, void *ctx, const char *arg)
{
	char	   *cause = NULL;

	for (size_t i = 0; i < OPT_COUNT(value_parsers); i++)
		if (strcmp(value_parsers[i].name, def->name) == 0)
			return value_parsers[i].parse(arg, ctx, &cause) ? OPT_OK : opt_fail(cause);
	return opt_fail(xasprintf("option --%s has no parser", def->name));
}

/* One more file for a list of them. */
static void
add_file(char ***files, int *n, const char *path)
{
	*files = xrealloc(*files, (size_t) (*n + 1) * sizeof(char *));
	(*files)[(*n)++] = xstrdup(path);
}

/* --from-log: the first file (the others are the arguments after the options). */
static opt_status
handle_from_log(const opt_def *def, void *ctx, const char *arg)
{
	waits_settings *s = ctx;

	(void) def;
	add_file(&s->from_log, &s->nfrom_log, arg);
	return OPT_OK;
}

/* --since, --until: a time, local when it has no offset. */
static opt_status
handle_time(const opt_def *def, void *ctx, const char *arg)
{
	char	   *cause = NULL;
	int64_t    *out = (int64_t *) ((char *) ctx + def->field);

	if (!parse_time(arg, def->label, PARSE_TIME_LOCAL, (int64_t) clock_wall_us(), out, &cause))
		return opt_fail(cause);
	return OPT_OK;
}

/* --baseline=FILE: one more file of the baseline. */
static opt_status
handle_baseline(const opt_def *def, void *ctx, const char *arg)
{
	waits_settings *s = ctx;

	(void) def;
	add_file(&s->baseline, &s->nbaseline, arg);
	return OPT_OK;
}

/*
 * --baseline-since, --baseline-until: a time as --since takes it, or
 * -SHIFT, that long before --since (--until): "-7d", "-1h", "-90min".
 * The shift is stored in the field after the time (its _shift_us).
 */
static opt_status
handle_baseline_time(const opt_def *def, void *ctx, const char *arg)
{
	int64_t    *shift = def->field == offsetof(waits_settings, baseline_since_us) ?
		&((waits_settings *) ctx)->baseline_since_shift_us :
		&((waits_settings *) ctx)->baseline_until_shift_us;
	int64_t		ns;

	if (arg[0] != '-')
		return handle_time(def, ctx, arg);
	/* a second to ten years, in seconds without a unit */
	if (!parse_duration_ns(arg + 1, def->label, "s", (int64_t) NS_PER_S,
						   3650 * 86400 * (int64_t) NS_PER_S, &ns, NULL))
		return opt_fail(xasprintf("invalid value \"%s\" for option %s: must be a time as "
								  "--since takes it, or -SHIFT before %s (-7d, -24h, -90min)",
								  arg, def->label, shift == &((waits_settings *) ctx)->baseline_since_shift_us ?
								  "--since" : "--until"));
	*shift = ns / 1000;
	return OPT_OK;
}

/* opt_def.flags: options whose presence counts later. */
#define FORMAT_GIVEN	1u			/* --log-format: it needs --log */
#define INTERVAL_GIVEN	2u			/* -i: the trace polls at it, not every 1ms */
#define FROM_LOG_GIVEN	4u			/* --from-log: the arguments are files */
#define WINDOW_GIVEN	8u			/* --since, --until, --keep-going: they need --from-log */
#define BASELINE_GIVEN	16u			/* --baseline*: a comparison */

#define F(f)	offsetof(waits_settings, f)
#define NS_S	((int64_t) NS_PER_S)

static const opt_def options[] = {
	{"interval", 'i', required_argument, handle_duration, F(interval_ns), 10 * (int64_t) NS_PER_US, 60 * NS_S, "-i/--interval", "ms", INTERVAL_GIVEN},
	/* a week; a longer run is one without -T, ended by a signal */
	{"duration", 'T', required_argument, handle_duration, F(duration_ns), (int64_t) NS_PER_MS, 604800 * NS_S, "-T/--duration", "s"},
	{"source", 0, required_argument, handle_parsed},
	{"cost-budget", 0, required_argument, handle_budget},
	{"cost-window", 0, required_argument, handle_duration, F(cost_window_ns), BUDGET_MIN_WINDOW_NS, BUDGET_MAX_WINDOW_LEN_NS, "--cost-window", "s"},
	{"include-idle", 0, no_argument, opt_true, F(include_idle)},
	{"query-text", 0, optional_argument, handle_count, F(query_text), 1, 1000000, "--query-text", "characters"},
	{"pid", 0, required_argument, handle_parsed},
	{"db", 0, required_argument, handle_strlist, F(dbs)},
	{"user", 0, required_argument, handle_strlist, F(users)},
	{"application-name", 0, required_argument, handle_strlist, F(apps)},
	{"backend-type", 0, required_argument, handle_parsed},
	{"by", 0, required_argument, handle_parsed},
	{"blockers", 0, required_argument, handle_count, F(blockers), 0, 100, "--blockers", "pids"},
	{"log-format", 0, required_argument, handle_parsed, .flags = FORMAT_GIVEN},
	{"log-interval", 0, required_argument, handle_duration, F(log_interval_ns), NS_S, 86400 * NS_S, "--log-interval", "s"},
	{"store-interval", 0, required_argument, handle_duration, F(store_interval_ns), NS_S, 86400 * NS_S, "--store-interval", "s"},
	{"store-label", 0, required_argument, opt_strdup, F(store_label)},
	{"web-config-file", 0, required_argument, opt_strdup, F(web_config_path)},
	{"log-retain", 0, required_argument, handle_parsed},
	{"from-log", 0, required_argument, handle_from_log, .flags = FROM_LOG_GIVEN},
	{"since", 0, required_argument, handle_time, F(since_us), .label = "--since", .flags = WINDOW_GIVEN},
	{"until", 0, required_argument, handle_time, F(until_us), .label = "--until", .flags = WINDOW_GIVEN},
	{"keep-going", 0, no_argument, opt_true, F(keep_going), .flags = WINDOW_GIVEN},
	{"baseline", 0, required_argument, handle_baseline, .flags = BASELINE_GIVEN},
	{"baseline-since", 0, required_argument, handle_baseline_time, F(baseline_since_us), .label = "--baseline-since", .flags = BASELINE_GIVEN},
	{"baseline-until", 0, required_argument, handle_baseline_time, F(baseline_until_us), .label = "--baseline-until", .flags = BASELINE_GIVEN},
	{"baseline-windows", 0, required_argument, handle_count, F(baseline_windows), 1, BASELINE_MAX_WINDOWS, "--baseline-windows", "windows", BASELINE_GIVEN},
	{"fail-if", 0, required_argument, handle_parsed},
	{"trace-file", 0, required_argument, opt_strdup, F(trace_path)},
	{"dbname", 'd', required_argument, opt_conn, F(conn)},
	{"host", 'h', required_argument, opt_conn, F(conn)},
	{"port", 'p', required_argument, opt_conn, F(conn)},
	{"username", 'U', required_argument, opt_conn, F(conn)},
	{"no-password", 'w', no_argument, opt_conn, F(conn)},
	{"password", 'W', no_argument, opt_conn, F(conn)},
	{"version", 'V', no_argument, opt_version, .label = "pgtempo-waits (pgtempo) " PACKAGE_VERSION},
	{"help", '?', no_argument, NULL},
};


#undef F
#undef NS_S

/* --from-log reads files: nothing that samples, connects or writes history goes with it. */
static bool
from_log_options_ok(const waits_settings *s, unsigned seen)
{
	const option_given other[] = {
		{s->interval_given, "-i/--interval"},
		{s->duration_ns > 0, "-T/--duration"},
		{s->source != SAMPLER_SOURCE_AUTO, "--source"},
		{s->include_idle, "--include-idle"},
		{s->query_text > 0, "--query-text"},
		{s->backend_types.n > 0 || s->backend_types_all, "--backend-type"},
	};
	const option_given conn[] = {
		{s->conn.dbname != NULL || s->conn.host != NULL || s->conn.port != NULL ||
		 s->conn.user != NULL, "a connection option"},
	};

	if (s->nfrom_log == 0)
	{
		if ((seen & WINDOW_GIVEN) == 0)
			return true;
		msg_error("--since, --until and --keep-going need --from-log");
		return false;
	}
	if (!none_given("--from-log", other, OPT_COUNT(other)) ||
		!sinkset_options_ok(s, SINKSET_NOT_FROM_LOG, "--from-log") ||
		!none_given("--from-log", conn, OPT_COUNT(conn)))
		return false;
	if (s->since_us != INT64_MIN && s->until_us != INT64_MAX && s->since_us >= s->until_us)
	{
		msg_error("--since must be before --until");
		return false;
	}
	return true;
}

/*
 * A comparison: the baseline options need --from-log, --fail-if needs a
 * baseline (its disagreement limits a live run instead), and a shifted or left out baseline bound is set from the
 * window's: --baseline-since=-7d alone is the window a week earlier.
 */
static bool
baseline_options_ok(waits_settings *s, unsigned seen)
{
	int			ndisagree = 0;

	s->compare = (seen & BASELINE_GIVEN) != 0;
	for (int i = 0; i < s->nfail_if; i++)
		ndisagree += s->fail_if[i].disagree;
	if (ndisagree > 0 && (s->nfrom_log > 0 || s->ntrace_pids > 0))
	{
		msg_error("--fail-if=%s needs a live run: the server's counters are read while sampling",
				  MEASURED_GATE_NAME);
		return false;
	}
	if (s->nfail_if > ndisagree && !s->compare)
	{
		msg_error("--fail-if needs a baseline: --baseline-since, --baseline-until or --baseline");
		return false;
	}
	if (!s->compare)
		return true;
	if (s->nfrom_log == 0 || s->folded_path != NULL)
	{
		msg_error(s->nfrom_log == 0 ? "--baseline, --baseline-since and --baseline-until need --from-log" :
				  "--folded cannot be used with a baseline");
		return false;
	}
	if ((s->baseline_since_shift_us > 0 && s->since_us == INT64_MIN) ||
		(s->baseline_until_shift_us > 0 && s->until_us == INT64_MAX))
	{
		msg_error("%s needs %s", s->baseline_since_shift_us > 0 && s->since_us == INT64_MIN ?
				  "--baseline-since=-SHIFT" : "--baseline-until=-SHIFT",
				  s->baseline_since_shift_us > 0 && s->since_us == INT64_MIN ? "--since" : "--until");
		return false;
	}
	if (s->baseline_since_shift_us > 0)
		s->baseline_since_us = s->since_us - s->baseline_since_shift_us;
	if (s->baseline_until_shift_us > 0)
		s->baseline_until_us = s->until_us - s->baseline_until_shift_us;
	/* one bound given: the other keeps the window's length */
	if (s->since_us != INT64_MIN && s->until_us != INT64_MAX)
	{
		if (s->baseline_until_us == INT64_MAX && s->baseline_since_us != INT64_MIN)
			s->baseline_until_us = s->baseline_since_us + (s->until_us - s->since_us);
		else if (s->baseline_since_us == INT64_MIN && s->baseline_until_us != INT64_MAX)
			s->baseline_since_us = s->baseline_until_us - (s->until_us - s->since_us);
	}
	if (s->nbaseline == 0 && s->baseline_since_us == INT64_MIN && s->baseline_until_us == INT64_MAX)
	{
		msg_error("the baseline would be the whole of the files: give --baseline-since, "
				  "--baseline-until or --baseline=FILE");
		return false;
	}
	if (s->baseline_since_us != INT64_MIN && s->baseline_until_us != INT64_MAX &&
		s->baseline_since_us >= s->baseline_until_us)
	{
		msg_error("--baseline-since must be before --baseline-until");
		return false;
	}
	if (s->baseline_windows > 1 &&
		(s->since_us == INT64_MIN || s->until_us == INT64_MAX ||
		 s->baseline_since_us == INT64_MIN || s->baseline_until_us == INT64_MAX ||
		 s->baseline_since_us == s->since_us))
	{
		/* the further windows are shifted by the baseline's distance from the window */
		msg_error("--baseline-windows needs a baseline at a distance from the window");
		msg_detail("Give --since, --until and --baseline-since or --baseline-until: the windows are shifted as far again each.");
		return false;
	}
	if (s->baseline_windows > 1 &&
		llabs(s->since_us - s->baseline_since_us) < s->baseline_until_us - s->baseline_since_us)
	{
		/* windows that share time would share their drift: their spread would say too little */
		msg_error("--baseline-windows needs baseline windows that do not overlap");
		msg_detail("The baseline is shifted from the window by less than its length.");
		return false;
	}
	return true;
}

/* --log-retain needs a --log pattern whose files it can tell. */
static bool
retain_ok(const waits_settings *s)
{
	char	   *cause = NULL;

	if (s->log_retain_ns == 0 && s->log_retain_bytes == 0)
		return true;
	if (s->log_path == NULL)
	{
		msg_error("--log-retain needs --log");
		return false;
	}
	if (!retain_pattern_ok(s->log_path, &cause))
	{
		msg_error("%s", cause);
		free(cause);
		return false;
	}
	return true;
}

/* The options taken together: what needs what. */
static bool
check_settings(waits_settings *s, bool format_given, unsigned seen)
{
	if (!from_log_options_ok(s, seen) || !baseline_options_ok(s, seen) || !retain_ok(s))
		return false;
	/* all: no filter; none given: the sessions' processes */
	s->backend_types_given = s->backend_types.n > 0 && !s->backend_types_all;
	if (s->backend_types_all)
		options_strlist_free(&s->backend_types);
	else
		options_default_backend_types_fill(&s->backend_types);
	if (s->log_path == NULL && format_given)
	{
		msg_error("--log-format needs --log");
		return false;
	}
	if (s->log_path == NULL && s->metrics_path == NULL && s->log_interval_ns > 0)
	{
		msg_error("--log-interval needs --log or --metrics");
		return false;
	}
	if (s->listen_port >= 0 && !listen_supported())
	{
		msg_error("--listen needs libmicrohttpd: this pgtempo-waits was built without it");
		return false;
	}
	if (s->web_config_path != NULL && (s->listen_port < 0 || s->web_config_path[0] == '\0'))
	{
		msg_error(s->listen_port < 0 ? "--web-config-file needs --listen" :
				  "invalid value \"\" for option --web-config-file");
		return false;
	}
	if (s->store == NULL && (s->store_interval_ns > 0 || s->store_label != NULL))
	{
		msg_error("%s needs --store",
				  s->store_interval_ns > 0 ? "--store-interval" : "--store-label");
		return false;
	}
	return sinkset_paths_ok(s) && trace_options_ok(s);
}

/* Fill the settings from the command line; report usage errors the PostgreSQL way. */
static opt_status
parse_arguments(int argc, char **argv, waits_settings *s)
{
	/* every usage error ends with the --help hint */
	opt_parser	parser = {NULL, 0, usage, true};
	opt_def    *defs = sinkset_options(options, OPT_COUNT(options), &parser.ndefs);
	unsigned	seen = 0;
	opt_status	st;

	parser.defs = defs;
	st = opt_parse(&parser, argc, argv, s, &seen);
	free(defs);
	if (st != OPT_OK)
		return st;
	s->interval_given = (seen & INTERVAL_GIVEN) != 0;
	/* --from-log FILE...: every argument is a file (a shell's glob) */
	while ((seen & FROM_LOG_GIVEN) != 0 && optind < argc)
		handle_from_log(NULL, s, argv[optind++]);
	/* a database name may also come as the one argument, as in psql */
	if (optind < argc && s->conn.dbname == NULL)
		s->conn.dbname = argv[optind++];
	if (!opt_no_more_args(argc, argv))
		return OPT_ERROR;
	if (!check_settings(s, (seen & FORMAT_GIVEN) != 0, seen))
	{
		msg_try_help();
		return OPT_ERROR;
	}
	return OPT_OK;
}

/* Parse, run, map the outcome to the exit status. */
int
main(int argc, char **argv)
{
	waits_settings settings = WAITS_SETTINGS_INIT;
	int			status;

	msg_set_progname(argv[0]);
	settings.conn.application_name = "pgtempo-waits";
	switch (parse_arguments(argc, argv, &settings))
	{
		case OPT_EXIT_OK:
			waits_settings_free(&settings);
			/* --help or --version that did not get out is no success */
			return msg_flush_stdout() ? EXITCODE_OK : EXITCODE_ERROR;
		case OPT_ERROR:
			waits_settings_free(&settings);
			return EXITCODE_ERROR;
		case OPT_OK:
			break;
	}
	status = waits_run(&settings);
	waits_settings_free(&settings);
	return status;
}
