/*
 * clockenv.h — what the kernel and CPU say about the clocks.
 *
 * Read from /sys/devices/system/clocksource/clocksource0 and
 * /proc/cpuinfo (both below $PGTEMPO_SYSROOT when that is set, so tests
 * can present any machine), plus CPUID for the hypervisor's name.
 */
#ifndef PGTEMPO_CLOCKENV_H
#define PGTEMPO_CLOCKENV_H

#include <stdbool.h>

typedef struct clockenv
{
	char		current[64];	/* current clocksource, "" if unknown */
	char		available[256]; /* space-separated, "" if unknown */
	bool		flags_known;	/* /proc/cpuinfo was readable */
	bool		tsc;			/* CPU flags */
	bool		constant_tsc;
	bool		nonstop_tsc;
	bool		tsc_reliable;
	bool		rdtscp;
	bool		hypervisor;
	char		hypervisor_vendor[16];	/* from CPUID, "" if none or unknown */
} clockenv;

/* Fill env from the system (or from $PGTEMPO_SYSROOT). */
void		clockenv_read(clockenv *env);
/* Whether the space-separated list has the word. */
bool		clockenv_list_has(const char *list, const char *word);
/* One line of advice when the set-up is known to be slow or unreliable, else NULL. */
const char *clockenv_advice(const clockenv *env);

#endif
