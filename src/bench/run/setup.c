/*
 * setup.c — seeding and client set-up in pgbench's order.
 */
#include "config.h"

#include "setup.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "pgtempo/clock.h"
#include "pgtempo/msg.h"

bool
setup_random_seed(const char *spec, uint64_t *seed, prng_state *base)
{
	uint64_t	s;

	if (spec == NULL || strcmp(spec, "time") == 0)
		s = clock_now_ns() / 1000;
	else if (strcmp(spec, "rand") == 0)
	{
		if (getrandom(&s, sizeof(s), 0) != (ssize_t) sizeof(s))
		{
			msg_error("could not generate random seed");
			return false;
		}
	}
	else
	{
		/*
		 * pgbench reads it with sscanf("%lu"), which takes -1 as 2^64-1 and
		 * a larger number as 2^64-1: here only digits, and in range.
		 */
		unsigned long long v;
		char	   *end;

		errno = 0;
		v = strtoull(spec, &end, 10);
		if (!isdigit((unsigned char) spec[0]) || *end != '\0')
		{
			msg_error("unrecognized random seed option \"%s\"", spec);
			msg_detail("Expecting an unsigned integer, \"time\" or \"rand\".");
			return false;
		}
		if (errno == ERANGE)
		{
			msg_error("random seed \"%s\" is out of range", spec);
			msg_detail("Expecting an unsigned integer up to %llu, \"time\" or \"rand\".",
					   (unsigned long long) UINT64_MAX);
			return false;
		}
		s = v;
	}
	if (spec != NULL)
		msg_info("setting random seed to %llu", (unsigned long long) s);
	*seed = s;
	prng_seed(base, s);
	return true;
}

/* Set an integer variable for every client unless client 0 has it (from -D). */
static bool
put_int_unless_defined(exec_client *clients, int nclients, const char *name, int64_t v)
{
	value		val = value_int(v);
	char	   *err = NULL;

	if (vars_lookup(clients[0].vars, name) != NULL)
		return true;
	for (int i = 0; i < nclients; i++)
	{
		if (!vars_set_value(clients[i].vars, "startup", name, &val, &err))
		{
			msg_error("%s", err);
			free(err);
			return false;
		}
	}
	return true;
}

bool
setup_clients(exec_client *clients, int nclients, setup_thread *threads, int nthreads,
			  const vars *defines, int64_t scale, uint64_t random_seed, prng_state *base)
{
	int			dealt = 0;

	/* pgbench's order: client states, then default_seed, then per-thread states */
	for (int i = 0; i < nclients; i++)
	{
		clients[i].id = i;
		clients[i].vars = vars_copy(defines);
		clients[i].debug_out = stderr;
		prng_derive(base, &clients[i].rs);
	}
	if (!put_int_unless_defined(clients, nclients, "scale", scale))
		return false;
	if (vars_lookup(clients[0].vars, "client_id") == NULL)
	{
		for (int i = 0; i < nclients; i++)
		{
			value		v = value_int(i);

			if (!vars_set_value(clients[i].vars, "startup", "client_id", &v, NULL))
				return false;
		}
	}
	/* drawn only when needed, as pgbench does: it shifts every later state */
	if (vars_lookup(clients[0].vars, "default_seed") == NULL &&
		!put_int_unless_defined(clients, nclients, "default_seed", (int64_t) prng_u64(base)))
		return false;
	if (!put_int_unless_defined(clients, nclients, "random_seed", (int64_t) random_seed))
		return false;

	for (int t = 0; t < nthreads; t++)
	{
		threads[t].first_client = dealt;
		threads[t].nclients = (nclients - dealt + nthreads - t - 1) / (nthreads - t);
		prng_derive(base, &threads[t].choose_rs);
		prng_derive(base, &threads[t].throttle_rs);
		prng_derive(base, &threads[t].sample_rs);
		dealt += threads[t].nclients;
	}
	return true;
}

int
setup_choose_script(prng_state *choose_rs, const int *weights, int nscripts, int64_t total_weight)
{
	int64_t		w;
	int			i = 0;

	if (nscripts == 1)
		return 0;
	w = prng_uniform(choose_rs, 0, total_weight - 1);
	do
	{
		w -= weights[i++];
	} while (w >= 0);
	return i - 1;
}
