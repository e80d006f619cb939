/* SPDX-License-Identifier: MIT */
/*
 * test_checkpoint_drain.c - the drain of docs/design.md (Checkpoints): the predicate of
 * src/shared/checkpoint.c (which rings, which stamp, when it is done) and the
 * user-space wait of src/simcore/drain.c, apart from set/filter/clear because these
 * tests need a second thread to consume the rings and a clock to time out.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <time.h>

#include "checkpoint_fixture.h"
#include "shim/options.h"

/* ---- drain predicate ---- */

Test(checkpoint, drain_begin_errors)
{
	struct hipsvm_gpu_irq *g;
	struct hipsvm_drain d;

	g = gpu(true, false, 1);
	g->ih1->enabled = 0;
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), -ENODEV, "disabled ring");

	g = gpu(true, false, 1);
	g->shutdown = 1;
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), -ENODEV, "shutting down");

	g = gpu(false, false, 1);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), -ENODEV, "APU without the CAM");

	g = gpu(true, false, 1);
	g->in_reset = 1;
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), HIPSVM_DRAIN_SKIPPED);

	g = gpu(true, true, 1);
	g->ih_soft->enabled = 0;
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), -ENODEV, "CAM: soft ring disabled");
}

Test(checkpoint, drain_begin_rings)
{
	struct hipsvm_gpu_irq *g;
	struct hipsvm_drain d;

	g = gpu(true, false, 1);
	put(g->ih1, 0x42);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_eq(d.n, 1u);
	cr_assert_eq(d.ring[0], g->ih1);
	cr_assert_eq(d.checkpoint, 0x42u, "fresh, from wptr - 1");

	g = gpu(true, true, 1);
	put(g->ih0, 0x50);
	put(g->ih_soft, 0x40);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_eq(d.n, 2u);
	cr_assert_eq(d.ring[0], g->ih0);
	cr_assert_eq(d.ring[1], g->ih_soft);
	cr_assert_eq(d.cur, 0u);
	cr_assert_eq(d.checkpoint, 0x50u, "ih0 first");
	cr_assert_not(hipsvm_cp_drain_poll(&d));
	process(g->ih0);
	put(g->ih_soft, 0x60);	/* what ih0's handler passed on */
	cr_assert_not(hipsvm_cp_drain_poll(&d));
	cr_assert_eq(d.cur, 1u);
	cr_assert_eq(d.checkpoint, 0x60u, "ih_soft's checkpoint taken after ih0 was drained");

	g = gpu(false, true, 1);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0, "APU with the CAM");
}

Test(checkpoint, drain_done_rule)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);
	struct hipsvm_drain d;

	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert(hipsvm_cp_drain_poll(&d), "empty ring");

	put(g->ih1, 0x200);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_not(hipsvm_cp_drain_poll(&d));
	process(g->ih1);
	cr_assert(hipsvm_cp_drain_poll(&d));

	/* processed == checkpoint is not "after": pending same-stamp IV */
	put(g->ih1, 0x200);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_eq(g->ih1->processed_ts, 0x200u);
	cr_assert_not(hipsvm_cp_drain_poll(&d), "processed must be strictly after");
	process(g->ih1);
	cr_assert(hipsvm_cp_drain_poll(&d));

	/* processed strictly after the checkpoint: done although not empty */
	put(g->ih1, 0x100);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_not(hipsvm_ring_empty(g->ih1));
	cr_assert(hipsvm_cp_drain_poll(&d));
}

Test(checkpoint, drain_done_across_wrap)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, M - 4);
	struct hipsvm_drain d;

	put(g->ih1, M - 3);
	put(g->ih1, M - 1);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_eq(d.checkpoint, M - 1);
	cr_assert_not(hipsvm_cp_drain_poll(&d));
	process(g->ih1);
	cr_assert(hipsvm_cp_drain_poll(&d));

	put(g->ih1, 1);	/* after the wrap */
	process(g->ih1);
	cr_assert_eq(g->ih1->processed_ts, 1u);
	put(g->ih1, M);	/* older, re-queued */
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_eq(d.checkpoint, M);
	cr_assert(hipsvm_cp_drain_poll(&d), "1 is strictly after 2^48-1");
}

/* One pass of the handler over the first n IVs of r, as
 * hipsvm_ring_process publishes it: processed_ts, then rptr. */
static void pass_of(struct hipsvm_ring *r, unsigned n)
{
	uint32_t ptr = (r->rptr + n * HIPSVM_IV_BYTES) & r->ptr_mask;

	r->processed_ts = hipsvm_ring_decode_ts(r, ptr, -1);
	r->rptr = ptr;
}

/* ih0's handler with the CAM: every retry fault goes on to ih_soft. */
static void delegate(void *arg, const uint32_t *dw, uint64_t ts)
{
	(void)ts;
	cr_assert_eq(hipsvm_ring_write(arg, dw), 0);
}

/* With the CAM and ih_soft empty when the drain starts, faults still in ih0
 * reach ih_soft only later. The drain must cover them: it is not over while
 * ih_soft holds any of them, not even once a first pass over ih_soft has
 * moved its processed timestamp. (A checkpoint of ih_soft taken at the
 * start is passed as soon as that first pass is: the defect this tests.) */
