/*
 * check_prng.h — what the two halves of the prng unit test share.
 */
#ifndef PGTEMPO_TESTS_CHECK_PRNG_H
#define PGTEMPO_TESTS_CHECK_PRNG_H

#include "lang/prng.h"
#include "unit.h"

#define lengthof(a) (sizeof(a) / sizeof((a)[0]))

/* Add the test replaying scripts against pgbench 15's output to tc. */
void		check_prng_add_golden(TCase *tc);

#endif
