/*
 * script.h — pgbench scripts: parsed once, run by every client.
 *
 * A script is a list of commands: SQL commands (one query, or several
 * joined with \; into a compound one) and meta-commands (backslash
 * commands).  Everything a run needs is resolved at load time: the \if
 * chains know where to jump, \gset/\aset are attached to the query
 * before them, :variables are located in the SQL text (for simple-mode
 * substitution) and numbered as $n parameters (for extended and prepared
 * mode), and pgbench's load-time errors are reported in its format:
 *
 *   pgbench: error: FILE:LINE: MESSAGE (DETAIL) in command "set"
 *   <the line>
 *       ^ error found here
 */
#ifndef PGTEMPO_BENCH_SCRIPT_H
#define PGTEMPO_BENCH_SCRIPT_H

#include <stdbool.h>

#include "expr.h"

#define SCRIPT_MAX_SCRIPTS	128
#define SCRIPT_MAX_ARGS		256		/* meta-command words, as pgbench */
#define SCRIPT_MAX_PARAMS	255		/* :variables in one SQL command */

/*
 * The largest script file -f reads: far beyond any real script (a
 * 40,000-term expression is 160 kB), small enough that a wrong file
 * (a disk image, a log) fails at once instead of filling memory.
 */
#define SCRIPT_MAX_FILE_SIZE	(16 * 1024 * 1024)
#define SCRIPT_MAX_FILE_SIZE_TEXT	"16 MB"

/*
 * The largest \sleep time in its unit: pgbench's C int, without its wrap;
 * in seconds it still fits in microseconds.
 */
#define SCRIPT_MAX_SLEEP	2147483647

typedef enum command_type
{
	CMD_SQL,
	CMD_META
} command_type;

typedef enum meta_kind
{
	META_NONE,					/* CMD_SQL */
	META_SET,
	META_SETSHELL,
	META_SHELL,
	META_SLEEP,
	META_GSET,					/* only as ->meta of a CMD_SQL: the query's results set variables */
	META_ASET,
	META_IF,
	META_ELIF,
	META_ELSE,
	META_ENDIF,
	META_STARTPIPELINE,
	META_SYNCPIPELINE,
	META_ENDPIPELINE
} meta_kind;

/* A :variable in a SQL command. */
typedef struct sql_param
{
	char	   *name;
	int			start;			/* offset of ':' in ->sql */
	int			len;			/* length of ":name" */
	int			number;			/* $n in ->sql_numbered (1-based) */
} sql_param;

typedef struct command
{
	command_type type;
	meta_kind	meta;
	int			line_no;		/* first line of the command in its script */
	char	   *first_line;		/* its first line, for -r and messages */

	/* CMD_SQL */
	char	   *sql;			/* the text as written (with :variables) */
	char	   *sql_numbered;	/* :variables replaced by $1, $2, ... */
	sql_param  *params;
	int			nparams;		/* entries in params[]: one per occurrence, as in pgbench */
	char	   *varprefix;		/* META_GSET / META_ASET: prefix, "" for none */
	int			nqueries;		/* queries in a compound (\;) command */

	/* CMD_META */
	int			argc;			/* words, including the command name */
	char	  **argv;
	expr	   *expr;			/* \set, \if, \elif */
	int			jump;			/* \if/\elif: the next \elif/\else/\endif of the chain;
								 * \else: its \endif; \elif/\else taken after a true branch:
								 * the chain's \endif (see script.c) */
	int			chain_end;		/* \if/\elif/\else: the chain's \endif */
} command;

typedef struct script
{
	char	   *desc;			/* file name or builtin name */
	int			weight;
	command   **commands;
	int			ncommands;
} script;

/*
 * Parse a script's text.  source names it in messages (file name, or
 * "<builtin: tpcb-like>").  On error, prints pgbench's message (through
 * msg_error and the line/caret to stderr) and returns NULL.
 */
script	   *script_parse(const char *source, const char *text);
void		script_free(script *s);

/*
 * The check pgbench makes after loading all scripts when -M is extended
 * or prepared: at most SCRIPT_MAX_PARAMS parameters in a SQL command
 * (every occurrence of a variable is one).
 * Prints "statement has too many arguments (maximum is 255): SQL" and
 * returns false otherwise.
 */
bool		script_check_params(const script *s);

/*
 * Read a script file ("-" for standard input) into an allocated string.
 * Only a regular file, a pipe or FIFO, or standard input of at most
 * SCRIPT_MAX_FILE_SIZE bytes without NUL bytes is read: a directory, a
 * device (/dev/zero) or a larger file is refused before reading, and a
 * FIFO without a writer reads as empty instead of blocking.
 * NULL with the message in *cause (allocated), which names the file, and
 * for a NUL byte its line ("FILE:LINE: ...").
 */
char	   *script_read_file(const char *path, char **cause);

/* The built-in scripts. */
typedef struct builtin_script
{
	const char *name;			/* "tpcb-like" */
	const char *desc;			/* "<builtin: TPC-B (sort of)>" */
	const char *text;
} builtin_script;

extern const builtin_script script_builtins[];
extern const int script_nbuiltins;

/*
 * Find a builtin by name or unambiguous prefix.  Prints pgbench's
 * messages ("no builtin script found for name", "ambiguous builtin
 * name") and returns NULL when there is no single match.
 */
const builtin_script *script_find_builtin(const char *name);
/* "-b list": the available builtins, to stderr as pgbench does. */
void		script_list_builtins(void);

/*
 * Split "NAME@WEIGHT" (for -f and -b) into an allocated name and the
 * weight (1 when absent); false with pgbench's message on a bad weight.
 */
bool		script_parse_weight(const char *option, char **name, int *weight);

#endif
