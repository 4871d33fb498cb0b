/*
 * vars.c — a client's variables in an open-addressing hash table.
 *
 * Slots hold pointers to separately allocated variables, so the var
 * pointers handed out stay valid while the table grows.  Variables are
 * never removed (pgbench has no way to unset one), which keeps linear
 * probing simple: no tombstones.
 */
#include "config.h"

#include "vars.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

#define VARS_INITIAL_SLOTS	8	/* a power of two: 6 variables fit (a -S client has 5) */

struct vars
{
	var		  **slots;			/* nslots entries, NULL when free */
	size_t		nslots;			/* a power of two */
	size_t		count;			/* variables in the table */
};

/* FNV-1a over the name's bytes. */
static uint64_t
name_hash(const char *name)
{
	uint64_t	h = UINT64_C(0xcbf29ce484222325);

	for (const unsigned char *p = (const unsigned char *) name; *p != '\0'; p++)
	{
		h ^= *p;
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

/* The slot holding name, or the free slot where it would go. */
static size_t
find_slot(var *const *slots, size_t nslots, const char *name)
{
	size_t		mask = nslots - 1;
	size_t		i = (size_t) name_hash(name) & mask;

	while (slots[i] != NULL && strcmp(slots[i]->name, name) != 0)
		i = (i + 1) & mask;
	return i;
}

/* Double the table, rehashing every variable. */
static void
grow(vars *vs)
{
	size_t		nslots = vs->nslots * 2;
	var		  **slots = xcalloc(nslots, sizeof(var *));

	for (size_t i = 0; i < vs->nslots; i++)
	{
		var		   *v = vs->slots[i];

		if (v != NULL)
			slots[find_slot(slots, nslots, v->name)] = v;
	}
	free(vs->slots);
	vs->slots = slots;
	vs->nslots = nslots;
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

	vs->nslots = VARS_INITIAL_SLOTS;
	vs->slots = xcalloc(vs->nslots, sizeof(var *));
	vs->count = 0;
	return vs;
}

/* Free a table and every variable in it. */
/* Forget a variable's string (it lives in v->small or on the heap). */
static void
drop_string(var *v)
{
	if (v->svalue != v->small)
		free(v->svalue);
	v->svalue = NULL;
}

void
vars_free(vars *vs)
{
	if (vs == NULL)
		return;
	for (size_t i = 0; i < vs->nslots; i++)
	{
		var		   *v = vs->slots[i];

		if (v != NULL)
		{
			drop_string(v);
			free(v);
		}
	}
	free(vs->slots);
	free(vs);
}

/* Copy a table slot for slot. */
vars *
vars_copy(const vars *vs)
{
	vars	   *copy = xmalloc(sizeof(*copy));

	copy->nslots = vs->nslots;
	copy->count = vs->count;
	copy->slots = xcalloc(copy->nslots, sizeof(var *));
	/* same size, same hash: every variable lands in the same slot */
	for (size_t i = 0; i < vs->nslots; i++)
	{
		const var  *v = vs->slots[i];

		if (v != NULL)
		{
			var		   *c = new_var(v->name);

			if (v->svalue == v->small)
			{
				memcpy(c->small, v->small, sizeof(c->small));
				c->svalue = c->small;
			}
			else
				c->svalue = v->svalue != NULL ? xstrdup(v->svalue) : NULL;
			c->val = v->val;
			copy->slots[i] = c;
		}
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
	return vs->slots[find_slot(vs->slots, vs->nslots, name)];
}

/* The variable, created empty if needed; NULL with pgbench's message if the name is invalid. */
static var *
lookup_create(vars *vs, const char *context, const char *name, char **err)
{
	size_t		i = find_slot(vs->slots, vs->nslots, name);
	var		   *v;

	if (vs->slots[i] != NULL)
		return vs->slots[i];
	if (!vars_valid_name(name))
	{
		if (err != NULL)
			*err = xasprintf("%s: invalid variable name: \"%s\"", context, name);
		return NULL;
	}
	/* keep the load at most three quarters so probe chains stay short */
	if ((vs->count + 1) * 4 > vs->nslots * 3)
	{
		grow(vs);
		i = find_slot(vs->slots, vs->nslots, name);
	}
	v = new_var(name);
	vs->slots[i] = v;
	vs->count++;
	return v;
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
	for (size_t i = 0; i < vs->nslots; i++)
		if (vs->slots[i] != NULL)
			fn(vs->slots[i], arg);
}
