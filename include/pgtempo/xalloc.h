/*
 * xalloc.h — memory allocation that never returns NULL.
 *
 * Out of memory is not a recoverable condition for a measurement tool:
 * each function prints "prog: error: out of memory" and aborts.
 */
#ifndef PGTEMPO_XALLOC_H
#define PGTEMPO_XALLOC_H

#include <stddef.h>

void	   *xmalloc(size_t size);
void	   *xcalloc(size_t nmemb, size_t size);
void	   *xrealloc(void *ptr, size_t size);
char	   *xstrdup(const char *s);
char	   *xstrndup(const char *s, size_t n);
/* Allocate and format, like asprintf(3). */
char	   *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
