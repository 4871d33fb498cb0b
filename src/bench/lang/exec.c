/*
 * exec.c — meta-commands: \set, \if/\elif/\else/\endif, \sleep,
 * \setshell, \shell.
 *
 * \if chains need no run-time stack: the script parser resolved, for
 * every \if and \elif, the next branch of its chain (->jump) and the
 * chain's \endif (->chain_end).  A false condition jumps to the next
 * branch; reaching an \elif or \else by falling out of a taken branch
 * jumps past the \endif.
 */
#include "config.h"

#include "exec.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"

/* pgbench's limits on a shell command line and on what \setshell reads back. */
#define SHELL_COMMAND_SIZE	256
#define SHELL_RESULT_SIZE	64

static const char *const EVAL_FAILED = "evaluation of meta-command failed";
static const char *const EXEC_FAILED = "execution of meta-command failed";
static const char *const ASSIGN_FAILED = "assignment of meta-command failed";

/* Evaluate cmd's expression; prints the error and returns false on failure. */
static bool
eval_command(exec_client *c, const command *cmd, int script_no, int cmd_no, value *out)
{
	expr_env	env = {
		.vars = c->vars,
		.rs = &c->rs,
		.script_no = script_no,
		.command_no = cmd_no + 1,
		.debug_out = c->debug_out,
	};
	char	   *err = NULL;

	if (!expr_eval(cmd->expr, &env, out, &err))
	{
		/* some failures (an empty-string variable) have no message in pgbench either */
		if (err != NULL)
			msg_error("%s", err);
		free(err);
		return false;
	}
	return true;
}

/*
 * Follow an \if chain from a false branch at *pc: evaluate \elif
 * conditions until one holds, or enter the \else, or leave at \endif.
 */
static bool
skip_to_branch(exec_client *c, const script *s, int script_no, int *pc)
{
	for (;;)
	{
		const command *cmd = s->commands[*pc];
		int			target = cmd->jump;
		const command *t = s->commands[target];
		value		v;

		if (t->meta != META_ELIF)
		{
			*pc = target + 1;	/* into the \else, or past the \endif */
			return true;
		}
		if (!eval_command(c, t, script_no, target, &v))
		{
			*pc = target;
			return false;
		}
		if (value_is_true(&v))
		{
			*pc = target + 1;
			return true;
		}
		*pc = target;
	}
}

/*
 * The delay of \sleep in microseconds; false with pgbench's message.
 * The number must be in [0, SCRIPT_MAX_SLEEP] in its unit (so that any
 * unit fits in microseconds), where pgbench wraps it through a C int and
 * takes a negative or wrapped time as no sleep at all.
 */
static bool
sleep_delay(exec_client *c, const command *cmd, int64_t *usec)
{
	const char *arg = cmd->argv[1];
	int64_t		n;

	if (arg[0] == ':')
	{
		var		   *v = vars_lookup(c->vars, arg + 1);
		const char *text;
		char	   *end;

		if (v == NULL)
		{
			msg_error("%s: undefined variable \"%s\"", cmd->argv[0], arg + 1);
			return false;
		}
		/* like pgbench: the leading integer of the variable's text ("1.5" sleeps 1) */
		text = vars_get_string(c->vars, v);
		errno = 0;
		n = strtoll(text, &end, 10);
		if (end == text)
		{
			msg_error("%s: invalid sleep time \"%s\" for variable \"%s\"", cmd->argv[0],
					  text, arg + 1);
			return false;
		}
		if (errno == ERANGE || n < 0 || n > SCRIPT_MAX_SLEEP)
		{
			msg_error("%s: sleep time \"%s\" for variable \"%s\" is out of range (0 .. %d)",
					  cmd->argv[0], text, arg + 1, SCRIPT_MAX_SLEEP);
			return false;
		}
	}
	else
		/* checked at load time */
		n = strtoll(arg, NULL, 10);

	if (cmd->argc > 2)
	{
		if (strcasecmp(cmd->argv[2], "ms") == 0)
			n *= 1000;
		else if (strcasecmp(cmd->argv[2], "s") == 0)
			n *= 1000000;
		/* "us" was checked at load time */
	}
	else
		n *= 1000000;
	*usec = n;
	return true;
}

/*
 * Build and run a \shell or \setshell command line: words after the
 * command (and the variable) joined by spaces, ":name" replaced by the
 * variable's value and "::x" by ":x".  For \setshell the first line of
 * output must be an integer, stored in the variable.
 */
