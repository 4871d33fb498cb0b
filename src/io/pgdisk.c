/*
 * pgdisk.c — PostgreSQL's questions about its disks (see pgdisk.h): the
 * cluster's files found (--pgdata or the server's own answer), read
 * read-only and timed, the sync methods timed in a work file, then one
 * report in text or JSON, and --metrics and --chart beside it (suiteout.c
 * and iochart.c draw each test's distribution).  Its requests are timed in loops of its own (many
 * files; several writes and a sync per request), each test under engine.c's
 * watchdog: a read or sync that never returns is cut at -w or at a stop
 * signal, as ioping's requests are, and the report is of what was measured.
 */
#include "config.h"

#include "pgdisk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "pgtempo/clock.h"
#include "pgtempo/conn.h"
#include "pgtempo/exitcode.h"
#include "pgtempo/json.h"
#include "pgtempo/metrics.h"
#include "pgtempo/msg.h"
#include "pgtempo/signals.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "engine.h"
#include "iochart.h"
#include "iofmt.h"
#include "suiteout.h"
#include "target.h"
#include "tool.h"

#define WORK_FILE_NAME "pgtempo-io-walsync.tmp"
#define WORK_FILE_SIZE (16 * 1024 * 1024)	/* one WAL segment, as pg_test_fsync */
#define NMETHODS 4
#define TMPFS_MAGIC_NUMBER 0x01021994	/* linux/magic.h's TMPFS_MAGIC */
#define RAMFS_MAGIC_NUMBER 0x858458f6	/* and RAMFS_MAGIC */

typedef struct pgdisk_file
{
	char	   *path;
	int			fd;
	uint64_t	blocks;
	uint64_t	first;			/* blocks of the files before it */
} pgdisk_file;

/* What the server said (NULL or negative: not asked or not told). */
typedef struct pgdisk_server
{
	bool		asked;
	char	   *data_directory;
	char	   *refused;		/* why data_directory was not given */
	double		random_page_cost;
	double		seq_page_cost;
	char	   *wal_sync_method;
} pgdisk_server;

typedef struct pgdisk
{
	const io_settings *s;
	pgdisk_server srv;
	const char *datadir;		/* the directory read */
	pgdisk_file *files;
	int			nfiles;
	uint64_t	blocks;
	bool		direct;			/* every file opened with O_DIRECT */
	char		refused_fs[64];	/* the type of the file system that refused it */
	bool		in_memory;		/* the files are on tmpfs or ramfs */
	bool		reads;
	pgdisk_series random;
	pgdisk_series seq;
	bool		syncs;
	char	   *work_path;
	pgdisk_series sync[NMETHODS * 2];
	int			nsync;
	void	   *buf;
	pgdisk_series *cur;			/* the test running and its start */
	uint64_t	cur_start;
} pgdisk;

static bool report(const pgdisk *d);

static volatile sig_atomic_t stop_signal;

/* SIGINT/SIGTERM between the tests (the watchdog takes them in one): no test after it. */
static void
on_stop(int signo)
{
	stop_signal = signo;
}

double
pgdisk_ops(const pgdisk_series *x)
{
	if (x->h == NULL || x->elapsed_ns == 0)
		return 0;
	return (double) x->h->total * 1e9 / (double) x->elapsed_ns;
}

double
pgdisk_ratio(const pgdisk_series *random, const pgdisk_series *seq)
{
	if (random->h == NULL || seq->h == NULL || random->h->total == 0 || seq->h->total == 0
		|| hist_mean(seq->h) <= 0)
		return 0;
	return hist_mean(random->h) / hist_mean(seq->h);
}

const char *
pgdisk_favoured(const pgdisk_series *x, int n)
{
	const pgdisk_series *best = NULL;

	for (int i = 0; i < n; i++)
		if (x[i].writes == 1 && x[i].h != NULL && x[i].h->total > 0
			&& (best == NULL
				|| hist_percentile(x[i].h, 50) < hist_percentile(best->h, 50)))
			best = &x[i];
	return best ? best->name : NULL;
}

/* ---- the cluster's files ---- */

