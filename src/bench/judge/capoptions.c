/*
 * capoptions.c — --capacity's options: the objectives, the resolution,
 * --fail-if=capacity:<N, and their checks; below the search, its steps
 * and its report, which all read them.
 */
#include "config.h"

#include "capacity_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"

/* What an objective is, for the messages of --capacity. */
static const char objective_help[] =
"an objective is an upper limit on a percentile or the average, as p99<10ms or avg<5ms";

/* What --fail-if's limit is outside --compare. */
static const char floor_help[] =
"outside --compare the limit is capacity:<N (transactions per second)";

/* The objective's name as it is kept: "p99", "p99.9" or "avg". */
static bool
objective_name_ok(gate_limit *l, const char **why)
{
	*why = objective_help;
	return gate_latency_name(l) && !l->above && l->unit == GATE_UNIT_TIME && l->value > 0;
}

bool
capacity_parse_objectives(capacity_settings *c, const char *arg)
{
	static const gate_spec spec = {
		"--capacity", GATE_UNIT_TIME, "p99<10ms,avg<2ms", objective_help, objective_name_ok
	};

	c->wanted = true;
	return gate_parse_report(arg, &spec, c->objectives, &c->nobjectives);
}

bool
capacity_parse_resolution(capacity_settings *c, const char *arg)
{
	char	   *end;
	double		v = strtod(arg, &end);

	if (end != arg && strcmp(end, "%") == 0)
		end++;
	if (end == arg || *end != '\0' || !(v >= 0.1 && v <= 100))
	{
		msg_error("invalid value \"%s\" for option --capacity-resolution: a percentage from 0.1 to 100",
				  arg);
		return false;
	}
	c->resolution = v / 100;
	return true;
}

/* --fail-if's name outside --compare: capacity, below a rate. */
static bool
floor_name_ok(gate_limit *l, const char **why)
{
	*why = floor_help;
	return strcmp(l->name, "capacity") == 0 && !l->above && l->value > 0;
}

bool
capacity_parse_fail_if(capacity_settings *c, const char *arg)
{
	static const gate_spec spec = {
		"--fail-if", GATE_UNIT_NONE, "capacity:<1500", floor_help, floor_name_ok
	};
	int			n;
	gate_limit	l[GATE_MAX_LIMITS];

	if (!gate_parse_report(arg, &spec, l, &n))
		return false;
	if (n != 1)
	{
		msg_error("invalid value \"%s\" for option --fail-if: one limit, as in \"capacity:<1500\"",
				  arg);
		return false;
	}
	c->floor = l[0];
	c->has_floor = true;
	return true;
}

bool
capacity_check(const capacity_settings *c, const bench_settings *s)
{
	const char *bad = NULL;

	if (!c->wanted)
	{
		if (c->resolution > 0 || c->has_floor)
		{
			msg_error("%s needs --capacity", c->has_floor ? "--fail-if" : "--capacity-resolution");
			return false;
		}
		return true;
	}
	if (s->duration <= 0 || s->transactions > 0)
		bad = "a duration (-T, the whole search's budget), not -t";
	else if (s->rate > 0)
		bad = "no -R (it chooses the rates)";
	else if (s->warmup != WARMUP_NONE)
		bad = "no --warmup (each step leaves its own out)";
	else if (s->use_log || s->hist_path != NULL)
		bad = "no -l or --latency-histogram";
	else if (s->latency_limit_ns > 0 || s->dry_run || s->waits_ns > 0 || s->is_connect)
		bad = "no -L, -C, --waits or --dry-run";
	else if (s->duration < 30)
		bad = "a budget (-T) of at least 30 seconds";
	if (bad == NULL)
		return true;
	msg_error("--capacity needs %s", bad);
	return false;
}

/* The objectives as given, joined by commas. */
void
cap_objectives_text(const capacity_settings *c, char *buf, size_t len)
{
	size_t		used = 0;

	buf[0] = '\0';
	for (int i = 0; i < c->nobjectives && used < len; i++)
		used += (size_t) snprintf(buf + used, len - used, "%s%s", i ? "," : "", c->objectives[i].text);
}
