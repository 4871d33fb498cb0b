/*
 * expr.c — building and evaluating expression trees, with pgbench's
 * type rules and messages.
 *
 * Evaluation allocates nothing except an error message: arguments live
 * in a small array on the stack, variables are found by name in the
 * client's table.  Arguments of ordinary functions are all evaluated,
 * left to right, before the function looks at them; a NULL among them
 * makes the result NULL (except for IS and debug).  AND, OR and CASE
 * evaluate only what they need.
 */
#include "config.h"

#include "expr.h"

#include <inttypes.h>
#include <math.h>
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

/* Parse one expression; on error, free what was built. */
expr *
expr_parse(const char *text, int start, int end, expr_error *err)
{
	expr_parse_state ps;

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

	if (!expr_scan_parse(&ps))
	{
		/* the nodes made so far are not all in one tree: free them one by one */
		while (ps.all != NULL)
		{
			struct expr *next = ps.all->all_next;

			free_node(ps.all);
			ps.all = next;
		}
		if (err->msg == NULL)
			err->msg = xstrdup("syntax error");
		return NULL;
	}
	ps.result->all = ps.all;
	return ps.result;
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
	err->msg = NULL;
	err->more = NULL;
	err->column = -1;
}

/* -------------------------------------------------------------- evaluating */

static bool eval(const expr *e, expr_env *env, value *out, char **err);

/*
 * AND or OR with its left operand's value: NULL on either side is NULL,
 * and the left one decides alone when it can.
 */
static bool
eval_logic(const expr *e, const value *left, expr_env *env, value *out, char **err)
{
	value		v;
	bool		b;

	if (left->type == VAL_NULL)
	{
		*out = value_null();
		return true;
	}
	if (!value_to_bool(left, &b, err))
		return false;
	if (b == (e->fn == EF_OR))
	{
		*out = value_bool(b);
		return true;
	}
	if (!eval(e->args[1], env, &v, err))
		return false;
	if (v.type == VAL_NULL)
	{
		*out = value_null();
		return true;
	}
	if (!value_to_bool(&v, &b, err))
		return false;
	*out = value_bool(b);
	return true;
}

/* CASE: conditions are tested like \if, by truth, not as booleans. */
static bool
eval_case(const expr *e, expr_env *env, value *out, char **err)
{
	value		v;
	int			i;

	for (i = 0; i + 1 < e->nargs; i += 2)
	{
		if (!eval(e->args[i], env, &v, err))
			return false;
		if (value_is_true(&v))
			return eval(e->args[i + 1], env, out, err);
	}
	return eval(e->args[i], env, out, err);
}

/* pgbench's fixed-point rendering of a double in messages (%f). */
static const char *
fixed_text(double d, char *buf)
{
	value_format_double(d, true, buf, VALUE_DOUBLE_TEXT_SIZE);
	return buf;
}

/* + - * / % and comparisons: doubles if either side is one (but % is int). */
static bool
eval_arith(expr_fn fn, const value *l, const value *r, value *out, char **err)
{
	if ((l->type == VAL_DOUBLE || r->type == VAL_DOUBLE) && fn != EF_MOD)
	{
		double		ld,
					rd;

		if (!value_to_double(l, &ld, err) || !value_to_double(r, &rd, err))
			return false;
		switch (fn)
		{
			case EF_ADD:
				*out = value_double(ld + rd);
				break;
			case EF_SUB:
				*out = value_double(ld - rd);
				break;
			case EF_MUL:
				*out = value_double(ld * rd);
				break;
			case EF_DIV:
				/* no check: x / 0.0 is an infinity or NaN */
				*out = value_double(ld / rd);
				break;
			case EF_EQ:
				*out = value_bool(ld == rd);
				break;
			case EF_NE:
				*out = value_bool(ld != rd);
				break;
			case EF_LE:
				*out = value_bool(ld <= rd);
				break;
			case EF_LT:
				*out = value_bool(ld < rd);
				break;
			default:
				break;
		}
		return true;
	}
	else
	{
		int64_t		li,
					ri,
					res;

		if (!value_to_int(l, &li, err) || !value_to_int(r, &ri, err))
			return false;
		switch (fn)
		{
			case EF_ADD:
				if (__builtin_add_overflow(li, ri, &res))
				{
					*err = xstrdup("bigint add out of range");
					return false;
				}
				*out = value_int(res);
				break;
			case EF_SUB:
				if (__builtin_sub_overflow(li, ri, &res))
				{
					*err = xstrdup("bigint sub out of range");
					return false;
				}
				*out = value_int(res);
				break;
			case EF_MUL:
				if (__builtin_mul_overflow(li, ri, &res))
				{
					*err = xstrdup("bigint mul out of range");
					return false;
				}
				*out = value_int(res);
				break;
			case EF_DIV:
			case EF_MOD:
				if (ri == 0)
				{
					*err = xstrdup("division by zero");
					return false;
				}
				/* INT64_MIN / -1 overflows (and traps); INT64_MIN % -1 is 0 */
				if (ri == -1)
				{
					if (fn == EF_MOD)
						*out = value_int(0);
					else if (li == INT64_MIN)
					{
						*err = xstrdup("bigint div out of range");
						return false;
					}
					else
						*out = value_int(-li);
					break;
				}
				*out = value_int(fn == EF_DIV ? li / ri : li % ri);
				break;
			case EF_EQ:
				*out = value_bool(li == ri);
				break;
			case EF_NE:
				*out = value_bool(li != ri);
				break;
			case EF_LE:
				*out = value_bool(li <= ri);
				break;
			case EF_LT:
				*out = value_bool(li < ri);
				break;
			default:
				break;
		}
		return true;
	}
}

