/*
 * exitcode.h — what the exit status of every tool means, defined once.
 *
 * Scripts and cron jobs test these: a value never changes meaning, and a
 * tool ends with one of them, whatever ended the run.
 */
#ifndef PGTEMPO_EXITCODE_H
#define PGTEMPO_EXITCODE_H

/* All went well. */
#define EXITCODE_OK			0

/*
 * The run could not start or did not do what it had to: a usage error, no
 * connection at the start, an output that could not be written, time that
 * went backwards (pg_test_timing); msg_fatal() ends with it.
 */
#define EXITCODE_ERROR		1

/*
 * The run started, and the server cut it short: clients aborted
 * (pgtempo-bench, as pgbench), the connection lost and not regained
 * (pgtempo-waits).  What was measured is still reported.
 */
#define EXITCODE_RUN_FAILED	2

/*
 * pgtempo-bench --compare --fail-if: the interval of a change lies wholly
 * beyond one of the limits (a regression gate tripped).
 */
#define EXITCODE_LIMIT		3

/* A stop signal ended the run (after its report): 128 + the signal, as a shell reports it. */
#define EXITCODE_SIGNAL(signo) (128 + (signo))

#endif
