/*
 * report.h — ioping's outputs: the line per request, the closing
 * statistics, the raw line (-B, -p, -P) and ioping's JSON array (-J).
 * Everything goes to one FILE; nothing here decides when to print.
 */
#ifndef PGTEMPO_IO_REPORT_H
#define PGTEMPO_IO_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "engine.h"
#include "settings.h"
#include "stats.h"
#include "target.h"

typedef struct io_report
{
	FILE	   *out;
	const io_settings *s;
	const io_target *t;
	bool		json_open;		/* -J: "[" written */
} io_report;

/* The request's line ("4 KiB <<< . (ext4 ...): request=1 time=180.2 us (warmup)"), tag NULL for none. */
void		report_request(io_report *rep, const io_request *r, const char *tag, bool ignored);
/* A burst after the first begins: ioping's empty line. */
void		report_burst(io_report *rep);
/* A window's raw line: count, time, iops, bps, min, avg, max, mdev, requests, real time (all ns). */
void		report_raw(io_report *rep, const io_window *w);
/* -J: a window's "stat" and "load" object. */
void		report_json_stat(io_report *rep, const io_window *w);
/* -J: the closing "]". */
void		report_json_end(io_report *rep);
/* The closing statistics; op says whether bytes were read, written or both. */
void		report_statistics(io_report *rep, const io_stats *st, io_op op);

#endif
