/*
 * report.c — pg_test_timing's text and JSON reports.
 *
 * The text layout of the first pass is PostgreSQL's, to the byte, so
 * scripts that parse pg_test_timing keep working: PostgreSQL 15's
 * microsecond table by default, PostgreSQL 19's nanosecond tables with
 * --histogram=ns.  Everything pgtempo adds comes after those lines.
 */
#include "config.h"

#include "report.h"

#include <string.h>

#include "pgtempo/json.h"
#include "pgtempo/table.h"
#include "pgcost.h"

/* Percentiles of every pass, in the JSON report. */
static const struct
{
	const char *key;
	double		pct;
}			percentiles[] = {
	{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99},
};

const char *
report_clock_name(const timing_pass *p)
{
	return p->clock == TIMING_CLOCK_FAKE ? "system" : timing_clock_name(p->clock);
}

void
report_header(FILE *out, const timing_settings *s)
{
	fprintf(out, "Testing timing overhead for %u %s.\n", s->duration_s,
			s->duration_s == 1 ? "second" : "seconds");
	fflush(out);
}

static double
pct_of(uint64_t n, uint64_t total)
{
	return total ? (double) n * 100.0 / (double) total : 0.0;
}

/*
 * PostgreSQL's columns: 15's microsecond table (a share is at most
 * "100.00000", so it fills its column as PostgreSQL's "%9.5f" after four
 * spaces does), and 19's nanosecond tables.
 */
static const table_col us_cols[] = {
	{"< us", 6, "", false}, {"% of total", 10, "   ", false}, {"count", 10, " ", false},
};
static const table_col ns_cols[] = {
	{"<= ns", 8, "", false}, {"% of total", 10, "   ", false},
	{"running %", 10, " ", false}, {"count", 10, " ", false},
};
static const table_col observed_cols[] = {
	{"ns", 8, "", false}, {"% of total", 10, "   ", false},
	{"running %", 10, " ", false}, {"count", 10, " ", false},
};

/* A row of the nanosecond tables: duration, share, running share, count. */
static void
ns_row(FILE *out, const table_col *cols, uint64_t ns, double pct, double running, uint64_t count)
{
	char		c[4][32];

	snprintf(c[0], sizeof(c[0]), "%llu", (unsigned long long) ns);
	snprintf(c[1], sizeof(c[1]), "%.4f", pct);
	snprintf(c[2], sizeof(c[2]), "%.4f", running);
	snprintf(c[3], sizeof(c[3]), "%llu", (unsigned long long) count);
	table_row(out, cols, 4, (const char *const[]) {c[0], c[1], c[2], c[3]});
}

/* PostgreSQL 15: "< us" rows from bucket 0 up to the highest non-empty one. */
static void
print_us_table(FILE *out, const timing_pass *p)
{
	hlog2		h;
	int			top;

	timing_hist_us(p, &h);
	top = hlog2_top(&h);
	fprintf(out, "Histogram of timing durations:\n");
	table_header(out, us_cols, TABLE_NCOLS(us_cols));
	for (int b = 0; b <= top; b++)
	{
		char		c[3][32];

		snprintf(c[0], sizeof(c[0]), "%llu", 1ULL << b);
		snprintf(c[1], sizeof(c[1]), "%.5f", pct_of(h.count[b], p->loops));
		snprintf(c[2], sizeof(c[2]), "%llu", (unsigned long long) h.count[b]);
		table_row(out, us_cols, TABLE_NCOLS(us_cols), (const char *const[]) {c[0], c[1], c[2]});
	}
}

/*
 * Walk the exact durations the way PostgreSQL 19 prints them: rows until
 * the running percentage reaches the cutoff, then only the largest
 * duration (after "..." when rows were left out).  emit is called for
 * each row to print (ns, count, pct, running pct) and with count 0 for
 * a "..." gap.
 */
typedef void (*observed_fn) (void *arg, uint64_t ns, uint64_t count, double pct, double running);

