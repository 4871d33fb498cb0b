/*
 * msg.h — diagnostics in the style of PostgreSQL's client tools.
 *
 *   prog: error: could not open file "x": No such file or directory
 *   prog: warning: ...
 *   prog: detail: ...
 *   prog: hint: ...
 *   prog: ... (informational)
 *
 * All output goes to stderr.  The program name is the basename of argv[0].
 */
#ifndef PGTEMPO_MSG_H
#define PGTEMPO_MSG_H

#include <stdbool.h>

#define MSG_PRINTF(a, b) __attribute__((format(printf, a, b)))

void		msg_set_progname(const char *argv0);
const char *msg_progname(void);

void		msg_error(const char *fmt, ...) MSG_PRINTF(1, 2);
void		msg_warning(const char *fmt, ...) MSG_PRINTF(1, 2);
void		msg_detail(const char *fmt, ...) MSG_PRINTF(1, 2);
void		msg_hint(const char *fmt, ...) MSG_PRINTF(1, 2);
/* An informational line: "prog: text" (PostgreSQL's pg_log_info). */
void		msg_info(const char *fmt, ...) MSG_PRINTF(1, 2);
/* An error that ends the program: msg_error() then exit(1). */
void		msg_fatal(const char *fmt, ...) MSG_PRINTF(1, 2) __attribute__((noreturn));
/* "prog: hint: Try "prog --help" for more information." after a usage error. */
void		msg_try_help(void);

/* Flush stdout; false, after "could not write to standard output", on a write error. */
bool		msg_flush_stdout(void);

#endif
