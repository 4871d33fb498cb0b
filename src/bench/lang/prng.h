/*
 * prng.h — pgbench-compatible random numbers.
 *
 * The generator is xoroshiro128** seeded through splitmix64, exactly as
 * PostgreSQL's pg_prng (PostgreSQL 15 and later), and the distributions,
 * hashes and permute() draw from it exactly as pgbench does, so a
 * script run with the same --random-seed sees the same numbers in
 * pgtempo-bench as in pgbench, bit for bit.
 */
#ifndef PGTEMPO_BENCH_PRNG_H
#define PGTEMPO_BENCH_PRNG_H

#include <stdbool.h>
#include <stdint.h>

/*
 * How pgbench 15 seeds its generators (the runner must do exactly this to
 * replay a --random-seed run bit for bit; checked against pgbench 15.20):
 *
 * 1. The base sequence is prng_seed(base, S).  S comes from the
 *    PGBENCH_RANDOM_SEED environment variable, else "time"; each
 *    --random-seed=X then reseeds base from scratch (the last one wins).
 *    X is "time" (the monotonic clock in microseconds), "rand" (64 strong
 *    random bits) or an unsigned 64-bit integer as sscanf("%lu") reads it,
 *    so "-1" means 2^64-1.  The :random_seed variable is S as an int64.
 * 2. For each client 0 .. nclients-1 in order: prng_derive(base, cs_func_rs).
 * 3. Unless -D default_seed=... is given: :default_seed = (int64) the next
 *    prng_u64(base).  With -D, nothing is drawn here and everything below
 *    shifts by one.
 * 4. For each thread 0 .. nthreads-1 in order (nthreads already capped at
 *    nclients; thread i gets the next (remaining clients) / (remaining
 *    threads) clients, rounded up), three derivations in this order:
 *    ts_choose_rs, ts_throttle_rs, ts_sample_rs.
 *
 * Then the draws: expression functions draw from the client's cs_func_rs,
 * which is saved at each transaction start and restored when a transaction
 * is retried after a serialization/deadlock error, so a retry replays the
 * same numbers.  A script is chosen with prng_uniform(ts_choose_rs, 0,
 * total_weight - 1) only when there is more than one script.  Each --rate
 * slot adds prng_poisson(ts_throttle_rs, 1e6 / rate * nthreads) to the
 * thread's schedule.  With --sampling-rate, a finished transaction is
 * logged unless prng_double(ts_sample_rs) > rate (one draw each).
 * permute() and the hashes draw nothing from these states.
 *
 * Limits pgbench checks before calling: for the random functions
 * min <= max and max - min + 1 must fit in int64 ("random range is too
 * large"); exponential param > 0; gaussian param >= PRNG_MIN_GAUSSIAN_PARAM;
 * zipfian s in [PRNG_MIN_ZIPFIAN_PARAM, PRNG_MAX_ZIPFIAN_PARAM]; permute
 * size > 0.
 */

typedef struct prng_state
{
	uint64_t	s0,
				s1;
} prng_state;

/* Seed a state from a 64-bit seed (splitmix64, never the all-zero state). */
void		prng_seed(prng_state *st, uint64_t seed);
/* Seed a new state from the next number of a parent (pgbench's initRandomState). */
void		prng_derive(prng_state *parent, prng_state *child);
uint64_t	prng_u64(prng_state *st);
/* Uniform in [min, max] (inclusive) by rejection, as pg_prng_uint64_range. */
uint64_t	prng_u64_range(prng_state *st, uint64_t min, uint64_t max);
/* Uniform in [0, 1) with 52 random bits. */
double		prng_double(prng_state *st);

/* pgbench's distributions; the caller has checked the parameters. */
int64_t		prng_uniform(prng_state *st, int64_t min, int64_t max);
int64_t		prng_exponential(prng_state *st, int64_t min, int64_t max, double param);
int64_t		prng_gaussian(prng_state *st, int64_t min, int64_t max, double param);
int64_t		prng_zipfian(prng_state *st, int64_t min, int64_t max, double s);
/* Poisson-distributed delay with the given mean (for -R throttling). */
int64_t		prng_poisson(prng_state *st, double center);

/* pgbench's hash functions and permute(). */
int64_t		prng_hash_fnv1a(int64_t val, int64_t seed);
int64_t		prng_hash_murmur2(int64_t val, int64_t seed);
/* A pseudorandom permutation of [0, size): the image of val (size > 0). */
int64_t		prng_permute(int64_t val, int64_t size, int64_t seed);

/* Limits pgbench puts on the distribution parameters. */
#define PRNG_MIN_GAUSSIAN_PARAM		2.0
#define PRNG_MIN_ZIPFIAN_PARAM		1.001
#define PRNG_MAX_ZIPFIAN_PARAM		1000.0

#endif