/* A relation file's name: digits, or digits "." digits (a segment). */
static bool
relation_name(const char *n)
{
	const char *p = n;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == n)
		return false;
	if (*p == '.')
	{
		const char *q = ++p;

		while (*p >= '0' && *p <= '9')
			p++;
		if (p == q)
			return false;
	}
	return *p == '\0';
}

/* Add path when it is a regular file of at least one block. */
static void
add_file(pgdisk *d, const char *path)
{
	struct stat st;
	pgdisk_file *f;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < PGDISK_BLOCK)
		return;
	if (d->nfiles % 64 == 0)
		d->files = xrealloc(d->files, sizeof(*d->files) * (size_t) (d->nfiles + 64));
	f = &d->files[d->nfiles++];
	f->path = xstrdup(path);
	f->fd = -1;
	f->blocks = (uint64_t) st.st_size / PGDISK_BLOCK;
	f->first = d->blocks;
	d->blocks += f->blocks;
}

/* Every relation file directly in dir. */
static void
scan_dir(pgdisk *d, const char *dir)
{
	DIR		   *dh = opendir(dir);
	struct dirent *e;
	strbuf		p;

	if (dh == NULL)
		return;
	strbuf_init(&p);
	while ((e = readdir(dh)) != NULL)
	{
		if (!relation_name(e->d_name))
			continue;
		strbuf_reset(&p);
		strbuf_printf(&p, "%s/%s", dir, e->d_name);
		add_file(d, p.data);
	}
	strbuf_free(&p);
	closedir(dh);
}

/* --pgdata alone: global/ and every database under base/. */
static bool
scan_pgdata(pgdisk *d, char **cause)
{
	strbuf		p;
	DIR		   *dh;
	struct dirent *e;

	strbuf_init(&p);
	strbuf_printf(&p, "%s/PG_VERSION", d->datadir);
	if (access(p.data, F_OK) != 0)
	{
		*cause = xasprintf("\"%s\" is not a PostgreSQL data directory (no PG_VERSION): %s",
						   d->datadir, strerror(errno));
		strbuf_free(&p);
		return false;
	}
	strbuf_reset(&p);
	strbuf_printf(&p, "%s/global", d->datadir);
	scan_dir(d, p.data);
	strbuf_reset(&p);
	strbuf_printf(&p, "%s/base", d->datadir);
	if ((dh = opendir(p.data)) == NULL)
	{
		*cause = xasprintf("could not open directory \"%s\": %s", p.data, strerror(errno));
		strbuf_free(&p);
		return false;
	}
	while ((e = readdir(dh)) != NULL)
		if (relation_name(e->d_name))
		{
			strbuf sub;

			strbuf_init(&sub);
			strbuf_printf(&sub, "%s/%s", p.data, e->d_name);
			scan_dir(d, sub.data);
			strbuf_free(&sub);
		}
	closedir(dh);
	strbuf_free(&p);
	return true;
}

/* The server's primary message of a failed result, without "ERROR:". */
static char *
server_words(const PGresult *r)
{
	const char *m = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);

	return m != NULL ? xstrdup(m) : conn_trim_message(PQresultErrorMessage(r));
}

/* One value of a one-row query, allocated, or NULL with the server's words in *cause. */
static char *
query_value(PGconn *c, const char *sql, char **cause)
{
	PGresult   *r = PQexec(c, sql);
	char	   *v = NULL;

	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
		v = xstrdup(PQgetvalue(r, 0, 0));
	else if (cause != NULL)
		*cause = server_words(r);
	PQclear(r);
	return v;
}

