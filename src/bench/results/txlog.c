/*
 * txlog.c — the transaction logs of -l, in pgbench's formats.
 *
 * Per transaction (pgbench 15):
 *   client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
 * with "skipped", "failed" (or with --failures-detailed "serialization",
 * "deadlock", "other") in place of time; schedule_lag with -R, retries
 * with --max-tries other than 1.
 *
 * Per interval (--aggregate-interval, pgbench 15's fixed 15 columns):
 *   interval_start count lat_sum lat_sum2 lat_min lat_max
 *   lag_sum lag_sum2 lag_min lag_max skipped retried retries
 *   serialization_failures deadlock_failures
 * then other_failures with --continue-on-error (the newest pgbench's 16th
 * column), then the script number with --aggregate-per-script (ours).
 * Columns that do not apply to the options are 0, as in pgbench.
 *
 * Lines are formatted into a fixed buffer; a line is only started when
 * the longest line still fits, so the buffer always ends on a line
 * boundary and a flush never splits a line.  The buffer goes to the file
 * when it is full and at least once a second (TXLOG_FLUSH_NS), so that a
 * kill -9 or a crash loses at most the last second of lines.  A write
 * that fails half-way (a full disk) is cut back to its last whole line.
 */
#include "config.h"

#include "txlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtempo/clock.h"
#include "pgtempo/fmt.h"
#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

#define TXLOG_BUF_SIZE		(64 * 1024)
/* Longest per-transaction line: 8 numbers of at most 20 digits, spaces, " warmup", newline. */
#define TXLOG_TX_LINE_MAX	192
/* Longest aggregate line: 17 columns, a double printed by %.0f has at most 309 digits. */
#define TXLOG_AGG_LINE_MAX	4096
/* The longest a line waits in the buffer (while transactions end or the timer ticks). */
#define TXLOG_FLUSH_NS		NS_PER_S

/* One interval's counts (times in whole microseconds, as pgbench keeps them). */
typedef struct txlog_agg
{
	int64_t		cnt;
	int64_t		skipped;
	int64_t		retried;
	int64_t		retries;
	int64_t		serialization;
	int64_t		deadlock;
	int64_t		other;
	double		lat_sum,
				lat_sum2,
				lat_min,
				lat_max;
	double		lag_sum,
				lag_sum2,
				lag_min,
				lag_max;
} txlog_agg;

struct txlog
{
	int			fd;
	char	   *path;
	int64_t		epoch_shift_ns;

	/* what the options put in the lines */
	bool		with_lag;		/* -R */
	bool		with_skipped;	/* -R with -L */
	bool		with_retries;	/* --max-tries other than 1 */
	bool		detailed;		/* --failures-detailed */
	bool		with_other;		/* --continue-on-error: the other_failures column */
	double		sampling_rate;	/* 0: every transaction */
	prng_state	sample_rs;

	/* --aggregate-interval */
	uint64_t	interval_ns;	/* 0: a line per transaction */
	bool		begun;			/* intervals are counted from agg_start */
	uint64_t	agg_start;		/* current interval, monotonic */
	int64_t		agg_start_s;	/* the same as a Unix time, whole seconds */
	bool		per_script;		/* --aggregate-per-script */
	int			nagg;			/* 1, or the number of scripts with --aggregate-per-script */
	txlog_agg  *agg;
	txlog_agg  *warm_agg;		/* --warmup: the warm-up's transactions */

	/* --warmup: where the measured part starts (0: no warm-up; UINT64_MAX: not known yet) */
	uint64_t	measure_from;

	/* the Unix second of the last line, formatted: it rarely changes */
	uint64_t	sec;
	size_t		sec_len;
	char		sec_str[24];

	/* output */
	uint64_t	flush_due;		/* per-transaction lines: write the buffer at this time */
	bool		failed;			/* a write failed: everything from then on is lost */
	int64_t		lost;
	int64_t		nlines;			/* lines in buf */
	int64_t		last_flushed;	/* lines the last write(2) took */
	off_t		written;		/* bytes in the file */
	size_t		len;
	char		buf[TXLOG_BUF_SIZE];
};

