/* SPDX-License-Identifier: MIT */
/*
 * isa_shared_mem.h - the memory the interpreter's threads share in
 * isa_threads, isa_groups and isa_spin: MEM_SIZE bytes at MEM_BASE
 * (isa_golden.h), read and written byte by byte with relaxed atomics, as
 * other threads read and write it meanwhile (a flag, the other slots); the
 * atomics are 32-bit adds, all the programs' kernels use. Anything else
 * faults. And what the programs do alike: a golden kernel by name, the
 * kernarg they all take, a word read back, a TAP line.
 */
#ifndef HIPSVM_TESTS_ISA_SHARED_MEM_H
#define HIPSVM_TESTS_ISA_SHARED_MEM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "isa/dispatch.h"

#include "isa_golden.h"

static uint8_t gmem[MEM_SIZE] __attribute__((aligned(8)));

static bool in_mem(uint64_t a, unsigned size)
{
	return a >= MEM_BASE && a - MEM_BASE <= MEM_SIZE && size <= MEM_SIZE - (a - MEM_BASE);
}

static int access_mem(struct isa_mem *m, const uint64_t *addr, unsigned n, unsigned size,
		      bool write, void *buf)
{
	(void)m;
	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = gmem + (addr[i] - MEM_BASE), *b = (uint8_t *)buf + (size_t)i * size;

		if (!in_mem(addr[i], size))
			return -ISA_E_FAULT;
		for (unsigned k = 0; k < size; k++) {
			if (write)
				__atomic_store_n(p + k, b[k], __ATOMIC_RELAXED);
			else
				b[k] = __atomic_load_n(p + k, __ATOMIC_RELAXED);
		}
	}
	return 0;
}

static int atomic_mem(struct isa_mem *m, const uint64_t *addr, unsigned n, unsigned size, int op,
		      const uint64_t *src, const uint64_t *cmp, uint64_t *old)
{
	(void)m;
	(void)cmp;
	for (unsigned i = 0; i < n; i++) {
		if (!in_mem(addr[i], size) || size != 4 || op != ISA_AT_ADD || addr[i] % 4)
			return -ISA_E_FAULT;
		old[i] = __atomic_fetch_add((uint32_t *)(void *)(gmem + (addr[i] - MEM_BASE)),
					    (uint32_t)src[i], __ATOMIC_SEQ_CST);
	}
	return 0;
}

static struct isa_mem mem = { .access = access_mem, .atomic = atomic_mem };

static inline const struct golden *find(const char *name)
{
	for (unsigned i = 0; i < sizeof(golden_cases) / sizeof(golden_cases[0]); i++)
		if (!strcmp(golden_cases[i].name, name))
			return &golden_cases[i];
	return NULL;
}

/* memory cleared, then the kernarg: out (+0), a count (+8), the flag's
 * pointer (+16) */
static inline void kernarg(uint32_t count, uint64_t flag)
{
	uint64_t out = MEM_BASE + 0x100;

	memset(gmem, 0, sizeof(gmem));
	memcpy(gmem, &out, 8);
	memcpy(gmem + 8, &count, 4);
	memcpy(gmem + 16, &flag, 8);
}

/* the word at off, which another thread may still write */
static inline uint32_t rd32(unsigned off)
{
	return __atomic_load_n((uint32_t *)(void *)(gmem + off), __ATOMIC_RELAXED);
}

/* one TAP line, numbered */
static inline bool report(bool ok, const char *what)
{
	static int num;

	printf("%s %d - %s\n", ok ? "ok" : "not ok", ++num, what);
	return ok;
}

#endif
