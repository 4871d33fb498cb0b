/*
 * scriptmeta.c — the meta-commands of a script (\set, \sleep, \if, ...):
 * their words, pgbench's checks and messages, \gset and \aset attached to
 * the SQL command before them, and the jumps of conditionals.  See
 * script.c.
 */
#include "config.h"

#include "script_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

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
		if (script_word_is(name, (int) strlen(name), meta_names[i].name))
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
		script_syntax_error(p->source, lineno, c->first_line, c->argv[0],
					 "missing argument", NULL, -1);
		return false;
	}
	if (c->argc > 3)
	{
		script_syntax_error(p->source, lineno, c->first_line, c->argv[0],
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
				script_syntax_error(p->source, lineno, c->first_line, c->argv[0],
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

			script_syntax_error(p->source, lineno, c->first_line, c->argv[0],
						 "sleep time out of range", range, w->offsets[1] - bs);
			free(range);
			return false;
		}
	}
	if (c->argc == 3 &&
		!script_word_is(c->argv[2], (int) strlen(c->argv[2]), "us") &&
		!script_word_is(c->argv[2], (int) strlen(c->argv[2]), "ms") &&
		!script_word_is(c->argv[2], (int) strlen(c->argv[2]), "s"))
	{
		script_syntax_error(p->source, lineno, c->first_line, c->argv[0],
					 "unrecognized time unit, must be us, ms or s", c->argv[2],
					 unit_offset - bs);
		return false;
	}
	return true;
}

/* The end of the meta-command at bs: the first newline not escaped by a backslash, or len. */
static int
meta_end(const parser *p, int bs)
{
	const char *t = p->text;
	int			end = bs + 1;

	while (end < p->len && t[end] != '\n')
	{
		if (t[end] == '\\' && end + 1 < p->len && t[end + 1] == '\n')
			end += 2;
		else if (t[end] == '\\' && end + 2 < p->len && t[end + 1] == '\r' && t[end + 2] == '\n')
			end += 3;
		else
			end++;
	}
	return end;
}

/*
 * pgbench computes a word's offset as the end of what its scanner read
 * minus the word's length, and a word directly followed by a
 * backslash-newline is read together with it: its carets point that
 * much further right.  Do the same.
 */
static void
shift_offsets(const parser *p, meta_words *w)
{
	const char *t = p->text;

	for (int i = 0; i < w->n; i++)
	{
		int			after = w->offsets[i] + (int) strlen(w->words[i]);

		if (after + 1 < p->len && t[after] == '\\' && t[after + 1] == '\n')
			w->offsets[i] += 2;
		else if (after + 2 < p->len && t[after] == '\\' && t[after + 1] == '\r' &&
				 t[after + 2] == '\n')
			w->offsets[i] += 3;
	}
}

/*
 * \set, \if, \elif: the name (and \set's variable) as words, the rest an
 * expression; the expression's text runs to next, after the line end.
 */
static bool
parse_expr_meta(parser *p, command *c, const meta_words *w, int bs, int next, int line_len)
{
	const char *t = p->text;
	int			expr_start;
	expr_error	err = {NULL, NULL, -1};

	c->argc = c->meta == META_SET ? 2 : 1;
	c->argv = xcalloc(c->argc, sizeof(char *));
	c->argv[0] = xstrdup(w->words[0]);
	if (c->meta == META_SET)
	{
		if (w->n < 2)
		{
			c->argc = 1;
			script_syntax_error(p->source, c->line_no, NULL, c->argv[0],
								"missing argument", NULL, -1);
			return false;
		}
		c->argv[1] = xstrdup(w->words[1]);
	}
	expr_start = w->offsets[c->argc - 1] + (int) strlen(w->words[c->argc - 1]);
	c->first_line = xstrndup(t + bs, line_len);
	/*
	 * The range includes the newline that ends the command: pgbench's
	 * scanner reads it as the end of the expression, so an error at the
	 * end of a line is shown under the newline.
	 */
	c->expr = expr_parse(t, expr_start, next, &err);
	if (c->expr != NULL)
		return true;
	script_syntax_error(p->source, c->line_no, c->first_line, c->argv[0],
						err.msg != NULL ? err.msg : "syntax error", err.more,
						err.column >= 0 ? err.column - bs : -1);
	expr_error_clear(&err);
	return false;
}

