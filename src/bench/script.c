/*
 * script.c — turn the text of a pgbench script into commands.
 *
 * pgbench reads a script with psql's lexer: SQL text is collected until a
 * semicolon that is outside quotes, comments and parentheses (and outside
 * the BEGIN ... END of a CREATE FUNCTION/PROCEDURE body), or until a
 * backslash, which starts a meta-command that runs to the end of the line.
 * The lexer is never reset between commands, so an unclosed parenthesis
 * before a meta-command still counts after it.  This file reproduces what
 * matters of that lexer by hand, then makes the checks pgbench makes at
 * load time, with its messages:
 *
 *   FILE:LINE: MESSAGE (DETAIL) in command "NAME"
 *   <the meta-command, from its backslash>
 *   <caret> error found here
 *
 * What pgbench sends is kept byte for byte: leading white space and --
 * comments are dropped, everything after is kept (comments, the final
 * ';', a trailing newline), and \; and \: stand for ; and :.  :variables
 * are then found the way pgbench finds them, which ignores quoting.
 *
 * Meta-commands keep their words in argv, the name as written; \sleep's
 * number and unit are split when written together ("10ms" gives argv
 * "sleep", "10", "ms").  \gset and \aset become ->meta and ->varprefix
 * of the SQL command before them.
 *
 * Conditionals: after parsing, each \if, \elif and \else gets ->jump (for
 * \if and \elif the next \elif, \else or \endif of its chain; for \else
 * the \endif) and ->chain_end (the chain's \endif), as indexes into the
 * command array.  A false \if or \elif goes to ->jump; an \elif or \else
 * reached by falling out of a taken branch goes past ->chain_end.  Other
 * commands have -1 in both.
 */
#include "config.h"

#include "script.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

/* pgbench keeps at most this many bytes of a SQL command's first line. */
#define FIRST_LINE_MAX	127

/* Why a scan of SQL text stopped. */
typedef enum scan_stop
{
	STOP_SEMICOLON,				/* a command-ending ';' (included in the text) */
	STOP_BACKSLASH,				/* a backslash that starts a meta-command */
	STOP_EOF
} scan_stop;

/* One script being parsed. */
typedef struct parser
{
	const char *source;			/* for messages */
	const char *text;
	int			len;
	int			pos;			/* scan position in text */

	/* psql's lexer state that outlives one command */
	int			paren_depth;
	int			begin_depth;	/* inside BEGIN ... END of a function body */
	int			nidents;		/* identifiers since the statement began */
	char		idents[4];		/* CREATE [OR REPLACE] FUNCTION|PROCEDURE so far */

	/* a cache for line numbers: line_no is the line of line_pos */
	int			line_pos;
	int			line_no;

	command   **cmds;
	int			ncmds;
	int			cap;
} parser;

/* The words of one meta-command. */
typedef struct meta_words
{
	char	  **words;
	int		   *offsets;
	int			n;
} meta_words;

static const struct
{
	const char *name;
	meta_kind	kind;
}			meta_names[] = {
	{"set", META_SET},
	{"setshell", META_SETSHELL},
	{"shell", META_SHELL},
	{"sleep", META_SLEEP},
	{"gset", META_GSET},
	{"aset", META_ASET},
	{"if", META_IF},
	{"elif", META_ELIF},
	{"else", META_ELSE},
	{"endif", META_ENDIF},
	{"startpipeline", META_STARTPIPELINE},
	{"syncpipeline", META_SYNCPIPELINE},
	{"endpipeline", META_ENDPIPELINE},
};

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

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* ASCII-only case-insensitive comparison of a word of length len with lower-case s. */
static bool
word_is(const char *word, int len, const char *s)
{
	int			i;

	for (i = 0; i < len; i++)
	{
		char		c = word[i];

		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (s[i] == '\0' || c != s[i])
			return false;
	}
	return s[i] == '\0';
}

