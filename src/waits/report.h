/*
 * report.h — the profile printed at the end of a run: a text table, or
 * one JSON document with --json.
 *
 * Each group (by event unless --by says otherwise) shows its samples,
 * their share of all active backend samples, and the estimated backend
 * time (samples × period) with its 95 % error bound; under a group, its
 * description (PostgreSQL 17+), its top query ids and, for heavyweight
 * lock waits, the pids that blocked it.  The sampler's own health and
 * any connection gaps come first.
 */
#ifndef PGTEMPO_WAITS_REPORT_H
#define PGTEMPO_WAITS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "format.h"
#include "measured.h"
#include "report_cost.h"
#include "wprof.h"
#include "sample.h"
#include "waits.h"

/* How many groups the text report lists (JSON lists all). */
#define REPORT_MAX_GROUPS 100
/* Top query ids and blockers listed under a group. */
#define REPORT_MAX_SUB 3

/* The description of a wait event, or NULL. */
typedef const char *(*report_describe_fn) (const void *arg, const char *type, const char *event);

/* What was sampled, and how: the heading of the report and of the live view. */
typedef struct report_source
{
	const char *server;			/* host:port */
	const char *server_version;
	const char *source;			/* e.g. "pg_stat_activity" */
	double		interval_s;		/* between samples */
	double		period_s;		/* backend time one sample stands for */
	report_describe_fn describe;
	const void *describe_arg;
} report_source;

typedef struct report_info
{
	const waits_settings *s;
	report_source src;
	bool		in_server;		/* the source samples by itself; we read its profile */
	const sample_health *health;
	const sample_gap *gaps;
	int			ngaps;
	const wprof *p;
	bool		gave_up;		/* ended without a connection */
	bool		no_blockers;	/* the rows say nothing of blockers (profiles read back) */
	const format_store_counts *store;	/* --store's rows, or NULL */
	const report_cost *cost;	/* what sampling cost the server, or NULL */
	const measured_run *meas;		/* what the server measured itself, or NULL */
} report_info;

void		report_text(FILE *out, const report_info *ri);
/* Average active sessions: the backend time sampled over the time covered. */
double		report_avg_active(const report_info *ri);
void		report_json(FILE *out, const report_info *ri);
/* --json=FILE: the JSON document into the file, whole; false with the error said. */
bool		report_json_file(const report_info *ri);
/* Write sb to path whole (strbuf_write_file); false with the error said. */
bool		report_write_file(const char *path, const strbuf *sb);

/* A column of a grouped table: a dimension, or one of the two parts of "event". */
typedef struct report_col
{
	wprof_dim dim;
	int			part;			/* event: 0 the type, 1 the event */
	const char *header;
} report_col;

#define REPORT_MAX_COLS (WPROF_DIM_COUNT + 1)

/* The columns for a --by list; returns how many. */
int			report_columns(const wprof_dim *dims, int ndims, report_col *cols);
/* A group's value in a column ("" when absent); buf has at least 24 bytes. */
const char *report_col_value(const wprof_group *g, const report_col *c, char *buf, size_t len);

/* The JSON members of a group's key that the --by dimensions define. */
void		report_json_key(json_writer *w, const waits_settings *s, const wprof_group *gr);

#endif
