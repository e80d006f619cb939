/* SPDX-License-Identifier: MIT */
/*
 * registry_fixture.h - what the registry tests (test_registry*.c) share: one
 * fresh registry per test, an allocation with every field set so that a lost
 * field shows, and a seeded generator that a failure can be replayed from.
 * Each test file is its own executable, so the file-scope state is per file.
 */
#ifndef HIPSVM_TESTS_REGISTRY_FIXTURE_H
#define HIPSVM_TESTS_REGISTRY_FIXTURE_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "shim/registry.h"
#include "shim/testing.h"
#include "test_rand.h"

#define KB ((uintptr_t)1 << 10)
#define MB ((uintptr_t)1 << 20)
#define GB ((uintptr_t)1 << 30)
#define ALL_KINDS ((1u << HIPSVM_KIND_COUNT) - 1)
#define SVM_KINDS (ALL_KINDS & ~(1u << HIPSVM_KIND_DEVICE))
#define BIT(k) (1u << (k))

static struct hipsvm_registry *r;

static inline void setup(void)
{
	cr_assert_eq(hipsvm_reg_create(&r), 0);
}

static inline void teardown(void)
{
	hipsvm_reg_destroy(r);
}

static inline struct hipsvm_alloc mk(uintptr_t start, uintptr_t size, uint32_t kind)
{
	struct hipsvm_alloc a = {
		.start = start, .last = start + size - 1, .origin = start, .origin_size = size,
		.kind = kind, .ctx = kind == HIPSVM_KIND_DEVICE ? 1 : HIPSVM_CTX_HOST,
		.device = 1, .flags = 0x5, .route = 7, .api = HIPSVM_API_MALLOC_MANAGED,
	};

	return a;
}

static inline int add(uintptr_t start, uintptr_t size, uint32_t kind)
{
	struct hipsvm_alloc a = mk(start, size, kind);

	return hipsvm_reg_insert(r, &a);
}

#endif /* HIPSVM_TESTS_REGISTRY_FIXTURE_H */
