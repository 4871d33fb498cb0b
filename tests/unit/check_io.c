/*
 * check_io.c — pgtempo-io's pieces: ioping's number text (cases taken from
 * ioping 1.3 run under a clock that advances by a set step), ioping's
 * suffixes, the statistics' figures, and the request engine on a file.
 */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getopt.h>

#include "pgtempo/opt.h"

#include "engine.h"
#include "iofmt.h"
#include "ioparse.h"
#include "pgdisk.h"
#include "stats.h"
#include "unit.h"

/* ioping's time text for a request of ns: what ioping 1.3 printed. */
static const struct
{
	uint64_t	ns;
	const char *want;
}			time_cases[] = {
	{0, "0 ns"}, {1, "1 ns"}, {999, "999 ns"}, {1000, "1 us"}, {1004, "1.00 us"},
	{1005, "1.00 us"}, {1006, "1.01 us"}, {1015, "1.01 us"}, {2015, "2.02 us"},
	{4995, "5.00 us"}, {5025, "5.03 us"}, {8005, "8.01 us"}, {9994, "9.99 us"},
	{9995, "9.99 us"}, {9996, "10.00 us"}, {10000, "10 us"}, {10050, "10.1 us"},
	{10250, "10.2 us"}, {99949, "99.9 us"}, {99950, "100.0 us"}, {100150, "100.2 us"},
	{123450, "123.5 us"}, {999949, "999.9 us"}, {999950, "1000.0 us"}, {1000000, "1 ms"},
	{1234500, "1.23 ms"}, {9995000, "9.99 ms"}, {123456789, "123.5 ms"},
	{1234567890, "1.23 s"}, {12345678901ULL, "12.3 s"}, {61728394505ULL, "1.03 min"},
};

START_TEST(time_text)
{
	char		buf[IOFMT_MAX];

	for (size_t i = 0; i < sizeof(time_cases) / sizeof(time_cases[0]); i++)
		ck_assert_str_eq(iofmt_time(buf, time_cases[i].ns), time_cases[i].want);
}
END_TEST

/* Sizes (powers of 1024) and counts (powers of 1000, no unit name below 1000). */
START_TEST(size_and_count_text)
{
	char		buf[IOFMT_MAX];

	ck_assert_str_eq(iofmt_size(buf, 0), "0 B");
	ck_assert_str_eq(iofmt_size(buf, 331), "331 B");
	ck_assert_str_eq(iofmt_size(buf, 4096), "4 KiB");
	ck_assert_str_eq(iofmt_size(buf, 3317), "3.24 KiB");
	ck_assert_str_eq(iofmt_size(buf, 59801), "58.4 KiB");
	ck_assert_str_eq(iofmt_size(buf, 61440), "60 KiB");
	ck_assert_str_eq(iofmt_size(buf, 1045606), "1021.1 KiB");
	ck_assert_str_eq(iofmt_size(buf, 270553174016ULL), "252.0 GiB");
	ck_assert_str_eq(iofmt_count(buf, 14), "14");
	ck_assert_str_eq(iofmt_count(buf, 660), "660");
	ck_assert_str_eq(iofmt_count(buf, 1000), "1 k");
	ck_assert_str_eq(iofmt_count(buf, 4937), "4.94 k");
	ck_assert_str_eq(iofmt_count(buf, 400400), "400.4 k");
	ck_assert_str_eq(iofmt_count(buf, 1001001), "1.00 M");
	ck_assert_str_eq(iofmt_count(buf, 1000000000), "1 G");
}
END_TEST

static const struct
{
	const char *in;
	ioparse_kind kind;
	uint64_t	want;			/* UINT64_MAX: an error */
}			parse_cases[] = {
	{"4k", IOPARSE_SIZE, 4096}, {"4KiB", IOPARSE_SIZE, 4096}, {"8KB", IOPARSE_SIZE, 8192},
	{"1sector", IOPARSE_SIZE, 512}, {"2page", IOPARSE_SIZE, 8192}, {"0.5m", IOPARSE_SIZE, 524288},
	{"1G", IOPARSE_SIZE, 1073741824}, {"100", IOPARSE_SIZE, 100}, {"1x", IOPARSE_SIZE, UINT64_MAX},
	{"-1", IOPARSE_SIZE, UINT64_MAX}, {"", IOPARSE_SIZE, UINT64_MAX},
	{"0.1", IOPARSE_TIME, 100000000}, {"1", IOPARSE_TIME, 1000000000},
	{"250us", IOPARSE_TIME, 250000}, {"3ms", IOPARSE_TIME, 3000000}, {"5NS", IOPARSE_TIME, 5},
	{"2min", IOPARSE_TIME, 120000000000ULL}, {"1m", IOPARSE_TIME, 60000000000ULL},
	{"1hour", IOPARSE_TIME, 3600000000000ULL}, {"abc", IOPARSE_TIME, UINT64_MAX},
	{"10", IOPARSE_COUNT, 10}, {"2k", IOPARSE_COUNT, 2000}, {"1M", IOPARSE_COUNT, 1000000},
	{"1e30", IOPARSE_COUNT, UINT64_MAX}, {"3q", IOPARSE_COUNT, UINT64_MAX},
};

