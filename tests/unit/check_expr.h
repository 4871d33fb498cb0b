/*
 * check_expr.h — what the two halves of the expr unit test share: the
 * variables of the reference run, running one expression the way the
 * reference table records its outcome, and the table's test case.
 */
#ifndef PGTEMPO_TESTS_CHECK_EXPR_H
#define PGTEMPO_TESTS_CHECK_EXPR_H

#include <stdio.h>

#include "lang/expr.h"
#include "unit.h"

/* Fresh variables as the reference run defined them with -D. */
vars	   *check_expr_vars_new(void);

/* Parse and evaluate text as it is; the outcome in the table's notation (caller frees). */
char	   *check_expr_run_text(const char *line, vars *vs, prng_state *rs, FILE *debug_out);

/* Parse and evaluate one expression followed by a newline (caller frees). */
char	   *check_expr_run(const char *text, vars *vs, prng_state *rs, FILE *debug_out);

/* The test case walking the reference table. */
TCase	   *check_expr_table_tcase(void);

#endif
