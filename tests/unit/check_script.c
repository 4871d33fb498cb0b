/*
 * check_script.c — the script parser: how SQL text is split into commands
 * (psql's lexer as pgbench uses it), meta-commands, \gset/\aset, \if
 * chains, :variables, -M parameters, and the builtin scripts, their
 * lookup and -b/-f weights.  What the parser refuses, with its exact
 * output, is tested in check_script_errors.c.
 *
 * Expected outputs come from pgbench 15 (run against a server, with
 * --debug, -r and the server's statement log), except where a comment
 * says otherwise.  Errors are caught by pointing file descriptor 2 at a
 * temporary file around the call.
 */
#include "config.h"

#include "check_script.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

typedef struct capture
{
	FILE	   *tmp;
	int			saved_err;
} capture;

/* Send stderr to a fresh temporary file. */
static void
capture_begin(capture *c)
{
	fflush(stdout);
	fflush(stderr);
	c->tmp = tmpfile();
	ck_assert_ptr_nonnull(c->tmp);
	c->saved_err = dup(STDERR_FILENO);
	ck_assert_int_ge(c->saved_err, 0);
	dup2(fileno(c->tmp), STDERR_FILENO);
}

/* Put stderr back and return what was written to it, as a malloc'd string. */
static char *
capture_end(capture *c)
{
	long		size;
	char	   *text;
	size_t		got;

	fflush(stderr);
	dup2(c->saved_err, STDERR_FILENO);
	close(c->saved_err);
	fseek(c->tmp, 0, SEEK_END);
	size = ftell(c->tmp);
	ck_assert_int_ge(size, 0);
	rewind(c->tmp);
	text = malloc((size_t) size + 1);
	ck_assert_ptr_nonnull(text);
	got = fread(text, 1, (size_t) size, c->tmp);
	text[got] = '\0';
	fclose(c->tmp);
	return text;
}

/* Parse text as "t.sql" with stderr caught; *err gets what was printed. */
script *
check_script_parse_caught(const char *text, char **err)
{
	capture		c;
	script	   *s;

	msg_set_progname("pgtempo-bench");
	capture_begin(&c);
	s = script_parse("t.sql", text);
	*err = capture_end(&c);
	return s;
}

static const char *const kind_names[] = {
	"sql", "set", "setshell", "shell", "sleep", "gset", "aset", "if", "elif", "else",
	"endif", "startpipeline", "syncpipeline", "endpipeline"
};

/* Append s in <...>, control characters in cat -v style (^J for a newline). */
static void
put_text(strbuf *sb, const char *s)
{
	strbuf_putc(sb, '<');
	for (; *s; s++)
	{
		if ((unsigned char) *s < 0x20)
		{
			strbuf_putc(sb, '^');
			strbuf_putc(sb, (char) (*s + '@'));
		}
		else
			strbuf_putc(sb, *s);
	}
	strbuf_putc(sb, '>');
}

/*
 * One line per command:
 *   N sql LLINE qNQUERIES [gset|aset<PREFIX>] <SQL> [=> <NUMBERED> {NAME@START+LEN=$N ...}] [# <FIRST>]
 *   N KIND LLINE <ARG>... [jump=J end=E] # <FIRST LINE>
 * A SQL command's first line is shown only when it is not its whole text.
 */
static char *
render(const script *s)
{
	strbuf		sb;
	char	   *out;

	strbuf_init(&sb);
	for (int i = 0; i < s->ncommands; i++)
	{
		const command *c = s->commands[i];

		if (c->type == CMD_SQL)
		{
			strbuf_printf(&sb, "%d sql L%d q%d ", i, c->line_no, c->nqueries);
			if (c->varprefix != NULL)
			{
				strbuf_puts(&sb, c->meta == META_GSET ? "gset" : "aset");
				put_text(&sb, c->varprefix);
				strbuf_putc(&sb, ' ');
			}
			put_text(&sb, c->sql);
			if (c->nparams > 0)
			{
				strbuf_puts(&sb, " => ");
				put_text(&sb, c->sql_numbered);
				strbuf_puts(&sb, " {");
				for (int j = 0; j < c->nparams; j++)
					strbuf_printf(&sb, "%s%s@%d+%d=$%d", j > 0 ? " " : "", c->params[j].name,
								  c->params[j].start, c->params[j].len, c->params[j].number);
				strbuf_putc(&sb, '}');
			}
			if (strcmp(c->first_line, c->sql) != 0)
			{
				strbuf_puts(&sb, " # ");
				put_text(&sb, c->first_line);
			}
		}
		else
		{
			strbuf_printf(&sb, "%d %s L%d", i, kind_names[c->meta], c->line_no);
			for (int j = 0; j < c->argc; j++)
			{
				strbuf_putc(&sb, ' ');
				put_text(&sb, c->argv[j]);
			}
			if (c->meta == META_IF || c->meta == META_ELIF || c->meta == META_ELSE)
				strbuf_printf(&sb, " jump=%d end=%d", c->jump, c->chain_end);
			strbuf_puts(&sb, " # ");
			put_text(&sb, c->first_line);
		}
		strbuf_putc(&sb, '\n');
	}
	out = strbuf_detach(&sb);
	strbuf_free(&sb);			/* detach leaves a fresh allocation behind */
	return out;
}