START_TEST(suffixes)
{
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++)
	{
		uint64_t	v = 0;
		char	   *cause = NULL;
		bool		ok = ioparse_value(parse_cases[i].in, parse_cases[i].kind, &v, &cause);

		if (parse_cases[i].want == UINT64_MAX)
		{
			ck_assert_msg(!ok, "\"%s\" should be refused", parse_cases[i].in);
			ck_assert_ptr_nonnull(cause);
			free(cause);
		}
		else
		{
			ck_assert_msg(ok, "\"%s\" refused: %s", parse_cases[i].in, cause ? cause : "");
			ck_assert_uint_eq(v, parse_cases[i].want);
		}
	}
}
END_TEST

/* The figures of ioping's statistics from the histogram: exact min, max, mean, mdev. */
START_TEST(figures)
{
	io_stats	st;
	io_figures	f;

	io_stats_init(&st, 1000);
	io_stats_add(&st, 500, 4096, 2000, false);	/* warm-up: load only */
	io_stats_add(&st, 170183, 4096, 3000, true);
	io_stats_add(&st, 247317, 4096, 20483170, true);
	io_stats_figures(&st.run, &f);
	ck_assert_uint_eq(f.count, 2);
	ck_assert_uint_eq(f.time_ns, 417500);
	ck_assert_uint_eq(f.bytes, 8192);
	ck_assert_uint_eq(f.min, 170183);
	ck_assert_uint_eq(f.avg, 208750);
	ck_assert_uint_eq(f.max, 247317);
	ck_assert_uint_eq(f.mdev, 38567);
	ck_assert_uint_eq(f.load_count, 3);
	ck_assert_uint_eq(f.load_time_ns, 20482170);
	ck_assert_double_eq_tol(f.iops, 4790.419162, 1e-6);
	ck_assert_double_eq_tol(f.load_iops, 146.468856, 1e-6);
	ck_assert_uint_eq(st.log2.count[hlog2_bucket(170183)], 2);	/* both in [2^17, 2^18) */
	ck_assert_uint_eq(hlog2_total(&st.log2), 2);
	/* a new period starts empty; the run keeps its counts */
	io_stats_new_period(&st, 5000);
	io_stats_figures(&st.period, &f);
	ck_assert_uint_eq(f.count, 0);
	ck_assert_uint_eq(f.load_count, 0);
	io_stats_free(&st);
}
END_TEST

static uint64_t seen_offsets[16];
static int	seen;

static bool
count_request(void *ctx, const io_request *r)
{
	(void) ctx;
	if (seen < 16)
		seen_offsets[seen] = r->offset;
	seen++;
	ck_assert_uint_eq(r->index, (uint64_t) seen);
	ck_assert_uint_eq(r->bytes, 4096);
	return true;
}

static int
no_cut(void *ctx, int signo, uint64_t now)
{
	(void) ctx;
	(void) signo;
	(void) now;
	ck_abort_msg("the run was cut");
	return 1;
}

/* The engine on a real file: the count, linear offsets wrapping, a ping-pong. */
START_TEST(engine_linear)
{
	char		path[] = "/tmp/check_io.XXXXXX";
	int			fd = mkstemp(path);
	static char buf[16384];
	io_plan		p;
	io_outcome	out;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, buf, sizeof(buf)), (int) sizeof(buf));
	memset(&p, 0, sizeof(p));
	p.fd = fd;
	p.op = IO_OP_PINGPONG;
	p.size = 4096;
	p.offset = 4096;
	p.span = 8192;
	p.linear = true;
	p.count = 5;
	p.align = 4096;
	seen = 0;
	io_engine_run(&p, count_request, no_cut, NULL, &out);
	ck_assert_int_eq(out.end, IO_END_COUNT);
	ck_assert_int_eq(seen, 5);
	ck_assert_uint_eq(seen_offsets[0], 4096);
	ck_assert_uint_eq(seen_offsets[1], 8192);
	ck_assert_uint_eq(seen_offsets[2], 4096);
	ck_assert_uint_ge(out.end_ns, out.start_ns);
	close(fd);
}
END_TEST

