/* SPDX-License-Identifier: MIT */
/*
 * test_checkpoint_drain.c - the drain of SPEC section 3: the predicate of
 * src/checkpoint.c (which rings, which stamp, when it is done) and the
 * user-space wait of src/drain.c, apart from set/filter/clear because these
 * tests need a second thread to consume the rings and a clock to time out.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <time.h>

#include "checkpoint_fixture.h"
#include "options.h"

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
	cr_assert_eq(d.checkpoint[0], 0x42u, "fresh, from wptr - 1");

	g = gpu(true, true, 1);
	put(g->ih0, 0x50);
	put(g->ih_soft, 0x40);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_eq(d.n, 2u);
	cr_assert_eq(d.ring[0], g->ih0);
	cr_assert_eq(d.ring[1], g->ih_soft);
	cr_assert_eq(d.checkpoint[0], 0x50u);
	cr_assert_eq(d.checkpoint[1], 0x40u);

	g = gpu(false, true, 1);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0, "APU with the CAM");
}

Test(checkpoint, drain_done_rule)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);
	struct hipsvm_drain d;

	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert(hipsvm_cp_drain_done(&d), "empty ring");

	put(g->ih1, 0x200);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_not(hipsvm_cp_drain_done(&d));
	process(g->ih1);
	cr_assert(hipsvm_cp_drain_done(&d));

	/* processed == checkpoint is not "after": pending same-stamp IV */
	put(g->ih1, 0x200);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_eq(g->ih1->processed_ts, 0x200u);
	cr_assert_not(hipsvm_cp_drain_done(&d), "processed must be strictly after");
	process(g->ih1);
	cr_assert(hipsvm_cp_drain_done(&d));

	/* processed strictly after the checkpoint: done although not empty */
	put(g->ih1, 0x100);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_not(hipsvm_ring_empty(g->ih1));
	cr_assert(hipsvm_cp_drain_done(&d));
}

Test(checkpoint, drain_done_across_wrap)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, M - 4);
	struct hipsvm_drain d;

	put(g->ih1, M - 3);
	put(g->ih1, M - 1);
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_eq(d.checkpoint[0], M - 1);
	cr_assert_not(hipsvm_cp_drain_done(&d));
	process(g->ih1);
	cr_assert(hipsvm_cp_drain_done(&d));

	put(g->ih1, 1);	/* after the wrap */
	process(g->ih1);
	cr_assert_eq(g->ih1->processed_ts, 1u);
	put(g->ih1, M);	/* older, re-queued */
	cr_assert_eq(hipsvm_cp_drain_begin(g, &d), 0);
	cr_assert_eq(d.checkpoint[0], M);
	cr_assert(hipsvm_cp_drain_done(&d), "1 is strictly after 2^48-1");
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
