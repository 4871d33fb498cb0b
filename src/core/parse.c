/*
 * parse.c — strict parsing of option values.
 *
 * Numbers are decimal only: "0x10" is not sixteen and "010" is ten.  A
 * value that does not fit the type at all (overflow) is reported as an
 * invalid value; a value that fits but lies outside [min, max] gets the
 * range message.
 */
#include "config.h"

#include "pgtempo/parse.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgtempo/clock.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

/* Duration units: one unit is mult * 10^exp nanoseconds. */
typedef struct duration_unit
{
	const char *name;
	int64_t		mult;
	int			exp;
} duration_unit;

static const duration_unit duration_units[] = {
	{"us", 1, 3},
	{"ms", 1, 6},
	{"s", 1, 9},
	{"min", 60, 9},
	{"h", 3600, 9},
};

/*
 * Digits of the fraction below the nanosecond that are looked at for
 * rounding.  Ignoring the rest shifts a value by less than 1e-11 ns.
 */
#define ROUND_DIGITS 15

/* Nanoseconds in one unit; at most 3.6e12, so exact in int64_t and double. */
static int64_t
unit_ns(const duration_unit *u)
{
	int64_t		ns = u->mult;

	for (int i = 0; i < u->exp; i++)
		ns *= 10;
	return ns;
}

static const char *
skip_space(const char *p)
{
	while (*p != '\0' && isspace((unsigned char) *p))
		p++;
	return p;
}

/* Set *cause (if wanted) to the message for a value that is not a number. */
static bool
invalid_value(const char *s, const char *optname, char **cause)
{
	if (cause != NULL)
		*cause = xasprintf("invalid value \"%s\" for option %s", s, optname);
	return false;
}

bool
parse_int64(const char *s, const char *optname, int64_t min, int64_t max,
			int64_t *out, char **cause)
{
	const char *p = skip_space(s);
	char	   *end;
	long long	v;

	errno = 0;
	v = strtoll(p, &end, 10);
	if (end == p || errno != 0)
		return invalid_value(s, optname, cause);
	if (*skip_space(end) != '\0')
		return invalid_value(s, optname, cause);

	if (v < min || v > max)
	{
		if (cause != NULL)
			*cause = xasprintf("%s must be in range %lld..%lld",
							   optname, (long long) min, (long long) max);
		return false;
	}
	*out = (int64_t) v;
	return true;
}

/*
 * strtod() also takes hexadecimal, "inf", "nan" and "infinity"; none of
 * those is a sensible option value, so only plain decimal notation with an
 * optional exponent gets as far as strtod().
 */
bool
parse_double(const char *s, const char *optname, double min, double max,
			 double *out, char **cause)
{
	const char *p = skip_space(s);
	const char *q = p + strlen(p);
	char	   *end;
	double		v;

	while (q > p && isspace((unsigned char) q[-1]))
		q--;
	if (q == p || strspn(p, "0123456789.eE+-") < (size_t) (q - p))
		return invalid_value(s, optname, cause);

	errno = 0;
	v = strtod(p, &end);
	if (end != q || errno != 0 || !isfinite(v))
		return invalid_value(s, optname, cause);

	if (v < min || v > max)
	{
		if (cause != NULL)
			*cause = xasprintf("%s must be in range %g..%g", optname, min, max);
		return false;
	}
	*out = v;
	return true;
}

/* Find a unit by name; len is the length of name, which need not be NUL-terminated. */
static const duration_unit *
find_unit(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++)
	{
		if (strlen(duration_units[i].name) == len &&
			memcmp(duration_units[i].name, name, len) == 0)
			return &duration_units[i];
	}
	return NULL;
}

/* The index of a name among names, or -1. */
int
parse_name(const char *const *names, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n && names[i] != NULL; i++)
		if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
			return (int) i;
	return -1;
}

/* v = v * 10 + d, or false if that exceeds INT64_MAX. */
static bool
push_digit(int64_t *v, int d)
{
	if (*v > (INT64_MAX - d) / 10)
		return false;
	*v = *v * 10 + d;
	return true;
}