/* A short read (past the end of the file) ends the run as an error. */
START_TEST(engine_short_read)
{
	char		path[] = "/tmp/check_io.XXXXXX";
	int			fd = mkstemp(path);
	io_plan		p;
	io_outcome	out;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, "abc", 3), 3);
	memset(&p, 0, sizeof(p));
	p.fd = fd;
	p.op = IO_OP_READ;
	p.size = 4096;
	p.span = 4096;
	p.count = 3;
	seen = 0;
	io_engine_run(&p, count_request, no_cut, NULL, &out);
	ck_assert_int_eq(out.end, IO_END_ERROR);
	ck_assert_int_eq(out.errnum, 0);
	ck_assert_uint_eq(out.bytes, 3);
	ck_assert_int_eq(seen, 0);
	close(fd);
}
END_TEST

/* The timeline keeps every request when its bins merge, and its width doubles. */
START_TEST(timeline_merges)
{
	io_stats	st;
	uint64_t	total = 0,
				max = 0;

	io_stats_init(&st, 0);
	io_stats_keep_timeline(&st);
	/* one request every 0.05 s for 100 s: 2000 requests, 1000 bins of 0.1 s needed */
	for (uint64_t i = 0; i < 2000; i++)
		io_stats_add(&st, 1000 + i, 4096, i * 50000000, true);
	ck_assert_uint_eq(st.timeline->width_ns, 2 * IO_TIMELINE_FIRST_WIDTH_NS);
	ck_assert_int_le(st.timeline->nbins, IO_TIMELINE_BINS);
	for (int i = 0; i < st.timeline->nbins; i++)
	{
		total += st.timeline->bins[i].count;
		if (st.timeline->bins[i].max_ns > max)
			max = st.timeline->bins[i].max_ns;
	}
	ck_assert_uint_eq(total, 2000);
	ck_assert_uint_eq(max, 2999);
	ck_assert_uint_eq(st.timeline->bins[0].count, 4);	/* 0, 0.05, 0.1, 0.15 s */
	io_stats_free(&st);
}
END_TEST

/* opt_parser's long_only: ioping's "-count 5" is "--count 5"; "-c" stays a letter. */
static opt_status
take_count(const opt_def *def, void *ctx, const char *arg)
{
	(void) def;
	*(int *) ctx = atoi(arg);
	return OPT_OK;
}

static void
no_usage(void)
{
}

START_TEST(long_only_forms)
{
	static const opt_def defs[] = {
		{"count", 'c', required_argument, take_count},
		{"cached", 'C', no_argument, take_count},
	};
	static const opt_parser p = {defs, OPT_COUNT(defs), no_usage, false, true};
	char	   *argv1[] = {"t", "-count", "5", NULL};
	char	   *argv2[] = {"t", "--count=6", NULL};
	char	   *argv3[] = {"t", "-c", "7", NULL};
	int			n = 0;

	optind = 0;
	ck_assert_int_eq(opt_parse(&p, 3, argv1, &n, NULL), OPT_OK);
	ck_assert_int_eq(n, 5);
	optind = 0;
	ck_assert_int_eq(opt_parse(&p, 2, argv2, &n, NULL), OPT_OK);
	ck_assert_int_eq(n, 6);
	optind = 0;
	ck_assert_int_eq(opt_parse(&p, 3, argv3, &n, NULL), OPT_OK);
	ck_assert_int_eq(n, 7);
}
END_TEST

/* A request that never returns. */
static void
hang(void)
{
	for (;;)
		pause();
}

static int
cut_reports(void *ctx, int signo, uint64_t now)
{
	(void) ctx;
	(void) now;
	fprintf(stderr, "cut by %d\n", signo);
	return 7;
}

static bool
never_called(void *ctx, const io_request *r)
{
	(void) ctx;
	(void) r;
	return true;
}

/* The child of deadline_holds: a 0.2 s run whose first request hangs. */
static void
run_hanging(void)
{
	io_plan		p;
	io_outcome	out;
	int			fd = open("/dev/zero", O_RDONLY);

	memset(&p, 0, sizeof(p));
	p.fd = fd;
	p.size = 4096;
	p.span = 4096;
	p.deadline_ns = 200000000;
	io_engine_request_hook = hang;
	io_engine_run(&p, never_called, cut_reports, NULL, &out);
	fprintf(stderr, "the run returned\n");
	exit(0);
}

/* -w holds while a request hangs: on_cut reports at the deadline, its status ends the process. */
START_TEST(deadline_holds)
{
	char		err[256];
	int			status = unit_run_in_child(run_hanging, err, sizeof(err));

	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 7);
	ck_assert_str_eq(err, "cut by 0\n");
}
END_TEST

