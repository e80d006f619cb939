/* SPDX-License-Identifier: MIT */
/*
 * fuzz_proto.c - the hook protocol's request parser (src/shared/proto.c).
 *
 * The parser runs in the kernel module on bytes written by any process that can
 * open the debugfs file, so it must survive anything. Beyond "no crash", the
 * property checked is the round trip the client relies on: whatever parses
 * formats to a request that parses back to the same command. The formatter may
 * refuse a command with -ENOSPC (it writes every GPU of a list and values in
 * hex, so a short request such as "clear 0=1,1=1,..." can format longer than
 * the 256-byte bound); anything else is a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *line)
{
	fprintf(stderr, "fuzz_proto: %s\nformatted: %s\n", what, line ? line : "(none)");
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hipsvm_cmd a, b;
	char line[HIPSVM_PROTO_MAX_REQ + 1];
	char small[32];
	int len, rc;

	/* An exact-size heap copy, so that ASan sees any read past the end. */
	char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memset(&a, 0, sizeof(a));
	rc = hipsvm_proto_parse(buf, size, &a);
	free(buf);
	if (rc != 0) {
		if (rc != -EINVAL)
			fail("parse returned neither 0 nor -EINVAL", NULL);
		return 0;
	}
	if (a.op == HIPSVM_OP_NONE)
		fail("parse accepted a request without an op", NULL);
	len = hipsvm_proto_format(&a, line, sizeof(line));
	if (len == -ENOSPC)
		return 0;
	if (len <= 0 || (size_t)len > HIPSVM_PROTO_MAX_REQ || line[len - 1] != '\n' ||
	    line[len] != '\0' || strlen(line) != (size_t)len)
		fail("format of a parsed command failed or is not one line", line);
	/* The formatter must respect a short buffer too. */
	memset(small, 0x5a, sizeof(small));
	rc = hipsvm_proto_format(&a, small, 16);
	if (rc > 0 && (rc >= 16 || small[rc] != '\0'))
		fail("format overran a 16-byte buffer", line);
	if (small[16] != 0x5a)
		fail("format wrote past cap", line);
	memset(&b, 0, sizeof(b));
	if (hipsvm_proto_parse(line, (size_t)len, &b) != 0)
		fail("formatted command does not parse", line);
	if (memcmp(&a, &b, sizeof(a)) != 0)
		fail("round trip changed the command", line);
	return 0;
}
