/* SPDX-License-Identifier: MIT */
/*
 * codeobj_build.h - synthesises code objects for tests/sim/test_codeobj.c (and a
 * future fuzzer's seed corpus): a MessagePack writer, an AMDGPU ELF64 holding one
 * NT_AMDGPU_METADATA note (in a PT_NOTE segment, or only in an SHT_NOTE section),
 * and a clang offload bundle. Layouts as in sim/codeobj/codeobj.h. Test code: allocation
 * failures abort.
 */
#ifndef HIPSVM_TESTS_CODEOBJ_BUILD_H
#define HIPSVM_TESTS_CODEOBJ_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj/codeobj.h"

struct wb {
	uint8_t *p;
	size_t n, cap;
};

static inline void wb_put(struct wb *w, const void *d, size_t n)
{
	if (w->n + n > w->cap) {
		w->cap = (w->n + n) * 2 + 64;
		w->p = realloc(w->p, w->cap);
		if (!w->p)
			abort();
	}
	if (n)
		memcpy(w->p + w->n, d, n);
	w->n += n;
}

static inline void wb_u8(struct wb *w, uint8_t v) { wb_put(w, &v, 1); }

static inline void wb_be(struct wb *w, uint64_t v, unsigned n)
{
	while (n--)
		wb_u8(w, (uint8_t)(v >> (8 * n)));
}

static inline void wb_le(struct wb *w, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		wb_u8(w, (uint8_t)(v >> (8 * i)));
}

static inline void wb_pad(struct wb *w, size_t align)
{
	while (w->n % align)
		wb_u8(w, 0);
}

static inline void mp_map(struct wb *w, uint32_t n)
{
	if (n < 16)
		wb_u8(w, 0x80 | n);
	else
		wb_u8(w, 0xdf), wb_be(w, n, 4);
}

static inline void mp_arr(struct wb *w, uint32_t n)
{
	if (n < 16)
		wb_u8(w, 0x90 | n);
	else
		wb_u8(w, 0xdd), wb_be(w, n, 4);
}

static inline void mp_strn(struct wb *w, const char *s, size_t n)
{
	if (n < 32)
		wb_u8(w, (uint8_t)(0xa0 | n));
	else if (n < 256)
		wb_u8(w, 0xd9), wb_u8(w, (uint8_t)n);
	else
		wb_u8(w, 0xda), wb_be(w, n, 2);
	wb_put(w, s, n);
}

static inline void mp_str(struct wb *w, const char *s) { mp_strn(w, s, strlen(s)); }

static inline void mp_uint(struct wb *w, uint64_t v)
{
	if (v < 128)
		wb_u8(w, (uint8_t)v);
	else if (v <= 0xff)
		wb_u8(w, 0xcc), wb_u8(w, (uint8_t)v);
	else if (v <= 0xffff)
		wb_u8(w, 0xcd), wb_be(w, v, 2);
	else if (v <= 0xffffffff)
		wb_u8(w, 0xce), wb_be(w, v, 4);
	else
		wb_u8(w, 0xcf), wb_be(w, v, 8);
}

/* One argument of a synthetic kernel; access may be NULL. */
struct sarg {
	uint32_t offset, size;
	const char *kind, *access;
};

/* A kernel map with .name, .symbol, .kernarg_segment_size and .args. */
static inline void mp_kernel(struct wb *w, const char *name, uint32_t kas,
			     const struct sarg *a, unsigned n)
{
	char sym[1024];

	snprintf(sym, sizeof(sym), "%s.kd", name);
	mp_map(w, 4);
	mp_str(w, ".args");
	mp_arr(w, n);
	for (unsigned i = 0; i < n; i++) {
		mp_map(w, a[i].access ? 4 : 3);
		mp_str(w, ".offset");
		mp_uint(w, a[i].offset);
		mp_str(w, ".size");
		mp_uint(w, a[i].size);
		mp_str(w, ".value_kind");
		mp_str(w, a[i].kind);
		if (a[i].access) {
			mp_str(w, ".access");
			mp_str(w, a[i].access);
		}
	}
	mp_str(w, ".kernarg_segment_size");
	mp_uint(w, kas);
	mp_str(w, ".name");
	mp_str(w, name);
	mp_str(w, ".symbol");
	mp_str(w, sym);
}

/* Top-level map header with "amdhsa.kernels" last; the kernels follow. */
static inline void mp_meta_begin(struct wb *w, unsigned nkernels)
{
	mp_map(w, 3);
	mp_str(w, "amdhsa.version");
	mp_arr(w, 2);
	mp_uint(w, 1);
	mp_uint(w, 1);
	mp_str(w, "amdhsa.target");
	mp_str(w, "amdgcn-amd-amdhsa--gfx90a");
	mp_str(w, "amdhsa.kernels");
	mp_arr(w, nkernels);
}

