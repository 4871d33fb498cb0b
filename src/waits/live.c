/*
 * live.c — the live view.
 *
 * One view per process, so its state is file-level: the crash handler
 * and the atexit handler must find it.
 */
#include "config.h"

#include "live.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <term.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "pgtempo/clock.h"
#include "pgtempo/signals.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/utf8.h"
#include "pgtempo/xalloc.h"

#include "format.h"
#include "report_heads.h"

static const wprof_dim group_cycle[] = {
	WPROF_DIM_EVENT, WPROF_DIM_PID, WPROF_DIM_QUERY, WPROF_DIM_DB,
	WPROF_DIM_USER, WPROF_DIM_APP, WPROF_DIM_BACKEND_TYPE
};
#define NCYCLE ((int) (sizeof(group_cycle) / sizeof(group_cycle[0])))

static struct
{
	volatile sig_atomic_t active;
	SCREEN	   *screen;
	FILE	   *tty;			/* /dev/tty when stdin/stdout are not the terminal */
	int			in_fd;
	int			out_fd;
	struct termios saved;		/* the terminal's modes before we started */
	bool		have_saved;
	char		leave[128];		/* rmcup + cnorm + sgr0, for the crash handler */
	size_t		leave_len;
	int			saved_stderr;	/* -1 when stderr is not captured */
	int			capture_fd;
	off_t		capture_seen;
	char		last_msg[200];
	bool		paused;
	bool		resized;		/* the terminal changed size: draw it all, even paused */
	int			group;			/* index in group_cycle, or -1 for the --by list */
	const waits_settings *s;
	bool		atexit_done;
} lv = {.saved_stderr = -1, .capture_fd = -1, .group = -1};

/* Copy what the program wrote to stderr while the view was up to the real stderr. */
static void
replay_capture(void)
{
	char		buf[4096];
	off_t		off = 0;
	ssize_t		n;

	if (lv.capture_fd < 0 || lv.saved_stderr < 0)
		return;
	while ((n = pread(lv.capture_fd, buf, sizeof(buf), off)) > 0)
	{
		if (write(lv.saved_stderr, buf, (size_t) n) < 0)
			break;
		off += n;
	}
}

/* Restore the terminal from a signal handler: only async-signal-safe calls. */
static void
crash_restore(int signo)
{
	if (lv.active)
	{
		if (lv.leave_len > 0 && write(lv.out_fd, lv.leave, lv.leave_len) < 0)
		{
			/* nothing more we can do */
		}
		if (lv.have_saved)
			tcsetattr(lv.out_fd, TCSANOW, &lv.saved);
		if (lv.saved_stderr >= 0)
		{
			replay_capture();
			dup2(lv.saved_stderr, STDERR_FILENO);
		}
		lv.active = 0;
	}
	signals_catch(signo, SIG_DFL, 0, NULL);
	raise(signo);
}

/* atexit: an exit() from anywhere (msg_fatal) still gives the terminal back. */
static void
on_exit_restore(void)
{
	live_end();
}

/* Is the view up?  Callers decide where messages go. */
bool
live_active(void)
{
	return lv.active != 0;
}

/* Send stderr to a temporary file while the view owns the terminal. */
static void
capture_stderr(void)
{
	char		path[] = "/tmp/pgtempo-waits-stderr.XXXXXX";
	int			fd;

	if (!isatty(STDERR_FILENO))
		return;
	fd = mkstemp(path);
	if (fd < 0)
		return;
	unlink(path);
	fflush(stderr);
	lv.saved_stderr = dup(STDERR_FILENO);
	if (lv.saved_stderr < 0 || dup2(fd, STDERR_FILENO) < 0)
	{
		close(fd);
		if (lv.saved_stderr >= 0)
			close(lv.saved_stderr);
		lv.saved_stderr = -1;
		return;
	}
	lv.capture_fd = fd;
	lv.capture_seen = 0;
}

/* Append a terminfo capability to the crash handler's escape sequence. */
static void
add_leave(const char *cap)
{
	char	   *s = tigetstr((char *) cap);
	size_t		n;

	if (s == NULL || s == (char *) -1)
		return;
	n = strlen(s);
	if (lv.leave_len + n < sizeof(lv.leave))
	{
		memcpy(lv.leave + lv.leave_len, s, n);
		lv.leave_len += n;
	}
}

