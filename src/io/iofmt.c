/*
 * iofmt.c — ioping's human-readable numbers (see iofmt.h).
 */
#include "config.h"

#include "iofmt.h"

#include <stdio.h>

typedef struct iofmt_unit
{
	uint64_t	mul;
	const char *name;
} iofmt_unit;

static const iofmt_unit time_units[] = {
	{1, "ns"}, {1000, "us"}, {1000000, "ms"}, {UINT64_C(1000000000), "s"},
	{UINT64_C(60000000000), "min"}, {UINT64_C(3600000000000), "hour"}, {0, NULL}
};

static const iofmt_unit size_units[] = {
	{1, "B"}, {UINT64_C(1) << 10, "KiB"}, {UINT64_C(1) << 20, "MiB"}, {UINT64_C(1) << 30, "GiB"},
	{UINT64_C(1) << 40, "TiB"}, {UINT64_C(1) << 50, "PiB"}, {UINT64_C(1) << 60, "EiB"}, {0, NULL}
};

static const iofmt_unit count_units[] = {
	{1, ""}, {1000, "k"}, {1000000, "M"}, {UINT64_C(1000000000), "G"},
	{UINT64_C(1000000000000), "T"}, {UINT64_C(1000000000000000), "P"},
	{UINT64_C(1000000000000000000), "E"}, {0, NULL}
};

/* v in the largest of units it reaches; a unit without a name adds no space. */
static char *
scaled(char *buf, uint64_t v, const iofmt_unit *units)
{
	const iofmt_unit *u = units;
	const char *sep;
	double		d;

	while (u[1].name != NULL && v >= u[1].mul)
		u++;
	sep = u->name[0] != '\0' ? " " : "";
	if (v % u->mul == 0)
	{
		snprintf(buf, IOFMT_MAX, "%llu%s%s", (unsigned long long) (v / u->mul), sep, u->name);
		return buf;
	}
	d = (double) v / (double) u->mul;
	snprintf(buf, IOFMT_MAX, d < 10 ? "%.2f%s%s" : "%.1f%s%s", d, sep, u->name);
	return buf;
}

char *
iofmt_time(char *buf, uint64_t ns)
{
	return scaled(buf, ns, time_units);
}

char *
iofmt_size(char *buf, uint64_t bytes)
{
	return scaled(buf, bytes, size_units);
}

char *
iofmt_count(char *buf, uint64_t n)
{
	return scaled(buf, n, count_units);
}
