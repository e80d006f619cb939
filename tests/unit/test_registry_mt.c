/* SPDX-License-Identifier: MIT */
/*
 * test_registry_mt.c - the registry (src/shim/registry.c) under threads: readers
 * never see a torn state while a writer churns, and fork() in the middle of
 * writes leaves the child a consistent, usable copy. Kept apart from the
 * single-threaded tests because a failure here is about ordering, not rules.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "registry_fixture.h"

TestSuite(registry, .init = setup, .fini = teardown);

/* ---- concurrent readers against a writer ---- */

/* Groups of 16 cells of 64 KiB: cell 0 is a permanent entry, cell 1 is never
 * tracked, cells 2..15 churn. */
#define NGROUP	512
#define GCELL	((uintptr_t)64 * KB)
#define CB0	((uintptr_t)0x7d0000000000)

static uintptr_t gaddr(unsigned g, unsigned c)
{
	return CB0 + ((uintptr_t)g * 16 + c) * GCELL;
}

static int stop_readers;

static void *reader(void *arg)
{
	uint64_t s = (uintptr_t)arg;
	uintptr_t bad = 0;

	while (!__atomic_load_n(&stop_readers, __ATOMIC_ACQUIRE)) {
		unsigned g = (unsigned)(rnd(&s) % NGROUP);
		uintptr_t off = (uintptr_t)(rnd(&s) % GCELL);
		struct hipsvm_alloc got;

		if (hipsvm_reg_touches(r, gaddr(g, 0) + off, 1, SVM_KINDS) != 1)
			bad++;
		if (hipsvm_reg_find(r, gaddr(g, 0) + off, &got) != 0 ||
		    got.start != gaddr(g, 0) || got.last != gaddr(g, 1) - 1 || got.route != 7)
			bad++;
		if (hipsvm_reg_touches(r, gaddr(g, 1) + off, GCELL - off, ALL_KINDS) != 0)
			bad++;
		if (hipsvm_reg_find(r, gaddr(g, 1) + off, &got) != -ENOENT)
			bad++;
	}
	return (void *)bad;
}

Test(registry, concurrent_readers, .timeout = 300)
{
	uint64_t seed = test_seed(0xc0c0a), s = seed;
	pthread_t th[2];

	cr_log_info("registry concurrent_readers seed %#llx", (unsigned long long)seed);
	for (unsigned g = 0; g < NGROUP; g++)
		cr_assert_eq(add(gaddr(g, 0), GCELL, HIPSVM_KIND_MANAGED), 0);
	stop_readers = 0;
	for (unsigned i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, reader,
					    (void *)(uintptr_t)(seed * 3 + i + 1)), 0);
	for (unsigned op = 0; op < 200000; op++) {
		uint64_t x = rnd(&s);
		unsigned g = (unsigned)(x % NGROUP), c0 = 2 + (unsigned)((x >> 16) % 14);
		unsigned w = 1 + (unsigned)((x >> 24) % (16 - c0));

		switch ((x >> 40) % 3) {
		case 0:
			add(gaddr(g, c0), w * GCELL, (uint32_t)((x >> 48) % HIPSVM_KIND_COUNT));
			break;
		case 1:
			hipsvm_reg_punch(r, gaddr(g, c0) + (x >> 50) % 4096,
					 w * GCELL - (x >> 50) % 4096, NULL, NULL);
			break;
		default:
			hipsvm_reg_remove_origin(r, gaddr(g, c0), NULL, NULL);
			break;
		}
	}
	__atomic_store_n(&stop_readers, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < 2; i++) {
		void *bad;

		cr_assert_eq(pthread_join(th[i], &bad), 0);
		cr_assert_eq((uintptr_t)bad, 0, "seed %#llx: reader %u saw %lu wrong answers",
			     (unsigned long long)seed, i, (unsigned long)(uintptr_t)bad);
	}
	cr_assert_eq(hipsvm_reg_check(r), 0);
}

/* fork() while another thread writes: with the prepare/parent/child
 * handlers the child's copy is consistent and usable. */
static void *churn(void *arg)
{
	uint64_t s = 0x3u;

	while (!__atomic_load_n(&stop_readers, __ATOMIC_ACQUIRE)) {
		uint64_t x = rnd(&s);
		unsigned g = (unsigned)(x % NGROUP), c0 = 2 + (unsigned)((x >> 16) % 14);

		if ((x >> 40) % 2)
			add(gaddr(g, c0), GCELL, HIPSVM_KIND_HOST);
		else
			hipsvm_reg_punch(r, gaddr(g, c0), GCELL, NULL, NULL);
	}
	return NULL;
}

Test(registry, fork_during_writes, .timeout = 120)
{
	static struct hipsvm_alloc o[NGROUP * 16];
	pthread_t th;

	for (unsigned g = 0; g < NGROUP; g++)
		cr_assert_eq(add(gaddr(g, 0), GCELL, HIPSVM_KIND_MANAGED), 0);
	stop_readers = 0;
	cr_assert_eq(pthread_create(&th, NULL, churn, NULL), 0);
	for (unsigned k = 0; k < 20; k++) {
		pid_t pid;
		int st;

		usleep(1000);
		hipsvm_reg_atfork_prepare(r);
		pid = fork();
		if (pid == 0) {
			int n;

			hipsvm_reg_atfork_child(r);
			n = hipsvm_reg_overlaps(r, 0, SIZE_MAX, o, NGROUP * 16);
			if (n < NGROUP || n != (int)hipsvm_reg_count(r))
				_exit(2);
			for (int i = 1; i < n; i++)
				if (o[i].start <= o[i - 1].last)
					_exit(3);
			if (add(gaddr(0, 1), 4096, HIPSVM_KIND_HOST) ||
			    hipsvm_reg_punch(r, gaddr(0, 0), GCELL, NULL, NULL) != 1)
				_exit(4);
			_exit(0);
		}
		hipsvm_reg_atfork_parent(r);
		cr_assert(pid > 0);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %u: status %#x", k, st);
	}
	__atomic_store_n(&stop_readers, 1, __ATOMIC_RELEASE);
	cr_assert_eq(pthread_join(th, NULL), 0);
}
