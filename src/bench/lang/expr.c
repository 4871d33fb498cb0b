/*
 * expr.c — evaluating expression trees, with pgbench's type rules and
 * messages (building them is in exprbuild.c).
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

/* The operands of + - * / % and comparisons: doubles if either is one (but % is int). */
typedef struct operands
{
	bool		dbl;
	double		ld,
				rd;
	int64_t		li,
				ri;
} operands;

static bool
get_operands(const value *a, expr_fn fn, operands *o, char **err)
{
	o->dbl = (a[0].type == VAL_DOUBLE || a[1].type == VAL_DOUBLE) && fn != EF_MOD;
	if (o->dbl)
		return value_to_double(&a[0], &o->ld, err) && value_to_double(&a[1], &o->rd, err);
	return value_to_int(&a[0], &o->li, err) && value_to_int(&a[1], &o->ri, err);
}

/* Set *err to a message of pgbench's and fail. */
static bool
fail(char **err, const char *msg)
{
	*err = xstrdup(msg);
	return false;
}

/* Integer / and %: INT64_MIN / -1 overflows (and traps); INT64_MIN % -1 is 0. */
static bool
int_divide(expr_fn fn, int64_t l, int64_t r, value *out, char **err)
{
	if (r == 0)
		return fail(err, "division by zero");
	if (r == -1)
	{
		if (fn == EF_MOD)
			*out = value_int(0);
		else if (l == INT64_MIN)
			return fail(err, "bigint div out of range");
		else
			*out = value_int(-l);
		return true;
	}
	*out = value_int(fn == EF_DIV ? l / r : l % r);
	return true;
}

/* + - * / %. */
static bool
fn_arith(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	operands	o;
	int64_t		res = 0;
	bool		overflow = false;

	(void) env;
	if (!get_operands(a, fn, &o, err))
		return false;
	if (o.dbl)
	{
		/* no check on division: x / 0.0 is an infinity or NaN */
		*out = value_double(fn == EF_ADD ? o.ld + o.rd : fn == EF_SUB ? o.ld - o.rd :
							fn == EF_MUL ? o.ld * o.rd : o.ld / o.rd);
		return true;
	}
	if (fn == EF_DIV || fn == EF_MOD)
		return int_divide(fn, o.li, o.ri, out, err);
	if (fn == EF_ADD && (overflow = __builtin_add_overflow(o.li, o.ri, &res)))
		return fail(err, "bigint add out of range");
	if (fn == EF_SUB && (overflow = __builtin_sub_overflow(o.li, o.ri, &res)))
		return fail(err, "bigint sub out of range");
	if (fn == EF_MUL && (overflow = __builtin_mul_overflow(o.li, o.ri, &res)))
		return fail(err, "bigint mul out of range");
	*out = value_int(res);
	return true;
}

