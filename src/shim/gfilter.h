/* SPDX-License-Identifier: MIT */
/*
 * gfilter.h - the registry's granule filter: for every 2 MiB granule of the
 * 48-bit address space, how many live pieces touch it, once for all kinds
 * and once for the kinds other than device memory (so that a query for the
 * SVM kinds is not sent to the tree because device allocations sit nearby).
 *
 * A two-level table: a fixed top level of 32 GiB leaves, leaves mapped by
 * writers on demand and never unmapped while the filter lives (readers may
 * hold a pointer). A piece that covers a whole leaf is counted once in
 * full[] instead of 16384 times; pieces at or above 2^48 (no user mapping
 * lives there today) only in hi[]. Each granule also keeps a hint: the tree
 * leaf that last received a piece there.
 *
 * In front of the counts, for the unmap hot path: one bit per granule below
 * 2^48, set while the non-device count of the granule (or of its whole
 * leaf, full[]) is not zero. A range within one granule is answered by one
 * load of the bitmap (hipsvm_gf_svm_clear); the bitmap is mapped when the
 * first non-device piece is counted (16 MiB reserved, touched where set)
 * and lives as long as the filter. Until then the pointer is NULL, and
 * nothing of those kinds is tracked anywhere.
 *
 * Writers (serialised by the registry) change counts with relaxed atomic
 * stores; readers only load. The registry adds a piece's counts before the
 * piece enters the tree and takes them away after it has left, so the
 * counts over-approximate at every instant: "all zero" proves that nothing
 * is tracked there.
 */
#ifndef HIPSVM_GFILTER_H
#define HIPSVM_GFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIPSVM_GF_GRAN_SHIFT	21
#define HIPSVM_GF_VA_BITS	48
#define HIPSVM_GF_LEAF_SHIFT	14	/* granules per leaf: 32 GiB */
#define HIPSVM_GF_TOP_N		(1u << (HIPSVM_GF_VA_BITS - HIPSVM_GF_GRAN_SHIFT - \
					HIPSVM_GF_LEAF_SHIFT))

enum { HIPSVM_GF_ALL, HIPSVM_GF_NONDEV, HIPSVM_GF_NCLS };

struct hipsvm_gleaf;

#define HIPSVM_GF_BITS_WORDS	((size_t)1 << (HIPSVM_GF_VA_BITS - HIPSVM_GF_GRAN_SHIFT - 6))

struct hipsvm_gfilter {
	uint64_t *bits;		/* atomic; NULL until a non-device piece is counted */
	uint32_t hi[HIPSVM_GF_NCLS];
	uint32_t full[HIPSVM_GF_NCLS][HIPSVM_GF_TOP_N];
	struct hipsvm_gleaf *top[HIPSVM_GF_TOP_N];
};

/* Writers. prepare maps the leaves that a piece [s, l] will count in (the
 * only step that can fail: 0 or -ENOMEM); adj adds d to its counts (device:
 * counted in HIPSVM_GF_ALL only); set_hint points its first granules at the
 * tree leaf handle leaf. */
int hipsvm_gf_prepare(struct hipsvm_gfilter *f, uintptr_t s, uintptr_t l);
void hipsvm_gf_adj(struct hipsvm_gfilter *f, uintptr_t s, uintptr_t l, bool device, int32_t d);
void hipsvm_gf_set_hint(struct hipsvm_gfilter *f, uintptr_t s, uintptr_t l, uint32_t leaf);
void hipsvm_gf_destroy(struct hipsvm_gfilter *f);

/* Readers (no lock, no allocation, async-signal-safe). hit: may a piece of
 * class cls lie in [s, l]? hint: the hint of addr's granule, 0 if none. */
bool hipsvm_gf_hit(const struct hipsvm_gfilter *f, uintptr_t s, uintptr_t l, unsigned cls);
uint32_t hipsvm_gf_hint(const struct hipsvm_gfilter *f, uintptr_t addr);

/* The unmap hot path: true when no non-device piece can lie in
 * [addr, addr + len), from the bitmap bits (the value of f->bits, read by the
 * caller, NULL: nothing ever counted). A range within one granule costs one
 * load; a longer one, one load per 64 granules (hipsvm_gf_svm_clear_span). A
 * range that wraps, reaches 2^48 or spans 8 GiB or more is never "clear":
 * the caller asks hipsvm_gf_hit. Lock-free, async-signal-safe. */
bool hipsvm_gf_svm_clear_span(const uint64_t *bits, uintptr_t addr, size_t len);

/* The same for a range within one granule, without a call: false also
 * when the range is longer (or empty, or wraps): then ask the above. */
static inline bool hipsvm_gf_svm_clear_one(const uint64_t *bits, uintptr_t addr, size_t len)
{
	uintptr_t g0 = addr >> HIPSVM_GF_GRAN_SHIFT, g1 = (addr + len - 1) >> HIPSVM_GF_GRAN_SHIFT;

	if (!bits)
		return true;
	/* one granule below 2^48. A length near SIZE_MAX can wrap back into
	 * addr's own granule and pass: the kernel refuses every such call
	 * (EINVAL, nothing unmapped), so nothing goes uncoordinated; it is
	 * only not counted as refused. Ruling it out here costs an
	 * instruction on every munmap. */
	if (__builtin_expect(((g0 ^ g1) | (g0 >> (HIPSVM_GF_VA_BITS - HIPSVM_GF_GRAN_SHIFT))) != 0,
			     0))
		return false;
	return (__atomic_load_n(&bits[g0 >> 6], __ATOMIC_RELAXED) & (UINT64_C(1) << (g0 & 63))) ==
	       0;
}

static inline bool hipsvm_gf_svm_clear(const uint64_t *bits, uintptr_t addr, size_t len)
{
	return hipsvm_gf_svm_clear_one(bits, addr, len) ||
	       hipsvm_gf_svm_clear_span(bits, addr, len);
}

#endif
