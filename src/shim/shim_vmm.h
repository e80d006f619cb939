/* SPDX-License-Identifier: MIT */
/*
 * shim_vmm.h - what the shim remembers of stream-ordered pools and of the
 * virtual memory API, beyond single allocations:
 *  - which device each memory pool allocates on (hipMemPoolCreate's
 *    location, hipDeviceGet(Default)MemPool's device), so that
 *    hipMallocFromPoolAsync and hipMemPoolImportPointer are attributed to
 *    that device's primary context;
 *  - the live hipMemMap mappings and the GPUs that hipMemSetAccess let
 *    touch them (at first the device of the physical allocation), which
 *    are the GPUs that hipMemUnmap checkpoints.
 *
 * Fixed tables (HIPSVM_VMM_POOLS pools, HIPSVM_VMM_MAPS mappings) under one
 * mutex, used only from HIP wrappers, never from the unmap path of libc:
 * a mapping beyond the table is counted (untracked) and its hipMemUnmap is
 * coordinated with every GPU instead. Functions return 0 or -errno.
 */
#ifndef HIPSVM_SHIM_VMM_H
#define HIPSVM_SHIM_VMM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIPSVM_VMM_POOLS 64
#define HIPSVM_VMM_MAPS	256

struct hipsvm_vmm {
	pthread_mutex_t lock;
	unsigned npool, nmap;
	struct {
		uintptr_t pool;
		int dev;
	} pool[HIPSVM_VMM_POOLS];
	struct {
		uintptr_t start, last;	/* inclusive */
		uint64_t gpus;
	} map[HIPSVM_VMM_MAPS];
	uint64_t untracked;		/* mappings the table had no room for */
};

/* Empty tables and a fresh lock (also in a fork child). */
void hipsvm_vmm_init(struct hipsvm_vmm *v);

/* pool allocates on dev (replaces what was known); -ENOSPC when full. */
int hipsvm_vmm_pool_set(struct hipsvm_vmm *v, uintptr_t pool, int dev);
/* The device of pool, or -1 when unknown. */
int hipsvm_vmm_pool_dev(struct hipsvm_vmm *v, uintptr_t pool);
void hipsvm_vmm_pool_forget(struct hipsvm_vmm *v, uintptr_t pool);

/* A mapping of [start, start + len) that gpus may touch; -ENOSPC (counted
 * in untracked) when the table is full, -EINVAL for an empty range. */
int hipsvm_vmm_map(struct hipsvm_vmm *v, uintptr_t start, size_t len, uint64_t gpus);
/* hipMemSetAccess over [start, start + len): every mapping it overlaps
 * gains the GPUs of set and loses those of clear. */
void hipsvm_vmm_access(struct hipsvm_vmm *v, uintptr_t start, size_t len, uint64_t set,
		       uint64_t clear);
/* The GPUs of the mappings that overlap [start, start + len), and *known
 * false when the range may hold a mapping the table has no room for (the
 * caller then takes every GPU). With remove, the mappings wholly inside go. */
uint64_t hipsvm_vmm_gpus(struct hipsvm_vmm *v, uintptr_t start, size_t len, bool remove,
			 bool *known);

#endif