/*
 * Script text -> its commands, rendered by render().  Semicolons end a
 * command only outside quotes, comments, parentheses (whose depth
 * survives meta-commands) and CREATE FUNCTION/PROCEDURE bodies; leading
 * white space and -- comments are dropped, everything else is kept as
 * pgbench sends it, C-style comments and a trailing newline included;
 * :variables are found anywhere, quotes and comments included.
 */
static const struct
{
	const char *text;
	const char *want;
}			parse_cases[] = {
	{"select 1;",
	 "0 sql L1 q1 <select 1;>\n"},
	{"  -- c\n"
	 "  select 1 ; -- trailing\n",
	 "0 sql L2 q1 <select 1 ;>\n"},
	{"select 1\n",
	 "0 sql L1 q1 <select 1^J> # <select 1>\n"},
	{"select 1",
	 "0 sql L1 q1 <select 1>\n"},
	{"select /* a */ 1 -- x\n"
	 ";\n",
	 "0 sql L1 q1 <select /* a */ 1 -- x^J;> # <select /* a */ 1 -- x>\n"},
	{"/* only */\n",
	 "0 sql L1 q1 </* only */^J> # </* only */>\n"},
	{"select ';' as a; select 2;",
	 "0 sql L1 q1 <select ';' as a;>\n"
	 "1 sql L1 q1 <select 2;>\n"},
	{"select (1;2);\n"
	 "select 3;",
	 "0 sql L1 q1 <select (1;2);>\n"
	 "1 sql L2 q1 <select 3;>\n"},
	{"select $$a;b$$; select $x$ ; $y$ $x$;",
	 "0 sql L1 q1 <select $$a;b$$;>\n"
	 "1 sql L1 q1 <select $x$ ; $y$ $x$;>\n"},
	{"select E'a\\';b'; select 'a\\'; select 5;",
	 "0 sql L1 q1 <select E'a\\';b';>\n"
	 "1 sql L1 q1 <select 'a\\';>\n"
	 "2 sql L1 q1 <select 5;>\n"},
	{"select \"a;b\" from (select 1 as \"a;b\") s; select 2;",
	 "0 sql L1 q1 <select \"a;b\" from (select 1 as \"a;b\") s;>\n"
	 "1 sql L1 q1 <select 2;>\n"},
	{"select 1 as \"x\"\"y;\"; select 2;",
	 "0 sql L1 q1 <select 1 as \"x\"\"y;\";>\n"
	 "1 sql L1 q1 <select 2;>\n"},
	{"select 1 /* a /* b */ ; */ ; select 2;",
	 "0 sql L1 q1 <select 1 /* a /* b */ ; */ ;>\n"
	 "1 sql L1 q1 <select 2;>\n"},
	{"select 1\\; select 2 \\;select 3;",
	 "0 sql L1 q3 <select 1; select 2 ;select 3;>\n"},
	{"select (1 \\set x 2\n"
	 "select 2; select 3;",
	 "0 sql L1 q1 <select (1 >\n"
	 "1 set L1 <set> <x> # <\\set x 2>\n"
	 "2 sql L2 q1 <select 2; select 3;>\n"},
	{"select 1 \\set x 2\n"
	 "select 2;",
	 "0 sql L1 q1 <select 1 >\n"
	 "1 set L1 <set> <x> # <\\set x 2>\n"
	 "2 sql L2 q1 <select 2;>\n"},
	{"create or replace function f() returns int language sql begin atomic select 1; select 2; end; select f();",
	 "0 sql L1 q1 <create or replace function f() returns int language sql begin atomic select 1; select 2; end;>\n"
	 "1 sql L1 q1 <select f();>\n"},
	{"CREATE PROCEDURE p() BEGIN ATOMIC SELECT CASE WHEN true THEN 1 END; SELECT 2; END; SELECT 3;",
	 "0 sql L1 q1 <CREATE PROCEDURE p() BEGIN ATOMIC SELECT CASE WHEN true THEN 1 END; SELECT 2; END;>\n"
	 "1 sql L1 q1 <SELECT 3;>\n"},
	{"create x function f() begin atomic select 1; end; select 2;",
	 "0 sql L1 q1 <create x function f() begin atomic select 1;>\n"
	 "1 sql L1 q1 <end;>\n"
	 "2 sql L1 q1 <select 2;>\n"},
	{"create \\set x 1\n"
	 "function f() begin atomic select 1; end; select 2;",
	 "0 sql L1 q1 <create >\n"
	 "1 set L1 <set> <x> # <\\set x 1>\n"
	 "2 sql L2 q1 <function f() begin atomic select 1; end;>\n"
	 "3 sql L2 q1 <select 2;>\n"},
	{"select U&'a;b', B'01', X'1F', N'a;b', e'x\\';y', U&\"d;\";",
	 "0 sql L1 q1 <select U&'a;b', B'01', X'1F', N'a;b', e'x\\';y', U&\"d;\";>\n"},
	{"select 1$$;$$; select 2;",
	 "0 sql L1 q1 <select 1$$;$$;>\n"
	 "1 sql L1 q1 <select 2;>\n"},
	{"select a$$;$$;",
	 "0 sql L1 q1 <select a$$;>\n"
	 "1 sql L1 q1 <$$;>\n"},
	{"select $1$$;$$; select $abc; select 2;",
	 "0 sql L1 q1 <select $1$$;$$;>\n"
	 "1 sql L1 q1 <select $abc;>\n"
	 "2 sql L1 q1 <select 2;>\n"},
	{"select $a$ $b$ ; $a$;",
	 "0 sql L1 q1 <select $a$ $b$ ; $a$;>\n"},
	{"select 1::e'a\\';b'; select 2;",
	 "0 sql L1 q1 <select 1::e'a\\';b';>\n"
	 "1 sql L1 q1 <select 2;>\n"},
	{"select 1e'\\'; select 2;",
	 "0 sql L1 q1 <select 1e'\\';>\n"
	 "1 sql L1 q1 <select 2;>\n"},
	{"select 1e1$$;$$;",
	 "0 sql L1 q1 <select 1e1$$;>\n"
	 "1 sql L1 q1 <$$;>\n"},
	{"select .5e$$; select 1.5$$;$$;",
	 "0 sql L1 q1 <select .5e$$;>\n"
	 "1 sql L1 q1 <select 1.5$$;$$;>\n"},
	{"create function f() begin atomic select 1\\; select 2; end; select 3;",
	 "0 sql L1 q1 <create function f() begin atomic select 1; select 2; end;>\n"
	 "1 sql L1 q1 <select 3;>\n"},
	{"select :e'a\\';b'",
	 "0 sql L1 q1 <select :e'a\\';> => <select $1'a\\';> {e@7+2=$1}\n"
	 "1 sql L1 q1 <b'>\n"},
	{"select x.e'a\\';b';",
	 "0 sql L1 q1 <select x.e'a\\';b';>\n"},
	{"select E'a'\n"
	 "'\\';b';",
	 "0 sql L1 q1 <select E'a'^J'\\';b';> # <select E'a'>\n"},
	{"select E'a'  -- c\n"
	 "\n"
	 " '\\';b';",
	 "0 sql L1 q1 <select E'a'  -- c^J^J '\\';b';> # <select E'a'  -- c>\n"},
	{"select E'a' '\\';b';",
	 "0 sql L1 q1 <select E'a' '\\';>\n"
	 "1 sql L1 q1 <b';>\n"},
	{"select 1;;\n"
	 ";",
	 "0 sql L1 q1 <select 1;>\n"
	 "1 sql L1 q1 <;>\n"
	 "2 sql L2 q1 <;>\n"},
	{"\\;select 1;",
	 "0 sql L1 q1 <;select 1;>\n"},
	{"select 1\\;\\;select 2;",
	 "0 sql L1 q2 <select 1;;select 2;>\n"},
	{"select 1\\; /* c */ \\; -- d\n"
	 ";",
	 "0 sql L1 q1 <select 1; /* c */ ; -- d^J;> # <select 1; /* c */ ; -- d>\n"},
	{"select 1\\;\n",
	 "0 sql L1 q1 <select 1;^J> # <select 1;>\n"},
	{"select \\:a;",
	 "0 sql L1 q1 <select :a;> => <select $1;> {a@7+2=$1}\n"},
	{"select ':a' /* :a */, :a::text, :a, :b -- :a\n"
	 ";",
	 "0 sql L1 q1 <select ':a' /* :a */, :a::text, :a, :b -- :a^J;> => <select '$1' /* $2 */, $3::text, $4, $5 -- $6^J;> {a@8+2=$1 a@15+2=$2 a@22+2=$3 a@32+2=$4 b@36+2=$5 a@42+2=$6} # <select ':a' /* :a */, :a::text, :a, :b -- :a>\n"},
	{"select :1, ::x, :::y, :_x1, :a:b, :\xc3""\xa9"", :A9$;",
	 "0 sql L1 q1 <select :1, ::x, :::y, :_x1, :a:b, :\xc3""\xa9"", :A9$;> => <select :1, ::x, :::y, $1, $2$3, $4, $5$;> {_x1@22+4=$1 a@28+2=$2 b@30+2=$3 \xc3""\xa9""@34+3=$4 A9@39+3=$5}\n"},
	{"select 1 -- c;\r+ 2;\n"
	 "select 3;",
	 "0 sql L1 q1 <select 1 -- c;^M+ 2;> # <select 1 -- c;>\n"
	 "1 sql L2 q1 <select 3;>\n"},
	{"select 1;\r\n"
	 "\\sleep 1 ms\r\n"
	 "select 2;\r\n",
	 "0 sql L1 q1 <select 1;>\n"
	 "1 sleep L2 <sleep> <1> <ms> # <\\sleep 1 ms>\n"
	 "2 sql L3 q1 <select 2;>\n"},
	{"select 'a\n"
	 ";b';\n"
	 "select 2;",
	 "0 sql L1 q1 <select 'a^J;b';> # <select 'a>\n"
	 "1 sql L3 q1 <select 2;>\n"},
	{"select 1 -- x\n"
	 "\\set y 1\n"
	 "select 2;",
	 "0 sql L1 q1 <select 1 -- x^J> # <select 1 -- x>\n"
	 "1 set L2 <set> <y> # <\\set y 1>\n"
	 "2 sql L3 q1 <select 2;>\n"},
	{"select 'abc;\n"
	 "\\set x 1\n",
	 "0 sql L1 q1 <select 'abc;^J\\set x 1^J> # <select 'abc;>\n"},
	{"select 1 /* ;\n"
	 "\\set x 1",
	 "0 sql L1 q1 <select 1 /* ;^J\\set x 1> # <select 1 /* ;>\n"},
	{"\\set x 1\n"
	 "\\sleep 10ms\n"
	 "\\sleep :t\n"
	 "\\sleep +\n"
	 "\\SLEEP 5 S\n"
	 "\\sleep 3 us\n"
	 "\\shell echo a  b\n"
	 "\\setshell v echo 1\n",
	 "0 set L1 <set> <x> # <\\set x 1>\n"
	 "1 sleep L2 <sleep> <10> <ms> # <\\sleep 10ms>\n"
	 "2 sleep L3 <sleep> <:t> # <\\sleep :t>\n"
	 "3 sleep L4 <sleep> <+> # <\\sleep +>\n"
	 "4 sleep L5 <SLEEP> <5> <S> # <\\SLEEP 5 S>\n"
	 "5 sleep L6 <sleep> <3> <us> # <\\sleep 3 us>\n"
	 "6 shell L7 <shell> <echo> <a> <b> # <\\shell echo a  b>\n"
	 "7 setshell L8 <setshell> <v> <echo> <1> # <\\setshell v echo 1>\n"},
	{"\\if 1\n"
	 "select 1;\n"
	 "\\elif 2\n"
	 "select 2;\n"
	 "\\else\n"
	 "\\if 3\n"
	 "\\endif\n"
	 "\\endif\n",
	 "0 if L1 <if> jump=2 end=7 # <\\if 1>\n"
	 "1 sql L2 q1 <select 1;>\n"
	 "2 elif L3 <elif> jump=4 end=7 # <\\elif 2>\n"
	 "3 sql L4 q1 <select 2;>\n"
	 "4 else L5 <else> jump=7 end=7 # <\\else>\n"
	 "5 if L6 <if> jump=6 end=6 # <\\if 3>\n"
	 "6 endif L7 <endif> # <\\endif>\n"
	 "7 endif L8 <endif> # <\\endif>\n"},
	{"\\if 1\n"
	 "\\elif 2\n"
	 "\\elif 3\n"
	 "\\endif\n"
	 "select 1;",
	 "0 if L1 <if> jump=1 end=3 # <\\if 1>\n"
	 "1 elif L2 <elif> jump=2 end=3 # <\\elif 2>\n"
	 "2 elif L3 <elif> jump=3 end=3 # <\\elif 3>\n"
	 "3 endif L4 <endif> # <\\endif>\n"
	 "4 sql L5 q1 <select 1;>\n"},
	{"\\If 1\n"
	 "\\ElSe\n"
	 "\\ENDIF",
	 "0 if L1 <If> jump=1 end=2 # <\\If 1>\n"
	 "1 else L2 <ElSe> jump=2 end=2 # <\\ElSe>\n"
	 "2 endif L3 <ENDIF> # <\\ENDIF>\n"},
	{"select 1 as a \\gset\n"
	 "select 2 as b;\n"
	 "\\aset p_\n"
	 "select 3 \\gset  pre\n",
	 "0 sql L1 q1 gset<> <select 1 as a >\n"
	 "1 sql L2 q1 aset<p_> <select 2 as b;>\n"
	 "2 sql L4 q1 gset<pre> <select 3 >\n"},
	{"select 1\\; select 2 \\aset",
	 "0 sql L1 q2 aset<> <select 1; select 2 >\n"},
	{"\\startpipeline\n"
	 "select 1;\n"
	 "\\syncpipeline\n"
	 "select 2;\n"
	 "\\endpipeline\n",
	 "0 startpipeline L1 <startpipeline> # <\\startpipeline>\n"
	 "1 sql L2 q1 <select 1;>\n"
	 "2 syncpipeline L3 <syncpipeline> # <\\syncpipeline>\n"
	 "3 sql L4 q1 <select 2;>\n"
	 "4 endpipeline L5 <endpipeline> # <\\endpipeline>\n"},
	{"\\\n"
	 "select 1;",
	 "0 sql L2 q1 <select 1;>\n"},
	{"\\ set x 1",
	 "0 set L1 <set> <x> # <\\ set x 1>\n"},
	{"\\set x 1 + \\\n"
	 "  2\n"
	 "select 1;",
	 "0 set L1 <set> <x> # <\\set x 1 + \\^J  2>\n"
	 "1 sql L3 q1 <select 1;>\n"},
	{"select 1 \\\\\n"
	 "set x 1\n"
	 "select 2;",
	 "0 sql L1 q1 <select 1 >\n"
	 "1 set L1 <set> <x> # <\\\\^Jset x 1>\n"
	 "2 sql L3 q1 <select 2;>\n"},
	{"\\sleep\\\n"
	 " 1\\\n"
	 "ms",
	 "0 sleep L1 <sleep> <1> <ms> # <\\sleep\\^J 1\\^Jms>\n"},
	{"select 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';",
	 "0 sql L1 q1 <select 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';> # <select 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa>\n"},
	{"\n"
	 "\n"
	 "\n"
	 "  select 1,\n"
	 "  2;\n"
	 "\n"
	 "\\set x 1\n"
	 "\n"
	 "\n"
	 "select 3",
	 "0 sql L4 q1 <select 1,^J  2;> # <select 1,>\n"
	 "1 set L7 <set> <x> # <\\set x 1>\n"
	 "2 sql L10 q1 <select 3>\n"},
};

