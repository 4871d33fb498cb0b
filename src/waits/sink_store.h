/*
 * sink_store.h — the --store sink.  Added to a run's sinks by sinkset.c
 * when the settings ask for it (each add function checks).
 */
#ifndef PGTEMPO_WAITS_SINK_STORE_H
#define PGTEMPO_WAITS_SINK_STORE_H

#include "sink.h"

/* --store: raw rows or interval profiles, written into tables by the store's thread. */
void		sink_store_add(sink_list *l);

#endif
