/*
 * check_sampler_api.c — the sampler as the tools see it: sampler.h alone
 * brings in none of the library's internal headers, and a failed open
 * hands its error back through the cause, prints nothing and leaves
 * nothing to free.
 */
#include "config.h"

#include "sampler.h"

/* Checked before anything else is included: what sampler.h itself pulled in. */
#if defined(PGTEMPO_SAMPLER_SAMPLER_INT_H) || defined(PGTEMPO_SAMPLER_NAMES_H) || \
	defined(PGTEMPO_SAMPLER_QUERY_H) || defined(PGTEMPO_SAMPLER_ROWREAD_H) || \
	defined(PGTEMPO_SAMPLER_SOURCE_H) || defined(PGTEMPO_SAMPLER_STMT_H) || \
	defined(PGTEMPO_SAMPLER_STRPOOL_H) || defined(PGTEMPO_SAMPLER_PQBIN_H)
#error "sampler.h includes an internal header of the sampler"
#endif

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strpool.h"
#include "unit.h"

static int	warnings;

/* sampler_warn_fn that counts: nothing is to be warned about here. */
static void
count_warning(void *arg, const char *warning, const char *detail, const char *hint)
{
	(*(int *) arg)++;
}

/* Where the server is not: each fails at once, before any statement. */
static const struct
{
	const char *host;
	const char *port;
	const char *want;			/* in the cause */
}			unreachable[] = {
	{"/nonexistent-pgtempo-socket-dir", "5432", "/nonexistent-pgtempo-socket-dir"},
	{"/nonexistent-pgtempo-socket-dir", "65000", ".s.PGSQL.65000"},
};

START_TEST(test_open_fails)
{
	conn_opts	co = {.host = unreachable[_i].host, .port = unreachable[_i].port,
	.dbname = "postgres", .prompt = CONN_PROMPT_NEVER};
	sampler_config cfg = {.conn = &co, .interval_ns = 10000000, .interval_given = true,
	.source = SAMPLER_SOURCE_AUTO, .warn = count_warning, .warn_arg = &warnings};
	volatile sig_atomic_t stop = 0;
	strpool		pool;
	sampler    *sm;
	char	   *cause = NULL;
	char	   *err;

	warnings = 0;
	strpool_init(&pool);
	unit_stderr_begin();
	sm = sampler_open(&cfg, &pool, &stop, UINT64_MAX, &cause);
	err = unit_stderr_end();
	ck_assert_ptr_null(sm);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, unreachable[_i].want) != NULL, "cause: %s", cause);
	/* the library prints nothing: the tool says what it hands back */
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(warnings, 0);
	free(err);
	free(cause);
	sampler_close(sm);			/* NULL: nothing to do */
	strpool_free(&pool);
}
END_TEST

/* The backend types a filter takes: PostgreSQL's own, the catch-all not among them. */
START_TEST(test_backend_types)
{
	int			n = 0;

	for (; sampler_backend_types[n] != NULL; n++)
		ck_assert_str_ne(sampler_backend_types[n], SAMPLER_OTHER_BACKEND_TYPE);
	ck_assert_int_ge(n, 10);
	ck_assert_str_eq(sampler_backend_types[0], "client backend");
}
END_TEST

static Suite *
sampler_api_suite(void)
{
	Suite	   *s = suite_create("sampler_api");
	TCase	   *tc = tcase_create("api");

	tcase_add_loop_test(tc, test_open_fails, 0, sizeof(unreachable) / sizeof(unreachable[0]));
	tcase_add_test(tc, test_backend_types);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(sampler_api_suite());
}
