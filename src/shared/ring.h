/* SPDX-License-Identifier: MIT */
/*
 * ring.h - an interrupt-handler (IH) ring of 32-byte IVs.
 *
 * The ring size is a power of two (bytes); rptr and wptr are byte offsets masked
 * with size - 1. One slot is always left free, so rptr == wptr means empty.
 *
 * Concurrency contract: exactly one producer (callers serialise producers, as the
 * hardware does) and exactly one consumer (the handler) may run at once. Any
 * number of observers may call hipsvm_ring_empty(), hipsvm_ring_decode_ts() at
 * wptr and read processed_ts concurrently.
 *   producer: writes the IV's dwords, then store-release wptr. It load-acquires
 *             rptr before reusing a slot, so the consumer's reads of that slot
 *             happen before the overwrite.
 *   consumer: load-acquire wptr, read the IVs up to it, then store-release rptr
 *             and processed_ts.
 *   observer: load-acquire wptr, then read the IV just before it: the acquire
 *             pairs with the producer's release so the dwords are complete.
 * A slot is only overwritten after the consumer has moved rptr past it, and an
 * observer reads the slot just before wptr, which cannot be overwritten until
 * the producer has gone round the whole ring: a reader preempted for that long
 * could pair halves of two IVs, so decode_ts re-reads the high half and retries
 * until both reads agree (a newer IV is a later timestamp: the clock is
 * monotonic, so what it returns then is a real, possibly newer, timestamp).
 */
#ifndef HIPSVM_RING_H
#define HIPSVM_RING_H

#include "shared/compat.h"
#include "shared/iv.h"

#define HIPSVM_RING_PASS 32	/* IVs per pass of the handler, as amdgpu */
#define HIPSVM_RING_MIN_BYTES (2 * HIPSVM_IV_BYTES)

struct hipsvm_ring {
	uint32_t *buf;		/* size bytes, owned by the caller */
	uint32_t size;		/* bytes, power of two */
	uint32_t ptr_mask;	/* size - 1 */
	uint32_t rptr;		/* written by the consumer */
	uint32_t wptr;		/* written by the producer */
	uint32_t enabled;	/* 0: disabled (drain answers -ENODEV) */
	uint32_t soft;		/* a software ring: a full ring drops the new IV */
	uint64_t processed_ts;	/* last dispatched timestamp, never goes back */
	uint64_t written;	/* IVs accepted */
	uint64_t overflows;	/* IVs refused because the ring was full */
	uint64_t passes;	/* handler passes */
	/* User space only (the kernel uses a wait queue): a futex word bumped
	 * after each pass, and the number of drainers sleeping on it, so that
	 * the handler makes no system call when nobody waits. */
	uint32_t wake_seq;
	uint32_t waiters;
};

/* Called for each IV in ring order; dw points into the ring and is valid only
 * for the duration of the call. */
typedef void (*hipsvm_iv_fn)(void *arg, const uint32_t *dw, uint64_t ts);
/* Called after each pass, once rptr and processed_ts are published. */
typedef void (*hipsvm_wake_fn)(void *arg);

/* buf must hold size bytes; size a power of two of at least 64. -EINVAL else. */
int hipsvm_ring_init(struct hipsvm_ring *r, uint32_t *buf, uint32_t size, bool soft);

/* processed_ts starts at 0. A clock that does not start near 0 (a test that
 * starts just below 2^48) must say where it starts, or a drain would compare
 * against a timestamp 2^47 away: processed_ts becomes clock_start - 1. */
void hipsvm_ring_set_clock_start(struct hipsvm_ring *r, uint64_t clock_start);

/* Producer. 0, or -ENOSPC when full: the IV is dropped and wptr does not move
 * (a soft ring loses it; a GPU retries a retry fault until it is served). */
int hipsvm_ring_write(struct hipsvm_ring *r, const uint32_t dw[HIPSVM_IV_DWORDS]);

bool hipsvm_ring_empty(const struct hipsvm_ring *r);
uint32_t hipsvm_ring_pending(const struct hipsvm_ring *r);	/* IVs between rptr and wptr */
uint32_t hipsvm_ring_wptr(const struct hipsvm_ring *r);		/* load-acquire */

/* The timestamp of the IV at byte offset ptr + 32 * offset, masked into the
 * ring. ptr = wptr, offset = -1 reads the last IV written, also at wptr == 0. */
uint64_t hipsvm_ring_decode_ts(const struct hipsvm_ring *r, uint32_t ptr, int32_t offset);

/* Consumer: process until the ring is empty, at most HIPSVM_RING_PASS IVs per
 * pass; after each pass publish rptr, advance processed_ts (never backwards)
 * to the timestamps dispatched, call wake, and restart if wptr moved.
 * Returns the number of IVs dispatched. */
unsigned hipsvm_ring_process(struct hipsvm_ring *r, hipsvm_iv_fn fn, void *arg,
			     hipsvm_wake_fn wake, void *wake_arg);

#endif
