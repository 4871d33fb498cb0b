/*
 * ioparse.c — ioping's numbers with suffixes (see ioparse.h).
 */
#include "config.h"

#include "ioparse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pgtempo/xalloc.h"

typedef struct suffix
{
	const char *name;
	double		mul;
} suffix;

static const suffix size_suffixes[] = {
	{"", 1}, {"b", 1}, {"sector", 512}, {"k", 1024.0}, {"kb", 1024.0}, {"kib", 1024.0},
	{"page", 4096}, {"m", 1048576.0}, {"mb", 1048576.0}, {"mib", 1048576.0},
	{"g", 1073741824.0}, {"gb", 1073741824.0}, {"gib", 1073741824.0},
	{"t", 1099511627776.0}, {"tb", 1099511627776.0}, {"tib", 1099511627776.0}, {NULL, 0}
};

static const suffix time_suffixes[] = {
	{"", 1e9}, {"ns", 1}, {"nsec", 1}, {"us", 1e3}, {"usec", 1e3}, {"ms", 1e6},
	{"msec", 1e6}, {"s", 1e9}, {"sec", 1e9}, {"m", 60e9}, {"min", 60e9},
	{"h", 3600e9}, {"hour", 3600e9}, {NULL, 0}
};

static const suffix count_suffixes[] = {
	{"", 1}, {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}, {NULL, 0}
};

/* The table of kind's suffixes. */
static const suffix *
suffixes_of(ioparse_kind kind)
{
	switch (kind)
	{
		case IOPARSE_SIZE:
			return size_suffixes;
		case IOPARSE_TIME:
			return time_suffixes;
		case IOPARSE_COUNT:
			break;
	}
	return count_suffixes;
}

bool
ioparse_value(const char *s, ioparse_kind kind, uint64_t *out, char **cause)
{
	const suffix *t = suffixes_of(kind);
	const char *p = s;
	char	   *end;
	double		v;

	while (isspace((unsigned char) *p))
		p++;
	if (*p == '-')
	{
		*cause = xstrdup("must not be negative");
		return false;
	}
	if (!isdigit((unsigned char) *p) && *p != '.')
	{
		*cause = xstrdup("not a number");
		return false;
	}
	errno = 0;
	v = strtod(p, &end);
	if (end == p || errno == ERANGE || !isfinite(v))
	{
		*cause = xstrdup("not a number");
		return false;
	}
	while (isspace((unsigned char) *end))
		end++;
	for (; t->name != NULL; t++)
		if (strcasecmp(end, t->name) == 0)
			break;
	if (t->name == NULL)
	{
		*cause = xasprintf("invalid suffix \"%s\"", end);
		return false;
	}
	v *= t->mul;
	/* 2^63: every value fits an int64_t and sums of a few stay in a uint64_t */
	if (v >= 9223372036854775808.0)
	{
		*cause = xstrdup("is out of range");
		return false;
	}
	*out = (uint64_t) llround(v);
	return true;
}
