/* SPDX-License-Identifier: MIT */
/*
 * fuzz_policy.c - the routing policy parser (src/shim/policy.c, HIPSVM_POLICY).
 *
 * Checked: no crash or over-read (exact-size copy of the text), 0 or -EINVAL,
 * the output untouched on failure and the bad-item buffer terminated within
 * its (fuzzed) capacity; and the round trip: whatever parses formats to the
 * canonical text, which parses back to the same policy and formats to the
 * same text again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, const char *text)
{
	fprintf(stderr, "fuzz_policy: %s\ntext: %s\n", what, text ? text : "(none)");
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hipsvm_policy a, b, sentinel;
	static char canon[8192], again[8192];
	char bad[64];
	size_t bad_cap, len, len2;
	char *text;
	int rc;

	if (size < 1 || size > 4096)
		return 0;
	bad_cap = data[0] % (sizeof(bad) + 1);
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';

	memset(&a, 0xa5, sizeof(a));
	sentinel = a;
	memset(bad, 0x5a, sizeof(bad));
	rc = hipsvm_policy_parse(text, &a, bad_cap ? bad : NULL, bad_cap);
	if (rc != 0) {
		if (rc != -EINVAL)
			die("neither 0 nor -EINVAL", text);
		if (memcmp(&a, &sentinel, sizeof(a)))
			die("output changed on failure", text);
		if (bad_cap && !memchr(bad, '\0', bad_cap))
			die("bad item not terminated", text);
		for (len = bad_cap; len < sizeof(bad); len++)
			if (bad[len] != 0x5a)
				die("bad item written past its capacity", text);
		free(text);
		return 0;
	}
	len = hipsvm_policy_format(&a, canon, sizeof(canon));
	if (len >= sizeof(canon) || strlen(canon) != len)
		die("format length", text);
	memset(&b, 0, sizeof(b));
	if (hipsvm_policy_parse(canon, &b, NULL, 0) != 0)
		die("canonical text does not parse", canon);
	if (a.managed_local != b.managed_local || a.oversubscribe != b.oversubscribe ||
	    a.map_all != b.map_all || a.quota_mask != b.quota_mask)
		die("round trip changed the policy", canon);
	for (unsigned d = 0; d < HIPSVM_POLICY_MAX_DEV; d++) {
		uint64_t qa, qb;
		bool ha = hipsvm_policy_quota(&a, (int)d, &qa), hb = hipsvm_policy_quota(&b, (int)d, &qb);

		if (ha != hb || (ha && qa != qb))
			die("round trip changed a quota", canon);
	}
	len2 = hipsvm_policy_format(&b, again, sizeof(again));
	if (len2 != len || strcmp(canon, again))
		die("canonical text is not stable", canon);
	if (hipsvm_policy_is_default(&a) != hipsvm_policy_is_default(&b))
		die("is_default differs", canon);
	/* A short buffer: truncated, terminated, same length reported. */
	if (hipsvm_policy_format(&a, again, 8) != len || strlen(again) >= 8)
		die("truncated format", canon);
	free(text);
	return 0;
}