Test(checkpoint, drain_cam_ih0_then_fresh_soft)
{
	struct hipsvm_gpu_irq *g = gpu(true, true, 1);
	struct hipsvm_drain d;
	unsigned i;

	for (i = 0; i < 64; i++)
		put(g->ih0, 0x100 + i);
	cr_assert(hipsvm_ring_empty(g->ih_soft));
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_not(hipsvm_cp_drain_poll(&d), "ih0 holds 64 faults");
	hipsvm_ring_process(g->ih0, delegate, g->ih_soft, hipsvm_ring_wake_user, g->ih0);
	cr_assert_eq(hipsvm_ring_pending(g->ih_soft), 64u);
	cr_assert_not(hipsvm_cp_drain_poll(&d), "all 64 now wait in ih_soft");
	cr_assert_eq(d.checkpoint, 0x13fu, "ih_soft's checkpoint: the last fault ih0 passed on");
	pass_of(g->ih_soft, 32);
	cr_assert_eq(g->ih_soft->processed_ts, 0x11fu);
	cr_assert_not(hipsvm_cp_drain_poll(&d), "32 faults still in ih_soft after one pass");
	pass_of(g->ih_soft, 31);
	cr_assert_not(hipsvm_cp_drain_poll(&d), "the checkpoint IV itself is still queued");
	pass_of(g->ih_soft, 1);
	cr_assert(hipsvm_cp_drain_poll(&d));
	cr_assert_eq(d.err, 0);
}

Test(checkpoint, drain_cam_soft_switched_off_midway)
{
	struct hipsvm_gpu_irq *g = gpu(true, true, 1);
	struct hipsvm_drain d;

	put(g->ih0, 0x10);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	g->ih_soft->enabled = 0;
	process(g->ih0);
	cr_assert(hipsvm_cp_drain_poll(&d), "over: nothing left to wait on");
	cr_assert_eq(d.err, -ENODEV, "ih_soft went off: nodev, never a silent ok");
}

/* ---- the user-space drain ---- */

static void *late_handler(void *arg)
{
	struct hipsvm_ring *r = arg;
	struct timespec t = { 0, 5 * 1000 * 1000 };

	nanosleep(&t, NULL);
	process(r);
	return NULL;
}

Test(checkpoint, user_drain_completes_when_processed)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);
	pthread_t t;

	put(g->ih1, 0x10);
	put(g->ih1, 0x11);
	cr_assert_eq(pthread_create(&t, NULL, late_handler, g->ih1), 0);
	/* A generous timeout: the test is about the wake-up, not the speed. */
	cr_assert_eq(hipsvm_cp_drain(CP, g, 10000 * MS), 0);
	pthread_join(t, NULL);
	cr_assert(hipsvm_ring_empty(g->ih1));
	cr_assert_eq(F.cp.stats.drains, 1u);
	cr_assert_eq(F.cp.stats.drain_timeouts, 0u);
}

Test(checkpoint, user_drain_cam_two_rings)
{
	struct hipsvm_gpu_irq *g = gpu(true, true, 1);
	pthread_t t1, t2;

	put(g->ih0, 0x10);
	put(g->ih_soft, 0x11);
	cr_assert_eq(pthread_create(&t1, NULL, late_handler, g->ih0), 0);
	cr_assert_eq(pthread_create(&t2, NULL, late_handler, g->ih_soft), 0);
	cr_assert_eq(hipsvm_cp_drain(CP, g, 10000 * MS), 0);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
}

Test(checkpoint, user_drain_times_out)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);
	struct timespec a, b;
	uint64_t ns;

	put(g->ih1, 0x10);
	clock_gettime(CLOCK_MONOTONIC, &a);
	cr_assert_eq(hipsvm_cp_drain(CP, g, 50 * MS), -ETIME, "nobody processes");
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)b.tv_nsec -
	     (uint64_t)a.tv_nsec;
	/* a lower bound only: the drain must not give up early */
	cr_assert_geq(ns, 50 * MS, "gave up after %llu ns", (unsigned long long)ns);
	cr_assert_eq(F.cp.stats.drain_timeouts, 1u);
	cr_assert_eq(F.cp.stats.drains, 1u);
}

Test(checkpoint, user_drain_empty_skipped_nodev)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);

	cr_assert_eq(hipsvm_cp_drain(CP, g, 50 * MS), 0, "empty ring: nothing to wait for");
	g->in_reset = 1;
	cr_assert_eq(hipsvm_cp_drain(CP, g, 50 * MS), HIPSVM_DRAIN_SKIPPED);
	cr_assert_eq(F.cp.stats.drain_skipped, 1u);
	g->in_reset = 0;
	g->shutdown = 1;
	cr_assert_eq(hipsvm_cp_drain(CP, g, 50 * MS), -ENODEV);
	cr_assert_eq(F.cp.stats.drain_nodev, 1u);
	cr_assert_eq(F.cp.stats.drains, 3u);
}

Test(checkpoint, default_drain_timeout_is_one_second)
{
	const struct hipsvm_option_desc *d = hipsvm_option_desc(HIPSVM_O_DRAIN_TIMEOUT_MS);
	struct hipsvm_options o;

	cr_assert_not_null(d);
	hipsvm_options_defaults(&o);
	cr_assert_eq(o.num[HIPSVM_O_DRAIN_TIMEOUT_MS], 1000u);
}
