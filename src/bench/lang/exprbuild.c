/*
 * exprbuild.c — the parsing side of expressions: the grammar's node
 * constructors with pgbench's function names and argument rules, the
 * error they and the scanner record, freeing a tree, and splitting a
 * meta-command's words.  It calls neither the scanner nor the grammar:
 * expr_parse (exprparse.y) runs both above it.  Evaluation is in expr.c.
 */
#include "config.h"

#include "expr.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pgtempo/xalloc.h"

#include "expr_int.h"

/* Argument count rules beyond a fixed number. */
#define NARGS_ONE_OR_MORE	(-1)	/* least, greatest */
#define NARGS_HASH			(-2)	/* value [, seed] */
#define NARGS_PERMUTE		(-3)	/* value, size [, seed] */

/* The functions a script can call by name. */
static const struct
{
	const char *name;
	int			nargs;
	expr_fn		fn;
}			functions[] =
{
	{"abs", 1, EF_ABS},
	{"debug", 1, EF_DEBUG},
	{"double", 1, EF_DOUBLE},
	{"exp", 1, EF_EXP},
	{"greatest", NARGS_ONE_OR_MORE, EF_GREATEST},
	{"hash", NARGS_HASH, EF_HASH_MURMUR2},
	{"hash_fnv1a", NARGS_HASH, EF_HASH_FNV1A},
	{"hash_murmur2", NARGS_HASH, EF_HASH_MURMUR2},
	{"int", 1, EF_INT},
	{"least", NARGS_ONE_OR_MORE, EF_LEAST},
	{"ln", 1, EF_LN},
	/* pgbench's internal name of %, which scripts can call too */
	{"mod", 2, EF_MOD},
	{"permute", NARGS_PERMUTE, EF_PERMUTE},
	{"pi", 0, EF_PI},
	{"pow", 2, EF_POW},
	{"power", 2, EF_POW},
	{"random", 2, EF_RANDOM},
	{"random_exponential", 3, EF_RANDOM_EXPONENTIAL},
	{"random_gaussian", 3, EF_RANDOM_GAUSSIAN},
	{"random_zipfian", 3, EF_RANDOM_ZIPFIAN},
	{"sqrt", 1, EF_SQRT},
};

#define NFUNCTIONS	((int) (sizeof(functions) / sizeof(functions[0])))

/* ---------------------------------------------------------------- building */

/* Record a parse error at the last character of the last token read. */
void
expr_parse_fail(expr_parse_state *ps, const char *msg, const char *more)
{
	expr_error_clear(ps->err);
	ps->err->msg = xstrdup(msg);
	ps->err->more = more != NULL ? xstrdup(more) : NULL;
	ps->err->column = ps->base + ps->pos - 1;
	ps->failed = true;
}

/* A zeroed node, registered for cleanup. */
static struct expr *
new_node(expr_parse_state *ps, expr_kind kind)
{
	struct expr *e = xcalloc(1, sizeof(*e));

	e->kind = kind;
	e->all_next = ps->all;
	ps->all = e;
	return e;
}

/* A constant node. */
struct expr *
expr_make_const(expr_parse_state *ps, value v)
{
	struct expr *e = new_node(ps, EK_CONST);

	e->constant = v;
	return e;
}

/* A variable node; the name is copied from the scanned text. */
struct expr *
expr_make_var(expr_parse_state *ps, const char *name, int len)
{
	struct expr *e = new_node(ps, EK_VAR);

	e->varname = xstrndup(name, (size_t) len);
	return e;
}

/*
 * Count one more level of nesting into e->depth; past EXPR_MAX_DEPTH
 * record the error (once: the caret stays where the limit was crossed)
 * and let the parse go on to its end, which then fails.
 */
static void
set_depth(expr_parse_state *ps, struct expr *e, int depth)
{
	e->depth = depth;
	if (depth > EXPR_MAX_DEPTH && !ps->failed)
		expr_parse_fail(ps, EXPR_DEPTH_MSG, EXPR_DEPTH_MORE);
}

/*
 * A function node over the expressions of a list.  A binary operator
 * (chain) nests its second argument only: its first is evaluated in the
 * loop of eval_chain(), so a long chain costs no depth.
 */
static struct expr *
make_func(expr_parse_state *ps, expr_fn fn, const expr_list *args, bool chain)
{
	struct expr *e = new_node(ps, EK_FUNC);
	struct expr *a;
	int			i = 0,
				depth = 0;

	e->fn = fn;
	e->nargs = args->len;
	e->chain = chain;
	e->args = xmalloc(sizeof(struct expr *) * (size_t) (args->len > 0 ? args->len : 1));
	for (a = args->head; a != NULL; a = a->next)
		e->args[i++] = a;
	for (i = 0; i < e->nargs; i++)
	{
		e->args[i]->next = NULL;
		if (chain && i == 0)
		{
			depth = e->args[0]->depth;
			if (e->args[0]->chain)
				e->args[0]->chain_up = e;
		}
		else if (e->args[i]->depth + 1 > depth)
			depth = e->args[i]->depth + 1;
	}
	set_depth(ps, e, chain ? depth : (depth > 0 ? depth : 1));
	return e;
}

/* A binary operator node. */
struct expr *
expr_make_op(expr_parse_state *ps, expr_fn fn, struct expr *a, struct expr *b)
{
	expr_list	l;

	expr_list_init(&l);
	expr_list_append(&l, a);
	expr_list_append(&l, b);
	return make_func(ps, fn, &l, true);
}

