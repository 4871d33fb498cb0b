/*
 * opt.h — command lines as tables.
 *
 * A tool describes each option once (long name, short letter, argument,
 * a small handler, and for the generic handlers the field it fills and
 * the range it allows); opt_parse() runs getopt_long() over the table
 * and reports mistakes in PostgreSQL's words (parse.h).  Handlers report
 * their own errors with msg_error() and return OPT_ERROR.
 */
#ifndef PGTEMPO_OPT_H
#define PGTEMPO_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum opt_status
{
	OPT_OK,						/* go on */
	OPT_EXIT_OK,				/* done, with success: --help, --version, -b list */
	OPT_ERROR					/* a usage error, already reported */
} opt_status;

typedef struct opt_def opt_def;

/* Handle one option; ctx is the tool's context, arg the value (NULL if none). */
typedef opt_status (*opt_handler) (const opt_def *def, void *ctx, const char *arg);

struct opt_def
{
	const char *name;			/* the long name, without "--" */
	int			letter;			/* the short letter, or 0 for a long option only */
	int			has_arg;		/* getopt's no_argument, required_argument, ... */
	opt_handler handle;			/* NULL only for help ('?'): getopt returns it */
	size_t		field;			/* generic handlers: offsetof() the field in ctx */
	int64_t		min;			/* numbers: the range allowed */
	int64_t		max;
	const char *label;			/* the option in messages ("-c/--client"); opt_version: its line */
	const char *unit;			/* the tool's own handlers: a unit for messages */
	unsigned	flags;			/* the tool's own classes of options, see opt_parse */
};

typedef struct opt_parser
{
	const opt_def *defs;
	size_t		ndefs;
	void		(*usage) (void);	/* --help */
	bool		hint_on_error;	/* a handler's error too ends with "Try ... --help" */
	bool		long_only;		/* getopt_long_only(): "-count" is "--count" (ioping's) */
} opt_parser;

/* The number of elements of a table. */
#define OPT_COUNT(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * When argv[1] is --help or -?, print the usage and return true.  The
 * tools look at their first argument for help before anything else, as
 * PostgreSQL's do, since -? is also getopt's error return.  opt_parse()
 * starts with it; a tool that has work before opt_parse() calls it first.
 */
bool		opt_help_first(const opt_parser *p, int argc, char **argv);

/*
 * Run getopt_long() over argv with the table, calling each option's
 * handler in command-line order; stops at the first status that is not
 * OPT_OK.  --help or -? as the first argument is taken first
 * (opt_help_first), before any handler runs.  A bad option, a missing value or --help anywhere is handled
 * as PostgreSQL's tools do (usage() and OPT_EXIT_OK for help).  The
 * flags of every option handled are ORed into *seen (when not NULL).
 * optind is left at the first argument that is not an option.
 */
opt_status	opt_parse(const opt_parser *p, int argc, char **argv, void *ctx, unsigned *seen);

/*
 * Arguments left after the options and the positional ones taken: report
 * the first with the "Try ... --help" line and return false.
 */
bool		opt_no_more_args(int argc, char **argv);

/*
 * The exit status when the command line ends the run: 0 after --help or
 * --version (1 if standard output could not be written: a full disk), 1
 * after a usage error; -1 for OPT_OK, when the run goes on.
 */
int			opt_exit_status(opt_status st);

/* Report cause (allocated; freed here) as the error and return OPT_ERROR. */
opt_status	opt_fail(char *cause);

/* Generic handlers: they work on the field at def->field in ctx. */
opt_status	opt_true(const opt_def *def, void *ctx, const char *arg);	/* bool = true */
opt_status	opt_string(const opt_def *def, void *ctx, const char *arg); /* const char * = arg */
opt_status	opt_strdup(const opt_def *def, void *ctx, const char *arg); /* char * = copy */
opt_status	opt_int(const opt_def *def, void *ctx, const char *arg);	/* int in [min, max] */
opt_status	opt_version(const opt_def *def, void *ctx, const char *arg);	/* prints label */
/* const char * = arg, which must name a file: standard output carries the report */
opt_status	opt_file(const opt_def *def, void *ctx, const char *arg);

/*
 * --json[=FILE]: no value or "-" sets *to_stdout (the document instead of
 * the report), a name sets *path (the document beside it); "" is refused.
 */
opt_status	opt_json_arg(const char *arg, bool *to_stdout, const char **path);

#endif