START_TEST(test_parse)
{
	char	   *err;
	script	   *s = check_script_parse_caught(parse_cases[_i].text, &err);
	char	   *got;

	ck_assert_msg(s != NULL, "case %d failed: %s", _i, err);
	ck_assert_str_eq(err, "");
	got = render(s);
	ck_assert_str_eq(got, parse_cases[_i].want);
	ck_assert_str_eq(s->desc, "t.sql");
	ck_assert_int_eq(s->weight, 1);
	/* \set, \if and \elif carry their expression, nothing else does */
	for (int i = 0; i < s->ncommands; i++)
	{
		const command *c = s->commands[i];
		bool		has_expr = c->type == CMD_META &&
			(c->meta == META_SET || c->meta == META_IF || c->meta == META_ELIF);

		ck_assert_msg((c->expr != NULL) == has_expr, "command %d: expr", i);
		ck_assert_int_eq(c->type == CMD_SQL, c->sql != NULL);
	}
	free(got);
	free(err);
	script_free(s);
}
END_TEST


/*
 * -M extended and prepared: at most 255 parameters, and as in pgbench each
 * occurrence of a variable is one.
 */
START_TEST(test_check_params)
{
	strbuf		text;
	char	   *err;
	script	   *s;
	capture		c;
	char	   *got;
	char	   *want;

	strbuf_init(&text);
	strbuf_puts(&text, "select :v1");
	for (int i = 2; i < SCRIPT_MAX_PARAMS; i++)
		strbuf_printf(&text, ", :v%d", i);
	strbuf_puts(&text, ", :v1;\n");
	s = check_script_parse_caught(text.data, &err);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->commands[0]->nparams, 255);
	ck_assert_int_eq(s->commands[0]->params[254].number, 255);
	ck_assert_ptr_nonnull(strstr(s->commands[0]->sql_numbered, ", $254, $255;"));
	capture_begin(&c);
	ck_assert(script_check_params(s));
	got = capture_end(&c);
	ck_assert_str_eq(got, "");
	free(got);
	script_free(s);
	free(err);

	/* a 256th occurrence, of a name already used */
	text.len -= 2;
	text.data[text.len] = '\0';
	strbuf_puts(&text, ", :v2;\n");
	s = check_script_parse_caught(text.data, &err);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->commands[0]->nparams, 256);
	capture_begin(&c);
	ck_assert(!script_check_params(s));
	got = capture_end(&c);
	want = malloc(text.len + 100);
	sprintf(want, "pgtempo-bench: error: statement has too many arguments (maximum is 255): %s",
			text.data);
	ck_assert_str_eq(got, want);
	free(want);
	free(got);
	script_free(s);
	free(err);

	/* one variable 300 times is 300 parameters, too many */
	strbuf_reset(&text);
	strbuf_puts(&text, "select :a");
	for (int i = 1; i < 300; i++)
		strbuf_puts(&text, " + :a");
	s = check_script_parse_caught(text.data, &err);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->commands[0]->nparams, 300);
	capture_begin(&c);
	ck_assert(!script_check_params(s));
	got = capture_end(&c);
	ck_assert_ptr_nonnull(strstr(got, "statement has too many arguments (maximum is 255)"));
	free(got);
	script_free(s);
	free(err);
	strbuf_free(&text);
}
END_TEST

