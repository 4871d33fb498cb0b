/*
 * vars.c — a client's variables in core's hash table.
 *
 * Entries are pointers to separately allocated variables, so the var
 * pointers handed out stay valid while the table grows.  Variables are
 * never removed (pgbench has no way to unset one).
 */
#include "config.h"

#include "vars.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/hash.h"
#include "pgtempo/xalloc.h"

#define VARS_INITIAL_SLOTS	8	/* a power of two: 6 variables fit (a -S client has 5) */

/* The table's entries are var pointers, so a var stays where it is when the table grows. */
struct vars
{
	hash_table	t;
};

/* Is the entry (a var pointer) the variable named key? */
static bool
var_eq(const void *entry, const void *key)
{
	return strcmp((*(var *const *) entry)->name, key) == 0;
}

/* A variable with no string and no value yet. */
static var *
new_var(const char *name)
{
	size_t		len = strlen(name) + 1;
	var		   *v = xmalloc(offsetof(var, name) + len);

	memcpy(v->name, name, len);
	v->svalue = NULL;
	v->val.type = VAL_NONE;
	return v;
}

/* An empty table. */
vars *
vars_new(void)
{
	vars	   *vs = xmalloc(sizeof(*vs));

	hash_table_init(&vs->t, sizeof(var *), VARS_INITIAL_SLOTS);
	return vs;
}

/* Forget a variable's string (it lives in v->small or on the heap). */
static void
drop_string(var *v)
{
	if (v->svalue != v->small)
		free(v->svalue);
	v->svalue = NULL;
}

/* Free a table and every variable in it. */
void
vars_free(vars *vs)
{
	size_t		pos = 0;

	if (vs == NULL)
		return;
	for (var **e; (e = hash_table_next(&vs->t, &pos)) != NULL;)
	{
		drop_string(*e);
		free(*e);
	}
	hash_table_free(&vs->t);
	free(vs);
}

/* Copy a table slot for slot, and every variable. */
vars *
vars_copy(const vars *vs)
{
	vars	   *copy = xmalloc(sizeof(*copy));
	size_t		pos = 0;

	/* same size, same hashes: every variable keeps its slot */
	hash_table_copy(&copy->t, &vs->t);
	for (var **e; (e = hash_table_next(&copy->t, &pos)) != NULL;)
	{
		const var  *v = *e;
		var		   *c = new_var(v->name);

		if (v->svalue == v->small)
		{
			memcpy(c->small, v->small, sizeof(c->small));
			c->svalue = c->small;
		}
		else
			c->svalue = v->svalue != NULL ? xstrdup(v->svalue) : NULL;
		c->val = v->val;
		*e = c;
	}
	return copy;
}

/* Check a name by pgbench's rule; non-ASCII bytes count as letters. */
bool
vars_valid_name(const char *name)
{
	const unsigned char *p = (const unsigned char *) name;

	if (*p == '\0')
		return false;
	for (; *p != '\0'; p++)
	{
		bool		ok = *p >= 0x80 || *p == '_' ||
			(*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(p != (const unsigned char *) name && *p >= '0' && *p <= '9');

		if (!ok)
			return false;
	}
	return true;
}

/* Find a variable by name. */
var *
vars_lookup(vars *vs, const char *name)
{
	var		  **e = hash_table_find(&vs->t, hash_fnv1a_str(name), name, var_eq);

	return e != NULL ? *e : NULL;
}

/* The variable, created empty if needed; NULL with pgbench's message if the name is invalid. */
static var *
lookup_create(vars *vs, const char *context, const char *name, char **err)
{
	uint64_t	h = hash_fnv1a_str(name);
	var		  **e = hash_table_find(&vs->t, h, name, var_eq);

	if (e != NULL)
		return *e;
	if (!vars_valid_name(name))
	{
		if (err != NULL)
			*err = xasprintf("%s: invalid variable name: \"%s\"", context, name);
		return NULL;
	}
	e = hash_table_insert(&vs->t, h, name, var_eq, NULL);
	*e = new_var(name);
	return *e;
}

/* Give a variable a string; its value is worked out on first use. */
bool
vars_set_string(vars *vs, const char *context, const char *name, const char *s, char **err)
{
	var		   *v = lookup_create(vs, context, name, err);
	char	   *copy;

	if (v == NULL)
		return false;
	/* copy first: s may be the variable's own string */
	copy = xstrdup(s);
	drop_string(v);
	v->svalue = copy;
	v->val.type = VAL_NONE;
	return true;
}

/* Give a variable a value; its string is made when substituted. */
bool
vars_set_value(vars *vs, const char *context, const char *name, const value *val, char **err)
{
	var		   *v = lookup_create(vs, context, name, err);

	if (v == NULL)
		return false;
	drop_string(v);
	v->val = *val;
	return true;
}

/* A variable's value, converting (and keeping) its string's value once. */
bool
vars_get_value(vars *vs, var *v, value *out, char **err)
{
	(void) vs;
	if (v->val.type == VAL_NONE)
	{
		/* a variable always has its string or its value */
		if (v->svalue == NULL || !value_from_string(v->name, v->svalue, &v->val, err))
		{
			if (v->svalue == NULL)
				*err = NULL;
			return false;
		}
	}
	*out = v->val;
	return true;
}

/* A variable's string, formatting (and keeping) its value's text once. */
const char *
vars_get_string(vars *vs, var *v)
{
	(void) vs;
	if (v->svalue == NULL)
	{
		char		buf[VALUE_TEXT_SIZE];

		value_format(&v->val, buf, sizeof(buf));
		if (strlen(buf) < sizeof(v->small))
		{
			memcpy(v->small, buf, strlen(buf) + 1);
			v->svalue = v->small;
		}
		else
			v->svalue = xstrdup(buf);
	}
	return v->svalue;
}

/* Call fn for every variable. */
void
vars_foreach(vars *vs, void (*fn) (var *v, void *arg), void *arg)
{
	size_t		pos = 0;

	for (var **e; (e = hash_table_next(&vs->t, &pos)) != NULL;)
		fn(*e, arg);
}