/* Ask the server its settings and, when reads are wanted, its largest relations' files. */
static bool
ask_server(pgdisk *d, char **cause)
{
	conn_opts	o = d->s->conn;
	PGconn	   *c;
	char	   *v;
	PGresult   *r;

	o.application_name = "pgtempo-io";
	if ((c = conn_open(&o, cause)) == NULL)
		return false;
	d->srv.asked = true;
	d->srv.data_directory = query_value(c, "SELECT current_setting('data_directory')",
										&d->srv.refused);
	v = query_value(c, "SELECT current_setting('random_page_cost')", NULL);
	d->srv.random_page_cost = v ? atof(v) : -1;
	free(v);
	v = query_value(c, "SELECT current_setting('seq_page_cost')", NULL);
	d->srv.seq_page_cost = v ? atof(v) : -1;
	free(v);
	d->srv.wal_sync_method = query_value(c, "SELECT current_setting('wal_sync_method')", NULL);
	if (d->reads)
	{
		if (d->datadir == NULL)
			d->datadir = d->srv.data_directory;
		if (d->datadir == NULL)
		{
			*cause = xasprintf("the server did not give its data directory: %s (it needs "
							   "superuser or pg_read_all_settings); give --pgdata=DIR instead",
							   d->srv.refused);
			PQfinish(c);
			return false;
		}
		/* the largest relations of this database, each with all its segments */
		r = PQexec(c, "SELECT pg_relation_filepath(c.oid) FROM pg_class c "
				   "WHERE c.relkind IN ('r', 'i', 't', 'm') AND c.relpersistence <> 't' "
				   "AND pg_relation_filepath(c.oid) IS NOT NULL "
				   "ORDER BY pg_relation_size(c.oid) DESC, c.oid LIMIT 64");
		if (PQresultStatus(r) != PGRES_TUPLES_OK)
		{
			char	   *why = server_words(r);

			*cause = xasprintf("could not list the relation files: %s", why);
			free(why);
			PQclear(r);
			PQfinish(c);
			return false;
		}
		for (int i = 0; i < PQntuples(r); i++)
			for (int seg = 0;; seg++)
			{
				strbuf		p;
				struct stat st;
				bool		there;

				strbuf_init(&p);
				strbuf_printf(&p, "%s/%s", d->datadir, PQgetvalue(r, i, 0));
				if (seg > 0)
					strbuf_printf(&p, ".%d", seg);
				there = stat(p.data, &st) == 0;
				if (there)
					add_file(d, p.data);
				strbuf_free(&p);
				if (!there)
					break;
			}
		PQclear(r);
	}
	PQfinish(c);
	return true;
}

/* Open every file read-only, O_DIRECT when the filesystem allows it. */
static bool
open_files(pgdisk *d, char **cause)
{
	d->direct = true;
	for (int i = 0; i < d->nfiles; i++)
	{
		pgdisk_file *f = &d->files[i];
		int			flags = O_RDONLY | O_CLOEXEC | O_NOATIME;

		if (d->direct)
			flags |= O_DIRECT;
		f->fd = open(f->path, flags);
		if (f->fd < 0 && errno == EPERM)
			f->fd = open(f->path, flags &= ~O_NOATIME);	/* not the owner */
		if (f->fd < 0 && errno == EINVAL && (flags & O_DIRECT))
		{
			struct stat st;
			char		source[256];

			d->direct = false;
			f->fd = open(f->path, flags & ~O_DIRECT);
			if (f->fd >= 0 && fstat(f->fd, &st) == 0)
				(void) io_target_mount((unsigned long) st.st_dev, d->refused_fs,
									   sizeof(d->refused_fs), source, sizeof(source));
		}
		if (f->fd < 0)
		{
			*cause = xasprintf("could not open file \"%s\" for reading: %s%s", f->path,
							   strerror(errno), errno == EACCES
							   ? " (the files must be readable by the user running pgtempo-io)" : "");
			return false;
		}
	}
	/* tmpfs takes O_DIRECT since Linux 6.6, but no read of it is a disk read */
	for (int i = 0; i < d->nfiles; i++)
	{
		struct statfs fs;

		if (fstatfs(d->files[i].fd, &fs) == 0
			&& (fs.f_type == TMPFS_MAGIC_NUMBER || fs.f_type == RAMFS_MAGIC_NUMBER))
			d->in_memory = true;
	}
	if (!d->direct)
		for (int i = 0; i < d->nfiles; i++)
		{
			int			fl = fcntl(d->files[i].fd, F_GETFL);

			if (fl >= 0 && (fl & O_DIRECT))
				fcntl(d->files[i].fd, F_SETFL, fl & ~O_DIRECT);
		}
	return true;
}

/* The file holding block b of all (binary search on first). */
static pgdisk_file *
file_of(pgdisk *d, uint64_t b)
{
	int			lo = 0,
				hi = d->nfiles - 1;

	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (d->files[mid].first <= b)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &d->files[lo];
}

