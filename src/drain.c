/* SPDX-License-Identifier: MIT */
/*
 * drain.c - the user-space half of the drain: sleeping until the handler has
 * processed past a fresh checkpoint. The kernel module has its own half
 * (wait_event_interruptible_timeout); the predicate is shared (checkpoint.c).
 *
 * The handler bumps ring->wake_seq after each pass and calls FUTEX_WAKE only
 * when ring->waiters is non-zero. Dekker pattern: the drainer publishes
 * waiters then re-reads the rings; the handler publishes rptr/processed_ts
 * then reads waiters; a sequentially consistent fence on each side makes at
 * least one of them see the other, so no wake-up is lost.
 */
#include "checkpoint.h"
#include "clock.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void hipsvm_ring_wake_user(void *arg)
{
	struct hipsvm_ring *r = arg;

	__atomic_fetch_add(&r->wake_seq, 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->waiters, __ATOMIC_RELAXED))
		syscall(SYS_futex, &r->wake_seq, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

int hipsvm_cp_drain(struct hipsvm_cp *cp, const struct hipsvm_gpu_irq *g, uint64_t timeout_ns)
{
	struct hipsvm_drain d;
	uint64_t deadline;
	int err = hipsvm_cp_drain_begin(g, &d);
	unsigned i;

	if (err) {
		hipsvm_cp_drain_account(cp, err);
		return err;
	}
	deadline = hipsvm_now_ns() + timeout_ns;
	for (;;) {
		uint32_t seq[2];
		uint64_t now;

		for (i = 0; i < d.n; i++) {
			seq[i] = __atomic_load_n(&d.ring[i]->wake_seq, __ATOMIC_ACQUIRE);
			__atomic_fetch_add(&d.ring[i]->waiters, 1, __ATOMIC_SEQ_CST);
		}
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (hipsvm_cp_drain_done(&d)) {
			err = 0;
		} else if ((now = hipsvm_now_ns()) >= deadline) {
			err = -ETIME;
		} else {
			/* Sleep on the first ring still behind; a pass on the
			 * other wakes nobody, so cap the sleep to re-check. */
			uint64_t left = deadline - now;
			struct timespec ts;

			for (i = 0; i + 1 < d.n; i++)
				if (!hipsvm_ts_after(d.checkpoint[i],
						     __atomic_load_n(&d.ring[i]->processed_ts, __ATOMIC_ACQUIRE)) &&
				    !hipsvm_ring_empty(d.ring[i]))
					break;
			if (d.n > 1 && left > 1000000)
				left = 1000000;
			ts.tv_sec = (time_t)(left / 1000000000u);
			ts.tv_nsec = (long)(left % 1000000000u);
			syscall(SYS_futex, &d.ring[i]->wake_seq, FUTEX_WAIT_PRIVATE, seq[i], &ts, NULL, 0);
			err = 1;
		}
		for (i = 0; i < d.n; i++)
			__atomic_fetch_sub(&d.ring[i]->waiters, 1, __ATOMIC_RELAXED);
		if (err != 1)
			break;
	}
	hipsvm_cp_drain_account(cp, err);
	return err;
}
