/*
 * exprparse.y — the grammar of pgbench's expression language (\set,
 * \if, \elif).
 *
 * A pure parser over the reentrant scanner of exprscan.l.  Operator
 * precedence, from loosest to tightest: OR; AND; NOT; IS/ISNULL/NOTNULL;
 * comparisons; bitwise operators and shifts; + -; * / %; unary + - ~.
 * Comparisons and IS do not chain (1 < 2 < 3 is a syntax error), as in
 * pgbench.
 *
 * Errors are located where pgbench locates them: at the last character
 * of the last token read.  That depends on when the parser reads a
 * lookahead token, so the shape of the rules matters: a function name is
 * its own nonterminal, looked up as soon as it is read (before the "("),
 * and a call's argument count is checked when its ")" is read.
 */

%code top
{
#include "config.h"
}

%code requires
{
#include <stdbool.h>
#include <stdint.h>

#include "expr_int.h"

#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif
}

%code
{
#include <string.h>

#include "pgtempo/xalloc.h"

/* bison's "memory exhausted" comes at this depth; reported as too deep nesting */
#define YYMAXDEPTH	EXPR_PARSER_STACK

int			expr_yylex(EXPR_YYSTYPE *yylval_param, yyscan_t yyscanner);
static void expr_yyerror(yyscan_t scanner, expr_parse_state *ps, const char *msg);
}

%define api.pure full
%define api.prefix {expr_yy}
%define parse.error verbose
%expect 0

%param {yyscan_t scanner}
%parse-param {expr_parse_state *ps}

%union
{
	int64_t		ival;
	double		dval;
	bool		bval;
	expr_tok	tok;
	int			func;
	struct expr *node;
	expr_list	list;
}

%token NULL_CONST INTEGER_CONST MAXINT_PLUS_ONE_CONST DOUBLE_CONST BOOLEAN_CONST
%token VARIABLE FUNCTION
%token AND_OP OR_OP NOT_OP NE_OP LE_OP GE_OP LS_OP RS_OP IS_OP ISNULL_OP NOTNULL_OP
%token CASE_KW WHEN_KW THEN_KW ELSE_KW END_KW

%type <ival> INTEGER_CONST
%type <dval> DOUBLE_CONST
%type <bval> BOOLEAN_CONST
%type <tok> VARIABLE FUNCTION
%type <func> func_name
%type <node> expr case_expr
%type <list> arg_list when_list

%left		OR_OP
%left		AND_OP
%precedence	NOT_OP
%precedence	IS_OP ISNULL_OP NOTNULL_OP
%nonassoc	'<' '>' '=' LE_OP GE_OP NE_OP
%left		'|' '#' '&' LS_OP RS_OP '~'
%left		'+' '-'
%left		'*' '/' '%'
%precedence	UNARY

%%

top:
	expr						{ ps->result = $1; }
	;

arg_list:
	%empty						{ expr_list_init(&$$); }
	| expr						{ expr_list_init(&$$); expr_list_append(&$$, $1); }
	| arg_list ',' expr			{ $$ = $1; expr_list_append(&$$, $3); }
	;

