/* SPDX-License-Identifier: MIT */
/*
 * map.h - the allocation map (memory.c, memmap.c), the CPU's view of a
 * range (vmspan.c) and the page-table generation the interpreter's caches
 * follow.
 */
#ifndef HIPSVM_SIM_RUNTIME_MAP_H
#define HIPSVM_SIM_RUNTIME_MAP_H

#include <hip/hip_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/proto.h"
#include "shim/api.h"

struct sim_alloc {
	uintptr_t base;
	size_t size;			/* as asked */
	size_t maplen;			/* page-rounded; 0 for registered memory */
	enum hipsvm_kind kind;
	int ctx;			/* HIPSVM_CTX_HOST or a device (primary context) */
	int device;			/* owning device; managed: the device current at alloc */
	unsigned flags;			/* the API's flags */
	uint64_t eager;			/* GPUs where the whole range is mapped at alloc */
	uint64_t lazy;			/* GPUs that map it page by page on faults */
	size_t charged;			/* device memory charged to .device */
	uint64_t *bits[HIPSVM_MAX_GPUS];	/* lazily mapped pages, under that GPU's pt_lock */
	/* Pages the program has unmapped from the CPU (seen at a drain):
	 * no longer part of the allocation. Installed and set atomically
	 * under map_lock for reading (memory.c). */
	uint64_t *released;
	/* hipMemAdvise and hipMemPrefetchAsync, in call order, each over its
	 * own range (hmm.c); under map_lock */
	struct sim_advice *adv;
	unsigned nadv;
	/* the map's AVL tree, by base (memory.c); under map_lock */
	struct sim_alloc *left, *right;
	int height;
	/* what else the allocation is (pool.c, vmm.c, ipc.c, array.c) */
	unsigned role;
	void *owner;			/* the pool, VMM handle or array of that role */
	int ipc_fd;			/* exported: the memfd, or -1 */
	uint32_t uid;			/* HIP_POINTER_ATTRIBUTE_BUFFER_ID */
	uint64_t ipc_ino;
};

/* sim_alloc.role */
enum sim_role {
	SIM_ROLE_PLAIN = 0,
	SIM_ROLE_POOL,		/* from a stream-ordered pool: owner = the pool */
	SIM_ROLE_VMM,		/* hipMemCreate: owner = the handle */
	SIM_ROLE_IPC,		/* opened from an IPC handle: hipIpcCloseMemHandle frees it */
	SIM_ROLE_ARRAY,		/* an array's storage: owner = the array */
	SIM_ROLE_SYMBOL,	/* a device variable's storage */
	SIM_ROLE_CODE,		/* a loaded code object (exec/loader.c), a hostcall buffer */
	SIM_ROLE_TEXTURE,	/* a texture object's descriptors (api/texture.c): owner = its record */
	SIM_ROLE_COUNT,
};

struct sim_alloc *sim_map_find(uintptr_t addr);	/* caller holds map_lock */
/* The allocation with the lowest base >= addr, or > addr; NULL at the end.
 * Caller holds map_lock. O(log n) each, so a walk over k allocations
 * costs O(k log n). */
struct sim_alloc *sim_map_ceil(uintptr_t addr);
struct sim_alloc *sim_map_next(const struct sim_alloc *a);
/* memmap.c; caller holds map_lock for writing. Insert: 0 or -EEXIST (an
 * allocation starts there already). */
int sim_map_insert(struct sim_alloc *a);
void sim_map_remove(struct sim_alloc *a);
/* Inserts an allocation that is already mapped at base (an IPC import):
 * maplen bytes are munmapped when it dies. HIP error. */
hipError_t sim_alloc_adopt(void *base, size_t size, size_t maplen, enum hipsvm_kind kind, int ctx,
			   int device, unsigned role, void *owner, struct sim_alloc **out);
/* The allocation starting exactly at p, out of the map, to be destroyed by
 * the caller (with no lock held); NULL when none. role: only that role. */
struct sim_alloc *sim_map_take(const void *p, unsigned role);
/* Sets role and owner of the allocation starting at p (under the lock). */
bool sim_alloc_set_role(const void *p, unsigned role, void *owner);
/* What the owner of a role does when hipFree frees one of its allocations,
 * before it is destroyed (pool.c: a pool allocation leaves its pool); set by
 * the owner's reset step, NULL for none. */
