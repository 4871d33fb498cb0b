/*
 * client.c — one client's script: the state machine that chooses a
 * script, runs its commands (SQL sent asynchronously, meta-commands
 * through exec.c), takes the results, retries or fails a transaction
 * after an error, and counts it.
 *
 * This is the per-transaction path: send, wait, consume, get results,
 * count — no allocation once the buffers have grown, and one clock read
 * per wake-up of a client.
 */
#include "config.h"

#include "client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "clientio.h"
#include "pgtempo/msg.h"

typedef enum resp
{
	RESP_MORE,					/* need more input */
	RESP_DONE,					/* all results of the command are in */
	RESP_FAIL					/* an error: c->es says which */
} resp;

/* The values of cmd's $n parameters (NULL for an undefined variable, as pgbench sends). */
static void
fill_params(client *c, const command *cmd)
{
	for (int i = 0; i < cmd->nparams; i++)
	{
		const sql_param *p = &cmd->params[i];
		var		   *v = vars_lookup(c->ec.vars, p->name);

		c->th->params[p->number - 1] = v != NULL ? vars_get_string(c->ec.vars, v) : NULL;
	}
}

/* Send SQL command cmd (number n) in the chosen protocol; false if libpq refused. */
static bool
send_sql(client *c, const command *cmd, int n)
{
	runner	   *r = c->th->r;
	const bench_settings *s = r->s;
	int			ok;

	if (s->mode == QUERY_SIMPLE)
	{
		strbuf_reset(&c->th->sql);
		exec_sql_text(&c->th->sql, &c->ec, cmd);
		if (s->debug)
			clientio_debug("client %d sending %s", c->ec.id, c->th->sql.data);
		ok = PQsendQuery(c->con, c->th->sql.data);
	}
	else if (s->mode == QUERY_EXTENDED)
	{
		fill_params(c, cmd);
		if (s->debug)
			clientio_debug("client %d sending %s", c->ec.id, cmd->sql_numbered);
		ok = PQsendQueryParams(c->con, cmd->sql_numbered, cmd->nparams, NULL, c->th->params, NULL,
							   NULL, 0);
	}
	else
	{
		int			k = r->cmd_base[c->script_no] + n;

		clientio_prepare(c, n);
		fill_params(c, cmd);
		if (s->debug)
			clientio_debug("client %d sending %s", c->ec.id, r->prepnames[k]);
		ok = PQsendQueryPrepared(c->con, r->prepnames[k], cmd->nparams, c->th->params, NULL, NULL,
								 0);
	}
	if (!ok)
	{
		if (s->debug)
			clientio_debug("client %d could not send %s", c->ec.id, cmd->sql);
		return false;
	}
	return clientio_flush(c);
}

static bool
can_retry(estatus es)
{
	return es == ES_SERIALIZATION || es == ES_DEADLOCK;
}

static bool
can_continue(const bench_settings *s, estatus es)
{
	return s->continue_on_error && es == ES_OTHER;
}

/*
 * One result of the current command, knowing whether it is the last:
 * \gset and \aset store columns into variables, pipeline syncs are
 * counted, errors are classified.  False on an error (c->es set, the
 * message printed unless the error will be retried or rolled back).
 */
