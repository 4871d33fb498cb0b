/*
 * timing.c — the measuring loop of pg_test_timing.
 */
#include "config.h"

#include "timing.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

static volatile sig_atomic_t stop_requested;

static const uint64_t *fake_readings;
static size_t fake_count;
static size_t fake_next;
static uint64_t fake_last;

void
timing_request_stop(void)
{
	stop_requested = 1;
}

bool
timing_stop_requested(void)
{
	return stop_requested != 0;
}

static const struct
{
	const char *name;
	const char *description;
}			clock_names[] = {
	[TIMING_CLOCK_SYSTEM] = {"system", "clock_gettime(CLOCK_MONOTONIC)"},
	[TIMING_CLOCK_RDTSC] = {"rdtsc", "RDTSC instruction (time-stamp counter)"},
	[TIMING_CLOCK_RDTSCP] = {"rdtscp", "RDTSCP instruction (serializing time-stamp counter read)"},
};

const char *
timing_clock_name(timing_clock c)
{
	if (c == TIMING_CLOCK_FAKE)
		return "fake";
	return clock_names[c].name;
}

const char *
timing_clock_description(timing_clock c)
{
	if (c == TIMING_CLOCK_FAKE)
		return "test clock (PGTEMPO_FAKE_CLOCK)";
	return clock_names[c].description;
}

bool
timing_clock_parse(const char *name, timing_clock *c)
{
	for (int i = 0; i < TIMING_CLOCK_COUNT; i++)
	{
		if (strcmp(name, clock_names[i].name) == 0)
		{
			*c = (timing_clock) i;
			return true;
		}
	}
	return false;
}

void
timing_set_fake_clock(const uint64_t *readings, size_t n)
{
	fake_readings = readings;
	fake_count = n;
	fake_next = 0;
	fake_last = 0;
}

bool
timing_parse_fake_clock(const char *spec, uint64_t **readings, size_t *n)
{
	size_t		cap = 16,
				len = 0;
	uint64_t   *v = xmalloc(cap * sizeof(*v));
	const char *s = spec;

	while (*s)
	{
		char	   *end;

		if (*s < '0' || *s > '9')
			goto bad;
		if (len == cap)
			v = xrealloc(v, (cap *= 2) * sizeof(*v));
		v[len++] = strtoull(s, &end, 10);
		s = end;
		if (*s == ',')
			s++;
		else if (*s != '\0')
			goto bad;
	}
	if (len == 0)
		goto bad;
	*readings = v;
	*n = len;
	return true;
bad:
	free(v);
	return false;
}

static uint64_t
fake_read(void)
{
	if (fake_next < fake_count)
		fake_last = fake_readings[fake_next++];
	else
		fake_last += NS_PER_S;
	return fake_last;
}

/* Read the clock in its own units (ns for the system clock, ticks for the TSC). */
static inline __attribute__((always_inline)) uint64_t
read_clock(timing_clock clock)
{
	switch (clock)
	{
#ifdef CLOCK_HAVE_TSC
		case TIMING_CLOCK_RDTSC:
			return clock_rdtsc();
		case TIMING_CLOCK_RDTSCP:
			return clock_rdtscp();
#endif
		case TIMING_CLOCK_FAKE:
			return fake_read();
		default:
			return clock_now_ns();
	}
}

static inline __attribute__((always_inline)) uint64_t
to_ns(timing_clock clock, const clock_tsc *tsc, uint64_t units)
{
	if (clock == TIMING_CLOCK_RDTSC || clock == TIMING_CLOCK_RDTSCP)
		return clock_tsc_to_ns(tsc, units);
	return units;
}

/* The rare long difference: kept out of line so the loop stays small. */
static __attribute__((noinline)) void
record_long(timing_pass *p, uint64_t ns)
{
	hist_record(&p->durations, ns);
	if (ns > p->largest_ns)
	{
		p->largest_ns = ns;
		p->largest_count = 1;
	}
	else if (ns == p->largest_ns)
		p->largest_count++;
}

/*
 * The loop, specialized per clock by always_inline: one clock read, one
 * subtraction, one compare for backwards time, one increment, one
 * compare for the end.  The stop flag is read only when a long
 * difference shows up or every 2^16 loops, to keep the loop tight.
 */
