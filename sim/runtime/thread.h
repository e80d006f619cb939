/* SPDX-License-Identifier: MIT */
/*
 * thread.h - the runtime's threads and futexes (thread.c).
 */
#ifndef HIPSVM_SIM_RUNTIME_THREAD_H
#define HIPSVM_SIM_RUNTIME_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

void sim_futex_wait(uint32_t *addr, uint32_t val, uint64_t timeout_ns);
/* pthread_create with every signal blocked, named; returns once the thread
 * runs (thread.c says why). 0 or the pthread error. */
int sim_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const char *name);
void sim_futex_wake(uint32_t *addr);

/* A page-table lock: taken per GPU by every fault and by the hook's sets
 * and drains, a few instructions uncontended where a pthread mutex is
 * about thirty (the coordinated unmap takes two per GPU). 0 free, 1 held,
 * 2 held with waiters (the futex word). Not recursive. */
struct sim_lock {
	uint32_t v;
};
void sim_lock_slow(struct sim_lock *l);
void sim_futex_wake_one(uint32_t *addr);

static inline void sim_lock(struct sim_lock *l)
{
	uint32_t c = 0;

	if (!__atomic_compare_exchange_n(&l->v, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		sim_lock_slow(l);
}

static inline void sim_unlock(struct sim_lock *l)
{
	if (__atomic_exchange_n(&l->v, 0, __ATOMIC_RELEASE) == 2)
		sim_futex_wake_one(&l->v);
}

#endif
