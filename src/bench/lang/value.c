/*
 * value.c — coercions between the value types of pgbench's expression
 * language, and the conversion of variables' strings to values.
 *
 * The rules and the messages are pgbench's: an int becomes a double
 * exactly as C converts it; a double becomes an int by rounding half to
 * even (rint) and fails outside the int64 range; nothing else converts
 * implicitly.  Doubles print the way PostgreSQL's own snprintf prints
 * them, which differs from the C library only for NaN and infinities.
 */
#include "config.h"

#include "value.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pgtempo/fmt.h"
#include "pgtempo/xalloc.h"

/* -(double) INT64_MIN: the first double above the int64 range. */
#define INT64_RANGE_END		9223372036854775808.0

const char *
value_type_name(value_type t)
{
	switch (t)
	{
		case VAL_NONE:
			return "none";
		case VAL_NULL:
			return "null";
		case VAL_BOOL:
			return "boolean";
		case VAL_INT:
			return "int";
		case VAL_DOUBLE:
			return "double";
	}
	return "<unknown>";
}

/* Print a double as PostgreSQL's snprintf would. */
void
value_format_double(double d, bool fixed, char *buf, size_t size)
{
	if (isnan(d))
		snprintf(buf, size, "NaN");
	else if (isinf(d))
		snprintf(buf, size, "%s", d < 0 ? "-Infinity" : "Infinity");
	else if (fixed)
		snprintf(buf, size, "%f", d);
	else
		snprintf(buf, size, "%.15g", d);
}

/* The truth of a condition: NULL and zero are false. */
bool
value_is_true(const value *v)
{
	switch (v->type)
	{
		case VAL_BOOL:
			return v->u.b;
		case VAL_INT:
			return v->u.i != 0;
		case VAL_DOUBLE:
			return v->u.d != 0.0;
		case VAL_NONE:
		case VAL_NULL:
			break;
	}
	return false;
}

/* Only a boolean is a boolean: pgbench converts nothing to one. */
bool
value_to_bool(const value *v, bool *out, char **err)
{
	if (v->type == VAL_BOOL)
	{
		*out = v->u.b;
		return true;
	}
	*out = false;
	*err = xasprintf("cannot coerce %s to boolean", value_type_name(v->type));
	return false;
}

/* An int as is; a double rounded half to even, if it fits. */
bool
value_to_int(const value *v, int64_t *out, char **err)
{
	if (v->type == VAL_INT)
	{
		*out = v->u.i;
		return true;
	}
	if (v->type == VAL_DOUBLE)
	{
		double		r = rint(v->u.d);

		/* NaN fails both comparisons */
		if (!(r >= -INT64_RANGE_END && r < INT64_RANGE_END))
		{
			char		buf[VALUE_DOUBLE_TEXT_SIZE];

			value_format_double(r, true, buf, sizeof(buf));
			*err = xasprintf("double to int overflow for %s", buf);
			return false;
		}
		*out = (int64_t) r;
		return true;
	}
	*err = xasprintf("cannot coerce %s to int", value_type_name(v->type));
	return false;
}

/* A double as is; an int converted. */
bool
value_to_double(const value *v, double *out, char **err)
{
	if (v->type == VAL_DOUBLE)
	{
		*out = v->u.d;
		return true;
	}
	if (v->type == VAL_INT)
	{
		*out = (double) v->u.i;
		return true;
	}
	*err = xasprintf("cannot coerce %s to double", value_type_name(v->type));
	return false;
}

/* Is s a prefix of word (ignoring case), or equal to it? s is not empty. */
static bool
is_prefix_of(const char *s, size_t len, const char *word)
{
	return strncasecmp(s, word, len) == 0;
}

/*
 * pgbench decides "int or double" by shape before converting: optional
 * leading white space, an optional sign, digits, nothing after.  A lone
 * sign passes this test (and then fails as an int, with the int's
 * message), as it does in pgbench.
 */
static bool
looks_like_int(const char *s)
{
	const unsigned char *p = (const unsigned char *) s;

	while (*p != '\0' && isspace(*p))
		p++;
	if (*p == '+' || *p == '-')
		p++;
	if (*p != '\0' && !isdigit(*p))
		return false;
	while (*p != '\0' && isdigit(*p))
		p++;
	return *p == '\0';
}

