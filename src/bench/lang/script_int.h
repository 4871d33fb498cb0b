/*
 * script_int.h — what the files of the script module share: scriptbase.c
 * (commands, messages), used by script.c (the driver), scriptsql.c (SQL
 * text) and scriptmeta.c (meta-commands).  Not for other modules.
 */
#ifndef PGTEMPO_BENCH_SCRIPT_INT_H
#define PGTEMPO_BENCH_SCRIPT_INT_H

#include <stdbool.h>

#include "pgtempo/strbuf.h"
#include "script.h"

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

static inline bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* scriptbase.c */
command    *script_command_new(command_type type, meta_kind meta, int line_no);
void		script_command_free(command *c);
int			script_line_of(parser *p, int pos);
bool		script_word_is(const char *word, int len, const char *s);
void		script_syntax_error(const char *source, int lineno, const char *line, const char *cmd,
								const char *msg, const char *more, int column);

/* scriptsql.c: scan SQL text from p->pos into buf; the command it makes (or NULL) */
scan_stop	script_scan_sql(parser *p, strbuf *buf, int *first, int *nqueries);
command    *script_make_sql(parser *p, const strbuf *buf, int first, int nqueries);

/* scriptmeta.c */
bool		script_parse_meta(parser *p, int bs, command **out);
bool		script_attach_gset(parser *p, command *g);
bool		script_link_conditionals(script *s);

#endif
