/*
 * pgtempo-waits — sample the wait events of every backend over libpq and
 * turn them into profiles, logs, flame graphs and a live view.  main()
 * parses options into a settings struct and hands over to waits_run();
 * everything else is in objects the tests link.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/parse.h"
#include "pgtempo/xalloc.h"

#include "options.h"
#include "waits.h"

typedef enum parse_status
{
	PARSE_OK,					/* run with these settings */
	PARSE_EXIT_OK,				/* --help or --version was printed */
	PARSE_ERROR					/* a usage error was reported */
} parse_status;

/* The --help text, kept in step with the man page. */
static void
usage(void)
{
	printf("%s samples the wait events of PostgreSQL's backends from pg_stat_activity,\n"
		   "at a fixed interval over one connection, and reports where the time goes.\n\n",
		   msg_progname());
	printf("Usage:\n  %s [OPTION]... [DBNAME]\n\n", msg_progname());
	printf("Sampling options:\n"
		   "  -i, --interval=TIME        time between samples (default 10ms; units us, ms, s)\n"
		   "  -T, --duration=TIME        stop after this long (default: until interrupted;\n"
		   "                             units us, ms, s, min, h; default unit s)\n"
		   "      --source=SOURCE        auto (default), activity, pg_wait_sampling, pg_stat_wait\n"
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
		   "      --log=FILE             write the sample history to FILE (- for standard\n"
		   "                             output; strftime escapes start a new file when\n"
		   "                             they expand differently; SIGHUP reopens it)\n"
		   "      --log-format=FORMAT    csv or jsonl (default: from the file name, else csv)\n"
		   "      --log-interval=SECONDS write a profile per interval instead of raw rows\n"
		   "      --folded=FILE          write flame-graph folded stacks to FILE (- for\n"
		   "                             standard output)\n"
		   "      --chart=FILE           draw the wait-event shares over time as an SVG file\n"
		   "      --top                  show a live view (keys: g regroup, p pause, q quit)\n"
		   "      --store=CONNINFO       write samples into tables of this database\n"
		   "      --store-interval=SECONDS  store a profile per interval instead of raw rows\n"
		   "      --store-label=TEXT     the \"server\" column of stored rows (default host:port)\n"
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
		   "could not be made again.  SIGINT and SIGTERM end the run with the report.\n\n"
		   "See 'man pgtempo-waits' for more information.\n");
}

/* A duration of whole units as text with its unit: "10 us", "60 s", "1 h". */
static void
duration_text(char *buf, size_t len, int64_t ns)
{
	static const struct
	{
		int64_t		ns;
		const char *name;
	}			units[] = {
		{3600 * NS_PER_S, "h"}, {60 * NS_PER_S, "min"}, {NS_PER_S, "s"},
		{NS_PER_MS, "ms"}, {NS_PER_US, "us"}, {1, "ns"},
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns % units[i].ns == 0 || units[i].ns == 1)
		{
			snprintf(buf, len, "%lld %s", (long long) (ns / units[i].ns), units[i].name);
			return;
		}
}