/* Strict decimal int64 parsing with PostgreSQL's messages. */
static bool
parse_int64(const char *s, int64_t *out, char **err)
{
	const unsigned char *p = (const unsigned char *) s;
	bool		neg = false;
	uint64_t	acc = 0;
	uint64_t	limit;

	while (*p != '\0' && isspace(*p))
		p++;
	if (*p == '-')
	{
		neg = true;
		p++;
	}
	else if (*p == '+')
		p++;
	if (!isdigit(*p))
		goto bad_syntax;
	limit = neg ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
	while (isdigit(*p))
	{
		unsigned	digit = *p++ - '0';

		if (acc > (limit - digit) / 10)
		{
			*err = xasprintf("value \"%s\" is out of range for type bigint", s);
			return false;
		}
		acc = acc * 10 + digit;
	}
	while (*p != '\0' && isspace(*p))
		p++;
	if (*p != '\0')
		goto bad_syntax;
	*out = neg ? (int64_t) (0 - acc) : (int64_t) acc;
	return true;

bad_syntax:
	*err = xasprintf("invalid input syntax for type bigint: \"%s\"", s);
	return false;
}

/* Convert a variable's string, trying the forms in pgbench's order. */
bool
value_from_string(const char *name, const char *s, value *out, char **err)
{
	size_t		len = strlen(s);

	if (len == 0)
	{
		/* pgbench gives up here without a word */
		*err = NULL;
		return false;
	}
	if (strcasecmp(s, "null") == 0)
		*out = value_null();
	/* "t", "ye", "fa", "n"... count, but "o" is neither on nor off */
	else if (is_prefix_of(s, len, "true") || is_prefix_of(s, len, "yes") ||
			 strcasecmp(s, "on") == 0)
		*out = value_bool(true);
	else if (is_prefix_of(s, len, "false") || is_prefix_of(s, len, "no") ||
			 strcasecmp(s, "off") == 0 || strcasecmp(s, "of") == 0)
		*out = value_bool(false);
	else if (looks_like_int(s))
	{
		int64_t		i;

		if (!parse_int64(s, &i, err))
			return false;
		*out = value_int(i);
	}
	else
	{
		char	   *end;
		double		d;

		errno = 0;
		d = strtod(s, &end);
		/* glibc reports ERANGE for underflow to subnormals too: so does pgbench */
		if (errno != 0 || end == s || *end != '\0')
		{
			*err = xasprintf("malformed variable \"%s\" value: \"%s\"", name, s);
			return false;
		}
		*out = value_double(d);
	}
	return true;
}

/* Write a value as it substitutes into SQL text. */
void
value_format(const value *v, char *buf, size_t size)
{
	switch (v->type)
	{
		case VAL_NULL:
			snprintf(buf, size, "NULL");
			break;
		case VAL_BOOL:
			snprintf(buf, size, "%s", v->u.b ? "true" : "false");
			break;
		case VAL_INT:
			if (size > FMT_INT64_MAX)
				*fmt_i64(buf, v->u.i) = '\0';	/* a parameter per transaction: no snprintf */
			else
				snprintf(buf, size, "%" PRId64, v->u.i);
			break;
		case VAL_DOUBLE:
			value_format_double(v->u.d, false, buf, size);
			break;
		case VAL_NONE:
			snprintf(buf, size, "%s", "");
			break;
	}
}

void
value_describe(const value *v, char *buf, size_t size)
{
	char		d[VALUE_DOUBLE_TEXT_SIZE];

	switch (v->type)
	{
		case VAL_NULL:
			snprintf(buf, size, "null");
			break;
		case VAL_BOOL:
			snprintf(buf, size, "boolean %s", v->u.b ? "true" : "false");
			break;
		case VAL_INT:
			snprintf(buf, size, "int %" PRId64, v->u.i);
			break;
		case VAL_DOUBLE:
			value_format_double(v->u.d, false, d, sizeof(d));
			snprintf(buf, size, "double %s", d);
			break;
		case VAL_NONE:
			snprintf(buf, size, "none");
			break;
	}
}