static bool
handle_result(client *c, PGresult *res, bool is_last)
{
	const bench_settings *s = c->th->r->s;
	const command *cmd = s->scripts[c->script_no]->commands[c->cmd];
	meta_kind	meta = cmd->type == CMD_SQL ? cmd->meta : META_NONE;

	switch (PQresultStatus(res))
	{
		case PGRES_COMMAND_OK:
		case PGRES_EMPTY_QUERY:
			if (is_last && meta == META_GSET)
			{
				msg_error("client %d script %d command %d query %d: expected one row, got %d",
						  c->ec.id, c->script_no, c->cmd, c->qrynum, 0);
				c->es = ES_META;
				return false;
			}
			break;
		case PGRES_TUPLES_OK:
			if ((is_last && meta == META_GSET) || meta == META_ASET)
			{
				int			ntuples = PQntuples(res);

				if (meta == META_GSET && ntuples != 1)
				{
					msg_error("client %d script %d command %d query %d: expected one row, got %d",
							  c->ec.id, c->script_no, c->cmd, c->qrynum, ntuples);
					c->es = ES_META;
					return false;
				}
				if (ntuples <= 0)
					break;
				for (int f = 0; f < PQnfields(res); f++)
				{
					char	   *err = NULL;

					strbuf_reset(&c->th->varname);
					strbuf_puts(&c->th->varname, cmd->varprefix);
					strbuf_puts(&c->th->varname, PQfname(res, f));
					if (!vars_set_string(c->ec.vars, meta == META_ASET ? "aset" : "gset",
										 c->th->varname.data, PQgetvalue(res, ntuples - 1, f), &err))
					{
						if (err != NULL)
							msg_error("%s", err);
						free(err);
						msg_error("client %d script %d command %d query %d: error storing into variable %s",
								  c->ec.id, c->script_no, c->cmd, c->qrynum, c->th->varname.data);
						c->es = ES_META;
						return false;
					}
				}
			}
			break;
		case PGRES_PIPELINE_SYNC:
			if (s->debug)
				clientio_debug("client %d pipeline ending, ongoing syncs: %d", c->ec.id, c->num_syncs);
			c->num_syncs--;
			if (c->num_syncs == 0 && PQexitPipelineMode(c->con) != 1)
				msg_error("client %d failed to exit pipeline mode: %s", c->ec.id,
						  PQresultErrorMessage(res));
			break;
		case PGRES_COPY_IN:
		case PGRES_COPY_OUT:
		case PGRES_COPY_BOTH:
			msg_error("COPY is not supported in pgbench, aborting");
			PQendcopy(c->con);
			c->es = ES_META;
			return false;
		case PGRES_NONFATAL_ERROR:
		case PGRES_FATAL_ERROR:
			if (c->cancelled)
			{
				/* the stop cancelled it: no message, the client just ends */
				c->es = ES_OTHER;
				return false;
			}
			c->es = clientio_error_status(c, PQresultErrorField(res, PG_DIAG_SQLSTATE));
			if (can_retry(c->es) || can_continue(s, c->es))
			{
				if (s->verbose_errors)
					msg_info("client %d got an error in command %d (SQL) of script %d; %s",
							 c->ec.id, c->cmd, c->script_no, PQresultErrorMessage(res));
				return false;
			}
			/* FALLTHROUGH */
		default:
			if (c->es == ES_OK)
				c->es = ES_OTHER;
			msg_error("client %d script %d aborted in command %d query %d: %s", c->ec.id,
					  c->script_no, c->cmd, c->qrynum, PQresultErrorMessage(res));
			return false;
	}
	c->qrynum++;
	return true;
}

/* Read the results of the current command as far as they have arrived. */
static resp
read_response(client *c)
{
	for (;;)
	{
		PGresult   *res;

		if (PQisBusy(c->con))
		{
			if (!PQconsumeInput(c->con))
			{
				if (!c->cancelled)
					clientio_failed(c, "SQL", "perhaps the backend died while processing");
				c->es = ES_CONN;
				return RESP_FAIL;
			}
			if (PQisBusy(c->con))
				return RESP_MORE;
		}
		res = PQgetResult(c->con);
		if (c->pending != NULL)
		{
			PGresult   *prev = c->pending;
			bool		ok;

			c->pending = NULL;
			ok = handle_result(c, prev, res == NULL);
			PQclear(prev);
			if (!ok)
			{
				PQclear(res);
				if (!c->cancelled)
					clientio_discard_results(c);
				return RESP_FAIL;
			}
		}
		if (res == NULL)
		{
			if (c->qrynum == 0)
			{
				msg_error("client %d command %d: no results", c->ec.id, c->cmd);
				c->es = ES_META;
				return RESP_FAIL;
			}
			return RESP_DONE;
		}
		c->pending = res;
	}
}

/* --verbose-errors: say whether the failed transaction is retried or ends. */
static void
verbose_error(client *c, bool retry)
{
	const bench_settings *s = c->th->r->s;
	char		tries[64];

	if (s->max_tries != 0)
		snprintf(tries, sizeof(tries), "%u/%u", c->tries, s->max_tries);
	else
		snprintf(tries, sizeof(tries), "%u", c->tries);
	msg_info("client %d %s (try %s)", c->ec.id,
			 retry ? "repeats the transaction after the error" : "ends the failed transaction",
			 tries);
}

