/*
 * pgtempo-bench — a pgbench-compatible benchmark for PostgreSQL.
 *
 * main() turns the command line into bench_settings (pgbench's options
 * and messages) and hands over to the runner (runner.c), the
 * initialization (init.c) or the dry run (dryrun.c); everything else
 * lives in objects the tests link.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench.h"
#include "init.h"
#include "pgtempo/msg.h"
#include "pgtempo/parse.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"
#include "report.h"
#include "runner.h"
#include "setup.h"

typedef enum parse_status
{
	PARSE_OK,
	PARSE_EXIT_OK,
	PARSE_ERROR
} parse_status;

/* --help: pgbench's options and ours. */
static void
usage(void)
{
	printf("%s is a benchmarking tool for PostgreSQL, compatible with pgbench.\n\n",
		   msg_progname());
	printf("Usage:\n  %s [OPTION]... [DBNAME]\n\n", msg_progname());
	printf("Initialization options:\n"
		   "  -i, --initialize         invokes initialization mode\n"
		   "  -I, --init-steps=[dtgGvpf]+ (default \"dtgvp\")\n"
		   "                           run selected initialization steps, in the specified order\n"
		   "                           d: drop any existing pgbench tables\n"
		   "                           t: create the tables used by the standard pgbench scenario\n"
		   "                           g: generate data, client-side\n"
		   "                           G: generate data, server-side\n"
		   "                           v: invoke VACUUM on the standard tables\n"
		   "                           p: create primary key indexes on the standard tables\n"
		   "                           f: create foreign keys between the standard tables\n"
		   "  -F, --fillfactor=NUM     set fill factor\n"
		   "  -n, --no-vacuum          do not run VACUUM during initialization\n"
		   "  -q, --quiet              quiet logging (one message each 5 seconds)\n"
		   "  -s, --scale=NUM          scaling factor\n"
		   "  --foreign-keys           create foreign key constraints between tables\n"
		   "  --index-tablespace=TABLESPACE\n"
		   "                           create indexes in the specified tablespace\n"
		   "  --partition-method=(range|hash)\n"
		   "                           partition pgbench_accounts with this method (default: range)\n"
		   "  --partitions=NUM         partition pgbench_accounts into NUM parts (default: 0)\n"
		   "  --tablespace=TABLESPACE  create tables in the specified tablespace\n"
		   "  --unlogged-tables        create tables as unlogged tables\n\n"
		   "Options to select what to run:\n"
		   "  -b, --builtin=NAME[@W]   add builtin script NAME weighted at W (default: 1)\n"
		   "                           (use \"-b list\" to list available scripts)\n"
		   "  -f, --file=FILENAME[@W]  add script FILENAME weighted at W (default: 1)\n"
		   "                           (\"-\" reads the script from standard input)\n"
		   "  -N, --skip-some-updates  skip updates of pgbench_tellers and pgbench_branches\n"
		   "                           (same as \"-b simple-update\")\n"
		   "  -S, --select-only        perform SELECT-only transactions\n"
		   "                           (same as \"-b select-only\")\n\n"
		   "Benchmarking options:\n"
		   "  -c, --client=NUM         number of concurrent database clients (default: 1)\n"
		   "  -C, --connect            establish new connection for each transaction\n"
		   "  -D, --define=VARNAME=VALUE\n"
		   "                           define variable for use by custom script\n"
		   "  -j, --jobs=NUM           number of threads (default: 1)\n"
		   "  -l, --log                log each transaction's time to a file\n"
		   "  -L, --latency-limit=NUM  count transactions taking over NUM ms as late\n"
		   "  -M, --protocol=simple|extended|prepared\n"
		   "                           protocol for submitting queries (default: simple)\n"
		   "  -n, --no-vacuum          do not run VACUUM before tests\n"
		   "  -P, --progress=NUM       show thread progress report every NUM seconds\n"
		   "  -r, --report-per-command report latencies, failures, and retries per command\n"
		   "  -R, --rate=NUM           start transactions at NUM per second (Poisson schedule)\n"
		   "  -s, --scale=NUM          report this scale factor in output\n"
		   "  -t, --transactions=NUM   number of transactions each client runs (default: 10)\n"
		   "  -T, --time=NUM           duration of benchmark test in seconds\n"
		   "  -v, --vacuum-all         vacuum all four standard tables before tests\n"
		   "  --aggregate-interval=NUM log one summary line per NUM seconds\n"
		   "  --aggregate-per-script   aggregate lines per script (adds the script number)\n"
		   "  --chart=FILE             draw tps and latency over time as an SVG file\n"
		   "  --continue-on-error      continue running after an SQL error\n"
		   "  --dry-run                run the scripts without a server: execute the\n"
		   "                           meta-commands and print each SQL command\n"
		   "  --exit-on-abort          exit when any client is aborted\n"
		   "  --failures-detailed      report the failures grouped by basic types\n"
		   "  --json=FILE              also write the report as one JSON document to FILE\n"
		   "                           (\"-\": stdout; the text report then goes to stderr)\n"
		   "  --latency-histogram=FILE write the final latency histogram to FILE\n"
		   "                           (\"low_us high_us count\" lines, mergeable)\n"
		   "  --log-prefix=PREFIX      name of the -l log files (default: \"pgbench_log\")\n"
		   "  --max-tries=NUM          max number of tries to run transaction (default: 1)\n"
		   "  --percentiles=LIST       latency percentiles to report (default: 50,90,99,99.9)\n"
		   "  --progress-percentiles   add the interval's percentiles to -P progress lines\n"
		   "  --progress-timestamp     use Unix epoch timestamps for progress\n"
		   "  --random-seed=SEED       set random seed (\"time\", \"rand\", integer)\n"
		   "  --sampling-rate=NUM      share of transactions to log, e.g. 0.01 for 1%%\n"
		   "  --show-script=NAME       show builtin script code, then exit\n"
		   "  --verbose-errors         print messages of all errors\n\n"
		   "Common options:\n"
		   "  --debug                  print debugging output\n"
		   "  -d, --dbname=DBNAME      database name to connect to\n"
		   "  -h, --host=HOSTNAME      database server host or socket directory\n"
		   "  -p, --port=PORT          database server port number\n"
		   "  -U, --username=USERNAME  connect as specified database user\n"
		   "  -V, --version            output version information, then exit\n"
		   "  -?, --help               show this help, then exit\n\n"
		   "The first SIGINT or SIGTERM ends the run after the transactions in flight and\n"
		   "prints the report (exit status 128 + the signal number).\n\n"
		   "See 'man pgtempo-bench' for more information.\n");
}

