/*
 * utf8.c — validating and escaping UTF-8.
 */
#include "config.h"

#include "pgtempo/utf8.h"

#include <stdint.h>
#include <string.h>

size_t
utf8_seq_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *) s;
	unsigned char lo = 0x80,
				hi = 0xBF;
	size_t		len,
				i;

	if (n == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		len = 2;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
	{
		len = 3;
		if (p[0] == 0xE0)
			lo = 0xA0;			/* no overlong forms */
		else if (p[0] == 0xED)
			hi = 0x9F;			/* no UTF-16 surrogates */
	}
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
	{
		len = 4;
		if (p[0] == 0xF0)
			lo = 0x90;
		else if (p[0] == 0xF4)
			hi = 0x8F;			/* nothing above U+10FFFF */
	}
	else
		return 0;
	if (n < len)
		return 0;
	/* only the first continuation byte has the narrower range */
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return len;
}

bool
utf8_valid(const char *s, size_t n)
{
	size_t		i = 0;

	while (i < n)
	{
		size_t		len;

		if ((unsigned char) s[i] < 0x80)
		{
			i++;
			continue;
		}
		len = utf8_seq_len(s + i, n - i);
		if (len == 0)
			return false;
		i += len;
	}
	return true;
}

/* The code point of the well-formed sequence of len bytes at s. */
static uint32_t
decode(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *) s;
	uint32_t	cp;

	if (len == 1)
		return p[0];
	cp = p[0] & (0x7F >> len);
	for (size_t i = 1; i < len; i++)
		cp = (cp << 6) | (p[i] & 0x3F);
	return cp;
}

/* A C0 or C1 control character, or DEL: what a terminal acts on. */
static bool
is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

/* Append byte c as \xNN. */
static void
append_hex(strbuf *sb, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char		esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 0xF]};

	strbuf_append(sb, esc, sizeof(esc));
}

/*
 * The one escaping loop: invalid bytes always as \xNN, control characters
 * too when controls is set (\n, \r and \t by name); runs of everything
 * else copied as they are.
 */
static void
append_escaped(strbuf *sb, const char *s, size_t n, bool controls)
{
	size_t		run = 0,
				i = 0;

	while (i < n)
	{
		unsigned char c = (unsigned char) s[i];
		size_t		len = c < 0x80 ? 1 : utf8_seq_len(s + i, n - i);

		if (len > 0 && !(controls && is_control(decode(s + i, len))))
		{
			i += len;
			continue;
		}
		strbuf_append(sb, s + run, i - run);
		if (len == 0)
			len = 1;
		if (c == '\n')
			strbuf_puts(sb, "\\n");
		else if (c == '\r')
			strbuf_puts(sb, "\\r");
		else if (c == '\t')
			strbuf_puts(sb, "\\t");
		else
			for (size_t k = 0; k < len; k++)
				append_hex(sb, (unsigned char) s[i + k]);
		i += len;
		run = i;
	}
	strbuf_append(sb, s + run, n - run);
}

void
utf8_append_escaped(strbuf *sb, const char *s, size_t n)
{
	append_escaped(sb, s, n, false);
}

void
utf8_append_printable(strbuf *sb, const char *s, size_t n)
{
	append_escaped(sb, s, n, true);
}

/*
 * A folded stack's frame: ';' separates frames and a line break ends the
 * stack, so ';' is written ':' and a line break or tab a space; the rest
 * as utf8_append_printable writes it (other control characters, which the
 * SVG cannot hold, and bytes that are not UTF-8 as \xNN).
 */
void
utf8_append_frame(strbuf *sb, const char *s, size_t n)
{
	size_t		from = 0;

	for (size_t i = 0; i < n; i++)
	{
		char		c = s[i];

		if (c != ';' && c != '\n' && c != '\r' && c != '\t')
			continue;
		append_escaped(sb, s + from, i - from, true);
		strbuf_putc(sb, c == ';' ? ':' : ' ');
		from = i + 1;
	}
	append_escaped(sb, s + from, n - from, true);
}

const char *
utf8_printable(strbuf *sb, const char *s)
{
	strbuf_reset(sb);
	if (s != NULL)
		utf8_append_printable(sb, s, strlen(s));
	return sb->data;
}

/* Combining marks and zero-width characters: no column of their own. */
static bool
is_zero_width(uint32_t cp)
{
	return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x1AB0 && cp <= 0x1AFF) ||
		(cp >= 0x1DC0 && cp <= 0x1DFF) || (cp >= 0x200B && cp <= 0x200F) ||
		(cp >= 0x20D0 && cp <= 0x20FF) || (cp >= 0xFE00 && cp <= 0xFE0F) ||
		(cp >= 0xFE20 && cp <= 0xFE2F);
}

/* East Asian wide and fullwidth characters (Unicode's UAX #11, the main blocks). */
static bool
is_wide(uint32_t cp)
{
	return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
		(cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
		(cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
		(cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
		(cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
		(cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
		(cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
}

int
utf8_width(const char *s, size_t n)
{
	int			w = 0;
	size_t		i = 0;

	while (i < n)
	{
		size_t		len = (unsigned char) s[i] < 0x80 ? 1 : utf8_seq_len(s + i, n - i);
		uint32_t	cp;

		if (len == 0)
		{
			w++;
			i++;
			continue;
		}
		cp = decode(s + i, len);
		w += is_zero_width(cp) ? 0 : is_wide(cp) ? 2 : 1;
		i += len;
	}
	return w;
}
