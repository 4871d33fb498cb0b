/*
 * sinkset.h — the one place that knows every concrete sink: it adds to a
 * run's list the ones the settings ask for.  The sinks use only sink.h's
 * shared helpers, and sink.c names none of them.
 */
#ifndef PGTEMPO_WAITS_SINKSET_H
#define PGTEMPO_WAITS_SINKSET_H

#include "sink.h"

/* Add every sink the settings ask for, in the order they are opened and closed. */
void		sinkset_add_all(sink_list *l);

#endif
