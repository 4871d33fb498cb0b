/*
 * fuzz_script.c — libFuzzer target for pgtempo-bench's script and
 * expression parsers.
 *
 * Each input is a script.  It is parsed; when it parses, every \set and
 * \if expression is evaluated once for a client with a few variables,
 * so the evaluator's arithmetic, coercions and random functions are
 * fuzzed too.  Shell commands are never run.  Built and run by
 * "make fuzz" (FUZZ_SECONDS, default 600); not part of make check.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/expr.h"
#include "lang/prng.h"
#include "lang/script.h"
#include "lang/vars.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *quiet;
	char	   *text = malloc(size + 1);
	script	   *s;

	/*
	 * The parser reports errors through stdio's stderr.  Point that stream
	 * (not fd 2) elsewhere: libFuzzer and the sanitizers keep writing their
	 * reports to fd 2, so crashes are still shown.
	 */
	if (quiet == NULL)
	{
		quiet = fopen("/dev/null", "w");
		if (quiet != NULL)
			stderr = quiet;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	s = script_parse("fuzz", text);
	if (s != NULL)
	{
		vars	   *vs = vars_new();
		prng_state	rs;
		value		v;

		prng_seed(&rs, 42);
		vars_set_string(vs, "fuzz", "a", "12", NULL);
		vars_set_string(vs, "fuzz", "b", "2.5", NULL);
		vars_set_string(vs, "fuzz", "default_seed", "7", NULL);
		for (int i = 0; i < s->ncommands; i++)
		{
			const command *cmd = s->commands[i];
			expr_env	env = {.vars = vs, .rs = &rs, .script_no = 0, .command_no = i + 1,
			.debug_out = quiet};
			char	   *err = NULL;

			if (cmd->expr == NULL)
				continue;
			if (!expr_eval(cmd->expr, &env, &v, &err))
				free(err);
			else if (cmd->meta == META_SET)
				vars_set_value(vs, "set", cmd->argv[1], &v, NULL);
		}
		vars_free(vs);
		script_free(s);
	}
	free(text);
	return 0;
}