/* pgdisk_cut's case: the directory, the test, and whether a stop signal or -w cuts it. */
static char cut_dir[64];
static bool cut_sync;
static bool cut_by_signal;

/* A request that never returns after a SIGTERM to the process (the watchdog takes it). */
static void
term_then_hang(void)
{
	kill(getpid(), SIGTERM);
	hang();
}

/* A file of n bytes of zeros at dir/name. */
static void
make_file(const char *dir, const char *name, size_t n)
{
	char		path[128];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	for (size_t i = 0; i < n; i++)
		fputc(0, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* The child of pgdisk_cut: the read or sync test in cut_dir, its first request hanging. */
static void
run_pgdisk_hanging(void)
{
	io_settings s;
	char		out[128];
	char		json[128];
	char		prom[128];
	char		svg[128];

	snprintf(out, sizeof(out), "%s/out.txt", cut_dir);
	snprintf(json, sizeof(json), "%s/report.json", cut_dir);
	snprintf(prom, sizeof(prom), "%s/report.prom", cut_dir);
	snprintf(svg, sizeof(svg), "%s/report.svg", cut_dir);
	if (freopen(out, "w", stdout) == NULL)
		exit(90);
	memset(&s, 0, sizeof(s));
	if (cut_sync)
		s.wal_sync_dir = cut_dir;
	else
		s.pgdata = cut_dir;
	s.json_path = json;
	s.metrics_path = prom;
	s.chart_path = svg;
	s.deadline_set = true;
	s.deadline_ns = cut_by_signal ? INT64_C(600000000000) : INT64_C(200000000);
	io_engine_request_hook = cut_by_signal ? term_then_hang : hang;
	fprintf(stderr, "status %d\n", pgdisk_run(&s));	/* not reached: the cut ends the process */
	exit(0);
}

/* The whole of a small file, allocated. */
static char *
slurp(const char *dir, const char *name)
{
	char		path[128];
	char	   *buf = calloc(1, 65536);
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
}

/*
 * pgdisk's read and sync tests hold -w and a stop signal while a request
 * hangs: the report of what was measured (text, JSON, metrics and chart), the work file
 * gone, ioping's status (0 at -w, 128+N at a signal).
 */
START_TEST(pgdisk_cut)
{
	char		err[512];
	char		path[128];
	char	   *out;
	char	   *json;
	char	   *prom;
	char	   *svg;
	int			status;

	cut_sync = _i / 2 == 1;
	cut_by_signal = _i % 2 == 1;
	snprintf(cut_dir, sizeof(cut_dir), "/tmp/check_io.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(cut_dir));
	make_file(cut_dir, "PG_VERSION", 3);
	snprintf(path, sizeof(path), "%s/base", cut_dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/base/1", cut_dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	make_file(cut_dir, "base/1/16384", 4 * 8192);

	status = unit_run_in_child(run_pgdisk_hanging, err, sizeof(err));
	ck_assert_msg(WIFEXITED(status), "%s", err);
	ck_assert_int_eq(WEXITSTATUS(status), cut_by_signal ? 128 + SIGTERM : 0);
	ck_assert_msg(strstr(err, cut_sync ? "the open_datasync test did not return"
						 : "the random test did not return") != NULL, "%s", err);
	ck_assert_ptr_null(strstr(err, "status"));
	out = slurp(cut_dir, "out.txt");
	json = slurp(cut_dir, "report.json");
	prom = slurp(cut_dir, "report.prom");
	svg = slurp(cut_dir, "report.svg");
	/* the metrics and the chart of the test cut, none of those after it */
	ck_assert_msg(strstr(prom, cut_sync
						 ? "pgtempo_io_pg_requests_total{test=\"wal_sync\",method=\"open_datasync\",writes=\"1\"} 0\n"
						 : "pgtempo_io_pg_requests_total{test=\"read\",method=\"random\",writes=\"1\"} 0\n")
				  != NULL, "%s", prom);
	ck_assert_ptr_null(strstr(prom, cut_sync ? "method=\"fdatasync\"" : "method=\"sequential\""));
	ck_assert_msg(strstr(svg, cut_sync ? ">open_datasync, 1 8 KiB write per sync"
						 : ">random 8 KiB reads") != NULL, "%s", svg);
	ck_assert_msg(strstr(svg, "no requests counted") != NULL, "%s", svg);
	free(prom);
	free(svg);
	if (cut_sync)
	{
		ck_assert_msg(strstr(out, "open_datasync, 1 write") != NULL, "%s", out);
		ck_assert_ptr_null(strstr(out, "fdatasync, 1 write"));
		ck_assert_msg(strstr(json, "\"open_datasync\"") != NULL, "%s", json);
		snprintf(path, sizeof(path), "%s/pgtempo-io-walsync.tmp", cut_dir);
		ck_assert_int_ne(access(path, F_OK), 0);	/* removed */
	}
	else
	{
		ck_assert_msg(strstr(out, "random                                  0 ops") != NULL,
					  "%s", out);
		ck_assert_msg(strstr(out, "sequential                       not run (stopped)") != NULL,
					  "%s", out);
		ck_assert_msg(strstr(json, "\"random\"") != NULL, "%s", json);
	}
	ck_assert_msg(strstr(json, "\"count\": 0") != NULL, "%s", json);
	free(out);
	free(json);
	snprintf(path, sizeof(path), "rm -rf '%s'", cut_dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

/* A series of the given name and writes with these times (ns). */
static pgdisk_series
series_of(const char *name, int writes, const uint64_t *t, int n)
{
	pgdisk_series x = {name, writes, false, hist_new(1), UINT64_C(1000000000)};

	for (int i = 0; i < n; i++)
		hist_record(x.h, t[i]);
	return x;
}

/* The ratio is of means; the favoured method has the lowest median with one write per sync. */
START_TEST(pgdisk_verdicts)
{
	static const uint64_t slow[] = {100, 100, 100, 100, 10000};	/* median 100, mean 2080 */
	static const uint64_t mid[] = {200, 200, 200, 200, 200};
	static const uint64_t fast[] = {50, 50, 50, 50, 50};
	pgdisk_series x[4];

	x[0] = series_of("fdatasync", 1, slow, 5);
	x[1] = series_of("fsync", 1, mid, 5);
	x[2] = series_of("open_sync", 2, fast, 5);	/* two writes: not in the choice */
	x[3] = series_of("open_datasync", 1, mid, 5);
	free(x[3].h);
	x[3].h = NULL;				/* not run (stopped): not in the choice */
	ck_assert_str_eq(pgdisk_favoured(x, 4), "fdatasync");
	ck_assert_ptr_null(pgdisk_favoured(x + 2, 1));
	ck_assert(pgdisk_ratio(&x[0], &x[1]) > 10.39 && pgdisk_ratio(&x[0], &x[1]) < 10.41);
	ck_assert(pgdisk_ops(&x[1]) == 5.0);
	hist_reset(x[1].h);
	ck_assert(pgdisk_ratio(&x[0], &x[1]) == 0);	/* nothing to divide by: unknown */
	for (int i = 0; i < 3; i++)
		free(x[i].h);
}
END_TEST

/*
 * The log2 histogram the metrics and the chart of PostgreSQL's tests take
 * from the latency histogram is the one recording each value would give
 * (ns: an octave always starts one of its buckets), on both sides of
 * every power of two up to 2^40 ns.
 */
START_TEST(log2_from_hist)
{
	hist	   *h = hist_new(1);
	hlog2		want,
				got;

	memset(&want, 0, sizeof(want));
	hist_record(h, 0);
	hlog2_record(&want, 0);
	for (int k = 0; k <= 40; k++)
	{
		uint64_t	p = UINT64_C(1) << k;
		const uint64_t around[] = {p - 1, p, p + 1, p + p / 2, p * 2 - 1};

		for (size_t i = 0; i < sizeof(around) / sizeof(around[0]); i++)
		{
			hist_record(h, around[i]);
			hlog2_record(&want, around[i]);
		}
	}
	io_stats_log2(h, 1, &got);
	for (int b = 0; b < HLOG2_BUCKETS; b++)
		ck_assert_msg(got.count[b] == want.count[b], "bucket %d: %llu, want %llu", b,
					  (unsigned long long) got.count[b], (unsigned long long) want.count[b]);
	free(h);
}
END_TEST

static Suite *
io_suite(void)
{
	Suite	   *s = suite_create("io");
	TCase	   *tc = tcase_create("io");

	tcase_add_test(tc, time_text);
	tcase_add_test(tc, size_and_count_text);
	tcase_add_test(tc, suffixes);
	tcase_add_test(tc, figures);
	tcase_add_test(tc, engine_linear);
	tcase_add_test(tc, engine_short_read);
	tcase_add_test(tc, deadline_holds);
	tcase_add_test(tc, timeline_merges);
	tcase_add_test(tc, long_only_forms);
	tcase_add_test(tc, pgdisk_verdicts);
	tcase_add_test(tc, log2_from_hist);
	tcase_add_loop_test(tc, pgdisk_cut, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(io_suite());
}
