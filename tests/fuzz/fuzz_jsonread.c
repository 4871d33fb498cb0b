/*
 * fuzz_jsonread.c — libFuzzer target for the JSON reader (jsonread.h):
 * the tree parser and the flat scan that --from-log uses, on the same
 * input.
 *
 * Neither may crash or read past the input (it is copied to a buffer of
 * exactly its size, with no NUL after it, so ASan sees an overread).  The
 * property that makes them one grammar: when the flat scan accepts an
 * object, the tree parser accepts it too and holds the same members with
 * the same values (jsonflat_agree.h); a disagreement aborts.  The inside
 * of the input as a list (jsonread_item) and as a string body
 * (jsonread_unescape) is read too: a string body the unescape accepts is
 * valid UTF-8.  Built and run by "make fuzz"; not part of make check.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/jsonread.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/utf8.h"

#include "jsonflat_agree.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *text = malloc(size > 0 ? size : 1);
	const char *p;
	jsonread_field item;
	strbuf		sb;

	memcpy(text, data, size);
	if (jsonflat_agree(text, size) != NULL)
		abort();

	/* the input as a list of scalars: each item within it, and the walk ends */
	p = text;
	while (jsonread_item(&p, text + size, &item) > 0)
		if (item.v < text || item.v + item.vlen > text + size || p > text + size)
			abort();

	/* the input as a string body: what it decodes to is valid UTF-8 and no longer */
	strbuf_init(&sb);
	if (jsonread_unescape(&sb, text, size) &&
		(sb.len > size || !utf8_valid(sb.data, sb.len)))
		abort();
	strbuf_free(&sb);
	free(text);
	return 0;
}
