/*
 * crosscpu.c — compare the clocks of all CPUs through shared memory.
 */
#include "config.h"

#include "crosscpu.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgtempo/xalloc.h"

/* What the threads share; the lock and the published reading sit on one line. */
typedef struct shared
{
	_Alignas(64) atomic_int lock;
	uint64_t	last;			/* last published reading, clock units */
	int			last_cpu;		/* index of the publishing thread, -1 before the first */
	_Alignas(64) atomic_int stop;
	atomic_int	ready;
	timing_clock clock;
	const clock_tsc *tsc;
} shared;

typedef struct worker
{
	shared	   *sh;
	int			index;
	int			cpu;
	crosscpu_pair *row;			/* this thread's counts, [from], merged at the end */
	bool		pinned;			/* the thread runs on its CPU only */
} worker;

static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/*
 * Read the clock after everything before it: a plain RDTSC may execute
 * ahead of the lock's load and so appear to go backwards when it did
 * not.  LFENCE orders it, as the kernel's own TSC warp check does;
 * RDTSCP waits for earlier instructions by itself; clock_gettime() orders
 * its own TSC read.
 */
static inline uint64_t
read_units(timing_clock clock)
{
#ifdef CLOCK_HAVE_TSC
	if (clock == TIMING_CLOCK_RDTSC)
	{
		_mm_lfence();
		return clock_rdtsc();
	}
	if (clock == TIMING_CLOCK_RDTSCP)
		return clock_rdtscp();
#endif
	return clock_now_ns();
}

static inline uint64_t
units_to_ns(const shared *sh, uint64_t u)
{
	if (sh->clock == TIMING_CLOCK_RDTSC || sh->clock == TIMING_CLOCK_RDTSCP)
		return clock_tsc_to_ns(sh->tsc, u);
	return u;
}

static void
row_observe(crosscpu_pair *pr, uint64_t delta_ns, bool backwards)
{
	pr->checks++;
	if (backwards)
	{
		pr->backwards++;
		if (delta_ns > pr->max_back_ns)
			pr->max_back_ns = delta_ns;
	}
	else if (delta_ns < pr->min_fwd_ns)
		pr->min_fwd_ns = delta_ns;
}

void
crosscpu_observe(crosscpu_result *r, int from, int to, uint64_t prev_ns, uint64_t now_ns,
				 bool backwards)
{
	crosscpu_pair *pr = &r->pairs[from * r->ncpus + to];
	uint64_t	delta = backwards ? prev_ns - now_ns : now_ns - prev_ns;

	row_observe(pr, delta, backwards);
	r->checks++;
	if (backwards)
	{
		r->backwards++;
		if (delta > r->max_back_ns)
			r->max_back_ns = delta;
	}
}

static void *
worker_main(void *arg)
{
	worker	   *w = arg;
	shared	   *sh = w->sh;

#ifdef HAVE_PTHREAD_SETAFFINITY_NP
	{
		cpu_set_t	set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		w->pinned = pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
	}
#endif
	atomic_fetch_add(&sh->ready, 1);
	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed))
	{
		uint64_t	prev,
					now;
		int			from;

		while (atomic_exchange_explicit(&sh->lock, 1, memory_order_acquire))
		{
			if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
				return NULL;
			cpu_relax();
		}
		prev = sh->last;
		from = sh->last_cpu;
		now = read_units(sh->clock);
		sh->last = now;
		sh->last_cpu = w->index;
		atomic_store_explicit(&sh->lock, 0, memory_order_release);

		if (from >= 0 && from != w->index)
		{
			bool		back = now < prev;

			row_observe(&w->row[from], units_to_ns(sh, back ? prev - now : now - prev), back);
		}
	}
	return NULL;
}

/* The CPUs this process may run on. */
static int
allowed_cpus(int **cpus)
{
	cpu_set_t	set;
	int			n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	*cpus = xmalloc(sizeof(int) * CPU_SETSIZE);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			(*cpus)[n++] = c;
	return n;
}

bool
crosscpu_run(crosscpu_result *r, timing_clock clock, uint64_t duration_ns, const clock_tsc *tsc)
{
	shared		sh;
	worker	   *workers;
	pthread_t  *threads;
	int			n;
	struct timespec nap;

	memset(r, 0, sizeof(*r));
	r->clock = clock;
	n = allowed_cpus(&r->cpus);
	r->ncpus = n;
	if (n < 2)
	{
		snprintf(r->why_not, sizeof(r->why_not),
				 "only %d CPU is available to this process: there is nothing to compare", n);
		return false;
	}
	r->pairs = xcalloc((size_t) n * n, sizeof(crosscpu_pair));
	for (int i = 0; i < n * n; i++)
		r->pairs[i].min_fwd_ns = UINT64_MAX;

	memset(&sh, 0, sizeof(sh));
	sh.last_cpu = -1;
	sh.clock = clock;
	sh.tsc = tsc;
	workers = xcalloc((size_t) n, sizeof(worker));
	threads = xcalloc((size_t) n, sizeof(pthread_t));
	for (int i = 0; i < n; i++)
	{
		workers[i].sh = &sh;
		workers[i].index = i;
		workers[i].cpu = r->cpus[i];
		workers[i].row = xcalloc((size_t) n, sizeof(crosscpu_pair));
		for (int j = 0; j < n; j++)
			workers[i].row[j].min_fwd_ns = UINT64_MAX;
		if ((errno = pthread_create(&threads[i], NULL, worker_main, &workers[i])) != 0)
		{
			snprintf(r->why_not, sizeof(r->why_not), "could not start a thread: %s",
					 strerror(errno));
			atomic_store(&sh.stop, 1);
			for (int j = 0; j < i; j++)
				pthread_join(threads[j], NULL);
			n = i;
			goto done;
		}
	}

	/* Sleep in slices so a signal can end the check early. */
	for (uint64_t slept = 0; slept < duration_ns && !timing_stop_requested();)
	{
		uint64_t	slice = duration_ns - slept < 50 * NS_PER_MS ? duration_ns - slept : 50 * NS_PER_MS;

		nap.tv_sec = (time_t) (slice / NS_PER_S);
		nap.tv_nsec = (long) (slice % NS_PER_S);
		nanosleep(&nap, NULL);
		slept += slice;
	}
	atomic_store(&sh.stop, 1);
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);

done:
	for (int to = 0; to < n; to++)
	{
		if (!workers[to].pinned)
			r->unpinned++;
		for (int from = 0; from < r->ncpus; from++)
		{
			crosscpu_pair *src = &workers[to].row[from];
			crosscpu_pair *dst = &r->pairs[from * r->ncpus + to];

			dst->checks = src->checks;
			dst->backwards = src->backwards;
			dst->max_back_ns = src->max_back_ns;
			dst->min_fwd_ns = src->min_fwd_ns;
			r->checks += src->checks;
			r->backwards += src->backwards;
			if (src->max_back_ns > r->max_back_ns)
				r->max_back_ns = src->max_back_ns;
		}
		free(workers[to].row);
	}
	for (int i = n; i < r->ncpus; i++)
		free(workers[i].row);
	free(workers);
	free(threads);
	return r->why_not[0] == '\0';
}

void
crosscpu_free(crosscpu_result *r)
{
	free(r->cpus);
	free(r->pairs);
	r->cpus = NULL;
	r->pairs = NULL;
}
