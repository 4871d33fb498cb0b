/*
 * txlog.h — the transaction logs of -l: one line per transaction, or
 * with --aggregate-interval one line per interval (per script with
 * --aggregate-per-script), in pgbench's formats and file names.
 *
 * Each thread owns one txlog and writes it without locks.  Lines are
 * formatted into a fixed per-thread buffer that goes to the file with
 * write(2) when it fills up and when the log is closed: no allocation
 * and no clock read per transaction (the caller passes the times it
 * measured anyway).  The buffer is written at least once a second.  A
 * write error is reported once, with the file name; the file is cut back
 * to its last whole line, the lines that could not be written from then
 * on are counted as lost (and reported with the file name at close), and
 * the run must end with a non-zero status.
 *
 * --warmup: a line of the warm-up ends with the extra field "warmup"
 * (warm is true for a transaction of the warm-up): the measured lines
 * are byte for byte those of a run without it.  With
 * --aggregate-interval, an interval that starts in the warm-up gets a
 * line of the warm-up's transactions, one that ends in the measured part
 * a line of the measured ones (the interval where it begins gets both),
 * and a later interval also gets a warm-up line for the warm-up's last
 * transactions when some ended in it.
 *
 * Aggregate lines have pgbench 15's 15 columns, then other_failures
 * with --continue-on-error (the newest pgbench's 16th column), then,
 * with --aggregate-per-script, the script number as the last column.
 */
#ifndef PGTEMPO_BENCH_TXLOG_H
#define PGTEMPO_BENCH_TXLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "stats.h"

typedef struct txlog txlog;

/*
 * Open the log file of thread thread_no (pgbench's names: PREFIX.PID for
 * the first thread, PREFIX.PID.N for the others).  start_ns is the
 * thread's start on the monotonic clock (clock_now_ns()), epoch_shift_ns
 * the wall clock minus the monotonic clock: times in the file are
 * wall-clock times.  Returns NULL after printing pgbench's error when
 * the file cannot be created.
 */
txlog	   *txlog_open(const bench_settings *s, int thread_no, uint64_t start_ns,
					   int64_t epoch_shift_ns);

/*
 * The benchmark's start (after the connections are open): the first
 * aggregate interval starts here, as in pgbench.  The runner opens the
 * logs before connecting (so a bad path fails before the run) and calls
 * this once the run starts; sample_rs, if not NULL, replaces the
 * random state that decides which transactions --sampling-rate logs
 * (the runner derives it from the base seed in pgbench's order).
 */
void		txlog_begin(txlog *l, uint64_t bench_start_ns, const prng_state *sample_rs);

/*
 * Log one ended transaction of client client_id: its number tx_no (the
 * client's transactions so far, from 0, skipped ones included; the line
 * shows tx_no + 1, as pgbench counts the transaction it logs), its
 * script, how it ended, its latency (from the scheduled start under -R),
 * its schedule lag (-R), its retries (tries - 1), and when it ended
 * (now_ns, monotonic).  Skipped transactions (STATS_SKIPPED) are logged
 * at the time they were skipped, with latency 0.  With
 * --sampling-rate, a line is written for that share of the transactions
 * only; aggregates always count every transaction.
 */
void		txlog_tx(txlog *l, int client_id, int64_t tx_no, int script_no, stats_outcome outcome,
					 uint64_t latency_ns, uint64_t lag_ns, uint32_t retries, uint64_t now_ns,
					 bool warm);

/*
 * --warmup: the measured part starts at start_ns (monotonic; 0: no
 * warm-up, the default without --warmup).  Until the log is told,
 * a run with --warmup is in its warm-up.
 */
void		txlog_measure_from(txlog *l, uint64_t start_ns);

/*
 * The event loop calls this on its own timer (every
 * txlog_tick_interval()), so lines reach the file while no transaction
 * ends: with --aggregate-interval, the intervals that ended before now_ns
 * (empty ones included); otherwise the lines still buffered, at least
 * once a second, so that a kill -9 loses at most the last second.
 */
void		txlog_tick(txlog *l, uint64_t now_ns);

/* The next time txlog_tick() has something to do (monotonic), or 0. */
uint64_t	txlog_next_tick(const txlog *l);

/* How often txlog_tick() should run after that (nanoseconds). */
uint64_t	txlog_tick_interval(const txlog *l);

/*
 * Write what is buffered (with --aggregate-interval, the last, partial
 * interval too, which pgbench drops; nothing if txlog_begin() was never
 * called), close the file and free l.  Returns the number of lines
 * lost to write errors (0 when everything reached the file).
 */
int64_t		txlog_close(txlog *l, uint64_t now_ns);

/* The file name, for messages. */
const char *txlog_path(const txlog *l);

#endif
