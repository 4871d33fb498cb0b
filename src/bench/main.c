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
#include <stddef.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "results/bench.h"
#include "results/benchwaits.h"
#include "run/init.h"
#include "judge/capacity.h"
#include "judge/compare.h"
#include "judge/merge.h"
#include "pgtempo/exitcode.h"
#include "pgtempo/msg.h"
#include "pgtempo/opt.h"
#include "pgtempo/parse.h"
#include "pgtempo/metrics.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"
#include "results/report.h"
#include "run/runner.h"
#include "run/setup.h"
#include "run/startat.h"

/* --help: merging and comparing runs, and the end. */
static void
usage_runs(void)
{
	printf("Merging (runs of the same benchmark on several client hosts):\n"
		   "  --merge REPORT.json...   one report from the runs' --json reports\n"
		   "  --allow-partial          leave out a report that cannot be read, with a warning\n\n"
		   "Comparing (is a change real or noise?):\n"
		   "  --compare BASE.json...   the base runs' --json reports (one or several)\n"
		   "  --to NEW.json...         the new runs' reports, compared with the base\n"
		   "  --fail-if=LIST           exit status 3 when the interval of a change lies\n"
		   "                           wholly beyond a limit, e.g. \"tps:-5%%,p99:+10%%\"\n"
		   "                           or \"tps<0.95x\"; with --capacity: \"capacity:<1500\"\n"
		   "                           exits 3 when the capacity lies wholly below 1500 tps\n\n"
		   "The first SIGINT or SIGTERM ends the run after the transactions in flight and\n"
		   "prints the report (exit status 128 + the signal number).\n\n"
		   "See 'man pgtempo-bench' for more information.\n");
}

/* --help: the initialization options. */
static void
usage_init(void)
{
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
		   "  --unlogged-tables        create tables as unlogged tables\n\n");
}

