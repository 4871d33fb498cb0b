/*
 * pgtempo-io — storage latency the way ioping measures it, and what ioping
 * does not say (the distribution, JSON, metrics).  main() parses ioping's
 * options (long forms with one dash or two) into the settings and hands
 * over to io_tool_run(); everything else is in objects the tests link.
 */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/clock.h"
#include "pgtempo/msg.h"
#include "pgtempo/opt.h"
#include "ioparse.h"
#include "pgdisk.h"
#include "settings.h"
#include "tool.h"

/* The --help text, kept in step with the man page. */
static void
usage(void)
{
	printf("%s measures storage latency as ioping does: it times requests to a\n"
		   "directory (in a work file of its own), a file or a device, prints ioping's\n"
		   "lines, and adds the distribution, JSON and metrics.\n\n", msg_progname());
	printf("Usage:\n  %s [OPTION]... DIRECTORY|FILE|DEVICE\n", msg_progname());
	printf("  %s --pgdata=DIR | --pg [CONNECTION]... [--wal-sync=DIR] [-w TIME] [-c COUNT]\n", msg_progname());
	printf("  %s --wal-sync=DIR [--pg [CONNECTION]...] [-w TIME] [-c COUNT]\n\n", msg_progname());
	printf("ioping's options (long forms take one dash or two):\n"
		   "  -A, --async             asynchronous I/O (Linux AIO: io_submit)\n"
		   "  -C, --cached            cached I/O (no cache drop before reads, no fdatasync)\n"
		   "  -D, --direct            direct I/O (O_DIRECT)\n"
		   "  -G, --read-write        read-write ping-pong\n"
		   "  -L, --linear            sequential requests (default size 256k)\n"
		   "  -N, --nowait            nowait I/O (RWF_NOWAIT)\n"
		   "  -H, --hipri             high-priority I/O (RWF_HIPRI)\n"
		   "  -W, --write             write requests; a file or device needs -WWW\n"
		   "  -Y, --sync              synchronous I/O (O_SYNC)\n"
		   "  -y, --dsync             data-synchronous I/O (O_DSYNC)\n"
		   "  -R, --rapid             rapid test: -q -i 0 -w 3 -S 64m\n"
		   "  -k, --keep              keep and reuse the work file (ioping.tmp)\n"
		   "  -a, --warmup=COUNT      requests left out of the statistics (1)\n"
		   "  -b, --burst=COUNT       requests without a pause between them (0)\n"
		   "  -c, --count=COUNT       stop after COUNT requests\n"
		   "  -e, --entropy=SEED      seed of the random offsets (0: from the clock)\n"
		   "  -i, --interval=TIME     time between requests (1s)\n"
		   "  -s, --size=SIZE         request size (4k)\n"
		   "  -S, --work-size=SIZE    working set (1m in a directory, else the target)\n"
		   "  -o, --work-offset=SIZE  where the working set starts (0)\n"
		   "  -w, --work-time=TIME    stop after TIME, even while a request hangs\n"
		   "  -l, --speed-limit=SIZE  at most SIZE per second\n"
		   "  -r, --rate-limit=COUNT  at most COUNT requests per second\n"
		   "  -t, --min-time=TIME     faster requests are left out (0)\n"
		   "  -T, --max-time=TIME     slower requests are left out\n"
		   "  -B, --batch             the closing statistics as one raw line\n"
		   "  -I, --time[=FORMAT]     the time before each request (\"%%b %%d %%T\")\n"
		   "  -J, -json               ioping's JSON array, as ioping -J (one dash;\n"
		   "                          --json is the suite's document)\n"
		   "  -p, --print-count=COUNT raw statistics every COUNT requests\n"
		   "  -P, --print-interval=TIME  raw statistics every TIME\n"
		   "  -q, --quiet             no line per request\n"
		   "  -h, --help             show this help (also -?), then exit\n"
		   "  -v, --version          output version information, then exit\n\n"
		   "Beyond ioping:\n"
		   "      --histogram[=UNIT]  after the statistics: the log2 histogram of request\n"
		   "                          times (UNIT us, the default, or ns) and percentiles\n"
		   "      --json[=FILE]       the suite's JSON document (percentiles, histogram;\n"
		   "                          not ioping's, which is -J): on standard output\n"
		   "                          instead of ioping's text, or to FILE\n"
		   "      --metrics=FILE      the results as Prometheus metrics (textfile: *.prom)\n"
		   "      --chart=FILE        an SVG chart: request times over the run (mean and\n"
		   "                          slowest), requests per second, the distribution\n\n"
		   "PostgreSQL's questions (8 KiB requests; each test -w TIME, 5s by default,\n"
		   "or -c COUNT; of the options above only -w, -c, --json, --metrics and\n"
		   "--chart apply; the chart: the distribution of each test):\n"
		   "      --pgdata=DIR        random and sequential reads over the cluster's\n"
		   "                          relation files in DIR, read-only, direct I/O where\n"
		   "                          the filesystem allows; their ratio\n"
		   "      --pg                ask the server: its data directory and largest\n"
		   "                          relations (read as --pgdata does), random_page_cost,\n"
		   "                          wal_sync_method\n"
		   "      --host=HOST, --port=PORT, --username=USER, --dbname=DBNAME\n"
		   "                          the connection (each implies --pg)\n"
		   "      --wal-sync=DIR      writes and their sync in a work file in DIR (on the\n"
		   "                          filesystem of pg_wal) with each wal_sync_method,\n"
		   "                          one and two writes per sync\n\n"
		   "SIZE: bytes, or with sector, k/kb/KiB, page, m/mb/MiB, g/gb/GiB, t/tb/TiB.\n"
		   "TIME: seconds, or with ns, us, ms, s, m/min, h/hour.  COUNT: with k, m, g, t.\n\n"
		   "Exit status: 0 if all went well (also at -w's deadline), 1 on a usage error,\n"
		   "2 if the target could not be prepared, 3 if a request failed, 128+N if\n"
		   "interrupted by signal N (the statistics are still printed).\n\n"
		   "See 'man pgtempo-io' for more information.\n");
}

