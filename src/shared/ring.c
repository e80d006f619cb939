/* SPDX-License-Identifier: MIT */
/* ring.c - IH ring; compiled in user space and in kernel/hipsvm.ko. */
#include "shared/ring.h"

int hipsvm_ring_init(struct hipsvm_ring *r, uint32_t *buf, uint32_t size, bool soft)
{
	if (!r || !buf || size < HIPSVM_RING_MIN_BYTES || (size & (size - 1)))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->size = size;
	r->ptr_mask = size - 1;
	r->soft = soft;
	r->enabled = 1;
	return 0;
}

void hipsvm_ring_set_clock_start(struct hipsvm_ring *r, uint64_t clock_start)
{
	HIPSVM_STORE_REL(&r->processed_ts, (clock_start - 1) & HIPSVM_TS_MASK);
}

int hipsvm_ring_write(struct hipsvm_ring *r, const uint32_t dw[HIPSVM_IV_DWORDS])
{
	uint32_t wptr = HIPSVM_LOAD(&r->wptr);	/* only we write it */
	uint32_t next = (wptr + HIPSVM_IV_BYTES) & r->ptr_mask;
	uint32_t *slot;
	int i;

	if (next == HIPSVM_LOAD_ACQ(&r->rptr)) {
		HIPSVM_ADD(&r->overflows, 1);
		return -ENOSPC;
	}
	slot = r->buf + wptr / 4;
	for (i = 0; i < HIPSVM_IV_DWORDS; i++)
		HIPSVM_STORE(&slot[i], dw[i]);
	HIPSVM_STORE_REL(&r->wptr, next);
	HIPSVM_ADD(&r->written, 1);
	return 0;
}

uint32_t hipsvm_ring_wptr(const struct hipsvm_ring *r)
{
	return HIPSVM_LOAD_ACQ(&r->wptr);
}

bool hipsvm_ring_empty(const struct hipsvm_ring *r)
{
	return HIPSVM_LOAD_ACQ(&r->rptr) == HIPSVM_LOAD_ACQ(&r->wptr);
}

uint32_t hipsvm_ring_pending(const struct hipsvm_ring *r)
{
	uint32_t w = HIPSVM_LOAD_ACQ(&r->wptr), rd = HIPSVM_LOAD_ACQ(&r->rptr);

	return ((w - rd) & r->ptr_mask) / HIPSVM_IV_BYTES;
}

uint64_t hipsvm_ring_decode_ts(const struct hipsvm_ring *r, uint32_t ptr, int32_t offset)
{
	/* Unsigned wrap-around of ptr + 32 * offset, then the mask, gives the slot
	 * before ptr even when ptr is 0. */
	uint32_t at = (ptr + (uint32_t)((int64_t)offset * HIPSVM_IV_BYTES)) & r->ptr_mask;
	const uint32_t *slot = r->buf + at / 4;
	uint32_t hi, lo, hi2 = HIPSVM_LOAD(&slot[2]);

	/* An observer preempted while the producer laps the ring could pair the
	 * low half of one IV with the high half of another. Read the high half
	 * on both sides: if it did not change, the pair belongs to one IV (a
	 * later one at worst, which is still a valid timestamp). */
	do {
		hi = hi2;
		lo = HIPSVM_LOAD(&slot[1]);
		HIPSVM_FENCE_ACQ();
		hi2 = HIPSVM_LOAD(&slot[2]);
	} while (hi != hi2);
	return (uint64_t)lo | (uint64_t)(hi & 0xffff) << 32;
}

unsigned hipsvm_ring_process(struct hipsvm_ring *r, hipsvm_iv_fn fn, void *arg,
			     hipsvm_wake_fn wake, void *wake_arg)
{
	uint32_t dw[HIPSVM_IV_DWORDS];
	uint32_t rptr = HIPSVM_LOAD(&r->rptr);	/* only we write it */
	uint64_t processed = HIPSVM_LOAD(&r->processed_ts);
	unsigned total = 0;
	uint32_t wptr;

	for (;;) {
		unsigned count = 0;
		int i;

		wptr = HIPSVM_LOAD_ACQ(&r->wptr);
		if (rptr == wptr)
			break;
		while (rptr != wptr && count < HIPSVM_RING_PASS) {
			const uint32_t *slot = r->buf + rptr / 4;
			uint64_t ts;

			for (i = 0; i < HIPSVM_IV_DWORDS; i++)
				dw[i] = HIPSVM_LOAD(&slot[i]);
			ts = hipsvm_iv_dw_ts(dw);
			fn(arg, dw, ts);
			if (hipsvm_ts_after(processed, ts))
				processed = ts;
			rptr = (rptr + HIPSVM_IV_BYTES) & r->ptr_mask;
			count++;
		}
		/* processed_ts first: a drainer that sees the ring empty (rptr ==
		 * wptr) or processed past its checkpoint must find both true. */
		HIPSVM_STORE_REL(&r->processed_ts, processed);
		HIPSVM_STORE_REL(&r->rptr, rptr);
		HIPSVM_ADD(&r->passes, 1);
		total += count;
		if (wake)
			wake(wake_arg);
	}
	return total;
}
