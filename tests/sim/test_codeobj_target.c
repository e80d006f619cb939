/* SPDX-License-Identifier: MIT */
/*
 * test_codeobj_target.c - which code object of a fat binary the reader takes
 * for a device (sim/codeobj/codeobj_target.h): the target-ID rules on their own, on
 * synthetic bundles whose entries each name a different kernel (so the test
 * sees which one was read), on bare ELFs by their e_flags, and on the fat
 * binaries of Debian's librocsparse.so.0 (gfx1030 first, then gfx803 ...
 * gfx90a:xnack+, gfx90a:xnack-), where taking the first amdgcn entry gave
 * gfx1030's wave32 code.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codeobj/codeobj.h"
#include "codeobj_build.h"
#include "codeobj_fixture.h"

#define MI250_XNACK_ON "gfx90a:sramecc+:xnack+"
#define MI250_XNACK_OFF "gfx90a:sramecc+:xnack-"

Test(codeobj_target, rules)
{
	static const struct {
		const char *co, *dev;
		bool ok;
	} cases[] = {
		{ "gfx90a", MI250_XNACK_ON, true },
		{ "gfx90a", MI250_XNACK_OFF, true },
		{ "gfx90a:xnack+", MI250_XNACK_ON, true },
		{ "gfx90a:xnack+", MI250_XNACK_OFF, false },
		{ "gfx90a:xnack-", MI250_XNACK_OFF, true },
		{ "gfx90a:xnack-", MI250_XNACK_ON, false },
		{ "gfx90a:sramecc+", MI250_XNACK_ON, true },
		{ "gfx90a:sramecc-", MI250_XNACK_ON, false },
		{ "gfx90a:sramecc+:xnack-", MI250_XNACK_OFF, true },
		{ "gfx90a:sramecc+:xnack-", MI250_XNACK_ON, false },
		{ "amdgcn-amd-amdhsa--gfx90a:xnack+", "amdgcn-amd-amdhsa--" MI250_XNACK_ON, true },
		{ "gfx1030", MI250_XNACK_ON, false },
		{ "gfx908", MI250_XNACK_ON, false },
		{ "gfx90", MI250_XNACK_ON, false },
		{ "gfx90ab", MI250_XNACK_ON, false },
		/* features in the other order, unknown ones, stray text: no ID */
		{ "gfx90a:xnack+:sramecc+", MI250_XNACK_ON, false },
		{ "gfx90a:xnack*", MI250_XNACK_ON, false },
		{ "gfx90a:tgsplit+", MI250_XNACK_ON, false },
		{ "gfx90a:xnack+x", MI250_XNACK_ON, false },
		{ "", MI250_XNACK_ON, false },
		{ ":xnack+", MI250_XNACK_ON, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(hipsvm_target_compatible(cases[i].co, cases[i].dev), cases[i].ok,
			     "%s on %s", cases[i].co, cases[i].dev);
	cr_expect(!hipsvm_target_compatible(NULL, MI250_XNACK_ON));
}

/* An ELF whose metadata has one kernel of the given name. */
static struct wb named_elf(const char *kernel, uint32_t flags)
{
	struct wb m = { 0 }, elf;

	mp_meta_begin(&m, 1);
	mp_kernel(&m, kernel, 48, basic_args, 6);
	elf = make_elf_note(m.p, m.n, 32, true);
	memcpy(elf.p + 48, &flags, 4);
	free(m.p);
	return elf;
}

static const char *picked(const struct wb *b, const char *target, int *err)
{
	static char name[320];
	struct hipsvm_codeobj *co = NULL;

	name[0] = 0;
	*err = hipsvm_codeobj_load_blob(b->p, b->n, target, &co);
	if (*err)
		return NULL;
	snprintf(name, sizeof(name), "%s@%s", hipsvm_codeobj_kernel(co, 0)->name,
		 hipsvm_codeobj_target(co));
	hipsvm_codeobj_free(co);
	return name;
}

Test(codeobj_target, bundle_order_and_modes)
{
	struct wb e1030 = named_elf("k1030", 0x536), eon = named_elf("kon", 0x73f),
		  eoff = named_elf("koff", 0x63f), eany = named_elf("kany", 0x53f);
	struct sentry ent[] = {
		{ HOST_TRIPLE, "", 0 },
		{ "hipv4-amdgcn-amd-amdhsa--gfx1030", e1030.p, e1030.n },
		{ "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", eon.p, eon.n },
		{ "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", eoff.p, eoff.n },
		{ "hipv4-amdgcn-amd-amdhsa--gfx90a", eany.p, eany.n },
	};
	struct wb b = make_bundle(ent, 5), only1030 = make_bundle(ent, 2);
	int err;

	cr_assert_str_eq(picked(&b, MI250_XNACK_ON, &err), "kon@gfx90a:xnack+");
	cr_assert_str_eq(picked(&b, MI250_XNACK_OFF, &err), "koff@gfx90a:xnack-");
	cr_assert_str_eq(picked(&b, "gfx1030", &err), "k1030@gfx1030");
	/* without a target: the first amdgcn entry, what the reader did before */
	cr_assert_str_eq(picked(&b, NULL, &err), "k1030@gfx1030");
	cr_assert_null(picked(&only1030, MI250_XNACK_ON, &err));
	cr_assert_eq(err, -ENOENT);
	cr_assert_null(picked(&b, "gfx90a:bogus+", &err));
	cr_assert_eq(err, -EINVAL);
	/* the "any" entry first: it is taken in both modes (first compatible) */
	{
		struct sentry ent2[] = { ent[0], ent[4], ent[2], ent[3] };
		struct wb b2 = make_bundle(ent2, 4);

		cr_assert_str_eq(picked(&b2, MI250_XNACK_ON, &err), "kany@gfx90a");
		cr_assert_str_eq(picked(&b2, MI250_XNACK_OFF, &err), "kany@gfx90a");
		free(b2.p);
	}
	/* a "hip-" (pre-v4) entry is judged by its ELF header: v4 xnack on */
	{
		struct sentry ent3[] = { { "hip-amdgcn-amd-amdhsa-gfx90a", eon.p, eon.n } };
		struct wb b3 = make_bundle(ent3, 1);

		cr_assert_str_eq(picked(&b3, MI250_XNACK_ON, &err), "kon@gfx90a:xnack+");
		cr_assert_null(picked(&b3, MI250_XNACK_OFF, &err));
		free(b3.p);
	}
	/* bare ELFs: by e_flags */
	cr_assert_str_eq(picked(&eany, MI250_XNACK_OFF, &err), "kany@gfx90a");
	cr_assert_str_eq(picked(&eoff, MI250_XNACK_OFF, &err), "koff@gfx90a:xnack-");
	cr_assert_null(picked(&eoff, MI250_XNACK_ON, &err));
	cr_assert_eq(err, -ENOENT);
	cr_assert_null(picked(&e1030, MI250_XNACK_ON, &err));
	cr_assert_str_eq(picked(&e1030, NULL, &err), "k1030@gfx1030");
	free(b.p);
	free(only1030.p);
	free(e1030.p);
	free(eon.p);
	free(eoff.p);
	free(eany.p);
}