/* pgbench seeds from PGBENCH_RANDOM_SEED before it reads its options. */
static bool
setup_random_seed_env(bench_settings *s)
{
	if (!setup_random_seed(getenv("PGBENCH_RANDOM_SEED"), &s->random_seed, &s->base))
	{
		msg_error("error while setting random seed from PGBENCH_RANDOM_SEED environment variable");
		return false;
	}
	return true;
}

/* Add a parsed script (NULL: script_parse reported why it could not). */
static bool
add_script(bench_settings *s, script *sc, int weight)
{
	if (sc == NULL)
		return false;
	if (s->nscripts >= SCRIPT_MAX_SCRIPTS)
	{
		msg_error("at most %d SQL scripts are allowed", SCRIPT_MAX_SCRIPTS);
		script_free(sc);
		return false;
	}
	sc->weight = weight;
	s->scripts[s->nscripts++] = sc;
	return true;
}

/* -b NAME[@W] (also -N and -S). */
static bool
add_builtin(bench_settings *s, const char *arg)
{
	char	   *name;
	int			weight;
	const builtin_script *b;
	bool		ok;

	if (!script_parse_weight(arg, &name, &weight))
		return false;
	b = script_find_builtin(name);
	free(name);
	if (b == NULL)
		return false;
	ok = add_script(s, script_parse(b->desc, b->text), weight);
	return ok;
}

/* -f FILE[@W]. */
static bool
add_file(bench_settings *s, const char *arg)
{
	char	   *name;
	int			weight;
	char	   *text;
	char	   *cause = NULL;
	bool		ok;

	if (!script_parse_weight(arg, &name, &weight))
		return false;
	text = script_read_file(name, &cause);
	if (text == NULL)
	{
		msg_error("%s", cause);
		free(cause);
	}
	ok = text != NULL && add_script(s, script_parse(name, text), weight);
	free(text);
	free(name);
	return ok;
}