extern void (*sim_role_forget[SIM_ROLE_COUNT])(struct sim_alloc *a);
/* Device memory accounting: hipErrorOutOfMemory past the capacity. */
hipError_t sim_charge(int dev, size_t bytes);
/* The largest one allocation of device or managed memory may be. */
size_t sim_max_alloc(void);
void sim_uncharge(int dev, size_t bytes);
/* Creates and inserts; HIP error. */
hipError_t sim_alloc_new(size_t size, enum hipsvm_kind kind, int ctx, int device,
			 unsigned flags, void *user_ptr, struct sim_alloc **out);
/* hipFree: sync first when asked; hipErrorInvalidValue for what is not the
 * start of a live allocation (registered memory included). */
hipError_t sim_free(void *ptr, bool sync);
hipError_t sim_unregister(void *ptr);
void sim_alloc_destroy(struct sim_alloc *a);
bool sim_map_overlaps(uintptr_t p, size_t n);
bool sim_lookup(const void *p, struct sim_alloc *copy);
/* Fine-grained memory, as ROCr's pointer info answers it: device memory
 * allocated fine-grained; hipHostMalloc memory when ROCm 5.2.3
 * asks for atomics (hip_memory.cpp:518-529: no flags, coherent, mapped or
 * NUMA-user, and not non-coherent); registered, signal and managed memory. */
bool sim_alloc_fine(const struct sim_alloc *a);
/* For the n lanes of a floating-point atomic at addr[i] (size bytes):
 * drop[i] is whether the lane's address is fine-grained host memory
 * (hipHostMalloc's fine-grained memory, registered memory), which the GPU
 * reaches uncached, over PCIe, where an MI200 float atomic does nothing and
 * returns 0. True if any lane is. */
bool sim_fp_atomic_drops(const uint64_t *addr, unsigned n, unsigned size, bool *drop);
bool sim_update(const void *p, void (*fn)(struct sim_alloc *a, void *arg), void *arg);
/* The pages of [start, end) that the CPU no longer maps leave the
 * allocations they belonged to; true if none of the range is mapped.
 * O(mappings and allocations of the range), not O(pages). */
bool sim_map_release_unmapped(uintptr_t start, uintptr_t end);

/* vmspan.c: fn(lo, hi, arg) for each piece of [start, end) (page-rounded)
 * the CPU maps, in address order. query false: without PROCMAP_QUERY (the
 * older kernels' way; for tests). */
typedef void (*sim_vm_fn)(uintptr_t lo, uintptr_t hi, void *arg);
void sim_vm_mapped(uintptr_t start, uintptr_t end, sim_vm_fn fn, void *arg);
void sim_vm_mapped_by(uintptr_t start, uintptr_t end, bool query, sim_vm_fn fn, void *arg);
/* PROCMAP_QUERY alone (for tests): 0, or -ENOSYS when the kernel does not
 * answer it (pieces found before that were given to fn). */
int sim_vm_query(uintptr_t start, uintptr_t end, sim_vm_fn fn, void *arg);
/* Whether the CPU maps every page of [lo, hi) (mincore; an answer other
 * than "not mapped", ENOMEM, counts as mapped), never seeing the probe's
 * own reservation of a hole as a mapping. */
bool sim_vm_range_mapped(uintptr_t lo, uintptr_t hi);
/* What the VMA covering addr allows, as a GPU fault handler sees it: a
 * mask of SIM_VM_READ and SIM_VM_WRITE (0: PROT_NONE), -ENOMEM when nothing
 * maps it, -ENOSYS when the kernel cannot say (no PROCMAP_QUERY). */
#define SIM_VM_READ 1
#define SIM_VM_WRITE 2
int sim_vm_access(uintptr_t addr);
/* Caller holds map_lock. */
bool sim_alloc_released(const struct sim_alloc *a, uintptr_t page);

/* What the GPUs do when an allocation dies: drop its pages from dev's page
 * table, under that GPU's pt_lock (gpu.c sets it at its reset step: the map
 * sits below the GPUs, which read it). NULL before the GPUs exist. */
extern void (*sim_alloc_forget_pages)(struct sim_alloc *a, int dev);

/* Bumped (release) whenever a page may stop being mapped on some GPU: an
 * unmap, a checkpoint, a page the program unmapped, an allocation leaving
 * the map, a fork child's new GPUs. The interpreter's translation caches
 * (sim/exec/guard.c) hold only pages found mapped and drop them all when it
 * moves; a page becoming mapped needs no bump. Never reset (memmap.c). */
extern uint64_t sim_pt_gen;
static inline void sim_pt_changed(void)
{
	__atomic_fetch_add(&sim_pt_gen, 1, __ATOMIC_RELEASE);
}

#endif
