/*
 * clock.h — monotonic time in nanoseconds, and the x86-64 TSC.
 *
 * clock_now_ns() is clock_gettime(CLOCK_MONOTONIC): what PostgreSQL's
 * instr_time uses on Linux.  On x86-64 the TSC can be read directly with
 * RDTSC or RDTSCP; clock_tsc_probe() finds its frequency (from CPUID, or
 * by calibration against the system clock) so ticks convert to ns.
 */
#ifndef PGTEMPO_CLOCK_H
#define PGTEMPO_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define NS_PER_S	UINT64_C(1000000000)
#define NS_PER_MS	UINT64_C(1000000)
#define NS_PER_US	UINT64_C(1000)

static inline uint64_t
clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * NS_PER_S + (uint64_t) ts.tv_nsec;
}

/* Wall-clock time in microseconds since the epoch. */
uint64_t	clock_wall_us(void);

#if defined(__x86_64__) || defined(__i386__)
#define CLOCK_HAVE_TSC 1
#include <x86intrin.h>

static inline uint64_t
clock_rdtsc(void)
{
	return __rdtsc();
}

static inline uint64_t
clock_rdtscp(void)
{
	unsigned int aux;

	return __rdtscp(&aux);
}
#endif

typedef enum clock_tsc_source
{
	CLOCK_TSC_NONE = 0,
	CLOCK_TSC_CPUID_15H,		/* leaf 0x15: crystal clock and TSC ratio */
	CLOCK_TSC_CPUID_16H,		/* leaf 0x16: processor base frequency */
	CLOCK_TSC_HYPERVISOR,		/* leaf 0x40000010: hypervisor timing info */
	CLOCK_TSC_CALIBRATED		/* measured against CLOCK_MONOTONIC_RAW */
} clock_tsc_source;

typedef struct clock_tsc
{
	bool		present;		/* the CPU has a TSC (and this is x86) */
	bool		invariant;		/* constant rate in all P/C-states */
	bool		has_rdtscp;
	bool		usable;			/* present, invariant and frequency known */
	char		why_not[160];	/* when !usable: why, for the report */
	uint64_t	hz;				/* ticks per second, when known */
	clock_tsc_source source;
	uint64_t	mult;			/* ns = ticks * mult >> CLOCK_TSC_SHIFT */
} clock_tsc;

#define CLOCK_TSC_SHIFT 32

/* Find out whether the TSC can be used and at what frequency. */
void		clock_tsc_probe(clock_tsc *t);
/* Set the frequency (and conversion factor) by hand; hz > 0. */
void		clock_tsc_set_hz(clock_tsc *t, uint64_t hz, clock_tsc_source source);
/* Measure the TSC frequency against CLOCK_MONOTONIC_RAW over ms milliseconds. */
uint64_t	clock_tsc_calibrate(unsigned int ms);
const char *clock_tsc_source_name(clock_tsc_source s);

static inline uint64_t
clock_tsc_to_ns(const clock_tsc *t, uint64_t ticks)
{
	return (uint64_t) (((unsigned __int128) ticks * t->mult) >> CLOCK_TSC_SHIFT);
}

/*
 * Whether the system clock is synchronized (to NTP, PTP, ...), as the
 * kernel tells adjtimex(2) without changing anything: a daemon that
 * disciplines the clock clears STA_UNSYNC and keeps the error estimates.
 */
typedef struct clock_sync
{
	bool		known;			/* adjtimex() answered */
	bool		synchronized;	/* not TIME_ERROR, STA_UNSYNC clear */
	double		est_error_s;	/* the estimated error */
	double		max_error_s;	/* the maximum error */
} clock_sync;

void		clock_sync_status(clock_sync *out);

#endif
