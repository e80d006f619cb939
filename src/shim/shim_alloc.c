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

static int call_device(struct hipsvm_shim *s, const struct hipsvm_call *c)
{
	return hipsvm_call_device(s, c);
}

/* (inline: its one caller is end, and every allocation comes by) */
static inline __attribute__((always_inline)) void record(struct hipsvm_shim *s,
	const struct hipsvm_call *c, enum hipsvm_kind kind, const struct hipsvm_route *rt, int dev,
	void *p, size_t size)
{
	struct hipsvm_devmap *dm;
	struct hipsvm_alloc a;
	char ctxs[24];
	int err;

	memset(&a, 0, sizeof(a));
	a.start = (uintptr_t)p;
	/* a handle spans no memory: one byte keys it in the registry */
	a.last = c->keyed ? a.start : a.start + size - 1;
	a.origin = a.start;
	a.origin_size = size;
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
		hipsvm_reg_punch(s->reg, a.start, size, discard_stale, s);
		err = hipsvm_reg_insert(s->reg, &a);
	}
	if (err && s->notify)
		s->notify(HIPSVM_EV_REGISTRY, err);
recorded:
	hipsvm_stats_alloc_call(&s->stats, rt->ctx, dev, size, rt->tag, c->api);
	if (s->trace_fd >= 0) {
		const struct hipsvm_api_row *row = hipsvm_api_row(c->api);
		struct hipsvm_tfield f[] = {
			HIPSVM_TF_S("api", row ? row->name : "?"),
			HIPSVM_TF_X("ptr", a.start),
			HIPSVM_TF_U("size", size),
			HIPSVM_TF_S("ctx", ctxs),
			HIPSVM_TF_I("dev", dev),
			HIPSVM_TF_S("route", hipsvm_route_name(rt->tag)),
		};

		ctx_name(rt->ctx, ctxs, sizeof(ctxs));
		hipsvm_trace_emit(s->trace_fd, "alloc", f, 6);
	}
}

/* A policy that routes nothing (the default): no quota, nothing kept local,
 * nothing mapped everywhere, no oversubscription. */
static bool plain(const struct hipsvm_policy *p)
{
	return !p->quota_mask && !p->managed_local && !p->map_all && !p->oversubscribe;
}

static void uncharge(struct hipsvm_shim *s, struct hipsvm_call *c, uint64_t bytes)
{
	if (c->charged)
		hipsvm_quota_uncharge(&s->quota, c->dev, bytes);
	c->charged = false;
}

enum hipsvm_verdict hipsvm_alloc_begin(struct hipsvm_shim *s, struct hipsvm_call *c)
{
	int dev;

	/* the common policies decide nothing before the call: one test */
	if (__builtin_expect(!s->policy.quota_mask && !s->policy.managed_local, 1))
		return HIPSVM_GO;
	if (c->decided || !hipsvm_api_row(c->api) ||
	    !hipsvm_route_needs_device_first(&s->policy, c->api))
		return HIPSVM_GO;
	/* Routing needs the device first (a quota, managed-local): the one
	 * the call names, or the current one, which only the wrapper asks. */
	if (c->on_device <= 0 && !c->asked) {
		c->asked = true;
		return HIPSVM_NEED_DEVICE;
	}
	dev = call_device(s, c);
	c->dev = dev;
	if (dev < 0 || hipsvm_route_decide(&s->policy, c->api, dev, &c->rt) != 0)
		return HIPSVM_GO;
	c->decided = true;
	/* (A call the runtime will refuse anyway, NULL out-pointer, keeps the
	 * runtime's own answer.) */
	if (c->rt.quota && c->size && c->ptr) {
		if (hipsvm_quota_charge(&s->quota, &s->policy, dev, c->size)) {
			hipsvm_stats_add(&s->stats.quota_denied, 1);
			if (c->rt.may_oversubscribe) {
				c->managed = true;
				return HIPSVM_MANAGED;
			}
			*c->ptr = NULL;
			c->rc = HIPSVM_HIP_ERROR_OUT_OF_MEMORY;
			return HIPSVM_REFUSE;
		}
		c->charged = true;
	}
	return HIPSVM_GO;
}

