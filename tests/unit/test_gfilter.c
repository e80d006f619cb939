/* SPDX-License-Identifier: MIT */
/*
 * test_gfilter.c - the granule bitmap in front of the granule filter
 * (src/shim/gfilter.c), which the unmap hot path trusts to skip the registry:
 * seeded random pieces of device and SVM kinds, small and leaf-covering,
 * against a brute-force count per granule; every answer of
 * hipsvm_gf_svm_clear and hipsvm_gf_svm_clear_one is checked against the
 * model, and "clear" must never hide a piece that hipsvm_gf_hit sees (a
 * range of 8 GiB or more is never "clear": the filter's leaf sums answer
 * it). The seed is printed; HIPSVM_TEST_SEED replays it.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "shim/gfilter.h"
#include "test_rand.h"

#define G	((uintptr_t)1 << HIPSVM_GF_GRAN_SHIFT)
#define LEAF	(G << HIPSVM_GF_LEAF_SHIFT)		/* 32 GiB */
/* The window the model covers: three leaves, so that pieces cross leaf
 * boundaries and one can cover a middle leaf whole (full[]). */
#define W0	((uintptr_t)5 * LEAF)
#define NG	(3u << HIPSVM_GF_LEAF_SHIFT)

static struct hipsvm_gfilter f;
static uint32_t svm_cnt[NG];		/* SVM pieces touching each granule */

static void fresh(void)
{
	memset(&f, 0, sizeof(f));
	memset(svm_cnt, 0, sizeof(svm_cnt));
}

static void fini(void)
{
	hipsvm_gf_destroy(&f);
}

TestSuite(gfilter, .init = fresh, .fini = fini);

static void put(uintptr_t s, uintptr_t l, bool device, int d)
{
	if (d > 0)
		cr_assert_eq(hipsvm_gf_prepare(&f, s, l), 0);
	hipsvm_gf_adj(&f, s, l, device, d);
	if (device)
		return;
	for (uintptr_t g = (s - W0) / G; g <= (l - W0) / G; g++)
		svm_cnt[g] += (uint32_t)d;
}

static bool model_clear(uintptr_t a, size_t len)
{
	uintptr_t l = a + len - 1;

	if (!len)
		return true;
	for (uintptr_t g = (a - W0) / G; g <= (l - W0) / G; g++)
		if (svm_cnt[g])
			return false;
	return true;
}

static void check(uintptr_t a, size_t len)
{
	const uint64_t *bits = __atomic_load_n(&f.bits, __ATOMIC_ACQUIRE);
	/* 8 GiB or more: left to the filter's leaf sums, never "clear" */
	bool longer = bits && len && (a + len - 1) / G - a / G >= 64 * 64;
	bool want = model_clear(a, len) && !longer, got = hipsvm_gf_svm_clear(bits, a, len);

	cr_assert_eq(got, want, "[%#lx, +%#zx): clear %d, model %d", (unsigned long)a, len, got,
		     want);
	/* the inline one-granule answer is never "clear" where the full one
	 * is not, and agrees with it within a granule */
	if (hipsvm_gf_svm_clear_one(bits, a, len))
		cr_assert(got);
	else if (len && a / G == (a + len - 1) / G && bits)
		cr_assert(!got);
	/* the filter behind it agrees: "clear" never hides an SVM piece */
	if (got && len)
		cr_assert(!hipsvm_gf_hit(&f, a, a + len - 1, HIPSVM_GF_NONDEV));
}

Test(gfilter, no_bitmap_until_an_svm_piece)
{
	cr_assert_null(f.bits);
	cr_assert(hipsvm_gf_svm_clear(NULL, W0, 4096));
	cr_assert(hipsvm_gf_svm_clear_one(NULL, W0, 4096));
	put(W0 + 3 * G, W0 + 3 * G + 4095, false, 1);
	cr_assert_not_null(f.bits);
	check(W0 + 3 * G, 4096);
	check(W0 + 3 * G + 8192, 4096);	/* same granule: tracked maybe */
	check(W0 + 4 * G, 4096);
	check(W0, 8 * G);
	put(W0 + 3 * G, W0 + 3 * G + 4095, false, -1);
	check(W0 + 3 * G, 4096);
}

