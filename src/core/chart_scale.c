/*
 * chart_scale.c — ticks and scales: values to pixels, 1-2-5 ticks,
 * elapsed-time and clock ticks on x, log10 scales, and tick labels.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgtempo/svg.h"

#include "chart_int.h"

/* ---------------------------------------------------------------- ticks */

/* The smallest of 1, 2, 5 x 10^n that is >= raw (raw > 0). */
static double
nice_up(double raw)
{
	double		mag = pow(10.0, floor(log10(raw)));
	double		norm = raw / mag;

	if (norm <= 1 + 1e-9)
		return mag;
	if (norm <= 2 + 1e-9)
		return 2 * mag;
	if (norm <= 5 + 1e-9)
		return 5 * mag;
	return 10 * mag;
}

/* Widen [*lo, *hi] when it is empty or too narrow for doubles to tick. */
static void
widen_range(double *lo, double *hi)
{
	double		center = (*lo + *hi) / 2;
	double		span = *hi - *lo;

	if (span >= 1e-200 && span >= fabs(center) * 1e-12)
		return;
	if (fabs(center) < 1e-200)
	{
		*lo = 0;
		*hi = 1;
		return;
	}
	*lo = center - fabs(center) * 0.1;
	*hi = center + fabs(center) * 0.1;
}

int
chart_nice_ticks(double lo, double hi, int target, double *first, double *last, double *step)
{
	double		st,
				k0,
				k1;

	if (!isfinite(lo) && !isfinite(hi))
		lo = 0, hi = 0;
	else if (!isfinite(lo))
		lo = hi;
	else if (!isfinite(hi))
		hi = lo;
	lo = fmax(-VALUE_MAX, fmin(VALUE_MAX, lo));
	hi = fmax(-VALUE_MAX, fmin(VALUE_MAX, hi));
	if (hi < lo)
	{
		double		t = lo;

		lo = hi;
		hi = t;
	}
	if (target < 1)
		target = 1;
	if (target > 100)
		target = 100;
	widen_range(&lo, &hi);

	st = nice_up((hi - lo) / target);
	k0 = floor(lo / st + 1e-9);
	k1 = ceil(hi / st - 1e-9);
	*first = k0 * st;
	*last = k1 * st;
	*step = st;
	return (int) (k1 - k0) + 1;
}

double
chart_scale_px(const scale *s, double v)
{
	if (s->log)
	{
		/* nothing is drawn at v <= 0; keep the arithmetic finite anyway */
		double		l = v > 0 ? log10(v) : log10(s->lo) - 1;

		return s->px0 + (l - log10(s->lo)) / (log10(s->hi) - log10(s->lo)) * (s->px1 - s->px0);
	}
	return s->px0 + (v - s->lo) / (s->hi - s->lo) * (s->px1 - s->px0);
}

double
chart_tick_value(const scale *s, int i)
{
	return s->tick[i];
}

/* Fill tick[] from tick0, step and nticks. */
static void
fill_linear_ticks(scale *s)
{
	if (s->nticks < 0)
		s->nticks = 0;
	if (s->nticks > MAX_TICKS)
		s->nticks = MAX_TICKS;
	for (int i = 0; i < s->nticks; i++)
	{
		double		v = s->tick0 + i * s->step;

		/* 0.1 + 2 * 0.1 is not 0.3; snap what is zero within rounding */
		if (fabs(v) < s->step * 1e-9)
			v = 0;
		s->tick[i] = v;
	}
}