/* Each occurrence of a variable, and its own $n. */
START_TEST(test_param_positions)
{
	char	   *err;
	script	   *s = check_script_parse_caught("select :aid, ':aid', :bid,\n :aid::int -- :c\n;", &err);
	const command *c;

	ck_assert_ptr_nonnull(s);
	c = s->commands[0];
	ck_assert_int_eq(c->nparams, 5);
	ck_assert_str_eq(c->params[0].name, "aid");
	ck_assert_int_eq(c->params[0].start, 7);
	ck_assert_int_eq(c->params[0].len, 4);
	ck_assert_int_eq(c->params[1].start, 14);
	ck_assert_str_eq(c->params[1].name, "aid");
	ck_assert_str_eq(c->params[2].name, "bid");
	ck_assert_int_eq(c->params[3].start, 28);
	ck_assert_str_eq(c->params[4].name, "c");
	for (int i = 0; i < c->nparams; i++)
		ck_assert_int_eq(c->params[i].number, i + 1);
	for (int i = 0; i < c->nparams; i++)
		ck_assert_int_eq(c->sql[c->params[i].start], ':');
	ck_assert_str_eq(c->sql_numbered, "select $1, '$2', $3,\n $4::int -- $5\n;");
	ck_assert_str_eq(c->first_line, "select :aid, ':aid', :bid,");
	ck_assert_int_eq(c->argc, 0);
	ck_assert_ptr_null(c->varprefix);
	script_free(s);
	free(err);
	script_free(NULL);
}
END_TEST

