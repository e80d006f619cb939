/* SPDX-License-Identifier: MIT */
/*
 * test_checkpoint_mt.c - set, filter, drain and clear (src/shared/checkpoint.c,
 * src/simcore/drain.c) all at once under threads, checked afterwards against the
 * rules of docs/design.md (Checkpoints): the single-threaded tests cannot show an
 * interleaving that breaks them, and this one needs its own event log.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint_fixture.h"

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
	pthread_mutex_t set_lock;	/* sets of one checkpoint are serialised */
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
		pthread_mutex_lock(&C.set_lock);
		e->recorded = hipsvm_cp_set(CP, C.g, &e->T) == 1;
		pthread_mutex_unlock(&C.set_lock);
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
	pthread_mutex_init(&C.set_lock, NULL);
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