/* Take over the terminal, with every way out covered before the first draw. */
bool
live_begin(const waits_settings *s, char **cause)
{
	FILE	   *in = stdin,
			   *out = stdout;
	static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
	{
		lv.tty = fopen("/dev/tty", "r+");
		if (lv.tty == NULL)
		{
			*cause = xasprintf("--top needs a terminal: could not open /dev/tty: %s",
							   strerror(errno));
			return false;
		}
		in = out = lv.tty;
	}
	lv.in_fd = fileno(in);
	lv.out_fd = fileno(out);
	lv.have_saved = tcgetattr(lv.out_fd, &lv.saved) == 0;

	/*
	 * curses writes the bytes of a name as characters only in the terminal's
	 * character set: without it, an application name or a query in UTF-8
	 * comes out as M-CM-$ and the like.  Only LC_CTYPE: numbers everywhere
	 * keep the C locale's decimal point (LC_NUMERIC stays "C").
	 */
	setlocale(LC_CTYPE, "");
	lv.screen = newterm(NULL, out, in);
	if (lv.screen == NULL)
	{
		*cause = xasprintf("--top: could not set up the terminal (TERM=%s)",
						   getenv("TERM") ? getenv("TERM") : "");
		if (lv.tty)
			fclose(lv.tty);
		lv.tty = NULL;
		return false;
	}
	set_term(lv.screen);
	lv.s = s;
	/* 'g' moves on from the grouping the run started with */
	lv.group = -1;
	for (int i = 0; i < NCYCLE && s->nby == 1; i++)
		if (group_cycle[i] == s->by[0])
			lv.group = i;
	lv.leave_len = 0;
	add_leave("rmcup");
	add_leave("cnorm");
	add_leave("sgr0");

	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		signals_catch(crash_signals[i], crash_restore, 0, NULL);
	if (!lv.atexit_done)
		atexit(on_exit_restore);
	lv.atexit_done = true;

	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	capture_stderr();
	lv.active = 1;
	clear();
	refresh();
	return true;
}

/* Give the terminal back, then replay what was written to stderr meanwhile. */
void
live_end(void)
{
	if (!lv.active)
		return;
	lv.active = 0;
	curs_set(1);
	endwin();
	delscreen(lv.screen);
	lv.screen = NULL;
	if (lv.have_saved)
		tcsetattr(lv.out_fd, TCSANOW, &lv.saved);
	if (lv.tty != NULL)
		fclose(lv.tty);
	lv.tty = NULL;
	if (lv.saved_stderr >= 0)
	{
		replay_capture();
		dup2(lv.saved_stderr, STDERR_FILENO);
		close(lv.saved_stderr);
		lv.saved_stderr = -1;
	}
	if (lv.capture_fd >= 0)
		close(lv.capture_fd);
	lv.capture_fd = -1;
}

/* The last line written to the captured stderr, for the status line. */
static void
update_last_msg(void)
{
	struct stat st;
	char		buf[512];
	off_t		from;
	ssize_t		n;
	char	   *end,
			   *start;

	if (lv.capture_fd < 0 || fstat(lv.capture_fd, &st) != 0 || st.st_size <= lv.capture_seen)
		return;
	lv.capture_seen = st.st_size;
	from = st.st_size > (off_t) sizeof(buf) - 1 ? st.st_size - (off_t) sizeof(buf) + 1 : 0;
	n = pread(lv.capture_fd, buf, sizeof(buf) - 1, from);
	if (n <= 0)
		return;
	buf[n] = '\0';
	end = buf + n;
	while (end > buf && end[-1] == '\n')
		*--end = '\0';
	start = strrchr(buf, '\n');
	start = start ? start + 1 : buf;
	n = (ssize_t) strlen(start);
	if (n > (ssize_t) sizeof(lv.last_msg) - 1)
		n = (ssize_t) sizeof(lv.last_msg) - 1;
	memcpy(lv.last_msg, start, (size_t) n);
	lv.last_msg[n] = '\0';
}

/* The dimensions the view groups by now. */
static int
current_dims(wprof_dim *dims)
{
	if (lv.group < 0)
	{
		memcpy(dims, lv.s->by, sizeof(wprof_dim) * (size_t) lv.s->nby);
		return lv.s->nby;
	}
	dims[0] = group_cycle[lv.group];
	return 1;
}

/*
 * A group's label: its column values joined, made printable (a newline or
 * an escape sequence in a name from the server would move the cursor).
 */
