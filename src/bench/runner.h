/*
 * runner.h — running the benchmark against a server.
 *
 * runner_run() does what pgbench does after reading its options: one
 * set-up connection (the version banner, the scale and partitions of the
 * pgbench tables when a builtin script runs, the vacuum), then one event
 * loop per thread over its clients, then the report.
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
 * The first SIGINT or SIGTERM stops new transactions; those in flight get
 * RUNNER_STOP_GRACE_S seconds to finish; the report is printed for what
 * ran and the exit status is 128 + the signal number.  A second signal
 * ends the program at once with that status.
 */
#ifndef PGTEMPO_BENCH_RUNNER_H
#define PGTEMPO_BENCH_RUNNER_H

#include "bench.h"

#define RUNNER_STOP_GRACE_S 5

/*
 * Run the benchmark and print the report.  Returns the exit status: 0,
 * 1 (could not set up: the cause was printed), 2 (a client aborted), or
 * 128 + N (interrupted by signal N).
 */
int			runner_run(bench_settings *s);

#endif