/* After a failed transaction was rolled back: retry it, or count it as failed. */
static void
retry_or_fail(client *c, uint64_t now)
{
	bthread    *th = c->th;
	const bench_settings *s = th->r->s;
	stats_command *cs = &th->cmd_stats[c->script_no][c->cmd];
	stats_command warm_cs = {0};

	if (c->warm)
		cs = &warm_cs;			/* -r leaves the warm-up out */
	if (time_is_up(th->r, now))
	{
		clientio_finish(c, CS_FINISHED);
		return;
	}
	if (can_retry(c->es) && (s->max_tries == 0 || c->tries < s->max_tries) &&
		(s->latency_limit_ns == 0 || now - c->txn_scheduled <= (uint64_t) s->latency_limit_ns))
	{
		if (s->verbose_errors)
			verbose_error(c, true);
		c->tries++;
		cs->retries++;
		c->ec.rs = c->saved_rs;
		c->ec.in_pipeline = false;
		c->cmd = 0;
		c->es = ES_OK;
		clientio_set_state(c, CS_START_CMD);
		return;
	}
	cs->failures++;
	if (s->verbose_errors)
		verbose_error(c, false);
	clientio_set_state(c, CS_END_TX);
}

/* Count a transaction: totals, its script's, the histograms, the log and the -t counter. */
static void
account(client *c, stats_outcome o, uint64_t now)
{
	bthread    *th = c->th;
	const bench_settings *s = th->r->s;
	uint64_t	lat = 0,
				lag = 0;
	bool		late;

	if (o != STATS_SKIPPED)
	{
		lat = now - c->txn_scheduled;
		lag = c->txn_begin - c->txn_scheduled;
	}
	late = s->latency_limit_ns > 0 && lat > (uint64_t) s->latency_limit_ns;
	if (c->warm)
	{
		/* --warmup: seen by -P and --warmup=auto, marked in the log, counted nowhere else */
		stats_add_tx(&th->warm_st, o, c->tries, (double) lat, (double) lag, s->rate > 0, late);
		if (o == STATS_OK)
			hist_record(th->warm_hist, lat);
		if (th->log != NULL)
			txlog_tx(th->log, c->ec.id, c->warm_cnt, c->script_no, o, lat, lag, c->tries - 1,
					 now, true);
		c->warm_cnt++;
		return;
	}
	stats_add_tx(&th->st, o, c->tries, (double) lat, (double) lag, s->rate > 0, late);
	if (s->nscripts > 1)
		stats_add_tx(&th->script_stats[c->script_no], o, c->tries, (double) lat, (double) lag,
					 s->rate > 0, late);
	if (o == STATS_OK)
	{
		hist_record(th->lat_hist, lat);
		if (th->script_hist != NULL)
			hist_record(&th->script_hist[c->script_no], lat);
	}
	if (th->log != NULL)
	{
		warm_sync(th);
		txlog_tx(th->log, c->ec.id, c->cnt, c->script_no, o, lat, lag, c->tries - 1, now,
				 false);
	}
	c->cnt++;
}

/* Count an ended transaction by how it ended. */
static void
count_transaction(client *c, uint64_t now)
{
	stats_outcome o;

	switch (c->es)
	{
		case ES_OK:
			o = STATS_OK;
			break;
		case ES_SERIALIZATION:
			o = STATS_SERIALIZATION;
			break;
		case ES_DEADLOCK:
			o = STATS_DEADLOCK;
			break;
		default:
			o = STATS_OTHER;
			break;
	}
	account(c, o, now);
}

/*
 * -R with --warmup: once the measured part has begun, a schedule that
 * fell behind during the warm-up starts again from its start, so that no
 * slot of the warm-up is late in the measured part.
 */
static inline void
restart_schedule(bthread *th, uint64_t *now)
{
	uint64_t	mf = measure_from(th->r);

	if (th->throttle_trigger < mf && mf != UINT64_MAX && lazy_now(now) >= mf)
		th->throttle_trigger = mf;
}

/*
 * -R: give c the thread's next slot on the Poisson schedule.  With -L,
 * slots already too late to meet the limit are skipped (counted and
 * logged as skipped).  Returns false when the client is done: -t was
 * reached by skipping, or the slot lies after the end of -T.
 */
