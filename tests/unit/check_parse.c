/*
 * check_parse.c — unit tests of strict option value parsing.
 */
#include "config.h"

#include "pgtempo/parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "unit.h"

/* Returned in *out by a case that must not touch it. */
#define UNTOUCHED_INT	INT64_C(-424242)
#define UNTOUCHED_DBL	-4242.5

/*
 * want_cause NULL means the value must be accepted as want; otherwise it
 * must be refused with exactly that message and *out left alone.
 */
static const struct
{
	const char *in;
	const char *opt;
	int64_t		min;
	int64_t		max;
	int64_t		want;
	const char *want_cause;
}			int64_cases[] = {
	{"0", "-c/--client", 0, 10, 0, NULL},
	{"7", "-c/--client", 1, 100, 7, NULL},
	{" 7 ", "-c/--client", 1, 100, 7, NULL},
	{"\t7\n", "-c/--client", 1, 100, 7, NULL},
	{"+5", "-c/--client", 1, 100, 5, NULL},
	{"-0", "-c/--client", 0, 100, 0, NULL},
	{"-17", "-x", -100, 100, -17, NULL},
	{"010", "-c/--client", 0, 100, 10, NULL},
	{"00000000000000000000000000042", "-c/--client", 0, 100, 42, NULL},
	{"9223372036854775807", "-n", INT64_MIN, INT64_MAX, INT64_MAX, NULL},
	{"-9223372036854775808", "-n", INT64_MIN, INT64_MAX, INT64_MIN, NULL},
	{"9223372036854775808", "-n", INT64_MIN, INT64_MAX, 0,
	"invalid value \"9223372036854775808\" for option -n"},
	{"-9223372036854775809", "-n", INT64_MIN, INT64_MAX, 0,
	"invalid value \"-9223372036854775809\" for option -n"},
	{"99999999999999999999", "-c/--client", 1, 2147483647, 0,
	"invalid value \"99999999999999999999\" for option -c/--client"},
	{"12abc", "-c/--client", 1, 100, 0, "invalid value \"12abc\" for option -c/--client"},
	{"abc", "-c/--client", 1, 100, 0, "invalid value \"abc\" for option -c/--client"},
	{"", "-c/--client", 0, 100, 0, "invalid value \"\" for option -c/--client"},
	{"   ", "-c/--client", 0, 100, 0, "invalid value \"   \" for option -c/--client"},
	{"0x10", "-c/--client", 0, 100, 0, "invalid value \"0x10\" for option -c/--client"},
	{"1.5", "-c/--client", 0, 100, 0, "invalid value \"1.5\" for option -c/--client"},
	{"1e3", "-c/--client", 0, 10000, 0, "invalid value \"1e3\" for option -c/--client"},
	{"- 5", "-x", -100, 100, 0, "invalid value \"- 5\" for option -x"},
	{"5 5", "-x", -100, 100, 0, "invalid value \"5 5\" for option -x"},
	{"+", "-x", -100, 100, 0, "invalid value \"+\" for option -x"},
	{"0", "-c/--client", 1, 2147483647, 0, "-c/--client must be in range 1..2147483647"},
	{"-1", "-j/--jobs", 0, 100, 0, "-j/--jobs must be in range 0..100"},
	{"4294967296", "-d/--duration", 1, 4294967295LL, 0,
	"-d/--duration must be in range 1..4294967295"},
	{"-5", "-x", INT64_MIN + 1, -6, 0, "-x must be in range -9223372036854775807..-6"},
};

START_TEST(test_int64_cases)
{
	int64_t		out = UNTOUCHED_INT;
	char	   *cause = NULL;
	bool		ok;

	ok = parse_int64(int64_cases[_i].in, int64_cases[_i].opt, int64_cases[_i].min,
					 int64_cases[_i].max, &out, &cause);
	if (int64_cases[_i].want_cause == NULL)
	{
		ck_assert_msg(ok, "\"%s\" refused: %s", int64_cases[_i].in, cause);
		ck_assert_int_eq(out, int64_cases[_i].want);
		ck_assert_ptr_null(cause);
	}
	else
	{
		ck_assert_msg(!ok, "\"%s\" accepted as %lld", int64_cases[_i].in, (long long) out);
		ck_assert_ptr_nonnull(cause);
		ck_assert_str_eq(cause, int64_cases[_i].want_cause);
		ck_assert_int_eq(out, UNTOUCHED_INT);
	}
	free(cause);
}
END_TEST

