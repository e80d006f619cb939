/* SPDX-License-Identifier: MIT */
/*
 * test_codeobj_bad.c - the code object metadata reader (sim/codeobj/codeobj.c) on
 * malformed input: the simulator parses whatever a program registers, so a
 * bad bundle, ELF or MessagePack must give -EINVAL/-ENOENT/-ENOTSUP, never a
 * crash. Criterion runs each test in its own process, so a crash fails the
 * test; inputs are copied into buffers of exactly their size so that an
 * over-read shows up under ASan.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj/codeobj.h"
#include "codeobj_build.h"
#include "codeobj_fixture.h"

/* ---- malformed input ----------------------------------------------------- */

Test(codeobj_bad, simple_rejections)
{
	struct hipsvm_codeobj *co = (struct hipsvm_codeobj *)&co;
	struct { uint32_t magic, version; const void *binary; void *unused; } wrap = { 0 };
	static const uint8_t zeros[64];

	cr_assert_eq(hipsvm_codeobj_load_blob(NULL, 10, NULL, &co), -EINVAL);
	cr_assert_eq(load_exact("", 0, &co), -EINVAL, "empty");
	cr_assert_eq(load_exact("__CLANG_OFFLOAD_BUNDLE_", 23, &co), -EINVAL, "short magic");
	cr_assert_eq(load_exact("__CLANG_OFFLOAD_BUNDLE__", 24, &co), -EINVAL, "no count");
	cr_assert_eq(load_exact("__CLANG_OFFLOAD_BUNDLX__\0\0\0\0\0\0\0\0", 32, &co), -EINVAL);
	cr_assert_eq(load_exact("CCOB\1\0\1\0", 8, &co), -ENOTSUP);
	cr_assert_eq(load_exact(zeros, sizeof(zeros), &co), -EINVAL);
	cr_assert_eq(hipsvm_codeobj_load(NULL, NULL, &co), -EINVAL);
	cr_assert_eq(hipsvm_codeobj_load(&wrap, NULL, &co), -EINVAL, "zero wrapper");
	wrap.magic = 0x48495046;
	wrap.version = 2;
	wrap.binary = zeros;
	cr_assert_eq(hipsvm_codeobj_load(&wrap, NULL, &co), -EINVAL, "version 2");
	wrap.version = 1;
	cr_assert_eq(hipsvm_codeobj_load(&wrap, NULL, &co), -EINVAL, "binary is garbage");
	wrap.binary = NULL;
	cr_assert_eq(hipsvm_codeobj_load(&wrap, NULL, &co), -EINVAL, "NULL binary");
	cr_assert_eq(co, (struct hipsvm_codeobj *)&co, "out untouched");
	hipsvm_codeobj_free(NULL);
	cr_assert_null(hipsvm_codeobj_find(NULL, "x"));
}

/* Bundle headers whose numbers point outside the blob. */
Test(codeobj_bad, bundle_header_out_of_range)
{
	static const uint64_t cases[][3] = {	/* count, offset, size; triple length 31 */
		{ UINT64_MAX, 0, 0 }, { 1000, 64, 8 }, { 1, 1u << 20, 8 }, { 1, 64, 1u << 20 },
		{ 1, UINT64_MAX - 3, 8 }, { 1, 64, UINT64_MAX },
	};
	struct hipsvm_codeobj *co;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wb b = { 0 };

		wb_put(&b, "__CLANG_OFFLOAD_BUNDLE__", 24);
		wb_le(&b, cases[i][0], 8);
		wb_le(&b, cases[i][1], 8);
		wb_le(&b, cases[i][2], 8);
		wb_le(&b, 31, 8);
		wb_put(&b, GFX_TRIPLE, 31);
		wb_put(&b, "\177ELF\2\1\1\0", 8);
		cr_assert_eq(load_exact(b.p, b.n, &co), -EINVAL, "case %zu", i);
		free(b.p);
	}
	struct wb b = { 0 };	/* triple length beyond the end */
	wb_put(&b, "__CLANG_OFFLOAD_BUNDLE__", 24);
	wb_le(&b, 1, 8);
	wb_le(&b, 0, 8);
	wb_le(&b, 0, 8);
	wb_le(&b, UINT64_MAX - 8, 8);
	cr_assert_eq(load_exact(b.p, b.n, &co), -EINVAL);
	free(b.p);
}

