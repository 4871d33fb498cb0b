/*
 * value.h — the values of pgbench's expression language and variables.
 *
 * A value is NULL, a boolean, a 64-bit integer or a double.  Variables
 * may also hold a string (from -D, \setshell, \gset), which is converted
 * to a value the first time an expression needs it, by pgbench's rules.
 */
#ifndef PGTEMPO_BENCH_VALUE_H
#define PGTEMPO_BENCH_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum value_type
{
	VAL_NONE = 0,				/* no value (a variable that holds only a string) */
	VAL_NULL,
	VAL_BOOL,
	VAL_INT,
	VAL_DOUBLE
} value_type;

typedef struct value
{
	value_type	type;
	union
	{
		bool		b;
		int64_t		i;
		double		d;
	}			u;
} value;

static inline value
value_int(int64_t i)
{
	value		v = {.type = VAL_INT, .u.i = i};

	return v;
}

static inline value
value_double(double d)
{
	value		v = {.type = VAL_DOUBLE, .u.d = d};

	return v;
}

static inline value
value_bool(bool b)
{
	value		v = {.type = VAL_BOOL, .u.b = b};

	return v;
}

static inline value
value_null(void)
{
	value		v = {.type = VAL_NULL};

	return v;
}

/* "null", "boolean", "int", "double" — the words pgbench's messages use. */
const char *value_type_name(value_type t);

/*
 * Conversions with pgbench's rules and error messages.  On failure they
 * return false and set *err to an allocated message (no program name,
 * no newline), e.g. "cannot coerce double to boolean".
 */
bool		value_to_bool(const value *v, bool *out, char **err);
bool		value_to_int(const value *v, int64_t *out, char **err);
bool		value_to_double(const value *v, double *out, char **err);

/*
 * A value as a condition, the way pgbench's \if and CASE WHEN test it:
 * NULL is false, an int or a double is true when not zero.
 */
bool		value_is_true(const value *v);

/*
 * A variable's string as pgbench interprets it: null, true/yes/on (and
 * their prefixes), false/no/off, an integer, else a double; false with
 * pgbench's "malformed variable" message otherwise.  name is for the
 * message.  The empty string fails with *err = NULL: pgbench prints no
 * message of its own for it (only the caller's "evaluation of
 * meta-command failed").
 */
bool		value_from_string(const char *name, const char *s, value *out, char **err);

/*
 * The text a value substitutes as in SQL (:var) and \shell: pgbench's format.
 * VALUE_TEXT_SIZE bytes always suffice.
 */
#define VALUE_TEXT_SIZE			64
void		value_format(const value *v, char *buf, size_t size);

/*
 * A double as PostgreSQL's own snprintf prints it, which pgbench's
 * messages and debug() show: "NaN", "Infinity", "-Infinity", else C's
 * %.15g (fixed false) or %f (fixed true).  VALUE_DOUBLE_TEXT_SIZE bytes
 * always suffice (%f of DBL_MAX has 309 integer digits).
 */
#define VALUE_DOUBLE_TEXT_SIZE	400
void		value_format_double(double d, bool fixed, char *buf, size_t size);

/*
 * A value with its type, as pgbench's debug() shows it: "int 5",
 * "double 2.5", "boolean true", "null" ("none" for VAL_NONE).
 */
#define VALUE_DESCRIBE_SIZE		(VALUE_DOUBLE_TEXT_SIZE + 16)
void		value_describe(const value *v, char *buf, size_t size);

#endif
