/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ring.c - the IH ring and IV decoding (src/shared/ring.c, src/shared/iv.h).
 *
 * Two parts, both driven by the input:
 *  1. A ring whose memory is the input itself (as if the GPU had written
 *     garbage), with fuzzed aligned rptr/wptr: processing it must dispatch
 *     exactly the IVs between rptr and wptr, at most HIPSVM_RING_PASS per
 *     pass, with processed_ts never going back, and leave the ring empty.
 *  2. A sequence of writes, passes and timestamp reads against a FIFO model:
 *     the ring hands out what was written, in order, refuses a write exactly
 *     when the model is full (size/32 - 1 slots), and decode_ts(wptr, -1) is
 *     the last timestamp written.
 * Every IV also goes through decode/encode: encode(decode(dw)) == dw for the
 * bits the layout defines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/iv.h"
#include "shared/ring.h"
#include "shared/ts.h"

#define MAX_RING 4096
#define MAX_SLOTS (MAX_RING / HIPSVM_IV_BYTES)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct check {
	struct hipsvm_ring *ring;
	unsigned in_pass;	/* IVs since the last wake */
	unsigned total;
	uint64_t last_processed;
	uint64_t expect_processed;	/* the rule applied IV by IV */
	/* the model (part 2) */
	uint32_t model[MAX_SLOTS][HIPSVM_IV_DWORDS];
	unsigned head, count, cap;
	bool use_model;
};

static void die(const char *what)
{
	fprintf(stderr, "fuzz_ring: %s\n", what);
	abort();
}

static void check_iv(const uint32_t *dw, uint64_t ts)
{
	struct hipsvm_iv iv;
	uint32_t back[HIPSVM_IV_DWORDS];

	if (ts != hipsvm_iv_dw_ts(dw) || ts > HIPSVM_TS_MASK)
		die("dispatched timestamp differs from the IV's");
	hipsvm_iv_decode(dw, &iv);
	hipsvm_iv_encode(&iv, back);
	/* DW0 [30:28], DW2 [30:16] and DW3 [31:24] are not part of the layout. */
	if (back[0] != (dw[0] & 0x8fffffffu) || back[1] != dw[1] ||
	    back[2] != (dw[2] & 0x8000ffffu) || back[3] != (dw[3] & 0x00ffffffu) ||
	    memcmp(back + 4, dw + 4, 4 * sizeof(uint32_t)))
		die("encode(decode(iv)) differs");
	if (hipsvm_iv_fault_addr(&iv) >> 48)
		die("fault address wider than 48 bits");
}

static void on_iv(void *arg, const uint32_t *dw, uint64_t ts)
{
	struct check *c = arg;

	check_iv(dw, ts);
	c->in_pass++;
	c->total++;
	if (hipsvm_ts_after(c->expect_processed, ts))
		c->expect_processed = ts;
	if (c->in_pass > HIPSVM_RING_PASS)
		die("more than HIPSVM_RING_PASS IVs in one pass");
	if (c->use_model) {
		if (!c->count)
			die("dispatched an IV that was never written");
		if (memcmp(c->model[c->head], dw, HIPSVM_IV_BYTES))
			die("dispatched IV differs from the one written");
		c->head = (c->head + 1) % c->cap;
		c->count--;
	}
}

static void on_wake(void *arg)
{
	struct check *c = arg;
	uint64_t p = HIPSVM_LOAD_ACQ(&c->ring->processed_ts);

	if (!c->in_pass)
		die("a pass that dispatched nothing");
	/* "Never backwards" is a step-by-step rule: with garbage timestamps
	 * (part 1) two steps can add up to more than 2^47 and then compare as
	 * backwards, so there the published value is checked against the rule
	 * applied IV by IV; with a monotonic clock (part 2) also across passes. */
	if (p != c->expect_processed)
		die("processed_ts is not what the rule gives");
	if (c->use_model && hipsvm_ts_after(p, c->last_processed))
		die("processed_ts went backwards");
	c->last_processed = p;
	c->in_pass = 0;
}

static uint32_t pick_size(uint8_t b)
{
	return (uint32_t)HIPSVM_RING_MIN_BYTES << (b % 7);	/* 64 .. 4096 */
}

