/* SPDX-License-Identifier: MIT */
/*
 * test_codeobj_synth.c - the code object metadata reader (sim/codeobj/codeobj.c) on
 * valid code objects synthesised by tests/hip/codeobj_build.h (MessagePack, a
 * minimal ELF with a PT_NOTE, a bundle): they reach the corners hipcc never
 * writes (odd encodings, long names, many arguments, mangled names to infer
 * const from, several amdgcn entries), without needing hipcc at all.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj/codeobj.h"
#include "codeobj_build.h"
#include "codeobj_fixture.h"

Test(codeobj_synth, basic_phdr_and_section)
{
	struct wb m = { 0 };
	struct hipsvm_codeobj *co;

	mp_meta_begin(&m, 1);
	mp_kernel(&m, "basic", 48, basic_args, 6);
	for (int phdr = 0; phdr < 2; phdr++) {
		cr_assert_eq(load_meta(&m, phdr, &co), 0, "phdr=%d", phdr);
		cr_assert_eq(hipsvm_codeobj_count(co), 1);
		check_basic(co);
		cr_assert_null(hipsvm_codeobj_kernel(co, 1));
		hipsvm_codeobj_free(co);
	}
	/* the bare ELF too */
	struct wb elf = make_elf_note(m.p, m.n, 32, true);
	cr_assert_eq(load_exact(elf.p, elf.n, &co), 0);
	check_basic(co);
	hipsvm_codeobj_free(co);
	free(elf.p);
	free(m.p);
}

/* Keys and value encodings that the reader has to skip or widen. */
Test(codeobj_synth, odd_encodings)
{
	struct wb m = { 0 };
	struct hipsvm_codeobj *co;
	const struct hipsvm_kernel_info *k;

	mp_map(&m, 4);
	mp_uint(&m, 7);				/* non-string key */
	wb_put(&m, "\xc4\x03" "abc", 5);	/* bin8 */
	mp_str(&m, "x.ext");
	wb_put(&m, "\xc7\x02\x05" "ab", 5);	/* ext8 */
	mp_str(&m, "x.nested");
	wb_put(&m, "\x92\x81\xa1k\xcb\0\0\0\0\0\0\0\0\xd6\x01\0\0\0\0", 19); /* [{k: f64}, fixext4] */
	mp_str(&m, "amdhsa.kernels");
	mp_arr(&m, 3);
	mp_uint(&m, 5);				/* not a map: ignored */
	mp_map(&m, 4);
	mp_str(&m, ".symbol");
	mp_str(&m, "only_symbol.kd");		/* no .name: falls back to .symbol */
	mp_str(&m, ".kernarg_segment_size");
	wb_put(&m, "\xd0\x10", 2);		/* int8 16 */
	mp_str(&m, ".float");
	wb_put(&m, "\xca\0\0\0\0", 5);
	mp_str(&m, ".args");
	mp_arr(&m, 1);
	mp_map(&m, 5);
	mp_str(&m, ".offset");
	wb_put(&m, "\xcd\0\x08", 3);		/* uint16 8 */
	mp_str(&m, ".size");
	wb_put(&m, "\xce\0\0\0\x08", 5);	/* uint32 8 */
	mp_str(&m, ".value_kind");
	mp_str(&m, "global_buffer");
	mp_str(&m, ".is_const");
	wb_u8(&m, 0xc3);
	mp_str(&m, ".name");
	wb_u8(&m, 0xc0);			/* nil name: ignored */
	mp_kernel(&m, "second", 0, NULL, 0);
	cr_assert_eq(load_meta(&m, true, &co), 0);
	cr_assert_eq(hipsvm_codeobj_count(co), 2);
	k = hipsvm_codeobj_find(co, "only_symbol");
	cr_assert(k);
	cr_assert_eq(k->kernarg_size, 16);
	cr_assert_eq(k->nargs, 1);
	cr_assert(k->args[0].offset == 8 && k->args[0].size == 8);
	cr_assert(k->args[0].global_buffer && k->args[0].read_only, ".is_const");
	cr_assert(hipsvm_codeobj_find(co, "second"));
	hipsvm_codeobj_free(co);
	free(m.p);
}