/* -D NAME=VALUE. */
static bool
add_define(bench_settings *s, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char	   *name;
	char	   *err = NULL;
	bool		ok;

	if (eq == NULL)
	{
		msg_error("invalid variable definition: \"%s\"", arg);
		return false;
	}
	name = xstrndup(arg, (size_t) (eq - arg));
	ok = vars_set_string(s->defines, "option", name, eq + 1, &err);
	if (!ok)
	{
		msg_error("%s", err);
		free(err);
	}
	free(name);
	return ok;
}

/* An integer option in [min, max], with PostgreSQL's messages. */
static bool
int_option(const char *arg, const char *name, int64_t min, int64_t max, int64_t *out)
{
	char	   *cause = NULL;

	if (parse_int64(arg, name, min, max, out, &cause))
		return true;
	msg_error("%s", cause);
	free(cause);
	return false;
}

/*
 * A number in (0, max], strictly: pgbench reads -R, -L and
 * --sampling-rate with atof(), which takes "10abc" as 10 and "nan" or
 * "inf" as limits; we refuse them.
 */
static bool
positive_double(const char *arg, double max, double *out)
{
	char	   *cause = NULL;
	double		d;

	if (!parse_double(arg, "", -HUGE_VAL, HUGE_VAL, &d, &cause) || !(d > 0.0) || d > max)
	{
		free(cause);
		return false;
	}
	*out = d;
	return true;
}

/* --percentiles=LIST: up to BENCH_MAX_PERCENTILES numbers in (0, 100], comma-separated. */
static bool
parse_percentiles(const char *arg, bench_settings *s)
{
	char	   *copy = xstrdup(arg);
	char	   *save = NULL;
	int			n = 0;
	bool		ok = *arg != '\0';

	for (char *tok = strtok_r(copy, ",", &save); ok && tok != NULL; tok = strtok_r(NULL, ",", &save))
	{
		double		p;

		if (n >= BENCH_MAX_PERCENTILES || !positive_double(tok, 100.0, &p))
			ok = false;
		else
			s->percentiles[n++] = p;
	}
	free(copy);
	if (!ok || n == 0)
	{
		msg_error("invalid value \"%s\" for option --percentiles", arg);
		msg_detail("Give up to %d comma-separated percentiles, each above 0 and at most 100, e.g. 50,99,99.9.",
				   BENCH_MAX_PERCENTILES);
		return false;
	}
	s->npercentiles = n;
	return true;
}

/* What the command line asks for besides the settings. */
typedef struct cmdline
{
	bool		init_mode;		/* -i */
	bool		bench_option;	/* an option only a benchmark takes */
	bool		init_option;	/* an option only -i takes */
	init_settings init;
} cmdline;

/* -c needs a file descriptor per client: raise the soft limit as pgbench does. */
static bool
check_open_files(int nclients)
{
	struct rlimit rl;
	rlim_t		need = (rlim_t) nclients + 3;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
	{
		msg_error("getrlimit failed: %s", strerror(errno));
		return false;
	}
	if (rl.rlim_max < need)
	{
		msg_error("need at least %d open files, but system limit is %ld", nclients + 3,
				  (long) rl.rlim_max);
		msg_hint("Reduce number of clients, or use limit/ulimit to increase the system limit.");
		return false;
	}
	if (rl.rlim_cur < need)
	{
		rl.rlim_cur = need;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		{
			msg_error("need at least %d open files, but couldn't raise the limit: %s",
					  nclients + 3, strerror(errno));
			msg_hint("Reduce number of clients, or use limit/ulimit to increase the system limit.");
			return false;
		}
	}
	return true;
}