/* --help: pgbench's options and ours. */
static void
usage(void)
{
	printf("%s is a benchmarking tool for PostgreSQL, compatible with pgbench.\n\n",
		   msg_progname());
	printf("Usage:\n  %s [OPTION]... [DBNAME]\n", msg_progname());
	printf("  %s --merge [--json=FILE] [--chart=FILE] [--latency-histogram=FILE]\n"
		   "                [--percentiles=LIST] [--allow-partial] REPORT.json...\n",
		   msg_progname());
	printf("  %s --compare BASE.json... --to NEW.json... [--fail-if=LIST]\n"
		   "                [--json=FILE] [--chart=FILE] [--percentiles=LIST]\n\n", msg_progname());
	usage_init();
	printf("Options to select what to run:\n"
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
		   "  --capacity=OBJECTIVES    search for the highest -R rate meeting them, e.g.\n"
		   "                           \"p99<10ms\" (-T: the whole search's budget)\n"
		   "  --capacity-resolution=PCT  stop the search at a bracket this narrow (default: 5)\n"
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
		   "  --metrics=FILE           also write the results as Prometheus metrics to FILE\n"
		   "                           (for node_exporter's textfile collector: *.prom)\n"
		   "  --percentiles=LIST       latency percentiles to report (default: 50,90,99,99.9)\n"
		   "  --progress-percentiles   add the interval's percentiles to -P progress lines\n"
		   "  --progress-timestamp     use Unix epoch timestamps for progress\n"
		   "  --random-seed=SEED       set random seed (\"time\", \"rand\", integer)\n"
		   "  --sampling-rate=NUM      share of transactions to log, e.g. 0.01 for 1%%\n"
		   "  --show-script=NAME       show builtin script code, then exit\n"
		   "  --start-at=TIME          connect, then start at TIME (ISO 8601 with offset,\n"
		   "                           or @EPOCH): one start for runs on several hosts\n"
		   "  --verbose-errors         print messages of all errors\n"
		   "  --waits[=INTERVAL]       sample the sessions' wait events every INTERVAL\n"
		   "                           (default 10ms; units us, ms, s) and report them\n"
		   "  --warmup=SECONDS|auto[:MAX]  leave a warm-up out of the results (auto: until\n"
		   "                           tps and latency level off, at most MAX s, default 60)\n\n"
		   "Common options:\n"
		   "  --debug                  print debugging output\n"
		   "  -d, --dbname=DBNAME      database name to connect to\n"
		   "  -h, --host=HOSTNAME      database server host or socket directory\n"
		   "  -p, --port=PORT          database server port number\n"
		   "  -U, --username=USERNAME  connect as specified database user\n"
		   "  -V, --version            output version information, then exit\n"
		   "  -?, --help               show this help, then exit\n\n");
	usage_runs();
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
		msg_error("only one of --json, --latency-histogram, --chart and --metrics can write to standard output");
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

/* The command line: the settings and what it asks for besides them. */
typedef struct cmdline
{
	bench_settings s;
	bool		init_mode;		/* -i */
	bool		merge_mode;		/* --merge */
	bool		allow_partial;	/* --merge --allow-partial */
	init_settings init;
	/* --compare */
	bool		compare_mode;
	compare_settings cmp;
	capacity_settings cap;		/* --capacity (issue 36) */
} cmdline;

/* The classes of options (opt_def.flags): -i refuses the one, a run the other. */
#define BENCH_ONLY	1u
#define INIT_ONLY	2u

/* -b NAME[@W], or -b list. */
static opt_status
handle_builtin(const opt_def *def, void *ctx, const char *arg)
{
	cmdline    *cl = ctx;

	(void) def;
	if (strcmp(arg, "list") == 0)
	{
		script_list_builtins();
		return OPT_EXIT_OK;
	}
	if (!add_builtin(&cl->s, arg))
		return OPT_ERROR;
	cl->s.builtin_used = true;
	return OPT_OK;
}

/* -N and -S: the builtin script named by the label. */
static opt_status
handle_builtin_alias(const opt_def *def, void *ctx, const char *arg)
{
	(void) arg;
	return handle_builtin(def, ctx, def->label);
}

static opt_status
handle_file(const opt_def *def, void *ctx, const char *arg)
{
	(void) def;
	return add_file(&((cmdline *) ctx)->s, arg) ? OPT_OK : OPT_ERROR;
}

static opt_status
handle_define(const opt_def *def, void *ctx, const char *arg)
{
	(void) def;
	return add_define(&((cmdline *) ctx)->s, arg) ? OPT_OK : OPT_ERROR;
}

/* -c: a number, and a file descriptor for each client. */
static opt_status
handle_clients(const opt_def *def, void *ctx, const char *arg)
{
	if (opt_int(def, ctx, arg) != OPT_OK)
		return OPT_ERROR;
	return check_open_files(((cmdline *) ctx)->s.nclients) ? OPT_OK : OPT_ERROR;
}

static opt_status
handle_transactions(const opt_def *def, void *ctx, const char *arg)
{
	int64_t		v;

	if (!int_option(arg, def->label, def->min, def->max, &v))
		return OPT_ERROR;
	((cmdline *) ctx)->s.transactions = v;
	return OPT_OK;
}

/* -s: the scale to initialize, or to report. */
static opt_status
handle_scale(const opt_def *def, void *ctx, const char *arg)
{
	cmdline    *cl = ctx;
	int64_t		v;

	if (!int_option(arg, def->label, def->min, def->max, &v))
		return OPT_ERROR;
	cl->s.scale = v;
	cl->s.scale_given = true;
	cl->init.scale = (int) v;
	return OPT_OK;
}

static opt_status
handle_protocol(const opt_def *def, void *ctx, const char *arg)
{
	static const char *const names[] = {
		[QUERY_SIMPLE] = "simple", [QUERY_EXTENDED] = "extended", [QUERY_PREPARED] = "prepared"
	};

	(void) def;
	for (size_t i = 0; i < OPT_COUNT(names); i++)
		if (strcmp(arg, names[i]) == 0)
		{
			((cmdline *) ctx)->s.mode = (query_mode) i;
			return OPT_OK;
		}
	msg_error("invalid query mode (-M): \"%s\"", arg);
	return OPT_ERROR;
}

/* -n: no vacuum, before a run or in -i. */
static opt_status
handle_no_vacuum(const opt_def *def, void *ctx, const char *arg)
{
	cmdline    *cl = ctx;

	(void) def;
	(void) arg;
	cl->s.no_vacuum = true;
	cl->init.no_vacuum = true;
	return OPT_OK;
}

static opt_status
handle_max_tries(const opt_def *def, void *ctx, const char *arg)
{
	int64_t		n;
	char	   *cause = NULL;

	/* strict: pgbench's atoi() takes "abc" as 0, no limit at all */
	if (!parse_int64(arg, def->label, def->min, def->max, &n, &cause))
	{
		free(cause);
		msg_error("invalid number of maximum tries: \"%s\"", arg);
		return OPT_ERROR;
	}
	((cmdline *) ctx)->s.max_tries = (uint32_t) n;
	return OPT_OK;
}

static opt_status
handle_init_steps(const opt_def *def, void *ctx, const char *arg)
{
	(void) def;
	return init_set_steps(&((cmdline *) ctx)->init, arg) ? OPT_OK : OPT_ERROR;
}

static opt_status
handle_partition_method(const opt_def *def, void *ctx, const char *arg)
{
	(void) def;
	return init_set_partition_method(&((cmdline *) ctx)->init, arg) ? OPT_OK : OPT_ERROR;
}

/* -R and --sampling-rate: a double in (0, max]; the label names it in the message. */
static opt_status
handle_positive(const opt_def *def, void *ctx, const char *arg)
{
	if (positive_double(arg, (double) def->max, (double *) ((char *) ctx + def->field)))
		return OPT_OK;
	msg_error("invalid %s: \"%s\"", def->label, arg);
	return OPT_ERROR;
}

/* --waits[=INTERVAL]: pgtempo-waits -i's syntax and range. */
static opt_status
handle_waits(const opt_def *def, void *ctx, const char *arg)
{
	int64_t    *out = (int64_t *) ((char *) ctx + def->field);

	if (arg == NULL)
	{
		*out = BWAITS_DEFAULT_INTERVAL_NS;
		return OPT_OK;
	}
	return parse_duration_opt(arg, def->label, "ms", def->min, def->max, out) ?
		OPT_OK : OPT_ERROR;
}

/* -L, in milliseconds, kept in nanoseconds (at least 1). */
static opt_status
handle_latency_limit(const opt_def *def, void *ctx, const char *arg)
{
	bench_settings *s = &((cmdline *) ctx)->s;
	double		ms;

	/* strict, unlike pgbench's atof(): "5x" or "nan" is not 5 or a limit */
	if (!positive_double(arg, (double) def->max, &ms))
	{
		msg_error("invalid %s: \"%s\"", def->label, arg);
		return OPT_ERROR;
	}
	s->latency_limit_ns = (int64_t) (ms * 1e6);
	if (s->latency_limit_ns <= 0)
		s->latency_limit_ns = 1;
	return OPT_OK;
}

static opt_status
handle_percentiles(const opt_def *def, void *ctx, const char *arg)
{
	(void) def;
	return parse_percentiles(arg, &((cmdline *) ctx)->s) ? OPT_OK : OPT_ERROR;
}

static opt_status
handle_start_at(const opt_def *def, void *ctx, const char *arg)
{
	bench_settings *s = &((cmdline *) ctx)->s;
	char	   *cause = NULL;
	int64_t		us;

	(void) def;
	if (!parse_time(arg, "--start-at", 0, 0, &us, &cause))
		return opt_fail(cause);
	s->start_at_epoch_s = (double) us / 1e6;
	return startat_check_ahead(s->start_at_epoch_s, "is in the past:") ? OPT_OK : OPT_ERROR;
}

static opt_status
handle_random_seed(const opt_def *def, void *ctx, const char *arg)
{
	bench_settings *s = &((cmdline *) ctx)->s;

	(void) def;
	if (setup_random_seed(arg, &s->random_seed, &s->base))
		return OPT_OK;
	msg_error("error while setting random seed from --random-seed option");
	return OPT_ERROR;
}

static opt_status
handle_show_script(const opt_def *def, void *ctx, const char *arg)
{
	const builtin_script *b = script_find_builtin(arg);

	(void) def;
	(void) ctx;
	if (b == NULL)
		return OPT_ERROR;
	fprintf(stderr, "-- %s: %s\n%s\n", b->name, b->desc, b->text);
	return OPT_EXIT_OK;
}

/* --warmup=SECONDS|auto[:MAX] */
static opt_status
handle_warmup(const opt_def *def, void *ctx, const char *arg)
{
	bench_settings *s = &((cmdline *) ctx)->s;

	(void) def;
	return warmup_parse(arg, &s->warmup, &s->warmup_s) ? OPT_OK : OPT_ERROR;
}

/* --capacity=LIST, --capacity-resolution=PCT, --fail-if=capacity:<N */
static opt_status
handle_capacity(const opt_def *def, void *ctx, const char *arg)
{
	capacity_settings *c = &((cmdline *) ctx)->cap;
	bool		ok = strcmp(def->name, "capacity") == 0 ? capacity_parse_objectives(c, arg) :
		strcmp(def->name, "fail-if") == 0 ? capacity_parse_fail_if(c, arg) :
		capacity_parse_resolution(c, arg);

	return ok ? OPT_OK : OPT_ERROR;
}

#define S(f)	offsetof(cmdline, s.f)
#define I(f)	offsetof(cmdline, init.f)
#define VERSION_LINE	"pgtempo-bench (pgtempo) " PACKAGE_VERSION

/* pgbench's options and ours, in pgbench's order of its long options. */
static const opt_def options[] = {
	{"builtin", 'b', required_argument, handle_builtin, .flags = BENCH_ONLY},
	{"client", 'c', required_argument, handle_clients, S(nclients), 1, INT_MAX, "-c/--clients", .flags = BENCH_ONLY},
	{"connect", 'C', no_argument, opt_true, S(is_connect), .flags = BENCH_ONLY},
	{"dbname", 'd', required_argument, opt_conn, S(conn)},
	{"define", 'D', required_argument, handle_define, .flags = BENCH_ONLY},
	{"file", 'f', required_argument, handle_file, .flags = BENCH_ONLY},
	{"fillfactor", 'F', required_argument, opt_int, I(fillfactor), 10, 100, "-F/--fillfactor", .flags = INIT_ONLY},
	{"host", 'h', required_argument, opt_conn, S(conn)},
	{"initialize", 'i', no_argument, opt_true, offsetof(cmdline, init_mode)},
	{"init-steps", 'I', required_argument, handle_init_steps, .flags = INIT_ONLY},
	{"jobs", 'j', required_argument, opt_int, S(nthreads), 1, INT_MAX, "-j/--jobs", .flags = BENCH_ONLY},
	{"log", 'l', no_argument, opt_true, S(use_log), .flags = BENCH_ONLY},
	{"latency-limit", 'L', required_argument, handle_latency_limit, 0, 0, 1000000000, "latency limit", .flags = BENCH_ONLY},
	{"no-vacuum", 'n', no_argument, handle_no_vacuum},
	{"port", 'p', required_argument, opt_conn, S(conn)},
	{"progress", 'P', required_argument, opt_int, S(progress), 1, INT_MAX, "-P/--progress", .flags = BENCH_ONLY},
	{"protocol", 'M', required_argument, handle_protocol, .flags = BENCH_ONLY},
	{"quiet", 'q', no_argument, opt_true, I(quiet), .flags = INIT_ONLY},
	{"report-per-command", 'r', no_argument, opt_true, S(per_command), .flags = BENCH_ONLY},
	{"rate", 'R', required_argument, handle_positive, S(rate), 0, 1000000000, "rate limit", .flags = BENCH_ONLY},
	{"scale", 's', required_argument, handle_scale, 0, 1, INT_MAX, "-s/--scale"},
	{"select-only", 'S', no_argument, handle_builtin_alias, .label = "select-only", .flags = BENCH_ONLY},
	{"skip-some-updates", 'N', no_argument, handle_builtin_alias, .label = "simple-update", .flags = BENCH_ONLY},
	{"time", 'T', required_argument, opt_int, S(duration), 1, INT_MAX, "-T/--time", .flags = BENCH_ONLY},
	{"transactions", 't', required_argument, handle_transactions, 0, 1, INT_MAX, "-t/--transactions", .flags = BENCH_ONLY},
	{"username", 'U', required_argument, opt_conn, S(conn)},
	{"vacuum-all", 'v', no_argument, opt_true, S(vacuum_all), .flags = BENCH_ONLY},
	{"unlogged-tables", 0, no_argument, opt_true, I(unlogged_tables), .flags = INIT_ONLY},
	{"tablespace", 0, required_argument, opt_string, I(tablespace), .flags = INIT_ONLY},
	{"index-tablespace", 0, required_argument, opt_string, I(index_tablespace), .flags = INIT_ONLY},
	{"sampling-rate", 0, required_argument, handle_positive, S(sampling_rate), 0, 1, "sampling rate", .flags = BENCH_ONLY},
	{"aggregate-interval", 0, required_argument, opt_int, S(agg_interval), 1, INT_MAX, "--aggregate-interval", .flags = BENCH_ONLY},
	{"progress-timestamp", 0, no_argument, opt_true, S(progress_timestamp), .flags = BENCH_ONLY},
	{"log-prefix", 0, required_argument, opt_string, S(log_prefix), .flags = BENCH_ONLY},
	{"aggregate-per-script", 0, no_argument, opt_true, S(agg_per_script), .flags = BENCH_ONLY},
	{"percentiles", 0, required_argument, handle_percentiles, .flags = BENCH_ONLY},
	{"progress-percentiles", 0, no_argument, opt_true, S(progress_percentiles), .flags = BENCH_ONLY},
	{"json", 0, required_argument, opt_string, S(json_path), .flags = BENCH_ONLY},
	{"chart", 0, required_argument, opt_string, S(chart_path), .flags = BENCH_ONLY},
	{"latency-histogram", 0, required_argument, opt_string, S(hist_path), .flags = BENCH_ONLY},
	{"metrics", 0, required_argument, opt_string, S(metrics_path), .flags = BENCH_ONLY},
	{"foreign-keys", 0, no_argument, opt_true, I(foreign_keys), .flags = INIT_ONLY},
	{"random-seed", 0, required_argument, handle_random_seed, .flags = BENCH_ONLY},
	{"show-script", 0, required_argument, handle_show_script},
	{"start-at", 0, required_argument, handle_start_at, .flags = BENCH_ONLY},
	{"partitions", 0, required_argument, opt_int, I(partitions), 0, INT_MAX, "--partitions", .flags = INIT_ONLY},
	{"partition-method", 0, required_argument, handle_partition_method, .flags = INIT_ONLY},
	{"failures-detailed", 0, no_argument, opt_true, S(failures_detailed), .flags = BENCH_ONLY},
	{"max-tries", 0, required_argument, handle_max_tries, 0, 0, INT_MAX, "--max-tries", .flags = BENCH_ONLY},
	{"verbose-errors", 0, no_argument, opt_true, S(verbose_errors), .flags = BENCH_ONLY},
	{"exit-on-abort", 0, no_argument, opt_true, S(exit_on_abort), .flags = BENCH_ONLY},
	{"debug", 0, no_argument, opt_true, S(debug)},
	{"waits", 0, optional_argument, handle_waits, S(waits_ns), BWAITS_MIN_INTERVAL_NS, BWAITS_MAX_INTERVAL_NS, "--waits", .flags = BENCH_ONLY},
	{"continue-on-error", 0, no_argument, opt_true, S(continue_on_error), .flags = BENCH_ONLY},
	{"dry-run", 0, no_argument, opt_true, S(dry_run)},
	/* --warmup (issue 28) */
	{"warmup", 0, required_argument, handle_warmup, .flags = BENCH_ONLY},
	/* --capacity (issue 36) */
	{"capacity", 0, required_argument, handle_capacity, .flags = BENCH_ONLY},
	{"capacity-resolution", 0, required_argument, handle_capacity, .flags = BENCH_ONLY},
	{"fail-if", 0, required_argument, handle_capacity, .flags = BENCH_ONLY},
	{"version", 'V', no_argument, opt_version, .label = VERSION_LINE},
	{"help", '?', no_argument, NULL},
};

/* The table, --help, and: a bad value is not followed by the --help hint, as in pgbench. */
static const opt_parser parser = {options, OPT_COUNT(options), usage, false};

/* --merge takes only the options of its outputs: any other is an unknown option. */
static const opt_def merge_options[] = {
	{"merge", 0, no_argument, opt_true, offsetof(cmdline, merge_mode)},
	{"allow-partial", 0, no_argument, opt_true, offsetof(cmdline, allow_partial)},
	{"json", 0, required_argument, opt_string, S(json_path)},
	{"chart", 0, required_argument, opt_string, S(chart_path)},
	{"latency-histogram", 0, required_argument, opt_string, S(hist_path)},
	{"percentiles", 0, required_argument, handle_percentiles},
	{"help", '?', no_argument, NULL},
};
static const opt_parser merge_parser = {merge_options, OPT_COUNT(merge_options), usage, true};

/* --compare: the outputs and --fail-if; the reports are sorted out before. */
static opt_status
handle_fail_if(const opt_def *def, void *ctx, const char *arg)
{
	cmdline    *cl = ctx;

	(void) def;
	return compare_parse_limits(&cl->cmp, arg) ? OPT_OK : OPT_ERROR;
}

static const opt_def compare_options[] = {
	{"json", 0, required_argument, opt_string, S(json_path)},
	{"chart", 0, required_argument, opt_string, S(chart_path)},
	{"percentiles", 0, required_argument, handle_percentiles},
	{"fail-if", 0, required_argument, handle_fail_if},
	{"help", '?', no_argument, NULL},
};
static const opt_parser compare_parser = {compare_options, OPT_COUNT(compare_options), usage, true};

#undef S
#undef I

/* The scripts to run: those given, or the default one; their weights. */
static bool
finish_scripts(cmdline *cl, unsigned *seen)
{
	bench_settings *s = &cl->s;

	if (s->nscripts == 0 && !cl->init_mode)
	{
		if (!add_builtin(s, "tpcb-like"))
			return false;
		s->builtin_used = true;
		*seen |= BENCH_ONLY;
	}
	s->total_weight = 0;
	for (int i = 0; i < s->nscripts; i++)
		s->total_weight += s->scripts[i]->weight;
	if (s->total_weight == 0 && !cl->init_mode)
	{
		msg_error("total script weight must not be zero");
		return false;
	}
	if (s->nthreads > s->nclients)
		s->nthreads = s->nclients;
	return true;
}

/* The checks of a benchmark's settings taken together, in pgbench's order. */
static bool
check_bench_settings(bench_settings *s)
{
	if (s->transactions > 0 && s->duration > 0)
	{
		msg_error("specify either a number of transactions (-t) or a duration (-T), not both");
		return false;
	}
	if (s->transactions <= 0 && s->duration <= 0)
		s->transactions = 10;
	if (!check_log_options(s))
		return false;
	if (s->dry_run && s->duration > 0)
	{
		msg_error("--dry-run runs a number of transactions (-t), not a duration (-T)");
		return false;
	}
	if (s->dry_run && s->warmup != WARMUP_NONE)
	{
		msg_error("--dry-run runs no warm-up (--warmup)");
		return false;
	}
	if (s->progress_timestamp && s->progress == 0)
	{
		msg_error("--progress-timestamp is allowed only under --progress");
		return false;
	}
	if (s->max_tries == 0 && s->duration <= 0 && s->latency_limit_ns == 0)
	{
		msg_error("an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)");
		return false;
	}
	/* extended and prepared mode send :variables as parameters: at most 255 */
	if (s->mode != QUERY_SIMPLE)
		for (int i = 0; i < s->nscripts; i++)
			if (!script_check_params(s->scripts[i]))
				return false;
	return true;
}

/* --merge's command line: the output options, then the reports. */
static opt_status
parse_merge_arguments(int argc, char **argv, cmdline *cl)
{
	opt_status	st = opt_parse(&merge_parser, argc, argv, cl, NULL);

	if (st != OPT_OK)
		return st;
	if (optind >= argc)
	{
		msg_error("--merge needs the runs' --json reports");
		msg_hint("Try \"%s --help\" for more information.", msg_progname());
		return OPT_ERROR;
	}
	if (report_stdout_outputs(&cl->s) > 1)
	{
		msg_error("only one of --json, --latency-histogram and --chart can write to standard output");
		return OPT_ERROR;
	}
	return OPT_OK;
}

/* Whether an option of compare_options takes the next argument as its value. */
static bool
compare_takes_value(const char *arg)
{
	for (size_t i = 0; i < OPT_COUNT(compare_options); i++)
		if (compare_options[i].has_arg == required_argument && strncmp(arg, "--", 2) == 0 &&
			strcmp(arg + 2, compare_options[i].name) == 0)
			return true;
	return false;
}

/*
 * --compare's command line: the reports after --compare are the base's,
 * those after --to the new runs'; the options go to the option table.
 */
static opt_status
parse_compare_arguments(int argc, char **argv, cmdline *cl)
{
	char	  **opts = xcalloc((size_t) argc + 1, sizeof(char *));
	int			nopts = 0,
				side = -1;
	opt_status	st;

	cl->compare_mode = true;
	cl->cmp.base = xcalloc((size_t) argc, sizeof(char *));
	cl->cmp.target = xcalloc((size_t) argc, sizeof(char *));
	opts[nopts++] = argv[0];
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--compare") == 0 || strcmp(argv[i], "--to") == 0)
			side = argv[i][2] == 'c' ? 0 : 1;
		else if (argv[i][0] == '-' && argv[i][1] != '\0')
		{
			opts[nopts++] = argv[i];
			if (compare_takes_value(argv[i]) && i + 1 < argc)
				opts[nopts++] = argv[++i];
		}
		else if (side == 0)
			cl->cmp.base[cl->cmp.nbase++] = argv[i];
		else if (side == 1)
			cl->cmp.target[cl->cmp.ntarget++] = argv[i];
		else
			opts[nopts++] = argv[i];
	}
	st = opt_parse(&compare_parser, nopts, opts, cl, NULL);
	if (st == OPT_OK && (optind < nopts || cl->cmp.nbase == 0 || cl->cmp.ntarget == 0))
	{
		if (optind < nopts)
			msg_error("too many command-line arguments (first is \"%s\")", opts[optind]);
		else
			msg_error(cl->cmp.nbase == 0 ? "--compare needs the base runs' --json reports" :
					  "--compare needs --to and the new runs' --json reports");
		msg_hint("Try \"%s --help\" for more information.", msg_progname());
		st = OPT_ERROR;
	}
	if (st == OPT_OK && report_stdout_outputs(&cl->s) > 1)
	{
		msg_error("only one of --json and --chart can write to standard output");
		st = OPT_ERROR;
	}
	free(opts);
	return st;
}

