/*
 * fuzz_waits_logfile.c — libFuzzer target for pgtempo-waits' log file
 * name expander, logfile_expand().
 *
 * An input is 8 bytes of time_t, 2 bytes of output buffer size (at most
 * 4096), then the --log pattern (up to its first NUL byte).  The
 * buffer is allocated at exactly that size, so AddressSanitizer sees a
 * write past it; an accepted expansion must be a non-empty string that
 * fits (empty only for an empty pattern, which main() refuses before).
 * No file is opened.  Built and run by "make fuzz"; not part of
 * make check.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "logfile.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t		t64;
	uint16_t	n16;
	size_t		outlen;
	char	   *pattern;
	char	   *out;
	static bool tz_set;

	if (size < sizeof(t64) + sizeof(n16))
		return 0;
	/* results must not depend on the machine's time zone */
	if (!tz_set)
	{
		setenv("TZ", "UTC", 1);
		tzset();
		tz_set = true;
	}
	memcpy(&t64, data, sizeof(t64));
	memcpy(&n16, data + sizeof(t64), sizeof(n16));
	data += sizeof(t64) + sizeof(n16);
	size -= sizeof(t64) + sizeof(n16);
	outlen = n16 % 4097;

	pattern = malloc(size + 1);
	memcpy(pattern, data, size);
	pattern[size] = '\0';
	out = malloc(outlen > 0 ? outlen : 1);

	if (logfile_expand(pattern, (time_t) t64, out, outlen))
	{
		size_t		len = strnlen(out, outlen);

		if (len >= outlen || (len == 0 && pattern[0] != '\0'))
			abort();
	}
	free(out);
	free(pattern);
	return 0;
}
