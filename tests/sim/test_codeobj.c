/* SPDX-License-Identifier: MIT */
/*
 * test_codeobj.c - the code object metadata reader (sim/codeobj.c).
 *
 * Two sources of input: the real fat binary of tests/hip/kernel_args.hip built
 * by hipcc (HIPSVM_TEST_KERNEL_ARGS names it; those tests skip without hipcc),
 * and code objects synthesised here (a MessagePack writer, a minimal ELF with a
 * PT_NOTE, a bundle), which reach the corners hipcc never writes. Malformed
 * inputs must give -EINVAL/-ENOENT/-ENOTSUP, never a crash: Criterion runs each
 * test in its own process, so a crash fails the test. Inputs are copied into
 * buffers of exactly their size so that an over-read shows up under ASan.
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

#include "codeobj.h"
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
	cr_assert_eq(hipsvm_codeobj_load(&wrap, &co), 0);
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
	cr_assert_eq(hipsvm_codeobj_load(&wrap, &co), 0);
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

/* ---- synthetic code objects ---------------------------------------------- */

#define HOST_TRIPLE	"host-x86_64-unknown-linux"
#define GFX_TRIPLE	"hipv4-amdgcn-amd-amdhsa--gfx90a"

/* metadata -> ELF -> bundle(host, amdgcn) -> load */
static int load_meta(const struct wb *meta, bool use_phdr, struct hipsvm_codeobj **co)
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

static void check_basic(const struct hipsvm_codeobj *co)
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

/* ---- malformed input ----------------------------------------------------- */

Test(codeobj_bad, simple_rejections)
{
	struct hipsvm_codeobj *co = (struct hipsvm_codeobj *)&co;
	struct { uint32_t magic, version; const void *binary; void *unused; } wrap = { 0 };
	static const uint8_t zeros[64];

	cr_assert_eq(hipsvm_codeobj_load_blob(NULL, 10, &co), -EINVAL);
	cr_assert_eq(load_exact("", 0, &co), -EINVAL, "empty");
	cr_assert_eq(load_exact("__CLANG_OFFLOAD_BUNDLE_", 23, &co), -EINVAL, "short magic");
	cr_assert_eq(load_exact("__CLANG_OFFLOAD_BUNDLE__", 24, &co), -EINVAL, "no count");
	cr_assert_eq(load_exact("__CLANG_OFFLOAD_BUNDLX__\0\0\0\0\0\0\0\0", 32, &co), -EINVAL);
	cr_assert_eq(load_exact("CCOB\1\0\1\0", 8, &co), -ENOTSUP);
	cr_assert_eq(load_exact(zeros, sizeof(zeros), &co), -EINVAL);
	cr_assert_eq(hipsvm_codeobj_load(NULL, &co), -EINVAL);
	cr_assert_eq(hipsvm_codeobj_load(&wrap, &co), -EINVAL, "zero wrapper");
	wrap.magic = 0x48495046;
	wrap.version = 2;
	wrap.binary = zeros;
	cr_assert_eq(hipsvm_codeobj_load(&wrap, &co), -EINVAL, "version 2");
	wrap.version = 1;
	cr_assert_eq(hipsvm_codeobj_load(&wrap, &co), -EINVAL, "binary is garbage");
	wrap.binary = NULL;
	cr_assert_eq(hipsvm_codeobj_load(&wrap, &co), -EINVAL, "NULL binary");
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