static void
group_label(const wprof_group *g, const report_col *cols, int ncols, char *out, size_t len)
{
	char		buf[32];
	size_t		used = 0;
	strbuf		sb;

	strbuf_init(&sb);
	out[0] = '\0';
	for (int c = 0; c < ncols && used < len; c++)
	{
		const char *v = utf8_printable(&sb, report_col_value(g, &cols[c], buf, sizeof(buf)));
		bool		event_part = cols[c].dim == WPROF_DIM_EVENT && cols[c].part == 1;
		const char *sep = c == 0 ? "" : (event_part ? ":" : " ");

		if (cols[c].dim == WPROF_DIM_PID)
			used += (size_t) snprintf(out + used, len - used, "%spid %s", sep, v);
		else
			used += (size_t) snprintf(out + used, len - used, "%s%s", sep, v[0] ? v : "-");
	}
	strbuf_free(&sb);
}

/* Fewer than 100 columns: the narrow layout, made to fit 80 x 24. */
static bool
narrow(void)
{
	return COLS < 100;
}

/* The status word of a paused view, top right. */
static void
draw_paused(void)
{
	attron(A_REVERSE);
	mvprintw(0, COLS > 10 ? COLS - 10 : 0, " PAUSED ");
	attroff(A_REVERSE);
}

/* Print a line at row y, cut to the screen's width (curses would wrap it). */
static void __attribute__((format(printf, 2, 3)))
put_line(int y, const char *fmt, ...)
{
	char		buf[512];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mvaddnstr(y, 0, buf, COLS > 1 ? COLS - 1 : 1);
}

/* A bar of width w for share frac, then the percentage. */
static void
draw_bar(int y, int x, int w, double frac)
{
	int			fill = (int) (frac * w + 0.5);

	if (w < 1)
		return;
	if (fill > w)
		fill = w;
	mvaddch(y, x, '|');
	for (int i = 0; i < w; i++)
		addch(i < fill ? '#' : ' ');
	printw("| %5.1f%%", frac * 100);
}

/* Average active sessions of a profile (as report_avg_active). */
static double
avg_active(const report_source *info, const wprof *p)
{
	if (p->ticks == 0 || info->interval_s <= 0)
		return 0;
	return (double) p->active * info->period_s / ((double) p->ticks * info->interval_s);
}

/* k as a fraction of n (0 when n is 0). */
static double
share(uint64_t k, uint64_t n)
{
	return n > 0 ? (double) k / (double) n : 0.0;
}

/* The rows of a group table: the whole run's groups, each with its share in the last second. */
static int
draw_groups(int y, int maxrows, const wprof *run, const wprof *last)
{
	wprof_dim dims[WPROF_DIM_COUNT];
	int			ndims = current_dims(dims);
	report_col	cols[REPORT_MAX_COLS];
	int			ncols = report_columns(dims, ndims, cols);
	wprof_groups gr,
				gl;
	int			labelw = narrow() ? 22 : 34;
	/* label, a space, two bars of "|" w "| 100.0%" with a space between, inside COLS - 1 */
	int			barw = (COLS - 1 - labelw - 20) / 2;
	char		label[256],
				other[256];

	if (barw < 5)
		barw = 5;
	wprof_group_by(run, dims, ndims, 0, &gr);
	wprof_group_by(last, dims, ndims, 0, &gl);
	attron(A_BOLD);
	mvprintw(y, 0, "%-*s %-*s %-*s", labelw, "", barw + 9, "LAST SECOND", barw + 9, "WHOLE RUN");
	mvprintw(y, 0, "BY");
	for (int i = 0; i < ndims; i++)
		printw(" %s", wprof_dim_name(dims[i]));
	attroff(A_BOLD);
	y++;
	for (int i = 0; i < gr.n && i < maxrows; i++)
	{
		uint64_t	lastk = 0;

		group_label(&gr.g[i], cols, ncols, label, sizeof(label));
		for (int j = 0; j < gl.n; j++)
		{
			group_label(&gl.g[j], cols, ncols, other, sizeof(other));
			if (strcmp(label, other) == 0)
			{
				lastk = gl.g[j].samples;
				break;
			}
		}
		mvprintw(y, 0, "%-*.*s", labelw, labelw, label);
		draw_bar(y, labelw + 1, barw, share(lastk, gl.total));
		draw_bar(y, labelw + 1 + barw + 10, barw, share(gr.g[i].samples, gr.total));
		y++;
	}
	if (gr.n == 0)
		mvprintw(y++, 0, "(no active backends sampled yet)");
	wprof_groups_free(&gr);
	wprof_groups_free(&gl);
	return y;
}

