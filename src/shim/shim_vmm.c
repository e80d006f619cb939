/* SPDX-License-Identifier: MIT */
/* shim_vmm.c - see shim_vmm.h. Linear scans: a process holds a handful of
 * pools and, at most, a few hundred mappings, and none of this is on a hot
 * path. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "shim/shim_vmm.h"
#include "shim/shim.h"
#include "shim/trace.h"

void hipsvm_vmm_init(struct hipsvm_vmm *v)
{
	memset(v, 0, sizeof(*v));
	pthread_mutex_init(&v->lock, NULL);
}

int hipsvm_vmm_pool_set(struct hipsvm_vmm *v, uintptr_t pool, int dev)
{
	unsigned i;
	int rc = -ENOSPC;

	pthread_mutex_lock(&v->lock);
	for (i = 0; i < v->npool && v->pool[i].pool != pool; i++)
		;
	if (i < HIPSVM_VMM_POOLS) {
		v->pool[i].pool = pool;
		v->pool[i].dev = dev;
		if (i == v->npool)
			v->npool++;
		rc = 0;
	}
	pthread_mutex_unlock(&v->lock);
	return rc;
}

int hipsvm_vmm_pool_dev(struct hipsvm_vmm *v, uintptr_t pool)
{
	unsigned i;
	int dev = -1;

	pthread_mutex_lock(&v->lock);
	for (i = 0; i < v->npool; i++)
		if (v->pool[i].pool == pool)
			dev = v->pool[i].dev;
	pthread_mutex_unlock(&v->lock);
	return dev;
}

void hipsvm_vmm_pool_forget(struct hipsvm_vmm *v, uintptr_t pool)
{
	unsigned i;

	pthread_mutex_lock(&v->lock);
	for (i = 0; i < v->npool; i++)
		if (v->pool[i].pool == pool)
			v->pool[i] = v->pool[--v->npool];
	pthread_mutex_unlock(&v->lock);
}

int hipsvm_vmm_map(struct hipsvm_vmm *v, uintptr_t start, size_t len, uint64_t gpus)
{
	int rc = 0;

	if (!len || start + (len - 1) < start)
		return -EINVAL;
	pthread_mutex_lock(&v->lock);
	if (v->nmap == HIPSVM_VMM_MAPS) {
		v->untracked++;
		rc = -ENOSPC;
	} else {
		v->map[v->nmap].start = start;
		v->map[v->nmap].last = start + (len - 1);
		v->map[v->nmap].gpus = gpus;
		v->nmap++;
	}
	pthread_mutex_unlock(&v->lock);
	return rc;
}

/* closed ranges [s1, l1] and [s2, l2] overlap iff each starts before the
 * other ends */
static bool overlaps(uintptr_t s1, uintptr_t l1, uintptr_t s2, uintptr_t l2)
{
	return s1 <= l2 && s2 <= l1;
}

static uintptr_t last_of(uintptr_t start, size_t len)
{
	uintptr_t last = start + (len - 1);

	return last < start ? UINTPTR_MAX : last;
}

void hipsvm_vmm_access(struct hipsvm_vmm *v, uintptr_t start, size_t len, uint64_t set,
		       uint64_t clear)
{
	uintptr_t last;
	unsigned i;

	if (!len)
		return;
	last = last_of(start, len);
	pthread_mutex_lock(&v->lock);
	for (i = 0; i < v->nmap; i++)
		if (overlaps(v->map[i].start, v->map[i].last, start, last))
			v->map[i].gpus = (v->map[i].gpus | set) & ~clear;
	pthread_mutex_unlock(&v->lock);
}

uint64_t hipsvm_vmm_gpus(struct hipsvm_vmm *v, uintptr_t start, size_t len, bool remove,
			 bool *known)
{
	uint64_t gpus = 0;
	uintptr_t last;
	unsigned i = 0;

	*known = true;
	if (!len)
		return 0;
	last = last_of(start, len);
	pthread_mutex_lock(&v->lock);
	*known = v->untracked == 0;
	while (i < v->nmap) {
		if (!overlaps(v->map[i].start, v->map[i].last, start, last)) {
			i++;
			continue;
		}
		gpus |= v->map[i].gpus;
		if (remove && v->map[i].start >= start && v->map[i].last <= last)
			v->map[i] = v->map[--v->nmap];
		else
			i++;
	}
	pthread_mutex_unlock(&v->lock);
	return gpus;
}

/* ---- the shim's side (mem_wrap.c calls these) ---- */