static void part1(const uint8_t *data, size_t size, struct check *c)
{
	struct hipsvm_ring r;
	uint32_t *buf, sz, pending;
	unsigned got;

	if (size < 3)
		return;
	sz = pick_size(data[0]);
	buf = calloc(1, sz);
	if (!buf)
		return;
	memcpy(buf, data + 3, size - 3 < sz ? size - 3 : sz);
	if (hipsvm_ring_init(&r, buf, sz, data[0] & 0x80))
		die("init of a valid ring failed");
	r.rptr = ((uint32_t)data[1] * HIPSVM_IV_BYTES) & r.ptr_mask;
	r.wptr = ((uint32_t)data[2] * HIPSVM_IV_BYTES) & r.ptr_mask;
	/* Any 48-bit start: processed_ts is then just below the first IV. */
	hipsvm_ring_set_clock_start(&r, hipsvm_iv_dw_ts(buf));
	pending = hipsvm_ring_pending(&r);
	memset(c, 0, sizeof(*c));
	c->ring = &r;
	c->last_processed = c->expect_processed = r.processed_ts;
	got = hipsvm_ring_process(&r, on_iv, c, on_wake, c);
	if (got != pending || c->total != pending)
		die("process did not dispatch exactly the pending IVs");
	if (!hipsvm_ring_empty(&r) || hipsvm_ring_pending(&r))
		die("ring not empty after process");
	if (r.passes != (pending + HIPSVM_RING_PASS - 1) / HIPSVM_RING_PASS)
		die("unexpected number of passes");
	free(buf);
}

static void part2(const uint8_t *data, size_t size, struct check *c)
{
	struct hipsvm_ring r;
	uint32_t *buf, sz;
	uint64_t clock, last_ts = 0;
	bool written = false;
	size_t i;

	if (size < 9)
		return;
	sz = pick_size(data[0]);
	buf = calloc(1, sz);
	if (!buf)
		return;
	if (hipsvm_ring_init(&r, buf, sz, false))
		die("init of a valid ring failed");
	memset(c, 0, sizeof(*c));
	c->ring = &r;
	c->use_model = true;
	c->cap = sz / HIPSVM_IV_BYTES;
	/* A monotonic clock from a fuzzed 48-bit start, maybe just below the wrap. */
	memcpy(&clock, data + 1, 8);
	clock &= HIPSVM_TS_MASK;
	hipsvm_ring_set_clock_start(&r, clock);
	c->last_processed = c->expect_processed = r.processed_ts;
	for (i = 9; i < size; i++) {
		uint8_t op = data[i];

		if (op < 0xc0) {	/* write an IV */
			struct hipsvm_iv iv;
			uint32_t dw[HIPSVM_IV_DWORDS];
			bool full = c->count == c->cap - 1;

			hipsvm_iv_make_fault(&iv, (uint64_t)op << 12 | (uint64_t)i << 20,
					     op & 1, clock, (uint16_t)i, op);
			hipsvm_iv_encode(&iv, dw);
			if (hipsvm_ring_write(&r, dw) == 0) {
				if (full)
					die("write accepted into a full ring");
				memcpy(c->model[(c->head + c->count) % c->cap], dw, sizeof(dw));
				c->count++;
				last_ts = clock;
				written = true;
			} else if (!full) {
				die("write refused with room left");
			}
			clock = hipsvm_ts_add(clock, 1 + (op & 0xf));
		} else if (op < 0xf0) {	/* a handler pass */
			unsigned before = c->count;

			c->in_pass = 0;
			if (hipsvm_ring_process(&r, on_iv, c, on_wake, c) != before || c->count)
				die("process left IVs behind");
			if (written && r.processed_ts != last_ts)
				die("processed_ts is not the last IV's timestamp");
		} else {		/* an observer */
			if (written && hipsvm_ring_decode_ts(&r, hipsvm_ring_wptr(&r), -1) != last_ts)
				die("decode_ts(wptr, -1) is not the last IV written");
			if (hipsvm_ring_pending(&r) != c->count)
				die("pending differs from the model");
		}
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct check c;

	part1(data, size, &c);
	part2(data, size, &c);
	return 0;
}