/*
 * Evaluate a function's arguments into args (room for max), left to
 * right; pgbench evaluates what fits before it complains about the rest.
 */
static bool
eval_args(const expr *e, expr_env *env, value *args, int max, bool *any_null, char **err)
{
	int			n = e->nargs < max ? e->nargs : max;

	*any_null = false;
	for (int i = 0; i < n; i++)
	{
		if (!eval(e->args[i], env, &args[i], err))
			return false;
		if (args[i].type == VAL_NULL)
			*any_null = true;
	}
	if (e->nargs > max)
	{
		*err = xasprintf("too many function arguments, maximum is %d", EXPR_MAX_ARGS);
		return false;
	}
	return true;
}

/*
 * least() and greatest(): doubles if any argument is one.  Kept apart
 * from the other functions so that only they pay for a large argument
 * array on the stack while their arguments are evaluated.
 */
static __attribute__((noinline)) bool
eval_extremum(const expr *e, expr_env *env, value *out, char **err)
{
	value		args[EXPR_MAX_ARGS];
	int			nargs = e->nargs;
	bool		any_null,
				any_double = false;

	if (!eval_args(e, env, args, EXPR_MAX_ARGS, &any_null, err))
		return false;
	if (any_null)
	{
		*out = value_null();
		return true;
	}
	for (int i = 0; i < nargs; i++)
		if (args[i].type == VAL_DOUBLE)
			any_double = true;
	if (any_double)
	{
		double		m,
					d;

		if (!value_to_double(&args[0], &m, err))
			return false;
		for (int i = 1; i < nargs; i++)
		{
			if (!value_to_double(&args[i], &d, err))
				return false;
			/* written so that NaN behaves as in pgbench */
			if (e->fn == EF_LEAST)
				m = m < d ? m : d;
			else
				m = m > d ? m : d;
		}
		*out = value_double(m);
	}
	else
	{
		int64_t		m,
					i64;

		if (!value_to_int(&args[0], &m, err))
			return false;
		for (int i = 1; i < nargs; i++)
		{
			if (!value_to_int(&args[i], &i64, err))
				return false;
			if (e->fn == EF_LEAST)
				m = m < i64 ? m : i64;
			else
				m = m > i64 ? m : i64;
		}
		*out = value_int(m);
	}
	return true;
}

/* random(), random_exponential(), random_gaussian(), random_zipfian(). */
static __attribute__((noinline)) bool
eval_random(expr_fn fn, const value *args, expr_env *env, value *out, char **err)
{
	int64_t		min,
				max,
				span;
	double		param;
	char		b1[VALUE_DOUBLE_TEXT_SIZE],
				b2[VALUE_DOUBLE_TEXT_SIZE];

	if (!value_to_int(&args[0], &min, err) || !value_to_int(&args[1], &max, err))
		return false;
	if (min > max)
	{
		*err = xstrdup("empty range given to random");
		return false;
	}
	if (__builtin_sub_overflow(max, min, &span) || __builtin_add_overflow(span, 1, &span))
	{
		*err = xstrdup("random range is too large");
		return false;
	}
	if (fn == EF_RANDOM)
	{
		*out = value_int(prng_uniform(env->rs, min, max));
		return true;
	}
	if (!value_to_double(&args[2], &param, err))
		return false;
	switch (fn)
	{
		case EF_RANDOM_GAUSSIAN:
			if (param < PRNG_MIN_GAUSSIAN_PARAM)
			{
				*err = xasprintf("gaussian parameter must be at least %s (not %s)",
								 fixed_text(PRNG_MIN_GAUSSIAN_PARAM, b1), fixed_text(param, b2));
				return false;
			}
			*out = value_int(prng_gaussian(env->rs, min, max, param));
			return true;
		case EF_RANDOM_ZIPFIAN:
			/*
			 * Unlike pgbench, NaN fails this test: pgbench lets it through
			 * and then loops forever drawing numbers.
			 */
			if (!(param >= PRNG_MIN_ZIPFIAN_PARAM && param <= PRNG_MAX_ZIPFIAN_PARAM))
			{
				*err = xasprintf("zipfian parameter must be in range [%.3f, %.0f] (not %s)",
								 PRNG_MIN_ZIPFIAN_PARAM, PRNG_MAX_ZIPFIAN_PARAM,
								 fixed_text(param, b2));
				return false;
			}
			*out = value_int(prng_zipfian(env->rs, min, max, param));
			return true;
		default:
			if (param <= 0.0)
			{
				*err = xasprintf("exponential parameter must be greater than zero (not %s)",
								 fixed_text(param, b2));
				return false;
			}
			*out = value_int(prng_exponential(env->rs, min, max, param));
			return true;
	}
}