/*
 * An AMDGPU ELF64 with the note `type`/`desc`: in a PT_NOTE program header
 * (use_phdr) or only in an SHT_NOTE section.
 */
static inline struct wb make_elf_note(const void *desc, size_t dlen, uint32_t type, bool use_phdr)
{
	struct wb w = { 0 };
	size_t note_off = use_phdr ? 64 + 56 : 64, note_len, sh_off;

	note_len = 12 + 8 + ((dlen + 3) & ~(size_t)3);
	sh_off = (note_off + note_len + 7) & ~(size_t)7;
	wb_put(&w, "\177ELF\2\1\1\100\2\0\0\0\0\0\0\0", 16);
	wb_le(&w, 3, 2);			/* ET_DYN */
	wb_le(&w, 224, 2);			/* EM_AMDGPU */
	wb_le(&w, 1, 4);
	wb_le(&w, 0, 8);			/* e_entry */
	wb_le(&w, use_phdr ? 64 : 0, 8);	/* e_phoff */
	wb_le(&w, use_phdr ? 0 : sh_off, 8);	/* e_shoff */
	wb_le(&w, 0x53f, 4);			/* e_flags: gfx90a */
	wb_le(&w, 64, 2);
	wb_le(&w, 56, 2);
	wb_le(&w, use_phdr ? 1 : 0, 2);
	wb_le(&w, 64, 2);
	wb_le(&w, use_phdr ? 0 : 2, 2);
	wb_le(&w, 0, 2);
	if (use_phdr) {
		wb_le(&w, 4, 4);		/* PT_NOTE */
		wb_le(&w, 4, 4);		/* PF_R */
		wb_le(&w, note_off, 8);
		wb_le(&w, note_off, 8);
		wb_le(&w, note_off, 8);
		wb_le(&w, note_len, 8);
		wb_le(&w, note_len, 8);
		wb_le(&w, 4, 8);
	}
	wb_le(&w, 7, 4);
	wb_le(&w, dlen, 4);
	wb_le(&w, type, 4);
	wb_put(&w, "AMDGPU\0\0", 8);
	wb_put(&w, desc, dlen);
	wb_pad(&w, 4);
	if (!use_phdr) {
		uint8_t null_sh[64] = { 0 };

		wb_pad(&w, 8);
		wb_put(&w, null_sh, 64);
		wb_le(&w, 0, 4);		/* sh_name */
		wb_le(&w, 7, 4);		/* SHT_NOTE */
		wb_le(&w, 2, 8);		/* SHF_ALLOC */
		wb_le(&w, note_off, 8);
		wb_le(&w, note_off, 8);
		wb_le(&w, note_len, 8);
		wb_le(&w, 0, 8);
		wb_le(&w, 4, 8);
		wb_le(&w, 0, 8);
	}
	return w;
}

struct sentry {
	const char *triple;
	const void *data;
	size_t size;
};

/* A bundle whose entries are laid out after the header, 8-aligned. */
static inline struct wb make_bundle(const struct sentry *e, unsigned n)
{
	struct wb w = { 0 };
	size_t hdr = 32, off;

	for (unsigned i = 0; i < n; i++)
		hdr += 24 + strlen(e[i].triple);
	off = (hdr + 7) & ~(size_t)7;
	wb_put(&w, "__CLANG_OFFLOAD_BUNDLE__", 24);
	wb_le(&w, n, 8);
	for (unsigned i = 0; i < n; i++) {
		wb_le(&w, off, 8);
		wb_le(&w, e[i].size, 8);
		wb_le(&w, strlen(e[i].triple), 8);
		wb_put(&w, e[i].triple, strlen(e[i].triple));
		off = (off + e[i].size + 7) & ~(size_t)7;
	}
	for (unsigned i = 0; i < n; i++) {
		wb_pad(&w, 8);
		wb_put(&w, e[i].data, e[i].size);
	}
	return w;
}

/* Loads a copy of exactly `size` bytes, so that over-reads hit the heap redzone. */
static inline int load_exact(const void *data, size_t size, struct hipsvm_codeobj **out)
{
	void *copy = malloc(size ? size : 1);
	int err;

	if (!copy)
		abort();
	if (size)
		memcpy(copy, data, size);
	err = hipsvm_codeobj_load_blob(copy, size, NULL, out);
	free(copy);
	return err;
}

#endif /* HIPSVM_TESTS_CODEOBJ_BUILD_H */
