/* SPDX-License-Identifier: MIT */
/*
 * checkpoint.h - per-GPU checkpoint timestamps: set, filter, drain (docs/design.md).
 *
 * Shared by the shim's tests, the simulator and kernel/hipsvm.ko.
 *
 * Decision: the filter is lock-free. checkpoint_ts is one 64-bit word read
 * with an acquire load on every retry fault; the first strictly newer fault
 * clears it with a compare-and-swap from the value it saw, so a set that lands
 * in between is not lost. A lock here would put a mutex on the fault path of
 * every GPU for the sake of a rare unmap (bench/ shows the cost of both).
 *
 * Set overwrites, as upstream's svm_range_unmap_from_cpu() does: a value left
 * in place for more than 2^47 ticks would otherwise look newer than a fresh
 * one and block it. Callers serialise the sets of one checkpoint (the kernel
 * module: the process's set lock; the simulator: the GPU's page-table lock;
 * upstream: the SVM lock), so that of two sets the later one also read the
 * ring later, and the value in force never goes back (docs/design.md).
 */
#ifndef HIPSVM_CHECKPOINT_H
#define HIPSVM_CHECKPOINT_H

#include "shared/compat.h"
#include "shared/ring.h"

struct hipsvm_cp_stats {
	uint64_t sets;		/* set that recorded a checkpoint */
	uint64_t sets_empty;	/* set on empty rings: value unchanged */
	uint64_t handled;	/* faults the filter let through */
	uint64_t dropped;	/* faults at or before the checkpoint */
	uint64_t cleared_by_fault;
	uint64_t clears;	/* explicit clears that reset the value */
	uint64_t drains;
	uint64_t drain_timeouts;
	uint64_t drain_nodev;
	uint64_t drain_skipped;	/* GPU under reset */
	/* Faults the filter let through although they are at or before the
	 * last checkpoint recorded (cleared or not). On a monotonic clock a
	 * drain that returned ok has already seen all of them, so this stays 0
	 * unless a drain answered too early: what the stress tests assert. */
	uint64_t stale;
	/* Drains that answered ok while faults at or before the first ring's
	 * checkpoint were still queued in a later ring, and those faults
	 * (hipsvm_cp_drain_left): a self-check of the drain order. */
	uint64_t drains_early;
	uint64_t drain_left;
};

/* A GPU's interrupt rings, as amdgpu_device.irq has them. The rings belong to
 * the GPU; the checkpoint belongs to a process (svms->checkpoint_ts[gpu] in
 * the kernel), hence two structures. */
struct hipsvm_gpu_irq {
	struct hipsvm_ring *ih0;	/* main ring */
	struct hipsvm_ring *ih1;	/* retry-fault ring; NULL on an APU */
	struct hipsvm_ring *ih_soft;	/* re-queued faults */
	uint32_t retry_cam;
	uint32_t in_reset;
	uint32_t shutdown;
};

/* One process's checkpoint on one GPU. A timestamp of 0 is a real one (the
 * clock at the wrap), so "no checkpoint" cannot be 0: the stored word is
 * 0 for none, or the timestamp with HIPSVM_CP_VALID above its 48 bits. */
#define HIPSVM_CP_VALID (UINT64_C(1) << 48)
#define HIPSVM_CP_ANY UINT64_MAX	/* hipsvm_cp_clear: whatever value */

struct hipsvm_cp {
	uint64_t ts;			/* 0, or timestamp | HIPSVM_CP_VALID */
	uint64_t last_set;		/* the last value recorded, never cleared */
	struct hipsvm_cp_stats stats;
};

/* Set: if ih1 exists, the retry CAM is off and ih1 is not empty, the
 * checkpoint is the timestamp of the last IV in ih1; otherwise that of ih_soft
 * if it is not empty; empty rings leave the value unchanged. The value is
 * overwritten (callers serialise sets of one checkpoint: see above). Returns
 * 1 and *ts = the checkpoint recorded, 0 when the rings were empty. */
