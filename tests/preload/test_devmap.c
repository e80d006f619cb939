/* SPDX-License-Identifier: MIT */
/* test_devmap.c - the lock-free table of device allocations (src/shim/shim_devmap.c). */
#include <criterion/criterion.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/shim_devmap.h"
#include "../unit/test_rand.h"

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

	cr_assert_eq(hipsvm_devmap_create(&m, 8, 1), 0);
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
	cr_expect_eq(hipsvm_devmap_create(&m, 3, 1), -EINVAL);
	cr_expect_eq(hipsvm_devmap_create(&m, 8, 0), -EINVAL);
	cr_expect_eq(hipsvm_devmap_create(&m, 8, HIPSVM_DEVMAP_GENS + 1), -EINVAL);
	hipsvm_devmap_destroy(&m);
}

/* One generation of one window, the pieces of one page (one home): past
 * the window they are -ENOSPC; with more generations allowed they all fit,
 * and the second is mapped only when the first stops taking them. */
Test(devmap, full_window_grows)
{
	struct hipsvm_devmap m;
	unsigned i, placed = 0;

	cr_assert_eq(hipsvm_devmap_create(&m, 4, 1), 0);	/* 16 slots = one window */
	for (i = 0; i < 20; i++) {
		struct hipsvm_alloc a = al(0x10000 + (uintptr_t)i * 128, 128, 0);

		if (hipsvm_devmap_insert(&m, &a) == 0)
			placed++;
		else
			cr_expect_eq(hipsvm_devmap_insert(&m, &a), -ENOSPC);
	}
	cr_expect_leq(placed, HIPSVM_DEVMAP_PROBE);
	cr_expect_geq(placed, 1u);	/* its fill is counted on slot 0 only */
	hipsvm_devmap_destroy(&m);

	cr_assert_eq(hipsvm_devmap_create(&m, 4, 3), 0);
	for (i = 0; i < 12; i++) {
		struct hipsvm_alloc a = al(0x10000 + (uintptr_t)i * 128, 128, (int)i);

		cr_assert_eq(hipsvm_devmap_insert(&m, &a), 0, "%u", i);
	}
	cr_expect_geq(hipsvm_devmap_gens(&m), 2u);
	for (i = 0; i < 12; i++) {
		struct hipsvm_alloc out;

		cr_expect_eq(hipsvm_devmap_take(&m, 0x10000 + (uintptr_t)i * 128, &out), 0, "%u", i);
		cr_expect_eq(out.ctx, (int)i);
	}
	hipsvm_devmap_destroy(&m);
}

/* The old table hashed the address with its low 12 bits and had 2^16 slots:
 * past about 65K live entries every insert failed. Page-aligned pointers,
 * a million live, all placed and all found again. */
Test(devmap, a_million_live)
{
	struct hipsvm_devmap m;
	const unsigned n = 1u << 20;
	unsigned i;

	cr_assert_eq(hipsvm_devmap_create(&m, 16, HIPSVM_DEVMAP_GENS), 0);
	for (i = 0; i < n; i++) {
		struct hipsvm_alloc a = al(0x7f0000000000 + (uintptr_t)i * 4096, 4096, (int)(i & 63));

		cr_assert_eq(hipsvm_devmap_insert(&m, &a), 0, "#%u", i);
	}
	cr_log_info("%u live: %u generations", n, hipsvm_devmap_gens(&m));
	cr_expect_leq(hipsvm_devmap_gens(&m), 7u);
	for (i = 0; i < n; i++) {
		struct hipsvm_alloc out;

		cr_assert_eq(hipsvm_devmap_take(&m, 0x7f0000000000 + (uintptr_t)i * 4096, &out), 0,
			     "#%u", i);
		cr_assert_eq(out.ctx, (int)(i & 63));
	}
	hipsvm_devmap_destroy(&m);
}

#define MODEL_N 4096

/* Random inserts (new, and over a live address: the replace), takes of live
 * and absent addresses, against an array that holds what the table should:
 * small generations, so that the run crosses several of them. */
