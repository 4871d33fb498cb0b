/*
 * benchchart.c — drawing pgtempo-bench's --chart.
 */
#include "config.h"

#include "benchchart.h"

#include <math.h>
#include <stdio.h>

#include "pgtempo/chart.h"
#include "pgtempo/strbuf.h"
#include "report.h"

/* The failures and the skipped transactions of the whole run, for the legend. */
static void
sum_events(const bench_chart_point *pts, int n, int64_t *failed, int64_t *skipped)
{
	for (int i = 0; i < n; i++)
	{
		*failed += pts[i].failed;
		*skipped += pts[i].skipped;
	}
}

/* The colour of each wait class: the same class looks the same in every chart. */
static const int class_colours[BWAITS_NCLASSES] = {
	CHART_GREEN, CHART_VERMILLION, CHART_ORANGE, CHART_BLUE, CHART_PURPLE, CHART_YELLOW,
	CHART_SKY, CHART_TEAL, CHART_OLIVE, CHART_INDIGO, CHART_GREY
};

/*
 * --waits: a third panel on the same time axis, the sessions of each wait
 * class stacked (average active sessions per interval), so that a dip in
 * tps lines up with the waits that caused it.  Only the classes seen get
 * a series; an interval without samples is a gap of zeros.
 */
static void
waits_panel(chart *c, const bench_chart_point *pts, int n)
{
	int			panel = chart_add_panel(c, "Wait events of the sessions", 0);
	int			series[BWAITS_NCLASSES];

	chart_set_y(c, panel, CHART_LEFT, "average active sessions", "sessions");
	for (int k = 0; k < BWAITS_NCLASSES; k++)
	{
		bool		seen = false;

		for (int i = 0; i < n && !seen; i++)
			seen = pts[i].waits.aas[k] > 0;
		series[k] = seen ? chart_add_series(c, panel, bwaits_class_names[k], CHART_AREA,
											CHART_LEFT, class_colours[k]) : -1;
	}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < BWAITS_NCLASSES; k++)
			if (series[k] >= 0)
				chart_add_point(c, series[k], pts[i].elapsed_s, pts[i].waits.aas[k]);
}

bool
bench_chart_write(const bench_settings *s, const char *subtitle, const bench_chart_point *pts,
				  int n, char **cause)
{
	chart	   *c = chart_new("pgtempo-bench", subtitle);
	int			tput = chart_add_panel(c, "Throughput", 0);
	int			lat = chart_add_panel(c, "Latency", 0);
	int			s_tps,
				s_warm = -1,
				s_target = -1,
				s_fail,
				s_skip = -1,
				s_p50,
				s_p99,
				s_max,
				s_lag = -1,
				s_limit = -1;
	int64_t		failed = 0,
				skipped = 0;
	char		name[64];
	strbuf		out;
	bool		ok,
				pcts = false;

	chart_set_x(c, CHART_X_ELAPSED, "time since start");
	chart_set_x_range(c, 0, NAN);
	chart_set_y(c, tput, CHART_LEFT, "transactions per second", "tps");
	chart_set_y(c, lat, CHART_LEFT, "latency", "ms, log scale");
	chart_set_y_log(c, lat, CHART_LEFT, true);

	s_tps = chart_add_series(c, tput, "tps", CHART_LINE, CHART_LEFT, CHART_BLUE);
	for (int i = 0; i < n && s_warm < 0; i++)
		if (pts[i].warmup)
			s_warm = chart_add_series(c, tput, "tps, warm-up (not counted)", CHART_LINE,
									  CHART_LEFT, CHART_GREY);
	if (s->rate > 0)
	{
		s_target = chart_add_series(c, tput, "rate target (-R)", CHART_LINE, CHART_LEFT,
									CHART_BLACK);
		chart_series_dashed(c, s_target, true);
	}
	sum_events(pts, n, &failed, &skipped);
	snprintf(name, sizeof(name), "failed (%lld in all)", (long long) failed);
	s_fail = chart_add_series(c, tput, name, CHART_EVENTS, CHART_LEFT, CHART_VERMILLION);
	if (s->rate > 0 && s->latency_limit_ns > 0)
	{
		snprintf(name, sizeof(name), "skipped (%lld in all)", (long long) skipped);
		s_skip = chart_add_series(c, tput, name, CHART_EVENTS, CHART_LEFT, CHART_YELLOW);
	}

	/* --merge has no per-interval percentiles: no empty p50 and p99 lines then */
	for (int i = 0; i < n && !pcts; i++)
		pcts = isfinite(pts[i].p50_ms);
	s_p50 = pcts || n == 0 ? chart_add_series(c, lat, "p50", CHART_LINE, CHART_LEFT, CHART_GREEN) : -1;
	s_p99 = pcts || n == 0 ? chart_add_series(c, lat, "p99", CHART_LINE, CHART_LEFT, CHART_ORANGE) : -1;
	s_max = chart_add_series(c, lat, "max", CHART_LINE, CHART_LEFT, CHART_PURPLE);
	if (s->latency_limit_ns > 0)
	{
		s_limit = chart_add_series(c, lat, "latency limit (-L)", CHART_LINE, CHART_LEFT,
								   CHART_BLACK);
		chart_series_dashed(c, s_limit, true);
	}
	if (s->rate > 0)
	{
		chart_set_y(c, lat, CHART_RIGHT, "schedule lag", "ms");
		s_lag = chart_add_series(c, lat, "schedule lag (avg)", CHART_LINE, CHART_RIGHT,
								 CHART_SKY);
		chart_series_dashed(c, s_lag, true);
	}

	for (int i = 0; i < n; i++)
	{
		const bench_chart_point *p = &pts[i];

		chart_add_point(c, p->warmup ? s_warm : s_tps, p->elapsed_s, p->tps);
		/* the measured line starts where the warm-up's ends */
		if (p->warmup && i + 1 < n && !pts[i + 1].warmup)
			chart_add_point(c, s_tps, p->elapsed_s, p->tps);
		if (s_target >= 0)
			chart_add_point(c, s_target, p->elapsed_s, s->rate);
		chart_add_point(c, s_fail, p->elapsed_s, (double) p->failed);
		if (s_skip >= 0)
			chart_add_point(c, s_skip, p->elapsed_s, (double) p->skipped);
		if (s_p50 >= 0)
			chart_add_point(c, s_p50, p->elapsed_s, p->p50_ms);
		if (s_p99 >= 0)
			chart_add_point(c, s_p99, p->elapsed_s, p->p99_ms);
		chart_add_point(c, s_max, p->elapsed_s, p->max_ms);
		if (s_limit >= 0)
			chart_add_point(c, s_limit, p->elapsed_s, (double) s->latency_limit_ns / 1e6);
		if (s_lag >= 0)
			chart_add_point(c, s_lag, p->elapsed_s, p->lag_ms);
	}

	if (s->waits_ns > 0)
		waits_panel(c, pts, n);
	strbuf_init(&out);
	chart_render(c, &out);
	ok = strbuf_write_free(&out, s->chart_path, cause);
	chart_free(c);
	return ok;
}
