/* SPDX-License-Identifier: MIT */
/*
 * shim_alloc.c - attribution and routing of HIP allocations (docs/design.md, Contexts;
 * docs/routing.md).
 *
 * An allocation is recorded only after the real call succeeded, with the
 * context HIP would use (or the one the policy chose). A free finds the owner
 * by pointer and, as ROCclr's svmFree does, takes the entry out of the
 * registry BEFORE the real free: once the runtime has the memory back it can
 * hand the same address to another thread, whose new entry must not be
 * removed by this free. The runtime's own munmap inside the free still finds
 * what is being freed through the thread-local marker (hipsvm_tls.freeing)
 * and is coordinated. Should the real free fail, the entry goes back.
 * (The free of a pointer that is not an allocation's start finds nothing:
 * the runtime answers for it.)
 */
#include "shim/shim.h"

#include <errno.h>
#include <string.h>

#include "shim/trace.h"

static void ctx_name(int ctx, char *buf, size_t cap)
{
	struct hipsvm_jw w;

	hipsvm_jw_init(&w, buf, cap);
	if (ctx == HIPSVM_CTX_HOST) {
		hipsvm_jw_raw(&w, "host_context");
	} else {
		hipsvm_jw_raw(&w, "device:");
		hipsvm_jw_u64(&w, (uint64_t)ctx);
	}
	hipsvm_jw_end(&w);
}

static void discard_stale(void *arg, const struct hipsvm_alloc *a)
{
	struct hipsvm_shim *s = arg;

	hipsvm_stats_release(&s->stats, a->ctx, a->device, a->last - a->start + 1, false);
}

/* Advice is a routing hint: its failure must not change what the program
 * sees, so the error it left in the runtime is taken back out. */
static bool advise(struct hipsvm_shim *s, void *p, size_t n, int advice, int dev)
{
	if (!s->ops.mem_advise)
		return false;
	if (s->ops.mem_advise(p, n, advice, dev) == HIPSVM_HIP_SUCCESS)
		return true;
	if (s->ops.get_last_error)
		s->ops.get_last_error();
	return false;
}

static int current_device(struct hipsvm_shim *s)
{
	int dev = -1;

	if (!s->ops.get_device || s->ops.get_device(&dev) != HIPSVM_HIP_SUCCESS || dev < 0 ||
	    dev >= HIPSVM_MAX_GPUS)
		return -1;
	return dev;
}

/* The device the call allocates on: the one it names, or the current one. */
static int call_device(struct hipsvm_shim *s, const struct hipsvm_call *c)
{
	if (c->on_device > 0 && c->on_device <= HIPSVM_MAX_GPUS)
		return c->on_device - 1;
	return current_device(s);
}

static void record(struct hipsvm_shim *s, struct hipsvm_call *c, enum hipsvm_kind kind,
		   const struct hipsvm_route *rt, int dev, void *p)
{
	struct hipsvm_devmap *dm;
	struct hipsvm_alloc a;
	char ctxs[24];
	int err;

	memset(&a, 0, sizeof(a));
	a.start = (uintptr_t)p;
	/* a handle spans no memory: one byte keys it in the registry */
	a.last = c->keyed ? a.start : a.start + c->size - 1;
	a.origin = a.start;
	a.origin_size = c->size;
	a.kind = kind;
	a.ctx = rt->ctx;
	a.device = dev;
	a.flags = c->flags;
	a.route = rt->tag;
	a.api = c->api;
	dm = hipsvm_shim_devmap(s);
	if (kind == HIPSVM_KIND_DEVICE && rt->ctx >= 0 && dm && hipsvm_devmap_insert(dm, &a) == 0)
		goto recorded;	/* device memory: no interval needed (shim_devmap.h) */
	if (dm) {
		/* a device entry at this address whose free was never seen */
		struct hipsvm_alloc stale;

		if (hipsvm_devmap_take(dm, a.start, &stale) == 0)
			discard_stale(s, &stale);
	}
	err = hipsvm_reg_insert(s->reg, &a);
	if (err == -EEXIST) {
		/* Someone unmapped this range behind the shim's back (glibc's
		 * own munmap, a raw syscall) and the runtime reused it. */
		hipsvm_reg_punch(s->reg, a.start, c->size, discard_stale, s);
		err = hipsvm_reg_insert(s->reg, &a);
	}
	if (err && s->notify)
		s->notify(HIPSVM_EV_REGISTRY, err);
recorded:
	hipsvm_stats_alloc(&s->stats, rt->ctx, dev, c->size, rt->tag);
	hipsvm_stats_api(&s->stats, c->api, c->size);
	if (s->trace_fd >= 0) {
		const struct hipsvm_api_row *row = hipsvm_api_row(c->api);
		struct hipsvm_tfield f[] = {
			HIPSVM_TF_S("api", row ? row->name : "?"),
			HIPSVM_TF_X("ptr", a.start),
			HIPSVM_TF_U("size", c->size),
			HIPSVM_TF_S("ctx", ctxs),
			HIPSVM_TF_I("dev", dev),
			HIPSVM_TF_S("route", hipsvm_route_name(rt->tag)),
		};

		ctx_name(rt->ctx, ctxs, sizeof(ctxs));
		hipsvm_trace_emit(s->trace_fd, "alloc", f, 6);
	}
}