static bool
schedule_next(client *c, uint64_t *now)
{
	bthread    *th = c->th;
	runner	   *r = th->r;
	const bench_settings *s = r->s;
	uint64_t	end;

	restart_schedule(th, now);
	th->throttle_trigger += (uint64_t) prng_poisson(&th->setup->throttle_rs,
													th->throttle_delay_us) * NS_PER_US;
	c->txn_scheduled = th->throttle_trigger;
	if (s->latency_limit_ns > 0)
	{
		while (th->throttle_trigger + (uint64_t) s->latency_limit_ns < lazy_now(now) &&
			   (s->duration > 0 || c->cnt < s->transactions))
		{
			c->tries = 1;
			c->warm = c->txn_scheduled < measure_from(r);
			account(c, STATS_SKIPPED, *now);
			th->throttle_trigger += (uint64_t) prng_poisson(&th->setup->throttle_rs,
															th->throttle_delay_us) * NS_PER_US;
			c->txn_scheduled = th->throttle_trigger;
		}
		if (s->duration <= 0 && c->cnt >= s->transactions)
			return false;
	}
	end = atomic_load_explicit(&r->end_time, memory_order_relaxed);
	return end == 0 || c->txn_scheduled <= end;
}

/* Run a meta-command at c->cmd; returns with c->state set to what comes next. */
static void
run_meta(client *c, const command *cmd, uint64_t *now)
{
	bthread    *th = c->th;
	const bench_settings *s = th->r->s;
	const script *sc = s->scripts[c->script_no];
	int			pc = c->cmd;
	int64_t		sleep_us = 0;
	const char *kind = NULL;
	exec_result er;

	if (s->debug)
	{
		strbuf		b;

		strbuf_init(&b);
		strbuf_printf(&b, "client %d executing \\%s", c->ec.id, cmd->argv[0]);
		for (int i = 1; i < cmd->argc; i++)
			strbuf_printf(&b, " %s", cmd->argv[i]);
		clientio_debug("%s", b.data);
		strbuf_free(&b);
	}
	if (cmd->meta == META_STARTPIPELINE && s->mode == QUERY_PREPARED && !c->ec.in_pipeline)
	{
		int			k = th->r->cmd_base[c->script_no] + c->cmd;

		/* prepare before entering: a PREPARE inside would take a snapshot too early */
		if (!c->prepared[k])
		{
			for (int j = c->cmd + 1; j < sc->ncommands; j++)
			{
				if (sc->commands[j]->meta == META_ENDPIPELINE &&
					sc->commands[j]->type == CMD_META)
					break;
				clientio_prepare(c, j);
			}
			c->prepared[k] = true;
		}
	}

	er = exec_meta(&c->ec, sc, c->script_no, &pc, &sleep_us, &kind);
	if (er == EXEC_ABORT)
	{
		exec_report_abort(&c->ec, sc, c->script_no, pc, kind);
		c->es = ES_META;
		clientio_finish(c, CS_ABORTED);
		return;
	}
	c->next_cmd = pc;
	switch (cmd->meta)
	{
		case META_STARTPIPELINE:
			if (PQenterPipelineMode(c->con) == 0)
			{
				clientio_failed(c, "startpipeline", "failed to enter pipeline mode");
				clientio_finish(c, CS_ABORTED);
				return;
			}
			break;
		case META_SYNCPIPELINE:
			if (PQpipelineSync(c->con) == 0 || !clientio_flush(c))
			{
				clientio_failed(c, "syncpipeline", "failed to send a pipeline sync");
				clientio_finish(c, CS_ABORTED);
				return;
			}
			c->num_syncs++;
			break;
		case META_ENDPIPELINE:
			if (PQpipelineSync(c->con) == 0 || !clientio_flush(c))
			{
				clientio_failed(c, "endpipeline", "failed to send a pipeline sync");
				clientio_finish(c, CS_ABORTED);
				return;
			}
			c->num_syncs++;
			/* collect every pending result, then leave pipeline mode at the last sync */
			c->qrynum = 0;
			clientio_set_state(c, CS_WAIT);
			return;
		default:
			break;
	}
	if (er == EXEC_SLEEP)
	{
		c->sleep_until = lazy_now(now) + (uint64_t) (sleep_us > 0 ? sleep_us : 0) * NS_PER_US;
		clientio_set_state(c, CS_SLEEP);
		return;
	}
	/* an expression or a shell command may have taken a while */
	*now = 0;
	clientio_set_state(c, CS_END_CMD);
}