/* The builtin scripts, as "pgbench --show-script=NAME" prints them (after its "-- NAME: DESC" line). */
static const struct
{
	const char *name;
	const char *desc;
	const char *text;
	int			ncommands;
}			builtin_cases[] = {
	{"tpcb-like", "<builtin: TPC-B (sort of)>",
		"\\set aid random(1, 100000 * :scale)\n"
		"\\set bid random(1, 1 * :scale)\n"
		"\\set tid random(1, 10 * :scale)\n"
		"\\set delta random(-5000, 5000)\n"
		"BEGIN;\n"
		"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"
		"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
		"UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n"
		"UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n"
		"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n"
		"END;\n",
	11},
	{"simple-update", "<builtin: simple update>",
		"\\set aid random(1, 100000 * :scale)\n"
		"\\set bid random(1, 1 * :scale)\n"
		"\\set tid random(1, 10 * :scale)\n"
		"\\set delta random(-5000, 5000)\n"
		"BEGIN;\n"
		"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"
		"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
		"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n"
		"END;\n",
	9},
	{"select-only", "<builtin: select only>",
		"\\set aid random(1, 100000 * :scale)\n"
		"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n",
	2},
};

START_TEST(test_builtin_texts)
{
	const builtin_script *b = &script_builtins[_i];
	char	   *err;
	script	   *s;
	const command *last;

	ck_assert_int_eq(script_nbuiltins, 3);
	ck_assert_str_eq(b->name, builtin_cases[_i].name);
	ck_assert_str_eq(b->desc, builtin_cases[_i].desc);
	ck_assert_str_eq(b->text, builtin_cases[_i].text);

	s = check_script_parse_caught(b->text, &err);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(s->ncommands, builtin_cases[_i].ncommands);
	ck_assert_int_eq(s->commands[0]->meta, META_SET);
	ck_assert_str_eq(s->commands[0]->argv[1], "aid");
	last = s->commands[s->ncommands - 1];
	ck_assert_int_eq(last->type, CMD_SQL);
	ck_assert_int_eq(last->line_no, s->ncommands);
	free(err);
	script_free(s);
}
END_TEST