static void
walk_observed(const timing_pass *p, double cutoff, observed_fn emit, void *arg)
{
	double		running = 0;
	bool		stopped = false;

	for (uint64_t ns = 0; ns < TIMING_DIRECT; ns++)
	{
		double		pct;
		bool		print_it = !stopped;

		if (p->direct[ns] == 0)
			continue;
		pct = pct_of(p->direct[ns], p->loops);
		running += pct;
		if (ns == p->largest_ns)
		{
			if (stopped)
				emit(arg, 0, 0, 0, 0);
			print_it = true;
		}
		if (print_it)
			emit(arg, ns, p->direct[ns], pct, running);
		if (running >= cutoff)
			stopped = true;
	}
	if (p->largest_ns >= TIMING_DIRECT)
	{
		emit(arg, 0, 0, 0, 0);
		emit(arg, p->largest_ns, p->largest_count, pct_of(p->largest_count, p->loops), 100.0);
	}
}

static void
observed_text(void *arg, uint64_t ns, uint64_t count, double pct, double running)
{
	FILE	   *out = arg;

	if (count == 0)
		fprintf(out, "...\n");
	else
		ns_row(out, observed_cols, ns, pct, running, count);
}

/* PostgreSQL 19: "<= ns" rows with running percentages, then the exact durations. */
static void
print_ns_tables(FILE *out, const timing_pass *p, double cutoff)
{
	hlog2		h;
	int			top;
	double		running = 0;

	timing_hist_ns(p, &h);
	top = hlog2_top(&h);
	fprintf(out, "Histogram of timing durations:\n");
	table_header(out, ns_cols, TABLE_NCOLS(ns_cols));
	for (int b = 0; b <= top; b++)
	{
		double		pct = pct_of(h.count[b], p->loops);

		running += pct;
		ns_row(out, ns_cols, hlog2_bucket_max(b), pct, running, h.count[b]);
	}
	fprintf(out, "\nObserved timing durations up to %.4f%%:\n", cutoff);
	table_header(out, observed_cols, TABLE_NCOLS(observed_cols));
	walk_observed(p, cutoff, observed_text, out);
}

static void
describe_tsc(char *buf, size_t size, const clock_tsc *tsc)
{
	snprintf(buf, size, "%.2f MHz, %s", (double) tsc->hz / 1e6,
			 clock_tsc_source_name(tsc->source));
}

void
report_pass_text(FILE *out, const timing_results *r, const timing_pass *p)
{
	const timing_settings *s = r->settings;

	/* A lone system-clock pass prints exactly PostgreSQL's lines. */
	if (results_nclocks(s) > 1 || p->clock == TIMING_CLOCK_RDTSC || p->clock == TIMING_CLOCK_RDTSCP)
	{
		char		tsc[160] = "";

		if (p->clock == TIMING_CLOCK_RDTSC || p->clock == TIMING_CLOCK_RDTSCP)
		{
			if (p->outcome == TIMING_UNAVAILABLE)
			{
				fprintf(out, "\nClock %s: unavailable: %s\n", report_clock_name(p),
						p->why_not);
				return;
			}
			describe_tsc(tsc, sizeof(tsc), &r->tsc);
		}
		fprintf(out, "\nClock %s: %s%s%s%s\n", report_clock_name(p),
				timing_clock_description(p->clock), tsc[0] ? " (" : "", tsc, tsc[0] ? ")" : "");
	}
	if (s->unit == TIMING_UNIT_US)
	{
		fprintf(out, "Per loop time including overhead: %0.2f ns\n", timing_per_loop_ns(p));
		print_us_table(out, p);
	}
	else
	{
		fprintf(out, "Average loop time including overhead: %0.2f ns\n", timing_per_loop_ns(p));
		print_ns_tables(out, p, s->cutoff);
	}
	if (p->outcome == TIMING_INTERRUPTED)
		fprintf(out, "Interrupted after %.3f s: the table covers the reads made until then.\n",
				(double) p->elapsed_ns / 1e9);
	fflush(out);
}