/*
 * The state functions of client_advance(): each does its state's work and
 * returns true to go on with the state it set, false when the client has
 * to wait (or is done).  *now is the clock read of this wake-up, 0 when
 * it must be read again.
 */

/* Choose the script of the next transaction, and under -R its slot. */
static bool
on_choose(client *c, uint64_t *now)
{
	bthread    *th = c->th;
	runner	   *r = th->r;
	const bench_settings *s = r->s;

	c->script_no = setup_choose_script(&th->setup->choose_rs, r->weights, s->nscripts,
									   s->total_weight);
	c->es = ES_OK;
	c->tries = 1;
	if (s->debug)
		clientio_debug("client %d executing script \"%s\"", c->ec.id,
					   s->scripts[c->script_no]->desc);
	if (time_is_up(r, lazy_now(now)))
	{
		clientio_finish(c, CS_FINISHED);
		return false;
	}
	if (s->rate > 0)
	{
		if (!schedule_next(c, now))
		{
			clientio_finish(c, CS_FINISHED);
			return false;
		}
		clientio_set_state(c, CS_THROTTLE);
		c->sleep_until = c->txn_scheduled;
		return true;
	}
	clientio_set_state(c, CS_START_TX);
	return true;
}

/* -R: wait for the transaction's slot. */
static bool
on_throttle(client *c, uint64_t *now)
{
	if (time_is_up(c->th->r, lazy_now(now)))
	{
		clientio_finish(c, CS_FINISHED);
		return false;
	}
	if (*now < c->sleep_until)
		return false;
	clientio_set_state(c, CS_START_TX);
	return true;
}

/* Begin a transaction (under -C, connect first: the connection comes back through an event). */
static bool
on_start_tx(client *c, uint64_t *now)
{
	runner	   *r = c->th->r;
	const bench_settings *s = r->s;

	if (c->con == NULL)
	{
		/* -C: a new connection for each transaction */
		c->conn_begin = lazy_now(now);
		if (!clientio_connect_start(c, NULL))
		{
			msg_error("client %d aborted while establishing connection", c->ec.id);
			clientio_finish(c, CS_ABORTED);
		}
		else if (s->mode == QUERY_PREPARED)
			memset(c->prepared, 0, sizeof(bool) * r->cmd_base[s->nscripts]);
		return false;
	}
	c->saved_rs = c->ec.rs;
	c->txn_begin = lazy_now(now);
	if (s->rate <= 0)
		c->txn_scheduled = c->txn_begin;
	/* --warmup: by its (scheduled) start; the end of the warm-up is known before it comes */
	c->warm = c->txn_scheduled < measure_from(r);
	c->cmd = 0;
	clientio_set_state(c, CS_START_CMD);
	return true;
}

/* Send SQL command cmd; false when the client aborted or waits for the results. */
static bool
start_sql(client *c, const command *cmd)
{
	const bench_settings *s = c->th->r->s;

	if (PQpipelineStatus(c->con) != PQ_PIPELINE_OFF &&
		(cmd->meta == META_GSET || cmd->meta == META_ASET))
	{
		if (cmd->meta == META_GSET)
			clientio_failed(c, "gset", "\\gset is not allowed in pipeline mode");
		else
			clientio_failed(c, "aset", "\\aset is not allowed in pipeline mode");
		clientio_finish(c, CS_ABORTED);
		return false;
	}
	if (!send_sql(c, cmd, c->cmd))
	{
		clientio_failed(c, "SQL", "SQL command send failed");
		clientio_finish(c, CS_ABORTED);
		return false;
	}
	c->next_cmd = c->cmd + 1;
	if (PQpipelineStatus(c->con) != PQ_PIPELINE_OFF)
	{
		clientio_set_state(c, CS_END_CMD);
		return true;
	}
	c->qrynum = 0;
	clientio_set_state(c, CS_WAIT);
	if (s->debug)
		clientio_debug("client %d receiving", c->ec.id);
	return false;
}

