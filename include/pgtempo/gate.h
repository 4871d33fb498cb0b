/*
 * gate.h — limits on a measured change, and the one rule that judges
 * them: pgtempo-bench --compare --fail-if, pgtempo-waits --fail-if (and
 * whatever gate comes next) parse, judge and name their verdicts here.
 *
 * The grammar of a list of limits (--fail-if=LIST):
 *
 *   LIST   = ITEM [ "," ITEM ]...
 *   ITEM   = NAME ":" SIGN NUMBER [UNIT]       tps:-5%   Lock:+0.5
 *          | NAME [":"] OP [SIGN] NUMBER [UNIT]  tps<-5%   p99:>+10%   tps<0.95x
 *          | NAME                                disagree   (a tool's word alone)
 *   SIGN   = "+" | "-"       + a rise beyond the number, - a drop beyond it
 *   OP     = ">" | "<"       > above the number, < below it
 *   NUMBER = digits [ "." digits ] | "." digits   (no exponent, no inf)
 *   UNIT   = "%" | "x" | "ms" | "us" | "s" | nothing (the tool's own unit)
 *
 * NAME is everything before the operator (one ":" right before it is
 * dropped), or before the last ":" when the limit is signed; it may hold
 * ":" and "/" itself (latency:p99, Lock:transactionid, IO/DataFileRead).
 * Each tool says which names and units it takes.  "x" is a ratio new /
 * base, kept as the change in % it means (0.95x is -5 %): it needs an OP.
 * A NAME alone is taken only where the tool's bare_ok says so: it trips
 * when the interval lies wholly beyond 0 either way (gate_judge's verdict
 * is not "no difference shown").
 *
 * The rule: a change is judged by its interval at the level of its family
 * (gate_level: Bonferroni over every interval a report computes at once).
 * A limit trips when the whole interval lies beyond it, in its direction;
 * the verdict of a change is that rule with a limit of 0 each way.
 */
#ifndef PGTEMPO_GATE_H
#define PGTEMPO_GATE_H

#include <stdbool.h>

#define GATE_MAX_LIMITS 16

/* The family-wise level of a report's intervals: each is at gate_level(GATE_LEVEL, family). */
#define GATE_LEVEL 0.95

typedef enum gate_unit
{
	GATE_UNIT_NONE = 1,			/* the tool's own unit (active sessions, tps) */
	GATE_UNIT_PCT = 2,			/* % of the base (and "x", converted) */
	GATE_UNIT_TIME = 4			/* seconds (written ms, us or s) */
} gate_unit;

/* A limit: the change of name beyond value, above or below. */
typedef struct gate_limit
{
	char		text[128];		/* as given, for messages */
	char		name[96];		/* what it names, as the tool checked it */
	bool		above;			/* trips above value; else below it */
	gate_unit	unit;
	double		value;			/* signed: +10 (%), -0.5, 0.002 (s) */
	bool		either;			/* a NAME alone: beyond 0 either way (above is unused) */
} gate_limit;

/* What a tool takes: its names, its units, an example for the message. */
typedef struct gate_spec
{
	const char *option;			/* "--fail-if" */
	unsigned	units;			/* gate_unit flags */
	const char *example;		/* "tps:-5%,p99:+10%" */
	const char *limit_help;		/* what a limit is: "the limit is a signed change in % (-5%)..." */
	/* l->name acceptable (it may rewrite it)?  false with *why, static text */
	bool		(*name_ok) (gate_limit *l, const char **why);
	/* may this item (no operator, no limit) stand alone as a NAME?  NULL: never */
	bool		(*bare_ok) (const char *item);
} gate_spec;

/*
 * Parse LIST into out[0..GATE_MAX_LIMITS), *n of them; false with *cause
 * (allocated) "invalid value "LIST" for option --fail-if: WHY, as in
 * "EXAMPLE"".
 */
bool		gate_parse(const char *list, const gate_spec *spec, gate_limit *out, int *n,
					   char **cause);

/* gate_parse, its cause reported with msg_error: for an option that stops the tool when bad. */
bool		gate_parse_report(const char *list, const gate_spec *spec, gate_limit *out, int *n);

/*
 * A latency's name, the one rule of pgtempo-bench's --fail-if and
 * --capacity: drops a leading "latency:" and writes "average" as "avg";
 * true if the name is then avg or a percentile pN (N decimal digits with
 * an optional fraction, 0 < N < 100: p50, p99, p99.9).
 */
bool		gate_latency_name(gate_limit *l);

/* The level of each of family intervals that hold at level together (Bonferroni). */
double		gate_level(double level, int family);

/*
 * A change's interval: in the metric's own unit (seconds for a time) and
 * in % of the base.  gate_change_abs and gate_change_rel fill one from the
 * other.
 */
typedef struct gate_change
{
	bool		known;			/* there is an interval */
	double		lo,
				hi;
	double		lo_pct,
				hi_pct;
} gate_change;

/*
 * From [lo, hi] of new - base: in % of base; from a base of 0 a rise is
 * +inf %, a drop -inf %.
 */
gate_change gate_change_abs(bool known, double base, double lo, double hi);

/* From [lo, hi] of new / base - 1: in the metric's unit by base. */
gate_change gate_change_rel(bool known, double base, double lo, double hi);

/* Does the change trip l: is its whole interval beyond l's value, in l's direction (either: beyond 0)? */
bool		gate_trips(const gate_limit *l, const gate_change *c);

/* The verdicts both tools print. */
typedef enum gate_verdict
{
	GATE_UNKNOWN,				/* no interval: too few data */
	GATE_NO_DIFFERENCE,			/* the interval holds 0 */
	GATE_HIGHER,				/* it lies wholly above 0 */
	GATE_LOWER					/* wholly below */
} gate_verdict;

/* The verdict of a change: the rule of gate_trips with a limit of 0 each way. */
gate_verdict gate_judge(const gate_change *c);

/* "unknown", "no difference shown", "higher", "lower". */
const char *gate_verdict_word(gate_verdict v);

/* What a limit did: "the change is beyond the limit", "not shown beyond the limit", "not checked". */
const char *gate_outcome_word(bool checked, bool tripped);

#endif
