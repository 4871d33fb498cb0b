/*
 * pgcost.h — what reading the clock costs PostgreSQL's timing features,
 * priced from a measured clock read (pg_test_timing's loop).
 *
 * PostgreSQL times an operation by reading the clock before and after
 * it: track_io_timing and track_wal_io_timing around each block read,
 * write or sync, and EXPLAIN ANALYZE (with TIMING on, its default) around
 * each call of each plan node, that is once per row a node returns.  So
 * one timed I/O, or one row leaving one node, costs two clock reads.
 * pg_test_timing prints these prices; pgtempo-waits prices the settings
 * that are off with the I/O rate its counters show.
 */
#ifndef PGTEMPO_TIMING_PGCOST_H
#define PGTEMPO_TIMING_PGCOST_H

#include <stdio.h>

#include "pgtempo/json.h"

/* clock reads per timed I/O, and per row leaving one plan node */
#define PGCOST_READS_PER_OP 2

/* the examples pg_test_timing prices: an I/O rate, and a plan */
#define PGCOST_EXAMPLE_IOPS 10000.0
#define PGCOST_EXAMPLE_ROWS 1000000.0
#define PGCOST_EXAMPLE_NODES 10

/* CPU time that timing ops_per_s operations a second costs, in µs per second. */
double		pgcost_us_per_s(double ops_per_s, double clock_ns);

/* Seconds that EXPLAIN ANALYZE's timing adds to a plan of nodes nodes returning rows rows each. */
double		pgcost_explain_s(double rows, int nodes, double clock_ns);

/* The text section of pg_test_timing for a clock read of clock_ns (> 0). */
void		pgcost_text(FILE *out, double clock_ns);

/* The same as the JSON object of key "postgresql_cost" in w. */
void		pgcost_json(json_writer *w, double clock_ns);

#endif
