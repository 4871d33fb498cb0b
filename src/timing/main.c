/*
 * pg_test_timing — measure clock-read overhead and check that time never
 * goes backwards.  main() parses options into a settings struct and hands
 * over to tool_run(); everything else is in objects the tests link.
 */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/parse.h"
#include "tool.h"

typedef enum parse_status
{
	PARSE_OK,					/* run with these settings */
	PARSE_EXIT_OK,				/* --help or --version was printed */
	PARSE_ERROR					/* a usage error was reported */
} parse_status;

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

static parse_status
parse_arguments(int argc, char **argv, timing_settings *s)
{
	enum
	{
		OPT_HISTOGRAM = 256, OPT_CLOCK, OPT_CROSS_CPU, OPT_JSON
	};
	static const struct option long_options[] = {
		{"duration", required_argument, NULL, 'd'},
		{"cutoff", required_argument, NULL, 'c'},
		{"histogram", required_argument, NULL, OPT_HISTOGRAM},
		{"clock", required_argument, NULL, OPT_CLOCK},
		{"cross-cpu", no_argument, NULL, OPT_CROSS_CPU},
		{"json", no_argument, NULL, OPT_JSON},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, '?'},
		{NULL, 0, NULL, 0}
	};
	int			c;
	int64_t		ival;
	char	   *cause = NULL;

	/* -? is also getopt's error return, so take --help/-? first, as PostgreSQL does */
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-?") == 0))
	{
		usage();
		return PARSE_EXIT_OK;
	}

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:c:V", long_options, NULL)) != -1)
	{
		switch (c)
		{
			case 'd':
				if (!parse_int64(optarg, "-d/--duration", 1, UINT_MAX, &ival, &cause))
					goto bad_value;
				s->duration_s = (unsigned int) ival;
				break;
			case 'c':
				if (!parse_double(optarg, "-c/--cutoff", 0, 100, &s->cutoff, &cause))
					goto bad_value;
				break;
			case OPT_HISTOGRAM:
				if (strcmp(optarg, "us") == 0)
					s->unit = TIMING_UNIT_US;
				else if (strcmp(optarg, "ns") == 0)
					s->unit = TIMING_UNIT_NS;
				else
				{
					msg_error("invalid value \"%s\" for option --histogram: must be us or ns",
							  optarg);
					goto usage_error;
				}
				break;
			case OPT_CLOCK:
				if (!parse_clocks(optarg, s))
					goto usage_error;
				break;
			case OPT_CROSS_CPU:
				s->cross_cpu = true;
				break;
			case OPT_JSON:
				s->json = true;
				break;
			case 'V':
				printf("pg_test_timing (pgtempo) " PACKAGE_VERSION "\n");
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
				goto usage_error;
		}
	}
	if (optind < argc)
	{
		msg_error("too many command-line arguments (first is \"%s\")", argv[optind]);
		goto usage_error;
	}
	return PARSE_OK;

bad_value:
	msg_error("%s", cause);
	free(cause);
usage_error:
	msg_try_help();
	return PARSE_ERROR;
}

int
main(int argc, char **argv)
{
	timing_settings settings = TIMING_SETTINGS_INIT;

	msg_set_progname(argv[0]);
	switch (parse_arguments(argc, argv, &settings))
	{
		case PARSE_EXIT_OK:
			/* --help and --version to a full disk fail too */
			return msg_flush_stdout() ? 0 : 1;
		case PARSE_ERROR:
			return 1;
		case PARSE_OK:
			break;
	}
	return tool_run(&settings);
}
