/* SPDX-License-Identifier: MIT */
/* test_ring.c - the IH ring (src/shared/ring.c): rules, a model, and two threads. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "shared/ring.h"
#include "test_rand.h"

#define M HIPSVM_TS_MASK

/* An IV whose every dword is derived from ts, so a torn read shows. */
static void make_iv(uint32_t dw[HIPSVM_IV_DWORDS], uint64_t ts)
{
	struct hipsvm_iv iv = { 0 };

	iv.client_id = HIPSVM_IH_CLIENT_VMC;
	iv.src_id = (uint8_t)ts;
	iv.timestamp = ts & M;
	iv.pasid = (uint16_t)(ts >> 3);
	iv.src_data[0] = (uint32_t)ts;
	iv.src_data[1] = ~(uint32_t)ts;
	iv.src_data[2] = (uint32_t)(ts * 2654435761u);
	iv.src_data[3] = (uint32_t)(ts >> 32) ^ 0xa5a5a5a5u;
	hipsvm_iv_encode(&iv, dw);
}

static bool iv_consistent(const uint32_t *dw)
{
	uint32_t want[HIPSVM_IV_DWORDS];

	make_iv(want, hipsvm_iv_dw_ts(dw));
	return !memcmp(want, dw, sizeof(want));
}

static int write_ts(struct hipsvm_ring *r, uint64_t ts)
{
	uint32_t dw[HIPSVM_IV_DWORDS];

	make_iv(dw, ts);
	return hipsvm_ring_write(r, dw);
}

/* Records what was dispatched and how the passes were cut. */
struct rec {
	uint64_t ts[4096];
	unsigned n;
	unsigned in_pass, max_in_pass, wakes;
	bool torn;
	/* optional: write more from inside the handler (same thread, so
	 * still one producer) */
	struct hipsvm_ring *refill;
	unsigned refill_left;
	uint64_t refill_ts;
};

static void rec_fn(void *arg, const uint32_t *dw, uint64_t ts)
{
	struct rec *r = arg;

	if (!iv_consistent(dw) || hipsvm_iv_dw_ts(dw) != ts)
		r->torn = true;
	if (r->n < 4096)
		r->ts[r->n] = ts;
	r->n++;
	r->in_pass++;
	if (r->refill && r->refill_left) {
		if (!write_ts(r->refill, r->refill_ts)) {
			r->refill_ts++;
			r->refill_left--;
		}
	}
}

static void rec_wake(void *arg)
{
	struct rec *r = arg;

	if (r->in_pass > r->max_in_pass)
		r->max_in_pass = r->in_pass;
	r->in_pass = 0;
	r->wakes++;
}

static uint32_t buf[8192 / 4];

Test(ring, init_errors)
{
	struct hipsvm_ring r;

	memset(&r, 0x77, sizeof(r));
	cr_assert_eq(hipsvm_ring_init(&r, buf, 96, false), -EINVAL, "not a power of two");
	cr_assert_eq(hipsvm_ring_init(&r, buf, 1000, false), -EINVAL);
	cr_assert_eq(hipsvm_ring_init(&r, buf, 32, false), -EINVAL, "too small");
	cr_assert_eq(hipsvm_ring_init(&r, buf, 0, false), -EINVAL);
	cr_assert_eq(hipsvm_ring_init(&r, NULL, 64, false), -EINVAL);
	cr_assert_eq(hipsvm_ring_init(NULL, buf, 64, false), -EINVAL);
	cr_assert_eq(r.size, 0x77777777u, "untouched on failure");
	cr_assert_eq(hipsvm_ring_init(&r, buf, 64, false), 0);
	cr_assert_eq(r.size, 64u);
	cr_assert_eq(r.ptr_mask, 63u);
	cr_assert(r.enabled);
	cr_assert(hipsvm_ring_empty(&r));
	cr_assert_eq(hipsvm_ring_pending(&r), 0u);
	cr_assert_eq(r.processed_ts, 0u);
}

