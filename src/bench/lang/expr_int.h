/*
 * expr_int.h — the expression tree, shared by the grammar (exprparse.y),
 * the scanner (exprscan.l) and the evaluator (expr.c).  Not for other
 * modules: they see expr as an opaque type.
 *
 * Operators are functions of the tree like any other (a + b is a call of
 * EF_ADD with two arguments), the way pgbench models them, so that type
 * rules live in one place.  Syntactic sugar is resolved by the grammar:
 * a > b is EF_LT(b, a), -x is EF_SUB(0, x), ~x is EF_BITXOR(-1, x),
 * x IS NOT NULL is EF_NOT(EF_IS(x, NULL)), and hash(x) gets the variable
 * default_seed as its second argument.
 */
#ifndef PGTEMPO_BENCH_EXPR_INT_H
#define PGTEMPO_BENCH_EXPR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "expr.h"

/* pgbench evaluates at most this many arguments of a function (least, greatest). */
#define EXPR_MAX_ARGS	16
/* The most arguments any other function takes (random_gaussian, permute). */
#define EXPR_FIXED_ARGS	3

/*
 * How deeply an expression may nest.  Each parenthesis, function call,
 * CASE and prefix operator (- + ~ NOT) is one level, and so is the right
 * operand of a binary operator; a chain of binary operators such as
 * 1 + 2 + 3 + ... is evaluated in a loop and adds nothing however long
 * it is.  This bounds the recursion of evaluation (a few hundred bytes
 * of stack a level) far below any thread's stack, where pgbench crashes.
 */
#define EXPR_MAX_DEPTH	1000

/*
 * The parser's own stack: a level of nesting takes at most four entries
 * ("f(1, g(" holds f, "(", the list and ","), so an expression within
 * EXPR_MAX_DEPTH never fills it, and one that does is reported the same
 * way, at the token where it overflowed.
 */
#define EXPR_PARSER_STACK	(4 * EXPR_MAX_DEPTH + 100)

typedef enum expr_kind
{
	EK_CONST,
	EK_VAR,
	EK_FUNC
} expr_kind;

typedef enum expr_fn
{
	/* arithmetic, with int/double promotion (EF_MOD is always int) */
	EF_ADD,
	EF_SUB,
	EF_MUL,
	EF_DIV,
	EF_MOD,
	/* comparisons, with the same promotion */
	EF_EQ,
	EF_NE,
	EF_LE,
	EF_LT,
	/* int only */
	EF_BITAND,
	EF_BITOR,
	EF_BITXOR,
	EF_LSHIFT,
	EF_RSHIFT,
	/* logic: AND, OR and CASE evaluate their arguments lazily */
	EF_AND,
	EF_OR,
	EF_NOT,
	EF_IS,						/* x IS NULL / TRUE / FALSE: second argument a constant */
	EF_CASE,					/* cond, result, cond, result, ..., else */
	/* functions callable by name */
	EF_ABS,
	EF_DEBUG,
	EF_DOUBLE,
	EF_EXP,
	EF_GREATEST,
	EF_HASH_FNV1A,
	EF_HASH_MURMUR2,
	EF_INT,
	EF_LEAST,
	EF_LN,
	EF_PERMUTE,
	EF_PI,
	EF_POW,
	EF_RANDOM,
	EF_RANDOM_EXPONENTIAL,
	EF_RANDOM_GAUSSIAN,
	EF_RANDOM_ZIPFIAN,
	EF_SQRT,
	EF_COUNT					/* not a function: how many there are */
} expr_fn;

struct expr
{
	expr_kind	kind;
	expr_fn		fn;				/* EK_FUNC */
	int			nargs;			/* EK_FUNC */
	struct expr **args;			/* EK_FUNC: nargs subtrees */
	value		constant;		/* EK_CONST */
	char	   *varname;		/* EK_VAR */

	/*
	 * A binary operator (made by expr_make_op): evaluated together with
	 * the binary operators down its first argument, bottom up, in a loop.
	 */
	bool		chain;
	/* the binary operator whose first argument this chained one is, or NULL */
	struct expr *chain_up;

	struct expr *all_next;		/* every node of one parse, linked for freeing */
	struct expr *all;			/* the root only: the head of that list */

	/* parse time only */
	struct expr *next;			/* the next expression of an argument list */
	int			depth;			/* nesting as counted for EXPR_MAX_DEPTH */
};

/* An argument list while parsing: linked through expr.next. */
typedef struct expr_list
{
	struct expr *head;
	struct expr *tail;
	int			len;
} expr_list;

/* A token's place in the scanned text: FUNCTION and VARIABLE names. */
typedef struct expr_tok
{
	int			start;			/* offset into the scanned range */
	int			len;
} expr_tok;

/* What the scanner and the grammar share while parsing one expression. */
typedef struct expr_parse_state
{
	const char *text;			/* the scanned range (not NUL-terminated) */
	int			len;
	int			base;			/* offset of text in the caller's string */
	int			pos;			/* end of the last token scanned, into text */
	struct expr *result;
	struct expr *all;			/* every node made, linked by all_next */
	expr_error *err;			/* where errors go */
	bool		failed;
	bool		at_end;			/* the scanner has returned the end of the expression */
	int			open_parens;	/* "(" scanned and not yet closed */
} expr_parse_state;

/* The message of an expression nested deeper than EXPR_MAX_DEPTH. */
#define EXPR_DEPTH_MSG	"expression is too deeply nested"
/* Its detail, in parentheses after it. */
#define EXPR_DEPTH_MORE	"at most " EXPR_STRINGIFY(EXPR_MAX_DEPTH) " levels"
#define EXPR_STRINGIFY(x)	EXPR_STRINGIFY_(x)
#define EXPR_STRINGIFY_(x)	#x

/*
 * The scanner (exprscan.l) over ps->text for the grammar's expr_yyparse
 * (exprparse.y, which calls these and expr_yylex): NULL if it cannot be
 * made.  expr_scan_end frees it, after reading the rest of the text when
 * read_rest (an error before the end: a later lexical error replaces it).
 */
void	   *expr_scan_begin(expr_parse_state *ps);
void		expr_scan_end(void *scanner, bool read_rest);

/* Record an error at the end of the last token, replacing any earlier one. */
void		expr_parse_fail(expr_parse_state *ps, const char *msg, const char *more);

/* Tree construction (expr.c); every node is registered in ps->all. */
struct expr *expr_make_const(expr_parse_state *ps, value v);
struct expr *expr_make_var(expr_parse_state *ps, const char *name, int len);
struct expr *expr_make_op(expr_parse_state *ps, expr_fn fn, struct expr *a, struct expr *b);
struct expr *expr_make_uop(expr_parse_state *ps, expr_fn fn, struct expr *a);
/* A call of a named function (index from expr_find_func); NULL on an argument count error. */
struct expr *expr_make_call(expr_parse_state *ps, int func, expr_list *args);
struct expr *expr_make_case(expr_parse_state *ps, expr_list *when_then, struct expr *else_part);
/* A parenthesis or unary plus around e: one more level of nesting. */
struct expr *expr_nest(expr_parse_state *ps, struct expr *e);
/* The index of a function by name (case-insensitive), or -1 with the error recorded. */
int			expr_find_func(expr_parse_state *ps, const char *name, int len);

/* Free every node made so far (ps->all), after a failed parse: they are not one tree. */
void		expr_discard(expr_parse_state *ps);

void		expr_list_init(expr_list *l);
void		expr_list_append(expr_list *l, struct expr *e);

#endif
