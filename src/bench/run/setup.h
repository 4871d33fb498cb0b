/*
 * setup.h — what pgbench does between parsing its options and running:
 * the random seed, the clients' variables and random states, and the
 * dealing of clients to threads, in pgbench's exact order so that a run
 * with the same --random-seed draws the same numbers.
 */
#ifndef PGTEMPO_BENCH_SETUP_H
#define PGTEMPO_BENCH_SETUP_H

#include <stdbool.h>
#include <stdint.h>

#include "lang/exec.h"
#include "lang/prng.h"
#include "lang/vars.h"

/*
 * Seed the base sequence from spec: NULL or "time" (the clock), "rand"
 * (the OS's random source), or an unsigned integer.  Unless spec is
 * NULL, says "setting random seed to N".  False with pgbench's messages
 * on a bad spec.
 */
bool		setup_random_seed(const char *spec, uint64_t *seed, prng_state *base);

/* One thread's share of the clients and its random states. */
typedef struct setup_thread
{
	int			first_client;
	int			nclients;
	prng_state	choose_rs;		/* picks the script of each transaction */
	prng_state	throttle_rs;	/* --rate schedule */
	prng_state	sample_rs;		/* --sampling-rate */
} setup_thread;

/*
 * Give every client its variables (copies of defines, plus scale,
 * client_id, default_seed and random_seed unless defined) and random
 * state, and deal the clients to nthreads threads; all drawn from base in
 * pgbench's order.  clients[] and threads[] are filled in.
 */
bool		setup_clients(exec_client *clients, int nclients, setup_thread *threads, int nthreads,
						  const vars *defines, int64_t scale, uint64_t random_seed,
						  prng_state *base);

/* The script for a transaction, chosen by weight (pgbench's chooseScript). */
int			setup_choose_script(prng_state *choose_rs, const int *weights, int nscripts,
								int64_t total_weight);

#endif