Test(ring, write_and_decode_ts)
{
	struct hipsvm_ring r;

	cr_assert_eq(hipsvm_ring_init(&r, buf, 256, false), 0);	/* 8 slots, 7 usable */
	cr_assert_eq(write_ts(&r, 0x100), 0);
	cr_assert_eq(write_ts(&r, 0x101), 0);
	cr_assert_eq(hipsvm_ring_wptr(&r), 64u);
	cr_assert_eq(hipsvm_ring_pending(&r), 2u);
	cr_assert_eq(hipsvm_ring_decode_ts(&r, hipsvm_ring_wptr(&r), -1), 0x101u);
	cr_assert_eq(hipsvm_ring_decode_ts(&r, hipsvm_ring_wptr(&r), -2), 0x100u);
	cr_assert_eq(hipsvm_ring_decode_ts(&r, 0, 1), 0x101u);
	cr_assert_eq(hipsvm_ring_decode_ts(&r, 0, 0), 0x100u);
	/* offsets wrap inside the ring both ways */
	cr_assert_eq(hipsvm_ring_decode_ts(&r, 0, 8), 0x100u);
	cr_assert_eq(hipsvm_ring_decode_ts(&r, 0, -7), 0x101u);
}

Test(ring, decode_last_at_wptr_zero_after_wrap)
{
	struct hipsvm_ring r;
	struct rec rec = { 0 };
	uint64_t ts = 0x5000;
	unsigned i;

	cr_assert_eq(hipsvm_ring_init(&r, buf, 256, false), 0);
	/* Fill 7, drain, then one more lands in the last slot: wptr wraps to 0. */
	for (i = 0; i < 7; i++)
		cr_assert_eq(write_ts(&r, ts++), 0);
	cr_assert_eq(hipsvm_ring_process(&r, rec_fn, &rec, NULL, NULL), 7u);
	cr_assert_eq(write_ts(&r, ts++), 0);
	cr_assert_eq(hipsvm_ring_wptr(&r), 0u);
	cr_assert_not(hipsvm_ring_empty(&r));
	cr_assert_eq(hipsvm_ring_decode_ts(&r, 0, -1), 0x5007u,
		     "the last IV written, in the last slot: got 0x%llx",
		     (unsigned long long)hipsvm_ring_decode_ts(&r, 0, -1));
	cr_assert_eq(hipsvm_ring_decode_ts(&r, hipsvm_ring_wptr(&r), -1), 0x5007u);
}

Test(ring, full_ring_drops_without_moving_wptr)
{
	struct hipsvm_ring r;
	uint32_t w;
	unsigned i;

	cr_assert_eq(hipsvm_ring_init(&r, buf, 256, true), 0);
	for (i = 0; i < 7; i++)
		cr_assert_eq(write_ts(&r, 10 + i), 0);
	w = hipsvm_ring_wptr(&r);
	cr_assert_eq(hipsvm_ring_pending(&r), 7u);
	cr_assert_eq(write_ts(&r, 99), -ENOSPC);
	cr_assert_eq(write_ts(&r, 100), -ENOSPC);
	cr_assert_eq(hipsvm_ring_wptr(&r), w, "wptr must not move on a full ring");
	cr_assert_eq(hipsvm_ring_pending(&r), 7u);
	cr_assert_eq(hipsvm_ring_decode_ts(&r, w, -1), 16u, "the dropped IVs left no trace");
	cr_assert_eq(r.overflows, 2u);
	cr_assert_eq(r.written, 7u);
}

Test(ring, at_most_32_per_pass)
{
	struct hipsvm_ring r;
	struct rec rec = { 0 };
	unsigned i;

	cr_assert_eq(hipsvm_ring_init(&r, buf, 8192, false), 0);	/* 255 usable */
	for (i = 0; i < 100; i++)
		cr_assert_eq(write_ts(&r, 1000 + i), 0);
	cr_assert_eq(hipsvm_ring_process(&r, rec_fn, &rec, rec_wake, &rec), 100u);
	cr_assert_eq(rec.n, 100u);
	cr_assert_eq(rec.max_in_pass, (unsigned)HIPSVM_RING_PASS);
	cr_assert_eq(rec.wakes, 4u, "32 + 32 + 32 + 4: %u wakes", rec.wakes);
	cr_assert_eq(r.passes, 4u);
	cr_assert_not(rec.torn);
	for (i = 0; i < 100; i++)
		cr_assert_eq(rec.ts[i], 1000u + i);
	cr_assert(hipsvm_ring_empty(&r));
	cr_assert_eq(r.processed_ts, 1099u);
	/* An empty ring: nothing dispatched, no pass, no wake. */
	cr_assert_eq(hipsvm_ring_process(&r, rec_fn, &rec, rec_wake, &rec), 0u);
	cr_assert_eq(rec.wakes, 4u);
	cr_assert_eq(r.passes, 4u);
}

