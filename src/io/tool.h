/*
 * tool.h — pgtempo-io as a whole: settings in, the target opened, the
 * requests run through the engine with ioping's outputs, the suite's
 * outputs after them; returns the exit status:
 *   0 all went well (also at -w's deadline), 1 a usage error,
 *   2 the target could not be prepared, 3 a request failed (ioping's),
 *   128+N a stop signal N ended the run (after the statistics).
 */
#ifndef PGTEMPO_IO_TOOL_H
#define PGTEMPO_IO_TOOL_H

#include "settings.h"

#define IO_EXIT_PREPARATION 2
#define IO_EXIT_RUNTIME 3

int			io_tool_run(const io_settings *s);

#endif
