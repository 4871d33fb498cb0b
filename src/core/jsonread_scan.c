/*
 * jsonread_scan.c — the lexical level of the JSON reader: strings and
 * numbers (the one grammar of each, used by the tree parser of
 * jsonread.c too), the number reader of single values, and the flat scan
 * of an object's members that a log line takes (no tree, no copy).
 */
#include "config.h"

#include "pgtempo/jsonread.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/utf8.h"
#include "pgtempo/xalloc.h"

#include "jsonread_int.h"

/* Four hex digits of a \u escape at p (end - p >= 4), or -1. */
static long
hex4(const char *p)
{
	long		v = 0;

	for (int i = 0; i < 4; i++)
	{
		char		c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* Write code point cp as UTF-8 at *dst. */
static void
put_utf8(char **dst, unsigned cp)
{
	unsigned char *d = (unsigned char *) *dst;

	if (cp < 0x80)
		*d++ = (unsigned char) cp;
	else if (cp < 0x800)
	{
		*d++ = (unsigned char) (0xC0 | (cp >> 6));
		*d++ = (unsigned char) (0x80 | (cp & 0x3F));
	}
	else if (cp < 0x10000)
	{
		*d++ = (unsigned char) (0xE0 | (cp >> 12));
		*d++ = (unsigned char) (0x80 | ((cp >> 6) & 0x3F));
		*d++ = (unsigned char) (0x80 | (cp & 0x3F));
	}
	else
	{
		*d++ = (unsigned char) (0xF0 | (cp >> 18));
		*d++ = (unsigned char) (0x80 | ((cp >> 12) & 0x3F));
		*d++ = (unsigned char) (0x80 | ((cp >> 6) & 0x3F));
		*d++ = (unsigned char) (0x80 | (cp & 0x3F));
	}
	*dst = (char *) d;
}

/* A \u escape at *pp (past the 'u'), surrogate pairs joined; NULL or the error. */
static const char *
unicode_escape(const char **pp, const char *end, char **dst)
{
	const char *p = *pp;
	long		cp,
				lo;

	if (end - p < 4)
		return "truncated \\u escape";
	if ((cp = hex4(p)) < 0)
		return "invalid \\u escape";
	*pp = p += 4;
	if (cp >= 0xDC00 && cp <= 0xDFFF)
		return "lone low surrogate in \\u escape";
	if (cp >= 0xD800 && cp <= 0xDBFF)
	{
		if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || (lo = hex4(p + 2)) < 0xDC00 ||
			lo > 0xDFFF)
			return "lone high surrogate in \\u escape";
		*pp = p + 6;
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	}
	if (dst != NULL)
		put_utf8(dst, (unsigned) cp);
	return NULL;
}

/* One escape at *pp (past the backslash); NULL or the error. */
static const char *
string_escape(const char **pp, const char *end, char **dst)
{
	static const char from[] = "\"\\/bfnrt";
	static const char to[] = "\"\\/\b\f\n\r\t";
	const char *k;

	if (*pp >= end)
		return "unterminated string";
	if (**pp == 'u')
	{
		(*pp)++;
		return unicode_escape(pp, end, dst);
	}
	k = strchr(from, **pp);
	if (k == NULL || **pp == '\0')
		return "invalid escape in string";
	if (dst != NULL)
		*(*dst)++ = to[k - from];
	(*pp)++;
	return NULL;
}

/* The bytes a string holds as they are: printable ASCII but the quote and the backslash. */
static const unsigned char plain_byte[256] = {
	[0x20] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

/* Whether any byte of w is below n (n <= 128; exact as to "any"). */
#define HAS_LESS(w, n) (((w) - ONES * (n)) & ~(w) & HIGHS)

/*
 * p past the plain_byte bytes from p (not beyond end).  Eight at a time
 * where the machine is little-endian: a byte that is not plain has its
 * high bit, is below 0x20, or is a quote or a backslash (a zero byte of
 * w ^ c, so below 1); a flag can spill only into the bytes after a true
 * one, so the lowest flag is the first byte that is not plain.
 */
static inline const char *
plain_run(const char *p, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (end - p >= 8)
	{
		uint64_t	w,
					m;

		memcpy(&w, p, 8);
		m = (w & HIGHS) | HAS_LESS(w, 0x20) | HAS_LESS(w ^ (ONES * '"'), 1) |
			HAS_LESS(w ^ (ONES * '\\'), 1);
		if (m != 0)
			return p + (__builtin_ctzll(m) >> 3);
		p += 8;
	}
#endif
	while (p < end && plain_byte[(unsigned char) *p])
		p++;
	return p;
}

/*
 * The body of a string from *pp (past its opening quote) up to its
 * closing quote or end, where *pp is left; NULL, or the error with *pp at
 * it.  Decoded into *dst when dst is not NULL (never longer than its
 * source, so in place is fine); *esc (if not NULL) says it has escapes.
 * The one grammar of strings: the tree, the flat scan and the unescape
 * of a scanned string all go through here.
 */
const char *
jsonread_string_body(const char **pp, const char *end, char **dst, bool *esc)
{
	const char *p = *pp;
	const char *err = NULL;

	for (;;)
	{
		const char *run = p;
		unsigned char c;

		p = plain_run(p, end);
		if (dst != NULL && p > run)
		{
			if (*dst != run)
				memmove(*dst, run, (size_t) (p - run));
			*dst += p - run;
		}
		if (p >= end || *p == '"')
			break;
		c = (unsigned char) *p;
		if (c < 0x20)
			err = "control character in string";
		else if (c == '\\')
		{
			if (esc != NULL)
				*esc = true;
			p++;
			err = string_escape(&p, end, dst);
		}
		else
		{
			size_t		n = utf8_seq_len(p, (size_t) (end - p));

			if (n == 0)
				err = "invalid UTF-8 in string";
			else if (dst != NULL)
			{
				memmove(*dst, p, n);
				*dst += n;
			}
			p += n;
		}
		if (err != NULL)
			break;
	}
	*pp = p;
	return err;
}

bool
jsonread_unescape(strbuf *sb, const char *s, size_t len)
{
	char	   *dst;
	const char *p = s;

	strbuf_reset(sb);
	strbuf_reserve(sb, len + 1);
	dst = sb->data;
	if (jsonread_string_body(&p, s + len, &dst, NULL) != NULL || p != s + len)
		return false;
	sb->len = (size_t) (dst - sb->data);
	sb->data[sb->len] = '\0';
	return true;
}

/* The "C" locale, for strtod_l: a locale with a decimal comma must not matter. */
static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void
init_c_locale(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t) 0);
}