Test(ring, processed_ts_never_goes_back)
{
	struct hipsvm_ring r;
	struct rec rec = { 0 };

	cr_assert_eq(hipsvm_ring_init(&r, buf, 256, false), 0);
	write_ts(&r, 0x2000);
	write_ts(&r, 0x1000);	/* a re-queued fault can carry an older stamp */
	cr_assert_eq(hipsvm_ring_process(&r, rec_fn, &rec, NULL, NULL), 2u);
	cr_assert_eq(r.processed_ts, 0x2000u);
	write_ts(&r, 0x1800);
	hipsvm_ring_process(&r, rec_fn, &rec, NULL, NULL);
	cr_assert_eq(r.processed_ts, 0x2000u);
	write_ts(&r, 0x2001);
	hipsvm_ring_process(&r, rec_fn, &rec, NULL, NULL);
	cr_assert_eq(r.processed_ts, 0x2001u);
}

Test(ring, restart_when_wptr_moved)
{
	struct hipsvm_ring r;
	struct rec rec = { 0 };
	unsigned i;

	cr_assert_eq(hipsvm_ring_init(&r, buf, 8192, false), 0);
	for (i = 0; i < 10; i++)
		write_ts(&r, 1 + i);
	/* Each dispatch writes one more, 50 in all, while the pass runs. */
	rec.refill = &r;
	rec.refill_left = 50;
	rec.refill_ts = 11;
	cr_assert_eq(hipsvm_ring_process(&r, rec_fn, &rec, rec_wake, &rec), 60u);
	cr_assert(hipsvm_ring_empty(&r));
	cr_assert_eq(rec.refill_left, 0u);
	cr_assert_geq(rec.wakes, 2u);
	cr_assert_leq(rec.max_in_pass, (unsigned)HIPSVM_RING_PASS);
	for (i = 0; i < 60; i++)
		cr_assert_eq(rec.ts[i], 1u + i);
	cr_assert_eq(r.processed_ts, 60u);
}

Test(ring, clock_start_near_wrap)
{
	struct hipsvm_ring r;
	struct rec rec = { 0 };
	uint64_t start = M - 2;
	unsigned i;

	cr_assert_eq(hipsvm_ring_init(&r, buf, 256, false), 0);
	hipsvm_ring_set_clock_start(&r, start);
	cr_assert_eq(r.processed_ts, M - 3);
	for (i = 0; i < 6; i++)
		write_ts(&r, hipsvm_ts_add(start, i));	/* M-2, M-1, M, 0, 1, 2 */
	cr_assert_eq(hipsvm_ring_process(&r, rec_fn, &rec, NULL, NULL), 6u);
	cr_assert_eq(r.processed_ts, 2u, "processed_ts follows across the wrap: 0x%llx",
		     (unsigned long long)r.processed_ts);
	cr_assert_eq(rec.ts[2], M);
	cr_assert_eq(rec.ts[3], 0u);

	/* a clock starting at 0: processed_ts is the value just before it */
	hipsvm_ring_set_clock_start(&r, 0);
	cr_assert_eq(r.processed_ts, M);
}

/* The model: a plain array queue of capacity slots - 1. */
Test(ring, random_against_model)
{
	uint64_t seed = test_seed(0x41f9), s = seed | 1;
	static uint64_t q[1024];
	unsigned sizes[] = { 64, 128, 512, 4096 };
	unsigned round;

	cr_log_info("ring random cross-check: seed %llu (HIPSVM_TEST_SEED overrides)",
		    (unsigned long long)seed);
	for (round = 0; round < 40; round++) {
		struct hipsvm_ring r;
		unsigned size = sizes[round % 4], cap = size / HIPSVM_IV_BYTES - 1;
		unsigned head = 0, len = 0, op;
		uint64_t clock = rnd(&s) & M, processed, last = 0;
		bool any = false;

		cr_assert_eq(hipsvm_ring_init(&r, buf, size, round & 1), 0);
		hipsvm_ring_set_clock_start(&r, clock);
		processed = (clock - 1) & M;
		for (op = 0; op < 3000; op++) {
			unsigned k = (unsigned)(rnd(&s) % 10);

			if (k < 6) {
				/* mostly forward, sometimes a little back */
				uint64_t ts = (rnd(&s) % 8) ? hipsvm_ts_add(clock, rnd(&s) % 3)
							     : (clock - (rnd(&s) % 4)) & M;
				int err = write_ts(&r, ts);

				clock = hipsvm_ts_add(clock, 1);
				if (len == cap) {
					cr_assert_eq(err, -ENOSPC, "seed %llu round %u op %u",
						     (unsigned long long)seed, round, op);
				} else {
					cr_assert_eq(err, 0, "seed %llu round %u op %u",
						     (unsigned long long)seed, round, op);
					q[(head + len++) % 1024] = ts;
					last = ts;
					any = true;
				}
			} else if (k < 9) {
				struct rec rec = { 0 };
				unsigned i;

				cr_assert_eq(hipsvm_ring_process(&r, rec_fn, &rec, rec_wake, &rec),
					     len, "seed %llu round %u op %u",
					     (unsigned long long)seed, round, op);
				cr_assert_eq(rec.wakes, (len + HIPSVM_RING_PASS - 1) / HIPSVM_RING_PASS);
				for (i = 0; i < len; i++) {
					uint64_t t = q[(head + i) % 1024];

					cr_assert_eq(rec.ts[i], t, "seed %llu round %u op %u #%u",
						     (unsigned long long)seed, round, op, i);
					if (hipsvm_ts_after(processed, t))
						processed = t;
				}
				head = (head + len) % 1024;
				len = 0;
				cr_assert_eq(r.processed_ts, processed, "seed %llu round %u op %u",
					     (unsigned long long)seed, round, op);
			} else {
				unsigned i;

				cr_assert_eq(hipsvm_ring_pending(&r), len);
				cr_assert_eq(hipsvm_ring_empty(&r), len == 0);
				if (any)
					cr_assert_eq(hipsvm_ring_decode_ts(&r, hipsvm_ring_wptr(&r), -1),
						     last, "seed %llu round %u op %u",
						     (unsigned long long)seed, round, op);
				for (i = 0; i < len; i++)
					cr_assert_eq(hipsvm_ring_decode_ts(&r, r.rptr, (int32_t)i),
						     q[(head + i) % 1024]);
			}
		}
	}
}

