/* SPDX-License-Identifier: MIT */
/*
 * fuzz_reply.c - the client's reply parser (hipsvm_proto_parse_reply).
 *
 * The shim parses replies inside its munmap hook, from a server it does not
 * control (another process's socket). Checked: no crash, no read past the
 * reply, status is 0 or a negative errno, every copied string is terminated
 * within its field, a token found by iteration is found by key, and the
 * in-place reader of the unmap hook (hipsvm_reply_open/next) agrees with the
 * copying parser and never points outside the reply.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_str(const char *s, size_t cap, const char *what)
{
	if (!memchr(s, '\0', cap)) {
		fprintf(stderr, "fuzz_reply: %s not terminated\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hipsvm_reply r;
	unsigned k;
	char *buf = malloc(size ? size : 1);
	int rc;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	rc = hipsvm_proto_parse_reply(buf, size, &r);
	{
		struct hipsvm_reply_it it;
		struct hipsvm_span w, key, val;
		unsigned n = 0;
		int status, rc2 = hipsvm_reply_open(buf, size, &it, &w, &status);

		if ((rc2 < 0) != (rc == -EINVAL))
			abort();
		if (rc2 >= 0 && (w.p < buf || w.p + w.n > buf + size))
			abort();
		if (rc2 == 0) {
			while (hipsvm_reply_next(&it, &key, &val)) {
				if (key.p < buf || key.p + key.n > buf + size || val.p < buf ||
				    val.p + val.n > buf + size)
					abort();
				n++;
			}
			if (rc == 0 && n != r.ntok)
				abort();
		}
	}
	free(buf);
	if (rc != 0) {
		if (rc != -EINVAL && rc != -E2BIG)
			abort();
		return 0;
	}
	if (r.status > 0 || r.ntok > HIPSVM_PROTO_MAX_TOKENS)
		abort();
	check_str(r.op, sizeof(r.op), "op");
	check_str(r.detail, sizeof(r.detail), "detail");
	for (k = 0; k < r.ntok; k++) {
		const char *v;

		check_str(r.tok[k].key, sizeof(r.tok[k].key), "key");
		check_str(r.tok[k].val, sizeof(r.tok[k].val), "val");
		v = hipsvm_reply_get(&r, r.tok[k].key);
		if (!v)
			abort();	/* the first token with this key at least */
	}
	/* The number parser on the same bytes: bounded, out untouched on failure. */
	if (size <= 64) {
		uint64_t v = 0x5a5a5a5a5a5a5a5aull;

		if (hipsvm_proto_u64((const char *)data, size, &v) != 0 &&
		    v != 0x5a5a5a5a5a5a5a5aull)
			abort();
	}
	return 0;
}
