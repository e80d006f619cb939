/* SPDX-License-Identifier: MIT */
/*
 * thread.c - how the simulator starts its threads (fault handlers, the hook
 * server, stream workers, agents).
 *
 * The program's signals are the program's: its handlers must not run on our
 * threads, so every signal is blocked in them, except the four that end a
 * process by default (SIGHUP, SIGINT, SIGQUIT, SIGTERM), which keep the mask
 * of the thread that started them, as ROCr's threads do (they inherit their
 * creator's whole mask). Otherwise a program whose main thread calls
 * pthread_exit lives on in our threads, which never end, with SIGTERM
 * pending for ever; on ROCm its runtime threads never end either, but take
 * the signal and the process goes. The kernel offers a process-directed
 * signal to the main thread first, so while it runs, its handlers still run
 * there; a program that blocks these signals to sigwait() for them keeps
 * them blocked here too.
 *
 * And the call returns only once the thread runs its own code. By then the
 * C library's and a sanitizer's per-thread set-up is over, so a program that
 * exits right after the HIP call that started a thread never meets one
 * half-born: under load, LeakSanitizer's check at exit deadlocked with such a
 * thread in a fork child (the thread held the loader's lock and wanted the
 * allocator's, the exit check the other way round).
 */
#include "runtime/thread.h"

#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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
	static const int ending[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
	struct start s = { fn, arg, 0 };
	sigset_t mask, old;
	unsigned i;
	int err;

	sigfillset(&mask);
	pthread_sigmask(SIG_SETMASK, &mask, &old);
	for (i = 0; i < sizeof(ending) / sizeof(ending[0]); i++)
		if (!sigismember(&old, ending[i]))
			sigdelset(&mask, ending[i]);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
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

void sim_futex_wait(uint32_t *addr, uint32_t val, uint64_t timeout_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(timeout_ns / 1000000000u),
		.tv_nsec = (long)(timeout_ns % 1000000000u),
	};
	int saved = errno;

	/* EAGAIN (the word moved) and ETIMEDOUT are the wait's business: a
	 * HIP call that waited must not hand them to the program, whose
	 * errno would then depend on the scheduler. */
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
	errno = saved;
}

void sim_futex_wake_one(uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void sim_lock_slow(struct sim_lock *l)
{
	/* held: mark it contended and sleep until it is let go; whoever takes
	 * it from here leaves it marked, so that its unlock wakes the next */
	while (__atomic_exchange_n(&l->v, 2, __ATOMIC_ACQUIRE) != 0)
		sim_futex_wait(&l->v, 2, 1000000000u);
}

void sim_futex_wake(uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}