static const struct
{
	const char *in;
	const char *opt;
	double		min;
	double		max;
	double		want;
	const char *want_cause;
}			double_cases[] = {
	{"1e3", "-r/--rate", 0, 1e9, 1000, NULL},
	{"0.5", "-r/--rate", 0, 10, 0.5, NULL},
	{" 2.5 ", "-r/--rate", 0, 10, 2.5, NULL},
	{"0.1", "-r/--rate", 0, 10, 0.1, NULL},
	{".25", "-r/--rate", 0, 10, 0.25, NULL},
	{"5.", "-r/--rate", 0, 10, 5, NULL},
	{"-1.5E-2", "-x", -1, 1, -0.015, NULL},
	{"+7", "-x", 0, 10, 7, NULL},
	{"100", "-c/--cutoff", 0, 100, 100, NULL},
	{"nan", "-r/--rate", 0, 10, 0, "invalid value \"nan\" for option -r/--rate"},
	{"NaN", "-r/--rate", 0, 10, 0, "invalid value \"NaN\" for option -r/--rate"},
	{"inf", "-r/--rate", 0, 1e300, 0, "invalid value \"inf\" for option -r/--rate"},
	{"-infinity", "-x", -1e300, 1, 0, "invalid value \"-infinity\" for option -x"},
	{"1e999", "-r/--rate", 0, 1e300, 0, "invalid value \"1e999\" for option -r/--rate"},
	{"0x10", "-r/--rate", 0, 100, 0, "invalid value \"0x10\" for option -r/--rate"},
	{"1,5", "-r/--rate", 0, 100, 0, "invalid value \"1,5\" for option -r/--rate"},
	{"1e", "-r/--rate", 0, 100, 0, "invalid value \"1e\" for option -r/--rate"},
	{"1.2.3", "-r/--rate", 0, 100, 0, "invalid value \"1.2.3\" for option -r/--rate"},
	{"", "-r/--rate", 0, 100, 0, "invalid value \"\" for option -r/--rate"},
	{" ", "-r/--rate", 0, 100, 0, "invalid value \" \" for option -r/--rate"},
	{"12abc", "-r/--rate", 0, 100, 0, "invalid value \"12abc\" for option -r/--rate"},
	{"101", "-c/--cutoff", 0, 100, 0, "-c/--cutoff must be in range 0..100"},
	{"-0.5", "-c/--cutoff", 0, 100, 0, "-c/--cutoff must be in range 0..100"},
	{"0.05", "-s/--sampling-rate", 0.1, 1.5, 0, "-s/--sampling-rate must be in range 0.1..1.5"},
};

START_TEST(test_double_cases)
{
	double		out = UNTOUCHED_DBL;
	char	   *cause = NULL;
	bool		ok;

	ok = parse_double(double_cases[_i].in, double_cases[_i].opt, double_cases[_i].min,
					  double_cases[_i].max, &out, &cause);
	if (double_cases[_i].want_cause == NULL)
	{
		ck_assert_msg(ok, "\"%s\" refused: %s", double_cases[_i].in, cause);
		ck_assert_msg(out == double_cases[_i].want, "\"%s\" parsed as %.17g, want %.17g",
					  double_cases[_i].in, out, double_cases[_i].want);
		ck_assert_ptr_null(cause);
	}
	else
	{
		ck_assert_msg(!ok, "\"%s\" accepted as %.17g", double_cases[_i].in, out);
		ck_assert_ptr_nonnull(cause);
		ck_assert_str_eq(cause, double_cases[_i].want_cause);
		ck_assert_msg(out == UNTOUCHED_DBL, "*out was changed to %.17g", out);
	}
	free(cause);
}
END_TEST

/* -0 is accepted and keeps its sign; nothing else distinguishes it from 0. */
START_TEST(test_double_negative_zero)
{
	double		out = UNTOUCHED_DBL;
	char	   *cause = NULL;

	ck_assert(parse_double("-0", "-x", -1, 1, &out, &cause));
	ck_assert(out == 0.0);
	ck_assert(signbit(out));
	ck_assert_ptr_null(cause);
}
END_TEST

