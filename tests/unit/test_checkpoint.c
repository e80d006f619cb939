/* SPDX-License-Identifier: MIT */
/*
 * test_checkpoint.c - the rules of SPEC section 3 for src/checkpoint.c and the
 * user-space drain (src/drain.c), then all of it at once under threads.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "options.h"

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

static struct hipsvm_gpu_irq *gpu(bool has_ih1, bool cam, uint64_t clock_start)
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

static void put(struct hipsvm_ring *r, uint64_t ts)
{
	struct hipsvm_iv iv;
	uint32_t dw[HIPSVM_IV_DWORDS];

	hipsvm_iv_make_fault(&iv, 0x7f0000001000, false, ts, 1, 0);
	hipsvm_iv_encode(&iv, dw);
	cr_assert_eq(hipsvm_ring_write(r, dw), 0);
}

static void nop_fn(void *arg, const uint32_t *dw, uint64_t ts)
{
}

static void process(struct hipsvm_ring *r)
{
	hipsvm_ring_process(r, nop_fn, NULL, hipsvm_ring_wake_user, r);
}

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

Test(checkpoint, set_never_lowers)
{
	struct hipsvm_gpu_irq *g = gpu(true, false, 1);
	uint64_t ts = 0;

	put(g->ih1, 0x500);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	process(g->ih1);
	put(g->ih1, 0x400);	/* a re-queued fault with an older stamp */
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	cr_assert_eq(ts, 0x500u, "the checkpoint in force is reported");
	cr_assert_eq(hipsvm_cp_get(CP), 0x500u);
	put(g->ih1, 0x600);
	cr_assert_eq(hipsvm_cp_set(CP, g, &ts), 1);
	cr_assert_eq(ts, 0x600u);
	cr_assert_eq(hipsvm_cp_get(CP), 0x600u);
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
	/* SPEC section 4: checkpoint 0x1000, fault 0x2000 is handled. */
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

/*
 * ---- everything at once ----
 *
 * Fault producers (serialised by a mutex around clock tick + ring write, as
 * one GPU's hardware is), one handler thread that filters every fault, and
 * two unmappers that repeatedly set, drain and clear (clearing only their own
 * value, so that one never wipes the other's newer checkpoint). A global sequence
 * number orders the events of all threads (seq_cst read-modify-writes, so a
 * larger number also means "happened after" for what precedes it).
 *
 * Checked afterwards:
 *  1. a fault filtered entirely between the end of set(T) and the start of
 *     the clear, with ts at or before T, was dropped;
 *  2. a fault dispatched after the drain returned (after the clear began)
 *     is strictly newer than T: the drain waited for every older one;
 *  3. a dropped fault was at or before the checkpoint of an epoch that
 *     overlapped its filtering: nothing strictly newer was dropped.
 */
#define CONC_PRODUCERS 3
#define CONC_UNMAPPERS 2
#define CONC_MAX_FAULTS (1u << 20)
#define CONC_MAX_EPOCHS (1u << 16)

struct fault_rec {
	uint64_t ts;
	uint64_t seq_before, seq_after;
	int verdict;
};

struct epoch {
	uint64_t seq_set_start, seq_set_done, seq_clear_start, seq_clear_done;
	uint64_t T;
	bool recorded;	/* set returned 1 */
	int drain;
};

static struct {
	struct hipsvm_gpu_irq *g;
	pthread_mutex_t hw;
	uint64_t clock;
	uint64_t seq;
	int stop_producers, stop_handler;
	struct fault_rec *faults;
	uint32_t nfaults;
	struct epoch *epochs[CONC_UNMAPPERS];	/* one array per unmapper, in its order */
	uint32_t nepochs[CONC_UNMAPPERS];
	uint64_t ring_full;
	uint64_t filtered;	/* every filter call, recorded or not */
} C;

static uint64_t seq(void)
{
	return __atomic_fetch_add(&C.seq, 1, __ATOMIC_SEQ_CST);
}

