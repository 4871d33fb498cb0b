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
#include <sys/stat.h>
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

/*
 * Hand over the string and leave the buffer empty without an allocation
 * (as strbuf_free does), so that a caller who only wanted the string owes
 * nothing; appending to it again allocates anew.
 */
char *
strbuf_detach(strbuf *sb)
{
	char	   *s;

	if (sb->data == NULL)
		strbuf_init(sb);
	s = sb->data;
	sb->data = NULL;
	sb->len = 0;
	sb->cap = 0;
	return s;
}

/* Write text to f, checking every step, the close included: 0, or the first errno. */
static int
write_stream(FILE *f, const char *text, size_t len, bool close_it)
{
	int			err = 0;

	/* the first error's errno; EIO if a stdio error left none */
	errno = 0;
	if (fwrite(text, 1, len, f) != len)
		err = errno != 0 ? errno : EIO;
	errno = 0;
	if ((fflush(f) != 0 || ferror(f)) && err == 0)
		err = errno != 0 ? errno : EIO;
	errno = 0;
	if (close_it && fclose(f) != 0 && err == 0)
		err = errno != 0 ? errno : EIO;
	return err;
}

/* Straight into path, as a device, a FIFO or a file we cannot replace need. */
static bool
write_direct(const char *path, const char *text, size_t len, char **cause)
{
	FILE	   *f = fopen(path, "w");
	int			err;

	if (f == NULL)
	{
		*cause = xasprintf("could not open file \"%s\" for writing: %s", path, strerror(errno));
		return false;
	}
	if ((err = write_stream(f, text, len, true)) != 0)
	{
		*cause = xasprintf("could not write to file \"%s\": %s", path, strerror(err));
		return false;
	}
	return true;
}

/*
 * The file that a new one replaces for path (allocated), *st its status
 * if it exists: path itself, or the file a symbolic link points to (the
 * link stays).  NULL when path is to be written straight into: a device,
 * a FIFO, a file with other hard links (they would keep the old text), a
 * dangling link, or a path we cannot look at (the open says why).
 */
static char *
replace_target(const char *path, struct stat *st, bool *exists, bool strict)
{
	char	   *target;

	*exists = false;
	if (lstat(path, st) != 0)
		return errno == ENOENT ? xstrdup(path) : NULL;
	if (S_ISLNK(st->st_mode))
	{
		char	   *real = realpath(path, NULL);

		if (real == NULL || stat(real, st) != 0)
		{
			free(real);
			return NULL;
		}
		target = xstrdup(real);
		free(real);
	}
	else
		target = xstrdup(path);
	/* strict: other hard links lose the new text rather than see half of it */
	if (!S_ISREG(st->st_mode) || (st->st_nlink != 1 && !strict))
	{
		free(target);
		return NULL;
	}
	*exists = true;
	return target;
}

/*
 * A new file next to target, for this process alone (O_EXCL), created
 * with the mode fopen() would give it (0666 less the umask); -1 with
 * errno on failure.
 */
static int
open_temp(const char *target, char **tmp)
{
	for (unsigned i = 0;; i++)
	{
		int			fd;

		*tmp = xasprintf("%s.tmp%ld.%u", target, (long) getpid(), i);
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST || i == 99)
			return fd;
		free(*tmp);
	}
}

/*
 * Write text into the temporary file fd (closed here) and put it in
 * target's place: 0 or errno.  durable: on disk (fsync) before the rename.
 */
static int
replace_file(int fd, const char *tmp, const char *target, const struct stat *old, bool exists,
			 const char *text, size_t len, bool durable)
{
	FILE	   *f;
	int			err;

	/* an existing file's mode and owner stay (the owner only where we may give it) */
	if (exists)
	{
		(void) fchmod(fd, old->st_mode & 07777);
		/* a failed fchown leaves the file ours: better than no file at all */
		if ((old->st_uid != geteuid() || old->st_gid != getegid()) &&
			fchown(fd, old->st_uid, old->st_gid) != 0)
			errno = 0;
	}
	if ((f = fdopen(fd, "w")) == NULL)
	{
		err = errno;
		close(fd);
	}
	else
	{
		err = write_stream(f, text, len, false);
		/* durable: a crash after the rename must not leave an empty file behind it */
		if (err == 0 && durable && fsync(fileno(f)) != 0)
			err = errno;
		if (fclose(f) != 0 && err == 0)
			err = errno != 0 ? errno : EIO;
	}
	if (err == 0 && rename(tmp, target) != 0)
		err = errno;
	if (err != 0)
		(void) unlink(tmp);
	return err;
}

/* strbuf_write_file(), or strict: strbuf_replace_file() (see strbuf.h). */
static bool
write_file(const char *path, const char *text, size_t len, bool strict, char **cause)
{
	struct stat st;
	bool		exists;
	char	   *target;
	char	   *tmp = NULL;
	int			fd;
	int			err = 0;

	if (strcmp(path, "-") == 0)
	{
		if ((err = write_stream(stdout, text, len, false)) != 0)
		{
			*cause = xasprintf("could not write to standard output: %s", strerror(err));
			return false;
		}
		return true;
	}
	if ((target = replace_target(path, &st, &exists, strict)) == NULL)
		return write_direct(path, text, len, cause);
	fd = open_temp(target, &tmp);
	if (fd < 0 && !strict && (errno == EACCES || errno == EPERM || errno == ENAMETOOLONG))
	{
		/* a directory we may not create in, a name too long for a suffix: as before */
		free(tmp);
		free(target);
		return write_direct(path, text, len, cause);
	}
	if (fd < 0 && strict)
		*cause = xasprintf("could not create temporary file \"%s\": %s", tmp, strerror(errno));
	else if (fd < 0)
		*cause = xasprintf("could not open file \"%s\" for writing: %s", path, strerror(errno));
	else if ((err = replace_file(fd, tmp, target, &st, exists, text, len, strict)) != 0)
		*cause = xasprintf("could not write to file \"%s\": %s", path, strerror(err));
	free(tmp);
	free(target);
	return fd >= 0 && err == 0;
}

bool
strbuf_write_file(const char *path, const char *text, size_t len, char **cause)
{
	return write_file(path, text, len, false, cause);
}

bool
strbuf_write_free(strbuf *sb, const char *path, char **cause)
{
	bool		ok = write_file(path, sb->data, sb->len, false, cause);

	strbuf_free(sb);
	return ok;
}

bool
strbuf_replace_file(const char *path, const char *text, size_t len, char **cause)
{
	return write_file(path, text, len, true, cause);
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

bool
strbuf_check_replaceable(const char *path, char **cause)
{
	struct stat st;
	bool		exists;
	char	   *target;
	char	   *tmp = NULL;
	int			fd;

	if (!strbuf_check_writable(path, cause))
		return false;
	if (strcmp(path, "-") == 0 || (target = replace_target(path, &st, &exists, true)) == NULL)
		return true;
	/* the temporary file strbuf_replace_file() will need, created and removed */
	fd = open_temp(target, &tmp);
	if (fd < 0)
		*cause = xasprintf("could not create temporary file \"%s\": %s", tmp, strerror(errno));
	else
	{
		close(fd);
		(void) unlink(tmp);
	}
	free(tmp);
	free(target);
	return fd >= 0;
}
