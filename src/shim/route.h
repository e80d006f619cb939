/* SPDX-License-Identifier: MIT */
/*
 * route.h - where an allocation goes under the routing policy (policy.h), and
 * the per-device quota ledger. Pure decisions, no HIP calls: the shim asks,
 * then does what the answer says (docs/routing.md).
 */
#ifndef HIPSVM_ROUTE_H
#define HIPSVM_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "shim/api.h"
#include "shim/policy.h"

/* The decision tag stored with every registry entry (hipsvm_alloc.route). */
enum hipsvm_route_tag {
	HIPSVM_ROUTE_AS_HIP = 0,
	HIPSVM_ROUTE_MANAGED_LOCAL,	/* hipMallocManaged kept in the current device's context */
	HIPSVM_ROUTE_OVERSUBSCRIBED,	/* hipMalloc out of memory, retried as managed */
	HIPSVM_ROUTE_MAPPED_ALL,	/* host_context allocation advised on every device */
	HIPSVM_ROUTE_COUNT
};

/* "as_hip", "managed_local", "oversubscribed", "mapped_all" (report keys). */
const char *hipsvm_route_name(uint32_t tag);

struct hipsvm_route {
	int ctx;		/* HIPSVM_CTX_HOST or a device index */
	uint32_t tag;		/* enum hipsvm_route_tag */
	bool advise_preferred;	/* hipMemAdviseSetPreferredLocation to the current device */
	bool advise_all;	/* hipMemAdviseSetAccessedBy on every device */
	bool quota;		/* counts against the current device's quota */
	bool may_oversubscribe;	/* retry as managed in host_context on out-of-memory */
};

/* Does deciding for api need the current device before the real call (a
 * quota to check, or a managed allocation to keep local)? When false the
 * shim asks for the device only after the call succeeded. */
bool hipsvm_route_needs_device_first(const struct hipsvm_policy *p, enum hipsvm_api api);

/* The route of an allocating api made while cur_dev is current. -EINVAL for
 * a freeing api or cur_dev out of range; out untouched then. */
int hipsvm_route_decide(const struct hipsvm_policy *p, enum hipsvm_api api, int cur_dev,
			struct hipsvm_route *out);

/* Per-device bytes charged against the quota; lock-free. */
struct hipsvm_quota {
	uint64_t used[HIPSVM_POLICY_MAX_DEV];
};

/* Charges bytes to dev: 0, or -ENOMEM when that would pass the device's
 * quota (nothing charged). A device without a quota is charged too, so that
 * the ledger is the device's live routed bytes. */
int hipsvm_quota_charge(struct hipsvm_quota *q, const struct hipsvm_policy *p, int dev,
			uint64_t bytes);
void hipsvm_quota_uncharge(struct hipsvm_quota *q, int dev, uint64_t bytes);

#endif