/* The top sessions of the run, each with its most frequent event. */
static int
draw_sessions(int y, int maxrows, const wprof *run)
{
	static const wprof_dim by_pid[] = {WPROF_DIM_PID};
	static const wprof_dim by_pid_event[] = {WPROF_DIM_PID, WPROF_DIM_EVENT};
	wprof_groups gs,
				ge;
	strbuf		name[4];
	bool		nar = narrow();
	/* narrow: every column still there, cut shorter, the event gets the rest */
	int			wpid = nar ? 7 : 8,
				wname = nar ? 8 : 12,
				wtype = nar ? 10 : 18,
				wsamp = nar ? 7 : 8,
				wpct = nar ? 5 : 6;

	for (int i = 0; i < 4; i++)
		strbuf_init(&name[i]);
	wprof_group_by(run, by_pid, 1, 0, &gs);
	wprof_group_by(run, by_pid_event, 2, 0, &ge);

	attron(A_BOLD);
	put_line(y++, "%*s%s%-*s %-*s %-*s %*s %*s  %s", wpid, "PID", nar ? " " : "  ",
			 wname, "USER", wname, nar ? "DB" : "DATABASE", wtype, nar ? "TYPE" : "BACKEND TYPE",
			 wsamp, "SAMPLES", wpct, "%", "TOP EVENT");
	attroff(A_BOLD);
	for (int i = 0; i < gs.n && i < maxrows; i++)
	{
		const wprof_key *k = &gs.g[i].key;
		char		ev[96] = "";

		for (int j = 0; j < ge.n; j++)
			if (ge.g[j].key.pid == k->pid && ge.g[j].key.backend_start_us == k->backend_start_us)
			{
				snprintf(ev, sizeof(ev), "%s:%s", ge.g[j].key.type ? ge.g[j].key.type : "-",
						 ge.g[j].key.event ? ge.g[j].key.event : "-");
				break;
			}
		/* the server's names, made printable */
		put_line(y++, "%*" PRId32 "%s%-*.*s %-*.*s %-*.*s %*" PRIu64 " %*.1f  %s",
				 wpid, k->pid, nar ? " " : "  ",
				 wname, wname, utf8_printable(&name[0], k->usename ? k->usename : "-"),
				 wname, wname, utf8_printable(&name[1], k->datname ? k->datname : "-"),
				 wtype, wtype, utf8_printable(&name[2], k->backend_type ? k->backend_type : "-"),
				 wsamp, gs.g[i].samples, wpct, 100 * share(gs.g[i].samples, gs.total),
				 utf8_printable(&name[3], ev));
	}
	for (int i = 0; i < 4; i++)
		strbuf_free(&name[i]);
	wprof_groups_free(&gs);
	wprof_groups_free(&ge);
	return y;
}

/* The top query ids of the run, with their text when collected. */
static int
draw_queries(int y, int maxrows, const wprof *run)
{
	static const wprof_dim by_query[] = {WPROF_DIM_QUERY};
	wprof_groups gq;
	int			shown = 0;
	strbuf		line,
				sb;

	strbuf_init(&line);
	strbuf_init(&sb);
	wprof_group_by(run, by_query, 1, 0, &gq);
	attron(A_BOLD);
	put_line(y++, "%20s %8s %6s  %s", "QUERY ID", "SAMPLES", "%", "QUERY");
	attroff(A_BOLD);
	for (int i = 0; i < gq.n && shown < maxrows; i++)
	{
		const char *text;

		if (gq.g[i].key.query_id == 0)
			continue;
		text = wprof_query_text(run, gq.g[i].key.query_id);
		mvprintw(y, 0, "%20" PRId64 " %8" PRIu64 " %6.1f  ", gq.g[i].key.query_id,
				 gq.g[i].samples, 100 * share(gq.g[i].samples, gq.total));
		if (text != NULL)
		{
			/* one line: breaks as spaces, other controls escaped */
			strbuf_reset(&line);
			for (int j = 0; text[j] != '\0'; j++)
				strbuf_putc(&line, text[j] == '\n' || text[j] == '\t' ? ' ' : text[j]);
			text = utf8_printable(&sb, line.data);
			for (int j = 0; text[j] != '\0' && getcurx(stdscr) < COLS - 1; j++)
				addch((unsigned char) text[j]);
		}
		y++;
		shown++;
	}
	if (shown == 0)
		put_line(y++, "%20s (no query ids: compute_query_id is off, or PostgreSQL < 14)", "");
	wprof_groups_free(&gq);
	strbuf_free(&line);
	strbuf_free(&sb);
	return y;
}

