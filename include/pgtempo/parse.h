/*
 * parse.h — strict parsing of option values.
 *
 * A value is accepted only if the whole string is a number in range
 * (leading and trailing blanks allowed, as PostgreSQL's tools allow).
 * On failure the functions return false and set *cause to an allocated
 * message in PostgreSQL's wording, without the program name:
 *
 *   invalid value "x" for option -d/--duration
 *   -d/--duration must be in range 1..4294967295
 *
 * optname is the option as the user knows it, e.g. "-d/--duration".
 */
#ifndef PGTEMPO_PARSE_H
#define PGTEMPO_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool		parse_int64(const char *s, const char *optname, int64_t min, int64_t max,
						int64_t *out, char **cause);
bool		parse_double(const char *s, const char *optname, double min, double max,
						 double *out, char **cause);

/*
 * A duration: a number (integer or decimal) with an optional unit
 * us, ms, s, min or h; default_unit applies when there is none.  The
 * result is in nanoseconds and must lie in [min_ns, max_ns]; the range
 * message is written in the default unit.
 */
bool		parse_duration_ns(const char *s, const char *optname, const char *default_unit,
							  int64_t min_ns, int64_t max_ns, int64_t *out, char **cause);

/*
 * A duration option's value in [min, max] ns: false with the message
 * printed (msg_error); a range error names the bounds in whole units
 * ("-i/--interval must be between 10 us and 1 min").
 */
bool		parse_duration_opt(const char *arg, const char *name, const char *unit,
							   int64_t min, int64_t max, int64_t *out);

/*
 * A point in time as Unix time (seconds): ISO 8601 with its offset
 * ("2026-11-26T14:00:00+01:00", "...T13:00:00.250Z", a space allowed
 * for the T, seconds optional) or "@EPOCH" ("@1795698000.5").  A time
 * without an offset is refused: on several hosts, local time is a guess.
 */
bool		parse_timestamp(const char *s, const char *optname, double *out, char **cause);

/*
 * The n digits at p as a number (n up to 9), or -1 if they are not all
 * digits; nothing past the first that is not one is read.
 */
int			parse_digits(const char *p, int n);

/*
 * A UTC offset that is all of p: "Z", "+HH:MM", "+HHMM" or "+HH" (or with
 * '-'), *off in seconds east of UTC; false if p is not one.
 */
bool		parse_utc_offset(const char *p, long *off);

/*
 * The index of the name of len bytes at s (which need not be
 * NUL-terminated) among names[0..n-1], or -1 when it is none of them.
 * A NULL entry ends the list: pass SIZE_MAX for a NULL-terminated one.
 */
int			parse_name(const char *const *names, size_t n, const char *s, size_t len);

/*
 * After getopt_long() returned '?' or ':' (with ':' first in its option
 * string and opterr = 0): true when the user asked for help with -?;
 * otherwise reports the bad option in PostgreSQL's words ("invalid
 * option -- 'x'", "option \"--clock\" requires an argument", ...) and
 * returns false, and the caller adds its "Try ... --help" line.
 */
bool		parse_getopt_error(int c, char *const argv[]);

#endif
