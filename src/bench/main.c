/*
 * pgtempo-bench — a pgbench-compatible benchmark for PostgreSQL.
 *
 * main() turns the command line into bench_settings (options.c: pgbench's
 * options and messages) and hands over to the runner (runner.c), the
 * initialization (init.c) or the dry run (dryrun.c); everything else
 * lives in objects the tests link.
 */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "outputs.h"
#include "judge/compare.h"
#include "judge/merge.h"
#include "pgtempo/exitcode.h"
#include "pgtempo/msg.h"
#include "pgtempo/opt.h"
#include "pgtempo/metrics.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"
#include "results/report.h"
#include "run/runner.h"

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
		   "                           (with --capacity: each objective against the rate)\n"
		   "  --continue-on-error      continue running after an SQL error\n"
		   "  --dry-run                run the scripts without a server: execute the\n"
		   "                           meta-commands and print each SQL command\n"
		   "  --exit-on-abort          exit when any client is aborted\n"
		   "  --failures-detailed      report the failures grouped by basic types\n"
		   "  --json                   write the report as one JSON document to stdout\n"
		   "                           (the text report then goes to stderr)\n"
		   "  --json=FILE              also write the report as one JSON document to FILE\n"
		   "                           (\"-\": as --json)\n"
		   "  --latency-histogram=FILE write the final latency histogram to FILE\n"
		   "                           (\"low_us high_us count\" lines, mergeable)\n"
		   "  --log-prefix=PREFIX      name of the -l log files (default: \"pgbench_log\")\n"
		   "  --max-tries=NUM          max number of tries to run transaction (default: 1)\n"
		   "  --metrics=FILE           also write the results as Prometheus metrics to FILE\n"
		   "                           (for node_exporter's textfile collector: *.prom;\n"
		   "                           with --capacity: the capacity, bracket and steps)\n"
		   "  --percentiles=LIST       latency percentiles to report (default: 50,90,99,99.9)\n"
		   "  --progress-percentiles   add the interval's percentiles to -P progress lines\n"
		   "  --progress-timestamp     use Unix epoch timestamps for progress\n"
		   "  --random-seed=SEED       set random seed (\"time\", \"rand\", integer)\n"
		   "  --sampling-rate=NUM      share of transactions to log, e.g. 0.01 for 1%%\n"
		   "  --show-script=NAME       show builtin script code, then exit\n"
		   "  --start-at=TIME          connect, then start at TIME (ISO 8601 with offset,\n"
		   "                           or @EPOCH): one start for runs on several hosts\n"
		   "  --sweep=RATES            with --capacity: a fixed plan of rates, not a search\n"
		   "                           (\"100,200,400\" or \"100..1600x2\"; -T: the whole plan)\n"
		   "  --sweep-share=K/N        run share K of N of the sweep (1/N of each rate, with\n"
		   "                           --start-at); --merge of the shares' --json reports\n"
		   "                           gives the capacity report (--json, --chart, --metrics,\n"
		   "                           --fail-if=capacity:<N)\n"
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


/* --compare: the outputs and --fail-if; the reports are sorted out before. */
static opt_status
handle_fail_if(const opt_def *def, void *ctx, const char *arg)
{
	cmdline    *cl = ctx;

	(void) def;
	return compare_parse_limits(&cl->cmp, arg) ? OPT_OK : OPT_ERROR;
}

/* and the options of --compare's outputs (outputs.c), put in before --help */
static const opt_def compare_options[] = {
	{"percentiles", 0, required_argument, options_percentiles},
	{"fail-if", 0, required_argument, handle_fail_if},
	{"help", '?', no_argument, NULL},
};

/*
 * Whether option arg of p takes the next argument, next, as its value (an
 * output's option whose value may be left out takes one that is not an
 * option, as handle_output does).
 */
static bool
compare_takes_value(const opt_parser *p, const char *arg, const char *next)
{
	for (size_t i = 0; i < p->ndefs; i++)
		if (p->defs[i].has_arg != no_argument && strncmp(arg, "--", 2) == 0 &&
			strcmp(arg + 2, p->defs[i].name) == 0)
			return next != NULL && (p->defs[i].has_arg == required_argument ||
									next[0] != '-' || strcmp(next, "-") == 0);
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
	opt_parser	parser = {NULL, 0, usage, true};
	opt_def    *defs = options_with_outputs(compare_options, OPT_COUNT(compare_options),
											OUTPUT_COMPARE, 0, &cl->s, &parser.ndefs);
	opt_status	st;

	parser.defs = defs;
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
			if (compare_takes_value(&parser, argv[i], argv[i + 1]))
				opts[nopts++] = argv[++i];
		}
		else if (side == 0)
			cl->cmp.base[cl->cmp.nbase++] = argv[i];
		else if (side == 1)
			cl->cmp.target[cl->cmp.ntarget++] = argv[i];
		else
			opts[nopts++] = argv[i];
	}
	cl->argc = nopts;
	cl->argv = opts;
	st = opt_parse(&parser, nopts, opts, cl, NULL);
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
	if (st == OPT_OK && !output_stdout_ok(&cl->s, OUTPUT_COMPARE))
		st = OPT_ERROR;
	free(opts);
	free(defs);
	return st;
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
	settings->outputs = outputs_table;
	settings->noutputs = outputs_count;
	switch (!options_asks(argc, argv, "--merge") && options_asks(argc, argv, "--compare") ?
			parse_compare_arguments(argc, argv, &cl) : options_parse(argc, argv, &cl, usage))
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
		status = output_check_paths(settings, OUTPUT_COMPARE) ? compare_run(settings, &cl.cmp) :
			EXITCODE_ERROR;
	/* the shares of a --sweep add up to a capacity report, not a run's */
	else if (cl.merge_mode && capsweep_is_report(argv[optind]))
		status = output_check_paths(settings, OUTPUT_CAPACITY) ?
			capsweep_merge(settings, &cl.cap, cl.allow_partial, argv + optind, argc - optind) : EXITCODE_ERROR;
	else if (cl.merge_mode && cl.cap.has_floor)
	{
		msg_error("--fail-if with --merge is for a merge of sweep reports (capacity:<N)");
		status = EXITCODE_ERROR;
	}
	else if (cl.merge_mode && (!output_only_mode(settings, OUTPUT_MERGE, "a merge of runs' reports") ||
							   !output_check_paths(settings, OUTPUT_MERGE)))
		status = EXITCODE_ERROR;
	else if (cl.merge_mode)
		status = merge_run(settings, cl.allow_partial, argv + optind, argc - optind);
	else if (cl.init_mode)
		status = init_run(&cl.init, &settings->conn);
	else if (settings->dry_run)
		status = dryrun_run(settings);
	/* the files are written after the run: a bad path fails now, not after it */
	else if (!output_check_paths(settings, cl.cap.wanted ? OUTPUT_CAPACITY : OUTPUT_RUN))
		status = EXITCODE_ERROR;
	else if (cl.cap.wanted && cl.sweep.nrates > 0)
		status = capsweep_run(settings, &cl.cap, &cl.sweep);
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
