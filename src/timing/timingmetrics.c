/*
 * timingmetrics.c — pg_test_timing's results as Prometheus metrics: one
 * series per clock pass (label clock), the clock environment as info
 * metrics.  The same numbers as the JSON report, in base units (seconds).
 */
#include "config.h"

#include "timingmetrics.h"

#include <math.h>
#include <stdlib.h>

#include "pgtempo/strbuf.h"

#include "report.h"

#define NS_TO_S(ns) ((double) (ns) / 1e9)

static const char *
yesno(bool b)
{
	return b ? "true" : "false";
}

/* The read durations of a pass: the ns table's buckets, bounds in seconds. */
static void
add_histogram(metrics *m, const timing_pass *p, const char *const *labels)
{
	hlog2		h;
	double		le[HLOG2_BUCKETS];
	int			top;

	timing_hist_ns(p, &h);
	top = hlog2_top(&h);
	if (top < TIMINGMETRICS_MIN_TOP)
		top = TIMINGMETRICS_MIN_TOP;
	for (int b = 0; b <= top; b++)
		le[b] = NS_TO_S(hlog2_bucket_max(b));
	metrics_histogram(m, "pgtempo_timing_read_duration_seconds",
					  "Time between two consecutive clock reads, a loop's overhead included.",
					  labels, le, h.count, (size_t) top + 1, NS_TO_S(p->durations.sum));
}

/* One pass: its outcome always, its numbers when the clock could be read. */
static void
add_pass(metrics *m, const timing_pass *p)
{
	const char *labels[] = {"clock", report_clock_name(p), NULL};

	metrics_info(m, "pgtempo_timing_pass_info", "A clock's pass and how it ended.",
				 (const char *[]) {"clock", report_clock_name(p),
				 "outcome", report_outcome_name(p->outcome), NULL});
	if (p->outcome == TIMING_UNAVAILABLE)
		return;
	metrics_counter(m, "pgtempo_timing_loops_total", "Clock reads timed (loops of the pass).",
					labels, (double) p->loops);
	metrics_gauge(m, "pgtempo_timing_pass_seconds", "How long the pass read the clock.",
				  labels, NS_TO_S(p->elapsed_ns));
	metrics_gauge(m, "pgtempo_timing_per_loop_seconds",
				  "Average time per loop including overhead (pass time / loops).",
				  labels, timing_per_loop_ns(p) / 1e9);
	metrics_gauge(m, "pgtempo_timing_largest_seconds", "The longest time between two reads.",
				  labels, NS_TO_S(p->largest_ns));
	metrics_counter(m, "pgtempo_timing_backwards_total",
					"Backward steps of the clock seen by the pass (it stops at the first).",
					labels, p->outcome == TIMING_BACKWARDS ? 1 : 0);
	metrics_gauge(m, "pgtempo_timing_time_warp_seconds",
				  "How far the clock went back (0 if it never did).",
				  labels, p->outcome == TIMING_BACKWARDS ? NS_TO_S(p->warp_ns) : 0);
	add_histogram(m, p, labels);
}

static void
add_cross(metrics *m, const crosscpu_result *c)
{
	const char *labels[] = {"clock", timing_clock_name(c->clock), NULL};

	if (c->why_not[0] != '\0')
		return;
	metrics_counter(m, "pgtempo_timing_cross_cpu_checks_total",
					"Reads compared across CPUs (--cross-cpu).", labels, (double) c->checks);
	metrics_counter(m, "pgtempo_timing_cross_cpu_backwards_total",
					"Reads on one CPU earlier than a read before them on another (--cross-cpu).",
					labels, (double) c->backwards);
}

/* The clock environment: what the kernel and the CPU say. */
static void
add_env(metrics *m, const timing_results *r)
{
	const clockenv *e = &r->env;
	const clock_tsc *t = &r->tsc;
	const char *unknown = "unknown";

	metrics_info(m, "pgtempo_timing_clocksource_info",
				 "The kernel's clock source, those it has, and the hypervisor if any.",
				 (const char *[]) {"clocksource", e->current[0] ? e->current : unknown,
				 "available", e->available,
				 "hypervisor", yesno(e->hypervisor),
				 "hypervisor_vendor", e->hypervisor_vendor, NULL});
	metrics_info(m, "pgtempo_timing_tsc_info",
				 "The CPU's time stamp counter: its flags and whether the TSC clocks can use it.",
				 (const char *[]) {"present", yesno(t->present),
				 "invariant", yesno(t->invariant),
				 "rdtscp", yesno(t->has_rdtscp),
				 "usable", yesno(t->usable),
				 "frequency_source", t->hz ? clock_tsc_source_name(t->source) : unknown,
				 "constant_tsc", e->flags_known ? yesno(e->constant_tsc) : unknown,
				 "nonstop_tsc", e->flags_known ? yesno(e->nonstop_tsc) : unknown,
				 "tsc_reliable", e->flags_known ? yesno(e->tsc_reliable) : unknown, NULL});
	if (t->hz)
		metrics_gauge(m, "pgtempo_timing_tsc_frequency_hertz", "The TSC's ticks per second.",
					  NULL, (double) t->hz);
}

void
timingmetrics_build(metrics *m, const timing_results *r)
{
	metrics_info(m, "pgtempo_timing_run_info", "The run: pgtempo's version and the verdict.",
				 (const char *[]) {"version", PACKAGE_VERSION, "verdict", report_verdict(r), NULL});
	metrics_gauge(m, "pgtempo_timing_duration_seconds", "Duration asked for each pass (-d).",
				  NULL, (double) r->settings->duration_s);
	for (int i = 0; i < r->npasses; i++)
		add_pass(m, r->passes[i]);
	for (int c = 0; c < TIMING_CLOCK_COUNT; c++)
		if (r->cross_ran[c])
			add_cross(m, &r->cross[c]);
	add_env(m, r);
}

bool
timingmetrics_write(const char *path, const timing_results *r, char **cause)
{
	metrics		m;
	strbuf		sb;
	bool		ok;

	metrics_init(&m);
	strbuf_init(&sb);
	timingmetrics_build(&m, r);
	ok = metrics_render(&m, 0, &sb, cause) && metrics_write_file(path, &sb, cause);
	strbuf_free(&sb);
	metrics_free(&m);
	return ok;
}