#define ROCSPARSE "/usr/lib/x86_64-linux-gnu/librocsparse.so.0"

/* The .hip_fatbin section of an ELF64 file mapped at p. */
static bool fatbin_section(const uint8_t *p, size_t size, const uint8_t **sec, size_t *len)
{
	uint64_t shoff;
	uint16_t shnum, shstrndx;
	const uint8_t *shstr;

	memcpy(&shoff, p + 40, 8);
	memcpy(&shnum, p + 60, 2);
	memcpy(&shstrndx, p + 62, 2);
	if (shoff + (uint64_t)shnum * 64 > size || shstrndx >= shnum)
		return false;
	shstr = p + *(const uint64_t *)(p + shoff + shstrndx * 64 + 24);
	for (unsigned i = 0; i < shnum; i++) {
		const uint8_t *sh = p + shoff + i * 64;
		uint32_t name;
		uint64_t off, sz;

		memcpy(&name, sh, 4);
		memcpy(&off, sh + 24, 8);
		memcpy(&sz, sh + 32, 8);
		if (!strcmp((const char *)shstr + name, ".hip_fatbin") && off + sz <= size) {
			*sec = p + off;
			*len = sz;
			return true;
		}
	}
	return false;
}

Test(codeobj_target, rocsparse)
{
	struct stat st;
	const uint8_t *p, *sec;
	size_t len, pos = 0;
	unsigned seen = 0;
	int fd = open(ROCSPARSE, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) != 0)
		cr_skip_test("%s is not installed", ROCSPARSE);
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	cr_assert_neq(p, MAP_FAILED);
	cr_assert(fatbin_section(p, (size_t)st.st_size, &sec, &len));
	/* the first bundles (one per translation unit, 4096-aligned) */
	while (pos + 32 < len && seen < 8) {
		const uint8_t *b = sec + pos;
		struct hipsvm_codeobj *on = NULL, *off = NULL, *first = NULL;
		uint64_t n, end = 0, q = 32;

		if (memcmp(b, "__CLANG_OFFLOAD_BUNDLE__", 24)) {
			pos += 4096;
			continue;
		}
		memcpy(&n, b + 24, 8);
		for (uint64_t i = 0; i < n; i++) {
			uint64_t o, s, t;

			memcpy(&o, b + q, 8);
			memcpy(&s, b + q + 8, 8);
			memcpy(&t, b + q + 16, 8);
			q += 24 + t;
			if (o + s > end)
				end = o + s;
		}
		cr_assert_eq(hipsvm_codeobj_load_blob(b, end, MI250_XNACK_ON, &on), 0);
		cr_assert_eq(hipsvm_codeobj_load_blob(b, end, MI250_XNACK_OFF, &off), 0);
		cr_assert_eq(hipsvm_codeobj_load_blob(b, end, NULL, &first), 0);
		cr_assert_str_eq(hipsvm_codeobj_target(on), "gfx90a:xnack+");
		cr_assert_str_eq(hipsvm_codeobj_target(off), "gfx90a:xnack-");
		cr_assert_str_eq(hipsvm_codeobj_target(first), "gfx1030",
				 "the first entry, which the simulator used to take");
		cr_assert_gt(hipsvm_codeobj_count(on), 0);
		cr_assert(hipsvm_codeobj_kernel(on, 0)->has_code);
		/* gfx90a code is wave64: kernel_code_properties bit 10 clear */
		cr_assert_eq(hipsvm_codeobj_kernel(on, 0)->kd[57] & 4, 0);
		cr_assert_neq(hipsvm_codeobj_kernel(first, 0)->kd[57] & 4, 0, "gfx1030 is wave32");
		hipsvm_codeobj_free(on);
		hipsvm_codeobj_free(off);
		hipsvm_codeobj_free(first);
		seen++;
		pos += (end + 4095) & ~(uint64_t)4095;
	}
	cr_assert_gt(seen, 0);
	munmap((void *)p, (size_t)st.st_size);
}