enum hipsvm_verdict hipsvm_alloc_end_any(struct hipsvm_shim *s, struct hipsvm_call *c, int rc,
					 void *p, size_t size)
{
	const struct hipsvm_api_row *row = hipsvm_api_row(c->api);
	enum hipsvm_kind kind;
	int dev, ndev, d;

	c->rc = rc;
	if (!row)
		return HIPSVM_DONE;
	kind = row->kind;
	dev = c->decided ? c->dev : -1;
	if (c->managed) {
		/* the managed memory of an oversubscription */
		if (rc != HIPSVM_HIP_SUCCESS) {
			hipsvm_stats_add(&s->stats.error[HIPSVM_ERR_RUNTIME], 1);
			return HIPSVM_DONE;
		}
		kind = HIPSVM_KIND_MANAGED;
		if (dev < 0)
			dev = call_device(s, c);
		memset(&c->rt, 0, sizeof(c->rt));
		c->rt.ctx = HIPSVM_CTX_HOST;
		c->rt.tag = HIPSVM_ROUTE_OVERSUBSCRIBED;
		c->decided = true;
		size = c->size;
	} else if (rc == HIPSVM_HIP_ERROR_OUT_OF_MEMORY && s->policy.oversubscribe &&
		   c->api == HIPSVM_API_MALLOC) {
		uncharge(s, c, c->size);
		/* The runtime recorded the out-of-memory as its last error; the
		 * program will see hipMalloc succeed, so its next
		 * hipGetLastError must not report the failure we absorbed. */
		if (s->ops.get_last_error)
			(void)s->ops.get_last_error();
		c->managed = true;
		return HIPSVM_MANAGED;
	} else if (rc != HIPSVM_HIP_SUCCESS) {
		uncharge(s, c, c->size);
		hipsvm_stats_add(&s->stats.error[HIPSVM_ERR_RUNTIME], 1);
		return HIPSVM_DONE;
	} else if (c->charged && size > c->size) {
		/* the pitch the runtime chose */
		hipsvm_quota_charge(&s->quota, &s->policy, c->dev, size - c->size);
	}
	if (!p || !size) {
		uncharge(s, c, size > c->size ? size : c->size);
		return HIPSVM_DONE;
	}
	if (dev < 0)
		dev = call_device(s, c);
	if (c->decided) {
	} else if (__builtin_expect(plain(&s->policy) && dev >= 0 && dev < HIPSVM_POLICY_MAX_DEV &&
				    row->rule != HIPSVM_RULE_BY_POINTER, 1)) {
		/* what hipsvm_route_decide answers under a policy that routes
		 * nothing: the context HIP uses, as HIP */
		memset(&c->rt, 0, sizeof(c->rt));
		c->rt.ctx = row->rule == HIPSVM_RULE_HOST ? HIPSVM_CTX_HOST : dev;
	} else if (hipsvm_route_decide(&s->policy, c->api, dev < 0 ? 0 : dev, &c->rt)) {
		return HIPSVM_DONE;
	}
	/* (asked here also for its side effect: the device count is what a
	 * coordinated unmap of this memory will name) */
	ndev = hipsvm_shim_ndev(s);
	hipsvm_shim_hook_resolve(s);
	if (c->rt.advise_preferred && dev >= 0)
		advise(s, p, size, HIPSVM_HIP_ADVISE_PREFERRED_LOCATION, dev);
	if (c->rt.advise_all) {
		bool all = ndev > 0;

		for (d = 0; d < ndev; d++)
			all &= advise(s, p, size, HIPSVM_HIP_ADVISE_ACCESSED_BY, d);
		if (!all)
			c->rt.tag = HIPSVM_ROUTE_AS_HIP;
	}
	record(s, c, kind, &c->rt, dev, p, size);
	return HIPSVM_DONE;
}

