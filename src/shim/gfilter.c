/* SPDX-License-Identifier: MIT */
/* gfilter.c - the registry's granule filter (see gfilter.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "shim/gfilter.h"
#include "shim/sysmem.h"

#define GRAN_SHIFT	HIPSVM_GF_GRAN_SHIFT
#define VA_LIMIT	((uintptr_t)1 << HIPSVM_GF_VA_BITS)
#define GLEAF_N		(1u << HIPSVM_GF_LEAF_SHIFT)
#define LSPAN_SHIFT	(HIPSVM_GF_GRAN_SHIFT + HIPSVM_GF_LEAF_SHIFT)
#define TOP_N		HIPSVM_GF_TOP_N
#define NCLS		HIPSVM_GF_NCLS
#define HINT_MAX	16	/* granules of a piece that get a leaf hint */
#define BITS_BYTES	(HIPSVM_GF_BITS_WORDS * sizeof(uint64_t))

#define LD(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Per granule: the counts, and a hint to the tree leaf that last received a
 * piece here (so that a lookup usually reads one tree leaf, not a path). */
struct gslot {
	uint32_t cnt[NCLS];
	uint32_t hint;
	uint32_t pad;
};

struct hipsvm_gleaf {
	uint32_t sum[NCLS];
	struct gslot g[GLEAF_N];
};

/* Allocates the leaves that a piece [s, l] counts in (only the ones it does
 * not cover whole: at most the first and the last). */