/* debug(): print the value as pgbench does and pass it through. */
static __attribute__((noinline)) void
eval_debug(const value *v, expr_env *env)
{
	FILE	   *f = env->debug_out != NULL ? env->debug_out : stderr;
	char		buf[VALUE_DESCRIBE_SIZE];

	value_describe(v, buf, sizeof(buf));
	fprintf(f, "debug(script=%d,command=%d): %s\n", env->script_no, env->command_no, buf);
}

/*
 * A function applied to its evaluated arguments (any_null: one of them
 * is NULL).  Not least() and greatest().
 */
static bool
apply_standard(const expr *e, const value *args, bool any_null, expr_env *env,
			   value *out, char **err)
{
	if (any_null && e->fn != EF_IS && e->fn != EF_DEBUG)
	{
		*out = value_null();
		return true;
	}

	switch (e->fn)
	{
		case EF_ADD:
		case EF_SUB:
		case EF_MUL:
		case EF_DIV:
		case EF_MOD:
		case EF_EQ:
		case EF_NE:
		case EF_LE:
		case EF_LT:
			return eval_arith(e->fn, &args[0], &args[1], out, err);

		case EF_BITAND:
		case EF_BITOR:
		case EF_BITXOR:
		case EF_LSHIFT:
		case EF_RSHIFT:
			{
				int64_t		l,
							r;

				if (!value_to_int(&args[0], &l, err) || !value_to_int(&args[1], &r, err))
					return false;
				/*
				 * Shifts count modulo 64, as the x86-64 instructions behind
				 * pgbench's plain C shifts do: 1 << 64 is 1, 1 << -1 is
				 * INT64_MIN.  >> is arithmetic.
				 */
				if (e->fn == EF_BITAND)
					*out = value_int(l & r);
				else if (e->fn == EF_BITOR)
					*out = value_int(l | r);
				else if (e->fn == EF_BITXOR)
					*out = value_int(l ^ r);
				else if (e->fn == EF_LSHIFT)
					*out = value_int((int64_t) ((uint64_t) l << (r & 63)));
				else
					*out = value_int(l >> (r & 63));
				return true;
			}

		case EF_NOT:
			{
				bool		b;

				if (!value_to_bool(&args[0], &b, err))
					return false;
				*out = value_bool(!b);
				return true;
			}

		case EF_IS:
			/* the right side is the constant NULL, TRUE or FALSE */
			*out = value_bool(args[0].type == args[1].type &&
							  (args[1].type != VAL_BOOL || args[0].u.b == args[1].u.b));
			return true;

		case EF_ABS:
			if (args[0].type == VAL_INT)
			{
				/* abs(INT64_MIN) wraps to itself, as in pgbench */
				uint64_t	u = (uint64_t) args[0].u.i;

				*out = value_int((int64_t) (args[0].u.i < 0 ? 0 - u : u));
			}
			else if (args[0].type == VAL_DOUBLE)
				*out = value_double(args[0].u.d < 0.0 ? -args[0].u.d : args[0].u.d);
			else
			{
				/*
				 * pgbench reads a boolean's storage as a double here: a
				 * constant true comes out as the smallest subnormal (bit
				 * pattern 1), false as 0.  Reproduce that, deterministically.
				 */
				uint64_t	bits = args[0].u.b ? 1 : 0;
				double		d;

				memcpy(&d, &bits, sizeof(d));
				*out = value_double(d);
			}
			return true;

		case EF_DEBUG:
			eval_debug(&args[0], env);
			*out = args[0];
			return true;

		case EF_DOUBLE:
			{
				double		d;

				if (!value_to_double(&args[0], &d, err))
					return false;
				*out = value_double(d);
				return true;
			}

		case EF_INT:
			{
				int64_t		i;

				if (!value_to_int(&args[0], &i, err))
					return false;
				*out = value_int(i);
				return true;
			}

		case EF_PI:
			*out = value_double(M_PI);
			return true;

		case EF_SQRT:
		case EF_LN:
		case EF_EXP:
			{
				double		d;

				if (!value_to_double(&args[0], &d, err))
					return false;
				if (e->fn == EF_SQRT)
					d = sqrt(d);
				else if (e->fn == EF_LN)
					d = log(d);
				else
					d = exp(d);
				*out = value_double(d);
				return true;
			}

		case EF_POW:
			{
				double		x,
							y;

				if (!value_to_double(&args[0], &x, err) || !value_to_double(&args[1], &y, err))
					return false;
				*out = value_double(pow(x, y));
				return true;
			}

		case EF_RANDOM:
		case EF_RANDOM_EXPONENTIAL:
		case EF_RANDOM_GAUSSIAN:
		case EF_RANDOM_ZIPFIAN:
			return eval_random(e->fn, args, env, out, err);

		case EF_HASH_FNV1A:
		case EF_HASH_MURMUR2:
			{
				int64_t		v,
							seed;

				if (!value_to_int(&args[0], &v, err) || !value_to_int(&args[1], &seed, err))
					return false;
				*out = value_int(e->fn == EF_HASH_FNV1A ? prng_hash_fnv1a(v, seed)
								 : prng_hash_murmur2(v, seed));
				return true;
			}

		case EF_PERMUTE:
			{
				int64_t		v,
							size,
							seed;

				if (!value_to_int(&args[0], &v, err) || !value_to_int(&args[1], &size, err) ||
					!value_to_int(&args[2], &seed, err))
					return false;
				if (size <= 0)
				{
					*err = xstrdup("permute size parameter must be greater than zero");
					return false;
				}
				*out = value_int(prng_permute(v, size, seed));
				return true;
			}

		case EF_LEAST:
		case EF_GREATEST:
		case EF_AND:
		case EF_OR:
		case EF_CASE:
			break;
	}
	*err = xstrdup("unexpected function");
	return false;
}

