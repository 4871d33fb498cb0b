/*
 * scriptsql.c — the SQL side of a script: psql's lexer, as far as pgbench
 * relies on it, finds where a SQL command ends (a ';' outside quotes,
 * comments, parentheses and function bodies, or a backslash), and the
 * command's :variables are found as pgbench finds them.  See script.c.
 */
#include "config.h"

#include "script_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

/* pgbench keeps at most this many bytes of a SQL command's first line. */
#define FIRST_LINE_MAX	127

/* Characters as psql's lexer classifies them. */
static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static bool
is_ident_start(char c)
{
	unsigned char u = (unsigned char) c;

	return (u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || u == '_' || u >= 0x80;
}

static bool
is_ident_cont(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

/* pgbench's :variable names (and psql's): letters, digits, '_' and non-ASCII bytes. */
static bool
is_var_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

/*
 * After the closing quote of a string at pos: if white space containing a
 * newline (and possibly -- comments) and another quote follow, SQL
 * continues the same literal there.  Returns the position after that
 * quote, or -1.
 */
static int
quote_continues(const char *t, int len, int pos)
{
	bool		newline = false;

	/* white space and comments on the rest of the line */
	while (pos < len)
	{
		if (t[pos] == ' ' || t[pos] == '\t' || t[pos] == '\f')
			pos++;
		else if (t[pos] == '-' && pos + 1 < len && t[pos + 1] == '-')
		{
			while (pos < len && t[pos] != '\n' && t[pos] != '\r')
				pos++;
		}
		else
			break;
	}
	if (pos < len && (t[pos] == '\n' || t[pos] == '\r'))
	{
		newline = true;
		pos++;
	}
	if (!newline)
		return -1;
	/* then any white space, and comments that end their line */
	while (pos < len)
	{
		if (is_space(t[pos]))
			pos++;
		else if (t[pos] == '-' && pos + 1 < len && t[pos + 1] == '-')
		{
			while (pos < len && t[pos] != '\n' && t[pos] != '\r')
				pos++;
			if (pos >= len)
				return -1;
			pos++;
		}
		else
			break;
	}
	return pos < len && t[pos] == '\'' ? pos + 1 : -1;
}

/*
 * Skip a quoted string whose opening quote ends just before pos; with
 * escapes, a backslash quotes the next character (E'...').  Returns the
 * position after the closing quote, or len if it never closes.
 */
static int
skip_string(const char *t, int len, int pos, bool escapes)
{
	for (;;)
	{
		int			next;

		while (pos < len && t[pos] != '\'')
		{
			if (escapes && t[pos] == '\\' && pos + 1 < len)
				pos++;
			pos++;
		}
		if (pos >= len)
			return len;
		pos++;
		if (pos < len && t[pos] == '\'')
		{
			pos++;				/* '' */
			continue;
		}
		next = quote_continues(t, len, pos);
		if (next < 0)
			return pos;
		pos = next;
	}
}

/* Skip "..." (also U&"..."); the opening quote ends just before pos. */
static int
skip_quoted_ident(const char *t, int len, int pos)
{
	for (;;)
	{
		while (pos < len && t[pos] != '"')
			pos++;
		if (pos >= len)
			return len;
		pos++;
		if (pos < len && t[pos] == '"')
			pos++;
		else
			return pos;
	}
}

/* Skip a nested C comment starting at pos ("/ *"); len if it never ends. */
static int
skip_c_comment(const char *t, int len, int pos)
{
	int			depth = 0;

	pos += 2;
	while (pos < len)
	{
		if (t[pos] == '/' && pos + 1 < len && t[pos + 1] == '*')
		{
			depth++;
			pos += 2;
		}
		else if (t[pos] == '*' && pos + 1 < len && t[pos + 1] == '/')
		{
			pos += 2;
			if (depth-- == 0)
				return pos;
		}
		else
			pos++;
	}
	return len;
}

/*
 * At a '$': if a dollar-quote delimiter ($$ or $tag$) starts here, return
 * the position after the matching closing delimiter (len if none), else -1.
 */
static int
skip_dollar_quote(const char *t, int len, int pos)
{
	int			end = pos + 1;
	int			dlen;

	if (end < len && is_ident_start(t[end]))
	{
		end++;
		while (end < len && is_var_char(t[end]))
			end++;
	}
	if (end >= len || t[end] != '$')
		return -1;
	dlen = end + 1 - pos;
	for (int i = end + 1; i + dlen <= len; i++)
		if (t[i] == '$' && memcmp(t + i, t + pos, dlen) == 0)
			return i + dlen;
	return len;
}

/* The end of an identifier stuck to a number at pos ("trailing junk"), or pos. */
static int
junk_end(const char *t, int len, int pos)
{
	if (pos < len && is_ident_start(t[pos]))
	{
		pos++;
		while (pos < len && is_ident_cont(t[pos]))
			pos++;
	}
	return pos;
}

/*
 * A number starting at pos (a digit, or a '.' before a digit).  Like
 * flex, take the longest of: an integer, a decimal or a real, each with
 * an identifier stuck to it (PostgreSQL 15's "trailing junk" tokens, so
 * that 1e'x' is the token 1e and a plain string, and 1e1$$ has no dollar
 * quote), and a real missing its exponent digits ("1e+").  Returns the
 * position after it.
 */
static int
skip_number(const char *t, int len, int pos)
{
	int			p = pos;
	int			best;
	int			base;

	while (p < len && is_digit(t[p]))
		p++;
	best = junk_end(t, len, p);
	base = p;

	/* a decimal: digits '.' digits, but "1.." is an integer and ".." */
	if (p < len && t[p] == '.' && !(p + 1 < len && t[p + 1] == '.'))
	{
		int			q = p + 1;

		while (q < len && is_digit(t[q]))
			q++;
		if (q > p + 1 || p > pos)
		{
			base = q;
			if (junk_end(t, len, q) > best)
				best = junk_end(t, len, q);
		}
	}

	/* an exponent */
	if (base < len && (t[base] == 'e' || t[base] == 'E'))
	{
		int			e = base + 1;

		if (e < len && (t[e] == '+' || t[e] == '-'))
			e++;
		if (e < len && is_digit(t[e]))
		{
			while (e < len && is_digit(t[e]))
				e++;
			e = junk_end(t, len, e);
		}
		else if (e == base + 1)
			e = base;			/* "1e" alone is integer junk, seen above */
		if (e > best)
			best = e;
	}
	return best > base ? best : base;
}

/*
 * psql's guess at a function body: after CREATE [OR REPLACE] FUNCTION or
 * PROCEDURE, semicolons between BEGIN and its END do not end the command
 * (CASE ... END nests inside).
 */
static void
track_identifier(parser *p, const char *word, int len)
{
	if (p->nidents == 0)
		memset(p->idents, 0, sizeof(p->idents));
	if (script_word_is(word, len, "create") || script_word_is(word, len, "function") ||
		script_word_is(word, len, "procedure") || script_word_is(word, len, "or") ||
		script_word_is(word, len, "replace"))
	{
		if (p->nidents < (int) sizeof(p->idents))
			p->idents[p->nidents] = (char) tolower((unsigned char) word[0]);
	}
	p->nidents++;

	if (p->idents[0] == 'c' &&
		(p->idents[1] == 'f' || p->idents[1] == 'p' ||
		 (p->idents[1] == 'o' && p->idents[2] == 'r' &&
		  (p->idents[3] == 'f' || p->idents[3] == 'p'))) &&
		p->paren_depth == 0)
	{
		if (script_word_is(word, len, "begin"))
			p->begin_depth++;
		else if (script_word_is(word, len, "case"))
		{
			if (p->begin_depth >= 1)
				p->begin_depth++;
		}
		else if (script_word_is(word, len, "end"))
		{
			if (p->begin_depth > 0)
				p->begin_depth--;
		}
	}
}

/* The end of the white space or -- comment at start, or -1 if there is neither. */
static int
blank_end(const char *t, int len, int start)
{
	int			end = start + 1;

	if (is_space(t[start]))
	{
		while (end < len && is_space(t[end]))
			end++;
		return end;
	}
	if (t[start] != '-' || start + 1 >= len || t[start + 1] != '-')
		return -1;
	end = start + 2;
	while (end < len && t[end] != '\n' && t[end] != '\r')
		end++;
	return end;
}

/*
 * The end of the token at start (not white space, a comment, a backslash
 * or a semicolon), following parentheses and the identifiers that tell
 * where a function body begins and ends.
 */
static int
token_end(parser *p, int start)
{
	const char *t = p->text;
	int			len = p->len;
	char		c = t[start];
	int			end = start + 1;

	if (c == '\'')
		end = skip_string(t, len, start + 1, false);
	else if ((c == 'e' || c == 'E') && start + 1 < len && t[start + 1] == '\'')
		end = skip_string(t, len, start + 2, true);
	else if ((c == 'b' || c == 'B' || c == 'x' || c == 'X' || c == 'n' || c == 'N') &&
			 start + 1 < len && t[start + 1] == '\'')
		end = skip_string(t, len, start + 2, false);
	else if ((c == 'u' || c == 'U') && start + 2 < len && t[start + 1] == '&' &&
			 t[start + 2] == '\'')
		end = skip_string(t, len, start + 3, false);
	else if ((c == 'u' || c == 'U') && start + 2 < len && t[start + 1] == '&' &&
			 t[start + 2] == '"')
		end = skip_quoted_ident(t, len, start + 3);
	else if (c == '"')
		end = skip_quoted_ident(t, len, start + 1);
	else if (is_ident_start(c))
	{
		while (end < len && is_ident_cont(t[end]))
			end++;
		track_identifier(p, t + start, end - start);
	}
	else if (is_digit(c) || (c == '.' && start + 1 < len && is_digit(t[start + 1])))
		end = skip_number(t, len, start);
	else if (c == '$')
	{
		end = skip_dollar_quote(t, len, start);
		if (end < 0)
			end = start + 1;
	}
	else if (c == ':')
	{
		/* "::" and ":=" are tokens; ":name" is one token for psql */
		if (start + 1 < len && (t[start + 1] == ':' || t[start + 1] == '='))
			end = start + 2;
		else
			while (end < len && is_var_char(t[end]))
				end++;
	}
	else if (c == '(')
		p->paren_depth++;
	else if (c == ')')
	{
		if (p->paren_depth > 0)
			p->paren_depth--;
	}
	return end;
}

/*
 * Collect SQL text from p->pos into buf the way psql's lexer does: white
 * space and -- comments are dropped until something else is seen, \; and
 * \: stand for ; and :.  *first is set to the text offset of the first
 * byte kept, *nqueries to the number of non-empty parts separated by \;.
 * On STOP_BACKSLASH, p->pos is just after the backslash.
 */
scan_stop
script_scan_sql(parser *p, strbuf *buf, int *first, int *nqueries)
{
	const char *t = p->text;
	int			len = p->len;
	bool		content = false;	/* the current \; part has a token */

	*first = -1;
	*nqueries = 0;

#define KEEP(from, to) \
	do { \
		if (*first < 0) \
			*first = (from); \
		strbuf_append(buf, t + (from), (to) - (from)); \
	} while (0)

	while (p->pos < len)
	{
		int			start = p->pos;
		char		c = t[start];
		int			end;

		if ((end = blank_end(t, len, start)) >= 0)
		{
			/* dropped until something else is seen */
			if (buf->len > 0)
				KEEP(start, end);
			p->pos = end;
			continue;
		}
		if (c == '/' && start + 1 < len && t[start + 1] == '*')
		{
			end = skip_c_comment(t, len, start);
			KEEP(start, end);
			p->pos = end;
			continue;
		}
		if (c == '\\')
		{
			if (start + 1 < len && (t[start + 1] == ';' || t[start + 1] == ':'))
			{
				if (*first < 0)
					*first = start;
				strbuf_putc(buf, t[start + 1]);
				if (t[start + 1] == ';')
				{
					/* a new statement, unless inside parentheses or a function body */
					if (p->paren_depth == 0 && p->begin_depth == 0)
					{
						p->nidents = 0;
						if (content)
							(*nqueries)++;
						content = false;
					}
				}
				else
					content = true;
				p->pos = start + 2;
				continue;
			}
			p->pos = start + 1;
			if (content)
				(*nqueries)++;
			return STOP_BACKSLASH;
		}
		if (c == ';')
		{
			KEEP(start, start + 1);
			p->pos = start + 1;
			if (p->paren_depth == 0 && p->begin_depth == 0)
			{
				p->nidents = 0;
				if (content)
					(*nqueries)++;
				return STOP_SEMICOLON;
			}
			content = true;
			continue;
		}

		content = true;
		end = token_end(p, start);
		KEEP(start, end);
		p->pos = end;
	}
#undef KEEP

	if (content)
		(*nqueries)++;
	return STOP_EOF;
}

/*
 * pgbench's skip_sql_comments(): the offset in sql after leading white
 * space and -- comments, or -1 if nothing else is there.
 */
static int
skip_sql_comments(const char *sql)
{
	const char *s = sql;

	for (;;)
	{
		if (isspace((unsigned char) *s))
			s++;
		else if (s[0] == '-' && s[1] == '-')
		{
			s = strchr(s, '\n');
			if (s == NULL)
				return -1;
			s++;
		}
		else
			break;
	}
	return *s == '\0' ? -1 : (int) (s - sql);
}

/*
 * Find the :variables of a SQL command the way pgbench does (anywhere in
 * the text, quotes and comments included; "::" is not one) and number
 * them $1, $2, ... in sql_numbered in order of appearance.  As in pgbench,
 * a variable used twice is two parameters: the server infers each one's
 * type from its own place ("select :a = 1, :a = 'x'" works).
 */
static void
find_params(command *c)
{
	const char *sql = c->sql;
	const char *s = sql;
	strbuf		numbered;
	int			cap = 0;
	int			done = 0;		/* bytes of sql copied to numbered */

	strbuf_init(&numbered);
	while ((s = strchr(s, ':')) != NULL)
	{
		int			len = 1;
		sql_param  *prm;

		if (!is_ident_start(s[1]))
		{
			while (*s == ':')
				s++;
			continue;
		}
		while (s[len] != '\0' && is_var_char(s[len]))
			len++;

		if (c->nparams == cap)
		{
			cap = cap == 0 ? 8 : cap * 2;
			c->params = xrealloc(c->params, cap * sizeof(sql_param));
		}
		prm = &c->params[c->nparams];
		prm->name = xstrndup(s + 1, len - 1);
		prm->start = (int) (s - sql);
		prm->len = len;
		prm->number = ++c->nparams;

		strbuf_append(&numbered, sql + done, prm->start - done);
		strbuf_printf(&numbered, "$%d", prm->number);
		done = prm->start + len;
		s += len;
	}
	strbuf_puts(&numbered, sql + done);
	c->sql_numbered = strbuf_detach(&numbered);
}

/* Make a SQL command of the collected text, or NULL if it is only white space and -- comments. */
command *
script_make_sql(parser *p, const strbuf *buf, int first, int nqueries)
{
	command    *c;
	int			skip;
	int			line;
	size_t		flen;

	if (buf->len == 0 || (skip = skip_sql_comments(buf->data)) < 0)
		return NULL;

	line = script_line_of(p, first);
	for (int i = 0; i < skip; i++)
		if (buf->data[i] == '\n')
			line++;

	c = script_command_new(CMD_SQL, META_NONE, line);
	c->sql = xstrdup(buf->data + skip);
	c->nqueries = nqueries > 0 ? nqueries : 1;
	flen = strcspn(c->sql, "\n\r");
	if (flen > FIRST_LINE_MAX)
		flen = FIRST_LINE_MAX;
	c->first_line = xstrndup(c->sql, flen);
	find_params(c);
	return c;
}
