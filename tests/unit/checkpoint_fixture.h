/* SPDX-License-Identifier: MIT */
/*
 * checkpoint_fixture.h - what the checkpoint tests (test_checkpoint*.c) share:
 * one GPU's three rings in static buffers, reset for every test so that no
 * test sees another's stamps, and a way to queue and consume an IV by its
 * timestamp alone, which is all the checkpoint rules look at.
 */
#ifndef HIPSVM_TESTS_CHECKPOINT_FIXTURE_H
#define HIPSVM_TESTS_CHECKPOINT_FIXTURE_H

#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "shared/checkpoint.h"

#define M HIPSVM_TS_MASK
#define RING_BYTES 4096u
#define MS (UINT64_C(1000000))

static uint32_t bufs[3][RING_BYTES / 4];

/* One GPU's rings and one process's checkpoint on it. */
static struct {
	struct hipsvm_ring ih0, ih1, soft;
	struct hipsvm_gpu_irq g;
	struct hipsvm_cp cp;
} F;
#define CP (&F.cp)

static inline struct hipsvm_gpu_irq *gpu(bool has_ih1, bool cam, uint64_t clock_start)
{
	memset(&F, 0, sizeof(F));
	cr_assert_eq(hipsvm_ring_init(&F.ih0, bufs[0], RING_BYTES, false), 0);
	cr_assert_eq(hipsvm_ring_init(&F.ih1, bufs[1], RING_BYTES, false), 0);
	cr_assert_eq(hipsvm_ring_init(&F.soft, bufs[2], RING_BYTES, true), 0);
	hipsvm_ring_set_clock_start(&F.ih0, clock_start);
	hipsvm_ring_set_clock_start(&F.ih1, clock_start);
	hipsvm_ring_set_clock_start(&F.soft, clock_start);
	F.g.ih0 = &F.ih0;
	F.g.ih1 = has_ih1 ? &F.ih1 : NULL;
	F.g.ih_soft = &F.soft;
	F.g.retry_cam = cam;
	return &F.g;
}

static inline void put(struct hipsvm_ring *r, uint64_t ts)
{
	struct hipsvm_iv iv;
	uint32_t dw[HIPSVM_IV_DWORDS];

	hipsvm_iv_make_fault(&iv, 0x7f0000001000, false, ts, 1, 0);
	hipsvm_iv_encode(&iv, dw);
	cr_assert_eq(hipsvm_ring_write(r, dw), 0);
}

static inline void nop_fn(void *arg, const uint32_t *dw, uint64_t ts)
{
}

static inline void process(struct hipsvm_ring *r)
{
	hipsvm_ring_process(r, nop_fn, NULL, hipsvm_ring_wake_user, r);
}

#endif /* HIPSVM_TESTS_CHECKPOINT_FIXTURE_H */
