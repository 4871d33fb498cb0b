/*
 * fuzz_waits_histread.c — libFuzzer target for pgtempo-waits' history
 * log reader (histread.h), what --from-log reads.
 *
 * Each input is a whole file: it is written to a temporary file, which
 * is read to its end record by record.  The reader must end either at
 * the end of the file with no message, or at a bad record with a message
 * that names the file; the rows it returns must hold what a row can
 * (a pid, at least one sample, blockers within bounds, an interval that
 * does not end before it starts).  Built and run by "make fuzz"; not part
 * of make check.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "histread.h"
#include "strpool.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The rows a reader returns hold what a row can. */
static void
check_record(const histread_rec *rec)
{
	if (rec->kind == HISTREAD_SAMPLE && (rec->row.pid <= 0 || rec->row.samples < 1))
		abort();
	if (rec->kind == HISTREAD_INTERVAL && (rec->ts_us < rec->start_us || rec->row.samples < 1))
		abort();
	if ((rec->kind == HISTREAD_SAMPLE || rec->kind == HISTREAD_INTERVAL) &&
		(rec->row.nblockers < 0 || rec->row.nblockers > HISTREAD_MAX_BLOCKERS))
		abort();
	if (rec->kind == HISTREAD_GAP && rec->gap.end_us != 0 && rec->gap.end_us < rec->gap.start_us)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[] = "/tmp/fuzz_waits_histread.XXXXXX";
	static int	fd = -1;
	strpool		pool;
	histread	h;
	histread_rec rec;
	char	   *cause = NULL;
	int			rc;

	if (fd < 0 && (fd = mkstemp(path)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t) size)
		abort();
	/* the file was written long ago: one cut off is an error, not a file being written */
	{
		struct timespec ts[2] = {{0, 0}, {0, 0}};

		if (futimens(fd, ts) != 0)
			abort();
	}
	strpool_init(&pool);
	if (!histread_open(&h, path, &pool, &cause))
		abort();
	while ((rc = histread_next(&h, &rec, &cause)) > 0)
		check_record(&rec);
	if ((rc == 0) != (cause == NULL))
		abort();
	if (cause != NULL && strncmp(cause, path, strlen(path)) != 0)
		abort();
	free(cause);
	histread_close(&h);
	strpool_free(&pool);
	return 0;
}
