/* SPDX-License-Identifier: MIT */
/*
 * test_checkpoint.c - the rules of docs/design.md (Checkpoints) for setting, filtering and
 * clearing a checkpoint (src/shared/checkpoint.c), one rule per test on rings filled
 * by hand, so that a failure names the rule. Waiting for the rings is in
 * test_checkpoint_drain.c, all of it under threads in test_checkpoint_mt.c.
 */
#include <criterion/criterion.h>

#include "checkpoint_fixture.h"

/* ---- set ---- */

Test(checkpoint, set_picks_ih1)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);
	uint64_t ts = 0;

	put(g->ih1, 0x100);
	put(g->ih1, 0x180);
	put(g->ih_soft, 0x200);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	cr_assert_eq(ts, 0x180u, "the LAST IV of ih1: 0x%llx", (unsigned long long)ts);
	cr_assert_eq(hipsvm_cp_get(CP), 0x180u);
	cr_assert_eq(F.cp.stats.sets, 1u);
}

Test(checkpoint, set_falls_back_to_soft_when_ih1_empty)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);
	uint64_t ts = 0;

	put(g->ih1, 0x100);
	process(g->ih1);
	put(g->ih_soft, 0x300);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	cr_assert_eq(ts, 0x300u);
}

Test(checkpoint, set_with_cam_uses_soft)
{
	struct hipsvm_gpu_irq *g = gpu(true, true, 1);
	uint64_t ts = 0;

	put(g->ih1, 0x100);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 0, "CAM on: ih1 is not looked at");
	cr_assert_eq(hipsvm_cp_get(CP), 0u);
	put(g->ih_soft, 0x200);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	cr_assert_eq(ts, 0x200u);
}

Test(checkpoint, set_on_apu_uses_soft)
{
	struct hipsvm_gpu_irq *g = gpu(false, false, 1);
	uint64_t ts = 0;

	put(g->ih_soft, 0x400);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	cr_assert_eq(ts, 0x400u);
}

Test(checkpoint, set_on_empty_rings_leaves_value)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);
	uint64_t ts = 0x77;

	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 0);
	cr_assert_eq(ts, 0x77u, "out-parameter untouched");
	cr_assert_eq(hipsvm_cp_get(CP), 0u);
	cr_assert_eq(F.cp.stats.sets_empty, 1u);

	put(g->ih1, 0x500);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	process(g->ih1);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 0);
	cr_assert_eq(hipsvm_cp_get(CP), 0x500u, "an empty ring does not reset the checkpoint");
}

/* Set overwrites (as upstream does; sets of one checkpoint are serialised by
 * their callers). It used to keep the later of the two values, which blocked
 * a fresh checkpoint behind one left for more than 2^47 ticks. */
Test(checkpoint, set_overwrites)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);
	uint64_t ts = 0;

	put(g->ih1, 0x500);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	process(g->ih1);
	put(g->ih1, 0x600);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	cr_assert_eq(ts, 0x600u);
	cr_assert_eq(hipsvm_cp_get(CP), 0x600u, "a later set raises it");
	process(g->ih1);
	put(g->ih1, 0x400);	/* chosen stamps: the ring's last IV is older */
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	cr_assert_eq(ts, 0x400u, "the value recorded is the ring's last IV");
	cr_assert_eq(hipsvm_cp_get(CP), 0x400u);
}

/* A checkpoint left uncleared for more than 2^47 ticks (no newer fault,
 * drain timed out) reads as newer than a fresh one. A fresh set must still
 * take effect, and faults after it must be handled. */
Test(checkpoint, set_after_more_than_half_the_clock)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);
	uint64_t old = 0x1000, fresh = (0x1000 + (UINT64_C(1) << 47) + 0x10) & M, ts = 0;

	put(g->ih1, old);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	process(g->ih1);
	cr_assert(hipsvm_ts_after(fresh, old), "at the wrap: the old value reads as newer");
	put(g->ih1, fresh);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	cr_assert_eq(ts, fresh, "the fresh checkpoint is in force, not the old one");
	cr_assert_eq(hipsvm_cp_get(CP), fresh);
	cr_assert_eq(hipsvm_cp_filter(CP, fresh), -EAGAIN, "the checkpoint IV is dropped");
	cr_assert_eq(hipsvm_cp_filter(CP, (fresh + 1) & M), 0, "a newer fault is handled");
	cr_assert_not(hipsvm_cp_isset(CP));
}

/* stale: faults handled at or before the last checkpoint recorded, what a
 * drain that answered too early lets through. */
Test(checkpoint, stale_counts_faults_behind_the_last_set)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);

	cr_assert_eq(hipsvm_cp_filter(CP, 0x10), 0);
	cr_assert_eq(F.cp.stats.stale, 0u, "no set yet");
	put(g->ih1, 0x100);
	cr_assert_eq(hipsvm_cp_set(CP, g, NULL), 1);
	cr_assert_eq(hipsvm_cp_filter(CP, 0x100), -EAGAIN);
	cr_assert_eq(hipsvm_cp_clear(CP, 0x100), 1);
	cr_assert_eq(hipsvm_cp_filter(CP, 0xff), 0, "after a clear: handled");
	cr_assert_eq(F.cp.stats.stale, 1u, "and counted: it was at or before the last set");
	cr_assert_eq(hipsvm_cp_filter(CP, 0x101), 0);
	cr_assert_eq(F.cp.stats.stale, 1u, "a newer one is not");
}

