/* SPDX-License-Identifier: MIT */
/*
 * policy.h - the routing policy (HIPSVM_POLICY), parsed once; docs/routing.md.
 *
 *   policy  := item [ "," item ]...
 *   item    := "default" | "managed-local" | "oversubscribe" | "map-all"
 *            | "quota=" quota
 *   quota   := part [ ";" part ]...        (a later part overrides an earlier one)
 *   part    := SIZE                        (every device)
 *            | DEV ":" SIZE                (device DEV)
 *            | DEV "-" DEV ":" SIZE        (devices DEV..DEV, inclusive)
 *   SIZE    := a number with an optional K/M/G/T suffix (powers of 1024)
 *
 * After a quota item, further comma-separated parts of the DEV:SIZE form
 * continue the quota ("quota=0:1G,1:2G" is "quota=0:1G;1:2G"). Spaces around
 * items are ignored; names are case-insensitive. The core never logs: a
 * malformed policy is -EINVAL with the offending item, and the caller warns
 * once and keeps the default.
 */
#ifndef HIPSVM_POLICY_H
#define HIPSVM_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/proto.h"

#define HIPSVM_POLICY_MAX_DEV HIPSVM_MAX_GPUS

struct hipsvm_policy {
	bool managed_local;
	bool oversubscribe;
	bool map_all;
	uint64_t quota_mask;			/* bit N: device N has a quota */
	uint64_t quota[HIPSVM_POLICY_MAX_DEV];	/* bytes, when the bit is set */
};

/* The default policy: everything as HIP does it. */
void hipsvm_policy_default(struct hipsvm_policy *p);

/* Parses text (NULL or "" is the default). 0, or -EINVAL with out untouched
 * and, if bad/cap are given, the offending item copied into bad. */
int hipsvm_policy_parse(const char *text, struct hipsvm_policy *out, char *bad, size_t bad_cap);

/* Byte quota of a device: true and *bytes when it has one. */
bool hipsvm_policy_quota(const struct hipsvm_policy *p, int dev, uint64_t *bytes);

bool hipsvm_policy_is_default(const struct hipsvm_policy *p);

/* The canonical text ("default", "managed-local,quota=0:1073741824;1:..."),
 * NUL-terminated and truncated to cap; the length it needed. */
size_t hipsvm_policy_format(const struct hipsvm_policy *p, char *buf, size_t cap);

#endif