#define MS	INT64_C(1000000)
#define S	INT64_C(1000000000)

static const struct
{
	const char *in;
	const char *unit;
	int64_t		min;
	int64_t		max;
	int64_t		want;
	const char *want_cause;
}			duration_cases[] = {
	{"10ms", "s", 0, INT64_MAX, 10 * MS, NULL},
	{"1.5 s", "s", 0, INT64_MAX, 1500 * MS, NULL},
	{"250us", "s", 0, INT64_MAX, 250000, NULL},
	{"2min", "s", 0, INT64_MAX, 120 * S, NULL},
	{"1h", "s", 0, INT64_MAX, 3600 * S, NULL},
	{"2.5h", "ms", 0, INT64_MAX, 9000 * S, NULL},
	{"0.1min", "s", 0, INT64_MAX, 6 * S, NULL},
	{"10", "s", 0, INT64_MAX, 10 * S, NULL},
	{"10", "ms", 0, INT64_MAX, 10 * MS, NULL},
	{"10", "us", 0, INT64_MAX, 10000, NULL},
	{"10", "min", 0, INT64_MAX, 600 * S, NULL},
	{"0.5", "ms", 0, INT64_MAX, 500000, NULL},
	{".25s", "ms", 0, INT64_MAX, 250 * MS, NULL},
	{"3.", "s", 0, INT64_MAX, 3 * S, NULL},
	{" 3 ms ", "s", 0, INT64_MAX, 3 * MS, NULL},
	{"\t3\tms\n", "s", 0, INT64_MAX, 3 * MS, NULL},
	{"+4s", "s", 0, INT64_MAX, 4 * S, NULL},
	{"-0", "s", 0, INT64_MAX, 0, NULL},
	{"-5ms", "s", -10 * S, INT64_MAX, -5 * MS, NULL},
	{"-1.5us", "us", -10 * S, INT64_MAX, -1500, NULL},
	/* days: the shift a week's comparison wants, and --log-retain's ages */
	{"7d", "s", 0, INT64_MAX, 7 * 86400 * S, NULL},
	{"1.5d", "s", 0, INT64_MAX, 129600 * S, NULL},
	{"3650 d", "s", 0, INT64_MAX, 3650 * 86400 * S, NULL},
	{"0.00000000000001d", "s", 0, INT64_MAX, 1, NULL},
	{"106751.99116730064d", "s", 0, INT64_MAX, INT64_C(9223372036854775296), NULL},
	{"106752d", "s", 0, INT64_MAX, 0, "invalid value \"106752d\" for option -T/--time"},
	/* no default unit: the unit must be given, and a range error is an invalid value */
	{"90min", NULL, S, INT64_MAX, 5400 * S, NULL},
	{"90", NULL, S, INT64_MAX, 0, "invalid value \"90\" for option -T/--time"},
	{"0.5s", NULL, S, INT64_MAX, 0, "invalid value \"0.5s\" for option -T/--time"},
	{"-1d", NULL, S, INT64_MAX, 0, "invalid value \"-1d\" for option -T/--time"},
	/* rounding to the nearest nanosecond, halves away from zero */
	{"1.0000004ms", "s", 0, INT64_MAX, MS, NULL},
	{"1.0000005ms", "s", 0, INT64_MAX, MS + 1, NULL},
	{"0.0000000005s", "s", 0, INT64_MAX, 1, NULL},
	{"0.00000000049999999999s", "s", 0, INT64_MAX, 0, NULL},
	{"-0.0015us", "s", -S, S, -2, NULL},
	{"0.0000000000166666667min", "s", 0, INT64_MAX, 1, NULL},
	/* the limits of int64_t nanoseconds, computed without a double */
	{"9223372036.854775807s", "s", 0, INT64_MAX, INT64_MAX, NULL},
	{"-9223372036.854775807s", "s", -INT64_MAX, 0, -INT64_MAX, NULL},
	{"9223372036.854775808s", "s", 0, INT64_MAX, 0,
	"invalid value \"9223372036.854775808s\" for option -T/--time"},
	{"9999999999h", "s", 0, INT64_MAX, 0,
	"invalid value \"9999999999h\" for option -T/--time"},
	{"99999999999999999999", "us", 0, INT64_MAX, 0,
	"invalid value \"99999999999999999999\" for option -T/--time"},
	/* not durations */
	{"5 parsecs", "s", 0, INT64_MAX, 0, "invalid value \"5 parsecs\" for option -T/--time"},
	{"10 m", "s", 0, INT64_MAX, 0, "invalid value \"10 m\" for option -T/--time"},
	{"10MS", "s", 0, INT64_MAX, 0, "invalid value \"10MS\" for option -T/--time"},
	{"10ns", "s", 0, INT64_MAX, 0, "invalid value \"10ns\" for option -T/--time"},
	{"ms", "s", 0, INT64_MAX, 0, "invalid value \"ms\" for option -T/--time"},
	{"", "s", 0, INT64_MAX, 0, "invalid value \"\" for option -T/--time"},
	{"  ", "s", 0, INT64_MAX, 0, "invalid value \"  \" for option -T/--time"},
	{".", "s", 0, INT64_MAX, 0, "invalid value \".\" for option -T/--time"},
	{"1h30min", "s", 0, INT64_MAX, 0, "invalid value \"1h30min\" for option -T/--time"},
	{"1e3ms", "s", 0, INT64_MAX, 0, "invalid value \"1e3ms\" for option -T/--time"},
	{"1.2.3s", "s", 0, INT64_MAX, 0, "invalid value \"1.2.3s\" for option -T/--time"},
	{"10 ms x", "s", 0, INT64_MAX, 0, "invalid value \"10 ms x\" for option -T/--time"},
	{"- 5s", "s", -10 * S, INT64_MAX, 0, "invalid value \"- 5s\" for option -T/--time"},
	{"0x10", "s", 0, INT64_MAX, 0, "invalid value \"0x10\" for option -T/--time"},
	{"0x1h", "s", 0, INT64_MAX, 0, "invalid value \"0x1h\" for option -T/--time"},
	{"0x1d", NULL, 0, INT64_MAX, 0, "invalid value \"0x1d\" for option -T/--time"},
	{"1e1d", "s", 0, INT64_MAX, 0, "invalid value \"1e1d\" for option -T/--time"},
	{"infd", "s", 0, INT64_MAX, 0, "invalid value \"infd\" for option -T/--time"},
	{"7days", "s", 0, INT64_MAX, 0, "invalid value \"7days\" for option -T/--time"},
	{"7D", "s", 0, INT64_MAX, 0, "invalid value \"7D\" for option -T/--time"},
	/* out of range: the message speaks the default unit */
	{"-5ms", "s", 0, INT64_MAX, 0, "-T/--time must be in range 0..9.22337e+09"},
	{"0", "s", S, 100 * S, 0, "-T/--time must be in range 1..100"},
	{"2min", "s", S, 100 * S, 0, "-T/--time must be in range 1..100"},
	{"0.5ms", "ms", MS, 3600 * S, 0, "-T/--time must be in range 1..3.6e+06"},
	{"999us", "ms", MS, 1000 * MS, 0, "-T/--time must be in range 1..1000"},
	{"10s", "ms", 0, 1500 * MS - 1, 0, "-T/--time must be in range 0..1500"},
	{"3", "us", 500, 2500, 0, "-T/--time must be in range 0.5..2.5"},
};

