/*
 * histfield.c — the fields of history records: CSV records, "# kind
 * key=value" comment lines, and the times in them.
 */
#include "config.h"

#include "histfield.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgtempo/parse.h"
#include "pgtempo/xalloc.h"

/* ---------------------------------------------------------------- times */

/* What format_ts writes, "YYYY-MM-DDTHH:MM:SS.ffffffZ", and nothing else. */
bool
histfield_ts(const char *s, size_t len, int64_t *us)
{
	return len == 27 && s[10] == 'T' && s[19] == '.' && s[26] == 'Z' &&
		parse_time_iso(s, len, us);
}

/* ---------------------------------------------------------------- fields */

/* The member named key, or NULL. */
histfield *
histfield_get(histfield *f, int n, const char *key)
{
	size_t		len = strlen(key);

	for (int i = 0; i < n; i++)
		if (f[i].klen == len && memcmp(f[i].key, key, len) == 0)
			return &f[i];
	return NULL;
}

/* Split a CSV record into fields, unquoting in place; false on a stray quote. */
bool
histfield_csv(char *p, histfield *f, int max, int *n)
{
	*n = 0;
	for (;;)
	{
		char	   *start = p;

		if (*n == max)
			return false;
		if (*p == '"')
		{
			char	   *w = p;

			for (p++;; p++)
			{
				if (*p == '\0')
					return false;
				if (*p == '"' && p[1] == '"')
					p++;
				else if (*p == '"')
					break;
				*w++ = *p;
			}
			p++;
			f[*n].vlen = (size_t) (w - start);
			if (*p != ',' && *p != '\0')
				return false;
		}
		else
		{
			p += strcspn(p, ",\"");
			if (*p == '"')
				return false;
			f[*n].vlen = (size_t) (p - start);
		}
		f[*n].v = start;
		f[*n].t = f[*n].vlen == 0 ? '0' : 's';
		f[*n].esc = false;
		(*n)++;
		if (*p++ != ',')
			return true;
	}
}

/* "# health k=v k=v ..." or "# gap ... reason=TEXT": the pairs, the last one to the end if rest. */
bool
histfield_pairs(char *p, const char *rest_key, histfield *f, int max, int *n)
{
	*n = 0;
	while (*p)
	{
		char	   *eq = strchr(p, '=');
		char	   *sp;

		if (eq == NULL || *n == max)
			return false;
		f[*n].key = p;
		f[*n].klen = (size_t) (eq - p);
		f[*n].v = eq + 1;
		f[*n].esc = false;
		f[*n].t = 's';
		if (rest_key != NULL && f[*n].klen == strlen(rest_key) &&
			memcmp(p, rest_key, f[*n].klen) == 0)
			sp = eq + 1 + strlen(eq + 1);
		else
			sp = eq + 1 + strcspn(eq + 1, " ");
		f[*n].vlen = (size_t) (sp - eq - 1);
		(*n)++;
		if (*sp == '\0')
			break;
		*sp = '\0';
		p = sp + 1;
	}
	return true;
}
