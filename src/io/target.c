/*
 * target.c — the target of the requests and its work file (see target.h).
 */
#include "config.h"

#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "pgtempo/xalloc.h"

#include "engine.h"
#include "iofmt.h"

/* The directory default working set, as ioping's; -R's. */
#define WORK_SIZE_DIRECTORY (UINT64_C(1) << 20)
#define WORK_SIZE_RAPID (UINT64_C(64) << 20)
/*
 * The work file is written a page at a time: pages written in larger
 * pieces may land in the cache as large folios, which dropping the cache
 * of one 4 KiB request cannot split, and reads would hit the cache.
 */
#define FILL_CHUNK (UINT64_C(1) << 20)
#define FILL_WRITE 4096
/* Direct I/O: sizes and offsets in whole sectors. */
#define DIRECT_ALIGN 512
#define KEEP_NAME "ioping.tmp"

bool
io_target_mount(unsigned long dev, char *fstype, size_t fslen, char *source, size_t srclen)
{
	FILE	   *f = fopen("/proc/self/mountinfo", "r");
	char	   *line = NULL;
	size_t		cap = 0;
	bool		found = false;

	if (f == NULL)
		return false;
	while (getline(&line, &cap, f) > 0)
	{
		unsigned	maj,
					min;
		char	   *sep;
		char		fs[64],
					src[256];

		/* "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw" */
		if (sscanf(line, "%*u %*u %u:%u", &maj, &min) != 2 ||
			makedev(maj, min) != dev || (sep = strstr(line, " - ")) == NULL ||
			sscanf(sep + 3, "%63s %255s", fs, src) != 2)
			continue;
		/* the last match wins: a later mount hides the earlier ones */
		snprintf(fstype, fslen, "%s", fs);
		snprintf(source, srclen, "%s", src);
		found = true;
	}
	free(line);
	fclose(f);
	return found;
}

/* The open(2) flags the requests need. */
static int
open_flags(const io_settings *s, bool writable)
{
	int			flags = writable ? O_RDWR : O_RDONLY;

	if (s->direct)
		flags |= O_DIRECT;
	if (s->sync)
		flags |= O_SYNC;
	if (s->dsync)
		flags |= O_DSYNC;
	return flags | O_CLOEXEC;
}

/*
 * Why the requests' open failed: a file system that refuses O_DIRECT
 * (EINVAL: ramfs, FUSE, tmpfs before Linux 6.6) gets ioping's words for it,
 * and the target remembers it for the detail line.
 */
static char *
open_failure(io_target *t, const io_settings *s, const char *path, int err)
{
	if (err == EINVAL && s->direct)
	{
		t->direct_refused = true;
		return xasprintf("fcntl(O_DIRECT) failed, please retry without option -D: %s",
						 strerror(err));
	}
	return xasprintf("failed to open \"%s\": %s", path, strerror(err));
}

/* Fill [0, len) of fd with data; 0 or errno (ENOSPC: the disk is full). */
static int
fill(int fd, uint64_t len)
{
	uint64_t	state = 0x10ad;
	uint64_t   *buf = xmalloc(FILL_CHUNK);
	int			err = 0;

	for (size_t i = 0; i < FILL_CHUNK / 8; i++)
		buf[i] = io_engine_random(&state);
	for (uint64_t off = 0; off < len && err == 0;)
	{
		size_t		n = len - off < FILL_WRITE ? (size_t) (len - off) : FILL_WRITE;
		ssize_t		w = pwrite(fd, (char *) buf + off % FILL_CHUNK, n, (off_t) off);

		if (w < 0)
			err = errno;
		else if (w == 0)
			err = ENOSPC;
		else
			off += (uint64_t) w;
	}
	if (err == 0 && fsync(fd) != 0)
		err = errno;
	free(buf);
	return err;
}

/*
 * A directory's work file: made and removed at once, or -k's ioping.tmp,
 * reused when it is large enough; filled, then opened again with the
 * request flags (O_DIRECT, O_SYNC cannot be set on an open file).
 */