/*
 * The value is computed exactly in integers, not through a double, so that
 * e.g. "9223372036.854775807s" is INT64_MAX nanoseconds to the unit.  With
 * the unit u = mult * 10^exp ns, the digits are split where the decimal
 * point lands after shifting it exp places right: whole = the digits
 * before that point, frac = those after it.  The result is
 * mult * whole + round(mult * 0.frac), rounding halves away from zero.
 */
bool
parse_duration_ns(const char *s, const char *optname, const char *default_unit,
				  int64_t min_ns, int64_t max_ns, int64_t *out, char **cause)
{
	const duration_unit *defunit;
	const duration_unit *unit;
	const char *p;
	const char *intdigits;
	const char *fracdigits = "";
	size_t		nint;
	size_t		nfrac = 0;
	const char *unitname;
	size_t		unitlen;
	bool		neg = false;
	int64_t		whole = 0;
	int64_t		rest = 0;
	int64_t		scale = 1;
	int64_t		rounded;
	int64_t		v;

	defunit = find_unit(default_unit, strlen(default_unit));
	if (defunit == NULL)
	{
		/* the caller's mistake, not the user's */
		msg_error("parse_duration_ns: unknown default unit \"%s\"", default_unit);
		abort();
	}

	/* [space] [sign] digits [. digits] [space] [unit] [space] */
	p = skip_space(s);
	if (*p == '+' || *p == '-')
		neg = (*p++ == '-');
	intdigits = p;
	while (isdigit((unsigned char) *p))
		p++;
	nint = p - intdigits;
	if (*p == '.')
	{
		fracdigits = ++p;
		while (isdigit((unsigned char) *p))
			p++;
		nfrac = p - fracdigits;
	}
	if (nint + nfrac == 0)
		return invalid_value(s, optname, cause);
	p = skip_space(p);
	unitname = p;
	while (isalpha((unsigned char) *p))
		p++;
	unitlen = p - unitname;
	if (*skip_space(p) != '\0')
		return invalid_value(s, optname, cause);
	if (unitlen == 0)
		unit = defunit;
	else if ((unit = find_unit(unitname, unitlen)) == NULL)
		return invalid_value(s, optname, cause);

	/* whole: the integer digits and the first exp fraction digits, in steps of mult ns */
	for (size_t i = 0; i < nint; i++)
		if (!push_digit(&whole, intdigits[i] - '0'))
			return invalid_value(s, optname, cause);
	for (size_t i = 0; i < (size_t) unit->exp; i++)
		if (!push_digit(&whole, i < nfrac ? fracdigits[i] - '0' : 0))
			return invalid_value(s, optname, cause);

	/* rest / scale: the digits after those, a fraction of one step */
	for (size_t i = unit->exp; i < nfrac && i < (size_t) unit->exp + ROUND_DIGITS; i++)
	{
		rest = rest * 10 + (fracdigits[i] - '0');
		scale *= 10;
	}
	/* mult * rest < 3600 * 10^15, well inside int64_t */
	rounded = (unit->mult * rest + scale / 2) / scale;

	if (whole > (INT64_MAX - rounded) / unit->mult)
		return invalid_value(s, optname, cause);
	v = whole * unit->mult + rounded;
	if (neg)
		v = -v;

	if (v < min_ns || v > max_ns)
	{
		if (cause != NULL)
			*cause = xasprintf("%s must be in range %g..%g", optname,
							   (double) min_ns / unit_ns(defunit),
							   (double) max_ns / unit_ns(defunit));
		return false;
	}
	*out = v;
	return true;
}

