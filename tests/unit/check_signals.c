/*
 * check_signals.c — unit tests of the one way the tools install signal
 * handlers and block the stop signals.
 */
#include "config.h"

#include "pgtempo/signals.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

#include "unit.h"

static volatile sig_atomic_t caught;

static void
on_signal(int signo)
{
	caught = signo;
}

/* The handler now installed for signo. */
static signals_handler
current(int signo)
{
	struct sigaction sa;

	ck_assert_int_eq(sigaction(signo, NULL, &sa), 0);
	return sa.sa_handler;
}

/* Both stop signals reach the handler; with SA_RESETHAND each only once. */
START_TEST(test_catch_stop)
{
	static const struct
	{
		int			flags;
		bool		reset;
	}			cases[] = {{0, false}, {SA_RESETHAND, true}};
	static const int stops[] = {SIGINT, SIGTERM};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (size_t j = 0; j < 2; j++)
		{
			signals_catch_stop(on_signal, cases[i].flags);
			caught = 0;
			raise(stops[j]);
			ck_assert_int_eq(caught, stops[j]);
			ck_assert_ptr_eq((void *) current(stops[j]),
							 cases[i].reset ? (void *) SIG_DFL : (void *) on_signal);
		}
	signals_catch_stop(SIG_DFL, 0);
	ck_assert_ptr_eq((void *) current(SIGINT), (void *) SIG_DFL);
	ck_assert_ptr_eq((void *) current(SIGTERM), (void *) SIG_DFL);
}
END_TEST

/* What signals_catch replaced, signals_restore puts back. */
START_TEST(test_catch_restore)
{
	struct sigaction old;

	signals_catch(SIGUSR1, SIG_IGN, 0, NULL);
	signals_catch(SIGUSR1, on_signal, SA_RESTART, &old);
	ck_assert_ptr_eq((void *) current(SIGUSR1), (void *) on_signal);
	caught = 0;
	raise(SIGUSR1);
	ck_assert_int_eq(caught, SIGUSR1);
	signals_restore(SIGUSR1, &old);
	ck_assert_ptr_eq((void *) current(SIGUSR1), (void *) SIG_IGN);
	signals_catch(SIGUSR1, SIG_DFL, 0, NULL);
}
END_TEST

/* A thread started with the stop signals blocked has them blocked; the starter gets its mask back. */
static void *
mask_main(void *arg)
{
	sigset_t   *mask = arg;

	pthread_sigmask(SIG_BLOCK, NULL, mask);
	return NULL;
}

START_TEST(test_block_stop)
{
	sigset_t	old,
				now,
				inherited;
	pthread_t	t;

	signals_block_stop(&old);
	ck_assert_int_eq(sigismember(&old, SIGINT), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, mask_main, &inherited), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(sigismember(&inherited, SIGINT), 1);
	ck_assert_int_eq(sigismember(&inherited, SIGTERM), 1);
	ck_assert_int_eq(sigismember(&inherited, SIGHUP), 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	ck_assert_int_eq(sigismember(&now, SIGINT), 0);
	ck_assert_int_eq(sigismember(&now, SIGTERM), 0);
}
END_TEST

static Suite *
signals_suite(void)
{
	Suite	   *s = suite_create("signals");
	TCase	   *tc = tcase_create("signals");

	tcase_add_test(tc, test_catch_stop);
	tcase_add_test(tc, test_catch_restore);
	tcase_add_test(tc, test_block_stop);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(signals_suite());
}
