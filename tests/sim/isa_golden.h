/* SPDX-License-Identifier: MIT */
/*
 * isa_golden.h - the golden cases (isa_golden.txt, assembled at build time by
 * gen_isa_golden.py into isa_golden.inc) and the plain memory they run
 * against, for isa_golden.c (Criterion) and isa_threads.c (plain C, for TSan).
 */
#ifndef HIPSVM_TESTS_ISA_GOLDEN_H
#define HIPSVM_TESTS_ISA_GOLDEN_H

#include <stddef.h>
#include <stdint.h>

struct golden {
	const char *name;
	int line;
	const char *setup, *expect, *asm_text;
	const uint8_t *code;
	size_t len;
	unsigned ninsn;
};

#include "isa_golden.inc"

/* where the cases' global memory lives */
#define MEM_BASE 0x100000u
#define MEM_SIZE 65536u

#endif
