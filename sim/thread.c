/* SPDX-License-Identifier: MIT */
/*
 * thread.c - how the simulator starts its threads (fault handlers, the hook
 * server, stream workers, agents).
 *
 * Every signal is blocked in them: the program's signals are the program's.
 * And the call returns only once the thread runs its own code. By then the
 * C library's and a sanitizer's per-thread set-up is over, so a program that
 * exits right after the HIP call that started a thread never meets one
 * half-born: under load, LeakSanitizer's check at exit deadlocked with such a
 * thread in a fork child (the thread held the loader's lock and wanted the
 * allocator's, the exit check the other way round).
 */
#include "sim.h"

#include <signal.h>

struct start {
	void *(*fn)(void *);
	void *arg;
	uint32_t running;
};

static void *trampoline(void *p)
{
	struct start *s = p;
	void *(*fn)(void *) = s->fn;
	void *arg = s->arg;

	__atomic_store_n(&s->running, 1, __ATOMIC_RELEASE);
	sim_futex_wake(&s->running);	/* s lives on the starter's stack: not touched after */
	return fn(arg);
}

int sim_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const char *name)
{
	struct start s = { fn, arg, 0 };
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(t, NULL, trampoline, &s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return err;
	if (name)
		pthread_setname_np(*t, name);
	while (!__atomic_load_n(&s.running, __ATOMIC_ACQUIRE))
		sim_futex_wait(&s.running, 0, 10000000u);
	return 0;
}
