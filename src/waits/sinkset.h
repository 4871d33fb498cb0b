/*
 * sinkset.h — the one place that knows every concrete sink: the table of
 * outputs, each with its option, whether its value is a file, the modes
 * it does not go with, and the function that adds its sink to a run's
 * list when the settings ask for it.  The sinks use only sink.h's shared
 * helpers, and sink.c names none of them; main.c checks the options
 * against this table alone.
 */
#ifndef PGTEMPO_WAITS_SINKSET_H
#define PGTEMPO_WAITS_SINKSET_H

#include <stdbool.h>

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

/* False, with the option's error said, when an output's file name is "". */
bool		sinkset_paths_ok(const waits_settings *s);

#endif
