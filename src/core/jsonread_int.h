/*
 * jsonread_int.h — what the tree parser (jsonread.c) takes from the
 * lexical level (jsonread_scan.c): one grammar of strings and numbers.
 */
#ifndef PGTEMPO_CORE_JSONREAD_INT_H
#define PGTEMPO_CORE_JSONREAD_INT_H

#include <stdbool.h>

#include "pgtempo/jsonread.h"

/* A number as scanned: where its digits are; jsonread_number_value reads them. */
typedef struct jsonread_number_parts
{
	bool		neg;
	bool		integral;		/* no fraction, no exponent */
	const char *digits;			/* the integer part's */
	int			nint;
	const char *frac;			/* the fraction's */
	int			nfrac;
	long		exp10;			/* the exponent as written (capped at 100000) */
} jsonread_number_parts;

/*
 * The body of a string from *pp (past its opening quote) up to its
 * closing quote or end, where *pp is left; NULL, or the error with *pp at
 * it.  Decoded into *dst when dst is not NULL (in place is fine); *esc
 * (if not NULL) says it has escapes.
 */
const char *jsonread_string_body(const char **pp, const char *end, char **dst, bool *esc);

/*
 * A number at *pp per RFC 8259's grammar: NULL with *pp past it, or the
 * error with *pp where it is.
 */
const char *jsonread_number_scan(const char **pp, const char *end, jsonread_number_parts *np);

/* The value of the number scanned into np from [start, stop): NULL, or the error. */
const char *jsonread_number_value(const char *start, const char *stop,
								  const jsonread_number_parts *np, jsonread_value *v);

#endif
