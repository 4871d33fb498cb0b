/*
 * gate.c — the limit grammar of --fail-if, the rule that judges a change
 * against a limit, and the verdicts' words.
 */
#include "config.h"

#include "pgtempo/gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

/* A unit's spellings: the factor to the gate's unit (seconds for a time). */
static const struct
{
	const char *word;
	gate_unit	unit;
	double		factor;
} units[] = {
	{"", GATE_UNIT_NONE, 1},
	{"%", GATE_UNIT_PCT, 1},
	{"x", GATE_UNIT_PCT, 1},	/* converted below */
	{"s", GATE_UNIT_TIME, 1},
	{"ms", GATE_UNIT_TIME, 1e-3},
	{"us", GATE_UNIT_TIME, 1e-6},
};

/* The length of an unsigned decimal at s (digits [. [digits]] | . digits); 0 if none. */
static size_t
number_len(const char *s)
{
	size_t		i = strspn(s, "0123456789");
	size_t		frac = 0;

	if (s[i] == '.')
		frac = strspn(s + i + 1, "0123456789");
	if (i == 0 && frac == 0)
		return 0;
	return s[i] == '.' ? i + 1 + frac : i;
}

/*
 * The limit part of an item (after its name) into l: [SIGN] NUMBER
 * [UNIT]; signed: the sign gives the direction.  false with *why.
 */
static bool
parse_value(const char *s, bool signed_form, const gate_spec *spec, gate_limit *l,
			const char **why)
{
	double		sign = 1;
	size_t		len;
	bool		ratio;
	char		num[32];

	*why = spec->limit_help;
	if (*s == '+' || *s == '-')
	{
		sign = *s == '-' ? -1 : 1;
		if (signed_form)
			l->above = *s == '+';
		s++;
	}
	else if (signed_form)
		return false;
	len = number_len(s);
	if (len == 0 || len >= sizeof(num))
		return false;
	memcpy(num, s, len);
	num[len] = '\0';
	l->value = sign * strtod(num, NULL);
	s += len;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
	{
		if (strcmp(s, units[i].word) != 0)
			continue;
		if ((spec->units & units[i].unit) == 0)
			return false;
		l->unit = units[i].unit;
		l->value *= units[i].factor;
		ratio = strcmp(s, "x") == 0;
		if (!isfinite(l->value) || fabs(l->value) >= 1e6)
			return false;
		if (ratio)
		{
			*why = "a ratio (x) is a positive number after < or >";
			if (signed_form || !(l->value > 0))
				return false;
			l->value = 100 * (l->value - 1);
		}
		*why = "a drop cannot be 100 % or more";
		return l->unit != GATE_UNIT_PCT || l->value > -100;
	}
	return false;
}

/* One item of len bytes into l; false with *why (static text). */
static bool
parse_item(const char *item, size_t len, const gate_spec *spec, gate_limit *l, const char **why)
{
	size_t		op,
				nlen;
	const char *rest;

	memset(l, 0, sizeof(*l));
	*why = "each item is NAME:LIMIT or NAME<LIMIT";
	if (len >= sizeof(l->text))
		return false;
	memcpy(l->text, item, len);
	l->text[len] = '\0';
	op = strcspn(l->text, "<>");
	if (l->text[op] == '\0' && spec->bare_ok != NULL && spec->bare_ok(l->text) &&
		len < sizeof(l->name))
	{
		/* a name alone: beyond 0 either way, in the tool's own unit */
		memcpy(l->name, l->text, len + 1);
		l->either = true;
		l->unit = GATE_UNIT_NONE;
		return spec->name_ok == NULL || spec->name_ok(l, why);
	}
	if (l->text[op] != '\0')
	{
		nlen = op > 0 && l->text[op - 1] == ':' ? op - 1 : op;
		l->above = l->text[op] == '>';
		rest = l->text + op + 1;
	}
	else
	{
		const char *colon = strrchr(l->text, ':');

		if (colon == NULL)
			return false;
		nlen = (size_t) (colon - l->text);
		rest = colon + 1;
	}
	if (nlen == 0 || nlen >= sizeof(l->name))
		return false;
	memcpy(l->name, l->text, nlen);
	l->name[nlen] = '\0';
	if (!parse_value(rest, l->text[op] == '\0', spec, l, why))
		return false;
	return spec->name_ok == NULL || spec->name_ok(l, why);
}

