/* SPDX-License-Identifier: MIT */
/*
 * checkpoint.h - per-GPU checkpoint timestamps: set, filter, drain (SPEC section 3).
 *
 * Shared by the shim's tests, the simulator and kernel/hipsvm.ko.
 *
 * Decision: the filter is lock-free. checkpoint_ts is one 64-bit word read
 * with an acquire load on every retry fault; set raises it with a compare-and-
 * swap (never lowers it, so two unmappers that set at once keep the later
 * checkpoint); the first strictly newer fault clears it with a compare-and-swap
 * from the value it saw, so a set that lands in between is not lost. The kernel
 * does the same under the process's SVM lock; a lock here would put a mutex on
 * the fault path of every GPU for the sake of a rare unmap (bench/ shows the
 * cost of both).
 */
#ifndef HIPSVM_CHECKPOINT_H
#define HIPSVM_CHECKPOINT_H

#include "compat.h"
#include "ring.h"

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
	struct hipsvm_cp_stats stats;
};

/* Set: if ih1 exists, the retry CAM is off and ih1 is not empty, the
 * checkpoint is the timestamp of the last IV in ih1; otherwise that of ih_soft
 * if it is not empty; empty rings leave the value unchanged. The value only
 * moves forward. Returns 1 and *ts = the checkpoint in force when one was
 * recorded, 0 when the rings were empty. */
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

/* Drain, split so that each environment waits its own way (futex, wait queue). */
struct hipsvm_drain {
	struct hipsvm_ring *ring[2];
	uint64_t checkpoint[2];	/* fresh, from each ring's wptr - 1 */
	unsigned n;
};
#define HIPSVM_DRAIN_SKIPPED 1

/* -ENODEV if a ring to wait on is disabled, absent or the GPU is shutting
 * down; HIPSVM_DRAIN_SKIPPED if the GPU is under reset; 0 and d filled
 * otherwise. With the CAM the rings are ih0 and ih_soft, otherwise ih1. */
int hipsvm_cp_drain_begin(const struct hipsvm_gpu_irq *g, struct hipsvm_drain *d);

/* True when on every ring the processed timestamp is strictly after its
 * checkpoint or the ring is empty. */
bool hipsvm_cp_drain_done(const struct hipsvm_drain *d);

/* Counts the outcome of a drain (0, -ETIME, -ENODEV, HIPSVM_DRAIN_SKIPPED). */
void hipsvm_cp_drain_account(struct hipsvm_cp *cp, int result);

#ifndef __KERNEL__
/* User space drain: waits on the rings' futex words; timeout in ns. Returns
 * 0, -ETIME, -ENODEV or HIPSVM_DRAIN_SKIPPED; accounts the result in cp
 * (which may be NULL). */
int hipsvm_cp_drain(struct hipsvm_cp *cp, const struct hipsvm_gpu_irq *g, uint64_t timeout_ns);

/* The wake function to pass to hipsvm_ring_process() in user space. */
void hipsvm_ring_wake_user(void *ring);
#endif

#endif