/* A test's time: -w, or pg_test_fsync's. */
static uint64_t
test_limit(const pgdisk *d)
{
	return d->s->deadline_set ? (uint64_t) d->s->deadline_ns : PGDISK_DEFAULT_NS;
}

/*
 * The watchdog's cut: a request of the test running did not return by its
 * deadline or a stop signal.  Report what was measured, remove the work
 * file; the status ends the process (as ioping's: 0 at -w, 128+N).
 */
static int
cut(void *ctx, int signo, uint64_t now_ns)
{
	pgdisk	   *d = ctx;
	int			status = signo != 0 ? EXITCODE_SIGNAL(signo) : EXITCODE_OK;

	d->cur->elapsed_ns = now_ns - d->cur_start;
	if (d->work_path != NULL)
		unlink(d->work_path);
	msg_warning("a request of the %s test did not return by %s; the tests after it did not run",
				d->cur->name, signo != 0 ? "the stop signal" : "the end of its time (-w)");
	if (!report(d) && status == EXITCODE_OK)
		status = EXITCODE_ERROR;
	if (!msg_flush_stdout() && status == EXITCODE_OK)
		status = EXITCODE_ERROR;
	return status;
}

/* A test begins: its series, its start, and the watchdog holding its time. */
static io_watch *
test_begin(pgdisk *d, pgdisk_series *x)
{
	x->h = hist_new(1);
	d->cur = x;
	d->cur_start = clock_now_ns();
	return io_watch_start(test_limit(d), cut, d);
}

/* Whether the test running has done its work. */
static bool
test_done(const pgdisk *d)
{
	if (d->s->count > 0 && d->cur->h->total >= d->s->count)
		return true;
	return clock_now_ns() - d->cur_start >= test_limit(d);
}

/* The test ends: its time, and a stop signal that came meanwhile. */
static void
test_end(pgdisk *d, io_watch *w)
{
	int			signo;

	d->cur->elapsed_ns = clock_now_ns() - d->cur_start;
	signo = io_watch_end(w);
	if (signo != 0)
		stop_signal = signo;
}

/* Random or sequential 8 KiB reads over the files, timed; false with *cause on a failed read. */
static bool
run_reads(pgdisk *d, pgdisk_series *x, bool random, char **cause)
{
	uint64_t	seed = clock_now_ns();
	uint64_t	b = 0;
	io_watch   *w;
	bool		ok = true;

	x->name = random ? "random" : "sequential";
	x->writes = 1;
	x->direct = d->direct;
	/* a cold start: what the page cache holds of the files goes first */
	if (!d->direct)
		for (int i = 0; i < d->nfiles; i++)
			(void) posix_fadvise(d->files[i].fd, 0, 0, POSIX_FADV_DONTNEED);
	w = test_begin(d, x);
	while (ok && !test_done(d) && io_watch_enter(w))
	{
		pgdisk_file *f;
		off_t		off;
		uint64_t	t0;
		ssize_t		n;
		int			err;

		if (random)
			b = io_engine_random(&seed) % d->blocks;
		else if (b >= d->blocks)
			b = 0;
		f = file_of(d, b);
		off = (off_t) ((b - f->first) * PGDISK_BLOCK);
		if (random && !d->direct)
			(void) posix_fadvise(f->fd, off, PGDISK_BLOCK, POSIX_FADV_DONTNEED);
		t0 = clock_now_ns();
		n = pread(f->fd, d->buf, PGDISK_BLOCK, off);
		err = errno;
		hist_record(x->h, clock_now_ns() - t0);
		io_watch_leave(w);
		if (n < 0)
		{
			*cause = xasprintf("could not read file \"%s\": %s", f->path, strerror(err));
			ok = false;
		}
		if (!random)
			b++;
	}
	test_end(d, w);
	return ok;
}

/* ---- the sync methods ---- */

static const struct
{
	const char *name;
	int			open_flags;		/* O_DSYNC, O_SYNC or 0 */
	int			sync;			/* 0 none, 1 fdatasync, 2 fsync */
}			methods[NMETHODS] = {
	{"open_datasync", O_DSYNC, 0},
	{"fdatasync", 0, 1},
	{"fsync", 0, 2},
	{"open_sync", O_SYNC, 0},
};