static void *fault_producer(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	uint64_t page = 0x7f0000000000 + (id << 32);

	while (!__atomic_load_n(&C.stop_producers, __ATOMIC_ACQUIRE)) {
		struct hipsvm_iv iv;
		uint32_t dw[HIPSVM_IV_DWORDS];
		int err;

		pthread_mutex_lock(&C.hw);
		hipsvm_iv_make_fault(&iv, page, false, C.clock, 1, 0);
		hipsvm_iv_encode(&iv, dw);
		/* A refused retry fault is raised again with a new stamp. */
		err = hipsvm_ring_write(C.g->ih1, dw);
		C.clock = hipsvm_ts_add(C.clock, 1);
		pthread_mutex_unlock(&C.hw);
		if (err) {
			__atomic_fetch_add(&C.ring_full, 1, __ATOMIC_RELAXED);
			sched_yield();
		}
		page += 0x1000;
	}
	return NULL;
}

static void handle_fault(void *arg, const uint32_t *dw, uint64_t ts)
{
	struct fault_rec *f;

	C.filtered++;
	if (C.nfaults >= CONC_MAX_FAULTS) {
		/* out of room: keep draining, stop checking */
		(void)hipsvm_cp_filter(CP, ts);
		return;
	}
	f = &C.faults[C.nfaults];
	f->ts = ts;
	f->seq_before = seq();
	f->verdict = hipsvm_cp_filter(CP, ts);
	f->seq_after = seq();
	__atomic_store_n(&C.nfaults, C.nfaults + 1, __ATOMIC_RELEASE);
}

