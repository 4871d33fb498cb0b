/*
 * chart_demo.c — write sample charts to look at.
 *
 *   tests/chart_demo DIR
 *
 * writes DIR/bench.svg (a 10-minute run: tps, latency percentiles,
 * failures), DIR/bench-rate.svg (a run under -R: target, tps, schedule lag),
 * DIR/waits.svg (stacked wait-event shares and the final profile) and
 * DIR/empty.svg (every panel without data).  The data is made up but shaped
 * like real runs, from a fixed seed, so the files are the same every time.
 * The bar panels are pgtempo-waits' own (src/waits/waitsbars.c).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/chart.h"
#include "pgtempo/svg.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"

#include "waitsbars.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

/* Uniform in [0, 1): xorshift64*, good enough for noise. */
static double
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double) ((rng_state * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

/* Roughly normal noise with mean 0 and standard deviation 1. */
static double
noise(void)
{
	return (rnd() + rnd() + rnd() + rnd() - 2.0) * 1.7;
}

static void
write_chart(const char *dir, const char *name, const chart *c)
{
	strbuf		sb;
	char		path[4096];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	strbuf_init(&sb);
	chart_render(c, &sb);
	f = fopen(path, "w");
	if (f == NULL)
		msg_fatal("could not open file \"%s\" for writing: %s", path, strerror(errno));
	if (fwrite(sb.data, 1, sb.len, f) != sb.len || fclose(f) != 0)
		msg_fatal("could not write file \"%s\": %s", path, strerror(errno));
	strbuf_free(&sb);
}

/* A closed-loop run with progress every second: a checkpoint dip, failures under contention. */
static void
bench_chart(const char *dir)
{
	chart	   *c = chart_new("pgtempo-bench: tpcb-like, 16 clients",
							  "pgtempo-bench -c 16 -j 4 -T 600 -P 1 --chart=bench.svg "
							  "\"host=db1 application_name=a<b&c\" \xC2\xB7 PostgreSQL 15.8");
	int			pt = chart_add_panel(c, "Throughput", 220);
	int			pl = chart_add_panel(c, "Latency", 260);
	int			tps = chart_add_series(c, pt, "tps", CHART_LINE, CHART_LEFT, CHART_BLUE);
	int			p50 = chart_add_series(c, pl, "p50", CHART_LINE, CHART_LEFT, CHART_GREEN);
	int			p99 = chart_add_series(c, pl, "p99", CHART_LINE, CHART_LEFT, CHART_ORANGE);
	int			pmax = chart_add_series(c, pl, "max", CHART_LINE, CHART_LEFT, CHART_PURPLE);
	int			fail;
	double		failures[601] = {0};
	double		nfail = 0;
	char		name[64];

	chart_set_x(c, CHART_X_ELAPSED, "time since start");
	chart_set_x_range(c, 0, 600);
	chart_set_y(c, pt, CHART_LEFT, "throughput", "tps");
	chart_set_y(c, pl, CHART_LEFT, "latency", "ms, log scale");
	chart_set_y_log(c, pl, CHART_LEFT, true);

	for (int t = 1; t <= 600; t++)
	{
		double		base = 4200 + 300 * sin(t / 60.0);
		double		dip = (t >= 300 && t < 340) ? 0.55 + 0.45 * (t - 300) / 40.0 : 1.0;
		double		v = base * dip + noise() * 90;
		double		lat = 16.0 / v * 1000;

		if (t == 420)			/* a second with no progress line: a gap */
		{
			chart_add_point(c, tps, t, NAN);
			chart_add_point(c, p50, t, NAN);
			chart_add_point(c, p99, t, NAN);
			chart_add_point(c, pmax, t, NAN);
			continue;
		}
		chart_add_point(c, tps, t, v);
		chart_add_point(c, p50, t, lat * (0.8 + 0.05 * noise()));
		chart_add_point(c, p99, t, lat * (3.2 + 0.4 * noise()) * (dip < 1 ? 1.8 : 1));
		chart_add_point(c, pmax, t, lat * (6 + 2 * fabs(noise())) * (dip < 1 ? 2.5 : 1));
		if ((t > 120 && t < 180 && rnd() < 0.3) || (t >= 300 && t < 330 && rnd() < 0.5))
		{
			failures[t] = 1 + floor(rnd() * 4);
			nfail += failures[t];
		}
	}
	/* the legend says how many: the series is made once the total is known */
	snprintf(name, sizeof(name), "failures (%.0f in all)", nfail);
	fail = chart_add_series(c, pt, name, CHART_EVENTS, CHART_LEFT, CHART_VERMILLION);
	for (int t = 1; t <= 600; t++)
		if (failures[t] > 0)
			chart_add_point(c, fail, t, failures[t]);
	write_chart(dir, "bench.svg", c);
	chart_free(c);
}

/* A run under -R 3000 that falls behind for a while: the lag builds up, then drains. */
static void
bench_rate_chart(const char *dir)
{
	chart	   *c = chart_new("pgtempo-bench: select-only at a fixed rate",
							  "pgtempo-bench -S -c 8 -R 3000 -T 300 -P 5 --chart=rate.svg");
	int			pt = chart_add_panel(c, "Throughput", 220);
	int			pl = chart_add_panel(c, "Latency and schedule lag", 240);
	int			target = chart_add_series(c, pt, "rate target", CHART_STEP, CHART_LEFT, CHART_BLACK);
	int			tps = chart_add_series(c, pt, "tps", CHART_LINE, CHART_LEFT, CHART_BLUE);
	int			p50 = chart_add_series(c, pl, "latency p50", CHART_LINE, CHART_LEFT, CHART_GREEN);
	int			p99 = chart_add_series(c, pl, "latency p99", CHART_LINE, CHART_LEFT, CHART_ORANGE);
	int			lag = chart_add_series(c, pl, "schedule lag (avg)", CHART_LINE, CHART_RIGHT, CHART_SKY);
	double		backlog = 0;

	chart_series_dashed(c, target, true);
	chart_set_x(c, CHART_X_ELAPSED, "time since start");
	chart_set_y(c, pt, CHART_LEFT, "throughput", "tps");
	chart_set_y(c, pl, CHART_LEFT, "latency", "ms");
	chart_set_y(c, pl, CHART_RIGHT, "lag", "ms");

	chart_add_point(c, target, 0, 3000);
	for (int t = 5; t <= 300; t += 5)
	{
		double		capacity = (t > 150 && t <= 190) ? 2300 : 3600;
		double		done = fmin(capacity, 3000 + backlog / 5);

		backlog = fmax(0, backlog + (3000 - done) * 5);
		chart_add_point(c, target, t, 3000);
		chart_add_point(c, tps, t, done + noise() * 25);
		chart_add_point(c, p50, t, 0.42 + 0.03 * noise() + (capacity < 3000 ? 0.5 : 0));
		chart_add_point(c, p99, t, 1.6 + 0.2 * noise() + (capacity < 3000 ? 3 : 0));
		chart_add_point(c, lag, t, backlog / 3000 * 1000 / 8 + 0.05 + 0.02 * rnd());
	}
	write_chart(dir, "bench-rate.svg", c);
	chart_free(c);
}

/* Twenty minutes of wait-event shares in 10-second buckets, then the whole-run profile. */
static void
waits_chart(const char *dir)
{
	static const char *const events[] = {
		"CPU", "Client:ClientRead", "LWLock:WALWrite", "IO:WALSync",
		"Lock:transactionid", "IO:DataFileRead", "LWLock:BufferMapping",
		"IPC:ProcArrayGroupUpdate", "Lock:tuple", "LWLock:WALInsert",
		"IO:DataFileWrite", "Extension:<my_ext & \"co\">",
	};
	static const double weight[] = {30, 18, 11, 9, 7, 5, 4, 3, 2.5, 2, 1.5, 1};
	enum
	{
		NEV = sizeof(events) / sizeof(events[0]), NBUCKET = 120
	};
	chart	   *c = chart_new("pgtempo-waits: wait events on db1",
							  "pgtempo-waits -i 10ms -T 20min --chart=waits.svg \xC2\xB7 PostgreSQL 15.8 "
							  "\xC2\xB7 48,000 samples/min");
	int			pa = chart_add_panel(c, "Share of sampled backends by wait event", 300);
	wbars	   *pb = wbars_add_panel(c, "Profile of the whole run", "%");
	int			s[NEV + 1];
	double		total[NEV + 1] = {0};
	double		all = 0;
	double		t0 = 1718280000;	/* a Thursday in June 2024, 12:00 UTC */

	chart_set_x(c, CHART_X_CLOCK, "time");
	chart_set_y(c, pa, CHART_LEFT, "share of samples", "%");
	chart_set_y_range(c, pa, CHART_LEFT, 0, 100);
	for (int e = 0; e < NEV; e++)
		s[e] = chart_add_series(c, pa, events[e], CHART_AREA, CHART_LEFT, CHART_AUTO);
	s[NEV] = chart_add_series(c, pa, "other (23 events)", CHART_AREA, CHART_LEFT, CHART_GREY);

	for (int b = 0; b < NBUCKET; b++)
	{
		double		w[NEV + 1];
		double		sum = 0;
		double		samples = 8000 + 400 * noise();

		for (int e = 0; e < NEV; e++)
		{
			double		f = 1 + 0.15 * noise();

			/* the WAL disk gets slow for five minutes */
			if (b >= 50 && b < 80 && (e == 2 || e == 3))
				f *= 2.6;
			if (b >= 50 && b < 80 && e == 1)
				f *= 0.6;
			w[e] = weight[e] * fmax(0.05, f);
			sum += w[e];
		}
		w[NEV] = 1.2 + 0.3 * rnd();
		sum += w[NEV];
		/* about 8 % of the samples are idle backends: the stack stays below 100 */
		for (int e = 0; e <= NEV; e++)
		{
			double		share = w[e] / sum * 92;

			chart_add_point(c, s[e], t0 + b * 10, share);
			total[e] += share / 100 * samples;
			all += share / 100 * samples;
		}
	}
	for (int e = 0; e <= NEV; e++)
	{
		char		note[64];
		char		num[16];

		svg_format_number(total[e], num, sizeof(num));
		snprintf(note, sizeof(note), "%s samples", num);
		wbars_add(pb, e < NEV ? events[e] : "other (23 events)", total[e] / all * 100, note,
			  e < NEV ? CHART_AUTO : CHART_GREY);
	}
	write_chart(dir, "waits.svg", c);
	chart_free(c);
}

/* Panels without a point, and a bar panel without a bar. */
static void
empty_chart(const char *dir)
{
	chart	   *c = chart_new("an empty run", NULL);
	int			p = chart_add_panel(c, "Throughput", 0);

	chart_add_series(c, p, "tps", CHART_LINE, CHART_LEFT, CHART_AUTO);
	chart_set_x(c, CHART_X_ELAPSED, "time since start");
	chart_set_y(c, p, CHART_LEFT, "throughput", "tps");
	wbars_add_panel(c, "Profile", "%");
	write_chart(dir, "empty.svg", c);
	chart_free(c);
}

int
main(int argc, char **argv)
{
	msg_set_progname(argv[0]);
	if (argc != 2)
	{
		fprintf(stderr, "Usage: %s DIR\n", argv[0]);
		return 1;
	}
	bench_chart(argv[1]);
	bench_rate_chart(argv[1]);
	waits_chart(argv[1]);
	empty_chart(argv[1]);
	return 0;
}