int hipsvm_cp_set(struct hipsvm_cp *cp, const struct hipsvm_gpu_irq *g, uint64_t *ts);

/* Filter, called for every retry fault before it is handled. Returns 0 to
 * handle it, -EAGAIN to drop it (its timestamp is at or before the
 * checkpoint: raised on the mapping being torn down). The first fault
 * strictly after the checkpoint clears it. */
int hipsvm_cp_filter(struct hipsvm_cp *cp, uint64_t ts);

/* Clear: if expect is HIPSVM_CP_ANY, unconditionally; otherwise only if the
 * checkpoint is still the timestamp expect (another unmapper may have raised
 * it). Returns 1 when the value was reset. */
int hipsvm_cp_clear(struct hipsvm_cp *cp, uint64_t expect);

/* The checkpoint's timestamp (0 when none: ask hipsvm_cp_isset). */
uint64_t hipsvm_cp_get(const struct hipsvm_cp *cp);
bool hipsvm_cp_isset(const struct hipsvm_cp *cp);

/* Drain, split so that each environment waits its own way (futex, wait
 * queue). The rings are drained one after the other, as upstream's
 * svm_range_drain_retry_fault() does: with the retry CAM, ih0 first, and only
 * once it has been processed past its checkpoint a fresh checkpoint of
 * ih_soft, which by then holds what ih0 passed on. A checkpoint of ih_soft
 * taken at the start would already be passed while faults still sat in ih0. */
struct hipsvm_drain {
	struct hipsvm_ring *ring[2];	/* in the order they are drained */
	uint64_t checkpoint;		/* fresh, from ring[cur]'s wptr - 1 */
	uint64_t first;			/* ring[0]'s, for hipsvm_cp_drain_left */
	unsigned n, cur;
	int err;			/* when done: 0, or -ENODEV (a ring went off) */
};
#define HIPSVM_DRAIN_SKIPPED 1

/* -ENODEV if a ring to wait on is disabled, absent or the GPU is shutting
 * down; HIPSVM_DRAIN_SKIPPED if the GPU is under reset; 0 and d filled
 * otherwise (the checkpoint of the first ring taken). With the CAM the rings
 * are ih0 then ih_soft, otherwise ih1. */
int hipsvm_cp_drain_begin(const struct hipsvm_gpu_irq *g, struct hipsvm_drain *d);

/* Advances the drain and says whether it is over: a ring is passed when its
 * processed timestamp is strictly after its checkpoint or it is empty; then
 * the next ring's checkpoint is taken. True when every ring is passed (or
 * the next one was found disabled: d->err = -ENODEV). Only the waiter calls
 * it (it writes d), any number of times: it is the condition of a wait. */
bool hipsvm_cp_drain_poll(struct hipsvm_drain *d);

/* After a drain that is over: the IVs at or before the first ring's
 * checkpoint still queued in the rings drained after it (a snapshot; 0 when
 * the drain kept its order). Any observer may read the rings this way. */
unsigned hipsvm_cp_drain_left(const struct hipsvm_drain *d);

/* Counts the outcome of a drain (0, -ETIME, -ENODEV, HIPSVM_DRAIN_SKIPPED). */
void hipsvm_cp_drain_account(struct hipsvm_cp *cp, int result);

#ifndef __KERNEL__
/* User space drain: waits on the rings' futex words; timeout in ns. Returns
 * 0, -ETIME, -ENODEV or HIPSVM_DRAIN_SKIPPED; accounts the result in cp
 * (which may be NULL). */
int hipsvm_cp_drain(struct hipsvm_cp *cp, const struct hipsvm_gpu_irq *g, uint64_t timeout_ns);

/* The wait alone, after hipsvm_cp_drain_begin() returned 0: 0 when the
 * drain is over (its result in d->err), -ETIME. Accounts nothing. */
int hipsvm_cp_drain_wait(struct hipsvm_drain *d, uint64_t timeout_ns);

/* The wake function to pass to hipsvm_ring_process() in user space. */
void hipsvm_ring_wake_user(void *ring);
#endif

#endif