START_TEST(test_duration_cases)
{
	int64_t		out = UNTOUCHED_INT;
	char	   *cause = NULL;
	bool		ok;

	ok = parse_duration_ns(duration_cases[_i].in, "-T/--time", duration_cases[_i].unit,
						   duration_cases[_i].min, duration_cases[_i].max, &out, &cause);
	if (duration_cases[_i].want_cause == NULL)
	{
		ck_assert_msg(ok, "\"%s\" refused: %s", duration_cases[_i].in, cause);
		ck_assert_msg(out == duration_cases[_i].want, "\"%s\" parsed as %lld ns, want %lld",
					  duration_cases[_i].in, (long long) out,
					  (long long) duration_cases[_i].want);
		ck_assert_ptr_null(cause);
	}
	else
	{
		ck_assert_msg(!ok, "\"%s\" accepted as %lld ns", duration_cases[_i].in, (long long) out);
		ck_assert_ptr_nonnull(cause);
		ck_assert_str_eq(cause, duration_cases[_i].want_cause);
		ck_assert_int_eq(out, UNTOUCHED_INT);
	}
	free(cause);
}
END_TEST

/* A NULL cause means the caller only wants the verdict. */
START_TEST(test_null_cause)
{
	int64_t		i = UNTOUCHED_INT;
	double		d = UNTOUCHED_DBL;

	ck_assert(!parse_int64("x", "-x", 0, 1, &i, NULL));
	ck_assert(!parse_int64("5", "-x", 0, 1, &i, NULL));
	ck_assert(!parse_double("x", "-x", 0, 1, &d, NULL));
	ck_assert(!parse_double("5", "-x", 0, 1, &d, NULL));
	ck_assert(!parse_duration_ns("x", "-x", "s", 0, 1, &i, NULL));
	ck_assert(!parse_duration_ns("5", "-x", "s", 0, 1, &i, NULL));
	ck_assert_int_eq(i, UNTOUCHED_INT);
	ck_assert(d == UNTOUCHED_DBL);
	ck_assert(parse_int64("1", "-x", 0, 1, &i, NULL));
	ck_assert_int_eq(i, 1);
}
END_TEST