/* The work file, filled to one segment and synced; false with *cause (the file removed). */
static bool
make_work_file(pgdisk *d, char **cause)
{
	int			fd;

	d->work_path = xasprintf("%s/%s", d->s->wal_sync_dir, WORK_FILE_NAME);
	fd = open(d->work_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
	{
		*cause = xasprintf("could not create work file \"%s\": %s", d->work_path, strerror(errno));
		free(d->work_path);
		d->work_path = NULL;
		return false;
	}
	for (int i = 0; i < WORK_FILE_SIZE / PGDISK_BLOCK; i++)
		if (write(fd, d->buf, PGDISK_BLOCK) != PGDISK_BLOCK)
		{
			*cause = xasprintf("could not write work file \"%s\": %s", d->work_path,
							   errno ? strerror(errno) : "short write");
			close(fd);
			return false;
		}
	if (fsync(fd) != 0)
	{
		*cause = xasprintf("could not fsync work file \"%s\": %s", d->work_path, strerror(errno));
		close(fd);
		return false;
	}
	close(fd);
	return true;
}

/* One method, writes per sync: each operation's writes and its sync, timed. */
static bool
run_sync(pgdisk *d, pgdisk_series *x, int m, int writes, char **cause)
{
	int			flags = O_RDWR | O_CLOEXEC | methods[m].open_flags;
	int			fd;
	io_watch   *w;
	bool		ok = true;

	x->name = methods[m].name;
	x->writes = writes;
	/* the open_* methods with direct I/O where it works, as pg_test_fsync */
	fd = -1;
	if (methods[m].open_flags != 0)
	{
		fd = open(d->work_path, flags | O_DIRECT);
		x->direct = fd >= 0;
	}
	if (fd < 0)
		fd = open(d->work_path, flags);
	if (fd < 0)
	{
		*cause = xasprintf("could not open work file \"%s\": %s", d->work_path, strerror(errno));
		return false;
	}
	w = test_begin(d, x);
	while (ok && !test_done(d) && io_watch_enter(w))
	{
		uint64_t	t0 = clock_now_ns();
		int			err;

		errno = 0;
		for (int i = 0; i < writes && ok; i++)
			ok = pwrite(fd, d->buf, PGDISK_BLOCK, (off_t) i * PGDISK_BLOCK) == PGDISK_BLOCK;
		if (ok && methods[m].sync == 1)
			ok = fdatasync(fd) == 0;
		else if (ok && methods[m].sync == 2)
			ok = fsync(fd) == 0;
		err = errno;
		hist_record(x->h, clock_now_ns() - t0);
		io_watch_leave(w);
		if (!ok)
			*cause = xasprintf("%s on work file \"%s\" failed: %s", methods[m].name,
							   d->work_path, err ? strerror(err) : "short write");
	}
	test_end(d, w);
	close(fd);
	return ok;
}

/* ---- the report ---- */

static const double pcts[] = {50, 90, 99, 99.9};
static const char *const pct_names[] = {"p50", "p90", "p99", "p99.9"};

/* One series' line: count, ops/s, min, mean, percentiles, max. */
static void
text_series(FILE *out, const char *label, const pgdisk_series *x)
{
	char		b[IOFMT_MAX];

	if (x->h == NULL)
	{
		fprintf(out, "  %-32s not run (stopped)\n", label);
		return;
	}
	fprintf(out, "  %-32s %8llu ops %9.1f ops/s", label,
			(unsigned long long) x->h->total, pgdisk_ops(x));
	if (x->h->total == 0)
	{
		fputc('\n', out);
		return;
	}
	fprintf(out, "  min %s", iofmt_time(b, x->h->min));
	fprintf(out, "  mean %s", iofmt_time(b, (uint64_t) hist_mean(x->h)));
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		fprintf(out, "  %s %s", pct_names[i], iofmt_time(b, hist_percentile(x->h, pcts[i])));
	fprintf(out, "  max %s\n", iofmt_time(b, x->h->max));
}

/* The read test in words. */
static void
text_reads(FILE *out, const pgdisk *d)
{
	char		b[IOFMT_MAX];
	double		ratio = pgdisk_ratio(&d->random, &d->seq);

	fprintf(out, "8 KiB reads over %d relation files (%s) in %s, read-only, %s\n",
			d->nfiles, iofmt_size(b, d->blocks * PGDISK_BLOCK), d->datadir,
			d->direct ? "direct I/O" : "buffered I/O");
	if (!d->direct)
		fprintf(out, "  direct I/O (O_DIRECT) is not available on this file system (%s): the reads\n"
				"  are buffered instead and may come from the page cache (each random read is\n"
				"  preceded by posix_fadvise(DONTNEED) on its block)\n",
				d->refused_fs[0] ? d->refused_fs : "unknown");
	if (d->in_memory)
		fprintf(out, "  the files are in memory (tmpfs or ramfs): no read here is a disk read\n");
	text_series(out, "random", &d->random);
	text_series(out, "sequential", &d->seq);
	if (ratio > 0)
	{
		fprintf(out, "random/sequential mean time per page: %.2f", ratio);
		if (d->srv.random_page_cost >= 0 && d->srv.seq_page_cost > 0)
			fprintf(out, " (the server's random_page_cost %g / seq_page_cost %g = %.2f)\n",
					d->srv.random_page_cost, d->srv.seq_page_cost,
					d->srv.random_page_cost / d->srv.seq_page_cost);
		else
			fprintf(out, " (random_page_cost: not known without a connection)\n");
		fprintf(out, "  The planner's random_page_cost says how much dearer a page read at random\n"
				"  is than one read in order.  This ratio is that figure for these files on\n"
				"  this storage on a cache miss.  It cannot tell how many reads the server's\n"
				"  shared buffers and the page cache answer without the disk (on a cached\n"
				"  database both costs are near each other), nor read-ahead's gain for a\n"
				"  large scan%s.\n", d->direct ? " (direct I/O has none)" : "");
	}
}

/* The sync test in words. */
static void
text_syncs(FILE *out, const pgdisk *d)
{
	const char *fav = pgdisk_favoured(d->sync, d->nsync);

	fprintf(out, "8 KiB writes and their sync in %s (each operation: its writes, then the sync)\n",
			d->work_path);
	for (int i = 0; i < d->nsync; i++)
	{
		char		label[64];

		snprintf(label, sizeof(label), "%s, %d write%s%s", d->sync[i].name, d->sync[i].writes,
				 d->sync[i].writes > 1 ? "s" : "", d->sync[i].direct ? ", direct" : "");
		text_series(out, label, &d->sync[i]);
	}
	if (fav != NULL)
		fprintf(out, "the numbers favour %s (the lowest median with one write per sync)%s%s\n",
				fav, d->srv.wal_sync_method ? "; the server's wal_sync_method: " : "",
				d->srv.wal_sync_method ? d->srv.wal_sync_method : "");
}

/* A series as a JSON object. */
static void
json_series(json_writer *w, const pgdisk_series *x)
{
	json_object_begin(w);
	json_kv_string(w, "name", x->name);
	json_kv_int(w, "writes_per_sync", x->writes);
	json_kv_bool(w, "direct_io", x->direct);
	if (x->h != NULL)
	{
		json_kv_uint(w, "count", x->h->total);
		json_kv_double(w, "seconds", (double) x->elapsed_ns / 1e9);
		json_kv_double(w, "ops_per_sec", pgdisk_ops(x));
		json_key(w, "latency_ns");
		suiteout_json_latency(w, x->h);
	}
	json_object_end(w);
}

/* The whole report as one JSON document, into sb. */
static void
json_report(const pgdisk *d, strbuf *sb)
{
	json_writer w;

	strbuf_init(sb);
	json_init(&w, sb, true);
	json_object_begin(&w);
	json_kv_string(&w, "tool", "pgtempo-io");
	json_key(&w, "server");
	if (!d->srv.asked)
		json_null(&w);
	else
	{
		json_object_begin(&w);
		json_kv_string(&w, "data_directory", d->srv.data_directory);
		json_kv_double_or_null(&w, "random_page_cost", d->srv.random_page_cost >= 0,
							   d->srv.random_page_cost);
		json_kv_double_or_null(&w, "seq_page_cost", d->srv.seq_page_cost >= 0,
							   d->srv.seq_page_cost);
		json_kv_string(&w, "wal_sync_method", d->srv.wal_sync_method);
		json_object_end(&w);
	}
	json_key(&w, "reads");
	if (!d->reads)
		json_null(&w);
	else
	{
		double		ratio = pgdisk_ratio(&d->random, &d->seq);

		json_object_begin(&w);
		json_kv_string(&w, "data_directory", d->datadir);
		json_kv_int(&w, "files", d->nfiles);
		json_kv_uint(&w, "bytes", d->blocks * PGDISK_BLOCK);
		json_kv_bool(&w, "direct_io", d->direct);
		json_kv_string(&w, "direct_io_refused_by", d->direct ? NULL
					   : d->refused_fs[0] ? d->refused_fs : "unknown");
		json_kv_bool(&w, "in_memory", d->in_memory);
		json_key(&w, "random");
		json_series(&w, &d->random);
		json_key(&w, "sequential");
		json_series(&w, &d->seq);
		json_kv_double_or_null(&w, "random_sequential_ratio", ratio > 0, ratio);
		json_object_end(&w);
	}
	json_key(&w, "syncs");
	if (!d->syncs)
		json_null(&w);
	else
	{
		const char *fav = pgdisk_favoured(d->sync, d->nsync);

		json_object_begin(&w);
		json_kv_string(&w, "work_file", d->work_path);
		json_key(&w, "methods");
		json_array_begin(&w);
		for (int i = 0; i < d->nsync; i++)
			json_series(&w, &d->sync[i]);
		json_array_end(&w);
		json_kv_string(&w, "favoured", fav);
		json_object_end(&w);
	}
	json_object_end(&w);
	strbuf_putc(sb, '\n');
}

/* The tests that ran or were to run, as --metrics and --chart take them; their number. */
static int
dists_of(const pgdisk *d, io_dist *out)
{
	const pgdisk_series *x[2 + NMETHODS * 2];
	int			n = 0,
				k = 0;

	if (d->reads)
	{
		x[n++] = &d->random;
		x[n++] = &d->seq;
	}
	for (int i = 0; i < d->nsync; i++)
		x[n++] = &d->sync[i];
	for (int i = 0; i < n; i++)
	{
		if (x[i]->name == NULL)
			continue;			/* stopped before it began */
		out[k].test = i < 2 && d->reads ? "read" : "wal_sync";
		out[k].method = x[i]->name;
		out[k].writes = x[i]->writes;
		out[k].direct = x[i]->direct;
		out[k].h = x[i]->h;
		out[k].ops_per_sec = pgdisk_ops(x[i]);
		out[k].seconds = (double) x[i]->elapsed_ns / 1e9;
		k++;
	}
	return k;
}

/* --metrics: the tests' families, the ratio and the server's settings beside. */
static bool
write_metrics(const pgdisk *d, const io_dist *dist, int n)
{
	metrics		m;
	double		ratio = pgdisk_ratio(&d->random, &d->seq);

	metrics_init(&m);
	suiteout_metrics_dists(&m, dist, n);
	if (ratio > 0)
		metrics_gauge(&m, "pgtempo_io_pg_random_sequential_ratio",
					  "Mean time of a random 8 KiB read over that of a sequential one.", NULL, ratio);
	if (d->srv.random_page_cost >= 0)
		metrics_gauge(&m, "pgtempo_io_pg_random_page_cost", "The server's random_page_cost.",
					  NULL, d->srv.random_page_cost);
	if (d->srv.seq_page_cost >= 0)
		metrics_gauge(&m, "pgtempo_io_pg_seq_page_cost", "The server's seq_page_cost.",
					  NULL, d->srv.seq_page_cost);
	if (d->srv.wal_sync_method != NULL)
		metrics_info(&m, "pgtempo_io_pg_wal_sync_method_info", "The server's wal_sync_method.",
					 (const char *[]) {"method", d->srv.wal_sync_method, NULL});
	return suiteout_metrics_publish(d->s->metrics_path, &m);
}

/* --chart: the distribution of each test, on one scale. */
static bool
write_chart(const pgdisk *d, const io_dist *dist, int n)
{
	strbuf		sb;
	strbuf		sub;
	bool		ok;

	strbuf_init(&sb);
	strbuf_init(&sub);
	if (d->reads)
		strbuf_printf(&sub, "reads over the relation files in %s (%s)", d->datadir,
					  d->direct ? "direct I/O" : "buffered I/O");
	if (d->syncs)
		strbuf_printf(&sub, "%swrites and syncs in %s", d->reads ? "; " : "", d->work_path);
	iochart_render_dists(sub.data, dist, n, &sb);
	strbuf_free(&sub);
	ok = suiteout_publish(d->s->chart_path, &sb);
	return ok;
}

/* The report: text or the JSON document on stdout, the files beside; false if a write failed. */
static bool
report(const pgdisk *d)
{
	const io_settings *s = d->s;
	strbuf		doc;
	io_dist		dist[2 + NMETHODS * 2];
	int			n = dists_of(d, dist);
	bool		ok = true;

	json_report(d, &doc);
	if (s->json)
		fputs(doc.data, stdout);
	else
	{
		if (d->reads)
			text_reads(stdout, d);
		if (d->syncs)
			text_syncs(stdout, d);
	}
	if (s->json_path != NULL)
		ok = suiteout_publish(s->json_path, &doc);
	else
		strbuf_free(&doc);
	if (s->metrics_path != NULL && !write_metrics(d, dist, n))
		ok = false;
	if (s->chart_path != NULL && !write_chart(d, dist, n))
		ok = false;
	return ok;
}

/* The tests asked for; false with *cause. */
static bool
run_tests(pgdisk *d, char **cause)
{
	const io_settings *s = d->s;

	if (s->pg && !ask_server(d, cause))
		return false;
	if (d->reads && stop_signal == 0)
	{
		if (!s->pg && !scan_pgdata(d, cause))
			return false;
		if (d->nfiles == 0)
		{
			*cause = xasprintf("no relation files of at least 8 KiB found in \"%s\"", d->datadir);
			return false;
		}
		if (!open_files(d, cause) || !run_reads(d, &d->random, true, cause))
			return false;
		if (stop_signal == 0 && !run_reads(d, &d->seq, false, cause))
			return false;
	}
	if (d->syncs && stop_signal == 0)
	{
		if (!make_work_file(d, cause))
			return false;
		for (int writes = 1; writes <= 2 && stop_signal == 0; writes++)
			for (int m = 0; m < NMETHODS && stop_signal == 0; m++)
				if (!run_sync(d, &d->sync[d->nsync++], m, writes, cause))
					return false;
	}
	return true;
}

int
pgdisk_run(const io_settings *s)
{
	pgdisk		d;
	char	   *cause = NULL;
	int			status = EXITCODE_OK;

	memset(&d, 0, sizeof(d));
	d.s = s;
	d.datadir = s->pgdata;
	d.reads = s->pgdata != NULL || (s->pg && s->wal_sync_dir == NULL);
	d.syncs = s->wal_sync_dir != NULL;
	if (!suiteout_check(s))
		return EXITCODE_ERROR;	/* an output file cannot be written: before any test */
	if (posix_memalign(&d.buf, 4096, PGDISK_BLOCK) != 0)
	{
		msg_error("out of memory");
		return EXITCODE_ERROR;
	}
	memset(d.buf, 0x5a, PGDISK_BLOCK);
	signals_catch_stop(on_stop, 0);
	if (!run_tests(&d, &cause))
		status = IO_EXIT_PREPARATION;
	else if (stop_signal != 0)
		status = EXITCODE_SIGNAL(stop_signal);
	if (d.work_path != NULL)
		unlink(d.work_path);
	if (cause != NULL)
	{
		msg_error("%s", cause);
		free(cause);
	}
	else if (!report(&d) && status == EXITCODE_OK)
		status = EXITCODE_ERROR;
	if (!msg_flush_stdout() && status == EXITCODE_OK)
		status = EXITCODE_ERROR;
	for (int i = 0; i < d.nfiles; i++)
	{
		if (d.files[i].fd >= 0)
			close(d.files[i].fd);
		free(d.files[i].path);
	}
	free(d.files);
	free(d.random.h);
	free(d.seq.h);
	for (int i = 0; i < d.nsync; i++)
		free(d.sync[i].h);
	free(d.work_path);
	free(d.srv.data_directory);
	free(d.srv.refused);
	free(d.srv.wal_sync_method);
	free(d.buf);
	return status;
}