/* Choose how a scale's tick labels are written: one suffix and precision for all. */
static void
scale_label_format(scale *s)
{
	double		maxabs = 0;
	double		st;

	for (int i = 0; i < s->nticks; i++)
		maxabs = fmax(maxabs, fabs(s->tick[i]));
	s->div = 1;
	s->suffix = "";
	s->decimals = 0;
	s->each_compact = false;
	if (s->log || maxabs >= 1e15 || (maxabs > 0 && maxabs < 1e-3))
	{
		s->each_compact = true;
		return;
	}
	if (maxabs >= 1e4)
	{
		static const char *const sfx[] = {"k", "M", "G", "T"};
		int			i = 0;

		while (i < 3 && maxabs >= pow(1000.0, i + 2))
			i++;
		s->div = pow(1000.0, i + 1);
		s->suffix = sfx[i];
	}
	st = s->step / s->div;
	while (s->decimals < 9)
	{
		double		scaled = st * svg_pow10[s->decimals];

		if (fabs(scaled - round(scaled)) < 1e-6 * fmax(1, scaled))
			break;
		s->decimals++;
	}
	if (s->decimals > 6)
		s->each_compact = true;
}

void
chart_format_tick(const scale *s, double v, char *buf, size_t size)
{
	char		num[40];

	if (s->each_compact || !svg_fixed(num, sizeof(num), v / s->div, s->decimals, false))
	{
		svg_format_number(v, buf, size);
		return;
	}
	if (strcmp(num, "0") == 0 || strspn(num, "-0.") == strlen(num))
		snprintf(buf, size, "0");
	else
		snprintf(buf, size, "%s%s", num, s->suffix);
}

/* Elapsed seconds: 0, 45s, 2m, 2m30s, 1h, 1h30m, 2d; fractions below 1 s step. */
static void
format_elapsed(double v, double step, char *buf, size_t size)
{
	long long	t,
				d,
				h,
				m,
				sec;
	size_t		len = 0;
	const char *sign = v < 0 ? "-" : "";

	if (step < 1)
	{
		char		num[32];
		int			decimals = 0;

		while (decimals < 6 && fabs(step * svg_pow10[decimals] -
									round(step * svg_pow10[decimals])) > 1e-6)
			decimals++;
		if (!svg_fixed(num, sizeof(num), v, decimals, true))
		{
			svg_format_number(v, buf, size);
			return;
		}
		snprintf(buf, size, "%ss", num);
		return;
	}
	if (fabs(v) > 1e15)
	{
		svg_format_number(v, buf, size);
		return;
	}
	t = llabs(llround(v));
	if (t == 0)
	{
		snprintf(buf, size, "0");
		return;
	}
	d = t / 86400;
	h = t / 3600 % 24;
	m = t / 60 % 60;
	sec = t % 60;
	buf[0] = '\0';
	len += snprintf(buf + len, size - len, "%s", sign);
	if (d > 0 && len < size)
		len += snprintf(buf + len, size - len, "%lldd", d);
	if (h > 0 && len < size)
		len += snprintf(buf + len, size - len, "%lldh", h);
	if (m > 0 && d == 0 && len < size)
		len += snprintf(buf + len, size - len, "%lldm", m);
	if (sec > 0 && d == 0 && h == 0 && len < size)
		snprintf(buf + len, size - len, "%llds", sec);
}

static void
format_clock(double v, double step, char *buf, size_t size)
{
	time_t		t = (time_t) floor(v);
	struct tm	tm;

	if (fabs(v) > 1e15 || localtime_r(&t, &tm) == NULL)
	{
		svg_format_number(v, buf, size);
		return;
	}
	strftime(buf, size, step < 60 ? "%H:%M:%S" : "%H:%M", &tm);
}

/* Tick steps for time, in seconds, from one second to one day. */
static const double time_steps[] = {
	1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
	3600, 7200, 10800, 21600, 43200, 86400
};

static double
time_step_up(double raw)
{
	if (raw <= 1)
		return nice_up(raw);
	for (size_t i = 0; i < sizeof(time_steps) / sizeof(time_steps[0]); i++)
		if (time_steps[i] >= raw - 1e-9)
			return time_steps[i];
	return 86400 * nice_up(raw / 86400);
}

/*
 * The x scale: the range as given or as the data spans (not rounded to
 * ticks: a run goes from its first to its last second), ticks inside.
 */