/* The 1-based line number of text offset pos (positions only move forward). */
static int
line_of(parser *p, int pos)
{
	if (pos < p->line_pos)
	{
		p->line_pos = 0;
		p->line_no = 1;
	}
	for (; p->line_pos < pos; p->line_pos++)
		if (p->text[p->line_pos] == '\n')
			p->line_no++;
	return p->line_no;
}

/*
 * pgbench's syntax_error(): "SOURCE:LINE: MSG (MORE) in command "CMD"",
 * then the line and a caret under column (0-based) when there is a line.
 */
static void
syntax_error(const char *source, int lineno, const char *line, const char *cmd,
			 const char *msg, const char *more, int column)
{
	strbuf		sb;

	strbuf_init(&sb);
	strbuf_printf(&sb, "%s:%d: %s", source, lineno, msg);
	if (more != NULL)
		strbuf_printf(&sb, " (%s)", more);
	if (column >= 0 && line == NULL)
		strbuf_printf(&sb, " at column %d", column + 1);
	if (cmd != NULL)
		strbuf_printf(&sb, " in command \"%s\"", cmd);
	msg_error("%s", sb.data);
	strbuf_free(&sb);

	if (line != NULL)
	{
		fprintf(stderr, "%s\n", line);
		if (column >= 0)
			fprintf(stderr, "%*c error found here\n", column + 1, '^');
		fflush(stderr);
	}
}

/* A command with no jump targets. */
static command *
command_new(command_type type, meta_kind meta, int line_no)
{
	command    *c = xcalloc(1, sizeof(command));

	c->type = type;
	c->meta = meta;
	c->line_no = line_no;
	c->jump = -1;
	c->chain_end = -1;
	return c;
}

/* Free a command and everything it owns (NULL is fine). */
static void
command_free(command *c)
{
	if (c == NULL)
		return;
	free(c->first_line);
	free(c->sql);
	free(c->sql_numbered);
	for (int i = 0; i < c->nrefs; i++)
		free(c->params[i].name);
	free(c->params);
	free(c->varprefix);
	for (int i = 0; i < c->argc; i++)
		free(c->argv[i]);
	free(c->argv);
	if (c->expr != NULL)
		expr_free(c->expr);
	free(c);
}

/* Append a command to the script being built. */
static void
add_command(parser *p, command *c)
{
	if (p->ncmds == p->cap)
	{
		p->cap = p->cap == 0 ? 32 : p->cap * 2;
		p->cmds = xrealloc(p->cmds, p->cap * sizeof(command *));
	}
	p->cmds[p->ncmds++] = c;
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
	if (word_is(word, len, "create") || word_is(word, len, "function") ||
		word_is(word, len, "procedure") || word_is(word, len, "or") ||
		word_is(word, len, "replace"))
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
		if (word_is(word, len, "begin"))
			p->begin_depth++;
		else if (word_is(word, len, "case"))
		{
			if (p->begin_depth >= 1)
				p->begin_depth++;
		}
		else if (word_is(word, len, "end"))
		{
			if (p->begin_depth > 0)
				p->begin_depth--;
		}
	}
}

/*
 * Collect SQL text from p->pos into buf the way psql's lexer does: white
 * space and -- comments are dropped until something else is seen, \; and
 * \: stand for ; and :.  *first is set to the text offset of the first
 * byte kept, *nqueries to the number of non-empty parts separated by \;.
 * On STOP_BACKSLASH, p->pos is just after the backslash.
 */
