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
 * A duration: a number (integer or decimal, in decimal digits only: not
 * "0x1h" nor "1e3s") with an optional unit us, ms, s, min, h or d;
 * default_unit applies when there is none, and with a NULL default_unit
 * the unit must be given.  The result is in nanoseconds and must lie in
 * [min_ns, max_ns]; the range message is written in the default unit
 * (without one, a value out of range is an invalid value).
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

/* The forms of a time beyond ISO 8601 with an offset and @EPOCH (parse_time). */
#define PARSE_TIME_LOCAL 0x1	/* no offset: local time; and a time of today alone */

/*
 * A point in time given on the command line, in microseconds since the
 * epoch.  Always taken:
 *   ISO 8601 with its offset: "2026-11-26T14:00+01:00", "...T13:00:00.25Z"
 *     (a space for the T; seconds and fraction optional; the date alone
 *     is its midnight), offsets Z, +HH:MM, +HHMM, +HH;
 *   "@EPOCH": Unix time, decimals allowed ("@1795698000.5").
 * With PARSE_TIME_LOCAL also the same without an offset, in local time,
 * and "HH:MM[:SS[.frac]]" of the day now_us is in.  Every field must be
 * one of the calendar (no February 31st, hour 24, minute 60, second 60,
 * month 13, offset beyond 23:59) and the year at least 1970; otherwise
 * false with *cause (if not NULL):
 *   invalid value "X" for option --since: not a valid time (the forms)
 */
bool		parse_time(const char *s, const char *optname, unsigned forms, int64_t now_us,
					   int64_t *us, char **cause);

/*
 * A time in a file: ISO 8601 date, time and offset, all of the len bytes
 * at s (which need not be NUL-terminated), checked as parse_time checks.
 */
bool		parse_time_iso(const char *s, size_t len, int64_t *us);

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
