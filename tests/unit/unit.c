#include "config.h"

#include "unit.h"

#include <stdlib.h>

int
unit_run(Suite *s)
{
	SRunner    *sr = srunner_create(s);
	int			failed;

	/* TAP goes to stdout; Check's own report is silenced so the stream stays valid. */
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
