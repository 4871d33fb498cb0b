/*
 * utf8.h — making text from the server valid UTF-8.
 *
 * A server's text is not always UTF-8: an SQL_ASCII database hands out any
 * bytes its clients stored.  JSON output and a UTF-8 store need valid text,
 * so each byte that does not start a well-formed UTF-8 sequence (RFC 3629:
 * no overlongs, no surrogates, nothing above U+10FFFF) is written as the
 * four ASCII characters \xNN instead — visible, lossless for the reader,
 * and the same in every output of every tool.
 */
#ifndef PGTEMPO_UTF8_H
#define PGTEMPO_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#include "pgtempo/strbuf.h"

/* Length (1..4) of the well-formed sequence at s[0..n), or 0 if there is none. */
size_t		utf8_seq_len(const char *s, size_t n);

/* True if s[0..n) is entirely well-formed UTF-8. */
bool		utf8_valid(const char *s, size_t n);

/* Append s[0..n) to sb with each byte of an invalid sequence written as \xNN. */
void		utf8_append_escaped(strbuf *sb, const char *s, size_t n);

#endif