void
chart_make_x_scale(const chart *c, scale *s, double px0, double px1)
{
	double		lo = INFINITY,
				hi = -INFINITY,
				raw,
				offset = 0;
	int			target = (int) ((px1 - px0) / 110);

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < c->nseries; i++)
	{
		const series *se = &c->series[i];

		for (size_t j = 0; j < se->n; j++)
		{
			if (!isfinite(se->x[j]))
				continue;
			lo = fmin(lo, se->x[j]);
			hi = fmax(hi, se->x[j]);
		}
	}
	if (isfinite(c->xlo))
		lo = fmax(-VALUE_MAX, fmin(VALUE_MAX, c->xlo));
	if (isfinite(c->xhi))
		hi = fmax(-VALUE_MAX, fmin(VALUE_MAX, c->xhi));
	if (!isfinite(lo) && !isfinite(hi))
		lo = 0, hi = c->xscale == CHART_X_NUMBER ? 1 : 60;
	else if (!isfinite(lo))
		lo = hi - 1;
	else if (!isfinite(hi))
		hi = lo + 1;
	if (hi < lo)
	{
		double		t = lo;

		lo = hi;
		hi = t;
	}
	if (hi - lo < 1e-200 || hi - lo < fabs(lo) * 1e-12)
	{
		double		d = c->xscale == CHART_X_NUMBER ? fmax(fabs(lo) * 0.1, 0.5) : 1;

		if (c->xscale != CHART_X_NUMBER && d < fabs(lo) * 1e-12)
			d = fabs(lo) * 1e-12;
		lo -= d;
		hi += d;
	}
	s->lo = lo;
	s->hi = hi;
	s->px0 = px0;
	s->px1 = px1;
	if (target < 2)
		target = 2;
	raw = (hi - lo) / target;
	if (c->xscale == CHART_X_NUMBER)
		s->step = nice_up(raw);
	else
		s->step = time_step_up(raw);
	if (c->xscale == CHART_X_CLOCK && s->step >= 3600 && fabs(lo) < 1e15)
	{
		/* whole hours of local time, not of UTC */
		time_t		t = (time_t) lo;
		struct tm	tm;

		if (localtime_r(&t, &tm) != NULL)
			offset = (double) tm.tm_gmtoff;
	}
	s->tick0 = ceil((lo + offset) / s->step - 1e-9) * s->step - offset;
	s->nticks = (int) floor((hi - s->tick0) / s->step + 1e-9) + 1;
	fill_linear_ticks(s);
	scale_label_format(s);
}

void
chart_format_x_tick(const chart *c, const scale *s, double v, char *buf, size_t size)
{
	switch (c->xscale)
	{
		case CHART_X_ELAPSED:
			format_elapsed(v, s->step, buf, size);
			break;
		case CHART_X_CLOCK:
			format_clock(v, s->step, buf, size);
			break;
		default:
			chart_format_tick(s, v, buf, size);
			break;
	}
}

/* The smallest of 1, 2, 2.5, 5 x 10^n that is >= raw: for a right axis fitted to the left's ticks. */
static double
nice_up_fine(double raw)
{
	double		mag = pow(10.0, floor(log10(raw)));
	double		norm = raw / mag;
	static const double steps[] = {1, 2, 2.5, 5, 10};

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (norm <= steps[i] + 1e-9)
			return steps[i] * mag;
	return 10 * mag;
}

/*
 * A y scale from the data range [dlo, dhi] (0 included by the caller) and
 * the fixed ends flo, fhi (NaN: free).  With align_n > 0, the scale gets
 * exactly align_n intervals (a right axis whose ticks fall on the left
 * axis's gridlines).
 */