void
report_env_text(FILE *out, const timing_results *r)
{
	const clockenv *e = &r->env;
	const char *advice = clockenv_advice(e);
	static const char *flag_names[] = {"tsc", "constant_tsc", "nonstop_tsc", "tsc_reliable", "rdtscp"};
	bool		flags[] = {e->tsc, e->constant_tsc, e->nonstop_tsc, e->tsc_reliable, e->rdtscp};
	char		tsc[160];

	fprintf(out, "\nClock environment:\n");
	fprintf(out, "  clocksource:       %s\n", e->current[0] ? e->current : "unknown");
	fprintf(out, "  available:         %s\n", e->available[0] ? e->available : "unknown");
	if (e->flags_known)
	{
		bool		any_missing = false;

		fprintf(out, "  TSC CPU flags:     ");
		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			if (flags[i])
				fprintf(out, "%s ", flag_names[i]);
		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			if (!flags[i])
			{
				fprintf(out, "%s%s", any_missing ? " " : "(missing: ", flag_names[i]);
				any_missing = true;
			}
		fprintf(out, "%s\n", any_missing ? ")" : "");
	}
	else
		fprintf(out, "  TSC CPU flags:     unknown (/proc/cpuinfo not readable)\n");
	if (e->hypervisor)
		fprintf(out, "  hypervisor:        %s\n", e->hypervisor_vendor[0] ? e->hypervisor_vendor : "yes");
	else
		fprintf(out, "  hypervisor:        none\n");
	if (r->tsc.usable)
	{
		describe_tsc(tsc, sizeof(tsc), &r->tsc);
		fprintf(out, "  TSC:               usable, %s\n", tsc);
	}
	else
		fprintf(out, "  TSC:               unavailable: %s\n", r->tsc.why_not);
	if (advice)
		fprintf(out, "  advice:            %s\n", advice);
	fflush(out);
}

/* The pass of the clock PostgreSQL reads (the system clock), if it ran; else NULL. */
static const timing_pass *
system_pass(const timing_results *r)
{
	for (int i = 0; i < r->npasses; i++)
		if ((r->passes[i]->clock == TIMING_CLOCK_SYSTEM || r->passes[i]->clock == TIMING_CLOCK_FAKE) &&
			r->passes[i]->loops > 0 && r->passes[i]->outcome != TIMING_BACKWARDS)
			return r->passes[i];
	return NULL;
}

void
report_cost_text(FILE *out, const timing_results *r)
{
	const timing_pass *p = system_pass(r);

	if (p == NULL)
		return;
	pgcost_text(out, timing_per_loop_ns(p));
	fflush(out);
}

void
report_cross_text(FILE *out, const timing_results *r, const crosscpu_result *c)
{
	fprintf(out, "\nCross-CPU check, clock %s:\n", timing_clock_name(c->clock));
	if (c->why_not[0])
	{
		fprintf(out, "  not run: %s\n", c->why_not);
		return;
	}
	fprintf(out, "  %-13s %12s %10s %14s %14s\n", "from -> to", "checks", "backwards",
			"max back ns", "min fwd ns");
	for (int from = 0; from < c->ncpus; from++)
		for (int to = 0; to < c->ncpus; to++)
		{
			const crosscpu_pair *pr = &c->pairs[from * c->ncpus + to];
			char		label[32];
			char		minfwd[24];

			if (from == to)
				continue;
			snprintf(label, sizeof(label), "cpu%d -> cpu%d", c->cpus[from], c->cpus[to]);
			if (pr->min_fwd_ns == UINT64_MAX)
				snprintf(minfwd, sizeof(minfwd), "-");
			else
				snprintf(minfwd, sizeof(minfwd), "%llu", (unsigned long long) pr->min_fwd_ns);
			fprintf(out, "  %-13s %12llu %10llu %14llu %14s\n", label,
					(unsigned long long) pr->checks, (unsigned long long) pr->backwards,
					(unsigned long long) pr->max_back_ns, minfwd);
		}
	if (c->unpinned)
		fprintf(out, "  warning: %d thread(s) could not be pinned to their CPU\n", c->unpinned);
	if (c->backwards)
		fprintf(out, "  Detected clock going backwards across CPUs: %llu of %llu checks, "
				"by up to %llu ns.\n", (unsigned long long) c->backwards,
				(unsigned long long) c->checks, (unsigned long long) c->max_back_ns);
	else if (c->checks == 0)
		fprintf(out, "  No cross-CPU reads were made: the threads never alternated.\n");
	else
		fprintf(out, "  No clock went backwards across CPUs in %llu checks.\n",
				(unsigned long long) c->checks);
	fflush(out);
}

/* ---------------------------------------------------------------- JSON */

static void
observed_json(void *arg, uint64_t ns, uint64_t count, double pct, double running)
{
	json_writer *w = arg;

	if (count == 0)
		return;
	json_object_begin(w);
	json_kv_uint(w, "ns", ns);
	json_kv_uint(w, "count", count);
	json_kv_double(w, "pct", pct);
	json_kv_double(w, "running_pct", running);
	json_object_end(w);
}