bool
parse_getopt_error(int c, char *const argv[])
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	bool		short_opt = optopt > 0 && optopt < 256;

	if (c == '?' && (optopt == '?' || strcmp(arg, "--help") == 0))
		return true;
	if (c == ':' && short_opt)
		msg_error("option requires an argument -- '%c'", optopt);
	else if (c == ':')
		msg_error("option \"%s\" requires an argument", arg);
	else if (short_opt)
		msg_error("invalid option -- '%c'", optopt);
	else
		msg_error("unrecognized option \"%s\"", arg);
	return false;
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
bool
parse_duration_opt(const char *arg, const char *name, const char *unit, int64_t min,
				   int64_t max, int64_t *out)
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

/* The n digits at p as a number, or -1 if they are not all digits. */
int
parse_digits(const char *p, int n)
{
	int			v = 0;

	for (int i = 0; i < n; i++)
	{
		if (!isdigit((unsigned char) p[i]))
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	return v;
}

/* "Z", "+HH:MM", "+HHMM" or "+HH" at p, to the end: *off in seconds east of UTC. */
bool
parse_utc_offset(const char *p, long *off)
{
	int			hh,
				mm = 0;

	if (*p == 'Z' || *p == 'z')
	{
		*off = 0;
		return p[1] == '\0';
	}
	/* each part is read only once the one before it was there: no read past the end */
	if ((*p != '+' && *p != '-') || (hh = parse_digits(p + 1, 2)) < 0)
		return false;
	if (p[3] == ':' ? (mm = parse_digits(p + 4, 2)) < 0 || p[6] != '\0' :
		p[3] != '\0' && ((mm = parse_digits(p + 3, 2)) < 0 || p[5] != '\0'))
		return false;
	if (hh > 23 || mm > 59)
		return false;
	*off = (hh * 3600L + mm * 60L) * (*p == '-' ? -1 : 1);
	return true;
}

/* "YYYY-MM-DDTHH:MM[:SS[.frac]]" + offset, every field checked against the calendar. */
static bool
parse_iso8601(const char *s, double *out)
{
	struct tm	tm;
	int			sec = 0;
	double		frac = 0;
	long		off;
	time_t		t;
	const char *p = s + 16;

	memset(&tm, 0, sizeof(tm));
	if (strlen(s) < 17 || s[4] != '-' || s[7] != '-' || s[13] != ':' ||
		(s[10] != 'T' && s[10] != 't' && s[10] != ' '))
		return false;
	tm.tm_year = parse_digits(s, 4) - 1900;
	tm.tm_mon = parse_digits(s + 5, 2) - 1;
	tm.tm_mday = parse_digits(s + 8, 2);
	tm.tm_hour = parse_digits(s + 11, 2);
	tm.tm_min = parse_digits(s + 14, 2);
	if (*p == ':')
	{
		sec = parse_digits(p + 1, 2);
		p += 3;
		if (sec >= 0 && (*p == '.' || *p == ','))
		{
			double		scale = 0.1;

			if (!isdigit((unsigned char) *++p))
				return false;
			for (; isdigit((unsigned char) *p); p++, scale /= 10)
				frac += (*p - '0') * scale;
		}
	}
	if (tm.tm_year < -1900 + 1970 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 ||
		tm.tm_hour < 0 || tm.tm_hour > 23 || tm.tm_min < 0 || tm.tm_min > 59 ||
		sec < 0 || sec > 59 || !parse_utc_offset(p, &off))
		return false;
	tm.tm_sec = sec;
	{
		int			mday = tm.tm_mday;

		t = timegm(&tm);
		/* timegm() normalizes February 30th into March: refuse what moved */
		if (t == (time_t) -1 || tm.tm_mday != mday)
			return false;
	}
	*out = (double) (t - off) + frac;
	return true;
}

bool
parse_timestamp(const char *s, const char *optname, double *out, char **cause)
{
	bool		ok;

	if (s[0] == '@')
	{
		char	   *end;

		errno = 0;
		*out = strtod(s + 1, &end);
		ok = end != s + 1 && *end == '\0' && errno == 0 && isdigit((unsigned char) s[1]) &&
			isfinite(*out);
	}
	else
		ok = parse_iso8601(s, out);
	if (!ok)
		return invalid_value(s, optname, cause);
	return true;
}
