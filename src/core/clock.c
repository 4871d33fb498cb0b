/*
 * clock.c — TSC discovery and conversion, and whether the system clock is
 * synchronized; the monotonic clock itself is inline in clock.h.
 */
#include "config.h"

#include "pgtempo/clock.h"

#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/timex.h>

#if defined(CLOCK_HAVE_TSC) && defined(HAVE_CPUID_H)
#include <cpuid.h>
#endif

uint64_t
clock_wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

const char *
clock_tsc_source_name(clock_tsc_source s)
{
	switch (s)
	{
		case CLOCK_TSC_CPUID_15H:
			return "CPUID leaf 0x15 (crystal clock ratio)";
		case CLOCK_TSC_CPUID_16H:
			return "CPUID leaf 0x16 (processor base frequency)";
		case CLOCK_TSC_HYPERVISOR:
			return "CPUID leaf 0x40000010 (hypervisor timing information)";
		case CLOCK_TSC_CALIBRATED:
			return "calibrated against CLOCK_MONOTONIC_RAW";
		case CLOCK_TSC_NONE:
			break;
	}
	return "unknown";
}

void
clock_tsc_set_hz(clock_tsc *t, uint64_t hz, clock_tsc_source source)
{
	t->hz = hz;
	t->source = source;
	/* ns per tick as a 32.32 fixed-point factor, rounded to nearest */
	t->mult = (uint64_t) ((((unsigned __int128) NS_PER_S << CLOCK_TSC_SHIFT) + hz / 2) / hz);
}

static uint64_t
raw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t) ts.tv_sec * NS_PER_S + (uint64_t) ts.tv_nsec;
}

#ifdef CLOCK_HAVE_TSC

/*
 * Read the TSC and CLOCK_MONOTONIC_RAW together: keep the reading whose
 * bracketing TSC reads are closest, so a preemption between the two
 * reads does not skew the pair.
 */
static void
tsc_raw_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t	best = UINT64_MAX;

	for (int i = 0; i < 16; i++)
	{
		uint64_t	t0 = clock_rdtscp();
		uint64_t	n = raw_now_ns();
		uint64_t	t1 = clock_rdtscp();

		if (i == 0 || t1 - t0 < best)
		{
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = n;
		}
	}
}

uint64_t
clock_tsc_calibrate(unsigned int ms)
{
	uint64_t	tsc0,
				ns0,
				tsc1,
				ns1;
	struct timespec nap = {.tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L};

	tsc_raw_pair(&tsc0, &ns0);
	nanosleep(&nap, NULL);
	tsc_raw_pair(&tsc1, &ns1);
	if (ns1 <= ns0 || tsc1 <= tsc0)
		return 0;
	return (uint64_t) ((unsigned __int128) (tsc1 - tsc0) * NS_PER_S / (ns1 - ns0));
}

#ifdef HAVE_CPUID_H
/* Frequency from CPUID, or 0 when the CPU (or hypervisor) does not say. */
static uint64_t
tsc_hz_from_cpuid(clock_tsc_source *source)
{
	unsigned int a,
				b,
				c,
				d;
	unsigned int max_leaf = __get_cpuid_max(0, NULL);

	if (max_leaf >= 0x15)
	{
		__cpuid_count(0x15, 0, a, b, c, d);
		/* TSC = crystal (ecx, Hz) * ebx / eax; ecx may be 0 when not enumerated */
		if (a != 0 && b != 0 && c != 0)
		{
			*source = CLOCK_TSC_CPUID_15H;
			return (uint64_t) c * b / a;
		}
	}

	/* A hypervisor may publish the guest TSC frequency in kHz. */
	__cpuid(1, a, b, c, d);
	if (c & (1u << 31))
	{
		__cpuid(0x40000000, a, b, c, d);
		if (a >= 0x40000010)
		{
			__cpuid(0x40000010, a, b, c, d);
			if (a != 0)
			{
				*source = CLOCK_TSC_HYPERVISOR;
				return (uint64_t) a * 1000;
			}
		}
	}

	/*
	 * Leaf 0x16 gives the nominal base frequency in MHz, which equals the
	 * TSC rate on the Intel parts that have it but not leaf 0x15's crystal.
	 */
	if (max_leaf >= 0x16)
	{
		__cpuid_count(0x16, 0, a, b, c, d);
		if (a != 0)
		{
			*source = CLOCK_TSC_CPUID_16H;
			return (uint64_t) a * 1000000;
		}
	}
	return 0;
}
#endif

void
clock_tsc_probe(clock_tsc *t)
{
	uint64_t	hz = 0;
	clock_tsc_source source = CLOCK_TSC_NONE;

	memset(t, 0, sizeof(*t));
#ifdef HAVE_CPUID_H
	{
		unsigned int a,
					b,
					c,
					d;

		__cpuid(1, a, b, c, d);
		t->present = (d & (1u << 4)) != 0;
		if (__get_cpuid_max(0x80000000, NULL) >= 0x80000007)
		{
			__cpuid(0x80000001, a, b, c, d);
			t->has_rdtscp = (d & (1u << 27)) != 0;
			__cpuid(0x80000007, a, b, c, d);
			t->invariant = (d & (1u << 8)) != 0;
		}
	}
#endif
	if (!t->present)
	{
		snprintf(t->why_not, sizeof(t->why_not), "the CPU has no time-stamp counter");
		return;
	}
	if (!t->invariant)
	{
		snprintf(t->why_not, sizeof(t->why_not),
				 "the CPU does not report an invariant TSC (CPUID 0x80000007 EDX bit 8), "
				 "so its rate may change with frequency scaling or sleep states");
		return;
	}
#ifdef HAVE_CPUID_H
	hz = tsc_hz_from_cpuid(&source);
#endif
	if (hz == 0)
	{
		hz = clock_tsc_calibrate(100);
		source = CLOCK_TSC_CALIBRATED;
	}
	if (hz == 0)
	{
		snprintf(t->why_not, sizeof(t->why_not), "the TSC frequency could not be determined");
		return;
	}
	clock_tsc_set_hz(t, hz, source);
	t->usable = true;
}

#else							/* !CLOCK_HAVE_TSC */

uint64_t
clock_tsc_calibrate(unsigned int ms)
{
	(void) raw_now_ns;
	return 0;
}

void
clock_tsc_probe(clock_tsc *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->why_not, sizeof(t->why_not),
			 "the TSC is an x86 feature and this is another architecture");
}

#endif

void
clock_sync_status(clock_sync *out)
{
	struct timex tx;
	int			state;

	memset(&tx, 0, sizeof(tx));	/* modes 0: read only, no privilege needed */
	memset(out, 0, sizeof(*out));
	state = adjtimex(&tx);
	if (state < 0)
		return;
	out->known = true;
	out->synchronized = state != TIME_ERROR && (tx.status & STA_UNSYNC) == 0;
	out->est_error_s = (double) tx.esterror / 1e6;	/* microseconds */
	out->max_error_s = (double) tx.maxerror / 1e6;
}