/* pgbench's checks of the other meta-commands' words; the message names the first fault. */
static bool
check_words(parser *p, command *c, const meta_words *w, int bs)
{
	const char *msg = NULL;

	switch (c->meta)
	{
		case META_SLEEP:
			return check_sleep(p, c, w, bs, c->line_no);
		case META_SETSHELL:
			if (c->argc < 3)
				msg = "missing argument";
			break;
		case META_SHELL:
			if (c->argc < 2)
				msg = "missing command";
			break;
		case META_ELSE:
		case META_ENDIF:
		case META_STARTPIPELINE:
		case META_SYNCPIPELINE:
		case META_ENDPIPELINE:
			if (c->argc != 1)
				msg = "unexpected argument";
			break;
		case META_GSET:
		case META_ASET:
			if (c->argc > 2)
				msg = "too many arguments";
			break;
		default:
			msg = "invalid command";
			break;
	}
	if (msg == NULL)
		return true;
	script_syntax_error(p->source, c->line_no, c->first_line, c->argv[0], msg, NULL, -1);
	return false;
}

/*
 * Parse the meta-command whose backslash is at offset bs; p->pos is just
 * after it.  Sets *out to the command, or NULL for a lone backslash
 * (pgbench ignores it).  False after printing an error.
 */
bool
script_parse_meta(parser *p, int bs, command **out)
{
	const char *t = p->text;
	int			end = meta_end(p, bs);	/* the terminating newline, or len */
	int			next = end < p->len ? end + 1 : end;	/* after it */
	int			line_len;
	meta_words	w = {0};
	command    *c;
	bool		ok;

	*out = NULL;
	p->pos = next;
	w.n = expr_split_words(t, bs + 1, end, &w.words, &w.offsets);
	if (w.n == 0)
	{
		free_words(&w);
		return true;
	}
	shift_offsets(p, &w);

	c = script_command_new(CMD_META, lookup_meta(w.words[0]), script_line_of(p, bs));
	/* the line for messages and -r: the whole command, without its line end */
	line_len = next - bs;
	while (line_len > 0 && (t[bs + line_len - 1] == '\n' || t[bs + line_len - 1] == '\r'))
		line_len--;

	if (c->meta == META_SET || c->meta == META_IF || c->meta == META_ELIF)
		ok = parse_expr_meta(p, c, &w, bs, next, line_len);
	else if (w.n > SCRIPT_MAX_ARGS)
	{
		script_syntax_error(p->source, c->line_no, NULL, w.words[0], "too many arguments", NULL, -1);
		ok = false;
	}
	else
	{
		c->argc = w.n;
		c->argv = xmalloc(w.n * sizeof(char *));
		for (int i = 0; i < w.n; i++)
			c->argv[i] = xstrdup(w.words[i]);
		c->first_line = xstrndup(t + bs, line_len);
		ok = check_words(p, c, &w, bs);
	}
	free_words(&w);
	if (!ok)
	{
		script_command_free(c);
		return false;
	}
	*out = c;
	return true;
}

/*
 * \gset and \aset are not commands of their own: they mark the SQL
 * command before them.  False with pgbench's message if there is none.
 */
bool
script_attach_gset(parser *p, command *g)
{
	command    *prev;

	if (p->ncmds == 0)
	{
		script_syntax_error(p->source, g->line_no, NULL, NULL,
					 "\\gset must follow an SQL command", NULL, -1);
		return false;
	}
	prev = p->cmds[p->ncmds - 1];
	if (prev->type != CMD_SQL || prev->varprefix != NULL)
	{
		/* pgbench names the command only if it is a meta-command */
		script_syntax_error(p->source, g->line_no, NULL, NULL,
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
bool
script_link_conditionals(script *s)
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
