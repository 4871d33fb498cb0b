/*
 * xalloc.c — memory allocation that never returns NULL.
 */
#include "config.h"

#include "pgtempo/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"

/* Report exhausted memory and die; there is nothing sensible to go back to. */
static void __attribute__((noreturn))
out_of_memory(void)
{
	msg_error("out of memory");
	abort();
}

/*
 * A request for zero bytes may legally return NULL, which callers would
 * take for failure; always ask for at least one byte instead.
 */
void *
xmalloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
		out_of_memory();
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void	   *p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	p = calloc(nmemb, size);
	if (p == NULL)
		out_of_memory();
	return p;
}

/* Like realloc(3), but a size of zero keeps a one-byte block instead of freeing. */
void *
xrealloc(void *ptr, size_t size)
{
	void	   *p = realloc(ptr, size ? size : 1);

	if (p == NULL)
		out_of_memory();
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* Copy at most n bytes of s, always NUL-terminating the copy. */
char *
xstrndup(const char *s, size_t n)
{
	size_t		len = strnlen(s, n);
	char	   *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* Format into a new allocation of exactly the needed size. */
char *
xasprintf(const char *fmt, ...)
{
	va_list		ap;
	int			len;
	char	   *p;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0)
	{
		/* only a broken format (or a result over INT_MAX) gets here */
		msg_error("could not format string: %m");
		abort();
	}

	p = xmalloc((size_t) len + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t) len + 1, fmt, ap);
	va_end(ap);
	return p;
}