/* Start command c->cmd of the script, or end the transaction after the last. */
static bool
on_start_cmd(client *c, uint64_t *now)
{
	const bench_settings *s = c->th->r->s;
	const script *sc = s->scripts[c->script_no];
	const command *cmd;

	if (c->th->abandon_at != 0)
	{
		/* the stop cancelled the statements in flight: nothing more is sent */
		clientio_finish(c, CS_FINISHED);
		return false;
	}
	if (c->cmd >= sc->ncommands)
	{
		if (PQpipelineStatus(c->con) != PQ_PIPELINE_OFF)
		{
			msg_error("client %d aborted: end of script reached with pipeline open",
					  c->ec.id);
			clientio_finish(c, CS_ABORTED);
			return false;
		}
		clientio_set_state(c, CS_END_TX);
		return true;
	}
	cmd = sc->commands[c->cmd];
	if (s->per_command)
		c->stmt_begin = lazy_now(now);
	if (cmd->type == CMD_META)
	{
		run_meta(c, cmd, now);
		return c->state != CS_ABORTED && c->state != CS_SLEEP;
	}
	return start_sql(c, cmd);
}

/* Take the results of the command as they arrive. */
static bool
on_wait(client *c, uint64_t *now)
{
	switch (read_response(c))
	{
		case RESP_MORE:
			return false;
		case RESP_DONE:
			if (PQpipelineStatus(c->con) != PQ_PIPELINE_ON)
				clientio_set_state(c, CS_END_CMD);
			else
				c->qrynum = 0;	/* the next query of the pipeline */
			break;
		case RESP_FAIL:
			if (c->cancelled)
			{
				clientio_finish(c, CS_FINISHED);
				return false;
			}
			if (!can_retry(c->es) && !can_continue(c->th->r->s, c->es))
			{
				clientio_finish(c, CS_ABORTED);
				return false;
			}
			clientio_set_state(c, CS_ERROR);
			break;
	}
	*now = 0;
	return true;
}

/* \sleep: wait until it is over. */
static bool
on_sleep(client *c, uint64_t *now)
{
	if (lazy_now(now) < c->sleep_until)
		return false;
	clientio_set_state(c, CS_END_CMD);
	return true;
}

/* A command is done: -r counts its time; on to the next. */
static bool
on_end_cmd(client *c, uint64_t *now)
{
	if (c->th->r->s->per_command && !c->warm)
	{
		stats_command *cs = &c->th->cmd_stats[c->script_no][c->cmd];

		cs->count++;
		cs->sum += (double) (lazy_now(now) - c->stmt_begin);
	}
	c->cmd = c->next_cmd;
	clientio_set_state(c, CS_START_CMD);
	return true;
}

/* After a failed command: leave the pipeline, roll back what is open, retry or fail. */
static bool
on_error(client *c, uint64_t *now)
{
	if (PQpipelineStatus(c->con) != PQ_PIPELINE_OFF && !clientio_discard_until_sync(c))
	{
		clientio_finish(c, CS_ABORTED);
		return false;
	}
	switch (PQtransactionStatus(c->con))
	{
		case PQTRANS_INTRANS:
		case PQTRANS_INERROR:
			if (!PQsendQuery(c->con, "ROLLBACK") || !clientio_flush(c))
			{
				msg_error("client %d aborted: failed to send sql command for rolling back the failed transaction",
						  c->ec.id);
				clientio_finish(c, CS_ABORTED);
				return false;
			}
			clientio_set_state(c, CS_WAIT_ROLLBACK);
			return false;
		case PQTRANS_IDLE:
			retry_or_fail(c, lazy_now(now));
			return c->state != CS_FINISHED;
		default:
			clientio_check_idle(c, false);
			clientio_finish(c, CS_ABORTED);
			return false;
	}
}