Test(devmap, random_against_a_model)
{
	static uint64_t size_of[MODEL_N];	/* 0: absent */
	static int ctx_of[MODEL_N];
	uint64_t seed = test_seed(20261201u), r = seed;
	struct hipsvm_devmap m;
	unsigned op, live = 0;

	cr_log_info("seed %llu (HIPSVM_TEST_SEED)", (unsigned long long)seed);
	memset(size_of, 0, sizeof(size_of));
	cr_assert_eq(hipsvm_devmap_create(&m, 6, 8), 0);
	for (op = 0; op < 200000; op++) {
		uint64_t x = rnd(&r);
		unsigned k = (unsigned)(x % MODEL_N);
		/* pages, and pieces of pages: 4 per page */
		uintptr_t p = 0x600000000000 + (uintptr_t)(k / 4) * 4096 + (uintptr_t)(k % 4) * 1024;
		struct hipsvm_alloc out, a;
		int rc;

		if ((x >> 32) % 3 != 0) {
			a = al(p, 1 + (x >> 40) % 1024, (int)((x >> 20) % 1000));
			rc = hipsvm_devmap_insert(&m, &a);
			cr_assert_eq(rc, 0, "op %u insert %#lx: %d (seed %llu)", op, (unsigned long)p,
				     rc, (unsigned long long)seed);
			live += size_of[k] == 0;
			size_of[k] = a.origin_size;
			ctx_of[k] = a.ctx;
		} else {
			out.ctx = -77;
			rc = hipsvm_devmap_take(&m, p, &out);
			if (size_of[k]) {
				cr_assert_eq(rc, 0, "op %u take %#lx (seed %llu)", op, (unsigned long)p,
					     (unsigned long long)seed);
				cr_assert_eq(out.origin_size, size_of[k], "op %u (seed %llu)", op,
					     (unsigned long long)seed);
				cr_assert_eq(out.ctx, ctx_of[k], "op %u (seed %llu)", op,
					     (unsigned long long)seed);
				size_of[k] = 0;
				live--;
			} else {
				cr_assert_eq(rc, -ENOENT, "op %u take absent %#lx (seed %llu)", op,
					     (unsigned long)p, (unsigned long long)seed);
				cr_assert_eq(out.ctx, -77, "out touched on failure");
			}
		}
	}
	cr_log_info("%u live at the end, %u generations", live, hipsvm_devmap_gens(&m));
	cr_expect_gt(hipsvm_devmap_gens(&m), 2u, "the run should cross generations");
	for (op = 0; op < MODEL_N; op++) {
		uintptr_t p = 0x600000000000 + (uintptr_t)(op / 4) * 4096 + (uintptr_t)(op % 4) * 1024;
		struct hipsvm_alloc out;

		cr_assert_eq(hipsvm_devmap_take(&m, p, &out), size_of[op] ? 0 : -ENOENT, "%u", op);
	}
	hipsvm_devmap_destroy(&m);
}

/* Pointers aligned alike (1 MiB, 4 GiB apart, or a page and 256 bytes)
 * must spread over the table, or their windows would overflow into new
 * generations at a fraction of the table's size. */
Test(devmap, aligned_pointers_spread)
{
	static const uintptr_t stride[] = { (uintptr_t)1 << 20, (uintptr_t)1 << 32, 0x200000 + 0x100 };
	struct hipsvm_devmap m;
	unsigned i, k;

	cr_assert_eq(hipsvm_devmap_create(&m, 16, 1), 0);
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
			else
				bad[id]++;
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
	/* small: the threads make it grow under each other's feet */
	cr_assert_eq(hipsvm_devmap_create(&tm, 6, HIPSVM_DEVMAP_GENS), 0);
	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < THREADS; i++)
		cr_expect_eq(bad[i], 0, "thread %d: %d wrong (seed %u)", i, bad[i], seed0);
	hipsvm_devmap_destroy(&tm);
}