static scan_stop
scan_sql(parser *p, strbuf *buf, int *first, int *nqueries)
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

		if (is_space(c))
		{
			end = start + 1;
			while (end < len && is_space(t[end]))
				end++;
			if (buf->len > 0)
				KEEP(start, end);
			p->pos = end;
			continue;
		}
		if (c == '-' && start + 1 < len && t[start + 1] == '-')
		{
			end = start + 2;
			while (end < len && t[end] != '\n' && t[end] != '\r')
				end++;
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
		end = start + 1;
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
 * the text, quotes and comments included; "::" is not one), record every
 * occurrence and number the distinct names $1, $2, ... in sql_numbered.
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
		int			number = 0;
		sql_param  *prm;

		if (!is_ident_start(s[1]))
		{
			while (*s == ':')
				s++;
			continue;
		}
		while (s[len] != '\0' && is_var_char(s[len]))
			len++;

		if (c->nrefs == cap)
		{
			cap = cap == 0 ? 8 : cap * 2;
			c->params = xrealloc(c->params, cap * sizeof(sql_param));
		}
		prm = &c->params[c->nrefs];
		prm->name = xstrndup(s + 1, len - 1);
		prm->start = (int) (s - sql);
		prm->len = len;
		for (int i = 0; i < c->nrefs; i++)
			if (strcmp(c->params[i].name, prm->name) == 0)
			{
				number = c->params[i].number;
				break;
			}
		if (number == 0)
			number = ++c->nparams;
		prm->number = number;
		c->nrefs++;

		strbuf_append(&numbered, sql + done, prm->start - done);
		strbuf_printf(&numbered, "$%d", number);
		done = prm->start + len;
		s += len;
	}
	strbuf_puts(&numbered, sql + done);
	c->sql_numbered = strbuf_detach(&numbered);
	strbuf_free(&numbered);		/* detach leaves a fresh allocation behind */
}

/* Make a SQL command of the collected text, or NULL if it is only white space and -- comments. */
static command *
make_sql_command(parser *p, const strbuf *buf, int first, int nqueries)
{
	command    *c;
	int			skip;
	int			line;
	size_t		flen;

	if (buf->len == 0 || (skip = skip_sql_comments(buf->data)) < 0)
		return NULL;

	line = line_of(p, first);
	for (int i = 0; i < skip; i++)
		if (buf->data[i] == '\n')
			line++;

	c = command_new(CMD_SQL, META_NONE, line);
	c->sql = xstrdup(buf->data + skip);
	c->nqueries = nqueries > 0 ? nqueries : 1;
	flen = strcspn(c->sql, "\n\r");
	if (flen > FIRST_LINE_MAX)
		flen = FIRST_LINE_MAX;
	c->first_line = xstrndup(c->sql, flen);
	find_params(c);
	return c;
}

static void
free_words(meta_words *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->words[i]);
	free(w->words);
	free(w->offsets);
	w->words = NULL;
	w->offsets = NULL;
	w->n = 0;
}

static meta_kind
lookup_meta(const char *name)
{
	for (size_t i = 0; i < sizeof(meta_names) / sizeof(meta_names[0]); i++)
		if (word_is(name, (int) strlen(name), meta_names[i].name))
			return meta_names[i].kind;
	return META_NONE;
}

/*
 * pgbench's checks of \sleep's arguments.  A number with its unit
 * attached ("10ms") is split into argv[1] "10" and argv[2] "ms".
 */
static bool
check_sleep(parser *p, command *c, const meta_words *w, int bs, int lineno)
{
	const char *arg;
	int			unit_offset;

	if (c->argc < 2)
	{
		syntax_error(p->source, lineno, c->first_line, c->argv[0],
					 "missing argument", NULL, -1);
		return false;
	}
	if (c->argc > 3)
	{
		syntax_error(p->source, lineno, c->first_line, c->argv[0],
					 "too many arguments", NULL, w->offsets[3] - bs);
		return false;
	}
	arg = c->argv[1];
	unit_offset = c->argc == 3 ? w->offsets[2] : -1;
	if (arg[0] != ':')
	{
		const char *d = arg;
		bool		have_digit;

		if (*d == '+' || *d == '-')
			d++;
		have_digit = is_digit(*d);
		while (is_digit(*d))
			d++;
		if (*d != '\0')
		{
			int			numlen = (int) (d - arg);

			if (c->argc != 2 || !have_digit)
			{
				syntax_error(p->source, lineno, c->first_line, c->argv[0],
							 "invalid sleep time, must be an integer", arg,
							 w->offsets[1] - bs);
				return false;
			}
			c->argv = xrealloc(c->argv, 3 * sizeof(char *));
			c->argv[2] = xstrdup(d);
			c->argv[1][numlen] = '\0';
			c->argc = 3;
			unit_offset = w->offsets[1] + numlen;
		}
	}
	if (arg[0] != ':')
	{
		/* pgbench reads it with atoi(): a time past a C int wraps, a negative one is no sleep */
		char	   *end;
		long long	n;

		errno = 0;
		n = strtoll(arg, &end, 10);
		if (errno == ERANGE || n < 0 || n > SCRIPT_MAX_SLEEP)
		{
			char	   *range = xasprintf("0 .. %d", SCRIPT_MAX_SLEEP);

			syntax_error(p->source, lineno, c->first_line, c->argv[0],
						 "sleep time out of range", range, w->offsets[1] - bs);
			free(range);
			return false;
		}
	}
	if (c->argc == 3 &&
		!word_is(c->argv[2], (int) strlen(c->argv[2]), "us") &&
		!word_is(c->argv[2], (int) strlen(c->argv[2]), "ms") &&
		!word_is(c->argv[2], (int) strlen(c->argv[2]), "s"))
	{
		syntax_error(p->source, lineno, c->first_line, c->argv[0],
					 "unrecognized time unit, must be us, ms or s", c->argv[2],
					 unit_offset - bs);
		return false;
	}
	return true;
}

