/* SPDX-License-Identifier: MIT */
/*
 * route.c - routing decisions (route.h). The default route is the table of
 * context.h, i.e. exactly what HIP does; every policy is a small departure
 * from it, written here once.
 */
#include "shim/route.h"

#include <errno.h>

#include "shared/compat.h"

const char *hipsvm_route_name(uint32_t tag)
{
	static const char *const names[HIPSVM_ROUTE_COUNT] = {
		[HIPSVM_ROUTE_AS_HIP] = "as_hip",
		[HIPSVM_ROUTE_MANAGED_LOCAL] = "managed_local",
		[HIPSVM_ROUTE_OVERSUBSCRIBED] = "oversubscribed",
		[HIPSVM_ROUTE_MAPPED_ALL] = "mapped_all",
	};

	return tag < HIPSVM_ROUTE_COUNT ? names[tag] : "unknown";
}

/* Device memory in a primary context: what a quota limits (as HAMi does). */
static bool is_device_memory(enum hipsvm_api api)
{
	const struct hipsvm_api_row *row = hipsvm_api_row(api);

	return row && row->rule == HIPSVM_RULE_PRIMARY_CURRENT && row->kind == HIPSVM_KIND_DEVICE;
}

bool hipsvm_route_needs_device_first(const struct hipsvm_policy *p, enum hipsvm_api api)
{
	if (p->quota_mask && is_device_memory(api))
		return true;
	return p->managed_local && api == HIPSVM_API_MALLOC_MANAGED;
}

int hipsvm_route_decide(const struct hipsvm_policy *p, enum hipsvm_api api, int cur_dev,
			struct hipsvm_route *out)
{
	const struct hipsvm_api_row *row = hipsvm_api_row(api);
	struct hipsvm_route r = { 0 };

	if (!row || row->rule == HIPSVM_RULE_BY_POINTER)
		return -EINVAL;
	if (cur_dev < 0 || cur_dev >= HIPSVM_POLICY_MAX_DEV)
		return -EINVAL;
	r.ctx = row->rule == HIPSVM_RULE_HOST ? HIPSVM_CTX_HOST : cur_dev;
	r.tag = HIPSVM_ROUTE_AS_HIP;
	if (api == HIPSVM_API_MALLOC_MANAGED && p->managed_local) {
		/* Only the current GPU is checkpointed on unmap, and the pages
		 * are advised to live there. */
		r.ctx = cur_dev;
		r.tag = HIPSVM_ROUTE_MANAGED_LOCAL;
		r.advise_preferred = true;
		r.quota = p->quota_mask != 0;
	} else if (r.ctx == HIPSVM_CTX_HOST && p->map_all &&
		   (row->kind == HIPSVM_KIND_MANAGED || row->kind == HIPSVM_KIND_HOST)) {
		/* svmAlloc maps the same VA on every SVM device; advise says so
		 * to the runtime at allocation time. Registered and signal
		 * memory have no advice to give. */
		r.tag = HIPSVM_ROUTE_MAPPED_ALL;
		r.advise_all = true;
	}
	if (is_device_memory(api))
		r.quota = p->quota_mask != 0;
	r.may_oversubscribe = p->oversubscribe && api == HIPSVM_API_MALLOC;
	*out = r;
	return 0;
}

int hipsvm_quota_charge(struct hipsvm_quota *q, const struct hipsvm_policy *p, int dev,
			uint64_t bytes)
{
	uint64_t limit = 0, cur;
	bool limited;

	if (dev < 0 || dev >= HIPSVM_POLICY_MAX_DEV)
		return -EINVAL;
	limited = hipsvm_policy_quota(p, dev, &limit);
	cur = HIPSVM_LOAD(&q->used[dev]);
	for (;;) {
		uint64_t next = cur + bytes, seen;

		if (next < cur || (limited && next > limit))
			return -ENOMEM;
		seen = hipsvm_cmpxchg64(&q->used[dev], cur, next);
		if (seen == cur)
			return 0;
		cur = seen;
	}
}

void hipsvm_quota_uncharge(struct hipsvm_quota *q, int dev, uint64_t bytes)
{
	if (dev < 0 || dev >= HIPSVM_POLICY_MAX_DEV)
		return;
	uint64_t cur = HIPSVM_LOAD(&q->used[dev]);

	/* Saturating: a charge made before a quota could be checked (no
	 * current device) must not wrap the ledger when it is given back. */
	for (;;) {
		uint64_t seen = hipsvm_cmpxchg64(&q->used[dev], cur, cur > bytes ? cur - bytes : 0);

		if (seen == cur)
			return;
		cur = seen;
	}
}
