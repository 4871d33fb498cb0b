/*
 * chart.c — self-contained SVG charts: time series and bar profiles.
 *
 * Rendering is two passes over the panels: a layout pass that fixes every
 * panel's place (so the document's height is known for the <svg> header),
 * then a drawing pass.  Scales are computed first: the x scale over all time
 * panels, then per panel the stacked areas (their tops set the y range) and
 * the y scales.
 *
 * Coordinates are written with one decimal and clamped to +-1e6 px, so a
 * value far outside a fixed range still gives a short, valid number and the
 * clip path hides it.  Text widths are estimates (CHAR_EM of the font size
 * per character) used only to truncate labels and to keep labels apart.
 */
#include "config.h"

#include "pgtempo/chart.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

/* ---------------------------------------------------------------- layout constants (px) */

#define FONT_FAMILY "Helvetica, Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif"
#define CHAR_EM 0.58			/* estimated advance of a character, in em */

#define MARGIN 24				/* left and right edge of the document */
#define PLOT_X 80				/* left edge of every plot */
#define RIGHT_AXIS_W 72			/* right tick labels and the right axis title */
#define LEGEND_W 250			/* legend column, its gaps included: at least */
#define LEGEND_W_MAX 400		/* and at most, for long series names */
#define LEGEND_ROW 18
#define DEFAULT_PLOT_H 250
#define EVENT_STRIP_H 24
#define BAR_ROW 22
#define PANEL_GAP 22
#define VALUE_MAX 1e300			/* |y| and |x| are clamped to this */
#define PX_MAX 1e6				/* |coordinate| written */

static const char *const palette[CHART_NCOLOURS] = {
	"#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7",
	"#F0E442", "#332288", "#999933", "#882255", "#44AA99", "#CC6677",
	"#BBBBBB", "#000000"
};

/* ---------------------------------------------------------------- the chart */

typedef struct series
{
	char	   *name;
	int			panel;
	chart_style style;
	chart_axis	axis;
	int			colour;
	bool		dashed;
	bool		sorted;			/* x never decreased while adding */
	double		last_x;			/* the last finite x added */
	double	   *x;
	double	   *y;
	size_t		n;
	size_t		cap;
} series;

typedef struct bar
{
	char	   *label;
	double		value;
	char	   *note;
	int			colour;
} bar;

typedef enum panel_kind
{
	PANEL_TIME,
	PANEL_BARS
} panel_kind;

typedef struct panel
{
	panel_kind	kind;
	char	   *title;
	double		plot_h;
	char	   *ylabel[2];
	char	   *yunit[2];
	double		ylo[2];
	double		yhi[2];
	bool		ylog[2];
	int			nauto;			/* colours handed out by CHART_AUTO */
	char	   *unit;			/* bar panels */
	bar		   *bars;
	size_t		nbars;
	size_t		barcap;
} panel;

struct chart
{
	char	   *title;
	char	   *subtitle;
	chart_xscale xscale;
	char	   *xlabel;
	double		xlo;
	double		xhi;
	panel	   *panels;
	int			npanels;
	int			panelcap;
	series	   *series;
	int			nseries;
	int			seriescap;
};

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* A caller bug: say which and stop rather than draw nonsense. */
static void __attribute__((noreturn))
misuse(const char *what, int index)
{
	msg_error("chart: %s %d does not exist", what, index);
	abort();
}

static panel *
get_panel(chart *c, int p, panel_kind kind)
{
	if (p < 0 || p >= c->npanels || c->panels[p].kind != kind)
		misuse(kind == PANEL_TIME ? "time panel" : "bar panel", p);
	return &c->panels[p];
}

static series *
get_series(chart *c, int s)
{
	if (s < 0 || s >= c->nseries)
		misuse("series", s);
	return &c->series[s];
}

static int
pick_colour(panel *p, int colour)
{
	if (colour >= 0 && colour < CHART_NCOLOURS)
		return colour;
	return p->nauto++ % CHART_NAUTO;
}

chart *
chart_new(const char *title, const char *subtitle)
{
	chart	   *c = xcalloc(1, sizeof(*c));

	c->title = dup_or_null(title);
	c->subtitle = dup_or_null(subtitle);
	c->xscale = CHART_X_NUMBER;
	c->xlo = NAN;
	c->xhi = NAN;
	return c;
}

void
chart_free(chart *c)
{
	if (c == NULL)
		return;
	for (int i = 0; i < c->nseries; i++)
	{
		free(c->series[i].name);
		free(c->series[i].x);
		free(c->series[i].y);
	}
	for (int i = 0; i < c->npanels; i++)
	{
		panel	   *p = &c->panels[i];

		free(p->title);
		for (int a = 0; a < 2; a++)
		{
			free(p->ylabel[a]);
			free(p->yunit[a]);
		}
		free(p->unit);
		for (size_t b = 0; b < p->nbars; b++)
		{
			free(p->bars[b].label);
			free(p->bars[b].note);
		}
		free(p->bars);
	}
	free(c->panels);
	free(c->series);
	free(c->title);
	free(c->subtitle);
	free(c->xlabel);
	free(c);
}

void
chart_set_x(chart *c, chart_xscale scale, const char *label)
{
	c->xscale = scale;
	free(c->xlabel);
	c->xlabel = dup_or_null(label);
}

void
chart_set_x_range(chart *c, double lo, double hi)
{
	c->xlo = lo;
	c->xhi = hi;
}

static int
new_panel(chart *c, panel_kind kind, const char *title)
{
	panel	   *p;

	if (c->npanels == c->panelcap)
	{
		c->panelcap = c->panelcap ? 2 * c->panelcap : 4;
		c->panels = xrealloc(c->panels, c->panelcap * sizeof(panel));
	}
	p = &c->panels[c->npanels];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->title = dup_or_null(title);
	for (int a = 0; a < 2; a++)
	{
		p->ylo[a] = NAN;
		p->yhi[a] = NAN;
	}
	return c->npanels++;
}

int
chart_add_panel(chart *c, const char *title, double plot_height)
{
	int			i = new_panel(c, PANEL_TIME, title);

	c->panels[i].plot_h = plot_height >= 40 && plot_height <= 4000 ? plot_height : DEFAULT_PLOT_H;
	return i;
}

void
chart_set_y(chart *c, int pi, chart_axis axis, const char *label, const char *unit)
{
	struct panel *p = get_panel(c, pi, PANEL_TIME);
	int			a = axis == CHART_RIGHT;

	free(p->ylabel[a]);
	free(p->yunit[a]);
	p->ylabel[a] = dup_or_null(label);
	p->yunit[a] = dup_or_null(unit);
}

void
chart_set_y_range(chart *c, int pi, chart_axis axis, double lo, double hi)
{
	struct panel *p = get_panel(c, pi, PANEL_TIME);
	int			a = axis == CHART_RIGHT;

	p->ylo[a] = lo;
	p->yhi[a] = hi;
}

void
chart_set_y_log(chart *c, int pi, chart_axis axis, bool log)
{
	get_panel(c, pi, PANEL_TIME)->ylog[axis == CHART_RIGHT] = log;
}