/* Whether the command line asks for --merge (before "--", which ends the options). */
static bool
wants_merge(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--merge") == 0)
			return true;
	return false;
}

/* Fill cl from the command line, with pgbench's messages in pgbench's order. */
static opt_status
parse_arguments(int argc, char **argv, cmdline *cl)
{
	unsigned	seen = 0;
	opt_status	st;

	if (wants_merge(argc, argv))
		return parse_merge_arguments(argc, argv, cl);
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--compare") == 0)
			return parse_compare_arguments(argc, argv, cl);

	if (opt_help_first(&parser, argc, argv))
		return OPT_EXIT_OK;
	if (argc > 1 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0))
	{
		printf("%s\n", VERSION_LINE);
		return OPT_EXIT_OK;
	}

	/* pgbench seeds from the environment first; --random-seed reseeds */
	if (!setup_random_seed_env(&cl->s))
		return OPT_ERROR;
	if ((st = opt_parse(&parser, argc, argv, cl, &seen)) != OPT_OK)
		return st;
	if (!finish_scripts(cl, &seen))
		return OPT_ERROR;

	/* DBNAME: -d wins, as in pgbench 17 and later */
	if (optind < argc)
	{
		if (cl->s.conn.dbname == NULL)
			cl->s.conn.dbname = argv[optind];
		optind++;
	}
	if (!opt_no_more_args(argc, argv))
		return OPT_ERROR;

	if (cl->init_mode)
	{
		if ((seen & BENCH_ONLY) || cl->s.dry_run)
		{
			msg_error("some of the specified options cannot be used in initialization (-i) mode");
			return OPT_ERROR;
		}
		return init_settings_finish(&cl->init) ? OPT_OK : OPT_ERROR;
	}
	if (seen & INIT_ONLY)
	{
		msg_error("some of the specified options cannot be used in benchmarking mode");
		return OPT_ERROR;
	}
	return check_bench_settings(&cl->s) && capacity_check(&cl->cap, &cl->s) ? OPT_OK : OPT_ERROR;
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