/* The top head blockers of the run: blocked seconds with their bound, and what each was doing. */
static int
draw_heads(int y, int maxrows, const report_source *info, const wprof *run)
{
	int			n;
	const heads_cell **v = heads_sorted(&run->heads, &n);
	strbuf		doing,
				pr;

	strbuf_init(&doing);
	strbuf_init(&pr);
	attron(A_BOLD);
	put_line(y++, "%7s %9s %7s %7s  %s", "HEAD", "BLOCKED s", "+-", "DIRECT", "APPLICATION, STATE,"
			 " EVENT, TRANSACTION AGE");
	attroff(A_BOLD);
	for (int i = 0; i < n && i < maxrows; i++)
	{
		strbuf_reset(&doing);
		if (v[i]->id.application_name != NULL && v[i]->id.application_name[0] != '\0')
			strbuf_printf(&doing, "%s, ", v[i]->id.application_name);
		report_head_doing(&doing, v[i]);
		put_line(y++, "%7" PRId32 " %9.2f %7.2f %7.2f  %s", v[i]->id.pid,
				 v[i]->samples * info->period_s,
				 wprof_error_s(v[i]->samples, run->active, info->period_s),
				 v[i]->direct * info->period_s, utf8_printable(&pr, doing.data));
	}
	free(v);
	strbuf_free(&doing);
	strbuf_free(&pr);
	return y;
}

/* How many rows each part of the view would fill, if it had the room. */
static void
rows_wanted(const wprof *run, int *want)
{
	static const wprof_dim by_pid[] = {WPROF_DIM_PID};
	static const wprof_dim by_query[] = {WPROF_DIM_QUERY};
	wprof_dim	dims[WPROF_DIM_COUNT];
	int			ndims = current_dims(dims);
	wprof_groups g;
	int			nq = 0;

	wprof_group_by(run, dims, ndims, 0, &g);
	want[0] = g.n > 0 ? g.n : 1;
	wprof_groups_free(&g);
	want[1] = (int) run->heads.cells.n;
	wprof_group_by(run, by_pid, 1, 0, &g);
	want[2] = g.n;
	wprof_groups_free(&g);
	wprof_group_by(run, by_query, 1, 0, &g);
	for (int i = 0; i < g.n; i++)
		nq += g.g[i].key.query_id != 0;
	wprof_groups_free(&g);
	want[3] = nq > 0 ? nq : 1;
}

/*
 * Share the rows from y down among the groups, the head blockers, the
 * sessions and the queries (LIVE_PARTS, in that order): each part has a
 * heading and a blank line before it (the head blockers only when there
 * are any); the rows are dealt one at a time, the groups taking two
 * for every one of the others, to the parts that have more to show, so
 * that no row stays blank while a part is cut.  The last row is the
 * messages' when there is one.
 */
#define LIVE_PARTS 4
static void
share_rows(int y, bool has_msg, const int *want, int *rows)
{
	int			left = LINES - y - (has_msg ? 1 : 0);
	bool		more = true;

	for (int i = 0; i < LIVE_PARTS; i++)
	{
		rows[i] = 0;
		if (i == 1 && want[i] == 0)
			continue;
		left -= i > 0 ? 2 : 1;	/* the heading, and a blank line before it */
	}
	while (left > 0 && more)
	{
		more = false;
		for (int i = 0; i < LIVE_PARTS && left > 0; i++)
			for (int k = 0; k < (i == 0 ? 2 : 1) && left > 0 && rows[i] < want[i]; k++)
			{
				rows[i]++;
				left--;
				more = true;
			}
	}
	/* a screen too small for all: at least one row of each part drawn */
	for (int i = 0; i < LIVE_PARTS; i++)
		if (rows[i] == 0 && want[i] > 0)
			rows[i] = 1;
}

