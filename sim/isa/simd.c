/* SPDX-License-Identifier: MIT */
/*
 * simd.c - which of the handlers' own x86 vector paths run (operand.h's
 * ISA_HAVE_AVX2 and ISA_HAVE_AVX512): the widest the CPU and the OS give,
 * read once when the library loads, and lowered on request.
 *
 * A request only lowers it: isa_simd_limit(ISA_SIMD_AVX512) on a CPU with
 * AVX2 alone stays at AVX2. The simulator passes HIPSVM_SIM_SIMD; the tests
 * step through every level the CPU has, so that each path is checked
 * against the plain loops on one machine; bench_isa times them alternated.
 *
 * The level selects the explicitly written paths only. The loops the
 * compiler vectorises (ISA_WIDE's clones) follow the CPU, chosen by the
 * dynamic loader: a lower level still gives the same results, as every
 * path computes the same bits.
 */
#include "isa.h"

enum isa_simd isa_simd_level;	/* written before any wave runs */
static enum isa_simd cpu_level;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((constructor)) static void simd_detect(void)
{
	/* a constructor runs before libgcc has read the CPU: read it here;
	 * its AVX-512 answer includes the OS's saving of the ZMM state */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		cpu_level = ISA_SIMD_AVX512;
	else if (__builtin_cpu_supports("avx2"))
		cpu_level = ISA_SIMD_AVX2;
	isa_simd_level = cpu_level;
}
#endif

enum isa_simd isa_simd_limit(enum isa_simd max)
{
	isa_simd_level = max < cpu_level ? max : cpu_level;
	return isa_simd_level;
}

enum isa_simd isa_simd_cpu(void)
{
	return cpu_level;
}