Test(codeobj_synth, long_name_and_many_args)
{
	struct wb m = { 0 };
	struct hipsvm_codeobj *co;
	struct sarg many[70];
	char name[301];
	const struct hipsvm_kernel_info *k;

	memset(name, 'n', 300);
	name[300] = 0;
	for (unsigned i = 0; i < 70; i++)
		many[i] = (struct sarg){ 8 * i, 8, i % 2 ? "by_value" : "global_buffer", NULL };
	mp_meta_begin(&m, 1);
	mp_kernel(&m, name, 560, many, 70);
	cr_assert_eq(load_meta(&m, true, &co), 0);
	k = hipsvm_codeobj_find(co, name);
	cr_assert(k, "found by the full name");
	cr_assert_eq(strlen(k->name), 255);
	name[255] = 0;
	cr_assert_null(hipsvm_codeobj_find(co, name), "a truncated name is not a match");
	cr_assert_eq(k->nargs, HIPSVM_KERNEL_MAX_ARGS);
	cr_assert_eq(k->args[63].offset, 8 * 63);
	hipsvm_codeobj_free(co);
	free(m.p);
}

/* read_only from the mangled name when the metadata is silent. */
static const struct {
	const char *name;
	unsigned n;		/* arguments, all global buffers */
	const char *ro;		/* expected read_only per argument */
} mangled[] = {
	{ "_Z1kPKfS0_", 2, "11" },
	{ "_Z1kPfS_", 2, "00" },
	{ "_Z1kPPKfS0_", 2, "01" },	/* float const ** then S0_ = const float * */
	{ "_ZN2ns1kEPKNS_1SEPS0_", 2, "10" },
	{ "_Z1kPVKf", 1, "1" },
	{ "_Z1kIPKfEvT_", 1, "1" },	/* template argument is the pointer */
	{ "_Z1kIfEvPKT_PS0_", 2, "10" },
	{ "_Z1kDv4_fPKf", 2, "01" },
	{ "_Z1kSt6vectorIiSaIiEEPKf", 2, "01" },
	{ "_Z1kPKfi", 3, "000" },	/* count mismatch: no inference */
	{ "_Z1kP", 1, "0" },
	{ "_ZZ4mainENKUlPKfE_clES0_", 1, "0" },
	{ "_Z1kPKf.cold", 1, "1" },
	{ "k_c_linkage", 1, "0" },
};

Test(codeobj_synth, mangled_const)
{
	for (size_t i = 0; i < sizeof(mangled) / sizeof(mangled[0]); i++) {
		struct wb m = { 0 };
		struct hipsvm_codeobj *co;
		struct sarg a[4];
		const struct hipsvm_kernel_info *k;

		for (unsigned j = 0; j < mangled[i].n; j++)
			a[j] = (struct sarg){ 8 * j, 8, "global_buffer", NULL };
		mp_meta_begin(&m, 1);
		mp_kernel(&m, mangled[i].name, 8 * mangled[i].n, a, mangled[i].n);
		cr_assert_eq(load_meta(&m, true, &co), 0);
		k = hipsvm_codeobj_find(co, mangled[i].name);
		cr_assert(k);
		for (unsigned j = 0; j < mangled[i].n; j++)
			cr_assert_eq(k->args[j].read_only, mangled[i].ro[j] == '1', "%s arg %u",
				     mangled[i].name, j);
		hipsvm_codeobj_free(co);
		free(m.p);
	}
}

Test(codeobj_synth, first_good_amdgcn_entry_wins)
{
	struct wb m = { 0 }, elf, b;
	struct hipsvm_codeobj *co;

	mp_meta_begin(&m, 1);
	mp_kernel(&m, "basic", 48, basic_args, 6);
	elf = make_elf_note(m.p, m.n, 32, true);
	struct sentry e[3] = { { "hipv4-amdgcn-amd-amdhsa--gfx908", "garbage", 7 },
			       { HOST_TRIPLE, "", 0 }, { GFX_TRIPLE, elf.p, elf.n } };
	b = make_bundle(e, 3);
	cr_assert_eq(load_exact(b.p, b.n, &co), 0);
	check_basic(co);
	hipsvm_codeobj_free(co);
	free(b.p);
	/* only the broken one: -EINVAL; none at all: -ENOENT */
	b = make_bundle(e, 2);
	cr_assert_eq(load_exact(b.p, b.n, &co), -EINVAL);
	free(b.p);
	b = make_bundle(e + 1, 1);
	cr_assert_eq(load_exact(b.p, b.n, &co), -ENOENT);
	free(b.p);
	b = make_bundle(e, 0);
	cr_assert_eq(load_exact(b.p, b.n, &co), -ENOENT);
	free(b.p);
	free(elf.p);
	free(m.p);
}