/*
 * Parse the meta-command whose backslash is at offset bs; p->pos is just
 * after it.  Sets *out to the command, or NULL for a lone backslash
 * (pgbench ignores it).  False after printing an error.
 */
static bool
parse_meta(parser *p, int bs, command **out)
{
	const char *t = p->text;
	int			end = bs + 1;	/* the terminating newline, or len */
	int			next;			/* after it */
	int			lineno;
	int			line_len;
	meta_words	w = {0};
	command    *c;
	bool		ok = true;

	*out = NULL;
	/* the command runs to the first newline not escaped by a backslash */
	while (end < p->len && t[end] != '\n')
	{
		if (t[end] == '\\' && end + 1 < p->len && t[end + 1] == '\n')
			end += 2;
		else if (t[end] == '\\' && end + 2 < p->len && t[end + 1] == '\r' && t[end + 2] == '\n')
			end += 3;
		else
			end++;
	}
	next = end < p->len ? end + 1 : end;
	p->pos = next;

	w.n = expr_split_words(t, bs + 1, end, &w.words, &w.offsets);
	if (w.n == 0)
	{
		free_words(&w);
		return true;
	}

	/*
	 * pgbench computes a word's offset as the end of what its scanner read
	 * minus the word's length, and a word directly followed by a
	 * backslash-newline is read together with it: its carets point that
	 * much further right.  Do the same.
	 */
	for (int i = 0; i < w.n; i++)
	{
		int			after = w.offsets[i] + (int) strlen(w.words[i]);

		if (after + 1 < p->len && t[after] == '\\' && t[after + 1] == '\n')
			w.offsets[i] += 2;
		else if (after + 2 < p->len && t[after] == '\\' && t[after + 1] == '\r' &&
				 t[after + 2] == '\n')
			w.offsets[i] += 3;
	}

	lineno = line_of(p, bs);
	c = command_new(CMD_META, lookup_meta(w.words[0]), lineno);
	/* the line for messages and -r: the whole command, without its line end */
	line_len = next - bs;
	while (line_len > 0 && (t[bs + line_len - 1] == '\n' || t[bs + line_len - 1] == '\r'))
		line_len--;

	if (c->meta == META_SET || c->meta == META_IF || c->meta == META_ELIF)
	{
		int			expr_start;
		expr_error	err = {NULL, NULL, -1};

		c->argc = c->meta == META_SET ? 2 : 1;
		c->argv = xcalloc(c->argc, sizeof(char *));
		c->argv[0] = xstrdup(w.words[0]);
		if (c->meta == META_SET)
		{
			if (w.n < 2)
			{
				c->argc = 1;
				syntax_error(p->source, lineno, NULL, c->argv[0],
							 "missing argument", NULL, -1);
				ok = false;
				goto done;
			}
			c->argv[1] = xstrdup(w.words[1]);
		}
		expr_start = w.offsets[c->argc - 1] + (int) strlen(w.words[c->argc - 1]);
		c->first_line = xstrndup(t + bs, line_len);
		/*
		 * The range includes the newline that ends the command: pgbench's
		 * scanner reads it as the end of the expression, so an error at
		 * the end of a line is shown under the newline.
		 */
		c->expr = expr_parse(t, expr_start, next, &err);
		if (c->expr == NULL)
		{
			syntax_error(p->source, lineno, c->first_line, c->argv[0],
						 err.msg != NULL ? err.msg : "syntax error", err.more,
						 err.column >= 0 ? err.column - bs : -1);
			expr_error_clear(&err);
			ok = false;
		}
		goto done;
	}

	/* all other commands: words */
	if (w.n > SCRIPT_MAX_ARGS)
	{
		syntax_error(p->source, lineno, NULL, w.words[0], "too many arguments", NULL, -1);
		command_free(c);
		free_words(&w);
		return false;
	}
	c->argc = w.n;
	c->argv = xmalloc(w.n * sizeof(char *));
	for (int i = 0; i < w.n; i++)
		c->argv[i] = xstrdup(w.words[i]);
	c->first_line = xstrndup(t + bs, line_len);

	switch (c->meta)
	{
		case META_SLEEP:
			ok = check_sleep(p, c, &w, bs, lineno);
			break;
		case META_SETSHELL:
			if (c->argc < 3)
			{
				syntax_error(p->source, lineno, c->first_line, c->argv[0],
							 "missing argument", NULL, -1);
				ok = false;
			}
			break;
		case META_SHELL:
			if (c->argc < 2)
			{
				syntax_error(p->source, lineno, c->first_line, c->argv[0],
							 "missing command", NULL, -1);
				ok = false;
			}
			break;
		case META_ELSE:
		case META_ENDIF:
		case META_STARTPIPELINE:
		case META_SYNCPIPELINE:
		case META_ENDPIPELINE:
			if (c->argc != 1)
			{
				syntax_error(p->source, lineno, c->first_line, c->argv[0],
							 "unexpected argument", NULL, -1);
				ok = false;
			}
			break;
		case META_GSET:
		case META_ASET:
			if (c->argc > 2)
			{
				syntax_error(p->source, lineno, c->first_line, c->argv[0],
							 "too many arguments", NULL, -1);
				ok = false;
			}
			break;
		default:
			syntax_error(p->source, lineno, c->first_line, c->argv[0],
						 "invalid command", NULL, -1);
			ok = false;
			break;
	}

done:
	free_words(&w);
	if (!ok)
	{
		command_free(c);
		return false;
	}
	*out = c;
	return true;
}

