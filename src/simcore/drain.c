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
#include "shared/checkpoint.h"
#include "shim/clock.h"

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

int hipsvm_cp_drain_wait(struct hipsvm_drain *d, uint64_t timeout_ns)
{
	uint64_t deadline = hipsvm_now_ns() + timeout_ns;
	int err;

	for (;;) {
		/* The rings are drained one after the other: sleep on the one
		 * being drained, whose handler pass wakes us. */
		unsigned cur = d->cur;
		struct hipsvm_ring *r = d->ring[cur];
		uint32_t seq = __atomic_load_n(&r->wake_seq, __ATOMIC_ACQUIRE);
		uint64_t now;

		__atomic_fetch_add(&r->waiters, 1, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (hipsvm_cp_drain_poll(d)) {
			err = 0;
		} else if ((now = hipsvm_now_ns()) >= deadline) {
			err = -ETIME;
		} else if (d->cur != cur) {
			err = 1;	/* on to the next ring: look again */
		} else {
			uint64_t left = deadline - now;
			struct timespec ts = {
				.tv_sec = (time_t)(left / 1000000000u),
				.tv_nsec = (long)(left % 1000000000u),
			};

			syscall(SYS_futex, &r->wake_seq, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
			err = 1;
		}
		__atomic_fetch_sub(&r->waiters, 1, __ATOMIC_RELAXED);
		if (err != 1)
			return err;
	}
}

int hipsvm_cp_drain(struct hipsvm_cp *cp, const struct hipsvm_gpu_irq *g, uint64_t timeout_ns)
{
	struct hipsvm_drain d;
	int err = hipsvm_cp_drain_begin(g, &d);

	if (!err) {
		err = hipsvm_cp_drain_wait(&d, timeout_ns);
		if (!err)
			err = d.err;
	}
	hipsvm_cp_drain_account(cp, err);
	return err;
}
