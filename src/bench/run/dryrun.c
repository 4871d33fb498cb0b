/*
 * dryrun.c — --dry-run: the scripts' logic without a server.
 *
 * Clients are run the way pgbench schedules them when no query makes
 * them wait: each thread in turn, and within a thread one transaction
 * of each client in round-robin order.  With one thread (-j 1) that is
 * exactly the order of pgbench's debug() output for scripts that have
 * no SQL, which is what the differential tests rely on.
 */
#include "config.h"

#include "results/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/exec.h"
#include "pgtempo/exitcode.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"
#include "setup.h"

/* The SQL command as a simple-mode client would send it: variables substituted. */
static void
print_sql(FILE *out, const bench_settings *s, exec_client *c, const command *cmd,
		  int script_no, int cmd_no)
{
	strbuf		sql;

	strbuf_init(&sql);
	fprintf(out, "-- client %d script %d command %d\n", c->id, script_no, cmd_no);
	if (s->mode == QUERY_SIMPLE)
		exec_sql_text(&sql, c, cmd);
	else
	{
		strbuf_puts(&sql, cmd->sql_numbered);
		for (int i = 0; i < cmd->nparams; i++)
		{
			const sql_param *p = &cmd->params[i];
			var		   *v = vars_lookup(c->vars, p->name);

			fprintf(out, "-- $%d = %s%s%s\n", p->number, v ? "'" : "",
					v ? vars_get_string(c->vars, v) : "NULL", v ? "'" : "");
		}
	}
	while (sql.len > 0 && (sql.data[sql.len - 1] == '\n' || sql.data[sql.len - 1] == ' '))
		sql.data[--sql.len] = '\0';
	fprintf(out, "%s%s\n", sql.data, sql.len > 0 && sql.data[sql.len - 1] == ';' ? "" : ";");
	strbuf_free(&sql);
}

/* One transaction of one client; false if the client aborted. */
static bool
run_transaction(const bench_settings *s, exec_client *c, setup_thread *t, const int *weights)
{
	int			script_no = setup_choose_script(&t->choose_rs, weights, s->nscripts,
												s->total_weight);
	const script *sc = s->scripts[script_no];
	int			pc = 0;

	while (pc < sc->ncommands)
	{
		const command *cmd = sc->commands[pc];
		int64_t		sleep_us;
		const char *kind;

		if (cmd->type == CMD_SQL)
		{
			print_sql(stdout, s, c, cmd, script_no, pc);
			pc++;
			continue;
		}
		if (exec_meta(c, sc, script_no, &pc, &sleep_us, &kind) == EXEC_ABORT)
		{
			exec_report_abort(c, sc, script_no, pc, kind);
			return false;
		}
		/* a dry run does not sleep */
	}
	if (c->in_pipeline)
	{
		msg_error("client %d aborted: end of script reached with pipeline open", c->id);
		return false;
	}
	return true;
}

int
dryrun_run(const bench_settings *s)
{
	prng_state	base = s->base;
	exec_client *clients = xcalloc((size_t) s->nclients, sizeof(exec_client));
	setup_thread *threads = xcalloc((size_t) s->nthreads, sizeof(setup_thread));
	bool	   *aborted = xcalloc((size_t) s->nclients, sizeof(bool));
	int			weights[SCRIPT_MAX_SCRIPTS];
	int			status = EXITCODE_OK;

	for (int i = 0; i < s->nscripts; i++)
		weights[i] = s->scripts[i]->weight;
	if (!setup_clients(clients, s->nclients, threads, s->nthreads, s->defines, s->scale,
					   s->random_seed, &base))
		status = EXITCODE_ERROR;
	for (int i = 0; i < s->nclients; i++)
		clients[i].simple_protocol = s->mode == QUERY_SIMPLE;

	for (int t = 0; status == EXITCODE_OK && t < s->nthreads; t++)
	{
		setup_thread *th = &threads[t];

		/* once standard output fails (a full disk), the rest would be lost too: main() says why */
		for (int64_t tx = 0; tx < s->transactions && !ferror(stdout); tx++)
			for (int k = 0; k < th->nclients; k++)
			{
				int			id = th->first_client + k;

				if (!aborted[id] && !run_transaction(s, &clients[id], th, weights))
					aborted[id] = true;
			}
	}
	for (int i = 0; i < s->nclients; i++)
	{
		if (aborted[i])
			status = EXITCODE_RUN_FAILED;
		vars_free(clients[i].vars);
	}
	fflush(stdout);
	if (status == EXITCODE_RUN_FAILED)
		msg_error("Run was aborted; the above results are incomplete.");
	free(aborted);
	free(clients);
	free(threads);
	return status;
}