/* One producer thread, one consumer thread. */
#define CONC_N 1000000u

struct conc {
	struct hipsvm_ring r;
	uint64_t start;
	uint64_t received;
	uint64_t out_of_order, torn, bad_processed;
	uint64_t last_processed;
};

static void conc_fn(void *arg, const uint32_t *dw, uint64_t ts)
{
	struct conc *c = arg;

	if (!iv_consistent(dw))
		c->torn++;
	if (ts != hipsvm_ts_add(c->start, c->received))
		c->out_of_order++;
	c->received++;
}

static void *producer(void *arg)
{
	struct conc *c = arg;
	uint64_t i;

	for (i = 0; i < CONC_N; i++) {
		uint32_t dw[HIPSVM_IV_DWORDS];

		make_iv(dw, hipsvm_ts_add(c->start, i));
		while (hipsvm_ring_write(&c->r, dw) == -ENOSPC)
			sched_yield();
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct conc *c = arg;

	while (c->received < CONC_N) {
		uint64_t p;

		if (!hipsvm_ring_process(&c->r, conc_fn, c, NULL, NULL)) {
			sched_yield();
			continue;
		}
		/* processed_ts is exactly the last one dispatched here */
		p = HIPSVM_LOAD_ACQ(&c->r.processed_ts);
		if (p != hipsvm_ts_add(c->start, c->received - 1) ||
		    !hipsvm_ts_after(c->last_processed, p))
			c->bad_processed++;
		c->last_processed = p;
	}
	return NULL;
}

Test(ring, one_producer_one_consumer, .timeout = 120)
{
	static uint32_t cbuf[4096 / 4];
	static struct conc c;
	pthread_t p, q;

	/* Stamps cross 2^32 (dw2 changes) and the 2^48 wrap on the way. */
	c.start = M - CONC_N / 2;
	cr_assert_eq(hipsvm_ring_init(&c.r, cbuf, sizeof(cbuf), false), 0);
	hipsvm_ring_set_clock_start(&c.r, c.start);
	c.last_processed = c.r.processed_ts;
	cr_assert_eq(pthread_create(&q, NULL, consumer, &c), 0);
	cr_assert_eq(pthread_create(&p, NULL, producer, &c), 0);
	pthread_join(p, NULL);
	pthread_join(q, NULL);
	cr_assert_eq(c.received, CONC_N);
	cr_assert_eq(c.torn, 0u, "%llu torn IVs", (unsigned long long)c.torn);
	cr_assert_eq(c.out_of_order, 0u, "%llu out of order", (unsigned long long)c.out_of_order);
	cr_assert_eq(c.bad_processed, 0u);
	cr_assert(hipsvm_ring_empty(&c.r));
	cr_assert_eq(c.r.written, (uint64_t)CONC_N);
	cr_assert_eq(c.r.processed_ts, hipsvm_ts_add(c.start, CONC_N - 1));
}