/* A duration option: false with the message reported; a range error names its units. */
static bool
duration_opt(const char *arg, const char *name, const char *unit, int64_t min, int64_t max,
			 int64_t *out)
{
	char	   *cause = NULL;
	char		lo[32],
				hi[32];

	if (!parse_duration_ns(arg, name, unit, INT64_MIN, INT64_MAX, out, &cause))
	{
		msg_error("%s", cause);
		free(cause);
		return false;
	}
	if (*out >= min && *out <= max)
		return true;
	duration_text(lo, sizeof(lo), min);
	duration_text(hi, sizeof(hi), max);
	msg_error("%s must be between %s and %s", name, lo, hi);
	return false;
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

/* --trace goes with the connection options, -i and -T only; --trace-file needs it. */
static bool
trace_options_ok(const waits_settings *s)
{
	const struct
	{
		bool		given;
		const char *name;
	}			other[] = {
		{s->source != WAITS_SOURCE_AUTO, "--source"},
		{s->include_idle, "--include-idle"},
		{s->query_text > 0, "--query-text"},
		{s->npids > 0, "--pid"},
		{s->dbs.n > 0, "--db"},
		{s->users.n > 0, "--user"},
		{s->apps.n > 0, "--application-name"},
		{s->backend_types_given || s->backend_types_all, "--backend-type"},
		{s->nby != 1 || s->by[0] != WPROF_DIM_EVENT, "--by"},
		{s->json, "--json"},
		{s->log_path != NULL, "--log"},
		{s->folded_path != NULL, "--folded"},
		{s->chart_path != NULL, "--chart"},
		{s->top, "--top"},
		{s->store != NULL, "--store"},
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
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (other[i].given)
		{
			msg_error("--trace cannot be used with %s", other[i].name);
			return false;
		}
	return true;
}

/* Fill the settings from the command line; report usage errors the PostgreSQL way. */
static parse_status
parse_arguments(int argc, char **argv, waits_settings *s)
{
	enum
	{
		OPT_SOURCE = 256, OPT_INCLUDE_IDLE, OPT_QUERY_TEXT, OPT_PID, OPT_DB, OPT_USER,
		OPT_APP, OPT_BACKEND_TYPE, OPT_BY, OPT_JSON, OPT_LOG, OPT_LOG_FORMAT,
		OPT_LOG_INTERVAL, OPT_FOLDED, OPT_CHART, OPT_TOP, OPT_STORE, OPT_STORE_INTERVAL, OPT_STORE_LABEL,
		OPT_TRACE, OPT_TRACE_FILE,
		OPT_BLOCKERS
	};
	static const struct option long_options[] = {
		{"interval", required_argument, NULL, 'i'},
		{"duration", required_argument, NULL, 'T'},
		{"source", required_argument, NULL, OPT_SOURCE},
		{"include-idle", no_argument, NULL, OPT_INCLUDE_IDLE},
		{"query-text", optional_argument, NULL, OPT_QUERY_TEXT},
		{"pid", required_argument, NULL, OPT_PID},
		{"db", required_argument, NULL, OPT_DB},
		{"user", required_argument, NULL, OPT_USER},
		{"application-name", required_argument, NULL, OPT_APP},
		{"backend-type", required_argument, NULL, OPT_BACKEND_TYPE},
		{"by", required_argument, NULL, OPT_BY},
		{"blockers", required_argument, NULL, OPT_BLOCKERS},
		{"json", no_argument, NULL, OPT_JSON},
		{"log", required_argument, NULL, OPT_LOG},
		{"log-format", required_argument, NULL, OPT_LOG_FORMAT},
		{"log-interval", required_argument, NULL, OPT_LOG_INTERVAL},
		{"folded", required_argument, NULL, OPT_FOLDED},
		{"chart", required_argument, NULL, OPT_CHART},
		{"top", no_argument, NULL, OPT_TOP},
		{"store", required_argument, NULL, OPT_STORE},
		{"store-interval", required_argument, NULL, OPT_STORE_INTERVAL},
		{"store-label", required_argument, NULL, OPT_STORE_LABEL},
		{"trace", required_argument, NULL, OPT_TRACE},
		{"trace-file", required_argument, NULL, OPT_TRACE_FILE},
		{"dbname", required_argument, NULL, 'd'},
		{"host", required_argument, NULL, 'h'},
		{"port", required_argument, NULL, 'p'},
		{"username", required_argument, NULL, 'U'},
		{"no-password", no_argument, NULL, 'w'},
		{"password", no_argument, NULL, 'W'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, '?'},
		{NULL, 0, NULL, 0}
	};
	int			c;
	int64_t		ival;
	char	   *cause = NULL;
	bool		format_given = false;

	/* -? is also getopt's error return, so take --help/-? first, as PostgreSQL does */
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-?") == 0))
	{
		usage();
		return PARSE_EXIT_OK;
	}

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:T:d:h:p:U:wWV", long_options, NULL)) != -1)
	{
		switch (c)
		{
			case 'i':
				if (!duration_opt(optarg, "-i/--interval", "ms", 10 * (int64_t) NS_PER_US,
								  60 * (int64_t) NS_PER_S, &s->interval_ns))
					goto usage_error;
				s->interval_given = true;
				break;
			case 'T':
				/* a week; a longer run is one without -T, ended by a signal */
				if (!duration_opt(optarg, "-T/--duration", "s", (int64_t) NS_PER_MS,
								  604800 * (int64_t) NS_PER_S, &s->duration_ns))
					goto usage_error;
				break;
			case OPT_SOURCE:
				if (!options_parse_source(optarg, &s->source, &cause))
					goto bad_value;
				break;
			case OPT_INCLUDE_IDLE:
				s->include_idle = true;
				break;
			case OPT_QUERY_TEXT:
				if (optarg == NULL)
					s->query_text = WAITS_DEFAULT_QUERY_TEXT;
				else
				{
					if (!count_opt(optarg, "--query-text", "characters", 1, 1000000, &ival))
						goto usage_error;
					s->query_text = (int) ival;
				}
				break;
			case OPT_PID:
				if (!options_parse_pids(optarg, &s->pids, &s->npids, &cause))
					goto bad_value;
				break;
			case OPT_DB:
				options_strlist_add(&s->dbs, optarg);
				break;
			case OPT_USER:
				options_strlist_add(&s->users, optarg);
				break;
			case OPT_APP:
				options_strlist_add(&s->apps, optarg);
				break;
			case OPT_BACKEND_TYPE:
				if (!options_parse_backend_types(optarg, &s->backend_types,
												 &s->backend_types_all, &cause))
					goto bad_value;
				break;
			case OPT_BLOCKERS:
				if (!count_opt(optarg, "--blockers", "pids", 0, 100, &ival))
					goto usage_error;
				s->blockers = (int) ival;
				break;
			case OPT_BY:
				if (!options_parse_by(optarg, s->by, &s->nby, &cause))
					goto bad_value;
				break;
			case OPT_JSON:
				s->json = true;
				break;
			case OPT_LOG:
				free(s->log_path);
				s->log_path = xstrdup(optarg);
				break;
			case OPT_LOG_FORMAT:
				if (!options_parse_log_format(optarg, &s->log_format, &cause))
					goto bad_value;
				format_given = true;
				break;
			case OPT_LOG_INTERVAL:
				if (!duration_opt(optarg, "--log-interval", "s", (int64_t) NS_PER_S,
								  86400 * (int64_t) NS_PER_S, &s->log_interval_ns))
					goto usage_error;
				break;
			case OPT_FOLDED:
				free(s->folded_path);
				s->folded_path = xstrdup(optarg);
				break;
			case OPT_CHART:
				free(s->chart_path);
				s->chart_path = xstrdup(optarg);
				break;
			case OPT_TOP:
				s->top = true;
				break;
			case OPT_STORE:
				free(s->store);
				s->store = xstrdup(optarg);
				break;
			case OPT_STORE_INTERVAL:
				if (!duration_opt(optarg, "--store-interval", "s", (int64_t) NS_PER_S,
								  86400 * (int64_t) NS_PER_S, &s->store_interval_ns))
					goto usage_error;
				break;
			case OPT_STORE_LABEL:
				free(s->store_label);
				s->store_label = xstrdup(optarg);
				break;
			case OPT_TRACE:
				if (!options_parse_trace_pids(optarg, &s->trace_pids, &s->ntrace_pids, &cause))
					goto bad_value;
				break;
			case OPT_TRACE_FILE:
				free(s->trace_path);
				s->trace_path = xstrdup(optarg);
				break;
			case 'V':
				printf("pgtempo-waits (pgtempo) " PACKAGE_VERSION "\n");
				return PARSE_EXIT_OK;
			case '?':
			case ':':
				if (parse_getopt_error(c, argv))
				{
					usage();
					return PARSE_EXIT_OK;
				}
				goto usage_error;
			default:
				/* -d -h -p -U -w -W */
				if (conn_option(&s->conn, c, optarg))
					break;
				goto usage_error;
		}
	}
	/* a database name may also come as the one argument, as in psql */
	if (optind < argc && s->conn.dbname == NULL)
		s->conn.dbname = argv[optind++];
	if (optind < argc)
	{
		msg_error("too many command-line arguments (first is \"%s\")", argv[optind]);
		goto usage_error;
	}
	/* all: no filter; none given: the sessions' processes */
	s->backend_types_given = s->backend_types.n > 0 && !s->backend_types_all;
	if (s->backend_types_all)
		options_strlist_free(&s->backend_types);
	else
		options_default_backend_types_fill(&s->backend_types);
	if (s->log_path == NULL && (format_given || s->log_interval_ns > 0))
	{
		msg_error("%s needs --log", format_given ? "--log-format" : "--log-interval");
		goto usage_error;
	}
	if (s->store == NULL && (s->store_interval_ns > 0 || s->store_label != NULL))
	{
		msg_error("%s needs --store",
				  s->store_interval_ns > 0 ? "--store-interval" : "--store-label");
		goto usage_error;
	}
	if (s->log_path != NULL && s->log_path[0] == '\0')
	{
		msg_error("invalid value \"\" for option --log");
		goto usage_error;
	}
	if (s->folded_path != NULL && s->folded_path[0] == '\0')
	{
		msg_error("invalid value \"\" for option --folded");
		goto usage_error;
	}
	if (s->chart_path != NULL && s->chart_path[0] == '\0')
	{
		msg_error("invalid value \"\" for option --chart");
		goto usage_error;
	}
	if (!trace_options_ok(s))
		goto usage_error;
	return PARSE_OK;

bad_value:
	msg_error("%s", cause);
	free(cause);
usage_error:
	msg_try_help();
	return PARSE_ERROR;
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
		case PARSE_EXIT_OK:
			waits_settings_free(&settings);
			/* --help or --version that did not get out is no success */
			return msg_flush_stdout() ? WAITS_EXIT_OK : WAITS_EXIT_ERROR;
		case PARSE_ERROR:
			waits_settings_free(&settings);
			return WAITS_EXIT_ERROR;
		case PARSE_OK:
			break;
	}
	status = waits_run(&settings);
	waits_settings_free(&settings);
	return status;
}