/* "invalid value ... for option -s/--size: why" and OPT_ERROR. */
static opt_status
bad_value(const opt_def *def, const char *arg, char *cause)
{
	msg_error("invalid value \"%s\" for option %s: %s", arg, def->label, cause);
	free(cause);
	return OPT_ERROR;
}

/* A number of def->unit's kind (ioparse.h) into the uint64_t field. */
static opt_status
handle_number(const opt_def *def, void *ctx, const char *arg)
{
	ioparse_kind kind = def->unit[0] == 's' ? IOPARSE_SIZE
		: def->unit[0] == 't' ? IOPARSE_TIME : IOPARSE_COUNT;
	char	   *cause = NULL;
	uint64_t	v;

	if (!ioparse_value(arg, kind, &v, &cause))
		return bad_value(def, arg, cause);
	*(uint64_t *) ((char *) ctx + def->field) = v;
	return OPT_OK;
}

/* -s, -i, -w: a number, and a note that the user gave it. */
static opt_status
handle_noted(const opt_def *def, void *ctx, const char *arg)
{
	io_settings *s = ctx;
	opt_status	st = handle_number(def, ctx, arg);

	if (st != OPT_OK)
		return st;
	if (def->letter == 's')
		s->size_set = s->size != 0;	/* -s 0: the default, as ioping takes it */
	else if (def->letter == 'i')
		s->interval_set = true;
	else
		s->deadline_set = true;
	return OPT_OK;
}

/* -W, counted: -WWW writes over a file or device. */
static opt_status
handle_write(const opt_def *def, void *ctx, const char *arg)
{
	(void) def;
	(void) arg;
	((io_settings *) ctx)->write++;
	return OPT_OK;
}

/* -I [FORMAT] */
static opt_status
handle_time(const opt_def *def, void *ctx, const char *arg)
{
	io_settings *s = ctx;

	(void) def;
	s->print_time = true;
	if (arg != NULL)
		s->time_format = arg;
	return OPT_OK;
}

/* --json[=FILE]: FILE beside the report, else the document instead of it. */
static opt_status
handle_json(const opt_def *def, void *ctx, const char *arg)
{
	io_settings *s = ctx;

	(void) def;
	return opt_json_arg(arg, &s->json, &s->json_path);
}

static opt_status
handle_histogram(const opt_def *def, void *ctx, const char *arg)
{
	io_settings *s = ctx;

	(void) def;
	if (arg == NULL || strcmp(arg, "us") == 0)
		s->histogram = 1;
	else if (strcmp(arg, "ns") == 0)
		s->histogram = 2;
	else
	{
		msg_error("invalid value \"%s\" for option --histogram: must be us or ns", arg);
		return OPT_ERROR;
	}
	return OPT_OK;
}