START_TEST(test_builtin_tpcb_commands)
{
	char	   *err;
	script	   *s = check_script_parse_caught(script_builtins[0].text, &err);
	char	   *got = render(s);

	ck_assert_str_eq(got,
					 "0 set L1 <set> <aid> # <\\set aid random(1, 100000 * :scale)>\n"
					 "1 set L2 <set> <bid> # <\\set bid random(1, 1 * :scale)>\n"
					 "2 set L3 <set> <tid> # <\\set tid random(1, 10 * :scale)>\n"
					 "3 set L4 <set> <delta> # <\\set delta random(-5000, 5000)>\n"
					 "4 sql L5 q1 <BEGIN;>\n"
					 "5 sql L6 q1 <UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;>"
					 " => <UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;>"
					 " {delta@50+6=$1 aid@69+4=$2}\n"
					 "6 sql L7 q1 <SELECT abalance FROM pgbench_accounts WHERE aid = :aid;>"
					 " => <SELECT abalance FROM pgbench_accounts WHERE aid = $1;> {aid@50+4=$1}\n"
					 "7 sql L8 q1 <UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;>"
					 " => <UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2;>"
					 " {delta@49+6=$1 tid@68+4=$2}\n"
					 "8 sql L9 q1 <UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;>"
					 " => <UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2;>"
					 " {delta@50+6=$1 bid@69+4=$2}\n"
					 "9 sql L10 q1 <INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);>"
					 " => <INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP);>"
					 " {tid@66+4=$1 bid@72+4=$2 aid@78+4=$3 delta@84+6=$4}\n"
					 "10 sql L11 q1 <END;>\n");
	free(got);
	free(err);
	script_free(s);
}
END_TEST

