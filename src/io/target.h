/*
 * target.h — what requests go to: a directory (a work file made in it), a
 * file or a device, and how ioping names it: "(ext4 /dev/vda 252.0 GiB)".
 *
 * Safety, as ioping: a file or device is opened read-only unless writes
 * were asked for three times (-WWW); a work file is removed from its
 * directory as soon as it is open (so no exit, not even a kill, leaves it
 * behind), unless -k keeps "ioping.tmp" for the next run.
 */
#ifndef PGTEMPO_IO_TARGET_H
#define PGTEMPO_IO_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "settings.h"

typedef enum io_target_kind
{
	IO_TARGET_DIRECTORY,
	IO_TARGET_FILE,
	IO_TARGET_BLOCK,
	IO_TARGET_CHAR
} io_target_kind;

typedef struct io_target
{
	const char *path;			/* as given */
	io_target_kind kind;
	char		fstype[64];		/* directory and file: the file system's type */
	char		device[256];	/* ... and its source */
	uint64_t	device_size;	/* the file system's or the device's size */
	char		describe[400];	/* "ext4 /dev/vda 252.0 GiB", "block device 8 GiB" */
	int			fd;				/* -1 when not open */
	uint64_t	work_offset;	/* the working set */
	uint64_t	work_size;
	bool		writable;
	bool		direct_refused; /* the file system refused O_DIRECT (-D) */
} io_target;

/*
 * Where a run failed before its first request: which exit status (ioping's:
 * 1 usage, 2 preparation) goes with the message in cause.
 */
#define IO_TARGET_USAGE 1
#define IO_TARGET_PREPARATION 2

/*
 * Look at s->target, check the settings against it, and open it (making
 * and filling the work file for a directory).  Returns 0, or
 * IO_TARGET_USAGE / IO_TARGET_PREPARATION with *cause (caller frees).
 */
int			io_target_open(io_target *t, const io_settings *s, char **cause);

/* Close what io_target_open() opened. */
void		io_target_close(io_target *t);

/* The file system of st_dev dev from /proc/self/mountinfo; false if not found. */
bool		io_target_mount(unsigned long dev, char *fstype, size_t fslen, char *source,
							size_t srclen);

#endif