void hipsvm_free_begin_any(struct hipsvm_shim *s, struct hipsvm_free *f, enum hipsvm_api api,
			   void *p)
{
	struct hipsvm_devmap *dm;
	int rc;

	f->api = api;
	f->p = p;
	f->mine = f->from_devmap = f->unmapped = f->ipc = false;
	f->bytes = 0;
	/* Device memory first (one compare-and-swap), then the registry: one
	 * operation, whose origin tree finds every piece, also when the first
	 * bytes were unmapped already. */
	dm = __atomic_load_n(&s->devmap, __ATOMIC_ACQUIRE);
	if (p && dm && hipsvm_devmap_take(dm, (uintptr_t)p, &f->a) == 0) {
		f->mine = f->from_devmap = true;
		f->bytes = f->a.origin_size;
	} else if (p) {
		rc = hipsvm_reg_remove_origin(s->reg, (uintptr_t)p, &f->a, &f->bytes);
		f->mine = rc == 0;
		/* the program unmapped every byte of it before: the unmaps
		 * released its bytes, the free is still its free */
		f->unmapped = rc == -ESTALE;
	}
	/* a handle that went to the registry is a one-byte piece there */
	if (f->mine && !f->from_devmap && f->a.kind == HIPSVM_KIND_DEVICE &&
	    f->a.start == f->a.last && f->a.origin_size > f->bytes)
		f->bytes = f->a.origin_size;
	f->prev = hipsvm_tls.freeing;
	if (f->mine && hipsvm_kind_is_svm(f->a.kind)) {
		f->fr.start = f->a.origin;
		f->fr.last = f->a.origin + (f->a.origin_size ? f->a.origin_size - 1 : 0);
		f->fr.ctx = f->a.ctx;
		hipsvm_tls.freeing = &f->fr;
	}
	/* Closing imported memory unmaps it from the importing GPU: a HIP
	 * call's own unmap, coordinated like any other. */
	if (f->mine && api == HIPSVM_API_IPC_CLOSE && f->a.ctx >= 0)
		f->ipc = hipsvm_unmap_begin_gpus(s, &f->u, f->a.start, f->bytes,
						 hipsvm_shim_ctx_gpus(s, f->a.ctx));
}

void hipsvm_free_end_any(struct hipsvm_shim *s, struct hipsvm_free *f, int rc)
{
	struct hipsvm_alloc *a = &f->a;

	if (f->ipc)
		hipsvm_unmap_end(s, &f->u, rc == HIPSVM_HIP_SUCCESS, 0, 0);
	/* a device-table entry is never SVM: begin left the marker alone (and
	 * the inline begin does not save it) */
	if (!f->from_devmap)
		hipsvm_tls.freeing = f->prev;
	if (rc != HIPSVM_HIP_SUCCESS) {
		/* Still allocated: back into the registry. Of an allocation
		 * that was partly unmapped only the first piece comes back
		 * (docs/limits.md). */
		if (f->mine && (!f->from_devmap ||
				hipsvm_devmap_insert(__atomic_load_n(&s->devmap, __ATOMIC_ACQUIRE), a)))
			hipsvm_reg_insert(s->reg, a);
		hipsvm_stats_add(&s->stats.error[HIPSVM_ERR_RUNTIME], 1);
		return;
	}
	if (f->unmapped) {
		hipsvm_stats_release(&s->stats, a->ctx, a->device, 0, true);
		hipsvm_stats_api(&s->stats, f->api, 0);
		hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_FREED_AFTER], 1);
		return;
	}
	if (!f->mine) {
		if (f->p)
			hipsvm_stats_add(&s->stats.error[HIPSVM_ERR_UNKNOWN_POINTER_FREE], 1);
		return;
	}
	hipsvm_shim_release(s, a, f->bytes, (int)f->api);
	if (s->trace_fd >= 0) {
		char ctxs[24];
		struct hipsvm_tfield tf[] = {
			HIPSVM_TF_X("ptr", a->origin),
			HIPSVM_TF_U("size", f->bytes),
			HIPSVM_TF_S("ctx", ctxs),
		};

		ctx_name(a->ctx, ctxs, sizeof(ctxs));
		hipsvm_trace_emit(s->trace_fd, "free", tf, 3);
	}
}
