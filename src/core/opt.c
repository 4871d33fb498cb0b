/*
 * opt.c — command lines as tables, on top of getopt_long().
 *
 * The getopt_long() tables are built from the tool's table each time:
 * long options in the table's order (getopt picks the first match of an
 * abbreviation), a long option without a letter gets 256 + its index.
 */
#include "config.h"

#include "pgtempo/opt.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/exitcode.h"
#include "pgtempo/msg.h"
#include "pgtempo/parse.h"
#include "pgtempo/xalloc.h"

#define OPT_LONG_ONLY	256

/* The field a generic handler works on. */
static void *
field(const opt_def *def, void *ctx)
{
	return (char *) ctx + def->field;
}

bool
opt_help_first(const opt_parser *p, int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "-?") != 0))
		return false;
	p->usage();
	return true;
}

/* getopt_long()'s tables for p: *longs (ended by zeros) and the short string. */
static void
build_getopt_tables(const opt_parser *p, struct option **longs, char **shorts)
{
	struct option *lo = xcalloc(p->ndefs + 1, sizeof(*lo));
	char	   *so = xmalloc(3 * p->ndefs + 2);
	char	   *s = so;

	*s++ = ':';					/* ':' for a missing value, '?' for the rest */
	for (size_t i = 0; i < p->ndefs; i++)
	{
		const opt_def *d = &p->defs[i];

		lo[i].name = d->name;
		lo[i].has_arg = d->has_arg;
		lo[i].val = d->letter != 0 ? d->letter : OPT_LONG_ONLY + (int) i;
		if (d->letter == 0 || d->letter == '?')
			continue;
		*s++ = (char) d->letter;
		if (d->has_arg != no_argument)
			*s++ = ':';
		if (d->has_arg == optional_argument)
			*s++ = ':';
	}
	*s = '\0';
	*longs = lo;
	*shorts = so;
}

/* The table entry getopt_long() returned c for. */
static const opt_def *
find_def(const opt_parser *p, int c)
{
	if (c >= OPT_LONG_ONLY && (size_t) (c - OPT_LONG_ONLY) < p->ndefs)
		return &p->defs[c - OPT_LONG_ONLY];
	for (size_t i = 0; i < p->ndefs; i++)
		if (p->defs[i].letter == c)
			return &p->defs[i];
	return NULL;
}

opt_status
opt_parse(const opt_parser *p, int argc, char **argv, void *ctx, unsigned *seen)
{
	struct option *longs;
	char	   *shorts;
	opt_status	st = OPT_OK;
	int			c;

	if (opt_help_first(p, argc, argv))
		return OPT_EXIT_OK;
	build_getopt_tables(p, &longs, &shorts);
	opterr = 0;
	while (st == OPT_OK &&
		   (c = p->long_only ? getopt_long_only(argc, argv, shorts, longs, NULL)
			: getopt_long(argc, argv, shorts, longs, NULL)) != -1)
	{
		const opt_def *d = c == '?' || c == ':' ? NULL : find_def(p, c);

		if (d == NULL || d->handle == NULL)
		{
			if (parse_getopt_error(c, argv))
			{
				p->usage();
				st = OPT_EXIT_OK;
			}
			else
			{
				msg_try_help();
				st = OPT_ERROR;
			}
			break;
		}
		st = d->handle(d, ctx, optarg);
		if (st == OPT_ERROR && p->hint_on_error)
			msg_try_help();
		if (st == OPT_OK && seen != NULL)
			*seen |= d->flags;
	}
	free(longs);
	free(shorts);
	return st;
}

bool
opt_no_more_args(int argc, char **argv)
{
	if (optind >= argc)
		return true;
	msg_error("too many command-line arguments (first is \"%s\")", argv[optind]);
	msg_try_help();
	return false;
}

int
opt_exit_status(opt_status st)
{
	switch (st)
	{
		case OPT_EXIT_OK:
			return msg_flush_stdout() ? EXITCODE_OK : EXITCODE_ERROR;
		case OPT_ERROR:
			return EXITCODE_ERROR;
		case OPT_OK:
			break;
	}
	return -1;
}

opt_status
opt_fail(char *cause)
{
	msg_error("%s", cause);
	free(cause);
	return OPT_ERROR;
}

opt_status
opt_true(const opt_def *def, void *ctx, const char *arg)
{
	(void) arg;
	*(bool *) field(def, ctx) = true;
	return OPT_OK;
}

opt_status
opt_string(const opt_def *def, void *ctx, const char *arg)
{
	*(const char **) field(def, ctx) = arg;
	return OPT_OK;
}

opt_status
opt_strdup(const opt_def *def, void *ctx, const char *arg)
{
	char	  **p = field(def, ctx);

	free(*p);
	*p = xstrdup(arg);
	return OPT_OK;
}

opt_status
opt_int(const opt_def *def, void *ctx, const char *arg)
{
	int64_t		v;
	char	   *cause = NULL;

	if (!parse_int64(arg, def->label, def->min, def->max, &v, &cause))
		return opt_fail(cause);
	*(int *) field(def, ctx) = (int) v;
	return OPT_OK;
}

opt_status
opt_version(const opt_def *def, void *ctx, const char *arg)
{
	(void) ctx;
	(void) arg;
	printf("%s\n", def->label);
	return OPT_EXIT_OK;
}

opt_status
opt_file(const opt_def *def, void *ctx, const char *arg)
{
	if (strcmp(arg, "-") == 0 || arg[0] == '\0')
	{
		msg_error("invalid value \"%s\" for option --%s: must be a file name "
				  "(standard output carries the report)", arg, def->name);
		return OPT_ERROR;
	}
	*(const char **) field(def, ctx) = arg;
	return OPT_OK;
}

opt_status
opt_json_arg(const char *arg, bool *to_stdout, const char **path)
{
	if (arg == NULL || strcmp(arg, "-") == 0)
		*to_stdout = true;
	else if (arg[0] == '\0')
	{
		msg_error("invalid value \"\" for option --json: must be a file name");
		return OPT_ERROR;
	}
	else
		*path = arg;
	return OPT_OK;
}
