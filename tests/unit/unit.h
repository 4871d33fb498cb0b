/*
 * unit.h — the common runner of the Check suites.
 *
 * Each tests/unit/check_*.c defines its Suite and calls unit_run() from
 * main().  Results are written as TAP on stdout, one line per test case
 * function, for automake's tap-driver.
 */
#ifndef PGTEMPO_TESTS_UNIT_H
#define PGTEMPO_TESTS_UNIT_H

#include <check.h>

/* Run the suite, print TAP, return the process exit status. */
int			unit_run(Suite *s);

#endif