/* Exact powers of ten as doubles (Clinger's fast path). */
static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/*
 * A number at *pp per RFC 8259's grammar, the only one: NULL with *pp
 * past it, or the error with *pp where it is.
 */
const char *
jsonread_number_scan(const char **pp, const char *end, jsonread_number_parts *np)
{
	const char *p = *pp;

	memset(np, 0, sizeof(*np));
	np->integral = true;
	if (p < end && *p == '-')
	{
		np->neg = true;
		p++;
	}
	*pp = p;
	if (p >= end || *p < '0' || *p > '9')
		return "invalid number";
	if (*p == '0' && p + 1 < end && p[1] >= '0' && p[1] <= '9')
		return "leading zero in number";
	np->digits = p;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	np->nint = (int) (p - np->digits);
	*pp = p;
	if (p < end && *p == '.')
	{
		np->integral = false;
		np->frac = ++p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		*pp = p;
		if ((np->nfrac = (int) (p - np->frac)) == 0)
			return "invalid number";
	}
	if (p < end && (*p == 'e' || *p == 'E'))
	{
		bool		eneg = false;
		const char *e;

		p++;
		np->integral = false;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		for (e = p; p < end && *p >= '0' && *p <= '9'; p++)
			if (np->exp10 < 100000)
				np->exp10 = np->exp10 * 10 + (*p - '0');
		*pp = p;
		if (p == e)
			return "invalid number";
		if (eneg)
			np->exp10 = -np->exp10;
	}
	return NULL;
}

/* Gather the n digits at p into *mant, up to 19 significant ones (*sig), counting the rest. */
static void
gather_digits(const char *p, int n, uint64_t *mant, int *sig, int *dropped)
{
	for (int i = 0; i < n; i++)
	{
		if (*sig < 19)
		{
			*mant = *mant * 10 + (uint64_t) (p[i] - '0');
			if (*mant != 0)
				(*sig)++;
		}
		else
			(*dropped)++;
	}
}

