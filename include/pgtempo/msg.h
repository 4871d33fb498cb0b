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
/*
 * A warning and its detail and hint (NULL: none), each on a line of its
 * own: the shape of a library's warning callback (the sampler's
 * sampler_warn_fn), arg unused, so that a tool prints the library's
 * warnings as its own.
 */
void		msg_warning_parts(void *arg, const char *warning, const char *detail,
							  const char *hint);
/* An informational line: "prog: text" (PostgreSQL's pg_log_info). */
void		msg_info(const char *fmt, ...) MSG_PRINTF(1, 2);
/*
 * The one way to end the program on an error nothing can recover from
 * (tmux's fatalx and fatal): say why with msg_error(), then
 * exit(EXITCODE_ERROR).  msg_fatal_errno() adds ": " and strerror(errnum).
 * Recoverable failures return a status and hand a cause back instead.
 */
void		msg_fatal(const char *fmt, ...) MSG_PRINTF(1, 2) __attribute__((noreturn));
void		msg_fatal_errno(int errnum, const char *fmt, ...) MSG_PRINTF(2, 3) __attribute__((noreturn));
/* "prog: hint: Try "prog --help" for more information." after a usage error. */
void		msg_try_help(void);

/* Flush stdout; false, after "could not write to standard output", on a write error. */
bool		msg_flush_stdout(void);

#endif
