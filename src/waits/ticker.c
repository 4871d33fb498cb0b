/*
 * ticker.c — a fixed-rate schedule at absolute deadlines.
 */
#include "config.h"

#include "ticker.h"

/* Tick 0 is due at start_ns. */
void
ticker_init(ticker *s, uint64_t start_ns, uint64_t interval_ns)
{
	s->start_ns = start_ns;
	s->interval_ns = interval_ns > 0 ? interval_ns : 1;
	s->tick = 0;
	s->missed = 0;
	s->gap_ticks = 0;
}

/* The latest tick due at or before now (0 before the start). */
static uint64_t
latest_due(const ticker *s, uint64_t now_ns)
{
	if (now_ns < s->start_ns)
		return 0;
	return (now_ns - s->start_ns) / s->interval_ns;
}

/* The current tick is done at now_ns: on to the next one due, counting misses. */
void
ticker_done(ticker *s, uint64_t now_ns)
{
	uint64_t	next = s->tick + 1;
	uint64_t	due = latest_due(s, now_ns);

	/*
	 * Ticks next .. due-1 had their whole slot pass while the sample ran:
	 * they are missed.  Tick "due" itself is late but still in its slot,
	 * so it runs at once.
	 */
	if (due > next)
	{
		s->missed += due - next;
		next = due;
	}
	s->tick = next;
}

/* The ticks before the one due at now_ns that have not run. */
uint64_t
ticker_overdue(const ticker *s, uint64_t now_ns)
{
	uint64_t	due = latest_due(s, now_ns);

	return due > s->tick ? due - s->tick : 0;
}

/* The end at stop_ns: the ticks before it are all accounted for, those after it not. */
void
ticker_end(ticker *s, uint64_t stop_ns)
{
	uint64_t	due = latest_due(s, stop_ns);

	if (s->tick > due)
	{
		uint64_t	over = s->tick - due;

		s->missed -= over < s->missed ? over : s->missed;
		s->tick = due;
	}
	else
	{
		s->missed += due - s->tick;
		s->tick = due;
	}
}

/* After a gap: skip to the tick due now, counting the skipped ones as gap ticks. */
void
ticker_resume(ticker *s, uint64_t now_ns)
{
	uint64_t	n = ticker_overdue(s, now_ns);

	s->gap_ticks += n;
	s->tick += n;
}

/* A new interval from the next tick on: it becomes tick 0 of the new schedule. */
void
ticker_retime(ticker *s, uint64_t interval_ns)
{
	s->start_ns = ticker_deadline(s);
	s->tick = 0;
	s->interval_ns = interval_ns > 0 ? interval_ns : 1;
}
