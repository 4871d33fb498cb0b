/*
 * pg_test_timing — measure clock-read overhead and check that time never
 * goes backwards.  main() parses options into a settings struct and hands
 * over to tool_run(); everything else is in objects the tests link.
 */
#include "config.h"

#include <float.h>
#include <getopt.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/opt.h"
#include "pgtempo/parse.h"
#include "tool.h"

/*
 * The --help text, kept in step with the man page.  The page is in section
 * 1pgtempo: PostgreSQL's packages own pg_test_timing(1).
 */
static void
usage(void)
{
	printf("%s measures the overhead of reading the clock, shows how long consecutive\n"
		   "clock reads take, and checks that time never goes backwards.\n\n", msg_progname());
	printf("Usage:\n  %s [OPTION]...\n\n", msg_progname());
	printf("Options:\n"
		   "  -d, --duration=SECONDS  duration of each test pass (default 3)\n"
		   "  -c, --cutoff=PERCENT    list exact durations until this share of all reads\n"
		   "                          is covered (default 99.99; --histogram=ns)\n"
		   "      --histogram=UNIT    us: PostgreSQL 15's microsecond table (default)\n"
		   "                          ns: nanosecond table and the exact durations\n"
		   "      --clock=CLOCK       clock to test: system (default), rdtsc, rdtscp, all,\n"
		   "                          or a comma-separated list\n"
		   "      --cross-cpu         also check that the clocks of all CPUs agree\n"
		   "      --json              write one JSON document instead of the text report\n"
		   "      --json=FILE         also write the JSON document to FILE (\"-\": --json)\n"
		   "      --metrics=FILE      also write the results to FILE as Prometheus metrics\n"
		   "                          (for node_exporter's textfile collector: *.prom)\n"
		   "  -V, --version           output version information, then exit\n"
		   "  -?, --help              show this help, then exit\n\n"
		   "Exit status: 0 if all went well, 1 if time went backwards, on a usage error or\n"
		   "when the output could not be written, 128+N if interrupted by signal N (the\n"
		   "report is still printed).\n\n"
		   "See 'man 1pgtempo pg_test_timing' for more information.\n");
}

/* Parse a --clock list ("system", "rdtsc,rdtscp", "all") into s->clocks. */
static bool
parse_clocks(const char *arg, timing_settings *s)
{
	const char *p = arg;
	bool		ok = true;

	memset(s->clocks, 0, sizeof(s->clocks));
	do
	{
		size_t		len = strcspn(p, ",");
		char		name[16];
		timing_clock c;

		if (len == 0 || len >= sizeof(name))
		{
			ok = false;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		if (strcmp(name, "all") == 0)
			for (int i = 0; i < TIMING_CLOCK_COUNT; i++)
				s->clocks[i] = true;
		else if (timing_clock_parse(name, &c))
			s->clocks[c] = true;
		else
		{
			ok = false;
			break;
		}
		p += len;
	} while (*p++ == ',');
	if (!ok)
		msg_error("invalid value \"%s\" for option --clock: must be system, rdtsc, rdtscp, "
				  "all, or a comma-separated list of them", arg);
	return ok;
}

/*
 * -d and -c are pg_test_timing's own options since PostgreSQL 15 (-c since
 * 19).  A bad value gets our usual error line, naming the value, and then
 * pg_test_timing's own words, without "error:", so that whatever checks its
 * messages (PostgreSQL's own tests do) finds them: anything that is not a
 * number in range of the type is an "invalid argument", a number outside the
 * allowed range "must be in range".
 */
static opt_status
bad_argument(const opt_def *def, const char *arg)
{
	msg_error("invalid value \"%s\" for option %s", arg, def->label);
	msg_info("invalid argument for option --%s", def->name);
	return OPT_ERROR;
}

static opt_status
out_of_range(const opt_def *def, const char *arg)
{
	msg_error("invalid value \"%s\" for option %s", arg, def->label);
	msg_info("--%s must be in range %lld..%lld", def->name,
			 (long long) def->min, (long long) def->max);
	return OPT_ERROR;
}

static opt_status
handle_duration(const opt_def *def, void *ctx, const char *arg)
{
	int64_t		v;

	if (!parse_int64(arg, def->label, 0, UINT_MAX, &v, NULL))
		return bad_argument(def, arg);
	if (v < def->min || v > def->max)
		return out_of_range(def, arg);
	((timing_settings *) ctx)->duration_s = (unsigned int) v;
	return OPT_OK;
}

static opt_status
handle_cutoff(const opt_def *def, void *ctx, const char *arg)
{
	double		v;

	if (!parse_double(arg, def->label, -DBL_MAX, DBL_MAX, &v, NULL))
		return bad_argument(def, arg);
	if (v < (double) def->min || v > (double) def->max)
		return out_of_range(def, arg);
	((timing_settings *) ctx)->cutoff = v;
	return OPT_OK;
}

static opt_status
handle_histogram(const opt_def *def, void *ctx, const char *arg)
{
	timing_settings *s = ctx;

	(void) def;
	if (strcmp(arg, "us") == 0)
		s->unit = TIMING_UNIT_US;
	else if (strcmp(arg, "ns") == 0)
		s->unit = TIMING_UNIT_NS;
	else
	{
		msg_error("invalid value \"%s\" for option --histogram: must be us or ns", arg);
		return OPT_ERROR;
	}
	return OPT_OK;
}

/* --json: the JSON document on stdout (also --json=-); --json=FILE: in FILE too. */
static opt_status
handle_json(const opt_def *def, void *ctx, const char *arg)
{
	timing_settings *s = ctx;

	(void) def;
	return opt_json_arg(arg, &s->json, &s->json_path);
}

static opt_status
handle_clock(const opt_def *def, void *ctx, const char *arg)
{
	(void) def;
	return parse_clocks(arg, ctx) ? OPT_OK : OPT_ERROR;
}

static const opt_def options[] = {
	{"duration", 'd', required_argument, handle_duration, 0, 1, UINT_MAX, "-d/--duration"},
	{"cutoff", 'c', required_argument, handle_cutoff, 0, 0, 100, "-c/--cutoff"},
	{"histogram", 0, required_argument, handle_histogram},
	{"clock", 0, required_argument, handle_clock},
	{"cross-cpu", 0, no_argument, opt_true, offsetof(timing_settings, cross_cpu)},
	{"json", 0, optional_argument, handle_json},
	{"metrics", 0, required_argument, opt_file, offsetof(timing_settings, metrics_path)},
	{"version", 'V', no_argument, opt_version, .label = "pg_test_timing (pgtempo) " PACKAGE_VERSION},
	{"help", '?', no_argument, NULL},
};

/* The table, --help, and: every usage error ends with the --help hint. */
static const opt_parser parser = {options, OPT_COUNT(options), usage, true};

/* Fill the settings from the command line; report usage errors the PostgreSQL way. */
static opt_status
parse_arguments(int argc, char **argv, timing_settings *s)
{
	opt_status	st;

	if ((st = opt_parse(&parser, argc, argv, s, NULL)) != OPT_OK)
		return st;
	return opt_no_more_args(argc, argv) ? OPT_OK : OPT_ERROR;
}

int
main(int argc, char **argv)
{
	timing_settings settings = TIMING_SETTINGS_INIT;
	int			rc;

	msg_set_progname(argv[0]);
	/* --help and --version to a full disk fail too */
	if ((rc = opt_exit_status(parse_arguments(argc, argv, &settings))) >= 0)
		return rc;
	return tool_run(&settings);
}
