/*
 * histfield.c — the fields of history records: JSON objects of one line,
 * CSV records, "# kind key=value" comment lines, and the times in them.
 */
#include "config.h"

#include "histfield.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgtempo/parse.h"
#include "pgtempo/xalloc.h"

/* ---------------------------------------------------------------- times */

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

/* What format_ts writes: "YYYY-MM-DDTHH:MM:SS.ffffffZ". */
bool
histfield_ts(const char *s, size_t len, int64_t *us)
{
	int			y,
				mo,
				d,
				h,
				mi,
				sec,
				frac;

	if (len != 27 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
		s[16] != ':' || s[19] != '.' || s[26] != 'Z')
		return false;
	y = parse_digits(s, 4);
	mo = parse_digits(s + 5, 2);
	d = parse_digits(s + 8, 2);
	h = parse_digits(s + 11, 2);
	mi = parse_digits(s + 14, 2);
	sec = parse_digits(s + 17, 2);
	frac = parse_digits(s + 20, 6);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 ||
		mi > 59 || sec < 0 || sec > 60 || frac < 0)
		return false;
	*us = ((days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec) * 1000000) + frac;
	return true;
}

/* HH:MM[:SS[.frac]] at p; the rest after it in *rest.  False if not. */
static bool
parse_clock(const char *p, struct tm *tm, long *us, const char **rest)
{
	/* each part is read only once the one before it was there: no read past the end */
	tm->tm_sec = 0;
	*us = 0;
	if ((tm->tm_hour = parse_digits(p, 2)) < 0 || tm->tm_hour > 23 || p[2] != ':' ||
		(tm->tm_min = parse_digits(p + 3, 2)) < 0 || tm->tm_min > 59)
		return false;
	p += 5;
	if (*p == ':')
	{
		if ((tm->tm_sec = parse_digits(p + 1, 2)) < 0 || tm->tm_sec > 60)
			return false;
		p += 3;
		if (*p == '.')
		{
			long		scale = 100000;

			for (p++; isdigit((unsigned char) *p); p++, scale /= 10)
				*us += (*p - '0') * scale;
		}
	}
	*rest = p;
	return true;
}

/* --since/--until: a date and time with or without an offset, or a time of today. */
bool
histfield_parse_time(const char *arg, const char *name, int64_t now_us, int64_t *us,
					char **cause)
{
	struct tm	tm;
	time_t		now = (time_t) (now_us / 1000000);
	const char *rest = "";
	long		frac = 0,
				off = 0;
	bool		has_off = false;
	time_t		t;

	memset(&tm, 0, sizeof(tm));
	localtime_r(&now, &tm);
	if (parse_digits(arg, 4) >= 0 && arg[4] == '-')
	{
		tm.tm_year = parse_digits(arg, 4) - 1900;
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		/* each part is read only once the one before it was there */
		if ((tm.tm_mon = parse_digits(arg + 5, 2) - 1) < 0 || tm.tm_mon > 11 || arg[7] != '-' ||
			(tm.tm_mday = parse_digits(arg + 8, 2)) < 1 || tm.tm_mday > 31)
			goto bad;
		rest = arg + 10;
		if ((*rest == 'T' || *rest == ' ') && !parse_clock(rest + 1, &tm, &frac, &rest))
			goto bad;
	}
	else if (!parse_clock(arg, &tm, &frac, &rest))
		goto bad;
	if (*rest != '\0')
	{
		if (!parse_utc_offset(rest, &off))
			goto bad;
		has_off = true;
	}
	if (has_off)
		t = (time_t) (days_from_civil(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday) * 86400 +
					  tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec - off);
	else
	{
		tm.tm_isdst = -1;
		if ((t = mktime(&tm)) == (time_t) -1)
			goto bad;
	}
	*us = (int64_t) t * 1000000 + frac;
	return true;
bad:
	*cause = xasprintf("invalid value \"%s\" for option %s: must be an ISO 8601 time "
					   "(2026-11-26T03:10, with or without an offset such as +01:00 or Z) "
					   "or a time of today (03:10)", arg, name);
	return false;
}