int hipsvm_shim_alloc(struct hipsvm_shim *s, struct hipsvm_call *c)
{
	const struct hipsvm_api_row *row = hipsvm_api_row(c->api);
	enum hipsvm_kind kind = row ? row->kind : HIPSVM_KIND_DEVICE;
	struct hipsvm_route rt;
	bool decided = false, charge = false;
	int dev = -1, rc, ndev, d;
	size_t charged_bytes = c->size;	/* real() may change c->size (pitch) */
	void *p;

	c->saved_errno = errno;
	if (!row) {
		rc = c->real(c);
		c->saved_errno = errno;
		return rc;
	}
	if (hipsvm_route_needs_device_first(&s->policy, c->api)) {
		dev = call_device(s, c);
		if (dev >= 0 && hipsvm_route_decide(&s->policy, c->api, dev, &rt) == 0)
			decided = true;
	}
	/* (A call the runtime will refuse anyway, NULL out-pointer, keeps the
	 * runtime's own answer.) */
	if (decided && rt.quota && c->size && c->ptr) {
		if (hipsvm_quota_charge(&s->quota, &s->policy, dev, charged_bytes)) {
			hipsvm_stats_add(&s->stats.quota_denied, 1);
			if (rt.may_oversubscribe)
				goto oversubscribe;
			*c->ptr = NULL;
			return HIPSVM_HIP_ERROR_OUT_OF_MEMORY;
		}
		charge = true;
	}
	rc = c->real(c);
	c->saved_errno = errno;
	if (rc == HIPSVM_HIP_ERROR_OUT_OF_MEMORY && s->policy.oversubscribe &&
	    c->api == HIPSVM_API_MALLOC) {
		if (charge)
			hipsvm_quota_uncharge(&s->quota, dev, charged_bytes);
		charge = false;
		/* The runtime recorded the out-of-memory as its last error; the
		 * program will see hipMalloc succeed, so its next
		 * hipGetLastError must not report the failure we absorbed. */
		if (s->ops.get_last_error)
			(void)s->ops.get_last_error();
		goto oversubscribe;
	}
	if (rc != HIPSVM_HIP_SUCCESS) {
		if (charge)
			hipsvm_quota_uncharge(&s->quota, dev, charged_bytes);
		hipsvm_stats_add(&s->stats.error[HIPSVM_ERR_RUNTIME], 1);
		return rc;
	}
	if (charge && c->size > charged_bytes)	/* the pitch the runtime chose */
		hipsvm_quota_charge(&s->quota, &s->policy, dev, c->size - charged_bytes);
	goto record;

oversubscribe:
	if (!s->ops.malloc_managed)
		return HIPSVM_HIP_ERROR_OUT_OF_MEMORY;
	rc = s->ops.malloc_managed(c->ptr, c->size, HIPSVM_HIP_MEM_ATTACH_GLOBAL);
	c->saved_errno = errno;
	if (rc != HIPSVM_HIP_SUCCESS) {
		hipsvm_stats_add(&s->stats.error[HIPSVM_ERR_RUNTIME], 1);
		return rc;
	}
	kind = HIPSVM_KIND_MANAGED;
	if (dev < 0)
		dev = call_device(s, c);
	memset(&rt, 0, sizeof(rt));
	rt.ctx = HIPSVM_CTX_HOST;
	rt.tag = HIPSVM_ROUTE_OVERSUBSCRIBED;
	decided = true;

record:
	p = c->ptr ? *c->ptr : NULL;
	if (!p || !c->size) {
		if (charge)
			hipsvm_quota_uncharge(&s->quota, dev, charged_bytes);
		return HIPSVM_HIP_SUCCESS;
	}
	if (dev < 0)
		dev = call_device(s, c);
	if (!decided && hipsvm_route_decide(&s->policy, c->api, dev < 0 ? 0 : dev, &rt))
		return HIPSVM_HIP_SUCCESS;
	ndev = hipsvm_shim_ndev(s);
	hipsvm_shim_hook_resolve(s);
	if (rt.advise_preferred && dev >= 0)
		advise(s, p, c->size, HIPSVM_HIP_ADVISE_PREFERRED_LOCATION, dev);
	if (rt.advise_all) {
		bool all = ndev > 0;

		for (d = 0; d < ndev; d++)
			all &= advise(s, p, c->size, HIPSVM_HIP_ADVISE_ACCESSED_BY, d);
		if (!all)
			rt.tag = HIPSVM_ROUTE_AS_HIP;
	}
	record(s, c, kind, &rt, dev, p);
	return HIPSVM_HIP_SUCCESS;
}

