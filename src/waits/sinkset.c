/*
 * sinkset.c — the table of outputs and their sinks, above them (see
 * sinkset.h).  Adding an output is its sink's file and one line here.
 */
#include "config.h"

#include "sinkset.h"

#include <getopt.h>
#include <stddef.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/xalloc.h"

#include "options.h"

#include "sink_files.h"
#include "sink_json.h"
#include "sink_live.h"
#include "sink_log.h"
#include "sink_metrics.h"
#include "sink_store.h"
#include "sink_trace.h"

/* What an output's field in waits_settings holds. */
typedef enum sinkset_kind
{
	KIND_FLAG,					/* bool */
	KIND_TEXT,					/* char *: a connection string, NULL: none */
	KIND_FILE,					/* const char *: a file name, "-" standard output; NULL: none */
	KIND_PORT,					/* int: -1 none */
	KIND_COUNT					/* int: 0 none */
} sinkset_kind;

typedef struct sinkset_entry
{
	const char *option;
	size_t		field;			/* offsetof() its value in waits_settings */
	sinkset_kind kind;
	unsigned	not_with;		/* SINKSET_NOT_* */
	void		(*add) (sink_list *l);	/* NULL: another entry's sink, or the report's */
	/* its option for main.c's table (handle NULL: another entry's) */
	int			has_arg;
	opt_handler handle;
	options_parse_fn parse;		/* handle is parsed(): the value's parser (options.h) */
} sinkset_entry;

static opt_status parsed(const opt_def *def, void *ctx, const char *arg);

#define F(f)	offsetof(waits_settings, f)
#define ALL_BUT	(SINKSET_NOT_TRACE | SINKSET_NOT_FROM_LOG)

/*
 * The order is that of opening and closing: the live view first (it gives
 * the terminal back before anything else is said), the store before the
 * log (the log ends with the store's counts), the log before the files
 * written at the end; the metrics last but the trace, so that the
 * endpoint (which binds its port before connecting) is the last thing to
 * stop.
 */
static const sinkset_entry entries[] = {
	{"--top", F(top), KIND_FLAG, ALL_BUT, sink_live_add, no_argument, opt_true},
	{"--store", F(store), KIND_TEXT, ALL_BUT, sink_store_add, required_argument, opt_strdup},
	{"--log", F(log_path), KIND_FILE, ALL_BUT, sink_log_add, required_argument, opt_strdup},
	/* the report writes the JSON; the sink checks --json=FILE's path */
	{"--json", F(json), KIND_FLAG, SINKSET_NOT_TRACE, NULL, optional_argument, sink_json_option},
	{"--json", F(json_path), KIND_FILE, SINKSET_NOT_TRACE, sink_json_add},
	{"--folded", F(folded_path), KIND_FILE, SINKSET_NOT_TRACE, sink_folded_add, required_argument, opt_strdup},
	{"--chart", F(chart_path), KIND_FILE, SINKSET_NOT_TRACE, sink_chart_add, required_argument, opt_strdup},
	{"--metrics", F(metrics_path), KIND_FILE, ALL_BUT, sink_metrics_add, required_argument, opt_strdup},
	/* served by the metrics sink, so the two show the same counters */
	{"--listen", F(listen_port), KIND_PORT, ALL_BUT, NULL, required_argument, parsed, options_parse_listen},
	/* --trace goes with none of the others */
	{"--trace", F(ntrace_pids), KIND_COUNT, SINKSET_NOT_FROM_LOG, sink_trace_add, required_argument, parsed,
	options_parse_trace_pids},
};

#undef F
#undef ALL_BUT

/* Whether the settings ask for output e. */
static bool
given(const waits_settings *s, const sinkset_entry *e)
{
	const char *p = (const char *) s + e->field;

	switch (e->kind)
	{
		case KIND_FLAG:
			return *(const bool *) p;
		case KIND_TEXT:
		case KIND_FILE:
			return *(const char *const *) p != NULL;
		case KIND_PORT:
			return *(const int *) p >= 0;
		case KIND_COUNT:
			return *(const int *) p > 0;
	}
	return false;
}

/* --listen, --trace: the entry's parser of the value. */
static opt_status
parsed(const opt_def *def, void *ctx, const char *arg)
{
	char	   *cause = NULL;

	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (strcmp(entries[i].option + 2, def->name) == 0 && entries[i].parse != NULL)
			return entries[i].parse(arg, ctx, &cause) ? OPT_OK : opt_fail(cause);
	return opt_fail(xasprintf("option --%s has no parser", def->name));
}

opt_def *
sinkset_options(const opt_def *own, size_t n, size_t *count)
{
	opt_def    *v = xcalloc(n + sizeof(entries) / sizeof(entries[0]), sizeof(opt_def));
	size_t		k = 0;

	for (size_t i = 0; i < n; i++)
		v[k++] = own[i];
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (entries[i].handle != NULL)
			v[k++] = (opt_def) {
			entries[i].option + 2, 0, entries[i].has_arg, entries[i].handle, entries[i].field
		};
	*count = k;
	return v;
}

void
sinkset_add_all(sink_list *l)
{
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (entries[i].add != NULL)
			entries[i].add(l);
}

bool
sinkset_options_ok(const waits_settings *s, unsigned mode, const char *mode_name)
{
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if ((entries[i].not_with & mode) != 0 && given(s, &entries[i]))
		{
			msg_error("%s cannot be used with %s", mode_name, entries[i].option);
			return false;
		}
	return true;
}

bool
sinkset_paths_ok(const waits_settings *s)
{
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
	{
		const char *const *path = (const char *const *) ((const char *) s + entries[i].field);

		if (entries[i].kind == KIND_FILE && *path != NULL && (*path)[0] == '\0')
		{
			msg_error("invalid value \"\" for option %s", entries[i].option);
			return false;
		}
	}
	return true;
}
