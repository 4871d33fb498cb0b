/*
 * sinkset.h — the one place that knows every concrete sink: the table of
 * outputs, each with its option (and its handler), whether its value is
 * a file, the modes it does not go with, and the function that adds its
 * sink to a run's list when the settings ask for it.  The sinks use only
 * sink.h's shared helpers, and sink.c names none of them; main.c takes
 * the outputs' options and checks them from this table alone.
 */
#ifndef PGTEMPO_WAITS_SINKSET_H
#define PGTEMPO_WAITS_SINKSET_H

#include <stdbool.h>

#include "pgtempo/opt.h"
#include "sink.h"

/* The modes an output may not go with (sinkset_options_ok). */
#define SINKSET_NOT_TRACE		1u	/* --trace: its lines are the only output */
#define SINKSET_NOT_FROM_LOG	2u	/* --from-log: nothing sampled, no server */

/* Add every sink the settings ask for, in the order they are opened and closed. */
void		sinkset_add_all(sink_list *l);

/*
 * False, with "MODE cannot be used with --OPTION" said, when an output
 * of the table that does not go with mode (SINKSET_NOT_*) is given.
 */
bool		sinkset_options_ok(const waits_settings *s, unsigned mode, const char *mode_name);

/*
 * A copy (to be freed) of the option table own (n entries) followed by
 * the options of the outputs (ctx: the waits_settings); *count: its length.
 */
opt_def    *sinkset_options(const opt_def *own, size_t n, size_t *count);

/* False, with the option's error said, when an output's file name is "". */
bool		sinkset_paths_ok(const waits_settings *s);

#endif
