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

#include "retain.h"

/* How often the files past --log-retain are looked for. */
#define LOGFILE_RETAIN_EVERY_S 60

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

/* Open lf->path; a new, empty file gets the header first. */
static bool
open_path(logfile *lf, char **cause)
{
	struct stat st;

	/* "-" is standard output, on a descriptor of its own so that close leaves it open */
	if (strcmp(lf->path, "-") == 0)
		lf->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	else
		lf->fd = open(lf->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (lf->fd < 0)
	{
		lf->open_errno = errno;
		/* the words of strbuf_check_writable(), as for every output */
		*cause = xasprintf("could not open file \"%s\" for writing: %s", lf->path,
						   strerror(errno));
		return false;
	}
	lf->files_opened++;
	/*
	 * A new file gets the header; so does a device or pipe (/dev/stdout),
	 * where there is no file to look at, once per open.  It is written at
	 * the next flush, before the records queued for this file, and until
	 * it is out: a header lost to a full disk is tried again.
	 */
	lf->need_header = lf->header != NULL && fstat(lf->fd, &st) == 0 &&
		(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || st.st_size == 0);
	return true;
}

/* Open the file of the pattern for now; errors at the start are fatal for the caller. */
bool
logfile_open(logfile *lf, const char *pattern, const char *header, time_t now, char **cause)
{
	char		path[PATH_MAX];

	memset(lf, 0, sizeof(*lf));
	lf->fd = -1;
	if (!logfile_expand(pattern, now, path, sizeof(path)))
	{
		*cause = xasprintf("invalid log file name \"%s\": empty or too long after expansion",
						   pattern);
		return false;
	}
	lf->path = xstrdup(path);
	lf->header = header ? xstrdup(header) : NULL;
	if (!open_path(lf, cause))
	{
		free(lf->path);
		free(lf->header);
		memset(lf, 0, sizeof(*lf));
		lf->fd = -1;
		return false;
	}
	lf->pattern = xstrdup(pattern);
	lf->has_escapes = strchr(pattern, '%') != NULL;
	strbuf_init(&lf->buf);
	return true;
}

/* Queue a record; write at once only when a lot has piled up. */
void
logfile_add(logfile *lf, const char *data, size_t len)
{
	if (len == 0)
		return;
	strbuf_append(&lf->buf, data, len);
	if (lf->nrec == lf->cap_rec)
	{
		lf->cap_rec = lf->cap_rec ? lf->cap_rec * 2 : 256;
		lf->ends = xrealloc(lf->ends, lf->cap_rec * sizeof(size_t));
	}
	lf->ends[lf->nrec++] = lf->buf.len;
	if (lf->buf.len >= LOGFILE_FLUSH_BYTES)
		logfile_flush(lf);
}

/* write(2) all of data: 0, or the errno of the failure with *done the bytes that got out. */
static int
write_all(int fd, const char *data, size_t len, size_t *done)
{
	*done = 0;
	while (*done < len)
	{
		ssize_t		n = write(fd, data + *done, len - *done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return ENOSPC;
		*done += (size_t) n;
	}
	return 0;
}

/*
 * Write n records (ending at ends[]) of data: 0, or the errno of the
 * failure with *whole the records that got out whole; a regular file is
 * then cut back to the last of them, so it never ends on half a line and
 * a later write that works continues it cleanly.
 */
int
logfile_write_whole(int fd, const char *data, const size_t *ends, size_t n, size_t *whole)
{
	struct stat st;
	off_t		start = -1;
	size_t		len = n > 0 ? ends[n - 1] : 0;
	size_t		done,
				keep;
	int			err;

	*whole = n;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		start = st.st_size;
	err = write_all(fd, data, len, &done);
	if (err == 0)
		return 0;
	*whole = 0;
	while (*whole < n && ends[*whole] <= done)
		(*whole)++;
	keep = *whole > 0 ? ends[*whole - 1] : 0;
	/* a pipe or device cannot be cut back; a failed cut leaves no better choice */
	if (start >= 0 && done > keep)
	{
		int			rc = ftruncate(fd, start + (off_t) keep);

		(void) rc;
	}
	return err;
}

/* The queue is written or given up: empty it. */
static void
drop_queue(logfile *lf)
{
	strbuf_reset(&lf->buf);
	lf->nrec = 0;
}

/* Report a failure once per streak; the records queued and not written are lost. */
static void
write_failed(logfile *lf, const char *what, int err, size_t written)
{
	if (!lf->failing)
		msg_error("could not %s log file \"%s\": %s", what, lf->path, strerror(err));
	lf->failing = true;
	lf->records_written += written;
	lf->records_lost += lf->nrec - written;
	drop_queue(lf);
}

/*
 * Write the header if it is due, then the queued records.  On an error
 * the records that got out whole count as written, the rest as lost; the
 * file ends on a whole line, and a header that did not get out is written
 * again next time.
 */
bool
logfile_flush(logfile *lf)
{
	size_t		whole = 0;
	int			err = 0;

	if (lf->nrec == 0 && !lf->need_header)
		return true;
	if (lf->fd < 0)
	{
		/* the file could not be opened at the last tick */
		write_failed(lf, "open", lf->open_errno ? lf->open_errno : ENOENT, 0);
		return false;
	}
	if (lf->need_header)
	{
		size_t		hlen = strlen(lf->header);

		err = logfile_write_whole(lf->fd, lf->header, &hlen, 1, &whole);
		if (err == 0)
			lf->need_header = false;
	}
	if (err == 0)
		err = logfile_write_whole(lf->fd, lf->buf.data, lf->ends, lf->nrec, &whole);
	else
		whole = 0;
	if (err != 0)
	{
		write_failed(lf, "write to", err, whole);
		return false;
	}
	if (lf->failing)
		msg_warning("writing to log file \"%s\" works again; %" PRIu64
					" records were not written", lf->path, lf->records_lost);
	lf->failing = false;
	lf->records_written += lf->nrec;
	drop_queue(lf);
	return true;
}

/* Delete the pattern's files past the limits; a failure is said once per streak. */
static void
retain_now(logfile *lf, time_t now)
{
	char	   *cause = NULL;

	retain_apply(lf->pattern, lf->path, now, lf->retain_age_s, lf->retain_bytes, &cause);
	if (cause != NULL && !lf->retain_failing)
		msg_warning("%s", cause);
	lf->retain_failing = cause != NULL;
	free(cause);
	lf->next_retain = now + LOGFILE_RETAIN_EVERY_S;
}

/* Start deleting old files of the pattern: now, then as the run goes. */
void
logfile_retain(logfile *lf, int64_t max_age_ns, int64_t max_bytes, time_t now)
{
	if (lf->pattern == NULL || !lf->has_escapes || (max_age_ns <= 0 && max_bytes <= 0))
		return;
	lf->retain_age_s = max_age_ns / 1000000000;
	lf->retain_bytes = max_bytes;
	retain_now(lf, now);
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
	if (lf->next_retain != 0 && !changed && now >= lf->next_retain)
		retain_now(lf, now);
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
	if (lf->next_retain != 0 && changed)
		retain_now(lf, now);
}

/* Write out and close; false (and how many records were lost said) if any were. */
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
		lf->records_lost++;
	}
	lf->fd = -1;
	ok = lf->records_lost == 0;
	if (!ok)
		msg_error("%" PRIu64 " record%s could not be written to log file \"%s\"",
				  lf->records_lost, lf->records_lost == 1 ? "" : "s", lf->path);
	free(lf->pattern);
	free(lf->path);
	free(lf->header);
	free(lf->ends);
	strbuf_free(&lf->buf);
	lf->pattern = lf->path = lf->header = NULL;
	lf->ends = NULL;
	lf->nrec = lf->cap_rec = 0;
	return ok;
}
