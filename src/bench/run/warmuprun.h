/*
 * warmuprun.h — --warmup applied during a run (thread 0's part).
 */
#ifndef PGTEMPO_BENCH_WARMUPRUN_H
#define PGTEMPO_BENCH_WARMUPRUN_H

#include <stdbool.h>
#include <stdint.h>

struct runner;

/*
 * Thread 0, once the transactions start at base (after the connections,
 * and --start-at's wait): a fixed warm-up's end (and -T's) are set now,
 * --warmup=auto's first sample is due a second later.
 */
void		warmup_begin(struct runner *r, uint64_t base);

/*
 * Thread 0 in its event loop: take auto's sample when due and decide;
 * when the measured part has begun, say so on stderr and set *ended.
 * Returns when to be called next (monotonic), 0 when the warm-up is over.
 */
uint64_t	warmup_step(struct runner *r, uint64_t now, bool *ended);

#endif