/* The command line for the chart's subtitle, passwords left out. */
static char *
command_line_text(int argc, char **argv)
{
	strbuf		b;
	char	   *text;

	strbuf_init(&b);
	strbuf_puts(&b, msg_progname());
	for (int i = 1; i < argc; i++)
		strbuf_printf(&b, " %s", may_hold_password(argv[i]) ? "<conninfo>" : argv[i]);
	text = strbuf_detach(&b);
	return text;
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
	char	   *cause = NULL;

	for (int i = 0; i < 3; i++)
	{
		if (paths[i] != NULL && !strbuf_check_writable(paths[i], &cause))
		{
			msg_error("%s", cause);
			free(cause);
			ok = false;
		}
	}
	/* the metrics file also needs its temporary file beside it */
	if (s->metrics_path != NULL && !metrics_check_path(s->metrics_path, &cause))
	{
		msg_error("%s", cause);
		free(cause);
		ok = false;
	}
	return ok;
}

int
main(int argc, char **argv)
{
	cmdline		cl = {
		.s = {
			.nclients = 1,
			.nthreads = 1,
			.transactions = 0,
			.mode = QUERY_SIMPLE,
			.scale = 1,
			.max_tries = 1,
		},
		.init = INIT_SETTINGS_DEFAULT,
	};
	bench_settings *settings = &cl.s;
	int			status;

	msg_set_progname(argv[0]);
	settings->defines = vars_new();
	switch (parse_arguments(argc, argv, &cl))
	{
		case OPT_EXIT_OK:
			status = EXITCODE_OK;
			goto done;
		case OPT_ERROR:
			status = EXITCODE_ERROR;
			goto done;
		case OPT_OK:
			break;
	}
	settings->conn.application_name = msg_progname();
	settings->command_line = command_line_text(argc, argv);
	if (cl.compare_mode)
		status = check_output_paths(settings) ? compare_run(settings, &cl.cmp) : EXITCODE_ERROR;
	else if (cl.merge_mode)
		status = check_output_paths(settings) ?
			merge_run(settings, cl.allow_partial, argv + optind, argc - optind) :
			EXITCODE_ERROR;
	else if (cl.init_mode)
		status = init_run(&cl.init, &settings->conn);
	else if (settings->dry_run)
		status = dryrun_run(settings);
	else if (!check_output_paths(settings))
		status = EXITCODE_ERROR;
	else if (cl.cap.wanted)
		status = capacity_run(settings, &cl.cap);
	else
	{
		bench_results res;

		if (!runner_run(settings, &res))
			status = results_not_started(settings);
		else
		{
			status = results_finish(settings, &res);
			runner_end(settings, &res);
		}
	}
done:
	/* every mode, --help and --version too: a lost report is a failure */
	if (!msg_flush_stdout() && status == EXITCODE_OK)
		status = EXITCODE_ERROR;
	for (int i = 0; i < settings->nscripts; i++)
		script_free(settings->scripts[i]);
	vars_free(settings->defines);
	free(settings->command_line);
	init_settings_free(&cl.init);
	free(cl.cmp.base);
	free(cl.cmp.target);
	return status;
}