#define LIST_OUTPUT \
	"Available builtin scripts:\n" \
	"      tpcb-like: <builtin: TPC-B (sort of)>\n" \
	"  simple-update: <builtin: simple update>\n" \
	"    select-only: <builtin: select only>\n" \
	"\n"

/* -b NAME: a name or an unambiguous prefix; the list after a failure. */
static const struct
{
	const char *name;
	int			found;			/* index, or -1 */
	const char *err;
}			find_cases[] = {
	{"tpcb-like", 0, ""},
	{"simple-update", 1, ""},
	{"select-only", 2, ""},
	{"t", 0, ""},
	{"simple", 1, ""},
	{"sel", 2, ""},
	{"s", -1, "pgtempo-bench: error: ambiguous builtin name: 2 builtin scripts found for prefix \"s\"\n" LIST_OUTPUT},
	{"", -1, "pgtempo-bench: error: ambiguous builtin name: 3 builtin scripts found for prefix \"\"\n" LIST_OUTPUT},
	{"x", -1, "pgtempo-bench: error: no builtin script found for name \"x\"\n" LIST_OUTPUT},
	{"tpcb-like@2", -1, "pgtempo-bench: error: no builtin script found for name \"tpcb-like@2\"\n" LIST_OUTPUT},
	{"tpcb-likes", -1, "pgtempo-bench: error: no builtin script found for name \"tpcb-likes\"\n" LIST_OUTPUT},
	{"TPCB", -1, "pgtempo-bench: error: no builtin script found for name \"TPCB\"\n" LIST_OUTPUT},
};

