/*
 * iofmt.h — numbers as ioping writes them for people.
 *
 * A value is written in the largest unit it reaches: as a whole number
 * when it is a whole multiple of the unit ("4 KiB", "1 ms", "660"), else
 * with two decimals below 10 and one above ("2.34 ms", "180.2 us",
 * "1000.0 us": the unit is chosen before the rounding, as ioping does).
 *   time:   ns us ms s min hour (nanoseconds in)
 *   size:   B KiB MiB GiB TiB PiB EiB (powers of 1024)
 *   count:  "", k, M, G, T, P, E (powers of 1000; "4.94 k", "14")
 * Each writes into buf[IOFMT_MAX] and returns buf.
 */
#ifndef PGTEMPO_IO_IOFMT_H
#define PGTEMPO_IO_IOFMT_H

#include <stdint.h>

#define IOFMT_MAX 40

char	   *iofmt_time(char *buf, uint64_t ns);
char	   *iofmt_size(char *buf, uint64_t bytes);
char	   *iofmt_count(char *buf, uint64_t n);

#endif