/* pgbench's checks of the logging options, in its order and words. */
static bool
check_log_options(bench_settings *s)
{
	if (s->sampling_rate > 0.0 && !s->use_log)
		msg_error("log sampling (--sampling-rate) is allowed only when logging transactions (-l)");
	else if (s->sampling_rate > 0.0 && s->agg_interval > 0)
		msg_error("log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time");
	else if (s->agg_interval > 0 && !s->use_log)
		msg_error("log aggregation is allowed only when actually logging transactions");
	else if (s->log_prefix != NULL && !s->use_log)
		msg_error("log file prefix (--log-prefix) is allowed only when logging transactions (-l)");
	else if (s->duration > 0 && s->agg_interval > s->duration)
		msg_error("number of seconds for aggregation (%d) must not be higher than test duration (%d)",
				  s->agg_interval, s->duration);
	else if (s->duration > 0 && s->agg_interval > 0 && s->duration % s->agg_interval != 0)
		msg_error("duration (%d) must be a multiple of aggregation interval (%d)", s->duration,
				  s->agg_interval);
	else if (s->agg_per_script && s->agg_interval == 0)
		msg_error("--aggregate-per-script is allowed only with --aggregate-interval");
	else if (s->progress_percentiles && s->progress == 0)
		msg_error("--progress-percentiles is allowed only under --progress");
	else if (report_stdout_outputs(s) > 1)
		msg_error("only one of --json, --latency-histogram and --chart can write to standard output");
	else
	{
		if (s->log_prefix == NULL)
			s->log_prefix = "pgbench_log";
		if (s->npercentiles == 0)
		{
			static const double defaults[] = {50, 90, 99, 99.9};

			for (int i = 0; i < 4; i++)
				s->percentiles[i] = defaults[i];
			s->npercentiles = 4;
		}
		return true;
	}
	return false;
}