/* The ROLLBACK after a failed command: its result, then retry or fail. */
static bool
on_wait_rollback(client *c, uint64_t *now)
{
	PGresult   *res;

	if (!PQconsumeInput(c->con))
	{
		if (c->cancelled)
		{
			clientio_finish(c, CS_FINISHED);
			return false;
		}
		msg_error("client %d aborted while rolling back the transaction after an error; perhaps the backend died while processing",
				  c->ec.id);
		clientio_finish(c, CS_ABORTED);
		return false;
	}
	if (PQisBusy(c->con))
		return false;
	res = PQgetResult(c->con);
	if (PQresultStatus(res) != PGRES_COMMAND_OK && c->cancelled)
	{
		PQclear(res);
		clientio_finish(c, CS_FINISHED);
		return false;
	}
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		msg_error("client %d aborted while rolling back the transaction after an error; %s",
				  c->ec.id, PQerrorMessage(c->con));
		PQclear(res);
		clientio_finish(c, CS_ABORTED);
		return false;
	}
	PQclear(res);
	clientio_discard_results(c);
	retry_or_fail(c, lazy_now(now));
	return c->state != CS_FINISHED;
}

/* The transaction is over: count it, and start the next at the client's next turn. */
static bool
on_end_tx(client *c, uint64_t *now)
{
	bthread    *th = c->th;
	const bench_settings *s = th->r->s;

	count_transaction(c, lazy_now(now));
	if (!clientio_check_idle(c, true))
	{
		clientio_finish(c, CS_ABORTED);
		return false;
	}
	if (s->is_connect)
	{
		uint64_t	t0 = *now;

		clientio_close(c);
		*now = clock_now_ns();
		th->conn_ns += *now - t0;
	}
	if ((s->duration <= 0 && c->cnt >= s->transactions) || time_is_up(th->r, *now))
	{
		clientio_finish(c, CS_FINISHED);
		return false;
	}
	/* give the other clients a turn (a script may have no SQL at all) */
	clientio_set_state(c, CS_CHOOSE);
	clientio_enqueue(c);
	return false;
}

/*
 * Advance c's state machine until it has to wait: for a result, a
 * connection, a \sleep, or its next turn in the run queue.
 */
void
client_advance(client *c)
{
	uint64_t	now = 0;
	bool		go = false;

	do
	{
		switch (c->state)
		{
			case CS_CHOOSE:
				go = on_choose(c, &now);
				break;
			case CS_THROTTLE:
				go = on_throttle(c, &now);
				break;
			case CS_START_TX:
				go = on_start_tx(c, &now);
				break;
			case CS_START_CMD:
				go = on_start_cmd(c, &now);
				break;
			case CS_WAIT:
				go = on_wait(c, &now);
				break;
			case CS_SLEEP:
				go = on_sleep(c, &now);
				break;
			case CS_END_CMD:
				go = on_end_cmd(c, &now);
				break;
			case CS_ERROR:
				go = on_error(c, &now);
				break;
			case CS_WAIT_ROLLBACK:
				go = on_wait_rollback(c, &now);
				break;
			case CS_END_TX:
				go = on_end_tx(c, &now);
				break;
			case CS_CONNECT:
			case CS_ABORTED:
			case CS_ABANDONED:
			case CS_FINISHED:
				go = false;
				break;
		}
	} while (go);
}

/* An event on c's socket. */
void
client_on_event(client *c, uint32_t events)
{
	bthread    *th = c->th;

	if (c->state == CS_CONNECT)
	{
		int			rc = clientio_connect_poll(c);
		uint64_t	now;

		if (rc == 0)
			return;
		now = clock_now_ns();
		th->conn_ns += now - c->conn_begin;
		if (rc < 0)
		{
			msg_error("client %d aborted while establishing connection", c->ec.id);
			clientio_finish(c, CS_ABORTED);
			return;
		}
		clientio_set_state(c, CS_START_TX);
		client_advance(c);
		return;
	}
	if ((events & EPOLLOUT) && c->want_write && !clientio_flush(c))
	{
		if (c->cancelled)
		{
			clientio_finish(c, CS_FINISHED);
			return;
		}
		clientio_failed(c, "SQL", "perhaps the backend died while processing");
		clientio_finish(c, CS_ABORTED);
		return;
	}
	if (c->state == CS_WAIT || c->state == CS_WAIT_ROLLBACK)
		client_advance(c);
	else if (c->con != NULL && (events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
	{
		/* a notice or a dying connection while not waiting: drain it */
		if (!PQconsumeInput(c->con) || (events & (EPOLLERR | EPOLLHUP)))
		{
			epoll_ctl(th->epfd, EPOLL_CTL_DEL, c->sock, NULL);
			c->sock = -1;
			c->events = 0;
		}
	}
}
