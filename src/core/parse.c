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

#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

/*
 * Duration units: one unit is mult * 10^exp nanoseconds.  The one table
 * for reading a duration (read) and for writing a range in whole units
 * (text: duration_text says "168 h" rather than "7 d", and "ns" only when
 * nothing larger divides).  Largest first.
 */
typedef struct duration_unit
{
	const char *name;
	int64_t		mult;
	int			exp;
	bool		read;
	bool		text;
} duration_unit;

static const duration_unit duration_units[] = {
	{"d", 86400, 9, true, false},
	{"h", 3600, 9, true, true},
	{"min", 60, 9, true, true},
	{"s", 1, 9, true, true},
	{"ms", 1, 6, true, true},
	{"us", 1, 3, true, true},
	{"ns", 1, 0, false, true},
};

#define NUNITS (sizeof(duration_units) / sizeof(duration_units[0]))

/*
 * Digits of the fraction below the nanosecond that are looked at for
 * rounding: mult * 10^13 stays inside int64_t for a day.  Ignoring the
 * rest shifts a value by less than 1e-8 ns.
 */
#define ROUND_DIGITS 13

/* Nanoseconds in one unit; at most 8.64e13, so exact in int64_t and double. */
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

/* Find a unit that is read by name; len is the length of name, which need not be NUL-terminated. */
static const duration_unit *
find_unit(const char *name, size_t len)
{
	for (size_t i = 0; i < NUNITS; i++)
	{
		if (duration_units[i].read && strlen(duration_units[i].name) == len &&
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

	defunit = default_unit != NULL ? find_unit(default_unit, strlen(default_unit)) : NULL;
	if (default_unit != NULL && defunit == NULL)
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
	else
		unit = find_unit(unitname, unitlen);
	if (unit == NULL)
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
	/* mult * rest < 86400 * 10^13, well inside int64_t */
	rounded = (unit->mult * rest + scale / 2) / scale;

	if (whole > (INT64_MAX - rounded) / unit->mult)
		return invalid_value(s, optname, cause);
	v = whole * unit->mult + rounded;
	if (neg)
		v = -v;

	if (v < min_ns || v > max_ns)
	{
		/* with no default unit there is none to say the range in */
		if (defunit == NULL)
			return invalid_value(s, optname, cause);
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
	for (size_t i = 0; i < NUNITS; i++)
	{
		const duration_unit *u = &duration_units[i];

		if (u->text && (ns % unit_ns(u) == 0 || i == NUNITS - 1))
		{
			snprintf(buf, len, "%lld %s", (long long) (ns / unit_ns(u)), u->name);
			return;
		}
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

/* "Z", "+HH:MM", "+HHMM" or "+HH" exactly in [p, end): *off in seconds east of UTC. */
static bool
utc_offset(const char *p, const char *end, long *off)
{
	size_t		n = (size_t) (end - p);
	int			hh,
				mm = 0;

	if (n == 1 && (*p == 'Z' || *p == 'z'))
	{
		*off = 0;
		return true;
	}
	if (n < 3 || (*p != '+' && *p != '-') || (hh = parse_digits(p + 1, 2)) < 0)
		return false;
	if (n == 6 && p[3] == ':')
		mm = parse_digits(p + 4, 2);
	else if (n == 5)
		mm = parse_digits(p + 3, 2);
	else if (n != 3)
		return false;
	if (hh > 23 || mm < 0 || mm > 59)
		return false;
	*off = (hh * 3600L + mm * 60L) * (*p == '-' ? -1 : 1);
	return true;
}

bool
parse_utc_offset(const char *p, long *off)
{
	return utc_offset(p, p + strlen(p), off);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t		era;
	int64_t		yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* Days in month m (1..12) of year y. */
static int
days_in_month(int y, int m)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return days[m - 1];
}

/* The fields of a written time, as read; each checked against the calendar. */
typedef struct civil_time
{
	int			year,
				mon,
				mday,
				hour,
				min,
				sec;
	int64_t		us;				/* the fraction of the second */
	bool		has_date;
	bool		has_offset;
	long		offset;			/* seconds east of UTC */
} civil_time;

/* The n digits at [p, end) as a number, or -1. */
static int
span_digits(const char *p, const char *end, int n)
{
	return end - p < n ? -1 : parse_digits(p, n);
}

/* "HH:MM[:SS[.frac]]" at p (',' for '.' too); where it ends, or NULL. */
static const char *
scan_clock(const char *p, const char *end, civil_time *c)
{
	if ((c->hour = span_digits(p, end, 2)) < 0 || c->hour > 23 || end - p < 5 || p[2] != ':' ||
		(c->min = span_digits(p + 3, end, 2)) < 0 || c->min > 59)
		return NULL;
	p += 5;
	if (p < end && *p == ':')
	{
		if ((c->sec = span_digits(p + 1, end, 2)) < 0 || c->sec > 59)
			return NULL;
		p += 3;
		if (p < end && (*p == '.' || *p == ','))
		{
			int64_t		scale = 100000;

			if (++p == end || !isdigit((unsigned char) *p))
				return NULL;
			/* digits past the microsecond are read and dropped */
			for (; p < end && isdigit((unsigned char) *p); p++, scale /= 10)
				c->us += (*p - '0') * scale;
		}
	}
	return p;
}

/*
 * [YYYY-MM-DD[(T| )clock]] or a clock alone, then an offset or nothing,
 * all of [p, end); false if any field is not one of the calendar.
 */
static bool
scan_civil(const char *p, const char *end, civil_time *c)
{
	memset(c, 0, sizeof(*c));
	if (end - p >= 5 && p[4] == '-')
	{
		c->has_date = true;
		if ((c->year = span_digits(p, end, 4)) < 1970 ||
			(c->mon = span_digits(p + 5, end, 2)) < 1 || c->mon > 12 || end - p < 10 ||
			p[7] != '-' || (c->mday = span_digits(p + 8, end, 2)) < 1 ||
			c->mday > days_in_month(c->year, c->mon))
			return false;
		p += 10;
		if (p < end && (*p == 'T' || *p == 't' || *p == ' ') &&
			(p = scan_clock(p + 1, end, c)) == NULL)
			return false;
	}
	else if ((p = scan_clock(p, end, c)) == NULL)
		return false;
	if (p == end)
		return true;
	c->has_offset = true;
	return utc_offset(p, end, &c->offset);
}

/* A civil time with its offset to us since the epoch. */
static int64_t
civil_utc_us(const civil_time *c)
{
	int64_t		s = days_from_civil(c->year, c->mon, c->mday) * 86400 + c->hour * 3600 +
		c->min * 60 + c->sec - c->offset;

	return s * 1000000 + c->us;
}

bool
parse_time_iso(const char *s, size_t len, int64_t *us)
{
	civil_time	c;

	if (!scan_civil(s, s + len, &c) || !c.has_date || !c.has_offset)
		return false;
	*us = civil_utc_us(&c);
	return true;
}

/* "@EPOCH": Unix time, decimals allowed, up to the end of year 9999. */
static bool
scan_epoch(const char *p, int64_t *us)
{
	int64_t		sec = 0,
				frac = 0,
				scale = 100000;

	if (!isdigit((unsigned char) *p))
		return false;
	for (; isdigit((unsigned char) *p); p++)
		if ((sec = sec * 10 + (*p - '0')) > INT64_C(253402300799))
			return false;
	if (*p == '.')
	{
		if (!isdigit((unsigned char) *++p))
			return false;
		for (; isdigit((unsigned char) *p); p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	*us = sec * 1000000 + frac;
	return *p == '\0';
}

/* A written time without an offset as local time, the date today's if it has none. */
static bool
civil_local_us(civil_time *c, int64_t now_us, int64_t *us)
{
	struct tm	tm;
	time_t		now = (time_t) (now_us / 1000000);
	time_t		t;

	memset(&tm, 0, sizeof(tm));
	localtime_r(&now, &tm);
	if (c->has_date)
	{
		tm.tm_year = c->year - 1900;
		tm.tm_mon = c->mon - 1;
		tm.tm_mday = c->mday;
	}
	else
	{
		c->year = tm.tm_year + 1900;
		c->mon = tm.tm_mon + 1;
		c->mday = tm.tm_mday;
	}
	if (c->has_offset)
	{
		*us = civil_utc_us(c);
		return true;
	}
	tm.tm_hour = c->hour;
	tm.tm_min = c->min;
	tm.tm_sec = c->sec;
	tm.tm_isdst = -1;
	if ((t = mktime(&tm)) == (time_t) -1)
		return false;
	*us = (int64_t) t * 1000000 + c->us;
	return true;
}

bool
parse_time(const char *s, const char *optname, unsigned forms, int64_t now_us, int64_t *us,
		   char **cause)
{
	civil_time	c;
	bool		ok;

	if (s[0] == '@')
		ok = scan_epoch(s + 1, us);
	else if (!scan_civil(s, s + strlen(s), &c))
		ok = false;
	else if (forms & PARSE_TIME_LOCAL)
		ok = civil_local_us(&c, now_us, us);
	else if ((ok = c.has_date && c.has_offset))
		*us = civil_utc_us(&c);
	if (!ok && cause != NULL)
		*cause = xasprintf("invalid value \"%s\" for option %s: not a valid time (%s)", s,
						   optname, (forms & PARSE_TIME_LOCAL) ?
						   "ISO 8601 such as 2026-11-26T03:10+01:00 or 2026-11-26T02:10Z, "
						   "or without an offset in local time; a time of today such as "
						   "03:10; or @EPOCH" :
						   "ISO 8601 with its offset such as 2026-11-26T03:10+01:00 or "
						   "2026-11-26T02:10Z, or @EPOCH");
	return ok;
}
