/* SPDX-License-Identifier: MIT */
/*
 * memory.c - the allocation map and the life of one allocation.
 *
 * Every allocation is its own mmap (page granularity, so hipMalloc results
 * are 4096-aligned, more than the 256 HIP promises), so that a program's
 * munmap of a managed range is a real unmap. The map itself (an AVL tree,
 * O(log n)) is memmap.c's.
 *
 * Free follows ROCclr's svmFree: remove from the map first (under the lock,
 * so that a concurrent allocation reusing the address cannot be freed by
 * mistake), release the lock, unmap on each device in the SVM free order,
 * then munmap, with no lock held: the shim's munmap hook runs inside our
 * munmap and waits for our hook server and handler threads.
 */
#include "runtime/map.h"
#include "runtime/state.h"
#include "runtime/stream.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

void (*sim_role_forget[SIM_ROLE_COUNT])(struct sim_alloc *a);

static uintptr_t page_down(uintptr_t p)
{
	return p & ~(uintptr_t)(SIM_PAGE - 1);
}

static uintptr_t alloc_end(const struct sim_alloc *a)
{
	return (a->base + a->size + SIM_PAGE - 1) & ~(uintptr_t)(SIM_PAGE - 1);
}

static uint32_t next_uid;	/* ROCm's amd::Memory unique ids count from 1 */

static uint64_t gpu_bit(int dev)
{
	return UINT64_C(1) << dev;
}

/* Which GPUs map the allocation, and how, by the context it belongs to. */
static void placement(struct sim_alloc *a)
{
	struct hipsvm_context *c = hipsvm_ctxset_get(&sim.ctx, a->ctx);
	int order[HIPSVM_MAX_GPUS];
	uint64_t devs = 0;
	int i, n;

	if (a->ctx >= 0) {
		devs = gpu_bit(a->ctx);
	} else if (c) {
		n = hipsvm_ctx_svm_alloc_order(c, a->device, false, sim.ctx.info, order);
		for (i = 0; i < n; i++)
			devs |= gpu_bit(order[i]);
	}
	if (a->kind == HIPSVM_KIND_MANAGED && sim.xnack)
		a->lazy = devs;		/* mapped page by page on retry faults */
	else
		a->eager = devs;	/* no XNACK: everything mapped up front */
}

static bool charges_device(enum hipsvm_kind k)
{
	return k == HIPSVM_KIND_DEVICE;
}

hipError_t sim_charge(int dev, size_t bytes)
{
	hipError_t e = hipSuccess;

	if (!sim_gpu(dev))
		return hipErrorInvalidDevice;
	pthread_mutex_lock(&sim.mem_lock);
	if (bytes > sim.mem_capacity - sim.mem_used[dev])
		e = hipErrorOutOfMemory;
	else
		sim.mem_used[dev] += bytes;
	pthread_mutex_unlock(&sim.mem_lock);
	return e;
}

/*
 * ROCclr's maxMemAllocSize_: GPU_SINGLE_ALLOC_PERCENT of the device's
 * memory, 85 by default (flags.hpp:113), aligned down to 8 bytes
 * (rocdevice.cpp:1228-1260). hipMalloc, the pitched and pool allocations and
 * hipMallocManaged (against GPU 0) refuse more than that before any memory
 * is looked for, so a request for all the free memory of an idle GPU fails
 * although the memory is there. The simulator does not read
 * GPU_SINGLE_ALLOC_PERCENT: a program that sets it to allocate more would
 * need it, and none of the tests does.
 */
size_t sim_max_alloc(void)
{
	return (size_t)((uint64_t)sim.mem_capacity / 100 * 85 +
			(uint64_t)sim.mem_capacity % 100 * 85 / 100) & ~(size_t)7;
}

void sim_uncharge(int dev, size_t bytes)
{
	if (!sim_gpu(dev) || !bytes)
		return;
	pthread_mutex_lock(&sim.mem_lock);
	sim.mem_used[dev] -= bytes;
	pthread_mutex_unlock(&sim.mem_lock);
}

