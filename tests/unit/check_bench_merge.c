/*
 * check_bench_merge.c — unit tests of reading --json reports for --merge:
 * a report read back gives the exact counts, sums and histogram it was
 * written from; two reports added up give the histogram, the sums and the
 * percentiles of one run with all their transactions; and a report that
 * lacks what a merge needs is refused with the field named.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/jsonreport.h"
#include "judge/merge.h"
#include "judge/merge_int.h"
#include "outputs.h"
#include "pgtempo/xalloc.h"
#include "results/report.h"
#include "svgcheck.h"
#include "unit.h"

/* One host's run: settings, what the report prints, and where it was written. */
typedef struct fake_run
{
	bench_settings s;
	report_data d;
	char		path[64];
} fake_run;

/* A latency between 100 us and 50 ms, spread over the log scale. */
static double
some_latency(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return floor(1e5 * pow(500.0, (double) (*seed >> 8) / (double) (1u << 24)));
}

/* Count one transaction of script k in run r and in the union. */
static void
add_tx(fake_run *r, int k, stats_outcome o, double lat, stats *all, hist *all_h)
{
	uint32_t	tries = o == STATS_OK ? 1 : 2;

	stats_add_tx(&r->d.total, o, tries, lat, 0, false, false);
	stats_add_tx(&r->d.scripts[k], o, tries, lat, 0, false, false);
	stats_add_tx(all, o, tries, lat, 0, false, false);
	r->d.commands[k][0].count++;
	r->d.commands[k][0].sum += lat / 3;
	r->d.commands[k][1].count++;
	r->d.commands[k][1].sum += 2 * lat / 3;
	if (o != STATS_OK)
	{
		r->d.commands[k][1].failures++;
		return;
	}
	hist_record(r->d.lat_hist, (uint64_t) lat);
	hist_record(&r->d.script_hists[k], (uint64_t) lat);
	hist_record(all_h, (uint64_t) lat);
}