/* ---------------------------------------------------------------- fields */


/* Skip JSON white space. */
const char *
histfield_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* The end of the JSON string whose opening quote is at p[-1]: its closing quote, or NULL. */
const char *
histfield_string_end(const char *p, bool *esc)
{
	for (; *p; p++)
	{
		if (*p == '\\')
		{
			*esc = true;
			if (*++p == '\0')
				return NULL;
		}
		else if (*p == '"')
			return p;
	}
	return NULL;
}

/* One JSON value at p into f; where it ends, or NULL. */
static const char *
json_value(const char *p, histfield *f)
{
	const char *e;

	f->v = (char *) p;
	f->esc = false;
	if (*p == '"')
	{
		if ((e = histfield_string_end(p + 1, &f->esc)) == NULL)
			return NULL;
		f->t = 's';
		f->v = (char *) p + 1;
		f->vlen = (size_t) (e - p - 1);
		return e + 1;
	}
	if (*p == '[')
	{
		bool		esc;

		for (e = p + 1; *e && *e != ']'; e++)
			if (*e == '"' && (e = histfield_string_end(e + 1, &esc)) == NULL)
				return NULL;
		if (*e != ']')
			return NULL;
		f->t = '[';
		f->vlen = (size_t) (e + 1 - p);
		return e + 1;
	}
	/* null, true, false: by their first letter, as this runs for every value */
	if ((*p == 'n' && strncmp(p, "null", 4) == 0) || (*p == 't' && strncmp(p, "true", 4) == 0) ||
		(*p == 'f' && strncmp(p, "false", 5) == 0))
	{
		f->t = *p == 'n' ? '0' : 'b';
		f->vlen = *p == 'f' ? 5 : 4;
		return p + f->vlen;
	}
	for (e = p; (*e >= '0' && *e <= '9') || *e == '-' || *e == '+' || *e == '.' || *e == 'e' ||
		 *e == 'E'; e++)
		;
	if (e == p)
		return NULL;
	f->t = 'n';
	f->vlen = (size_t) (e - p);
	return e;
}

/* Split a one-line JSON object of scalars and flat arrays into members; false if it is not one. */
bool
histfield_json(const char *p, histfield *f, int max, int *n)
{
	*n = 0;
	p = histfield_ws(p);
	if (*p++ != '{')
		return false;
	p = histfield_ws(p);
	if (*p == '}')
		return *histfield_ws(p + 1) == '\0';
	for (;;)
	{
		bool		esc = false;
		const char *e;

		if (*p++ != '"' || (e = histfield_string_end(p, &esc)) == NULL || *n == max)
			return false;
		f[*n].key = p;
		f[*n].klen = (size_t) (e - p);
		p = histfield_ws(e + 1);
		if (*p++ != ':' || (p = json_value(histfield_ws(p), &f[*n])) == NULL)
			return false;
		(*n)++;
		p = histfield_ws(p);
		if (*p == '}')
			return *histfield_ws(p + 1) == '\0';
		if (*p++ != ',')
			return false;
		p = histfield_ws(p);
	}
}

/* The member named key, or NULL. */
histfield *
histfield_get(histfield *f, int n, const char *key)
{
	size_t		len = strlen(key);

	for (int i = 0; i < n; i++)
		if (f[i].klen == len && memcmp(f[i].key, key, len) == 0)
			return &f[i];
	return NULL;
}

/* Append code point cp as UTF-8. */
static void
put_utf8(strbuf *sb, unsigned cp)
{
	if (cp < 0x80)
		strbuf_putc(sb, (char) cp);
	else if (cp < 0x800)
	{
		strbuf_putc(sb, (char) (0xC0 | (cp >> 6)));
		strbuf_putc(sb, (char) (0x80 | (cp & 0x3F)));
	}
	else if (cp < 0x10000)
	{
		strbuf_putc(sb, (char) (0xE0 | (cp >> 12)));
		strbuf_putc(sb, (char) (0x80 | ((cp >> 6) & 0x3F)));
		strbuf_putc(sb, (char) (0x80 | (cp & 0x3F)));
	}
	else
	{
		strbuf_putc(sb, (char) (0xF0 | (cp >> 18)));
		strbuf_putc(sb, (char) (0x80 | ((cp >> 12) & 0x3F)));
		strbuf_putc(sb, (char) (0x80 | ((cp >> 6) & 0x3F)));
		strbuf_putc(sb, (char) (0x80 | (cp & 0x3F)));
	}
}