/*
 * \gset and \aset are not commands of their own: they mark the SQL
 * command before them.  False with pgbench's message if there is none.
 */
static bool
attach_gset(parser *p, command *g)
{
	command    *prev;

	if (p->ncmds == 0)
	{
		syntax_error(p->source, g->line_no, NULL, NULL,
					 "\\gset must follow an SQL command", NULL, -1);
		return false;
	}
	prev = p->cmds[p->ncmds - 1];
	if (prev->type != CMD_SQL || prev->varprefix != NULL)
	{
		/* pgbench names the command only if it is a meta-command */
		syntax_error(p->source, g->line_no, NULL, NULL,
					 "\\gset must follow an SQL command",
					 prev->type == CMD_META ? prev->first_line : NULL, -1);
		return false;
	}
	prev->varprefix = xstrdup(g->argc > 1 ? g->argv[1] : "");
	prev->meta = g->meta;
	return true;
}

/* pgbench's ConditionError(): "condition error in script ..." */
static void
condition_error(const char *desc, int cmdn, const char *msg)
{
	msg_error("condition error in script \"%s\" command %d: %s", desc, cmdn, msg);
}

/*
 * Check that \if, \elif, \else and \endif nest as pgbench requires, and
 * link each chain: ->jump to the next branch, ->chain_end to the \endif.
 */
