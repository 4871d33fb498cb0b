/*
 * logfile.c — an append-only log file that is safe to rotate.
 */
#include "config.h"

#include "logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

/* Expand strftime escapes in local time, as log file names are read by people. */
bool
logfile_expand(const char *pattern, time_t t, char *out, size_t outlen)
{
	struct tm	tm;
	size_t		n;

	if (strchr(pattern, '%') == NULL)
	{
		if (strlen(pattern) >= outlen)
			return false;
		strcpy(out, pattern);
		return true;
	}
	if (localtime_r(&t, &tm) == NULL)
		return false;
	/* the pattern is the user's file name: that is the point of expanding it */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	n = strftime(out, outlen, pattern, &tm);
#pragma GCC diagnostic pop
	/* 0 means too long, or an empty result: neither is a file name */
	return n > 0;
}

/* Open lf->path; a new, empty file gets the header queued first. */
static bool
open_path(logfile *lf, char **cause)
{
	struct stat st;

	lf->fd = open(lf->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (lf->fd < 0)
	{
		*cause = xasprintf("could not open log file \"%s\": %s", lf->path, strerror(errno));
		return false;
	}
	lf->files_opened++;
	/*
	 * A new file gets the header; so does a device or pipe (/dev/stdout),
	 * where there is no file to look at, once per open.
	 */
	if (lf->header != NULL && fstat(lf->fd, &st) == 0 &&
		(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || st.st_size == 0))
	{
		/* the header goes before anything queued for this file */
		strbuf		nb;

		strbuf_init(&nb);
		strbuf_puts(&nb, lf->header);
		strbuf_append(&nb, lf->buf.data, lf->buf.len);
		strbuf_free(&lf->buf);
		lf->buf = nb;
		lf->buf_lines++;
	}
	return true;
}

/* Open the file of the pattern for now; errors at the start are fatal for the caller. */
bool
logfile_open(logfile *lf, const char *pattern, const char *header, time_t now, char **cause)
{
	char		path[PATH_MAX];

	memset(lf, 0, sizeof(*lf));
	lf->fd = -1;
	strbuf_init(&lf->buf);
	if (!logfile_expand(pattern, now, path, sizeof(path)))
	{
		*cause = xasprintf("invalid log file name \"%s\": empty or too long after expansion",
						   pattern);
		strbuf_free(&lf->buf);
		return false;
	}
	lf->pattern = xstrdup(pattern);
	lf->has_escapes = strchr(pattern, '%') != NULL;
	lf->path = xstrdup(path);
	lf->header = header ? xstrdup(header) : NULL;
	if (!open_path(lf, cause))
	{
		free(lf->pattern);
		free(lf->path);
		free(lf->header);
		strbuf_free(&lf->buf);
		memset(lf, 0, sizeof(*lf));
		lf->fd = -1;
		return false;
	}
	return true;
}

/* Queue lines; write at once only when a lot has piled up. */
void
logfile_add(logfile *lf, const char *data, size_t len, uint64_t nlines)
{
	strbuf_append(&lf->buf, data, len);
	lf->buf_lines += nlines;
	if (lf->buf.len >= LOGFILE_FLUSH_BYTES)
		logfile_flush(lf);
}

/* Report a failure once per streak; the lines queued are lost. */
static void
write_failed(logfile *lf, const char *what, int err)
{
	if (!lf->failing)
		msg_error("could not %s log file \"%s\": %s", what, lf->path, strerror(err));
	lf->failing = true;
	lf->lines_lost += lf->buf_lines;
	strbuf_reset(&lf->buf);
	lf->buf_lines = 0;
}

/* Write the queued lines; on an error count them lost and say so once. */
bool
logfile_flush(logfile *lf)
{
	size_t		off = 0;

	if (lf->buf.len == 0)
		return true;
	if (lf->fd < 0)
	{
		/* the file could not be opened at the last tick */
		write_failed(lf, "open", ENOENT);
		return false;
	}
	while (off < lf->buf.len)
	{
		ssize_t		n = write(lf->fd, lf->buf.data + off, lf->buf.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
		{
			write_failed(lf, "write to", n < 0 ? errno : ENOSPC);
			return false;
		}
		off += (size_t) n;
	}
	if (lf->failing)
		msg_warning("writing to log file \"%s\" works again; %" PRIu64 " lines were lost",
					lf->path, lf->lines_lost);
	lf->failing = false;
	lf->lines_written += lf->buf_lines;
	strbuf_reset(&lf->buf);
	lf->buf_lines = 0;
	return true;
}

/* Once a second: write out, and switch files on SIGHUP or a new expansion. */
void
logfile_tick(logfile *lf, time_t now, bool reopen)
{
	char		path[PATH_MAX];
	char	   *cause = NULL;
	bool		changed = false;

	if (lf->pattern == NULL)
		return;
	if (lf->has_escapes && logfile_expand(lf->pattern, now, path, sizeof(path)) &&
		strcmp(path, lf->path) != 0)
		changed = true;
	/* what was queued belongs to the old file */
	logfile_flush(lf);
	if (!changed && !reopen && lf->fd >= 0)
		return;
	if (lf->fd >= 0)
		close(lf->fd);
	lf->fd = -1;
	if (changed)
	{
		free(lf->path);
		lf->path = xstrdup(path);
	}
	if (!open_path(lf, &cause))
	{
		if (!lf->failing)
			msg_error("%s", cause);
		lf->failing = true;
		free(cause);
	}
}

/* Write out and close; false if anything was lost, for the exit status. */
bool
logfile_close(logfile *lf)
{
	bool		ok;

	if (lf->pattern == NULL)
		return true;
	logfile_flush(lf);
	if (lf->fd >= 0 && close(lf->fd) != 0)
	{
		/* NFS and friends report write errors at close */
		msg_error("could not close log file \"%s\": %s", lf->path, strerror(errno));
		lf->lines_lost++;
	}
	lf->fd = -1;
	ok = lf->lines_lost == 0;
	free(lf->pattern);
	free(lf->path);
	free(lf->header);
	strbuf_free(&lf->buf);
	lf->pattern = lf->path = lf->header = NULL;
	return ok;
}
