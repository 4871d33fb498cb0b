/*
 * unit.h — the common runner of the Check suites.
 *
 * Each tests/unit/check_*.c defines its Suite and calls unit_run() from
 * main().  Results are written as TAP on stdout, one line per test case
 * function, for automake's tap-driver.
 */
#ifndef PGTEMPO_TESTS_UNIT_H
#define PGTEMPO_TESTS_UNIT_H

#include <check.h>

#include <stddef.h>

/* Run the suite, print TAP, return the process exit status. */
int			unit_run(Suite *s);

/*
 * Run fn in a child process with its stderr going to a pipe; return the
 * child's wait status and copy what it wrote to stderr into err.  For code
 * that exits or aborts (msg_fatal, out of memory, JSON misuse).
 */
int			unit_run_in_child(void (*fn) (void), char *err, size_t errsize);

/*
 * Send stderr to a temporary file until unit_stderr_end(), which restores
 * it and returns what was written (caller frees).  Not nested.
 */
void		unit_stderr_begin(void);
/* What was written so far, capture going on (caller frees). */
char	   *unit_stderr_peek(void);
char	   *unit_stderr_end(void);

/* The number of newlines in text. */
int			unit_count_lines(const char *text);

/* The whole file (caller frees); "" if it cannot be read. */
char	   *unit_slurp(const char *path);

/* How many entries the directory holds, . and .. aside (a failed check if unreadable). */
int			unit_count_entries(const char *dir);

#endif
