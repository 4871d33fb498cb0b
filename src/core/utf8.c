/*
 * utf8.c — validating and escaping UTF-8.
 */
#include "config.h"

#include "pgtempo/utf8.h"

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

void
utf8_append_escaped(strbuf *sb, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t		run = 0,
				i = 0;

	while (i < n)
	{
		size_t		len;
		unsigned char c = (unsigned char) s[i];

		if (c < 0x80)
		{
			i++;
			continue;
		}
		len = utf8_seq_len(s + i, n - i);
		if (len > 0)
		{
			i += len;
			continue;
		}
		strbuf_append(sb, s + run, i - run);
		{
			char		esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 0xF]};

			strbuf_append(sb, esc, sizeof(esc));
		}
		run = ++i;
	}
	strbuf_append(sb, s + run, n - run);
}