static int
open_work_file(io_target *t, const io_settings *s, uint64_t len, char **cause)
{
	char	   *path;
	int			fd;
	int			err;
	struct stat st;
	char		proc[64];

	if (s->keep)
	{
		path = xasprintf("%s/%s", t->path, KEEP_NAME);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	}
	else
	{
		/* a file without a name; where the file system cannot, one removed at once */
		path = xasprintf("%s/%s.XXXXXX", t->path, KEEP_NAME);
		fd = open(t->path, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
		if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		{
			fd = mkostemp(path, O_CLOEXEC);
			if (fd >= 0)
				unlink(path);
		}
	}
	if (fd < 0)
	{
		*cause = xasprintf("failed to create temporary file \"%s\": %s", path, strerror(errno));
		free(path);
		return IO_TARGET_PREPARATION;
	}
	err = 0;
	if (!s->keep || fstat(fd, &st) != 0 || (uint64_t) st.st_size < len)
		err = fill(fd, len);
	if (err != 0)
	{
		/* nothing left behind: the file is gone already, or -k's is removed */
		if (s->keep)
			unlink(path);
		close(fd);
		*cause = xasprintf("preparation write failed: %s", strerror(err));
		free(path);
		return IO_TARGET_PREPARATION;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	t->fd = open(proc, open_flags(s, true));
	err = errno;
	close(fd);
	if (t->fd < 0)
	{
		*cause = open_failure(t, s, path, err);
		free(path);
		return IO_TARGET_PREPARATION;
	}
	/* no read-ahead: a request reads its own pages only, as ioping's (-C: no matter) */
	if (!s->cached)
		posix_fadvise(t->fd, 0, (off_t) len, POSIX_FADV_RANDOM);
	free(path);
	return 0;
}

/* Size and name of what path is; the description ioping prints. */
static int
look(io_target *t, const struct stat *st, char **cause)
{
	char		sz[IOFMT_MAX];
	struct statvfs vfs;

	if (S_ISDIR(st->st_mode))
		t->kind = IO_TARGET_DIRECTORY;
	else if (S_ISREG(st->st_mode))
		t->kind = IO_TARGET_FILE;
	else if (S_ISBLK(st->st_mode))
		t->kind = IO_TARGET_BLOCK;
	else if (S_ISCHR(st->st_mode))
		t->kind = IO_TARGET_CHAR;
	else
	{
		*cause = xasprintf("unsupported destination: \"%s\"", t->path);
		return IO_TARGET_PREPARATION;
	}
	if (t->kind == IO_TARGET_BLOCK || t->kind == IO_TARGET_CHAR)
	{
		snprintf(t->describe, sizeof(t->describe), "%s device %s",
				 t->kind == IO_TARGET_BLOCK ? "block" : "character",
				 iofmt_size(sz, t->device_size));
		return 0;
	}
	/* a mount this process cannot see (a chroot's): both left empty, "(  8 GiB)" as ioping's */
	if (!io_target_mount((unsigned long) st->st_dev, t->fstype, sizeof(t->fstype),
						 t->device, sizeof(t->device)))
		t->fstype[0] = t->device[0] = '\0';
	if (statvfs(t->path, &vfs) == 0)
		t->device_size = (uint64_t) vfs.f_blocks * vfs.f_frsize;
	snprintf(t->describe, sizeof(t->describe), "%s %s %s", t->fstype, t->device,
			 iofmt_size(sz, t->device_size));
	return 0;
}

/* The requests' fit in the working set, and direct I/O's alignment. */
static int
check_fit(const io_target *t, const io_settings *s, uint64_t avail, char **cause)
{
	if (s->direct && (s->size % DIRECT_ALIGN != 0 || t->work_offset % DIRECT_ALIGN != 0))
	{
		*cause = xasprintf("request size %llu and offset %llu must be multiples of %d bytes "
						   "for direct I/O (-D)", (unsigned long long) s->size,
						   (unsigned long long) t->work_offset, DIRECT_ALIGN);
		return IO_TARGET_PREPARATION;	/* ioping's status for it */
	}
	if (s->size == 0 || s->size > t->work_size || t->work_offset + t->work_size > avail)
	{
		*cause = xstrdup("request size is too big for this target");
		return IO_TARGET_PREPARATION;
	}
	return 0;
}

int
io_target_open(io_target *t, const io_settings *s, char **cause)
{
	struct stat st;
	bool		writes = s->write > 0 || s->read_write;
	uint64_t	avail;
	int			rc;

	memset(t, 0, sizeof(*t));
	t->path = s->target;
	t->fd = -1;
	if (stat(t->path, &st) != 0)
	{
		*cause = xasprintf("stat \"%s\" failed: %s", t->path, strerror(errno));
		return IO_TARGET_PREPARATION;
	}
	if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))
	{
		int			probe = open(t->path, O_RDONLY | O_CLOEXEC);

		if (probe >= 0)
		{
			if (S_ISBLK(st.st_mode) && ioctl(probe, BLKGETSIZE64, &t->device_size) != 0)
				t->device_size = 0;
			close(probe);
		}
	}
	if ((rc = look(t, &st, cause)) != 0)
		return rc;
	t->work_offset = s->work_offset;
	if (t->kind == IO_TARGET_DIRECTORY)
	{
		t->work_size = s->work_size != 0 ? s->work_size
			: s->rapid ? WORK_SIZE_RAPID : WORK_SIZE_DIRECTORY;
		if ((rc = check_fit(t, s, t->work_offset + t->work_size, cause)) != 0)
			return rc;
		t->writable = true;
		return open_work_file(t, s, t->work_offset + t->work_size, cause);
	}
	if (s->keep)
	{
		*cause = xstrdup("option -k/--keep needs a directory target");
		return IO_TARGET_USAGE;
	}
	/* a file or device holds someone's data: writes only with -WWW */
	if (writes && s->write < 3)
	{
		*cause = xstrdup("think twice, then use -WWW to shred this target");
		return IO_TARGET_PREPARATION;
	}
	avail = t->kind == IO_TARGET_FILE ? (uint64_t) st.st_size : t->device_size;
	t->work_size = s->work_size != 0 ? s->work_size
		: avail > t->work_offset ? avail - t->work_offset : 0;
	if ((rc = check_fit(t, s, avail, cause)) != 0)
		return rc;
	t->writable = writes;
	t->fd = open(t->path, open_flags(s, writes));
	if (t->fd < 0)
	{
		*cause = open_failure(t, s, t->path, errno);
		return IO_TARGET_PREPARATION;
	}
	if (!s->cached)
		posix_fadvise(t->fd, (off_t) t->work_offset, (off_t) t->work_size, POSIX_FADV_RANDOM);
	return 0;
}

void
io_target_close(io_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}
