/*
 * pgcost.c — the price of PostgreSQL's timing features (pgcost.h).
 */
#include "config.h"

#include "pgcost.h"

/* two reads per operation, ops_per_s operations a second */
double
pgcost_us_per_s(double ops_per_s, double clock_ns)
{
	return ops_per_s * PGCOST_READS_PER_OP * clock_ns / 1e3;
}

/* two reads per row per node */
double
pgcost_explain_s(double rows, int nodes, double clock_ns)
{
	return rows * nodes * PGCOST_READS_PER_OP * clock_ns / 1e9;
}

/* the prices, and the examples that make them concrete */
void
pgcost_text(FILE *out, double clock_ns)
{
	double		op_us = PGCOST_READS_PER_OP * clock_ns / 1e3;

	fprintf(out, "\nWhat timing costs PostgreSQL here (a clock read takes at most %.2f ns):\n",
			clock_ns);
	fprintf(out, "  track_io_timing:   %.3f us per block read, write or sync (%d clock reads);\n",
			op_us, PGCOST_READS_PER_OP);
	fprintf(out, "                     at %.0f a second, %.2f %% of one CPU\n",
			PGCOST_EXAMPLE_IOPS, pgcost_us_per_s(PGCOST_EXAMPLE_IOPS, clock_ns) / 1e4);
	fprintf(out, "  EXPLAIN ANALYZE:   %.3f us per row per plan node (%d clock reads);\n",
			op_us, PGCOST_READS_PER_OP);
	fprintf(out, "                     %.0f rows through %d nodes add %.2f s (TIMING OFF leaves it out)\n",
			PGCOST_EXAMPLE_ROWS, PGCOST_EXAMPLE_NODES,
			pgcost_explain_s(PGCOST_EXAMPLE_ROWS, PGCOST_EXAMPLE_NODES, clock_ns));
}

/* the text's figures, with the examples named */
void
pgcost_json(json_writer *w, double clock_ns)
{
	json_key(w, "postgresql_cost");
	json_object_begin(w);
	json_kv_double(w, "clock_read_ns", clock_ns);
	json_kv_int(w, "clock_reads_per_op", PGCOST_READS_PER_OP);
	json_key(w, "track_io_timing");
	json_object_begin(w);
	json_kv_double(w, "us_per_io", PGCOST_READS_PER_OP * clock_ns / 1e3);
	json_kv_double(w, "example_ios_per_s", PGCOST_EXAMPLE_IOPS);
	json_kv_double(w, "example_cpu_pct", pgcost_us_per_s(PGCOST_EXAMPLE_IOPS, clock_ns) / 1e4);
	json_object_end(w);
	json_key(w, "explain_analyze");
	json_object_begin(w);
	json_kv_double(w, "us_per_row_per_node", PGCOST_READS_PER_OP * clock_ns / 1e3);
	json_kv_double(w, "example_rows", PGCOST_EXAMPLE_ROWS);
	json_kv_int(w, "example_nodes", PGCOST_EXAMPLE_NODES);
	json_kv_double(w, "example_added_s",
			 pgcost_explain_s(PGCOST_EXAMPLE_ROWS, PGCOST_EXAMPLE_NODES, clock_ns));
	json_object_end(w);
	json_object_end(w);
}
