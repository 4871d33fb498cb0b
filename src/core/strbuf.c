/*
 * strbuf.c — a growable, always NUL-terminated string buffer.
 *
 * A zeroed strbuf (data NULL, cap 0) is accepted everywhere strbuf_init()
 * would be: the first append allocates.
 */
#include "config.h"

#include "pgtempo/strbuf.h"

#include <errno.h>
#include <fcntl.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

#define STRBUF_INITIAL_CAP 64

void
strbuf_init(strbuf *sb)
{
	sb->data = xmalloc(STRBUF_INITIAL_CAP);
	sb->data[0] = '\0';
	sb->len = 0;
	sb->cap = STRBUF_INITIAL_CAP;
}

void
strbuf_free(strbuf *sb)
{
	free(sb->data);
	sb->data = NULL;
	sb->len = 0;
	sb->cap = 0;
}

void
strbuf_reset(strbuf *sb)
{
	if (sb->data == NULL)
	{
		strbuf_init(sb);
		return;
	}
	sb->len = 0;
	sb->data[0] = '\0';
}

/* Grow the allocation, doubling, so that n more bytes and the NUL fit. */
void
strbuf_reserve(strbuf *sb, size_t n)
{
	size_t		need;
	size_t		newcap;

	if (n > SIZE_MAX - 1 - sb->len)
	{
		/* a size no allocation could satisfy */
		msg_error("out of memory");
		abort();
	}
	need = sb->len + n + 1;
	if (need <= sb->cap)
		return;

	newcap = sb->cap ? sb->cap : STRBUF_INITIAL_CAP;
	while (newcap < need)
		newcap = newcap > SIZE_MAX / 2 ? need : newcap * 2;

	sb->data = xrealloc(sb->data, newcap);
	if (sb->cap == 0)
		sb->data[0] = '\0';
	sb->cap = newcap;
}

void
strbuf_append(strbuf *sb, const char *s, size_t n)
{
	strbuf_reserve(sb, n);
	memcpy(sb->data + sb->len, s, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
}

void
strbuf_puts(strbuf *sb, const char *s)
{
	strbuf_append(sb, s, strlen(s));
}

void
strbuf_putc(strbuf *sb, char c)
{
	strbuf_reserve(sb, 1);
	sb->data[sb->len++] = c;
	sb->data[sb->len] = '\0';
}

void
strbuf_printf(strbuf *sb, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	strbuf_vprintf(sb, fmt, ap);
	va_end(ap);
}

/*
 * Format at the end of the buffer: try in the space there is, and if the
 * result did not fit, grow to the exact size and format again.
 */
void
strbuf_vprintf(strbuf *sb, const char *fmt, va_list ap)
{
	va_list		ap2;
	int			len;

	strbuf_reserve(sb, 0);
	va_copy(ap2, ap);
	len = vsnprintf(sb->data + sb->len, sb->cap - sb->len, fmt, ap2);
	va_end(ap2);
	if (len < 0)
	{
		msg_error("could not format string: %m");
		abort();
	}

	if ((size_t) len >= sb->cap - sb->len)
	{
		strbuf_reserve(sb, (size_t) len);
		len = vsnprintf(sb->data + sb->len, sb->cap - sb->len, fmt, ap);
	}
	sb->len += (size_t) len;
}

char *
strbuf_detach(strbuf *sb)
{
	char	   *s;

	if (sb->data == NULL)
		strbuf_init(sb);
	s = sb->data;
	strbuf_init(sb);
	return s;
}

bool
strbuf_write_file(const char *path, const char *text, size_t len, char **cause)
{
	bool		to_stdout = strcmp(path, "-") == 0;
	FILE	   *f = to_stdout ? stdout : fopen(path, "w");
	int			err = 0;

	if (f == NULL)
	{
		*cause = xasprintf("could not open file \"%s\" for writing: %s", path, strerror(errno));
		return false;
	}
	/* the first error's errno; EIO if a stdio error left none */
	errno = 0;
	if (fwrite(text, 1, len, f) != len)
		err = errno != 0 ? errno : EIO;
	errno = 0;
	if ((fflush(f) != 0 || ferror(f)) && err == 0)
		err = errno != 0 ? errno : EIO;
	errno = 0;
	if (!to_stdout && fclose(f) != 0 && err == 0)
		err = errno != 0 ? errno : EIO;
	if (err != 0)
	{
		if (to_stdout)
			*cause = xasprintf("could not write to standard output: %s", strerror(err));
		else
			*cause = xasprintf("could not write to file \"%s\": %s", path, strerror(err));
		return false;
	}
	return true;
}

bool
strbuf_check_writable(const char *path, char **cause)
{
	int			fd;
	bool		created = false;

	if (strcmp(path, "-") == 0)
		return true;
	/* O_EXCL first, so that we know whether the file is ours to remove */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
	if (fd >= 0)
		created = true;
	else if (errno == EEXIST)
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
	{
		*cause = xasprintf("could not open file \"%s\" for writing: %s", path, strerror(errno));
		return false;
	}
	close(fd);
	if (created)
		(void) unlink(path);
	return true;
}
