/*
 * expr.h — pgbench's expression language (\set and \if): parse once into
 * a tree, evaluate per client.
 *
 * The grammar (exprparse.y, bison) and scanner (exprscan.l, flex) are
 * reentrant and pure; expr_parse() turns the text of one meta-command's
 * expression into a tree, or reports a syntax error with its column so
 * the caller can print pgbench's "^ error found here" line.
 */
#ifndef PGTEMPO_BENCH_EXPR_H
#define PGTEMPO_BENCH_EXPR_H

#include <stdbool.h>
#include <stdio.h>

#include "prng.h"
#include "value.h"
#include "vars.h"

typedef struct expr expr;

typedef struct expr_error
{
	char	   *msg;			/* e.g. "syntax error", "unexpected function name" */
	char	   *more;			/* detail in parentheses after msg, or NULL */
	int			column;			/* 0-based offset into the text, or -1 */
} expr_error;

/* What evaluation needs from the client that runs it. */
typedef struct expr_env
{
	vars	   *vars;			/* the client's variables */
	prng_state *rs;				/* the client's random state for random*() */
	int			script_no;		/* for debug(): script=N,command=M */
	int			command_no;		/* 1-based, as pgbench prints it */
	FILE	   *debug_out;		/* where debug() writes; stderr */
} expr_env;

/*
 * Parse the expression in text[start..end) (end = strlen(text) when
 * end < 0).  Backslash-newline counts as white space; a newline ends the
 * expression (what follows it is not read).  On error returns NULL and
 * fills *err (free with expr_error_clear), column relative to text: the
 * last character of the token pgbench would have been reading, so pass
 * the range with the line's newline for pgbench's column at the end of
 * a line (without it, the last character is the column, as pgbench does
 * at the end of a file).
 */
expr	   *expr_parse(const char *text, int start, int end, expr_error *err);
void		expr_free(expr *e);
void		expr_error_clear(expr_error *err);

/*
 * Evaluate; false with *err set to pgbench's run-time message (e.g.
 * "bigint add out of range", "division by zero", 'undefined variable
 * "x"'), or to NULL where pgbench prints none (a variable holding the
 * empty string).  Nothing is allocated unless evaluation fails.
 */
bool		expr_eval(const expr *e, expr_env *env, value *out, char **err);

/*
 * Split a meta-command's arguments into words the way pgbench does
 * (white space separated; backslash-newline is white space).  Returns
 * the number of words; *words and *offsets (0-based, into text) are
 * allocated arrays.
 */
int			expr_split_words(const char *text, int start, int end, char ***words, int **offsets);

#endif