int
chart_add_series(chart *c, int pi, const char *name, chart_style style,
				 chart_axis axis, int colour)
{
	struct panel *p = get_panel(c, pi, PANEL_TIME);
	series	   *s;

	if (c->nseries == c->seriescap)
	{
		c->seriescap = c->seriescap ? 2 * c->seriescap : 8;
		c->series = xrealloc(c->series, c->seriescap * sizeof(series));
	}
	s = &c->series[c->nseries];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name != NULL ? name : "");
	s->panel = pi;
	s->style = style;
	s->axis = axis == CHART_RIGHT ? CHART_RIGHT : CHART_LEFT;
	s->colour = pick_colour(p, colour);
	s->sorted = true;
	s->last_x = -INFINITY;
	return c->nseries++;
}

void
chart_series_dashed(chart *c, int si, bool dashed)
{
	get_series(c, si)->dashed = dashed;
}

void
chart_add_point(chart *c, int si, double x, double y)
{
	struct series *s = get_series(c, si);

	if (!isfinite(x) || !isfinite(y))
		x = y = NAN;			/* a gap; kept in place so it splits the line */
	else
	{
		x = fmax(-VALUE_MAX, fmin(VALUE_MAX, x));
		y = fmax(-VALUE_MAX, fmin(VALUE_MAX, y));
	}
	if (s->n == s->cap)
	{
		s->cap = s->cap ? 2 * s->cap : 64;
		s->x = xrealloc(s->x, s->cap * sizeof(double));
		s->y = xrealloc(s->y, s->cap * sizeof(double));
	}
	if (isfinite(x))
	{
		if (x < s->last_x)
			s->sorted = false;
		s->last_x = x;
	}
	s->x[s->n] = x;
	s->y[s->n] = y;
	s->n++;
}

int
chart_add_bar_panel(chart *c, const char *title, const char *unit)
{
	int			i = new_panel(c, PANEL_BARS, title);

	c->panels[i].unit = dup_or_null(unit);
	return i;
}

void
chart_add_bar(chart *c, int pi, const char *label, double value,
			  const char *note, int colour)
{
	struct panel *p = get_panel(c, pi, PANEL_BARS);
	bar		   *b;

	if (p->nbars == p->barcap)
	{
		p->barcap = p->barcap ? 2 * p->barcap : 16;
		p->bars = xrealloc(p->bars, p->barcap * sizeof(bar));
	}
	b = &p->bars[p->nbars++];
	b->label = xstrdup(label != NULL ? label : "");
	b->value = isfinite(value) ? fmax(-VALUE_MAX, fmin(VALUE_MAX, value)) : NAN;
	b->note = dup_or_null(note);
	b->colour = pick_colour(p, colour);
}

/* ---------------------------------------------------------------- text */

/*
 * Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not one:
 * overlong forms, surrogates and code points past U+10FFFF are invalid.
 */
static int
utf8_seq_len(const unsigned char *p)
{
	unsigned int cp;
	int			len;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		len = 2, cp = p[0] & 0x1F;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		len = 3, cp = p[0] & 0x0F;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (int i = 1; i < len; i++)
	{
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		(cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	/* U+FFFE and U+FFFF are not XML characters */
	if (cp == 0xFFFE || cp == 0xFFFF)
		return 0;
	return len;
}

/* Number of characters s is written as (an invalid byte is one U+FFFD). */
static size_t
text_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t		n = 0;

	while (*p != '\0')
	{
		int			len = utf8_seq_len(p);

		p += len ? len : 1;
		n++;
	}
	return n;
}

static double
text_width(const char *s, double font_size)
{
	return (double) text_chars(s) * font_size * CHAR_EM;
}

/*
 * Append s escaped for XML; with max_chars > 0 and a longer s, the first
 * max_chars - 1 characters and an ellipsis.  Tabs and newlines become
 * spaces (SVG text is one line), other control characters are dropped.
 */
static void
put_text(strbuf *out, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t		n = 0;
	bool		cut = max_chars > 0 && text_chars(s) > max_chars;

	while (*p != '\0')
	{
		int			len = utf8_seq_len(p);

		if (cut && n == max_chars - 1)
		{
			strbuf_puts(out, "\xE2\x80\xA6");	/* U+2026 … */
			return;
		}
		n++;
		if (len == 0)
		{
			strbuf_puts(out, "\xEF\xBF\xBD");	/* U+FFFD */
			p++;
			continue;
		}
		if (len > 1)
		{
			strbuf_append(out, (const char *) p, len);
			p += len;
			continue;
		}
		switch (*p)
		{
			case '&':
				strbuf_puts(out, "&amp;");
				break;
			case '<':
				strbuf_puts(out, "&lt;");
				break;
			case '>':
				strbuf_puts(out, "&gt;");
				break;
			case '"':
				strbuf_puts(out, "&quot;");
				break;
			case '\'':
				strbuf_puts(out, "&apos;");
				break;
			case '\t':
			case '\n':
			case '\r':
				strbuf_putc(out, ' ');
				break;
			default:
				if (*p >= 0x20)
					strbuf_putc(out, (char) *p);
				break;
		}
		p++;
	}
}

void
chart_xml_escape(strbuf *out, const char *s)
{
	put_text(out, s, 0);
}

/* Characters of text at font_size that fit in width px (at least 4). */
static size_t
fit_chars(double width, double font_size)
{
	double		n = floor(width / (font_size * CHAR_EM));

	return n < 4 ? 4 : (size_t) n;
}

/* ---------------------------------------------------------------- numbers, by hand */

static const double pow10_table[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9
};

/*
 * v with exactly `decimals` decimals (0..9), '.' as the decimal point,
 * trailing zeros dropped when trim.  Returns false when v is too large for
 * integer arithmetic at that precision (the caller falls back).
 */
static bool
fmt_fixed(char *buf, size_t size, double v, int decimals, bool trim)
{
	double		m = pow10_table[decimals];
	double		a = fabs(v) * m;
	long long	r;
	long long	mi = (long long) m;
	int			len;

	if (!(a < 9e18))
		return false;
	r = llround(a);
	len = snprintf(buf, size, "%s%lld", (v < 0 && r != 0) ? "-" : "", r / mi);
	if (len < 0 || (size_t) len + 1 + decimals >= size)
		return false;
	if (decimals > 0)
	{
		char	   *p = buf + len;
		long long	frac = r % mi;

		*p++ = '.';
		for (int i = decimals - 1; i >= 0; i--)
		{
			p[i] = (char) ('0' + frac % 10);
			frac /= 10;
		}
		p += decimals;
		*p = '\0';
		if (trim)
		{
			while (p[-1] == '0')
				*--p = '\0';
			if (p[-1] == '.')
				p[-1] = '\0';
		}
	}
	return true;
}

/* m.mme±x with three significant digits at most, for values no suffix suits. */
static void
fmt_exp(char *buf, size_t size, double v)
{
	double		a = fabs(v);
	int			e = (int) floor(log10(a));
	double		m = a / pow(10.0, e);
	char		mant[16];

	if (m >= 9.995)
	{
		m /= 10;
		e++;
	}
	else if (m < 1)
	{
		m *= 10;
		e--;
	}
	fmt_fixed(mant, sizeof(mant), m, 2, true);
	snprintf(buf, size, "%s%se%d", v < 0 ? "-" : "", mant, e);
}

void
chart_format_number(double v, char *buf, size_t size)
{
	static const char *const suffix[] = {"", "k", "M", "G", "T"};
	static const double suffix_div[] = {1, 1e3, 1e6, 1e9, 1e12};
	double		a = fabs(v);
	int			i = 0;

	if (size == 0)
		return;
	if (isnan(v))
	{
		snprintf(buf, size, "NaN");
		return;
	}
	if (isinf(v))
	{
		snprintf(buf, size, "%s", v < 0 ? "-inf" : "inf");
		return;
	}
	if (a == 0)
	{
		snprintf(buf, size, "0");
		return;
	}
	if (a < 1e-4 || a >= 999.5e12)
	{
		fmt_exp(buf, size, v);
		return;
	}
	while (i < 4 && a >= suffix_div[i + 1])
		i++;
	for (;;)
	{
		double		scaled = a / suffix_div[i];
		int			d;
		char		num[32];

		if (scaled >= 100)
			d = 0;
		else if (scaled >= 10)
			d = 1;
		else if (scaled >= 1)
			d = 2;
		else
			d = 2 - (int) floor(log10(scaled));
		if (d > 9)
			d = 9;
		/* 999.7 rounds to 1000: that is 1k */
		if (i < 4 && llround(scaled * pow10_table[d]) >= 1000 * (long long) pow10_table[d])
		{
			i++;
			continue;
		}
		fmt_fixed(num, sizeof(num), v < 0 ? -scaled : scaled, d, true);
		snprintf(buf, size, "%s%s", num, suffix[i]);
		return;
	}
}

/* Append a coordinate: one decimal at most, clamped to +-PX_MAX. */
static void
put_num(strbuf *out, double v)
{
	char		buf[24];
	char	   *p = buf + sizeof(buf);
	long long	r;
	bool		neg;

	if (!(v > -PX_MAX))
		v = -PX_MAX;
	else if (v > PX_MAX)
		v = PX_MAX;
	r = llround(v * 10);
	neg = r < 0;
	if (neg)
		r = -r;
	*--p = '\0';
	if (r % 10 != 0)
	{
		*--p = (char) ('0' + r % 10);
		*--p = '.';
	}
	r /= 10;
	do
	{
		*--p = (char) ('0' + r % 10);
		r /= 10;
	} while (r > 0);
	if (neg)
		*--p = '-';
	strbuf_puts(out, p);
}

/* Append ` name="v"` with v a coordinate. */
static void
put_attr_num(strbuf *out, const char *name, double v)
{
	strbuf_putc(out, ' ');
	strbuf_puts(out, name);
	strbuf_puts(out, "=\"");
	put_num(out, v);
	strbuf_putc(out, '"');
}

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

/* ---------------------------------------------------------------- scales */

#define MAX_TICKS 64

/* A map from values to pixels (linear or log10), with its ticks and their label format. */
typedef struct scale
{
	double		lo;				/* value at the start (left or bottom) */
	double		hi;
	double		px0;			/* pixel of lo */
	double		px1;			/* pixel of hi */
	bool		log;
	double		tick0;			/* first tick (linear) */
	double		step;			/* between ticks (linear) */
	int			nticks;
	double		tick[MAX_TICKS];
	/* labels: value / div with `decimals` decimals and suffix, or each compact */
	double		div;
	const char *suffix;
	int			decimals;
	bool		each_compact;
} scale;

static double
scale_px(const scale *s, double v)
{
	if (s->log)
	{
		/* nothing is drawn at v <= 0; keep the arithmetic finite anyway */
		double		l = v > 0 ? log10(v) : log10(s->lo) - 1;

		return s->px0 + (l - log10(s->lo)) / (log10(s->hi) - log10(s->lo)) * (s->px1 - s->px0);
	}
	return s->px0 + (v - s->lo) / (s->hi - s->lo) * (s->px1 - s->px0);
}

static double
tick_value(const scale *s, int i)
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
		double		scaled = st * pow10_table[s->decimals];

		if (fabs(scaled - round(scaled)) < 1e-6 * fmax(1, scaled))
			break;
		s->decimals++;
	}
	if (s->decimals > 6)
		s->each_compact = true;
}

