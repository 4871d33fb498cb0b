/*
 * check_script.h — what the two halves of the script unit test share:
 * parsing a script with its error output caught, and the errors test case.
 */
#ifndef PGTEMPO_TESTS_CHECK_SCRIPT_H
#define PGTEMPO_TESTS_CHECK_SCRIPT_H

#include "lang/script.h"
#include "unit.h"

/* Parse text as "t.sql" with stderr caught; *err gets what was printed (caller frees). */
script	   *check_script_parse_caught(const char *text, char **err);

/* The test case of load-time errors and script files. */
TCase	   *check_script_errors_tcase(void);

#endif