static void
json_tsc(json_writer *w, const clock_tsc *t)
{
	json_object_begin(w);
	json_kv_bool(w, "present", t->present);
	json_kv_bool(w, "invariant", t->invariant);
	json_kv_bool(w, "rdtscp", t->has_rdtscp);
	json_kv_bool(w, "usable", t->usable);
	if (t->usable)
	{
		json_kv_uint(w, "frequency_hz", t->hz);
		json_kv_string(w, "frequency_source", clock_tsc_source_name(t->source));
	}
	else
		json_kv_string(w, "why_not", t->why_not);
	json_object_end(w);
}

const char *
report_outcome_name(timing_outcome o)
{
	switch (o)
	{
		case TIMING_OK:
			return "ok";
		case TIMING_BACKWARDS:
			return "backwards";
		case TIMING_INTERRUPTED:
			return "interrupted";
		case TIMING_UNAVAILABLE:
			return "unavailable";
	}
	return "unknown";
}

static void
json_pass(json_writer *w, const timing_results *r, const timing_pass *p)
{
	hlog2		h;
	int			top;
	double		running = 0;

	json_object_begin(w);
	json_kv_string(w, "clock", report_clock_name(p));
	json_kv_string(w, "description", timing_clock_description(p->clock));
	json_kv_string(w, "outcome", report_outcome_name(p->outcome));
	if (p->outcome == TIMING_UNAVAILABLE)
	{
		json_kv_string(w, "why_not", p->why_not);
		json_object_end(w);
		return;
	}
	json_kv_uint(w, "loops", p->loops);
	json_kv_uint(w, "elapsed_ns", p->elapsed_ns);
	json_kv_double(w, "per_loop_ns", timing_per_loop_ns(p));
	json_key(w, "time_warp_ns");
	if (p->outcome == TIMING_BACKWARDS)
		json_uint(w, p->warp_ns);
	else
		json_null(w);

	json_key(w, "percentiles_ns");
	json_object_begin(w);
	json_kv_uint(w, "min", p->loops ? p->durations.min : 0);
	for (size_t i = 0; i < sizeof(percentiles) / sizeof(percentiles[0]); i++)
		json_kv_uint(w, percentiles[i].key, hist_percentile(&p->durations, percentiles[i].pct));
	json_kv_uint(w, "max", p->largest_ns);
	json_object_end(w);
	json_kv_double(w, "mean_ns", hist_mean(&p->durations));
	json_kv_uint(w, "largest_ns", p->largest_ns);
	json_kv_uint(w, "largest_count", p->largest_count);

	timing_hist_us(p, &h);
	top = hlog2_top(&h);
	json_key(w, "histogram_us");
	json_array_begin(w);
	for (int b = 0; b <= top; b++)
	{
		json_object_begin(w);
		json_kv_uint(w, "lt_us", 1ULL << b);
		json_kv_uint(w, "count", h.count[b]);
		json_kv_double(w, "pct", pct_of(h.count[b], p->loops));
		json_object_end(w);
	}
	json_array_end(w);

	timing_hist_ns(p, &h);
	top = hlog2_top(&h);
	json_key(w, "histogram_ns");
	json_array_begin(w);
	for (int b = 0; b <= top; b++)
	{
		double		pct = pct_of(h.count[b], p->loops);

		running += pct;
		json_object_begin(w);
		json_kv_uint(w, "le_ns", hlog2_bucket_max(b));
		json_kv_uint(w, "count", h.count[b]);
		json_kv_double(w, "pct", pct);
		json_kv_double(w, "running_pct", running);
		json_object_end(w);
	}
	json_array_end(w);

	json_key(w, "observed_ns");
	json_array_begin(w);
	walk_observed(p, r->settings->cutoff, observed_json, w);
	json_array_end(w);
	json_object_end(w);
}

