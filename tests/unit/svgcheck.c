/*
 * svgcheck.c — a tiny XML checker and the checks every rendered chart
 * must pass.
 */
#include "config.h"

#include "svgcheck.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtempo/strbuf.h"

static bool
is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		c == '-' || c == '_' || c == ':' || c == '.';
}

/* Skip an entity or character reference at *p ('&'); false if it is not one. */
static bool
skip_reference(const char **p)
{
	static const char *const named[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
	const char *s = *p;

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
	{
		if (strncmp(s, named[i], strlen(named[i])) == 0)
		{
			*p = s + strlen(named[i]);
			return true;
		}
	}
	if (s[1] != '#')
		return false;
	s += 2;
	if (*s == 'x')
	{
		s++;
		if (strspn(s, "0123456789abcdefABCDEF") == 0)
			return false;
		s += strspn(s, "0123456789abcdefABCDEF");
	}
	else
	{
		if (strspn(s, "0123456789") == 0)
			return false;
		s += strspn(s, "0123456789");
	}
	if (*s != ';')
		return false;
	*p = s + 1;
	return true;
}

/* Valid UTF-8 without control characters other than tab and newlines. */
static const char *
check_chars(const char *doc)
{
	const unsigned char *p = (const unsigned char *) doc;

	while (*p != '\0')
	{
		int			len;

		if (*p < 0x80)
		{
			if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
				return "control character";
			p++;
			continue;
		}
		if (*p >= 0xC2 && *p <= 0xDF)
			len = 2;
		else if (*p >= 0xE0 && *p <= 0xEF)
			len = 3;
		else if (*p >= 0xF0 && *p <= 0xF4)
			len = 4;
		else
			return "invalid UTF-8 lead byte";
		for (int i = 1; i < len; i++)
			if ((p[i] & 0xC0) != 0x80)
				return "truncated UTF-8 sequence";
		if (len == 3 && p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF))
			return "U+FFFE or U+FFFF";
		if (len == 3 && p[0] == 0xED && p[1] >= 0xA0)
			return "surrogate";
		p += len;
	}
	return NULL;
}

/*
 * NULL when doc is a well-formed XML document (one root element, matched
 * tags, quoted attributes that are unique per element, valid references,
 * no '<' in text or attribute values), else what is wrong.
 */
const char *
svgcheck_xml_error(const char *doc)
{
	const char *stack[64];
	int			depth = 0;
	int			roots = 0;
	const char *p = doc;
	const char *err = check_chars(doc);

	if (err != NULL)
		return err;
	if (strncmp(p, "<?xml ", 6) == 0)
	{
		p = strstr(p, "?>");
		if (p == NULL)
			return "unterminated XML declaration";
		p += 2;
	}
	while (*p != '\0')
	{
		if (*p == '&')
		{
			if (!skip_reference(&p))
				return "bad reference in text";
			if (depth == 0)
				return "text outside the root";
			continue;
		}
		if (*p == '>')
			return "'>' in text";	/* legal XML, but this writer escapes it */
		if (*p != '<')
		{
			if (depth == 0 && *p != ' ' && *p != '\n' && *p != '\t' && *p != '\r')
				return "text outside the root";
			p++;
			continue;
		}
		if (strncmp(p, "<!--", 4) == 0)
		{
			p = strstr(p + 4, "-->");
			if (p == NULL)
				return "unterminated comment";
			p += 3;
			continue;
		}
		if (p[1] == '/')
		{
			size_t		n = 0;

			p += 2;
			while (is_name_char(p[n]))
				n++;
			if (depth == 0)
				return "end tag without a start tag";
			depth--;
			if (strncmp(stack[depth], p, n) != 0 || is_name_char(stack[depth][n]))
				return "mismatched end tag";
			p += n;
			if (*p != '>')
				return "bad end tag";
			p++;
			continue;
		}
		/* a start tag */
		{
			const char *name = ++p;
			const char *attrs[64];
			size_t		attr_len[64];
			int			nattrs = 0;

			if (!is_name_char(*p))
				return "bad tag name";
			while (is_name_char(*p))
				p++;
			if (depth == 0 && roots++ > 0)
				return "more than one root element";
			for (;;)
			{
				const char *an;
				size_t		n;

				if (*p != ' ' && *p != '\n' && *p != '>' && *p != '/')
					return "bad character in a tag";
				while (*p == ' ' || *p == '\n')
					p++;
				if (*p == '>' || strncmp(p, "/>", 2) == 0)
					break;
				an = p;
				while (is_name_char(*p))
					p++;
				n = p - an;
				if (n == 0)
					return "bad attribute name";
				for (int i = 0; i < nattrs; i++)
					if (attr_len[i] == n && strncmp(attrs[i], an, n) == 0)
						return "duplicate attribute";
				if (nattrs < 64)
				{
					attrs[nattrs] = an;
					attr_len[nattrs++] = n;
				}
				if (p[0] != '=' || p[1] != '"')
					return "attribute without a quoted value";
				p += 2;
				while (*p != '"')
				{
					if (*p == '\0')
						return "unterminated attribute value";
					if (*p == '<')
						return "'<' in an attribute value";
					if (*p == '&')
					{
						if (!skip_reference(&p))
							return "bad reference in an attribute value";
						continue;
					}
					p++;
				}
				p++;
			}
			if (*p == '/')
				p += 2;
			else
			{
				if (depth == 64)
					return "too deep";
				stack[depth++] = name;
				p++;
			}
		}
	}
	if (depth != 0)
		return "unclosed element";
	if (roots != 1)
		return "no root element";
	return NULL;
}