static bool
link_conditionals(script *s)
{
	/* for each open \if: its index, the chain's last branch, and whether \else was seen */
	int		   *open_if = xmalloc((s->ncommands + 1) * sizeof(int));
	int		   *last = xmalloc((s->ncommands + 1) * sizeof(int));
	bool	   *in_else = xmalloc((s->ncommands + 1) * sizeof(bool));
	int			depth = 0;
	bool		ok = true;
	int			i;

	for (i = 0; i < s->ncommands && ok; i++)
	{
		command    *c = s->commands[i];

		if (c->type != CMD_META)
			continue;
		switch (c->meta)
		{
			case META_IF:
				open_if[depth] = i;
				last[depth] = i;
				in_else[depth] = false;
				depth++;
				break;
			case META_ELIF:
			case META_ELSE:
				if (depth == 0)
				{
					condition_error(s->desc, i + 1, c->meta == META_ELIF ?
									"\\elif without matching \\if" :
									"\\else without matching \\if");
					ok = false;
					break;
				}
				if (in_else[depth - 1])
				{
					condition_error(s->desc, i + 1, c->meta == META_ELIF ?
									"\\elif after \\else" : "\\else after \\else");
					ok = false;
					break;
				}
				s->commands[last[depth - 1]]->jump = i;
				last[depth - 1] = i;
				if (c->meta == META_ELSE)
					in_else[depth - 1] = true;
				break;
			case META_ENDIF:
				if (depth == 0)
				{
					condition_error(s->desc, i + 1, "\\endif without matching \\if");
					ok = false;
					break;
				}
				depth--;
				s->commands[last[depth]]->jump = i;
				for (int b = open_if[depth]; b != i; b = s->commands[b]->jump)
					s->commands[b]->chain_end = i;
				break;
			default:
				break;
		}
	}
	if (ok && depth > 0)
	{
		condition_error(s->desc, i + 1, "\\if without matching \\endif");
		ok = false;
	}
	free(open_if);
	free(last);
	free(in_else);
	return ok;
}