/* --host, --port, --username, --dbname: the connection, which implies --pg. */
static opt_status
handle_conn(const opt_def *def, void *ctx, const char *arg)
{
	io_settings *s = ctx;

	s->pg = true;
	(void) conn_option(&s->conn, def->unit[0], arg);
	return OPT_OK;
}

/* -h: ioping's help letter. */
static opt_status
handle_help(const opt_def *def, void *ctx, const char *arg)
{
	(void) def;
	(void) ctx;
	(void) arg;
	usage();
	return OPT_EXIT_OK;
}

#define F(x) offsetof(io_settings, x)
#define VERSION_LINE "pgtempo-io (pgtempo) " PACKAGE_VERSION

static const opt_def options[] = {
	{"async", 'A', no_argument, opt_true, F(async)},
	{"cached", 'C', no_argument, opt_true, F(cached)},
	{"direct", 'D', no_argument, opt_true, F(direct)},
	{"read-write", 'G', no_argument, opt_true, F(read_write)},
	{"linear", 'L', no_argument, opt_true, F(linear)},
	{"nowait", 'N', no_argument, opt_true, F(nowait)},
	{"hipri", 'H', no_argument, opt_true, F(hipri)},
	{"write", 'W', no_argument, handle_write},
	{"sync", 'Y', no_argument, opt_true, F(sync)},
	{"dsync", 'y', no_argument, opt_true, F(dsync)},
	{"rapid", 'R', no_argument, opt_true, F(rapid)},
	{"keep", 'k', no_argument, opt_true, F(keep)},
	{"warmup", 'a', required_argument, handle_number, F(warmup), .label = "-a/--warmup", .unit = "count"},
	{"burst", 'b', required_argument, handle_number, F(burst), .label = "-b/--burst", .unit = "count"},
	{"count", 'c', required_argument, handle_number, F(count), .label = "-c/--count", .unit = "count"},
	{"entropy", 'e', required_argument, handle_number, F(seed), .label = "-e/--entropy", .unit = "count"},
	{"interval", 'i', required_argument, handle_noted, F(interval_ns), .label = "-i/--interval", .unit = "time"},
	{"size", 's', required_argument, handle_noted, F(size), .label = "-s/--size", .unit = "size"},
	{"work-size", 'S', required_argument, handle_number, F(work_size), .label = "-S/--work-size", .unit = "size"},
	{"work-offset", 'o', required_argument, handle_number, F(work_offset), .label = "-o/--work-offset", .unit = "size"},
	{"work-time", 'w', required_argument, handle_noted, F(deadline_ns), .label = "-w/--work-time", .unit = "time"},
	{"speed-limit", 'l', required_argument, handle_number, F(speed_limit), .label = "-l/--speed-limit", .unit = "size"},
	{"rate-limit", 'r', required_argument, handle_number, F(rate_limit), .label = "-r/--rate-limit", .unit = "count"},
	{"min-time", 't', required_argument, handle_number, F(min_time_ns), .label = "-t/--min-time", .unit = "time"},
	{"max-time", 'T', required_argument, handle_number, F(max_time_ns), .label = "-T/--max-time", .unit = "time"},
	{"batch", 'B', no_argument, opt_true, F(batch)},
	{"time", 'I', optional_argument, handle_time},
	{"ioping-json", 'J', no_argument, opt_true, F(ioping_json)},
	{"print-count", 'p', required_argument, handle_number, F(print_count), .label = "-p/--print-count", .unit = "count"},
	{"print-interval", 'P', required_argument, handle_number, F(print_interval_ns), .label = "-P/--print-interval", .unit = "time"},
	{"quiet", 'q', no_argument, opt_true, F(quiet)},
	{"help", 'h', no_argument, handle_help},
	{"version", 'v', no_argument, opt_version, .label = VERSION_LINE},
	{"json", 0, optional_argument, handle_json},
	{"metrics", 0, required_argument, opt_file, F(metrics_path)},
	{"chart", 0, required_argument, opt_file, F(chart_path)},
	{"histogram", 0, optional_argument, handle_histogram},
	{"pgdata", 0, required_argument, opt_string, F(pgdata)},
	{"pg", 0, no_argument, opt_true, F(pg)},
	{"host", 0, required_argument, handle_conn, .unit = "h"},
	{"port", 0, required_argument, handle_conn, .unit = "p"},
	{"username", 0, required_argument, handle_conn, .unit = "U"},
	{"dbname", 0, required_argument, handle_conn, .unit = "d"},
	{"wal-sync", 0, required_argument, opt_string, F(wal_sync_dir)},
};

