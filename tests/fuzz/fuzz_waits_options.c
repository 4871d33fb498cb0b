/*
 * fuzz_waits_options.c — libFuzzer target for pgtempo-waits' option
 * value parsers.
 *
 * Each input is one option value (up to its first NUL byte).  It goes
 * through every parser main() calls for a value that is more than a
 * plain string: --by, --source, --pid, --log-format, the log-format
 * guess from a file name, --query-text, and the durations of -i, -T,
 * --log-interval and --store-interval with main()'s units and ranges,
 * --log-retain and the times of --since and --until.
 * A parser must either accept the value with a result in range or
 * return a message.  Built and run by "make fuzz"; not part of make
 * check.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/parse.h"

#include "histfield.h"
#include "options.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A parser that fails must say why; one that succeeds must not. */
static void
check_cause(bool ok, char *cause)
{
	if (ok != (cause == NULL))
		abort();
	free(cause);
}

/* A duration as main() parses it: in range when accepted. */
static void
fuzz_duration(const char *arg, const char *name, const char *unit, int64_t min, int64_t max)
{
	int64_t		v = 0;
	char	   *cause = NULL;
	bool		ok = parse_duration_ns(arg, name, unit, min, max, &v, &cause);

	if (ok && (v < min || v > max))
		abort();
	check_cause(ok, cause);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *arg = malloc(size + 1);
	char	   *cause = NULL;
	waits_settings s = WAITS_SETTINGS_INIT;
	waits_log_format fmt;
	int64_t		ival;
	bool		ok;

	memcpy(arg, data, size);
	arg[size] = '\0';

	ok = options_parse_by(arg, &s, &cause);
	if (ok && (s.nby < 1 || s.nby > WPROF_DIM_COUNT))
		abort();
	check_cause(ok, cause);
	cause = NULL;

	check_cause(options_parse_source(arg, &s, &cause), cause);
	cause = NULL;

	ok = options_parse_pids(arg, &s, &cause);
	for (int i = 0; ok && i < s.npids; i++)
		if (s.pids[i] < 1)
			abort();
	check_cause(ok, cause);
	cause = NULL;
	free(s.pids);

	check_cause(options_parse_log_format(arg, &s, &cause), cause);
	cause = NULL;
	fmt = options_log_format_for(arg, WAITS_LOG_AUTO);
	if (fmt != WAITS_LOG_CSV && fmt != WAITS_LOG_JSONL)
		abort();

	ok = parse_int64(arg, "--query-text", 1, 1000000, &ival, &cause);
	if (ok && (ival < 1 || ival > 1000000))
		abort();
	check_cause(ok, cause);

	/* the units and ranges of main.c */
	fuzz_duration(arg, "-i/--interval", "ms", 10 * (int64_t) NS_PER_US, 60 * (int64_t) NS_PER_S);
	fuzz_duration(arg, "-T/--duration", "s", (int64_t) NS_PER_MS, 604800 * (int64_t) NS_PER_S);
	fuzz_duration(arg, "--log-interval", "s", (int64_t) NS_PER_S, 86400 * (int64_t) NS_PER_S);
	fuzz_duration(arg, "--store-interval", "s", (int64_t) NS_PER_S, 86400 * (int64_t) NS_PER_S);

	/* --log-retain: an age or a size, positive */
	{
		int64_t		age,
					bytes;

		cause = NULL;
		ok = options_parse_retain(arg, &s, &cause);
		age = s.log_retain_ns;
		bytes = s.log_retain_bytes;
		if (ok && (age < 0 || bytes < 0 || (age == 0) == (bytes == 0)))
			abort();
		check_cause(ok, cause);
		cause = NULL;
	}
	/* --listen: a host and a port in range, or a message */
	ok = options_parse_listen(arg, &s, &cause);
	if (ok && (s.listen_host == NULL || s.listen_port < 0 || s.listen_port > 65535))
		abort();
	check_cause(ok, cause);
	cause = NULL;
	free(s.listen_host);

	/* --since/--until: a time, or a message */
	{
		int64_t		us;

		check_cause(parse_time(arg, "--since", PARSE_TIME_LOCAL, INT64_C(1795694400000000), &us,
						       &cause), cause);
		cause = NULL;
	}

	free(arg);
	return 0;
}