static bool
run_shell(exec_client *c, const command *cmd)
{
	bool		assign = cmd->meta == META_SETSHELL;
	char	  **words = cmd->argv + (assign ? 2 : 1);
	int			nwords = cmd->argc - (assign ? 2 : 1);
	strbuf		line;
	bool		ok = false;

	strbuf_init(&line);
	for (int i = 0; i < nwords; i++)
	{
		const char *arg = words[i];

		if (arg[0] == ':' && arg[1] == ':')
			arg++;
		else if (arg[0] == ':')
		{
			var		   *v = vars_lookup(c->vars, arg + 1);

			if (v == NULL)
			{
				msg_error("%s: undefined variable \"%s\"", words[0], words[i]);
				goto done;
			}
			arg = vars_get_string(c->vars, v);
		}
		if (line.len + strlen(arg) + (i > 0 ? 1 : 0) >= SHELL_COMMAND_SIZE - 1)
		{
			msg_error("%s: shell command is too long", words[0]);
			goto done;
		}
		if (i > 0)
			strbuf_putc(&line, ' ');
		strbuf_puts(&line, arg);
	}

	/* the child inherits our stdio buffers */
	fflush(NULL);
	if (!assign)
	{
		if (system(line.data) != 0)
			msg_error("%s: could not launch shell command", words[0]);
		else
			ok = true;
	}
	else
	{
		FILE	   *fp = popen(line.data, "r");
		char		res[SHELL_RESULT_SIZE];
		char	   *end;
		long long	n;
		value		val;
		char	   *err = NULL;

		if (fp == NULL)
		{
			msg_error("%s: could not launch shell command", words[0]);
			goto done;
		}
		if (fgets(res, sizeof(res), fp) == NULL)
		{
			msg_error("%s: could not read result of shell command", words[0]);
			pclose(fp);
			goto done;
		}
		if (pclose(fp) < 0)
		{
			msg_error("%s: could not run shell command: %s", words[0], strerror(errno));
			goto done;
		}
		errno = 0;
		n = strtoll(res, &end, 10);
		while (*end != '\0' && isspace((unsigned char) *end))
			end++;
		if (res[0] == '\0' || *end != '\0')
		{
			msg_error("%s: shell command must return an integer (not \"%s\")", words[0], res);
			goto done;
		}
		/* pgbench stores it through a C int, which wraps beyond 2^31 */
		if (errno == ERANGE)
		{
			res[strcspn(res, "\n")] = '\0';
			msg_error("%s: shell command result \"%s\" is out of range for a bigint",
					  words[0], res);
			goto done;
		}
		val = value_int(n);
		if (!vars_set_value(c->vars, "setshell", cmd->argv[1], &val, &err))
		{
			msg_error("%s", err);
			free(err);
			goto done;
		}
		ok = true;
	}
done:
	strbuf_free(&line);
	return ok;
}

exec_result
exec_meta(exec_client *c, const script *s, int script_no, int *pc, int64_t *sleep_us,
		  const char **kind)
{
	const command *cmd = s->commands[*pc];
	value		v;

	switch (cmd->meta)
	{
		case META_SET:
			{
				char	   *err = NULL;

				if (!eval_command(c, cmd, script_no, *pc, &v))
				{
					*kind = EVAL_FAILED;
					return EXEC_ABORT;
				}
				if (!vars_set_value(c->vars, "set", cmd->argv[1], &v, &err))
				{
					if (err != NULL)
						msg_error("%s", err);
					free(err);
					*kind = ASSIGN_FAILED;
					return EXEC_ABORT;
				}
				(*pc)++;
				return EXEC_NEXT;
			}
		case META_IF:
			if (!eval_command(c, cmd, script_no, *pc, &v))
			{
				*kind = EVAL_FAILED;
				return EXEC_ABORT;
			}
			if (value_is_true(&v))
				(*pc)++;
			else if (!skip_to_branch(c, s, script_no, pc))
			{
				*kind = EVAL_FAILED;
				return EXEC_ABORT;
			}
			return EXEC_NEXT;
		case META_ELIF:
		case META_ELSE:
			/* reached by falling out of a branch that was taken */
			*pc = cmd->chain_end + 1;
			return EXEC_NEXT;
		case META_ENDIF:
			(*pc)++;
			return EXEC_NEXT;
		case META_SLEEP:
			if (!sleep_delay(c, cmd, sleep_us))
			{
				*kind = EXEC_FAILED;
				return EXEC_ABORT;
			}
			(*pc)++;
			return EXEC_SLEEP;
		case META_SETSHELL:
		case META_SHELL:
			if (!run_shell(c, cmd))
			{
				*kind = EXEC_FAILED;
				return EXEC_ABORT;
			}
			(*pc)++;
			return EXEC_NEXT;
		case META_STARTPIPELINE:
			if (c->simple_protocol)
				*kind = "cannot use pipeline mode with the simple query protocol";
			else if (c->in_pipeline)
				*kind = "already in pipeline mode";
			else
			{
				/* the runner enters libpq's pipeline mode */
				c->in_pipeline = true;
				(*pc)++;
				return EXEC_NEXT;
			}
			return EXEC_ABORT;
		case META_SYNCPIPELINE:
		case META_ENDPIPELINE:
			if (!c->in_pipeline)
			{
				*kind = "not in pipeline mode";
				return EXEC_ABORT;
			}
			/* the runner sends the sync and, for \endpipeline, collects the results */
			if (cmd->meta == META_ENDPIPELINE)
				c->in_pipeline = false;
			(*pc)++;
			return EXEC_NEXT;
		default:
			/* \gset and \aset belong to their query, run by the runner */
			(*pc)++;
			return EXEC_NEXT;
	}
}

void
exec_sql_text(strbuf *out, const exec_client *c, const command *cmd)
{
	int			pos = 0;

	for (int i = 0; i < cmd->nparams; i++)
	{
		const sql_param *p = &cmd->params[i];
		var		   *v = vars_lookup(c->vars, p->name);

		strbuf_append(out, cmd->sql + pos, p->start - pos);
		if (v != NULL)
			strbuf_puts(out, vars_get_string(c->vars, v));
		else
			strbuf_append(out, cmd->sql + p->start, p->len);
		pos = p->start + p->len;
	}
	strbuf_puts(out, cmd->sql + pos);
}

void
exec_report_abort(const exec_client *c, const script *s, int script_no, int cmd,
				  const char *kind)
{
	msg_error("client %d aborted in command %d (%s) of script %d; %s", c->id, cmd,
			  s->commands[cmd]->type == CMD_SQL ? "SQL" : s->commands[cmd]->argv[0],
			  script_no, kind);
}
