/*
 * msg.c — diagnostics in the style of PostgreSQL's client tools.
 *
 * This module allocates nothing it keeps and calls no xalloc function, so
 * xalloc can report an out-of-memory condition through it.
 */
#include "config.h"

#include "pgtempo/msg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/exitcode.h"

#define DEFAULT_PROGNAME "pgtempo"

/* A file name component is at most 255 bytes on every file system we run on. */
static char progname[256] = DEFAULT_PROGNAME;

/*
 * Remember the basename of argv0.  NULL, an empty string or a path ending
 * in '/' has no usable name and restores the default.
 */
void
msg_set_progname(const char *argv0)
{
	const char *base;

	if (argv0 == NULL)
		base = "";
	else
	{
		base = strrchr(argv0, '/');
		base = base ? base + 1 : argv0;
	}
	if (*base == '\0')
		base = DEFAULT_PROGNAME;
	snprintf(progname, sizeof(progname), "%s", base);
}

const char *
msg_progname(void)
{
	return progname;
}

/*
 * Write "prog: level: message" to stderr as one line.
 *
 * The line is formatted completely before it is written, so that it goes
 * out in one write and messages from concurrent threads don't interleave.
 * errno is saved first: the caller's %m must see the caller's errno, not
 * whatever flushing stdout left behind.
 */
static void __attribute__((format(printf, 2, 0)))
msg_emit(const char *level, const char *fmt, va_list ap)
{
	int			save_errno = errno;
	char		stackbuf[1024];
	char	   *buf = stackbuf;
	char	   *heapbuf = NULL;
	int			prefix;
	int			len;
	va_list		ap2;

	/* Whatever the program printed so far must come before the message. */
	fflush(stdout);

	/* an informational line has no level word, as in PostgreSQL's tools */
	if (level == NULL)
		prefix = snprintf(stackbuf, sizeof(stackbuf), "%s: ", progname);
	else
		prefix = snprintf(stackbuf, sizeof(stackbuf), "%s: %s: ", progname, level);

	va_copy(ap2, ap);
	errno = save_errno;
	len = vsnprintf(stackbuf + prefix, sizeof(stackbuf) - prefix, fmt, ap2);
	va_end(ap2);
	if (len < 0)
	{
		/* a broken format string: still say something */
		len = snprintf(stackbuf + prefix, sizeof(stackbuf) - prefix, "%s", fmt);
		if ((size_t) (prefix + len) > sizeof(stackbuf) - 2)
			len = sizeof(stackbuf) - 2 - prefix;
	}
	else if ((size_t) (prefix + len) >= sizeof(stackbuf) - 1)
	{
		/*
		 * Too long for the stack buffer (one byte is kept for the newline).
		 * Use the heap, but without xalloc: if this fails too, the truncated
		 * message is better than none.
		 */
		heapbuf = malloc((size_t) prefix + len + 2);
		if (heapbuf != NULL)
		{
			memcpy(heapbuf, stackbuf, prefix);
			errno = save_errno;
			vsnprintf(heapbuf + prefix, (size_t) len + 1, fmt, ap);
			buf = heapbuf;
		}
		else
			len = sizeof(stackbuf) - 2 - prefix;
	}

	/* Terminate the line unless the message did so itself. */
	len += prefix;
	if (buf[len - 1] != '\n')
	{
		buf[len++] = '\n';
		buf[len] = '\0';
	}

	fwrite(buf, 1, len, stderr);
	fflush(stderr);

	free(heapbuf);
	errno = save_errno;
}

void
msg_error(const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	msg_emit("error", fmt, ap);
	va_end(ap);
}

void
msg_info(const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	msg_emit(NULL, fmt, ap);
	va_end(ap);
}

void
msg_warning(const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	msg_emit("warning", fmt, ap);
	va_end(ap);
}

void
msg_detail(const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	msg_emit("detail", fmt, ap);
	va_end(ap);
}

void
msg_hint(const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	msg_emit("hint", fmt, ap);
	va_end(ap);
}

/* The parts are text, never formats: a library's message may hold a %. */
void
msg_warning_parts(void *arg, const char *warning, const char *detail, const char *hint)
{
	msg_warning("%s", warning);
	if (detail != NULL)
		msg_detail("%s", detail);
	if (hint != NULL)
		msg_hint("%s", hint);
}

/* Say why the program ends (with strerror(errnum) unless it is 0), and end it. */
static void __attribute__((noreturn, format(printf, 2, 0)))
fatal_end(int errnum, const char *fmt, va_list ap)
{
	char		why[1024];

	if (errnum == 0)
		msg_emit("error", fmt, ap);
	else
	{
		vsnprintf(why, sizeof(why), fmt, ap);
		msg_error("%s: %s", why, strerror(errnum));
	}
	exit(EXITCODE_ERROR);
}

void
msg_fatal(const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	fatal_end(0, fmt, ap);
}

void
msg_fatal_errno(int errnum, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	fatal_end(errnum, fmt, ap);
}

/* The hint PostgreSQL's tools print after a usage error. */
void
msg_try_help(void)
{
	msg_hint("Try \"%s --help\" for more information.", progname);
}

/*
 * Flush standard output and check that everything written to it arrived
 * (a full disk under a cron job's redirect); false after an error message.
 */
bool
msg_flush_stdout(void)
{
	int			err;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return true;
	/*
	 * A write that failed earlier left the error flag but perhaps no errno
	 * (and never "Success"): retry once so the kernel says why, else EIO.
	 */
	err = errno;
	if (err == 0)
	{
		clearerr(stdout);
		if (fputc('\n', stdout) != EOF && fflush(stdout) == 0)
			err = EIO;
		else
			err = errno != 0 ? errno : EIO;
	}
	clearerr(stdout);
	msg_error("could not write to standard output: %s", strerror(err));
	return false;
	return true;
}