/* The kind of a file that is not a regular one, for messages. */
static const char *
file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* Read a script file; see script.h. */
char *
script_read_file(const char *path, char **cause)
{
	bool		is_stdin = strcmp(path, "-") == 0;
	int			fd;
	struct stat st;
	strbuf		buf;
	char		chunk[65536];
	const char *nul;
	char	   *text;

	*cause = NULL;
	/* O_NONBLOCK: opening a FIFO without a writer must not hang before fstat() says what it is */
	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
	{
		*cause = xasprintf("could not open file \"%s\": %s", path, strerror(errno));
		return NULL;
	}
	if (!is_stdin)
	{
		if (fstat(fd, &st) != 0)
			*cause = xasprintf("could not stat file \"%s\": %s", path, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			/* pgbench's words: it fails reading */
			*cause = xasprintf("could not read file \"%s\": %s", path, strerror(EISDIR));
		else if (S_ISFIFO(st.st_mode))
		{
			/*
			 * A pipe (-f <(command)) is read as standard input is.  With
			 * no writer it reads as empty at once, instead of waiting.
			 */
			int			flags = fcntl(fd, F_GETFL);

			if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
				*cause = xasprintf("could not read file \"%s\": %s", path, strerror(errno));
		}
		else if (!S_ISREG(st.st_mode))
			*cause = xasprintf("could not read file \"%s\": it is %s, not a regular file",
							   path, file_kind(st.st_mode));
		else if (st.st_size > SCRIPT_MAX_FILE_SIZE)
			*cause = xasprintf("could not read file \"%s\": it is larger than a script can be "
							   "(%lld bytes, at most " SCRIPT_MAX_FILE_SIZE_TEXT ")",
							   path, (long long) st.st_size);
		if (*cause != NULL)
		{
			close(fd);
			return NULL;
		}
	}

	/* standard input, a pipe, and a file that grows are bounded while reading */
	strbuf_init(&buf);
	for (;;)
	{
		ssize_t		n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
		{
			*cause = xasprintf("could not read file \"%s\": %s", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (buf.len + (size_t) n > SCRIPT_MAX_FILE_SIZE)
		{
			*cause = xasprintf("could not read file \"%s\": it is larger than a script can be "
							   "(at most " SCRIPT_MAX_FILE_SIZE_TEXT ")", path);
			break;
		}
		strbuf_append(&buf, chunk, (size_t) n);
	}
	if (!is_stdin)
		close(fd);

	/* pgbench stops at a NUL byte and runs a truncated script without a word */
	if (*cause == NULL && (nul = memchr(buf.data, '\0', buf.len)) != NULL)
	{
		int			line = 1;

		for (const char *p = buf.data; p < nul; p++)
			if (*p == '\n')
				line++;
		*cause = xasprintf("%s:%d: script contains a NUL byte", path, line);
	}
	if (*cause != NULL)
	{
		strbuf_free(&buf);
		return NULL;
	}
	text = strbuf_detach(&buf);
	strbuf_free(&buf);
	return text;
}

/* Parse a script; see script.h. */
script *
script_parse(const char *source, const char *text)
{
	parser		p = {0};
	strbuf		buf;
	script	   *s;
	bool		ok = true;

	p.source = source;
	p.text = text;
	p.len = (int) strlen(text);
	p.line_no = 1;
	strbuf_init(&buf);

	while (ok)
	{
		int			first;
		int			nqueries;
		scan_stop	stop;
		command    *c;

		strbuf_reset(&buf);
		stop = scan_sql(&p, &buf, &first, &nqueries);
		c = make_sql_command(&p, &buf, first, nqueries);
		if (c != NULL)
			add_command(&p, c);

		if (stop == STOP_BACKSLASH)
		{
			ok = parse_meta(&p, p.pos - 1, &c);
			if (ok && c != NULL)
			{
				if (c->meta == META_GSET || c->meta == META_ASET)
				{
					ok = attach_gset(&p, c);
					command_free(c);
				}
				else
					add_command(&p, c);
			}
		}
		else if (stop == STOP_EOF)
			break;
	}
	strbuf_free(&buf);

	s = xcalloc(1, sizeof(script));
	s->desc = xstrdup(source);
	s->weight = 1;
	s->commands = p.cmds;
	s->ncommands = p.ncmds;
	if (ok && s->ncommands == 0)
	{
		msg_error("empty command list for script \"%s\"", source);
		ok = false;
	}
	if (ok)
		ok = link_conditionals(s);
	if (!ok)
	{
		script_free(s);
		return NULL;
	}
	return s;
}

void
script_free(script *s)
{
	if (s == NULL)
		return;
	for (int i = 0; i < s->ncommands; i++)
		command_free(s->commands[i]);
	free(s->commands);
	free(s->desc);
	free(s);
}

/* The -M extended/prepared limit on a statement's parameters. */
bool
script_check_params(const script *s)
{
	for (int i = 0; i < s->ncommands; i++)
	{
		const command *c = s->commands[i];

		if (c->type == CMD_SQL && c->nparams > SCRIPT_MAX_PARAMS)
		{
			msg_error("statement has too many arguments (maximum is %d): %s",
					  SCRIPT_MAX_PARAMS, c->sql);
			return false;
		}
	}
	return true;
}

/* Split "NAME@WEIGHT"; see script.h. */
bool
script_parse_weight(const char *option, char **name, int *weight)
{
	const char *sep = strrchr(option, '@');
	long		w;
	char	   *end;

	*name = NULL;
	if (sep == NULL)
	{
		*name = xstrdup(option);
		*weight = 1;
		return true;
	}
	errno = 0;
	w = strtol(sep + 1, &end, 10);
	if (errno != 0 || end == sep + 1 || *end != '\0')
	{
		msg_error("invalid weight specification: %s", sep);
		return false;
	}
	if (w > INT_MAX || w < 0)
	{
		msg_error("weight specification out of range (0 .. %d): %ld", INT_MAX, w);
		return false;
	}
	*name = xstrndup(option, sep - option);
	*weight = (int) w;
	return true;
}