static void *fault_handler(void *arg)
{
	for (;;) {
		bool stop = __atomic_load_n(&C.stop_handler, __ATOMIC_ACQUIRE);

		if (!hipsvm_ring_process(C.g->ih1, handle_fault, NULL, hipsvm_ring_wake_user,
					 C.g->ih1)) {
			if (stop)
				break;
			sched_yield();
		}
	}
	return NULL;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void *unmapper(void *arg)
{
	uintptr_t u = (uintptr_t)arg;
	uint64_t t0 = now_ns();
	struct timespec pause = { 0, 20 * 1000 };

	while (C.nepochs[u] < CONC_MAX_EPOCHS) {
		struct epoch *e = &C.epochs[u][C.nepochs[u]];
		uint64_t el = now_ns() - t0;

		/* a second of work, or ten if the machine is so busy that
		 * not even a hundred unmaps went through */
		if ((el > 1000 * MS && C.nepochs[u] >= 100) || el > 10000 * MS)
			break;
		if (__atomic_load_n(&C.nfaults, __ATOMIC_ACQUIRE) >= CONC_MAX_FAULTS)
			break;
		e->seq_set_start = seq();
		e->recorded = hipsvm_cp_set(CP, C.g, &e->T) == 1;
		e->seq_set_done = seq();
		e->drain = hipsvm_cp_drain(CP, C.g, 1000 * MS);
		e->seq_clear_start = seq();
		if (e->recorded)
			hipsvm_cp_clear(CP, e->T);
		e->seq_clear_done = seq();
		C.nepochs[u]++;
		/* let faults pile up between unmaps, as in a real program */
		if (C.nepochs[u] % 4)
			nanosleep(&pause, NULL);
	}
	return NULL;
}

/* In unmapper u's epochs, the last whose field (an offset) is below s, or -1. */
static long last_epoch_before(unsigned u, size_t off, uint64_t s)
{
	long lo = 0, hi = (long)C.nepochs[u] - 1, best = -1;

	while (lo <= hi) {
		long mid = (lo + hi) / 2;
		uint64_t v = *(const uint64_t *)((const char *)&C.epochs[u][mid] + off);

		if (v < s) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best;
}

static void check_fault(const struct fault_rec *f)
{
	bool drop_ok = false;
	unsigned u;

	cr_assert(f->verdict == 0 || f->verdict == -EAGAIN);
	for (u = 0; u < CONC_UNMAPPERS; u++) {
		const struct epoch *x;
		long e, k;

		/* 1: filtered wholly inside [set done, clear start]. Earlier
		 * epochs of the same unmapper cleared before this one set. */
		e = last_epoch_before(u, offsetof(struct epoch, seq_set_done), f->seq_before);
		x = e >= 0 ? &C.epochs[u][e] : NULL;
		if (x && x->recorded && f->seq_after < x->seq_clear_start &&
		    hipsvm_ts_after_or_equal(f->ts, x->T))
			cr_assert_eq(f->verdict, -EAGAIN,
				     "fault ts 0x%llx handled under checkpoint 0x%llx (unmapper %u epoch %ld)",
				     (unsigned long long)f->ts, (unsigned long long)x->T, u, e);

		/* 2: dispatched after a successful drain returned */
		e = last_epoch_before(u, offsetof(struct epoch, seq_clear_start), f->seq_before);
		x = e >= 0 ? &C.epochs[u][e] : NULL;
		if (x && x->recorded && x->drain == 0)
			cr_assert(hipsvm_ts_after(x->T, f->ts),
				  "fault ts 0x%llx dispatched after the drain of checkpoint 0x%llx",
				  (unsigned long long)f->ts, (unsigned long long)x->T);

		/* 3: a drop needs an epoch overlapping the filter whose T covers it */
		if (f->verdict != -EAGAIN)
			continue;
		e = last_epoch_before(u, offsetof(struct epoch, seq_set_start), f->seq_after);
		for (k = e; k >= 0 && C.epochs[u][k].seq_clear_done > f->seq_before; k--) {
			x = &C.epochs[u][k];
			if (x->recorded && hipsvm_ts_after_or_equal(f->ts, x->T))
				drop_ok = true;
		}
	}
	if (f->verdict == -EAGAIN)
		cr_assert(drop_ok, "fault ts 0x%llx dropped with no checkpoint covering it",
			  (unsigned long long)f->ts);
}

Test(checkpoint, concurrent_set_filter_drain_clear, .timeout = 120)
{
	pthread_t prod[CONC_PRODUCERS], handler, unm[CONC_UNMAPPERS];
	uint64_t start = M - 20000;	/* the clock wraps early in the run */
	uint64_t handled = 0, dropped = 0, timeouts = 0, epochs = 0;
	uint32_t i;
	unsigned p;

	memset(&C, 0, sizeof(C));
	C.faults = calloc(CONC_MAX_FAULTS, sizeof(*C.faults));
	cr_assert(C.faults);
	for (p = 0; p < CONC_UNMAPPERS; p++) {
		C.epochs[p] = calloc(CONC_MAX_EPOCHS, sizeof(*C.epochs[p]));
		cr_assert(C.epochs[p]);
	}
	pthread_mutex_init(&C.hw, NULL);
	C.g = gpu(true, false, start);
	C.clock = start;

	cr_assert_eq(pthread_create(&handler, NULL, fault_handler, NULL), 0);
	for (p = 0; p < CONC_PRODUCERS; p++)
		cr_assert_eq(pthread_create(&prod[p], NULL, fault_producer, (void *)(uintptr_t)p), 0);
	for (p = 0; p < CONC_UNMAPPERS; p++)
		cr_assert_eq(pthread_create(&unm[p], NULL, unmapper, (void *)(uintptr_t)p), 0);
	for (p = 0; p < CONC_UNMAPPERS; p++)
		pthread_join(unm[p], NULL);
	__atomic_store_n(&C.stop_producers, 1, __ATOMIC_RELEASE);
	for (p = 0; p < CONC_PRODUCERS; p++)
		pthread_join(prod[p], NULL);
	__atomic_store_n(&C.stop_handler, 1, __ATOMIC_RELEASE);
	pthread_join(handler, NULL);

	for (p = 0; p < CONC_UNMAPPERS; p++) {
		epochs += C.nepochs[p];
		for (i = 0; i < C.nepochs[p]; i++)
			if (C.epochs[p][i].drain == -ETIME)
				timeouts++;
	}
	for (i = 0; i < C.nfaults; i++) {
		if (C.faults[i].verdict == 0)
			handled++;
		else
			dropped++;
		check_fault(&C.faults[i]);
	}
	cr_log_info("concurrent: %llu epochs (%llu drain timeouts), %u faults checked: %llu handled, "
		    "%llu dropped; %llu refused by a full ring; clock ended at 0x%llx",
		    (unsigned long long)epochs, (unsigned long long)timeouts, C.nfaults,
		    (unsigned long long)handled, (unsigned long long)dropped,
		    (unsigned long long)C.ring_full, (unsigned long long)C.clock);
	cr_assert_gt(epochs, 0u);
	cr_assert_gt(C.nfaults, 0u);
	cr_assert_eq(F.cp.stats.handled + F.cp.stats.dropped, C.filtered);
	free(C.faults);
	for (p = 0; p < CONC_UNMAPPERS; p++)
		free(C.epochs[p]);
}