static void
format_tick_number(const scale *s, double v, char *buf, size_t size)
{
	char		num[40];

	if (s->each_compact || !fmt_fixed(num, sizeof(num), v / s->div, s->decimals, false))
	{
		chart_format_number(v, buf, size);
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

		while (decimals < 6 && fabs(step * pow10_table[decimals] -
									round(step * pow10_table[decimals])) > 1e-6)
			decimals++;
		if (!fmt_fixed(num, sizeof(num), v, decimals, true))
		{
			chart_format_number(v, buf, size);
			return;
		}
		snprintf(buf, size, "%ss", num);
		return;
	}
	if (fabs(v) > 1e15)
	{
		chart_format_number(v, buf, size);
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
		chart_format_number(v, buf, size);
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
static void
make_x_scale(const chart *c, scale *s, double px0, double px1)
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

static void
format_x_tick(const chart *c, const scale *s, double v, char *buf, size_t size)
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
			format_tick_number(s, v, buf, size);
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
static void
make_y_scale(scale *s, double dlo, double dhi, double flo, double fhi,
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
static void
make_log_scale(scale *s, double dmin, double dmax, double flo, double fhi,
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

/* ---------------------------------------------------------------- sorted points */

typedef struct xy
{
	double		x;
	double		y;
	size_t		i;				/* original position: keeps the sort stable */
} xy;

static int
cmp_xy(const void *a, const void *b)
{
	const xy   *p = a;
	const xy   *q = b;

	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

/*
 * A series' points in x order: its own arrays when they already are, else
 * sorted copies (gaps dropped: points out of order make no lines anyway).
 * Free *xs and *ys when *owned.
 */
static size_t
sorted_points(const series *s, const double **xs, const double **ys, bool *owned)
{
	xy		   *tmp;
	double	   *x,
			   *y;
	size_t		n = 0;

	if (s->sorted)
	{
		*xs = s->x;
		*ys = s->y;
		*owned = false;
		return s->n;
	}
	tmp = xmalloc((s->n ? s->n : 1) * sizeof(xy));
	for (size_t i = 0; i < s->n; i++)
	{
		if (!isfinite(s->x[i]))
			continue;
		tmp[n].x = s->x[i];
		tmp[n].y = s->y[i];
		tmp[n].i = i;
		n++;
	}
	qsort(tmp, n, sizeof(xy), cmp_xy);
	x = xmalloc((n ? n : 1) * sizeof(double));
	y = xmalloc((n ? n : 1) * sizeof(double));
	for (size_t i = 0; i < n; i++)
	{
		x[i] = tmp[i].x;
		y[i] = tmp[i].y;
	}
	free(tmp);
	*xs = x;
	*ys = y;
	*owned = true;
	return n;
}

static int
cmp_double(const void *a, const void *b)
{
	double		p = *(const double *) a;
	double		q = *(const double *) b;

	return p < q ? -1 : p > q;
}

/* ---------------------------------------------------------------- stacked areas */

/*
 * The CHART_AREA series of one panel and axis on one x grid: the union of
 * their x values, thinned to one column per pixel when denser (a column's
 * value is the mean of its points, so the stack still sums right).
 * tops[k * nx + j] is the top of layer k at xs[j]; the bottom of layer k
 * is the top of layer k - 1, or 0.
 */
typedef struct stack
{
	int			nlayers;
	int		   *layer_series;	/* series index of each layer */
	size_t		nx;
	double	   *xs;
	double	   *tops;
	double		max_top;
} stack;

static void
stack_free(stack *st)
{
	free(st->layer_series);
	free(st->xs);
	free(st->tops);
	memset(st, 0, sizeof(*st));
}

static void
stack_build(const chart *c, int pi, chart_axis axis, const scale *xs, stack *st)
{
	size_t		total = 0,
				nx = 0;
	double	   *ux;
	double	   *vals;
	int			k = 0;

	memset(st, 0, sizeof(*st));
	for (int i = 0; i < c->nseries; i++)
	{
		const series *s = &c->series[i];

		if (s->panel == pi && s->style == CHART_AREA && s->axis == axis)
		{
			st->nlayers++;
			total += s->n;
		}
	}
	if (st->nlayers == 0)
		return;
	st->layer_series = xmalloc(st->nlayers * sizeof(int));

	/* the union of all x values */
	ux = xmalloc((total ? total : 1) * sizeof(double));
	for (int i = 0; i < c->nseries; i++)
	{
		const series *s = &c->series[i];

		if (s->panel != pi || s->style != CHART_AREA || s->axis != axis)
			continue;
		st->layer_series[k++] = i;
		for (size_t j = 0; j < s->n; j++)
			if (isfinite(s->x[j]))
				ux[nx++] = s->x[j];
	}
	qsort(ux, nx, sizeof(double), cmp_double);
	{
		size_t		u = 0;

		for (size_t j = 0; j < nx; j++)
			if (u == 0 || ux[j] != ux[u - 1])
				ux[u++] = ux[j];
		nx = u;
	}

	/* each layer's value at each union x: its point there, or 0 */
	vals = xcalloc((nx ? nx : 1) * st->nlayers, sizeof(double));
	for (k = 0; k < st->nlayers; k++)
	{
		const series *s = &c->series[st->layer_series[k]];
		const double *px,
				   *py;
		bool		owned;
		size_t		n = sorted_points(s, &px, &py, &owned);
		size_t		j = 0;

		for (size_t i = 0; i < n; i++)
		{
			if (!isfinite(px[i]))
				continue;
			while (j < nx && ux[j] < px[i])
				j++;
			if (j < nx && ux[j] == px[i])
				vals[k * nx + j] = isfinite(py[i]) && py[i] > 0 ? py[i] : 0;
		}
		if (owned)
		{
			free((void *) px);
			free((void *) py);
		}
	}

	/* thin to one column per pixel */
	if (nx > (size_t) fabs(xs->px1 - xs->px0) + 1)
	{
		size_t		out = 0,
					start = 0;

		while (start < nx)
		{
			long		col = (long) floor(scale_px(xs, ux[start]));
			size_t		end = start + 1;
			double		sx = ux[start];

			while (end < nx && (long) floor(scale_px(xs, ux[end])) == col)
				sx += ux[end++];
			ux[out] = sx / (double) (end - start);
			for (k = 0; k < st->nlayers; k++)
			{
				double		sum = 0;

				for (size_t j = start; j < end; j++)
					sum += vals[k * nx + j];
				/* out <= start: nothing still needed is overwritten */
				vals[k * nx + out] = sum / (double) (end - start);
			}
			out++;
			start = end;
		}
		/* compact the layers to the new width */
		for (k = 1; k < st->nlayers; k++)
			memmove(vals + k * out, vals + k * nx, out * sizeof(double));
		nx = out;
	}

	/* cumulate */
	for (k = 1; k < st->nlayers; k++)
		for (size_t j = 0; j < nx; j++)
			vals[k * nx + j] += vals[(k - 1) * nx + j];
	st->max_top = 0;
	for (size_t j = 0; j < nx; j++)
		st->max_top = fmax(st->max_top, vals[(st->nlayers - 1) * nx + j]);
	st->nx = nx;
	st->xs = ux;
	st->tops = vals;
}

/* ---------------------------------------------------------------- drawing helpers */

static void
put_colour_attr(strbuf *out, const char *name, int colour)
{
	strbuf_printf(out, " %s=\"%s\"", name, palette[colour]);
}

/* <text x y [anchor]>s</text> with s escaped and cut to max_chars (0: whole). */
static void
put_text_el(strbuf *out, double x, double y, const char *anchor, const char *extra,
			const char *s, size_t max_chars)
{
	strbuf_puts(out, "<text");
	put_attr_num(out, "x", x);
	put_attr_num(out, "y", y);
	if (anchor != NULL)
		strbuf_printf(out, " text-anchor=\"%s\"", anchor);
	if (extra != NULL)
	{
		strbuf_putc(out, ' ');
		strbuf_puts(out, extra);
	}
	strbuf_putc(out, '>');
	put_text(out, s, max_chars);
	strbuf_puts(out, "</text>\n");
}

/* A vertical axis title, read bottom-up, centred on cy. */
static void
put_vertical_title(strbuf *out, double x, double cy, const char *label,
				   const char *unit, double max_len)
{
	strbuf		t;

	if ((label == NULL || *label == '\0') && (unit == NULL || *unit == '\0'))
		return;
	strbuf_init(&t);
	if (label != NULL && *label != '\0')
		strbuf_puts(&t, label);
	if (unit != NULL && *unit != '\0')
		strbuf_printf(&t, t.len ? " (%s)" : "%s", unit);
	strbuf_puts(out, "<text");
	put_attr_num(out, "x", x);
	put_attr_num(out, "y", cy);
	strbuf_puts(out, " text-anchor=\"middle\" font-size=\"12\" fill=\"#333\" transform=\"rotate(-90 ");
	put_num(out, x);
	strbuf_putc(out, ' ');
	put_num(out, cy);
	strbuf_puts(out, ")\">");
	put_text(out, t.data, fit_chars(max_len, 12));
	strbuf_puts(out, "</text>\n");
	strbuf_free(&t);
}

/*
 * Writes a polyline as SVG path data, at most four points per half-pixel
 * column (first, min, max, last: the envelope survives), breaking it at
 * gaps and collecting isolated points for dots.
 */
typedef struct path_writer
{
	strbuf	   *d;
	strbuf	   *dots;			/* <circle> elements for isolated points */
	bool		step;
	bool		pen_down;
	size_t		seg_points;		/* points in the current segment */
	double		lastx,
				lasty;			/* last point written */
	double		firstx,
				firsty;			/* first point of the segment */
	/* the open column */
	bool		col_open;
	long		col;
	double		cx[4],
				cy[4];			/* first, min, max, last */
	size_t		ci[4];			/* their positions, to emit in order */
	const char *dot_colour;
} path_writer;

static void
pw_point(path_writer *w, double x, double y)
{
	if (w->pen_down && x == w->lastx && y == w->lasty)
		return;
	if (!w->pen_down)
	{
		strbuf_putc(w->d, 'M');
		put_num(w->d, x);
		strbuf_putc(w->d, ' ');
		put_num(w->d, y);
		w->pen_down = true;
		w->firstx = x;
		w->firsty = y;
	}
	else if (w->step)
	{
		if (x != w->lastx)
		{
			strbuf_putc(w->d, 'H');
			put_num(w->d, x);
		}
		if (y != w->lasty)
		{
			strbuf_putc(w->d, 'V');
			put_num(w->d, y);
		}
	}
	else
	{
		strbuf_putc(w->d, 'L');
		put_num(w->d, x);
		strbuf_putc(w->d, ' ');
		put_num(w->d, y);
	}
	w->seg_points++;
	w->lastx = x;
	w->lasty = y;
}

static void
pw_flush_column(path_writer *w)
{
	int			order[4] = {0, 1, 2, 3};

	if (!w->col_open)
		return;
	w->col_open = false;
	/* min and max in the order they came */
	if (w->ci[2] < w->ci[1])
	{
		order[1] = 2;
		order[2] = 1;
	}
	for (int i = 0; i < 4; i++)
	{
		int			k = order[i];

		if (i > 0 && w->ci[k] == w->ci[order[i - 1]])
			continue;
		pw_point(w, w->cx[k], w->cy[k]);
	}
}

/* Round to the precision written, so equal points compare equal. */
static double
px_round(double v)
{
	if (!(v > -PX_MAX))
		return -PX_MAX;
	if (v > PX_MAX)
		return PX_MAX;
	return round(v * 10) / 10;
}

static void
pw_end_segment(path_writer *w)
{
	pw_flush_column(w);
	if (w->pen_down && w->seg_points == 1)
	{
		strbuf_puts(w->dots, "<circle");
		put_attr_num(w->dots, "cx", w->firstx);
		put_attr_num(w->dots, "cy", w->firsty);
		strbuf_printf(w->dots, " r=\"2.5\" fill=\"%s\"/>\n", w->dot_colour);
	}
	w->pen_down = false;
	w->seg_points = 0;
}

static void
pw_add(path_writer *w, size_t idx, double x, double y)
{
	long		col = (long) floor(fmax(-PX_MAX, fmin(PX_MAX, x)) * 2);

	x = px_round(x);
	y = px_round(y);
	if (w->col_open && col != w->col)
		pw_flush_column(w);
	if (!w->col_open)
	{
		w->col_open = true;
		w->col = col;
		for (int i = 0; i < 4; i++)
		{
			w->cx[i] = x;
			w->cy[i] = y;
			w->ci[i] = idx;
		}
		return;
	}
	/* y grows downwards: min value = max pixel, but either way it is the envelope */
	if (y < w->cy[1])
		w->cx[1] = x, w->cy[1] = y, w->ci[1] = idx;
	if (y > w->cy[2])
		w->cx[2] = x, w->cy[2] = y, w->ci[2] = idx;
	w->cx[3] = x;
	w->cy[3] = y;
	w->ci[3] = idx;
}

/* ---------------------------------------------------------------- layout */

typedef struct panel_layout
{
	double		top;			/* where the panel starts */
	double		title_y;		/* baseline of its title */
	double		strip_y;		/* top of the event strip (time panels with events) */
	double		plot_y;
	double		plot_h;
	bool		x_labels;		/* last of a run of time panels: draws the x axis */
	bool		has_events;
	bool		axis_used[2];
	int			nlegend;
	double		bottom;
} panel_layout;

typedef struct layout
{
	double		height;
	double		plot_x;
	double		plot_w;
	double		right_x;		/* start of the right axis labels */
	double		legend_x;
	double		legend_w;
	bool		has_right;
	panel_layout *p;
} layout;

static void
compute_layout(const chart *c, layout *L)
{
	double		y = 16,
				legend_total;

	memset(L, 0, sizeof(*L));
	L->p = xcalloc(c->npanels ? c->npanels : 1, sizeof(panel_layout));

	for (int i = 0; i < c->nseries; i++)
	{
		const series *s = &c->series[i];
		panel_layout *pl = &L->p[s->panel];

		pl->nlegend++;
		if (s->style == CHART_EVENTS)
			pl->has_events = true;
		else
			pl->axis_used[s->axis] = true;
	}
	for (int i = 0; i < c->npanels; i++)
	{
		const panel *p = &c->panels[i];

		if (p->kind != PANEL_TIME)
			continue;
		if (p->ylabel[1] != NULL || p->yunit[1] != NULL)
			L->p[i].axis_used[1] = true;
		if (!L->p[i].axis_used[1] || p->ylabel[0] != NULL || p->yunit[0] != NULL)
			L->p[i].axis_used[0] = true;
		if (L->p[i].axis_used[1])
			L->has_right = true;
	}

	/* the legend column grows to fit the longest name rather than cutting it */
	legend_total = LEGEND_W;
	for (int i = 0; i < c->nseries; i++)
	{
		const series *s = &c->series[i];
		double		w = text_width(s->name, 12) + 28 + 4;

		if (s->axis == CHART_RIGHT && s->style != CHART_EVENTS && L->p[s->panel].axis_used[0])
			w += text_width(" (right)", 12);
		legend_total = fmax(legend_total, w + 20 + MARGIN - 8);
	}
	legend_total = fmin(ceil(legend_total), LEGEND_W_MAX);

	L->plot_x = PLOT_X;
	L->legend_x = CHART_WIDTH - legend_total + 20;
	L->legend_w = legend_total - 20 - MARGIN + 8;
	L->right_x = CHART_WIDTH - legend_total - (L->has_right ? RIGHT_AXIS_W : 0);
	L->plot_w = L->right_x - L->plot_x;

	if (c->title != NULL)
		y += 26;
	if (c->subtitle != NULL)
		y += 22;
	y += 14;

	for (int i = 0; i < c->npanels; i++)
	{
		const panel *p = &c->panels[i];
		panel_layout *pl = &L->p[i];

		pl->top = y;
		if (p->kind == PANEL_BARS)
		{
			pl->title_y = y + 14;
			y += p->title != NULL ? 28 : 6;
			pl->plot_y = y;
			pl->plot_h = (double) (p->nbars ? p->nbars : 1) * BAR_ROW;
			y += pl->plot_h;
		}
		else
		{
			pl->title_y = y + 14;
			y += p->title != NULL ? 26 : 8;
			if (pl->has_events)
			{
				pl->strip_y = y;
				y += EVENT_STRIP_H;
			}
			pl->plot_y = y;
			pl->plot_h = fmax(p->plot_h, (double) pl->nlegend * LEGEND_ROW);
			y += pl->plot_h;
			pl->x_labels = i + 1 == c->npanels || c->panels[i + 1].kind != PANEL_TIME;
			if (pl->x_labels)
				y += c->xlabel != NULL ? 42 : 22;
		}
		pl->bottom = y;
		y += PANEL_GAP;
	}
	L->height = ceil(y);
}

/* ---------------------------------------------------------------- panels */

static void
draw_legend(const chart *c, int pi, const layout *L, strbuf *out)
{
	const panel_layout *pl = &L->p[pi];
	double		y = pl->plot_y;
	size_t		max_chars = fit_chars(L->legend_w - 28, 12);
	int			pass;

	/* areas first, top of the stack first; then the rest in the order added */
	for (pass = 0; pass < 2; pass++)
	{
		for (int j = 0; j < c->nseries; j++)
		{
			int			i = pass == 0 ? c->nseries - 1 - j : j;
			const series *s = &c->series[i];
			double		x = L->legend_x;
			double		cy = y + LEGEND_ROW / 2.0;
			strbuf		name;

			if (s->panel != pi || (s->style == CHART_AREA) != (pass == 0))
				continue;
			strbuf_puts(out, "<g>");
			switch (s->style)
			{
				case CHART_AREA:
					strbuf_puts(out, "<rect");
					put_attr_num(out, "x", x + 5);
					put_attr_num(out, "y", cy - 6);
					strbuf_puts(out, " width=\"12\" height=\"12\"");
					put_colour_attr(out, "fill", s->colour);
					strbuf_puts(out, "/>");
					break;
				case CHART_EVENTS:
					strbuf_puts(out, "<path d=\"M");
					put_num(out, x + 6);
					strbuf_putc(out, ' ');
					put_num(out, cy - 4);
					strbuf_puts(out, "h10l-5 9z\"");
					put_colour_attr(out, "fill", s->colour);
					strbuf_puts(out, "/>");
					break;
				default:
					strbuf_puts(out, "<line");
					put_attr_num(out, "x1", x);
					put_attr_num(out, "y1", cy);
					put_attr_num(out, "x2", x + 22);
					put_attr_num(out, "y2", cy);
					put_colour_attr(out, "stroke", s->colour);
					strbuf_printf(out, " stroke-width=\"2.5\"%s/>",
								  s->dashed ? " stroke-dasharray=\"6 3\"" : "");
					break;
			}
			strbuf_init(&name);
			strbuf_puts(&name, s->name);
			if (s->axis == CHART_RIGHT && s->style != CHART_EVENTS && L->p[pi].axis_used[0])
				strbuf_puts(&name, " (right)");
			put_text_el(out, x + 28, cy + 4, NULL, "class=\"legend\"", name.data, max_chars);
			strbuf_free(&name);
			strbuf_puts(out, "</g>\n");
			y += LEGEND_ROW;
		}
	}
}

/*
 * Markers for an events series in the strip above the plot: a triangle
 * pointing at the x of an event, widened into a band over a run of events
 * closer than a few pixels, with the count (of the run) above it where the
 * label does not touch the previous one.
 */
static void
draw_events(const series *s, const scale *xs, const panel_layout *pl, strbuf *out)
{
	const double *px,
			   *py;
	bool		owned;
	size_t		n = sorted_points(s, &px, &py, &owned);
	double		label_end = -INFINITY;
	double		my = pl->strip_y + 14;	/* top of the markers */
	size_t		i = 0;
	strbuf		labels;

	strbuf_init(&labels);
	strbuf_puts(out, "<path class=\"events\"");
	put_colour_attr(out, "fill", s->colour);
	strbuf_puts(out, " d=\"");
	while (i < n)
	{
		double		x0,
					x1,
					count = 0,
					w;
		char		num[32];

		if (!isfinite(px[i]) || !(py[i] > 0) || px[i] < xs->lo || px[i] > xs->hi)
		{
			i++;
			continue;
		}
		x0 = x1 = scale_px(xs, px[i]);
		for (; i < n; i++)
		{
			double		x;

			if (!isfinite(px[i]) || !(py[i] > 0))
				continue;
			if (px[i] > xs->hi)
				break;
			x = scale_px(xs, px[i]);
			if (x - x1 > 6)
				break;
			x1 = x;
			count += py[i];
		}
		strbuf_putc(out, 'M');
		put_num(out, x0 - 4.5);
		strbuf_putc(out, ' ');
		put_num(out, my);
		strbuf_putc(out, 'H');
		put_num(out, x1 + 4.5);
		strbuf_puts(out, "l-4.5 8H");
		put_num(out, x0);
		strbuf_putc(out, 'z');

		chart_format_number(count, num, sizeof(num));
		w = text_width(num, 10);
		if ((x0 + x1) / 2 - w / 2 > label_end + 4)
		{
			put_text_el(&labels, (x0 + x1) / 2, my - 3, NULL, NULL, num, 0);
			label_end = (x0 + x1) / 2 + w / 2;
		}
	}
	strbuf_puts(out, "\"><title>");
	put_text(out, s->name, 0);
	strbuf_puts(out, "</title></path>\n");
	if (labels.len > 0)
	{
		/* dark text: a count in the marker's colour is unreadable for light ones (yellow) */
		strbuf_puts(out, "<g font-size=\"10\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#222\">\n");
		strbuf_append(out, labels.data, labels.len);
		strbuf_puts(out, "</g>\n");
	}
	strbuf_free(&labels);
	if (owned)
	{
		free((void *) px);
		free((void *) py);
	}
}

static void
draw_line_series(const series *s, const scale *xs, const scale *ys, strbuf *out)
{
	const double *px,
			   *py;
	bool		owned;
	size_t		n = sorted_points(s, &px, &py, &owned);
	strbuf		d,
				dots;
	path_writer w;

	strbuf_init(&d);
	strbuf_init(&dots);
	memset(&w, 0, sizeof(w));
	w.d = &d;
	w.dots = &dots;
	w.step = s->style == CHART_STEP;
	w.dot_colour = palette[s->colour];
	for (size_t i = 0; i < n; i++)
	{
		if (!isfinite(px[i]) || !isfinite(py[i]) || (ys->log && py[i] <= 0))
		{
			pw_end_segment(&w);
			continue;
		}
		pw_add(&w, i, scale_px(xs, px[i]), scale_px(ys, py[i]));
	}
	pw_end_segment(&w);
	if (d.len > 0)
	{
		strbuf_puts(out, "<path class=\"line\" fill=\"none\"");
		put_colour_attr(out, "stroke", s->colour);
		strbuf_printf(out, " stroke-width=\"%s\" stroke-linejoin=\"round\"%s d=\"",
					  s->dashed ? "1.6" : "2",
					  s->dashed ? " stroke-dasharray=\"7 4\"" : "");
		strbuf_append(out, d.data, d.len);
		strbuf_puts(out, "\"><title>");
		put_text(out, s->name, 0);
		strbuf_puts(out, "</title></path>\n");
	}
	strbuf_append(out, dots.data, dots.len);
	strbuf_free(&d);
	strbuf_free(&dots);
	if (owned)
	{
		free((void *) px);
		free((void *) py);
	}
}

static void
draw_stack(const chart *c, const stack *st, const scale *xs, const scale *ys, strbuf *out)
{
	double		half = st->nx == 1 ? 1.5 : 0;	/* one x: a thin band, not nothing */

	for (int k = 0; k < st->nlayers; k++)
	{
		const series *s = &c->series[st->layer_series[k]];
		const double *top = st->tops + (size_t) k * st->nx;
		const double *bottom = k > 0 ? st->tops + (size_t) (k - 1) * st->nx : NULL;

		if (st->nx == 0)
			continue;
		strbuf_puts(out, "<path class=\"area\"");
		put_colour_attr(out, "fill", s->colour);
		strbuf_puts(out, " stroke=\"#fff\" stroke-width=\"0.5\" stroke-linejoin=\"round\" d=\"");
		for (size_t j = 0; j < st->nx; j++)
		{
			strbuf_putc(out, j == 0 ? 'M' : 'L');
			put_num(out, scale_px(xs, st->xs[j]) - half);
			strbuf_putc(out, ' ');
			put_num(out, scale_px(ys, top[j]));
			if (half > 0)
			{
				strbuf_putc(out, 'L');
				put_num(out, scale_px(xs, st->xs[j]) + half);
				strbuf_putc(out, ' ');
				put_num(out, scale_px(ys, top[j]));
			}
		}
		for (size_t j = st->nx; j > 0; j--)
		{
			double		b = bottom != NULL ? bottom[j - 1] : 0;

			strbuf_putc(out, 'L');
			put_num(out, scale_px(xs, st->xs[j - 1]) + half);
			strbuf_putc(out, ' ');
			put_num(out, scale_px(ys, b));
			if (half > 0)
			{
				strbuf_putc(out, 'L');
				put_num(out, scale_px(xs, st->xs[j - 1]) - half);
				strbuf_putc(out, ' ');
				put_num(out, scale_px(ys, b));
			}
		}
		strbuf_puts(out, "Z\"><title>");
		put_text(out, s->name, 0);
		strbuf_puts(out, "</title></path>\n");
	}
}

static void
draw_time_panel(const chart *c, int pi, const layout *L, const scale *xs, strbuf *out)
{
	const panel *p = &c->panels[pi];
	const panel_layout *pl = &L->p[pi];
	double		x0 = L->plot_x,
				x1 = L->plot_x + L->plot_w;
	double		yb = pl->plot_y + pl->plot_h,
				yt = pl->plot_y;
	stack		stacks[2];
	scale		ys[2];
	double		dlo[2],
				dhi[2],
				dminpos[2],
				dmaxpos[2];
	bool		use_log[2];
	int			grid_axis;
	bool		any_data = false;
	int			target = (int) (pl->plot_h / 50);
	char		buf[64];

	memset(ys, 0, sizeof(ys));

	if (target < 2)
		target = 2;

	/* data ranges, 0 always included on a linear axis */
	for (int a = 0; a < 2; a++)
	{
		double		lo = 0,
					hi = 0,
					minpos = INFINITY,
					maxpos = 0;

		stack_build(c, pi, (chart_axis) a, xs, &stacks[a]);
		if (stacks[a].nx > 0)
		{
			hi = stacks[a].max_top;
			any_data = true;
		}
		for (int i = 0; i < c->nseries; i++)
		{
			const series *s = &c->series[i];

			if (s->panel != pi || (int) s->axis != a || s->style == CHART_AREA ||
				s->style == CHART_EVENTS)
				continue;
			for (size_t j = 0; j < s->n; j++)
			{
				double		v = s->y[j];

				/* only what is in the x range counts */
				if (!isfinite(v) || s->x[j] < xs->lo || s->x[j] > xs->hi)
					continue;
				lo = fmin(lo, v);
				hi = fmax(hi, v);
				if (v > 0)
				{
					minpos = fmin(minpos, v);
					maxpos = fmax(maxpos, v);
				}
				any_data = true;
			}
		}
		dlo[a] = lo;
		dhi[a] = hi;
		dminpos[a] = minpos;
		dmaxpos[a] = maxpos;
		/* a stack has no sensible log form */
		use_log[a] = p->ylog[a] && stacks[a].nlayers == 0;
	}
	grid_axis = pl->axis_used[0] ? 0 : 1;
	for (int a = grid_axis; a < 2; a++)
	{
		bool		fixed = isfinite(p->ylo[0]) || isfinite(p->yhi[0]) ||
			isfinite(p->ylo[1]) || isfinite(p->yhi[1]);
		/* a right axis next to a linear left one gets its ticks on the left's gridlines */
		int			align = a == 1 && grid_axis == 0 && !fixed && !use_log[0] && !use_log[1]
			? ys[0].nticks - 1 : 0;

		if (use_log[a])
			make_log_scale(&ys[a], dminpos[a], dmaxpos[a], p->ylo[a], p->yhi[a], yb, yt);
		else
			make_y_scale(&ys[a], dlo[a], dhi[a], p->ylo[a], p->yhi[a], target, align, yb, yt);
	}

	/* title */
	if (p->title != NULL)
		put_text_el(out, x0, pl->title_y, NULL, "font-size=\"14\" font-weight=\"bold\" fill=\"#222\"",
					p->title, fit_chars(L->plot_w, 14));

	/* plot background and grid */
	strbuf_puts(out, "<rect class=\"plot\"");
	put_attr_num(out, "x", x0);
	put_attr_num(out, "y", yt);
	put_attr_num(out, "width", L->plot_w);
	put_attr_num(out, "height", pl->plot_h);
	strbuf_puts(out, " fill=\"#fcfcfc\" stroke=\"none\"/>\n");
	strbuf_puts(out, "<g class=\"grid\" stroke=\"#e3e3e3\" stroke-width=\"1\">\n");
	for (int i = 0; i < ys[grid_axis].nticks; i++)
	{
		double		y = scale_px(&ys[grid_axis], tick_value(&ys[grid_axis], i));

		strbuf_puts(out, "<line");
		put_attr_num(out, "x1", x0);
		put_attr_num(out, "y1", y);
		put_attr_num(out, "x2", x1);
		put_attr_num(out, "y2", y);
		strbuf_puts(out, "/>\n");
	}
	for (int i = 0; i < xs->nticks; i++)
	{
		double		x = scale_px(xs, tick_value(xs, i));

		strbuf_puts(out, "<line");
		put_attr_num(out, "x1", x);
		put_attr_num(out, "y1", yt);
		put_attr_num(out, "x2", x);
		put_attr_num(out, "y2", yb);
		strbuf_puts(out, "/>\n");
	}
	strbuf_puts(out, "</g>\n");

	/* a darker line at 0 when 0 is inside the range */
	for (int a = 0; a < 2; a++)
	{
		if (!pl->axis_used[a] || a != grid_axis || ys[a].log || !(ys[a].lo < 0 && ys[a].hi > 0))
			continue;
		strbuf_puts(out, "<line");
		put_attr_num(out, "x1", x0);
		put_attr_num(out, "y1", scale_px(&ys[a], 0));
		put_attr_num(out, "x2", x1);
		put_attr_num(out, "y2", scale_px(&ys[a], 0));
		strbuf_puts(out, " stroke=\"#999\"/>\n");
	}

	/* series, clipped to the plot */
	strbuf_printf(out, "<clipPath id=\"plot%d\"><rect", pi);
	put_attr_num(out, "x", x0);
	put_attr_num(out, "y", yt - 1);
	put_attr_num(out, "width", L->plot_w);
	put_attr_num(out, "height", pl->plot_h + 2);
	strbuf_printf(out, "/></clipPath>\n<g clip-path=\"url(#plot%d)\">\n", pi);
	for (int a = 0; a < 2; a++)
		draw_stack(c, &stacks[a], xs, &ys[a], out);
	for (int i = 0; i < c->nseries; i++)
	{
		const series *s = &c->series[i];

		if (s->panel == pi && (s->style == CHART_LINE || s->style == CHART_STEP))
			draw_line_series(s, xs, &ys[s->axis], out);
	}
	strbuf_puts(out, "</g>\n");

	/* frame: left and bottom axis lines */
	strbuf_puts(out, "<path fill=\"none\" stroke=\"#888\" d=\"M");
	put_num(out, x0);
	strbuf_putc(out, ' ');
	put_num(out, yt);
	strbuf_putc(out, 'V');
	put_num(out, yb);
	strbuf_putc(out, 'H');
	put_num(out, x1);
	if (pl->axis_used[1])
	{
		strbuf_putc(out, 'V');
		put_num(out, yt);
	}
	strbuf_puts(out, "\"/>\n");

	/* tick labels */
	for (int a = 0; a < 2; a++)
	{
		const char *anchor = a == 0 ? "end" : "start";
		double		lx = a == 0 ? x0 - 7 : x1 + 7;

		if (!pl->axis_used[a])
			continue;
		strbuf_printf(out, "<g font-size=\"11\" fill=\"#444\" text-anchor=\"%s\">\n", anchor);
		for (int i = 0; i < ys[a].nticks; i++)
		{
			double		v = tick_value(&ys[a], i);

			format_tick_number(&ys[a], v, buf, sizeof(buf));
			put_text_el(out, lx, scale_px(&ys[a], v) + 4, NULL, NULL, buf, 0);
		}
		strbuf_puts(out, "</g>\n");
		if (a == 0)
			put_vertical_title(out, MARGIN - 4, (yt + yb) / 2, p->ylabel[0], p->yunit[0],
							   pl->plot_h);
		else
			put_vertical_title(out, L->right_x + RIGHT_AXIS_W - 12, (yt + yb) / 2,
							   p->ylabel[1], p->yunit[1], pl->plot_h);
	}
	if (pl->x_labels)
	{
		double		last_end = -INFINITY;

		strbuf_puts(out, "<g font-size=\"11\" fill=\"#444\" text-anchor=\"middle\">\n");
		for (int i = 0; i < xs->nticks; i++)
		{
			double		v = tick_value(xs, i);
			double		x = scale_px(xs, v);
			double		w;

			format_x_tick(c, xs, v, buf, sizeof(buf));
			w = text_width(buf, 11);
			/* labels that would touch the previous one are left out */
			if (x - w / 2 < last_end + 6)
				continue;
			put_text_el(out, x, yb + 16, NULL, NULL, buf, 0);
			last_end = x + w / 2;
		}
		strbuf_puts(out, "</g>\n");
		if (c->xlabel != NULL)
			put_text_el(out, (x0 + x1) / 2, yb + 36, "middle", "font-size=\"12\" fill=\"#333\"",
						c->xlabel, fit_chars(L->plot_w, 12));
	}

	if (!any_data)
		put_text_el(out, (x0 + x1) / 2, (yt + yb) / 2 + 5, "middle",
					"font-size=\"14\" fill=\"#999\"", "no data", 0);

	for (int i = 0; i < c->nseries; i++)
	{
		const series *s = &c->series[i];

		if (s->panel == pi && s->style == CHART_EVENTS)
			draw_events(s, xs, pl, out);
	}
	draw_legend(c, pi, L, out);

	for (int a = 0; a < 2; a++)
		stack_free(&stacks[a]);
}

static void
draw_bar_panel(const chart *c, int pi, const layout *L, strbuf *out)
{
	const panel *p = &c->panels[pi];
	const panel_layout *pl = &L->p[pi];
	double		label_w = 0,
				max = 0,
				bar_x,
				bar_w;
	size_t		label_chars;
	const char *unit = p->unit != NULL ? p->unit : "";

	if (p->title != NULL)
		put_text_el(out, MARGIN, pl->title_y, NULL, "font-size=\"14\" font-weight=\"bold\" fill=\"#222\"",
					p->title, fit_chars(CHART_WIDTH - 2 * MARGIN, 14));
	for (size_t i = 0; i < p->nbars; i++)
	{
		label_w = fmax(label_w, text_width(p->bars[i].label, 12));
		if (isfinite(p->bars[i].value))
			max = fmax(max, p->bars[i].value);
	}
	label_w = fmin(fmax(label_w, 60), 340);
	label_chars = fit_chars(label_w, 12);
	bar_x = MARGIN + label_w + 10;
	bar_w = CHART_WIDTH - MARGIN - bar_x - 210;

	if (p->nbars == 0)
	{
		put_text_el(out, bar_x, pl->plot_y + 15, NULL, "font-size=\"12\" fill=\"#999\"",
					"no data", 0);
		return;
	}
	for (size_t i = 0; i < p->nbars; i++)
	{
		const bar  *b = &p->bars[i];
		double		cy = pl->plot_y + i * BAR_ROW + BAR_ROW / 2.0;
		double		w = max > 0 && isfinite(b->value) && b->value > 0 ? b->value / max * bar_w : 0;
		char		num[32];
		strbuf		val;

		strbuf_puts(out, "<g>");
		put_text_el(out, MARGIN + label_w, cy + 4, "end", "class=\"bar-label\" font-size=\"12\" fill=\"#222\"",
					b->label, label_chars);
		strbuf_puts(out, "<rect");
		put_attr_num(out, "x", bar_x);
		put_attr_num(out, "y", cy - 8);
		put_attr_num(out, "width", bar_w);
		strbuf_puts(out, " height=\"16\" fill=\"#f1f1f1\"/>");
		if (w > 0)
		{
			strbuf_puts(out, "<rect class=\"bar\"");
			put_attr_num(out, "x", bar_x);
			put_attr_num(out, "y", cy - 8);
			put_attr_num(out, "width", fmax(w, 1));
			strbuf_puts(out, " height=\"16\"");
			put_colour_attr(out, "fill", b->colour);
			strbuf_puts(out, "><title>");
			put_text(out, b->label, 0);
			strbuf_puts(out, "</title></rect>");
		}
		strbuf_init(&val);
		if (isfinite(b->value))
		{
			if (strcmp(unit, "%") == 0 && b->value > 0 && b->value < 0.05)
				strbuf_puts(&val, "<0.1%");
			else if (strcmp(unit, "%") == 0 && fabs(b->value) < 1000)
			{
				/* shares read best with one decimal: 30.2%, 1.0% */
				fmt_fixed(num, sizeof(num), b->value, 1, false);
				strbuf_printf(&val, "%s%%", num);
			}
			else
			{
				chart_format_number(b->value, num, sizeof(num));
				strbuf_printf(&val, "%s%s%s", num, *unit == '\0' ? "" : " ", unit);
			}
		}
		else
			strbuf_puts(&val, "-");
		strbuf_puts(out, "<text");
		put_attr_num(out, "x", bar_x + bar_w + 8);
		put_attr_num(out, "y", cy + 4);
		strbuf_puts(out, " font-size=\"12\" fill=\"#222\">");
		put_text(out, val.data, 0);
		if (b->note != NULL && *b->note != '\0')
		{
			strbuf_puts(out, "<tspan fill=\"#777\" dx=\"8\">");
			put_text(out, b->note, fit_chars(200 - text_width(val.data, 12), 12));
			strbuf_puts(out, "</tspan>");
		}
		strbuf_puts(out, "</text></g>\n");
		strbuf_free(&val);
	}
}

/* ---------------------------------------------------------------- the document */

void
chart_render(const chart *c, strbuf *out)
{
	layout		L;
	scale		xs;
	bool		any_time = false;

	compute_layout(c, &L);
	for (int i = 0; i < c->npanels; i++)
		if (c->panels[i].kind == PANEL_TIME)
			any_time = true;
	if (any_time)
		make_x_scale(c, &xs, L.plot_x, L.plot_x + L.plot_w);

	strbuf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	strbuf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
				  "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
				  "font-family=\"%s\" font-size=\"12\">\n",
				  CHART_WIDTH, (int) L.height, CHART_WIDTH, (int) L.height, FONT_FAMILY);
	if (c->title != NULL)
	{
		strbuf_puts(out, "<title>");
		put_text(out, c->title, 0);
		strbuf_puts(out, "</title>\n");
	}
	strbuf_printf(out, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
				  CHART_WIDTH, (int) L.height);
	{
		double		y = 16;

		if (c->title != NULL)
		{
			y += 22;
			put_text_el(out, MARGIN, y, NULL, "font-size=\"20\" font-weight=\"bold\" fill=\"#111\"",
						c->title, fit_chars(CHART_WIDTH - 2 * MARGIN, 20));
			y += 4;
		}
		if (c->subtitle != NULL)
		{
			y += 18;
			put_text_el(out, MARGIN, y, NULL, "font-size=\"13\" fill=\"#555\"",
						c->subtitle, fit_chars(CHART_WIDTH - 2 * MARGIN, 13));
		}
	}
	for (int i = 0; i < c->npanels; i++)
	{
		if (c->panels[i].kind == PANEL_TIME)
			draw_time_panel(c, i, &L, &xs, out);
		else
			draw_bar_panel(c, i, &L, out);
	}
	strbuf_puts(out, "</svg>\n");
	free(L.p);
}
