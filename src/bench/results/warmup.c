/*
 * warmup.c — --warmup's value and the levelling-off test of
 * --warmup=auto (the run applies them in thread.c and runner.c).
 *
 * The test fits a line rather than comparing the window's extremes: an
 * odd second in the middle of the window does not tilt the line, and one
 * at an end by less than its own excess, while a ramp (caches filling,
 * checkpoints after the start, a connection pool warming) tilts it by the
 * whole ramp.
 */
#include "config.h"

#include "warmup.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/parse.h"

/* The one message of every bad value. */
static bool
invalid(const char *arg)
{
	msg_error("invalid value \"%s\" for option --warmup", arg);
	msg_detail("Give a number of seconds (0 to %d), \"auto\", or \"auto:MAX\" with MAX from 1 to %d.",
			   WARMUP_MAX_S, WARMUP_MAX_S);
	return false;
}

bool
warmup_parse(const char *arg, warmup_mode *mode, int *seconds)
{
	int64_t		v;

	if (strcmp(arg, "auto") == 0)
	{
		*mode = WARMUP_AUTO;
		*seconds = WARMUP_AUTO_MAX_S;
		return true;
	}
	if (strncmp(arg, "auto:", 5) == 0)
	{
		if (!parse_int64(arg + 5, "--warmup", 1, WARMUP_MAX_S, &v, NULL))
			return invalid(arg);
		*mode = WARMUP_AUTO;
		*seconds = (int) v;
		return true;
	}
	if (!parse_int64(arg, "--warmup", 0, WARMUP_MAX_S, &v, NULL))
		return invalid(arg);
	*mode = v > 0 ? WARMUP_FIXED : WARMUP_NONE;
	*seconds = (int) v;
	return true;
}

double
warmup_trend(const double *v, int n)
{
	double		mean = 0,
				xm = (n - 1) / 2.0,
				sxy = 0,
				sxx = 0;

	for (int i = 0; i < n; i++)
	{
		if (!isfinite(v[i]))
			return INFINITY;
		mean += v[i];
	}
	mean /= n;
	if (!(mean > 0) || n < 2)
		return INFINITY;
	for (int i = 0; i < n; i++)
	{
		sxy += (i - xm) * (v[i] - mean);
		sxx += (i - xm) * (i - xm);
	}
	/* the slope times the window's span, against the level */
	return fabs(sxy / sxx) * (n - 1) / mean;
}

void
warmup_detector_init(warmup_detector *d)
{
	memset(d, 0, sizeof(*d));
}

bool
warmup_detector_add(warmup_detector *d, double tps, double latency)
{
	if (d->n == WARMUP_AUTO_WINDOW)
	{
		memmove(d->tps, d->tps + 1, sizeof(double) * (WARMUP_AUTO_WINDOW - 1));
		memmove(d->latency, d->latency + 1, sizeof(double) * (WARMUP_AUTO_WINDOW - 1));
		d->n--;
	}
	d->tps[d->n] = tps;
	d->latency[d->n] = latency;
	d->n++;
	return d->n == WARMUP_AUTO_WINDOW &&
		warmup_trend(d->tps, d->n) <= WARMUP_AUTO_TREND &&
		warmup_trend(d->latency, d->n) <= WARMUP_AUTO_TREND;
}