static parse_status
parse_arguments(int argc, char **argv, bench_settings *s, cmdline *cl)
{
	enum
	{
		OPT_RANDOM_SEED = 256, OPT_SHOW_SCRIPT, OPT_DRY_RUN, OPT_UNLOGGED, OPT_TABLESPACE,
		OPT_INDEX_TABLESPACE, OPT_FOREIGN_KEYS, OPT_PARTITIONS, OPT_PARTITION_METHOD,
		OPT_PROGRESS_TIMESTAMP, OPT_FAILURES_DETAILED, OPT_MAX_TRIES, OPT_VERBOSE_ERRORS,
		OPT_EXIT_ON_ABORT, OPT_DEBUG, OPT_CONTINUE_ON_ERROR,
		OPT_SAMPLING_RATE, OPT_AGGREGATE_INTERVAL, OPT_LOG_PREFIX, OPT_AGGREGATE_PER_SCRIPT,
		OPT_PERCENTILES, OPT_PROGRESS_PERCENTILES, OPT_JSON, OPT_LATENCY_HISTOGRAM, OPT_CHART
	};
	static const struct option long_options[] = {
		{"builtin", required_argument, NULL, 'b'},
		{"client", required_argument, NULL, 'c'},
		{"connect", no_argument, NULL, 'C'},
		{"dbname", required_argument, NULL, 'd'},
		{"define", required_argument, NULL, 'D'},
		{"file", required_argument, NULL, 'f'},
		{"fillfactor", required_argument, NULL, 'F'},
		{"host", required_argument, NULL, 'h'},
		{"initialize", no_argument, NULL, 'i'},
		{"init-steps", required_argument, NULL, 'I'},
		{"jobs", required_argument, NULL, 'j'},
		{"log", no_argument, NULL, 'l'},
		{"latency-limit", required_argument, NULL, 'L'},
		{"no-vacuum", no_argument, NULL, 'n'},
		{"port", required_argument, NULL, 'p'},
		{"progress", required_argument, NULL, 'P'},
		{"protocol", required_argument, NULL, 'M'},
		{"quiet", no_argument, NULL, 'q'},
		{"report-per-command", no_argument, NULL, 'r'},
		{"rate", required_argument, NULL, 'R'},
		{"scale", required_argument, NULL, 's'},
		{"select-only", no_argument, NULL, 'S'},
		{"skip-some-updates", no_argument, NULL, 'N'},
		{"time", required_argument, NULL, 'T'},
		{"transactions", required_argument, NULL, 't'},
		{"username", required_argument, NULL, 'U'},
		{"vacuum-all", no_argument, NULL, 'v'},
		{"unlogged-tables", no_argument, NULL, OPT_UNLOGGED},
		{"tablespace", required_argument, NULL, OPT_TABLESPACE},
		{"index-tablespace", required_argument, NULL, OPT_INDEX_TABLESPACE},
		{"sampling-rate", required_argument, NULL, OPT_SAMPLING_RATE},
		{"aggregate-interval", required_argument, NULL, OPT_AGGREGATE_INTERVAL},
		{"progress-timestamp", no_argument, NULL, OPT_PROGRESS_TIMESTAMP},
		{"log-prefix", required_argument, NULL, OPT_LOG_PREFIX},
		{"aggregate-per-script", no_argument, NULL, OPT_AGGREGATE_PER_SCRIPT},
		{"percentiles", required_argument, NULL, OPT_PERCENTILES},
		{"progress-percentiles", no_argument, NULL, OPT_PROGRESS_PERCENTILES},
		{"json", required_argument, NULL, OPT_JSON},
		{"chart", required_argument, NULL, OPT_CHART},
		{"latency-histogram", required_argument, NULL, OPT_LATENCY_HISTOGRAM},
		{"foreign-keys", no_argument, NULL, OPT_FOREIGN_KEYS},
		{"random-seed", required_argument, NULL, OPT_RANDOM_SEED},
		{"show-script", required_argument, NULL, OPT_SHOW_SCRIPT},
		{"partitions", required_argument, NULL, OPT_PARTITIONS},
		{"partition-method", required_argument, NULL, OPT_PARTITION_METHOD},
		{"failures-detailed", no_argument, NULL, OPT_FAILURES_DETAILED},
		{"max-tries", required_argument, NULL, OPT_MAX_TRIES},
		{"verbose-errors", no_argument, NULL, OPT_VERBOSE_ERRORS},
		{"exit-on-abort", no_argument, NULL, OPT_EXIT_ON_ABORT},
		{"debug", no_argument, NULL, OPT_DEBUG},
		{"continue-on-error", no_argument, NULL, OPT_CONTINUE_ON_ERROR},
		{"dry-run", no_argument, NULL, OPT_DRY_RUN},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, '?'},
		{NULL, 0, NULL, 0}
	};
	int			c;
	int			longindex;
	int64_t		v;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-?") == 0))
	{
		usage();
		return PARSE_EXIT_OK;
	}
	if (argc > 1 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0))
	{
		printf("pgtempo-bench (pgtempo) " PACKAGE_VERSION "\n");
		return PARSE_EXIT_OK;
	}

	/* pgbench seeds from the environment first; --random-seed reseeds */
	if (!setup_random_seed_env(s))
		return PARSE_ERROR;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":b:c:Cd:D:f:F:h:iI:j:lL:M:nNp:P:qrR:s:St:T:U:vV",
							long_options, &longindex)) != -1)
	{
		switch (c)
		{
			case 'b':
				if (strcmp(optarg, "list") == 0)
				{
					script_list_builtins();
					return PARSE_EXIT_OK;
				}
				if (!add_builtin(s, optarg))
					return PARSE_ERROR;
				cl->bench_option = true;
				s->builtin_used = true;
				break;
			case 'N':
				if (!add_builtin(s, "simple-update"))
					return PARSE_ERROR;
				cl->bench_option = true;
				s->builtin_used = true;
				break;
			case 'S':
				if (!add_builtin(s, "select-only"))
					return PARSE_ERROR;
				cl->bench_option = true;
				s->builtin_used = true;
				break;
			case 'f':
				if (!add_file(s, optarg))
					return PARSE_ERROR;
				cl->bench_option = true;
				break;
			case 'D':
				if (!add_define(s, optarg))
					return PARSE_ERROR;
				cl->bench_option = true;
				break;
			case 'c':
				if (!int_option(optarg, "-c/--clients", 1, INT_MAX, &v))
					return PARSE_ERROR;
				s->nclients = (int) v;
				cl->bench_option = true;
				if (!check_open_files(s->nclients))
					return PARSE_ERROR;
				break;
			case 'C':
				s->is_connect = true;
				cl->bench_option = true;
				break;
			case 'j':
				if (!int_option(optarg, "-j/--jobs", 1, INT_MAX, &v))
					return PARSE_ERROR;
				s->nthreads = (int) v;
				cl->bench_option = true;
				break;
			case 't':
				if (!int_option(optarg, "-t/--transactions", 1, INT_MAX, &v))
					return PARSE_ERROR;
				s->transactions = v;
				cl->bench_option = true;
				break;
			case 'T':
				if (!int_option(optarg, "-T/--time", 1, INT_MAX, &v))
					return PARSE_ERROR;
				s->duration = (int) v;
				cl->bench_option = true;
				break;
			case 's':
				if (!int_option(optarg, "-s/--scale", 1, INT_MAX, &v))
					return PARSE_ERROR;
				s->scale = v;
				s->scale_given = true;
				cl->init.scale = (int) v;
				break;
			case 'M':
				if (strcmp(optarg, "simple") == 0)
					s->mode = QUERY_SIMPLE;
				else if (strcmp(optarg, "extended") == 0)
					s->mode = QUERY_EXTENDED;
				else if (strcmp(optarg, "prepared") == 0)
					s->mode = QUERY_PREPARED;
				else
				{
					msg_error("invalid query mode (-M): \"%s\"", optarg);
					return PARSE_ERROR;
				}
				cl->bench_option = true;
				break;
			case 'n':
				s->no_vacuum = true;
				cl->init.no_vacuum = true;
				break;
			case 'v':
				s->vacuum_all = true;
				cl->bench_option = true;
				break;
			case 'r':
				s->per_command = true;
				cl->bench_option = true;
				break;
			case 'P':
				if (!int_option(optarg, "-P/--progress", 1, INT_MAX, &v))
					return PARSE_ERROR;
				s->progress = (int) v;
				cl->bench_option = true;
				break;
			case OPT_PROGRESS_TIMESTAMP:
				s->progress_timestamp = true;
				cl->bench_option = true;
				break;
			case OPT_FAILURES_DETAILED:
				s->failures_detailed = true;
				cl->bench_option = true;
				break;
			case OPT_MAX_TRIES:
				{
					int64_t		n;
					char	   *cause = NULL;

					/* strict: pgbench's atoi() takes "abc" as 0, no limit at all */
					if (!parse_int64(optarg, "--max-tries", 0, INT_MAX, &n, &cause))
					{
						free(cause);
						msg_error("invalid number of maximum tries: \"%s\"", optarg);
						return PARSE_ERROR;
					}
					s->max_tries = (uint32_t) n;
					cl->bench_option = true;
				}
				break;
			case OPT_VERBOSE_ERRORS:
				s->verbose_errors = true;
				cl->bench_option = true;
				break;
			case OPT_EXIT_ON_ABORT:
				s->exit_on_abort = true;
				cl->bench_option = true;
				break;
			case OPT_CONTINUE_ON_ERROR:
				s->continue_on_error = true;
				cl->bench_option = true;
				break;
			case OPT_DEBUG:
				s->debug = true;
				break;
			case 'i':
				cl->init_mode = true;
				break;
			case 'I':
				if (!init_set_steps(&cl->init, optarg))
					return PARSE_ERROR;
				cl->init_option = true;
				break;
			case 'F':
				if (!int_option(optarg, "-F/--fillfactor", 10, 100, &v))
					return PARSE_ERROR;
				cl->init.fillfactor = (int) v;
				cl->init_option = true;
				break;
			case 'q':
				cl->init.quiet = true;
				cl->init_option = true;
				break;
			case OPT_UNLOGGED:
				cl->init.unlogged_tables = true;
				cl->init_option = true;
				break;
			case OPT_TABLESPACE:
				cl->init.tablespace = optarg;
				cl->init_option = true;
				break;
			case OPT_INDEX_TABLESPACE:
				cl->init.index_tablespace = optarg;
				cl->init_option = true;
				break;
			case OPT_FOREIGN_KEYS:
				cl->init.foreign_keys = true;
				cl->init_option = true;
				break;
			case OPT_PARTITIONS:
				if (!int_option(optarg, "--partitions", 0, INT_MAX, &v))
					return PARSE_ERROR;
				cl->init.partitions = (int) v;
				cl->init_option = true;
				break;
			case OPT_PARTITION_METHOD:
				if (!init_set_partition_method(&cl->init, optarg))
					return PARSE_ERROR;
				cl->init_option = true;
				break;
			case 'l':
				s->use_log = true;
				cl->bench_option = true;
				break;
			case 'L':
				{
					double		ms;

					/* strict, unlike pgbench's atof(): "5x" or "nan" is not 5 or a limit */
					if (!positive_double(optarg, 1e9, &ms))
					{
						msg_error("invalid latency limit: \"%s\"", optarg);
						return PARSE_ERROR;
					}
					s->latency_limit_ns = (int64_t) (ms * 1e6);
					if (s->latency_limit_ns <= 0)
						s->latency_limit_ns = 1;
					cl->bench_option = true;
					break;
				}
			case 'R':
				if (!positive_double(optarg, 1e9, &s->rate))
				{
					msg_error("invalid rate limit: \"%s\"", optarg);
					return PARSE_ERROR;
				}
				cl->bench_option = true;
				break;
			case OPT_SAMPLING_RATE:
				if (!positive_double(optarg, 1.0, &s->sampling_rate))
				{
					msg_error("invalid sampling rate: \"%s\"", optarg);
					return PARSE_ERROR;
				}
				cl->bench_option = true;
				break;
			case OPT_AGGREGATE_INTERVAL:
				if (!int_option(optarg, "--aggregate-interval", 1, INT_MAX, &v))
					return PARSE_ERROR;
				s->agg_interval = (int) v;
				cl->bench_option = true;
				break;
			case OPT_AGGREGATE_PER_SCRIPT:
				s->agg_per_script = true;
				cl->bench_option = true;
				break;
			case OPT_LOG_PREFIX:
				s->log_prefix = optarg;
				cl->bench_option = true;
				break;
			case OPT_PERCENTILES:
				if (!parse_percentiles(optarg, s))
					return PARSE_ERROR;
				cl->bench_option = true;
				break;
			case OPT_PROGRESS_PERCENTILES:
				s->progress_percentiles = true;
				cl->bench_option = true;
				break;
			case OPT_JSON:
				s->json_path = optarg;
				cl->bench_option = true;
				break;
			case OPT_LATENCY_HISTOGRAM:
				s->hist_path = optarg;
				cl->bench_option = true;
				break;
			case OPT_CHART:
				s->chart_path = optarg;
				cl->bench_option = true;
				break;
			case OPT_RANDOM_SEED:
				if (!setup_random_seed(optarg, &s->random_seed, &s->base))
				{
					msg_error("error while setting random seed from --random-seed option");
					return PARSE_ERROR;
				}
				cl->bench_option = true;
				break;
			case OPT_SHOW_SCRIPT:
				{
					const builtin_script *b = script_find_builtin(optarg);

					if (b == NULL)
						return PARSE_ERROR;
					fprintf(stderr, "-- %s: %s\n%s\n", b->name, b->desc, b->text);
					return PARSE_EXIT_OK;
				}
			case OPT_DRY_RUN:
				s->dry_run = true;
				break;
			case 'V':
				printf("pgtempo-bench (pgtempo) " PACKAGE_VERSION "\n");
				return PARSE_EXIT_OK;
			case '?':
			case ':':
				if (parse_getopt_error(c, argv))
				{
					usage();
					return PARSE_EXIT_OK;
				}
				msg_try_help();
				return PARSE_ERROR;
			default:
				/* -d -h -p -U */
				if (conn_option(&s->conn, c, optarg))
					break;
				return PARSE_ERROR;
		}
	}

	/* the default script, unless initializing */
	if (s->nscripts == 0 && !cl->init_mode)
	{
		if (!add_builtin(s, "tpcb-like"))
			return PARSE_ERROR;
		s->builtin_used = true;
		cl->bench_option = true;
	}
	s->total_weight = 0;
	for (int i = 0; i < s->nscripts; i++)
		s->total_weight += s->scripts[i]->weight;
	if (s->total_weight == 0 && !cl->init_mode)
	{
		msg_error("total script weight must not be zero");
		return PARSE_ERROR;
	}
	if (s->nthreads > s->nclients)
		s->nthreads = s->nclients;

	/* DBNAME: -d wins, as in pgbench 17 and later */
	if (optind < argc)
	{
		if (s->conn.dbname == NULL)
			s->conn.dbname = argv[optind];
		optind++;
	}
	if (optind < argc)
	{
		msg_error("too many command-line arguments (first is \"%s\")", argv[optind]);
		msg_try_help();
		return PARSE_ERROR;
	}

	if (cl->init_mode)
	{
		if (cl->bench_option || s->dry_run)
		{
			msg_error("some of the specified options cannot be used in initialization (-i) mode");
			return PARSE_ERROR;
		}
		if (!init_settings_finish(&cl->init))
			return PARSE_ERROR;
		return PARSE_OK;
	}
	if (cl->init_option)
	{
		msg_error("some of the specified options cannot be used in benchmarking mode");
		return PARSE_ERROR;
	}
	if (s->transactions > 0 && s->duration > 0)
	{
		msg_error("specify either a number of transactions (-t) or a duration (-T), not both");
		return PARSE_ERROR;
	}
	if (s->transactions <= 0 && s->duration <= 0)
		s->transactions = 10;
	if (!check_log_options(s))
		return PARSE_ERROR;
	if (s->dry_run && s->duration > 0)
	{
		msg_error("--dry-run runs a number of transactions (-t), not a duration (-T)");
		return PARSE_ERROR;
	}
	if (s->progress_timestamp && s->progress == 0)
	{
		msg_error("--progress-timestamp is allowed only under --progress");
		return PARSE_ERROR;
	}
	if (s->max_tries == 0 && s->duration <= 0 && s->latency_limit_ns == 0)
	{
		msg_error("an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)");
		return PARSE_ERROR;
	}
	/* extended and prepared mode send :variables as parameters: at most 255 */
	if (s->mode != QUERY_SIMPLE)
		for (int i = 0; i < s->nscripts; i++)
			if (!script_check_params(s->scripts[i]))
				return PARSE_ERROR;
	return PARSE_OK;
}