Test(gfilter, device_pieces_leave_the_bits_clear)
{
	put(W0 + G, W0 + 9 * G - 1, true, 1);
	put(W0 + 20 * G, W0 + 20 * G + 255, false, 1);	/* maps the bitmap */
	check(W0 + G, 8 * G);
	check(W0 + 2 * G, 4096);
	check(W0 + 20 * G, 256);
}

Test(gfilter, edges_are_never_clear_by_mistake)
{
	const uint64_t *bits;

	put(W0, W0 + 4095, false, 1);
	bits = f.bits;
	/* empty: nothing to take */
	cr_assert(hipsvm_gf_svm_clear(bits, W0, 0));
	/* wraps, or reaches 2^48: asked of the filter instead */
	cr_assert_not(hipsvm_gf_svm_clear(bits, UINTPTR_MAX - 4095, 8192));
	cr_assert_not(hipsvm_gf_svm_clear(bits, ((uintptr_t)1 << 48) - 4096, 8192));
	cr_assert_not(hipsvm_gf_svm_clear_one(bits, (uintptr_t)1 << 48, 4096));
	cr_assert_not(hipsvm_gf_svm_clear_one(bits, UINTPTR_MAX - 4095, 4096));
	/* the last granule below 2^48 is in the bitmap */
	cr_assert(hipsvm_gf_svm_clear(bits, ((uintptr_t)1 << 48) - 4096, 4096));
}

Test(gfilter, a_piece_over_a_whole_leaf)
{
	/* covers leaf 6 whole (full[]) and the ends of its neighbours */
	uintptr_t s = W0 + LEAF - 2 * G, l = W0 + 2 * LEAF + 3 * G - 1;

	put(s, l, false, 1);
	check(W0 + LEAF + 12345 * G, 4096);
	check(W0 + LEAF - 3 * G, G);
	check(W0 + 2 * LEAF + 3 * G, 4096);
	check(W0 + 2 * LEAF + 2 * G, 4096);
	/* a small piece inside the covered leaf outlives the big one */
	put(W0 + LEAF + 7 * G, W0 + LEAF + 7 * G + 4095, false, 1);
	put(s, l, false, -1);
	check(W0 + LEAF + 7 * G, 4096);
	check(W0 + LEAF + 8 * G, 4096);
	check(W0 + LEAF, LEAF);
}

#define NP 512

Test(gfilter, random_pieces_against_the_model)
{
	uint64_t seed = test_seed(0x6f1b2c3d4e5f6071), r = seed;
	static struct {
		uintptr_t s, l;
		bool device, live;
	} p[NP];

	cr_log_info("seed %#llx (HIPSVM_TEST_SEED replays it)", (unsigned long long)seed);
	for (unsigned step = 0; step < 20000; step++) {
		unsigned k = (unsigned)(rnd(&r) % NP);
		uintptr_t a;
		size_t len;

		if (p[k].live) {
			put(p[k].s, p[k].l, p[k].device, -1);
			p[k].live = false;
		} else {
			uint64_t shape = rnd(&r) % 100;
			uintptr_t span = shape < 2 ? LEAF + rnd(&r) % LEAF :	/* over a leaf */
					 shape < 20 ? rnd(&r) % (64 * G) + 1 :	/* granules */
					 rnd(&r) % (64 * 4096) + 1;		/* pages */

			p[k].s = W0 + rnd(&r) % ((uintptr_t)NG * G - span);
			p[k].l = p[k].s + span - 1;
			p[k].device = rnd(&r) % 3 == 0;
			p[k].live = true;
			put(p[k].s, p[k].l, p[k].device, 1);
		}
		/* queries: a page, a granule-sized range, a long one */
		a = W0 + rnd(&r) % ((uintptr_t)NG * G - 130 * G);
		len = rnd(&r) % 3 == 0 ? rnd(&r) % (128 * G) + 1 : 4096;
		check(a, len);
		check(a & ~(G - 1), G);
	}
	for (unsigned k = 0; k < NP; k++)
		if (p[k].live)
			put(p[k].s, p[k].l, p[k].device, -1);
	for (unsigned g = 0; g < NG; g += 97)
		check(W0 + g * (uintptr_t)G, G);
	check(W0, (size_t)NG * G);
}
