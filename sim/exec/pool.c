/* SPDX-License-Identifier: MIT */
/*
 * pool.c - the interpreter's helper threads, kept between dispatches.
 *
 * A dispatch on more than one thread (HIPSVM_SIM_EXEC_THREADS, or the CPU
 * count) runs workgroups on helpers beside its stream's worker. Made per
 * dispatch, each helper cost a clone, its start handshake and the naming's
 * write to /proc, every launch; they are kept instead, at most POOL_MAX,
 * each waiting on its own futex word for its next job. A helper idle for
 * POOL_IDLE_NS ends, so a program that stops launching keeps none (and one
 * whose main thread calls pthread_exit is not kept alive by them). They
 * start as every simulator thread does (sim_thread_start: the program's
 * signals blocked), detached (nothing joins them: exit does not wait), with
 * SIGSEGV and SIGBUS open for the guard. A fork child has none of the
 * parent's: the abandon step forgets them and the child makes its own.
 *
 * Locking: pool_lock, a leaf, guards the idle list and the count; a job's
 * words (go, done) are atomics between its helper and the dispatch.
 */
#include "exec/run.h"
#include "runtime/state.h"
#include "runtime/step.h"
#include "runtime/thread.h"

#include <errno.h>
#include <stdlib.h>

#define POOL_MAX 32
#define POOL_IDLE_NS (UINT64_C(5) * 1000000000u)
#define POOL_JOIN_NS 100000000u

struct pworker {
	struct pworker *next;	/* on the idle list */
	void *(*fn)(void *);
	void *arg;
	uint32_t go;		/* 1: fn(arg) is to run */
	uint32_t done;		/* 1: it ran */
	bool idle;		/* on the idle list (pool_lock) */
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pworker *idle_list;
static unsigned nworkers;
static uint64_t st_created;

static void pool_reset(void)
{
	pthread_mutex_init(&pool_lock, NULL);
}

static void pool_abandon(void)
{
	/* the parent's helpers are not in the child; the idle ones' records
	 * are no thread's now (a busy one's belongs to a dispatch that is
	 * not in the child either) */
	while (idle_list) {
		struct pworker *w = idle_list;

		idle_list = w->next;
		free(w);
	}
	nworkers = 0;
	pthread_mutex_init(&pool_lock, NULL);
}
SIM_STEP(isa_pool, .reset = pool_reset, .abandon = pool_abandon);

/* Ends w if it is still idle (its thread's last act); false when it has a job. */
static bool retire(struct pworker *w)
{
	struct pworker **pp;

	pthread_mutex_lock(&pool_lock);
	if (!w->idle || __atomic_load_n(&w->go, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&pool_lock);
		return false;
	}
	for (pp = &idle_list; *pp && *pp != w; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = w->next;
	nworkers--;
	pthread_mutex_unlock(&pool_lock);
	free(w);
	return true;
}

static void *pool_main(void *p)
{
	struct pworker *w = p;
	sigset_t saved;

	sim_isa_guard_unblock(&saved);
	for (;;) {
		uint64_t since = sim_now_ns();

		while (!__atomic_load_n(&w->go, __ATOMIC_ACQUIRE)) {
			sim_futex_wait(&w->go, 0, POOL_IDLE_NS);
			if (__atomic_load_n(&w->go, __ATOMIC_ACQUIRE) ||
			    sim_now_ns() - since < POOL_IDLE_NS)
				continue;
			if (retire(w))
				return NULL;
			since = sim_now_ns();
		}
		__atomic_store_n(&w->go, 0, __ATOMIC_RELAXED);
		w->fn(w->arg);
		__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
		sim_futex_wake(&w->done);
	}
}

int sim_isa_pool_spawn(void **job, void *(*fn)(void *), void *arg)
{
	struct pworker *w;
	pthread_t t;
	int err;

	pthread_mutex_lock(&pool_lock);
	w = idle_list;
	if (w) {
		idle_list = w->next;
		w->idle = false;
	} else if (nworkers < POOL_MAX) {
		nworkers++;		/* the slot is this call's */
	} else {
		pthread_mutex_unlock(&pool_lock);
		return EAGAIN;
	}
	pthread_mutex_unlock(&pool_lock);
	if (w) {
		w->fn = fn;
		w->arg = arg;
		__atomic_store_n(&w->done, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&w->go, 1, __ATOMIC_RELEASE);
		sim_futex_wake(&w->go);
		*job = w;
		return 0;
	}
	w = calloc(1, sizeof(*w));
	err = ENOMEM;
	if (w) {
		w->fn = fn;
		w->arg = arg;
		w->go = 1;
		err = sim_thread_start(&t, pool_main, w, "hipsvm-isa");
	}
	if (err) {
		free(w);
		pthread_mutex_lock(&pool_lock);
		nworkers--;
		pthread_mutex_unlock(&pool_lock);
		return err;
	}
	pthread_detach(t);
	__atomic_fetch_add(&st_created, 1, __ATOMIC_RELAXED);
	*job = w;
	return 0;
}

void sim_isa_pool_join(void *job)
{
	struct pworker *w = job;

	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
		sim_futex_wait(&w->done, 0, POOL_JOIN_NS);
	pthread_mutex_lock(&pool_lock);
	w->idle = true;
	w->next = idle_list;
	idle_list = w;
	pthread_mutex_unlock(&pool_lock);
}

uint64_t sim_isa_pool_created(void)
{
	return __atomic_load_n(&st_created, __ATOMIC_RELAXED);
}