void
chart_make_y_scale(scale *s, double dlo, double dhi, double flo, double fhi,
			 int target, int align_n, double px_bottom, double px_top)
{
	double		first,
				last,
				step;

	if (isfinite(flo))
		dlo = fmax(-VALUE_MAX, fmin(VALUE_MAX, flo));
	if (isfinite(fhi))
		dhi = fmax(-VALUE_MAX, fmin(VALUE_MAX, fhi));
	if (dhi < dlo)
	{
		double		t = dlo;

		dlo = dhi;
		dhi = t;
	}
	widen_range(&dlo, &dhi);
	memset(s, 0, sizeof(*s));
	s->px0 = px_bottom;
	s->px1 = px_top;

	if (align_n > 0 && !isfinite(flo) && !isfinite(fhi))
	{
		step = nice_up_fine((dhi - dlo) / align_n);
		for (int guard = 0; guard < 8; guard++)
		{
			first = floor(dlo / step + 1e-9) * step;
			if (first + align_n * step >= dhi - step * 1e-9)
				break;
			step = nice_up_fine(step * 1.0001);
		}
		s->lo = first;
		s->hi = first + align_n * step;
		s->tick0 = first;
		s->step = step;
		s->nticks = align_n + 1;
		fill_linear_ticks(s);
		scale_label_format(s);
		return;
	}

	chart_nice_ticks(dlo, dhi, target, &first, &last, &step);
	s->lo = isfinite(flo) ? dlo : first;
	s->hi = isfinite(fhi) ? dhi : last;
	s->step = step;
	s->tick0 = ceil(s->lo / step - 1e-9) * step;
	s->nticks = (int) floor((s->hi - s->tick0) / step + 1e-9) + 1;
	fill_linear_ticks(s);
	scale_label_format(s);
}

/* The largest of 1, 2, 5 x 10^n that is <= v (v > 0). */
static double
nice_down(double v)
{
	double		mag = pow(10.0, floor(log10(v) + 1e-12));
	double		norm = v / mag;

	if (norm >= 5 - 1e-9)
		return 5 * mag;
	if (norm >= 2 - 1e-9)
		return 2 * mag;
	return mag;
}

/*
 * A log10 y scale over the positive data [dmin, dmax] (fixed ends when
 * finite and positive), from and to 1-2-5 values, with ticks at 1, 2, 5 x
 * 10^n over three decades or less, else at powers of ten.
 */
void
chart_make_log_scale(scale *s, double dmin, double dmax, double flo, double fhi,
			   double px_bottom, double px_top)
{
	double		decades;
	int			every;

	if (isfinite(flo) && flo > 0)
		dmin = flo;
	if (isfinite(fhi) && fhi > 0)
		dmax = fhi;
	if (!(dmin > 0) || !isfinite(dmin) || !(dmax > 0) || !isfinite(dmax))
		dmin = 1, dmax = 10;
	if (dmax < dmin)
	{
		double		t = dmin;

		dmin = dmax;
		dmax = t;
	}
	dmin = fmax(dmin, 1e-300);
	memset(s, 0, sizeof(*s));
	s->log = true;
	s->px0 = px_bottom;
	s->px1 = px_top;
	s->lo = isfinite(flo) && flo > 0 ? dmin : nice_down(dmin);
	s->hi = isfinite(fhi) && fhi > 0 ? dmax : nice_up(dmax);
	if (s->hi <= s->lo * 1.0001)
		s->hi = s->lo * 10;
	decades = log10(s->hi) - log10(s->lo);
	every = (int) ceil(decades / 10);
	s->nticks = 0;
	for (int e = (int) floor(log10(s->lo)) - 1; e <= (int) ceil(log10(s->hi)) + 1; e++)
	{
		static const double mult[] = {1, 2, 5};

		for (int m = 0; m < 3; m++)
		{
			double		v = mult[m] * pow(10.0, e);

			if (m > 0 && decades > 3)
				break;
			if (m == 0 && every > 1 && e % every != 0)
				continue;
			if (v < s->lo * (1 - 1e-9) || v > s->hi * (1 + 1e-9) || s->nticks == MAX_TICKS)
				continue;
			s->tick[s->nticks++] = v;
		}
	}
	s->step = 0;
	scale_label_format(s);
}