/* Four hex digits, or -1. */
static long
hex4(const char *p)
{
	char		b[5];
	char	   *e;
	long		v;

	memcpy(b, p, 4);
	b[4] = '\0';
	v = strtol(b, &e, 16);
	return e == b + 4 && isxdigit((unsigned char) b[0]) ? v : -1;
}

/* A JSON string's escapes undone into sb; false on a bad escape. */
bool
histfield_unescape(strbuf *sb, const char *s, size_t len)
{
	static const char from[] = "\"\\/bfnrt",
				to[] = "\"\\/\b\f\n\r\t";
	const char *end = s + len;

	strbuf_reset(sb);
	for (; s < end; s++)
	{
		const char *k;
		long		cp,
					lo;

		if (*s != '\\')
		{
			strbuf_putc(sb, *s);
			continue;
		}
		if (++s == end)
			return false;
		if ((k = strchr(from, *s)) != NULL && *s != '\0')
		{
			strbuf_putc(sb, to[k - from]);
			continue;
		}
		if (*s != 'u' || end - s < 5 || (cp = hex4(s + 1)) < 0)
			return false;
		s += 4;
		/* a surrogate pair is one code point */
		if (cp >= 0xD800 && cp < 0xDC00 && end - s >= 7 && s[1] == '\\' && s[2] == 'u' &&
			(lo = hex4(s + 3)) >= 0xDC00 && lo < 0xE000)
		{
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			s += 6;
		}
		put_utf8(sb, (unsigned) cp);
	}
	return true;
}

/* Split a CSV record into fields, unquoting in place; false on a stray quote. */
bool
histfield_csv(char *p, histfield *f, int max, int *n)
{
	*n = 0;
	for (;;)
	{
		char	   *start = p;

		if (*n == max)
			return false;
		if (*p == '"')
		{
			char	   *w = p;

			for (p++;; p++)
			{
				if (*p == '\0')
					return false;
				if (*p == '"' && p[1] == '"')
					p++;
				else if (*p == '"')
					break;
				*w++ = *p;
			}
			p++;
			f[*n].vlen = (size_t) (w - start);
			if (*p != ',' && *p != '\0')
				return false;
		}
		else
		{
			p += strcspn(p, ",\"");
			if (*p == '"')
				return false;
			f[*n].vlen = (size_t) (p - start);
		}
		f[*n].v = start;
		f[*n].t = f[*n].vlen == 0 ? '0' : 's';
		f[*n].esc = false;
		(*n)++;
		if (*p++ != ',')
			return true;
	}
}

/* "# health k=v k=v ..." or "# gap ... reason=TEXT": the pairs, the last one to the end if rest. */
bool
histfield_pairs(char *p, const char *rest_key, histfield *f, int max, int *n)
{
	*n = 0;
	while (*p)
	{
		char	   *eq = strchr(p, '=');
		char	   *sp;

		if (eq == NULL || *n == max)
			return false;
		f[*n].key = p;
		f[*n].klen = (size_t) (eq - p);
		f[*n].v = eq + 1;
		f[*n].esc = false;
		f[*n].t = 's';
		if (rest_key != NULL && f[*n].klen == strlen(rest_key) &&
			memcmp(p, rest_key, f[*n].klen) == 0)
			sp = eq + 1 + strlen(eq + 1);
		else
			sp = eq + 1 + strcspn(eq + 1, " ");
		f[*n].vlen = (size_t) (sp - eq - 1);
		(*n)++;
		if (*sp == '\0')
			break;
		*sp = '\0';
		p = sp + 1;
	}
	return true;
}
