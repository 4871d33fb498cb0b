/*
 * options.c — pgtempo-bench's command line (see options.h): pgbench's
 * options and ours, their handlers and checks, and --merge's.
 */
#include "config.h"

#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "pgtempo/msg.h"
#include "pgtempo/parse.h"
#include "pgtempo/xalloc.h"
#include "results/benchwaits.h"
#include "results/report.h"
#include "run/setup.h"
#include "run/startat.h"

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
	else if (output_stdout_ok(s, OUTPUT_RUN))
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

/* --percentiles=LIST (also --merge's and --compare's). */
opt_status
options_percentiles(const opt_def *def, void *ctx, const char *arg)
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

/* --sweep=RATES, --sweep-share=K/N */
static opt_status
handle_sweep(const opt_def *def, void *ctx, const char *arg)
{
	capsweep_plan *p = &((cmdline *) ctx)->sweep;
	bool		ok = strcmp(def->name, "sweep") == 0 ? capsweep_parse_rates(p, arg) :
		capsweep_parse_share(p, arg);

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
	{"percentiles", 0, required_argument, options_percentiles, .flags = BENCH_ONLY},
	{"progress-percentiles", 0, no_argument, opt_true, S(progress_percentiles), .flags = BENCH_ONLY},
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
	{"capacity", 0, required_argument, handle_capacity, .flags = BENCH_ONLY},
	{"capacity-resolution", 0, required_argument, handle_capacity, .flags = BENCH_ONLY},
	{"fail-if", 0, required_argument, handle_capacity, .flags = BENCH_ONLY},
	{"sweep", 0, required_argument, handle_sweep, .flags = BENCH_ONLY},
	{"sweep-share", 0, required_argument, handle_sweep, .flags = BENCH_ONLY},
	{"version", 'V', no_argument, opt_version, .label = VERSION_LINE},
	{"help", '?', no_argument, NULL},
};


/* --merge takes only the options of its outputs: any other is an unknown option. */
static const opt_def merge_options[] = {
	{"merge", 0, no_argument, opt_true, offsetof(cmdline, merge_mode)},
	{"allow-partial", 0, no_argument, opt_true, offsetof(cmdline, allow_partial)},
	{"percentiles", 0, required_argument, options_percentiles},
	/* a merge of sweep reports: --fail-if=capacity:<N */
	{"fail-if", 0, required_argument, handle_capacity},
	{"help", '?', no_argument, NULL},
};

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

/*
 * An output's option: its path, or the table's bare one when it comes
 * without (--json); "--json FILE" still names a file, as when the option
 * required a value.
 */
static opt_status
handle_output(const opt_def *def, void *ctx, const char *arg)
{
	cmdline    *cl = ctx;

	if (arg == NULL && optind < cl->argc &&
		(cl->argv[optind][0] != '-' || strcmp(cl->argv[optind], "-") == 0))
		arg = cl->argv[optind++];
	*(const char **) ((char *) ctx + def->field) = arg != NULL ? arg : def->label;
	return OPT_OK;
}

opt_def *
options_with_outputs(const opt_def *own, size_t n, output_mode mode, unsigned flags,
					 const bench_settings *s, size_t *count)
{
	opt_def    *v = xcalloc(n + (size_t) s->noutputs, sizeof(opt_def));
	size_t		k = 0;

	for (size_t i = 0; i + 1 < n; i++)
		v[k++] = own[i];
	for (int i = 0; i < s->noutputs; i++)
	{
		const output_def *d = &s->outputs[i];

		/* --merge also reads sweep reports, whose outputs are a capacity report's */
		if (!output_in_mode(d, mode) && !(mode == OUTPUT_MERGE && output_in_mode(d, OUTPUT_CAPACITY)))
			continue;
		v[k] = (opt_def) {
			d->option, 0, d->bare != NULL ? optional_argument : required_argument, handle_output,
			offsetof(cmdline, s) + d->field, .label = d->bare, .flags = flags
		};
		k++;
	}
	v[k++] = own[n - 1];
	*count = k;
	return v;
}

/* --merge's command line: the output options, then the reports. */
static opt_status
parse_merge_arguments(int argc, char **argv, cmdline *cl, void (*usage) (void))
{
	opt_parser	merge_parser = {NULL, 0, usage, true};
	opt_def    *defs = options_with_outputs(merge_options, OPT_COUNT(merge_options), OUTPUT_MERGE, 0,
											&cl->s, &merge_parser.ndefs);
	opt_status	st;

	merge_parser.defs = defs;
	st = opt_parse(&merge_parser, argc, argv, cl, NULL);
	free(defs);
	if (st != OPT_OK)
		return st;
	if (optind >= argc)
	{
		msg_error("--merge needs the runs' --json reports");
		msg_hint("Try \"%s --help\" for more information.", msg_progname());
		return OPT_ERROR;
	}
	return output_stdout_ok(&cl->s, OUTPUT_MERGE) ? OPT_OK : OPT_ERROR;
}

bool
options_asks(int argc, char **argv, const char *option)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], option) == 0)
			return true;
	return false;
}

/* A run's or -i's command line, with the parser of their options. */
static opt_status
parse_run_arguments(const opt_parser *p, int argc, char **argv, cmdline *cl)
{
	unsigned	seen = 0;
	opt_status	st;

	if (opt_help_first(p, argc, argv))
		return OPT_EXIT_OK;
	if (argc > 1 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0))
	{
		printf("%s\n", VERSION_LINE);
		return OPT_EXIT_OK;
	}

	/* pgbench seeds from the environment first; --random-seed reseeds */
	if (!setup_random_seed_env(&cl->s))
		return OPT_ERROR;
	if ((st = opt_parse(p, argc, argv, cl, &seen)) != OPT_OK)
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
	return check_bench_settings(&cl->s) && capacity_check(&cl->cap, &cl->s) &&
		capsweep_check(&cl->sweep, &cl->cap, &cl->s) ? OPT_OK : OPT_ERROR;
}

opt_status
options_parse(int argc, char **argv, cmdline *cl, void (*usage) (void))
{
	/* a bad value is not followed by the --help hint, as in pgbench */
	opt_parser	parser = {NULL, 0, usage, false};
	opt_def    *defs;
	opt_status	st;

	cl->argc = argc;
	cl->argv = argv;
	if (options_asks(argc, argv, "--merge"))
		return parse_merge_arguments(argc, argv, cl, usage);
	defs = options_with_outputs(options, OPT_COUNT(options), OUTPUT_RUN, BENCH_ONLY, &cl->s,
								&parser.ndefs);
	parser.defs = defs;
	st = parse_run_arguments(&parser, argc, argv, cl);
	free(defs);
	return st;
}
