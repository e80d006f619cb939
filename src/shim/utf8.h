/* SPDX-License-Identifier: MIT */
/*
 * utf8.h - how long the UTF-8 character at p is, so that every JSON writer
 * (the shim's report and trace, the hipsvm command's JSON and Perfetto
 * output) writes valid UTF-8 whatever bytes a path or a name holds, and no
 * cut falls inside a character. Header-only: no state, no libc.
 */
#ifndef HIPSVM_UTF8_H
#define HIPSVM_UTF8_H

#include <stddef.h>

/* The length (1 to 4) of the well-formed UTF-8 sequence starting at p
 * (at most n bytes available), or 0 when the byte at p does not start one:
 * a stray continuation byte, an overlong form, a surrogate (U+D800 to
 * U+DFFF), a value above U+10FFFF, or a sequence cut short. ASCII is 1. */
static inline size_t hipsvm_utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len, i;
	unsigned lo = 0x80, hi = 0xbf;

	if (!n)
		return 0;
	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		return 0;
	if (c < 0xe0) {
		len = 2;
	} else if (c < 0xf0) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong below U+0800 */
		else if (c == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (c < 0xf5) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;	/* overlong below U+10000 */
		else if (c == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/* What every JSON writer puts for a byte that starts no character: the
 * replacement character U+FFFD, as an escape (plain ASCII). */
#define HIPSVM_UTF8_BAD_ESCAPE "\\ufffd"

#endif