START_TEST(test_find_builtin)
{
	capture		c;
	const builtin_script *b;
	char	   *err;

	msg_set_progname("pgtempo-bench");
	capture_begin(&c);
	b = script_find_builtin(find_cases[_i].name);
	err = capture_end(&c);
	if (find_cases[_i].found < 0)
		ck_assert_ptr_null(b);
	else
		ck_assert_ptr_eq(b, &script_builtins[find_cases[_i].found]);
	ck_assert_str_eq(err, find_cases[_i].err);
	free(err);
}
END_TEST

START_TEST(test_list_builtins)
{
	capture		c;
	char	   *out;

	capture_begin(&c);
	script_list_builtins();
	out = capture_end(&c);
	ck_assert_str_eq(out, LIST_OUTPUT);
	free(out);
}
END_TEST

/* -f FILE@W and -b NAME@W: the last '@' separates; strtol rules; 0 .. INT_MAX. */
static const struct
{
	const char *option;
	const char *name;			/* NULL when refused */
	int			weight;
	const char *err;
}			weight_cases[] = {
	{"tpcb-like", "tpcb-like", 1, ""},
	{"t@2", "t", 2, ""},
	{"t@0", "t", 0, ""},
	{"t@-0", "t", 0, ""},
	{"t@+5", "t", 5, ""},
	{"t@ 5", "t", 5, ""},
	{"t@2147483647", "t", INT_MAX, ""},
	{"a@b@3", "a@b", 3, ""},
	{"@1", "", 1, ""},
	{"dir/file.sql", "dir/file.sql", 1, ""},
	{"t@", NULL, 0, "pgtempo-bench: error: invalid weight specification: @\n"},
	{"t@x", NULL, 0, "pgtempo-bench: error: invalid weight specification: @x\n"},
	{"t@1x", NULL, 0, "pgtempo-bench: error: invalid weight specification: @1x\n"},
	{"t@ ", NULL, 0, "pgtempo-bench: error: invalid weight specification: @ \n"},
	{"t@0x10", NULL, 0, "pgtempo-bench: error: invalid weight specification: @0x10\n"},
	{"t@1.5", NULL, 0, "pgtempo-bench: error: invalid weight specification: @1.5\n"},
	{"t@99999999999999999999", NULL, 0,
	"pgtempo-bench: error: invalid weight specification: @99999999999999999999\n"},
	{"t@-1", NULL, 0,
	"pgtempo-bench: error: weight specification out of range (0 .. 2147483647): -1\n"},
	{"t@2147483648", NULL, 0,
	"pgtempo-bench: error: weight specification out of range (0 .. 2147483647): 2147483648\n"},
};

START_TEST(test_weights)
{
	capture		c;
	char	   *name = (char *) "unset";
	int			weight = -7;
	bool		ok;
	char	   *err;

	msg_set_progname("pgtempo-bench");
	capture_begin(&c);
	ok = script_parse_weight(weight_cases[_i].option, &name, &weight);
	err = capture_end(&c);
	ck_assert_str_eq(err, weight_cases[_i].err);
	if (weight_cases[_i].name == NULL)
	{
		ck_assert(!ok);
		ck_assert_ptr_null(name);
	}
	else
	{
		ck_assert(ok);
		ck_assert_str_eq(name, weight_cases[_i].name);
		ck_assert_int_eq(weight, weight_cases[_i].weight);
	}
	free(name);
	free(err);
}
END_TEST


static Suite *
script_suite(void)
{
	Suite	   *s = suite_create("script");
	TCase	   *tc;

	tc = tcase_create("parse");
	tcase_add_loop_test(tc, test_parse, 0, sizeof(parse_cases) / sizeof(parse_cases[0]));
	tcase_add_test(tc, test_param_positions);
	tcase_add_test(tc, test_check_params);
	suite_add_tcase(s, tc);

	suite_add_tcase(s, check_script_errors_tcase());

	tc = tcase_create("builtins");
	tcase_add_loop_test(tc, test_builtin_texts, 0, sizeof(builtin_cases) / sizeof(builtin_cases[0]));
	tcase_add_test(tc, test_builtin_tpcb_commands);
	tcase_add_loop_test(tc, test_find_builtin, 0, sizeof(find_cases) / sizeof(find_cases[0]));
	tcase_add_test(tc, test_list_builtins);
	tcase_add_loop_test(tc, test_weights, 0, sizeof(weight_cases) / sizeof(weight_cases[0]));
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	return unit_run(script_suite());
}