bool
gate_latency_name(gate_limit *l)
{
	const char *d;
	double		p;

	if (strncmp(l->name, "latency:", 8) == 0)
		memmove(l->name, l->name + 8, strlen(l->name + 8) + 1);
	if (strcmp(l->name, "average") == 0)
		strcpy(l->name, "avg");
	if (strcmp(l->name, "avg") == 0)
		return true;
	if (l->name[0] != 'p')
		return false;
	d = l->name + 1;
	d += strspn(d, "0123456789");
	if (d == l->name + 1)
		return false;
	if (*d == '.' && d[1] != '\0')
		d += 1 + strspn(d + 1, "0123456789");
	p = strtod(l->name + 1, NULL);
	return *d == '\0' && p > 0 && p < 100;
}

bool
gate_parse(const char *list, const gate_spec *spec, gate_limit *out, int *n, char **cause)
{
	const char *p = list;
	const char *why = "it is empty";
	bool		ok = *p != '\0';

	*n = 0;
	while (ok && *p != '\0')
	{
		size_t		len = strcspn(p, ",");

		if (*n == GATE_MAX_LIMITS)
		{
			why = "at most 16 limits";
			ok = false;
			break;
		}
		ok = len > 0 && parse_item(p, len, spec, &out[*n], &why);
		if (len == 0)
			why = "an item is empty";
		*n += ok;
		p += len;
		if (ok && *p == ',' && *++p == '\0')
		{
			why = "an item is empty";
			ok = false;
		}
	}
	if (ok)
		return true;
	*n = 0;
	*cause = xasprintf("invalid value \"%s\" for option %s: %s, as in \"%s\"", list,
					   spec->option, why, spec->example);
	return false;
}

bool
gate_parse_report(const char *list, const gate_spec *spec, gate_limit *out, int *n)
{
	char	   *cause = NULL;

	if (gate_parse(list, spec, out, n, &cause))
		return true;
	msg_error("%s", cause);
	free(cause);
	return false;
}

double
gate_level(double level, int family)
{
	return 1 - (1 - level) / (family > 0 ? family : 1);
}

/* x in % of base; from a base of 0, a rise is +inf %, a drop -inf %. */
static double
pct_of(double x, double base)
{
	if (base > 0)
		return 100 * x / base;
	return x > 0 ? INFINITY : x < 0 ? -INFINITY : 0;
}

gate_change
gate_change_abs(bool known, double base, double lo, double hi)
{
	return (gate_change) {known, lo, hi, pct_of(lo, base), pct_of(hi, base)};
}

gate_change
gate_change_rel(bool known, double base, double lo, double hi)
{
	return (gate_change) {known, lo * base, hi * base, 100 * lo, 100 * hi};
}

bool
gate_trips(const gate_limit *l, const gate_change *c)
{
	bool		pct = l->unit == GATE_UNIT_PCT;

	if (!c->known)
		return false;
	if (l->either)
		return gate_judge(c) != GATE_NO_DIFFERENCE;
	if (l->above)
		return (pct ? c->lo_pct : c->lo) > l->value;
	return (pct ? c->hi_pct : c->hi) < l->value;
}

gate_verdict
gate_judge(const gate_change *c)
{
	if (!c->known)
		return GATE_UNKNOWN;
	if (c->lo > 0)
		return GATE_HIGHER;
	if (c->hi < 0)
		return GATE_LOWER;
	return GATE_NO_DIFFERENCE;
}

const char *
gate_verdict_word(gate_verdict v)
{
	switch (v)
	{
		case GATE_UNKNOWN:
			break;
		case GATE_NO_DIFFERENCE:
			return "no difference shown";
		case GATE_HIGHER:
			return "higher";
		case GATE_LOWER:
			return "lower";
	}
	return "unknown";
}

const char *
gate_outcome_word(bool checked, bool tripped)
{
	if (!checked)
		return "not checked";
	return tripped ? "the change is beyond the limit" : "not shown beyond the limit";
}
