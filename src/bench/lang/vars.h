/*
 * vars.h — a client's variables: name -> string and/or value.
 *
 * Each client owns one table.  Lookups are by name (a hash table), since
 * \gset and \aset create variables whose names are only known at run
 * time.  A variable set from a string keeps the string and gets its value
 * on first use; one set from a value gets its string when substituted.
 */
#ifndef PGTEMPO_BENCH_VARS_H
#define PGTEMPO_BENCH_VARS_H

#include <stdbool.h>

#include "value.h"

typedef struct vars vars;

typedef struct var
{
	char	   *svalue;			/* the string, or NULL until needed */
	value		val;			/* VAL_NONE until converted */
	char		small[24];		/* svalue of a number: no allocation per \set */
	char		name[];			/* one allocation per variable, name included */
} var;

vars	   *vars_new(void);
void		vars_free(vars *vs);
/* A deep copy (each client starts with the -D variables). */
vars	   *vars_copy(const vars *vs);

/* pgbench's rule: letters, digits, '_' and non-ASCII bytes; not starting with a digit. */
bool		vars_valid_name(const char *name);

/*
 * Set a variable; creates it (after checking its name) when it does not
 * exist.  context names the setter for pgbench's message, e.g.
 * "-D" or "set": 'context: invalid variable name: "1x"'.  err may be
 * NULL when the caller wants no message.
 */
bool		vars_set_string(vars *vs, const char *context, const char *name, const char *s,
							char **err);
bool		vars_set_value(vars *vs, const char *context, const char *name, const value *v,
						   char **err);

/* The variable, or NULL. */
var		   *vars_lookup(vars *vs, const char *name);
/*
 * Its value, converting its string if needed; false with pgbench's
 * message if it cannot (*err = NULL for the empty string, for which
 * pgbench prints nothing: see value_from_string).
 */
bool		vars_get_value(vars *vs, var *v, value *out, char **err);
/* Its string, formatting its value if needed (the pointer stays valid until the next set). */
const char *vars_get_string(vars *vs, var *v);

/* Iterate in unspecified order: call fn for each variable. */
void		vars_foreach(vars *vs, void (*fn) (var *v, void *arg), void *arg);

#endif