/* A two-script run of n transactions, written as a --json report (with waits when given). */
static void
make_run_waits(fake_run *r, unsigned seed, int n, stats *all, hist *all_h,
			   const bwaits_report *waits)
{
	jsonreport_run run = {0};
	bench_server_facts server = {.scale = 1};
	char	   *cause = NULL;
	int			fd;
	unsigned	first_seed = seed;

	memset(r, 0, sizeof(*r));
	r->s = (bench_settings) {.nclients = 4,.nthreads = 2,.duration = 10,.max_tries = 2,
	.per_command = true,.progress = 0};
	for (int i = 0; i < 2; i++)
	{
		r->s.scripts[i] = script_parse(i == 0 ? "a.sql" : "b.sql", "\\set a 1\nselect :a;\n");
		r->s.scripts[i]->weight = i + 1;
	}
	r->s.nscripts = 2;
	r->s.total_weight = 3;
	stats_init(&r->d.total);
	r->d.scripts = xcalloc(2, sizeof(stats));
	r->d.commands = xcalloc(2, sizeof(stats_command *));
	for (int i = 0; i < 2; i++)
		r->d.commands[i] = xcalloc(3, sizeof(stats_command));
	r->d.lat_hist = hist_new(1);
	r->d.script_hists = hist_new(2);
	r->d.bench_duration_s = 10;
	for (int i = 0; i < n; i++)
		add_tx(r, (int) (seed >> 3) % 2 == 0 ? i % 2 : (i / 3) % 2,
			   i % 50 == 7 ? STATS_SERIALIZATION : STATS_OK, some_latency(&seed), all, all_h);
	run.server = &server;
	run.start_epoch_s = 1795698000;
	run.bench_start_epoch_s = 1795698000.5 + (first_seed % 7) / 1000.0;
	run.end_epoch_s = 1795698010.5;
	run.data = &r->d;
	run.waits = waits;
	r->s.waits_ns = waits != NULL ? waits->interval_ns : 0;
	snprintf(r->path, sizeof(r->path), "/tmp/check_bench_merge_XXXXXX");
	fd = mkstemp(r->path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_msg(jsonreport_write(r->path, &r->s, &run, &cause), "%s", cause);
}

static void
make_run(fake_run *r, unsigned seed, int n, stats *all, hist *all_h)
{
	make_run_waits(r, seed, n, all, all_h, NULL);
}

static void
free_run(fake_run *r)
{
	report_data_free(&r->d, 2);
	for (int i = 0; i < 2; i++)
		script_free(r->s.scripts[i]);
	unlink(r->path);
}

/* Two histograms with the same buckets, count, sums, min and max. */
static void
assert_same_hist(const hist *a, const hist *b)
{
	ck_assert(memcmp(a->counts, b->counts, sizeof(a->counts)) == 0);
	ck_assert_uint_eq(a->total, b->total);
	ck_assert_uint_eq(a->min, b->min);
	ck_assert_uint_eq(a->max, b->max);
	ck_assert(a->sum == b->sum);
	ck_assert(a->sumsq == b->sumsq);
}

static void
assert_same_stats(const stats *a, const stats *b)
{
	ck_assert_int_eq(a->cnt, b->cnt);
	ck_assert_int_eq(a->serialization_failures, b->serialization_failures);
	ck_assert_int_eq(a->retried, b->retried);
	ck_assert_int_eq(a->retries, b->retries);
	ck_assert_int_eq(a->latency.count, b->latency.count);
	ck_assert(a->latency.sum == b->latency.sum);
	ck_assert(a->latency.sum2 == b->latency.sum2);
	ck_assert(a->latency.min == b->latency.min);
	ck_assert(a->latency.max == b->latency.max);
}

/* A report read back: the exact numbers it was written from. */
START_TEST(read_back_exact)
{
	stats		all;
	hist	   *all_h = hist_new(1);
	fake_run	r;
	merge_host h;
	char	   *cause = NULL;

	stats_init(&all);
	make_run(&r, 42, 3000, &all, all_h);
	ck_assert_msg(mergeread_host(r.path, &h, &cause), "%s", cause);
	assert_same_stats(&h.total, &r.d.total);
	assert_same_hist(h.h, r.d.lat_hist);
	ck_assert_int_eq(h.nscripts, 2);
	for (int i = 0; i < 2; i++)
	{
		assert_same_stats(&h.scripts[i].st, &r.d.scripts[i]);
		assert_same_hist(h.scripts[i].h, &r.d.script_hists[i]);
		ck_assert_int_eq(h.scripts[i].ncommands, 2);
		ck_assert_int_eq(h.scripts[i].commands[1].count, r.d.commands[i][1].count);
		ck_assert(h.scripts[i].commands[1].sum == r.d.commands[i][1].sum);
		ck_assert_int_eq(h.scripts[i].commands[1].failures, r.d.commands[i][1].failures);
		ck_assert_str_eq(h.s.scripts[i]->commands[1]->first_line, "select :a;");
	}
	ck_assert_int_eq(h.nclients, 4);
	ck_assert(h.start_epoch_s == 1795698000.5 && h.end_epoch_s == 1795698010.5);
	ck_assert(!h.has_waits);
	ck_assert_int_eq(h.s.duration, 10);
	ck_assert_int_eq((int) h.s.mode, (int) QUERY_SIMPLE);
	mergeread_free(&h);
	free_run(&r);
	free(all_h);
}
END_TEST

/* Two reports added up: the histogram, sums and percentiles of all their transactions. */
START_TEST(two_make_one)
{
	static const double pcts[] = {0, 1, 10, 50, 90, 99, 99.9, 100};
	stats		all,
				sum;
	hist	   *all_h = hist_new(1);
	hist	   *sum_h = hist_new(1);
	fake_run	r[2];
	merge_host h[2];
	char	   *cause = NULL;

	stats_init(&all);
	stats_init(&sum);
	make_run(&r[0], 7, 2000, &all, all_h);
	make_run(&r[1], 99, 5000, &all, all_h);
	for (int i = 0; i < 2; i++)
	{
		ck_assert_msg(mergeread_host(r[i].path, &h[i], &cause), "%s", cause);
		stats_merge(&sum, &h[i].total);
		hist_merge(sum_h, h[i].h);
	}
	ck_assert_int_eq(sum.cnt, all.cnt);
	ck_assert_int_eq(sum.latency.count, all.latency.count);
	ck_assert(fabs(sum.latency.sum - all.latency.sum) <= 1e-9 * all.latency.sum);
	ck_assert(memcmp(sum_h->counts, all_h->counts, sizeof(all_h->counts)) == 0);
	ck_assert_uint_eq(sum_h->min, all_h->min);
	ck_assert_uint_eq(sum_h->max, all_h->max);
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		ck_assert_uint_eq(hist_percentile(sum_h, pcts[i]), hist_percentile(all_h, pcts[i]));
	for (int i = 0; i < 2; i++)
	{
		mergeread_free(&h[i]);
		free_run(&r[i]);
	}
	free(all_h);
	free(sum_h);
}
END_TEST

/* merge_run() with stdout sent to /dev/null (it is the TAP stream here); its status. */
static int
quiet_merge(const bench_settings *opts, char **files, int n)
{
	int			saved = dup(STDOUT_FILENO);
	FILE	   *null = fopen("/dev/null", "w");
	int			status;

	fflush(stdout);
	dup2(fileno(null), STDOUT_FILENO);
	status = merge_run(opts, false, files, n);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	fclose(null);
	return status;
}

/* A number at a path of objects in doc (NaN if absent). */
static double
num_at(const jsonread_value *v, const char *const *path)
{
	for (; *path != NULL; path++)
		v = jsonread_get(v, *path);
	return v != NULL && v->type == JSONREAD_NUMBER ? v->num : NAN;
}

/* The whole merge: the merged --json has the sums, the union's percentiles, the waits added. */
START_TEST(merge_whole)
{
	bwaits_event ev1[] = {{"Lock", "transactionid", 300, 75}, {"CPU", NULL, 100, 25}};
	bwaits_event ev2[] = {{"CPU", NULL, 250, 83}, {"IO", "DataFileRead", 50, 17}};
	bwaits_report w1 = {.interval_ns = 10000000, .ticks = 100, .sessions = 4, .counted = 400,
		.cost_us = -1, .backends = -1, .ev = ev1, .nev = 2};
	bwaits_report w2 = {.interval_ns = 10000000, .ticks = 90, .sessions = 3, .counted = 300,
		.cost_us = -1, .backends = -1, .ev = ev2, .nev = 2};
	stats		all;
	hist	   *all_h = hist_new(1);
	fake_run	r[2];
	char	   *files[2] = {r[0].path, r[1].path};
	char		out[] = "/tmp/check_bench_merge_out_XXXXXX";
	bench_settings opts = {.json_path = out,.npercentiles = 3,.percentiles = {50, 99, 99.9}};
	char	   *cause = NULL;
	jsonread_doc *doc;
	const jsonread_value *root,
			   *waits;

	opts.outputs = outputs_table;
	opts.noutputs = outputs_count;
	stats_init(&all);
	make_run_waits(&r[0], 11, 1500, &all, all_h, &w1);
	make_run_waits(&r[1], 12, 2500, &all, all_h, &w2);
	close(mkstemp(out));
	unit_stderr_begin();
	ck_assert_int_eq(quiet_merge(&opts, files, 2), 0);
	free(unit_stderr_end());
	doc = jsonread_file(out, &cause);
	ck_assert_msg(doc != NULL, "%s", cause);
	root = jsonread_root(doc);
	ck_assert(num_at(root, (const char *[]) {"results", "transactions", "processed", NULL}) == (double) all.cnt);
	ck_assert(num_at(root, (const char *[]) {"settings", "clients", NULL}) == 8);
	ck_assert(num_at(root, (const char *[]) {"results", "latency", "percentiles_ms", "p99", NULL}) ==
			  (double) hist_percentile(all_h, 99) / 1e6);
	ck_assert(num_at(root, (const char *[]) {"results", "latency", "percentiles_ms", "p99.9", NULL}) ==
			  (double) hist_percentile(all_h, 99.9) / 1e6);
	ck_assert(num_at(root, (const char *[]) {"waits_sampling", "session_samples", NULL}) == 700);
	ck_assert(num_at(root, (const char *[]) {"waits_sampling", "sessions", NULL}) == 7);
	waits = jsonread_get(root, "waits");
	ck_assert_int_eq(waits->n, 3);
	ck_assert_str_eq(jsonread_get(&waits->u.items[0], "wait_event_type")->u.str, "CPU");
	ck_assert(jsonread_get(&waits->u.items[0], "samples")->num == 350);
	ck_assert(jsonread_get(&waits->u.items[0], "pct")->num == 50);
	ck_assert_str_eq(jsonread_get(&waits->u.items[1], "wait_event")->u.str, "transactionid");
	ck_assert_int_eq(jsonread_get(root, "hosts")->n, 2);
	jsonread_free(doc);

	/* another benchmark: --max-tries differs */
	free_run(&r[1]);
	make_run_waits(&r[1], 12, 100, &all, all_h, &w2);
	r[1].s.max_tries = 3;
	{
		jsonreport_run run = {.data = &r[1].d,.bench_start_epoch_s = 1,.end_epoch_s = 2,.waits = &w2};
		bench_server_facts server = {.scale = 1};

		run.server = &server;
		ck_assert(jsonreport_write(r[1].path, &r[1].s, &run, &cause));
	}
	unit_stderr_begin();
	ck_assert_int_eq(quiet_merge(&opts, files, 2), 1);
	cause = unit_stderr_end();
	ck_assert_msg(strstr(cause, "settings.max_tries differs") != NULL, "%s", cause);
	free(cause);
	for (int i = 0; i < 2; i++)
		free_run(&r[i]);
	unlink(out);
	free(all_h);
}
END_TEST

/* Edits of a good report, and what reading the result must say. */
static const struct
{
	const char *from;
	const char *to;
	const char *want;
}			bad_cases[] = {
	{"\"tool\": \"pgtempo-bench\"", "\"tool\": \"pgbench\"", "not a pgtempo-bench --json report"},
	{"\"schema\": 1,", "\"schema\": 7,", "schema 7, this version reads schema 1"},
	{"\"bench_start_epoch_s\":", "\"bench_start_epoch\":", "did not record the sums a merge needs"},
	{"\"sum_ns\":", "\"sum_nz\":", "field \"results.latency.sum_ns\" is missing"},
	{"\"processed\": ", "\"processed\": -", "field \"results.transactions.processed\" is not a count"},
	{"\"results\": {", "\"results\": null, \"x\": {", "the run did not start"},
	{"\"low_us\": ", "\"low_us\": 1", "is not one of this version's buckets"},
	{"\"count\": ", "\"count\": 1", "counts"},
	{"\"settings\": {", "\"settings\": [], \"y\": {", "field \"settings\" is an array, not an object"},
	{"\"command\": \"", "\"command\": 5, \"z\": \"", "field \"commands[].command\" is not a string"},
	{"}\n", "", "is not valid JSON: line"},
};

START_TEST(bad_reports)
{
	stats		all;
	hist	   *all_h = hist_new(1);
	fake_run	r;
	merge_host h;
	char	   *cause = NULL;
	FILE	   *f;
	char	   *text;
	long		len;
	strbuf		sb;
	const char *at;

	stats_init(&all);
	make_run(&r, 5, 100, &all, all_h);
	f = fopen(r.path, "r");
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = xcalloc((size_t) len + 1, 1);
	ck_assert_int_eq(fread(text, 1, (size_t) len, f), len);
	fclose(f);
	at = strstr(text, bad_cases[_i].from);
	ck_assert_ptr_nonnull(at);
	if (bad_cases[_i].to[0] == '\0')
		at = strrchr(text, '}');	/* truncated: the last brace goes */
	strbuf_init(&sb);
	strbuf_append(&sb, text, (size_t) (at - text));
	strbuf_puts(&sb, bad_cases[_i].to);
	if (bad_cases[_i].to[0] != '\0')
		strbuf_puts(&sb, at + strlen(bad_cases[_i].from));
	f = fopen(r.path, "w");
	fwrite(sb.data, 1, sb.len, f);
	fclose(f);
	ck_assert(!mergeread_host(r.path, &h, &cause));
	ck_assert_msg(strstr(cause, bad_cases[_i].want) != NULL, "%s", cause);
	ck_assert_msg(strstr(cause, r.path) != NULL, "the file is named: %s", cause);
	free(cause);
	strbuf_free(&sb);
	free(text);
	free_run(&r);
	free(all_h);
}
END_TEST

/* A file's whole text (caller frees). */
static char *
slurp_file(const char *path)
{
	FILE	   *f = fopen(path, "r");
	strbuf		sb;
	char		buf[4096];
	size_t		n;

	ck_assert_ptr_nonnull(f);
	strbuf_init(&sb);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_append(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb);
}

/*
 * --waits with -P: each progress entry's sessions by wait class
 * ("waits_aas") are added per interval over the hosts, and the merged
 * --chart has the waits panel under tps and latency.
 */
START_TEST(merge_waits_series)
{
	bwaits_event ev[] = {{"Lock", "transactionid", 300, 75}, {"CPU", NULL, 100, 25}};
	bwaits_report w = {.interval_ns = 10000000, .ticks = 100, .sessions = 4, .counted = 400,
		.cost_us = -1, .backends = -1, .ev = ev, .nev = 2};
	stats		all;
	hist	   *all_h = hist_new(1);
	fake_run	r[2];
	char	   *files[2] = {r[0].path, r[1].path};
	char		out[] = "/tmp/check_bench_merge_out_XXXXXX";
	char		svg[] = "/tmp/check_bench_merge_svg_XXXXXX";
	bench_settings opts = {.json_path = out,.chart_path = svg,.npercentiles = 1,.percentiles = {50}};
	char	   *cause = NULL;
	jsonread_doc *doc;
	const jsonread_value *prog;
	char	   *text;
	const char *bad;
	int			status;

	opts.outputs = outputs_table;
	opts.noutputs = outputs_count;
	stats_init(&all);
	for (int i = 0; i < 2; i++)
	{
		report_progress_point pts[2];
		jsonreport_run run = {.data = &r[i].d,.bench_start_epoch_s = 1795698000.5 + i / 1000.0,
		.end_epoch_s = 1795698002.5,.waits = &w,.progress = pts,.nprogress = 2};
		bench_server_facts server = {.scale = 1};

		make_run_waits(&r[i], 21 + i, 200, &all, all_h, &w);
		r[i].s.progress = 1;
		memset(pts, 0, sizeof(pts));
		for (int k = 0; k < 2; k++)
		{
			pts[k].elapsed_s = k + 1;
			pts[k].epoch_s = 1795698000.5 + k + 1;
			pts[k].interval_s = 1;
			pts[k].transactions = 50;
			pts[k].tps = 50;
			pts[k].waits_mix.any = true;
			pts[k].waits_mix.aas[bwaits_class_of("Lock")] = k == 0 ? 0.5 : 3.0 + i;
			pts[k].waits_mix.aas[bwaits_class_of("CPU")] = 1.0;
			pts[k].waits_mix.aas[bwaits_class_of("NewType")] = 0.25;
		}
		run.server = &server;
		ck_assert_msg(jsonreport_write(r[i].path, &r[i].s, &run, &cause), "%s", cause);
	}
	close(mkstemp(out));
	close(mkstemp(svg));
	unit_stderr_begin();
	status = quiet_merge(&opts, files, 2);
	cause = unit_stderr_end();
	ck_assert_msg(status == 0, "%s", cause);
	free(cause);
	doc = jsonread_file(out, &cause);
	ck_assert_msg(doc != NULL, "%s", cause);
	prog = jsonread_get(jsonread_root(doc), "progress");
	ck_assert_int_eq(prog->n, 2);
	ck_assert(num_at(&prog->u.items[0], (const char *[]) {"waits_aas", "Lock", NULL}) == 1.0);
	ck_assert(num_at(&prog->u.items[1], (const char *[]) {"waits_aas", "Lock", NULL}) == 7.0);
	ck_assert(num_at(&prog->u.items[1], (const char *[]) {"waits_aas", "CPU", NULL}) == 2.0);
	ck_assert(num_at(&prog->u.items[1], (const char *[]) {"waits_aas", "other", NULL}) == 0.5);
	ck_assert(num_at(&prog->u.items[1], (const char *[]) {"waits_aas", "IO", NULL}) == 0);
	jsonread_free(doc);

	text = slurp_file(svg);
	bad = svgcheck_xml_error(text);
	ck_assert_msg(bad == NULL, "%s", bad);
	ck_assert_msg(strstr(text, "Wait events of the sessions") != NULL, "no waits panel");
	ck_assert_msg(strstr(text, ">Lock<") != NULL && strstr(text, ">CPU<") != NULL &&
				  strstr(text, ">other<") != NULL, "the classes seen are in the legend");
	ck_assert_msg(strstr(text, ">IO<") == NULL, "a class never seen has no series");
	free(text);
	for (int i = 0; i < 2; i++)
		free_run(&r[i]);
	unlink(out);
	unlink(svg);
	free(all_h);
}
END_TEST

static Suite *
merge_suite(void)
{
	Suite	   *s = suite_create("bench_merge");
	TCase	   *tc = tcase_create("read");

	tcase_add_test(tc, read_back_exact);
	tcase_add_test(tc, two_make_one);
	tcase_add_test(tc, merge_whole);
	tcase_add_test(tc, merge_waits_series);
	tcase_add_loop_test(tc, bad_reports, 0, sizeof(bad_cases) / sizeof(bad_cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(merge_suite());
}