static const struct
{
	const char *in;
	double		want;			/* Unix time; ignored when bad */
	bool		ok;
}			timestamp_cases[] = {
	{"2026-11-26T13:00:00Z", 1795698000, true},
	{"2026-11-26T13:00:00+00:00", 1795698000, true},
	{"2026-11-26T14:00:00+01:00", 1795698000, true},
	{"2026-11-26T08:30:00-0430", 1795698000, true},
	{"2026-11-26T15:00:00+02", 1795698000, true},
	{"2026-11-26 13:00Z", 1795698000, true},
	{"2026-11-26t13:00:00.25z", 1795698000.25, true},
	{"2026-11-26T13:00:00,5Z", 1795698000.5, true},
	{"2024-02-29T00:00:00Z", 1709164800, true},
	{"@1795698000", 1795698000, true},
	{"@1795698000.125", 1795698000.125, true},
	{"2026-11-26T13:00:00", 0, false},	/* no offset: refused */
	{"2026-11-26", 0, false},
	{"2025-02-29T00:00:00Z", 0, false},
	{"2026-13-01T00:00:00Z", 0, false},
	{"2026-11-26T24:00:00Z", 0, false},
	{"2026-11-26T13:60:00Z", 0, false},
	{"2026-11-26T13:00:61Z", 0, false},
	{"2026-11-26T13:00:00.Z", 0, false},
	{"2026-11-26T13:00:00+1:00", 0, false},
	{"2026-11-26T13:00:00+01:00x", 0, false},
	{" 2026-11-26T13:00:00Z", 0, false},
	{"+026-11-26T13:00:00Z", 0, false},
	{"1969-12-31T23:59:59Z", 0, false},
	/* not a real instant: each field is checked against the calendar */
	{"2026-02-31T00:00Z", 0, false},
	{"2026-04-31T00:00Z", 0, false},
	{"2100-02-29T00:00Z", 0, false},
	{"2000-02-29T00:00Z", 951782400, true},
	{"2026-11-26T24:61Z", 0, false},
	{"2026-11-26T25:00Z", 0, false},
	{"2026-00-26T13:00Z", 0, false},
	{"2026-11-00T13:00Z", 0, false},
	{"2026-11-26T13:00:60Z", 0, false},
	{"2026-11-26T13:00+24:00", 0, false},
	{"2026-11-26T13:00+01:60", 0, false},
	{"2026-11-26Z", 1795651200, true},	/* a date alone is its midnight */
	{"2026-11-26T13:00:00.", 0, false},
	{"@0x10", 0, false},
	{"@1.", 0, false},
	{"@253402300800", 0, false},	/* after 9999 */
	{"@", 0, false},
	{"@-5", 0, false},
	{"@12x", 0, false},
	{"@1e400", 0, false},
	{"tomorrow", 0, false},
};

