/*
 * runner.h — running the benchmark against a server.
 *
 * runner_run() does what pgbench does after reading its options: one
 * set-up connection (the version banner, the scale and partitions of the
 * pgbench tables when a builtin script runs, the vacuum), then one event
 * loop per thread over its clients, then the results for the caller.
 *
 * Each thread opens its clients' connections in parallel
 * (PQconnectStart/PQconnectPoll) and drives them with non-blocking libpq
 * and epoll; a client is a state machine: choose a script, run its
 * commands (SQL sent asynchronously, meta-commands through exec.c), end
 * the transaction (count it, check that no transaction block is left
 * open), and start the next.  Serialization and deadlock failures are
 * rolled back and retried (--max-tries) with the random state the
 * transaction started with; other errors abort the client, or under
 * --continue-on-error are rolled back and counted.
 *
 * The first SIGINT or SIGTERM stops new transactions and sends a cancel
 * request (from a thread of its own: PQcancel has no time limit) for each
 * statement in flight; clients whose backends have not answered within
 * STOP_CANCEL_WAIT_S seconds are abandoned (their connections closed)
 * and counted.  A second signal abandons them at once.  Either way the
 * report and the logs are written and the exit status is 128 + the signal
 * number.  -T does the same STOP_DEADLINE_GRACE_S seconds after its
 * deadline to what is still in flight, so no backend can hold the run
 * past it; abandoned clients make the exit status 2.
 */
#ifndef PGTEMPO_BENCH_RUNNER_H
#define PGTEMPO_BENCH_RUNNER_H

#include <stdbool.h>

#include "results/bench.h"
#include "results/results.h"

/*
 * Run the benchmark into *res (the report and the output files are
 * results_finish()'s).  False if the run could not be set up: the cause
 * was printed, the exit status is 1 and there is nothing to write.
 * Otherwise, once the results are written, call runner_end().
 */
bool		runner_run(const bench_settings *s, bench_results *res);

/*
 * After the outputs: give the cancel requests sent at the stop their time
 * to reach the server, restore SIGINT and SIGTERM, and free res.
 */
void		runner_end(const bench_settings *s, bench_results *res);

#endif
