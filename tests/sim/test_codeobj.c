/* SPDX-License-Identifier: MIT */
/*
 * test_codeobj.c - the code object metadata reader (sim/codeobj/codeobj.c) on the real
 * fat binary of tests/hip/kernel_args.hip built by hipcc (HIPSVM_TEST_KERNEL_ARGS
 * names it; these tests skip without hipcc): what the compiler actually writes
 * is the ground truth the synthetic inputs of test_codeobj_synth.c and
 * test_codeobj_bad.c only imitate. The layout is found with libelf, apart from
 * the code under test. Inputs are copied into buffers of exactly their size so
 * that an over-read shows up under ASan.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codeobj/codeobj.h"
#include "codeobj_build.h"

/* ---- the real binary ---------------------------------------------------- */

struct realbin {
	uint8_t *file;
	size_t file_size;
	const uint8_t *fatbin, *segment;
	size_t fatbin_size, segment_size;
	uint64_t fatbin_addr;
};

static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *d;
	long n;

	cr_assert(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	d = malloc((size_t)n);
	cr_assert(d && fread(d, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return d;
}

/* Finds the two HIP sections with libelf, independently of the code under test. */
static void load_realbin(struct realbin *rb)
{
	const char *path = getenv("HIPSVM_TEST_KERNEL_ARGS");
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!path || !*path)
		cr_skip_test("hipcc not found: kernel_args was not built");
	memset(rb, 0, sizeof(*rb));
	rb->file = read_file(path, &rb->file_size);
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	e = elf_memory((char *)rb->file, rb->file_size);
	cr_assert(e && elf_getshdrstrndx(e, &shstrndx) == 0);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		cr_assert(gelf_getshdr(scn, &sh));
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".hip_fatbin")) {
			rb->fatbin = rb->file + sh.sh_offset;
			rb->fatbin_size = sh.sh_size;
			rb->fatbin_addr = sh.sh_addr;
		} else if (name && !strcmp(name, ".hipFatBinSegment")) {
			rb->segment = rb->file + sh.sh_offset;
			rb->segment_size = sh.sh_size;
		}
	}
	elf_end(e);
	cr_assert(rb->fatbin && rb->segment, ".hip_fatbin/.hipFatBinSegment missing in %s", path);
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

Test(codeobj_real, fatbin_layout)
{
	struct realbin rb;
	uint32_t magic, version;
	uint64_t n, pos = 32, amd_end = 0;
	int amdgcn = 0, host = 0;

	load_realbin(&rb);
	/* { u32 magic "HIPF", u32 version, binary, unused } */
	cr_assert_eq(rb.segment_size, 24);
	memcpy(&magic, rb.segment, 4);
	memcpy(&version, rb.segment + 4, 4);
	cr_assert_eq(magic, 0x48495046);
	cr_assert_eq(version, 1);
	cr_assert_eq(le64(rb.segment + 8), rb.fatbin_addr, "binary points to .hip_fatbin");
	cr_assert_eq(le64(rb.segment + 16), 0);
	cr_assert(!memcmp(rb.fatbin, "__CLANG_OFFLOAD_BUNDLE__", 24));
	n = le64(rb.fatbin + 24);
	cr_assert_eq(n, 2);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = le64(rb.fatbin + pos), size = le64(rb.fatbin + pos + 8);
		uint64_t tlen = le64(rb.fatbin + pos + 16);
		const char *t = (const char *)rb.fatbin + pos + 24;

		cr_assert_leq(off + size, rb.fatbin_size);
		if (tlen == 25 && !memcmp(t, "host-x86_64-unknown-linux", 25)) {
			host++;
			cr_assert_eq(size, 0);
		} else if (tlen == 31 && !memcmp(t, "hipv4-amdgcn-amd-amdhsa--gfx90a", 31)) {
			amdgcn++;
			cr_assert_eq(off % 4096, 0);
			cr_assert(!memcmp(rb.fatbin + off, "\177ELF", 4));
			cr_assert_eq(rb.fatbin[off + 18], 224, "EM_AMDGPU");
			amd_end = off + size;
		}
		pos += 24 + tlen;
	}
	cr_assert_eq(host, 1);
	cr_assert_eq(amdgcn, 1);
	cr_assert_gt(amd_end, 0);
	free(rb.file);
}

struct want_arg { uint32_t offset, size; bool gb, ro; };
struct want {
	const char *name;
	uint32_t kernarg_size;
	unsigned nargs;
	struct want_arg a[6];
};

/* What clang-15 -O1 for gfx90a writes (hidden arguments are not listed). */
static const struct want want_kernels[] = {
	{ "k_plain_c", 12, 2, { { 0, 8, 1, 0 }, { 8, 4, 0, 0 } } },
	{ "_Z7k_mixedPfPKfif6Params", 40, 5,
	  { { 0, 8, 1, 0 }, { 8, 8, 1, 1 }, { 16, 4, 0, 0 }, { 20, 4, 0, 0 }, { 24, 16, 0, 0 } } },
	{ "_Z10k_restrictPfPKfi", 20, 3, { { 0, 8, 1, 0 }, { 8, 8, 1, 1 }, { 16, 4, 0, 0 } } },
	{ "_Z11k_two_constPKfS0_Pfcd", 40, 5,
	  { { 0, 8, 1, 1 }, { 8, 8, 1, 1 }, { 16, 8, 1, 0 }, { 24, 1, 0, 0 }, { 32, 8, 0, 0 } } },
	{ "_Z11k_const_ptrPfPKi", 16, 2, { { 0, 8, 1, 0 }, { 8, 8, 1, 1 } } },
	{ "_Z8k_hiddenPi", 64, 1, { { 0, 8, 1, 0 } } },
	{ "_Z8k_noargsv", 0, 0, { { 0 } } },
	{ "_Z6k_tmplIfEvPT_PKS0_S0_", 20, 3, { { 0, 8, 1, 0 }, { 8, 8, 1, 1 }, { 16, 4, 0, 0 } } },
	{ "_Z6k_tmplIiEvPT_PKS0_S0_", 20, 3, { { 0, 8, 1, 0 }, { 8, 8, 1, 1 }, { 16, 4, 0, 0 } } },
	{ "_ZN2ka4k_nsEPKNS_3VecEPS0_S0_", 28, 3,
	  { { 0, 8, 1, 1 }, { 8, 8, 1, 0 }, { 16, 12, 0, 0 } } },
};