/* parse_time of in for option opt: want us since the epoch, or -1 for the one message. */
static void
check_time(const char *in, const char *opt, unsigned forms, int64_t now, int64_t want)
{
	int64_t		us = -1;
	char	   *cause = NULL;
	char		msg[128];
	bool		ok = parse_time(in, opt, forms, now, &us, &cause);

	ck_assert_msg(ok == (want >= 0), "%s: %s", in, cause ? cause : "accepted");
	if (ok)
		ck_assert_msg(us == want, "%s: %lld, want %lld", in, (long long) us, (long long) want);
	else
	{
		snprintf(msg, sizeof(msg), "invalid value \"%s\" for option %s: not a valid time "
				 "(ISO 8601 ", in, opt);
		ck_assert_msg(strncmp(cause, msg, strlen(msg)) == 0, "%s", cause);
	}
	free(cause);
}

START_TEST(test_timestamp_cases)
{
	check_time(timestamp_cases[_i].in, "--start-at", 0, 0,
			   timestamp_cases[_i].ok ? llround(timestamp_cases[_i].want * 1e6) : -1);
}
END_TEST

/* With PARSE_TIME_LOCAL (--since, --until): also local time, and a time of today. */
START_TEST(test_time_local)
{
	/* 2026-11-26T12:00:00Z; the zone is UTC but for the offset-free cases in Kolkata */
	const int64_t now = 1795694400000000;
	static const struct
	{
		const char *tz;
		const char *text;
		int64_t		us;			/* -1: refused */
	}			cases[] = {
		{"UTC", "2026-11-26T03:10", 1795662600000000},
		{"UTC", "2026-11-26 03:10:30", 1795662630000000},
		{"UTC", "2026-11-26T03:10:00.5Z", 1795662600500000},
		{"UTC", "2026-11-26T03:10:00+01:00", 1795659000000000},
		{"UTC", "2026-11-26T03:10-0130", 1795668000000000},
		{"UTC", "2026-11-26", 1795651200000000},
		{"UTC", "03:10", 1795662600000000},
		{"UTC", "23:59:59", 1795737599000000},
		{"Asia/Kolkata", "03:10", 1795662600000000 - 19800000000},
		{"Asia/Kolkata", "2026-11-26T03:10Z", 1795662600000000},
		{"UTC", "24:00", -1},
		{"UTC", "3:10", -1},
		{"UTC", "2026-11-26T03:10+25:00", -1},
		{"UTC", "2026-11-26T03:10 junk", -1},
		{"UTC", "yesterday", -1},
		{"UTC", "2026-", -1},
		{"UTC", "2026-11", -1},
		{"UTC", "2026-11-2", -1},
		{"UTC", "2026-11-26T", -1},
		{"UTC", "2026-11-26T03", -1},
		{"UTC", "2026-11-26T03:1", -1},
		{"UTC", "2026-11-26T03:10+", -1},
		{"UTC", "12:", -1},
		{"UTC", "12", -1},
		{"UTC", "", -1},
		{"UTC", "@1795662600.5", 1795662600500000},
		{"Asia/Kolkata", "@1795662600", 1795662600000000},
		{"UTC", "03:10:00.", -1},
		{"UTC", "03:10:60", -1},
		/* not a real instant, local or not */
		{"UTC", "2026-02-31T00:00Z", -1},
		{"UTC", "2026-02-31T00:00", -1},
		{"UTC", "2026-02-31", -1},
		{"UTC", "2026-11-26T24:61", -1},
		{"UTC", "25:00", -1},
		{"UTC", "2026-13-01", -1},
		{"UTC", "2026-11-26T03:10+24:00", -1},
		{"UTC", "1969-12-31T00:00", -1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		setenv("TZ", cases[i].tz, 1);
		tzset();
		check_time(cases[i].text, "--since", PARSE_TIME_LOCAL, now, cases[i].us);
	}
	setenv("TZ", "UTC", 1);
	tzset();
}
END_TEST

/* Offsets that end a time: "Z", +HH, +HH:MM, +HHMM, west negative; nothing after them. */
static const struct
{
	const char *in;
	bool		ok;
	long		want;
}			offset_cases[] = {
	{"Z", true, 0},
	{"z", true, 0},
	{"+01:00", true, 3600},
	{"-05:30", true, -19800},
	{"+0130", true, 5400},
	{"-02", true, -7200},
	{"+23:59", true, 86340},
	{"Z ", false, 0},
	{"ZZ", false, 0},
	{"", false, 0},
	{"+", false, 0},
	{"+1", false, 0},
	{"+1:00", false, 0},
	{"+01:", false, 0},
	{"+01:0", false, 0},
	{"+01:00x", false, 0},
	{"+013", false, 0},
	{"+01300", false, 0},
	{"+24:00", false, 0},
	{"+01:60", false, 0},
	{"01:00", false, 0},
};

START_TEST(test_offset_cases)
{
	long		off = 424242;
	bool		ok = parse_utc_offset(offset_cases[_i].in, &off);

	ck_assert_msg(ok == offset_cases[_i].ok, "\"%s\"", offset_cases[_i].in);
	if (ok)
		ck_assert_int_eq(off, offset_cases[_i].want);
}
END_TEST

/* Fixed-width digit fields: all n must be digits. */
START_TEST(test_digits)
{
	ck_assert_int_eq(parse_digits("2026-11", 4), 2026);
	ck_assert_int_eq(parse_digits("0007", 4), 7);
	ck_assert_int_eq(parse_digits("123456789", 9), 123456789);
	ck_assert_int_eq(parse_digits("12", 0), 0);
	ck_assert_int_eq(parse_digits("1a", 2), -1);
	ck_assert_int_eq(parse_digits("-1", 2), -1);
	ck_assert_int_eq(parse_digits(" 1", 2), -1);
	ck_assert_int_eq(parse_digits("1", 2), -1);	/* stops at the NUL */
}
END_TEST

/* Names: the whole name of len bytes, not a prefix or a longer word; NULL ends a list early. */
static const char *const names[] = {"event", "pid", "backend_type", NULL, "after"};

static const struct
{
	const char *s;
	size_t		len;			/* SIZE_MAX: strlen(s) */
	size_t		n;
	int			want;
}			name_cases[] = {
	{"event", SIZE_MAX, 5, 0},
	{"pid", SIZE_MAX, 5, 1},
	{"backend_type", SIZE_MAX, 5, 2},
	{"pid,query", 3, 5, 1},		/* len bytes of a list */
	{"even", SIZE_MAX, 5, -1},
	{"events", SIZE_MAX, 5, -1},
	{"Event", SIZE_MAX, 5, -1},
	{"", SIZE_MAX, 5, -1},
	{"after", SIZE_MAX, 5, -1},	/* past the NULL */
	{"after", SIZE_MAX, SIZE_MAX, -1},
	{"backend_type", SIZE_MAX, 2, -1},	/* past n */
	{"event", SIZE_MAX, 0, -1},
};

START_TEST(test_name_cases)
{
	size_t		len = name_cases[_i].len == SIZE_MAX ? strlen(name_cases[_i].s) :
		name_cases[_i].len;

	ck_assert_int_eq(parse_name(names, name_cases[_i].n, name_cases[_i].s, len),
					 name_cases[_i].want);
}
END_TEST

static Suite *
parse_suite(void)
{
	Suite	   *s = suite_create("parse");
	TCase	   *tc;

	tc = tcase_create("int64");
	tcase_add_loop_test(tc, test_int64_cases, 0, sizeof(int64_cases) / sizeof(int64_cases[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("double");
	tcase_add_loop_test(tc, test_double_cases, 0, sizeof(double_cases) / sizeof(double_cases[0]));
	tcase_add_test(tc, test_double_negative_zero);
	suite_add_tcase(s, tc);

	tc = tcase_create("duration");
	tcase_add_loop_test(tc, test_duration_cases, 0,
						sizeof(duration_cases) / sizeof(duration_cases[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("timestamp");
	tcase_add_loop_test(tc, test_timestamp_cases, 0,
						sizeof(timestamp_cases) / sizeof(timestamp_cases[0]));
	tcase_add_test(tc, test_time_local);
	suite_add_tcase(s, tc);

	tc = tcase_create("offset");
	tcase_add_loop_test(tc, test_offset_cases, 0, sizeof(offset_cases) / sizeof(offset_cases[0]));
	tcase_add_test(tc, test_digits);
	suite_add_tcase(s, tc);

	tc = tcase_create("name");
	tcase_add_loop_test(tc, test_name_cases, 0, sizeof(name_cases) / sizeof(name_cases[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("cause");
	tcase_add_test(tc, test_null_cause);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	return unit_run(parse_suite());
}