expr:
	'(' expr ')'				{ $$ = expr_nest(ps, $2); }
	| '+' expr %prec UNARY		{ $$ = expr_nest(ps, $2); }
	| '-' expr %prec UNARY
		{
			/* negation is subtraction from 0, with its type rules and overflow check */
			$$ = expr_make_op(ps, EF_SUB, expr_make_const(ps, value_int(0)), $2);
		}
	| '-' MAXINT_PLUS_ONE_CONST %prec UNARY
		{
			/* the only way to write INT64_MIN: its absolute value is no int64 */
			$$ = expr_make_const(ps, value_int(INT64_MIN));
		}
	| '~' expr
		{
			/* complement is xor with all ones */
			$$ = expr_make_op(ps, EF_BITXOR, expr_make_const(ps, value_int(-1)), $2);
		}
	| NOT_OP expr				{ $$ = expr_make_uop(ps, EF_NOT, $2); }
	| expr '+' expr				{ $$ = expr_make_op(ps, EF_ADD, $1, $3); }
	| expr '-' expr				{ $$ = expr_make_op(ps, EF_SUB, $1, $3); }
	| expr '*' expr				{ $$ = expr_make_op(ps, EF_MUL, $1, $3); }
	| expr '/' expr				{ $$ = expr_make_op(ps, EF_DIV, $1, $3); }
	| expr '%' expr				{ $$ = expr_make_op(ps, EF_MOD, $1, $3); }
	| expr '<' expr				{ $$ = expr_make_op(ps, EF_LT, $1, $3); }
	| expr LE_OP expr			{ $$ = expr_make_op(ps, EF_LE, $1, $3); }
	/* > and >= swap their operands, which also swaps evaluation order, as pgbench does */
	| expr '>' expr				{ $$ = expr_make_op(ps, EF_LT, $3, $1); }
	| expr GE_OP expr			{ $$ = expr_make_op(ps, EF_LE, $3, $1); }
	| expr '=' expr				{ $$ = expr_make_op(ps, EF_EQ, $1, $3); }
	| expr NE_OP expr			{ $$ = expr_make_op(ps, EF_NE, $1, $3); }
	| expr '&' expr				{ $$ = expr_make_op(ps, EF_BITAND, $1, $3); }
	| expr '|' expr				{ $$ = expr_make_op(ps, EF_BITOR, $1, $3); }
	| expr '#' expr				{ $$ = expr_make_op(ps, EF_BITXOR, $1, $3); }
	| expr LS_OP expr			{ $$ = expr_make_op(ps, EF_LSHIFT, $1, $3); }
	| expr RS_OP expr			{ $$ = expr_make_op(ps, EF_RSHIFT, $1, $3); }
	| expr AND_OP expr			{ $$ = expr_make_op(ps, EF_AND, $1, $3); }
	| expr OR_OP expr			{ $$ = expr_make_op(ps, EF_OR, $1, $3); }
	| expr ISNULL_OP
		{
			$$ = expr_make_op(ps, EF_IS, $1, expr_make_const(ps, value_null()));
		}
	| expr NOTNULL_OP
		{
			$$ = expr_make_uop(ps, EF_NOT,
							   expr_make_op(ps, EF_IS, $1, expr_make_const(ps, value_null())));
		}
	| expr IS_OP NULL_CONST
		{
			$$ = expr_make_op(ps, EF_IS, $1, expr_make_const(ps, value_null()));
		}
	| expr IS_OP NOT_OP NULL_CONST
		{
			$$ = expr_make_uop(ps, EF_NOT,
							   expr_make_op(ps, EF_IS, $1, expr_make_const(ps, value_null())));
		}
	| expr IS_OP BOOLEAN_CONST
		{
			$$ = expr_make_op(ps, EF_IS, $1, expr_make_const(ps, value_bool($3)));
		}
	| expr IS_OP NOT_OP BOOLEAN_CONST
		{
			$$ = expr_make_uop(ps, EF_NOT,
							   expr_make_op(ps, EF_IS, $1, expr_make_const(ps, value_bool($4))));
		}
	| NULL_CONST				{ $$ = expr_make_const(ps, value_null()); }
	| BOOLEAN_CONST				{ $$ = expr_make_const(ps, value_bool($1)); }
	| INTEGER_CONST				{ $$ = expr_make_const(ps, value_int($1)); }
	| DOUBLE_CONST				{ $$ = expr_make_const(ps, value_double($1)); }
	| VARIABLE					{ $$ = expr_make_var(ps, ps->text + $1.start, $1.len); }
	| func_name '(' arg_list ')'
		{
			$$ = expr_make_call(ps, $1, &$3);
			if ($$ == NULL)
				YYABORT;
		}
	| case_expr					{ $$ = $1; }
	;

when_list:
	when_list WHEN_KW expr THEN_KW expr
		{
			$$ = $1;
			expr_list_append(&$$, $3);
			expr_list_append(&$$, $5);
		}
	| WHEN_KW expr THEN_KW expr
		{
			expr_list_init(&$$);
			expr_list_append(&$$, $2);
			expr_list_append(&$$, $4);
		}
	;

case_expr:
	CASE_KW when_list END_KW
		{
			$$ = expr_make_case(ps, &$2, expr_make_const(ps, value_null()));
		}
	| CASE_KW when_list ELSE_KW expr END_KW
		{
			$$ = expr_make_case(ps, &$2, $4);
		}
	;

func_name:
	FUNCTION
		{
			$$ = expr_find_func(ps, ps->text + $1.start, $1.len);
			if ($$ < 0)
				YYABORT;
		}
	;

%%

/* Bison's report of a syntax error; pgbench says no more than "syntax error". */
static void
expr_yyerror(yyscan_t scanner, expr_parse_state *ps, const char *msg)
{
	(void) scanner;
	if (ps->failed)
		return;
	/* verbose mode appends ", unexpected X, expecting Y", which pgbench never shows */
	if (strncmp(msg, "syntax error", 12) == 0)
		expr_parse_fail(ps, "syntax error", NULL);
	else if (strcmp(msg, "memory exhausted") == 0)
		/* the parser's stack is full: pgbench says just "memory exhausted" */
		expr_parse_fail(ps, EXPR_DEPTH_MSG, EXPR_DEPTH_MORE);
	else
		expr_parse_fail(ps, msg, NULL);
}

/*
 * Parse one expression: the grammar over the scanner, the tree built by
 * exprbuild.c.  Here, above both, so that neither calls back up; on an
 * error, what was built is freed.
 */
expr *
expr_parse(const char *text, int start, int end, expr_error *err)
{
	expr_parse_state ps;
	void	   *scanner;
	bool		ok;

	if (end < 0)
		end = (int) strlen(text);
	memset(&ps, 0, sizeof(ps));
	ps.text = text + start;
	ps.len = end - start;
	ps.base = start;
	ps.err = err;
	err->msg = NULL;
	err->more = NULL;
	err->column = -1;

	scanner = expr_scan_begin(&ps);
	ok = scanner != NULL && expr_yyparse(scanner, &ps) == 0 && !ps.failed;
	if (scanner != NULL)
		expr_scan_end(scanner, !ok && !ps.at_end);
	if (!ok)
	{
		expr_discard(&ps);
		if (err->msg == NULL)
			err->msg = xstrdup("syntax error");
		return NULL;
	}
	ps.result->all = ps.all;
	return ps.result;
}