/* The value of the number scanned from [start, stop) into v; NULL or the error. */
const char *
jsonread_number_value(const char *start, const char *stop, const jsonread_number_parts *np,
					  jsonread_value *v)
{
	uint64_t	mant = 0;
	int			sig = 0,
				dropped = 0;
	long		exp10 = np->exp10 - np->nfrac;	/* used only when no digit was dropped */

	gather_digits(np->digits, np->nint, &mant, &sig, &dropped);
	gather_digits(np->frac, np->nfrac, &mant, &sig, &dropped);
	v->type = JSONREAD_NUMBER;
	v->is_int = false;
	if (np->integral && dropped == 0 && mant <= (uint64_t) INT64_MAX + np->neg)
	{
		v->is_int = true;
		v->i = np->neg && mant > 0 ? -(int64_t) (mant - 1) - 1 : (int64_t) mant;
	}
	if (np->integral && dropped == 0)
		v->num = (double) mant;	/* an integer's conversion is correctly rounded */
	else if (dropped == 0 && mant < (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22)
		v->num = exp10 < 0 ? (double) mant / pow10_exact[-exp10] :
			(double) mant * pow10_exact[exp10];
	else
	{
		char		buf[512];
		size_t		n = (size_t) (stop - start);

		if (n >= sizeof(buf))
			return "number too long";
		memcpy(buf, start, n);
		buf[n] = '\0';
		pthread_once(&c_locale_once, init_c_locale);
		v->num = fabs(strtod_l(buf, NULL, c_locale));
		if (!isfinite(v->num))
			return "number out of range";
	}
	if (np->neg)
		v->num = -v->num;
	return NULL;
}

/*
 * The common number of a log's columns, quickly: up to 15 digits, with or
 * without a fraction, no sign, no exponent.  Such a number is exact in the
 * mantissa, and its value is the one jsonread_number_value computes (an integer's
 * conversion, or one correctly rounded division by an exact power of ten).
 * false: not of that form (it may still be a number, or not one).
 */
static inline bool
plain_number(const char *s, size_t len, jsonread_value *v)
{
	uint64_t	mant = 0;
	size_t		i = 0,
				dot = len;

	if (len == 0 || len > 16 || (s[0] == '0' && len > 1 && s[1] != '.'))
		return false;
	for (; i < len; i++)
	{
		if (s[i] >= '0' && s[i] <= '9')
			mant = mant * 10 + (uint64_t) (s[i] - '0');
		else if (s[i] == '.' && dot == len && i > 0 && i + 1 < len)
			dot = i;
		else
			return false;
	}
	if (len - (dot < len) > 15)
		return false;
	v->type = JSONREAD_NUMBER;
	v->is_int = dot == len;
	v->i = v->is_int ? (int64_t) mant : 0;
	v->num = v->is_int ? (double) mant : (double) mant / pow10_exact[len - 1 - dot];
	return true;
}

bool
jsonread_number(const char *s, size_t len, jsonread_value *v)
{
	const char *p = s;
	jsonread_number_parts np;

	memset(v, 0, sizeof(*v));
	if (plain_number(s, len, v))
		return true;
	return jsonread_number_scan(&p, s + len, &np) == NULL && p == s + len &&
		jsonread_number_value(s, p, &np, v) == NULL;
}

/* ---------------------------------------------------------------- flat scan */

/* p past JSON white space, not beyond end. */
static const char *
flat_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* A string, number, true, false or null at *pp into f; NULL with *pp past it, or the error. */
static const char *
flat_scalar(const char **pp, const char *end, jsonread_field *f)
{
	const char *p = *pp;
	const char *err;

	f->esc = false;
	f->v = (char *) p;
	if (p < end && *p == '"')
	{
		*pp = p + 1;
		if ((err = jsonread_string_body(pp, end, NULL, &f->esc)) != NULL)
			return err;
		if (*pp >= end)
			return "unterminated string";
		f->t = 's';
		f->v = (char *) p + 1;
		f->vlen = (size_t) (*pp - p - 1);
		(*pp)++;
		return NULL;
	}
	if (p < end && (*p == '-' || (*p >= '0' && *p <= '9')))
	{
		jsonread_number_parts np;
		jsonread_value v;

		/*
		 * The value too where it may be out of range (1e999) or too long:
		 * what the tree refuses is refused here.  A whole number of up
		 * to 19 digits is neither, and most of a log's numbers are those.
		 */
		if ((err = jsonread_number_scan(pp, end, &np)) != NULL)
			return err;
		if (!(np.integral && np.nint <= 19) && (err = jsonread_number_value(p, *pp, &np, &v)) != NULL)
		{
			*pp = p;
			return err;
		}
		f->t = 'n';
		f->vlen = (size_t) (*pp - p);
		return NULL;
	}
	/* null, true, false: by their first letter, as this runs for every value */
	f->vlen = p < end && *p == 'f' ? 5 : 4;
	if ((size_t) (end - p) < f->vlen || !((*p == 'n' && memcmp(p, "null", 4) == 0) ||
										  (*p == 't' && memcmp(p, "true", 4) == 0) ||
										  (*p == 'f' && memcmp(p, "false", 5) == 0)))
		return p < end && (*p == '{' || *p == '[') ? "a nested value: not a flat record" :
			"invalid token";
	f->t = *p == 'n' ? '0' : 'b';
	*pp = p + f->vlen;
	return NULL;
}

/* A member's value at *pp: a scalar or an array of scalars. */
static const char *
flat_value(const char **pp, const char *end, jsonread_field *f)
{
	const char *start = *pp;
	const char *err;
	jsonread_field item;

	if (start >= end || *start != '[')
		return flat_scalar(pp, end, f);
	*pp = flat_ws(start + 1, end);
	if (*pp < end && **pp != ']')
		for (;;)
		{
			if ((err = flat_scalar(pp, end, &item)) != NULL)
				return err;
			*pp = flat_ws(*pp, end);
			if (*pp >= end || **pp != ',')
				break;
			*pp = flat_ws(*pp + 1, end);
		}
	if (*pp >= end || **pp != ']')
		return "expected ',' or ']'";
	(*pp)++;
	f->t = '[';
	f->esc = false;
	f->v = (char *) start;
	f->vlen = (size_t) (*pp - start);
	return NULL;
}

/* The members of the flat object at [p, end); NULL, or the error with *pp at it. */
static const char *
flat_members(const char **pp, const char *end, jsonread_field *f, int max, int *n)
{
	const char *err;

	*pp = flat_ws(*pp, end);
	if (*pp >= end || **pp != '{')
		return "not a JSON object";
	*pp = flat_ws(*pp + 1, end);
	if (*pp < end && **pp == '}')
	{
		(*pp)++;
		return NULL;
	}
	for (;;)
	{
		const char *key = *pp + 1;

		if (*pp >= end || **pp != '"')
			return "expected a string key";
		if (*n == max)
			return "too many members";
		*pp = key;
		if ((err = jsonread_string_body(pp, end, NULL, NULL)) != NULL)
			return err;
		if (*pp >= end)
			return "unterminated string";
		f[*n].key = key;
		f[*n].klen = (size_t) (*pp - key);
		*pp = flat_ws(*pp + 1, end);
		if (*pp >= end || **pp != ':')
			return "expected ':'";
		*pp = flat_ws(*pp + 1, end);
		if ((err = flat_value(pp, end, &f[*n])) != NULL)
			return err;
		(*n)++;
		*pp = flat_ws(*pp, end);
		if (*pp < end && **pp == '}')
		{
			(*pp)++;
			return NULL;
		}
		if (*pp >= end || **pp != ',')
			return "expected ',' or '}'";
		*pp = flat_ws(*pp + 1, end);
	}
}

bool
jsonread_flat(const char *text, size_t len, jsonread_field *f, int max, int *n, char **cause)
{
	const char *p = text;
	const char *end = text + len;
	const char *err;

	*n = 0;
	if ((err = flat_members(&p, end, f, max, n)) == NULL && flat_ws(p, end) < end)
	{
		p = flat_ws(p, end);
		err = "unexpected text after the object";
	}
	if (err == NULL)
		return true;
	if (cause != NULL)
		*cause = xasprintf("column %d: %s", (int) (p - text) + 1,
						   p >= end ? "unexpected end of input" : err);
	return false;
}

int
jsonread_item(const char **pos, const char *end, jsonread_field *item)
{
	const char *p = flat_ws(*pos, end);

	if (p >= end)
		return 0;
	if (flat_scalar(&p, end, item) != NULL)
		return -1;
	p = flat_ws(p, end);
	if (p < end && (*p != ',' || (p = flat_ws(p + 1, end)) >= end))
		return -1;
	*pos = p;
	return 1;
}