static void check_kernels(const struct hipsvm_codeobj *co)
{
	size_t nw = sizeof(want_kernels) / sizeof(want_kernels[0]);

	cr_assert_eq(hipsvm_codeobj_count(co), nw);
	for (size_t i = 0; i < nw; i++) {
		const struct want *w = &want_kernels[i];
		const struct hipsvm_kernel_info *k = hipsvm_codeobj_find(co, w->name);

		cr_assert(k, "kernel %s not found", w->name);
		cr_assert_str_eq(k->name, w->name);
		cr_assert_eq(k->kernarg_size, w->kernarg_size, "%s kernarg_size %u", w->name,
			     k->kernarg_size);
		cr_assert_eq(k->nargs, w->nargs, "%s nargs %u", w->name, k->nargs);
		for (unsigned j = 0; j < w->nargs; j++) {
			const struct hipsvm_karg *a = &k->args[j];

			cr_assert_eq(a->offset, w->a[j].offset, "%s arg %u offset", w->name, j);
			cr_assert_eq(a->size, w->a[j].size, "%s arg %u size", w->name, j);
			cr_assert_eq(a->global_buffer, w->a[j].gb, "%s arg %u global_buffer", w->name, j);
			cr_assert_eq(a->read_only, w->a[j].ro, "%s arg %u read_only", w->name, j);
		}
	}
}

Test(codeobj_real, through_wrapper)
{
	struct realbin rb;
	struct hipsvm_codeobj *co = NULL;
	struct { uint32_t magic, version; const void *binary; void *unused; } wrap;

	load_realbin(&rb);
	wrap.magic = 0x48495046;
	wrap.version = 1;
	wrap.binary = rb.fatbin;
	wrap.unused = NULL;
	cr_assert_eq(hipsvm_codeobj_load(&wrap, NULL, &co), 0);
	check_kernels(co);
	cr_assert_eq(hipsvm_codeobj_find(co, "_Z8k_hiddenPi.kd"),
		     hipsvm_codeobj_find(co, "_Z8k_hiddenPi"), "lookup by .symbol");
	cr_assert_null(hipsvm_codeobj_find(co, "_Z8k_hidden"));
	cr_assert_null(hipsvm_codeobj_find(co, "nope"));
	cr_assert_null(hipsvm_codeobj_find(co, ""));
	hipsvm_codeobj_free(co);
	free(rb.file);
}

Test(codeobj_real, blob_bundle_and_raw_elf)
{
	struct realbin rb;
	struct hipsvm_codeobj *co = NULL;
	uint64_t off, size;
	struct { uint32_t magic, version; const void *binary; void *unused; } wrap;
	uint8_t *elf;

	load_realbin(&rb);
	co = NULL;
	cr_assert_eq(load_exact(rb.fatbin, rb.fatbin_size, &co), 0);
	check_kernels(co);
	hipsvm_codeobj_free(co);
	/* the second entry is the amdgcn one (checked in fatbin_layout) */
	off = le64(rb.fatbin + 32 + 24 + 25);
	size = le64(rb.fatbin + 32 + 24 + 25 + 8);
	cr_assert_eq(load_exact(rb.fatbin + off, size, &co), 0);
	check_kernels(co);
	hipsvm_codeobj_free(co);
	/* a wrapper may also point at a bare ELF: sized from its headers */
	elf = malloc(size);
	memcpy(elf, rb.fatbin + off, size);
	wrap.magic = 0x48495046;
	wrap.version = 1;
	wrap.binary = elf;
	cr_assert_eq(hipsvm_codeobj_load(&wrap, NULL, &co), 0);
	check_kernels(co);
	hipsvm_codeobj_free(co);
	free(elf);
	free(rb.file);
}

/* Every strict prefix that cuts into the code object must fail cleanly. */
Test(codeobj_real, truncated_everywhere)
{
	struct realbin rb;
	struct hipsvm_codeobj *co = (struct hipsvm_codeobj *)&rb;
	uint64_t end;

	load_realbin(&rb);
	end = le64(rb.fatbin + 32 + 24 + 25) + le64(rb.fatbin + 32 + 24 + 25 + 8);
	for (uint64_t len = 0; len < end; len++) {
		int err = load_exact(rb.fatbin, len, &co);

		cr_assert(err == -EINVAL || err == -ENOENT, "len %lu: %d", (unsigned long)len, err);
		cr_assert_eq(co, (struct hipsvm_codeobj *)&rb, "out touched on failure");
	}
	free(rb.file);
}
