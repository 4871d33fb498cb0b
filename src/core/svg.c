/*
 * svg.c — text, numbers and coordinates for SVG documents.
 *
 * Text widths are estimates (CHAR_EM of the font size per character) used
 * only to truncate labels and to keep labels apart.
 */
#include "config.h"

#include "pgtempo/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CHAR_EM 0.58			/* estimated advance of a character, in em */

/* ---------------------------------------------------------------- text */

/*
 * Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not one:
 * overlong forms, surrogates and code points past U+10FFFF are invalid.
 */
static int
svg_char_len(const unsigned char *p)
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
		int			len = svg_char_len(p);

		p += len ? len : 1;
		n++;
	}
	return n;
}

double
svg_text_width(const char *s, double font_size)
{
	return (double) text_chars(s) * font_size * CHAR_EM;
}

/*
 * Append s escaped for XML; with max_chars > 0 and a longer s, the first
 * max_chars - 1 characters and an ellipsis.  Tabs and newlines become
 * spaces (SVG text is one line), other control characters are dropped.
 */
void
svg_text(strbuf *out, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t		n = 0;
	bool		cut = max_chars > 0 && text_chars(s) > max_chars;

	while (*p != '\0')
	{
		int			len = svg_char_len(p);

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

size_t
svg_fit_chars(double width, double font_size)
{
	double		n = floor(width / (font_size * CHAR_EM));

	return n < 4 ? 4 : (size_t) n;
}

/* ---------------------------------------------------------------- numbers, by hand */

const double svg_pow10[10] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9
};

/*
 * v with exactly `decimals` decimals (0..9), '.' as the decimal point,
 * trailing zeros dropped when trim.  Returns false when v is too large for
 * integer arithmetic at that precision (the caller falls back).
 */
bool
svg_fixed(char *buf, size_t size, double v, int decimals, bool trim)
{
	double		m = svg_pow10[decimals];
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
	svg_fixed(mant, sizeof(mant), m, 2, true);
	snprintf(buf, size, "%s%se%d", v < 0 ? "-" : "", mant, e);
}

void
svg_format_number(double v, char *buf, size_t size)
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
		if (i < 4 && llround(scaled * svg_pow10[d]) >= 1000 * (long long) svg_pow10[d])
		{
			i++;
			continue;
		}
		svg_fixed(num, sizeof(num), v < 0 ? -scaled : scaled, d, true);
		snprintf(buf, size, "%s%s", num, suffix[i]);
		return;
	}
}

/* Append a coordinate: one decimal at most, clamped to +-SVG_PX_MAX. */
void
svg_num(strbuf *out, double v)
{
	char		buf[24];
	char	   *p = buf + sizeof(buf);
	long long	r;
	bool		neg;

	if (!(v > -SVG_PX_MAX))
		v = -SVG_PX_MAX;
	else if (v > SVG_PX_MAX)
		v = SVG_PX_MAX;
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
void
svg_attr_num(strbuf *out, const char *name, double v)
{
	strbuf_putc(out, ' ');
	strbuf_puts(out, name);
	strbuf_puts(out, "=\"");
	svg_num(out, v);
	strbuf_putc(out, '"');
}

/* Round to the precision written, so equal points compare equal. */
double
svg_px_round(double v)
{
	if (!(v > -SVG_PX_MAX))
		return -SVG_PX_MAX;
	if (v > SVG_PX_MAX)
		return SVG_PX_MAX;
	return round(v * 10) / 10;
}

/* <text x y [anchor]>s</text> with s escaped and cut to max_chars (0: whole). */
void
svg_text_el(strbuf *out, double x, double y, const char *anchor, const char *extra,
			const char *s, size_t max_chars)
{
	strbuf_puts(out, "<text");
	svg_attr_num(out, "x", x);
	svg_attr_num(out, "y", y);
	if (anchor != NULL)
		strbuf_printf(out, " text-anchor=\"%s\"", anchor);
	if (extra != NULL)
	{
		strbuf_putc(out, ' ');
		strbuf_puts(out, extra);
	}
	strbuf_putc(out, '>');
	svg_text(out, s, max_chars);
	strbuf_puts(out, "</text>\n");
}

