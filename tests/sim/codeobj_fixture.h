/* SPDX-License-Identifier: MIT */
/*
 * codeobj_fixture.h - the synthetic code object that test_codeobj_synth.c and
 * test_codeobj_bad.c both start from: one kernel whose arguments cover every
 * kind the reader sorts (global buffers read-only or not, by value, hidden),
 * wrapped in an ELF note and a bundle as hipcc would, so that a test only
 * states what it changes. The writers themselves are tests/hip/codeobj_build.h.
 */
#ifndef HIPSVM_TESTS_CODEOBJ_FIXTURE_H
#define HIPSVM_TESTS_CODEOBJ_FIXTURE_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>

#include "codeobj/codeobj.h"
#include "codeobj_build.h"

#define HOST_TRIPLE	"host-x86_64-unknown-linux"
#define GFX_TRIPLE	"hipv4-amdgcn-amd-amdhsa--gfx90a"

/* metadata -> ELF -> bundle(host, amdgcn) -> load */
static inline int load_meta(const struct wb *meta, bool use_phdr, struct hipsvm_codeobj **co)
{
	struct wb elf = make_elf_note(meta->p, meta->n, 32, use_phdr);
	struct sentry e[2] = { { HOST_TRIPLE, "", 0 }, { GFX_TRIPLE, elf.p, elf.n } };
	struct wb b = make_bundle(e, 2);
	int err = load_exact(b.p, b.n, co);

	free(elf.p);
	free(b.p);
	return err;
}

static const struct sarg basic_args[] = {
	{ 0, 8, "global_buffer", NULL },
	{ 8, 8, "global_buffer", "read_only" },
	{ 16, 4, "by_value", NULL },
	{ 24, 8, "hidden_global_offset_x", NULL },
	{ 32, 8, "global_buffer", "read_write" },
	{ 40, 8, "hidden_hostcall_buffer", NULL },
};

static inline void check_basic(const struct hipsvm_codeobj *co)
{
	const struct hipsvm_kernel_info *k = hipsvm_codeobj_find(co, "basic");

	cr_assert(k);
	cr_assert_eq(k->kernarg_size, 48);
	cr_assert_eq(k->nargs, 4, "hidden arguments excluded, got %u", k->nargs);
	cr_assert(k->args[0].global_buffer && !k->args[0].read_only);
	cr_assert(k->args[1].global_buffer && k->args[1].read_only);
	cr_assert(!k->args[2].global_buffer && k->args[2].offset == 16 && k->args[2].size == 4);
	cr_assert(k->args[3].global_buffer && !k->args[3].read_only && k->args[3].offset == 32);
}

#endif /* HIPSVM_TESTS_CODEOBJ_FIXTURE_H */