static inline __attribute__((always_inline)) void
run_loop(timing_pass *p, timing_clock clock, uint64_t duration_units, const clock_tsc *tsc)
{
	uint64_t   *direct = p->direct;
	uint64_t	start,
				end,
				prev,
				cur,
				loops = 0;

	start = read_clock(clock);
	end = start + duration_units;
	cur = start;
	for (;;)
	{
		uint64_t	ns;

		prev = cur;
		cur = read_clock(clock);
		if (unlikely(cur < prev))
		{
			p->outcome = TIMING_BACKWARDS;
			p->warp_ns = to_ns(clock, tsc, prev - cur);
			cur = prev;			/* the elapsed time ends at the last good read */
			break;
		}
		ns = to_ns(clock, tsc, cur - prev);
		loops++;
		if (likely(ns < TIMING_DIRECT))
			direct[ns]++;
		else
		{
			record_long(p, ns);
			if (stop_requested)
				break;
		}
		if (unlikely(cur >= end))
			break;
		if (unlikely((loops & 0xffff) == 0) && stop_requested)
			break;
	}
	p->loops = loops;
	p->elapsed_ns = to_ns(clock, tsc, cur - start);
	if (p->outcome == TIMING_OK && stop_requested)
		p->outcome = TIMING_INTERRUPTED;
}

/* Fold the exact counts into the histogram and find the largest difference. */
static void
finish_pass(timing_pass *p)
{
	for (uint64_t ns = 0; ns < TIMING_DIRECT; ns++)
	{
		if (p->direct[ns] == 0)
			continue;
		hist_record_n(&p->durations, ns, p->direct[ns]);
		if (p->largest_ns < TIMING_DIRECT && ns >= p->largest_ns)
		{
			p->largest_ns = ns;
			p->largest_count = p->direct[ns];
		}
	}
}

timing_outcome
timing_run(timing_pass *p, timing_clock clock, uint64_t duration_ns, const clock_tsc *tsc)
{
	memset(p, 0, offsetof(timing_pass, durations));
	hist_init(&p->durations);
	/* Touch the counters now so page faults do not land inside the loop. */
	memset(p->direct, 0, sizeof(p->direct));
	p->clock = clock;

	switch (clock)
	{
		case TIMING_CLOCK_SYSTEM:
			run_loop(p, TIMING_CLOCK_SYSTEM, duration_ns, NULL);
			break;
		case TIMING_CLOCK_RDTSC:
		case TIMING_CLOCK_RDTSCP:
			if (tsc == NULL || !tsc->usable)
			{
				p->outcome = TIMING_UNAVAILABLE;
				snprintf(p->why_not, sizeof(p->why_not), "%s",
						 tsc ? tsc->why_not : "no TSC information");
				return p->outcome;
			}
			if (clock == TIMING_CLOCK_RDTSCP && !tsc->has_rdtscp)
			{
				p->outcome = TIMING_UNAVAILABLE;
				snprintf(p->why_not, sizeof(p->why_not),
						 "the CPU does not support the RDTSCP instruction");
				return p->outcome;
			}
#ifdef CLOCK_HAVE_TSC
			{
				uint64_t	ticks = (uint64_t) ((unsigned __int128) duration_ns * tsc->hz / NS_PER_S);

				if (clock == TIMING_CLOCK_RDTSC)
					run_loop(p, TIMING_CLOCK_RDTSC, ticks, tsc);
				else
					run_loop(p, TIMING_CLOCK_RDTSCP, ticks, tsc);
			}
#endif
			break;
		case TIMING_CLOCK_FAKE:
			run_loop(p, TIMING_CLOCK_FAKE, duration_ns, NULL);
			break;
		case TIMING_CLOCK_COUNT:
			abort();
	}
	finish_pass(p);
	return p->outcome;
}

double
timing_per_loop_ns(const timing_pass *p)
{
	return p->loops ? (double) p->elapsed_ns / (double) p->loops : 0.0;
}

/*
 * Both tables are exact: every histogram bucket lies inside one bucket
 * of each table, because 2^k ns and 1000 * 2^k ns are both multiples
 * of the bucket width at their magnitude (see hist.h).
 */
void
timing_hist_us(const timing_pass *p, hlog2 *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < HIST_BUCKETS; i++)
		if (p->durations.counts[i])
			out->count[hlog2_bucket(hist_bucket_low(i) / NS_PER_US)] += p->durations.counts[i];
}

void
timing_hist_ns(const timing_pass *p, hlog2 *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < HIST_BUCKETS; i++)
		if (p->durations.counts[i])
			out->count[hlog2_bucket(hist_bucket_low(i))] += p->durations.counts[i];
}