/* The table, --help, every usage error ends with the --help hint, ioping's one-dash long forms. */
static const opt_parser parser = {options, OPT_COUNT(options), usage, true, true};

/*
 * ioping's "-json" is its -J; "--json" is the suite's document.  The
 * table's "json" is the suite's, so "-json" is turned into -J first.
 */
static void
ioping_json_form(int argc, char **argv)
{
	static char letter_j[] = "-J";

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-json") == 0)
			argv[i] = letter_j;
}

/* What ioping's modes imply, and what cannot work: false after the error. */
static bool
settle(io_settings *s)
{
	if (s->rapid)
	{
		s->quiet = true;
		if (!s->interval_set)
			s->interval_ns = 0;
		if (!s->deadline_set)
			s->deadline_ns = 3 * (int64_t) NS_PER_S;
	}
	if (!s->size_set)
		s->size = s->linear ? 256 * 1024 : 4096;
	if (s->batch || s->json)
		s->quiet = true;
	if (s->nowait && !s->cached && !s->direct)
		msg_warning("nowait without cached or direct I/O is supposed to fail");
	return true;
}

/*
 * The first of ioping's options, or of the outputs, that PostgreSQL's
 * questions do not take (their requests are 8 KiB, back to back, and their
 * report is their own); NULL when there is none.
 */
static const char *
pg_refused(const io_settings *s)
{
	const struct
	{
		bool		given;
		const char *label;
	}			checks[] = {
		{s->async, "-A/--async"}, {s->cached, "-C/--cached"}, {s->direct, "-D/--direct"},
		{s->read_write, "-G/--read-write"}, {s->linear, "-L/--linear"},
		{s->nowait, "-N/--nowait"}, {s->hipri, "-H/--hipri"}, {s->write > 0, "-W/--write"},
		{s->sync, "-Y/--sync"}, {s->dsync, "-y/--dsync"}, {s->rapid, "-R/--rapid"},
		{s->keep, "-k/--keep"}, {s->warmup != 1, "-a/--warmup"}, {s->burst > 0, "-b/--burst"},
		{s->seed > 0, "-e/--entropy"}, {s->interval_set, "-i/--interval"},
		{s->size_set, "-s/--size"}, {s->work_size > 0, "-S/--work-size"},
		{s->work_offset > 0, "-o/--work-offset"}, {s->speed_limit > 0, "-l/--speed-limit"},
		{s->rate_limit > 0, "-r/--rate-limit"}, {s->min_time_ns > 0, "-t/--min-time"},
		{s->max_time_ns > 0, "-T/--max-time"}, {s->batch, "-B/--batch"},
		{s->print_time, "-I/--time"}, {s->ioping_json, "-J/--ioping-json"},
		{s->print_count > 0, "-p/--print-count"}, {s->print_interval_ns > 0, "-P/--print-interval"},
		{s->quiet, "-q/--quiet"}, {s->histogram > 0, "--histogram"},
	};

	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		if (checks[i].given)
			return checks[i].label;
	return NULL;
}

/* Fill the settings from the command line; report usage errors the PostgreSQL way. */
static opt_status
parse_arguments(int argc, char **argv, io_settings *s)
{
	opt_status	st;

	ioping_json_form(argc, argv);
	if ((st = opt_parse(&parser, argc, argv, s, NULL)) != OPT_OK)
		return st;
	if (s->pgdata != NULL || s->pg || s->wal_sync_dir != NULL)
	{
		const char *no = pg_refused(s);

		if (no != NULL)
		{
			msg_error("option %s cannot be used with --pgdata, --pg or --wal-sync", no);
			msg_try_help();
			return OPT_ERROR;
		}
		return opt_no_more_args(argc, argv) ? OPT_OK : OPT_ERROR;
	}
	if (optind >= argc)
	{
		msg_error("no destination specified: give a directory, a file or a device");
		msg_try_help();
		return OPT_ERROR;
	}
	if (optind + 1 < argc)
	{
		msg_error("more than one destination specified");
		msg_try_help();
		return OPT_ERROR;
	}
	s->target = argv[optind];
	return settle(s) ? OPT_OK : OPT_ERROR;
}

int
main(int argc, char **argv)
{
	io_settings settings = IO_SETTINGS_INIT;
	int			rc;

	msg_set_progname(argv[0]);
	if ((rc = opt_exit_status(parse_arguments(argc, argv, &settings))) >= 0)
		return rc;
	if (settings.pgdata != NULL || settings.pg || settings.wal_sync_dir != NULL)
		return pgdisk_run(&settings);
	return io_tool_run(&settings);
}
