/*
 * scriptbase.c — what script.c, scriptsql.c and scriptmeta.c share: a
 * command made and freed, line numbers, words, and pgbench's syntax error
 * message.  It calls none of them, so the parser's files do not call one
 * another in a circle.
 */
#include "config.h"

#include "script_int.h"

#include <stdio.h>
#include <stdlib.h>

#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

/* ASCII-only case-insensitive comparison of a word of length len with lower-case s. */
bool
script_word_is(const char *word, int len, const char *s)
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
int
script_line_of(parser *p, int pos)
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
void
script_syntax_error(const char *source, int lineno, const char *line, const char *cmd,
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
command *
script_command_new(command_type type, meta_kind meta, int line_no)
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
void
script_command_free(command *c)
{
	if (c == NULL)
		return;
	free(c->first_line);
	free(c->sql);
	free(c->sql_numbered);
	for (int i = 0; i < c->nparams; i++)
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
