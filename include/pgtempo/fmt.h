/*
 * fmt.h — decimal integers written by hand, for hot paths.
 *
 * fmt_u64()/fmt_i64() write a number at p (no terminator) and return the
 * end: digits are produced two at a time from a table, about a tenth of
 * what snprintf("%llu") costs.  p needs room for FMT_INT64_MAX bytes.
 */
#ifndef PGTEMPO_FMT_H
#define PGTEMPO_FMT_H

#include <stdint.h>
#include <string.h>

/* "-9223372036854775808" and "18446744073709551615" have 20 characters. */
#define FMT_INT64_MAX 20

extern const char fmt_digit_pairs[201];
extern const uint64_t fmt_pow10[20];

/* The number of decimal digits of v (1 for 0). */
static inline int
fmt_ndigits(uint64_t v)
{
	uint64_t	x = v | 1;

	/* log10(2) ~ 1233/4096: a guess from the bit length, one short at most */
	int			t = ((64 - __builtin_clzll(x)) * 1233) >> 12;

	return t + (t < 20 && x >= fmt_pow10[t]);
}

static inline char *
fmt_u64(char *p, uint64_t v)
{
	char	   *end = p + fmt_ndigits(v);
	char	   *q = end;

	while (v >= 100)
	{
		unsigned	r = (unsigned) (v % 100);

		v /= 100;
		q -= 2;
		memcpy(q, fmt_digit_pairs + 2 * r, 2);
	}
	if (v >= 10)
	{
		q -= 2;
		memcpy(q, fmt_digit_pairs + 2 * v, 2);
	}
	else
		*--q = (char) ('0' + v);
	return end;
}

static inline char *
fmt_i64(char *p, int64_t v)
{
	if (v < 0)
	{
		*p++ = '-';
		return fmt_u64(p, 0 - (uint64_t) v);
	}
	return fmt_u64(p, (uint64_t) v);
}

#endif