/* Nanoseconds to whole microseconds, rounded to the nearest. */
static inline uint64_t
ns_to_us(uint64_t ns)
{
	return (ns + 500) / 1000;
}

/* Report the first write error; the lines of buf not fully written are lost. */
static void
write_failed(txlog *l, int err, size_t done)
{
	size_t		complete = 0;
	int64_t		written_lines = 0;

	for (size_t i = 0; i < done; i++)
	{
		if (l->buf[i] == '\n')
		{
			written_lines++;
			complete = i + 1;
		}
	}
	/*
	 * A partial write (a disk that filled up) may have left half a line:
	 * cut the file back to its last whole line.  Devices cannot be
	 * truncated; nothing reached them anyway.
	 */
	if (complete < done)
	{
		int			rc = ftruncate(l->fd, l->written + (off_t) complete);

		(void) rc;
	}
	l->written += (off_t) complete;
	msg_error("could not write to log file \"%s\": %s", l->path, strerror(err));
	l->failed = true;
	l->lost += l->nlines - written_lines;
	l->len = 0;
	l->nlines = 0;
}

/* Write the buffer to the file. */
static void
flush(txlog *l)
{
	size_t		off = 0;

	while (off < l->len)
	{
		ssize_t		n = write(l->fd, l->buf + off, l->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
		{
			write_failed(l, n < 0 ? errno : ENOSPC, off);
			return;
		}
		off += (size_t) n;
	}
	l->written += (off_t) l->len;
	l->last_flushed = l->nlines;
	l->len = 0;
	l->nlines = 0;
}

/* The once-a-second write of per-transaction lines. */
static void
flush_now(txlog *l, uint64_t now_ns)
{
	if (l->len > 0 && !l->failed)
		flush(l);
	l->flush_due = now_ns + TXLOG_FLUSH_NS;
}

/* Room for a line of at most max bytes at the end of the buffer. */
static inline char *
line_start(txlog *l, size_t max)
{
	if (TXLOG_BUF_SIZE - l->len < max)
		flush(l);
	return l->buf + l->len;
}

static inline void
line_end(txlog *l, char *end)
{
	l->len = (size_t) (end - l->buf);
	l->nlines++;
}

/* --warmup: the field that marks a line of the warm-up. */
static inline char *
put_warm(char *p)
{
	memcpy(p, " warmup", 7);
	return p + 7;
}

static void
simple_add(double *sum, double *sum2, double *min, double *max, int64_t n, double v)
{
	if (n == 0 || v < *min)
		*min = v;
	if (n == 0 || v > *max)
		*max = v;
	*sum += v;
	*sum2 += v * v;
}

static void
agg_add(txlog *l, txlog_agg *a, stats_outcome outcome, uint64_t latency_ns, uint64_t lag_ns,
		uint32_t retries)
{
	if (outcome == STATS_SKIPPED)
	{
		/* never started: no time, no tries */
		a->skipped++;
		return;
	}
	if (retries > 0)
	{
		a->retried++;
		a->retries += retries;
	}
	switch (outcome)
	{
		case STATS_OK:
			simple_add(&a->lat_sum, &a->lat_sum2, &a->lat_min, &a->lat_max, a->cnt,
					   (double) ns_to_us(latency_ns));
			if (l->with_lag)
				simple_add(&a->lag_sum, &a->lag_sum2, &a->lag_min, &a->lag_max, a->cnt,
						   (double) ns_to_us(lag_ns));
			a->cnt++;
			break;
		case STATS_SERIALIZATION:
			a->serialization++;
			break;
		case STATS_DEADLOCK:
			a->deadlock++;
			break;
		case STATS_OTHER:
			a->other++;
			break;
		case STATS_SKIPPED:
			break;
	}
}

/* The interval's line of a (script i's with --aggregate-per-script). */
static void
agg_line(txlog *l, const txlog_agg *a, int i, bool warm)
{
	char	   *p;
	int			n;

	if (l->failed)
	{
		l->lost++;
		return;
	}
	p = line_start(l, TXLOG_AGG_LINE_MAX);
	if (l->failed)
	{
		l->lost++;
		return;
	}
	n = snprintf(p, TXLOG_AGG_LINE_MAX,
				 "%lld %lld %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %lld %lld %lld %lld %lld",
				 (long long) l->agg_start_s, (long long) a->cnt,
				 a->lat_sum, a->lat_sum2, a->lat_min, a->lat_max,
				 l->with_lag ? a->lag_sum : 0.0, l->with_lag ? a->lag_sum2 : 0.0,
				 l->with_lag ? a->lag_min : 0.0, l->with_lag ? a->lag_max : 0.0,
				 (long long) (l->with_skipped ? a->skipped : 0),
				 (long long) (l->with_retries ? a->retried : 0),
				 (long long) (l->with_retries ? a->retries : 0),
				 (long long) (l->detailed ? a->serialization : 0),
				 (long long) (l->detailed ? a->deadlock : 0));
	p += n;
	if (l->with_other)
	{
		*p++ = ' ';
		p = fmt_i64(p, l->detailed ? a->other : 0);
	}
	if (l->per_script)
	{
		*p++ = ' ';
		p = fmt_i64(p, i);
	}
	if (warm)
		p = put_warm(p);
	*p++ = '\n';
	line_end(l, p);
}

/* Whether an interval's counts hold any transaction. */
static bool
agg_any(const txlog_agg *a)
{
	return a->cnt + a->skipped + a->serialization + a->deadlock + a->other > 0;
}

/*
 * Write the current interval's line(s), then start the next interval:
 * with --warmup, the warm-up's and the measured part's (see txlog.h).
 */
static void
agg_emit(txlog *l)
{
	bool		in_warmup = l->agg_start < l->measure_from;
	bool		in_measured = l->measure_from != UINT64_MAX &&
		l->agg_start + l->interval_ns > l->measure_from;

	for (int i = 0; i < l->nagg; i++)
	{
		if (in_warmup || agg_any(&l->warm_agg[i]))
			agg_line(l, &l->warm_agg[i], i, true);
		if (in_measured)
			agg_line(l, &l->agg[i], i, false);
	}
	memset(l->agg, 0, sizeof(txlog_agg) * (size_t) l->nagg);
	memset(l->warm_agg, 0, sizeof(txlog_agg) * (size_t) l->nagg);
	l->agg_start += l->interval_ns;
	l->agg_start_s += (int64_t) (l->interval_ns / NS_PER_S);
}

/* Write every interval that ended at or before now_ns; true if one was written. */
static bool
agg_catch_up(txlog *l, uint64_t now_ns)
{
	bool		any = false;

	while (now_ns >= l->agg_start + l->interval_ns)
	{
		agg_emit(l);
		any = true;
	}
	return any;
}

/*
 * Intervals start at the benchmark's start rounded down to a whole Unix
 * second, as in pgbench: the times written are then exact.
 */
static void
agg_reset(txlog *l, uint64_t start_ns)
{
	int64_t		wall_ns = (int64_t) start_ns + l->epoch_shift_ns;
	int64_t		wall_s = wall_ns >= 0 ? wall_ns / (int64_t) NS_PER_S : 0;

	l->agg_start_s = wall_s;
	l->agg_start = (uint64_t) (wall_s * (int64_t) NS_PER_S - l->epoch_shift_ns);
	memset(l->agg, 0, sizeof(txlog_agg) * (size_t) l->nagg);
	memset(l->warm_agg, 0, sizeof(txlog_agg) * (size_t) l->nagg);
}

txlog *
txlog_open(const bench_settings *s, int thread_no, uint64_t start_ns, int64_t epoch_shift_ns)
{
	const char *prefix = s->log_prefix != NULL ? s->log_prefix : "pgbench_log";
	char	   *path;
	int			fd;
	txlog	   *l;
	prng_state	base = s->base;
	prng_state	rs;

	if (thread_no == 0)
		path = xasprintf("%s.%d", prefix, (int) getpid());
	else
		path = xasprintf("%s.%d.%d", prefix, (int) getpid(), thread_no);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
	{
		msg_error("could not open logfile \"%s\": %s", path, strerror(errno));
		free(path);
		return NULL;
	}

	l = xcalloc(1, sizeof(txlog));
	l->fd = fd;
	l->path = path;
	l->epoch_shift_ns = epoch_shift_ns;
	l->with_lag = s->rate > 0;
	l->with_skipped = s->rate > 0 && s->latency_limit_ns > 0;
	l->with_retries = s->max_tries != 1;
	l->detailed = s->failures_detailed;
	l->with_other = s->continue_on_error;
	l->sampling_rate = s->agg_interval > 0 ? 0.0 : s->sampling_rate;
	l->measure_from = s->warmup != WARMUP_NONE ? UINT64_MAX : 0;

	/* until txlog_begin() says otherwise: a state of its own per thread */
	for (int i = 0; i <= thread_no; i++)
		prng_derive(&base, &rs);
	l->sample_rs = rs;

	l->interval_ns = (uint64_t) (s->agg_interval > 0 ? s->agg_interval : 0) * NS_PER_S;
	if (l->interval_ns > 0)
	{
		l->per_script = s->agg_per_script;
		l->nagg = s->agg_per_script ? s->nscripts : 1;
		l->agg = xcalloc((size_t) l->nagg, sizeof(txlog_agg));
		l->warm_agg = xcalloc((size_t) l->nagg, sizeof(txlog_agg));
		agg_reset(l, start_ns);
	}
	return l;
}

void
txlog_begin(txlog *l, uint64_t bench_start_ns, const prng_state *sample_rs)
{
	if (sample_rs != NULL)
		l->sample_rs = *sample_rs;
	if (l->interval_ns > 0)
		agg_reset(l, bench_start_ns);
	l->flush_due = bench_start_ns + TXLOG_FLUSH_NS;
	l->begun = true;
}

/* A transaction line's latency field: the latency in us, or what became of the transaction. */
static char *
put_latency(const txlog *l, char *p, stats_outcome outcome, uint64_t latency_ns)
{
	const char *word = "failed";
	size_t		n;

	switch (outcome)
	{
		case STATS_OK:
			return fmt_u64(p, ns_to_us(latency_ns));
		case STATS_SKIPPED:
			word = "skipped";
			break;
		case STATS_SERIALIZATION:
			word = l->detailed ? "serialization" : word;
			break;
		case STATS_DEADLOCK:
			word = l->detailed ? "deadlock" : word;
			break;
		case STATS_OTHER:
			word = l->detailed ? "other" : word;
			break;
	}
	n = strlen(word);
	memcpy(p, word, n);
	return p + n;
}

void
txlog_tx(txlog *l, int client_id, int64_t tx_no, int script_no, stats_outcome outcome,
		 uint64_t latency_ns, uint64_t lag_ns, uint32_t retries, uint64_t now_ns, bool warm)
{
	char	   *p;
	uint64_t	epoch_us,
				sec;

	l->begun = true;
	if (l->interval_ns > 0)
	{
		if (agg_catch_up(l, now_ns) && !l->failed)
			flush(l);
		agg_add(l, &(warm ? l->warm_agg : l->agg)[l->per_script ? script_no : 0], outcome,
				latency_ns, lag_ns, retries);
		return;
	}

	/* pgbench draws for every transaction and logs it unless the draw is above the rate */
	if (l->sampling_rate != 0.0 && prng_double(&l->sample_rs) > l->sampling_rate)
		return;
	if (l->failed)
	{
		l->lost++;
		return;
	}
	p = line_start(l, TXLOG_TX_LINE_MAX);
	if (l->failed)
	{
		l->lost++;
		return;
	}

	p = fmt_i64(p, client_id);
	*p++ = ' ';
	/* pgbench counts the transaction it logs: the first one is 1 */
	p = fmt_i64(p, tx_no + 1);
	*p++ = ' ';
	p = put_latency(l, p, outcome, latency_ns);
	*p++ = ' ';
	p = fmt_i64(p, script_no);
	*p++ = ' ';
	epoch_us = (int64_t) now_ns + l->epoch_shift_ns > 0
		? ((uint64_t) ((int64_t) now_ns + l->epoch_shift_ns)) / NS_PER_US : 0;
	sec = epoch_us / 1000000;
	if (sec != l->sec || l->sec_len == 0)
	{
		l->sec = sec;
		l->sec_len = (size_t) (fmt_u64(l->sec_str, sec) - l->sec_str);
	}
	/* a fixed-size copy is a few moves; the line has room to spare */
	memcpy(p, l->sec_str, sizeof(l->sec_str));
	p += l->sec_len;
	*p++ = ' ';
	p = fmt_u64(p, epoch_us - sec * 1000000);
	/* as pgbench: no lag unless the transaction succeeded, no retries if it never ran */
	if (l->with_lag)
	{
		*p++ = ' ';
		p = fmt_u64(p, outcome == STATS_OK ? ns_to_us(lag_ns) : 0);
	}
	if (l->with_retries)
	{
		*p++ = ' ';
		p = fmt_u64(p, outcome == STATS_SKIPPED ? 0 : retries);
	}
	if (warm)
		p = put_warm(p);
	*p++ = '\n';
	line_end(l, p);
	if (now_ns >= l->flush_due)
		flush_now(l, now_ns);
}

void
txlog_tick(txlog *l, uint64_t now_ns)
{
	l->begun = true;
	if (l->interval_ns == 0)
	{
		/* lines of transactions that ended a while ago, while none ends now */
		if (now_ns >= l->flush_due)
			flush_now(l, now_ns);
		return;
	}
	/* an interval goes to the file when it ends, for whoever follows the log */
	if (agg_catch_up(l, now_ns) && !l->failed)
		flush(l);
}

uint64_t
txlog_next_tick(const txlog *l)
{
	if (!l->begun)
		return 0;
	if (l->interval_ns == 0)
		return l->flush_due;
	return l->agg_start + l->interval_ns;
}

uint64_t
txlog_tick_interval(const txlog *l)
{
	return l->interval_ns > 0 ? l->interval_ns : TXLOG_FLUSH_NS;
}

int64_t
txlog_close(txlog *l, uint64_t now_ns)
{
	int64_t		lost;

	if (l->interval_ns > 0 && l->begun)
	{
		agg_catch_up(l, now_ns);
		/* the last interval, cut short by the end of the run (pgbench drops it) */
		if (now_ns > l->agg_start)
			agg_emit(l);
	}
	if (!l->failed)
		flush(l);
	if (close(l->fd) != 0 && !l->failed)
	{
		/*
		 * Some file systems (NFS) report a failed write only here: the
		 * lines of the last write are the ones that may be missing.
		 */
		msg_error("could not write to log file \"%s\": %s", l->path, strerror(errno));
		l->failed = true;
		l->lost += l->last_flushed > 0 ? l->last_flushed : 1;
	}
	/* after the first error nothing more was written: the lost lines are the last ones */
	if (l->lost > 0)
		msg_error("could not write the last %lld line(s) of log file \"%s\"",
				  (long long) l->lost, l->path);
	lost = l->lost;
	free(l->agg);
	free(l->warm_agg);
	free(l->path);
	free(l);
	return lost;
}

void
txlog_measure_from(txlog *l, uint64_t start_ns)
{
	l->measure_from = start_ns;
}

const char *
txlog_path(const txlog *l)
{
	return l->path;
}
