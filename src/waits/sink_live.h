/*
 * sink_live.h — the --top sink: the live view.  Added to a run's sinks by sinkset.c
 * when the settings ask for it (each add function checks).
 */
#ifndef PGTEMPO_WAITS_SINK_LIVE_H
#define PGTEMPO_WAITS_SINK_LIVE_H

#include "sink.h"

/* --top: the live view. */
void		sink_live_add(sink_list *l);

#endif
