/*
 * strbuf.h — a growable, always NUL-terminated string buffer.
 */
#ifndef PGTEMPO_STRBUF_H
#define PGTEMPO_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct strbuf
{
	char	   *data;			/* always NUL-terminated once initialized */
	size_t		len;			/* bytes used, excluding the NUL */
	size_t		cap;			/* bytes allocated */
} strbuf;

void		strbuf_init(strbuf *sb);
void		strbuf_free(strbuf *sb);
/* Empty the buffer, keeping its memory. */
void		strbuf_reset(strbuf *sb);
/* Make room for at least n more bytes. */
void		strbuf_reserve(strbuf *sb, size_t n);
void		strbuf_append(strbuf *sb, const char *s, size_t n);
void		strbuf_puts(strbuf *sb, const char *s);
void		strbuf_putc(strbuf *sb, char c);
void		strbuf_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void		strbuf_vprintf(strbuf *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Hand over the string; the buffer is left empty, owning nothing (appending allocates anew). */
char	   *strbuf_detach(strbuf *sb);

/*
 * Write len bytes of text to the file path ("-": standard output),
 * checking every step, the close included.  Returns false with *cause
 * set (caller frees) on an error.
 *
 * A regular file (or the file a symbolic link points to) is replaced
 * whole or not at all: the text goes to a temporary file in the same
 * directory, renamed over path once written and closed; on an error it
 * is removed, and a file that was there is left as it was.  A new file
 * gets the mode fopen() gives (0666 less the umask), an existing one
 * keeps its mode and owner.  Devices, FIFOs, files with other hard links
 * and files in a directory we may not create in are written straight
 * into, as they must be.
 */
bool		strbuf_write_file(const char *path, const char *text, size_t len, char **cause);
/* strbuf_write_file() of sb's text, then sb freed: the end of every "render, then write" writer. */
bool		strbuf_write_free(strbuf *sb, const char *path, char **cause);

/*
 * strbuf_write_file() for a file that a reader may open at any moment (a
 * node_exporter textfile): the temporary file is flushed to disk (fsync)
 * before the rename, so that neither a reader nor a crash ever sees half
 * of it, and there is no falling back to writing straight into path: a
 * directory we may not create in is an error ("could not create temporary
 * file ...").  A file with other hard links is replaced too (the links
 * keep the old text).  "-", devices and FIFOs are written straight into.
 */
bool		strbuf_replace_file(const char *path, const char *text, size_t len, char **cause);

/*
 * Prove before a run that strbuf_write_file() (or a log writer) will be able
 * to create or overwrite path ("-" always can): opens it for writing without
 * truncating it, and removes it again if this call created it.  Returns false
 * with *cause set (caller frees), in the same words strbuf_write_file() uses.
 */
bool		strbuf_check_writable(const char *path, char **cause);
/*
 * strbuf_check_writable(), and for strbuf_replace_file(): that a temporary
 * file can be created (and is removed again) in path's directory.
 */
bool		strbuf_check_replaceable(const char *path, char **cause);

#endif
