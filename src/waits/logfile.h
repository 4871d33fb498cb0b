/*
 * logfile.h — an append-only log file that is safe to rotate.
 *
 * Records (a line each; a CSV record may hold quoted line breaks) are
 * collected in memory and written with write(2) when 64 kB have piled up,
 * at every logfile_tick() (the caller ticks once a second) and at close,
 * so a reader never waits more than a second and a kill -9 loses at most
 * the last second.  The file is opened with O_APPEND and created if
 * missing; a file that is empty when opened gets the header line first.
 *
 * Rotation: logfile_tick(reopen = true) — on SIGHUP — closes the file
 * and opens the path again, so logrotate can move the old file away.  A
 * path with strftime escapes ("waits-%Y%m%d.csv") is expanded at each
 * tick, in local time, and a new file is started when the expansion
 * changes.
 *
 * Write errors (a full disk, a path that cannot be opened) are reported
 * once per streak with the file's name, the records that could not be
 * written are counted, and writing is tried again at the next tick.  A
 * write that got only part of the buffer out is cut back (ftruncate) to
 * the last whole record, so a regular file always ends on a whole line.
 */
#ifndef PGTEMPO_WAITS_LOGFILE_H
#define PGTEMPO_WAITS_LOGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "pgtempo/strbuf.h"

#define LOGFILE_FLUSH_BYTES 65536

typedef struct logfile
{
	char	   *pattern;		/* the path as given */
	bool		has_escapes;	/* it contains '%' */
	char	   *path;			/* the current expansion */
	int			fd;				/* -1 when not open */
	int			open_errno;		/* why the last open failed */
	char	   *header;			/* first line of a new file, with its newline; or NULL */
	bool		need_header;	/* the file is new: the header goes first */
	strbuf		buf;			/* records not written yet */
	size_t	   *ends;			/* where each record in buf ends */
	size_t		nrec;
	size_t		cap_rec;
	uint64_t	records_written;
	uint64_t	records_lost;	/* could not be written */
	uint64_t	files_opened;
	bool		failing;		/* an error was reported and not yet recovered from */
	/* --log-retain (retain.h): older files of the pattern deleted, once a minute */
	int64_t		retain_age_s;	/* 0: no age limit */
	int64_t		retain_bytes;	/* 0: no size limit */
	time_t		next_retain;	/* 0: no retention */
	bool		retain_failing;	/* a deletion failed: said once */
} logfile;

/*
 * Open the log file (expanding pattern for time now).  On failure
 * returns false with *cause set; lf is then closed and need not be.
 */
bool		logfile_open(logfile *lf, const char *pattern, const char *header, time_t now,
						 char **cause);
/* Queue one record (its text ends with a newline). */
void		logfile_add(logfile *lf, const char *data, size_t len);
/* Write what is queued; false (and the records not written counted lost) on an error. */
bool		logfile_flush(logfile *lf);
/* Once a second: flush, and start a new file if reopen or the expansion changed. */
void		logfile_tick(logfile *lf, time_t now, bool reopen);
/*
 * --log-retain: delete the pattern's files older than max_age_ns or past
 * max_bytes (either 0: no such limit) now, then once a minute and
 * whenever a new file is started.
 */
void		logfile_retain(logfile *lf, int64_t max_age_ns, int64_t max_bytes, time_t now);
/* Flush and close; false if any record was lost during the file's life. */
bool		logfile_close(logfile *lf);

/*
 * Write n records (record i ends at ends[i]) of data to fd: 0, or the
 * errno of the failure with *whole the records written whole; a regular
 * file is then cut back to the end of the last of them.
 */
int			logfile_write_whole(int fd, const char *data, const size_t *ends, size_t n,
								size_t *whole);

/* Expand strftime escapes of pattern for time t (local time); false if too long. */
bool		logfile_expand(const char *pattern, time_t t, char *out, size_t outlen);

#endif