int hipsvm_gf_prepare(struct hipsvm_gfilter *f, uintptr_t s, uintptr_t l)
{
	uintptr_t ends[2] = { s, l };

	if (s >= VA_LIMIT)
		return 0;
	if (!f->bits) {
		uint64_t *b = hipsvm_sysmem_map(BITS_BYTES);

		if (!b)
			return -ENOMEM;
		/* read sparsely, written where set: small pages, not huge ones */
		int saved = errno;

		syscall(SYS_madvise, b, BITS_BYTES, MADV_NOHUGEPAGE);
		errno = saved;
		__atomic_store_n(&f->bits, b, __ATOMIC_RELEASE);
	}
	if (l >= VA_LIMIT)
		ends[1] = VA_LIMIT - 1;
	for (unsigned e = 0; e < 2; e++) {
		size_t li = ends[e] >> LSPAN_SHIFT;
		struct hipsvm_gleaf *g;

		if (f->top[li])
			continue;
		g = hipsvm_sysmem_map(sizeof(*g));
		if (!g)
			return -ENOMEM;
		__atomic_store_n(&f->top[li], g, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Granules [g0, g1] of leaf li (indices within the leaf): their bits from
 * their non-device counts and the leaf's full count. Writers only. */
static void bits_sync(struct hipsvm_gfilter *f, size_t li, unsigned g0, unsigned g1)
{
	const struct hipsvm_gleaf *g = f->top[li];
	bool full = f->full[HIPSVM_GF_NONDEV][li] != 0;
	uint64_t *bits = f->bits;

	for (unsigned i = g0; i <= g1; i++) {
		size_t gi = ((size_t)li << HIPSVM_GF_LEAF_SHIFT) + i;
		uint64_t w = bits[gi >> 6], bit = UINT64_C(1) << (gi & 63);
		bool on = full || (g && g->g[i].cnt[HIPSVM_GF_NONDEV]);

		if (on != !!(w & bit))
			ST(bits[gi >> 6], on ? w | bit : w & ~bit);
	}
}

void hipsvm_gf_adj(struct hipsvm_gfilter *f, uintptr_t s, uintptr_t l, bool device, int32_t d)
{
	unsigned ncls = device ? 1 : NCLS;

	if (l >= VA_LIMIT) {
		for (unsigned c = 0; c < ncls; c++)
			ST(f->hi[c], f->hi[c] + d);
		if (s >= VA_LIMIT)
			return;
		l = VA_LIMIT - 1;
	}
	for (size_t li = s >> LSPAN_SHIFT; li <= l >> LSPAN_SHIFT; li++) {
		uintptr_t ls = (uintptr_t)li << LSPAN_SHIFT;
		uintptr_t ll = ls + (((uintptr_t)1 << LSPAN_SHIFT) - 1);
		struct hipsvm_gleaf *g = f->top[li];
		unsigned g0, g1;

		if (s <= ls && l >= ll) {
			for (unsigned c = 0; c < ncls; c++)
				ST(f->full[c][li], f->full[c][li] + d);
			if (!device && f->bits)
				bits_sync(f, li, 0, GLEAF_N - 1);
			continue;
		}
		g0 = ((s > ls ? s : ls) >> GRAN_SHIFT) & (GLEAF_N - 1);
		g1 = ((l < ll ? l : ll) >> GRAN_SHIFT) & (GLEAF_N - 1);
		for (unsigned c = 0; c < ncls; c++) {
			ST(g->sum[c], g->sum[c] + d * (int32_t)(g1 - g0 + 1));
			for (unsigned i = g0; i <= g1; i++)
				ST(g->g[i].cnt[c], g->g[i].cnt[c] + d);
		}
		if (!device && f->bits)
			bits_sync(f, li, g0, g1);
	}
}

/* May anything of class c lie in [s, l]? Reads only, no lock. */
bool hipsvm_gf_hit(const struct hipsvm_gfilter *f, uintptr_t s, uintptr_t l, unsigned c)
{
	if (l >= VA_LIMIT) {
		if (LD(f->hi[c]))
			return true;
		if (s >= VA_LIMIT)
			return false;
		l = VA_LIMIT - 1;
	}
	for (size_t li = s >> LSPAN_SHIFT; li <= l >> LSPAN_SHIFT; li++) {
		const struct hipsvm_gleaf *g;
		uintptr_t ls = (uintptr_t)li << LSPAN_SHIFT;
		uintptr_t ll = ls + (((uintptr_t)1 << LSPAN_SHIFT) - 1);
		unsigned g0, g1;

		if (LD(f->full[c][li]))
			return true;
		g = __atomic_load_n(&f->top[li], __ATOMIC_ACQUIRE);
		if (!g)
			continue;
		g0 = ((s > ls ? s : ls) >> GRAN_SHIFT) & (GLEAF_N - 1);
		g1 = ((l < ll ? l : ll) >> GRAN_SHIFT) & (GLEAF_N - 1);
		/* A leaf whose allocations are all gone costs one line. */
		if (!LD(g->sum[c]))
			continue;
		for (unsigned i = g0; i <= g1; i++)
			if (LD(g->g[i].cnt[c]))
				return true;
	}
	return false;
}

bool hipsvm_gf_svm_clear_span(const uint64_t *bits, uintptr_t addr, size_t len)
{
	uintptr_t last = addr + len - 1, g0, g1;

	if (!bits || !len)
		return true;
	if (last < addr || last >= VA_LIMIT)
		return false;
	g0 = addr >> GRAN_SHIFT;
	g1 = last >> GRAN_SHIFT;
	/* Past 64 words (8 GiB) the filter's per-leaf sums answer faster than
	 * the bitmap, whose untouched pages would be read one by one. */
	if (g1 - g0 >= 64 * 64)
		return false;
	for (uintptr_t w = g0 >> 6; w <= g1 >> 6; w++) {
		uint64_t m = ~UINT64_C(0);

		if (w == g0 >> 6)
			m &= ~UINT64_C(0) << (g0 & 63);
		if (w == g1 >> 6)
			m &= ~UINT64_C(0) >> (63 - (g1 & 63));
		if (LD(bits[w]) & m)
			return false;
	}
	return true;
}

uint32_t hipsvm_gf_hint(const struct hipsvm_gfilter *f, uintptr_t addr)
{
	const struct hipsvm_gleaf *g;

	if (addr >= VA_LIMIT)
		return 0;
	g = __atomic_load_n(&f->top[addr >> LSPAN_SHIFT], __ATOMIC_ACQUIRE);
	return g ? LD(g->g[(addr >> GRAN_SHIFT) & (GLEAF_N - 1)].hint) : 0;
}

/* Points the granules of a new piece at its tree leaf (the first few only:
 * a hint is a shortcut, and a huge piece is found by a descent anyway). */
void hipsvm_gf_set_hint(struct hipsvm_gfilter *f, uintptr_t s, uintptr_t l, uint32_t leaf)
{
	for (unsigned k = 0; k < HINT_MAX && s < VA_LIMIT && s <= l; k++) {
		struct hipsvm_gleaf *g = f->top[s >> LSPAN_SHIFT];
		uintptr_t next = (s | (((uintptr_t)1 << GRAN_SHIFT) - 1)) + 1;

		if (g)
			ST(g->g[(s >> GRAN_SHIFT) & (GLEAF_N - 1)].hint, leaf);
		if (next == 0)
			break;
		s = next;
	}
}


void hipsvm_gf_destroy(struct hipsvm_gfilter *f)
{
	if (f->bits)
		hipsvm_sysmem_unmap(f->bits, BITS_BYTES);
	for (size_t li = 0; li < TOP_N; li++)
		if (f->top[li])
			hipsvm_sysmem_unmap(f->top[li], sizeof(struct hipsvm_gleaf));
}