/*
 * Functions whose arguments are all evaluated first.  This frame is on
 * the stack once per level of nesting, so it stays small: the functions
 * with big buffers are not inlined.
 */
static bool
eval_standard(const expr *e, expr_env *env, value *out, char **err)
{
	value		args[EXPR_FIXED_ARGS];
	bool		any_null;

	if (e->fn == EF_LEAST || e->fn == EF_GREATEST)
		return eval_extremum(e, env, out, err);
	if (!eval_args(e, env, args, EXPR_FIXED_ARGS, &any_null, err))
		return false;
	return apply_standard(e, args, any_null, env, out, err);
}

/*
 * A binary operator and the binary operators down its first argument,
 * in a loop: the bottom one's first argument, then each operator with
 * its second argument on the way up.  The order is that of recursive
 * evaluation, so 1 + 2 + ... + 40000 gives the same value and errors
 * without a stack frame per operator.
 */
static bool
eval_chain(const expr *top, expr_env *env, value *out, char **err)
{
	const expr *n = top;
	value		args[2];

	while (n->args[0]->chain)
		n = n->args[0];
	if (!eval(n->args[0], env, &args[0], err))
		return false;
	for (;;)
	{
		value		v;

		if (n->fn == EF_AND || n->fn == EF_OR)
		{
			if (!eval_logic(n, &args[0], env, &v, err))
				return false;
		}
		else
		{
			if (!eval(n->args[1], env, &args[1], err))
				return false;
			if (!apply_standard(n, args, args[0].type == VAL_NULL || args[1].type == VAL_NULL,
								env, &v, err))
				return false;
		}
		if (n == top)
		{
			*out = v;
			return true;
		}
		args[0] = v;
		n = n->chain_up;
	}
}

/* Evaluate a node. */
static bool
eval(const expr *e, expr_env *env, value *out, char **err)
{
	switch (e->kind)
	{
		case EK_CONST:
			*out = e->constant;
			return true;
		case EK_VAR:
			{
				var		   *v = vars_lookup(env->vars, e->varname);

				if (v == NULL)
				{
					*err = xasprintf("undefined variable \"%s\"", e->varname);
					return false;
				}
				return vars_get_value(env->vars, v, out, err);
			}
		case EK_FUNC:
			if (e->chain)
				return eval_chain(e, env, out, err);
			if (e->fn == EF_CASE)
				return eval_case(e, env, out, err);
			return eval_standard(e, env, out, err);
	}
	*err = xstrdup("unexpected expression node");
	return false;
}

/* Evaluate a tree for one client. */
bool
expr_eval(const expr *e, expr_env *env, value *out, char **err)
{
	*err = NULL;
	return eval(e, env, out, err);
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
