/* SPDX-License-Identifier: MIT */
/*
 * shim_devmap.c - the lock-free table of device allocations (shim_devmap.h).
 */
#include "shim/shim_devmap.h"
#include "shim/sysmem.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define EMPTY UINT64_C(0)
#define TOMB UINT64_C(1)
#define BUSY UINT64_C(2)

#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

int hipsvm_devmap_create(struct hipsvm_devmap *m, unsigned log2cap)
{
	size_t bytes;
	void *p;

	if (log2cap < 4 || log2cap > 30)
		return -EINVAL;
	bytes = sizeof(struct hipsvm_devmap_slot) << log2cap;
	p = hipsvm_sysmem_map(bytes);
	if (!p)
		return -ENOMEM;
	m->slot = p;
	m->mask = (UINT64_C(1) << log2cap) - 1;
	m->shift = 64 - log2cap;
	return 0;
}

void hipsvm_devmap_destroy(struct hipsvm_devmap *m)
{
	if (m->slot)
		hipsvm_sysmem_unmap(m->slot, sizeof(struct hipsvm_devmap_slot) * (m->mask + 1));
	m->slot = NULL;
}

/* Allocations are at least 256-byte aligned. Nearby ones land in nearby
 * slots: the offset within a 1 MiB region picks the slot within a window of
 * 4096, a multiplicative hash of the region picks the window. A runtime's
 * next block (a sub-allocator's, or a bump pointer's) is then a slot or a
 * cache line away from the last one, not a cache and TLB miss anywhere in
 * the table; regions aligned alike still spread over the whole table. */
static uint64_t home(const struct hipsvm_devmap *m, uintptr_t p)
{
	uint64_t window = ((uint64_t)(p >> 20) * UINT64_C(0x9e3779b97f4a7c15)) >> m->shift;

	return window + ((p >> 8) & 0xfff);
}

static void fill(struct hipsvm_devmap_slot *s, const struct hipsvm_alloc *a)
{
	ST(s->size, a->last - a->start + 1);
	ST(s->ctx, a->ctx);
	ST(s->device, a->device);
	ST(s->flags, a->flags);
	ST(s->route, (uint8_t)a->route);
	ST(s->api, (uint8_t)a->api);
	ST(s->kind, (uint8_t)a->kind);
}

int hipsvm_devmap_insert(struct hipsvm_devmap *m, const struct hipsvm_alloc *a)
{
	uint64_t h, key = a->start, i;

	if (!m->slot || key <= BUSY || a->origin != a->start || a->last < a->start)
		return -EINVAL;
	h = home(m, a->start);
	for (i = 0; i < HIPSVM_DEVMAP_PROBE; i++) {
		struct hipsvm_devmap_slot *s = &m->slot[(h + i) & m->mask];
		uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);

		/* a free slot, or a stale entry of the same address (its free
		 * was never seen): claim it */
		if ((k == EMPTY || k == TOMB || k == key) &&
		    __atomic_compare_exchange_n(&s->key, &k, BUSY, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			fill(s, a);
			__atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
			return 0;
		}
	}
	return -ENOSPC;
}

int hipsvm_devmap_take(struct hipsvm_devmap *m, uintptr_t p, struct hipsvm_alloc *out)
{
	uint64_t h, key = p, i;

	if (!m->slot || key <= BUSY)
		return -ENOENT;
	h = home(m, p);
	for (i = 0; i < HIPSVM_DEVMAP_PROBE; i++) {
		struct hipsvm_devmap_slot *s = &m->slot[(h + i) & m->mask];
		uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
		struct hipsvm_alloc a;

		if (k == EMPTY)
			return -ENOENT;
		if (k != key)
			continue;
		memset(&a, 0, sizeof(a));
		a.start = a.origin = p;
		a.origin_size = LD(s->size);
		a.last = p + a.origin_size - 1;
		a.ctx = LD(s->ctx);
		a.device = LD(s->device);
		a.flags = LD(s->flags);
		a.route = LD(s->route);
		a.api = LD(s->api);
		a.kind = LD(s->kind);
		if (__atomic_compare_exchange_n(&s->key, &k, TOMB, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			*out = a;
			return 0;
		}
		/* someone else changed the slot under us: look at it again */
		i--;
	}
	return -ENOENT;
}
