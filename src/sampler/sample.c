/*
 * sample.c — the rows of one sample and their classification.
 */
#include "config.h"

#include "sample.h"

#include <stdlib.h>
#include <string.h>

#include "pgtempo/xalloc.h"

#include "strpool.h"

/* An empty batch. */
void
sample_batch_init(sample_batch *b)
{
	memset(b, 0, sizeof(*b));
}

/* Free a batch's arrays. */
void
sample_batch_free(sample_batch *b)
{
	free(b->rows);
	free(b->blockers);
	free(b->idents);
	memset(b, 0, sizeof(*b));
}

/* Empty a batch for the next sample, keeping its memory. */
void
sample_batch_reset(sample_batch *b, uint64_t ts_us)
{
	b->ts_us = ts_us;
	b->nrows = 0;
	b->nblockers = 0;
	b->hidden = 0;
	b->nidents = 0;
}

/* A new row with the defaults meaning "unknown". */
sample_row *
sample_batch_add(sample_batch *b)
{
	sample_row *r;

	if (b->nrows == b->cap)
	{
		b->cap = b->cap ? b->cap * 2 : 64;
		b->rows = xrealloc(b->rows, (size_t) b->cap * sizeof(sample_row));
	}
	r = &b->rows[b->nrows++];
	memset(r, 0, sizeof(*r));
	r->backend_start_us = INT64_MIN;
	r->xact_start_us = INT64_MIN;
	r->wait_time_us = -1;
	r->samples = 1;
	r->blockers_off = b->nblockers;
	return r;
}

/* Record a blocking pid of the last row. */
void
sample_batch_add_blocker(sample_batch *b, int32_t pid)
{
	if (b->nblockers == b->blockers_cap)
	{
		b->blockers_cap = b->blockers_cap ? b->blockers_cap * 2 : 16;
		b->blockers = xrealloc(b->blockers, (size_t) b->blockers_cap * sizeof(int32_t));
	}
	b->blockers[b->nblockers++] = pid;
	b->rows[b->nrows - 1].nblockers++;
}

void
sample_batch_add_ident(sample_batch *b, const sample_ident *id)
{
	if (b->nidents == b->idents_cap)
	{
		b->idents_cap = b->idents_cap ? b->idents_cap * 2 : 16;
		b->idents = xrealloc(b->idents, (size_t) b->idents_cap * sizeof(sample_ident));
	}
	b->idents[b->nidents++] = *id;
}

const sample_ident *
sample_batch_ident(const sample_batch *b, int32_t pid, int64_t backend_start_us)
{
	int			lo = 0,
				hi = b->nidents;

	/* binary search: a pile-up of lock waits asks once per chain frame */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (b->idents[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == b->nidents || b->idents[lo].pid != pid)
		return NULL;
	if (backend_start_us != INT64_MIN && b->idents[lo].backend_start_us != INT64_MIN &&
		backend_start_us != b->idents[lo].backend_start_us)
		return NULL;			/* another session that had the pid */
	return &b->idents[lo];
}

/* "idle in transaction" or "idle in transaction (aborted)". */
bool
sample_idle_in_transaction(const char *state)
{
	return state != NULL && strncmp(state, "idle in transaction", 19) == 0;
}

/* CPU, wait, idle or hidden, from state and wait event type. */
sample_class
sample_classify(const char *state, const char *wait_event_type, bool hidden)
{
	if (hidden)
		return SAMPLE_HIDDEN;
	/* "idle", "idle in transaction", "idle in transaction (aborted)" */
	if (state != NULL && state[0] == 'i')
	{
		if (strcmp(state, "idle") == 0)
			return SAMPLE_IDLE;
		if (sample_idle_in_transaction(state))
			return SAMPLE_WAIT;
	}
	if (wait_event_type == NULL || wait_event_type[0] == '\0')
		return SAMPLE_CPU;
	/* the types that are no wait, by their first letter (the common waits pass on one test) */
	switch (wait_event_type[0])
	{
		case 'A':
			/* "The server process is idle", waiting in its main loop */
			if (strcmp(wait_event_type, "Activity") == 0)
				return SAMPLE_IDLE;
			break;
		case 'C':
			/* our own labels (sample_label's, in a log read back): no type of PostgreSQL's */
			if (strcmp(wait_event_type, SAMPLE_CPU_TYPE) == 0)
				return SAMPLE_CPU;
			break;
		case 'I':
			if (strcmp(wait_event_type, SAMPLE_IDLE_TYPE) == 0)
				return SAMPLE_IDLE;
			break;
	}
	return SAMPLE_WAIT;
}

/* Rename pre-19 BufferPin/BufferPin to 19's Buffer/BufferCleanup. */
void
sample_normalize_event(int server_version, const char **type, const char **event)
{
	if (server_version >= 190000 || *type == NULL || *event == NULL)
		return;
	if (strcmp(*type, "BufferPin") == 0 && strcmp(*event, "BufferPin") == 0)
	{
		*type = "Buffer";
		*event = "BufferCleanup";
	}
}

/* Classify a row and set its event labels (CPU/CPU when on CPU). */
void
sample_finish_row(sample_row *r, strpool *pool, int server_version,
				  const char *type, const char *event, bool hidden)
{
	r->cls = sample_classify(r->state, type, hidden);
	if (r->cls == SAMPLE_CPU)
	{
		type = SAMPLE_CPU_TYPE;
		event = SAMPLE_CPU_EVENT;
	}
	else if (r->cls == SAMPLE_HIDDEN)
		type = event = NULL;
	else if (r->cls == SAMPLE_WAIT && sample_idle_in_transaction(r->state))
	{
		/* the row may carry no wait event, if read as the session went idle */
		type = SAMPLE_CLIENT_TYPE;
		event = SAMPLE_CLIENT_EVENT;
	}
	else if (r->cls == SAMPLE_IDLE && (type == NULL || type[0] == '\0'))
	{
		type = SAMPLE_IDLE_TYPE;
		event = SAMPLE_IDLE_EVENT;
	}
	else
		sample_normalize_event(server_version, &type, &event);
	r->wait_event_type = strpool_intern(pool, type);
	/* a wait type without an event name should not happen; keep the row anyway */
	r->wait_event = strpool_intern(pool, event != NULL ? event : (type != NULL ? "" : NULL));
}