/* A unary operator node. */
struct expr *
expr_make_uop(expr_parse_state *ps, expr_fn fn, struct expr *a)
{
	expr_list	l;

	expr_list_init(&l);
	expr_list_append(&l, a);
	return make_func(ps, fn, &l, false);
}

/* A parenthesis or unary plus: no node, but a level of nesting. */
struct expr *
expr_nest(expr_parse_state *ps, struct expr *e)
{
	set_depth(ps, e, e->depth + 1);
	return e;
}

/* A CASE node: its WHEN/THEN pairs, then its ELSE (NULL when absent). */
struct expr *
expr_make_case(expr_parse_state *ps, expr_list *when_then, struct expr *else_part)
{
	expr_list_append(when_then, else_part);
	return make_func(ps, EF_CASE, when_then, false);
}

/* Look up a function by name, ignoring case, as pgbench does. */
int
expr_find_func(expr_parse_state *ps, const char *name, int len)
{
	char	   *s;

	for (int i = 0; i < NFUNCTIONS; i++)
		if ((int) strlen(functions[i].name) == len &&
			strncasecmp(functions[i].name, name, (size_t) len) == 0)
			return i;
	s = xstrndup(name, (size_t) len);
	expr_parse_fail(ps, "unexpected function name", s);
	free(s);
	return -1;
}

/* A call node, after pgbench's argument count checks and default seeds. */
struct expr *
expr_make_call(expr_parse_state *ps, int func, expr_list *args)
{
	const char *name = functions[func].name;
	int			n = args->len;

	switch (functions[func].nargs)
	{
		case NARGS_ONE_OR_MORE:
			if (n < 1)
			{
				expr_parse_fail(ps, "at least one argument expected", name);
				return NULL;
			}
			break;
		case NARGS_HASH:
			if (n < 1 || n > 2)
			{
				expr_parse_fail(ps, "unexpected number of arguments", name);
				return NULL;
			}
			if (n == 1)
				expr_list_append(args, expr_make_var(ps, "default_seed", 12));
			break;
		case NARGS_PERMUTE:
			if (n < 2 || n > 3)
			{
				expr_parse_fail(ps, "unexpected number of arguments", name);
				return NULL;
			}
			if (n == 2)
				expr_list_append(args, expr_make_var(ps, "default_seed", 12));
			break;
		default:
			if (n != functions[func].nargs)
			{
				expr_parse_fail(ps, "unexpected number of arguments", name);
				return NULL;
			}
			break;
	}
	return make_func(ps, functions[func].fn, args, false);
}

/* An empty argument list. */
void
expr_list_init(expr_list *l)
{
	l->head = l->tail = NULL;
	l->len = 0;
}

/* Append an expression to an argument list. */
void
expr_list_append(expr_list *l, struct expr *e)
{
	e->next = NULL;
	if (l->tail == NULL)
		l->head = e;
	else
		l->tail->next = e;
	l->tail = e;
	l->len++;
}

/* Free one node's own memory, not its subtrees. */
static void
free_node(struct expr *e)
{
	free(e->args);
	free(e->varname);
	free(e);
}

void
expr_discard(expr_parse_state *ps)
{
	while (ps->all != NULL)
	{
		struct expr *next = ps->all->all_next;

		free_node(ps->all);
		ps->all = next;
	}
}

/* Free a tree: every node of its parse, from the list, without recursion. */
void
expr_free(expr *e)
{
	struct expr *n;

	if (e == NULL)
		return;
	n = e->all;
	while (n != NULL)
	{
		struct expr *next = n->all_next;

		free_node(n);
		n = next;
	}
}

/* Free an error's texts and reset it. */
void
expr_error_clear(expr_error *err)
{
	free(err->msg);
	free(err->more);
	*err = (expr_error) {.msg = NULL, .more = NULL, .column = -1};
}

/* ---------------------------------------------------------- splitting words */

/* pgbench's white space within a meta-command line (newline ends the line). */
static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Length of a backslash-newline (optionally backslash-CR-newline) at p, else 0. */
static int
continuation_len(const char *p, const char *end)
{
	if (p < end && p[0] == '\\')
	{
		if (p + 1 < end && p[1] == '\n')
			return 2;
		if (p + 2 < end && p[1] == '\r' && p[2] == '\n')
			return 3;
	}
	return 0;
}

/* Split a meta-command's text into words, as pgbench's word scanner does. */
int
expr_split_words(const char *text, int start, int end, char ***words, int **offsets)
{
	const char *p,
			   *stop;
	int			n = 0,
				cap = 8;

	if (end < 0)
		end = (int) strlen(text);
	p = text + start;
	stop = text + end;
	*words = xmalloc(sizeof(char *) * (size_t) cap);
	*offsets = xmalloc(sizeof(int) * (size_t) cap);

	while (p < stop && *p != '\n')
	{
		const char *w;
		int			k;

		if (is_space(*p))
		{
			p++;
			continue;
		}
		if ((k = continuation_len(p, stop)) > 0)
		{
			p += k;
			continue;
		}
		/* a word runs to white space, a newline, or a backslash-newline */
		w = p;
		while (p < stop && *p != '\n' && !is_space(*p) && continuation_len(p, stop) == 0)
			p++;
		if (n == cap)
		{
			cap *= 2;
			*words = xrealloc(*words, sizeof(char *) * (size_t) cap);
			*offsets = xrealloc(*offsets, sizeof(int) * (size_t) cap);
		}
		(*words)[n] = xstrndup(w, (size_t) (p - w));
		(*offsets)[n] = (int) (w - text);
		n++;
	}
	return n;
}