/* Where allocations go (docs/simulator.md, "Address layout"). On gfx9 and
 * later ROCm maps every KFD allocation with mmap wherever the kernel puts
 * it, but VRAM below 2 MiB is carved out of 2 MiB-aligned 2 MiB blocks and
 * bigger buffers start 2 MiB-aligned: device memory and host pieces seldom
 * share a 2 MiB granule. Our allocations are each their own mmap, so the
 * same separation takes two apertures of their own, far from the kernel's
 * top-down mmap area: device memory in one, every other kind (pinned host,
 * managed) in the other; the program's own mappings stay where the kernel
 * puts them. A bump pointer hands out addresses back to back (neighbours
 * merge into one VMA, as the kernel's own placement does: with a gap
 * between each a million live allocations would pass vm.max_map_count)
 * and wraps at the end of the aperture; an address that is taken (after a
 * wrap, or a program's MAP_FIXED) falls back to wherever the kernel likes.
 * Above ASan's shadow (which ends below 2^44) and below 2^47. */
#define APER_DEVICE	UINT64_C(0x200000000000)
#define APER_HOST	UINT64_C(0x300000000000)
#define APER_SIZE	UINT64_C(0x080000000000)	/* 8 TiB each */
#define APER_GRAN	(UINT64_C(1) << 21)

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* A sanitizer's runtime owns fixed ranges of the address space (TSan's
 * metadata lies at 0x3000'0000'0000, and its mmap interceptor kills a
 * process that maps outside its application ranges): a TSan build takes
 * the kernel's placement, as every allocation did before the apertures
 * (ASan's shadow ends below them). */
#if defined(__SANITIZE_THREAD__)
#define SIM_APERTURES 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIM_APERTURES 0
#endif
#endif
#ifndef SIM_APERTURES
#define SIM_APERTURES 1
#endif

static uint64_t aper_next[2];

static void *aperture_map(size_t maplen, enum hipsvm_kind kind)
{
	unsigned cls = kind == HIPSVM_KIND_DEVICE ? 0 : 1;
	uint64_t base = cls == 0 ? APER_DEVICE : APER_HOST, step = maplen, off;
	void *p = MAP_FAILED;

	/* 2 MiB and more: start on a granule, as ROCm aligns big buffers */
	if (maplen >= APER_GRAN)
		step = (maplen + 2 * APER_GRAN - 1) & ~(APER_GRAN - 1);
	if (SIM_APERTURES && maplen < APER_SIZE / 4) {
		off = __atomic_fetch_add(&aper_next[cls], step, __ATOMIC_RELAXED) % APER_SIZE;
		if (maplen >= APER_GRAN)
			off = (off + APER_GRAN - 1) & ~(APER_GRAN - 1);
		if (off + maplen > APER_SIZE)
			off = 0;
		p = mmap((void *)(uintptr_t)(base + off), maplen, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		/* an old kernel takes the flag for a hint: keep what it gave */
	}
	if (p == MAP_FAILED)
		p = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p;
}

hipError_t sim_alloc_new(size_t size, enum hipsvm_kind kind, int ctx, int device,
			 unsigned flags, void *user_ptr, struct sim_alloc **out)
{
	struct sim_alloc *a;
	size_t maplen = 0;
	void *p = user_ptr;
	hipError_t e;
	int err;

	if (kind != HIPSVM_KIND_REGISTERED) {
		if (size > SIZE_MAX - SIM_PAGE)
			return hipErrorOutOfMemory;
		maplen = (size + SIM_PAGE - 1) & ~(size_t)(SIM_PAGE - 1);
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return hipErrorOutOfMemory;
	if (charges_device(kind)) {
		e = sim_charge(device, maplen);
		if (e != hipSuccess) {
			free(a);
			return e;
		}
		a->charged = maplen;
	}
	if (kind != HIPSVM_KIND_REGISTERED) {
		p = aperture_map(maplen, kind);
		if (p == MAP_FAILED) {
			sim_uncharge(device, a->charged);
			free(a);
			return hipErrorOutOfMemory;
		}
	}
	a->base = (uintptr_t)p;
	a->size = size;
	a->maplen = maplen;
	a->kind = kind;
	a->ctx = ctx;
	a->device = device;
	a->flags = flags;
	a->ipc_fd = -1;
	a->uid = __atomic_add_fetch(&next_uid, 1, __ATOMIC_RELAXED);
	placement(a);
	pthread_rwlock_wrlock(&sim.map_lock);
	err = sim_map_insert(a);
	pthread_rwlock_unlock(&sim.map_lock);
	if (err) {
		/* a second registration of the same address: ROCm's map keeps
		 * the first and the call succeeds */
		sim_alloc_destroy(a);
		if (err == -EEXIST && kind == HIPSVM_KIND_REGISTERED) {
			*out = NULL;
			return hipSuccess;
		}
		return hipErrorOutOfMemory;
	}
	*out = a;
	return hipSuccess;
}

hipError_t sim_alloc_adopt(void *base, size_t size, size_t maplen, enum hipsvm_kind kind, int ctx,
			   int device, unsigned role, void *owner, struct sim_alloc **out)
{
	struct sim_alloc *a = calloc(1, sizeof(*a));
	int err;

	if (!a)
		return hipErrorOutOfMemory;
	a->base = (uintptr_t)base;
	a->size = size;
	a->maplen = maplen;
	a->kind = kind;
	a->ctx = ctx;
	a->device = device;
	a->ipc_fd = -1;
	a->role = role;
	a->owner = owner;
	a->uid = __atomic_add_fetch(&next_uid, 1, __ATOMIC_RELAXED);
	placement(a);
	pthread_rwlock_wrlock(&sim.map_lock);
	err = sim_map_insert(a);
	pthread_rwlock_unlock(&sim.map_lock);
	if (err) {
		free(a);
		return hipErrorOutOfMemory;
	}
	*out = a;
	return hipSuccess;
}

struct sim_alloc *sim_map_take(const void *p, unsigned role)
{
	struct sim_alloc *a;

	pthread_rwlock_wrlock(&sim.map_lock);
	a = sim_map_find((uintptr_t)p);
	if (a && a->base == (uintptr_t)p && a->role == role && a->kind != HIPSVM_KIND_REGISTERED)
		sim_map_remove(a);
	else
		a = NULL;
	pthread_rwlock_unlock(&sim.map_lock);
	return a;
}

bool sim_alloc_set_role(const void *p, unsigned role, void *owner)
{
	struct sim_alloc *a;

	pthread_rwlock_wrlock(&sim.map_lock);
	a = sim_map_find((uintptr_t)p);
	if (a && a->base == (uintptr_t)p) {
		a->role = role;
		a->owner = owner;
	} else {
		a = NULL;
	}
	pthread_rwlock_unlock(&sim.map_lock);
	return a != NULL;
}

static size_t npages(const struct sim_alloc *a)
{
	return (alloc_end(a) - page_down(a->base)) / SIM_PAGE;
}

static bool released_at(const struct sim_alloc *a, size_t i)
{
	const uint64_t *r = __atomic_load_n(&a->released, __ATOMIC_ACQUIRE);

	return r && ((__atomic_load_n(&r[i / 64], __ATOMIC_RELAXED) >> (i % 64)) & 1);
}

bool sim_alloc_released(const struct sim_alloc *a, uintptr_t page)
{
	return released_at(a, (page_down(page) - page_down(a->base)) / SIM_PAGE);
}

/* munmap the pages that are still ours. A page the program unmapped itself
 * (released) may hold someone else's mapping by now: under ASan a new
 * thread's bookkeeping lands in such a hole within a few calls, and
 * unmapping it again crashed LeakSanitizer at exit. */
static void unmap_owned(const struct sim_alloc *a)
{
	size_t i = 0, n = npages(a), run;

	if (!a->released) {
		munmap((void *)a->base, a->maplen);
		return;
	}
	while (i < n) {
		for (; i < n && released_at(a, i); i++)
			;
		for (run = i; run < n && !released_at(a, run); run++)
			;
		if (run > i)
			munmap((void *)(page_down(a->base) + i * SIM_PAGE), (run - i) * SIM_PAGE);
		i = run;
	}
}

/* Marks pages [i, j) of a released; false when out of memory (the pages
 * then stay part of the allocation, as if they had not been seen). */
static bool release_pages(struct sim_alloc *a, size_t i, size_t j)
{
	uint64_t *r = __atomic_load_n(&a->released, __ATOMIC_ACQUIRE);

	if (!r) {
		uint64_t *fresh = calloc((npages(a) + 63) / 64, 8), *none = NULL;

		if (!fresh)
			return false;
		if (__atomic_compare_exchange_n(&a->released, &none, fresh, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			r = fresh;
		else
			free(fresh), r = none;
	}
	while (i < j) {
		size_t w = i / 64, b = i % 64, n = j - i < 64 - b ? j - i : 64 - b;
		uint64_t m = n == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << n) - 1) << b;

		__atomic_fetch_or(&r[w], m, __ATOMIC_RELAXED);
		i += n;
	}
	sim_pt_changed();
	return true;
}

/* The pages of the hole [h0, h1) leave every allocation they belong to. */
static void release_hole(uintptr_t h0, uintptr_t h1)
{
	struct sim_alloc *a = sim_map_find(h0);

	if (!a)
		a = sim_map_ceil(h0);
	for (; a && page_down(a->base) < h1; a = sim_map_next(a)) {
		uintptr_t lo, hi;

		if (!a->maplen || alloc_end(a) <= h0)
			continue;
		lo = page_down(h0 > a->base ? h0 : a->base);
		hi = h1 < alloc_end(a) ? h1 : alloc_end(a);
		if (!release_pages(a, (lo - page_down(a->base)) / SIM_PAGE,
				   (hi - page_down(a->base)) / SIM_PAGE))
			return;
	}
}

struct holes {
	uintptr_t prev;		/* the end of the last mapped piece */
	bool mapped;
};

static void on_mapped(uintptr_t lo, uintptr_t hi, void *arg)
{
	struct holes *h = arg;

	if (lo > h->prev)
		release_hole(h->prev, lo);
	h->prev = hi;
	h->mapped = true;
}

/* Under the read lock, so that the fault handlers keep going while the
 * kernel is asked (a writer here stalled every GPU for the whole scan): the
 * lock keeps the allocations alive, released is installed with a
 * compare-and-swap and its bits set atomically. The holes come from the
 * mapped pieces of the range (vmspan.c: one question per piece, not per
 * page), and each hole is released by words of the bitmap. */
bool sim_map_release_unmapped(uintptr_t start, uintptr_t end)
{
	struct holes h = { page_down(start), false };
	uintptr_t e = (end + SIM_PAGE - 1) & ~(uintptr_t)(SIM_PAGE - 1);

	pthread_rwlock_rdlock(&sim.map_lock);
	sim_vm_mapped(start, end, on_mapped, &h);
	if (h.prev < e)
		release_hole(h.prev, e);
	pthread_rwlock_unlock(&sim.map_lock);
	return !h.mapped;
}

void (*sim_alloc_forget_pages)(struct sim_alloc *a, int dev);

/* The allocation is out of the map: drop it from every GPU's page table
 * (the SVM free order first, then the rest, so that no handler still holds
 * it), give back the memory and munmap with no lock held. */
void sim_alloc_destroy(struct sim_alloc *a)
{
	struct hipsvm_context *c = hipsvm_ctxset_get(&sim.ctx, a->ctx);
	int order[HIPSVM_MAX_GPUS];
	uint64_t done = 0;
	int n = 0, i;
	unsigned d;

	if (c && a->ctx < 0)
		n = hipsvm_ctx_svm_free_order(c, order);
	else if (a->ctx >= 0)
		order[n++] = a->ctx;
	if (n < 0)
		n = 0;
	for (i = 0; i < n + (int)sim.ngpu; i++) {
		int dev = i < n ? order[i] : i - n;

		if (!sim_gpu(dev) || (done & gpu_bit(dev)))
			continue;
		done |= gpu_bit(dev);
		if (sim_alloc_forget_pages)
			sim_alloc_forget_pages(a, dev);
	}
	sim_uncharge(a->device, a->charged);
	if (a->maplen)
		unmap_owned(a);
	if (a->ipc_fd >= 0)
		close(a->ipc_fd);
	for (d = 0; d < HIPSVM_MAX_GPUS; d++)
		free(a->bits[d]);
	free(a->released);
	free(a->adv);
	free(a);
}

hipError_t sim_free(void *ptr, bool sync)
{
	struct sim_alloc *a;

	if (!ptr)
		return hipSuccess;
	/* hipFree synchronises first: queued work may still use the memory. */
	if (sync)
		sim_device_sync(-1);
	pthread_rwlock_wrlock(&sim.map_lock);
	a = sim_map_find((uintptr_t)ptr);
	if (!a || a->base != (uintptr_t)ptr || a->kind == HIPSVM_KIND_REGISTERED ||
	    (a->role != SIM_ROLE_PLAIN && a->role != SIM_ROLE_POOL && a->role != SIM_ROLE_IPC)) {
		pthread_rwlock_unlock(&sim.map_lock);
		return hipErrorInvalidValue;
	}
	sim_map_remove(a);
	pthread_rwlock_unlock(&sim.map_lock);
	if (a->role < SIM_ROLE_COUNT && sim_role_forget[a->role])
		sim_role_forget[a->role](a);
	sim_alloc_destroy(a);
	return hipSuccess;
}

/* hipHostUnregister: as sim_free, for registered memory only. */
hipError_t sim_unregister(void *ptr)
{
	struct sim_alloc *a;

	pthread_rwlock_wrlock(&sim.map_lock);
	a = sim_map_find((uintptr_t)ptr);
	if (!a || a->base != (uintptr_t)ptr || a->kind != HIPSVM_KIND_REGISTERED) {
		pthread_rwlock_unlock(&sim.map_lock);
		return hipErrorHostMemoryNotRegistered;
	}
	sim_map_remove(a);
	pthread_rwlock_unlock(&sim.map_lock);
	sim_alloc_destroy(a);
	return hipSuccess;
}

/* Does [p, p + n) overlap a live allocation? */
bool sim_map_overlaps(uintptr_t p, size_t n)
{
	struct sim_alloc *a;
	bool r = false;

	pthread_rwlock_rdlock(&sim.map_lock);
	a = sim_map_find(p);
	if (!a)
		a = sim_map_ceil(p);
	for (; a && a->base < p + n && !r; a = sim_map_next(a))
		r = p < a->base + a->size;
	pthread_rwlock_unlock(&sim.map_lock);
	return r;
}

/* A copy of the allocation holding p (the fields a query needs), under the
 * lock; false when p is in none. */
bool sim_lookup(const void *p, struct sim_alloc *copy)
{
	struct sim_alloc *a;

	pthread_rwlock_rdlock(&sim.map_lock);
	a = sim_map_find((uintptr_t)p);
	if (a && (uintptr_t)p < a->base + (a->size ? a->size : 1))
		*copy = *a;
	else
		a = NULL;
	pthread_rwlock_unlock(&sim.map_lock);
	return a != NULL;
}

bool sim_alloc_fine(const struct sim_alloc *a)
{
	const unsigned fine_host = hipHostMallocCoherent | hipHostMallocMapped |
				   hipHostMallocNumaUser;

	switch (a->kind) {
	case HIPSVM_KIND_DEVICE:
		return a->flags == hipDeviceMallocFinegrained;
	case HIPSVM_KIND_HOST:
		return (a->flags == 0 || (a->flags & fine_host)) &&
		       !(a->flags & hipHostMallocNonCoherent);
	default:
		return true;
	}
}

static bool fp_drops(const struct sim_alloc *a)
{
	return a && (a->kind == HIPSVM_KIND_REGISTERED ||
		     (a->kind == HIPSVM_KIND_HOST && sim_alloc_fine(a)));
}

bool sim_fp_atomic_drops(const uint64_t *addr, unsigned n, unsigned size, bool *drop)
{
	uint64_t lo = ~0ull, hi = 0;
	struct sim_alloc *a;
	bool any = false;

	for (unsigned i = 0; i < n; i++) {
		lo = addr[i] < lo ? addr[i] : lo;
		hi = addr[i] > hi ? addr[i] : hi;
	}
	pthread_rwlock_rdlock(&sim.map_lock);
	/* the lanes in one allocation, the common case: one look-up */
	a = n ? sim_map_find((uintptr_t)lo) : NULL;
	if (a && lo >= a->base && hi + size <= a->base + a->size) {
		any = fp_drops(a);
		for (unsigned i = 0; i < n; i++)
			drop[i] = any;
	} else {
		for (unsigned i = 0; i < n; i++) {
			a = sim_map_find((uintptr_t)addr[i]);
			drop[i] = a && addr[i] < a->base + a->size && fp_drops(a);
			any |= drop[i];
		}
	}
	pthread_rwlock_unlock(&sim.map_lock);
	return any;
}

/* hipMemAdvise / prefetch bookkeeping on the allocation holding p. */
bool sim_update(const void *p, void (*fn)(struct sim_alloc *a, void *arg), void *arg)
{
	struct sim_alloc *a;

	pthread_rwlock_wrlock(&sim.map_lock);
	a = sim_map_find((uintptr_t)p);
	if (a && (uintptr_t)p < a->base + a->size)
		fn(a, arg);
	else
		a = NULL;
	pthread_rwlock_unlock(&sim.map_lock);
	return a != NULL;
}