/* = <> <= < (> and >= are < and <= turned around by the grammar). */
static bool
fn_compare(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	operands	o;
	bool		r;

	(void) env;
	if (!get_operands(a, fn, &o, err))
		return false;
	if (fn == EF_EQ)
		r = o.dbl ? o.ld == o.rd : o.li == o.ri;
	else if (fn == EF_NE)
		r = o.dbl ? o.ld != o.rd : o.li != o.ri;
	else if (fn == EF_LE)
		r = o.dbl ? o.ld <= o.rd : o.li <= o.ri;
	else
		r = o.dbl ? o.ld < o.rd : o.li < o.ri;
	*out = value_bool(r);
	return true;
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

/* & | # << >>. */
static bool
fn_bits(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	int64_t		l,
				r;

	(void) env;
	if (!value_to_int(&a[0], &l, err) || !value_to_int(&a[1], &r, err))
		return false;
	/*
	 * Shifts count modulo 64, as the x86-64 instructions behind pgbench's
	 * plain C shifts do: 1 << 64 is 1, 1 << -1 is INT64_MIN.  >> is
	 * arithmetic.
	 */
	if (fn == EF_BITAND)
		*out = value_int(l & r);
	else if (fn == EF_BITOR)
		*out = value_int(l | r);
	else if (fn == EF_BITXOR)
		*out = value_int(l ^ r);
	else if (fn == EF_LSHIFT)
		*out = value_int((int64_t) ((uint64_t) l << (r & 63)));
	else
		*out = value_int(l >> (r & 63));
	return true;
}

static bool
fn_not(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	bool		b;

	(void) fn;
	(void) env;
	if (!value_to_bool(&a[0], &b, err))
		return false;
	*out = value_bool(!b);
	return true;
}

/* x IS NULL / TRUE / FALSE: the right side is that constant. */
static bool
fn_is(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	(void) fn;
	(void) env;
	(void) err;
	*out = value_bool(a[0].type == a[1].type &&
					  (a[1].type != VAL_BOOL || a[0].u.b == a[1].u.b));
	return true;
}

static bool
fn_abs(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	(void) fn;
	(void) env;
	(void) err;
	if (a[0].type == VAL_INT)
	{
		/* abs(INT64_MIN) wraps to itself, as in pgbench */
		uint64_t	u = (uint64_t) a[0].u.i;

		*out = value_int((int64_t) (a[0].u.i < 0 ? 0 - u : u));
	}
	else if (a[0].type == VAL_DOUBLE)
		*out = value_double(a[0].u.d < 0.0 ? -a[0].u.d : a[0].u.d);
	else
	{
		/*
		 * pgbench reads a boolean's storage as a double here: a constant
		 * true comes out as the smallest subnormal (bit pattern 1), false
		 * as 0.  Reproduce that, deterministically.
		 */
		uint64_t	bits = a[0].u.b ? 1 : 0;
		double		d;

		memcpy(&d, &bits, sizeof(d));
		*out = value_double(d);
	}
	return true;
}

/* debug(): print the value as pgbench does and pass it through. */
static __attribute__((noinline)) bool
fn_debug(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	FILE	   *f = env->debug_out != NULL ? env->debug_out : stderr;
	char		buf[VALUE_DESCRIBE_SIZE];

	(void) fn;
	(void) err;
	value_describe(&a[0], buf, sizeof(buf));
	fprintf(f, "debug(script=%d,command=%d): %s\n", env->script_no, env->command_no, buf);
	*out = a[0];
	return true;
}

/* double(), and sqrt(), ln(), exp() of it. */
static bool
fn_double(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	double		d;

	(void) env;
	if (!value_to_double(&a[0], &d, err))
		return false;
	if (fn == EF_SQRT)
		d = sqrt(d);
	else if (fn == EF_LN)
		d = log(d);
	else if (fn == EF_EXP)
		d = exp(d);
	*out = value_double(d);
	return true;
}

static bool
fn_int(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	int64_t		i;

	(void) fn;
	(void) env;
	if (!value_to_int(&a[0], &i, err))
		return false;
	*out = value_int(i);
	return true;
}

static bool
fn_pi(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	(void) fn;
	(void) a;
	(void) env;
	(void) err;
	*out = value_double(M_PI);
	return true;
}

static bool
fn_pow(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	double		x,
				y;

	(void) fn;
	(void) env;
	if (!value_to_double(&a[0], &x, err) || !value_to_double(&a[1], &y, err))
		return false;
	*out = value_double(pow(x, y));
	return true;
}

static bool
fn_hash(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	int64_t		v,
				seed;

	(void) env;
	if (!value_to_int(&a[0], &v, err) || !value_to_int(&a[1], &seed, err))
		return false;
	*out = value_int(fn == EF_HASH_FNV1A ? prng_hash_fnv1a(v, seed) : prng_hash_murmur2(v, seed));
	return true;
}

static bool
fn_permute(expr_fn fn, const value *a, expr_env *env, value *out, char **err)
{
	int64_t		v,
				size,
				seed;

	(void) fn;
	(void) env;
	if (!value_to_int(&a[0], &v, err) || !value_to_int(&a[1], &size, err) ||
		!value_to_int(&a[2], &seed, err))
		return false;
	if (size <= 0)
		return fail(err, "permute size parameter must be greater than zero");
	*out = value_int(prng_permute(v, size, seed));
	return true;
}

/*
 * The functions applied to their evaluated arguments, by expr_fn.  Not
 * least() and greatest() (eval_extremum), AND, OR and CASE, which do not
 * evaluate all their arguments first.
 */
typedef bool (*apply_fn) (expr_fn fn, const value *args, expr_env *env, value *out, char **err);

static const apply_fn apply_fns[EF_COUNT] = {
	[EF_ADD] = fn_arith, [EF_SUB] = fn_arith, [EF_MUL] = fn_arith,
	[EF_DIV] = fn_arith, [EF_MOD] = fn_arith,
	[EF_EQ] = fn_compare, [EF_NE] = fn_compare, [EF_LE] = fn_compare, [EF_LT] = fn_compare,
	[EF_BITAND] = fn_bits, [EF_BITOR] = fn_bits, [EF_BITXOR] = fn_bits,
	[EF_LSHIFT] = fn_bits, [EF_RSHIFT] = fn_bits,
	[EF_NOT] = fn_not,
	[EF_IS] = fn_is,
	[EF_ABS] = fn_abs,
	[EF_DEBUG] = fn_debug,
	[EF_DOUBLE] = fn_double, [EF_SQRT] = fn_double, [EF_LN] = fn_double, [EF_EXP] = fn_double,
	[EF_INT] = fn_int,
	[EF_PI] = fn_pi,
	[EF_POW] = fn_pow,
	[EF_RANDOM] = eval_random, [EF_RANDOM_EXPONENTIAL] = eval_random,
	[EF_RANDOM_GAUSSIAN] = eval_random, [EF_RANDOM_ZIPFIAN] = eval_random,
	[EF_HASH_FNV1A] = fn_hash, [EF_HASH_MURMUR2] = fn_hash,
	[EF_PERMUTE] = fn_permute,
};

/*
 * A function applied to its evaluated arguments (any_null: one of them
 * is NULL, which makes the result NULL but for IS and debug).
 */
static inline bool
apply_standard(const expr *e, const value *args, bool any_null, expr_env *env,
			   value *out, char **err)
{
	if (any_null && e->fn != EF_IS && e->fn != EF_DEBUG)
	{
		*out = value_null();
		return true;
	}
	if (apply_fns[e->fn] == NULL)
		return fail(err, "unexpected function");
	return apply_fns[e->fn] (e->fn, args, env, out, err);
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