Test(checkpoint, set_of_stamp_zero_is_not_none)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, M);
	uint64_t ts = 0;

	put(g->ih1, M);
	put(g->ih1, 0);
	ts = 77;
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	cr_assert_eq(ts, 0u, "the checkpoint is the IV stamped 0");
	cr_assert(hipsvm_cp_isset(CP), "a checkpoint at timestamp 0 is still a checkpoint");
	cr_assert_eq(hipsvm_cp_get(CP), 0u);
	cr_assert_eq(hipsvm_cp_filter(CP, M), -EAGAIN);
	cr_assert_eq(hipsvm_cp_filter(CP, 0), -EAGAIN, "the checkpoint IV itself is dropped");
	cr_assert(hipsvm_cp_isset(CP));
	cr_assert_eq(hipsvm_cp_filter(CP, 1), 0);
	cr_assert_not(hipsvm_cp_isset(CP));
}

/* ---- filter ---- */

Test(checkpoint, filter_rules)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);

	/* no checkpoint: everything is handled */
	cr_assert_eq(hipsvm_cp_filter(CP, 0x10), 0);
	put(g->ih1, 0x1000);
	cr_assert_eq(hipsvm_cp_set(CP, g, NULL), 1);
	cr_assert_eq(hipsvm_cp_filter(CP, 0x0fff), -EAGAIN, "before: dropped");
	cr_assert_eq(hipsvm_cp_filter(CP, 0x1000), -EAGAIN, "the checkpoint IV itself: dropped");
	cr_assert_eq(hipsvm_cp_get(CP), 0x1000u, "drops leave the checkpoint");
	cr_assert_eq(hipsvm_cp_filter(CP, 0x1001), 0, "strictly after: handled");
	cr_assert_eq(hipsvm_cp_get(CP), 0u, "and the first newer fault clears");
	cr_assert_eq(hipsvm_cp_filter(CP, 0x0800), 0, "no checkpoint any more");
	cr_assert_eq(F.cp.stats.dropped, 2u);
	cr_assert_eq(F.cp.stats.handled, 3u);
	cr_assert_eq(F.cp.stats.cleared_by_fault, 1u);
}

Test(checkpoint, seed_example_1)
{
	/* The worked example of docs/design.md: checkpoint 0x1000, fault 0x2000 is handled. */
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);

	put(g->ih1, 0x1000);
	hipsvm_cp_set(CP, g, NULL);
	cr_assert_eq(hipsvm_cp_filter(CP, 0x2000), 0);
}

Test(checkpoint, filter_across_wrap)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, M - 4);

	put(g->ih1, M - 2);
	put(g->ih1, M - 1);
	cr_assert_eq(hipsvm_cp_set(CP, g, NULL), 1);
	cr_assert_eq(hipsvm_cp_get(CP), M - 1);
	cr_assert_eq(hipsvm_cp_filter(CP, M - 2), -EAGAIN);
	cr_assert_eq(hipsvm_cp_filter(CP, M - 1), -EAGAIN);
	cr_assert_eq(hipsvm_cp_filter(CP, M - (UINT64_C(1) << 46)), -EAGAIN, "far before");
	cr_assert_eq(hipsvm_cp_filter(CP, 0), 0, "just after the wrap is newer");
	cr_assert_eq(hipsvm_cp_get(CP), 0u);

	/* checkpoint at the very top, fault at 0 and 5 */
	put(g->ih1, M);
	cr_assert_eq(hipsvm_cp_set(CP, g, NULL), 1);
	cr_assert_eq(hipsvm_cp_get(CP), M);
	cr_assert_eq(hipsvm_cp_filter(CP, M), -EAGAIN);
	cr_assert_eq(hipsvm_cp_filter(CP, 5), 0);
	cr_assert_eq(hipsvm_cp_get(CP), 0u);
}

/* ---- clear ---- */

Test(checkpoint, clear_semantics)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);

	cr_assert_eq(hipsvm_cp_clear(CP, HIPSVM_CP_ANY), 0, "nothing to clear");
	put(g->ih1, 0x100);
	hipsvm_cp_set(CP, g, NULL);
	cr_assert_eq(hipsvm_cp_clear(CP, 0x99), 0, "another value is in force");
	cr_assert_eq(hipsvm_cp_get(CP), 0x100u);
	cr_assert_eq(hipsvm_cp_clear(CP, 0x100), 1);
	cr_assert_eq(hipsvm_cp_get(CP), 0u);
	cr_assert_eq(hipsvm_cp_clear(CP, 0x100), 0, "already clear");
	put(g->ih1, 0x200);
	hipsvm_cp_set(CP, g, NULL);
	cr_assert_eq(hipsvm_cp_clear(CP, HIPSVM_CP_ANY), 1, "HIPSVM_CP_ANY: unconditional");
	cr_assert_eq(hipsvm_cp_get(CP), 0u);
	cr_assert_eq(F.cp.stats.clears, 2u);
}