void hipsvm_shim_pool_event(struct hipsvm_shim *s, const char *what, uintptr_t pool,
			    uint64_t arg)
{
	bool trim = !strcmp(what, "pool_trim");

	hipsvm_stats_add(trim ? &s->stats.pool_trims :
			 !strcmp(what, "pool_export") ? &s->stats.pool_exports :
			 &s->stats.pools_destroyed, 1);
	if (s->trace_fd >= 0) {
		struct hipsvm_tfield f[] = {
			HIPSVM_TF_X("pool", pool),
			HIPSVM_TF_U("keep", arg),
		};

		hipsvm_trace_emit(s->trace_fd, what, f, trim ? 2 : 1);
	}
}

/* The device of a physical allocation handle (its keyed entry), or -1. */
static int handle_device(struct hipsvm_shim *s, uintptr_t handle)
{
	struct hipsvm_devmap *dm = __atomic_load_n(&s->devmap, __ATOMIC_ACQUIRE);
	struct hipsvm_alloc a;

	if (dm && hipsvm_devmap_take(dm, handle, &a) == 0) {
		/* a look, not a free: straight back in */
		if (hipsvm_devmap_insert(dm, &a))
			hipsvm_reg_insert(s->reg, &a);
		return a.ctx;
	}
	if (hipsvm_reg_find(s->reg, handle, &a) == 0 && a.kind == HIPSVM_KIND_DEVICE)
		return a.ctx;
	return -1;
}

void hipsvm_shim_vmm_event(struct hipsvm_shim *s, const char *what, uintptr_t addr, size_t len)
{
	hipsvm_stats_add(!strcmp(what, "vmm_reserve") ? &s->stats.vmm_reserves :
			 &s->stats.vmm_frees, 1);
	if (s->trace_fd >= 0) {
		struct hipsvm_tfield f[] = {
			HIPSVM_TF_X("addr", addr),
			HIPSVM_TF_U("len", len),
		};

		hipsvm_trace_emit(s->trace_fd, what, f, 2);
	}
}

void hipsvm_shim_vmm_mapped(struct hipsvm_shim *s, uintptr_t start, size_t len, uintptr_t handle)
{
	int dev = handle_device(s, handle);

	hipsvm_stats_add(&s->stats.vmm_maps, 1);
	hipsvm_vmm_map(&s->vmm, start, len, dev >= 0 ? hipsvm_shim_ctx_gpus(s, dev) : 0);
	if (s->trace_fd >= 0) {
		struct hipsvm_tfield f[] = {
			HIPSVM_TF_X("addr", start),
			HIPSVM_TF_U("len", len),
			HIPSVM_TF_I("dev", dev),
		};

		hipsvm_trace_emit(s->trace_fd, "vmm_map", f, 3);
	}
}

void hipsvm_shim_vmm_access(struct hipsvm_shim *s, uintptr_t start, size_t len,
			    const struct hipsvm_access_desc *desc, size_t count)
{
	uint64_t set = 0, clear = 0;
	size_t i;

	for (i = 0; desc && i < count; i++) {
		int d = desc[i].location.id;

		if (desc[i].location.type != HIPSVM_HIP_MEM_LOCATION_DEVICE || d < 0 ||
		    d >= HIPSVM_MAX_GPUS)
			continue;
		if (desc[i].flags == HIPSVM_HIP_MEM_ACCESS_PROT_NONE)
			clear |= UINT64_C(1) << d;
		else
			set |= UINT64_C(1) << d;
	}
	if (set | clear)
		hipsvm_vmm_access(&s->vmm, start, len, set, clear);
}

void hipsvm_shim_vmm_unmap_begin(struct hipsvm_shim *s, struct hipsvm_unmap *u, uintptr_t start,
				 size_t len)
{
	bool known;
	uint64_t gpus = hipsvm_vmm_gpus(&s->vmm, start, len, false, &known);

	if (!known)
		gpus |= hipsvm_shim_ctx_gpus(s, HIPSVM_CTX_HOST);
	/* begin_gpus leaves u->active false when there is nothing to set */
	hipsvm_unmap_begin_gpus(s, u, start, len, gpus);
}

void hipsvm_shim_vmm_unmap_end(struct hipsvm_shim *s, struct hipsvm_unmap *u, int rc)
{
	bool known;

	if (u->active)
		hipsvm_unmap_end(s, u, rc == HIPSVM_HIP_SUCCESS, 0, 0);
	if (rc == HIPSVM_HIP_SUCCESS)
		hipsvm_vmm_gpus(&s->vmm, u->addr, u->len, true, &known);
}