static void
json_cross(json_writer *w, const crosscpu_result *c)
{
	json_object_begin(w);
	json_kv_string(w, "clock", timing_clock_name(c->clock));
	json_kv_bool(w, "ran", c->why_not[0] == '\0');
	if (c->why_not[0])
	{
		json_kv_string(w, "why_not", c->why_not);
		json_object_end(w);
		return;
	}
	json_kv_int(w, "cpus", c->ncpus);
	json_kv_uint(w, "checks", c->checks);
	json_kv_uint(w, "backwards", c->backwards);
	json_kv_uint(w, "max_back_ns", c->max_back_ns);
	json_kv_int(w, "unpinned_threads", c->unpinned);
	json_key(w, "pairs");
	json_array_begin(w);
	for (int from = 0; from < c->ncpus; from++)
		for (int to = 0; to < c->ncpus; to++)
		{
			const crosscpu_pair *pr = &c->pairs[from * c->ncpus + to];

			if (from == to)
				continue;
			json_object_begin(w);
			json_kv_int(w, "from_cpu", c->cpus[from]);
			json_kv_int(w, "to_cpu", c->cpus[to]);
			json_kv_uint(w, "checks", pr->checks);
			json_kv_uint(w, "backwards", pr->backwards);
			json_kv_uint(w, "max_back_ns", pr->max_back_ns);
			json_key(w, "min_fwd_ns");
			if (pr->min_fwd_ns == UINT64_MAX)
				json_null(w);
			else
				json_uint(w, pr->min_fwd_ns);
			json_object_end(w);
		}
	json_array_end(w);
	json_object_end(w);
}

const char *
report_verdict(const timing_results *r)
{
	return results_backwards(r) ? "backwards" :
		results_cross_backwards(r) ? "backwards_across_cpus" :
		r->signo ? "interrupted" : "ok";
}

void
report_json(strbuf *out, const timing_results *r)
{
	const timing_settings *s = r->settings;
	const clockenv *e = &r->env;
	const char *advice = clockenv_advice(e);
	json_writer w;

	json_init(&w, out, true);
	json_object_begin(&w);
	json_kv_string(&w, "tool", "pg_test_timing");
	json_kv_string(&w, "version", PACKAGE_VERSION);
	json_kv_uint(&w, "duration_s", s->duration_s);
	json_kv_double(&w, "cutoff_pct", s->cutoff);
	json_kv_string(&w, "histogram", s->unit == TIMING_UNIT_US ? "us" : "ns");

	json_key(&w, "passes");
	json_array_begin(&w);
	for (int i = 0; i < r->npasses; i++)
		json_pass(&w, r, r->passes[i]);
	json_array_end(&w);

	json_key(&w, "cross_cpu");
	if (results_ncross(r) == 0)
		json_null(&w);
	else
	{
		json_array_begin(&w);
		for (int i = 0; i < TIMING_CLOCK_COUNT; i++)
			if (r->cross_ran[i])
				json_cross(&w, &r->cross[i]);
		json_array_end(&w);
	}

	json_key(&w, "clock_environment");
	json_object_begin(&w);
	json_kv_string(&w, "clocksource", e->current[0] ? e->current : NULL);
	json_key(&w, "available_clocksources");
	json_array_begin(&w);
	{
		char		buf[sizeof(e->available)];
		char	   *save = NULL;

		memcpy(buf, e->available, sizeof(buf));
		for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			json_string(&w, tok);
	}
	json_array_end(&w);
	json_key(&w, "cpu_flags");
	if (e->flags_known)
	{
		json_object_begin(&w);
		json_kv_bool(&w, "tsc", e->tsc);
		json_kv_bool(&w, "constant_tsc", e->constant_tsc);
		json_kv_bool(&w, "nonstop_tsc", e->nonstop_tsc);
		json_kv_bool(&w, "tsc_reliable", e->tsc_reliable);
		json_kv_bool(&w, "rdtscp", e->rdtscp);
		json_object_end(&w);
	}
	else
		json_null(&w);
	json_kv_bool(&w, "hypervisor", e->hypervisor);
	json_kv_string(&w, "hypervisor_vendor", e->hypervisor_vendor[0] ? e->hypervisor_vendor : NULL);
	json_key(&w, "tsc");
	json_tsc(&w, &r->tsc);
	json_kv_string(&w, "advice", advice);
	json_object_end(&w);

	if (system_pass(r) != NULL)
		pgcost_json(&w, timing_per_loop_ns(system_pass(r)));
	else
	{
		json_key(&w, "postgresql_cost");
		json_null(&w);
	}

	json_kv_string(&w, "verdict", report_verdict(r));
	json_kv_int(&w, "exit_status", r->exit_status);
	json_object_end(&w);
	strbuf_putc(out, '\n');
}