/* Run xmllint on doc when it is installed; true when it is absent or happy. */
static bool
xmllint_ok(const char *doc)
{
	char		path[] = "/tmp/svgcheck_XXXXXX";
	char		cmd[128];
	int			fd;
	FILE	   *f;
	int			rc;

	if (system("command -v xmllint >/dev/null 2>&1") != 0)
		return true;
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(doc, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	rc = system(cmd);
	unlink(path);
	return rc == 0;
}

/* Render c, check the document, and hand it over (free with free()). */
char *
svgcheck_render(const chart *c)
{
	strbuf		sb;
	const char *err;
	char	   *doc;

	strbuf_init(&sb);
	chart_render(c, &sb);
	err = svgcheck_xml_error(sb.data);
	ck_assert_msg(err == NULL, "not well-formed: %s", err);
	ck_assert_msg(xmllint_ok(sb.data), "xmllint rejects the document");
	ck_assert_msg(strncmp(sb.data, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0,
				  "no SVG header");
	ck_assert_ptr_nonnull(strstr(sb.data, " viewBox=\"0 0 1200 "));
	/* no script, no link, no style sheet */
	ck_assert_ptr_null(strstr(sb.data, "<script"));
	ck_assert_ptr_null(strstr(sb.data, "href"));
	ck_assert_ptr_null(strstr(sb.data, "<style"));
	/* no non-finite number made it into a coordinate */
	ck_assert_ptr_null(strcasestr(sb.data, "nan\""));
	ck_assert_ptr_null(strcasestr(sb.data, "inf\""));
	ck_assert_ptr_null(strstr(sb.data, "=\"-nan"));
	doc = strbuf_detach(&sb);
	strbuf_free(&sb);
	return doc;
}

double
svgcheck_attr_num(const char *el, const char *name)
{
	char		key[32];
	const char *p;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(el, key);
	ck_assert_ptr_nonnull(p);
	return strtod(p + strlen(key), NULL);
}

static const svgcheck_case *build_cases;

START_TEST(test_build_case)
{
	chart	   *c = chart_new(build_cases[_i].name, _i % 2 ? NULL : "subtitle");

	build_cases[_i].build(c);
	free(svgcheck_render(c));
	chart_free(c);
}
END_TEST

void
svgcheck_add_cases(TCase *tc, const svgcheck_case *cases, int n)
{
	build_cases = cases;
	tcase_add_loop_test(tc, test_build_case, 0, n);
}

void
svgcheck_hostile(void (*build) (chart *c, const char *evil))
{
	const char *evil = "</text><script>alert(\"x\" & 'y')</script>\x01\xff]]>";
	chart	   *c = chart_new(evil, evil);
	char	   *doc;

	build(c, evil);
	doc = svgcheck_render(c);
	ck_assert_ptr_nonnull(strstr(doc, "&lt;script&gt;alert(&quot;x&quot; &amp; &apos;y&apos;)"));
	free(doc);
	chart_free(c);
}
