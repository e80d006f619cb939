/* SPDX-License-Identifier: MIT */
/* test_devmap.c - the lock-free table of device allocations (src/shim/shim_devmap.c). */
#include <criterion/criterion.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/shim_devmap.h"

static struct hipsvm_alloc al(uintptr_t p, uint64_t size, int ctx)
{
	struct hipsvm_alloc a;

	memset(&a, 0, sizeof(a));
	a.start = a.origin = p;
	a.last = p + size - 1;
	a.origin_size = size;
	a.ctx = ctx;
	a.device = ctx;
	a.flags = 7;
	a.route = 1;
	a.api = 2;
	a.kind = 0;
	return a;
}

Test(devmap, insert_take_replace)
{
	struct hipsvm_devmap m;
	struct hipsvm_alloc a = al(0x7f0000001000, 4096, 3), b = al(0x7f0000002000, 512, 1), out;

	cr_assert_eq(hipsvm_devmap_create(&m, 8), 0);
	cr_expect_eq(hipsvm_devmap_take(&m, a.start, &out), -ENOENT);
	cr_assert_eq(hipsvm_devmap_insert(&m, &a), 0);
	cr_assert_eq(hipsvm_devmap_insert(&m, &b), 0);
	cr_assert_eq(hipsvm_devmap_take(&m, a.start, &out), 0);
	cr_expect_eq(out.origin_size, 4096);
	cr_expect_eq(out.last, a.last);
	cr_expect_eq(out.ctx, 3);
	cr_expect_eq(out.flags, 7);
	cr_expect_eq(out.route, 1);
	cr_expect_eq(out.api, 2);
	cr_expect_eq(hipsvm_devmap_take(&m, a.start, &out), -ENOENT, "taken twice");
	/* a stale entry of the same address is replaced, not duplicated */
	b.ctx = 2;
	cr_assert_eq(hipsvm_devmap_insert(&m, &b), 0);
	cr_assert_eq(hipsvm_devmap_take(&m, b.start, &out), 0);
	cr_expect_eq(out.ctx, 2);
	cr_expect_eq(hipsvm_devmap_take(&m, b.start, &out), -ENOENT);
	/* not a whole allocation, or a reserved key */
	a.start += 16;
	cr_expect_eq(hipsvm_devmap_insert(&m, &a), -EINVAL);
	cr_expect_eq(hipsvm_devmap_create(&m, 3), -EINVAL);
	hipsvm_devmap_destroy(&m);
}

Test(devmap, full_window_is_enospc)
{
	struct hipsvm_devmap m;
	unsigned i, placed = 0;

	cr_assert_eq(hipsvm_devmap_create(&m, 6), 0);	/* 64 slots = one window */
	for (i = 0; i < 80; i++) {
		struct hipsvm_alloc a = al(0x10000 + (uintptr_t)i * 256, 256, 0);

		if (hipsvm_devmap_insert(&m, &a) == 0)
			placed++;
		else
			cr_expect_eq(hipsvm_devmap_insert(&m, &a), -ENOSPC);
	}
	cr_expect_eq(placed, 64);
	for (i = 0; i < 64; i++) {
		struct hipsvm_alloc out;

		cr_expect_eq(hipsvm_devmap_take(&m, 0x10000 + (uintptr_t)i * 256, &out), 0, "%u", i);
	}
	hipsvm_devmap_destroy(&m);
}

/* The hash keeps a region's pointers together; pointers aligned alike in
 * many regions (1 MiB, 4 GiB apart) must still spread over the table, or
 * their probe windows would overflow into the registry. */
Test(devmap, aligned_pointers_spread)
{
	static const uintptr_t stride[] = { (uintptr_t)1 << 20, (uintptr_t)1 << 32, 0x200000 + 0x100 };
	struct hipsvm_devmap m;
	unsigned i, k;

	cr_assert_eq(hipsvm_devmap_create(&m, 16), 0);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < 16384; i++) {
			struct hipsvm_alloc a = al(0x100000000000 + i * stride[k], 256, 1);

			cr_assert_eq(hipsvm_devmap_insert(&m, &a), 0, "stride %#lx, #%u",
				     (unsigned long)stride[k], i);
		}
		for (i = 0; i < 16384; i++) {
			struct hipsvm_alloc out;

			cr_assert_eq(hipsvm_devmap_take(&m, 0x100000000000 + i * stride[k], &out), 0);
		}
	}
	hipsvm_devmap_destroy(&m);
}

#define THREADS 4
#define OPS 20000
static struct hipsvm_devmap tm;
static unsigned seed0;
static int bad[THREADS];

/* Each thread inserts and takes addresses of its own (disjoint), in a random
 * order, all sharing the table's windows with the others. */
static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	unsigned seed = seed0 + (unsigned)id;
	static __thread uintptr_t live[512];
	unsigned n = 0, i;

	for (i = 0; i < OPS; i++) {
		struct hipsvm_alloc out;

		if (n < 512 && (n == 0 || rand_r(&seed) % 2)) {
			uintptr_t p = ((uintptr_t)(id + 1) << 40) + ((uintptr_t)i << 8);
			struct hipsvm_alloc a = al(p, 256 + (uint64_t)id, id);

			if (hipsvm_devmap_insert(&tm, &a) == 0)
				live[n++] = p;
		} else {
			unsigned k = (unsigned)rand_r(&seed) % n;

			if (hipsvm_devmap_take(&tm, live[k], &out) || out.ctx != id ||
			    out.origin_size != 256 + (uint64_t)id)
				bad[id]++;
			live[k] = live[--n];
		}
	}
	while (n) {
		struct hipsvm_alloc out;

		if (hipsvm_devmap_take(&tm, live[--n], &out) || out.ctx != id)
			bad[id]++;
	}
	return NULL;
}

Test(devmap, threads_against_a_model)
{
	const char *s = getenv("HIPSVM_TEST_SEED");
	pthread_t t[THREADS];
	int i;

	seed0 = s ? (unsigned)strtoul(s, NULL, 0) : 20261129u;
	cr_log_info("seed %u (HIPSVM_TEST_SEED)", seed0);
	cr_assert_eq(hipsvm_devmap_create(&tm, 12), 0);
	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < THREADS; i++)
		cr_expect_eq(bad[i], 0, "thread %d: %d wrong (seed %u)", i, bad[i], seed0);
	hipsvm_devmap_destroy(&tm);
}
