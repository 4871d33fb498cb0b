/*
 * ioparse.h — ioping's forms of numbers on the command line.
 *
 * A size is a number of bytes with an optional suffix (sector, k/kb/KiB,
 * page, m/mb/MiB, g/gb/GiB, t/tb/TiB); a time is in seconds unless it ends
 * in ns/nsec, us/usec, ms/msec, s/sec, m/min or h/hour; a count may end in
 * k, m, g or t (powers of 1000).  Suffixes ignore case, a number may have a
 * fraction ("0.5m", "0.1"), and the result must be a whole number of the
 * base unit.  On failure *cause is an allocated message ("invalid suffix
 * \"x\"", "must not be negative", "is out of range").
 */
#ifndef PGTEMPO_IO_IOPARSE_H
#define PGTEMPO_IO_IOPARSE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum ioparse_kind
{
	IOPARSE_SIZE,				/* bytes */
	IOPARSE_TIME,				/* nanoseconds */
	IOPARSE_COUNT				/* a plain number */
} ioparse_kind;

bool		ioparse_value(const char *s, ioparse_kind kind, uint64_t *out, char **cause);

#endif
