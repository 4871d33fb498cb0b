/*
 * script.c — turn the text of a pgbench script into commands.
 *
 * pgbench reads a script with psql's lexer: SQL text is collected until a
 * semicolon that is outside quotes, comments and parentheses (and outside
 * the BEGIN ... END of a CREATE FUNCTION/PROCEDURE body), or until a
 * backslash, which starts a meta-command that runs to the end of the line.
 * The lexer is never reset between commands, so an unclosed parenthesis
 * before a meta-command still counts after it.  scriptsql.c reproduces what
 * matters of that lexer by hand; scriptmeta.c and this file make the
 * checks pgbench makes at load time, with its messages (scriptbase.c
 * holds what the three share: commands, line numbers, the message):
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

#include "script_int.h"

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
		stop = script_scan_sql(&p, &buf, &first, &nqueries);
		c = script_make_sql(&p, &buf, first, nqueries);
		if (c != NULL)
			add_command(&p, c);

		if (stop == STOP_BACKSLASH)
		{
			ok = script_parse_meta(&p, p.pos - 1, &c);
			if (ok && c != NULL)
			{
				if (c->meta == META_GSET || c->meta == META_ASET)
				{
					ok = script_attach_gset(&p, c);
					script_command_free(c);
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
		ok = script_link_conditionals(s);
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
		script_command_free(s->commands[i]);
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
