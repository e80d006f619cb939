/* SPDX-License-Identifier: MIT */
/*
 * thread.h - the runtime's threads and futexes (thread.c).
 */
#ifndef HIPSVM_SIM_RUNTIME_THREAD_H
#define HIPSVM_SIM_RUNTIME_THREAD_H

#include <pthread.h>
#include <stdint.h>

void sim_futex_wait(uint32_t *addr, uint32_t val, uint64_t timeout_ns);
/* pthread_create with every signal blocked, named; returns once the thread
 * runs (thread.c says why). 0 or the pthread error. */
int sim_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const char *name);
void sim_futex_wake(uint32_t *addr);

#endif