/* A connection string with a password in it: not shown in the chart's subtitle. */
static bool
may_hold_password(const char *arg)
{
	const char *scheme = strstr(arg, "://");

	if (strcasestr(arg, "password") != NULL)
		return true;
	/* postgresql://user:secret@host */
	if (scheme != NULL)
	{
		const char *at = strchr(scheme + 3, '@');
		const char *colon = strchr(scheme + 3, ':');

		return at != NULL && colon != NULL && colon < at;
	}
	return false;
}

/*
 * The report files are written after the run: prove now that they can be,
 * so that a bad path fails in the first second and not after the run.
 * (The -l logs are opened for real by the runner before it connects.)
 */
static bool
check_output_paths(const bench_settings *s)
{
	const char *paths[] = {s->json_path, s->hist_path, s->chart_path};
	bool		ok = true;

	for (int i = 0; i < 3; i++)
	{
		char	   *cause = NULL;

		if (paths[i] != NULL && !strbuf_check_writable(paths[i], &cause))
		{
			msg_error("%s", cause);
			free(cause);
			ok = false;
		}
	}
	return ok;
}

int
main(int argc, char **argv)
{
	bench_settings settings = {
		.nclients = 1,
		.nthreads = 1,
		.transactions = 0,
		.mode = QUERY_SIMPLE,
		.scale = 1,
		.max_tries = 1,
	};
	cmdline		cl = {.init = INIT_SETTINGS_DEFAULT};
	int			status;

	msg_set_progname(argv[0]);
	settings.defines = vars_new();
	switch (parse_arguments(argc, argv, &settings, &cl))
	{
		case PARSE_EXIT_OK:
			status = 0;
			goto done;
		case PARSE_ERROR:
			status = 1;
			goto done;
		case PARSE_OK:
			break;
	}
	settings.conn.application_name = msg_progname();
	{
		strbuf		b;

		strbuf_init(&b);
		strbuf_puts(&b, msg_progname());
		for (int i = 1; i < argc; i++)
			strbuf_printf(&b, " %s", may_hold_password(argv[i]) ? "<conninfo>" : argv[i]);
		settings.command_line = strbuf_detach(&b);
		strbuf_free(&b);
	}
	if (cl.init_mode)
		status = init_run(&cl.init, &settings.conn);
	else if (settings.dry_run)
		status = dryrun_run(&settings);
	else if (!check_output_paths(&settings))
		status = 1;
	else
	{
		bench_results res;

		if (!runner_run(&settings, &res))
			status = 1;
		else
		{
			status = results_finish(&settings, &res);
			runner_end(&settings, &res);
		}
	}
done:
	/* every mode, --help and --version too: a lost report is a failure */
	if (!msg_flush_stdout() && status == 0)
		status = 1;
	for (int i = 0; i < settings.nscripts; i++)
		script_free(settings.scripts[i]);
	vars_free(settings.defines);
	free(settings.command_line);
	init_settings_free(&cl.init);
	return status;
}