Test(codeobj_bad, elf_and_note)
{
	struct wb m = { 0 }, elf;
	struct hipsvm_codeobj *co;

	mp_meta_begin(&m, 1);
	mp_kernel(&m, "basic", 48, basic_args, 6);
	elf = make_elf_note(m.p, m.n, 31, true);	/* not NT_AMDGPU_METADATA */
	cr_assert_eq(load_exact(elf.p, elf.n, &co), -ENOENT);
	free(elf.p);
	elf = make_elf_note(m.p, m.n, 32, true);
	elf.p[18] = 62;					/* EM_X86_64 */
	cr_assert_eq(load_exact(elf.p, elf.n, &co), -EINVAL);
	elf.p[18] = 224;
	elf.p[4] = 1;					/* ELFCLASS32 */
	cr_assert_eq(load_exact(elf.p, elf.n, &co), -EINVAL);
	elf.p[4] = 2;
	elf.p[64 + 56 + 7] = 0x7f;			/* descsz beyond the segment */
	cr_assert_eq(load_exact(elf.p, elf.n, &co), -EINVAL);
	elf.p[64 + 56 + 7] = 0;
	cr_assert_eq(load_exact(elf.p, elf.n, &co), 0);
	hipsvm_codeobj_free(co);
	elf.p[64 + 32 + 7] = 0x7f;			/* p_filesz huge */
	cr_assert_eq(load_exact(elf.p, elf.n, &co), -EINVAL);
	free(elf.p);
	free(m.p);
}

Test(codeobj_bad, garbage_msgpack)
{
	struct hipsvm_codeobj *co;
	struct wb m = { 0 };
	static const char *cases[] = {
		"", "\xc1", "\x93", "\x81", "\xa5" "abc", "\xdf\xff\xff\xff\xff",
		"\x81\xae" "amdhsa.kernels" "\x05",		/* kernels not an array */
		"\x81\xae" "amdhsa.kernels" "\xdd\xff\xff\xff\xff",
		"\x81\xae" "amdhsa.kernels" "\x91\x81\xa5.args\x91\x81\xa7.offset\xcf\xff\xff\xff\xff\xff",
		"\x81\xae" "amdhsa.kernels" "\x91\x81\xa5.args\x91\x81\xa7.offset\xd0\xff",
		"\x81\xa1x\xc6\xff\xff\xff\xff",	/* bin32 past the end */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		m.n = 0;
		wb_put(&m, cases[i], strlen(cases[i]));
		cr_assert_eq(load_meta(&m, true, &co), -EINVAL, "case %zu", i);
	}
	/* 100000 nested arrays under an ignored key: skipped without recursion */
	m.n = 0;
	wb_put(&m, "\x82\xa1x", 3);
	for (int i = 0; i < 100000; i++)
		wb_u8(&m, 0x91);
	wb_u8(&m, 0xc0);
	wb_put(&m, "\xae" "amdhsa.kernels" "\x90", 16);
	cr_assert_eq(load_meta(&m, true, &co), 0);
	cr_assert_eq(hipsvm_codeobj_count(co), 0);
	hipsvm_codeobj_free(co);
	free(m.p);
}

/* Random byte flips and cuts of a valid bundle: any answer but a crash or a leak of bounds. */
Test(codeobj_bad, random_mutations)
{
	const char *env = getenv("HIPSVM_TEST_SEED");
	unsigned seed = env && *env ? (unsigned)strtoul(env, NULL, 0) : 12345;
	struct wb m = { 0 }, elf, b;
	struct hipsvm_codeobj *co;

	cr_log_info("seed %u (HIPSVM_TEST_SEED overrides)", seed);
	srand(seed);
	mp_meta_begin(&m, 2);
	mp_kernel(&m, "basic", 48, basic_args, 6);
	mp_kernel(&m, "_Z1kPKfS0_", 16, basic_args, 2);
	elf = make_elf_note(m.p, m.n, 32, true);
	struct sentry e[2] = { { HOST_TRIPLE, "", 0 }, { GFX_TRIPLE, elf.p, elf.n } };
	b = make_bundle(e, 2);
	for (int iter = 0; iter < 20000; iter++) {
		uint8_t *c = malloc(b.n);
		size_t len = b.n;
		int err;

		memcpy(c, b.p, b.n);
		for (int f = 1 + rand() % 4; f > 0; f--)
			c[(size_t)rand() % b.n] ^= (uint8_t)(1 + rand() % 255);
		if (rand() % 8 == 0)
			len = (size_t)rand() % b.n;
		err = load_exact(c, len, &co);
		cr_assert(err == 0 || err == -EINVAL || err == -ENOENT || err == -ENOTSUP,
			  "seed %u iter %d: %d", seed, iter, err);
		if (!err) {
			for (unsigned i = 0; i < hipsvm_codeobj_count(co); i++) {
				const struct hipsvm_kernel_info *k = hipsvm_codeobj_kernel(co, i);

				cr_assert_leq(k->nargs, HIPSVM_KERNEL_MAX_ARGS);
				cr_assert_lt(strlen(k->name), sizeof(k->name));
				if (strlen(k->name) < sizeof(k->name) - 1)
					cr_assert(hipsvm_codeobj_find(co, k->name), "seed %u iter %d", seed, iter);
			}
			hipsvm_codeobj_free(co);
		}
		free(c);
	}
	free(b.p);
	free(elf.p);
	free(m.p);
}