/* Redraw everything once a second; when paused, only the status word. */
void
live_draw(const report_source *info, const wprof *run, const wprof *last,
		  const sample_health *h)
{
	time_t		now = time(NULL);
	struct tm	tm;
	char		clock[16];
	char		every[FORMAT_TS_LEN];
	int			y = 0;
	int			want[LIVE_PARTS],
				rows[LIVE_PARTS];
	strbuf		ver;

	if (!lv.active)
		return;
	update_last_msg();
	localtime_r(&now, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	if (lv.paused && !lv.resized)
	{
		/* frozen: only the status word changes */
		draw_paused();
		refresh();
		return;
	}
	lv.resized = false;
	erase();
	format_seconds(every, info->interval_s);
	/* the server's version string, made printable */
	strbuf_init(&ver);
	utf8_printable(&ver, info->server_version);
	if (narrow())
	{
		/* 80 columns: the same facts on four shorter lines */
		put_line(y, "pgtempo-waits  %s  source %s  every %s", clock, info->source, every);
		mvchgat(y++, 0, 13, A_BOLD, 0, NULL);
		put_line(y++, "server %s  PostgreSQL %s", info->server, ver.data);
		put_line(y++, "samples %" PRIu64 " (%.1f/s)  missed %" PRIu64 "  failed %" PRIu64
				 "  latency p50 %.2f ms p99 %.2f ms", h->samples, h->rate_hz, h->missed,
				 h->failed, h->p50_ms, h->p99_ms);
		put_line(y++, "gaps %d  active sessions: last %.2f, run %.2f   keys: g regroup  p pause"
				 "  q quit", h->ngaps, avg_active(info, last), avg_active(info, run));
	}
	else
	{
		/* what matters most first: a narrower terminal cuts the rest */
		put_line(y, "pgtempo-waits  %s  source %s  every %s  server %s  PostgreSQL %s", clock,
				 info->source, every, info->server, ver.data);
		mvchgat(y++, 0, 13, A_BOLD, 0, NULL);
		put_line(y++, "samples %" PRIu64 " (%.1f/s)  missed %" PRIu64 "  failed %" PRIu64
				 "  latency p50 %.2f ms p99 %.2f ms  gaps %d  active sessions: last %.2f, run %.2f",
				 h->samples, h->rate_hz, h->missed, h->failed, h->p50_ms, h->p99_ms, h->ngaps,
				 avg_active(info, last), avg_active(info, run));
		put_line(y++, "keys: g regroup  p pause  q quit");
	}
	strbuf_free(&ver);
	y++;

	rows_wanted(run, want);
	share_rows(y, lv.last_msg[0] != '\0', want, rows);
	y = draw_groups(y, rows[0], run, last);
	if (want[1] > 0)
		y = draw_heads(y + 1, rows[1], info, run);
	y = draw_sessions(y + 1, rows[2], run);
	y = draw_queries(y + 1, rows[3], run);
	if (lv.last_msg[0] != '\0')
		put_line(LINES - 1, "%s", lv.last_msg);
	if (lv.paused)
		draw_paused();
	refresh();
}

/* Sleep until until_ns, waking for keys (handled here) and signals (handled by the caller). */
live_action
live_wait(uint64_t until_ns)
{
	int			ch;

	if (!lv.active)
		return LIVE_NONE;
	for (;;)
	{
		uint64_t	now = clock_now_ns();
		struct pollfd pfd;
		struct timespec ts;
		uint64_t	wait_ns;

		/* keys already typed first */
		while ((ch = getch()) != ERR)
		{
			switch (ch)
			{
				case 'q':
				case 'Q':
					return LIVE_QUIT;
				case 'p':
				case 'P':
				case ' ':
					lv.paused = !lv.paused;
					return LIVE_REDRAW;
				case 'g':
				case 'G':
					lv.group = (lv.group + 1) % NCYCLE;
					return LIVE_REDRAW;
				case KEY_RESIZE:
					/* paused or not, the old screen does not fit the new size */
					lv.resized = true;
					clear();
					return LIVE_REDRAW;
				default:
					break;
			}
		}
		if (now >= until_ns)
			return LIVE_NONE;
		wait_ns = until_ns - now;
		ts.tv_sec = (time_t) (wait_ns / NS_PER_S);
		ts.tv_nsec = (long) (wait_ns % NS_PER_S);
		pfd.fd = lv.in_fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		/* a signal (SIGINT, SIGWINCH) ends the wait too: the caller looks at its flags */
		if (ppoll(&pfd, 1, &ts, NULL) <= 0)
			return LIVE_NONE;
	}
}