int hipsvm_shim_free(struct hipsvm_shim *s, struct hipsvm_call *c)
{
	const struct hipsvm_freeing *prev;
	struct hipsvm_devmap *dm;
	struct hipsvm_freeing fr;
	struct hipsvm_alloc a;
	uint64_t bytes = 0;
	void *p = c->ptr ? *c->ptr : NULL;
	bool mine = false, from_devmap = false, unmapped = false;
	struct hipsvm_unmap u;
	int rc, ipc = 0;

	c->saved_errno = errno;
	/* Device memory first (one compare-and-swap), then the registry: one
	 * operation, whose origin tree finds every piece, also when the first
	 * bytes were unmapped already. */
	dm = __atomic_load_n(&s->devmap, __ATOMIC_ACQUIRE);
	if (p && dm && hipsvm_devmap_take(dm, (uintptr_t)p, &a) == 0) {
		mine = from_devmap = true;
		bytes = a.origin_size;
	} else if (p) {
		rc = hipsvm_reg_remove_origin(s->reg, (uintptr_t)p, &a, &bytes);
		mine = rc == 0;
		/* the program unmapped every byte of it before: the unmaps
		 * released its bytes, the free is still its free */
		unmapped = rc == -ESTALE;
	}
	/* a handle that went to the registry is a one-byte piece there */
	if (mine && !from_devmap && a.kind == HIPSVM_KIND_DEVICE && a.start == a.last &&
	    a.origin_size > bytes)
		bytes = a.origin_size;
	prev = hipsvm_tls.freeing;
	if (mine && hipsvm_kind_is_svm(a.kind)) {
		fr.start = a.origin;
		fr.last = a.origin + (a.origin_size ? a.origin_size - 1 : 0);
		fr.ctx = a.ctx;
		hipsvm_tls.freeing = &fr;
	}
	/* Closing imported memory unmaps it from the importing GPU: a HIP
	 * call's own unmap, coordinated like any other. */
	if (mine && c->api == HIPSVM_API_IPC_CLOSE && a.ctx >= 0)
		ipc = hipsvm_unmap_begin_gpus(s, &u, a.start, bytes,
					      hipsvm_shim_ctx_gpus(s, a.ctx));
	rc = c->real(c);
	c->saved_errno = errno;
	if (ipc)
		hipsvm_unmap_end(s, &u, rc == HIPSVM_HIP_SUCCESS, 0, 0);
	hipsvm_tls.freeing = prev;
	if (rc != HIPSVM_HIP_SUCCESS) {
		/* Still allocated: back into the registry. Of an allocation
		 * that was partly unmapped only the first piece comes back
		 * (docs/limits.md). */
		if (mine && (!from_devmap || hipsvm_devmap_insert(dm, &a)))
			hipsvm_reg_insert(s->reg, &a);
		hipsvm_stats_add(&s->stats.error[HIPSVM_ERR_RUNTIME], 1);
		return rc;
	}
	if (unmapped) {
		hipsvm_stats_release(&s->stats, a.ctx, a.device, 0, true);
		hipsvm_stats_api(&s->stats, c->api, 0);
		hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_FREED_AFTER], 1);
		return rc;
	}
	if (!mine) {
		if (p)
			hipsvm_stats_add(&s->stats.error[HIPSVM_ERR_UNKNOWN_POINTER_FREE], 1);
		return rc;
	}
	hipsvm_shim_release(s, &a, bytes, true);
	hipsvm_stats_api(&s->stats, c->api, 0);
	if (s->trace_fd >= 0) {
		char ctxs[24];
		struct hipsvm_tfield f[] = {
			HIPSVM_TF_X("ptr", a.origin),
			HIPSVM_TF_U("size", bytes),
			HIPSVM_TF_S("ctx", ctxs),
		};

		ctx_name(a.ctx, ctxs, sizeof(ctxs));
		hipsvm_trace_emit(s->trace_fd, "free", f, 3);
	}
	return rc;
}
