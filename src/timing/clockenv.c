/*
 * clockenv.c — read the clock environment and judge it.
 */
#include "config.h"

#include "clockenv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(HAVE_CPUID_H)
#include <cpuid.h>
#define HAVE_X86_CPUID 1
#endif

#define CLOCKSOURCE_DIR "/sys/devices/system/clocksource/clocksource0"

/* Open path below $PGTEMPO_SYSROOT, if set. */
static FILE *
open_sys(const char *path)
{
	const char *root = getenv("PGTEMPO_SYSROOT");
	char		buf[4096];

	if (root && *root)
	{
		snprintf(buf, sizeof(buf), "%s%s", root, path);
		path = buf;
	}
	return fopen(path, "r");
}

/* Read the first line of a file, without its newline; "" when unreadable. */
static void
read_line(const char *path, char *out, size_t size)
{
	FILE	   *f = open_sys(path);

	out[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(out, (int) size, f) == NULL)
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	/* the kernel ends the list with a blank */
	while (*out && out[strlen(out) - 1] == ' ')
		out[strlen(out) - 1] = '\0';
	fclose(f);
}

bool
clockenv_list_has(const char *list, const char *word)
{
	size_t		n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL)
	{
		bool		starts = (p == list || p[-1] == ' ' || p[-1] == '\t');
		bool		ends = (p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n');

		if (starts && ends)
			return true;
		p += n;
	}
	return false;
}

/* The flags line of the first CPU in /proc/cpuinfo. */
static void
read_cpu_flags(clockenv *env)
{
	FILE	   *f = open_sys("/proc/cpuinfo");
	char		line[8192];

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f))
	{
		char	   *colon;

		if (strncmp(line, "flags", 5) != 0 || (colon = strchr(line, ':')) == NULL)
			continue;
		env->flags_known = true;
		env->tsc = clockenv_list_has(colon + 1, "tsc");
		env->constant_tsc = clockenv_list_has(colon + 1, "constant_tsc");
		env->nonstop_tsc = clockenv_list_has(colon + 1, "nonstop_tsc");
		env->tsc_reliable = clockenv_list_has(colon + 1, "tsc_reliable");
		env->rdtscp = clockenv_list_has(colon + 1, "rdtscp");
		env->hypervisor = clockenv_list_has(colon + 1, "hypervisor");
		break;
	}
	fclose(f);
}

/* The hypervisor's vendor signature from CPUID leaf 0x40000000. */
static void
read_hypervisor_vendor(clockenv *env)
{
#ifdef HAVE_X86_CPUID
	unsigned int a,
				b,
				c,
				d;
	const char *known[][2] = {
		{"KVMKVMKVM", "KVM"}, {"Microsoft Hv", "Hyper-V"}, {"VMwareVMware", "VMware"},
		{"XenVMMXenVMM", "Xen"}, {"TCGTCGTCGTCG", "QEMU (TCG)"}, {" lrpepyh  vr", "Parallels"},
		{"VBoxVBoxVBox", "VirtualBox"}, {"ACRNACRNACRN", "ACRN"}, {"bhyve bhyve ", "bhyve"},
	};
	char		sig[13];

	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 31)))
		return;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
	{
		if (strncmp(sig, known[i][0], strlen(known[i][0])) == 0)
		{
			snprintf(env->hypervisor_vendor, sizeof(env->hypervisor_vendor), "%s", known[i][1]);
			return;
		}
	}
	snprintf(env->hypervisor_vendor, sizeof(env->hypervisor_vendor), "unknown");
#else
	(void) env;
#endif
}

void
clockenv_read(clockenv *env)
{
	const char *root = getenv("PGTEMPO_SYSROOT");

	memset(env, 0, sizeof(*env));
	read_line(CLOCKSOURCE_DIR "/current_clocksource", env->current, sizeof(env->current));
	read_line(CLOCKSOURCE_DIR "/available_clocksource", env->available, sizeof(env->available));
	read_cpu_flags(env);
	/* CPUID describes this machine, not the one a test presents */
	if (root == NULL || *root == '\0')
		read_hypervisor_vendor(env);
}

const char *
clockenv_advice(const clockenv *env)
{
	bool		slow = strcmp(env->current, "acpi_pm") == 0 ||
		strcmp(env->current, "hpet") == 0 ||
		strcmp(env->current, "xen") == 0 ||
		strcmp(env->current, "jiffies") == 0;
	bool		tsc_offered = clockenv_list_has(env->available, "tsc");

	if (env->current[0] == '\0')
		return NULL;
	if (strcmp(env->current, "jiffies") == 0)
		return "the clock source jiffies ticks only every few milliseconds; "
			"timings from EXPLAIN ANALYZE and track_io_timing will be coarse";
	if (slow && tsc_offered)
		return "the clock source is slow to read but the kernel offers tsc: "
			"try 'echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource' "
			"and run this test again";
	if (slow)
		return "the clock source is slow to read (every read goes to a hardware timer); "
			"expect high overhead from EXPLAIN ANALYZE and track_io_timing";
	if (strcmp(env->current, "tsc") != 0 && tsc_offered)
		return "the TSC is available but not used as the clock source; "
			"it is usually the fastest clock where the kernel trusts it";
	if (env->flags_known && env->tsc && !tsc_offered && strcmp(env->current, "tsc") != 0 &&
		!env->hypervisor)
		return "the CPU has a TSC but the kernel does not offer it as a clock source "
			"(it found it unstable); clock reads go to slower hardware";
	return NULL;
}
