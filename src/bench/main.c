/*
 * pgtempo-bench — a pgbench-compatible benchmark for PostgreSQL.
 *
 * main() turns the command line into bench_settings (pgbench's options
 * and messages) and hands over; everything else lives in objects the
 * tests link.  This version runs scripts with --dry-run only: the
 * runner that drives a server comes next.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "pgtempo/msg.h"
#include "pgtempo/parse.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"
#include "setup.h"

typedef enum parse_status
{
	PARSE_OK,
	PARSE_EXIT_OK,
	PARSE_ERROR
} parse_status;

static void
usage(void)
{
	printf("%s is a benchmarking tool for PostgreSQL, compatible with pgbench.\n\n",
		   msg_progname());
	printf("Usage:\n  %s [OPTION]... [DBNAME]\n\n", msg_progname());
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
		   "  -D, --define=VARNAME=VALUE\n"
		   "                           define variable for use by custom script\n"
		   "  -j, --jobs=NUM           number of threads (default: 1)\n"
		   "  -M, --protocol=simple|extended|prepared\n"
		   "                           protocol for submitting queries (default: simple)\n"
		   "  -s, --scale=NUM          value of the :scale variable (default: 1)\n"
		   "  -t, --transactions=NUM   number of transactions each client runs (default: 10)\n"
		   "  --dry-run                run the scripts without a server: execute the\n"
		   "                           meta-commands and print each SQL command\n"
		   "  --random-seed=SEED       set random seed (\"time\", \"rand\", integer)\n"
		   "  --show-script=NAME       show builtin script code, then exit\n\n"
		   "Common options:\n"
		   "  -V, --version            output version information, then exit\n"
		   "  -?, --help               show this help, then exit\n\n"
		   "This version runs scripts with --dry-run only; running against a server\n"
		   "is not implemented yet.\n\n"
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

/* Read a whole file ("-" for stdin) into memory; NULL with a message on failure. */
static char *
read_script_file(const char *path)
{
	FILE	   *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	strbuf		buf;
	char		chunk[8192];
	size_t		n;
	char	   *text = NULL;

	if (f == NULL)
	{
		msg_error("could not open file \"%s\": %s", path, strerror(errno));
		return NULL;
	}
	strbuf_init(&buf);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		strbuf_append(&buf, chunk, n);
	if (ferror(f))
		msg_error("could not read file \"%s\": %s", path, strerror(errno));
	else
		text = strbuf_detach(&buf);
	strbuf_free(&buf);
	if (f != stdin)
		fclose(f);
	return text;
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
	bool		ok;

	if (!script_parse_weight(arg, &name, &weight))
		return false;
	text = read_script_file(name);
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

static parse_status
parse_arguments(int argc, char **argv, bench_settings *s)
{
	enum
	{
		OPT_RANDOM_SEED = 256, OPT_SHOW_SCRIPT, OPT_DRY_RUN
	};
	static const struct option long_options[] = {
		{"builtin", required_argument, NULL, 'b'},
		{"client", required_argument, NULL, 'c'},
		{"define", required_argument, NULL, 'D'},
		{"file", required_argument, NULL, 'f'},
		{"jobs", required_argument, NULL, 'j'},
		{"protocol", required_argument, NULL, 'M'},
		{"scale", required_argument, NULL, 's'},
		{"select-only", no_argument, NULL, 'S'},
		{"skip-some-updates", no_argument, NULL, 'N'},
		{"transactions", required_argument, NULL, 't'},
		{"random-seed", required_argument, NULL, OPT_RANDOM_SEED},
		{"show-script", required_argument, NULL, OPT_SHOW_SCRIPT},
		{"dry-run", no_argument, NULL, OPT_DRY_RUN},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, '?'},
		{NULL, 0, NULL, 0}
	};
	int			c;
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
	while ((c = getopt_long(argc, argv, ":b:c:D:f:j:M:NSs:t:V", long_options, NULL)) != -1)
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
				break;
			case 'N':
				if (!add_builtin(s, "simple-update"))
					return PARSE_ERROR;
				break;
			case 'S':
				if (!add_builtin(s, "select-only"))
					return PARSE_ERROR;
				break;
			case 'f':
				if (!add_file(s, optarg))
					return PARSE_ERROR;
				break;
			case 'D':
				if (!add_define(s, optarg))
					return PARSE_ERROR;
				break;
			case 'c':
				if (!int_option(optarg, "-c/--client", 1, INT_MAX, &v))
					return PARSE_ERROR;
				s->nclients = (int) v;
				break;
			case 'j':
				if (!int_option(optarg, "-j/--jobs", 1, INT_MAX, &v))
					return PARSE_ERROR;
				s->nthreads = (int) v;
				break;
			case 't':
				if (!int_option(optarg, "-t/--transactions", 1, INT_MAX, &v))
					return PARSE_ERROR;
				s->transactions = v;
				break;
			case 's':
				if (!int_option(optarg, "-s/--scale", 1, INT_MAX, &v))
					return PARSE_ERROR;
				s->scale = v;
				s->scale_given = true;
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
				break;
			case OPT_RANDOM_SEED:
				if (!setup_random_seed(optarg, &s->random_seed, &s->base))
				{
					msg_error("error while setting random seed from --random-seed option");
					return PARSE_ERROR;
				}
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
				if (optopt == '?')
				{
					usage();
					return PARSE_EXIT_OK;
				}
				if (optopt > 0 && optopt < 256)
					msg_error("invalid option -- '%c'", optopt);
				else
					msg_error("unrecognized option \"%s\"", argv[optind - 1]);
				msg_hint("Try \"%s --help\" for more information.", msg_progname());
				return PARSE_ERROR;
			case ':':
				if (optopt > 0 && optopt < 256)
					msg_error("option requires an argument -- '%c'", optopt);
				else
					msg_error("option \"%s\" requires an argument", argv[optind - 1]);
				msg_hint("Try \"%s --help\" for more information.", msg_progname());
				return PARSE_ERROR;
			default:
				return PARSE_ERROR;
		}
	}
	/* one DBNAME may follow, as for pgbench; a dry run does not use it */
	if (optind < argc)
		optind++;
	if (optind < argc)
	{
		msg_error("too many command-line arguments (first is \"%s\")", argv[optind]);
		msg_hint("Try \"%s --help\" for more information.", msg_progname());
		return PARSE_ERROR;
	}

	if (s->nscripts == 0 && !add_builtin(s, "tpcb-like"))
		return PARSE_ERROR;
	s->total_weight = 0;
	for (int i = 0; i < s->nscripts; i++)
		s->total_weight += s->scripts[i]->weight;
	if (s->total_weight == 0)
	{
		msg_error("total script weight must not be zero");
		return PARSE_ERROR;
	}
	/* extended and prepared mode send :variables as parameters: at most 255 */
	if (s->mode != QUERY_SIMPLE)
		for (int i = 0; i < s->nscripts; i++)
			if (!script_check_params(s->scripts[i]))
				return PARSE_ERROR;
	if (s->nthreads > s->nclients)
		s->nthreads = s->nclients;
	return PARSE_OK;
}

int
main(int argc, char **argv)
{
	bench_settings settings = {
		.nclients = 1,
		.nthreads = 1,
		.transactions = 10,
		.mode = QUERY_SIMPLE,
		.scale = 1,
	};
	int			status;

	msg_set_progname(argv[0]);
	settings.defines = vars_new();
	switch (parse_arguments(argc, argv, &settings))
	{
		case PARSE_EXIT_OK:
			return 0;
		case PARSE_ERROR:
			return 1;
		case PARSE_OK:
			break;
	}
	if (!settings.dry_run)
	{
		msg_error("running against a server is not implemented yet; use --dry-run");
		return 1;
	}
	status = dryrun_run(&settings);
	for (int i = 0; i < settings.nscripts; i++)
		script_free(settings.scripts[i]);
	vars_free(settings.defines);
	return status;
}
