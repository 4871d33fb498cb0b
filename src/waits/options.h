/*
 * options.h — parsing pgtempo-waits' option values.
 *
 * main.c runs getopt and calls these for the values that are more than a
 * number; each returns false with an allocated message in *cause, worded
 * as PostgreSQL's tools word them.
 */
#ifndef PGTEMPO_WAITS_OPTIONS_H
#define PGTEMPO_WAITS_OPTIONS_H

#include <stdbool.h>

#include "sampler.h"
#include "waits.h"

/*
 * The parsers of the values that are more than a number, all of one shape
 * (main.c lists them in one table): each stores its option's value in the
 * settings, or returns false with the message in *cause.
 */
typedef bool (*options_parse_fn) (const char *arg, waits_settings *s, char **cause);

/* --by=event,pid,...: a comma-separated list of dimensions, no repeats (by, nby). */
bool		options_parse_by(const char *arg, waits_settings *s, char **cause);
/* --source=auto|activity|pg_wait_sampling|pg_stat_wait */
bool		options_parse_source(const char *arg, waits_settings *s, char **cause);
/* --pid=PID[,PID...]: appended to pids. */
bool		options_parse_pids(const char *arg, waits_settings *s, char **cause);
/* --trace=PID[,PID...]: appended to trace_pids. */
bool		options_parse_trace_pids(const char *arg, waits_settings *s, char **cause);
/*
 * --backend-type=TYPE[,TYPE...] or all: appended to backend_types; "all"
 * sets backend_types_all.
 * A type must be one of PostgreSQL's (sampler_backend_types), or
 * "background worker" for any other process (extension workers, which
 * take their own names).
 */
bool		options_parse_backend_types(const char *arg, waits_settings *s, char **cause);
/* The catch-all type for processes whose type is not among them. */
#define OPTIONS_OTHER_BACKEND_TYPE SAMPLER_OTHER_BACKEND_TYPE
/* The sessions' processes, counted when --backend-type is not given. */
extern const char *const options_default_backend_types[];
/* Replace an empty list with the default one. */
void		options_default_backend_types_fill(sampler_strlist *l);

/*
 * The columns a run with these settings does not use (sampler.h's
 * SAMPLER_OMIT_*): the history outputs and the live view use all; the report
 * only those of its --by keys.
 */
unsigned	options_query_omit(const waits_settings *s);
/* The sampler's configuration for these settings (the lists stay s's). */
void		options_sampler_config(const waits_settings *s, sampler_config *cfg);

/* --log-format=csv|jsonl */
bool		options_parse_log_format(const char *arg, waits_settings *s, char **cause);
/* The format a log file gets: the one asked for, else from its name (.jsonl/.json: JSON Lines). */
waits_log_format options_log_format_for(const char *path, waits_log_format asked);
/*
 * --log-retain=LIMIT: an age (a number with unit min, h or d) into
 * log_retain_ns, or a size (kB, MB, GB or TB, powers of 1024) into
 * log_retain_bytes; each at most once.
 */
bool		options_parse_retain(const char *arg, waits_settings *s, char **cause);
/*
 * --fail-if=LIST: the gate's grammar (gate.h) into fail_if; NAME is
 * total, a wait event type or event (one word: either), or TYPE:EVENT
 * (TYPE/EVENT); LIMIT a signed change in active sessions ("+0.5") or in %
 * of the baseline ("+50%"), or after < or > (a ratio: "total>1.5x").
 */
bool		options_parse_fail_if(const char *arg, waits_settings *s, char **cause);

/*
 * --listen=[HOST:]PORT: where /metrics is served; HOST is a name or an
 * address, an IPv6 address in brackets ([::1]:9187); without it,
 * 127.0.0.1.  ":PORT" is refused: other tools read it as every address.
 * Port 0 takes a free port.
 */
bool		options_parse_listen(const char *arg, waits_settings *s, char **cause);
/* Append a copy of v. */
void		options_strlist_add(sampler_strlist *l, const char *v);
void		options_strlist_free(sampler_strlist *l);

const char *options_source_name(sampler_source s);

#endif
