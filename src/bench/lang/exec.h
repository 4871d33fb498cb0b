/*
 * exec.h — running a script's meta-commands for one client.
 *
 * Everything here is synchronous and needs no server: \set, \if chains,
 * \sleep (which only computes the delay), \setshell and \shell.  The
 * runner calls exec_meta() for each meta-command it reaches and handles
 * SQL commands itself; --dry-run uses the same code with no server.
 */
#ifndef PGTEMPO_BENCH_EXEC_H
#define PGTEMPO_BENCH_EXEC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pgtempo/strbuf.h"
#include "prng.h"
#include "script.h"
#include "vars.h"

/* What a meta-command needs of the client that runs it. */
typedef struct exec_client
{
	int			id;				/* client number, as in messages */
	vars	   *vars;			/* its variables */
	prng_state	rs;				/* its random state for expression functions */
	FILE	   *debug_out;		/* where debug() writes (stderr) */
	bool		simple_protocol;	/* -M simple: no pipelines */
	bool		in_pipeline;	/* between \startpipeline and \endpipeline */
} exec_client;

typedef enum exec_result
{
	EXEC_NEXT,					/* go on with command *pc */
	EXEC_SLEEP,					/* wait *sleep_us, then go on with command *pc */
	EXEC_ABORT					/* the client must abort; the cause was printed */
} exec_result;

/*
 * Run the meta-command s->commands[*pc] of script number script_no and
 * set *pc to the command to run next, following \if chains.  On failure
 * the cause has been printed (pgbench's words) and *kind is the end of
 * pgbench's abort line: "evaluation of meta-command failed",
 * "assignment of meta-command failed", "execution of meta-command
 * failed", or a pipeline error such as "not in pipeline mode".
 */
exec_result exec_meta(exec_client *c, const script *s, int script_no, int *pc,
					  int64_t *sleep_us, const char **kind);

/*
 * Append SQL command cmd as -M simple sends it to out: each :variable
 * replaced by the client's value, an undefined one left as written.
 */
void		exec_sql_text(strbuf *out, const exec_client *c, const command *cmd);

/* Print pgbench's abort line for a client. */
void		exec_report_abort(const exec_client *c, const script *s, int script_no, int cmd,
							  const char *kind);

#endif
